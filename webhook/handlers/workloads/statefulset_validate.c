/* /validate-apps-kruise-io-statefulset (vstatefulset.kb.io): Advanced StatefulSet validation
 * (upstream pkg/webhook/statefulset/validating) on the v1beta1 form (a v1alpha1 object is
 * converted first; any other version is validated as an empty object, as upstream's decoding
 * leaves it), and deletion protection on DELETE.
 *
 * Upstream's order has consequences kept here: the template is defaulted in place by the
 * template validation before the update checks, so an InPlaceOnly update compares the old
 * template with the defaulted new one; the update check copies the old lifecycle,
 * revisionHistoryLimit, ordinals and volumeClaimUpdateStrategy into the new object and leaves
 * them there, so the claim template resize check (gate StatefulSetAutoResizePVCGate) reads the
 * old object's volumeClaimUpdateStrategy. */
#include "handlers/workloads/workloads.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/features.h"
#include "gocompat/goequal.h"
#include "gocompat/strconv.h"
#include "handlers/deletion/protection.h"
#include "handlers/workloads/workload_int.h"
#include "k8s/kruise.h"
#include "k8s/kruisestrategy.h"
#include "k8s/podvalidation.h"
#include "k8s/quantity.h"
#include "k8s/selector.h"
#include "k8s/validation.h"
#include "kube/cluster.h"
#include "k8s/defaults.h"
#include "util/buf.h"
#include "util/json.h"
#include "util/str.h"

#define KIND "StatefulSet"
#define RU "spec.updateStrategy.rollingUpdate"

static bool present(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return v && !json_is_null(v);
}

/* --- Go renderings ------------------------------------------------------------------------ */

static char *gosyntax_rolling_update(const json_t *ru)
{
    char *mu = wl_gosyntax_pointer("intstr.IntOrString", json_object_get(ru, "maxUnavailable"));
    char *pol = wh_go_quote(wh_json_str_or_empty(ru, "podUpdatePolicy"));
    char *part = wl_gosyntax_pointer("int32", json_object_get(ru, "partition"));
    char *uu = wl_gosyntax_pointer("v1beta1.UnorderedUpdateStrategy",
                                   json_object_get(ru, "unorderedUpdate"));
    char *ipu = wl_gosyntax_pointer("pub.InPlaceUpdateStrategy",
                                    json_object_get(ru, "inPlaceUpdateStrategy"));
    char *mrs = wl_gosyntax_pointer("int32", json_object_get(ru, "minReadySeconds"));
    char *out =
        wh_str_printf("v1beta1.RollingUpdateStatefulSetStrategy{Partition:%s, "
                      "MaxUnavailable:%s, PodUpdatePolicy:%s, Paused:%s, "
                      "UnorderedUpdate:%s, InPlaceUpdateStrategy:%s, MinReadySeconds:%s}",
                      part, mu, pol, json_is_true(json_object_get(ru, "paused")) ? "true" : "false",
                      uu, ipu, mrs);
    free(mu);
    free(pol);
    free(part);
    free(uu);
    free(ipu);
    free(mrs);
    return out;
}

static char *gosyntax_update_strategy(const json_t *us)
{
    char *t = wh_go_quote(wh_json_str_or_empty(us, "type"));
    char *ru = wl_gosyntax_pointer("v1beta1.RollingUpdateStatefulSetStrategy",
                                   json_object_get(us, "rollingUpdate"));
    char *out =
        wh_str_printf("v1beta1.StatefulSetUpdateStrategy{Type:%s, RollingUpdate:%s}", t, ru);
    free(t);
    free(ru);
    return out;
}

/* --- the spec ----------------------------------------------------------------------------- */

struct check {
    const struct wh_handler_ctx *ctx;
    struct wh_field_errors errs;
};

static bool parallel(const json_t *spec)
{
    return strcmp(wh_json_str_or_empty(spec, "podManagementPolicy"), "Parallel") == 0;
}

static void pod_management_policy(struct check *c, const json_t *spec)
{
    const char *p = wh_json_str_or_empty(spec, "podManagementPolicy");
    if (!*p)
        wh_ferr_required(&c->errs, "spec.podManagementPolicy", "");
    else if (strcmp(p, "OrderedReady") && strcmp(p, "Parallel"))
        wh_ferr_invalid_str(&c->errs, "spec.podManagementPolicy", p,
                            "must be 'OrderedReady' or 'Parallel'");
}

