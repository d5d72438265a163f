#ifndef WH_HANDLERS_WORKLOADSPREAD_PATCH_H
#define WH_HANDLERS_WORKLOADSPREAD_PATCH_H

/* What a subset does to a Pod being created (spec workloadspread.md 6), in upstream's order:
 * its tolerations appended, spec.affinity.nodeAffinity made to exist, its preferred terms
 * appended, its required term ANDed into every required node selector term of the Pod (or made
 * the only one), its patch applied as a strategic merge patch with the Pod schema (a changed
 * priorityClassName drops spec.priority), and the annotation
 * apps.kruise.io/matched-workloadspread naming the WorkloadSpread, the subset and, for a Pod
 * recorded under a generated key, that uid.
 * Edits go through the Pod review's copy-on-write editor, so the Pod is copied only along the
 * paths changed. v1alpha1 subsets (requiredNodeSelectorTerm, preferredNodeSelectorTerms) are
 * read as well as v1beta1 ones.
 * Thread rule: per request. */

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "handlers/pod/review.h"
#include "util/err.h"

/* The annotation's value, as Go marshals upstream's InjectWorkloadSpread: compact,
 * {"name":...,"subset":...} plus "uid" when uid is not empty. Returns: new string. */
char *wh_ws_annotation_value(const char *ws_name, const char *subset_name, const char *uid);

/* Reads the annotation's value as upstream does (Go's json.Unmarshal into InjectWorkloadSpread:
 * member names matched case-insensitively, unknown members ignored): true with the names copied
 * (truncated to the buffers) when it is a JSON object whose name, subset and uid members are
 * strings or null; false for anything else (not JSON, null, another type), which counts as no
 * annotation. */
bool wh_ws_annotation_parse(const char *value, char *ws_name, size_t ws_name_sz, char *subset,
                            size_t subset_sz);

/* Patches the Pod of pr into subset (borrowed, an entry of the WorkloadSpread's spec.subsets) of
 * WorkloadSpread ws_name; uid may be NULL or "". Errors: the subset's patch does not apply to the
 * Pod (the request is answered 500, as upstream does). */
WH_NODISCARD enum wh_err wh_ws_patch_pod(struct wh_pod_review *pr, const char *ws_name,
                                         const json_t *subset, const char *uid,
                                         struct wh_errbuf *eb);

#endif
