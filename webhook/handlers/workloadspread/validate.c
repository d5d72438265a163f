#include "handlers/workloadspread/validate.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/features.h"
#include "conversion/convert.h"
#include "k8s/defaults.h"
#include "k8s/kruise.h"
#include "k8s/typemeta.h"
#include "gocompat/goenc.h"
#include "gocompat/decodeinto.h"
#include "gocompat/gotype.h"
#include "gocompat/smp.h"
#include "handlers/warnings.h"
#include "handlers/workloadspread/match.h"
#include "handlers/workloadspread/subset.h"
#include "handlers/workloadspread/whitelist.h"
#include "k8s/fielderr.h"
#include "k8s/podvalidation.h"
#include "k8s/ref.h"
#include "k8s/scheduling.h"
#include "k8s/validation.h"
#include "kube/cache.h"
#include "kube/cluster.h"
#include "util/buf.h"
#include "util/json.h"
#include "util/mem.h"
#include "util/str.h"

#define P(...) wh_fpath(p, sizeof(p), __VA_ARGS__)
/* MaxScheduledFailedDuration (300 s) less 5, shared among the subsets after the first */
#define RESCHEDULE_BUDGET 295

struct vctx {
    const struct wh_handler_ctx *hctx;
    const char *ns;
    const json_t *obj; /* v1beta1 */
    struct wh_field_errors errs;
    bool target_missing; /* a target of a cached kind that the cache does not hold */
    char panic[256]; /* upstream's handler panicked here: the 500 controller-runtime answers */
};

/* --- decoding ----------------------------------------------------------------------------------
 */

/* The object of the request as v1beta1 (9: v1alpha1 requests are converted). Returns in *out: new
 * ref. Errors: the decoder's message. */
static enum wh_err decode(const json_t *raw, const char *version, json_t **out,
                          struct wh_errbuf *eb)
{
    *out = NULL;
    bool beta = strcmp(version, "v1beta1") == 0;
    if (!raw || json_is_null(raw))
        return wh_errbuf_set(eb, WH_ERR_INVALID, "there is no content to decode");
    char *msg = NULL;
    /* controller-runtime's Decoder: the object must name the type it is decoded into (v1beta1,
     * or v1alpha1 for every other version), or name nothing */
    enum wh_err rc = wh_decode_into_check(
        raw, beta ? WH_KRUISE_APPS_V1BETA1 : WH_KRUISE_APPS_V1ALPHA1, "WorkloadSpread", true, eb);
    if (rc)
        return rc;
    if (beta) {
        rc = wh_gotype_check_full(raw, wh_gotype_lookup(WH_KRUISE_APPS_V1BETA1, "WorkloadSpread"),
                                  &msg);
        if (!rc)
            *out = json_incref((json_t *)(uintptr_t)raw);
    } else if (!json_is_object(raw)) {
        rc = wh_gotype_check_full(raw, wh_gotype_lookup(WH_KRUISE_APPS_V1ALPHA1, "WorkloadSpread"),
                                  &msg);
    } else {
        /* the conversion decodes the v1alpha1 object as Go would (same errors) and renames the
         * subset fields */
        json_t *alpha = wh_json_copy(raw);
        json_object_set_new(alpha, "apiVersion", json_string(WH_KRUISE_APPS_V1ALPHA1));
        json_object_set_new(alpha, "kind", json_string("WorkloadSpread"));
        rc = wh_convert_object(WH_KRUISE_APPS_V1BETA1, alpha, out, &msg);
        json_decref(alpha);
    }
    if (rc)
        rc = wh_errbuf_set(eb, WH_ERR_INVALID, "%s", msg ? msg : "cannot decode");
    free(msg);
    return rc;
}

/* --- rendering of bad values (Go's %#v) -------------------------------------------------------
 */

static char *render_target_ref(const json_t *ref)
{
    static const char *const fields[][2] = {
        {"apiVersion", "APIVersion"}, {"kind", "Kind"}, {"name", "Name"}};
    return wh_gosyntax_string_struct("v1beta1.TargetReference", ref, fields, 3);
}

/* *intstr.IntOrString dereferenced: its String method has a pointer receiver, so %#v. */
static char *render_intstr(const json_t *v)
{
    return !v || json_is_null(v) ? wh_xstrdup("\"null\"") : wh_gosyntax_intstr(v);
}

/* A *int32 dereferenced, or "null". */
static char *render_int_ptr(const json_t *v)
{
    return json_is_integer(v) ? wh_str_printf("%lld", (long long)json_integer_value(v))
                              : wh_xstrdup("\"null\"");
}

