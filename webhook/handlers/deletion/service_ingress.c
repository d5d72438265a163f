/* Deletion protection of Services and Ingresses (spec sections 5.4 and 5.5): only Always
 * protects; Cascading means nothing for them. Upstream counts these denials in no metric and
 * writes no protection log; our own denial counter does count them. */
#include "handlers/deletion/protection.h"

#include <string.h>

#include "handlers/deletion/protection_int.h"
#include "k8s/kruise.h"
#include "util/str.h"

static const struct wh_dp_type service_type = {"v1", "Service", false};
static const struct wh_dp_type ingress_v1 = {"networking.k8s.io/v1", "Ingress", false};
static const struct wh_dp_type ingress_v1beta1 = {"networking.k8s.io/v1beta1", "Ingress", false};

static void always_rule(const struct wh_handler_ctx *ctx, const struct wh_admission_request *req,
                        const struct wh_dp_type *type, enum wh_dp_kind k,
                        struct wh_admission_response *resp)
{
    if (!wh_dp_decode_or_deny(req, type, resp) || wh_dp_exempt(ctx, req->old_object, resp))
        return;
    if (wh_str_eq(wh_dp_label(req->old_object), WH_KRUISE_DELETE_PROTECTION_ALWAYS))
        wh_dp_deny(req, req->old_object, k, resp,
                   WH_DP_FORBIDDEN WH_KRUISE_LABEL_DELETE_PROTECTION
                   "=" WH_KRUISE_DELETE_PROTECTION_ALWAYS);
    else
        wh_admission_allow(resp, NULL);
}

static enum wh_err admit_service(const struct wh_handler_ctx *ctx,
                                 const struct wh_admission_request *req,
                                 struct wh_admission_response *resp, struct wh_errbuf *eb)
{
    (void)eb;
    if (!wh_dp_skip_dedicated(req, resp))
        always_rule(ctx, req, &service_type, WH_DP_KIND_SERVICE, resp);
    return WH_OK;
}

static enum wh_err admit_ingress(const struct wh_handler_ctx *ctx,
                                 const struct wh_admission_request *req,
                                 struct wh_admission_response *resp, struct wh_errbuf *eb)
{
    (void)eb;
    if (wh_dp_skip_dedicated(req, resp))
        return WH_OK;
    if (strcmp(req->kind.version, "v1") == 0)
        always_rule(ctx, req, &ingress_v1, WH_DP_KIND_INGRESS, resp);
    else if (strcmp(req->kind.version, "v1beta1") == 0)
        always_rule(ctx, req, &ingress_v1beta1, WH_DP_KIND_INGRESS, resp);
    else
        /* Upstream crashes into a 500 here (no decoded object); the configuration never sends
         * other versions, so allow as the CRD handler does (spec 5.5). */
        wh_admission_allow(resp, NULL);
    return WH_OK;
}

const struct wh_route wh_dp_service_route = {
    .path = "/validate-service",
    .kind = WH_ROUTE_VALIDATE,
    .admit = admit_service,
    .enabled = wh_dp_enabled_service_ingress,
    .setup = wh_dp_setup,
    .entries = {{.name = "vservice.kb.io",
                 .group = "",
                 .versions = {"v1"},
                 .resource = "services",
                 .operations = WH_WEBHOOK_DELETE,
                 .object_label = WH_KRUISE_LABEL_DELETE_PROTECTION}},
};

const struct wh_route wh_dp_ingress_route = {
    .path = "/validate-ingress",
    .kind = WH_ROUTE_VALIDATE,
    .admit = admit_ingress,
    .enabled = wh_dp_enabled_service_ingress,
    .setup = wh_dp_setup,
    .entries = {{.name = "vingress.kb.io",
                 .group = "networking.k8s.io",
                 .versions = {"v1", "v1beta1"},
                 .resource = "ingresses",
                 .operations = WH_WEBHOOK_DELETE,
                 .object_label = WH_KRUISE_LABEL_DELETE_PROTECTION}},
};
