#ifndef WH_K8S_TYPEMETA_H
#define WH_K8S_TYPEMETA_H

/* How the API machinery's JSON serializer reads an object's apiVersion and kind before it
 * decodes the object into a Go type: the one place for those rules and their messages, for
 * /convert (ConversionReview objects) and for the admission handlers' typed decoding
 * (controller-runtime's Decoder, runtime.DecodeInto). Thread rule: pure functions. */

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "util/err.h"

/* The type meta as upstream reads it twice: once with encoding/json into a two-field struct
 * (keys matched case-insensitively, last wins) to pick the Go type, and once case-sensitively
 * as part of the typed object. Strings are borrowed from the object. */
struct wh_typemeta {
    const char *api, *kind;             /* the first reading (NULL when absent or null) */
    const char *typed_api, *typed_kind; /* the second */
};

/* Reads obj's type meta (obj must be a JSON value; any type). On failure returns
 * WH_ERR_INVALID with *message a new string (caller frees): what Go's decoding of the two-field
 * struct says, "couldn't get version/kind; json parse error: ...". */
WH_NODISCARD enum wh_err wh_typemeta_read(const json_t *obj, struct wh_typemeta *tm,
                                          char **message);

/* runtime.DecodeInto of obj into the Go type kind of API version api ("apps/v1",
 * "apps.kruise.io/v1alpha1"): the type meta must read (as above) and its apiVersion parse; a
 * missing kind, or group and version, is taken from the target; when the target type is in the
 * decoder's scheme (registered), anything left naming another type is
 * "unable to decode <group>/<version>, Kind=<kind> into *<version>.<Kind>" (a type the scheme
 * does not know is unmarshalled into whatever the object names). Returns WH_ERR_INVALID with the
 * message in eb. */
WH_NODISCARD enum wh_err wh_typemeta_decode_into(const json_t *obj, const char *api,
                                                 const char *kind, bool registered,
                                                 struct wh_errbuf *eb);

/* True when runtime.DecodeInto of obj into api/kind (as above) meets an object naming another
 * type that the scheme knows: its apiVersion written into named_api (cap n), its kind in
 * *named_kind (borrowed from obj or kind). The serializer decodes obj into that type before it
 * refuses it, so that type's decoding errors come first. */
bool wh_typemeta_names_another(const json_t *obj, const char *api, const char *kind,
                               char *named_api, size_t n, const char **named_kind);

#endif
