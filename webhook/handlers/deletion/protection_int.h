#ifndef WH_HANDLERS_DELETION_PROTECTION_INT_H
#define WH_HANDLERS_DELETION_PROTECTION_INT_H

/* Internals shared by the deletion-protection handler files (the files of handlers/deletion/); only
 * webhook/handlers/ includes this. Thread rule: thread-safe, stateless. */

#include <jansson.h>
#include <stdbool.h>

#include "handlers/deletion/protection.h"

/* The fixed start of every protection message (the word order is upstream's, not a typo). */
#define WH_DP_FORBIDDEN "forbidden by ResourcesProtectionDeletion for "

/* The protected kinds, as our own counter names them (group and kind labels of
 * kruise_webhook_deletion_protection_denied_total). */
enum wh_dp_kind {
    WH_DP_KIND_NAMESPACE,
    WH_DP_KIND_CRD,
    WH_DP_KIND_DEPLOYMENT,
    WH_DP_KIND_REPLICASET,
    WH_DP_KIND_STATEFULSET,
    WH_DP_KIND_CLONESET,
    WH_DP_KIND_ADVANCED_STATEFULSET,
    WH_DP_KIND_UNITEDDEPLOYMENT,
    WH_DP_KIND_SERVICE,
    WH_DP_KIND_INGRESS,
    WH_DP_KIND_COUNT
};

/* The type an old object is decoded into: the API version and kind it must carry (or lack;
 * then they default to these); the Go type is the model's (gocompat/gotype.h). */
struct wh_dp_type {
    const char *api_version; /* "apps/v1" */
    const char *kind;        /* "Deployment" */
    /* Not in kruise-manager's scheme (the CRD types): its decoder then unmarshals into the
     * type whatever apiVersion and kind the object names, instead of refusing another type. */
    bool unregistered;
};

/* What upstream's decoder would reject in obj (borrowed): not an object, an apiVersion/kind
 * naming another type, or a member of the wrong JSON type anywhere in the typed object (Go's
 * decoding, wh_gotype_check). Returns WH_ERR_INVALID with the reason in eb. */
WH_NODISCARD enum wh_err wh_dp_decode_check(const json_t *obj, const struct wh_dp_type *t,
                                            struct wh_errbuf *eb);

/* Steps 1-2 of spec 4.1 for the dedicated handlers: true (and resp allowed) when the request
 * is not a DELETE, targets a subresource, or carries no old object. */
bool wh_dp_skip_dedicated(const struct wh_admission_request *req,
                          struct wh_admission_response *resp);

/* Spec 4.1 step 3: checks req->old_object against t; on failure denies with 400 and the
 * decoder's reason and returns false. */
bool wh_dp_decode_or_deny(const struct wh_admission_request *req, const struct wh_dp_type *t,
                          struct wh_admission_response *resp);

/* Spec 4.1 steps 4-5: true when the old object is exempt (gate ResourcesDeletionProtection
 * off, or the object already being deleted); resp is then allowed. */
bool wh_dp_exempt(const struct wh_handler_ctx *ctx, const json_t *old,
                  struct wh_admission_response *resp);

/* Returns: borrowed; the label value of old, or NULL when absent (a JSON null value reads as
 * "", as Go decodes it). */
const char *wh_dp_label(const json_t *old);

/* True when obj (borrowed) has a non-null metadata.deletionTimestamp. */
bool wh_dp_deleting(const json_t *obj);

/* The workload rule of spec 5.3 on a decoded old object that passed wh_dp_exempt: denies (403)
 * for Always, and for Cascading with spec.replicas > 0; allows otherwise. */
void wh_dp_workload_rule(const struct wh_admission_request *req, const json_t *old,
                         enum wh_dp_kind k, struct wh_admission_response *resp);

/* A protection denial: 403 with the formatted message and no reason (upstream's
 * admission.Errored), counted in kruise_webhook_deletion_protection_denied_total and, for
 * Namespaces, CRDs and workloads, in upstream's counter (workloads are named there by
 * request.kind.kind, as upstream does), and logged. */
void wh_dp_deny(const struct wh_admission_request *req, const json_t *old, enum wh_dp_kind k,
                struct wh_admission_response *resp, const char *fmt, ...) WH_PRINTF(5, 6);

#endif
