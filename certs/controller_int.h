#ifndef WH_CERTS_CONTROLLER_INT_H
#define WH_CERTS_CONTROLLER_INT_H

/* What the parts of the certificate controller share (only they include this). Each part does
 * one thing, and calls only the parts listed below it (no circles):
 *  controller.c           life cycle and the public API (certs/controller.h), metrics
 *  controller_loop.c      the reconcile loop: triggers, one sync (store, cert dir, caBundles,
 *                         rotation end), backoff, the per-tick work (initialised, report)
 *  controller_selfcall.c  readiness: calling this server as the API server will
 *  controller_store.c     the stores: the Secret writer and reader, external certificates,
 *                         the cert dir as the store (URL mode)
 *  controller_rotation.c  CA rotation: which old CAs stay trusted, publishing them ahead of
 *                         a new CA, and when they may go
 *  controller_inject.c    caBundle injection into the webhook configurations and CRDs, and
 *                         its verification
 *  controller_common.c    the controller's shared state: kinds, wake-ups, write counting
 * Thread rule: as controller.h; everything here runs on the controller thread (or the caller
 * of wh_certs_controller_sync) unless it says otherwise. */

#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "certs/bundle.h"
#include "certs/controller.h"
#include "certs/env.h"
#include "certs/inject.h"
#include "certs/keypair.h"
#include "kube/cache.h"
#include "kube/rmw.h"
#include "metrics/metrics.h"
#include "util/err.h"

#define WH_CTL_MS 1000000LL /* nanoseconds in a millisecond */

/* The objects the controller writes, for messages and metrics. */
enum wh_ctl_kind { WH_CTL_SECRET, WH_CTL_MUTATING, WH_CTL_VALIDATING, WH_CTL_CRD, WH_CTL_KINDS };

/* "Secret", "MutatingWebhookConfiguration", ... */
extern const char *const wh_ctl_kind_names[WH_CTL_KINDS];

struct wh_ctl_metrics {
    struct wh_metric *not_after_ca, *not_after_serving;
    struct wh_metric *gen_ca, *gen_serving, *rotations_done;
    struct wh_metric *writes[WH_CTL_KINDS], *failures[WH_CTL_KINDS];
    struct wh_metric *sync_ok, *sync_err;
    struct wh_metric *bundle_cas, *writer, *initialized;
    struct wh_metric *trusted, *renew_before;
    struct wh_metric *drift[WH_CTL_KINDS]; /* configurations and CRDs left unrepaired */
};

struct wh_certs_controller {
    const struct wh_config *cfg;
    struct wh_cluster *cluster;
    struct wh_kube_client *client; /* the cluster's */
    struct wh_certs_env env;
    enum wh_certs_writer mode;
    struct wh_certs_target target; /* borrowed from env */
    char *dns_name;
    struct wh_certs_gen_opts gen;
    struct wh_certs_hooks hooks;
    char *identity;
    char *lease_name;
    struct wh_cache *secrets, *mutating, *validating, *crds;
    struct wh_informer *secret_informer; /* ours: only our Secret, not the whole namespace */
    char *secret_selector;
    struct wh_leader *leader;       /* NULL without --leader-elect */
    struct wh_certs_report *report; /* secret mode only */

    /* Controller thread only (or the caller of wh_certs_controller_sync). */
    struct wh_certs_bundle *current; /* the material in effect after the last good store step */
    char *previous;                  /* old CAs still published (PEM), NULL when none */
    time_t previous_since;
    char *secret_rv; /* resourceVersion of the Secret as last read or written */
    char serial[80]; /* normalised serial of current's serving certificate */
    bool synced_ok;  /* the last sync succeeded */
    bool rotation_pending;
    int64_t backoff_ms;
    int64_t last_write_ns[WH_CTL_KINDS];    /* monotonic, per configuration: fights with */
    uint64_t last_write_hash[WH_CTL_KINDS]; /* another writer (controller_inject.c) */
    char logged_error[256];                 /* the sync problem last logged, and when */
    int64_t logged_ns;
    uint64_t dir_mark; /* wh_certs_fs_fingerprint of the cert dir after the last write */
    bool dir_marked;

