#ifndef WH_HANDLERS_WORKLOADSPREAD_WORKLOAD_H
#define WH_HANDLERS_WORKLOADSPREAD_WORKLOAD_H

/* The workloads a WorkloadSpread deals with (spec workloadspread.md 4.1, 4.2, 5.6): which owner
 * kinds are supported, reading a workload named by an owner or target reference, and the total
 * replicas that percent maxReplicas scale against.
 *
 * Reads come from the caches the WorkloadSpread setup declares (Deployments, ReplicaSets,
 * StatefulSets of both groups, CloneSets, Jobs): no API call on the hot path. Kinds outside the
 * catalogue (white-listed custom workloads) are read live, within the request's deadline.
 * Thread rule: thread-safe (caches are only read). */

#include <jansson.h>
#include <stdbool.h>

#include "handlers/workloadspread/whitelist.h"
#include "kube/cluster.h"
#include "util/err.h"

/* True when group/kind is one of the built-in supported owner kinds: apps Deployment,
 * ReplicaSet, StatefulSet; apps.kruise.io CloneSet, StatefulSet; batch Job. */
bool wh_ws_builtin_workload(const char *group, const char *kind);

/* Reads the workload kind (apiVersion api_version) ns/name. Returns in *out: new ref, frozen when
 * it comes from a cache (never modify it). Errors: WH_ERR_NOT_FOUND with the API server's text
 * (clonesets.apps.kruise.io "cs-x" not found); WH_ERR_INVALID for an apiVersion that does not
 * parse; others from the live read. */
WH_NODISCARD enum wh_err wh_ws_workload_get(struct wh_cluster *cl, const char *api_version,
                                            const char *kind, const char *ns, const char *name,
                                            json_t **out, struct wh_errbuf *eb);

/* The integer at a dot-separated path of obj as upstream's NestedField reads it (numeric
 * elements index arrays). Errors (WH_ERR_INVALID with upstream's text): a missing member
 * (path "x" not exists), a bad or out-of-range index, a value that is not an integer (object
 * type error), a path running into a scalar (object is not deep enough). An empty path is 0. */
WH_NODISCARD enum wh_err wh_ws_path_int(const json_t *obj, const char *path, long long *out,
                                        struct wh_errbuf *eb);

/* The total replicas percent maxReplicas are scaled against (5.6), for ws (borrowed): 0 unless
 * some subset has a maxReplicas string ending in '%'; else read from the target workload (in
 * ws's namespace): the sum of targetFilter.replicasPathList, or by kind (spec.replicas,
 * spec.parallelism for Jobs, a white-listed kind's replicasPath); 0 when the workload does not
 * exist. Errors: a bad replicas path, a failed read other than NotFound. */
WH_NODISCARD enum wh_err wh_ws_total_replicas(struct wh_cluster *cl, const char *kruise_ns,
                                              const json_t *ws, long long *total,
                                              struct wh_errbuf *eb);

#endif
