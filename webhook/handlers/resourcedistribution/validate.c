/* /validate-apps-kruise-io-resourcedistribution: the ResourceDistribution webhook
 * (pkg/webhook/resourcedistribution/validating), v1beta1 as it is and v1alpha1 converted up.
 * Field errors in Kubernetes' words, answered 422 together: the metadata, the resource (a
 * Secret or a ConfigMap, decoded as unstructured.UnstructuredJSONScheme decodes it, its kind
 * and name immutable, and accepted by the API server: a dry-run creation of it in kruise's
 * namespace, within the request's deadline), and the target namespaces. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gocompat/goenc.h"
#include "handlers/handler.h"
#include "handlers/kruise_object.h"
#include "k8s/fielderr.h"
#include "k8s/kruise.h"
#include "k8s/ref.h"
#include "k8s/validation.h"
#include "kube/cluster.h"
#include "util/buf.h"
#include "util/json.h"
#include "util/mem.h"
#include "util/str.h"

#define KIND "ResourceDistribution"
#define RESOURCE_PATH "spec.resource"
#define TARGETS_PATH "spec.targets"

static const json_t *member(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return v && !json_is_null(v) ? v : NULL;
}

/* --- decoding ---------------------------------------------------------------------------------
 */

/* A v1alpha1 object as convertResourceDistributionToV1beta1 makes it: the selector renamed,
 * empty namespace lists dropped (nil), the resource's bytes kept. */
static void alpha_to_beta(json_t *obj)
{
    json_object_set_new(obj, "apiVersion", json_string(WH_KRUISE_APPS_V1BETA1));
    json_object_set_new(obj, "kind", json_string(KIND));
    json_t *targets = json_object_get(json_object_get(obj, "spec"), "targets");
    if (!json_is_object(targets))
        return;
    json_t *sel = json_object_get(targets, "namespaceLabelSelector");
    if (sel)
        json_object_set(targets, "namespaceSelector", sel);
    json_object_del(targets, "namespaceLabelSelector");
    static const char *const lists[] = {"excludedNamespaces", "includedNamespaces"};
    for (size_t i = 0; i < 2; i++) {
        json_t *l = json_object_get(targets, lists[i]);
        if (json_is_object(l) && !json_array_size(json_object_get(l, "list")))
            json_object_del(l, "list");
    }
}

/* decodeObject / decodeOldObject: the v1beta1 value, or false with resp answered 400. */
static bool decode(const json_t *raw, const struct wh_admission_request *req, json_t **out,
                   struct wh_admission_response *resp)
{
    enum wh_kobj_version v;
    if (!wh_kobj_version_or_deny(req, resp, &v))
        return false;
    if (!wh_kobj_decode_or_deny(raw, KIND, v, out, resp))
        return false;
    if (v == WH_KOBJ_V1ALPHA1)
        alpha_to_beta(*out);
    return true;
}

/* --- spec.resource, as DeserializeResource reads it -------------------------------------------
 */

struct resource {
    const json_t *obj; /* the object, or the list (what its items member aside) */
    bool list;         /* an UnstructuredList: the JSON had "items" */
    char group[256], version[256];
    const char *kind, *name;
};

/* Go's name of a JSON value's type in "json: cannot unmarshal X into ...". */
static const char *go_json_type(const json_t *v)
{
    return wh_json_go_type_name(v);
}

/* The object's apiVersion and kind as Unstructured.GroupVersionKind reads them: an apiVersion
 * that does not parse gives no group, version or kind at all. */
static void read_gvk(struct resource *r)
{
    const char *api = json_string_value(json_object_get(r->obj, "apiVersion"));
    const char *kind = json_string_value(json_object_get(r->obj, "kind"));
    struct wh_gv gv;
    r->kind = "";
    r->group[0] = r->version[0] = '\0';
    if (!wh_ref_parse_gv(api ? api : "", &gv))
        return;
    snprintf(r->group, sizeof(r->group), "%.*s", (int)gv.group_len, gv.group ? gv.group : "");
    snprintf(r->version, sizeof(r->version), "%.*s", (int)gv.version_len,
             gv.version ? gv.version : "");
    r->kind = kind ? kind : "";
}

