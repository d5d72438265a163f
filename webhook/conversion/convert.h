#ifndef WH_CONVERSION_CONVERT_H
#define WH_CONVERSION_CONVERT_H

/* Converts the objects of a ConversionReview request (conversion.md sections 2.4 and 2.5, and
 * the per-kind sections 5-19): the fifteen kruise kinds with a v1alpha1 and a v1beta1 version,
 * in both directions, with upstream's error texts for malformed, unregistered, cross-group and
 * same-version objects.
 *
 * Sharing: a converted object shares every subtree that the conversion leaves unchanged with
 * its input (they are the same json_t, reference-counted). Neither the input nor the output
 * may be modified while the other is in use; encoding and freeing are fine in any order.
 * Thread rule: thread-safe (the conversion tables are compiled once, on first use, under
 * pthread_once, and are immutable afterwards). */

#include <jansson.h>
#include <stddef.h>

#include "util/err.h"

/* Converts every object of a ConversionReview request to desired_api_version, in order, with
 * the semantics of spec section 2.4/2.5 (first error aborts; no partial results).
 * objects: borrowed; the request's "objects" member (may be NULL or an empty array: then
 * *out = NULL, success).
 * On success returns WH_OK and *out = new ref, a JSON array of converted objects.
 * On failure returns WH_ERR_INVALID and *message = a new string (caller frees) with the failure
 * text (spec 2.5 texts; a wrong-typed field names the object and the field). */
WH_NODISCARD enum wh_err wh_convert_objects(const char *desired_api_version, const json_t *objects,
                                            json_t **out, char **message);

/* One object. Returns: as above, *out a new ref. */
WH_NODISCARD enum wh_err wh_convert_object(const char *desired_api_version, const json_t *object,
                                           json_t **out, char **message);

/* Whether desired_api_version is a GROUP/VERSION objects can be converted to (for `convert
 * --to`; the webhook itself answers upstream's texts instead). WH_ERR_INVALID with eb saying
 * what is wrong: no group, a group with nothing to convert (naming those there are), or a
 * version the group does not have (naming its versions). */
WH_NODISCARD enum wh_err wh_convert_check_target(const char *desired_api_version,
                                                 struct wh_errbuf *eb);

/* The kinds /convert converts (each at v1alpha1 and v1beta1), in a stable order, for tools that
 * must cover every one (the CRD generator, the manifests' checks). Returns their number; the
 * i-th (i below that number) is *group and *kind (static strings) when those are not NULL. */
size_t wh_convert_kinds(size_t i, const char **group, const char **kind);

/* What handlers that read both versions in v1beta1 terms use: object (borrowed), a v1alpha1
 * object of the convertible kind `kind`, converted to v1beta1 by the same rules (its apiVersion
 * and kind are set; they need not be there before). Returns in *out: new ref (sharing as
 * above). Errors: WH_ERR_INVALID (a kind that does not convert, a field of the wrong type, a
 * rule that refuses) with *message (caller frees). */
WH_NODISCARD enum wh_err wh_convert_up(const char *kind, const json_t *object, json_t **out,
                                       char **message);

/* The v1alpha1 SidecarSet's spec.namespace (conversion.md 7.1), for every reader of a v1alpha1
 * SidecarSet: a non-empty spec.namespace stands for the namespaceSelector
 * {"matchLabels": {"kubernetes.io/metadata.name": <namespace>}}, which replaces any
 * namespaceSelector. spec: borrowed, a v1alpha1 SidecarSet's spec (may be NULL).
 * Returns: new ref, that selector; NULL when spec names no namespace. */
json_t *wh_convert_sidecarset_namespace(const json_t *spec);

#endif
