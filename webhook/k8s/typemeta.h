#ifndef WH_K8S_TYPEMETA_H
#define WH_K8S_TYPEMETA_H

/* How the API machinery's JSON serializer reads an object's apiVersion and kind before it
 * decodes the object into a Go type: the one place for those rules and their messages, for
 * /convert (ConversionReview objects) and for the admission handlers' typed decoding
 * (controller-runtime's Decoder, runtime.DecodeInto). Thread rule: pure functions. */

#include <jansson.h>
#include <stdbool.h>

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

/* The type runtime.DecodeInto decodes obj into before it compares it with the target: when
 * that is a registered type other than the target, the serializer unmarshals obj into it first
 * (so its field errors come before the mismatch). */
struct wh_typemeta_named {
    bool other;         /* obj names a registered type other than the target */
    char api[128];      /* its API version ("apps.kruise.io/v1alpha1") */
    char kind[128];     /* and kind */
    char mismatch[400]; /* what DecodeInto says once that decoding succeeded */
};

/* wh_typemeta_decode_into, with the mismatch of a registered type returned in named rather than
 * as an error: WH_OK then means that obj decodes into the target (named->other false) or into
 * the type named (named->other true). Errors as wh_typemeta_decode_into's others. */
WH_NODISCARD enum wh_err wh_typemeta_resolve(const json_t *obj, const char *api, const char *kind,
                                             bool registered, struct wh_typemeta_named *named,
                                             struct wh_errbuf *eb);

#endif
