#include "handlers/deletion/protection.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "config/features.h"
#include "gocompat/decodeinto.h"
#include "gocompat/gotype.h"
#include "handlers/deletion/protection_int.h"
#include "k8s/kruise.h"
#include "k8s/typemeta.h"
#include "log/log.h"
#include "metrics/metrics.h"
#include "util/json.h"
#include "util/str.h"

#define DENIED_METRIC "kruise_webhook_deletion_protection_denied_total"
#define DENIED_HELP "Deletions denied by policy.kruise.io/delete-protection, by kind."

static const struct {
    const char *group, *kind;
} kinds[WH_DP_KIND_COUNT] = {
    [WH_DP_KIND_NAMESPACE] = {"", "Namespace"},
    [WH_DP_KIND_CRD] = {"apiextensions.k8s.io", "CustomResourceDefinition"},
    [WH_DP_KIND_DEPLOYMENT] = {"apps", "Deployment"},
    [WH_DP_KIND_REPLICASET] = {"apps", "ReplicaSet"},
    [WH_DP_KIND_STATEFULSET] = {"apps", "StatefulSet"},
    [WH_DP_KIND_CLONESET] = {WH_KRUISE_APPS, "CloneSet"},
    [WH_DP_KIND_ADVANCED_STATEFULSET] = {WH_KRUISE_APPS, "StatefulSet"},
    [WH_DP_KIND_UNITEDDEPLOYMENT] = {WH_KRUISE_APPS, "UnitedDeployment"},
    [WH_DP_KIND_SERVICE] = {"", "Service"},
    [WH_DP_KIND_INGRESS] = {"networking.k8s.io", "Ingress"},
};

/* --- decoding ------------------------------------------------------------------------------ */

enum wh_err wh_dp_decode_check(const json_t *obj, const struct wh_dp_type *t, struct wh_errbuf *eb)
{
    enum wh_err rc = wh_decode_into_check(obj, t->api_version, t->kind, !t->unregistered, eb);
    if (rc)
        return rc;
    const struct wh_gotype *type = wh_gotype_lookup(t->api_version, t->kind);
    if (!type)
        WH_PANIC("the Go-type model has no %s %s", t->api_version, t->kind);
    return wh_gotype_check(obj, type, eb);
}

/* --- common steps -------------------------------------------------------------------------- */

bool wh_dp_skip_dedicated(const struct wh_admission_request *req,
                          struct wh_admission_response *resp)
{
    if (strcmp(req->operation, "DELETE") != 0 || req->sub_resource[0] || !req->old_object) {
        wh_admission_allow(resp, NULL);
        return true;
    }
    return false;
}

bool wh_dp_decode_or_deny(const struct wh_admission_request *req, const struct wh_dp_type *t,
                          struct wh_admission_response *resp)
{
    struct wh_errbuf eb = {{0}};
    if (wh_dp_decode_check(req->old_object, t, &eb) == WH_OK)
        return true;
    wh_admission_deny(resp, 400, "%s", eb.msg);
    wh_admission_set_reason(resp, NULL);
    return false;
}

bool wh_dp_deleting(const json_t *obj)
{
    const json_t *ts = json_object_get(wh_json_obj(obj, "metadata"), "deletionTimestamp");
    return ts && !json_is_null(ts);
}

bool wh_dp_exempt(const struct wh_handler_ctx *ctx, const json_t *old,
                  struct wh_admission_response *resp)
{
    if (!wh_feature_on(&ctx->cfg->features, WH_FEATURE_ResourcesDeletionProtection) ||
        wh_dp_deleting(old)) {
        wh_admission_allow(resp, NULL);
        return true;
    }
    return false;
}

const char *wh_dp_label(const json_t *old)
{
    const json_t *v = json_object_get(wh_json_path(old, "metadata", "labels", NULL),
                                      WH_KRUISE_LABEL_DELETE_PROTECTION);
    if (!v)
        return NULL;
    return json_is_string(v) ? json_string_value(v) : "";
}

