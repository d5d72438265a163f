/* Deletion protection of workloads (spec sections 4.2 and 5.3): the built-in Deployment,
 * ReplicaSet and StatefulSet (one handler for three paths, judging by request.kind), and the
 * DELETE branch of the CloneSet, Advanced StatefulSet and UnitedDeployment handlers. Only the
 * old object's spec.replicas matters; nothing is read from the cluster. */
#include "handlers/deletion/protection.h"

#include <stdio.h>
#include <string.h>

#include "handlers/deletion/protection_int.h"
#include "k8s/kruise.h"
#include "util/str.h"

static const struct wh_dp_type deployment_type = {"apps/v1", "Deployment", false};
static const struct wh_dp_type replicaset_type = {"apps/v1", "ReplicaSet", false};
static const struct wh_dp_type statefulset_type = {"apps/v1", "StatefulSet", false};

static enum wh_err admit_builtin_workload(const struct wh_handler_ctx *ctx,
                                          const struct wh_admission_request *req,
                                          struct wh_admission_response *resp, struct wh_errbuf *eb)
{
    (void)eb;
    if (wh_dp_skip_dedicated(req, resp))
        return WH_OK;
    /* The kind decides, not the path: a ReplicaSet sent to /validate-apps-deployment is judged
     * as a ReplicaSet, and any other kind is not this handler's business. */
    const struct wh_dp_type *type = NULL;
    enum wh_dp_kind k = WH_DP_KIND_DEPLOYMENT;
    if (strcmp(req->kind.kind, "Deployment") == 0) {
        type = &deployment_type;
    } else if (strcmp(req->kind.kind, "ReplicaSet") == 0) {
        type = &replicaset_type;
        k = WH_DP_KIND_REPLICASET;
    } else if (strcmp(req->kind.kind, "StatefulSet") == 0) {
        type = &statefulset_type;
        k = WH_DP_KIND_STATEFULSET;
    }
    if (!type) {
        wh_admission_allow(resp, NULL);
        return WH_OK;
    }
    if (!wh_dp_decode_or_deny(req, type, resp) || wh_dp_exempt(ctx, req->old_object, resp))
        return WH_OK;
    wh_dp_workload_rule(req, req->old_object, k, resp);
    return WH_OK;
}

/* The DELETE branch shared by the three Kruise workload handlers, once the version is known to
 * be v1alpha1 or v1beta1 (spec 4.2 steps 2-4; no subresource check, as upstream). */
static void kruise_delete(const struct wh_handler_ctx *ctx, const struct wh_admission_request *req,
                          const char *kind, enum wh_dp_kind k, struct wh_admission_response *resp)
{
    if (!req->old_object) {
        wh_admission_allow(resp, NULL);
        return;
    }
    char api_version[64];
    snprintf(api_version, sizeof(api_version), WH_KRUISE_APPS "/%s", req->resource.version);
    /* v1alpha1 objects are converted to v1beta1 upstream; labels, deletionTimestamp and
     * spec.replicas come through unchanged, so the v1alpha1 object is judged as it is. */
    const struct wh_dp_type type = {api_version, kind, false};
    if (!wh_dp_decode_or_deny(req, &type, resp) || wh_dp_exempt(ctx, req->old_object, resp))
        return;
    wh_dp_workload_rule(req, req->old_object, k, resp);
}

static bool kruise_version(const struct wh_admission_request *req)
{
    return wh_str_eq(req->resource.version, "v1beta1") ||
           wh_str_eq(req->resource.version, "v1alpha1");
}

static bool is_create_or_update(const struct wh_admission_request *req)
{
    return wh_str_eq(req->operation, "CREATE") || wh_str_eq(req->operation, "UPDATE");
}

/* CREATE/UPDATE validation of these kinds is not implemented yet (no issue covers it): those
 * operations are allowed here until it is. Other operations (CONNECT) are allowed upstream. */

static enum wh_err admit_cloneset(const struct wh_handler_ctx *ctx,
                                  const struct wh_admission_request *req,
                                  struct wh_admission_response *resp, struct wh_errbuf *eb)
{
    (void)eb;
    /* Upstream's CloneSet handler checks the version first, for every operation. */
    if (!kruise_version(req)) {
        wh_admission_deny(resp, 400, "unsupported version: %s", req->resource.version);
        return WH_OK;
    }
    if (wh_str_eq(req->operation, "DELETE"))
        kruise_delete(ctx, req, "CloneSet", WH_DP_KIND_CLONESET, resp);
    else
        wh_admission_allow(resp, NULL);
    return WH_OK;
}

static enum wh_err admit_advanced_statefulset(const struct wh_handler_ctx *ctx,
                                              const struct wh_admission_request *req,
                                              struct wh_admission_response *resp,
                                              struct wh_errbuf *eb)
{
    (void)eb;
    /* Upstream decodes nothing for another version and judges an empty object: allowed. */
    if (wh_str_eq(req->operation, "DELETE") && kruise_version(req))
        kruise_delete(ctx, req, "StatefulSet", WH_DP_KIND_ADVANCED_STATEFULSET, resp);
    else
        wh_admission_allow(resp, NULL);
    return WH_OK;
}

