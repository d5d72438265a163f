#ifndef WH_GOCOMPAT_GOEQUAL_H
#define WH_GOCOMPAT_GOEQUAL_H

/* Go's equality of two decoded values, asked of their JSON: what reflect.DeepEqual and
 * apimachinery's equality.Semantic.DeepEqual say of the Go values encoding/json would decode
 * the two JSON values into (a type of the Go-type model, gocompat/gotype.h).
 *
 * The JSON is read as Go decodes it: members the type lacks are ignored, an absent or null
 * member is the field's zero value (nil for pointers, slices and maps), "[]" and "{}" are empty
 * but not nil. Then:
 *  - reflect mode (reflect.DeepEqual): a nil slice or map differs from an empty one; a
 *    resource.Quantity is equal to another only when Go keeps the same representation, taken
 *    here as the same text (trimmed; "1" and "1000m" differ, as their mantissa and scale do);
 *  - semantic mode (equality.Semantic.DeepEqual): nil and empty slices and maps are equal,
 *    quantities compare by value (Cmp), times by their instant.
 * Both values must have passed wh_gotype_check for t (a value of the wrong JSON type compares
 * as its zero value).
 *
 * Why this and util/jsoneq.h both exist: wh_json_equal compares JSON as JSON (with a few number
 * and null rules), knowing no types; this compares what the JSON decodes to, so it needs the
 * field's Go type to know that an unknown member does not count, that "1" and "1000m" are one
 * quantity semantically and two reflectively, that a nil pointer differs from a pointer to a
 * zero value, or that 5 and "5" are two IntOrStrings. A raw member (apiextensions JSON,
 * RawExtension) has no type to go by: it is left to wh_json_equal, exactly.
 * Thread rule: thread-safe (the model is immutable); the values are only read. */

#include <jansson.h>
#include <stdbool.h>

#include "gocompat/gotype.h"

enum wh_goeq_mode { WH_GOEQ_REFLECT, WH_GOEQ_SEMANTIC };

/* a, b: borrowed; NULL is an absent value (Go's zero value of t). */
bool wh_go_deep_equal(const json_t *a, const json_t *b, const struct wh_gotype *t,
                      enum wh_goeq_mode mode);

/* The same for two structs of struct type t with the fields named in skip (JSON names,
 * NULL-terminated) left out: a copy of a with those fields taken from b, compared with b. */
bool wh_go_deep_equal_except(const json_t *a, const json_t *b, const struct wh_gotype *t,
                             enum wh_goeq_mode mode, const char *const *skip);

#endif
