#include "handlers/pod/pipeline.h"

#include <string.h>

#include "gocompat/gotype.h"
#include "log/log.h"
#include "util/json.h"
#include "util/str.h"

/* The step lists: the only place that knows every Pod step. A feature defines its step next
 * to its code (handlers/pod/step.h); a new step is that and one line in each list it runs in,
 * which declares the step as well: this file includes no feature's header. Upstream's order
 * (pod_create_update_handler.go, mutating and validating). */
#define MUTATE_STEPS(X)                                                                            \
    X(wh_pod_readiness_gate_step)                                                                  \
    X(wh_workloadspread_pod_step)                                                                  \
    X(wh_sidecarset_pod_step)                                                                      \
    X(wh_pod_launch_priority_step)                                                                 \
    X(wh_pub_pod_step)                                                                             \
    X(wh_pps_pod_step)                                                                             \
    X(wh_pod_enhanced_liveness_step)                                                               \
    X(wh_ppm_pod_step)                                                                             \
    /* end of the list */

#define VALIDATE_STEPS(X)                                                                          \
    X(wh_workloadspread_pod_step)                                                                  \
    X(wh_pub_pod_step)                                                                             \
    /* end of the list */

#define DECLARE(step) extern const struct wh_pod_step step;
MUTATE_STEPS(DECLARE)
VALIDATE_STEPS(DECLARE)

#define ENTRY(step) &step,
static const struct wh_pod_step *const mutate_steps[] = {MUTATE_STEPS(ENTRY)};
static const struct wh_pod_step *const validate_steps[] = {VALIDATE_STEPS(ENTRY)};

#define N(a) (sizeof(a) / sizeof((a)[0]))

const struct wh_pod_step *const *wh_pod_steps(bool validate, size_t *count)
{
    *count = validate ? N(validate_steps) : N(mutate_steps);
    return validate ? validate_steps : mutate_steps;
}

static bool step_on(const struct wh_pod_step *s, const struct wh_handler_ctx *ctx)
{
    return !s->enabled || (ctx && ctx->cfg && s->enabled(ctx->cfg));
}

static enum wh_pod_op op_of(const struct wh_admission_request *req, bool validate)
{
    bool pods = strcmp(req->resource.resource, "pods") == 0;
    if (!validate && strcmp(req->operation, "CREATE") == 0 && (!pods || req->sub_resource[0]))
        return WH_POD_CREATE_OTHER;
    if (!pods)
        return 0;
    const char *sub = req->sub_resource;
    /* upstream's validating handler looks at no subresource of an UPDATE (pods/status,
     * pods/resize); its mutating steps skip every subresource */
    if (validate && strcmp(req->operation, "UPDATE") == 0)
        return WH_POD_UPDATE;
    if (!sub[0]) {
        if (strcmp(req->operation, "CREATE") == 0)
            return WH_POD_CREATE;
        if (strcmp(req->operation, "UPDATE") == 0)
            return WH_POD_UPDATE;
        if (strcmp(req->operation, "DELETE") == 0)
            return WH_POD_DELETE;
        return 0;
    }
    if (strcmp(sub, "eviction") == 0 && strcmp(req->operation, "CREATE") == 0)
        return WH_POD_EVICT;
    return 0;
}

/* A non-empty dryRun list in CreateOptions, UpdateOptions or DeleteOptions. */
static bool options_dry_run(const json_t *options)
{
    const json_t *d = json_object_get(options, "dryRun");
    return json_is_array(d) && json_array_size(d) > 0;
}

static void review_init(struct wh_pod_review *pr, const struct wh_handler_ctx *ctx,
                        const struct wh_admission_request *req, struct wh_admission_response *resp,
                        const struct wh_pod_run_opts *opts, bool validate)
{
    memset(pr, 0, sizeof(*pr));
    pr->ctx = ctx;
    pr->req = req;
    pr->resp = resp;
    pr->op = op_of(req, validate);
    const json_t *pod = pr->op == WH_POD_DELETE ? req->old_object : req->object;
    const char *ns = pr->op == WH_POD_EVICT ? NULL : wh_json_meta_str(pod, "namespace");
    pr->namespace_ = ns && ns[0] ? ns : req->namespace_;
    if (pr->op == WH_POD_EVICT)
        pr->eviction = req->object;
    pr->dry_run =
        req->dry_run || options_dry_run(req->options) ||
        (pr->eviction && options_dry_run(json_object_get(pr->eviction, "deleteOptions"))) ||
        (ctx && ctx->offline);
    if (opts) {
        pr->now = opts->now;
        pr->explain = opts->explain;
        pr->explain_arg = opts->explain_arg;
    }
}

