#ifndef WH_HANDLERS_POD_PIPELINE_H
#define WH_HANDLERS_POD_PIPELINE_H

/* The Pod webhooks as a frame that features plug into (handlers/pod/step.h): pipeline.c lists
 * the steps of each path in upstream's order (pod_create_update_handler.go):
 *   /mutate-pod   (pods CREATE):  readiness gate, WorkloadSpread, SidecarSet, container launch
 *                                 priority, PodUnavailableBudget, PersistentPodState, the
 *                                 enhanced liveness probe, PodProbeMarker
 *   /validate-pod (pods UPDATE/DELETE, pods/eviction CREATE): WorkloadSpread,
 *                                 PodUnavailableBudget
 * and runs them: a Pod that cannot be decoded is a 400 before any step runs.
 * Thread rule: the step lists and routes are immutable; runs are per request. */

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "handlers/handler.h"
#include "handlers/pod/review.h"
#include "handlers/pod/step.h"
#include "util/err.h"

/* The two routes, served when feature gate PodWebhook is on. */
extern const struct wh_route wh_pod_mutate_route;
extern const struct wh_route wh_pod_validate_route;

/* Their handlers (wh_admit_fn) and their setup: every enabled step's, once each. */
WH_NODISCARD enum wh_err wh_pod_mutate_admit(const struct wh_handler_ctx *ctx,
                                             const struct wh_admission_request *req,
                                             struct wh_admission_response *resp,
                                             struct wh_errbuf *eb);
WH_NODISCARD enum wh_err wh_pod_validate_admit(const struct wh_handler_ctx *ctx,
                                               const struct wh_admission_request *req,
                                               struct wh_admission_response *resp,
                                               struct wh_errbuf *eb);
WH_NODISCARD enum wh_err wh_pod_routes_setup(struct wh_cluster *cl, const struct wh_config *cfg,
                                             struct wh_errbuf *eb);

/* Options of one run (all optional), for the inject and explain commands and tests. */
struct wh_pod_run_opts {
    time_t now;
    wh_pod_explain_fn explain;
    void *explain_arg;
};

/* /mutate-pod with options (opts may be NULL). */
WH_NODISCARD enum wh_err wh_pod_mutate_run(const struct wh_handler_ctx *ctx,
                                           const struct wh_admission_request *req,
                                           struct wh_admission_response *resp,
                                           const struct wh_pod_run_opts *opts,
                                           struct wh_errbuf *eb);

/* /validate-pod with options (opts may be NULL; its now is not used). */
WH_NODISCARD enum wh_err wh_pod_validate_run(const struct wh_handler_ctx *ctx,
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

/* Returns: the steps of /mutate-pod (validate false) or /validate-pod in their order. */
const struct wh_pod_step *const *wh_pod_steps(bool validate, size_t *count);

#endif
