#include "test/support/certs_hooks.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "handlers/registry.h"
#include "util/mem.h"

bool wh_test_route_served(const struct wh_config *cfg, const char *path)
{
    return wh_routes_find(cfg, path) != NULL;
}

bool wh_test_certs_serves(void *arg, const char *path)
{
    return wh_test_route_served(arg, path);
}

bool wh_test_certs_knows(void *arg, const char *path)
{
    (void)arg;
    return wh_routes_known(path);
}

const struct wh_certs_cli_hooks wh_test_certs_cli_hooks = {.serves = wh_test_route_served,
                                                           .knows = wh_routes_known};

/* Runs the command with stdout and stderr on fd (-1: /dev/null, unless WH_TEST_VERBOSE). */
static int run_to(int argc, char **argv, int fd)
{
    fflush(stdout);
    fflush(stderr);
    int out = dup(1), err = dup(2), null = open("/dev/null", O_WRONLY);
    if (fd >= 0 || !getenv("WH_TEST_VERBOSE")) {
        dup2(fd >= 0 ? fd : null, 1);
        dup2(fd >= 0 ? fd : null, 2);
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

int wh_test_certs_cli_run(int argc, char **argv)
{
    return run_to(argc, argv, -1);
}

int wh_test_certs_cli_output(int argc, char **argv, char **output)
{
    FILE *f = tmpfile();
    WH_ASSERT(f != NULL);
    int status = run_to(argc, argv, fileno(f));
    /* The command wrote through the descriptor, behind the FILE's back. */
    off_t n = lseek(fileno(f), 0, SEEK_END);
    WH_ASSERT(n >= 0 && fseek(f, 0, SEEK_SET) == 0);
    char *text = wh_xmalloc((size_t)n + 1);
    size_t got = fread(text, 1, (size_t)n, f);
    text[got] = '\0';
    fclose(f);
    *output = text;
    return status;
}
