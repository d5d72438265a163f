/* CloneSet, apps.kruise.io (conversion.md section 6). The update strategy is restructured:
 * v1alpha1's flat updateStrategy names the pod update method in `type`; v1beta1 has
 * `type` RollingUpdate/OnDelete and a rollingUpdate object holding the method
 * (podUpdatePolicy) and the rolling parameters. The three image pre-download settings are
 * annotations in v1alpha1 and in-place strategy fields in v1beta1. */
#include "conversion/rows_int.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "k8s/kruise.h"

#define US "spec.updateStrategy"
#define RU "spec.updateStrategy.rollingUpdate"

static bool is_policy(const char *s)
{
    return s && (strcmp(s, "ReCreate") == 0 || strcmp(s, "InPlaceIfPossible") == 0 ||
                 strcmp(s, "InPlaceOnly") == 0);
}

/* Going up, only a non-OnDelete type gets a rollingUpdate (6.1); going down the rolling
 * fields come from rollingUpdate when it is there, so nothing needs deciding. */
static bool rolling(enum wh_conv_dir dir, const json_t *src)
{
    if (dir == WH_CONV_DOWN)
        return true;
    const char *t = wh_conv_get_str(src, "spec", "updateStrategy", "type", NULL);
    return !t || strcmp(t, "OnDelete") != 0;
}

/* type <-> type + rollingUpdate.podUpdatePolicy (6.1). */
static enum wh_err strategy(struct wh_conv_ctx *c, enum wh_conv_dir dir, const json_t *src,
                            json_t *dst)
{
    (void)c;
    const char *t = wh_conv_get_str(src, "spec", "updateStrategy", "type", NULL);
    if (dir == WH_CONV_UP) {
        if (!rolling(dir, src)) {
            wh_conv_set_new(dst, json_string("OnDelete"), "spec", "updateStrategy", "type", NULL);
            return WH_OK;
        }
        wh_conv_set_new(dst, json_string("RollingUpdate"), "spec", "updateStrategy", "type", NULL);
        wh_conv_set_new(dst, json_string(is_policy(t) ? t : "ReCreate"), "spec", "updateStrategy",
                        "rollingUpdate", "podUpdatePolicy", NULL);
        return WH_OK;
    }
    const char *alpha = "ReCreate";
    if (t && strcmp(t, "OnDelete") == 0) {
        alpha = "OnDelete";
    } else {
        const char *p = wh_conv_get_str(src, "spec", "updateStrategy", "rollingUpdate",
                                        "podUpdatePolicy", NULL);
        if (wh_conv_get(src, "spec", "updateStrategy", "rollingUpdate", NULL) && is_policy(p))
            alpha = p;
    }
    wh_conv_set_new(dst, json_string(alpha), "spec", "updateStrategy", "type", NULL);
    return WH_OK;
}

static json_t *decimal(const json_t *v)
{
    char buf[32];
    snprintf(buf, sizeof(buf), "%" JSON_INTEGER_FORMAT, json_integer_value(v));
    return json_string(buf);
}

