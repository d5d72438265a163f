/* The budget check (spec pub.md 5.3): the Pod and PUB conditions that let a request through
 * without touching the budget, then the decision to spend one unit, taken inside the status
 * write-back so that it is taken again on the PUB as it is after every conflict.
 *
 * Departures from upstream, on purpose:
 *  - conflicts are retried until the request's deadline (upstream: 4 attempts 500 ms apart, then
 *    the conflict's text); a request whose budget could not be recorded by then is denied with
 *    a message saying so;
 *  - the decision also looks again at whether the Pod is already recorded in the PUB as it is
 *    now, so that the same Pod admitted by another replica meanwhile is not counted twice;
 *  - a dry run never writes (upstream writes on dry-run evictions through a decoding bug; see
 *    spec 5.2's note). */
#include "handlers/pub/pub_int.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "config/features.h"
#include "gocompat/gotime.h"
#include "handlers/warnings.h"
#include "k8s/kruise.h"
#include "k8s/selector.h"
#include "log/log.h"
#include "util/json.h"
#include "util/str.h"

/* --- the PUB's settings ----------------------------------------------------------------------- */

/* The operations the PUB protects (isNeedPubProtection). */
static unsigned protected_ops(const json_t *pub, const struct wh_config *cfg)
{
    unsigned ops = 0;
    const json_t *list = wh_json_path(pub, "spec", "protectOperations", NULL);
    bool listed = json_array_size(list) > 0;
    size_t i;
    const json_t *e;
    json_array_foreach(list, i, e)
    {
        const char *s = json_string_value(e);
        ops |= s ? (unsigned)wh_pub_op_parse(s, strlen(s)) : 0u;
    }
    /* the v1alpha1 annotation, split on commas; items are neither trimmed nor checked here */
    const char *ann = listed ? NULL : wh_json_annotation(pub, WH_KRUISE_ANN_PUB_OPERATIONS);
    for (const char *p = ann && *ann ? ann : NULL; p;) {
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        listed |= n > 0;
        ops |= (unsigned)wh_pub_op_parse(p, n);
        p = comma ? comma + 1 : NULL;
    }
    if (!listed)
        ops = WH_PUB_OP_DELETE | WH_PUB_OP_UPDATE | WH_PUB_OP_EVICT;
    /* without in-place vertical scaling a resize is an update */
    if (!wh_feature_on(&cfg->features, WH_FEATURE_InPlacePodVerticalScaling) &&
        (ops & WH_PUB_OP_UPDATE))
        ops |= WH_PUB_OP_RESIZE;
    return ops;
}

static bool recorded(const json_t *pub, const char *pod)
{
    const json_t *st = wh_json_obj(pub, "status");
    return json_object_get(wh_json_obj(st, "disruptedPods"), pod) ||
           json_object_get(wh_json_obj(st, "unavailablePods"), pod);
}

/* spec.ignoredPodSelector exempts the Pod: WH_OK with *ignored, or WH_ERR_INVALID when the
 * selector cannot be built (upstream answers that with a 400). */
static enum wh_err ignored_by(const json_t *pub, const json_t *pod, bool *ignored,
                              struct wh_errbuf *eb)
{
    *ignored = false;
    const json_t *sel = wh_json_path(pub, "spec", "ignoredPodSelector", NULL);
    if (!sel)
        return WH_OK;
    struct wh_selector *s = wh_selector_new(sel);
    enum wh_err rc = WH_OK;
    if (wh_selector_state(s) == WH_SELECTOR_INVALID)
        rc = wh_errbuf_set(eb, WH_ERR_INVALID, "%s", wh_selector_error(s));
    else if (wh_selector_state(s) == WH_SELECTOR_REQUIREMENTS)
        *ignored = wh_selector_matches(s, wh_json_path(pod, "metadata", "labels", NULL));
    wh_selector_free(s);
    return rc;
}

/* --- the decision inside the write ------------------------------------------------------------ */

