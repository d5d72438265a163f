/* /mutate-apps-kruise-io-cloneset (mcloneset.kb.io): CloneSet defaults, v1alpha1 and v1beta1
 * (apis/apps/defaults: SetDefaultsCloneSet, SetDefaultsCloneSetV1beta1). */
#include "handlers/workloads/workloads.h"

#include <string.h>

#include "handlers/kruise_object.h"
#include "handlers/workloads/workload_int.h"
#include "k8s/defaults.h"
#include "k8s/kruise.h"
#include "util/json.h"

static void defaults(json_t *cs, const struct wh_kobj_defaulting *how)
{
    json_t *spec = wh_json_obj_ensure(cs, "spec");
    wh_k8s_default_int_ptr(spec, "replicas", 1);
    wh_k8s_default_int_ptr(spec, "revisionHistoryLimit", 10);
    if (how->inject)
        wl_default_templates(spec, how->cfg);
    json_t *us = wh_json_obj_ensure(spec, "updateStrategy");
    if (how->v == WH_KOBJ_V1ALPHA1) {
        const char *type = wh_json_str_or_empty(us, "type");
        if (!*type)
            json_object_set_new(us, "type", json_string("ReCreate"));
        else if (strcmp(type, "InPlaceIfPossible") == 0 || strcmp(type, "InPlaceOnly") == 0)
            wh_k8s_default_ptr_new(us, "inPlaceUpdateStrategy", json_object());
    } else {
        wh_k8s_default_string(us, "type", "RollingUpdate");
        if (strcmp(wh_json_str_or_empty(us, "type"), "RollingUpdate") != 0)
            return;
        us = wh_json_obj_ensure(us, "rollingUpdate");
        wh_k8s_default_string(us, "podUpdatePolicy", "ReCreate");
        const char *policy = wh_json_str_or_empty(us, "podUpdatePolicy");
        if (strcmp(policy, "InPlaceIfPossible") == 0 || strcmp(policy, "InPlaceOnly") == 0)
            wh_k8s_default_ptr_new(us, "inPlaceUpdateStrategy", json_object());
    }
    /* the same three in v1alpha1's updateStrategy and v1beta1's rollingUpdate */
    wh_k8s_default_int_ptr(us, "partition", 0);
    wh_k8s_default_ptr_new(us, "maxUnavailable", json_string("20%"));
    wh_k8s_default_int_ptr(us, "maxSurge", 0);
}

static const struct wh_kobj_mutator cloneset = {
    .kind = "CloneSet",
    .defaults = defaults,
    .template_member = "template",
};

static enum wh_err admit(const struct wh_handler_ctx *ctx, const struct wh_admission_request *req,
                         struct wh_admission_response *resp, struct wh_errbuf *eb)
{
    return wh_kobj_mutate(&cloneset, ctx, req, resp, eb);
}

const struct wh_route wh_cloneset_mutate_route = {
    .path = "/mutate-apps-kruise-io-cloneset",
    .kind = WH_ROUTE_MUTATE,
    .admit = admit,
    .entries = {{.name = "mcloneset.kb.io",
                 .group = WH_KRUISE_APPS,
                 .versions = {"v1alpha1", "v1beta1"},
                 .resource = "clonesets",
                 .operations = WH_WEBHOOK_CREATE | WH_WEBHOOK_UPDATE}},
};
