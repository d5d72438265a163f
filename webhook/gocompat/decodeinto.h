#ifndef WH_GOCOMPAT_DECODEINTO_H
#define WH_GOCOMPAT_DECODEINTO_H

/* What controller-runtime's admission Decoder does with a request's object (DecodeRaw, then
 * runtime.DecodeInto with the universal deserializer) when a handler decodes it into a typed
 * object of kruise-manager's scheme, in the order its errors come:
 *  1. no object: "there is no content to decode";
 *  2. the type meta that does not read or parse, a kind the scheme lacks (k8s/typemeta);
 *  3. the object decoded into the type it names (the target, or another registered type):
 *     Go's field errors (gocompat/gotype);
 *  4. a type other than the target: "unable to decode <gvk> into *<version>.<Kind>".
 * Thread rule: pure. */

#include <jansson.h>

#include "util/err.h"

/* raw (borrowed; NULL or JSON null for none) into type kind of API version api. Returns in *out
 * a new ref, the value Go holds (wh_gotype_decode). Errors: WH_ERR_INVALID with the decoder's
 * message in eb. */
WH_NODISCARD enum wh_err wh_decode_into(const json_t *raw, const char *api, const char *kind,
                                        json_t **out, struct wh_errbuf *eb);

#endif