void wh_dp_workload_rule(const struct wh_admission_request *req, const json_t *old,
                         enum wh_dp_kind k, struct wh_admission_response *resp)
{
    const char *val = wh_dp_label(old);
    if (val && strcmp(val, WH_KRUISE_DELETE_PROTECTION_ALWAYS) == 0) {
        wh_dp_deny(req, old, k, resp,
                   WH_DP_FORBIDDEN WH_KRUISE_LABEL_DELETE_PROTECTION
                   "=" WH_KRUISE_DELETE_PROTECTION_ALWAYS);
        return;
    }
    /* Only the desired count: an absent or null spec.replicas is allowed (the "defaults to 1"
     * rule is the API server's, not upstream's check). */
    const json_t *r = json_object_get(wh_json_obj(old, "spec"), "replicas");
    if (val && strcmp(val, WH_KRUISE_DELETE_PROTECTION_CASCADING) == 0 && json_is_integer(r) &&
        json_integer_value(r) > 0) {
        wh_dp_deny(req, old, k, resp,
                   WH_DP_FORBIDDEN WH_KRUISE_LABEL_DELETE_PROTECTION
                   "=" WH_KRUISE_DELETE_PROTECTION_CASCADING " and replicas %" JSON_INTEGER_FORMAT
                   ">0",
                   json_integer_value(r));
        return;
    }
    wh_admission_allow(resp, NULL);
}

/* --- denial side effects -------------------------------------------------------------------- */

/* Upstream's counters carry object names and usernames as labels; a request can name anything,
 * so each family keeps at most this many series. */
#define MAX_UPSTREAM_SERIES 1000

static void count_upstream(const char *metric, const char *help, const char *label_name,
                           const char *label_value, const char *username, atomic_uint *series)
{
    wh_metrics_count_capped(metric, help, label_name, label_value, username, MAX_UPSTREAM_SERIES,
                            series);
}

static void count_denial(const struct wh_admission_request *req, const json_t *old,
                         enum wh_dp_kind k)
{
    static atomic_uint ns_series, crd_series, wl_series;
    char labels[256];
    wh_metrics_labels(labels, sizeof(labels), "group", kinds[k].group, "kind", kinds[k].kind, NULL);
    wh_metric_add(wh_metrics_counter(DENIED_METRIC, DENIED_HELP, labels), 1);

    const char *user = wh_json_str(req->user_info, "username");
    const char *name = wh_json_meta_str(old, "name");
    const char *ns = wh_json_meta_str(old, "namespace");
    user = user ? user : "";
    name = name ? name : "";
    ns = ns ? ns : "";
    switch (k) {
    case WH_DP_KIND_NAMESPACE:
        count_upstream("namespace_deletion_protection", "Namespace Deletion Protection", "name",
                       name, user, &ns_series);
        break;
    case WH_DP_KIND_CRD:
        count_upstream("crd_deletion_protection", "CustomResourceDefinition Deletion Protection",
                       "name", name, user, &crd_series);
        break;
    case WH_DP_KIND_SERVICE:
    case WH_DP_KIND_INGRESS:
        break;
    default: {
        char knn[768];
        snprintf(knn, sizeof(knn), "%s_%s_%s", req->kind.kind, ns, name);
        count_upstream("workload_deletion_protection", "Workload Deletion Protection",
                       "kind_namespace_name", knn, user, &wl_series);
        break;
    }
    }
    wh_log_req(WH_LOG_INFO, req->uid, NULL,
               "deletion protection: denied deleting %s %s%s%s (user %s)", kinds[k].kind, ns,
               ns[0] ? "/" : "", name, user);
}

void wh_dp_deny(const struct wh_admission_request *req, const json_t *old, enum wh_dp_kind k,
                struct wh_admission_response *resp, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    wh_admission_deny(resp, 403, "%s", msg);
    /* upstream answers admission.Errored(403, err): a status without a reason */
    wh_admission_set_reason(resp, NULL);
    count_denial(req, old, k);
}

/* --- routes ---------------------------------------------------------------------------------- */

bool wh_dp_enabled_service_ingress(const struct wh_config *cfg)
{
    return wh_feature_on(&cfg->features, WH_FEATURE_ResourcesDeletionProtection);
}

enum wh_err wh_dp_setup(struct wh_cluster *cluster, const struct wh_config *cfg,
                        struct wh_errbuf *eb)
{
    (void)cluster;
    (void)eb;
    bool services = wh_dp_enabled_service_ingress(cfg);
    for (int k = 0; k < WH_DP_KIND_COUNT; k++) {
        if (!services && (k == WH_DP_KIND_SERVICE || k == WH_DP_KIND_INGRESS))
            continue;
        char labels[256];
        wh_metrics_labels(labels, sizeof(labels), "group", kinds[k].group, "kind", kinds[k].kind,
                          NULL);
        (void)wh_metrics_counter(DENIED_METRIC, DENIED_HELP, labels);
    }
    return WH_OK;
}
