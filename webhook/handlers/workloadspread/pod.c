/* WorkloadSpread's step of the Pod webhooks: the glue between the frame (handlers/pod), the match
 * (match.c), the subset decision (subset.c) inside the status write-back, and the Pod patch
 * (patch.c); plus the metrics, the log line of a failed write and the explain notes. */
#include "handlers/workloadspread/pod.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/features.h"
#include "gocompat/gotime.h"
#include "gocompat/gotype.h"
#include "handlers/workloadspread/match.h"
#include "handlers/workloadspread/patch.h"
#include "handlers/workloadspread/subset.h"
#include "handlers/workloadspread/workload.h"
#include "k8s/kruise.h"
#include "k8s/ref.h"
#include "log/log.h"
#include "metrics/metrics.h"
#include "util/json.h"
#include "util/str.h"
#include "util/uuid.h"

/* --- metrics ---------------------------------------------------------------------------------- */

#define M_PODS "kruise_webhook_workloadspread_pods_total"
#define M_PODS_HELP                                                                                \
    "Pods WorkloadSpread handled, by operation (create, delete, evict) and outcome (create: "      \
    "subset_chosen or no_room; delete and evict: recorded or unchanged)."
#define M_CONFLICTS "kruise_webhook_workloadspread_status_conflicts_total"
#define M_CONFLICTS_HELP "WorkloadSpread status writes answered 409 Conflict and decided again."
#define M_WRITES "kruise_webhook_workloadspread_status_writes_total"
#define M_WRITES_HELP "WorkloadSpread status writes that succeeded."
#define M_FAILURES "kruise_webhook_workloadspread_status_write_failures_total"
#define M_FAILURES_HELP                                                                            \
    "WorkloadSpread status writes given up, by reason (timeout: the request's deadline passed; "   \
    "error: the API server refused)."

static void count_pod(const char *op, const char *outcome)
{
    char labels[128];
    wh_metrics_labels(labels, sizeof(labels), "operation", op, "outcome", outcome, NULL);
    wh_metric_add(wh_metrics_counter(M_PODS, M_PODS_HELP, labels), 1);
}

static void count_failure(const char *reason)
{
    char labels[64];
    wh_metrics_labels(labels, sizeof(labels), "reason", reason, NULL);
    wh_metric_add(wh_metrics_counter(M_FAILURES, M_FAILURES_HELP, labels), 1);
}

/* Every series exists from the start, at 0, so that rates and alerts see them. */
static void register_metrics(void)
{
    static const char *const pods[][2] = {
        {"create", "subset_chosen"}, {"create", "no_room"}, {"delete", "recorded"},
        {"delete", "unchanged"},     {"evict", "recorded"}, {"evict", "unchanged"},
    };
    char labels[128];
    for (size_t i = 0; i < sizeof(pods) / sizeof(pods[0]); i++) {
        wh_metrics_labels(labels, sizeof(labels), "operation", pods[i][0], "outcome", pods[i][1],
                          NULL);
        (void)wh_metrics_counter(M_PODS, M_PODS_HELP, labels);
    }
    (void)wh_metrics_counter(M_CONFLICTS, M_CONFLICTS_HELP, NULL);
    (void)wh_metrics_counter(M_WRITES, M_WRITES_HELP, NULL);
    static const char *const reasons[] = {"timeout", "error"};
    for (size_t i = 0; i < 2; i++) {
        wh_metrics_labels(labels, sizeof(labels), "reason", reasons[i], NULL);
        (void)wh_metrics_counter(M_FAILURES, M_FAILURES_HELP, labels);
    }
}

/* --- the status bookkeeping ------------------------------------------------------------------ */

struct book {
    struct wh_pod_review *pr;
    bool create;
    struct wh_ws_pod_in in;
    struct wh_ws_decision d;
    const json_t *current; /* the object being decided on (for the total replicas) */
    bool decide_failed;
    char uid[WH_UUID_LEN + 1];
    char ts[WH_GOTIME_MAX];
};

static enum wh_err total_replicas(void *arg, long long *total, struct wh_errbuf *eb)
{
    struct book *b = arg;
    const struct wh_handler_ctx *ctx = b->pr->ctx;
    return wh_ws_total_replicas(ctx->cluster, ctx->cfg->namespace_, b->current, total, eb);
}

static enum wh_err decide(void *arg, const json_t *current, json_t **desired, struct wh_errbuf *eb)
{
    struct book *b = arg;
    b->current = current;
    enum wh_err rc = b->create ? wh_ws_decide_create(current, &b->in, &b->d, desired, eb)
                               : wh_ws_decide_delete(current, &b->in, &b->d, desired, eb);
    b->decide_failed = rc != WH_OK;
    return rc;
}

