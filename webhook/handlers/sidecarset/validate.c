#include "handlers/sidecarset/validate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "handlers/sidecarset/match.h"
#include "handlers/sidecarset/resources.h"
#include "handlers/sidecarset/warnings.h"
#include "k8s/kruise.h"
#include "kube/cache.h"
#include "kube/cluster.h"
#include "k8s/fielderr.h"
#include "k8s/kruisestrategy.h"
#include "conversion/convert.h"
#include "gocompat/gotype.h"
#include "k8s/podvalidation.h"
#include "k8s/selector.h"
#include "k8s/validation.h"
#include "util/buf.h"
#include "gocompat/goenc.h"
#include "util/json.h"
#include "util/mem.h"
#include "gocompat/regex.h"
#include "util/str.h"

#define P(...) wh_fpath(p, sizeof(p), __VA_ARGS__)

struct vctx {
    const struct wh_handler_ctx *hctx;
    const json_t *obj; /* the v1beta1 form, normalised */
    const json_t *old; /* UPDATE: the old object, v1beta1 form; else NULL */
    struct wh_field_errors errs;
    const json_t *raw; /* the request's object as sent (either version) */
};

/* --- decoding ------------------------------------------------------------------------------- */

/* Decodes raw as the handler's decodeObject does. Returns WH_OK, or WH_ERR_INVALID with the
 * decoder's message for a 400. */
static enum wh_err decode(const char *version, const json_t *raw, json_t **out,
                          struct wh_errbuf *eb)
{
    bool alpha = strcmp(version, "v1alpha1") == 0;
    *out = NULL;
    if (strcmp(version, "v1beta1") != 0 && !alpha) /* upstream decodes nothing for other
                                                      versions and validates an empty object */
        return wh_gotype_decode(NULL, wh_gotype_lookup(WH_KRUISE_APPS_V1BETA1, "SidecarSet"), out,
                                eb);
    if (!raw)
        return wh_errbuf_set(eb, WH_ERR_INVALID, "there is no content to decode");
    enum wh_err rc = wh_gotype_decode(
        raw,
        wh_gotype_lookup(alpha ? WH_KRUISE_APPS_V1ALPHA1 : WH_KRUISE_APPS_V1BETA1, "SidecarSet"),
        out, eb);
    if (rc || !alpha)
        return rc;
    /* the v1alpha1 object is seen as its v1beta1 conversion (apis/apps/v1alpha1 ConvertTo) */
    json_t *beta = NULL;
    char *msg = NULL;
    rc = wh_convert_up("SidecarSet", *out, &beta, &msg);
    json_decref(*out);
    *out = beta;
    if (rc)
        wh_errbuf_set(eb, rc, "%s", msg);
    free(msg);
    return rc;
}

/* --- Go syntax of the values upstream prints ---------------------------------------------------
 */

static char *gosyntax_ptr(const json_t *v, const char *type)
{
    if (!v || json_is_null(v))
        return wh_str_printf("(%s)(nil)", type);
    return wh_str_printf("(%s)(%s)", type, WH_GO_ADDRESS);
}

static char *gosyntax_inject_revision(const json_t *rev)
{
    char *cv = gosyntax_ptr(json_object_get(rev, "customVersion"), "*string");
    char *rn = gosyntax_ptr(json_object_get(rev, "revisionName"), "*string");
    char *pol = wh_go_quote(wh_json_str_or_empty(rev, "policy"));
    char *out = wh_str_printf("v1beta1.SidecarSetInjectRevision{CustomVersion:%s, RevisionName:%s, "
                              "Policy:%s}",
                              cv, rn, pol);
    free(cv);
    free(rn);
    free(pol);
    return out;
}

static char *gosyntax_resources_expr(const json_t *expr)
{
    char *lim = gosyntax_ptr(json_object_get(expr, "limits"), "*v1beta1.ResourceExprLimits");
    char *req = gosyntax_ptr(json_object_get(expr, "requests"), "*v1beta1.ResourceExprRequests");
    char *out = wh_str_printf("v1beta1.ResourcesExpr{Limits:%s, Requests:%s}", lim, req);
    free(lim);
    free(req);
    return out;
}

static char *gosyntax_resources_policy(const json_t *pol)
{
    char *mode = wh_go_quote(wh_json_str_or_empty(pol, "targetContainersMode"));
    char *re = wh_go_quote(wh_json_str_or_empty(pol, "targetContainersNameRegex"));
    char *expr = gosyntax_resources_expr(wh_json_obj(pol, "resourcesExpr"));
    char *out = wh_str_printf("v1beta1.ResourcesPolicy{TargetContainersMode:%s, "
                              "TargetContainersNameRegex:%s, ResourcesExpr:%s}",
                              mode, re, expr);
    free(mode);
    free(re);
    free(expr);
    return out;
}

/* fmt's %+v of a *SidecarSetUpdateStrategy (upstream formats it into the error value): the
 * selector and the IntOrStrings print through their String methods, the priority strategy (a
 * pointer without one) as its address, which no two processes share. */
