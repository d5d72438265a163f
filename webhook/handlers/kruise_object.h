#ifndef WH_HANDLERS_KRUISE_OBJECT_H
#define WH_HANDLERS_KRUISE_OBJECT_H

/* What upstream's webhooks for OpenKruise's apps.kruise.io objects do around their own rules.
 * It is the one home of this frame for every handler of an apps.kruise.io kind served at
 * v1alpha1 and/or v1beta1 that decodes, converts and defaults as upstream's generated handlers
 * do: the job kinds (BroadcastJob, AdvancedCronJob, EphemeralJob), the image and other kinds
 * (ImagePullJob, ImageListPullJob, NodeImage, ContainerRecreateRequest, ResourceDistribution)
 * and the workloads (handlers/workloads/):
 *  - decoding as controller-runtime's admission.Decoder does: the request's version picks the
 *    Go type (v1alpha1 or v1beta1), the object must name that type or nothing
 *    (runtime.DecodeInto) and every member must have the JSON type Go expects; a v1alpha1
 *    object is converted to v1beta1 first (its ConvertTo, conversion/convert.h) where upstream
 *    does;
 *  - the defaulting frame of their mutating handlers: decode, decide whether the Pod templates
 *    get defaults (gate TemplateNoDefaults off, and on UPDATE only when the template changed),
 *    default (in v1beta1 terms where upstream converts first), clear the status where upstream
 *    does, answer nothing when Go's value is unchanged (reflect.DeepEqual) and otherwise patch
 *    the request's object into Go's encoding of the defaulted one
 *    (admission.PatchResponseFromRaw, converted back to v1alpha1 for a v1alpha1 request).
 * Values are held as the request's own JSON (checked by the decoding, quantity texts kept); Go's
 * equality and encoding are asked of the Go-type model.
 * Thread rule: thread-safe, stateless. */

#include <jansson.h>
#include <stdbool.h>

#include "config/features.h"
#include "handlers/handler.h"
#include "util/err.h"

/* The version of a request's resource. */
enum wh_kobj_version { WH_KOBJ_V1ALPHA1, WH_KOBJ_V1BETA1, WH_KOBJ_OTHER };
enum wh_kobj_version wh_kobj_version_of(const struct wh_admission_request *req);

/* Returns: the Go-type model's apps.kruise.io type kind in version v (not WH_KOBJ_OTHER). */
const struct wh_gotype *wh_kobj_type(const char *kind, enum wh_kobj_version v);

/* Decoder.Decode / DecodeRaw of raw (borrowed; NULL or null: "there is no content to decode")
 * into kind at version v, then, when up and v is v1alpha1, ConvertTo v1beta1 (a refusal is
 * "failed to convert v1alpha1->v1beta1: <why>"). WH_KOBJ_OTHER decodes nothing: *out is an
 * empty object, as upstream's version switch without a default case leaves its value.
 * Returns in *out: new ref, the object in v1beta1 terms when up. Errors: WH_ERR_INVALID with
 * the decoder's message in *msg (new string). */
WH_NODISCARD enum wh_err wh_kobj_decode(const json_t *raw, const char *kind,
                                        enum wh_kobj_version v, bool up, json_t **out,
                                        char **msg);

/* The type meta a v1alpha1 object converted up and back down keeps: obj (the converted one) gets
 * raw's apiVersion and kind, the ones Go decoded from the request (ConvertFrom sets only
 * metadata, spec and status); a member raw has not as a string is removed. */
void wh_kobj_keep_type_meta(json_t *obj, const json_t *raw);

/* What a kind's defaults are told besides the object. */
struct wh_kobj_defaulting {
    enum wh_kobj_version v; /* the version of the object, WH_KOBJ_V1BETA1 when via_v1beta1 */
    bool inject;            /* the Pod templates get kruise's Pod spec defaults too */
    bool create;            /* the request is a CREATE */
    const struct wh_config *cfg;
};

/* One kind's defaulting handler, as upstream writes each: decode, decide whether the Pod
 * templates get defaults (gate TemplateNoDefaults off, and on UPDATE only when the template
 * changed), default, and answer nothing when Go's value did not change (reflect.DeepEqual),
 * else a patch from the request's object to Go's encoding of the defaulted one. */
struct wh_kobj_mutator {
    const char *kind;
    /* The kind's SetDefaults on obj, a private JSON object of the kind in version how->v (see
     * go_value for its form). */
    void (*defaults)(json_t *obj, const struct wh_kobj_defaulting *how);
    /* The part of the defaults that reaches the handler's DeepCopy too (NULL when none),
     * applied to the decoded object before the copy is taken: where the kind's DeepCopy is
     * hand-written and shallow, the copy shares the object's pointers, and what the defaults
     * write through them is no change to DeepEqual (it is still in the patch). Only with
     * go_value: the request's JSON form shares the request's subtrees and is never edited. */
    void (*shared_defaults)(json_t *obj, enum wh_kobj_version v);
    /* spec.<template_member> is what the UPDATE comparison looks at; NULL when the kind's
     * defaulting never touches a template (DaemonSet, the image kinds). */
    const char *template_member;
    bool clear_status; /* upstream sets Status to its zero value after defaulting */
    /* Defaulted in v1beta1 terms: a v1alpha1 object is converted up, defaulted and converted
     * back; any other version defaults an empty v1beta1 object, as upstream's switch without a
     * default case leaves it. Without: each version is defaulted as it is, and other versions
     * are 400 "unsupported version". */
    bool via_v1beta1;
    /* The defaults see Go's value of the object (wh_gotype_decode: as Go decodes and encodes
     * it, a null list element as its zero value, times in whole seconds), for defaults written
     * against Go's structs (the image kinds). Without: the request's own JSON pruned to the
     * members Go decodes, values otherwise as written (quantity texts kept, so that a rounding
     * shows as the change it is in Go's value). */
    bool go_value;
};

/* The frame above. Answers through resp (400 for what does not decode, as upstream); a returned
 * error is a 500. */
WH_NODISCARD enum wh_err wh_kobj_mutate(const struct wh_kobj_mutator *m,
                                        const struct wh_handler_ctx *ctx,
                                        const struct wh_admission_request *req,
                                        struct wh_admission_response *resp,
                                        struct wh_errbuf *eb);

/* The version switch of the handlers that serve both versions and answer any other with
 * "unsupported version: <v>" (400): false with resp so answered for WH_KOBJ_OTHER. */
bool wh_kobj_version_or_deny(const struct wh_admission_request *req,
                             struct wh_admission_response *resp, enum wh_kobj_version *v);

/* wh_kobj_decode of raw into kind at v (not WH_KOBJ_OTHER), not converted, as the value Go
 * holds (wh_gotype_decode: empty lists and maps kept as given), for rules that read it. On
 * failure resp is denied with 400 and the decoder's message (admission.Errored) and false is
 * returned. Returns in *out: new ref. */
bool wh_kobj_decode_or_deny(const json_t *raw, const char *kind, enum wh_kobj_version v,
                            json_t **out, struct wh_admission_response *resp);

/* Whether the feature gate of that name (an identifier of config/features.h) is off; then resp
 * is "feature-gate <name> is not enabled" with code 403 and no reason, as upstream's handlers
 * answer (admission.Errored(http.StatusForbidden, ...)). */
#define WH_KOBJ_GATE_OFF(resp, cfg, name)                                                          \
    wh_kobj_gate_off((resp), wh_feature_on(&(cfg)->features, WH_FEATURE_##name), #name)
bool wh_kobj_gate_off(struct wh_admission_response *resp, bool on, const char *name);

#endif
