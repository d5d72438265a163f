/* /validate-apps-kruise-io-cloneset (vcloneset.kb.io): CloneSet validation, v1alpha1 and
 * v1beta1 (upstream pkg/webhook/cloneset/validating), and deletion protection on DELETE.
 *
 * The two versions are validated by two sets of rules that differ in places: v1alpha1 checks
 * progressDeadlineSeconds, looks up the Pods newly named in scaleStrategy.podsToDelete, and on
 * UPDATE lets an InPlaceOnly CloneSet change nothing in its Pod spec but images; v1beta1 does
 * none of that, and its maxSurge never counts against maxUnavailable (upstream's maxSurge is
 * declared again inside its block, so the outer one stays 0). */
#include "handlers/workloads/workloads.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gocompat/goequal.h"
#include "gocompat/strconv.h"
#include "handlers/deletion/protection.h"
#include "handlers/workloads/workload_int.h"
#include "k8s/kruise.h"
#include "k8s/kruisestrategy.h"
#include "k8s/validation.h"
#include "kube/cache.h"
#include "kube/cluster.h"
#include "util/json.h"
#include "util/mem.h"
#include "util/str.h"

#define KIND "CloneSet"

struct check {
    const struct wh_handler_ctx *ctx;
    struct wh_field_errors errs;
    bool alpha;
};

/* --- scale strategy ----------------------------------------------------------------------- */

/* util.CheckDuplicate: each repeat of an earlier name, in order. Returns: new array or NULL. */
static json_t *duplicates(const json_t *names)
{
    json_t *dups = NULL;
    size_t n = json_array_size(names);
    for (size_t i = 0; i < n; i++) {
        const char *s = json_string_value(json_array_get(names, i));
        for (size_t k = 0; k < i; k++) {
            if (strcmp(s, json_string_value(json_array_get(names, k))) == 0) {
                if (!dups)
                    dups = json_array();
                json_array_append_new(dups, json_string(s));
                break;
            }
        }
    }
    return dups;
}

static bool named(const json_t *names, const char *name)
{
    size_t i;
    const json_t *v;
    json_array_foreach(names, i, v)
    {
        if (strcmp(json_string_value(v), name) == 0)
            return true;
    }
    return false;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* v1alpha1: a Pod newly named in podsToDelete must exist, not be terminating, and be this
 * CloneSet's (its controller reference's uid). Upstream reads kruise-manager's Pod cache; this
 * reads the Pod live, within the request's deadline. */
static void pod_to_delete(struct check *c, const json_t *meta, const char *name)
{
    char detail[600];
    json_t *pod = NULL;
    struct wh_errbuf eb = {{0}};
    const char *ns = wh_json_str_or_empty(meta, "namespace");
    enum wh_err rc;
    if (c->ctx->cluster) {
        const struct wh_resource *pods = wh_resource_get(WH_RES_POD);
        rc = wh_cluster_get_live(c->ctx->cluster, pods->group, pods->versions[0], pods->resource,
                                 ns, name, &pod, &eb);
        if (rc == WH_ERR_NOT_FOUND)
            (void)wh_cache_not_found(&eb, "", "Pod", name);
    } else {
        rc = wh_cache_not_found(&eb, "", "Pod", name);
    }
    if (rc) {
        snprintf(detail, sizeof(detail), "find pod %s failed: %s", name, eb.msg);
        wh_ferr_invalid_str(&c->errs, "spec.scaleStrategy.podsToDelete", name, detail);
        return;
    }
    const json_t *pmeta = wh_json_obj(pod, "metadata");
    const json_t *ts = json_object_get(pmeta, "deletionTimestamp");
    if (ts && !json_is_null(ts)) {
        snprintf(detail, sizeof(detail), "find pod %s already terminating", name);
        wh_ferr_invalid_str(&c->errs, "spec.scaleStrategy.podsToDelete", name, detail);
        json_decref(pod);
        return;
    }
    const json_t *owner = NULL, *ref;
    size_t i;
    json_array_foreach(wh_json_arr(pmeta, "ownerReferences"), i, ref)
    {
        if (json_is_true(json_object_get(ref, "controller"))) {
            owner = ref;
            break;
        }
    }
    if (!owner || strcmp(wh_json_str_or_empty(owner, "uid"), wh_json_str_or_empty(meta, "uid"))) {
        snprintf(detail, sizeof(detail), "find pod %s owner is not this CloneSet", name);
        wh_ferr_invalid_str(&c->errs, "spec.scaleStrategy.podsToDelete", name, detail);
    }
    json_decref(pod);
}

