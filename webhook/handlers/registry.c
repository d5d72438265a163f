#include "handlers/registry.h"

#include <string.h>

static const struct wh_route routes[] = {
    /* Filled in as features land: {path, kind, admit, convert, enabled, caches}. */
    {NULL, WH_ROUTE_VALIDATE, NULL, NULL, NULL, 0},
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