/* Whether the decision is written. A creation is a dry run by its CreateOptions alone, and
 * those skipped it before (4.1 item 4: request.dryRun is not consulted); a deletion or eviction
 * by any of request.dryRun, options.dryRun and deleteOptions.dryRun (8, this project's
 * departure). The offline command never writes. */
static bool may_write(const struct book *b)
{
    if (b->create)
        return !(b->pr->ctx && b->pr->ctx->offline);
    return wh_pod_review_may_write(b->pr);
}

static const char *path_of(const struct wh_pod_review *pr)
{
    return pr->op == WH_POD_CREATE ? "/mutate-pod" : "/validate-pod";
}

/* Runs the decision inside the status write-back of WorkloadSpread ns/name. *gone is set when
 * the WorkloadSpread no longer exists. A write that fails is counted, logged with the review's
 * uid and returned with a message saying what did not happen. */
static enum wh_err book_run(struct book *b, const char *ns, const char *name, bool *gone,
                            struct wh_errbuf *eb)
{
    struct wh_pod_review *pr = b->pr;
    time_t now = pr->now ? pr->now : time(NULL);
    (void)wh_gotime_format(wh_gotime_from_ns((int64_t)now * 1000000000LL), WH_GOTIME_RFC3339, b->ts,
                           sizeof(b->ts));
    b->in.timestamp = b->ts;
    b->in.total = total_replicas;
    b->in.total_arg = b;
    if (b->create && !(b->in.name && b->in.name[0])) {
        wh_uuid_v4(b->uid);
        b->in.uid = b->uid;
    }
    struct wh_writeback_opts opts = {.dry_run = !may_write(b)};
    struct wh_rmw_result res = {0};
    struct wh_errbuf why = {{0}};
    *gone = false;
    enum wh_err rc = wh_cluster_write_status(pr->ctx->cluster, WH_RES_WORKLOADSPREAD, ns, name,
                                             decide, b, &opts, &res, &why);
    if (res.conflicts)
        wh_metric_add(wh_metrics_counter(M_CONFLICTS, M_CONFLICTS_HELP, NULL),
                      (uint64_t)res.conflicts);
    if (rc == WH_OK && res.stored)
        wh_metric_add(wh_metrics_counter(M_WRITES, M_WRITES_HELP, NULL), 1);
    if (rc == WH_ERR_NOT_FOUND && !b->decide_failed) {
        *gone = true;
        rc = WH_OK;
    } else if (rc && b->decide_failed) {
        rc = wh_errbuf_set(eb, rc, "%s", why.msg);
    } else if (rc) {
        bool late = rc == WH_ERR_TIMEOUT;
        count_failure(late ? "timeout" : "error");
        wh_log_req(WH_LOG_WARN, pr->req->uid, path_of(pr),
                   "WorkloadSpread %s/%s: status write failed after %d attempts (%d conflicts): %s",
                   ns, name, res.writes, res.conflicts, why.msg);
        rc = late ? wh_errbuf_set(eb, rc,
                                  "WorkloadSpread %s/%s: the status write did not finish in time "
                                  "(%d conflicting writes): %s",
                                  ns, name, res.conflicts, why.msg)
                  : wh_errbuf_set(eb, rc, "WorkloadSpread %s/%s: status write failed: %s", ns, name,
                                  why.msg);
    }
    wh_rmw_result_fini(&res);
    return rc;
}

/* --- /mutate-pod ------------------------------------------------------------------------------ */

static bool options_dry_run(const json_t *options)
{
    return json_array_size(json_object_get(options, "dryRun")) > 0;
}

/* Decodes v as the Go type api/type, as upstream's decoder does before anything else: absent
 * is "there is no content to decode", a member of the wrong type Go's error. */
static enum wh_err decode(const json_t *v, const char *api, const char *type, struct wh_errbuf *eb)
{
    if (!v || json_is_null(v))
        return wh_errbuf_set(eb, WH_ERR_INVALID, "there is no content to decode");
    char *msg = NULL;
    if (!wh_gotype_check_full(v, wh_gotype_lookup(api, type), &msg))
        return WH_OK;
    enum wh_err rc = wh_errbuf_set(eb, WH_ERR_INVALID, "%s", msg ? msg : "cannot decode");
    free(msg);
    return rc;
}

