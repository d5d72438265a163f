#ifndef WH_HANDLERS_POD_MUTATE_H
#define WH_HANDLERS_POD_MUTATE_H

/* /mutate-pod: the Pod mutating webhook (mpod.kb.io). As upstream's PodCreateHandler, several
 * features run in a fixed order on one decoded Pod and answer with one patch
 * (spec sidecarset.md 4, workloadspread.md 7): readiness gate, WorkloadSpread, SidecarSet,
 * container launch priority, PodUnavailableBudget, PersistentPodState, ... Each step reads the
 * Pod as the steps before it left it, and edits it through wh_pod_mutation_edit, so the deep
 * copy is made only when something changes.
 * Thread rule: thread-safe; a struct wh_pod_mutation belongs to one request. */

#include <jansson.h>
#include <stdbool.h>
#include <time.h>

#include "handlers/registry.h"
#include "handlers/sidecarset/match.h"
#include "util/err.h"

/* One /mutate-pod request as the steps see it. */
struct wh_pod_mutation {
    const struct wh_handler_ctx *ctx;
    const struct wh_admission_request *req;
    struct wh_admission_response *resp;
    /* metadata.namespace, or request.namespace when the Pod has none (upstream assigns it before
     * any step; the assignment itself is not part of the patch) */
    const char *namespace_;
    /* the clock for timestamps written into annotations; 0 = now (tests fix it) */
    time_t now;
    /* inject --explain: told about every SidecarSet considered; NULL otherwise */
    wh_sidecarset_explain_fn explain;
    void *explain_arg;
    /* copy-on-write state: the objects of resp->mutated that are private to this request */
    bool _cow;
    size_t _nowned;
    json_t *_owned[16];
};

/* Returns: borrowed; the Pod as the previous steps left it (the request's object until a step
 * edits it). Read only. */
const json_t *wh_pod_mutation_pod(const struct wh_pod_mutation *pm);

/* The Pod to edit, every value in it private to this request: a deep copy is made on the first
 * call (or when earlier steps edited copy-on-write). For steps that change values in place.
 * Returns: borrowed, owned by pm->resp. */
json_t *wh_pod_mutation_edit(struct wh_pod_mutation *pm);

/* Copy-on-write editing, for the hot path (every Pod passes here, and a deep copy of a Pod costs
 * more than the rest of the step): returns the object at the path of member names
 * (NULL-terminated; none = the Pod itself), private to this request. It and each object on the
 * way are copied once, shallowly; a missing or mistyped member becomes an empty object. The
 * values below it stay shared with the request or with cached objects (which are frozen), so a
 * step that uses this function replaces members but never changes a value it did not get from
 * here (or create itself). Returns: borrowed, owned by pm->resp. */
json_t *wh_pod_mutation_own(struct wh_pod_mutation *pm, ...);

/* Options of one run (all optional). */
struct wh_pod_mutate_opts {
    time_t now;
    wh_sidecarset_explain_fn explain;
    void *explain_arg;
};

/* The route's handler (wh_admit_fn). */
WH_NODISCARD enum wh_err wh_pod_mutate_admit(const struct wh_handler_ctx *ctx,
                                             const struct wh_admission_request *req,
                                             struct wh_admission_response *resp,
                                             struct wh_errbuf *eb);

/* The same with options, for the offline inject command and tests (opts may be NULL). */
WH_NODISCARD enum wh_err wh_pod_mutate_run(const struct wh_handler_ctx *ctx,
                                           const struct wh_admission_request *req,
                                           struct wh_admission_response *resp,
                                           const struct wh_pod_mutate_opts *opts,
                                           struct wh_errbuf *eb);

/* The route is served when feature gate PodWebhook is on. */
bool wh_pod_mutate_enabled(const struct wh_config *cfg);

/* Declares the caches the steps read (the SidecarSet ones: wh_sidecarset_caches_setup). */
WH_NODISCARD enum wh_err wh_pod_mutate_setup(struct wh_cluster *cl, const struct wh_config *cfg,
                                             struct wh_errbuf *eb);

#endif
