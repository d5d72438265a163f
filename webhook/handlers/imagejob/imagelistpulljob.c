/* /mutate-apps-kruise-io-imagelistpulljob and /validate-apps-kruise-io-imagelistpulljob: the
 * ImageListPullJob webhooks (pkg/webhook/imagelistpulljob), at v1alpha1 and v1beta1. */
#include <stdlib.h>

#include "handlers/handler.h"
#include "handlers/imagejob/template.h"
#include "handlers/kruise_object.h"
#include "k8s/kruise.h"
#include "util/json.h"
#include "util/mem.h"

#define KIND "ImageListPullJob"
#define MAX_IMAGES 255

/* SetDefaultsImageListPullJob(V1beta1): the template's defaults only. */
static void defaults(json_t *obj, const struct wh_admission_request *req)
{
    (void)req;
    wh_imagejob_template_defaults(wh_json_obj_ensure(obj, "spec"));
}

static enum wh_err mutate(const struct wh_handler_ctx *ctx, const struct wh_admission_request *req,
                          struct wh_admission_response *resp, struct wh_errbuf *eb)
{
    (void)ctx;
    return wh_kobj_mutate_in_version(req, resp, KIND, defaults, eb);
}

/* validate / validateV1beta1: the first rule that fails, or NULL. */
static char *check(const json_t *obj)
{
    const json_t *spec = json_object_get(obj, "spec");
    char *err = wh_imagejob_check_selectors(spec);
    if (err)
        return err;
    const json_t *images = json_object_get(spec, "images");
    if (!json_array_size(images))
        return wh_xstrdup("image can not be empty");
    if (wh_json_strings_repeat(images))
        return wh_xstrdup("images cannot have duplicate values");
    if (json_array_size(images) > MAX_IMAGES)
        return wh_xstrdup("the maximum number of images cannot > 255");
    size_t i;
    const json_t *image;
    json_array_foreach(images, i, image)
    {
        err = wh_imagejob_check_image(image);
        if (err)
            return err;
    }
    return wh_imagejob_check_parallelism_completion(spec, false);
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
    char *err = check(obj);
    if (err)
        wh_admission_deny(resp, 400, "%s", err);
    else
        wh_admission_allow(resp, "allowed");
    free(err);
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
