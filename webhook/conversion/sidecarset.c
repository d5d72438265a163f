/* SidecarSet, apps.kruise.io, cluster-scoped (conversion.md section 7). v1alpha1's
 * spec.namespace becomes a namespaceSelector going up (and is never reconstructed), and the
 * custom-version label moves into v1beta1's spec.customVersion and back. */
#include "conversion/rows_int.h"

#include "conversion/convert.h"
#include "k8s/kruise.h"
#include "k8s/selector.h"

json_t *wh_convert_sidecarset_namespace(const json_t *spec)
{
    const char *ns = wh_conv_get_str(spec, "namespace", NULL);
    if (!ns || !*ns)
        return NULL;
    return json_pack("{s:{s:s}}", "matchLabels", WH_NAMESPACE_NAME_LABEL, ns);
}

/* 7.1: going up, the namespace becomes the selector; going down nothing brings it back. */
static enum wh_err namespace_to_selector(struct wh_conv_ctx *c, enum wh_conv_dir dir,
                                         const json_t *src, json_t *dst)
{
    (void)c;
    wh_conv_del(dst, "spec", "namespace", NULL);
    json_t *sel =
        dir == WH_CONV_UP ? wh_convert_sidecarset_namespace(wh_conv_get(src, "spec", NULL)) : NULL;
    if (sel)
        wh_conv_set_new(dst, sel, "spec", "namespaceSelector", NULL);
    return WH_OK;
}

static const struct wh_conv_row rows[] = {
    CUSTOM("spec.namespace", NULL, namespace_to_selector),
    LABEL_MOVE(WH_KRUISE_LABEL_SIDECARSET_CUSTOM_VERSION, "spec.customVersion"),
};

const struct wh_conv_kind wh_conv_sidecarset = {WH_KRUISE_APPS, "SidecarSet", WH_ROWS(rows)};
