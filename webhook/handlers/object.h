#ifndef WH_HANDLERS_OBJECT_H
#define WH_HANDLERS_OBJECT_H

/* What upstream's webhooks for its own kinds share (the ImagePullJob, ImageListPullJob and
 * NodeImage handlers, and those built after them): the version switch on
 * request.resource.version, controller-runtime's typed decoding with its messages, and the
 * defaulting frame (decode, default, compare with reflect.DeepEqual, answer Go's encoding of the
 * result as a patch). Thread rule: thread-safe (reads nothing shared). */

#include <jansson.h>
#include <stdbool.h>

#include "admission/review.h"
#include "config/config.h"
#include "util/err.h"

/* The API version ("apps.kruise.io/v1beta1") of request.resource.version when it is v1beta1 or
 * v1alpha1 of the kinds served at both; NULL for any other version. */
const char *wh_object_api_version(const struct wh_admission_request *req);

/* Decoder.DecodeRaw of raw into kind of api_version: "there is no content to decode" when raw
 * is absent or null, runtime.DecodeInto's type-meta rules (kinds of kruise-manager's scheme),
 * then Go's type errors. Returns in *out (may be NULL): new ref, the value Go holds
 * (wh_gotype_decode: empty lists and maps kept as given). Errors: WH_ERR_INVALID with the
 * decoder's words in *msg (new string, caller frees). */
WH_NODISCARD enum wh_err wh_object_decode(const json_t *raw, const char *api_version,
                                          const char *kind, json_t **out, char **msg);

/* The same as an answer: on failure resp is denied with 400 and the message (admission.Errored)
 * and false is returned. */
bool wh_object_decode_or_deny(const json_t *raw, const char *api_version, const char *kind,
                              json_t **out, struct wh_admission_response *resp);

/* A defaulting function: edits obj, the decoded object (wh_object_decode's value). */
typedef void (*wh_object_default_fn)(json_t *obj, const struct wh_admission_request *req);

/* The defaulting webhook of kind: "unsupported version: <v>" (400) for a version other than
 * v1alpha1 and v1beta1, the decoding of request.object (400), then defaults(obj) on the decoded
 * value; an unchanged object is allowed without a patch, a changed one is answered with Go's
 * encoding of it, which the server diffs against the request's object
 * (admission.PatchResponseFromRaw). */
WH_NODISCARD enum wh_err wh_object_mutate(const struct wh_admission_request *req,
                                          struct wh_admission_response *resp, const char *kind,
                                          wh_object_default_fn defaults, struct wh_errbuf *eb);

/* Whether the feature gate of that name (an identifier of config/features.h) is off; then resp
 * is "feature-gate <name> is not enabled" with code 403 and no reason, as upstream's handlers
 * answer (admission.Errored(http.StatusForbidden, ...)). */
#define WH_OBJECT_GATE_OFF(resp, cfg, name)                                                        \
    wh_object_gate_off((resp), wh_feature_on(&(cfg)->features, WH_FEATURE_##name), #name)
bool wh_object_gate_off(struct wh_admission_response *resp, bool on, const char *name);

#endif
