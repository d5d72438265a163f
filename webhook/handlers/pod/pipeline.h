#ifndef WH_HANDLERS_POD_PIPELINE_H
#define WH_HANDLERS_POD_PIPELINE_H

/* The Pod webhooks as a frame that features plug into. Upstream runs several features on one
 * decoded Pod in a fixed order (spec workloadspread.md 7 and 8, pub.md 6):
 *   /mutate-pod   (pods CREATE):  readiness gate, WorkloadSpread, SidecarSet, PodUnavailableBudget
 *   /validate-pod (pods UPDATE/DELETE, pods/eviction CREATE): WorkloadSpread, PodUnavailableBudget
 * A feature exports one struct wh_pod_step; pipeline.c lists the steps of each path in that
 * order. /mutate-pod's steps edit one copy-on-write Pod and the answer is one patch (no change:
 * no patch); any step error answers 500 with no patch (a Pod that cannot be decoded: 400).
 * /validate-pod's steps run until the first denial, which is the answer; a step error answers
 * 400 with its message. Dry runs and the offline inject command run every step (answers are
 * computed) but nothing is written: steps read wh_pod_review.dry_run.
 * Thread rule: the step tables are immutable; runs are per request. */

#include <stdbool.h>

#include "handlers/pod/review.h"
#include "handlers/registry.h"
#include "kube/cluster.h"
#include "util/err.h"

struct wh_pod_step {
    const char *name;      /* "sidecarset", "workloadspread", "pub", ... (explain, logs) */
    unsigned mutate_ops;   /* enum wh_pod_op mask handled on /mutate-pod */
    unsigned validate_ops; /* ... on /validate-pod */
    bool side_effects;     /* writes to the API server (status bookkeeping) */
    /* feature gates; NULL: always on */
    bool (*enabled)(const struct wh_config *cfg);
    /* declares the caches the step reads (wh_cluster_declare ...); NULL: none */
    enum wh_err (*setup)(struct wh_cluster *cl, const struct wh_config *cfg, struct wh_errbuf *eb);
    /* /mutate-pod: edit through wh_pod_review_own, or deny through pr->resp */
    enum wh_err (*mutate)(struct wh_pod_review *pr, struct wh_errbuf *eb);
    /* /validate-pod: deny through wh_admission_deny(pr->resp, ...) to stop the pipeline */
    enum wh_err (*validate)(struct wh_pod_review *pr, struct wh_errbuf *eb);
};

/* Options of one /mutate-pod run (all optional), for the offline inject command and tests. */
struct wh_pod_run_opts {
    time_t now;
    wh_pod_explain_fn explain;
    void *explain_arg;
};

/* The route handlers (wh_admit_fn). */
WH_NODISCARD enum wh_err wh_pod_mutate_admit(const struct wh_handler_ctx *ctx,
                                             const struct wh_admission_request *req,
                                             struct wh_admission_response *resp,
                                             struct wh_errbuf *eb);
WH_NODISCARD enum wh_err wh_pod_validate_admit(const struct wh_handler_ctx *ctx,
                                               const struct wh_admission_request *req,
                                               struct wh_admission_response *resp,
                                               struct wh_errbuf *eb);

/* /mutate-pod with options (opts may be NULL). */
WH_NODISCARD enum wh_err wh_pod_mutate_run(const struct wh_handler_ctx *ctx,
                                           const struct wh_admission_request *req,
                                           struct wh_admission_response *resp,
                                           const struct wh_pod_run_opts *opts,
                                           struct wh_errbuf *eb);

/* The runners behind the routes, over any list of steps (tests run their own). */
WH_NODISCARD enum wh_err wh_pod_run_mutate(const struct wh_pod_step *const *steps, size_t nsteps,
                                           const struct wh_handler_ctx *ctx,
                                           const struct wh_admission_request *req,
                                           struct wh_admission_response *resp,
                                           const struct wh_pod_run_opts *opts,
                                           struct wh_errbuf *eb);
WH_NODISCARD enum wh_err wh_pod_run_validate(const struct wh_pod_step *const *steps, size_t nsteps,
                                             const struct wh_handler_ctx *ctx,
                                             const struct wh_admission_request *req,
                                             struct wh_admission_response *resp,
                                             struct wh_errbuf *eb);

/* Both routes are served when feature gate PodWebhook is on. */
bool wh_pod_routes_enabled(const struct wh_config *cfg);

/* Runs the setup of every step enabled by cfg, once each. */
WH_NODISCARD enum wh_err wh_pod_routes_setup(struct wh_cluster *cl, const struct wh_config *cfg,
                                             struct wh_errbuf *eb);

/* Returns: the steps of /mutate-pod (validate false) or /validate-pod in their order. */
const struct wh_pod_step *const *wh_pod_steps(bool validate, size_t *count);

#endif
