#ifndef WH_HANDLERS_SIDECARSET_MATCH_H
#define WH_HANDLERS_SIDECARSET_MATCH_H

/* Which SidecarSets apply to a Pod (spec sidecarset.md 4.2-4.4): the SidecarSet cache with its
 * compiled view and namespace index, candidate selection, matching (paused, namespaceSelector,
 * selector), the suitable revision (revisionName, customVersion, ControllerRevisions in the
 * kruise namespace, Partial policy) and canaries displacing their base.
 *
 * Per Pod the work is proportional to the SidecarSets indexed under the Pod's namespace plus
 * the cluster-scoped ones: each SidecarSet is filed under the namespaces its namespaceSelector
 * names through kubernetes.io/metadata.name (matchLabels, else the first In expression), or
 * under "clusterScope". Selectors are compiled once per SidecarSet change, so matching a
 * candidate allocates nothing and opens no JSON; so are the targetContainersNameRegex patterns
 * of its sidecars, and those of each ControllerRevision (a history revision), so that injecting
 * compiles no pattern.
 *
 * Thread rule: the setup runs once on the main thread before the caches start; everything else
 * is thread-safe (caches are read-only here). */

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "config/config.h"
#include "handlers/pod/review.h"
#include "k8s/selector.h"
#include "kube/cache.h"
#include "kube/cluster.h"
#include "util/err.h"

#define WH_SIDECARSET_INDEX_NAMESPACE "namespace"
#define WH_SIDECARSET_CLUSTER_SCOPE "clusterScope"
#define WH_CONTROLLERREVISION_INDEX_SIDECARSET "sidecarset"

struct wh_selector;
struct wh_sidecarset_regexes;

/* What the pod path needs of one SidecarSet, compiled when it changes (the cache's view). */
struct wh_sidecarset_view {
    const char *name;
    bool paused;       /* spec.injectionStrategy.paused */
    bool has_revision; /* injectionStrategy.revision names a revisionName or a customVersion */
    struct wh_selector *selector;    /* spec.selector */
    struct wh_selector *ns_selector; /* spec.namespaceSelector (v1alpha1: spec.namespace); NULL
                                      * when nil */
    const char *canary_base;         /* the base a canary displaces, else NULL */
    const char *const *ns_keys;      /* index keys: namespaces, or clusterScope */
    size_t n_ns_keys;
    /* its containers' targetContainersNameRegex patterns, compiled; NULL when none */
    const struct wh_sidecarset_regexes *regexes;
};

/* Declares, on cluster cl: SidecarSets (every namespace; the view above and the namespace
 * index), Namespaces, ControllerRevisions and ConfigMaps in cfg->namespace_ (the
 * ControllerRevisions indexed by the kruise.io/sidecarset-name label, their view the compiled
 * patterns of their data.spec). Call it once per cluster:
 * the SidecarSet routes share it as their setup, so wh_routes_setup runs it once. */
WH_NODISCARD enum wh_err wh_sidecarset_caches_setup(struct wh_cluster *cl,
                                                    const struct wh_config *cfg,
                                                    struct wh_errbuf *eb);

/* The view of a cached SidecarSet object (borrowed), or NULL when the cache has no view. */
const struct wh_sidecarset_view *wh_sidecarset_view_of(const struct wh_object *o);

/* One SidecarSet chosen for a Pod: the object as cached and the SidecarSet to inject (the same
 * JSON, or a history revision restored from a ControllerRevision). */
struct wh_sidecarset_pick {
    struct wh_object *obj; /* a reference */
    const json_t *ss;      /* borrowed from obj, or owned when a history revision */
    json_t *owned;
    const char *name;
    /* the compiled patterns of ss (borrowed from the view of obj, or of rev) */
    const struct wh_sidecarset_regexes *regexes;
    struct wh_object *rev; /* a reference to the ControllerRevision of a history revision */
};

struct wh_sidecarset_picks {
    struct wh_sidecarset_pick *items;
    size_t n;
    size_t _cap;
    struct wh_sidecarset_pick _inline[4];
};

void wh_sidecarset_picks_init(struct wh_sidecarset_picks *p);
void wh_sidecarset_picks_fini(struct wh_sidecarset_picks *p);

/* What matching needs to know about the request. */
struct wh_sidecarset_match_in {
    struct wh_cluster *cluster;
    const char *kruise_ns; /* cfg->namespace_: where ControllerRevisions live */
    const json_t *pod;     /* borrowed */
    const char *ns;        /* the pod's namespace, "default" when empty */
    bool create;           /* CREATE chooses history revisions; UPDATE only matches */
    /* told why each candidate was or was not chosen (handlers/pod/review.h explain: the reason,
     * not repeating the verdict), in candidate order, again when a canary displaces one;
     * NULL: nobody asks */
    const struct wh_pod_review *review;
};

/* Chooses the SidecarSets for a Pod (4.2, 4.3, 4.4 and the canary rule), in candidate order:
 * SidecarSets indexed under ns by ascending name, then cluster-scoped ones by name.
 * Errors (answered 500): an unknown operator in a matching candidate's selector, a missing
 * ControllerRevision, a bad Partial partition. */
WH_NODISCARD enum wh_err wh_sidecarset_match(const struct wh_sidecarset_match_in *in,
                                             struct wh_sidecarset_picks *out, struct wh_errbuf *eb);

/* Loads the history SidecarSet of 4.4 for sidecarset (borrowed): the ControllerRevision named
 * revision_name, else the latest one labelled with the SidecarSet's name and custom_version,
 * from the ControllerRevision cache of cl (kruise_ns). The result has the whole spec replaced by
 * the revision's data.spec, both hash annotations (the revision's, else recomputed) and
 * status.latestRevision. Returns in *out: new ref; in *rev (when rev is not NULL) a reference
 * to the ControllerRevision, whose view (wh_sidecarset_revision_regexes) holds the compiled
 * patterns of *out. Errors: WH_ERR_NOT_FOUND with "ControllerRevision.apps \"<name>\" not
 * found". */
WH_NODISCARD enum wh_err wh_sidecarset_history(struct wh_cluster *cl, const char *kruise_ns,
                                               const json_t *sidecarset, const char *revision_name,
                                               const char *custom_version, json_t **out,
                                               struct wh_object **rev, struct wh_errbuf *eb);

/* The compiled patterns of a cached ControllerRevision's data.spec (borrowed), or NULL. */
const struct wh_sidecarset_regexes *wh_sidecarset_revision_regexes(const struct wh_object *rev);

#endif
