/* PodUnavailableBudget's metrics: this server's decisions and conflict retries, by operation
 * and outcome, and upstream's own refusal counter (pod_unavailable_budget). The step's files
 * count through here; the caches' setup registers the series. */
#include "handlers/pub/pub_int.h"

#include <stdatomic.h>
#include <stdio.h>

#include "k8s/ref.h"
#include "metrics/metrics.h"
#include "util/json.h"

#define DECISIONS "kruise_webhook_pub_decisions_total"
#define DECISIONS_HELP                                                                             \
    "Pod deletions, evictions and updates judged by PodUnavailableBudget, by operation and "       \
    "outcome"
#define RETRIES "kruise_webhook_pub_conflict_retries_total"
#define RETRIES_HELP                                                                               \
    "Conflicting PodUnavailableBudget status writes retried, by the outcome of their request"
#define UPSTREAM "pod_unavailable_budget"
#define UPSTREAM_HELP "Pod Unavailable Budget Metrics"
#define UPSTREAM_MAX_SERIES 1000

static const char *const outcome_names[WH_PUB_OUT_COUNT] = {"allowed", "dry_run",  "unprotected",
                                                            "denied",  "deadline", "error"};

static const enum wh_pub_op all_ops[] = {WH_PUB_OP_DELETE, WH_PUB_OP_UPDATE, WH_PUB_OP_EVICT,
                                         WH_PUB_OP_RESIZE};

void wh_pub_count(enum wh_pub_op op, enum wh_pub_outcome o, int conflicts)
{
    char labels[128];
    wh_metrics_labels(labels, sizeof(labels), "operation", wh_pub_op_name(op), "outcome",
                      outcome_names[o], NULL);
    wh_metric_add(wh_metrics_counter(DECISIONS, DECISIONS_HELP, labels), 1);
    if (conflicts > 0) {
        wh_metrics_labels(labels, sizeof(labels), "outcome", outcome_names[o], NULL);
        wh_metric_add(wh_metrics_counter(RETRIES, RETRIES_HELP, labels), (uint64_t)conflicts);
    }
}

void wh_pub_count_unprotected(enum wh_pub_op op)
{
    wh_pub_count(op, WH_PUB_OUT_UNPROTECTED, 0);
}

void wh_pub_metrics_setup(void)
{
    char labels[128];
    for (size_t i = 0; i < sizeof(all_ops) / sizeof(all_ops[0]); i++) {
        for (int o = 0; o < WH_PUB_OUT_COUNT; o++) {
            wh_metrics_labels(labels, sizeof(labels), "operation", wh_pub_op_name(all_ops[i]),
                              "outcome", outcome_names[o], NULL);
            (void)wh_metrics_counter(DECISIONS, DECISIONS_HELP, labels);
        }
    }
    for (int o = 0; o < WH_PUB_OUT_COUNT; o++) {
        wh_metrics_labels(labels, sizeof(labels), "outcome", outcome_names[o], NULL);
        (void)wh_metrics_counter(RETRIES, RETRIES_HELP, labels);
    }
}

/* Upstream's counter of refusals: pod_unavailable_budget{kind_namespace_name, username}, the
 * workload (else "unknown" and the Pod) and the user. */
void wh_pub_count_upstream(const struct wh_pod_review *pr, const json_t *pod, const char *ns)
{
    static atomic_uint series;
    const json_t *ref = wh_ref_controller(pod);
    char knn[768];
    snprintf(knn, sizeof(knn), "%s_%s_%s", ref ? wh_json_str_or_empty(ref, "kind") : "unknown",
             ns[0] ? ns : "default",
             ref ? wh_json_str_or_empty(ref, "name")
                 : wh_json_str_or_empty(wh_json_obj(pod, "metadata"), "name"));
    const char *user = wh_json_str(pr->req->user_info, "username");
    wh_metrics_count_capped(UPSTREAM, UPSTREAM_HELP, "kind_namespace_name", knn, user ? user : "",
                            UPSTREAM_MAX_SERIES, &series);
}
