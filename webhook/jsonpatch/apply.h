#ifndef WH_JSONPATCH_APPLY_H
#define WH_JSONPATCH_APPLY_H

/* Applies an RFC 6902 JSON Patch (all six operations: add, remove, replace, move, copy, test).
 * Used by the tests, the vector harness and offline tools to check the patches the server
 * sends; the server itself only builds patches.
 *
 * Semantics, as RFC 6902 and RFC 6901 define them:
 *  - the patch is applied to a deep copy of doc, atomically: on any error nothing is returned
 *    and doc is never modified;
 *  - "-" as the last token of an "add" path appends to an array; an "add" index may equal the
 *    array's length; indexes with leading zeros, signs or other characters are errors;
 *  - the path "" names the whole document ("add"/"replace" swap it; "remove" of "" is an
 *    error);
 *  - "move" whose "from" is a proper prefix of "path" is an error; "move" onto itself does
 *    nothing;
 *  - "test" compares with JSON equality: numbers are equal when their values are (1 == 1.0),
 *    object member order does not matter;
 *  - members an operation does not use are ignored; "value" may be null but must be present
 *    for add, replace and test.
 *
 * Thread rule: thread-safe; doc and patch are only read. */

#include <jansson.h>

#include "util/err.h"

/* Returns: new ref in *out (the patched copy of doc), WH_OK. Values are deep-copied out of
 * the patch, so the result shares nothing with doc or patch.
 * Errors: WH_ERR_INVALID for a malformed patch or an operation that cannot apply; eb names
 * the operation index (from 0), its op and pointer, e.g.
 * `op 2 (replace) path "/spec/x": token "x" (#2) not found`. *out is untouched on error. */
WH_NODISCARD enum wh_err wh_patch_apply(const json_t *doc, const json_t *patch, json_t **out,
                                        struct wh_errbuf *eb);

#endif
