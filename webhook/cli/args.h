#ifndef WH_CLI_ARGS_H
#define WH_CLI_ARGS_H

/* The flags of the offline commands (inject, convert): one parser and one set of messages, so
 * that every command words its usage errors alike, on one line of err:
 *   kruise-webhook CMD: unknown option --x (see --help)
 *   kruise-webhook CMD: -f needs a value
 *   kruise-webhook CMD: unexpected argument "x" (see --help)
 *   kruise-webhook CMD: -f FILE is required (see --help)
 *   kruise-webhook CMD: -o must be yaml or json, not xml
 * Thread rule: single thread (a command). */

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "util/err.h"

struct wh_cli_flag {
    const char *name;   /* "--state" */
    const char *alias;  /* "-f", or NULL */
    const char **value; /* a flag with a value: where the value goes (borrowed from argv) */
    bool *on;           /* a switch: set to true */
};

/* Parses argv[1..argc-1]: "--name V", "--name=V", "-f V"; -h and --help set *help. On a bad
 * argument prints its error on err and returns false. */
bool wh_cli_parse(const char *cmd, int argc, char **argv, const struct wh_cli_flag *flags,
                  size_t nflags, bool *help, FILE *err);

/* Prints "kruise-webhook CMD: " and the message, one line, on err. */
void wh_cli_error(FILE *err, const char *cmd, const char *fmt, ...) WH_PRINTF(3, 4);

/* False, with "WHAT is required (see --help)" printed, when value is NULL. */
bool wh_cli_require(FILE *err, const char *cmd, const char *what, const char *value);

/* -o: NULL (the input's format), "yaml" or "json"; false with the error printed otherwise. */
bool wh_cli_check_output(FILE *err, const char *cmd, const char *output);

/* Whether to print YAML: -o when given, else the input's format. */
bool wh_cli_output_yaml(const char *output, bool json_input);

#endif