struct decision {
    const char *pod;
    const char *pub;
    enum wh_pub_op op;
    char now[WH_GOTIME_MAX];
    enum { SPEND, ALREADY, REFUSE } verdict;
    char why[160];
    /* the status the verdict was taken on, to say what would change it */
    json_int_t total, desired, allowed;
    size_t recorded;
    char pending[160]; /* the first recorded Pods' names */
};

/* Notes the status of PUB the decision looks at (its budget, and what is recorded). */
static void note_status(struct decision *d, const json_t *pub)
{
    const json_t *st = wh_json_obj(pub, "status");
    d->total = json_integer_value(json_object_get(st, "totalReplicas"));
    d->desired = json_integer_value(json_object_get(st, "desiredAvailable"));
    d->allowed = json_integer_value(json_object_get(st, "unavailableAllowed"));
    d->recorded = 0;
    d->pending[0] = '\0';
    size_t used = 0;
    static const char *const maps[] = {"disruptedPods", "unavailablePods"};
    for (int m = 0; m < 2; m++) {
        const char *name;
        const json_t *v;
        json_object_foreach(wh_json_obj(st, maps[m]), name, v)
        {
            d->recorded++;
            int n = used < sizeof(d->pending)
                        ? snprintf(d->pending + used, sizeof(d->pending) - used, "%s%s",
                                   used ? ", " : "", name)
                        : 0;
            used += n > 0 ? (size_t)n : 0;
        }
    }
}

/* How far the budget is spent: "2 of 5 Pods are unavailable or being disrupted; the budget
 * allows 2" (its status: totalReplicas minus desiredAvailable is what may be unavailable, and
 * unavailableAllowed what is left of it). */
static void budget_text(const struct decision *d, char *buf, size_t n)
{
    json_int_t budget = d->total - d->desired;
    snprintf(buf, n,
             "%" JSON_INTEGER_FORMAT " of %" JSON_INTEGER_FORMAT
             " Pods are unavailable or being disrupted; the budget allows %" JSON_INTEGER_FORMAT,
             budget - d->allowed, d->total, budget);
}

/* checkAndDecrement on the PUB as it is now (kube/rmw.h wh_rmw_decide_fn). */
static enum wh_err decide(void *arg, const json_t *current, json_t **desired, struct wh_errbuf *eb)
{
    (void)eb;
    struct decision *d = arg;
    *desired = NULL;
    const json_t *st = wh_json_obj(current, "status");
    note_status(d, current);
    if (recorded(current, d->pod)) {
        d->verdict = ALREADY;
        return WH_OK;
    }
    json_int_t allowed = json_integer_value(json_object_get(st, "unavailableAllowed"));
    d->verdict = REFUSE;
    if (allowed <= 0) {
        snprintf(d->why, sizeof(d->why), "pub unavailable allowed is negative");
        return WH_OK;
    }
    if (json_object_size(wh_json_obj(st, "disruptedPods")) +
            json_object_size(wh_json_obj(st, "unavailablePods")) >
        WH_PUB_MAX_RECORDED) {
        snprintf(d->why, sizeof(d->why),
                 "DisruptedPods and UnavailablePods map too big - too many unavailable not "
                 "confirmed by PUB controller");
        return WH_OK;
    }
    d->verdict = SPEND;
    json_t *obj = wh_json_copy(current);
    json_t *status = wh_json_obj_ensure(obj, "status");
    json_object_set_new(status, "unavailableAllowed", json_integer(allowed - 1));
    /* in-place updates wait in unavailablePods; deletions, evictions and resizes in
     * disruptedPods */
    json_t *map =
        wh_json_obj_ensure(status, d->op == WH_PUB_OP_UPDATE ? "unavailablePods" : "disruptedPods");
    json_object_set_new(map, d->pod, json_string(d->now));
    *desired = obj;
    return WH_OK;
}

/* Denies with message msg (403 Forbidden) and logs it with the review's uid. */
static void deny(struct wh_pod_review *pr, const json_t *pod, const char *ns, const char *pub,
                 enum wh_pub_op op, const char *msg)
{
    wh_admission_deny(pr->resp, 403, "%s", msg);
    const char *pod_name = wh_json_meta_str(pod, "name");
    wh_log_req(WH_LOG_INFO, pr->req->uid, "/validate-pod",
               "PodUnavailableBudget %s/%s denied %s of pod %s%s%s: %s", ns, pub,
               wh_pub_op_name(op), ns, ns[0] ? "/" : "", pod_name ? pod_name : "", msg);
}

