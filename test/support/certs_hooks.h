#ifndef WH_TEST_SUPPORT_CERTS_HOOKS_H
#define WH_TEST_SUPPORT_CERTS_HOOKS_H

/* The hooks main.c wires into certs/, for tests that run the certificate code on its own:
 * "served" means what the route table of the given configuration serves. */

#include <stdbool.h>

#include "certs/cli.h"
#include "config/config.h"

bool wh_test_route_served(const struct wh_config *cfg, const char *path);
/* For struct wh_certs_hooks.serves; arg is the struct wh_config. */
bool wh_test_certs_serves(void *arg, const char *path);
/* For struct wh_certs_hooks.knows: the route table, gates aside. */
bool wh_test_certs_knows(void *arg, const char *path);
extern const struct wh_certs_cli_hooks wh_test_certs_cli_hooks;

/* Runs `kruise-webhook certs ...` (argv[0] = "certs") in process with these hooks, its
 * standard output and error sent to /dev/null unless WH_TEST_VERBOSE is set. Returns the exit
 * status. */
int wh_test_certs_cli_run(int argc, char **argv);
/* The same, with standard output and error (interleaved) returned in *output (new string). */
int wh_test_certs_cli_output(int argc, char **argv, char **output);

#endif
