#ifndef WH_JSONPATCH_POINTER_H
#define WH_JSONPATCH_POINTER_H

/* RFC 6901 JSON Pointers: building them token by token (escaping "~" as "~0" and "/" as "~1"),
 * splitting them back into unescaped tokens, and resolving them in a document.
 *
 * Tokens are (pointer, length) pairs everywhere, because a JSON object key may contain a NUL
 * ("\u0000") and such a key must survive a diff and its patch unchanged.
 *
 * Thread rule: thread-safe (no shared state); a struct wh_pointer or a wh_buf belongs to one
 * thread at a time. */

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "util/buf.h"
#include "util/err.h"

/* Appends tok[0..len) to b with "~" written as "~0" and "/" as "~1" (no leading "/").
 * Errors: WH_ERR_TOO_BIG when b's cap is reached (b is then unchanged). */
WH_NODISCARD enum wh_err wh_pointer_escape(struct wh_buf *b, const char *tok, size_t len);

/* Appends "/" and the escaped token: b holds a pointer being built, starting from "" (the
 * whole document). Errors: WH_ERR_TOO_BIG as above (b is then unchanged). */
WH_NODISCARD enum wh_err wh_pointer_append(struct wh_buf *b, const char *tok, size_t len);
/* Appends "/" and the decimal array index idx. Errors: as above. */
WH_NODISCARD enum wh_err wh_pointer_append_index(struct wh_buf *b, size_t idx);

/* Shortens b to its first len bytes, for taking back the last appended token(s). */
void wh_pointer_truncate(struct wh_buf *b, size_t len);

/* A pointer split into unescaped reference tokens; "" has none (the whole document). */
struct wh_pointer_tok {
    const char *s; /* NUL-terminated; may contain NULs, so use len */
    size_t len;
};
struct wh_pointer {
    size_t ntok;
    struct wh_pointer_tok *tok;
    char *_mem;
};

/* Splits ptr[0..len) into tokens. The pointer must be "" or start with "/", and every "~"
 * must be followed by "0" or "1". On success p owns its memory: release with
 * wh_pointer_fini. On error p is left empty (wh_pointer_fini is still safe).
 * Errors: WH_ERR_INVALID, with the reason in eb (may be NULL). */
WH_NODISCARD enum wh_err wh_pointer_parse(const char *ptr, size_t len, struct wh_pointer *p,
                                          struct wh_errbuf *eb);
void wh_pointer_fini(struct wh_pointer *p);

/* True when the pointer a is a proper prefix of b, token by token ("/a" is one of "/a/b",
 * not of "/ab" and not of "/a"). */
bool wh_pointer_is_proper_prefix(const struct wh_pointer *a, const struct wh_pointer *b);

/* Parses an RFC 6901 array index: "0" or a non-zero digit followed by digits (no sign, no
 * leading zero, no "-"), fitting in a size_t. Returns false otherwise. */
bool wh_pointer_index(const char *tok, size_t len, size_t *out);

/* Follows the first n tokens of p from doc. Array steps need a valid index below the array's
 * size ("-" names no element).
 * Returns: borrowed ref (valid while doc lives) in *out, WH_OK; WH_ERR_NOT_FOUND when a step
 * is missing (eb names the first missing token), WH_ERR_INVALID when a step would enter a
 * scalar. *out is untouched on error. */
WH_NODISCARD enum wh_err wh_pointer_walk(const json_t *doc, const struct wh_pointer *p, size_t n,
                                         json_t **out, struct wh_errbuf *eb);

/* Parses ptr[0..len) and resolves it in doc (wh_pointer_parse + wh_pointer_walk).
 * Returns: borrowed ref, valid while doc lives, in *out. Errors: as those two. */
WH_NODISCARD enum wh_err wh_pointer_get(const json_t *doc, const char *ptr, size_t len,
                                        json_t **out, struct wh_errbuf *eb);

#endif
