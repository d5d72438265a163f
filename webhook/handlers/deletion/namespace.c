/* Deletion protection of Namespaces (spec section 5.1). Cascading reads the namespace's Pods and
 * PersistentVolumeClaims live, page by page, at the moment of the DELETE: deletes are rare, and
 * caching every Pod and PVC of the cluster for them would cost far more than it saves. The
 * messages carry exact counts, so a list is always read to its end; the PVC list is only read
 * when no pod is active. */
#include "handlers/deletion/protection.h"

#include <string.h>

#include "handlers/deletion/protection_int.h"
#include "k8s/kruise.h"
#include "kube/cluster.h"
#include "util/json.h"
#include "util/str.h"

static const struct wh_dp_type namespace_type = {"v1", "Namespace", false};

/* A pod is active while it has not finished and is not being deleted (upstream's
 * IsPodActive): a missing or unknown phase counts as active. */
static enum wh_err count_active_pod(void *arg, json_t *pod)
{
    const char *phase = wh_json_path_str(pod, "status", "phase", NULL);
    if (!wh_str_eq(phase, "Succeeded") && !wh_str_eq(phase, "Failed") && !wh_dp_deleting(pod))
        (*(size_t *)arg)++;
    return WH_OK;
}

static enum wh_err count_bound_pvc(void *arg, json_t *pvc)
{
    if (wh_str_eq(wh_json_path_str(pvc, "status", "phase", NULL), "Bound") && !wh_dp_deleting(pvc))
        (*(size_t *)arg)++;
    return WH_OK;
}

/* Counts the items of a core/v1 resource in namespace ns. */
static enum wh_err count_live(const struct wh_handler_ctx *ctx, const char *resource,
                              const char *ns, wh_kube_item_fn fn, size_t *n, struct wh_errbuf *eb)
{
    *n = 0;
    if (!ctx->cluster)
        return wh_errbuf_set(eb, WH_ERR_INTERNAL, "no cluster state to list %s from", resource);
    return wh_cluster_list_live(ctx->cluster, "", "v1", resource, ns, NULL, fn, n, eb);
}

static enum wh_err admit_namespace(const struct wh_handler_ctx *ctx,
                                   const struct wh_admission_request *req,
                                   struct wh_admission_response *resp, struct wh_errbuf *eb)
{
    (void)eb;
    if (wh_dp_skip_dedicated(req, resp) || !wh_dp_decode_or_deny(req, &namespace_type, resp) ||
        wh_dp_exempt(ctx, req->old_object, resp))
        return WH_OK;
    const json_t *old = req->old_object;
    const char *val = wh_dp_label(old);
    if (wh_str_eq(val, WH_KRUISE_DELETE_PROTECTION_ALWAYS)) {
        wh_dp_deny(req, old, WH_DP_KIND_NAMESPACE, resp,
                   WH_DP_FORBIDDEN WH_KRUISE_LABEL_DELETE_PROTECTION
                   "=" WH_KRUISE_DELETE_PROTECTION_ALWAYS);
        return WH_OK;
    }
    if (!wh_str_eq(val, WH_KRUISE_DELETE_PROTECTION_CASCADING)) {
        wh_admission_allow(resp, NULL);
        return WH_OK;
    }
    /* The namespace named by the object, not by request.namespace (spec 5.1). */
    const char *name = wh_json_meta_str(old, "name");
    name = name ? name : "";
    struct wh_errbuf lerr = {{0}};
    size_t n = 0;
    /* A failed list denies: losing a namespace to a transient error is the worst outcome. */
    if (count_live(ctx, "pods", name, count_active_pod, &n, &lerr)) {
        wh_dp_deny(req, old, WH_DP_KIND_NAMESPACE, resp, WH_DP_FORBIDDEN "list pods error: %s",
                   lerr.msg);
        return WH_OK;
    }
    if (n > 0) {
        wh_dp_deny(req, old, WH_DP_KIND_NAMESPACE, resp,
                   WH_DP_FORBIDDEN WH_KRUISE_LABEL_DELETE_PROTECTION
                   "=" WH_KRUISE_DELETE_PROTECTION_CASCADING " and active pods %zu>0",
                   n);
        return WH_OK;
    }
    if (count_live(ctx, "persistentvolumeclaims", name, count_bound_pvc, &n, &lerr)) {
        wh_dp_deny(req, old, WH_DP_KIND_NAMESPACE, resp, WH_DP_FORBIDDEN "list pvc error: %s",
                   lerr.msg);
        return WH_OK;
    }
    if (n > 0) {
        wh_dp_deny(req, old, WH_DP_KIND_NAMESPACE, resp,
                   WH_DP_FORBIDDEN WH_KRUISE_LABEL_DELETE_PROTECTION
                   "=" WH_KRUISE_DELETE_PROTECTION_CASCADING " and \"Bound\" status pvc %zu>0",
                   n);
        return WH_OK;
    }
    wh_admission_allow(resp, NULL);
    return WH_OK;
}

const struct wh_route wh_dp_namespace_route = {
    .path = "/validate-namespace",
    .kind = WH_ROUTE_VALIDATE,
    .admit = admit_namespace,
    .setup = wh_dp_setup,
    .entries = {{.name = "vnamespace.kb.io",
                 .group = "",
                 .versions = {"v1"},
                 .resource = "namespaces",
                 .operations = WH_WEBHOOK_DELETE,
                 .object_label = WH_KRUISE_LABEL_DELETE_PROTECTION}},
};