/* The resource, or false with the error in l. */
static bool deserialize(const json_t *raw, struct resource *r, struct wh_field_errors *l)
{
    memset(r, 0, sizeof(*r));
    if (!raw || json_is_null(raw)) {
        wh_ferr_invalid_raw(l, RESOURCE_PATH, "\"null\"", "empty resource is not allowed");
        return false;
    }
    char *why = NULL;
    if (!json_is_object(raw)) {
        why = wh_str_printf("json: cannot unmarshal %s into Go value of type unstructured.detector",
                            go_json_type(raw));
    } else if (json_object_get(raw, "items")) {
        const json_t *items = json_object_get(raw, "items");
        size_t i;
        const json_t *item;
        r->list = true;
        if (!json_is_array(items) && !json_is_null(items))
            why = wh_str_printf("json: cannot unmarshal %s into Go struct field decodeList.items "
                                "of type []json.RawMessage",
                                go_json_type(items));
        json_array_foreach(items, i, item)
        {
            if (!why && !json_is_object(item) && !json_is_null(item))
                why = wh_str_printf("json: cannot unmarshal %s into Go value of type "
                                    "map[string]interface {}",
                                    go_json_type(item));
        }
    }
    if (!why) {
        r->obj = raw;
        read_gvk(r);
        if (!*r->kind) {
            /* runtime.NewMissingKindErr of the bytes the API server sent */
            char *data = wh_goenc_dumps_sorted(raw);
            why = wh_str_printf("Object 'Kind' is missing in '%s'", data);
            free(data);
        }
    }
    if (why) {
        char *detail = wh_str_printf(
            "failed to deserialize resource, please check your spec.resource, err %s", why);
        wh_ferr_internal(l, RESOURCE_PATH, detail);
        free(detail);
        free(why);
        return false;
    }
    const char *name = json_string_value(wh_json_path(raw, "metadata", "name", NULL));
    r->name = name ? name : "";
    return true;
}

/* --- spec.resource's rules ------------------------------------------------------------------ */

static bool supported(const struct resource *r)
{
    return !r->group[0] && (strcmp(r->kind, "Secret") == 0 || strcmp(r->kind, "ConfigMap") == 0);
}

/* The Status reason client-go's errors.IsXxx see, by reason or, for a reason it does not know,
 * by code. */
static bool status_is(const struct wh_kube_status *st, const char *reason, int code)
{
    static const char *const known[] = {
        "Unauthorized", "Forbidden",          "NotFound",        "AlreadyExists",
        "Conflict",     "Gone",               "Invalid",         "ServerTimeout",
        "StoreReadError", "Timeout",          "TooManyRequests", "BadRequest",
        "MethodNotAllowed", "NotAcceptable",  "RequestEntityTooLarge", "UnsupportedMediaType",
        "InternalError", "Expired",           "ServiceUnavailable"};
    if (strcmp(st->reason, reason) == 0)
        return true;
    for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
        if (strcmp(st->reason, known[i]) == 0)
            return false;
    return code && st->code == code;
}

/* client.Create(mice, DryRunAll) in kruise's namespace, and what its error means. */
static void dry_run(const struct wh_handler_ctx *ctx, const struct resource *r,
                    struct wh_field_errors *l)
{
    char *detail = NULL;
    /* the REST mapper: the core group serves Secrets and ConfigMaps at v1 only ("" is its
     * preferred version) */
    if (r->version[0] && strcmp(r->version, "v1") != 0) {
        detail = wh_str_printf("failed to dry-run validate spec.resource: no matches for kind "
                               "\"%s\" in version \"%s\"",
                               r->kind, r->version);
        wh_ferr_internal(l, RESOURCE_PATH, detail);
        free(detail);
        return;
    }
    if (!ctx->cluster)
        return;
    json_t *mice = wh_json_copy(r->obj);
    /* spec.resource.metadata.namespace is always the controller's: here kruise's */
    json_t *meta = json_object_get(mice, "metadata");
    if (!meta || json_is_null(meta)) {
        meta = json_object();
        json_object_set_new(mice, "metadata", meta);
    }
    if (json_is_object(meta))
        json_object_set_new(meta, "namespace", json_string(ctx->cfg->namespace_));
    const char *plural = strcmp(r->kind, "Secret") == 0 ? "secrets" : "configmaps";
    struct wh_kube_status st;
    enum wh_err rc =
        wh_cluster_create_dry_run(ctx->cluster, "", "v1", plural, ctx->cfg->namespace_, mice, &st);
    json_decref(mice);
    if (rc == WH_OK || status_is(&st, "AlreadyExists", 0))
        return;
    const char *msg = st.message[0] ? st.message : wh_strerror(rc);
    if (status_is(&st, "Invalid", 422) || status_is(&st, "BadRequest", 400)) {
        detail = wh_str_printf("spec.resource is invalid: %s", msg);
        wh_ferr_invalid_raw(l, RESOURCE_PATH, "\"null\"", detail);
    } else if (status_is(&st, "Forbidden", 403)) {
        detail = wh_str_printf("spec.resource is forbidden: %s", msg);
        wh_ferr_forbidden(l, RESOURCE_PATH, detail);
    } else {
        detail = wh_str_printf("failed to dry-run validate spec.resource: %s", msg);
        wh_ferr_internal(l, RESOURCE_PATH, detail);
    }
    free(detail);
}

