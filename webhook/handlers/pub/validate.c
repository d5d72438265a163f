/* /validate-policy-kruise-io-podunavailablebudget (spec pub.md 7): the PUB object, v1beta1 as it
 * is and v1alpha1 converted up first (conversion/convert.h), checked field by field with
 * Kubernetes' messages, and against the other PUBs of its namespace (from the PUB cache). */
#include "handlers/pub/pub.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conversion/convert.h"
#include "gocompat/gotype.h"
#include "handlers/pub/pub_int.h"
#include "handlers/warnings.h"
#include "k8s/fielderr.h"
#include "k8s/kruise.h"
#include "k8s/ref.h"
#include "k8s/selector.h"
#include "k8s/validation.h"
#include "util/json.h"
#include "util/jsoneq.h"
#include "util/str.h"

/* A member that is there: present and not null (a nil pointer in Go). */
static const json_t *member(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return v && !json_is_null(v) ? v : NULL;
}

/* %#v of a v1beta1.TargetReference. Returns: new string. */
static char *gosyntax_target(const json_t *ref)
{
    char *av = wh_go_quote(wh_json_str_or_empty(ref, "apiVersion"));
    char *kind = wh_go_quote(wh_json_str_or_empty(ref, "kind"));
    char *name = wh_go_quote(wh_json_str_or_empty(ref, "name"));
    char *out =
        wh_str_printf("v1beta1.TargetReference{APIVersion:%s, Kind:%s, Name:%s}", av, kind, name);
    free(av);
    free(kind);
    free(name);
    return out;
}

static size_t requirements(const json_t *sel)
{
    return json_object_size(wh_json_obj(sel, "matchLabels")) +
           json_array_size(wh_json_arr(sel, "matchExpressions"));
}

static void invalid_selector(struct wh_field_errors *l, const json_t *sel, const char *path,
                             const char *detail)
{
    char *g = wh_gosyntax_label_selector(sel);
    wh_ferr_invalid_raw(l, path, g, detail);
    free(g);
}

static void invalid_target(struct wh_field_errors *l, const json_t *ref, const char *path,
                           const char *detail)
{
    char *g = gosyntax_target(ref);
    wh_ferr_invalid_raw(l, path, g, detail);
    free(g);
}

/* --- the rules ---------------------------------------------------------------------------- */

static void total_replicas_annotation(struct wh_field_errors *l, const json_t *obj)
{
    const char *v = wh_json_annotation(obj, WH_KRUISE_ANN_PUB_TOTAL_REPLICAS);
    if (!v)
        return;
    static const char path[] = "metadata.annotations[" WH_KRUISE_ANN_PUB_TOTAL_REPLICAS "]";
    long long n;
    const json_t *spec_total = member(wh_json_obj(obj, "spec"), "protectTotalReplicas");
    if (wh_str_to_ll(v, INT32_MIN, INT32_MAX, &n) != WH_OK) {
        wh_ferr_invalid_str(l, path, v, "must be a valid int32");
    } else if (spec_total) {
        char text[32];
        snprintf(text, sizeof(text), "%" JSON_INTEGER_FORMAT, json_integer_value(spec_total));
        if (strcmp(text, v) != 0)
            wh_ferr_invalid_str(l, path, v,
                                "must match spec.protectTotalReplicas when both are set");
    }
}

/* Exactly one of spec's members a and b: Required errors at "spec.<a>, <b>" otherwise.
 * Returns: 'a' or 'b' for the one that is set, 0 when neither or both are. */
static char one_of(struct wh_field_errors *l, const json_t *spec, const char *a, const char *b,
                   const char *neither, const char *both)
{
    bool has_a = member(spec, a) != NULL, has_b = member(spec, b) != NULL;
    if (has_a != has_b)
        return has_a ? 'a' : 'b';
    char path[96];
    snprintf(path, sizeof(path), "spec.%s, %s", a, b);
    wh_ferr_required(l, path, has_a ? both : neither);
    return 0;
}

