#ifndef WH_CERTS_CONTROLLER_H
#define WH_CERTS_CONTROLLER_H

/* The certificate controller (spec certs.md §3, §5-§12, §15; docs/certificates.md): keeps the
 * certificate store, the cert dir the HTTPS server hot-reloads, and the caBundles of the
 * webhook configurations and CRDs in step, in API mode.
 *
 * One sync (CERT-58), run on triggers and periodically (CERT-59):
 *  1. store: the Secret writer (CERT-33/34, creation races end with one Secret), the
 *     file-system writer (CERT-39, URL mode) or external certificates (CERT-36/37, never
 *     written), picked as CERT-12 says;
 *  2. the cert dir, written atomically (CERT-45..47, keys 0600);
 *  3. caBundle and client config of every served entry of the two configurations named by
 *     --mutating/validating-webhook-configuration-name and of our CRDs (certs/inject.h),
 *     written only where they differ; external mode only verifies (CERT-38);
 *  4. CA rotation: when the CA changes, the caBundles carry old and new CA, first before the
 *     new certificate is stored, then until every live replica reports serving it
 *     (certs/report.h); only then is the old CA dropped.
 * Triggers: changes of our Secret, of the two configurations and of Kruise CRDs (informer
 * caches with change callbacks), the cert dir changed by someone else (looked at every
 * --cert-reload-interval), leadership gained, --certs-resync-period, and every 2 s while a
 * rotation is in progress. Failed syncs back off from 5 ms to 30 s; syncs are at
 * least 100 ms apart, so a fight with another writer cannot become a storm.
 * In URL mode a deleted or spoiled cert dir gets the material in effect back while it is
 * valid; a renewal margin not shorter than the certificates' validity is refused, and a
 * certificate that would be due at once is never stored.
 * The parts: see certs/controller_int.h.
 * Replicas: every replica runs it and serves; with --leader-elect only the Lease holder
 * writes (kube/leader.h), the others read the Secret, write their own cert dir and wait
 * until the caBundles trust their CA.
 * Initialised (sticky, as upstream) once a sync succeeded and the HTTPS server presents the
 * certificate that sync wrote; /readyz waits for it (no crash when files are missing).
 *
 * Threads: the controller thread (syncs, reports), the informer of our Secret (started by
 * wh_certs_controller_new; a field selector keeps the namespace's other Secrets out), and
 * with --leader-elect the election thread. Thread rule: new/start/wait/free from the main thread;
 * the ready check and status are thread-safe; cache callbacks only set a flag. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/config.h"
#include "kube/cluster.h"
#include "util/err.h"

struct wh_certs_controller;

/* What the controller needs from the server around it. certs/ sits below the server and the
 * handlers, so main.c wires these (tests wire fakes); serves and serving_serial are required. */
struct wh_certs_hooks {
    /* True when this server answers path: only those webhook entries are pointed at it. */
    bool (*serves)(void *arg, const char *path);
    void *serves_arg;
    /* True when this server has a handler for path, even one turned off (serves_arg is the
     * argument): our entries for such paths are removed. NULL: none is ever removed. */
    bool (*knows)(void *arg, const char *path);
    /* The serial (hex) of the certificate the HTTPS server presents now; false when none. */
    bool (*serving_serial)(void *arg, char *buf, size_t bufsz);
    void *serial_arg;
    /* This replica's identity in Leases (NULL: <hostname>_<8 random hex digits>). */
    const char *identity;
    /* The port the HTTPS server listens on, 0 while it does not yet; thread-safe. NULL: no
     * self-call (wh_certs_controller_called is then true at once). */
    int (*https_port)(void *arg);
    void *https_arg;
};

/* Makes the controller for cfg (borrowed: it must outlive the controller) on an API-mode
 * cluster, declaring the caches it watches; call before wh_cluster_start. hooks is borrowed for
 * the call (its strings are copied).
 * WH_ERR_INVALID for a standalone cluster or unusable settings (eb says which). */
WH_NODISCARD enum wh_err wh_certs_controller_new(struct wh_cluster *cl, const struct wh_config *cfg,
                                                 const struct wh_certs_hooks *hooks,
                                                 struct wh_certs_controller **out,
                                                 struct wh_errbuf *eb);

/* Starts the controller thread (and the election thread). After wh_cluster_start. */
WH_NODISCARD enum wh_err wh_certs_controller_start(struct wh_certs_controller *c,
                                                   struct wh_errbuf *eb);

/* Waits until initialised, at most timeout_ms. Returns whether it is. */
bool wh_certs_controller_wait_initialized(struct wh_certs_controller *c, int64_t timeout_ms);
bool wh_certs_controller_initialized(struct wh_certs_controller *c);

/* A wh_ready_fn (server/health.h): ready once initialised; why gives the last problem. */
bool wh_certs_controller_ready(void *controller, char *why, size_t whysz);

/* A wh_ready_fn: true once, after initialisation, this replica has called itself the way the
 * API server will (certs/selfcall.h) through every distinct caBundle and name that the served
 * entries of the two configurations and our CRDs' conversions hold (none: nothing to call,
 * true), retried every second until it works; sticky. why gives the last failure. */
bool wh_certs_controller_called(void *controller, char *why, size_t whysz);

/* Stops the threads, withdraws this replica's serving report and releases the Lease (so it
 * uses the cluster's client: call it while the cluster lives). Idempotent; accepts NULL. */
void wh_certs_controller_stop(struct wh_certs_controller *c);
/* Stops (if not done) and frees c. The informers of the cluster call back into c, so free it
 * after wh_cluster_free (having called wh_certs_controller_stop before). Accepts NULL. */
void wh_certs_controller_free(struct wh_certs_controller *c);

/* One sync on the calling thread (tests; never together with a started controller), after
 * waiting up to 5 s for the informer caches. With
 * --leader-elect the caller decides leadership through wh_certs_controller_step_election. */
WH_NODISCARD enum wh_err wh_certs_controller_sync(struct wh_certs_controller *c,
                                                  struct wh_errbuf *eb);
/* One election attempt on the calling thread (tests). *leading tells the outcome. */
WH_NODISCARD enum wh_err wh_certs_controller_step_election(struct wh_certs_controller *c,
                                                           bool *leading, struct wh_errbuf *eb);

struct wh_certs_controller_status {
    bool initialized;
    bool writer;          /* this replica writes (not external; leader or no election) */
    bool rotating;        /* old CAs are still published */
    int bundle_cas;       /* CA certificates in the published caBundle */
    long long syncs;      /* successful syncs */
    long long failures;   /* failed syncs */
    long long writes;     /* objects written (Secret, configurations, CRDs) */
    char serial[80];      /* serial of the serving certificate in the store (normalised) */
    char last_error[256]; /* "" after a success */
};

void wh_certs_controller_status(struct wh_certs_controller *c,
                                struct wh_certs_controller_status *st);

#endif