static void review_fini(struct wh_pod_review *pr)
{
    json_decref(pr->_evicted);
    pr->_evicted = NULL;
}

/* A Pod that cannot be decoded is a 400 with Go's words, as upstream's Decoder answers. */
static bool decodable(const struct wh_admission_request *req, struct wh_admission_response *resp)
{
    struct wh_errbuf eb;
    if (!req->object) {
        wh_admission_deny(resp, 400, "there is no content to decode");
        return false;
    }
    if (wh_gotype_check(req->object, wh_gotype_lookup("v1", "Pod"), &eb)) {
        wh_admission_deny(resp, 400, "%s", eb.msg);
        return false;
    }
    return true;
}

enum wh_err wh_pod_run_mutate(const struct wh_pod_step *const *steps, size_t nsteps,
                              const struct wh_handler_ctx *ctx,
                              const struct wh_admission_request *req,
                              struct wh_admission_response *resp,
                              const struct wh_pod_run_opts *opts, struct wh_errbuf *eb)
{
    if (!decodable(req, resp))
        return WH_OK;
    struct wh_pod_review pr;
    review_init(&pr, ctx, req, resp, opts, false);
    enum wh_err rc = WH_OK;
    for (size_t i = 0; i < nsteps && !rc && resp->code == 0; i++) {
        const struct wh_pod_step *s = steps[i];
        if (!(s->mutate_ops & pr.op) || !step_on(s, ctx))
            continue;
        pr._step = s->name;
        rc = s->mutate(&pr, eb);
    }
    review_fini(&pr);
    if (rc || resp->code)
        return rc; /* the dispatcher answers 500 and drops every edit */
    wh_admission_allow(resp, NULL);
    return WH_OK;
}

enum wh_err wh_pod_mutate_run(const struct wh_handler_ctx *ctx,
                              const struct wh_admission_request *req,
                              struct wh_admission_response *resp,
                              const struct wh_pod_run_opts *opts, struct wh_errbuf *eb)
{
    return wh_pod_run_mutate(mutate_steps, N(mutate_steps), ctx, req, resp, opts, eb);
}

enum wh_err wh_pod_mutate_admit(const struct wh_handler_ctx *ctx,
                                const struct wh_admission_request *req,
                                struct wh_admission_response *resp, struct wh_errbuf *eb)
{
    return wh_pod_run_mutate(mutate_steps, N(mutate_steps), ctx, req, resp, NULL, eb);
}

static enum wh_err run_validate(const struct wh_pod_step *const *steps, size_t nsteps,
                                const struct wh_handler_ctx *ctx,
                                const struct wh_admission_request *req,
                                struct wh_admission_response *resp,
                                const struct wh_pod_run_opts *opts);

enum wh_err wh_pod_validate_admit(const struct wh_handler_ctx *ctx,
                                  const struct wh_admission_request *req,
                                  struct wh_admission_response *resp, struct wh_errbuf *eb)
{
    (void)eb;
    return run_validate(validate_steps, N(validate_steps), ctx, req, resp, NULL);
}

enum wh_err wh_pod_validate_run(const struct wh_handler_ctx *ctx,
                                const struct wh_admission_request *req,
                                struct wh_admission_response *resp,
                                const struct wh_pod_run_opts *opts, struct wh_errbuf *eb)
{
    (void)eb;
    return run_validate(validate_steps, N(validate_steps), ctx, req, resp, opts);
}

enum wh_err wh_pod_run_validate(const struct wh_pod_step *const *steps, size_t nsteps,
                                const struct wh_handler_ctx *ctx,
                                const struct wh_admission_request *req,
                                struct wh_admission_response *resp, struct wh_errbuf *eb)
{
    (void)eb;
    return run_validate(steps, nsteps, ctx, req, resp, NULL);
}