/* Explains the decision of the status-based choice (5.5). */
static void explain_decision(const struct wh_pod_review *pr, const char *ws,
                             const struct wh_ws_decision *d, bool written)
{
    switch (d->outcome) {
    case WH_WS_NO_SUBSET:
        wh_pod_review_explain(pr, ws, false,
                              "no subset has room: every subset is full (missingReplicas 0) or "
                              "Schedulable=False; the Pod is left unpatched");
        break;
    case WH_WS_RECORDED:
        wh_pod_review_explain(pr, ws, true,
                              "%s chosen: the Pod is already recorded there (a retried creation)",
                              d->subset);
        break;
    case WH_WS_UNLIMITED:
        wh_pod_review_explain(pr, ws, true,
                              "%s chosen: the first subset with room, without maxReplicas "
                              "(missingReplicas -1); the status is not changed",
                              d->subset);
        break;
    case WH_WS_COUNTED:
        wh_pod_review_explain(
            pr, ws, true,
            "%s chosen: missingReplicas %lld > 0; creatingPods %s (missingReplicas "
            "%lld -> %lld)",
            d->subset, d->missing, written ? "recorded" : "would record", d->missing,
            d->missing_now);
        break;
    }
}

/* The subset for the Pod (5.1-5.5); "" when none. *uid is the generated key the Pod was
 * recorded under, or "". WH_ERR_NOT_FOUND: the WorkloadSpread was deleted meanwhile. */
static enum wh_err choose(struct wh_pod_review *pr, const json_t *ws, const json_t *pod,
                          char *subset, size_t subsetsz, char *uid, struct wh_errbuf *eb)
{
    const char *name = wh_json_meta_str(ws, "name");
    const char *ns = wh_json_meta_str(ws, "namespace");
    subset[0] = uid[0] = '\0';
    const json_t *only = wh_ws_single_unlimited(ws);
    if (only) {
        snprintf(subset, subsetsz, "%s", wh_json_str_or_empty(only, "name"));
        wh_pod_review_explain(pr, name, true,
                              "%s chosen: the only subset, without maxReplicas (no status kept)",
                              subset);
        return WH_OK;
    }
    const char *pod_name = wh_json_str_or_empty(json_object_get(pod, "metadata"), "name");
    if (wh_str_eq(wh_json_path_str(ws, "spec", "targetRef", "kind", NULL), "StatefulSet")) {
        const char *s = wh_ws_statefulset_subset(ws, pod_name);
        snprintf(subset, subsetsz, "%s", s ? s : "");
        if (s)
            wh_pod_review_explain(pr, name, true,
                                  "%s chosen: StatefulSet ordinal %lld falls in its range of "
                                  "maxReplicas",
                                  s, wh_ws_ordinal(pod_name));
        else
            wh_pod_review_explain(pr, name, false,
                                  "no subset for StatefulSet ordinal %lld; the Pod is left "
                                  "unpatched",
                                  wh_ws_ordinal(pod_name));
        return WH_OK;
    }
    struct book b = {.pr = pr, .create = true};
    b.in.name = pod_name;
    b.in.version = wh_ws_pod_version(pod);
    bool gone = false;
    enum wh_err rc = book_run(&b, ns, name, &gone, eb);
    if (rc)
        return rc;
    if (gone) {
        wh_pod_review_explain(pr, name, false, "the WorkloadSpread no longer exists");
        return WH_ERR_NOT_FOUND;
    }
    explain_decision(pr, name, &b.d, may_write(&b));
    snprintf(subset, subsetsz, "%s", b.d.subset);
    if (b.d.used_uid)
        snprintf(uid, WH_UUID_LEN + 1, "%s", b.uid);
    return WH_OK;
}

static enum wh_err mutate(struct wh_pod_review *pr, struct wh_errbuf *eb)
{
    /* the options are decoded as CreateOptions before anything else, so a review without them
     * fails the whole request (4.1 item 4, sidecarset.md 11.14) */
    const json_t *options = pr->req->options;
    enum wh_err rc = decode(options, "meta.k8s.io/v1", "CreateOptions", eb);
    if (rc)
        return rc;
    if (options_dry_run(options)) {
        /* upstream skips a dry-run creation entirely: no subset, no patch (4.1 item 4) */
        wh_pod_review_explain(pr, NULL, false, "a dry run: WorkloadSpread is skipped");
        return WH_OK;
    }
    struct wh_cluster *cl = pr->ctx ? pr->ctx->cluster : NULL;
    if (!cl)
        return WH_OK;
    const json_t *pod = wh_pod_review_pod(pr);
    struct wh_object *o = NULL;
    rc = wh_ws_match_pod(cl, pr->ctx->cfg->namespace_, pod, pr->namespace_, pr, &o, eb);
    if (rc || !o)
        return rc;
    const json_t *ws = wh_object_json(o);
    char subset[254], uid[WH_UUID_LEN + 1];
    rc = choose(pr, ws, pod, subset, sizeof(subset), uid, eb);
    if (rc == WH_ERR_NOT_FOUND) { /* deleted meanwhile: it handles the Pod no more */
        rc = WH_OK;
        goto out;
    }
    if (rc)
        goto out;
    count_pod("create", subset[0] ? "subset_chosen" : "no_room");
    const json_t *spec_subset = subset[0] ? wh_ws_spec_subset(ws, subset) : NULL;
    if (spec_subset)
        rc = wh_ws_patch_pod(pr, wh_json_meta_str(ws, "name"), spec_subset, uid, eb);
    else if (subset[0])
        wh_pod_review_explain(pr, wh_json_meta_str(ws, "name"), false,
                              "subset %s is no longer in spec.subsets: the Pod is not patched",
                              subset);
out:
    wh_object_unref(o);
    return rc;
}

