/* /mutate-apps-kruise-io-advancedcronjob: upstream's AdvancedCronJob defaulting (apis/apps/defaults
 * SetDefaultsAdvancedCronJob, served at v1alpha1 and v1beta1 through handlers/kruise_object.h). */
#include <jansson.h>

#include "config/features.h"
#include "handlers/kruise_object.h"
#include "k8s/defaults.h"
#include "k8s/kruise.h"
#include "util/json.h"

/* A template member that Go holds as a non-nil pointer: present and not null. */
static json_t *set_template(json_t *templates, const char *member)
{
    json_t *t = json_object_get(templates, member);
    return json_is_object(t) ? t : NULL;
}

static void set_default(json_t *o, const char *member, json_t *value)
{
    if (!wh_json_present(o, member))
        json_object_set_new(o, member, value);
    else
        json_decref(value);
}

/* SetDefaultsAdvancedCronJob. */
static void defaults(json_t *obj, const struct wh_kobj_defaulting *how)
{
    bool host_ports =
        wh_feature_on(&how->cfg->features, WH_FEATURE_DefaultHostNetworkHostPortsInPodTemplates);
    json_t *spec = wh_json_obj_ensure(obj, "spec");
    json_t *templates = wh_json_obj_ensure(spec, "template");
    /* a Job's and a BroadcastJob's Pod template: kruise's Pod spec defaults only */
    static const char *const with_pods[] = {"jobTemplate", "broadcastJobTemplate"};
    for (size_t i = 0; i < 2 && how->inject; i++) {
        json_t *t = set_template(templates, with_pods[i]);
        if (t)
            wh_k8s_default_pod_spec(
                wh_json_obj_ensure(
                    wh_json_obj_ensure(wh_json_obj_ensure(t, "spec"), "template"), "spec"),
                host_ports);
    }
    json_t *pull = set_template(templates, "imageListPullJobTemplate");
    if (pull) {
        json_t *pspec = wh_json_obj_ensure(pull, "spec");
        json_t *completion = wh_json_obj_ensure(pspec, "completionPolicy");
        /* the pull defaults all hang on an unset completion policy type */
        if (!*wh_json_str_or_empty(completion, "type")) {
            json_object_set_new(completion, "type", json_string("Always"));
            json_t *policy = wh_json_obj_ensure(pspec, "pullPolicy");
            set_default(policy, "timeoutSeconds", json_integer(600));
            set_default(policy, "backoffLimit", json_integer(3));
            if (!*wh_json_str_or_empty(pspec, "imagePullPolicy"))
                json_object_set_new(pspec, "imagePullPolicy", json_string("IfNotPresent"));
        }
    }
    if (!*wh_json_str_or_empty(spec, "concurrencyPolicy"))
        /* running image pull jobs side by side is useless */
        json_object_set_new(spec, "concurrencyPolicy", json_string(pull ? "Replace" : "Allow"));
    set_default(spec, "paused", json_false());
    set_default(spec, "successfulJobsHistoryLimit", json_integer(3));
    set_default(spec, "failedJobsHistoryLimit", json_integer(1));
}

static const struct wh_kobj_mutator mutator = {
    .kind = "AdvancedCronJob",
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

const struct wh_route wh_advancedcronjob_mutate_route = {
    .path = "/mutate-apps-kruise-io-advancedcronjob",
    .kind = WH_ROUTE_MUTATE,
    .admit = admit,
    .entries = {{.name = "madvancedcronjob.kb.io",
                 .group = WH_KRUISE_APPS,
                 .versions = {"v1alpha1", "v1beta1"},
                 .resource = "advancedcronjobs",
                 .operations = WH_WEBHOOK_CREATE | WH_WEBHOOK_UPDATE}},
};