static void scale_strategy(struct check *c, const json_t *ss, const json_t *old_ss,
                           const json_t *meta)
{
    const json_t *names = wh_json_arr(ss, "podsToDelete");
    json_t *dups = duplicates(names);
    if (dups) {
        char *g = wh_gosyntax_strings(names);
        struct wh_buf b;
        wh_buf_init(&b, 1u << 20);
        size_t i;
        json_t *v;
        wl_buf_add(&b, "duplicated items [");
        json_array_foreach(dups, i, v)
        {
            wl_buf_add(&b, i ? " " : "");
            wl_buf_add(&b, json_string_value(v));
        }
        wl_buf_add(&b, "]");
        char *detail = wh_buf_take(&b, NULL);
        wh_ferr_invalid_raw(&c->errs, "spec.scaleStrategy.podsToDelete", g, detail);
        free(detail);
        free(g);
        json_decref(dups);
        return;
    }
    if (!c->alpha)
        return;
    /* the new names, sorted (sets.String.List) */
    size_t n = json_array_size(names), k = 0;
    const char **todo = n ? wh_xcalloc(n, sizeof(*todo)) : NULL;
    for (size_t i = 0; i < n; i++) {
        const char *s = json_string_value(json_array_get(names, i));
        if (!named(wh_json_arr(old_ss, "podsToDelete"), s))
            todo[k++] = s;
    }
    if (k)
        qsort(todo, k, sizeof(*todo), by_name);
    for (size_t i = 0; i < k; i++)
        pod_to_delete(c, meta, todo[i]);
    free((void *)todo);
}

/* --- update strategy ---------------------------------------------------------------------- */

/* A scaled IntOrString of the strategy; a failure is an Invalid of the value's String(). */
static int64_t scaled(struct check *c, const json_t *v, int64_t replicas, const char *path,
                      const char *what)
{
    int64_t out = 0;
    struct wh_errbuf eb = {{0}};
    if (wl_scaled_value(v, replicas, true, &out, &eb)) {
        char detail[400];
        char *s = wl_intstr_string(v);
        snprintf(detail, sizeof(detail), "failed GetScaledValueFromIntOrPercent for %s: %s", what,
                 eb.msg);
        wh_ferr_invalid_str(&c->errs, path, s, detail);
        free(s);
    }
    return out;
}

static bool present(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return v && !json_is_null(v);
}

static void both_below_one(struct check *c, const json_t *max_unavailable, const char *path)
{
    if (!max_unavailable || json_is_null(max_unavailable)) {
        wh_ferr_invalid_str(&c->errs, path, "null",
                            "maxUnavailable and maxSurge should not both be less than 1");
        return;
    }
    char *g = wh_gosyntax_intstr(max_unavailable);
    wh_ferr_invalid_raw(&c->errs, path, g,
                        "maxUnavailable and maxSurge should not both be less than 1");
    free(g);
}

static void strategy_checks(struct check *c, const json_t *s, const char *path)
{
    char p[256];
    char *prob = wh_kruise_priority_strategy_problem(wh_json_obj(s, "priorityStrategy"));
    if (prob)
        wh_ferr_required(&c->errs, wh_fpath(p, sizeof(p), "%s.priorityStrategy", path), prob);
    free(prob);
    prob = wh_kruise_scatter_strategy_problem(wh_json_arr(s, "scatterStrategy"));
    if (prob)
        wh_ferr_required(&c->errs, wh_fpath(p, sizeof(p), "%s.scatterStrategy", path), prob);
    free(prob);
}

static void update_strategy_alpha(struct check *c, const json_t *us, int64_t replicas)
{
    const char *type = wh_json_str_or_empty(us, "type");
    if (strcmp(type, "ReCreate") && strcmp(type, "InPlaceIfPossible") &&
        strcmp(type, "InPlaceOnly"))
        wh_ferr_invalid_str(&c->errs, "spec.updateStrategy.type", type,
                            "must be 'ReCreate', InPlaceIfPossible or 'InPlaceOnly'");
    int64_t partition = scaled(c, json_object_get(us, "partition"), replicas,
                               "spec.updateStrategy.partition", "partition");
    wh_validate_nonnegative(&c->errs, partition, "spec.updateStrategy.partition");
    strategy_checks(c, us, "spec.updateStrategy");
    int64_t max_unavailable = 0, max_surge = 0;
    if (present(us, "maxUnavailable"))
        max_unavailable = scaled(c, json_object_get(us, "maxUnavailable"), replicas,
                                 "spec.updateStrategy.maxUnavailable", "maxUnavailable");
    if (present(us, "maxSurge")) {
        const json_t *ms = json_object_get(us, "maxSurge");
        max_surge = scaled(c, ms, replicas, "spec.updateStrategy.maxSurge", "maxSurge");
        if (strcmp(type, "InPlaceOnly") == 0 && max_surge > 0) {
            char *s = wl_intstr_string(ms);
            wh_ferr_invalid_str(&c->errs, "spec.updateStrategy.maxSurge", s,
                                "can not use maxSurge with strategy type InPlaceOnly");
            free(s);
        }
    }
    if (replicas > 0 && max_unavailable < 1 && max_surge < 1)
        both_below_one(c, json_object_get(us, "maxUnavailable"),
                       "spec.updateStrategy.maxUnavailable");
}