static char *plusv_update_strategy(const json_t *us)
{
    const json_t *sc = json_object_get(us, "scatterStrategy");
    struct wh_buf b;
    size_t i;
    const json_t *t;
    wh_buf_init(&b, 1u << 20);
    char *sel = wh_gostring_label_selector(json_object_get(us, "selector"));
    char *partition = wh_gostring_intstr(json_object_get(us, "partition"));
    char *max_unavailable = wh_gostring_intstr(json_object_get(us, "maxUnavailable"));
    enum wh_err rc = wh_buf_printf(
        &b,
        "&{Type:%s Paused:%s Selector:%s Partition:%s MaxUnavailable:%s PriorityStrategy:%s "
        "ScatterStrategy:[",
        wh_json_str_or_empty(us, "type"), wh_json_bool(us, "paused") ? "true" : "false", sel,
        partition, max_unavailable,
        wh_json_present(us, "priorityStrategy") ? WH_GO_ADDRESS : "<nil>");
    free(sel);
    free(partition);
    free(max_unavailable);
    json_array_foreach(sc, i, t)
    {
        if (!rc)
            rc = wh_buf_printf(&b, "%s{Key:%s Value:%s}", i ? " " : "",
                               wh_json_str_or_empty(t, "key"), wh_json_str_or_empty(t, "value"));
    }
    if (!rc)
        rc = wh_buf_adds(&b, "]}");
    return wh_buf_take(&b, NULL);
}

/* --- metadata and canary -------------------------------------------------------------------------
 */

static void sidecarset_name(const char *name, bool prefix, struct wh_vmsgs *out)
{
    bool ok = *name != 0;
    (void)prefix;
    for (const char *c = name; *c && ok; c++)
        ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
             *c == '-';
    if (!ok)
        wh_vmsg_add(out, "sidecarset name must consist of alphanumeric characters or '-' (e.g. "
                         "'example-com', regex used for validation is '^[a-zA-Z0-9\\-]+$')");
    if (strlen(name) > 63)
        wh_vmsg_add(out, "must be no more than 63 characters");
}

static bool is_canary(const json_t *obj, const char **base)
{
    const char *canary = wh_json_annotation(obj, WH_KRUISE_ANN_SIDECARSET_CANARY);
    const char *b = wh_json_annotation(obj, WH_KRUISE_ANN_SIDECARSET_BASE);
    *base = b ? b : "";
    return canary && strcmp(canary, "true") == 0 && b && *b;
}

static void canary_annotations(struct vctx *v)
{
    const char *base;
    if (!is_canary(v->obj, &base))
        return;
    char *ann = wh_gosyntax_string_map(wh_json_path(v->obj, "metadata", "annotations", NULL));
    const char *name = wh_json_str_or_empty(wh_json_obj(v->obj, "metadata"), "name");
    if (strcmp(base, name) == 0)
        wh_ferr_invalid_raw(&v->errs, "metadata", ann, "base sidecarSet cannot be itself");
    if (v->old) {
        const char *old_base = wh_json_annotation(v->old, WH_KRUISE_ANN_SIDECARSET_BASE);
        if (!wh_str_eq(old_base ? old_base : "", base))
            wh_ferr_invalid_raw(&v->errs, "metadata", ann,
                                "annotations[" WH_KRUISE_ANN_SIDECARSET_BASE "] is immutable");
    }
    struct wh_cache *c =
        v->hctx->cluster ? wh_cluster_cache(v->hctx->cluster, WH_RES_SIDECARSET) : NULL;
    struct wh_object *o = c ? wh_cache_get(c, NULL, base) : NULL;
    if (!o) {
        char detail[700];
        snprintf(detail, sizeof(detail),
                 "fetch base sidecarSet[%s] failed: SidecarSet.apps.kruise.io \"%s\" not found",
                 base, base);
        wh_ferr_invalid_raw(&v->errs, "metadata", ann, detail);
    } else {
        const char *bb;
        if (is_canary(wh_object_json(o), &bb))
            wh_ferr_invalid_raw(&v->errs, "metadata", ann, "base sidecarSet cannot be canary");
        wh_object_unref(o);
    }
    if (strcmp(wh_json_path_str(v->obj, "spec", "updateStrategy", "type", NULL)
                   ? wh_json_path_str(v->obj, "spec", "updateStrategy", "type", NULL)
                   : "",
               "NotUpdate") != 0)
        wh_ferr_invalid_raw(&v->errs, "metadata", ann,
                            "RollingUpdate is not supported for canary sidecarSet");
    free(ann);
}

/* --- selectors and strategies ----------------------------------------------------------------- */

static void validate_selector(struct vctx *v, const json_t *sel, const char *path)
{
    char p[512];
    wh_validate_label_selector(&v->errs, sel, path);
    if (json_object_size(wh_json_obj(sel, "matchLabels")) +
            json_array_size(wh_json_arr(sel, "matchExpressions")) ==
        0) {
        char *g = wh_gosyntax_label_selector(sel);
        wh_ferr_invalid_raw(&v->errs, path, g, "empty selector is not valid for sidecarset.");
        free(g);
    }
    if (!wh_label_selector_convertible(sel)) {
        char *g = wh_gosyntax_label_selector(sel);
        wh_ferr_invalid_raw(&v->errs, P("%s.selector", path), g, "");
        free(g);
    }
}

static void injection_strategy(struct vctx *v, const json_t *spec)
{
    const json_t *rev = wh_json_path(spec, "injectionStrategy", "revision", NULL);
    if (!json_is_object(rev))
        return;
    const char *name = wh_json_str(rev, "revisionName");
    const char *cv = wh_json_str(rev, "customVersion");
    if (!name && !cv) {
        char *g = gosyntax_inject_revision(rev);
        wh_ferr_invalid_raw(&v->errs, "revision", g,
                            "revisionName and customVersion cannot be empty simultaneously");
        free(g);
    } else {
        struct wh_errbuf eb = {{0}};
        json_t *h = NULL;
        enum wh_err rc = WH_ERR_NOT_FOUND;
        if (v->hctx->cluster)
            rc = wh_sidecarset_history(v->hctx->cluster, v->hctx->cfg->namespace_, v->obj, name,
                                       name ? NULL : cv, &h, NULL, &eb);
        else
            (void)wh_cache_not_found(
                &eb, "apps", "ControllerRevision",
                name ? name : wh_json_str_or_empty(wh_json_obj(v->obj, "metadata"), "name"));
        if (rc) {
            char detail[600];
            snprintf(detail, sizeof(detail), "Cannot find specific ControllerRevision, err: %s",
                     eb.msg);
            wh_ferr_invalid_str(&v->errs, "revision", "null", detail);
        }
        json_decref(h);
    }
    const char *policy = wh_json_str_or_empty(rev, "policy");
    if (*policy && strcmp(policy, "Always") && strcmp(policy, "Partial")) {
        char detail[600];
        char *g = gosyntax_inject_revision(rev);
        snprintf(detail, sizeof(detail), "Invalid policy %s, supported: [Always, Partial]", policy);
        wh_ferr_invalid_raw(&v->errs, "revision.policy", g, detail);
        free(g);
    }
}

