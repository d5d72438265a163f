#ifndef WH_UTIL_YAML_EMIT_H
#define WH_UTIL_YAML_EMIT_H

/* JSON -> YAML with libyaml's emitter, for offline tools that print Kubernetes objects the way
 * kubectl does (block style, mapping keys sorted, "- " items at the parent's indentation).
 * Strings that YAML would read back as something else ("true", "1", "null", "", "0x1f", "yes")
 * are quoted; multi-line strings use the literal block style when libyaml allows it. Reading
 * the output with util/yaml.h gives back the same JSON.
 * Thread rule: thread-safe (no shared state). */

#include <jansson.h>
#include <stddef.h>

#include "util/err.h"

/* Writes v as one YAML document (no "---" or "..." markers). Returns in *out a new string
 * (caller frees) and its length in *len (may be NULL). Errors: WH_ERR_INTERNAL when libyaml
 * refuses an event (a programming error in practice), with its message. */
WH_NODISCARD enum wh_err wh_yaml_emit(const json_t *v, char **out, size_t *len,
                                      struct wh_errbuf *eb);

#endif