static enum wh_err admit_uniteddeployment(const struct wh_handler_ctx *ctx,
                                          const struct wh_admission_request *req,
                                          struct wh_admission_response *resp, struct wh_errbuf *eb)
{
    (void)eb;
    bool version_ok = kruise_version(req);
    if (wh_str_eq(req->operation, "DELETE")) {
        /* The version is only looked at when there is an old object to decode. */
        if (req->old_object && !version_ok)
            wh_admission_deny(resp, 400, "unsupported version: %s", req->resource.version);
        else
            kruise_delete(ctx, req, "UnitedDeployment", WH_DP_KIND_UNITEDDEPLOYMENT, resp);
    } else if (is_create_or_update(req) && !version_ok) {
        /* upstream fails to decode the object before validating it */
        wh_admission_deny(resp, 400, "unsupported version: %s", req->resource.version);
    } else {
        wh_admission_allow(resp, NULL);
    }
    return WH_OK;
}

const struct wh_route wh_dp_deployment_route = {
    .path = "/validate-apps-deployment",
    .kind = WH_ROUTE_VALIDATE,
    .admit = admit_builtin_workload,
    .setup = wh_dp_setup,
    .entries = {{.name = "vbuiltindeployment.kb.io",
                 .group = "apps",
                 .versions = {"v1"},
                 .resource = "deployments",
                 .operations = WH_WEBHOOK_DELETE,
                 .object_label = WH_KRUISE_LABEL_DELETE_PROTECTION}},
};

const struct wh_route wh_dp_replicaset_route = {
    .path = "/validate-apps-replicaset",
    .kind = WH_ROUTE_VALIDATE,
    .admit = admit_builtin_workload,
    .setup = wh_dp_setup,
    .entries = {{.name = "vbuiltinreplicaset.kb.io",
                 .group = "apps",
                 .versions = {"v1"},
                 .resource = "replicasets",
                 .operations = WH_WEBHOOK_DELETE,
                 .object_label = WH_KRUISE_LABEL_DELETE_PROTECTION}},
};

const struct wh_route wh_dp_statefulset_route = {
    .path = "/validate-apps-statefulset",
    .kind = WH_ROUTE_VALIDATE,
    .admit = admit_builtin_workload,
    .setup = wh_dp_setup,
    .entries = {{.name = "vbuiltinstatefulset.kb.io",
                 .group = "apps",
                 .versions = {"v1"},
                 .resource = "statefulsets",
                 .operations = WH_WEBHOOK_DELETE,
                 .object_label = WH_KRUISE_LABEL_DELETE_PROTECTION}},
};

const struct wh_route wh_dp_cloneset_route = {
    .path = "/validate-apps-kruise-io-cloneset",
    .kind = WH_ROUTE_VALIDATE,
    .admit = admit_cloneset,
    .setup = wh_dp_setup,
    .entries = {{.name = "vcloneset.kb.io",
                 .group = WH_KRUISE_APPS,
                 .versions = {"v1alpha1", "v1beta1"},
                 .resource = "clonesets",
                 .operations = WH_WEBHOOK_CREATE | WH_WEBHOOK_UPDATE | WH_WEBHOOK_DELETE}},
};

const struct wh_route wh_dp_advanced_statefulset_route = {
    .path = "/validate-apps-kruise-io-statefulset",
    .kind = WH_ROUTE_VALIDATE,
    .admit = admit_advanced_statefulset,
    .setup = wh_dp_setup,
    .entries = {{.name = "vstatefulset.kb.io",
                 .group = WH_KRUISE_APPS,
                 .versions = {"v1alpha1", "v1beta1"},
                 .resource = "statefulsets",
                 .operations = WH_WEBHOOK_CREATE | WH_WEBHOOK_UPDATE | WH_WEBHOOK_DELETE}},
};

const struct wh_route wh_dp_uniteddeployment_route = {
    .path = "/validate-apps-kruise-io-uniteddeployment",
    .kind = WH_ROUTE_VALIDATE,
    .admit = admit_uniteddeployment,
    .setup = wh_dp_setup,
    .entries = {{.name = "vuniteddeployment.kb.io",
                 .group = WH_KRUISE_APPS,
                 .versions = {"v1alpha1", "v1beta1"},
                 .resource = "uniteddeployments",
                 .operations = WH_WEBHOOK_CREATE | WH_WEBHOOK_UPDATE | WH_WEBHOOK_DELETE}},
};

/* The Helm chart's older names of two paths above (spec deletion-protection 3). */
const struct wh_route wh_dp_cloneset_alias_route = {
    .path = "/validate-apps-kruise-io-v1alpha1-cloneset",
    .kind = WH_ROUTE_VALIDATE,
    .admit = admit_cloneset,
    .setup = wh_dp_setup,
    .alias_of = "/validate-apps-kruise-io-cloneset",
};

const struct wh_route wh_dp_uniteddeployment_alias_route = {
    .path = "/validate-apps-kruise-io-v1alpha1-uniteddeployment",
    .kind = WH_ROUTE_VALIDATE,
    .admit = admit_uniteddeployment,
    .setup = wh_dp_setup,
    .alias_of = "/validate-apps-kruise-io-uniteddeployment",
};