/* inPlaceUpdateStrategy and the pre-download annotations (6.3). */
static enum wh_err inplace(struct wh_conv_ctx *c, enum wh_conv_dir dir, const json_t *src,
                           json_t *dst)
{
    (void)c;
    /* dst still holds the source version's field at its source place; it never survives */
    if (dir == WH_CONV_UP) {
        wh_conv_del(dst, "spec", "updateStrategy", "inPlaceUpdateStrategy", NULL);
        if (!rolling(dir, src))
            return WH_OK;
        const json_t *s = wh_conv_get(src, "spec", "updateStrategy", "inPlaceUpdateStrategy", NULL);
        const char *par =
            wh_conv_meta_get(src, WH_META_ANNOTATION, WH_KRUISE_ANN_IMAGE_PREDOWNLOAD_PARALLELISM);
        const char *tmo =
            wh_conv_meta_get(src, WH_META_ANNOTATION, WH_KRUISE_ANN_IMAGE_PREDOWNLOAD_TIMEOUT);
        const char *min =
            wh_conv_meta_get(src, WH_META_ANNOTATION, WH_KRUISE_ANN_IMAGE_PREDOWNLOAD_MIN_READY);
        bool annotated = (par && *par) || (tmo && *tmo) || (min && *min);
        if (!s && !annotated)
            return WH_OK;
        json_t *b = json_object();
        const json_t *grace = wh_conv_get(s, "gracePeriodSeconds", NULL);
        if (json_integer_value(grace) != 0)
            json_object_set(b, "gracePeriodSeconds", (json_t *)(uintptr_t)grace);
        long long n;
        if (par && *par)
            json_object_set_new(b, "imagePreDownloadParallelism",
                                wh_conv_parse_int(par, INT32_MIN, INT32_MAX, &n)
                                    ? json_integer(n)
                                    : json_string(par));
        if (tmo && *tmo && wh_conv_parse_int(tmo, INT32_MIN, INT32_MAX, &n))
            json_object_set_new(b, "imagePreDownloadTimeoutSeconds", json_integer(n));
        if (min && *min && wh_conv_parse_int(min, INT32_MIN, INT32_MAX, &n))
            json_object_set_new(b, "imagePreDownloadMinUpdatedReadyPods", json_integer(n));
        wh_conv_set_new(dst, b, "spec", "updateStrategy", "rollingUpdate", "inPlaceUpdateStrategy",
                        NULL);
        return WH_OK;
    }
    wh_conv_del(dst, "spec", "updateStrategy", "inPlaceUpdateStrategy", NULL);
    const json_t *b =
        wh_conv_get(src, "spec", "updateStrategy", "rollingUpdate", "inPlaceUpdateStrategy", NULL);
    if (!b)
        return WH_OK;
    const json_t *grace = wh_conv_get(b, "gracePeriodSeconds", NULL);
    const json_t *par = wh_conv_get(b, "imagePreDownloadParallelism", NULL);
    const json_t *tmo = wh_conv_get(b, "imagePreDownloadTimeoutSeconds", NULL);
    const json_t *min = wh_conv_get(b, "imagePreDownloadMinUpdatedReadyPods", NULL);
    if (json_integer_value(grace) == 0 && !par && !tmo && !min)
        return WH_OK;
    json_t *a = json_object();
    if (json_integer_value(grace) != 0)
        json_object_set(a, "gracePeriodSeconds", (json_t *)(uintptr_t)grace);
    wh_conv_set_new(dst, a, "spec", "updateStrategy", "inPlaceUpdateStrategy", NULL);
    if (par)
        wh_conv_set_new(
            dst, json_is_string(par) ? json_string(json_string_value(par)) : decimal(par),
            "metadata", "annotations", WH_KRUISE_ANN_IMAGE_PREDOWNLOAD_PARALLELISM, NULL);
    if (tmo)
        wh_conv_set_new(dst, decimal(tmo), "metadata", "annotations",
                        WH_KRUISE_ANN_IMAGE_PREDOWNLOAD_TIMEOUT, NULL);
    if (min)
        wh_conv_set_new(dst, decimal(min), "metadata", "annotations",
                        WH_KRUISE_ANN_IMAGE_PREDOWNLOAD_MIN_READY, NULL);
    return WH_OK;
}

static const struct wh_conv_row rows[] = {
    /* scale strategy (6.2) */
    INVERT("spec.scaleStrategy.disablePVCReuse", "spec.scaleStrategy.enablePVCReuse"),
    LABEL_TRUE(WH_KRUISE_LABEL_CLONESET_SCALING_EXCLUDE_PREPARING_DELETE,
               "spec.scaleStrategy.excludePreparingDelete"),

    /* update strategy (6.1): rollingUpdate is rebuilt from scratch going up */
    BETA_ONLY(RU),
    DERIVED(US ".type", NULL),
    CUSTOM(NULL, US ".type", strategy),
    DERIVED(NULL, RU ".podUpdatePolicy"),
    MOVE_IF(rolling, US ".partition", RU ".partition"),
    MOVE_IF(rolling, US ".maxUnavailable", RU ".maxUnavailable"),
    MOVE_IF(rolling, US ".maxSurge", RU ".maxSurge"),
    MOVE_IF(rolling, US ".paused", RU ".paused"),
    MOVE_IF(rolling, US ".priorityStrategy", RU ".priorityStrategy"),
    MOVE_IF(rolling, US ".scatterStrategy", RU ".scatterStrategy"),

    /* in-place strategy (6.3): gracePeriodSeconds moves; the pre-download settings travel
     * between v1alpha1 annotations and v1beta1 fields */
    CUSTOM(US ".inPlaceUpdateStrategy", RU ".inPlaceUpdateStrategy", inplace),
    ANNOTATION_DERIVED(WH_KRUISE_ANN_IMAGE_PREDOWNLOAD_PARALLELISM, "5|50%|+7|abc"),
    ANNOTATION_DERIVED(WH_KRUISE_ANN_IMAGE_PREDOWNLOAD_TIMEOUT, "600|+30|soon"),
    ANNOTATION_DERIVED(WH_KRUISE_ANN_IMAGE_PREDOWNLOAD_MIN_READY, "2|-1|x"),
};

const struct wh_conv_kind wh_conv_cloneset = {WH_KRUISE_APPS, "CloneSet", WH_ROWS(rows)};
