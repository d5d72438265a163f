/* /validate-apps-kruise-io-broadcastjob: upstream's BroadcastJob validation
 * (pkg/webhook/broadcastjob/validating), v1alpha1 and v1beta1 (converted up), CREATE and UPDATE
 * alike: the object's metadata with the job name rule, the completion policy, the Pod template
 * (defaulted first, as convertor.ConvertPodTemplateSpec does to the object itself, so the
 * restartPolicy rule sees the defaulted value), its labels. Errors are answered 500, as
 * upstream's admission.Errored(http.StatusInternalServerError, ...). */
#include <stdlib.h>
#include <string.h>

#include "config/features.h"
#include "handlers/jobs/jobs_int.h"
#include "handlers/kruise_object.h"
#include "k8s/defaults.h"
#include "k8s/kruise.h"
#include "k8s/podvalidation.h"
#include "util/json.h"
#include "util/mem.h"

#define JOB_NAME_LABEL "broadcastjob-name"
#define CONTROLLER_UID_LABEL "broadcastjob-controller-uid"

static void name_rule(const char *name, bool prefix, struct wh_vmsgs *out)
{
    (void)prefix;
    wh_jobs_name("BroadcastJob", name, out);
}

static void completion_policy(struct wh_field_errors *l, const json_t *spec)
{
    const json_t *policy = wh_json_obj(spec, "completionPolicy");
    if (strcmp(wh_json_str_or_empty(policy, "type"), "Never") != 0)
        return;
    static const char *const fields[] = {"ttlSecondsAfterFinished", "activeDeadlineSeconds"};
    for (size_t i = 0; i < 2; i++) {
        const json_t *v = json_object_get(policy, fields[i]);
        if (!json_is_integer(v))
            continue;
        char path[96], detail[96];
        snprintf(path, sizeof(path), "spec.completionPolicy.%s", fields[i]);
        snprintf(detail, sizeof(detail), "%s can just work with Always CompletionPolicyType",
                 fields[i]);
        wh_ferr_invalid_int(l, path, json_integer_value(v), detail);
    }
}

/* validateBroadcastJobSpec's template part; template_ (private) is defaulted in place. */
static void template_rules(struct wh_field_errors *l, json_t *template_,
                           const struct wh_config *cfg)
{
    json_t *pod_spec = wh_json_obj_ensure(template_, "spec");
    wh_k8s_default_pod_spec_for_validation(
        pod_spec,
        wh_feature_on(&cfg->features, WH_FEATURE_DefaultHostNetworkHostPortsInPodTemplates));
    const char *restart = wh_json_str_or_empty(pod_spec, "restartPolicy");
    if (strcmp(restart, "OnFailure") != 0 && strcmp(restart, "Never") != 0)
        wh_ferr_invalid_str(l, "spec.template.spec.restartPolicy", restart,
                            "pod restartPolicy can only be Never or OnFailure");
    const json_t *labels = wh_json_obj(wh_json_obj(template_, "metadata"), "labels");
    if (labels && (*wh_json_str_or_empty(labels, JOB_NAME_LABEL) ||
                   *wh_json_str_or_empty(labels, CONTROLLER_UID_LABEL))) {
        char *rendered = wh_gosyntax_string_map(labels);
        wh_ferr_invalid_raw(l, "spec.template.metadata.labels", rendered,
                            "\"" JOB_NAME_LABEL "\" and \"" CONTROLLER_UID_LABEL
                            "\" are not allowed to preset in pod labels");
        free(rendered);
    }
    wh_validate_pod_template_spec(l, template_, "spec.template");
}

static enum wh_err admit(const struct wh_handler_ctx *ctx, const struct wh_admission_request *req,
                         struct wh_admission_response *resp, struct wh_errbuf *eb)
{
    json_t *obj = NULL, *template_ = NULL;
    char *msg = NULL;
    (void)eb;
    if (wh_kobj_decode(req->object, "BroadcastJob", wh_kobj_version_of(req), true, &obj, &msg)) {
        wh_admission_deny(resp, 400, "%s", msg ? msg : "");
        free(msg);
        return WH_OK;
    }
    struct wh_field_errors errs;
    wh_ferrs_init(&errs);
    wh_validate_object_meta(&errs, wh_json_obj(obj, "metadata"), true, name_rule, "metadata");
    const json_t *spec = wh_json_obj(obj, "spec");
    completion_policy(&errs, spec);
    const json_t *t = wh_json_obj(spec, "template");
    template_ = t ? wh_json_copy(t) : json_object();
    template_rules(&errs, template_, ctx->cfg);
    wh_jobs_answer(resp, &errs, 500, "allowed to be admitted");
    wh_ferrs_fini(&errs);
    json_decref(template_);
    json_decref(obj);
    return WH_OK;
}

const struct wh_route wh_broadcastjob_validate_route = {
    .path = "/validate-apps-kruise-io-broadcastjob",
    .kind = WH_ROUTE_VALIDATE,
    .admit = admit,
    .entries = {{.name = "vbroadcastjob.kb.io",
                 .group = WH_KRUISE_APPS,
                 .versions = {"v1alpha1", "v1beta1"},
                 .resource = "broadcastjobs",
                 .operations = WH_WEBHOOK_CREATE | WH_WEBHOOK_UPDATE}},
};