static void invalid_rendered(struct vctx *v, const char *path, char *rendered, const char *detail)
{
    wh_ferr_invalid_raw(&v->errs, path, rendered, detail);
    free(rendered);
}

/* --- 9.1 targetRef ----------------------------------------------------------------------------
 */

/* verifyGroupKind: the apiVersion parses and its group is one of groups. */
static bool group_in(const char *api_version, const char *const *groups)
{
    struct wh_gv gv;
    if (!wh_ref_parse_gv(api_version, &gv))
        return false;
    for (size_t i = 0; groups[i]; i++) {
        if (wh_ref_gv_group_is(&gv, groups[i]))
            return true;
    }
    return false;
}

/* The built-in target kinds: their groups, the cache upstream reads the workload from (a
 * StatefulSet of either group is looked up as an apps/v1 StatefulSet), and whether its
 * volumeClaimTemplates become volumes of the pod template the patch check uses. */
static const struct {
    const char *kind;
    const char *groups[3];
    enum wh_resource_id cache;
    bool claims;
} targets[] = {
    {"CloneSet", {WH_KRUISE_APPS}, WH_RES_CLONESET, true},
    {"Deployment", {"apps"}, WH_RES_DEPLOYMENT, false},
    {"ReplicaSet", {"apps"}, WH_RES_REPLICASET, false},
    {"Job", {"batch"}, WH_RES_JOB, false},
    {"StatefulSet", {"apps", WH_KRUISE_APPS}, WH_RES_STATEFULSET, true},
};

/* The pod template the subsets' patches are checked against: the workload's spec.template as Go
 * encodes a PodTemplateSpec, with a CloneSet's or StatefulSet's volumeClaimTemplates added as
 * persistentVolumeClaim volumes (withVolumeClaimTemplates). Returns: new ref. */
static json_t *pod_template(const json_t *workload, bool claims)
{
    const json_t *spec = json_object_get(workload, "spec");
    json_t *t = NULL;
    struct wh_errbuf eb = {{0}};
    if (wh_gotype_normalize(json_object_get(spec, "template"),
                            wh_gotype_lookup("v1", "PodTemplateSpec"), &t, &eb))
        t = json_object();
    size_t i;
    const json_t *pvc;
    json_array_foreach(claims ? wh_json_arr(spec, "volumeClaimTemplates") : NULL, i, pvc)
    {
        const char *name = wh_json_str_or_empty(json_object_get(pvc, "metadata"), "name");
        json_t *vols = wh_json_obj_ensure(t, "spec");
        json_t *list = json_object_get(vols, "volumes");
        if (!json_is_array(list)) {
            list = json_array();
            json_object_set_new(vols, "volumes", list);
        }
        json_array_append_new(list, json_pack("{s:s,s:{s:s}}", "name", name,
                                              "persistentVolumeClaim", "claimName", name));
    }
    return t;
}

/* Validates spec.targetRef; returns the target workload's pod template (new ref) when the
 * workload exists, for the patch check. */
static json_t *check_target_ref(struct vctx *v, const json_t *ref)
{
    if (!ref || json_is_null(ref)) {
        wh_ferr_required(&v->errs, "spec.targetRef", "no targetRef defined in WorkloadSpread");
        return NULL;
    }
    const char *av = wh_json_str_or_empty(ref, "apiVersion");
    const char *kind = wh_json_str_or_empty(ref, "kind");
    const char *name = wh_json_str_or_empty(ref, "name");
    if (!*av || !*kind || !*name) {
        invalid_rendered(v, "spec.targetRef", render_target_ref(ref),
                         "empty TargetReference is not valid for WorkloadSpread.");
        return NULL;
    }
    for (size_t i = 0; i < sizeof(targets) / sizeof(targets[0]); i++) {
        if (strcmp(kind, targets[i].kind) != 0)
            continue;
        if (!group_in(av, targets[i].groups)) {
            char detail[128];
            snprintf(detail, sizeof(detail), "TargetReference is not valid for %s.", kind);
            invalid_rendered(v, "spec.targetRef", render_target_ref(ref), detail);
            return NULL;
        }
        struct wh_cache *c =
            v->hctx->cluster ? wh_cluster_cache(v->hctx->cluster, targets[i].cache) : NULL;
        struct wh_object *o = c ? wh_cache_get(c, v->ns, name) : NULL;
        v->target_missing = c && !o;
        json_t *t = o ? pod_template(wh_object_json(o), targets[i].claims) : NULL;
        wh_object_unref(o);
        return t;
    }
    struct wh_ws_whitelist wl;
    struct wh_errbuf eb = {{0}};
    if (wh_ws_whitelist_load(v->hctx->cluster, v->hctx->cfg->namespace_, &wl, &eb)) {
        wh_ferr_internal(&v->errs, "spec.targetRef", eb.msg);
        return NULL;
    }
    bool matched = false;
    for (size_t i = 0; i < wl.n && !matched; i++) {
        const char *groups[] = {wl.items[i].gvk.group, NULL};
        matched = strcmp(kind, wl.items[i].gvk.kind) == 0 && group_in(av, groups);
    }
    wh_ws_whitelist_fini(&wl);
    if (!matched)
        invalid_rendered(v, "spec.targetRef", render_target_ref(ref),
                         "TargetReference's GroupKind is not permitted.");
    return NULL;
}