/* --- /validate-pod ---------------------------------------------------------------------------- */

/* 8.2: records a deleted or evicted Pod in its subset's deletingPods. */
static enum wh_err record_deletion(struct wh_pod_review *pr, const json_t *pod,
                                   struct wh_errbuf *eb)
{
    const char *op = pr->op == WH_POD_EVICT ? "evict" : "delete";
    char ws_name[254], subset[254];
    if (!wh_ws_annotation_parse(wh_json_annotation(pod, WH_KRUISE_ANN_MATCHED_WORKLOADSPREAD),
                                ws_name, sizeof(ws_name), subset, sizeof(subset)) ||
        !wh_ws_pod_active(pod) || !wh_ref_controller(pod) || !ws_name[0])
        return WH_OK;
    const char *ns = pr->namespace_;
    struct wh_cluster *cl = pr->ctx ? pr->ctx->cluster : NULL;
    struct wh_cache *c = cl ? wh_cluster_cache(cl, WH_RES_WORKLOADSPREAD) : NULL;
    struct wh_object *o = c ? wh_cache_get(c, ns, ws_name) : NULL;
    if (!o)
        return WH_OK;
    const json_t *ws = wh_object_json(o);
    enum wh_err rc = WH_OK;
    if (wh_ws_single_unlimited(ws) ||
        wh_str_eq(wh_json_path_str(ws, "spec", "targetRef", "kind", NULL), "StatefulSet"))
        goto out;
    struct book b = {.pr = pr, .create = false};
    b.in.name = wh_json_str_or_empty(json_object_get(pod, "metadata"), "name");
    b.in.version = wh_ws_pod_version(pod);
    b.in.subset = subset;
    bool gone = false;
    rc = book_run(&b, ns, ws_name, &gone, eb);
    if (!rc)
        count_pod(op, b.d.outcome == WH_WS_COUNTED && !gone ? "recorded" : "unchanged");
out:
    wh_object_unref(o);
    return rc;
}

static enum wh_err validate(struct wh_pod_review *pr, struct wh_errbuf *eb)
{
    const json_t *pod = NULL;
    enum wh_err rc;
    if (pr->op == WH_POD_DELETE) {
        /* upstream decodes the deleted Pod, then the DeleteOptions */
        pod = wh_pod_review_old(pr);
        rc = decode(pr->req->old_object, "v1", "Pod", eb);
        if (!rc)
            rc = decode(pr->req->options, "meta.k8s.io/v1", "DeleteOptions", eb);
    } else {
        rc = decode(pr->eviction, WH_GOTYPE_EVICTION_INTERNAL, "Eviction", eb);
    }
    if (rc)
        return rc;
    /* a dry run never writes (spec 8, this project's departure for evictions) */
    if (pr->dry_run)
        return WH_OK;
    if (pr->op == WH_POD_EVICT) {
        rc = wh_pod_review_evicted(pr, &pod, eb);
        if (rc)
            return rc;
    }
    return pod ? record_deletion(pr, pod, eb) : WH_OK;
}

/* --- the step --------------------------------------------------------------------------------- */

static bool enabled(const struct wh_config *cfg)
{
    return wh_feature_on(&cfg->features, WH_FEATURE_WorkloadSpread);
}

static enum wh_err setup(struct wh_cluster *cl, const struct wh_config *cfg, struct wh_errbuf *eb)
{
    register_metrics();
    return wh_ws_caches_setup(cl, cfg, eb);
}

const struct wh_pod_step wh_workloadspread_pod_step = {
    .name = "workloadspread",
    .mutate_ops = WH_POD_CREATE,
    .validate_ops = WH_POD_DELETE | WH_POD_EVICT,
    .side_effects = true,
    .enabled = enabled,
    .setup = setup,
    .mutate = mutate,
    .validate = validate,
};