/* A refusal: the explain note says what would change it, the warning (this server's, upstream
 * sends none) when the request can succeed. */
static void explain_refusal(struct wh_pod_review *pr, const char *name, const struct decision *d,
                            const char *budget)
{
    const struct wh_handler_ctx *ctx = pr->ctx;
    if (d->allowed > 0) {
        /* refused for the records, not the budget: the controller has not caught up */
        wh_pod_review_explain(pr, name, false,
                              "refused: %zu disruptions wait for the PUB controller to confirm "
                              "them (more than %d); it can succeed once it has caught up",
                              d->recorded, WH_PUB_MAX_RECORDED);
        wh_warn(ctx, pr->resp,
                "%zu disruptions wait for the PodUnavailableBudget controller; retry once it "
                "has caught up",
                d->recorded);
        return;
    }
    json_int_t need = 1 - d->allowed;
    wh_pod_review_explain(pr, name, false,
                          "refused: %s (status.unavailableAllowed %" JSON_INTEGER_FORMAT
                          "); it can succeed once %" JSON_INTEGER_FORMAT
                          " more Pod%s available: a Pod becoming ready, or a pending disruption "
                          "clearing%s%s%s",
                          budget, d->allowed, need, need == 1 ? " is" : "s are",
                          d->recorded ? " (" : "", d->pending, d->recorded ? ")" : "");
    wh_warn(ctx, pr->resp,
            "%s; %" JSON_INTEGER_FORMAT " more must become available", budget, need);
}

/* 5.3 step 9: spend one unit of the budget of PUB ns/name on the Pod, through the write-back. */
static void spend(struct wh_pod_review *pr, const json_t *pod, const char *ns, const char *name,
                  enum wh_pub_op op)
{
    struct decision d = {
        .pod = wh_json_str_or_empty(wh_json_obj(pod, "metadata"), "name"),
        .pub = name,
        .op = op,
    };
    struct wh_gotime now = {.sec = pr->now ? (int64_t)pr->now : (int64_t)time(NULL)};
    wh_gotime_format(now, WH_GOTIME_RFC3339, d.now, sizeof(d.now));
    bool dry = !wh_pod_review_may_write(pr);
    struct wh_writeback_opts wo = {.dry_run = dry, .max_attempts = 0};
    struct wh_rmw_result res = {0};
    struct wh_errbuf eb = {{0}};
    enum wh_err rc =
        wh_cluster_write_status(pr->ctx->cluster, WH_RES_PUB, ns, name, decide, &d, &wo, &res, &eb);
    int conflicts = res.conflicts;
    wh_rmw_result_fini(&res);
    char msg[1024], budget[200];
    budget_text(&d, budget, sizeof(budget));
    if (rc == WH_ERR_NOT_FOUND || (rc == WH_OK && d.verdict == ALREADY)) {
        wh_pod_review_explain(pr, name, false,
                              rc ? "the PodUnavailableBudget no longer exists: not protected"
                                 : "the Pod was recorded meanwhile: already accounted for");
        wh_pub_count(op, WH_PUB_OUT_UNPROTECTED, conflicts);
    } else if (rc == WH_OK && d.verdict == REFUSE) {
        snprintf(msg, sizeof(msg), "podunavailablebudget.policy.kruise.io \"%s\" is forbidden: %s",
                 name, d.why);
        deny(pr, pod, ns, name, op, msg);
        explain_refusal(pr, name, &d, budget);
        wh_pub_count_upstream(pr, pod, ns);
        wh_pub_count(op, WH_PUB_OUT_DENIED, conflicts);
    } else if (rc == WH_OK) {
        wh_pod_review_explain(pr, name, true,
                              "allowed: %s; status.unavailableAllowed %" JSON_INTEGER_FORMAT
                              " -> %" JSON_INTEGER_FORMAT ", the Pod %s in status.%s",
                              budget, d.allowed, d.allowed - 1, dry ? "would be recorded" : "recorded",
                              op == WH_PUB_OP_UPDATE ? "unavailablePods" : "disruptedPods");
        wh_pub_count(op, dry ? WH_PUB_OUT_DRY_RUN : WH_PUB_OUT_ALLOWED, conflicts);
    } else if (rc == WH_ERR_TIMEOUT) {
        snprintf(msg, sizeof(msg),
                 "podunavailablebudget.policy.kruise.io \"%s\" is forbidden: the disruption could "
                 "not be recorded in its status before the request's deadline, try again (%s)",
                 name, eb.msg);
        deny(pr, pod, ns, name, op, msg);
        wh_pub_count(op, WH_PUB_OUT_DEADLINE, conflicts);
    } else {
        /* upstream answers the API error's own text */
        deny(pr, pod, ns, name, op, eb.msg[0] ? eb.msg : wh_strerror(rc));
        wh_pub_count(op, WH_PUB_OUT_ERROR, conflicts);
    }
}