static void target(struct wh_field_errors *l, const json_t *spec)
{
    const json_t *sel = member(spec, "selector"), *ref = member(spec, "targetRef");
    char which = one_of(l, spec, "selector", "targetRef",
                        "no selector or targetRef defined in PodUnavailableBudget",
                        "selector and targetRef are mutually exclusive");
    if (which == 'b') {
        const char *av = wh_json_str_or_empty(ref, "apiVersion");
        if (!*av || !*wh_json_str_or_empty(ref, "name") || !*wh_json_str_or_empty(ref, "kind"))
            invalid_target(l, ref, "spec.targetRef",
                           "empty targetRef is not valid for PodUnavailableBudget");
        char group[256], detail[600];
        if (!wh_ref_group_of(av, group, sizeof(group))) {
            snprintf(detail, sizeof(detail), "unexpected GroupVersion string: %s", av);
            invalid_target(l, ref, "spec.targetRef", detail);
        }
    } else if (which == 'a') {
        wh_validate_label_selector(l, sel, "spec.selector");
        if (requirements(sel) == 0)
            invalid_selector(l, sel, "spec.selector",
                             "empty selector is not valid for PodUnavailableBudget.");
        if (!wh_label_selector_convertible(sel))
            invalid_selector(l, sel, "spec.selector", "");
    }
}

static void budget(struct wh_field_errors *l, const json_t *spec)
{
    char which = one_of(l, spec, "maxUnavailable", "minAvailable",
                        "no maxUnavailable or minAvailable defined in PodUnavailableBudget",
                        "maxUnavailable and minAvailable are mutually exclusive");
    if (!which)
        return;
    const char *path = which == 'a' ? "spec.maxUnavailable" : "spec.minAvailable";
    const json_t *v = member(spec, path + strlen("spec."));
    wh_validate_positive_int_or_percent(l, v, path);
    wh_validate_not_more_than_100_percent(l, v, path);
}

static void operations(struct wh_field_errors *l, const json_t *spec)
{
    static const char *const valid[] = {"DELETE", "UPDATE", "EVICT", "RESIZE"};
    size_t i;
    const json_t *op;
    json_array_foreach(wh_json_arr(spec, "protectOperations"), i, op)
    {
        const char *s = json_string_value(op);
        if (s && wh_pub_op_parse(s, strlen(s)))
            continue;
        char path[64];
        snprintf(path, sizeof(path), "spec.protectOperations[%zu]", i);
        wh_ferr_not_supported(l, path, s ? s : "", valid, 4);
    }
}

static void ignored_selector(struct wh_field_errors *l, const json_t *spec)
{
    const json_t *sel = member(spec, "ignoredPodSelector");
    if (!sel)
        return;
    wh_validate_label_selector(l, sel, "spec.ignoredPodSelector");
    if (requirements(sel) == 0)
        invalid_selector(l, sel, "spec.ignoredPodSelector",
                         "empty ignoredPodSelector is not valid for PodUnavailableBudget");
}

/* --- conflicts with the other PUBs ------------------------------------------------------------ */

/* A selector as key -> requirement: expressions first, then matchLabels as "key In [value]"
 * (util.convertSelectorToMatchExpressions). Returns: new ref, {key: {operator, values}}. */
static json_t *requirements_by_key(const json_t *sel)
{
    json_t *out = json_object();
    size_t i;
    const json_t *e;
    json_array_foreach(wh_json_arr(sel, "matchExpressions"), i, e)
    {
        json_t *values = wh_json_arr(e, "values");
        json_t *r = json_object();
        json_object_set_new(r, "operator", json_string(wh_json_str_or_empty(e, "operator")));
        json_object_set_new(r, "values", values ? json_incref(values) : json_array());
        json_object_set_new(out, wh_json_str_or_empty(e, "key"), r);
    }
    const char *k;
    json_t *v;
    json_object_foreach(wh_json_obj(sel, "matchLabels"), k, v)
    {
        json_object_set_new(out, k, json_pack("{s:s,s:[O]}", "operator", "In", "values", v));
    }
    return out;
}

static bool contains(const json_t *list, const json_t *s)
{
    size_t i;
    const json_t *v;
    json_array_foreach(list, i, v) if (json_equal(v, s)) return true;
    return false;
}

/* Some value of b is in a. */
static bool overlaps(const json_t *a, const json_t *b)
{
    size_t i;
    const json_t *v;
    json_array_foreach(b, i, v) if (contains(a, v)) return true;
    return false;
}