    pthread_t thread;
    bool started;
    pthread_mutex_t mu; /* guards stop, trigger, st; the cond var uses the monotonic clock */
    pthread_cond_t cv;
    bool stop;
    bool trigger;
    bool stopped; /* wh_certs_controller_stop ran (main thread only) */
    atomic_bool initialized;
    atomic_bool called;    /* the self-call succeeded (sticky) */
    int64_t next_call_ns;  /* controller thread only */
    char call_error[256];  /* the last self-call failure; guarded by mu */
    char wait_reason[256]; /* what initialisation waits for after a good sync; guarded by mu */
    struct wh_certs_controller_status st;
    struct wh_ctl_metrics m;
};

/* --- controller_common.c -----------------------------------------------------------------------
 */

/* Wakes the controller thread for a sync. Thread-safe. */
void wh_ctl_trigger(struct wh_certs_controller *c);
/* *ts = the monotonic clock ns from now (the cond var's clock). */
void wh_ctl_deadline_after(struct timespec *ts, int64_t ns);
/* Sleeps ms unless stopped first. Returns true when stopping. Triggers stay pending. */
bool wh_ctl_sleep_unless_stopped(struct wh_certs_controller *c, int64_t ms);
/* Counts one write of kind k for the metrics and the status (rc: its outcome). */
void wh_ctl_count_write(struct wh_certs_controller *c, enum wh_ctl_kind k, enum wh_err rc);
/* Counts the writes of one kube/rmw loop: each conflict failed, the last as rc. */
void wh_ctl_count_writes(struct wh_certs_controller *c, enum wh_ctl_kind k,
                         const struct wh_rmw_result *res, enum wh_err rc);
/* The normalised serial of the certificate the HTTPS server presents; false when none. */
bool wh_ctl_serving_serial(struct wh_certs_controller *c, char *out, size_t outsz);

/* --- controller_inject.c -----------------------------------------------------------------------
 */

/* The cache view of a CRD (a wh_cache view function pair; informer threads) and the view of a
 * cached CRD. Returns: borrowed, valid while o lives. */
void *wh_ctl_crd_view_new(const json_t *obj);
void wh_ctl_crd_view_free(void *view);
const json_t *wh_ctl_crd_view(const struct wh_object *o);
/* Whom the entries must reach, trusting bundle (borrowed by t). */
void wh_ctl_target_for(const struct wh_certs_controller *c, const char *bundle, size_t len,
                       struct wh_certs_inject_target *t);
/* The live configuration of kind k (WH_CTL_MUTATING or WH_CTL_VALIDATING). *out: new ref, or
 * NULL when it does not exist (not an error; logged once a minute). */
WH_NODISCARD enum wh_err wh_ctl_get_config(struct wh_certs_controller *c, enum wh_ctl_kind k,
                                           json_t **out, struct wh_errbuf *eb);
/* Writes the caBundle (PEM text) into every served entry and our CRDs where it differs. */
WH_NODISCARD enum wh_err wh_ctl_inject_all(struct wh_certs_controller *c, const char *bundle,
                                           size_t len, struct wh_errbuf *eb);
/* Checks that every served entry and our CRDs hold exactly bundle (exact) or trust it. */
WH_NODISCARD enum wh_err wh_ctl_verify_all(struct wh_certs_controller *c, const char *bundle,
                                           size_t len, bool exact, struct wh_errbuf *eb);

/* --- controller_rotation.c ---------------------------------------------------------------------
 */

/* The CA certificates that clients may trust right now besides fresh's CA: the stored CA, the
 * one in our cert dir, and the CAs of a rotation still in progress. Returns: a new string, ""
 * when none. */
char *wh_ctl_cas_still_trusted(const struct wh_certs_controller *c,
                               const struct wh_certs_bundle *stored, const char *in_progress,
                               const struct wh_certs_bundle *fresh);