/* --- 9.2 subsets ------------------------------------------------------------------------------
 */

/* The maxReplicas rules (9.2); false when they stop the subset checks. */
static bool check_max(struct vctx *v, const json_t *max, size_t i, int *first_type, long long *sum)
{
    char p[128];
    int type = json_is_string(max) ? 1 : 0;
    P("spec.subsets[%zu].maxReplicas", i);
    if (*first_type < 0) {
        *first_type = type;
    } else if (type != *first_type) {
        invalid_rendered(v, p, render_intstr(max),
                         "the maxReplicas type of all subsets must be the same");
        return false;
    }
    if (wh_str_eq(wh_json_path_str(v->obj, "spec", "targetRef", "kind", NULL), "StatefulSet") &&
        type != 0) {
        invalid_rendered(v, p, render_intstr(max),
                         "the maxReplicas type must be Int for StatefulSet");
        return false;
    }
    long long value = 0;
    if (!wh_ws_legacy_percent(max, &value) || value < 0) {
        invalid_rendered(v, p, render_intstr(max), "maxReplicas is not valid for subset");
        return false;
    }
    if (type == 1) {
        *sum += value;
        if (*sum > 100) {
            invalid_rendered(v, p, render_intstr(max),
                             "the sum of all subset's maxReplicas exceeds 100% is no permitted");
            return false;
        }
    }
    return true;
}

/* The subset's patch merged into the workload's pod template must give a valid Pod spec (9.2);
 * errors at spec.subsets[i].patch, as upstream reports them. */
static void check_patch(struct vctx *v, const json_t *patch, const json_t *tmpl, size_t i)
{
    char p[128];
    P("spec.subsets[%zu].patch", i);
    /* upstream prints the patch's raw text, which the API server's encoding/json wrote: the
     * members in their order, numbers and strings spelled as Go spells them (1e20 is
     * 100000000000000000000: found by the differential run) */
    struct wh_buf rb;
    wh_buf_init(&rb, 1u << 24);
    if (wh_goenc_append(&rb, patch, false) != WH_OK)
        WH_PANIC("a patch of a capped request does not fit 16 MiB");
    char *raw = wh_buf_take(&rb, NULL);
    char *quoted = wh_go_quote(raw);
    const struct wh_gotype *pod_type = wh_gotype_lookup("v1", "Pod");
    json_t *pod = NULL;
    struct wh_errbuf eb = {{0}};
    char detail[512];
    enum wh_err rc = wh_smp_apply(tmpl, patch, pod_type, &pod, &eb);
    if (rc == WH_ERR_INTERNAL) {
        /* the strategic merge panicked: upstream's handler ends here, answered with the panic */
        if (!v->panic[0])
            snprintf(v->panic, sizeof(v->panic), "%s", eb.msg);
        pod = json_object();
    } else if (rc) {
        snprintf(detail, sizeof(detail), "failed to merge patch: %s", eb.msg);
        wh_ferr_invalid_raw(&v->errs, p, quoted, detail);
        /* upstream then decodes the nil result, and validates an empty Pod */
        wh_ferr_invalid_raw(&v->errs, p, quoted,
                            "failed to unmarshal: unexpected end of JSON input");
        pod = json_object();
    } else {
        char *msg = NULL;
        /* upstream decodes the merged Pod with encoding/json itself */
        if (wh_gotype_check_std(pod, pod_type, &msg)) {
            snprintf(detail, sizeof(detail), "failed to unmarshal: %s", msg ? msg : "");
            wh_ferr_invalid_raw(&v->errs, p, quoted, detail);
        }
        free(msg);
    }
    /* upstream converts the Pod for validation through convertor.ConvertPod, which first
     * applies kruise's SetDefaultPodSpec to the Pod's spec (a Go struct value: an empty Pod's
     * too) */
    if (!json_is_object(json_object_get(pod, "spec")))
        json_object_set_new(pod, "spec", json_object());
    wh_k8s_default_pod_spec_for_validation(
        json_object_get(pod, "spec"),
        v->hctx->cfg && wh_feature_on(&v->hctx->cfg->features,
                                      WH_FEATURE_DefaultHostNetworkHostPortsInPodTemplates));
    /* corevalidation.ValidatePodSpec(&pod.Spec, &pod.ObjectMeta, subsets[i].patch) */
    wh_validate_pod_spec_at(&v->errs, json_object_get(pod, "spec"),
                            json_object_get(pod, "metadata"), p);
    json_decref(pod);
    free(quoted);
    free(raw);
}