/* Every value of b is in a. */
static bool contains_all(const json_t *a, const json_t *b)
{
    size_t i;
    const json_t *v;
    json_array_foreach(b, i, v) if (!contains(a, v)) return false;
    return true;
}

/* util.isMatchExpOverlap. */
static bool requirement_overlap(const json_t *x, const json_t *y)
{
    const char *a = wh_json_str_or_empty(x, "operator"), *b = wh_json_str_or_empty(y, "operator");
    const json_t *va = wh_json_arr(x, "values"), *vb = wh_json_arr(y, "values");
    if (strcmp(a, "In") == 0)
        return strcmp(b, "Exists") == 0 || (strcmp(b, "In") == 0 && overlaps(vb, va)) ||
               (strcmp(b, "NotIn") == 0 && !contains_all(vb, va));
    if (strcmp(a, "Exists") == 0)
        return strcmp(b, "In") == 0 || strcmp(b, "NotIn") == 0 || strcmp(b, "Exists") == 0;
    if (strcmp(a, "NotIn") == 0)
        return strcmp(b, "Exists") == 0 || strcmp(b, "DoesNotExist") == 0 ||
               strcmp(b, "NotIn") == 0 || (strcmp(b, "In") == 0 && !contains_all(va, vb));
    if (strcmp(a, "DoesNotExist") == 0)
        return strcmp(b, "DoesNotExist") == 0 || strcmp(b, "NotIn") == 0;
    return false;
}

/* util.IsSelectorLooseOverlap: the same keys, and every key's requirements overlap both ways. */
static bool loose_overlap(const json_t *s1, const json_t *s2)
{
    json_t *a = requirements_by_key(s1), *b = requirements_by_key(s2);
    bool result = json_object_size(a) == json_object_size(b);
    const char *k;
    json_t *x;
    json_object_foreach(a, k, x)
    {
        const json_t *y = json_object_get(b, k);
        if (!result || !y || !requirement_overlap(x, y) || !requirement_overlap(y, x)) {
            result = false;
            break;
        }
    }
    json_decref(a);
    json_decref(b);
    return result;
}

static void conflicts(struct wh_field_errors *l, const struct wh_handler_ctx *ctx,
                      const json_t *obj)
{
    struct wh_cache *c = ctx->cluster ? wh_cluster_cache(ctx->cluster, WH_RES_PUB) : NULL;
    if (!c)
        return;
    const char *ns = wh_json_meta_str(obj, "namespace");
    const char *name = wh_json_meta_str(obj, "name");
    const json_t *spec = wh_json_obj(obj, "spec");
    const json_t *ref = member(spec, "targetRef"), *sel = member(spec, "selector");
    char group[256] = "", other_group[256];
    if (ref && !wh_ref_group_of(wh_json_str(ref, "apiVersion"), group, sizeof(group)))
        group[0] = '\0';
    struct wh_objlist all;
    wh_objlist_init(&all);
    /* upstream lists with the object's namespace: an empty one lists every namespace */
    wh_cache_list(c, ns && *ns ? ns : NULL, &all);
    for (size_t i = 0; i < all.n; i++) {
        const json_t *other = wh_object_json(all.items[i]);
        const char *other_name = wh_json_meta_str(other, "name");
        if (wh_str_eq(other_name, name))
            continue;
        const json_t *ospec = wh_json_obj(other, "spec");
        const json_t *oref = member(ospec, "targetRef"), *osel = member(ospec, "selector");
        char detail[600];
        if (ref && oref) {
            if (!wh_ref_group_of(wh_json_str(oref, "apiVersion"), other_group, sizeof(other_group)))
                other_group[0] = '\0';
            if (strcmp(group, other_group) == 0 &&
                wh_str_eq(wh_json_str_or_empty(ref, "kind"), wh_json_str_or_empty(oref, "kind")) &&
                wh_str_eq(wh_json_str_or_empty(ref, "name"), wh_json_str_or_empty(oref, "name"))) {
                snprintf(detail, sizeof(detail),
                         "pub.spec.targetReference is in conflict with other "
                         "PodUnavailableBudget %s",
                         other_name ? other_name : "");
                invalid_target(l, ref, "spec.targetReference", detail);
                break;
            }
        } else if (sel && osel && loose_overlap(sel, osel)) {
            snprintf(detail, sizeof(detail),
                     "pub.spec.selector is in conflict with other PodUnavailableBudget %s",
                     other_name ? other_name : "");
            invalid_selector(l, sel, "spec.selector", detail);
            break;
        }
    }
    wh_objlist_fini(&all);
}