static enum wh_err run_validate(const struct wh_pod_step *const *steps, size_t nsteps,
                                const struct wh_handler_ctx *ctx,
                                const struct wh_admission_request *req,
                                struct wh_admission_response *resp,
                                const struct wh_pod_run_opts *opts)
{
    /* Without the deleted Pod there is nothing to judge (API servers before 1.16). */
    if (strcmp(req->operation, "DELETE") == 0 && !req->old_object) {
        wh_admission_allow(resp, NULL);
        return WH_OK;
    }
    struct wh_pod_review pr;
    review_init(&pr, ctx, req, resp, opts, true);
    for (size_t i = 0; i < nsteps && pr.op; i++) {
        const struct wh_pod_step *s = steps[i];
        if (!(s->validate_ops & pr.op) || !step_on(s, ctx))
            continue;
        pr._step = s->name;
        struct wh_errbuf serr = {{0}};
        enum wh_err rc = s->validate(&pr, &serr);
        if (rc) {
            /* upstream: admission.Errored(400, err) for every validating step's error */
            wh_admission_deny(resp, 400, "%s", serr.msg[0] ? serr.msg : wh_strerror(rc));
            wh_log_req(WH_LOG_WARN, req->uid, "/validate-pod", "%s step failed: %s", s->name,
                       resp->message);
            break;
        }
        if (resp->code && !resp->allowed)
            break; /* the first denial is the answer */
    }
    review_fini(&pr);
    if (!resp->code)
        wh_admission_allow(resp, NULL);
    return WH_OK;
}

static bool pod_webhook_on(const struct wh_config *cfg)
{
    return wh_feature_on(&cfg->features, WH_FEATURE_PodWebhook);
}

enum wh_err wh_pod_routes_setup(struct wh_cluster *cl, const struct wh_config *cfg,
                                struct wh_errbuf *eb)
{
    const struct wh_pod_step *done[N(mutate_steps) + N(validate_steps)];
    size_t ndone = 0;
    for (int list = 0; list < 2; list++) {
        size_t n;
        const struct wh_pod_step *const *steps = wh_pod_steps(list == 1, &n);
        for (size_t i = 0; i < n; i++) {
            const struct wh_pod_step *s = steps[i];
            bool seen = false;
            for (size_t k = 0; k < ndone; k++)
                seen |= done[k] == s;
            if (seen || !s->setup || (s->enabled && !s->enabled(cfg)))
                continue;
            done[ndone++] = s;
            enum wh_err rc = s->setup(cl, cfg, eb);
            if (rc)
                return rc;
        }
    }
    return WH_OK;
}

static bool listed(const struct wh_pod_step *const *steps, size_t n, const char *area)
{
    for (size_t i = 0; i < n; i++) {
        if (strcmp(steps[i]->name, area) == 0)
            return true;
    }
    return false;
}

static bool mutate_covers(const char *area)
{
    return listed(mutate_steps, N(mutate_steps), area);
}

static bool validate_covers(const char *area)
{
    return listed(validate_steps, N(validate_steps), area);
}

/* upstream's config/webhook/manifests.yaml and patch_manifests.yaml (mpod, vpod,
 * vpodeviction) */
const struct wh_route wh_pod_mutate_route = {
    .path = "/mutate-pod",
    .kind = WH_ROUTE_MUTATE,
    .admit = wh_pod_mutate_admit,
    .enabled = pod_webhook_on,
    .setup = wh_pod_routes_setup,
    .covers = mutate_covers,
    .side_effects = true,
    .entries = {{.name = "mpod.kb.io",
                 .group = "",
                 .versions = {"v1"},
                 .resource = "pods",
                 .operations = WH_WEBHOOK_CREATE,
                 .skip_control_plane = true}},
};

const struct wh_route wh_pod_validate_route = {
    .path = "/validate-pod",
    .kind = WH_ROUTE_VALIDATE,
    .admit = wh_pod_validate_admit,
    .enabled = pod_webhook_on,
    .setup = wh_pod_routes_setup,
    .covers = validate_covers,
    .side_effects = true,
    .entries = {{.name = "vpod.kb.io",
                 .group = "",
                 .versions = {"v1"},
                 .resource = "pods",
                 .operations = WH_WEBHOOK_UPDATE | WH_WEBHOOK_DELETE,
                 .skip_control_plane = true},
                {.name = "vpodeviction.kb.io",
                 .group = "",
                 .versions = {"v1"},
                 .resource = "pods/eviction",
                 .operations = WH_WEBHOOK_CREATE,
                 .skip_control_plane = true}},
};