/* The panics upstream's handler meets with a list for a resource (recovered by
 * controller-runtime and answered 500). */
#define PANIC_NIL "panic: runtime error: invalid memory address or nil pointer dereference [recovered]"
#define PANIC_LIST                                                                                 \
    "panic: interface conversion: *unstructured.UnstructuredList is not client.Object: missing " \
    "method GetAnnotations [recovered]"

/* validateResourceDistributionSpecResource; *panic set when upstream would panic. */
static void check_resource(const struct wh_handler_ctx *ctx, const struct resource *r,
                           const struct resource *old, struct wh_field_errors *l,
                           const char **panic)
{
    if (!supported(r)) {
        char *gk = r->group[0] ? wh_str_printf("%s.%s", r->kind, r->group) : wh_xstrdup(r->kind);
        wh_ferr_invalid_raw(l, RESOURCE_PATH, gk,
                            "unknown or unsupported resource GroupKind, only support [Secret "
                            "ConfigMap]");
        free(gk);
        return;
    }
    if (old) {
        /* haveSameGVKAndName reads both names through ConvertToUnstructured, nil for a list */
        if (r->list || old->list) {
            *panic = PANIC_NIL;
            return;
        }
        if (strcmp(r->name, old->name) != 0 || strcmp(r->group, old->group) != 0 ||
            strcmp(r->version, old->version) != 0 || strcmp(r->kind, old->kind) != 0) {
            wh_ferr_invalid_raw(l, RESOURCE_PATH, "\"null\"",
                                "resource apiVersion, kind, and name are immutable");
            return;
        }
    }
    if (r->list) {
        *panic = PANIC_LIST;
        return;
    }
    dry_run(ctx, r, l);
}

/* --- spec.targets ---------------------------------------------------------------------------- */

/* The text the messages quote is as long as the request, which the body cap bounds. */
#define TEXT_CAP (64u << 20)

/* %#v of a v1beta1.ResourceDistributionTargetNamespaces. Returns: new string. */
static char *gosyntax_namespaces(const json_t *ns)
{
    const json_t *list = json_object_get(ns, "list");
    if (!json_is_array(list))
        return wh_xstrdup("v1beta1.ResourceDistributionTargetNamespaces{List:[]v1beta1."
                          "ResourceDistributionNamespace(nil)}");
    struct wh_buf b;
    wh_buf_init(&b, TEXT_CAP);
    enum wh_err rc = wh_buf_adds(&b, "v1beta1.ResourceDistributionTargetNamespaces{List:[]v1beta1."
                                     "ResourceDistributionNamespace{");
    size_t i;
    const json_t *n;
    json_array_foreach(list, i, n)
    {
        char *q = wh_go_quote(wh_json_str_or_empty(n, "name"));
        if (!rc)
            rc = wh_buf_printf(&b, "%sv1beta1.ResourceDistributionNamespace{Name:%s}",
                               i ? ", " : "", q);
        free(q);
    }
    if (!rc)
        rc = wh_buf_adds(&b, "}}");
    return wh_buf_take(&b, NULL);
}

/* %#v of a v1beta1.ResourceDistributionTargets. Returns: new string. */
static char *gosyntax_targets(const json_t *t)
{
    char *ex = gosyntax_namespaces(json_object_get(t, "excludedNamespaces"));
    char *in = gosyntax_namespaces(json_object_get(t, "includedNamespaces"));
    char *sel = wh_gosyntax_label_selector(json_object_get(t, "namespaceSelector"));
    char *out = wh_str_printf("v1beta1.ResourceDistributionTargets{AllNamespaces:%s, "
                              "ExcludedNamespaces:%s, IncludedNamespaces:%s, NamespaceSelector:%s}",
                              json_is_true(json_object_get(t, "allNamespaces")) ? "true" : "false",
                              ex, in, sel);
    free(ex);
    free(in);
    free(sel);
    return out;
}