static void update_strategy(struct vctx *v, const json_t *spec)
{
    const json_t *us = wh_json_obj(spec, "updateStrategy");
    if (strcmp(wh_json_str_or_empty(us, "type"), "RollingUpdate") != 0)
        return;
    const json_t *part = json_object_get(us, "partition");
    bool part_set = json_is_string(part) || (json_is_integer(part) && json_integer_value(part));
    if (part_set && wh_json_present(us, "selector")) {
        char *s = plusv_update_strategy(us);
        wh_ferr_invalid_str(&v->errs, "updateStrategy", s,
                            "Partition and Selector cannot be used together");
        free(s);
    }
    if (wh_json_present(us, "selector"))
        validate_selector(v, json_object_get(us, "selector"), "spec.updateStrategy.selector");
    if (wh_json_present(us, "partition"))
        wh_validate_positive_int_or_percent(&v->errs, part, "spec.updateStrategy.partition");
    if (wh_json_present(us, "maxUnavailable"))
        wh_validate_positive_int_or_percent(&v->errs, json_object_get(us, "maxUnavailable"),
                                            "spec.updateStrategy.maxUnavailable");
    char *prob = wh_kruise_priority_strategy_problem(wh_json_obj(us, "priorityStrategy"));
    if (prob)
        wh_ferr_required(&v->errs, "spec.updateStrategy.priorityStrategy", prob);
    free(prob);
    prob = wh_kruise_scatter_strategy_problem(wh_json_arr(us, "scatterStrategy"));
    if (prob)
        wh_ferr_required(&v->errs, "spec.updateStrategy.scatterStrategy", prob);
    free(prob);
}

/* --- containers ----------------------------------------------------------------------------------
 */

static void resource_expression(struct vctx *v, const json_t *pair, const char *which,
                                const char *path)
{
    char p[512];
    static const char *const vars[] = {"cpu", "memory"};
    for (int k = 0; k < 2; k++) {
        const char *expr = wh_json_str_or_empty(pair, vars[k]);
        struct wh_errbuf eb = {{0}};
        if (!*expr)
            continue;
        if (wh_sidecarset_resource_expr_check(expr, vars[k], &eb)) {
            char detail[600];
            snprintf(detail, sizeof(detail), "invalid expression: %s", eb.msg);
            wh_ferr_invalid_str(&v->errs, P("%s.%s.%s", path, which, vars[k]), expr, detail);
        }
    }
}

static void resources_policy(struct vctx *v, const json_t *c, const char *path)
{
    char p[512];
    const json_t *pol = wh_json_obj(c, "resourcesPolicy");
    const json_t *res = wh_json_obj(c, "resources");
    if (json_object_size(wh_json_obj(res, "limits")) > 0 ||
        json_object_size(wh_json_obj(res, "requests")) > 0) {
        char *g = gosyntax_resources_policy(pol);
        wh_ferr_invalid_raw(&v->errs, path, g,
                            "resourcesPolicy and resources cannot be configured together");
        free(g);
        return;
    }
    const json_t *rev = json_object_get(pol, "targetContainersNameRegex");
    const char *re = json_is_string(rev) ? json_string_value(rev) : "";
    size_t relen = json_is_string(rev) ? json_string_length(rev) : 0;
    struct wh_regex_error rerr;
    if (relen == 0) {
        wh_ferr_required(&v->errs, P("%s.targetContainersNameRegex", path), "invalid empty regex");
    } else if (!wh_regex_valid(re, relen, &rerr)) {
        char *msg = wh_regex_error_message(re, &rerr, NULL);
        char *detail = wh_xmalloc(strlen(msg) + 32);
        memcpy(detail, "invalid regex pattern: ", 23);
        memcpy(detail + 23, msg, strlen(msg) + 1);
        wh_ferr_invalid_str(&v->errs, P("%s.targetContainersNameRegex", path), re, detail);
        free(detail);
        free(msg);
    }
    const json_t *expr = wh_json_obj(pol, "resourcesExpr");
    char ep[512];
    wh_fpath(ep, sizeof(ep), "%s.resourcesExpr", path);
    if (!wh_json_present(expr, "limits") && !wh_json_present(expr, "requests")) {
        char *g = gosyntax_resources_expr(expr);
        wh_ferr_invalid_raw(&v->errs, ep, g,
                            "at least one of limits or requests must be "
                            "configured");
        free(g);
        return;
    }
    if (wh_json_present(expr, "limits"))
        resource_expression(v, wh_json_obj(expr, "limits"), "limits", ep);
    if (wh_json_present(expr, "requests"))
        resource_expression(v, wh_json_obj(expr, "requests"), "requests", ep);
}

