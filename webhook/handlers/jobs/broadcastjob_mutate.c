/* /mutate-apps-kruise-io-broadcastjob: upstream's BroadcastJob defaulting (apis/apps/defaults
 * SetDefaultsBroadcastJob, served at v1alpha1 and v1beta1 through handlers/kruise_object.h). */
#include <jansson.h>

#include "config/features.h"
#include "handlers/kruise_object.h"
#include "k8s/defaults.h"
#include "k8s/kruise.h"
#include "util/json.h"

/* SetDefaultsBroadcastJob: the template's Pod spec when inject, completionPolicy.type Always,
 * parallelism MaxInt32, failurePolicy.type FailFast. */
static void defaults(json_t *obj, const struct wh_kobj_defaulting *how)
{
    json_t *spec = wh_json_obj_ensure(obj, "spec");
    if (how->inject)
        wh_k8s_default_pod_spec(
            wh_json_obj_ensure(wh_json_obj_ensure(spec, "template"), "spec"),
            wh_feature_on(&how->cfg->features,
                          WH_FEATURE_DefaultHostNetworkHostPortsInPodTemplates));
    json_t *completion = wh_json_obj_ensure(spec, "completionPolicy");
    if (!*wh_json_str_or_empty(completion, "type"))
        json_object_set_new(completion, "type", json_string("Always"));
    if (!wh_json_present(spec, "parallelism"))
        json_object_set_new(spec, "parallelism", json_integer(2147483647));
    json_t *failure = wh_json_obj_ensure(spec, "failurePolicy");
    if (!*wh_json_str_or_empty(failure, "type"))
        json_object_set_new(failure, "type", json_string("FailFast"));
}

static const struct wh_kobj_mutator mutator = {
    .kind = "BroadcastJob",
    .defaults = defaults,
    .template_member = "template",
    .clear_status = true,
    .via_v1beta1 = true,
};

static enum wh_err admit(const struct wh_handler_ctx *ctx, const struct wh_admission_request *req,
                         struct wh_admission_response *resp, struct wh_errbuf *eb)
{
    return wh_kobj_mutate(&mutator, ctx, req, resp, eb);
}

const struct wh_route wh_broadcastjob_mutate_route = {
    .path = "/mutate-apps-kruise-io-broadcastjob",
    .kind = WH_ROUTE_MUTATE,
    .admit = admit,
    .entries = {{.name = "mbroadcastjob.kb.io",
                 .group = WH_KRUISE_APPS,
                 .versions = {"v1alpha1", "v1beta1"},
                 .resource = "broadcastjobs",
                 .operations = WH_WEBHOOK_CREATE | WH_WEBHOOK_UPDATE}},
};
