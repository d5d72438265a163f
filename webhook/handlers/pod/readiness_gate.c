#include "handlers/pod/readiness_gate.h"

#include "config/features.h"
#include "k8s/kruise.h"
#include "k8s/ref.h"
#include "util/cow.h"
#include "util/json.h"
#include "util/str.h"

static enum wh_err mutate(struct wh_pod_review *pr, struct wh_errbuf *eb)
{
    (void)eb;
    const json_t *pod = wh_pod_review_pod(pr);
    bool gate = pr->ctx && pr->ctx->cfg &&
                wh_feature_on(&pr->ctx->cfg->features, WH_FEATURE_KruisePodReadinessGate);
    if (!gate && !wh_ref_controller_in_group(pod, WH_KRUISE_APPS))
        return WH_OK;
    const json_t *gates = wh_json_path(pod, "spec", "readinessGates", NULL);
    size_t i;
    const json_t *g;
    json_array_foreach(gates, i, g)
    {
        if (wh_str_eq(wh_json_str(g, "conditionType"), WH_KRUISE_POD_READY))
            return WH_OK;
    }
    json_t *list = wh_cow_array(wh_pod_review_own(pr, "spec", NULL), "readinessGates", true);
    json_array_append_new(list, json_pack("{s:s}", "conditionType", WH_KRUISE_POD_READY));
    wh_pod_review_explain(pr, NULL, true, "added readiness gate %s", WH_KRUISE_POD_READY);
    return WH_OK;
}

const struct wh_pod_step wh_pod_readiness_gate_step = {
    .name = "readiness-gate",
    /* upstream's injectPodReadinessGate checks the operation only */
    .mutate_ops = WH_POD_CREATE | WH_POD_CREATE_OTHER,
    .mutate = mutate,
};