/* ^\d+-\d+$ */
static bool ordinal_range(const char *s)
{
    const char *p = s;
    if (*p < '0' || *p > '9')
        return false;
    while (*p >= '0' && *p <= '9')
        p++;
    if (*p++ != '-' || *p < '0' || *p > '9')
        return false;
    while (*p >= '0' && *p <= '9')
        p++;
    return !*p;
}

/* apiutil.ParseRange's error, or NULL. */
static const char *range_problem(const char *s, char *buf, size_t bufsz)
{
    const char *dash = strchr(s, '-');
    if (!dash || strchr(dash + 1, '-')) {
        snprintf(buf, bufsz, "invalid range %s", s);
        return buf;
    }
    char first[128];
    snprintf(first, sizeof(first), "%.*s", (int)(dash - s), s);
    int64_t start, end;
    struct wh_errbuf eb = {{0}};
    if (wh_go_atoi(first, &start, &eb) || wh_go_atoi(dash + 1, &end, &eb)) {
        snprintf(buf, bufsz, "%s", eb.msg);
        return buf;
    }
    if (start > end) {
        snprintf(buf, bufsz, "invalid range %s", s);
        return buf;
    }
    return NULL;
}

static void reserve_ordinals(struct check *c, const json_t *spec)
{
    const json_t *ords = wh_json_arr(spec, "reserveOrdinals");
    size_t i;
    const json_t *o;
    char *g = NULL;
    json_array_foreach(ords, i, o)
    {
        char detail[700], buf[400];
        if (!g)
            g = wl_gosyntax_intstrs(ords);
        if (json_is_string(o)) {
            const char *s = json_string_value(o);
            if (!ordinal_range(s)) {
                snprintf(detail, sizeof(detail), "%zu th reserve ordinal is not a valid range: %s",
                         i, s);
                wh_ferr_invalid_raw(&c->errs, "spec", g, detail);
            }
            const char *prob = range_problem(s, buf, sizeof(buf));
            if (prob) {
                snprintf(detail, sizeof(detail), "%zu th reserve ordinal is invalid: %s, err = %s",
                         i, s, prob);
                wh_ferr_invalid_raw(&c->errs, "spec", g, detail);
            }
        } else if (json_integer_value(o) < 0) {
            snprintf(detail, sizeof(detail), "%zu th reserve ordinal is negative: %lld", i,
                     (long long)json_integer_value(o));
            wh_ferr_invalid_raw(&c->errs, "spec", g, detail);
        }
    }
    free(g);
}

static void max_unavailable_field(struct check *c, const json_t *mu, const json_t *spec,
                                  const char *path)
{
    wh_validate_positive_int_or_percent(&c->errs, mu, path);
    int64_t v;
    struct wh_errbuf eb = {{0}};
    if (wl_legacy_value(mu, 1, true, &v, &eb)) {
        char detail[400];
        snprintf(detail, sizeof(detail), "getValueFromIntOrPercent error: %s", eb.msg);
        wh_ferr_invalid_int(&c->errs, path, v, detail);
    } else if (v < 1) {
        wh_ferr_invalid_int(&c->errs, path, v, "should not be less than 1");
    }
    if (!parallel(spec) && !(json_is_integer(mu) && json_integer_value(mu) == 1)) {
        char *g = wh_gosyntax_intstr(mu);
        wh_ferr_invalid_raw(&c->errs, path, g,
                            "can only work with Parallel PodManagementPolicyType");
        free(g);
    }
}

static void pod_update_policy(struct check *c, const json_t *spec, const json_t *ru)
{
    const char *p = wh_json_str_or_empty(ru, "podUpdatePolicy");
    if (!*p) {
        wh_ferr_required(&c->errs, RU ".podUpdatePolicy", "");
    } else if (strcmp(p, "InPlaceIfPossible") == 0 || strcmp(p, "InPlaceOnly") == 0) {
        const json_t *gates =
            wh_json_arr(wh_json_path(spec, "template", "spec", NULL), "readinessGates");
        size_t i;
        const json_t *g;
        json_array_foreach(gates, i, g)
        {
            if (strcmp(wh_json_str_or_empty(g, "conditionType"),
                       WH_KRUISE_POD_INPLACE_UPDATE_READY) == 0)
                return;
        }
        char detail[200];
        snprintf(detail, sizeof(detail), "must contains %s when podUpdatePolicy is %s",
                 WH_KRUISE_POD_INPLACE_UPDATE_READY, p);
        char *r = wl_gosyntax_readiness_gates(gates);
        wh_ferr_invalid_raw(&c->errs, "spec.template.spec.readinessGates", r, detail);
        free(r);
    } else if (strcmp(p, "ReCreate")) {
        wh_ferr_invalid_str(&c->errs, RU ".podUpdatePolicy", p,
                            "must be 'ReCreate', InPlaceIfPossible or 'InPlaceOnly'");
    }
}

