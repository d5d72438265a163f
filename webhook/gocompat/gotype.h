#ifndef WH_GOCOMPAT_GOTYPE_H
#define WH_GOCOMPAT_GOTYPE_H

/* What Go's encoding/json does to a Kubernetes object that is decoded into its typed struct and
 * encoded again, for the places where upstream's output depends on it: the SidecarSet hash (the
 * exact bytes of the containers) and the SidecarSet mutating webhook (whose patch turns the raw
 * request object into the Go serialisation of the defaulted struct).
 *
 * A type is a table of fields in Go declaration order, each with its JSON name, its type and
 * its omitempty/pointer flags. Normalising a value against a type:
 *   - drops members the type does not have (Kubernetes decodes case-sensitively and ignores
 *     unknown fields);
 *   - drops omitempty members whose value is empty ("", 0, false, null, [] or {});
 *   - adds non-omitempty members that are missing, with Go's zero encoding ("" / 0 / false for
 *     scalars, null for nil slices, maps and pointers, the zero struct for struct values); struct
 *     values are never omitted, even with omitempty ("resources": {}, "creationTimestamp": null);
 *   - prints quantities as the API machinery does (k8s/quantity.h) and times as RFC 3339 UTC
 *     seconds;
 *   - orders struct members as declared and map members by key.
 * A value of the wrong JSON type (a string for an int32, 1.5 for an int32, an object for a
 * string) is an error, as it is for Go's decoder.
 *
 * Types covered (k8s.io/api v0.32, apimachinery v0.32, OpenKruise apps v1alpha1/v1beta1):
 * SidecarSet (both versions) with ObjectMeta, LabelSelector, Container and all its nested
 * types, Volume with every volume source, LocalObjectReference, IntOrString, Quantity, Time.
 *
 * Thread rule: the type tables are immutable; the functions share no state. */

#include <jansson.h>
#include <stdbool.h>

#include "util/buf.h"
#include "util/err.h"

struct wh_gojson_type;

extern const struct wh_gojson_type wh_gojson_sidecarset_v1beta1;
extern const struct wh_gojson_type wh_gojson_sidecarset_v1alpha1;
extern const struct wh_gojson_type wh_gojson_sidecar_container; /* v1alpha1 = v1beta1 */
extern const struct wh_gojson_type wh_gojson_container;         /* core/v1 Container */
extern const struct wh_gojson_type wh_gojson_volume;            /* core/v1 Volume */
extern const struct wh_gojson_type wh_gojson_label_selector;

/* Decodes v (borrowed, not modified) as Go would into type t and encodes it again.
 * list: v is a list of t ([]T; null/absent stays null). Returns in *out: new ref.
 * WH_ERR_INVALID with a message naming the field when a value has the wrong type. */
WH_NODISCARD enum wh_err wh_gojson_normalize(const json_t *v, const struct wh_gojson_type *t,
                                             bool list, json_t **out, struct wh_errbuf *eb);

/* Appends v to b as Go's json.Marshal writes it: compact, object members in v's order, strings
 * with Go's escapes (\u003c \u003e \u0026 \u2028 \u2029, invalid UTF-8 as \ufffd), integers as
 * integers. WH_ERR_TOO_BIG when b's cap is reached. */
WH_NODISCARD enum wh_err wh_gojson_dump(const json_t *v, struct wh_buf *b);

#endif
