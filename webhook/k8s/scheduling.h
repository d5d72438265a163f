#ifndef WH_K8S_SCHEDULING_H
#define WH_K8S_SCHEDULING_H

/* Kubernetes' validation of the scheduling parts of a Pod (pkg/apis/core/validation, k8s 1.32)
 * that other objects carry on their own, with upstream's messages and paths: node selector terms
 * (ValidateNodeSelectorTerm: matchExpressions operators and values, label keys and values,
 * matchFields on metadata.name only), preferred scheduling terms (weight 1-100) and tolerations
 * (ValidateTolerations). WorkloadSpread subsets are validated with them.
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

/* ValidateTolerations(tolerations, path): a JSON array of Toleration. */
void wh_validate_tolerations(struct wh_field_errors *l, const json_t *tolerations,
                             const char *path);

#endif
