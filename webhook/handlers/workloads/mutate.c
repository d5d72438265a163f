/* The template defaults the workload kinds share (upstream's SetDefaults functions of
 * apis/apps/defaults call SetDefaultPodSpec and each claim template's defaults alike); the
 * defaulting frame around each kind's defaults is handlers/kruise_object.h's. */
#include "handlers/workloads/workload_int.h"

#include "config/features.h"
#include "k8s/defaults.h"
#include "util/json.h"

void wl_default_templates(json_t *spec, const struct wh_config *cfg)
{
    json_t *pod_spec = wh_json_obj_ensure(wh_json_obj_ensure(spec, "template"), "spec");
    wh_k8s_default_pod_spec(
        pod_spec,
        wh_feature_on(&cfg->features, WH_FEATURE_DefaultHostNetworkHostPortsInPodTemplates));
    size_t i;
    json_t *claim;
    json_array_foreach(wh_json_struct_list(spec, "volumeClaimTemplates"), i, claim)
    {
        wh_k8s_default_pvc_template(claim);
    }
}
