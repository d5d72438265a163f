#include "handlers/workloadspread/pod.h"

#include "config/features.h"
#include "util/json.h"

/* Only the first action is built so far: on CREATE the options are decoded as CreateOptions
 * before anything else, so a review without options fails the whole request (spec
 * workloadspread.md 4.1 item 4, sidecarset.md 11.14). */
static enum wh_err mutate(struct wh_pod_review *pr, struct wh_errbuf *eb)
{
    const json_t *options = pr->req->options;
    if (!options)
        return wh_errbuf_set(eb, WH_ERR_INVALID, "there is no content to decode");
    if (!json_is_object(options))
        return wh_errbuf_set(eb, WH_ERR_INVALID,
                             "json: cannot unmarshal %s into Go value of type v1.CreateOptions",
                             wh_json_go_type_name(options));
    return WH_OK;
}

static bool enabled(const struct wh_config *cfg)
{
    return wh_feature_on(&cfg->features, WH_FEATURE_WorkloadSpread);
}

const struct wh_pod_step wh_workloadspread_pod_step = {
    .name = "workloadspread",
    .mutate_ops = WH_POD_CREATE,
    .side_effects = true,
    .enabled = enabled,
    .mutate = mutate,
};