static void check_names(const json_t *list, const char *path, struct wh_field_errors *l)
{
    size_t i;
    const json_t *ns;
    json_array_foreach(list, i, ns)
    {
        const char *name = wh_json_str_or_empty(ns, "name");
        /* coreval.ValidateNamespaceName: NameIsDNSLabel, not a prefix */
        struct wh_vmsgs msgs = {0};
        wh_is_dns1123_label(name, &msgs);
        for (size_t k = 0; k < msgs.n; k++)
            wh_ferr_invalid_str(l, path, name, msgs.m[k]);
    }
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* validateResourceDistributionTargets. */
static void check_targets(const json_t *targets, struct wh_field_errors *l)
{
    const json_t *inc = wh_json_path(targets, "includedNamespaces", "list", NULL);
    const json_t *exc = wh_json_path(targets, "excludedNamespaces", "list", NULL);
    check_names(inc, TARGETS_PATH ".includedNamespaces", l);
    check_names(exc, TARGETS_PATH ".excludedNamespaces", l);
    /* the included names as a sorted set (upstream's sets.String) */
    size_t ninc = json_array_size(inc), i, nconf = 0;
    const char **set = wh_xmalloc((ninc + 1) * sizeof(*set));
    for (i = 0; i < ninc; i++)
        set[i] = wh_json_str_or_empty(json_array_get(inc, i), "name");
    qsort(set, ninc, sizeof(*set), cmp_str);
    struct wh_buf conflicted;
    wh_buf_init(&conflicted, TEXT_CAP);
    enum wh_err rc = WH_OK;
    const json_t *e;
    json_array_foreach(exc, i, e)
    {
        const char *name = wh_json_str_or_empty(e, "name");
        if (!bsearch(&name, set, ninc, sizeof(*set), cmp_str))
            continue;
        if (!rc)
            rc = wh_buf_printf(&conflicted, "%s%s", nconf ? " " : "", name);
        nconf++;
    }
    free(set);
    if (nconf) {
        char *names = wh_buf_take(&conflicted, NULL);
        char *value = gosyntax_targets(targets);
        char *detail = wh_str_printf("ambiguous targets because namespace [%s] is in both "
                                     "IncludedNamespaces.List and ExcludedNamespaces.List",
                                     names);
        wh_ferr_invalid_raw(l, TARGETS_PATH, value, detail);
        free(names);
        free(value);
        free(detail);
    } else {
        wh_buf_fini(&conflicted);
    }
    const json_t *sel = json_object_get(targets, "namespaceSelector");
    char *err = wh_label_selector_error(sel); /* whole: a long key or value is named in full */
    if (err) {
        char *value = wh_gosyntax_label_selector(sel);
        char *detail = wh_str_printf("labelSelectorAsSelector error: %s", err);
        wh_ferr_invalid_raw(l, TARGETS_PATH ".namespaceSelector", value, detail);
        free(value);
        free(detail);
        free(err);
    }
}

/* validateResourceDistribution; *panic set when upstream would panic. */
static void check(const struct wh_handler_ctx *ctx, const json_t *obj, const json_t *old,
                  struct wh_field_errors *l, const char **panic)
{
    wh_validate_object_meta(l, json_object_get(obj, "metadata"), false, wh_name_is_dns_subdomain,
                            "metadata");
    const json_t *spec = json_object_get(obj, "spec");
    struct resource r, was;
    if (!deserialize(member(spec, "resource"), &r, l))
        return;
    bool have_old = false;
    if (old)
        have_old = deserialize(member(json_object_get(old, "spec"), "resource"), &was, l);
    check_resource(ctx, &r, have_old ? &was : NULL, l, panic);
    if (*panic)
        return;
    check_targets(json_object_get(spec, "targets"), l);
}

static enum wh_err admit(const struct wh_handler_ctx *ctx, const struct wh_admission_request *req,
                         struct wh_admission_response *resp, struct wh_errbuf *eb)
{
    enum wh_err rc = WH_OK;
    json_t *obj = NULL, *old = NULL;
    if (WH_KOBJ_GATE_OFF(resp, ctx->cfg, ResourceDistributionGate))
        return WH_OK;
    if (!decode(req->object, req, &obj, resp))
        goto out;
    if (strcmp(req->operation, "UPDATE") == 0 && !decode(req->old_object, req, &old, resp))
        goto out;
    struct wh_field_errors l;
    wh_ferrs_init(&l);
    const char *panic = NULL;
    check(ctx, obj, old, &l, &panic);
    char *msg = wh_ferrs_aggregate(&l);
    if (panic) {
        rc = wh_errbuf_set(eb, WH_ERR_INTERNAL, "%s", panic);
    } else if (msg) {
        wh_admission_deny(resp, 422, "%s", msg);
        wh_admission_set_reason(resp, NULL);
    } else {
        wh_admission_allow(resp, NULL);
    }
    free(msg);
    wh_ferrs_fini(&l);
out:
    json_decref(obj);
    json_decref(old);
    return rc;
}

const struct wh_route wh_rd_validate_route = {
    .path = "/validate-apps-kruise-io-resourcedistribution",
    .kind = WH_ROUTE_VALIDATE,
    .admit = admit,
    .entries = {{.name = "vresourcedistribution.kb.io",
                 .group = WH_KRUISE_APPS,
                 .versions = {"v1alpha1", "v1beta1"},
                 .resource = "resourcedistributions",
                 .operations = WH_WEBHOOK_CREATE | WH_WEBHOOK_UPDATE}},
};