static const json_t *present(const json_t *o, const char *key)
{
    const json_t *m = json_object_get(o, key);
    return json_is_null(m) ? NULL : m;
}

static void check_subsets(struct vctx *v, const json_t *subsets, const json_t *tmpl)
{
    char p[128];
    if (json_array_size(subsets) == 0) {
        wh_ferr_required(&v->errs, "spec.subsets", "subsets number must >= 1 in WorkloadSpread");
        return;
    }
    int first_type = -1;
    long long sum = 0;
    size_t i;
    const json_t *s;
    json_array_foreach(subsets, i, s)
    {
        const char *name = wh_json_str_or_empty(s, "name");
        if (!*name) {
            wh_ferr_invalid_str(&v->errs, P("spec.subsets[%zu].name", i), name, "");
        } else {
            for (size_t k = 0; k < i; k++) {
                if (wh_str_eq(wh_json_str(json_array_get(subsets, k), "name"), name)) {
                    char *detail = wh_str_printf("duplicated subset name %s", name);
                    wh_ferr_invalid_str(&v->errs, P("spec.subsets[%zu].name", i), name, detail);
                    free(detail);
                    break;
                }
            }
        }
        const json_t *term = present(s, "requiredNodeSelector");
        if (term)
            wh_validate_node_selector_term(&v->errs, term, false,
                                           P("spec.subsets[%zu].requiredNodeSelector", i));
        const json_t *preferred = present(s, "preferredNodeSelector");
        if (preferred)
            wh_validate_preferred_scheduling_terms(&v->errs, preferred,
                                                   P("spec.subsets[%zu].preferredNodeSelector", i));
        const json_t *tolerations = present(s, "tolerations");
        if (tolerations)
            wh_validate_tolerations(&v->errs, tolerations, P("spec.subsets[%zu].tolerations", i));
        const json_t *patch = present(s, "patch");
        /* a WorkloadSpread made before its workload has nothing to check the patch against */
        if (patch && tmpl)
            check_patch(v, patch, tmpl, i);
        const json_t *max = present(s, "maxReplicas");
        if (max && !check_max(v, max, i, &first_type, &sum))
            return;
    }
    const json_t *last = json_array_get(subsets, json_array_size(subsets) - 1);
    if (first_type == 1 && sum < 100 && present(last, "maxReplicas"))
        invalid_rendered(v, "spec.subsets[0].maxReplicas",
                         render_intstr(present(json_array_get(subsets, 0), "maxReplicas")),
                         "maxReplicas sum of all subsets must equal 100% when type is specified "
                         "as percent");
}

/* --- 9.3 scheduleStrategy and targetFilter ---------------------------------------------------
 */

