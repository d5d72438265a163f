#include "handlers/registry.h"

#include <string.h>

#include "conversion/convert.h"
#include "handlers/deletion/protection.h"
#include "handlers/pod/pipeline.h"
#include "handlers/pub/pub.h"
#include "handlers/sidecarset/mutate.h"
#include "handlers/sidecarset/validate.h"
#include "handlers/workloads/workloads.h"
#include "handlers/workloadspread/validate.h"

/* CRD conversion, whose engine sits below handlers/ (conversion/convert.h). The CRDs name the
 * path (tools/manifests.c), no webhook entry does. */
static const struct wh_route convert_route = {
    .path = "/convert",
    .kind = WH_ROUTE_CONVERT,
    .convert = wh_convert_objects,
};

/* Every route, in this order: the only list that knows every path. A new path is a route in
 * its feature's file and a line here. */
static const struct wh_route *const routes[] = {
    &convert_route,
    &wh_sidecarset_mutate_route,
    &wh_pod_mutate_route,
    &wh_dp_deployment_route,
    &wh_cloneset_validate_route,
    &wh_sidecarset_validate_route,
    &wh_statefulset_validate_route,
    &wh_uniteddeployment_validate_route,
    &wh_ws_validate_route,
    &wh_cloneset_validate_alias_route,
    &wh_uniteddeployment_validate_alias_route,
    &wh_dp_replicaset_route,
    &wh_dp_statefulset_route,
    &wh_dp_crd_route,
    &wh_dp_ingress_route,
    &wh_pod_validate_route,
    &wh_dp_namespace_route,
    &wh_pub_validate_route,
    &wh_dp_service_route,
    &wh_cloneset_mutate_route,
    &wh_statefulset_mutate_route,
    &wh_daemonset_mutate_route,
    &wh_uniteddeployment_mutate_route,
    &wh_daemonset_validate_route,
};

#define NROUTES (sizeof(routes) / sizeof(routes[0]))

static bool served(const struct wh_route *r, const struct wh_config *cfg)
{
    return !r->enabled || r->enabled(cfg);
}

const struct wh_route *const *wh_routes_all(size_t *count)
{
    *count = NROUTES;
    return routes;
}

const struct wh_route *wh_routes_find(const struct wh_config *cfg, const char *path)
{
    for (size_t i = 0; i < NROUTES; i++) {
        if (strcmp(routes[i]->path, path) == 0 && served(routes[i], cfg))
            return routes[i];
    }
    return NULL;
}

bool wh_routes_known(const char *path)
{
    for (size_t i = 0; i < NROUTES; i++) {
        if (strcmp(routes[i]->path, path) == 0)
            return true;
    }
    return false;
}

bool wh_route_covers(const struct wh_route *route, const char *area)
{
    return !route->covers || route->covers(area);
}

bool wh_routes_implement(const char *path, const char *area)
{
    for (size_t i = 0; i < NROUTES; i++) {
        if (strcmp(routes[i]->path, path) == 0 && wh_route_covers(routes[i], area))
            return true;
    }
    return false;
}

enum wh_err wh_routes_setup(const struct wh_config *cfg, struct wh_cluster *cluster,
                            struct wh_errbuf *eb)
{
    for (size_t i = 0; i < NROUTES; i++) {
        const struct wh_route *r = routes[i];
        if (!r->setup || !served(r, cfg))
            continue;
        enum wh_err rc = r->setup(cluster, cfg, eb);
        if (rc)
            return rc;
    }
    return WH_OK;
}
