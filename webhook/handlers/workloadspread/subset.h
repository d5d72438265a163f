#ifndef WH_HANDLERS_WORKLOADSPREAD_SUBSET_H
#define WH_HANDLERS_WORKLOADSPREAD_SUBSET_H

/* Which subset a Pod gets and what that does to the WorkloadSpread's status (spec
 * workloadspread.md 5 and 8.2), as pure functions of the objects given: no cluster, no clock, no
 * randomness of their own, so every rule is testable alone.
 *
 *  - 5.1 one subset without maxReplicas: that subset, nothing read or written;
 *  - 5.2 StatefulSet targets: by the Pod's ordinal against running maxReplicas thresholds;
 *  - 5.4 the status list of the Pod's version in status.versionedSubsetStatuses, built from
 *    the spec when missing (maxReplicas scaled as 5.6);
 *  - 5.5 creation: a Pod already recorded keeps its subset; else the first schedulable entry
 *    with room, recorded in creatingPods with missingReplicas decremented (unless unlimited);
 *  - 8.2 deletion: the annotated subset records the Pod in deletingPods and gets a replica back.
 * The decide functions are the read-modify-write decision of kube/rmw.h: they are called again
 * with the object as it is after every conflict, so a subset's room is never spent twice.
 * Thread rule: thread-safe; inputs are only read. */

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "util/err.h"

#define WH_WS_VERSION_IGNORED "versionIgnored"

/* Returns: borrowed; the subset named name in ws's spec.subsets, or NULL. */
const json_t *wh_ws_spec_subset(const json_t *ws, const char *name);

/* 5.1: the only subset, when the WorkloadSpread has exactly one and it has no maxReplicas.
 * Returns: borrowed, or NULL. */
const json_t *wh_ws_single_unlimited(const json_t *ws);

/* The ordinal of a StatefulSet Pod name: "anything-<digits>" at the end, else -1 (also for a
 * number beyond int32). */
long long wh_ws_ordinal(const char *pod_name);

/* 5.2: the subset name (borrowed from ws) for the Pod named pod_name of a StatefulSet target,
 * or NULL when none. Subsets marked Schedulable=False in status.subsetStatuses are skipped. */
const char *wh_ws_statefulset_subset(const json_t *ws, const char *pod_name);

/* 5.4: the version key of the Pod's status list: pod-template-hash, else the last '-' part of
 * controller-revision-hash, for Pods whose controller owner is a Deployment or a ReplicaSet;
 * else "versionIgnored". Returns: borrowed from pod, or the constant. */
const char *wh_ws_pod_version(const json_t *pod);

/* 5.6: intstr.GetScaledValueFromIntOrPercent(max, total, roundUp): an integer as is, "<p>%" as
 * ceil(p * total / 100) converted as Go does (beyond int64: math.MinInt64). False when max is
 * neither (a string that is not "<int>%", p as strconv.Atoi reads it). */
bool wh_ws_scaled_max(const json_t *max, long long total, long long *out);

/* intstr.GetValueFromIntOrPercent(max, 100, true), the legacy reading upstream's validation
 * uses (9.2): an integer is itself; any string, with every '%' in it removed, must parse as
 * strconv.Atoi does and is then a percent ("5" reads as 5%). False when it does not parse. */
bool wh_ws_legacy_percent(const json_t *max, long long *out);

/* True when some subset's maxReplicas is a string ending in '%'. */
bool wh_ws_has_percent(const json_t *ws);

/* Reads the total replicas for 5.6, only when a list must be built from the spec and some
 * subset is a percentage. */
typedef enum wh_err (*wh_ws_total_fn)(void *arg, long long *total, struct wh_errbuf *eb);

/* What a decision needs to know about the Pod. */
struct wh_ws_pod_in {
    const char *name;      /* metadata.name, "" for a Pod created with generateName */
    const char *version;   /* wh_ws_pod_version */
    const char *timestamp; /* the RFC 3339 time to record */
    const char *uid;       /* creation: the key for a Pod without a name (a fresh UUID) */
    const char *subset;    /* deletion: the subset named in the Pod's annotation */
    wh_ws_total_fn total;  /* may be NULL: total 0 */
    void *total_arg;
};

enum wh_ws_outcome {
    WH_WS_NO_SUBSET, /* creation: no subset has room; deletion: the subset is not listed */
    WH_WS_RECORDED,  /* the Pod was already in creatingPods or deletingPods: no change */
    WH_WS_UNLIMITED, /* the subset has no maxReplicas: no change */
    WH_WS_COUNTED,   /* creatingPods / deletingPods written, missingReplicas adjusted */
};

/* What a decision found; the strings are copies. */
struct wh_ws_decision {
    enum wh_ws_outcome outcome;
    char subset[254];      /* the chosen subset ("" when none) */
    bool used_uid;         /* creation: the Pod is keyed by in->uid */
    long long missing;     /* the subset's missingReplicas before the change */
    long long missing_now; /* after it */
};

/* 5.4 and 5.5 for a Pod being created, on current (borrowed, read-only): fills *d and sets
 * *desired to a new ref, the whole object with its new status, when the status must change
 * (else NULL). Errors: reading the total replicas. */
WH_NODISCARD enum wh_err wh_ws_decide_create(const json_t *current, const struct wh_ws_pod_in *in,
                                             struct wh_ws_decision *d, json_t **desired,
                                             struct wh_errbuf *eb);

/* 5.4 and 8.2 for a Pod being deleted or evicted, on current: as above. */
WH_NODISCARD enum wh_err wh_ws_decide_delete(const json_t *current, const struct wh_ws_pod_in *in,
                                             struct wh_ws_decision *d, json_t **desired,
                                             struct wh_errbuf *eb);

#endif