/* validatingPodUnavailableBudgetFnV1beta1 on the v1beta1 form of the object (and old one). */
static void validate(struct wh_field_errors *l, const struct wh_handler_ctx *ctx, const json_t *obj,
                     const json_t *old)
{
    const json_t *spec = wh_json_obj(obj, "spec");
    total_replicas_annotation(l, obj);
    target(l, spec);
    budget(l, spec);
    operations(l, spec);
    ignored_selector(l, spec);
    if (old) {
        const json_t *ospec = wh_json_obj(old, "spec");
        /* reflect.DeepEqual of the decoded fields: a null member is an absent one */
        if (!wh_json_equal(member(spec, "selector"), member(ospec, "selector"),
                           WH_JSON_EQ_NULL_ABSENT) ||
            !wh_json_equal(member(spec, "targetRef"), member(ospec, "targetRef"),
                           WH_JSON_EQ_NULL_ABSENT))
            wh_ferr_required(l, "spec.selector, targetRef",
                             "selector and targetRef cannot be modified");
    }
    conflicts(l, ctx, obj);
}

/* --- warnings (this server's; upstream sends none) ---------------------------------------- */

static enum wh_err count_item(void *arg, json_t *item)
{
    (void)item;
    (*(size_t *)arg)++;
    return WH_OK;
}

/* A PUB that covers no Pod protects nothing: say so. The server caches no Pods, so a selector
 * is asked of the API server, one page of one Pod within the request's deadline (PUBs are
 * written rarely); a targetRef of a cached kind is looked up in its cache. A check that cannot
 * be made (a kind not cached, a list that fails, standalone state) warns of nothing. */
static void warn_coverage(const struct wh_handler_ctx *ctx, const json_t *obj,
                          struct wh_admission_response *resp)
{
    if (!wh_warnings_on(ctx) || !ctx->cluster)
        return;
    const char *ns = wh_json_str_or_empty(wh_json_obj(obj, "metadata"), "namespace");
    const json_t *spec = wh_json_obj(obj, "spec");
    const json_t *ref = wh_json_obj(spec, "targetRef");
    if (ref) {
        char group[256];
        const char *kind = wh_json_str_or_empty(ref, "kind");
        const char *name = wh_json_str_or_empty(ref, "name");
        if (!wh_ref_group_of(wh_json_str(ref, "apiVersion"), group, sizeof(group)))
            return;
        enum wh_resource_id id = wh_resource_by_kind(group, kind);
        struct wh_cache *c = id < WH_RES_COUNT ? wh_cluster_cache(ctx->cluster, id) : NULL;
        if (!c)
            return;
        struct wh_object *o = wh_cache_get(c, ns, name);
        const json_t *replicas = o ? wh_json_path(wh_object_json(o), "spec", "replicas", NULL) : NULL;
        if (!o)
            wh_warn(ctx, resp, "spec.targetRef: %s %s does not exist: the budget covers no Pod",
                    kind, name);
        else if (json_is_integer(replicas) && json_integer_value(replicas) == 0)
            wh_warn(ctx, resp, "spec.targetRef: %s %s has 0 replicas: the budget covers no Pod",
                    kind, name);
        wh_object_unref(o);
        return;
    }
    char *query = wh_selector_query(wh_json_obj(spec, "selector"));
    size_t n = 0;
    struct wh_errbuf eb = {{0}};
    if (query && query[0] &&
        wh_cluster_list_page_live(ctx->cluster, "", "v1", "pods", ns, query, 1, count_item, &n,
                                  &eb) == WH_OK &&
        n == 0)
        wh_warn(ctx, resp, "spec.selector matches no Pod in namespace %s yet: the budget covers "
                           "none",
                ns);
    free(query);
}

/* --- the handler ------------------------------------------------------------------------------ */

