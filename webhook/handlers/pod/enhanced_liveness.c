#include "handlers/pod/enhanced_liveness.h"

#include <stdlib.h>
#include <string.h>

#include "config/features.h"
#include "gocompat/goenc.h"
#include "gocompat/gotype.h"
#include "k8s/kruise.h"
#include "k8s/ref.h"
#include "util/buf.h"
#include "util/cow.h"
#include "util/json.h"
#include "util/str.h"

static bool gate_on(const struct wh_config *cfg)
{
    return wh_feature_on(&cfg->features, WH_FEATURE_EnhancedLivenessProbe);
}

/* json.Marshal of upstream's []containerLivenessProbe{Name, LivenessProbe} for the containers
 * that have a probe: each probe as Go holds it once decoded (its struct's field order, empty
 * optional fields left out). Returns WH_OK with *count of them; errors from the buffer. */
static enum wh_err backup(struct wh_buf *b, const json_t *containers, size_t *count,
                          struct wh_errbuf *eb)
{
    const struct wh_gotype *probe_type = wh_gotype_lookup("v1", "Probe");
    enum wh_err rc = wh_buf_add(b, "[", 1);
    size_t i;
    const json_t *c;
    *count = 0;
    json_array_foreach(containers, i, c)
    {
        const json_t *probe = json_object_get(c, "livenessProbe");
        if (rc || !probe || json_is_null(probe))
            continue;
        json_t *typed = NULL;
        rc = wh_gotype_normalize(probe, probe_type, &typed, eb);
        const char *name = wh_json_str_or_empty(c, "name");
        if (!rc)
            rc = wh_buf_adds(b, *count ? ",{\"name\":" : "{\"name\":");
        if (!rc)
            rc = wh_goenc_append_string(b, name, strlen(name));
        if (!rc)
            rc = wh_buf_adds(b, ",\"livenessProbe\":");
        if (!rc)
            rc = wh_goenc_append(b, typed, false);
        if (!rc)
            rc = wh_buf_add(b, "}", 1);
        json_decref(typed);
        (*count)++;
    }
    if (!rc)
        rc = wh_buf_add(b, "]", 1);
    return rc;
}

static enum wh_err mutate(struct wh_pod_review *pr, struct wh_errbuf *eb)
{
    const json_t *pod = wh_pod_review_pod(pr);
    const char *asked = wh_json_annotation(pod, WH_KRUISE_ANN_USING_ENHANCED_LIVENESS);
    /* Pods that do not ask are not explained: most Pods */
    if (!asked)
        return WH_OK;
    if (!wh_ref_controller_in_group(pod, WH_KRUISE_APPS)) {
        wh_pod_review_explain(pr, NULL, false,
                              "the Pod's controller owner is not an OpenKruise workload");
        return WH_OK;
    }
    if (strcmp(asked, "true") != 0) {
        wh_pod_review_explain(pr, NULL, false, "annotation %s is \"%s\", not \"true\"",
                              WH_KRUISE_ANN_USING_ENHANCED_LIVENESS, asked);
        return WH_OK;
    }
    const json_t *containers = wh_json_path(pod, "spec", "containers", NULL);
    struct wh_buf b;
    wh_buf_init(&b, 16u << 20);
    size_t count = 0;
    enum wh_err rc = backup(&b, containers, &count, eb);
    if (rc || !count) {
        if (!rc)
            wh_pod_review_explain(pr, NULL, false, "no container has a livenessProbe");
        wh_buf_fini(&b);
        return rc;
    }
    json_t *list = wh_cow_array(wh_pod_review_own(pr, "spec", NULL), "containers", false);
    for (size_t i = 0; i < json_array_size(list); i++) {
        const json_t *probe = json_object_get(json_array_get(list, i), "livenessProbe");
        if (probe && !json_is_null(probe))
            json_object_del(wh_cow_elem(list, i), "livenessProbe");
    }
    json_t *ann = wh_pod_review_own(pr, "metadata", "annotations", NULL);
    json_object_set_new(ann, WH_KRUISE_ANN_CONTAINER_PROBE_CONTEXT, json_stringn(b.data, b.len));
    wh_pod_review_explain(pr, NULL, true,
                          "the livenessProbes of %zu container(s) moved to annotation %s, for "
                          "kruise-daemon",
                          count, WH_KRUISE_ANN_CONTAINER_PROBE_CONTEXT);
    wh_buf_fini(&b);
    return WH_OK;
}

const struct wh_pod_step wh_pod_enhanced_liveness_step = {
    .name = "enhancedlivenessprobe",
    .mutate_ops = WH_POD_CREATE,
    .enabled = gate_on,
    .mutate = mutate,
};