static void check_strategy(struct vctx *v, const json_t *spec)
{
    const json_t *st = json_object_get(spec, "scheduleStrategy");
    const char *type = wh_json_str_or_empty(st, "type");
    if (*type && strcmp(type, "Fixed") != 0 && strcmp(type, "Adaptive") != 0)
        invalid_rendered(v, "spec.scheduleStrategy.type", wh_go_quote(type),
                         "ScheduleStrategy's type is not valid");
    const json_t *adaptive = present(st, "adaptive");
    if (!adaptive)
        return;
    const json_t *secs = present(adaptive, "rescheduleCriticalSeconds");
    if (strcmp(type, "Adaptive") != 0)
        invalid_rendered(v, "spec.scheduleStrategy.type", render_int_ptr(secs),
                         "the scheduleStrategy's type must be adaptive when using adaptive "
                         "scheduleStrategy");
    const json_t *subsets = wh_json_arr(spec, "subsets");
    size_t n = json_array_size(subsets);
    if (n > 1 && present(json_array_get(subsets, n - 1), "maxReplicas"))
        invalid_rendered(v, "spec.scheduleStrategy.adaptive", render_int_ptr(secs),
                         "the last subset's maxReplicas must be not specified when using "
                         "adaptive scheduleStrategy");
    long long allowed = n > 1 ? RESCHEDULE_BUDGET / (long long)(n - 1) : INT_MAX;
    if (json_is_integer(secs) &&
        (json_integer_value(secs) < 0 || json_integer_value(secs) > allowed)) {
        char detail[128];
        snprintf(detail, sizeof(detail),
                 "rescheduleCriticalSeconds < 0 or rescheduleCriticalSeconds > %lld is not "
                 "permitted",
                 allowed);
        invalid_rendered(v, "spec.scheduleStrategy.adaptive.rescheduleCriticalSeconds",
                         render_int_ptr(secs), detail);
    }
}

static char *render_target_filter(const json_t *f)
{
    const json_t *paths = json_object_get(f, "replicasPathList");
    char *list = NULL;
    if (!json_is_array(paths)) {
        list = wh_xstrdup("[]string(nil)");
    } else {
        size_t cap = 16, i;
        const json_t *p;
        json_array_foreach(paths, i, p) cap +=
            strlen(json_string_value(p) ? json_string_value(p) : "") * 4 + 8;
        list = wh_xmalloc(cap);
        size_t off = (size_t)snprintf(list, cap, "[]string{");
        json_array_foreach(paths, i, p)
        {
            char *q = wh_go_quote(json_string_value(p) ? json_string_value(p) : "");
            off += (size_t)snprintf(list + off, cap - off, "%s%s", i ? ", " : "", q);
            free(q);
        }
        snprintf(list + off, cap - off, "}");
    }
    char *out = wh_str_printf("v1beta1.TargetFilter{Selector:(*v1.LabelSelector)(%s), "
                              "ReplicasPathList:%s}",
                              present(f, "selector") ? WH_GO_ADDRESS : "nil", list);
    free(list);
    return out;
}

static void check_target_filter(struct vctx *v, const json_t *spec)
{
    const json_t *f = present(spec, "targetFilter");
    char *err = f ? wh_label_selector_error(present(f, "selector")) : NULL; /* whole */
    if (err)
        invalid_rendered(v, "spec.targetFilter", render_target_filter(f), err);
    free(err);
}

/* --- 9.4 conflicts and updates ----------------------------------------------------------------
 */

/* The group of an apiVersion, "" when it does not parse (upstream ignores the error). */
static void group_of(const char *api_version, char *buf, size_t bufsz)
{
    struct wh_gv gv;
    if (!wh_ref_parse_gv(api_version, &gv))
        gv.group_len = 0;
    snprintf(buf, bufsz, "%.*s", (int)gv.group_len, gv.group);
}

static bool same_ref(const json_t *a, const json_t *b)
{
    char ga[256], gb[256];
    group_of(wh_json_str_or_empty(a, "apiVersion"), ga, sizeof(ga));
    group_of(wh_json_str_or_empty(b, "apiVersion"), gb, sizeof(gb));
    return strcmp(ga, gb) == 0 &&
           strcmp(wh_json_str_or_empty(a, "kind"), wh_json_str_or_empty(b, "kind")) == 0 &&
           strcmp(wh_json_str_or_empty(a, "name"), wh_json_str_or_empty(b, "name")) == 0;
}

static void check_conflicts(struct vctx *v)
{
    const json_t *ref = present(json_object_get(v->obj, "spec"), "targetRef");
    struct wh_cache *c =
        v->hctx->cluster ? wh_cluster_cache(v->hctx->cluster, WH_RES_WORKLOADSPREAD) : NULL;
    if (!ref || !c)
        return;
    const char *name = wh_json_meta_str(v->obj, "name");
    struct wh_objlist l;
    wh_objlist_init(&l);
    if (v->ns)
        wh_cache_by_index(c, WH_WS_INDEX_NAMESPACE, v->ns, &l);
    else
        wh_cache_list(c, NULL, &l);
    for (size_t i = 0; i < l.n; i++) {
        if (wh_str_eq(wh_object_name(l.items[i]), name))
            continue;
        const json_t *other =
            present(json_object_get(wh_object_json(l.items[i]), "spec"), "targetRef");
        if (!other || !same_ref(ref, other))
            continue;
        char detail[300];
        snprintf(detail, sizeof(detail),
                 "ws.spec.targetRef is in conflict with other "
                 "WorkloadSpread %s",
                 wh_object_name(l.items[i]));
        invalid_rendered(v, "spec.targetRef", render_target_ref(ref), detail);
        break;
    }
    wh_objlist_fini(&l);
}

