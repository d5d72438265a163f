#ifndef WH_HANDLERS_WORKLOADSPREAD_MATCH_H
#define WH_HANDLERS_WORKLOADSPREAD_MATCH_H

/* Which WorkloadSpread handles a Pod (spec workloadspread.md 4.1 items 6-7 and 4.2): the caches
 * the feature reads, the compiled view of each WorkloadSpread, and the match itself -- an active
 * Pod whose controller owner is a supported workload kind, the WorkloadSpreads of its namespace,
 * the walk up the owner chain to each one's targetRef, and the targetFilter.
 *
 * A Pod in a namespace without WorkloadSpreads costs one index lookup: the WorkloadSpreads are
 * listed first. The owner chain is read once per Pod from the caches and shared by every
 * WorkloadSpread compared against it.
 * Thread rule: setup runs once on the main thread before the caches start; the rest is
 * thread-safe. */

#include <jansson.h>
#include <stdbool.h>

#include "config/config.h"
#include "handlers/pod/review.h"
#include "kube/cache.h"
#include "kube/cluster.h"
#include "util/err.h"

#define WH_WS_INDEX_NAMESPACE "namespace"

struct wh_selector;

/* What matching needs of one WorkloadSpread, compiled when it changes (the cache's view). */
struct wh_ws_view {
    const char *name;
    bool usable;       /* has spec.targetRef and no deletionTimestamp */
    bool target_gv_ok; /* targetRef.apiVersion parses */
    const char *target_group, *target_kind, *target_name;
    bool filtered;              /* spec.targetFilter is set */
    struct wh_selector *filter; /* its selector (nil: selects nothing) */
};

/* Declares, on cl: WorkloadSpreads (every namespace, the view above, the namespace index), the
 * workloads the owner walk and the replica counts read (Deployments, ReplicaSets, StatefulSets of
 * apps and apps.kruise.io, CloneSets, Jobs), and ConfigMaps in the kruise namespace (the white
 * list). Only with gate WorkloadSpread on. */
WH_NODISCARD enum wh_err wh_ws_caches_setup(struct wh_cluster *cl, const struct wh_config *cfg,
                                            struct wh_errbuf *eb);

/* The view of a cached WorkloadSpread (borrowed), or NULL. */
const struct wh_ws_view *wh_ws_view_of(const struct wh_object *o);

/* True when pod is active: status.phase is neither Succeeded nor Failed, and no
 * metadata.deletionTimestamp. */
bool wh_ws_pod_active(const json_t *pod);

/* Finds the WorkloadSpread of pod (borrowed) in namespace ns. Returns WH_OK with *ws a reference
 * to the cached object, or NULL when none handles the Pod (an inactive Pod, no or an unsupported
 * controller owner, no WorkloadSpread whose targetRef the owner chain reaches and whose
 * targetFilter selects the Pod). Error: a workload of the owner chain is missing
 * (WH_ERR_NOT_FOUND with its text; upstream fails the request with it, whichever WorkloadSpread
 * was being compared). Every other problem skips the WorkloadSpread concerned, as upstream does.
 * pr (may be NULL) is told why each WorkloadSpread was or was not taken. */
WH_NODISCARD enum wh_err wh_ws_match_pod(struct wh_cluster *cl, const char *kruise_ns,
                                         const json_t *pod, const char *ns,
                                         const struct wh_pod_review *pr, struct wh_object **ws,
                                         struct wh_errbuf *eb);

#endif
