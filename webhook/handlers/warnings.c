#include "handlers/warnings.h"

#include <stdarg.h>
#include <string.h>

#include "kube/cluster.h"
#include "util/json.h"

bool wh_warnings_on(const struct wh_handler_ctx *ctx)
{
    return ctx && ctx->cfg && ctx->cfg->admission_warnings;
}

void wh_warn(const struct wh_handler_ctx *ctx, struct wh_admission_response *resp,
             const char *fmt, ...)
{
    if (!wh_warnings_on(ctx))
        return;
    va_list ap;
    va_start(ap, fmt);
    wh_admission_vwarn(resp, fmt, ap);
    va_end(ap);
}

void wh_warn_old_version(const struct wh_handler_ctx *ctx, const struct wh_admission_request *req,
                         struct wh_admission_response *resp)
{
    if (!wh_warnings_on(ctx) || !ctx->cluster || req->sub_resource[0] ||
        (strcmp(req->operation, "CREATE") != 0 && strcmp(req->operation, "UPDATE") != 0))
        return;
    /* what the user wrote: the API server converts to a version the webhook's rule lists
     * and says which one was asked in requestKind */
    const char *group = wh_json_path_str(req->raw, "requestKind", "group", NULL);
    const char *version = wh_json_path_str(req->raw, "requestKind", "version", NULL);
    const char *kind = wh_json_path_str(req->raw, "requestKind", "kind", NULL);
    if (!group || !version || !kind) {
        group = req->kind.group;
        version = req->kind.version;
        kind = req->kind.kind;
    }
    if (!version || strcmp(version, "v1alpha1") != 0)
        return;
    /* the cluster's preferred version of a cached kind, found by discovery at start: only
     * those are known without a call */
    enum wh_resource_id id = wh_resource_by_kind(group, kind);
    if (id == WH_RES_COUNT || !wh_cluster_cache(ctx->cluster, id))
        return;
    const char *served = wh_cluster_version(ctx->cluster, id);
    if (!served || strcmp(served, "v1beta1") != 0)
        return;
    wh_warn(ctx, resp, "%s/v1alpha1 %s is an older version; %s/v1beta1 is served (use it)", group,
            kind, group);
}