static void check_update(struct vctx *v, const json_t *old)
{
    wh_validate_object_meta_update(&v->errs, json_object_get(v->obj, "metadata"),
                                   json_object_get(old, "metadata"), "metadata");
    const json_t *ref = present(json_object_get(v->obj, "spec"), "targetRef");
    const json_t *old_ref = present(json_object_get(old, "spec"), "targetRef");
    if (ref && old_ref && !same_ref(ref, old_ref))
        invalid_rendered(v, "spec.targetRef", render_target_ref(ref),
                         "change TargetReference is not permitted for WorkloadSpread");
}

/* --- the handler ------------------------------------------------------------------------------
 */

enum wh_err wh_ws_validate_admit(const struct wh_handler_ctx *ctx,
                                 const struct wh_admission_request *req,
                                 struct wh_admission_response *resp, struct wh_errbuf *eb)
{
    (void)eb;
    if (!wh_feature_on(&ctx->cfg->features, WH_FEATURE_WorkloadSpread)) {
        wh_admission_deny(resp, 403, "feature-gate WorkloadSpread is not enabled");
        return WH_OK;
    }
    bool create = strcmp(req->operation, "CREATE") == 0;
    bool update = strcmp(req->operation, "UPDATE") == 0;
    struct vctx v = {.hctx = ctx};
    wh_ferrs_init(&v.errs);
    json_t *obj = NULL, *old = NULL;
    json_t *tmpl = NULL;
    struct wh_errbuf why = {{0}};
    if (decode(req->object, req->resource.version, &obj, &why) ||
        (update && decode(req->old_object, req->resource.version, &old, &why))) {
        wh_admission_deny(resp, 400, "%s", why.msg);
        goto out;
    }
    if (!create && !update) {
        wh_admission_allow(resp, NULL);
        goto out;
    }
    v.obj = obj;
    const char *ns = wh_json_meta_str(obj, "namespace");
    /* upstream reads the workload and the other WorkloadSpreads in the object's own namespace,
     * never the request's: none (a Get finds nothing, a List covers every namespace) when the
     * object names none (found by the differential run) */
    v.ns = ns && *ns ? ns : NULL;
    const json_t *spec = json_object_get(obj, "spec");
    tmpl = check_target_ref(&v, json_object_get(spec, "targetRef"));
    check_subsets(&v, wh_json_arr(spec, "subsets"), tmpl);
    check_strategy(&v, spec);
    check_target_filter(&v, spec);
    check_conflicts(&v);
    if (update)
        check_update(&v, old);
    char *msg = wh_ferrs_aggregate(&v.errs);
    if (v.panic[0])
        wh_admission_deny(resp, 500, "%s", v.panic);
    else if (msg)
        wh_admission_deny(resp, 400, "%s", msg);
    else
        wh_admission_allow(resp, NULL);
    /* upstream admits a WorkloadSpread whose workload is not there: it spreads nothing */
    if (!msg && v.target_missing)
        wh_warn(ctx, resp, "spec.targetRef: %s %s does not exist in namespace %s: nothing is spread",
                wh_json_path_str(spec, "targetRef", "kind", NULL),
                wh_json_path_str(spec, "targetRef", "name", NULL), v.ns);
    free(msg);
out:
    json_decref(tmpl);
    wh_ferrs_fini(&v.errs);
    json_decref(obj);
    json_decref(old);
    return WH_OK;
}

/* Served with the gate off too: it then answers 403 (spec workloadspread.md 2). */
const struct wh_route wh_ws_validate_route = {
    .path = "/validate-apps-kruise-io-workloadspread",
    .kind = WH_ROUTE_VALIDATE,
    .admit = wh_ws_validate_admit,
    .setup = wh_ws_caches_setup,
    .entries = {{.name = "vworkloadspread.kb.io",
                 .group = WH_KRUISE_APPS,
                 .versions = {"v1alpha1", "v1beta1"},
                 .resource = "workloadspreads",
                 .operations = WH_WEBHOOK_CREATE | WH_WEBHOOK_UPDATE}},
};
