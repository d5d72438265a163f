/* /mutate-apps-kruise-io-statefulset (mstatefulset.kb.io): Advanced StatefulSet defaults
 * (apis/apps/defaults: SetDefaultsStatefulSet). Upstream defaults the v1beta1 form: a v1alpha1
 * object is converted up, defaulted and converted back; any other version defaults an empty
 * object. The status is reset to its zero value. */
#include "handlers/workloads/workloads.h"

#include <string.h>

#include "config/features.h"
#include "handlers/kruise_object.h"
#include "handlers/workloads/workload_int.h"
#include "k8s/defaults.h"
#include "k8s/kruise.h"
#include "util/json.h"

static void defaults(json_t *sts, const struct wh_kobj_defaulting *how)
{
    json_t *spec = wh_json_obj_ensure(sts, "spec");
    wh_k8s_default_string(spec, "podManagementPolicy", "OrderedReady");
    json_t *us = wh_json_obj_ensure(spec, "updateStrategy");
    wh_k8s_default_string(us, "type", "RollingUpdate");
    if (strcmp(wh_json_str_or_empty(us, "type"), "RollingUpdate") == 0) {
        json_t *ru = wh_json_obj_ensure(us, "rollingUpdate");
        wh_k8s_default_int_ptr(ru, "partition", 0);
        wh_k8s_default_int_ptr(ru, "maxUnavailable", 1);
        wh_k8s_default_string(ru, "podUpdatePolicy", "ReCreate");
        wh_k8s_default_int_ptr(ru, "minReadySeconds", 0);
    }
    if (wh_feature_on(&how->cfg->features, WH_FEATURE_StatefulSetAutoDeletePVC)) {
        json_t *p = wh_json_obj_ensure(spec, "persistentVolumeClaimRetentionPolicy");
        wh_k8s_default_string(p, "whenDeleted", "Retain");
        wh_k8s_default_string(p, "whenScaled", "Retain");
    }
    if (wh_feature_on(&how->cfg->features, WH_FEATURE_StatefulSetAutoResizePVCGate))
        wh_k8s_default_string(wh_json_obj_ensure(spec, "volumeClaimUpdateStrategy"), "type",
                              "OnDelete");
    wh_k8s_default_int_ptr(spec, "replicas", 1);
    wh_k8s_default_int_ptr(spec, "revisionHistoryLimit", 10);
    if (how->inject)
        wl_default_templates(spec, how->cfg);
}

static const struct wh_kobj_mutator statefulset = {
    .kind = "StatefulSet",
    .defaults = defaults,
    .template_member = "template",
    .clear_status = true,
    .via_v1beta1 = true,
};

static enum wh_err admit(const struct wh_handler_ctx *ctx, const struct wh_admission_request *req,
                         struct wh_admission_response *resp, struct wh_errbuf *eb)
{
    return wh_kobj_mutate(&statefulset, ctx, req, resp, eb);
}

const struct wh_route wh_statefulset_mutate_route = {
    .path = "/mutate-apps-kruise-io-statefulset",
    .kind = WH_ROUTE_MUTATE,
    .admit = admit,
    .entries = {{.name = "mstatefulset.kb.io",
                 .group = WH_KRUISE_APPS,
                 .versions = {"v1alpha1", "v1beta1"},
                 .resource = "statefulsets",
                 .operations = WH_WEBHOOK_CREATE | WH_WEBHOOK_UPDATE}},
};