static void rolling_update(struct check *c, const json_t *spec, const json_t *ru)
{
    wh_validate_nonnegative(&c->errs, json_integer_value(json_object_get(ru, "partition")),
                            RU ".partition");
    int64_t mrs = json_integer_value(json_object_get(ru, "minReadySeconds"));
    wh_validate_nonnegative(&c->errs, mrs, RU ".minReadySeconds");
    if (mrs > 300)
        wh_ferr_invalid_int(&c->errs, RU ".minReadySeconds", mrs,
                            "must be no more than 300 seconds");
    const json_t *mu = json_object_get(ru, "maxUnavailable");
    if (!mu || json_is_null(mu))
        wh_ferr_required(&c->errs, RU ".maxUnavailable", "");
    else
        max_unavailable_field(c, mu, spec, RU ".maxUnavailable");
    pod_update_policy(c, spec, ru);
    const json_t *uu = json_object_get(ru, "unorderedUpdate");
    if (uu && !json_is_null(uu)) {
        if (!parallel(spec))
            wh_ferr_required(&c->errs, RU ".unorderedUpdate",
                             "unorderedUpdate can only work with Parallel PodManagementPolicyType");
        char *prob = wh_kruise_priority_strategy_problem(wh_json_obj(uu, "priorityStrategy"));
        if (prob)
            wh_ferr_required(&c->errs, RU ".unorderedUpdate.priorityStrategy", prob);
        free(prob);
    }
}

static void update_strategy(struct check *c, const json_t *spec)
{
    const json_t *us = wh_json_obj(spec, "updateStrategy");
    const char *type = wh_json_str_or_empty(us, "type");
    const json_t *ru = json_object_get(us, "rollingUpdate");
    if (!*type) {
        wh_ferr_required(&c->errs, "spec.updateStrategy", "");
    } else if (strcmp(type, "OnDelete") == 0) {
        if (ru && !json_is_null(ru)) {
            char *g = gosyntax_rolling_update(ru);
            wh_ferr_invalid_raw(&c->errs, RU, g, "only allowed for updateStrategy 'RollingUpdate'");
            free(g);
        }
    } else if (strcmp(type, "RollingUpdate") == 0) {
        if (ru && !json_is_null(ru))
            rolling_update(c, spec, ru);
    } else {
        char *g = gosyntax_update_strategy(us);
        wh_ferr_invalid_raw(&c->errs, "spec.updateStrategy", g,
                            "must be 'RollingUpdate' or 'OnDelete'");
        free(g);
    }
}

static void retention_policy(struct check *c, const json_t *spec)
{
    static const char *const valid[] = {"Retain", "Delete"};
    const json_t *p = json_object_get(spec, "persistentVolumeClaimRetentionPolicy");
    if (!p || json_is_null(p))
        return;
    static const char *const which[] = {"whenDeleted", "whenScaled"};
    for (size_t i = 0; i < 2; i++) {
        const char *v = wh_json_str_or_empty(p, which[i]);
        if (strcmp(v, "Retain") && strcmp(v, "Delete")) {
            char path[128];
            snprintf(path, sizeof(path), "spec.persistentVolumeClaimRetentionPolicy.%s", which[i]);
            wh_ferr_not_supported(&c->errs, path, v, valid, 2);
        }
    }
}

/* validateSpecSelector: the template is defaulted and its metadata validated only when the
 * selector converts (ValidatePodTemplateSpecForStatefulSet checks no Pod spec). */
