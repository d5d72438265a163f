/* Deletion protection of CustomResourceDefinitions (spec section 5.2). Cascading counts the
 * remaining custom resources, listed live from the API server at the CRD's storage version
 * across all namespaces, page by page; the message carries the exact count, so the list is read
 * to its end. A failed list denies. */
#include "handlers/deletion/protection.h"

#include <string.h>

#include "config/features.h"
#include "handlers/deletion/protection_int.h"
#include "k8s/kruise.h"
#include "kube/cluster.h"
#include "util/json.h"
#include "util/str.h"

static const struct wh_dp_type crd_v1 = {"apiextensions.k8s.io/v1", "CustomResourceDefinition",
                                         true};
static const struct wh_dp_type crd_v1beta1 = {"apiextensions.k8s.io/v1beta1",
                                              "CustomResourceDefinition", true};

static enum wh_err count_live_cr(void *arg, json_t *item)
{
    if (!wh_dp_deleting(item))
        (*(size_t *)arg)++;
    return WH_OK;
}

/* Where the custom resources are stored: spec.group, the first version with storage: true and
 * spec.names.listKind. Left "" when missing, as upstream leaves its target empty. */
struct storage_target {
    const char *group, *version, *list_kind;
};

static void storage_target(const json_t *crd, struct storage_target *t)
{
    t->group = t->version = t->list_kind = "";
    const json_t *spec = wh_json_obj(crd, "spec");
    size_t i;
    json_t *v;
    json_array_foreach(wh_json_arr(spec, "versions"), i, v)
    {
        if (wh_json_bool(v, "storage")) {
            const char *name = wh_json_str(v, "name");
            const char *group = wh_json_str(spec, "group");
            const char *list_kind = wh_json_path_str(spec, "names", "listKind", NULL);
            t->version = name ? name : "";
            t->group = group ? group : "";
            t->list_kind = list_kind ? list_kind : "";
            break;
        }
    }
}

/* Upstream lists the storage version's objects by their list kind; its client finds the
 * resource the way a REST mapper does, from the kind (the list kind without a trailing
 * "List"), so a list kind that names no served kind cannot be listed. */
static enum wh_err count_crs(const struct wh_handler_ctx *ctx, const struct storage_target *t,
                             size_t *n, struct wh_errbuf *eb)
{
    *n = 0;
    /* An empty target (no storage version, no listKind) names no served kind either. */
    if (!ctx->cluster)
        return wh_errbuf_set(eb, WH_ERR_INTERNAL, "no cluster state to list from");
    char kind[256], plural[256];
    size_t len = strlen(t->list_kind);
    if (wh_str_has_suffix(t->list_kind, "List"))
        len -= 4;
    snprintf(kind, sizeof(kind), "%.*s", (int)len, t->list_kind);
    enum wh_err rc = wh_cluster_resource_for_kind(ctx->cluster, t->group, t->version, kind,
                                                  plural, sizeof(plural), eb);
    if (rc)
        return rc;
    return wh_cluster_list_live(ctx->cluster, t->group, t->version, plural, NULL, NULL,
                                count_live_cr, n, eb);
}

static enum wh_err admit_crd(const struct wh_handler_ctx *ctx,
                             const struct wh_admission_request *req,
                             struct wh_admission_response *resp, struct wh_errbuf *eb)
{
    (void)eb;
    if (wh_dp_skip_dedicated(req, resp))
        return WH_OK;
    const struct wh_dp_type *type = NULL;
    if (strcmp(req->kind.version, "v1") == 0)
        type = &crd_v1;
    else if (strcmp(req->kind.version, "v1beta1") == 0)
        type = &crd_v1beta1;
    if (!type) {
        /* upstream skips versions it does not know */
        wh_admission_allow(resp, NULL);
        return WH_OK;
    }
    if (!wh_dp_decode_or_deny(req, type, resp) || wh_dp_exempt(ctx, req->old_object, resp))
        return WH_OK;
    const json_t *old = req->old_object;
    const char *val = wh_dp_label(old);
    if (wh_str_eq(val, WH_KRUISE_DELETE_PROTECTION_ALWAYS)) {
        wh_dp_deny(req, old, WH_DP_KIND_CRD, resp,
                   WH_DP_FORBIDDEN WH_KRUISE_LABEL_DELETE_PROTECTION
                   "=" WH_KRUISE_DELETE_PROTECTION_ALWAYS);
        return WH_OK;
    }
    if (!wh_str_eq(val, WH_KRUISE_DELETE_PROTECTION_CASCADING)) {
        wh_admission_allow(resp, NULL);
        return WH_OK;
    }
    /* With the CRD gate off a Cascading CRD cannot be deleted at all (upstream). */
    if (!wh_feature_on(&ctx->cfg->features, WH_FEATURE_DeletionProtectionForCRDCascadingGate)) {
        wh_dp_deny(req, old, WH_DP_KIND_CRD, resp,
                   "feature-gate DeletionProtectionForCRDCascadingGate is not enabled");
        return WH_OK;
    }
    struct storage_target t;
    storage_target(old, &t);
    struct wh_errbuf lerr = {{0}};
    size_t n = 0;
    if (count_crs(ctx, &t, &n, &lerr)) {
        /* Go prints a GroupVersionKind as group/version, Kind=kind, the slash always there. */
        wh_dp_deny(req, old, WH_DP_KIND_CRD, resp, "failed to list CRs of %s/%s, Kind=%s: %s",
                   t.group, t.version, t.list_kind, lerr.msg);
        return WH_OK;
    }
    if (n > 0) {
        wh_dp_deny(req, old, WH_DP_KIND_CRD, resp,
                   WH_DP_FORBIDDEN WH_KRUISE_LABEL_DELETE_PROTECTION
                   "=" WH_KRUISE_DELETE_PROTECTION_CASCADING " and active CRs %zu>0",
                   n);
        return WH_OK;
    }
    wh_admission_allow(resp, NULL);
    return WH_OK;
}

const struct wh_route wh_dp_crd_route = {
    .path = "/validate-customresourcedefinition",
    .kind = WH_ROUTE_VALIDATE,
    .admit = admit_crd,
    .setup = wh_dp_setup,
    .entries = {{.name = "vcustomresourcedefinition.kb.io",
                 .group = "apiextensions.k8s.io",
                 .versions = {"v1", "v1beta1"},
                 .resource = "customresourcedefinitions",
                 .operations = WH_WEBHOOK_DELETE,
                 .object_label = WH_KRUISE_LABEL_DELETE_PROTECTION}},
};
