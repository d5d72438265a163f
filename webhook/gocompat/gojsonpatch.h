#ifndef WH_GOCOMPAT_GOJSONPATCH_H
#define WH_GOCOMPAT_GOJSONPATCH_H

/* The operations gomodules.xyz/jsonpatch/v2 (v2.4.0) CreatePatch finds between two JSON
 * documents, for the OpenKruise rules that judge an update by them (an InPlaceOnly update may
 * only replace container images). Its algorithm: a value whose JSON type changed is replaced;
 * objects are compared key by key (the new document's keys: added when new, compared when
 * present; then the old document's keys missing from the new one: removed); arrays lose their
 * extra elements from the end, gain the new ones, then compare the common prefix element by
 * element; numbers compare as float64. Go walks object keys in random order: here they are
 * walked in the documents' own order, so the operations come in a fixed order that is one of
 * Go's.
 * Thread rule: thread-safe; the documents are only read. */

#include <jansson.h>
#include <stdbool.h>

/* One operation: op is "add", "remove" or "replace"; path an RFC 6901 pointer. Return false to
 * stop. */
typedef bool (*wh_gojsonpatch_fn)(const char *op, const char *path, void *arg);

/* Calls fn for each operation of CreatePatch(from, to) in order (borrowed documents). Returns
 * false when fn stopped the walk. */
bool wh_gojsonpatch_each(const json_t *from, const json_t *to, wh_gojsonpatch_fn fn, void *arg);

#endif
