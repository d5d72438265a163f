#ifndef WH_UTIL_YAML_H
#define WH_UTIL_YAML_H

/* YAML -> JSON, with libyaml, for --config files, kubeconfig, standalone state (--state,
 * multi-document) and offline tools. JSON input is accepted too (JSON is YAML).
 *
 * The result is what Kubernetes makes of the same text: sigs.k8s.io/yaml, which decodes with
 * go-yaml v2 (YAML 1.1 rules) and then encodes JSON. In detail, for plain (unquoted) scalars:
 *  - null: "", "~", "null", "Null", "NULL";
 *  - booleans: "true"/"false" in the three spellings (true, True, TRUE), and, as go-yaml v2
 *    and therefore kubectl do, the YAML 1.1 words y/Y/yes/Yes/YES, n/N/no/No/NO, on/On/ON,
 *    off/Off/OFF. Quote them ("yes") to keep strings;
 *  - integers as Go's strconv.ParseInt with base 0 after removing every "_": decimal, 0x hex,
 *    0o or a leading 0 for octal (0777 is 511), 0b binary, optional +/- sign. "08" is not
 *    octal, so go-yaml reads it as the float 8;
 *  - floats: 1.5, 1e3, .5, -1.5E+3 (YAML 1.1's syntax), .inf/-.inf/.nan (all three case
 *    forms). JSON cannot hold inf or nan: they are an error naming file:line:col. A float
 *    too large for a double stays a string, as in go-yaml;
 *  - numbers come out as Go's json.Marshal prints them, so an integral float (1.0, 1e3)
 *    becomes a JSON integer (1, 1000) when it fits in int64, and an integer outside int64
 *    (9223372036854775808, 0xFFFFFFFFFFFFFFFFF) becomes a JSON real, the nearest double
 *    (jansson has no bigger integer; go-yaml would keep every digit);
 *  - timestamps and everything else stay strings.
 * Quoted scalars ('x', "x") and block scalars (|, >) are always strings. Explicit tags win:
 * !!str and !!binary keep the text as a string (!!binary is NOT base64-decoded, unlike
 * go-yaml), !!int, !!float, !!bool and !!null must resolve to that type (!!float accepts an
 * integer) or the load fails; other tags, including "!" and local ones, leave a string.
 *
 * Mapping keys become JSON strings as sigs.k8s.io/yaml converts them: a plain key is resolved
 * like a value and then printed: 1 -> "1", 0x10 -> "16", true and yes -> "true", 1.5 -> "1.5"
 * (Go's shortest float32 form: 1e6 -> "1e+06"), .inf -> ".inf". A null key, or a sequence
 * or mapping used as a key, is an error. Duplicate keys (after that conversion) are an error:
 * `file:line:col: duplicate key "x"`.
 *
 * Anchors and aliases are supported; an anchor may be redefined (the latest wins), an alias
 * to a node that contains it is an error. Merge keys ("<<: *base", "<<: [*a, *b]", or an
 * inline mapping) are supported: keys written in the mapping always win over merged ones, and
 * among merge sources the first listed wins (go-yaml v2 lets a merge written after an explicit
 * key overwrite it; ours never does). Alias expansion is capped to stop "billion laughs":
 * aliases may add at most max(WH_YAML_ALIAS_UNITS, 4 x input length) units, a unit being a
 * node or a byte of scalar or key text, and nesting (aliases included) is capped at
 * WH_YAML_MAX_DEPTH levels.
 *
 * Empty documents, and documents that are just null ("---\n~\n"), are skipped, as kubectl
 * skips them. Errors read `file:line:col: message` with 1-based line and column.
 *
 * Thread rule: thread-safe (no shared state). */

#include <jansson.h>
#include <stddef.h>

#include "util/err.h"

#define WH_YAML_MAX_DEPTH 512
#define WH_YAML_ALIAS_UNITS 1000000

struct wh_yaml_limits {
    size_t max_depth;       /* 0: WH_YAML_MAX_DEPTH */
    size_t max_alias_units; /* 0: max(WH_YAML_ALIAS_UNITS, 4 x input length) */
};

/* Parses buf[0..len) (UTF-8, or UTF-16 with a BOM). filename is only used in messages
 * (NULL: "<input>").
 * Returns: new ref in *docs, a JSON array with one element per non-empty document, WH_OK.
 * Errors: WH_ERR_PARSE (syntax, a scalar that does not fit its tag, inf/nan, duplicate or
 * unsupported key, unknown alias), WH_ERR_TOO_BIG (alias expansion or nesting over the
 * limits); eb gets `file:line:col: message`. *docs is untouched on error. */
WH_NODISCARD enum wh_err wh_yaml_load(const char *buf, size_t len, const char *filename,
                                      json_t **docs, struct wh_errbuf *eb);

/* The same with explicit limits (lim may be NULL for the defaults). */
WH_NODISCARD enum wh_err wh_yaml_load_limits(const char *buf, size_t len, const char *filename,
                                             const struct wh_yaml_limits *lim, json_t **docs,
                                             struct wh_errbuf *eb);

/* Reads path (at most max_bytes bytes) and loads it as wh_yaml_load does, naming path in
 * messages. Errors: as wh_yaml_load, plus WH_ERR_IO (cannot open or read) and WH_ERR_TOO_BIG
 * (file over max_bytes). */
WH_NODISCARD enum wh_err wh_yaml_load_file(const char *path, size_t max_bytes, json_t **docs,
                                           struct wh_errbuf *eb);

/* Where each value was written, for messages that point into the file (--check-config): as
 * the loaders above, and *marks (new ref) gets one JSON object per document of *docs, mapping
 * the JSON pointer (RFC 6901) of every value to its 1-based line: "" the document,
 * "/spec/selector" at the line of its key, "/spec/containers/0" where the item starts. What
 * an alias or a merge key brings in has no entry of its own. *marks is untouched on error. */
WH_NODISCARD enum wh_err wh_yaml_load_marks(const char *buf, size_t len, const char *filename,
                                            json_t **docs, json_t **marks, struct wh_errbuf *eb);
WH_NODISCARD enum wh_err wh_yaml_load_file_marks(const char *path, size_t max_bytes,
                                                 json_t **docs, json_t **marks,
                                                 struct wh_errbuf *eb);

/* The line of the value at path (borrowed: a JSON array of member names and list indices, from
 * the document's root) in one document's marks: its own, else its nearest ancestor's (a value
 * an alias or merge key brought in); 0 when marks has none. */
size_t wh_yaml_mark_line(const json_t *marks, const json_t *path);

#endif
