#ifndef WH_JSONPATCH_DIFF_H
#define WH_JSONPATCH_DIFF_H

/* Computes an RFC 6902 JSON Patch between two documents: mutating admission handlers edit a
 * copy of the object and the server answers with the difference.
 *
 * The cost is linear in the size of the documents times their nesting depth (no O(n*m)
 * longest-common-subsequence): a Pod with 1500 environment variables diffs in well under a
 * millisecond. Arrays are diffed by matching the common prefix and suffix (util/jsoneq.h), then
 * walking the rest with a hash of each element's identity (an object's "name" member, as
 * Kubernetes list-maps are keyed, otherwise the whole value), so inserting a sidecar container
 * anywhere in spec.containers is one "add" even when the other containers changed too.
 *
 * The patch uses only "add", "remove" and "replace"; paths are RFC 6901 pointers with keys
 * escaped ("/metadata/annotations/kruise.io~1sidecarset-hash"). The output is deterministic:
 * removals follow `from`'s key order, additions and changes `to`'s key order.
 *
 * Thread rule: thread-safe; from and to are only read (they may be frozen values shared with
 * other threads). */

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "util/buf.h"
#include "util/err.h"

/* Returns: new ref, a JSON array of operations that turns from into to (applied with
 * wh_patch_apply the result equals to, WH_JSON_EQ_EXACT); [] when they are equal. The
 * operations own deep copies of their values: nothing is shared with to. Never fails
 * (allocation aborts). Numbers of different JSON types (1 and 1.0) are different values. */
json_t *wh_patch_diff(const json_t *from, const json_t *to);

/* The same patch as text, appended to out: exactly what wh_json_write prints for the array
 * wh_patch_diff returns ("[]" when from and to are equal), built without making it. *count
 * (may be NULL) gets the number of operations. WH_ERR_TOO_BIG at out's cap, with out as it
 * was. */
WH_NODISCARD enum wh_err wh_patch_diff_write(struct wh_buf *out, const json_t *from,
                                             const json_t *to, size_t *count);

#endif