/* validateObjectFieldSelector of the SidecarSet webhook (transferEnv sourceContainerNameFrom). */
static void transfer_env_field_ref(struct vctx *v, const json_t *fs, const char *path)
{
    char p[512];
    const char *av = wh_json_str_or_empty(fs, "apiVersion"),
               *fp = wh_json_str_or_empty(fs, "fieldPath");
    if (!*av) {
        wh_ferr_required(&v->errs, P("%s.apiVersion", path), "");
        return;
    }
    if (!*fp) {
        wh_ferr_required(&v->errs, P("%s.fieldPath", path), "");
        return;
    }
    char err[700] = "";
    char fpath[512] = "", sub[512] = "";
    size_t n = strlen(fp);
    const char *open = strstr(fp, "['");
    bool subscripted =
        open && n >= 4 && fp[n - 1] == ']' && fp[n - 2] == '\'' && open + 2 <= fp + n - 2;
    if (subscripted) {
        snprintf(fpath, sizeof(fpath), "%.*s", (int)(open - fp), fp);
        snprintf(sub, sizeof(sub), "%.*s", (int)(fp + n - 2 - (open + 2)), open + 2);
    }
    if (strcmp(av, "v1") != 0)
        snprintf(err, sizeof(err), "unsupported pod version: %s", av);
    else if (subscripted && strcmp(fpath, "metadata.annotations") &&
             strcmp(fpath, "metadata.labels"))
        snprintf(err, sizeof(err), "field path not supported: %s", fpath);
    else if (!subscripted)
        snprintf(err, sizeof(err), "field label not supported: %s", fp);
    if (err[0]) {
        char detail[800];
        snprintf(detail, sizeof(detail), "error converting fieldPath: %s", err);
        wh_ferr_invalid_str(&v->errs, P("%s.fieldPath", path), fp, detail);
        return;
    }
    struct wh_vmsgs m = {0};
    if (strcmp(fpath, "metadata.annotations") == 0) {
        char lower[512];
        snprintf(lower, sizeof(lower), "%s", sub);
        for (char *c = lower; *c; c++)
            *c = (char)(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c);
        wh_is_qualified_name(lower, &m);
    } else {
        wh_is_qualified_name(sub, &m);
    }
    for (size_t i = 0; i < m.n; i++)
        wh_ferr_invalid_str(&v->errs, path, sub, m.m[i]);
}

/* The quantities of a container's resources as the request wrote them: Go's Quantity keeps
 * how it was parsed (its int64Amount, the text it caches), which the pod validation prints in
 * %#v ("must be an integer"); the normalised object holds the canonical form, which parses
 * otherwise ("0.1" is value 1, scale -1; "100m" value 100, scale -3). A number is read from its
 * text as the API server's encoder writes it. res: the decoded resources, edited in place. */
static void resources_as_sent(json_t *res, const json_t *raw)
{
    static const char *const lists[] = {"limits", "requests"};
    for (size_t l = 0; l < 2; l++) {
        json_t *m = json_object_get(res, lists[l]);
        const json_t *rm = wh_json_obj(raw, lists[l]);
        const char *key;
        json_t *q;
        json_object_foreach(m, key, q)
        {
            const json_t *rq = json_object_get(rm, key);
            if (json_is_string(rq)) {
                json_object_set_new(m, key, json_incref((json_t *)(uintptr_t)rq));
            } else if (json_is_number(rq)) {
                char *text = wh_goenc_dumps_sorted(rq);
                json_object_set_new(m, key, json_string(text));
                free(text);
            }
        }
    }
}

/* A core Container from a SidecarContainer (raw: the same container as the request sent it, or
 * NULL): the members that v1.Container does not have (the sidecar's own) dropped. */
static json_t *core_container(const json_t *sc, const json_t *raw)
{
    const struct wh_gotype *core = wh_gotype_lookup("v1", "Container");
    json_t *c = json_object();
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)(uintptr_t)sc, key, v)
    {
        if (wh_gotype_member(core, key) && json_object_set_new(c, key, wh_json_copy(v)))
            WH_PANIC("json_object_set_new failed");
    }
    resources_as_sent(json_object_get(c, "resources"), wh_json_obj(raw, "resources"));
    return c;
}

static void containers(struct vctx *v, const json_t *spec)
{
    char p[512];
    size_t i, k;
    const json_t *c, *te;
    const json_t *inits = wh_json_arr(spec, "initContainers");
    const json_t *conts = wh_json_arr(spec, "containers");
    const json_t *raw_inits = wh_json_path(v->raw, "spec", "initContainers", NULL);
    const json_t *raw_conts = wh_json_path(v->raw, "spec", "containers", NULL);
    json_t *core_inits = json_array(), *core_conts = json_array();
    json_array_foreach(inits, i, c)
    {
        if (wh_json_present(c, "resourcesPolicy")) {
            if (strcmp(wh_json_str_or_empty(c, "restartPolicy"), "Always") != 0) {
                char *g = gosyntax_resources_policy(wh_json_obj(c, "resourcesPolicy"));
                wh_ferr_invalid_raw(&v->errs, P("spec[%zu].resourcesPolicy", i), g,
                                    "resourcesPolicy is only supported for containers with "
                                    "RestartPolicy Always");
                free(g);
            }
            resources_policy(v, c, P("spec[%zu].resourcesPolicy", i));
        }
        json_array_append_new(core_inits, core_container(c, json_array_get(raw_inits, i)));
    }
    json_array_foreach(conts, i, c)
    {
        const char *pip = wh_json_str_or_empty(c, "podInjectPolicy");
        if (strcmp(pip, "BeforeAppContainer") && strcmp(pip, "AfterAppContainer"))
            wh_ferr_invalid_str(&v->errs, "spec.container.podInjectPolicy", pip,
                                "unsupported pod inject policy");
        const char *svp = wh_json_path_str(c, "shareVolumePolicy", "type", NULL);
        svp = svp ? svp : "";
        if (strcmp(svp, "enabled") && strcmp(svp, "disabled")) {
            char *q = wh_go_quote(svp);
            char *g = wh_str_printf("v1beta1.ShareVolumePolicy{Type:%s}", q);
            wh_ferr_invalid_raw(&v->errs, "spec.container.shareVolumePolicy", g,
                                "unsupported share volume policy");
            free(g);
            free(q);
        }
        json_array_foreach(wh_json_arr(c, "transferEnv"), k, te)
        {
            const json_t *fr = wh_json_path(te, "sourceContainerNameFrom", "fieldRef", NULL);
            if (json_is_object(fr))
                transfer_env_field_ref(v, fr, P("spec[%zu].transferEnv.fieldRef", i));
        }
        if (wh_json_present(c, "resourcesPolicy"))
            resources_policy(v, c, P("spec[%zu].resourcesPolicy", i));
        json_array_append_new(core_conts, core_container(c, json_array_get(raw_conts, i)));
    }
    if (json_array_size(core_conts) == 0)
        json_array_append_new(core_conts, json_pack("{s:s,s:s,s:s,s:s}", "name", "test", "image",
                                                    "busybox", "imagePullPolicy", "IfNotPresent",
                                                    "terminationMessagePolicy", "File"));
    json_t *fake = json_pack(
        "{s:s,s:s,s:O,s:o,s:o,s:s,s:i}", "dnsPolicy", "ClusterFirst", "restartPolicy", "Always",
        "volumes", wh_json_arr(spec, "volumes") ? wh_json_arr(spec, "volumes") : json_null(),
        "initContainers", core_inits, "containers", core_conts, "serviceAccountName", "default",
        "terminationGracePeriodSeconds", 30);
    wh_validate_pod_spec(&v->errs, fake);
    json_decref(fake);
}

