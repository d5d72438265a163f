/* Deletion protection of workloads (spec sections 4.2 and 5.3): the built-in Deployment,
 * ReplicaSet and StatefulSet (one handler for three paths, judging by request.kind: upstream's
 * builtinworkloads handler checks nothing else), and the DELETE branch of the CloneSet, Advanced
 * StatefulSet and UnitedDeployment handlers (their routes are handlers/workloads/'s). Only the
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

/* The DELETE branch of the three Kruise workload handlers (spec 4.2 steps 2-4; no subresource
 * check, as upstream), once the version is known to be v1alpha1 or v1beta1. */
void wh_dp_kruise_workload_delete(const struct wh_handler_ctx *ctx,
                                  const struct wh_admission_request *req,
                                  enum wh_dp_workload workload, struct wh_admission_response *resp)
{
    static const struct {
        const char *kind;
        enum wh_dp_kind k;
    } workloads[] = {
        [WH_DP_CLONESET] = {"CloneSet", WH_DP_KIND_CLONESET},
        [WH_DP_ADVANCED_STATEFULSET] = {"StatefulSet", WH_DP_KIND_ADVANCED_STATEFULSET},
        [WH_DP_UNITEDDEPLOYMENT] = {"UnitedDeployment", WH_DP_KIND_UNITEDDEPLOYMENT},
    };
    if (!req->old_object) {
        wh_admission_allow(resp, NULL);
        return;
    }
    char api_version[64];
    snprintf(api_version, sizeof(api_version), WH_KRUISE_APPS "/%s", req->resource.version);
    /* v1alpha1 objects are converted to v1beta1 upstream; labels, deletionTimestamp and
     * spec.replicas come through unchanged, so the v1alpha1 object is judged as it is. */
    const struct wh_dp_type type = {api_version, workloads[workload].kind, false};
    if (!wh_dp_decode_or_deny(req, &type, resp) || wh_dp_exempt(ctx, req->old_object, resp))
        return;
    wh_dp_workload_rule(req, req->old_object, workloads[workload].k, resp);
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