static void selector_and_template(struct check *c, json_t *spec)
{
    const json_t *sel = json_object_get(spec, "selector");
    if (!wl_validate_selector(&c->errs, sel, "statefulset", "spec.selector"))
        return;
    json_t *tmpl = wh_json_obj_ensure(spec, "template");
    json_t *pod_spec = wh_json_obj_ensure(tmpl, "spec");
    wh_k8s_default_pod_spec_for_validation(pod_spec,
                            wh_feature_on(&c->ctx->cfg->features,
                                          WH_FEATURE_DefaultHostNetworkHostPortsInPodTemplates));
    wl_selector_matches_labels(&c->errs, sel, wh_json_obj(wh_json_obj(tmpl, "metadata"), "labels"),
                               false, "spec.template.metadata.labels");
    wh_validate_pod_template_meta(&c->errs, tmpl, "spec.template");
}

static void validate(struct check *c, json_t *sts)
{
    wh_validate_kube_object_meta(&c->errs, wh_json_obj(sts, "metadata"), true, wh_name_is_dns_label,
                                 "metadata");
    json_t *spec = wh_json_obj_ensure(sts, "spec");
    pod_management_policy(c, spec);
    reserve_ordinals(c, spec);
    const json_t *ss = json_object_get(spec, "scaleStrategy");
    if (ss && !json_is_null(ss) && present(ss, "maxUnavailable"))
        max_unavailable_field(c, json_object_get(ss, "maxUnavailable"), spec,
                              "spec.scaleStrategy.maxUnavailable");
    update_strategy(c, spec);
    retention_policy(c, spec);
    wh_validate_nonnegative(&c->errs, json_integer_value(json_object_get(spec, "replicas")),
                            "spec.replicas");
    selector_and_template(c, spec);
    const json_t *pod_spec = wh_json_path(spec, "template", "spec", NULL);
    const char *restart = wh_json_str_or_empty(pod_spec, "restartPolicy");
    if (*restart && strcmp(restart, "Always")) {
        static const char *const always[] = {"Always"};
        wh_ferr_not_supported(&c->errs, "spec.template.spec.restartPolicy", restart, always, 1);
    }
    if (present(pod_spec, "activeDeadlineSeconds"))
        wh_ferr_forbidden(&c->errs, "spec.template.spec.activeDeadlineSeconds",
                          "activeDeadlineSeconds in StatefulSet is not Supported");
}

/* The fields an update may change, and those the check copies from the old object and leaves
 * in the new one. */
static const char *const changeable[] = {
    "replicas",
    "template",
    "updateStrategy",
    "persistentVolumeClaimRetentionPolicy",
    "scaleStrategy",
    "volumeClaimTemplates",
    "volumeClaimUpdateStrategy",
    "reserveOrdinals",
    "lifecycle",
    "revisionHistoryLimit",
    "ordinals",
    NULL,
};
static const char *const kept_from_old[] = {"volumeClaimUpdateStrategy", "lifecycle",
                                            "revisionHistoryLimit", "ordinals"};

static void validate_update(struct check *c, json_t *sts, const json_t *old)
{
    wh_validate_object_meta_update(&c->errs, wh_json_obj(sts, "metadata"),
                                   wh_json_obj(old, "metadata"), "metadata");
    json_t *spec = wh_json_obj_ensure(sts, "spec");
    const json_t *old_spec = wh_json_obj(old, "spec");
    const struct wh_gofield *f = wh_gotype_member(wh_kobj_type(KIND, WH_KOBJ_V1BETA1), "spec");
    if (!wh_go_deep_equal_except(spec, old_spec, f->type, WH_GOEQ_SEMANTIC, changeable))
        wh_ferr_forbidden(&c->errs, "spec",
                          "updates to statefulset spec for fields other than 'replicas', "
                          "'ordinals', 'template', 'reserveOrdinals', 'lifecycle', "
                          "'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy', "
                          "`volumeClaimTemplates`, `VolumeClaimUpdateStrategy` and "
                          "'updateStrategy' are forbidden");
    for (size_t i = 0; i < sizeof(kept_from_old) / sizeof(kept_from_old[0]); i++) {
        const json_t *v = json_object_get(old_spec, kept_from_old[i]);
        if (v)
            json_object_set_new(spec, kept_from_old[i], wh_json_copy(v));
        else
            json_object_del(spec, kept_from_old[i]);
    }
    wh_validate_nonnegative(&c->errs, json_integer_value(json_object_get(spec, "replicas")),
                            "spec.replicas");
    retention_policy(c, spec);
}

