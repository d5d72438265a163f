#include "handlers/registry.h"

#include <string.h>

#include "conversion/convert.h"
#include "handlers/deletion/protection.h"
#include "handlers/pod/pipeline.h"
#include "handlers/pub/pub.h"
#include "handlers/sidecarset/match.h"
#include "handlers/sidecarset/mutate.h"
#include "handlers/sidecarset/validate.h"
#include "handlers/workloadspread/match.h"
#include "handlers/workloadspread/validate.h"

static const struct wh_route routes[] = {
    /* {path, kind, admit, convert, enabled (NULL: always), setup (NULL: no caches), areas} */
    {"/convert", WH_ROUTE_CONVERT, NULL, wh_convert_objects, NULL, NULL, NULL},
    {"/mutate-apps-kruise-io-sidecarset", WH_ROUTE_MUTATE, wh_sidecarset_mutate_admit, NULL, NULL,
     NULL, NULL},
    /* Of the sub-handlers upstream runs here, only SidecarSet injection exists so far. */
    /* The Pod pipeline (handlers/pod/pipeline.h) runs each feature's step in upstream's order. */
    {"/mutate-pod", WH_ROUTE_MUTATE, wh_pod_mutate_admit, NULL, wh_pod_routes_enabled,
     wh_pod_routes_setup, "sidecarset,workloadspread,pub"},
    {"/validate-apps-deployment", WH_ROUTE_VALIDATE, wh_dp_admit_builtin_workload, NULL, NULL,
     wh_dp_setup, NULL},
    {"/validate-apps-kruise-io-cloneset", WH_ROUTE_VALIDATE, wh_dp_admit_cloneset, NULL, NULL,
     wh_dp_setup, NULL},
    {"/validate-apps-kruise-io-sidecarset", WH_ROUTE_VALIDATE, wh_sidecarset_validate_admit, NULL,
     NULL, wh_sidecarset_caches_setup, NULL},
    {"/validate-apps-kruise-io-statefulset", WH_ROUTE_VALIDATE, wh_dp_admit_advanced_statefulset,
     NULL, NULL, wh_dp_setup, NULL},
    {"/validate-apps-kruise-io-uniteddeployment", WH_ROUTE_VALIDATE, wh_dp_admit_uniteddeployment,
     NULL, NULL, wh_dp_setup, NULL},
    /* Served with the gate off too: it then answers 403 (spec workloadspread.md 2). */
    {"/validate-apps-kruise-io-workloadspread", WH_ROUTE_VALIDATE, wh_ws_validate_admit, NULL, NULL,
     wh_ws_caches_setup, NULL},
    /* The Helm chart's older names of the two paths above (spec deletion-protection 3). */
    {"/validate-apps-kruise-io-v1alpha1-cloneset", WH_ROUTE_VALIDATE, wh_dp_admit_cloneset, NULL,
     NULL, wh_dp_setup, NULL},
    {"/validate-apps-kruise-io-v1alpha1-uniteddeployment", WH_ROUTE_VALIDATE,
     wh_dp_admit_uniteddeployment, NULL, NULL, wh_dp_setup, NULL},
    {"/validate-apps-replicaset", WH_ROUTE_VALIDATE, wh_dp_admit_builtin_workload, NULL, NULL,
     wh_dp_setup, NULL},
    {"/validate-apps-statefulset", WH_ROUTE_VALIDATE, wh_dp_admit_builtin_workload, NULL, NULL,
     wh_dp_setup, NULL},
    {"/validate-customresourcedefinition", WH_ROUTE_VALIDATE, wh_dp_admit_crd, NULL, NULL,
     wh_dp_setup, NULL},
    {"/validate-ingress", WH_ROUTE_VALIDATE, wh_dp_admit_ingress, NULL,
     wh_dp_enabled_service_ingress, wh_dp_setup, NULL},
    {"/validate-pod", WH_ROUTE_VALIDATE, wh_pod_validate_admit, NULL, wh_pod_routes_enabled,
     wh_pod_routes_setup, "workloadspread,pub"},
    {"/validate-namespace", WH_ROUTE_VALIDATE, wh_dp_admit_namespace, NULL, NULL, wh_dp_setup,
     NULL},
    {"/validate-policy-kruise-io-podunavailablebudget", WH_ROUTE_VALIDATE, wh_pub_validate_admit,
     NULL, NULL, wh_pub_validate_setup, NULL},
    {"/validate-service", WH_ROUTE_VALIDATE, wh_dp_admit_service, NULL,
     wh_dp_enabled_service_ingress, wh_dp_setup, NULL},
    {NULL, WH_ROUTE_VALIDATE, NULL, NULL, NULL, NULL, NULL},
};

const struct wh_route *wh_routes_all(size_t *count)
{
    size_t n = 0;
    while (routes[n].path)
        n++;
    *count = n;
    return routes;
}

const struct wh_route *wh_routes_find(const struct wh_config *cfg, const char *path)
{
    for (const struct wh_route *r = routes; r->path; r++) {
        if (strcmp(r->path, path) == 0 && (!r->enabled || r->enabled(cfg)))
            return r;
    }
    return NULL;
}

bool wh_routes_known(const char *path)
{
    for (const struct wh_route *r = routes; r->path; r++) {
        if (strcmp(r->path, path) == 0)
            return true;
    }
    return false;
}

bool wh_route_covers(const struct wh_route *route, const char *area)
{
    if (!route->areas)
        return true;
    size_t n = strlen(area);
    for (const char *p = route->areas; *p;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (len == n && strncmp(p, area, n) == 0)
            return true;
        p += len + (comma ? 1 : 0);
    }
    return false;
}

enum wh_err wh_routes_setup(const struct wh_config *cfg, struct wh_cluster *cluster,
                            struct wh_errbuf *eb)
{
    /* Declaring a cache, view or index twice is harmless, so routes that share caches may
     * each declare them. */
    for (const struct wh_route *r = routes; r->path; r++) {
        if (!r->setup || (r->enabled && !r->enabled(cfg)))
            continue;
        enum wh_err rc = r->setup(cluster, cfg, eb);
        if (rc)
            return rc;
    }
    return WH_OK;
}
