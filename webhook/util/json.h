#ifndef WH_UTIL_JSON_H
#define WH_UTIL_JSON_H

/* Small jansson helpers for reading Kubernetes objects. Every getter returns a borrowed
 * reference (valid while the containing value lives) or NULL when the member is missing or
 * has another type; none of them modifies its input. Thread rule: thread-safe on frozen
 * (never modified) values. */

#include <jansson.h>
#include <stdbool.h>

#include "util/buf.h"
#include "util/err.h"

/* Points jansson at the arena-aware aborting allocator (util/arena.h, util/mem.h) and fixes its
 * hash seed. Call once from main (and from test runners) before any thread starts. */
void wh_json_init(void);

/* Returns: borrowed; the string value of o[key], or NULL. */
const char *wh_json_str(const json_t *o, const char *key);
/* Returns: borrowed; o[key] if it is an object / array, else NULL. */
json_t *wh_json_obj(const json_t *o, const char *key);
json_t *wh_json_arr(const json_t *o, const char *key);
/* A list of Go structs (o[key] if it is an array, else NULL) as Go decodes it: each null
 * element is the zero struct, an empty object here, so that defaults fill it as they fill any
 * other element. Returns: borrowed. */
json_t *wh_json_struct_list(json_t *o, const char *key);
/* The same on a list already at hand (NULL or not an array: nothing). Returns: list. */
json_t *wh_json_zero_null_items(json_t *list);
/* Returns: borrowed; the string value of o[key], or "" when missing or not a string. */
const char *wh_json_str_or_empty(const json_t *o, const char *key);
/* Reads the string member key of o into *out (borrowed). Absent or null: WH_ERR_INVALID
 * "<where><key>: required" when required, else *out = "". Another type: WH_ERR_INVALID
 * "<where><key>: must be a string, not <type>". where prefixes the member ("request."). */
WH_NODISCARD enum wh_err wh_json_need_str(const json_t *o, const char *key, const char *where,
                                          bool required, const char **out, struct wh_errbuf *eb);
/* True when o has key with a value other than null. */
bool wh_json_present(const json_t *o, const char *key);
/* o[key] as a boolean; false when missing or not a boolean. */
bool wh_json_bool(const json_t *o, const char *key);

/* Follows a NULL-terminated list of object keys from root.
 * Returns: borrowed; the value found, or NULL when any step is missing or not an object. */
json_t *wh_json_path(const json_t *root, ...);
/* Same, for a string value. */
const char *wh_json_path_str(const json_t *root, ...);

/* metadata.namespace / metadata.name / metadata.labels[key] / metadata.annotations[key]. A
 * label or annotation given as null is "", as Go decodes a map[string]string (the key is
 * there); NULL when it is absent. */
const char *wh_json_meta_str(const json_t *obj, const char *field);
const char *wh_json_label(const json_t *obj, const char *key);
const char *wh_json_annotation(const json_t *obj, const char *key);

/* Returns: borrowed; o[key], replaced by an empty object when it is missing or not an object. */
json_t *wh_json_obj_ensure(json_t *o, const char *key);

/* A short name for a JSON type ("object", "string", "boolean", ...), for error messages. */
const char *wh_json_type_name(const json_t *v);
/* The same in the words of Go's encoding/json errors ("cannot unmarshal bool into ..."):
 * object, array, string, number, bool, null. */
const char *wh_json_go_type_name(const json_t *v);

/* The member names of obj sorted by byte order (Go's order for map keys). Returns: a new array
 * (caller frees) of borrowed names, valid while obj is unchanged; *n gets its length. */
const char **wh_json_sorted_keys(const json_t *obj, size_t *n);

/* Whether two strings of arr are the same bytes (a member that is not a string counts as "",
 * as Go decodes null into a string), as sets.NewString(list...).Len() != len(list) asks.
 * O(n log n), whatever the length. */
bool wh_json_strings_repeat(const json_t *arr);

/* A deep copy. Unlike json_deep_copy it keeps object keys that contain NUL whole and skips
 * jansson 2.14's loop check, which formats every object's address with snprintf and made
 * copying a Pod cost more than parsing it. Values must not contain cycles (jansson's own
 * containers cannot be built with one by its public setters anyway). Returns: new ref. */
json_t *wh_json_copy(const json_t *v);

/* A JSON string for text that may not be valid UTF-8 (messages built with snprintf can cut a
 * multi-byte character): invalid bytes become '?'. Returns: new ref, never NULL. */
json_t *wh_json_string_lossy(const char *s);
/* The same for n bytes, which may hold NUL bytes (kept: JSON writes them as \u0000). */
json_t *wh_json_stringn_lossy(const char *s, size_t n);

/* Appends v in compact JSON (object keys in their stored order). Much faster than
 * json_dumps, which spends ~100 instructions per byte; used for every answer. Errors:
 * WH_ERR_TOO_BIG at b's cap, WH_ERR_INVALID for a real that is not finite. */
WH_NODISCARD enum wh_err wh_json_write(struct wh_buf *b, const json_t *v);

/* wh_json_write, copying the input text of the containers spans recorded (util/jsonparse.h)
 * instead of serialising them again: the same bytes, when the spans' rule is kept. */
struct wh_json_spans;
WH_NODISCARD enum wh_err wh_json_write_spans(struct wh_buf *b, const json_t *v,
                                             const struct wh_json_spans *spans);

/* Appends s[0..n) as a JSON string, escaped as wh_json_write escapes strings. s is not checked
 * for UTF-8. Errors: WH_ERR_TOO_BIG at b's cap. */
WH_NODISCARD enum wh_err wh_json_write_string(struct wh_buf *b, const char *s, size_t n);

/* Serialises compactly with wh_json_write. Returns: new string, caller frees. */
char *wh_json_dumps(const json_t *v);

#endif
