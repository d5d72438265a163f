/* PodUnavailableBudget's step of the Pod webhooks (spec pub.md 5.1): which DELETE, eviction and
 * UPDATE requests are examined, which Pod stands for them and as which operation, before the
 * budget check of check.c. On /mutate-pod the step is related.c's annotation. */
#include "handlers/pub/pub.h"

#include "config/features.h"
#include "handlers/pub/pub_int.h"
#include "util/json.h"

static bool gate(const struct wh_pod_review *pr, enum wh_feature f)
{
    return pr->ctx && pr->ctx->cfg && wh_feature_on(&pr->ctx->cfg->features, f);
}

/* What upstream's decoder says of a member it cannot decode into type. */
static enum wh_err undecodable(const json_t *v, const char *type, struct wh_errbuf *eb)
{
    if (!v || json_is_null(v))
        return wh_errbuf_set(eb, WH_ERR_INVALID, "there is no content to decode");
    return wh_errbuf_set(eb, WH_ERR_INVALID, "json: cannot unmarshal %s into Go value of type %s",
                         wh_json_go_type_name(v), type);
}

/* The request's options decode as type (DeleteOptions, UpdateOptions). */
static enum wh_err need_options(const struct wh_pod_review *pr, const char *type,
                                struct wh_errbuf *eb)
{
    const json_t *o = pr->req->options;
    return json_is_object(o) ? WH_OK : undecodable(o, type, eb);
}

/* A Pod without a related PUB is let through; otherwise the budget decides. */
static enum wh_err examine(struct wh_pod_review *pr, const json_t *pod, enum wh_pub_op op,
                           struct wh_errbuf *eb)
{
    if (!wh_pub_related_name(pod)) {
        wh_pub_count_unprotected(op);
        return WH_OK;
    }
    return wh_pub_check(pr, pod, op, eb);
}

static enum wh_err validate_update(struct wh_pod_review *pr, struct wh_errbuf *eb)
{
    const json_t *new_pod = pr->req->object, *old_pod = pr->req->old_object;
    if (!json_is_object(new_pod))
        return undecodable(new_pod, "v1.Pod", eb);
    if (!wh_pub_related_name(new_pod)) {
        wh_pub_count_unprotected(WH_PUB_OP_UPDATE);
        return WH_OK;
    }
    if (!json_is_object(old_pod))
        return undecodable(old_pod, "v1.Pod", eb);
    bool resize = wh_pub_can_resize(old_pod, new_pod);
    if (!wh_pub_unavailable_changed(old_pod, new_pod)) {
        wh_pub_count_unprotected(WH_PUB_OP_UPDATE);
        return WH_OK;
    }
    enum wh_err rc = need_options(pr, "v1.UpdateOptions", eb);
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
            return WH_OK;
        pod = pr->req->old_object;
        if (!json_is_object(pod))
            return undecodable(pod, "v1.Pod", eb);
        rc = need_options(pr, "v1.DeleteOptions", eb);
        return rc ? rc : examine(pr, pod, WH_PUB_OP_DELETE, eb);
    case WH_POD_EVICT:
        if (!gate(pr, WH_FEATURE_PodUnavailableBudgetDeleteGate))
            return WH_OK;
        if (!json_is_object(pr->eviction))
            return undecodable(pr->eviction, "policy.Eviction", eb);
        rc = wh_pod_review_evicted(pr, &pod, eb);
        return rc ? rc : examine(pr, pod, WH_PUB_OP_EVICT, eb);
    case WH_POD_UPDATE:
        if (!gate(pr, WH_FEATURE_PodUnavailableBudgetUpdateGate))
            return WH_OK;
        return validate_update(pr, eb);
    case WH_POD_CREATE:
        break;
    }
    return WH_OK;
}

const struct wh_pod_step wh_pub_pod_step = {
    .name = "pub",
    .mutate_ops = WH_POD_CREATE,
    .validate_ops = WH_POD_DELETE | WH_POD_EVICT | WH_POD_UPDATE,
    .side_effects = true,
    .enabled = wh_pub_gates_on,
    .setup = wh_pub_caches_setup,
    .mutate = wh_pub_mutate,
    .validate = validate,
};
