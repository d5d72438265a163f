/* /mutate-apps-kruise-io-imagelistpulljob and /validate-apps-kruise-io-imagelistpulljob: the
 * ImageListPullJob webhooks (pkg/webhook/imagelistpulljob), at v1alpha1 and v1beta1. */
#include "handlers/handler.h"
#include "handlers/imagejob/template.h"
#include "handlers/kruise_object.h"
#include "k8s/kruise.h"
#include "util/json.h"

#define KIND "ImageListPullJob"
#define MAX_IMAGES 255

/* SetDefaultsImageListPullJob(V1beta1): the template's defaults only. */
static void defaults(json_t *obj, const struct wh_kobj_defaulting *how)
{
    (void)how;
    wh_imagejob_template_defaults(wh_json_obj_ensure(obj, "spec"));
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
    const json_t *images = json_object_get(spec, "images");
    const char *rule = !json_array_size(images)              ? "image can not be empty"
                       : wh_json_strings_repeat(images)      ? "images cannot have duplicate values"
                       : json_array_size(images) > MAX_IMAGES ? "the maximum number of images cannot > 255"
                                                              : NULL;
    if (rule) {
        wh_buf_put(why, "%s", rule);
        return true;
    }
    size_t i;
    const json_t *image;
    json_array_foreach(images, i, image)
    {
        if (wh_imagejob_check_image(image, why))
            return true;
    }
    return wh_imagejob_check_parallelism_completion(spec, false, why);
}

static enum wh_err validate(const struct wh_handler_ctx *ctx, const struct wh_admission_request *req,
                            struct wh_admission_response *resp, struct wh_errbuf *eb)
{
    (void)eb;
    json_t *obj = NULL;
    if (WH_KOBJ_GATE_OFF(resp, ctx->cfg, KruiseDaemon) ||
        WH_KOBJ_GATE_OFF(resp, ctx->cfg, ImagePullJobGate))
        return WH_OK;
    enum wh_kobj_version v;
    if (!wh_kobj_version_or_deny(req, resp, &v))
        return WH_OK;
    if (!wh_kobj_decode_or_deny(req->object, KIND, v, &obj, resp))
        return WH_OK;
    struct wh_buf why;
    wh_buf_init(&why, WH_IMAGEJOB_MESSAGE_CAP);
    if (check(obj, &why))
        wh_admission_deny_text(resp, 400, why.data, why.len);
    else
        wh_admission_allow(resp, "allowed");
    wh_buf_fini(&why);
    json_decref(obj);
    return WH_OK;
}

const struct wh_route wh_imagelistpulljob_mutate_route = {
    .path = "/mutate-apps-kruise-io-imagelistpulljob",
    .kind = WH_ROUTE_MUTATE,
    .admit = mutate,
    .entries = {{.name = "mimagelistpulljob-v1beta1.kb.io",
                 .group = WH_KRUISE_APPS,
                 .versions = {"v1alpha1", "v1beta1"},
                 .resource = "imagelistpulljobs",
                 .operations = WH_WEBHOOK_CREATE | WH_WEBHOOK_UPDATE}},
};

const struct wh_route wh_imagelistpulljob_validate_route = {
    .path = "/validate-apps-kruise-io-imagelistpulljob",
    .kind = WH_ROUTE_VALIDATE,
    .admit = validate,
    .entries = {{.name = "vimagelistpulljob-v1beta1.kb.io",
                 .group = WH_KRUISE_APPS,
                 .versions = {"v1alpha1", "v1beta1"},
                 .resource = "imagelistpulljobs",
                 .operations = WH_WEBHOOK_CREATE | WH_WEBHOOK_UPDATE}},
};
