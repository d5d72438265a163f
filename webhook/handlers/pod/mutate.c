#include "handlers/pod/mutate.h"

#include <stdarg.h>
#include <stdint.h>
#include <string.h>

#include "gocompat/gotype.h"
#include "handlers/sidecarset/inject.h"
#include "util/json.h"
#include "util/str.h"

const json_t *wh_pod_mutation_pod(const struct wh_pod_mutation *pm)
{
    return pm->resp->mutated ? pm->resp->mutated : pm->req->object;
}

json_t *wh_pod_mutation_edit(struct wh_pod_mutation *pm)
{
    struct wh_admission_response *resp = pm->resp;
    if (!resp->mutated) {
        resp->mutated = pm->req->object ? wh_json_copy(pm->req->object) : json_object();
    } else if (pm->_cow) {
        json_t *copy = wh_json_copy(resp->mutated);
        json_decref(resp->mutated);
        resp->mutated = copy;
    }
    pm->_cow = false;
    pm->_nowned = 0;
    return resp->mutated;
}

static json_t *shallow_copy(const json_t *o)
{
    json_t *c = json_object();
    const char *k;
    size_t klen;
    json_t *m;
    json_object_keylen_foreach((json_t *)(uintptr_t)o, k, klen, m)
    {
        json_object_setn_nocheck(c, k, klen, m);
    }
    return c;
}

static bool owned(const struct wh_pod_mutation *pm, const json_t *v)
{
    if (!pm->_cow)
        return true; /* a full copy: everything is private */
    for (size_t i = 0; i < pm->_nowned; i++) {
        if (pm->_owned[i] == v)
            return true;
    }
    return false;
}

static void own(struct wh_pod_mutation *pm, json_t *v)
{
    if (pm->_cow && pm->_nowned < sizeof(pm->_owned) / sizeof(pm->_owned[0]))
        pm->_owned[pm->_nowned++] = v;
}

json_t *wh_pod_mutation_own(struct wh_pod_mutation *pm, ...)
{
    struct wh_admission_response *resp = pm->resp;
    if (!resp->mutated) {
        resp->mutated =
            json_is_object(pm->req->object) ? shallow_copy(pm->req->object) : json_object();
        pm->_cow = true;
        pm->_nowned = 0;
        own(pm, resp->mutated);
    }
    json_t *cur = resp->mutated;
    va_list ap;
    va_start(ap, pm);
    for (const char *key = va_arg(ap, const char *); key; key = va_arg(ap, const char *)) {
        json_t *child = json_object_get(cur, key);
        if (!json_is_object(child)) {
            child = json_object();
            json_object_set_new(cur, key, child);
            own(pm, child);
        } else if (!owned(pm, child)) {
            child = shallow_copy(child);
            json_object_set_new(cur, key, child);
            own(pm, child);
        }
        cur = child;
    }
    va_end(ap);
    /* past the small table, further objects are copied again on each call: correct, slower */
    return cur;
}

/* The WorkloadSpread step. Only its first action is built so far: on CREATE it decodes
 * request.options as CreateOptions before anything else, so a review without options fails the
 * whole request (spec sidecarset.md 4.1 note, 11.14). The WorkloadSpread logic itself
 * (workloadspread.md 4.1: subset choice, pod patch, status update) belongs here. */
static enum wh_err step_workloadspread(struct wh_pod_mutation *pm, struct wh_errbuf *eb)
{
    const struct wh_admission_request *req = pm->req;
    if (req->sub_resource[0] || strcmp(req->resource.resource, "pods") != 0 ||
        strcmp(req->operation, "CREATE") != 0)
        return WH_OK;
    if (!req->options)
        return wh_errbuf_set(eb, WH_ERR_INVALID, "there is no content to decode");
    if (!json_is_object(req->options))
        return wh_errbuf_set(eb, WH_ERR_INVALID,
                             "json: cannot unmarshal %s into Go value of type v1.CreateOptions",
                             json_is_array(req->options)     ? "array"
                             : json_is_string(req->options)  ? "string"
                             : json_is_boolean(req->options) ? "bool"
                                                             : "number");
    return WH_OK;
}

static bool gate_workloadspread(const struct wh_config *cfg)
{
    return wh_feature_on(&cfg->features, WH_FEATURE_WorkloadSpread);
}

/* The steps in upstream's order (pod_create_update_handler.go). A step returns WH_OK having
 * edited the Pod or not; an error answers 500 with its message and drops every edit. Steps not
 * built yet are named here so they land in the right place:
 *   1. readiness gate (KruisePodReadinessGate / pods owned by Kruise workloads)   - before 2
 *   4. container launch priority (apps.kruise.io/container-launch-priority)       - after 3
 *   5. PodUnavailableBudget annotation (pub.md; either PUB gate)                   - after 4
 *   6. PersistentPodState                                                          - after 5
 *   7. enhanced liveness probe, 8. probe marker on serverless (gated, off)         - last */
struct step {
    const char *name;
    bool (*enabled)(const struct wh_config *cfg); /* NULL: always */
    enum wh_err (*run)(struct wh_pod_mutation *pm, struct wh_errbuf *eb);
};

static const struct step steps[] = {
    {"workloadspread", gate_workloadspread, step_workloadspread},
    {"sidecarset", NULL, wh_sidecarset_inject_step},
};

/* A Pod that cannot be decoded is a 400, as upstream's Decoder answers. */
/* The Pod decodes as upstream's typed decoder would decode it (Go's exact 400 message). */
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

enum wh_err wh_pod_mutate_run(const struct wh_handler_ctx *ctx,
                              const struct wh_admission_request *req,
                              struct wh_admission_response *resp,
                              const struct wh_pod_mutate_opts *opts, struct wh_errbuf *eb)
{
    if (!decodable(req, resp))
        return WH_OK;
    const char *ns = wh_json_meta_str(req->object, "namespace");
    struct wh_pod_mutation pm = {
        .ctx = ctx,
        .req = req,
        .resp = resp,
        .namespace_ = ns && ns[0] ? ns : req->namespace_,
        .now = opts ? opts->now : 0,
        .explain = opts ? opts->explain : NULL,
        .explain_arg = opts ? opts->explain_arg : NULL,
    };
    for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
        if (steps[i].enabled && !(ctx && ctx->cfg && steps[i].enabled(ctx->cfg)))
            continue;
        enum wh_err rc = steps[i].run(&pm, eb);
        if (rc)
            return rc;
    }
    wh_admission_allow(resp, NULL);
    return WH_OK;
}

enum wh_err wh_pod_mutate_admit(const struct wh_handler_ctx *ctx,
                                const struct wh_admission_request *req,
                                struct wh_admission_response *resp, struct wh_errbuf *eb)
{
    return wh_pod_mutate_run(ctx, req, resp, NULL, eb);
}

bool wh_pod_mutate_enabled(const struct wh_config *cfg)
{
    return wh_feature_on(&cfg->features, WH_FEATURE_PodWebhook);
}

enum wh_err wh_pod_mutate_setup(struct wh_cluster *cl, const struct wh_config *cfg,
                                struct wh_errbuf *eb)
{
    return wh_sidecarset_caches_setup(cl, cfg, eb);
}