/* --- patchPodMetadata ---------------------------------------------------------------------------
 */

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Every key patched by the SidecarSet, entry by entry, keys of one entry in byte order (Go
 * walks each map in random order). Returns: new array of borrowed keys; *n its length. */
static const char **patched_keys(const json_t *ppm, size_t *n)
{
    size_t i, total = 0, k = 0;
    const json_t *e;
    json_array_foreach(ppm, i, e) total += json_object_size(wh_json_obj(e, "annotations"));
    const char **keys = wh_xcalloc(total + 1, sizeof(*keys));
    json_array_foreach(ppm, i, e)
    {
        const char *key;
        json_t *val;
        size_t start = k;
        json_object_foreach(wh_json_obj(e, "annotations"), key, val) keys[k++] = key;
        qsort(keys + start, k - start, sizeof(*keys), cmp_str);
    }
    *n = k;
    return keys;
}

/* sidecarcontrol.ValidateSidecarSetPatchMetadataWhitelist: an error text, or "" when allowed. */
static void whitelist(struct vctx *v, const json_t *spec, char *err, size_t errsz)
{
    const json_t *ppm = wh_json_arr(spec, "patchPodMetadata");
    bool defaults_allowed = wh_feature_on(&v->hctx->cfg->features,
                                          WH_FEATURE_SidecarSetPatchPodMetadataDefaultsAllowed);
    json_t *wl = NULL;
    struct wh_regex **regs = NULL;
    size_t nregs = 0, cap = 0;
    err[0] = 0;
    if (json_array_size(ppm) == 0)
        return;
    struct wh_object *cm;
    const char *text =
        wh_cluster_configmap_value(v->hctx->cluster, v->hctx->cfg->namespace_,
                                   WH_KRUISE_CONFIGMAP, WH_KRUISE_CONFIG_SIDECARSET_WHITELIST, &cm);
    if (!text) {
        if (!defaults_allowed)
            snprintf(err, errsz, "SidecarSet patch metadata whitelist not found");
        goto out;
    }
    struct wh_errbuf deb = {{0}};
    if (wh_gotype_unmarshal(
            text, strlen(text),
            wh_gotype_lookup(WH_KRUISE_CONFIG_TYPES, "SidecarSetPatchMetadataWhiteList"), &wl,
            &deb)) {
        snprintf(err, errsz, "%s", deb.msg);
        goto out;
    }
    size_t i, k;
    const json_t *rule, *expr;
    json_array_foreach(wh_json_arr(wl, "rules"), i, rule)
    {
        const json_t *sel = json_object_get(rule, "selector");
        if (sel && !json_is_null(sel)) {
            struct wh_selector *s = wh_selector_new(sel);
            bool skip = false;
            if (wh_selector_error(s)) {
                snprintf(err, errsz, "%s", wh_selector_error(s));
                wh_selector_free(s);
                goto out;
            }
            skip = !wh_selector_matches(s, wh_json_path(v->obj, "metadata", "labels", NULL));
            wh_selector_free(s);
            if (skip)
                continue;
        }
        json_array_foreach(wh_json_arr(rule, "allowedAnnotationKeyExprs"), k, expr)
        {
            const char *pattern = json_is_string(expr) ? json_string_value(expr) : "";
            size_t plen = json_is_string(expr) ? json_string_length(expr) : 0;
            struct wh_regex_error rerr;
            if (nregs == cap) {
                cap = cap ? 2 * cap : 4;
                regs = wh_xrealloc(regs, cap * sizeof(*regs));
            }
            if (wh_regex_compile(pattern, plen, &regs[nregs], &rerr)) {
                char *msg = wh_regex_error_message(pattern, &rerr, NULL);
                snprintf(err, errsz, "%s", msg);
                free(msg);
                goto out;
            }
            nregs++;
        }
    }
    if (nregs == 0) {
        if (!defaults_allowed)
            snprintf(err, errsz, "sidecarSet patch metadata annotation is not allowed");
        goto out;
    }
    size_t nkeys;
    const char **keys = patched_keys(ppm, &nkeys);
    for (i = 0; i < nkeys && !err[0]; i++) {
        bool ok = false;
        for (k = 0; k < nregs && !ok; k++)
            ok = wh_regex_match(regs[k], keys[i], strlen(keys[i]));
        if (!ok)
            snprintf(err, errsz, "sidecarSet patch metadata annotation(%s) is not allowed",
                     keys[i]);
    }
    free(keys);
out:
    for (size_t r = 0; r < nregs; r++)
        wh_regex_free(regs[r]);
    free(regs);
    json_decref(wl);
    wh_object_unref(cm);
}