/* --- claim template resizing (gate StatefulSetAutoResizePVCGate) -------------------------- */

/* The storage of a claim's resource list (absent: zero). */
static struct wh_quantity storage(const json_t *pvc, const char *list)
{
    struct wh_quantity q;
    struct wh_errbuf eb;
    const json_t *v =
        json_object_get(wh_json_path(pvc, "spec", "resources", list, NULL), "storage");
    if (!json_is_string(v) || wh_quantity_parse(json_string_value(v), &q, &eb))
        wh_quantity_set_scaled(&q, 0, 0, WH_QUANTITY_DECIMAL_SI);
    return q;
}

/* pvc.IsClaimCompatibleWithoutSize(claim, template). */
static bool compatible_without_size(const json_t *claim, const json_t *tmpl)
{
    const json_t *a = json_object_get(wh_json_obj(claim, "spec"), "storageClassName");
    const json_t *b = json_object_get(wh_json_obj(tmpl, "spec"), "storageClassName");
    if (json_is_string(a) && json_is_string(b) &&
        strcmp(json_string_value(a), json_string_value(b)))
        return false;
    const json_t *ma = wh_json_arr(wh_json_obj(claim, "spec"), "accessModes");
    const json_t *mb = wh_json_arr(wh_json_obj(tmpl, "spec"), "accessModes");
    if (json_array_size(ma) != json_array_size(mb))
        return false;
    for (size_t i = 0; i < json_array_size(ma); i++) {
        const char *x = json_string_value(json_array_get(ma, i));
        const char *y = json_string_value(json_array_get(mb, i));
        if (strcmp(x ? x : "", y ? y : ""))
            return false;
    }
    return true;
}

/* The %#v of claim templates. Go prints whole v1.PersistentVolumeClaim values here; this names
 * them (a known departure of an alpha gate's message, test/oracle/departures.json). */
static char *gosyntax_claims(const json_t *claims, bool one)
{
    struct wh_buf b;
    wh_buf_init(&b, 1u << 20);
    size_t i;
    const json_t *c;
    wl_buf_add(&b, one ? "" : "[]v1.PersistentVolumeClaim{");
    json_array_foreach(claims, i, c)
    {
        char *q = wh_go_quote(wh_json_str_or_empty(wh_json_obj(c, "metadata"), "name"));
        wl_buf_add_take(&b, wh_str_printf("%sv1.PersistentVolumeClaim{Name:%s}", i ? ", " : "", q));
        free(q);
    }
    wl_buf_add(&b, one ? "" : "}");
    return wh_buf_take(&b, NULL);
}

struct default_sc {
    json_t *best;
    const char *best_ts;
};

static enum wh_err pick_default_sc(void *arg, json_t *sc)
{
    struct default_sc *d = arg;
    const json_t *meta = wh_json_obj(sc, "metadata");
    const char *def = json_string_value(json_object_get(
        wh_json_obj(meta, "annotations"), "storageclass.kubernetes.io/is-default-class"));
    if (!def || strcmp(def, "true"))
        return WH_OK;
    const char *ts = wh_json_str_or_empty(meta, "creationTimestamp");
    /* the only one or the newest (RFC 3339 in UTC compares as text) */
    if (!d->best || strcmp(d->best_ts, ts) < 0) {
        json_decref(d->best);
        d->best = json_incref((json_t *)(uintptr_t)sc);
        d->best_ts = wh_json_str_or_empty(wh_json_obj(d->best, "metadata"), "creationTimestamp");
    }
    return WH_OK;
}

/* ValidateVolumeClaimTemplateUpdate: under OnPodRollingUpdate the claim templates may only
 * change their storage, where the storage class allows expansion. The first problem is the
 * answer (422), as upstream returns it alone. The storage classes are read live. */