#define IPU "spec.updateStrategy.rollingUpdate.inPlaceUpdateStrategy"

static void in_place_update_strategy(struct check *c, const json_t *ipu)
{
    const json_t *par = json_object_get(ipu, "imagePreDownloadParallelism");
    const char *path = IPU ".imagePreDownloadParallelism";
    if (json_is_string(par)) {
        const char *s = json_string_value(par);
        int64_t v;
        struct wh_errbuf eb = {{0}};
        if (wh_str_has_suffix(s, "%")) {
            wh_ferr_invalid_str(&c->errs, path, s,
                                "imagePreDownloadParallelism does not support percentage value");
        } else if (wh_go_parse_int(s, 32, &v, &eb)) {
            char detail[400];
            snprintf(detail, sizeof(detail),
                     "imagePreDownloadParallelism must be a valid integer: %s", eb.msg);
            wh_ferr_invalid_str(&c->errs, path, s, detail);
        } else if (v < 0) {
            wh_ferr_invalid_str(&c->errs, path, s,
                                "imagePreDownloadParallelism must be non-negative");
        }
    } else if (json_is_integer(par) && json_integer_value(par) < 0) {
        wh_ferr_invalid_int(&c->errs, path, json_integer_value(par),
                            "imagePreDownloadParallelism must be non-negative");
    }
    if (present(ipu, "imagePreDownloadTimeoutSeconds"))
        wh_validate_nonnegative(
            &c->errs, json_integer_value(json_object_get(ipu, "imagePreDownloadTimeoutSeconds")),
            IPU ".imagePreDownloadTimeoutSeconds");
    if (present(ipu, "imagePreDownloadMinUpdatedReadyPods"))
        wh_validate_nonnegative(
            &c->errs,
            json_integer_value(json_object_get(ipu, "imagePreDownloadMinUpdatedReadyPods")),
            IPU ".imagePreDownloadMinUpdatedReadyPods");
}

#define RU "spec.updateStrategy.rollingUpdate"

static void update_strategy_beta(struct check *c, const json_t *us, int64_t replicas)
{
    const char *type = wh_json_str_or_empty(us, "type");
    if (*type && strcmp(type, "RollingUpdate") && strcmp(type, "OnDelete"))
        wh_ferr_invalid_str(&c->errs, "spec.updateStrategy.type", type,
                            "must be 'RollingUpdate' or 'OnDelete'");
    const json_t *ru = json_object_get(us, "rollingUpdate");
    if (!ru || json_is_null(ru))
        return;
    const char *policy = wh_json_str_or_empty(ru, "podUpdatePolicy");
    if (*policy && strcmp(policy, "ReCreate") && strcmp(policy, "InPlaceIfPossible") &&
        strcmp(policy, "InPlaceOnly"))
        wh_ferr_invalid_str(&c->errs, RU ".podUpdatePolicy", policy,
                            "must be 'ReCreate', 'InPlaceIfPossible' or 'InPlaceOnly'");
    int64_t partition =
        scaled(c, json_object_get(ru, "partition"), replicas, RU ".partition", "partition");
    wh_validate_nonnegative(&c->errs, partition, RU ".partition");
    strategy_checks(c, ru, RU);
    int64_t max_unavailable = 0;
    if (present(ru, "maxUnavailable"))
        max_unavailable = scaled(c, json_object_get(ru, "maxUnavailable"), replicas,
                                 RU ".maxUnavailable", "maxUnavailable");
    if (present(ru, "maxSurge")) {
        const json_t *ms = json_object_get(ru, "maxSurge");
        int64_t max_surge = scaled(c, ms, replicas, RU ".maxSurge", "maxSurge");
        if (strcmp(policy, "InPlaceOnly") == 0 && max_surge > 0) {
            char *s = wl_intstr_string(ms);
            wh_ferr_invalid_str(&c->errs, RU ".maxSurge", s,
                                "can not use maxSurge with podUpdatePolicy InPlaceOnly");
            free(s);
        }
    }
    if (replicas > 0 && max_unavailable < 1)
        both_below_one(c, json_object_get(ru, "maxUnavailable"), RU ".maxUnavailable");
    const json_t *ipu = json_object_get(ru, "inPlaceUpdateStrategy");
    if (ipu && !json_is_null(ipu))
        in_place_update_strategy(c, ipu);
}

