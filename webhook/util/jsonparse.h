#ifndef WH_UTIL_JSONPARSE_H
#define WH_UTIL_JSONPARSE_H

/* A strict RFC 8259 JSON parser that builds jansson values. jansson's own parser spends about
 * 180 instructions per byte (4.3 KB Pod review: ~100 us, more than the whole answer may
 * take); this one lexes with plain pointer loops and builds the same values with jansson's
 * constructors, several times faster. Differences from json_loadb, all on inputs the API
 * server does not send:
 *  - "\u0000" is accepted inside string values (Go accepts it); in object keys it is an error;
 *  - an integer outside int64 becomes a real, as Go's decoder makes a float64 of it;
 *  - nesting deeper than WH_JSONPARSE_MAX_DEPTH is an error.
 * Duplicate object keys: the last one wins, as in Go and jansson.
 * Sharing: in a body of 64 KiB or more parsed in a request arena (util/arena.h), a member
 * "oldObject" that follows a member "object" of the same object (an AdmissionReview of an
 * UPDATE) shares with it every container of 64 bytes or more whose text is the same at the same
 * place: the value there is the object's value, with one reference more. The tree is the same
 * as without sharing for every reader; only writers must not change a value in place (the
 * request's values never are: util/cow.h copies what is shared).
 * Memory: when jansson cannot allocate (a request's arena over its budget, see util/arena.h)
 * parsing stops with err->out_of_memory set; whatever was built is released. Any JSON value is
 * accepted at the top level; trailing whitespace is allowed, trailing garbage is not. Thread rule:
 * thread-safe. */

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#define WH_JSONPARSE_MAX_DEPTH 1000

struct wh_jsonparse_error {
    int line;      /* 1-based */
    int column;    /* 1-based, in bytes */
    size_t offset; /* bytes from the start */
    char text[96];
    bool out_of_memory; /* an allocation failed: the input is not at fault */
};

/* Returns: new ref, or NULL with err filled (err may be NULL). */
json_t *wh_json_parse(const char *buf, size_t len, struct wh_jsonparse_error *err);

/* Where the text of parsed objects and arrays lies in the input, for those spelled exactly as
 * util/json.h's writer would print them (no whitespace, no escapes, only ASCII strings,
 * integers in int64 but "-0", no duplicate keys): a writer copies such a container's text
 * instead of serialising it again (a converted object is mostly its input, unchanged).
 * Rule: valid only while the input buffer and the parsed values live, and only if no address
 * of a freed parsed container is reused meanwhile (parse in the request arena, which never
 * reuses memory within a request). A container recorded here must not be changed in place;
 * one whose member or element count changed is not used (a cheap guard, not a proof).
 * Thread rule: one thread (the request's). */
struct wh_json_spans;

/* wh_json_parse that also fills *spans (new; NULL when parsing fails). Release it with
 * wh_json_spans_free before the input buffer goes. */
json_t *wh_json_parse_spans(const char *buf, size_t len, struct wh_jsonparse_error *err,
                            struct wh_json_spans **spans);

/* The text of container v (text/len into the parsed input), when recorded. */
bool wh_json_spans_get(const struct wh_json_spans *spans, const json_t *v, const char **text,
                       size_t *len);

void wh_json_spans_free(struct wh_json_spans *spans);

/* Where each element of one array lies in the input, in order. */
struct wh_json_deferred {
    size_t n, cap;
    struct {
        size_t off, len;
    } *items;
    unsigned arrays; /* arrays found at the path: more than one when its keys repeat */
    int deepest;     /* how deep the elements' values lie in the whole document, at most */
};

/* wh_json_parse, except that the elements of the array at the top-level object's member
 * `outer`, member `inner` (a ConversionReview's request.objects) are only delimited, neither
 * checked nor built: each is null in the tree, and its text is deferred->items[i], for the
 * caller to parse alone (with wh_json_parse_spans, which checks it). The document is the valid
 * JSON wh_json_parse reads, with the same tree but for those nulls, when this succeeds, every
 * item parses alone, `arrays` is at most 1 (else the items are the last array's and the others
 * were not checked) and `deepest` is at most WH_JSONPARSE_MAX_DEPTH. In every other case
 * (including a failure here, whose error may differ from wh_json_parse's) the caller parses
 * the document with wh_json_parse for its error or its tree. deferred: zero-initialised or
 * reused; release with wh_json_deferred_fini. */
json_t *wh_json_parse_deferring(const char *buf, size_t len, struct wh_jsonparse_error *err,
                                const char *outer, const char *inner,
                                struct wh_json_deferred *deferred);
void wh_json_deferred_fini(struct wh_json_deferred *deferred);

#endif
