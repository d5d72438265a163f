#ifndef WH_KUBE_RMW_H
#define WH_KUBE_RMW_H

/* Read, modify, write one Kubernetes object under optimistic concurrency: the one retry loop of
 * the program for writes that must not lose a concurrent change (status bookkeeping of
 * WorkloadSpreads and PodUnavailableBudgets, the certificate Secret, serving reports, Leases).
 *
 *   1. current = the base the caller offers (a cached copy), else a live read;
 *   2. decide(current) says what to write, or that nothing needs writing;
 *   3. write it with current's resourceVersion (create when the object is absent and the
 *      target allows it);
 *   4. on 409 Conflict: pause (jittered, growing), read live, and go to 2 -- until the
 *      attempts or the deadline run out.
 * A dry run decides but never writes. The decision sees every attempt's current object, so a
 * budget decremented by another writer in between is decided against again, never lost.
 * Thread rule: thread-safe; a call belongs to its thread. */

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "kube/client.h"
#include "util/err.h"

/* Decides what to write from the object as it is now. current: borrowed, read-only; NULL when
 * the object does not exist (only when the target allows creating it). Sets *desired to a new
 * ref holding the whole object to write (for a status write, the object with its new status;
 * the loop sets its resourceVersion), or leaves it NULL: nothing to write, the loop ends with
 * WH_OK. A non-OK return ends the loop with that code and eb. Called once per attempt. */
typedef enum wh_err (*wh_rmw_decide_fn)(void *arg, const json_t *current, json_t **desired,
                                        struct wh_errbuf *eb);

/* How the loop reads and writes the object; wh_rmw_kube_io fills one for an API path, and the
 * cluster (kube/cluster.h) one that also serves standalone state. */
struct wh_rmw_io {
    /* Live read. Returns in *out: new ref. WH_ERR_NOT_FOUND when absent. */
    enum wh_err (*get)(void *arg, json_t **out, struct wh_errbuf *eb);
    /* Writes obj (borrowed): create (POST) or update (PUT with obj's resourceVersion, to the
     * status subresource for status targets). WH_ERR_CONFLICT on a stale resourceVersion or
     * when a create finds the object. Returns in *stored (may be NULL): new ref. */
    enum wh_err (*put)(void *arg, const json_t *obj, bool create, json_t **stored,
                       struct wh_errbuf *eb);
    void *arg;
};

struct wh_rmw_opts {
    const json_t *base;  /* first attempt's current object (borrowed), e.g. cached; NULL: read */
    bool create;         /* an absent object is created from the decision; else WH_ERR_NOT_FOUND */
    bool dry_run;        /* decide, never write */
    /* a decision to write nothing made on base is made again on a live read: a write proves
     * its base was current (or conflicts), a decision to write nothing proves nothing */
    bool confirm_unchanged;
    int max_attempts;    /* writes tried at most; 0 = until the deadline */
    int64_t deadline_ns; /* monotonic; 0 = the thread's (util/deadline.h), else 30 s from now */
    int64_t backoff_ms;  /* first pause after a conflict; 0 = 10 ms (client-go's
                            retry.DefaultRetry); pauses double up to 1 s, with 10 % jitter */
};

struct wh_rmw_result {
    json_t *stored;  /* new ref: the object as stored by the last write (NULL when none) */
    json_t *decided; /* new ref: the last decision (set in dry runs too; NULL when none) */
    int writes;      /* write attempts made */
    int conflicts;   /* of which answered 409 */
};

/* Runs the loop. On WH_OK the decision was written (or nothing needed writing, or dry run).
 * WH_ERR_CONFLICT when the attempts ran out on conflicts; WH_ERR_TIMEOUT when the deadline
 * passed (eb says after how many conflicts); WH_ERR_NOT_FOUND when the object is absent and
 * not to be created; other errors of get/put/decide as they come. res (may be NULL) must be
 * released with wh_rmw_result_fini. */
WH_NODISCARD enum wh_err wh_rmw_run(const struct wh_rmw_io *io, const struct wh_rmw_opts *opts,
                                    wh_rmw_decide_fn decide, void *arg, struct wh_rmw_result *res,
                                    struct wh_errbuf *eb);

void wh_rmw_result_fini(struct wh_rmw_result *res);

/* The io of an object at an API path (wh_kube_path, without the subresource): get and PUT it
 * (PUT to path/status when status), create by POST to collection_path. The strings are
 * borrowed and must outlive the io. */
struct wh_rmw_kube {
    struct wh_kube_client *client;
    const char *path;            /* the object */
    const char *collection_path; /* for creates; NULL when the loop never creates */
    bool status;
    struct wh_kube_status st; /* the last call's details */
};
void wh_rmw_kube_io(struct wh_rmw_kube *k, struct wh_rmw_io *io);

/* True when resource version a is newer than b. Versions are opaque to clients, but every API
 * server in use writes etcd revisions (decimal); anything else compares as not newer. */
bool wh_rmw_newer(const char *a, const char *b);

#endif
