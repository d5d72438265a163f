#ifndef WH_GOCOMPAT_GOENC_H
#define WH_GOCOMPAT_GOENC_H

/* JSON exactly as Go's encoding/json writes and reads it, where upstream OpenKruise's output is
 * observable byte for byte (annotation values it json.Marshal()s, errors it reports):
 *  - strings: '"' and '\\' escaped, \b \f \n \r \t, other control characters as \u00xx, HTML
 *    characters < > & as \u003c \u003e \u0026, U+2028/U+2029 escaped, invalid UTF-8 as \ufffd;
 *  - compact output; object keys sorted by byte order where Go marshals a map;
 *  - syntax errors worded as Go's scanner words them ("invalid character 'x' looking for
 *    beginning of value", "unexpected end of JSON input");
 *  - RFC 7386 merge patch as github.com/evanphx/json-patch v5.6.0 MergePatch computes it
 *    (untouched values keep their text, merged and patch objects come out with sorted keys).
 * Thread rule: thread-safe (no shared state). */

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "util/buf.h"
#include "util/err.h"

/* Appends s[0..len) as a Go JSON string (with quotes). Errors: WH_ERR_TOO_BIG from the buffer. */
WH_NODISCARD enum wh_err wh_goenc_append_string(struct wh_buf *b, const char *s, size_t len);

/* Appends v compactly, strings as above; objects with sorted keys when sort_keys (a Go map),
 * else in their jansson order (a Go struct whose fields were inserted in declaration order).
 * Integers print as integers, reals in Go's shortest form. */
WH_NODISCARD enum wh_err wh_goenc_append(struct wh_buf *b, const json_t *v, bool sort_keys);

/* Returns: a new string (caller frees): v with sorted keys, as json.Marshal of a map. */
char *wh_goenc_dumps_sorted(const json_t *v);

/* Checks that s[0..len) is one valid JSON value, as json.Unmarshal's first pass does.
 * Returns true when valid; else false with Go's message in msg (msgsz bytes, truncated). */
bool wh_goenc_valid(const char *s, size_t len, char *msg, size_t msgsz);

/* MergePatch(doc, patch) of evanphx/json-patch v5.6.0. Returns in *out a new string (caller
 * frees). Errors: WH_ERR_INVALID with "Invalid JSON Document" (doc is not JSON, or null) or
 * "Invalid JSON Patch" (patch is not JSON, null, or neither an object nor an array). */
WH_NODISCARD enum wh_err wh_goenc_merge_patch(const char *doc, size_t doclen, const char *patch,
                                               size_t patchlen, char **out,
                                               struct wh_errbuf *eb);

#endif
