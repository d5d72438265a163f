#ifndef WH_KUBE_LEADER_H
#define WH_KUBE_LEADER_H

/* Leader election on a coordination.k8s.io/v1 Lease, the way client-go's leaderelection does
 * it, so that with --leader-elect exactly one replica writes the certificate Secret and the
 * caBundles while every replica serves:
 * - acquire: create the Lease, or take it over when its holder is empty or its record has not
 *   changed for leaseDurationSeconds as measured on our own clock (so clock skew between nodes
 *   does not matter), with a PUT carrying the read resourceVersion; a 409 means someone else
 *   won this round;
 * - renew: every retry period, PUT renewTime with the read resourceVersion; leadership is
 *   given up when no renewal succeeded for the renew deadline, which is shorter than the
 *   lease duration, so an old leader stops before a new one can start;
 * - release on stop: holderIdentity emptied and leaseDurationSeconds 1, so a successor need
 *   not wait.
 * Thread rule: one election thread per elector; wh_leader_is_leader is thread-safe;
 * start/stop from one thread. wh_leader_step is for tests and must not be mixed with a
 * started thread. */

#include <stdbool.h>
#include <stdint.h>

#include "kube/client.h"
#include "util/err.h"

struct wh_leader;

struct wh_leader_opts {
    const char *ns;       /* the Lease's namespace */
    const char *name;     /* the Lease's name */
    const char *identity; /* this replica; unique among candidates */
    int64_t lease_duration_ms;
    int64_t renew_deadline_ms; /* < lease_duration_ms */
    int64_t retry_period_ms;   /* < renew_deadline_ms */
    /* Called on the election thread when leadership starts or ends (may be NULL). */
    void (*on_change)(void *arg, bool leading);
    void *arg;
};

/* Makes an elector (client borrowed; it must outlive the elector). WH_ERR_INVALID when the
 * durations are not ordered as above or a name is empty. */
WH_NODISCARD enum wh_err wh_leader_new(struct wh_kube_client *client,
                                             const struct wh_leader_opts *o,
                                             struct wh_leader **out, struct wh_errbuf *eb);
/* Starts the election thread. */
WH_NODISCARD enum wh_err wh_leader_start(struct wh_leader *l);
/* Stops the thread (within about a second), releases the Lease when held, frees l. Accepts
 * NULL. */
void wh_leader_free(struct wh_leader *l);

/* True while we hold the Lease and the last successful renewal is younger than the renew
 * deadline. */
bool wh_leader_is_leader(const struct wh_leader *l);

/* One acquire-or-renew attempt now (what the thread does every retry period). *leading tells
 * the outcome; errors are those of the API (a lost race is not an error). */
WH_NODISCARD enum wh_err wh_leader_step(struct wh_leader *l, bool *leading,
                                              struct wh_errbuf *eb);

/* Returns: borrowed; the identity. */
const char *wh_leader_identity(const struct wh_leader *l);

#endif
