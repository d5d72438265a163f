/* PodUnavailableBudget's step of the Pod webhooks (spec pub.md 5.1): which DELETE, eviction and
 * UPDATE requests are examined, which Pod stands for them and as which operation, before the
 * budget check of check.c. On /mutate-pod the step is related.c's annotation. */
#include "handlers/pub/pub.h"

#include "config/features.h"
#include "gocompat/gotype.h"
#include "handlers/pub/pub_int.h"
#include "util/json.h"

static bool gate(const struct wh_pod_review *pr, enum wh_feature f)
{
    return pr->ctx && pr->ctx->cfg && wh_feature_on(&pr->ctx->cfg->features, f);
}

static enum wh_err gate_off(const struct wh_pod_review *pr, const char *gate_name)
{
    wh_pod_review_explain(pr, NULL, false, "feature gate %s is off: not checked", gate_name);
    return WH_OK;
}

/* Whether upstream's decoder takes v as the Go type kind of API path api: "there is no content
 * to decode" when it is missing, else Go's error for a value of the wrong type. */
static enum wh_err decodes(const json_t *v, const char *api, const char *kind, struct wh_errbuf *eb)
{
    if (!v || json_is_null(v))
        return wh_errbuf_set(eb, WH_ERR_INVALID, "there is no content to decode");
    return wh_gotype_check(v, wh_gotype_lookup(api, kind), eb);
}

/* The request's options decode as kind (DeleteOptions, UpdateOptions). */
static enum wh_err need_options(const struct wh_pod_review *pr, const char *kind,
                                struct wh_errbuf *eb)
{
    return decodes(pr->req->options, "meta.k8s.io/v1", kind, eb);
}

/* A Pod without a related PUB is let through; otherwise the budget decides. The callers have
 * decoded the Pod, as upstream does first: a malformed one is a 400 whether or not a PUB covers
 * it (an evicted Pod comes from the API server). */
static enum wh_err examine(struct wh_pod_review *pr, const json_t *pod, enum wh_pub_op op,
                           struct wh_errbuf *eb)
{
    if (!wh_pub_related_name(pod)) {
        wh_pod_review_explain(pr, NULL, false,
                              "no PodUnavailableBudget protects the Pod (it has no annotation "
                              "pub.kruise.io/related-pub): allowed");
        wh_pub_count_unprotected(op);
        return WH_OK;
    }
    return wh_pub_check(pr, pod, op, eb);
}

static enum wh_err validate_update(struct wh_pod_review *pr, struct wh_errbuf *eb)
{
    const json_t *new_pod = pr->req->object, *old_pod = pr->req->old_object;
    enum wh_err rc = decodes(new_pod, "v1", "Pod", eb);
    if (rc)
        return rc;
    if (!wh_pub_related_name(new_pod)) {
        wh_pub_count_unprotected(WH_PUB_OP_UPDATE);
        return WH_OK;
    }
    rc = decodes(old_pod, "v1", "Pod", eb);
    if (rc)
        return rc;
    bool resize = wh_pub_can_resize(old_pod, new_pod);
    if (!wh_pub_unavailable_changed(old_pod, new_pod)) {
        wh_pub_count_unprotected(WH_PUB_OP_UPDATE);
        return WH_OK;
    }
    rc = need_options(pr, "UpdateOptions", eb);
    if (rc)
        return rc;
    /* the Pod before the change is the one whose availability is at stake */
    return examine(pr, old_pod, resize ? WH_PUB_OP_RESIZE : WH_PUB_OP_UPDATE, eb);
}

static enum wh_err validate(struct wh_pod_review *pr, struct wh_errbuf *eb)
{
    enum wh_err rc = WH_OK;
    const json_t *pod = NULL;
    switch (pr->op) {
    case WH_POD_DELETE:
        if (!gate(pr, WH_FEATURE_PodUnavailableBudgetDeleteGate))
            return gate_off(pr, "PodUnavailableBudgetDeleteGate");
        /* upstream decodes the deleted Pod, then the DeleteOptions */
        rc = decodes(pr->req->old_object, "v1", "Pod", eb);
        if (!rc)
            rc = need_options(pr, "DeleteOptions", eb);
        return rc ? rc : examine(pr, pr->req->old_object, WH_PUB_OP_DELETE, eb);
    case WH_POD_EVICT:
        if (!gate(pr, WH_FEATURE_PodUnavailableBudgetDeleteGate))
            return gate_off(pr, "PodUnavailableBudgetDeleteGate");
        rc = decodes(pr->eviction, "policy/v1", "Eviction", eb);
        if (!rc)
            rc = wh_pod_review_evicted(pr, &pod, eb);
        return rc ? rc : examine(pr, pod, WH_PUB_OP_EVICT, eb);
    case WH_POD_UPDATE:
        if (!gate(pr, WH_FEATURE_PodUnavailableBudgetUpdateGate))
            return gate_off(pr, "PodUnavailableBudgetUpdateGate");
        return validate_update(pr, eb);
    case WH_POD_CREATE:
    case WH_POD_CREATE_OTHER:
        break;
    }
    return WH_OK;
}

enum wh_err wh_pub_setup(struct wh_cluster *cl, const struct wh_config *cfg, struct wh_errbuf *eb)
{
    enum wh_err rc = wh_pub_caches_setup(cl, cfg, eb);
    if (!rc)
        wh_pub_metrics_setup();
    return rc;
}

const struct wh_pod_step wh_pub_pod_step = {
    .name = "pub",
    .mutate_ops = WH_POD_CREATE,
    .validate_ops = WH_POD_DELETE | WH_POD_EVICT | WH_POD_UPDATE,
    .side_effects = true,
    .enabled = wh_pub_gates_on,
    .setup = wh_pub_setup,
    .mutate = wh_pub_mutate,
    .validate = validate,
};