static void claim_template_resize(const struct wh_handler_ctx *ctx, const json_t *sts,
                                  const json_t *old, struct wh_field_errors *l)
{
    const struct wh_resource *sc_res = wh_resource_get(WH_RES_STORAGECLASS);
    const json_t *spec = wh_json_obj(sts, "spec");
    const char *type = wh_json_path_str(spec, "volumeClaimUpdateStrategy", "type", NULL);
    if (!type || !*type || strcmp(type, "OnDelete") == 0)
        return;
    const json_t *claims = wh_json_arr(spec, "volumeClaimTemplates");
    const json_t *old_claims = wh_json_arr(wh_json_obj(old, "spec"), "volumeClaimTemplates");
    char path[600];
    if (json_array_size(claims) != json_array_size(old_claims)) {
        char *g = gosyntax_claims(claims, false);
        wh_ferr_invalid_raw(l, "spec.volumeClaimTemplates", g,
                            "volumeClaimTemplate can not be added or deleted when OnRollingUpdate");
        free(g);
        return;
    }
    size_t i;
    const json_t *t;
    json_array_foreach(claims, i, t)
    {
        const char *name = wh_json_str_or_empty(wh_json_obj(t, "metadata"), "name");
        const json_t *o = NULL, *oc;
        size_t k;
        /* the last old template of a name wins, as in upstream's map of them */
        json_array_foreach(old_claims, k, oc)
        {
            if (strcmp(wh_json_str_or_empty(wh_json_obj(oc, "metadata"), "name"), name) == 0)
                o = oc;
        }
        if (!o) {
            snprintf(path, sizeof(path), "spec.volumeClaimTemplates[%s].name", name);
            wh_ferr_forbidden(l, path, "volumeClaimTemplate name can not be modified");
            return;
        }
        if (!compatible_without_size(o, t)) {
            json_t *one = json_pack("[O]", t);
            char *g = gosyntax_claims(one, true);
            json_decref(one);
            snprintf(path, sizeof(path), "spec.volumeClaimTemplates[%s]", name);
            wh_ferr_invalid_raw(l, path, g,
                                "volumeClaimTemplate can not be modified when OnRollingUpdate");
            free(g);
            return;
        }
        struct wh_quantity ra = storage(o, "requests"), rb = storage(t, "requests");
        struct wh_quantity la = storage(o, "limits"), lb = storage(t, "limits");
        if (wh_quantity_cmp(&ra, &rb) == 0 && wh_quantity_cmp(&la, &lb) == 0)
            continue;
        json_t *sc = NULL;
        struct wh_errbuf lerr = {{0}};
        const json_t *scn = json_object_get(wh_json_obj(t, "spec"), "storageClassName");
        snprintf(path, sizeof(path), "spec.volumeClaimTemplates[%s].spec.storageClassName", name);
        if (!json_is_string(scn)) {
            struct default_sc d = {0};
            if (!ctx->cluster ||
                wh_cluster_list_live(ctx->cluster, sc_res->group, sc_res->versions[0],
                                     sc_res->resource, NULL, NULL, pick_default_sc, &d, &lerr)) {
                json_decref(d.best);
                wh_ferr_invalid_str(l, path, "nil", "can not list storage class");
                return;
            }
            if (!d.best)
                continue; /* no default class: nothing to check */
            sc = d.best;
        } else if (!ctx->cluster || wh_cluster_get_live(ctx->cluster, sc_res->group,
                                                        sc_res->versions[0], sc_res->resource, NULL,
                                                        json_string_value(scn), &sc, &lerr)) {
            wh_ferr_invalid_str(l, path, json_string_value(scn), "can not get sc");
            return;
        }
        if (json_is_false(json_object_get(sc, "allowVolumeExpansion"))) {
            char detail[400];
            snprintf(detail, sizeof(detail), "storage class %s does not support volume expansion",
                     wh_json_str_or_empty(wh_json_obj(sc, "metadata"), "name"));
            snprintf(path, sizeof(path),
                     "spec.volumeClaimTemplates[%s].spec.resources.requests.storage", name);
            wh_ferr_forbidden(l, path, detail);
            json_decref(sc);
            return;
        }
        json_decref(sc);
    }
}

/* --- the handler -------------------------------------------------------------------------- */

/* The object as upstream's decodeObject leaves it: v1beta1, v1alpha1 converted, or an empty
 * one for another version. NULL after answering 400. */
static json_t *decode(const json_t *raw, enum wh_kobj_version v, struct wh_admission_response *resp)
{
    char *msg = NULL;
    if (v == WH_KOBJ_OTHER)
        return wl_decoded(NULL, KIND, WH_KOBJ_V1BETA1);
    json_t *obj = NULL;
    if (!wh_kobj_decode_or_deny(raw, KIND, v, &obj, resp))
        return NULL;
    if (v == WH_KOBJ_V1BETA1)
        return obj;
    json_t *beta = wl_decoded_up(obj, KIND, &msg);
    json_decref(obj);
    if (!beta) {
        wh_admission_deny(resp, 400, "failed to convert v1alpha1->v1beta1: %s", msg ? msg : "");
        free(msg);
    }
    return beta;
}