/* --- the object --------------------------------------------------------------------------- */

static void validate_spec(struct check *c, json_t *spec, const json_t *old_spec, const json_t *meta)
{
    int64_t replicas = json_integer_value(json_object_get(spec, "replicas"));
    wh_validate_nonnegative(&c->errs, replicas, "spec.replicas");
    const json_t *sel = json_object_get(spec, "selector");
    if (wl_validate_selector(&c->errs, sel, "cloneset", "spec.selector")) {
        json_t *tmpl = wh_json_obj_ensure(spec, "template");
        wl_selector_matches_labels(&c->errs, sel,
                                   wh_json_obj(wh_json_obj(tmpl, "metadata"), "labels"), false,
                                   "spec.template.metadata.labels");
        wl_validate_template(&c->errs, tmpl, wh_json_arr(spec, "volumeClaimTemplates"), c->ctx->cfg,
                             "spec.template");
    }
    const json_t *pod_spec = wh_json_path(spec, "template", "spec", NULL);
    const char *restart = wh_json_str_or_empty(pod_spec, "restartPolicy");
    if (*restart && strcmp(restart, "Always")) {
        static const char *const always[] = {"Always"};
        wh_ferr_not_supported(&c->errs, "spec.template.spec.restartPolicy", restart, always, 1);
    }
    if (present(pod_spec, "activeDeadlineSeconds"))
        wh_ferr_forbidden(&c->errs, "spec.template.spec.activeDeadlineSeconds",
                          "activeDeadlineSeconds in cloneset is not Supported");
    scale_strategy(c, wh_json_obj(spec, "scaleStrategy"), wh_json_obj(old_spec, "scaleStrategy"),
                   meta);
    if (c->alpha) {
        update_strategy_alpha(c, wh_json_obj(spec, "updateStrategy"), replicas);
        const json_t *pds = json_object_get(spec, "progressDeadlineSeconds");
        if (pds && !json_is_null(pds)) {
            int64_t v = json_integer_value(pds);
            wh_validate_nonnegative(&c->errs, v, "spec.progressDeadlineSeconds");
            if (v != INT32_MAX && v <= json_integer_value(json_object_get(spec, "minReadySeconds")))
                wh_ferr_invalid_int(&c->errs, "spec.progressDeadlineSeconds", v,
                                    "must be greater than minReadySeconds");
        }
    } else {
        update_strategy_beta(c, wh_json_obj(spec, "updateStrategy"), replicas);
    }
}

static void validate(struct check *c, json_t *cs, const json_t *old)
{
    const json_t *meta = wh_json_obj(cs, "metadata");
    wh_validate_kube_object_meta(&c->errs, meta, true, wh_name_is_dns_subdomain, "metadata");
    validate_spec(c, wh_json_obj_ensure(cs, "spec"), wh_json_obj(old, "spec"), meta);
}

/* The spec fields an update may change. */
static const char *const changeable[] = {
    "replicas",
    "template",
    "scaleStrategy",
    "updateStrategy",
    "minReadySeconds",
    "lifecycle",
    "revisionHistoryLimit",
    "volumeClaimTemplates",
    "progressDeadlineSeconds",
    NULL,
};

/* The v1alpha1 update check of the CloneSet controller's core (ValidateCloneSetUpdate, on the
 * v1beta1 forms): InPlaceOnly allows replacing images only. */