enum wh_err wh_pub_check(struct wh_pod_review *pr, const json_t *pod, enum wh_pub_op op,
                         struct wh_errbuf *eb)
{
    bool no_protect = false;
    const char *np = wh_json_annotation(pod, WH_KRUISE_ANN_PUB_NO_PROTECT);
    const char *name = wh_pub_related_name(pod);
    if ((np && wh_str_to_go_bool(np, &no_protect) == WH_OK && no_protect) ||
        !wh_pub_pod_ready(pod) || !wh_pub_pod_consistent(pod)) {
        /* exempt, or already unavailable: it does not count against the budget */
        wh_pod_review_explain(pr, name, false,
                              no_protect ? "annotation " WH_KRUISE_ANN_PUB_NO_PROTECT
                                           " exempts the Pod: allowed"
                              : !wh_pub_pod_ready(pod)
                                  ? "the Pod is not ready (or has an unavailable-pod label): it is "
                                    "unavailable already, allowed without the budget"
                                  : "the Pod's containers do not run the images of its spec yet: "
                                    "unavailable already, allowed without the budget");
        wh_pub_count(op, WH_PUB_OUT_UNPROTECTED, 0);
        return WH_OK;
    }
    const char *pns = wh_json_meta_str(pod, "namespace");
    const char *ns = pns && *pns ? pns : pr->namespace_;
    struct wh_cluster *cl = pr->ctx ? pr->ctx->cluster : NULL;
    json_t *pub = cl && name ? wh_cluster_freshest(cl, WH_RES_PUB, ns, name) : NULL;
    bool ignored = false;
    enum wh_err rc = pub ? ignored_by(pub, pod, &ignored, eb) : WH_OK;
    const char *why = NULL;
    if (!rc && !pub)
        why = "the Pod names it, but it does not exist: not protected";
    else if (!rc && ignored)
        why = "spec.ignoredPodSelector matches the Pod: not protected";
    else if (!rc && json_integer_value(wh_json_path(pub, "status", "desiredAvailable", NULL)) == 0)
        why = "status.desiredAvailable is 0 (nothing to keep available): allowed";
    else if (!rc && !(protected_ops(pub, pr->ctx->cfg) & op))
        why = "it does not protect this operation (spec.protectOperations): allowed";
    else if (!rc && recorded(pub, wh_json_str_or_empty(wh_json_obj(pod, "metadata"), "name")))
        why = "the Pod is recorded in its status already (accounted for): allowed";
    if (rc) {
        wh_pub_count(op, WH_PUB_OUT_ERROR, 0);
    } else if (why) {
        /* no such PUB, the Pod is ignored, nothing to protect, the operation is not protected,
         * or the Pod is already accounted for */
        wh_pod_review_explain(pr, name, false, "%s", why);
        wh_pub_count(op, WH_PUB_OUT_UNPROTECTED, 0);
    } else {
        spend(pr, pod, ns, name, op);
    }
    json_decref(pub);
    return rc;
}