/* The nil pointers upstream's validation dereferences. */
static bool dereferences_nil(const json_t *sts)
{
    const json_t *spec = wh_json_obj(sts, "spec");
    if (!present(spec, "replicas"))
        return true;
    const json_t *us = wh_json_obj(spec, "updateStrategy");
    const json_t *ru = json_object_get(us, "rollingUpdate");
    return strcmp(wh_json_str_or_empty(us, "type"), "RollingUpdate") == 0 && ru &&
           !json_is_null(ru) && (!present(ru, "partition") || !present(ru, "minReadySeconds"));
}

static enum wh_err admit(const struct wh_handler_ctx *ctx, const struct wh_admission_request *req,
                         struct wh_admission_response *resp, struct wh_errbuf *eb)
{
    enum wh_err rc = WH_OK;
    enum wh_kobj_version v = wh_kobj_version_of(req);
    json_t *sts = NULL, *old = NULL;
    struct check c = {.ctx = ctx};
    wh_ferrs_init(&c.errs);
    bool create = strcmp(req->operation, "CREATE") == 0;
    if (!create && strcmp(req->operation, "UPDATE") != 0) {
        if (strcmp(req->operation, "DELETE") == 0 && v != WH_KOBJ_OTHER)
            wh_dp_kruise_workload_delete(ctx, req, WH_DP_ADVANCED_STATEFULSET, resp);
        else
            wh_admission_allow(resp, NULL); /* another version decodes to an empty object */
        goto out;
    }
    sts = decode(req->object, v, resp);
    if (!sts)
        goto out;
    if (!create) {
        old = decode(req->old_object, v, resp);
        if (!old)
            goto out;
    }
    if (dereferences_nil(sts)) {
        rc = wl_nil_dereference(eb);
        goto out;
    }
    validate(&c, sts);
    if (!create)
        validate_update(&c, sts, old);
    if (wl_answer_errors(resp, &c.errs) || create)
        goto out;
    if (wh_feature_on(&ctx->cfg->features, WH_FEATURE_StatefulSetAutoResizePVCGate)) {
        struct wh_field_errors resize;
        wh_ferrs_init(&resize);
        claim_template_resize(ctx, sts, old, &resize);
        bool denied = wl_answer_errors(resp, &resize);
        wh_ferrs_fini(&resize);
        if (denied)
            goto out;
    }
    const json_t *ru = wh_json_path(sts, "spec", "updateStrategy", "rollingUpdate", NULL);
    if (json_is_object(ru) &&
        strcmp(wh_json_str_or_empty(ru, "podUpdatePolicy"), "InPlaceOnly") == 0) {
        const struct wh_gotype *pod_spec = wh_gotype_lookup("v1", "PodSpec");
        json_t *a = NULL, *b = NULL;
        char found[600];
        if (!wh_gotype_normalize(wh_json_path(old, "spec", "template", "spec", NULL), pod_spec, &a,
                                 eb) &&
            !wh_gotype_normalize(wh_json_path(sts, "spec", "template", "spec", NULL), pod_spec, &b,
                                 eb) &&
            !wl_in_place_only(a, b, false, found, sizeof(found)))
            wh_admission_deny(resp, 422,
                              "invalid template modified with InPlaceOnly strategy: %s, currently "
                              "only image update is allowed for InPlaceOnly",
                              found);
        json_decref(a);
        json_decref(b);
    }
out:
    wh_ferrs_fini(&c.errs);
    json_decref(sts);
    json_decref(old);
    return rc;
}

const struct wh_route wh_statefulset_validate_route = {
    .path = "/validate-apps-kruise-io-statefulset",
    .kind = WH_ROUTE_VALIDATE,
    .admit = admit,
    .setup = wh_dp_setup,
    .entries = {{.name = "vstatefulset.kb.io",
                 .group = WH_KRUISE_APPS,
                 .versions = {"v1alpha1", "v1beta1"},
                 .resource = "statefulsets",
                 .operations = WH_WEBHOOK_CREATE | WH_WEBHOOK_UPDATE | WH_WEBHOOK_DELETE}},
};