static void in_place_only(struct check *c, const json_t *cs, const json_t *old)
{
    const char *type = wh_json_path_str(cs, "spec", "updateStrategy", "type", NULL);
    if (!type || strcmp(type, "InPlaceOnly"))
        return;
    const struct wh_gotype *pod_spec = wh_gotype_lookup("v1", "PodSpec");
    json_t *a = NULL, *b = NULL;
    struct wh_errbuf eb;
    if (!wh_gotype_normalize(wh_json_path(old, "spec", "template", "spec", NULL), pod_spec, &a,
                             &eb) &&
        !wh_gotype_normalize(wh_json_path(cs, "spec", "template", "spec", NULL), pod_spec, &b,
                             &eb)) {
        char found[600];
        if (!wl_in_place_only(a, b, true, found, sizeof(found))) {
            char detail[700];
            snprintf(detail, sizeof(detail),
                     "only allowed to update images in spec for InPlaceOnly, but found %s", found);
            wh_ferr_forbidden(&c->errs, "spec", detail);
        }
    }
    json_decref(a);
    json_decref(b);
}

static void validate_update(struct check *c, json_t *cs, const json_t *old)
{
    enum wh_kobj_version v = c->alpha ? WH_KOBJ_V1ALPHA1 : WH_KOBJ_V1BETA1;
    wh_validate_object_meta_update(&c->errs, wh_json_obj(cs, "metadata"),
                                   wh_json_obj(old, "metadata"), "metadata");
    const struct wh_gofield *spec = wh_gotype_member(wh_kobj_type(KIND, v), "spec");
    if (!wh_go_deep_equal_except(json_object_get(cs, "spec"), json_object_get(old, "spec"),
                                 spec->type, WH_GOEQ_SEMANTIC, changeable))
        wh_ferr_forbidden(&c->errs, "spec",
                          "updates to cloneset spec for fields other than 'replicas', "
                          "'template', 'lifecycle', 'scaleStrategy', 'updateStrategy', "
                          "'minReadySeconds', 'progressDeadlineSeconds', 'volumeClaimTemplates' "
                          "and 'revisionHistoryLimit' are forbidden");
    if (c->alpha)
        in_place_only(c, cs, old);
    validate(c, cs, old);
}

/* --- the handler -------------------------------------------------------------------------- */

static bool replicas_nil(const json_t *cs)
{
    return !present(wh_json_obj(cs, "spec"), "replicas");
}

static enum wh_err admit(const struct wh_handler_ctx *ctx, const struct wh_admission_request *req,
                         struct wh_admission_response *resp, struct wh_errbuf *eb)
{
    enum wh_err rc = WH_OK;
    enum wh_kobj_version v = wh_kobj_version_of(req);
    json_t *cs = NULL, *old = NULL;
    struct check c = {.ctx = ctx, .alpha = v == WH_KOBJ_V1ALPHA1};
    wh_ferrs_init(&c.errs);
    if (v == WH_KOBJ_OTHER) {
        wh_admission_deny(resp, 400, "unsupported version: %s", req->resource.version);
        goto out;
    }
    bool create = strcmp(req->operation, "CREATE") == 0;
    if (!create && strcmp(req->operation, "UPDATE") != 0) {
        if (strcmp(req->operation, "DELETE") == 0)
            wh_dp_kruise_workload_delete(ctx, req, WH_DP_CLONESET, resp);
        else
            wh_admission_allow(resp, NULL);
        goto out;
    }
    if (!wh_kobj_decode_or_deny(req->object, KIND, v, &cs, resp) ||
        (!create && !wh_kobj_decode_or_deny(req->old_object, KIND, v, &old, resp)))
        goto out;
    if (replicas_nil(cs)) {
        rc = wl_nil_dereference(eb);
        goto out;
    }
    if (create)
        validate(&c, cs, NULL);
    else
        validate_update(&c, cs, old);
    wl_answer_errors(resp, &c.errs);
out:
    wh_ferrs_fini(&c.errs);
    json_decref(cs);
    json_decref(old);
    return rc;
}

const struct wh_route wh_cloneset_validate_route = {
    .path = "/validate-apps-kruise-io-cloneset",
    .kind = WH_ROUTE_VALIDATE,
    .admit = admit,
    .setup = wh_dp_setup,
    .entries = {{.name = "vcloneset.kb.io",
                 .group = WH_KRUISE_APPS,
                 .versions = {"v1alpha1", "v1beta1"},
                 .resource = "clonesets",
                 .operations = WH_WEBHOOK_CREATE | WH_WEBHOOK_UPDATE | WH_WEBHOOK_DELETE}},
};

/* The Helm chart's older name of the path (served, never registered by ours). */
const struct wh_route wh_cloneset_validate_alias_route = {
    .path = "/validate-apps-kruise-io-v1alpha1-cloneset",
    .kind = WH_ROUTE_VALIDATE,
    .admit = admit,
    .setup = wh_dp_setup,
    .alias_of = "/validate-apps-kruise-io-cloneset",
};
