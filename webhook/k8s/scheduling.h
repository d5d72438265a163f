#ifndef WH_K8S_SCHEDULING_H
#define WH_K8S_SCHEDULING_H

/* Kubernetes' validation of the scheduling parts of a Pod (pkg/apis/core/validation, k8s 1.32)
 * that other objects carry on their own, with upstream's messages and paths: node selector terms
 * (ValidateNodeSelectorTerm: matchExpressions operators and values, label keys and values,
 * matchFields on metadata.name only), preferred scheduling terms (weight 1-100) and tolerations
 * (ValidateTolerations), affinity and topology spread constraints. WorkloadSpread subsets and
 * Pod specs (k8s/podvalidation.h) are validated with them.
 * Thread rule: thread-safe (no state); inputs are only read. */

#include <jansson.h>
#include <stdbool.h>

#include "k8s/fielderr.h"

/* ValidateNodeSelectorTerm(term, allowInvalidLabelValueInRequiredNodeAffinity, path): term is a
 * v1 NodeSelectorTerm (borrowed). */
void wh_validate_node_selector_term(struct wh_field_errors *l, const json_t *term,
                                    bool allow_invalid_label_value, const char *path);

/* ValidatePreferredSchedulingTerms(terms, path): terms is a JSON array of
 * PreferredSchedulingTerm. */
void wh_validate_preferred_scheduling_terms(struct wh_field_errors *l, const json_t *terms,
                                            const char *path);

/* ValidateNodeSelector(selector, allowInvalidLabelValueInRequiredNodeAffinity, path): at least
 * one term (path.nodeSelectorTerms), each a valid term. */
void wh_validate_node_selector(struct wh_field_errors *l, const json_t *selector,
                               bool allow_invalid_label_value, const char *path);

/* validateAffinity(affinity, opts, path) with OpenKruise's options (invalid label values allowed
 * in pod (anti-)affinity selectors): node affinity (required terms, preferred terms), pod
 * affinity and anti-affinity (required and weighted terms: selectors, namespaces, matchLabelKeys
 * and mismatchLabelKeys, topologyKey). affinity: a v1 Affinity or NULL. */
void wh_validate_affinity(struct wh_field_errors *l, const json_t *affinity, const char *path);

/* validateTopologySpreadConstraints(constraints, path, opts) with OpenKruise's options (an
 * invalid labelSelector is allowed): maxSkew, topologyKey, whenUnsatisfiable, the
 * {topologyKey, whenUnsatisfiable} pair unique, minDomains, nodeAffinityPolicy,
 * nodeTaintsPolicy, matchLabelKeys. constraints: a JSON array. */
void wh_validate_topology_spread_constraints(struct wh_field_errors *l, const json_t *constraints,
                                             const char *path);

/* ValidateTolerations(tolerations, path): a JSON array of Toleration. */
void wh_validate_tolerations(struct wh_field_errors *l, const json_t *tolerations,
                             const char *path);

#endif
