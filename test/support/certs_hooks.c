#include "test/support/certs_hooks.h"

#include "handlers/registry.h"

bool wh_test_route_served(const struct wh_config *cfg, const char *path)
{
    return wh_routes_find(cfg, path) != NULL;
}

bool wh_test_certs_serves(void *arg, const char *path)
{
    return wh_test_route_served(arg, path);
}

const struct wh_certs_cli_hooks wh_test_certs_cli_hooks = {.serves = wh_test_route_served};