/* The caBundle text: b's CA followed by others (may be NULL). Returns: a new string. */
char *wh_ctl_bundle_with(const struct wh_certs_bundle *b, const char *others, size_t *len);
/* Publishes fresh's CA with the old CAs ahead of storing certificates of the new CA, then
 * waits --ca-publish-delay (WH_ERR_INTERNAL when stopped meanwhile). */
WH_NODISCARD enum wh_err wh_ctl_publish_ahead(struct wh_certs_controller *c,
                                              const struct wh_certs_bundle *fresh, const char *old,
                                              struct wh_errbuf *eb);
/* Whether the old CAs (c->previous, not NULL) may go now: every old CA expired (*expired), or
 * every live replica serves the current certificate, this one included, and at least
 * --ca-publish-delay passed since the new CA was stored. */
WH_NODISCARD enum wh_err wh_ctl_rotation_may_end(struct wh_certs_controller *c, bool *may,
                                                 bool *expired, struct wh_errbuf *eb);
/* Forgets the old CAs and publishes the current CA alone. */
WH_NODISCARD enum wh_err wh_ctl_rotation_end(struct wh_certs_controller *c, bool expired,
                                             struct wh_errbuf *eb);

/* --- controller_store.c ------------------------------------------------------------------------
 */

/* What a store step hands to the sync. */
struct wh_ctl_store_result {
    struct wh_certs_bundle *bundle; /* new */
    char *previous;                 /* new; NULL when no rotation is in progress */
    time_t since;
};

void wh_ctl_store_result_fini(struct wh_ctl_store_result *r);
/* The Secret writer with the rotation protocol (CERT-33/34/40/41). */
WH_NODISCARD enum wh_err wh_ctl_secret_writer(struct wh_certs_controller *c,
                                              struct wh_ctl_store_result *res,
                                              struct wh_errbuf *eb);
/* Replicas that do not write: the Secret must exist and be usable now. */
WH_NODISCARD enum wh_err wh_ctl_secret_reader(struct wh_certs_controller *c,
                                              struct wh_ctl_store_result *res,
                                              struct wh_errbuf *eb);
/* CERT-36/37: cert-manager's Secret, used as is. */
WH_NODISCARD enum wh_err wh_ctl_external_reader(struct wh_certs_controller *c,
                                                struct wh_ctl_store_result *res,
                                                struct wh_errbuf *eb);
/* CERT-39: the cert dir is the store (URL mode). */
WH_NODISCARD enum wh_err wh_ctl_fs_writer(struct wh_certs_controller *c,
                                          struct wh_ctl_store_result *res, struct wh_errbuf *eb);
/* Ends a rotation in the Secret: the current certificates without the previous-CA
 * annotations. WH_ERR_CONFLICT when someone else wrote it meanwhile. */
WH_NODISCARD enum wh_err wh_ctl_secret_end_rotation(struct wh_certs_controller *c,
                                                    struct wh_errbuf *eb);

/* --- controller_selfcall.c ---------------------------------------------------------------------
 */

/* Once initialised and until it has worked, calls this server the way the API server will,
 * at most every second. */
void wh_ctl_selfcall_tick(struct wh_certs_controller *c);

/* --- controller_loop.c -------------------------------------------------------------------------
 */

/* Cache and leadership callbacks (informer and election threads): they only wake the loop. */
void wh_ctl_on_secret(void *arg, const struct wh_object *o, const struct wh_object *old);
void wh_ctl_on_config(void *arg, const struct wh_object *o, const struct wh_object *old);
void wh_ctl_on_crd(void *arg, const struct wh_object *o, const struct wh_object *old);
void wh_ctl_on_leadership(void *arg, bool leading);
/* Whether every cache the controller reads has synced (eb, may be NULL, says it when not). */
bool wh_ctl_caches_synced(struct wh_certs_controller *c, struct wh_errbuf *eb);
/* One sync, counted, its problem recorded and logged. */
WH_NODISCARD enum wh_err wh_ctl_sync(struct wh_certs_controller *c, struct wh_errbuf *eb);
/* The cheap work of every wake-up: initialisation, the serving report, the self-call. */
void wh_ctl_tick(struct wh_certs_controller *c);
/* The controller thread. */
void *wh_ctl_main(void *arg);

#endif