static void patch_pod_metadata(struct vctx *v, const json_t *spec)
{
    char err[1024];
    size_t i;
    const json_t *e;
    whitelist(v, spec, err, sizeof(err));
    if (err[0])
        wh_ferr_required(&v->errs, "spec.patchPodMetadata", err);
    const char **seen = NULL;
    size_t nseen = 0, cap = 0;
    json_array_foreach(wh_json_arr(spec, "patchPodMetadata"), i, e)
    {
        const json_t *ann = wh_json_obj(e, "annotations");
        if (json_object_size(ann) == 0) {
            wh_ferr_required(&v->errs, "spec.patchPodMetadata",
                             "no annotations defined for SidecarSet");
        } else {
            json_t *meta = json_pack("{s:s,s:O}", "name", "fake-name", "annotations", ann);
            wh_validate_object_meta(&v->errs, meta, false, sidecarset_name, "patchPodMetadata");
            json_decref(meta);
        }
        if (!*wh_json_str_or_empty(e, "patchPolicy"))
            wh_ferr_required(&v->errs, "spec.patchPodMetadata",
                             "no patchPolicy defined for patchPodMetadata");
        json_t *one = json_pack("[O]", e);
        size_t nkeys;
        const char **keys = patched_keys(one, &nkeys);
        for (size_t k = 0; k < nkeys; k++) {
            bool dup = false;
            for (size_t s = 0; s < nseen && !dup; s++)
                dup = strcmp(seen[s], keys[k]) == 0;
            if (dup) {
                char detail[700];
                snprintf(detail, sizeof(detail), "patch annotation[%s] already exist", keys[k]);
                wh_ferr_required(&v->errs, "spec.patchPodMetadata", detail);
                continue;
            }
            if (nseen == cap) {
                cap = cap ? 2 * cap : 8;
                seen = wh_xrealloc(seen, cap * sizeof(*seen));
            }
            seen[nseen++] = keys[k];
        }
        free(keys);
        json_decref(one);
    }
    free(seen);
}

/* --- the spec
 * ------------------------------------------------------------------------------------- */

static void validate_spec(struct vctx *v)
{
    size_t i;
    const json_t *c;
    const json_t *spec = wh_json_obj(v->obj, "spec");
    bool rolling = strcmp(wh_json_str_or_empty(wh_json_obj(spec, "updateStrategy"), "type"),
                          "RollingUpdate") == 0;
    json_array_foreach(wh_json_arr(spec, "initContainers"), i, c)
    {
        if (rolling && strcmp(wh_json_str_or_empty(c, "restartPolicy"), "Always") == 0)
            wh_ferr_required(&v->errs, "spec.updateStrategy",
                             "The initContainer in-place upgrade is not currently supported.");
    }
    if (!wh_json_present(spec, "selector"))
        wh_ferr_required(&v->errs, "spec.selector", "no selector defined for SidecarSet");
    else
        validate_selector(v, json_object_get(spec, "selector"), "spec.selector");
    if (wh_json_present(spec, "namespaceSelector"))
        validate_selector(v, json_object_get(spec, "namespaceSelector"), "spec.namespaceSelector");
    injection_strategy(v, spec);
    update_strategy(v, spec);
    if (json_array_size(wh_json_arr(spec, "initContainers")) == 0 &&
        json_array_size(wh_json_arr(spec, "containers")) == 0)
        wh_ferr_required(&v->errs, "spec", "no initContainer or container defined for SidecarSet");
    else
        containers(v, spec);
    patch_pod_metadata(v, spec);
}

/* validateSidecarContainerConflict (UPDATE). */
static void container_changes(struct vctx *v)
{
    size_t i, k;
    const json_t *c, *o;
    const json_t *olds = wh_json_path(v->old, "spec", "containers", NULL);
    json_array_foreach(wh_json_path(v->obj, "spec", "containers", NULL), i, c)
    {
        const char *name = wh_json_str_or_empty(c, "name");
        const json_t *found = NULL;
        /* upstream keeps the last old container of a name */
        json_array_foreach(olds, k, o)
        {
            if (strcmp(wh_json_str_or_empty(o, "name"), name) == 0)
                found = o;
        }
        char detail[700];
        if (found) {
            const char *was = wh_json_path_str(found, "upgradeStrategy", "upgradeType", NULL);
            const char *now = wh_json_path_str(c, "upgradeStrategy", "upgradeType", NULL);
            if (was && *was && !wh_str_eq(was, now ? now : "")) {
                snprintf(detail, sizeof(detail), "container %s upgradeType is immutable", name);
                wh_ferr_invalid_str(&v->errs, "spec.containers.upgradeStrategy.upgradeType", name,
                                    detail);
            }
        } else {
            snprintf(detail, sizeof(detail), "container %s is not found", name);
            wh_ferr_invalid_str(&v->errs, "spec.containers.name", name, detail);
        }
    }
}

/* --- conflicts with the other SidecarSets (8.7) --------------------------------------------------
 */

static bool contains(const json_t *list, const char *str)
{
    size_t i;
    const json_t *v;
    json_array_foreach(list, i, v)
    {
        if (wh_str_eq(json_string_value(v), str))
            return true;
    }
    return false;
}