/* Upstream's decoder accepts raw as a PUB of its version; else answers 400 through resp. */
static bool decodable(const json_t *raw, bool alpha, struct wh_admission_response *resp)
{
    struct wh_errbuf eb = {{0}};
    if (!raw || json_is_null(raw)) {
        wh_admission_deny(resp, 400, "there is no content to decode");
        return false;
    }
    if (wh_gotype_check(
            raw,
            wh_gotype_lookup(alpha ? WH_KRUISE_POLICY_V1ALPHA1 : WH_KRUISE_POLICY_V1BETA1,
                             "PodUnavailableBudget"),
            &eb)) {
        wh_admission_deny(resp, 400, "%s", eb.msg);
        return false;
    }
    return true;
}

/* The v1beta1 form of a decodable object: *out a new ref, or a 400 through resp (false). */
static bool to_beta(const json_t *raw, bool alpha, bool is_old, json_t **out,
                    struct wh_admission_response *resp)
{
    *out = NULL;
    if (!alpha) {
        *out = json_incref((json_t *)(uintptr_t)raw);
        return true;
    }
    char *msg = NULL;
    if (wh_convert_object(WH_KRUISE_POLICY_V1BETA1, raw, out, &msg) != WH_OK) {
        wh_admission_deny(resp, 400, "failed to convert %sv1alpha1 PUB to v1beta1: %s",
                          is_old ? "old " : "", msg ? msg : "conversion failed");
        free(msg);
        return false;
    }
    return true;
}

enum wh_err wh_pub_validate_admit(const struct wh_handler_ctx *ctx,
                                  const struct wh_admission_request *req,
                                  struct wh_admission_response *resp, struct wh_errbuf *eb)
{
    (void)eb;
    if (!wh_pub_gates_on(ctx->cfg)) {
        wh_admission_deny(resp, 400,
                          "feature PodUnavailableBudget is invalid, please open via "
                          "feature-gate(PodUnavailableBudgetDeleteGate, "
                          "PodUnavailableBudgetUpdateGate)");
        return WH_OK;
    }
    const char *version = req->resource.version;
    bool alpha = strcmp(version, "v1alpha1") == 0;
    if (!alpha && strcmp(version, "v1beta1") != 0) {
        wh_admission_deny(resp, 400, "unsupported version: %s", version);
        return WH_OK;
    }
    bool create = strcmp(req->operation, "CREATE") == 0;
    if (!create && strcmp(req->operation, "UPDATE") != 0) {
        wh_admission_allow(resp, NULL);
        return WH_OK;
    }
    json_t *obj = NULL, *old = NULL;
    /* upstream decodes both objects before converting either */
    if (!decodable(req->object, alpha, resp) ||
        (!create && !decodable(req->old_object, alpha, resp)))
        goto out;
    if (!to_beta(req->object, alpha, false, &obj, resp) ||
        (!create && !to_beta(req->old_object, alpha, true, &old, resp)))
        goto out;
    struct wh_field_errors errs;
    wh_ferrs_init(&errs);
    validate(&errs, ctx, obj, old);
    char *msg = wh_ferrs_aggregate(&errs);
    if (msg)
        wh_admission_deny(resp, 400, "%s", msg);
    else
        wh_admission_allow(resp, NULL);
    if (!msg)
        warn_coverage(ctx, obj, resp);
    free(msg);
    wh_ferrs_fini(&errs);
out:
    json_decref(obj);
    json_decref(old);
    return WH_OK;
}

enum wh_err wh_pub_validate_setup(struct wh_cluster *cl, const struct wh_config *cfg,
                                  struct wh_errbuf *eb)
{
    return wh_pub_gates_on(cfg) ? wh_pub_setup(cl, cfg, eb) : WH_OK;
}

const struct wh_route wh_pub_validate_route = {
    .path = "/validate-policy-kruise-io-podunavailablebudget",
    .kind = WH_ROUTE_VALIDATE,
    .admit = wh_pub_validate_admit,
    .setup = wh_pub_validate_setup,
    .entries = {{.name = "vpodunavailablebudget.kb.io",
                 .group = WH_KRUISE_POLICY,
                 .versions = {"v1alpha1", "v1beta1"},
                 .resource = "podunavailablebudgets",
                 .operations = WH_WEBHOOK_CREATE | WH_WEBHOOK_UPDATE}},
};
