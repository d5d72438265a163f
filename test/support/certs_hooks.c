#include "test/support/certs_hooks.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

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

int wh_test_certs_cli_run(int argc, char **argv)
{
    fflush(stdout);
    fflush(stderr);
    int out = dup(1), err = dup(2), null = open("/dev/null", O_WRONLY);
    if (!getenv("WH_TEST_VERBOSE")) {
        dup2(null, 1);
        dup2(null, 2);
    }
    int status = wh_certs_cli_main(argc, argv, &wh_test_certs_cli_hooks);
    fflush(stdout);
    fflush(stderr);
    dup2(out, 1);
    dup2(err, 2);
    close(out);
    close(err);
    close(null);
    return status;
}
