/* handlers/registry: the list of every route, and what each route declares about itself. */
#include "test/unit/test.h"

#include <string.h>

#include "handlers/registry.h"
#include "kube/resource.h"

/* The catalogue's resource (group, plural) of an entry's rule, its subresource aside. */
static bool in_catalogue(const struct wh_webhook_entry *e)
{
    const char *slash = strchr(e->resource, '/');
    size_t n = slash ? (size_t)(slash - e->resource) : strlen(e->resource);
    for (int id = 0; id < WH_RES_COUNT; id++) {
        const struct wh_resource *r = wh_resource_get((enum wh_resource_id)id);
        if (strcmp(r->group, e->group) == 0 && strlen(r->resource) == n &&
            strncmp(r->resource, e->resource, n) == 0)
            return true;
    }
    return false;
}

TEST(registry_routes_declare_consistent_entries)
{
    size_t n = 0;
    const struct wh_route *const *all = wh_routes_all(&n);
    CHECK(n > 0);
    for (size_t i = 0; i < n; i++) {
        const struct wh_route *r = all[i];
        CHECK(r->path && r->path[0] == '/');
        CHECK(r->kind == WH_ROUTE_CONVERT ? r->convert != NULL : r->admit != NULL);
        for (size_t j = 0; j < i; j++)
            CHECK(strcmp(all[j]->path, r->path) != 0);
        if (r->alias_of) {
            /* an older name of a route of the list, never registered itself */
            CHECK(wh_routes_known(r->alias_of));
            CHECK(r->entries[0].name == NULL);
            continue;
        }
        /* every admission path is registered by some webhook entry; /convert by the CRDs */
        CHECK((r->kind == WH_ROUTE_CONVERT) == (r->entries[0].name == NULL));
        for (size_t k = 0; k < WH_ROUTE_MAX_ENTRIES && r->entries[k].name; k++) {
            const struct wh_webhook_entry *e = &r->entries[k];
            if (!in_catalogue(e))
                fprintf(stderr, "%s: %s/%s is not in kube/resource.c\n", e->name, e->group,
                        e->resource);
            CHECK(in_catalogue(e));
            CHECK(e->versions[0] != NULL);
            CHECK(e->operations != 0);
            for (size_t j = 0; j < n; j++) {
                for (size_t m = 0; m < WH_ROUTE_MAX_ENTRIES && all[j]->entries[m].name; m++)
                    CHECK(&all[j]->entries[m] == e || strcmp(all[j]->entries[m].name, e->name));
            }
        }
    }
}
