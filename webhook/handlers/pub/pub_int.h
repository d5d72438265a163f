#ifndef WH_HANDLERS_PUB_PUB_INT_H
#define WH_HANDLERS_PUB_PUB_INT_H

/* What the files of handlers/pub share (only they include this):
 *  related.c     which PUB protects a Pod: the PUB cache and its view, the workload of a Pod,
 *                the /mutate-pod annotation step (section 4)
 *  unavailable.c can this update make the Pod unavailable, is it a resize, is the Pod ready and
 *                consistent (sections 5.2, 5.3 steps 2-3)
 *  check.c       the budget check and its decision inside the status write (5.3)
 *  metrics.c     the decisions' metrics, and upstream's refusal counter
 *  pod.c         the /validate-pod step: which requests are examined (5.1); the setup
 *  validate.c    the object webhook (7)
 * Thread rule: as pub.h. */

#include <jansson.h>
#include <stdbool.h>

#include "config/config.h"
#include "handlers/pod/review.h"
#include "kube/cache.h"
#include "kube/cluster.h"
#include "util/err.h"

/* checkAndDecrement refuses past this many recorded Pods (MaxUnavailablePodSize) */
#define WH_PUB_MAX_RECORDED 2000

enum wh_pub_op {
    WH_PUB_OP_DELETE = 1u << 0,
    WH_PUB_OP_UPDATE = 1u << 1,
    WH_PUB_OP_EVICT = 1u << 2,
    WH_PUB_OP_RESIZE = 1u << 3,
};

/* "DELETE", "UPDATE", "EVICT", "RESIZE". */
const char *wh_pub_op_name(enum wh_pub_op op);
/* The operation named s, or 0. */
enum wh_pub_op wh_pub_op_parse(const char *s, size_t len);

/* Either PUB gate is on (the /mutate-pod step and the object webhook run). */
bool wh_pub_gates_on(const struct wh_config *cfg);

/* --- related.c -------------------------------------------------------------------------------- */

/* What the /mutate-pod lookup needs of a cached PUB, compiled once per change. */
struct wh_pub_view {
    const char *name;
    struct wh_selector *selector; /* spec.selector compiled; nil when absent */
    bool has_target;              /* spec.targetRef present */
    bool target_ok;               /* its apiVersion parses (schema.ParseGroupVersion) */
    const char *target_group, *target_kind, *target_name;
};

/* Declares the PUB cache (every namespace, with the view) and the workload caches that the
 * annotation step reads: Deployments, ReplicaSets, StatefulSets, CloneSets, Advanced
 * StatefulSets. */
WH_NODISCARD enum wh_err wh_pub_caches_setup(struct wh_cluster *cl, const struct wh_config *cfg,
                                             struct wh_errbuf *eb);

/* Returns: borrowed; the view of a cached PUB, or NULL when the cache has none. */
const struct wh_pub_view *wh_pub_view_of(const struct wh_object *o);

/* The name in pub.kruise.io/related-pub, else in kruise.io/related-pub; NULL when both are
 * absent or empty. Returns: borrowed from pod. */
const char *wh_pub_related_name(const json_t *pod);

/* The /mutate-pod step (section 4). */
WH_NODISCARD enum wh_err wh_pub_mutate(struct wh_pod_review *pr, struct wh_errbuf *eb);

/* --- pod.c ------------------------------------------------------------------------------------ */

/* The setup of the step and of the object webhook: wh_pub_caches_setup, and the metric series
 * at zero (metrics.c). */
WH_NODISCARD enum wh_err wh_pub_setup(struct wh_cluster *cl, const struct wh_config *cfg,
                                      struct wh_errbuf *eb);

/* --- unavailable.c ---------------------------------------------------------------------------- */

/* A label with prefix unavailable-pod.kruise.io/ (any value). */
bool wh_pub_has_unavailable_label(const json_t *pod);
/* 5.3 step 2: running and ready, and no unavailable label. */
bool wh_pub_pod_ready(const json_t *pod);
/* 5.3 step 3: images and in-place update state agree with the status (IsPodStateConsistent). */
bool wh_pub_pod_consistent(const json_t *pod);
/* 5.2 step 3: the spec changed, or an unavailable label was added. */
bool wh_pub_unavailable_changed(const json_t *old_pod, const json_t *new_pod);
/* 5.2 step 4: only container resources changed, and in a way a resize in place can apply. */
bool wh_pub_can_resize(const json_t *old_pod, const json_t *new_pod);

/* --- check.c ---------------------------------------------------------------------------------- */

/* 5.3 for the check pod (borrowed) and operation: allows by returning WH_OK with pr->resp
 * untouched, denies through pr->resp (403), or returns an error the pipeline answers with 400.
 * Spends the budget through the status write-back unless pr is a dry run. */
WH_NODISCARD enum wh_err wh_pub_check(struct wh_pod_review *pr, const json_t *pod,
                                      enum wh_pub_op op, struct wh_errbuf *eb);

/* --- metrics.c -------------------------------------------------------------------------------- */

/* What became of a request the step examined. */
enum wh_pub_outcome {
    WH_PUB_OUT_ALLOWED,     /* one unit spent and recorded */
    WH_PUB_OUT_DRY_RUN,     /* a dry run the budget allows: nothing written */
    WH_PUB_OUT_UNPROTECTED, /* let through without touching the budget */
    WH_PUB_OUT_DENIED,      /* the budget is spent (or its records are full) */
    WH_PUB_OUT_DEADLINE,    /* the budget could not be recorded before the request's deadline */
    WH_PUB_OUT_ERROR,       /* an API error while recording, or a PUB that cannot be read */
    WH_PUB_OUT_COUNT
};

/* Counts a request the step examined, for kruise_webhook_pub_decisions_total, and the status
 * write conflicts it retried (kruise_webhook_pub_conflict_retries_total). */
void wh_pub_count(enum wh_pub_op op, enum wh_pub_outcome o, int conflicts);

/* Counts a request the step let through without looking at any budget (no related PUB,
 * another operation, gates). */
void wh_pub_count_unprotected(enum wh_pub_op op);

/* Counts a refusal in upstream's pod_unavailable_budget{kind_namespace_name, username}: the
 * Pod's workload (else "unknown" and the Pod) in namespace ns, and the requesting user. */
void wh_pub_count_upstream(const struct wh_pod_review *pr, const json_t *pod, const char *ns);

/* Registers the metric series with zero values (so they show before the first request). */
void wh_pub_metrics_setup(void);

#endif
