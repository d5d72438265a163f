#ifndef WH_HANDLERS_PERSISTENTPODSTATE_PPS_INT_H
#define WH_HANDLERS_PERSISTENTPODSTATE_PPS_INT_H

/* What the PersistentPodState step and validation share (pps.c): the caches, the white list,
 * the v1beta1 form of a cached object and upstream's reference equality.
 * Thread rule: as persistentpodstate.h. */

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "config/config.h"
#include "kube/cluster.h"
#include "util/err.h"

/* Declares the PersistentPodState cache (every namespace, with a small view) and the ConfigMap
 * cache of the kruise namespace, which holds the white list. */
WH_NODISCARD enum wh_err wh_pps_caches_setup(struct wh_cluster *cl, const struct wh_config *cfg,
                                             struct wh_errbuf *eb);

/* What the view of a cached PersistentPodState holds: its target (the group of its apiVersion,
 * parsed as schema.ParseGroupVersion does) and whether it is being deleted. Strings live as
 * long as the object. */
struct wh_pps_view {
    const char *name;
    bool target_ok; /* spec.targetRef.apiVersion parses */
    const char *target_group, *target_kind, *target_name;
    bool deleting; /* metadata.deletionTimestamp is set */
};

/* Returns: borrowed, the view of a cached PersistentPodState (NULL for an object of another
 * cache). */
const struct wh_pps_view *wh_pps_view_of(const struct wh_object *o);

/* The object as upstream reads it, a v1beta1 PersistentPodState: a v1alpha1 one (a cluster
 * whose CRD serves that version only) converted up. Returns: new ref; NULL when the conversion
 * refuses it (the object is then no PersistentPodState upstream could read). */
json_t *wh_pps_beta(const json_t *obj);

/* util.IsReferenceEqualV1beta1: the same group (not the whole apiVersion), kind and name; a
 * reference whose apiVersion does not parse equals nothing. */
bool wh_pps_refs_equal(const char *api_version_a, const char *kind_a, const char *name_a,
                       const char *api_version_b, const char *kind_b, const char *name_b);

/* --- the white list (configuration.CustomWorkloadWhiteList) ------------------------------- */

struct wh_pps_gk {
    const char *group, *kind;
};

/* The listed workloads; strings point into the decoded JSON the list owns. */
struct wh_pps_whitelist {
    struct wh_pps_gk *items;
    size_t n;
    json_t *_root;
};

/* configuration.GetPPSWatchCustomWorkloadWhiteList from the ConfigMap cache: no ConfigMap or
 * no key is an empty list; a value json.Unmarshal refuses is WH_ERR_INVALID with Go's message
 * in eb (upstream's handlers fail with it). */
WH_NODISCARD enum wh_err wh_pps_whitelist_load(struct wh_cluster *cl, const char *kruise_ns,
                                               struct wh_pps_whitelist *out, struct wh_errbuf *eb);
void wh_pps_whitelist_fini(struct wh_pps_whitelist *wl);

/* ValidateAPIVersionAndKind: a StatefulSet of apps or apps.kruise.io, or a listed group and
 * kind; an apiVersion that does not parse is neither. */
bool wh_pps_whitelist_allows(const struct wh_pps_whitelist *wl, const char *api_version,
                             const char *kind);

#endif