/* util.isDisjoint(x, y); nil selectors count as empty ones. */
static bool disjoint(const json_t *x, const json_t *y)
{
    json_t *vals = json_object();
    const char *key;
    json_t *val;
    size_t i, k;
    const json_t *e;
    json_t *s;
    bool result = false;
    json_object_foreach(wh_json_obj(x, "matchLabels"), key, val)
    {
        json_object_set_new(vals, key, json_pack("[O]", val));
    }
    json_array_foreach(wh_json_arr(x, "matchExpressions"), i, e)
    {
        const char *op = wh_json_str_or_empty(e, "operator"), *ek = wh_json_str_or_empty(e, "key");
        if (strcmp(op, "In") == 0) {
            json_t *list = json_object_get(vals, ek);
            if (!list) {
                list = json_array();
                json_object_set_new(vals, ek, list);
            }
            json_array_foreach(wh_json_arr(e, "values"), k, s) json_array_append(list, s);
        } else if (strcmp(op, "Exists") == 0) {
            json_object_set_new(vals, ek, json_pack("[s]", "ALL"));
        }
    }
    json_object_foreach(wh_json_obj(y, "matchLabels"), key, val)
    {
        const json_t *list = json_object_get(vals, key);
        if (list && !contains(list, "ALL") && !contains(list, json_string_value(val)))
            result = true;
    }
    json_array_foreach(wh_json_arr(y, "matchExpressions"), i, e)
    {
        const char *op = wh_json_str_or_empty(e, "operator");
        const json_t *list = json_object_get(vals, wh_json_str_or_empty(e, "key"));
        const json_t *values = wh_json_arr(e, "values");
        if (strcmp(op, "In") == 0) {
            if (list && !contains(list, "ALL")) {
                bool overlap = false;
                json_array_foreach(values, k, s) overlap |= contains(list, json_string_value(s));
                if (!overlap)
                    result = true;
            }
        } else if (strcmp(op, "NotIn") == 0) {
            if (list) {
                bool all_in = true;
                json_array_foreach(list, k, s) all_in &= contains(values, json_string_value(s));
                if (all_in)
                    result = true;
            }
        } else if (strcmp(op, "Exists") == 0) {
            if (!list)
                result = true;
        } else if (strcmp(op, "DoesNotExist") == 0) {
            if (list)
                result = true;
        }
    }
    json_decref(vals);
    return result;
}

static bool selectors_overlap(const json_t *a, const json_t *b)
{
    return !(disjoint(a, b) || disjoint(b, a));
}

/* The v1beta1 form of a cached SidecarSet (objects cached at v1alpha1 are converted). Returns:
 * new ref. */
static json_t *cached_beta(const json_t *o)
{
    const char *av = wh_json_str(o, "apiVersion");
    json_t *beta = NULL;
    char *msg = NULL;
    if (!av || !wh_str_has_suffix(av, "/v1alpha1") || wh_convert_up("SidecarSet", o, &beta, &msg))
        beta = json_incref((json_t *)(uintptr_t)o);
    free(msg);
    return beta;
}

static json_t *normalized_volume(const json_t *vol)
{
    json_t *out = NULL;
    struct wh_errbuf eb;
    if (wh_gotype_normalize(vol, wh_gotype_lookup("v1", "Volume"), &out, &eb))
        return wh_json_copy(vol);
    return out;
}

static const json_t *owner_of(const json_t *map, const char *key)
{
    return json_object_get(map, key);
}

