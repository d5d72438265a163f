/* /mutate-apps-kruise-io-uniteddeployment (muniteddeployment.kb.io): UnitedDeployment defaults,
 * v1alpha1 and v1beta1 (apis/apps/defaults: SetDefaultsUnitedDeployment and its V1beta1 twin):
 * only a statefulSetTemplate's Pod template and claim templates get template defaults. The
 * status is reset to its zero value. */
#include "handlers/workloads/workloads.h"

#include <string.h>

#include "handlers/kruise_object.h"
#include "handlers/workloads/workload_int.h"
#include "k8s/defaults.h"
#include "k8s/kruise.h"
#include "util/json.h"

static bool set(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return v && !json_is_null(v);
}

static void defaults(json_t *ud, const struct wh_kobj_defaulting *how)
{
    json_t *spec = wh_json_obj_ensure(ud, "spec");
    wh_k8s_default_int_ptr(spec, "replicas", 1);
    wh_k8s_default_int_ptr(spec, "revisionHistoryLimit", 10);
    json_t *us = wh_json_obj_ensure(spec, "updateStrategy");
    wh_k8s_default_string(us, "type", "Manual");
    if (strcmp(wh_json_str_or_empty(us, "type"), "Manual") == 0)
        wh_k8s_default_ptr_new(us, "manualUpdate", json_object());
    json_t *sts = wh_json_path(spec, "template", "statefulSetTemplate", NULL);
    if (json_is_object(sts) && how->inject)
        wl_default_templates(wh_json_obj_ensure(sts, "spec"), how->cfg);

    /* subsets that give capacities and no replicas get minReplicas 0 */
    bool replicas = false, capacity = false;
    size_t i;
    json_t *subset;
    json_t *subsets = wh_json_arr(wh_json_obj(spec, "topology"), "subsets");
    json_array_foreach(subsets, i, subset)
    {
        replicas |= set(subset, "replicas");
        capacity |= set(subset, "minReplicas") || set(subset, "maxReplicas");
    }
    if (capacity && !replicas) {
        json_array_foreach(subsets, i, subset)
        {
            if (json_is_object(subset))
                wh_k8s_default_int_ptr(subset, "minReplicas", 0);
        }
    }
}

static const struct wh_kobj_mutator uniteddeployment = {
    .kind = "UnitedDeployment",
    .defaults = defaults,
    .template_member = "template",
    .clear_status = true,
};

static enum wh_err admit(const struct wh_handler_ctx *ctx, const struct wh_admission_request *req,
                         struct wh_admission_response *resp, struct wh_errbuf *eb)
{
    return wh_kobj_mutate(&uniteddeployment, ctx, req, resp, eb);
}

const struct wh_route wh_uniteddeployment_mutate_route = {
    .path = "/mutate-apps-kruise-io-uniteddeployment",
    .kind = WH_ROUTE_MUTATE,
    .admit = admit,
    .entries = {{.name = "muniteddeployment.kb.io",
                 .group = WH_KRUISE_APPS,
                 .versions = {"v1alpha1", "v1beta1"},
                 .resource = "uniteddeployments",
                 .operations = WH_WEBHOOK_CREATE | WH_WEBHOOK_UPDATE}},
};
