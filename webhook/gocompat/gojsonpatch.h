#ifndef WH_GOCOMPAT_GOJSONPATCH_H
#define WH_GOCOMPAT_GOJSONPATCH_H

/* The operations github.com/appscode/jsonpatch (v1.0.1) CreatePatch finds between two JSON
 * objects, for the OpenKruise rules that judge an update by them (an InPlaceOnly update may only
 * replace container images: the CloneSet controller's core and the Advanced StatefulSet webhook
 * call it). Its algorithm: a value that was null and is not is added; one whose JSON type
 * changed otherwise is replaced; objects are compared key by key (the new document's keys: added
 * when new, compared when present; then the old document's keys missing from the new one:
 * removed); two "simple" arrays (scalars, or objects whose values are scalars or null: only the
 * first object element is looked at) are diffed by edit distance, walked back from their ends;
 * other arrays lose their extra elements from the end, gain the new ones, then compare the
 * common prefix element by element; numbers compare as float64. Go walks object keys in random
 * order: here they are walked in the documents' own order, so the operations come in a fixed
 * order that is one of Go's.
 * Thread rule: thread-safe; the documents are only read. */

#include <jansson.h>
#include <stdbool.h>

/* One operation: op is "add", "remove" or "replace"; path an RFC 6901 pointer. Return false to
 * stop. */
typedef bool (*wh_gojsonpatch_fn)(const char *op, const char *path, void *arg);

/* Calls fn for each operation of CreatePatch(from, to) in order (borrowed objects; anything
 * else reads as {}, as CreatePatch's decoding into a map would fail only on input Go never
 * gives it here). Returns false when fn stopped the walk. */
bool wh_gojsonpatch_each(const json_t *from, const json_t *to, wh_gojsonpatch_fn fn, void *arg);

#endif
