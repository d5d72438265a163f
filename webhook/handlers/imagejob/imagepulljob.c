/* /mutate-apps-kruise-io-imagepulljob and /validate-apps-kruise-io-imagepulljob: the ImagePullJob
 * webhooks (pkg/webhook/imagepulljob), at v1alpha1 and v1beta1. */
#include <stdlib.h>
#include <string.h>

#include "handlers/handler.h"
#include "handlers/imagejob/template.h"
#include "handlers/kruise_object.h"
#include "k8s/kruise.h"
#include "util/json.h"
#include "util/jsoneq.h"

#define KIND "ImagePullJob"

/* SetDefaultsImagePullJob / SetDefaultsImagePullJobV1beta1: the template's defaults, the pull
 * policy IfNotPresent, and on creation of a v1alpha1 job the finalizer that protects it. */
static void defaults(json_t *obj, const struct wh_kobj_defaulting *how)
{
    json_t *spec = wh_json_obj_ensure(obj, "spec");
    wh_imagejob_template_defaults(spec);
    if (!json_string_length(json_object_get(spec, "imagePullPolicy")))
        json_object_set_new(spec, "imagePullPolicy", json_string("IfNotPresent"));
    if (how->v != WH_KOBJ_V1ALPHA1 || !how->create)
        return;
    /* controllerutil.AddFinalizer: appended unless already there */
    json_t *meta = wh_json_obj_ensure(obj, "metadata");
    json_t *fin = json_object_get(meta, "finalizers");
    size_t i;
    const json_t *f;
    json_array_foreach(fin, i, f)
    {
        if (json_is_string(f) && strcmp(json_string_value(f), WH_KRUISE_FINALIZER_PROTECTION) == 0)
            return;
    }
    if (!json_is_array(fin)) {
        fin = json_array();
        json_object_set_new(meta, "finalizers", fin);
    }
    json_array_append_new(fin, json_string(WH_KRUISE_FINALIZER_PROTECTION));
}

static const struct wh_kobj_mutator mutator = {
    .kind = KIND,
    .defaults = defaults,
    .shared_defaults = wh_imagejob_shared_defaults,
    .go_value = true,
};

static enum wh_err mutate(const struct wh_handler_ctx *ctx, const struct wh_admission_request *req,
                          struct wh_admission_response *resp, struct wh_errbuf *eb)
{
    return wh_kobj_mutate(&mutator, ctx, req, resp, eb);
}

/* validate / validateV1beta1: whether a rule fails, the first one's message in why. */
static bool check(const json_t *obj, struct wh_buf *why)
{
    const json_t *spec = json_object_get(obj, "spec");
    if (wh_imagejob_check_selectors(spec, why))
        return true;
    const json_t *image = json_object_get(spec, "image");
    if (!json_string_length(image)) {
        wh_buf_put(why, "image can not be empty");
        return true;
    }
    return wh_imagejob_check_image(image, why) ||
           wh_imagejob_check_parallelism_completion(spec, true, why);
}

static enum wh_err validate(const struct wh_handler_ctx *ctx, const struct wh_admission_request *req,
                            struct wh_admission_response *resp, struct wh_errbuf *eb)
{
    (void)eb;
    json_t *obj = NULL, *old = NULL;
    if (WH_KOBJ_GATE_OFF(resp, ctx->cfg, KruiseDaemon) ||
        WH_KOBJ_GATE_OFF(resp, ctx->cfg, ImagePullJobGate))
        return WH_OK;
    enum wh_kobj_version v;
    if (!wh_kobj_version_or_deny(req, resp, &v))
        return WH_OK;
    if (!wh_kobj_decode_or_deny(req->object, KIND, v, &obj, resp))
        goto out;
    if (strcmp(req->operation, "UPDATE") == 0) {
        if (!wh_kobj_decode_or_deny(req->old_object, KIND, v, &old, resp))
            goto out;
        /* reflect.DeepEqual: a nil list and an empty one differ */
        const json_t *now = json_object_get(json_object_get(obj, "spec"), "pullSecrets");
        const json_t *was = json_object_get(json_object_get(old, "spec"), "pullSecrets");
        if (!wh_json_equal(now, was, WH_JSON_EQ_EXACT)) {
            wh_admission_deny(resp, 403, "spec.pullSecrets is immutable");
            goto out;
        }
    }
    struct wh_buf why;
    wh_buf_init(&why, WH_IMAGEJOB_MESSAGE_CAP);
    if (check(obj, &why))
        wh_admission_deny_text(resp, 400, why.data, why.len);
    else
        wh_admission_allow(resp, "allowed");
    wh_buf_fini(&why);
out:
    json_decref(obj);
    json_decref(old);
    return WH_OK;
}

const struct wh_route wh_imagepulljob_mutate_route = {
    .path = "/mutate-apps-kruise-io-imagepulljob",
    .kind = WH_ROUTE_MUTATE,
    .admit = mutate,
    .entries = {{.name = "mimagepulljob-v1beta1.kb.io",
                 .group = WH_KRUISE_APPS,
                 .versions = {"v1alpha1", "v1beta1"},
                 .resource = "imagepulljobs",
                 .operations = WH_WEBHOOK_CREATE | WH_WEBHOOK_UPDATE}},
};

const struct wh_route wh_imagepulljob_validate_route = {
    .path = "/validate-apps-kruise-io-imagepulljob",
    .kind = WH_ROUTE_VALIDATE,
    .admit = validate,
    .entries = {{.name = "vimagepulljob-v1beta1.kb.io",
                 .group = WH_KRUISE_APPS,
                 .versions = {"v1alpha1", "v1beta1"},
                 .resource = "imagepulljobs",
                 .operations = WH_WEBHOOK_CREATE | WH_WEBHOOK_UPDATE}},
};
