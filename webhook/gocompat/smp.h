#ifndef WH_GOCOMPAT_SMP_H
#define WH_GOCOMPAT_SMP_H

/* Kubernetes strategic merge patch, applied as k8s.io/apimachinery's
 * strategicpatch.StrategicMergePatch(original, patch, &T{}) applies it (v0.32), with the patch
 * metadata (patchStrategy, patchMergeKey) of the Go-type model:
 *   - maps merge member by member; a null member deletes; a member the original lacks is added
 *     (its null members and $patch directives dropped);
 *   - lists whose field says patchStrategy merge: lists of objects merge by the patchMergeKey
 *     (elements matched by key are merged, others appended), lists of scalars are united
 *     without duplicates; any other list, and a map whose field says replace, is replaced;
 *   - directives: {"$patch": "replace" | "delete"} in a map, {"$patch": "delete", key: v} and
 *     {"$patch": "replace"} in a merged list, "$retainKeys", "$deleteFromPrimitiveList/<field>",
 *     "$setElementOrder/<field>" (the order of the merged list);
 *   - the order of a merged list: the patch's elements in the patch's order, the others where
 *     they stood (mergeSortedSlice);
 *   - errors are the library's ("map: map[...] does not contain declared merge key: name",
 *     "unable to find api field in struct PodSpec for the json field \"x\"", ...).
 * Thread rule: thread-safe (no state). */

#include <jansson.h>

#include "gocompat/gotype.h"
#include "util/err.h"

/* original and patch: borrowed, not modified (both must be JSON objects; else "invalid JSON
 * document"); t: the Go type of the document (a struct of the model, e.g. v1 Pod).
 * Returns in *out: new ref, the patched document. Errors: WH_ERR_INVALID with the message;
 * WH_ERR_INTERNAL where the library panics (two merge keys that are both maps or both lists,
 * which Go compares with ==), with the answer controller-runtime gives once it has recovered:
 * "panic: runtime error: comparing uncomparable type map[string]interface {} [recovered]". */
WH_NODISCARD enum wh_err wh_smp_apply(const json_t *original, const json_t *patch,
                                      const struct wh_gotype *t, json_t **out,
                                      struct wh_errbuf *eb);

#endif
