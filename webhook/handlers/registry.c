#include "handlers/registry.h"

#include <string.h>

#include "conversion/convert.h"

/* Every route, in this order: the only list that knows every path. A feature defines its
 * routes next to its code (handlers/handler.h); a new path is that and one line here, which
 * declares the route as well: this file includes no feature's header. */
#define ROUTES(X)                                                                                  \
    X(wh_convert_route)                                                                            \
    X(wh_sidecarset_mutate_route)                                                                  \
    X(wh_pod_mutate_route)                                                                         \
    X(wh_dp_deployment_route)                                                                      \
    X(wh_cloneset_validate_route)                                                                  \
    X(wh_sidecarset_validate_route)                                                                \
    X(wh_statefulset_validate_route)                                                               \
    X(wh_uniteddeployment_validate_route)                                                          \
    X(wh_ws_validate_route)                                                                        \
    X(wh_cloneset_validate_alias_route)                                                            \
    X(wh_uniteddeployment_validate_alias_route)                                                    \
    X(wh_dp_replicaset_route)                                                                      \
    X(wh_dp_statefulset_route)                                                                     \
    X(wh_dp_crd_route)                                                                             \
    X(wh_dp_ingress_route)                                                                         \
    X(wh_pod_validate_route)                                                                       \
    X(wh_dp_namespace_route)                                                                       \
    X(wh_pub_validate_route)                                                                       \
    X(wh_dp_service_route)                                                                         \
    X(wh_pps_validate_route)                                                                       \
    X(wh_ppm_validate_route)                                                                       \
    X(wh_broadcastjob_mutate_route)                                                                \
    X(wh_broadcastjob_validate_route)                                                              \
    X(wh_advancedcronjob_mutate_route)                                                             \
    X(wh_advancedcronjob_validate_route)                                                           \
    X(wh_ephemeraljob_validate_route)                                                              \
    X(wh_cloneset_mutate_route)                                                                    \
    X(wh_statefulset_mutate_route)                                                                 \
    X(wh_daemonset_mutate_route)                                                                   \
    X(wh_uniteddeployment_mutate_route)                                                            \
    X(wh_daemonset_validate_route)                                                                 \
    X(wh_crr_mutate_route)                                                                         \
    X(wh_imagepulljob_mutate_route)                                                                \
    X(wh_imagepulljob_validate_route)                                                              \
    X(wh_imagelistpulljob_mutate_route)                                                            \
    X(wh_imagelistpulljob_validate_route)                                                          \
    X(wh_nodeimage_mutate_route)                                                                   \
    X(wh_nodeimage_validate_route)                                                                 \
    X(wh_rd_validate_route)                                                                        \
    /* end of the list */

#define DECLARE(route) extern const struct wh_route route;
ROUTES(DECLARE)

/* CRD conversion, whose engine sits below handlers/ (conversion/convert.h). The CRDs name the
 * path (tools/manifests.c), no webhook entry does. */
const struct wh_route wh_convert_route = {
    .path = "/convert",
    .kind = WH_ROUTE_CONVERT,
    .convert = wh_convert_objects,
};

#define ENTRY(route) &route,
static const struct wh_route *const routes[] = {ROUTES(ENTRY)};

#define NROUTES (sizeof(routes) / sizeof(routes[0]))

bool wh_route_served(const struct wh_route *r, const struct wh_config *cfg)
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
        if (strcmp(routes[i]->path, path) == 0 && wh_route_served(routes[i], cfg))
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
        if (!r->setup || !wh_route_served(r, cfg))
            continue;
        enum wh_err rc = r->setup(cluster, cfg, eb);
        if (rc)
            return rc;
    }
    return WH_OK;
}