static void conflicts(struct vctx *v)
{
    struct wh_cache *c =
        v->hctx->cluster ? wh_cluster_cache(v->hctx->cluster, WH_RES_SIDECARSET) : NULL;
    struct wh_objlist list;
    const char *base = NULL;
    bool canary = is_canary(v->obj, &base);
    const char *name = wh_json_str_or_empty(wh_json_obj(v->obj, "metadata"), "name");
    const json_t *spec = wh_json_obj(v->obj, "spec");
    const json_t *sel = wh_json_obj(spec, "selector");
    const json_t *nsel = wh_json_obj(spec, "namespaceSelector");
    /* name -> the other SidecarSet (later ones overwrite earlier ones, as upstream's maps) */
    json_t *init_owner = json_object(), *cont_owner = json_object(), *vol_owner = json_object();
    json_t *ann_owner = json_object();
    json_t *others = json_array();
    size_t i, k;
    const json_t *e;
    const char *key;
    json_t *val;
    char detail[1200];

    wh_objlist_init(&list);
    if (c)
        wh_cache_list(c, NULL, &list);
    for (i = 0; i < list.n; i++) {
        json_t *o = cached_beta(wh_object_json(list.items[i]));
        const char *oname = wh_json_str_or_empty(wh_json_obj(o, "metadata"), "name");
        const json_t *ospec = wh_json_obj(o, "spec");
        const json_t *onsel = wh_json_obj(ospec, "namespaceSelector");
        bool ns_overlap = !(nsel && onsel && !selectors_overlap(nsel, onsel));
        if ((canary && strcmp(base, oname) == 0) || strcmp(oname, name) == 0 || !ns_overlap ||
            !selectors_overlap(sel, wh_json_obj(ospec, "selector"))) {
            json_decref(o);
            continue;
        }
        json_array_append_new(others, o);
        json_array_foreach(wh_json_arr(ospec, "initContainers"), k, e)
        {
            json_object_set(init_owner, wh_json_str_or_empty(e, "name"), o);
        }
        json_array_foreach(wh_json_arr(ospec, "containers"), k, e)
        {
            json_object_set(cont_owner, wh_json_str_or_empty(e, "name"), o);
        }
        json_array_foreach(wh_json_arr(ospec, "volumes"), k, e)
        {
            json_object_set(vol_owner, wh_json_str_or_empty(e, "name"), o);
        }
        json_array_foreach(wh_json_arr(ospec, "patchPodMetadata"), k, e)
        {
            const char *pol = wh_json_str_or_empty(e, "patchPolicy");
            if (strcmp(pol, "Retain") == 0)
                continue;
            json_object_foreach(wh_json_obj(e, "annotations"), key, val)
            {
                json_object_set_new(ann_owner, key,
                                    json_pack("{s:s,s:s}", "set", oname, "policy", pol));
            }
        }
    }
    wh_objlist_fini(&list);

    static const char *const lists[] = {"initContainers", "containers"};
    for (int l = 0; l < 2; l++) {
        json_t *owners = l ? cont_owner : init_owner;
        json_array_foreach(wh_json_arr(spec, lists[l]), i, e)
        {
            const json_t *other = owner_of(owners, wh_json_str_or_empty(e, "name"));
            if (!other)
                continue;
            snprintf(detail, sizeof(detail), "container %s already exist in %s",
                     wh_json_str_or_empty(e, "name"),
                     wh_json_str_or_empty(wh_json_obj(other, "metadata"), "name"));
            wh_ferr_invalid_str(&v->errs, "spec.containers", wh_json_str_or_empty(e, "name"),
                                detail);
        }
    }
    json_array_foreach(wh_json_arr(spec, "volumes"), i, e)
    {
        const char *vname = wh_json_str_or_empty(e, "name");
        const json_t *other = owner_of(vol_owner, vname);
        if (!other)
            continue;
        const json_t *ov = NULL, *x;
        json_array_foreach(wh_json_path(other, "spec", "volumes", NULL), k, x)
        {
            if (!ov && strcmp(wh_json_str_or_empty(x, "name"), vname) == 0)
                ov = x;
        }
        json_t *a = normalized_volume(e), *b = ov ? normalized_volume(ov) : NULL;
        if (!b || !json_equal(a, b)) {
            snprintf(detail, sizeof(detail), "volume %s is in conflict with sidecarset %s", vname,
                     wh_json_str_or_empty(wh_json_obj(other, "metadata"), "name"));
            wh_ferr_invalid_str(&v->errs, "spec.volumes", vname, detail);
        }
        json_decref(a);
        json_decref(b);
    }
    json_array_foreach(wh_json_arr(spec, "patchPodMetadata"), i, e)
    {
        const char *pol = wh_json_str_or_empty(e, "patchPolicy");
        if (strcmp(pol, "Retain") == 0)
            continue;
        json_t *one = json_pack("[O]", e);
        size_t nkeys;
        const char **keys = patched_keys(one, &nkeys);
        for (k = 0; k < nkeys; k++) {
            const json_t *other = json_object_get(ann_owner, keys[k]);
            if (!other)
                continue;
            if (strcmp(pol, "Overwrite") == 0 ||
                strcmp(wh_json_str_or_empty(other, "policy"), "Overwrite") == 0) {
                snprintf(detail, sizeof(detail), "annotation %s is in conflict with sidecarset %s",
                         keys[k], wh_json_str_or_empty(other, "set"));
                wh_ferr_invalid_str(&v->errs, "spec.patchPodMetadata", keys[k], detail);
            }
        }
        free(keys);
        json_decref(one);
    }
    json_decref(init_owner);
    json_decref(cont_owner);
    json_decref(vol_owner);
    json_decref(ann_owner);
    json_decref(others);
}

/* --- the handler --------------------------------------------------------------------------------
 */

static enum wh_err admit(const struct wh_handler_ctx *ctx, const struct wh_admission_request *req,
                         struct wh_admission_response *resp, struct wh_errbuf *eb)
{
    struct vctx v = {ctx, NULL, NULL, {0}, NULL};
    json_t *obj = NULL, *old = NULL;
    struct wh_errbuf derr = {{0}};
    (void)eb;
    wh_ferrs_init(&v.errs);
    if (decode(req->resource.version, req->object, &obj, &derr)) {
        wh_admission_deny(resp, 400, "%s", derr.msg);
        goto out;
    }
    if (strcmp(req->operation, "UPDATE") == 0 &&
        decode(req->resource.version, req->old_object, &old, &derr)) {
        wh_admission_deny(resp, 400, "%s", derr.msg);
        goto out;
    }
    v.obj = obj;
    v.old = old;
    v.raw = req->object;
    wh_validate_object_meta(&v.errs, wh_json_obj(obj, "metadata"), false, sidecarset_name,
                            "metadata");
    canary_annotations(&v);
    validate_spec(&v);
    if (old)
        container_changes(&v);
    if (v.errs.n == 0)
        conflicts(&v);
    char *msg = wh_ferrs_aggregate(&v.errs);
    if (msg) {
        /* upstream returns validation failures through admission.Errored(500, err) */
        wh_admission_deny(resp, 500, "%s", msg);
        free(msg);
    } else {
        wh_admission_allow(resp, "allowed to be admitted");
        wh_sidecarset_warn(ctx, obj, resp);
    }
out:
    wh_ferrs_fini(&v.errs);
    json_decref(obj);
    json_decref(old);
    return WH_OK;
}

const struct wh_route wh_sidecarset_validate_route = {
    .path = "/validate-apps-kruise-io-sidecarset",
    .kind = WH_ROUTE_VALIDATE,
    .admit = admit,
    .setup = wh_sidecarset_caches_setup,
    .entries = {{.name = "vsidecarset.kb.io",
                 .group = WH_KRUISE_APPS,
                 .versions = {"v1alpha1", "v1beta1"},
                 .resource = "sidecarsets",
                 .operations = WH_WEBHOOK_CREATE | WH_WEBHOOK_UPDATE}},
};
