#ifndef WH_CLI_CONVERT_H
#define WH_CLI_CONVERT_H

/* `kruise-webhook convert`: the /convert webhook's conversions, offline, for migrating stored
 * manifests between apps.kruise.io (or policy.kruise.io) versions.
 *
 *   kruise-webhook convert -f objects.yaml --to apps.kruise.io/v1beta1 [-o yaml|json]
 *
 * Every object of -f (a file, or - for stdin; YAML or JSON, several documents, List kinds
 * unwrapped into their items) whose group is the group of --to and whose version differs goes
 * through exactly the code the server runs (wh_convert_object); other objects are printed
 * unchanged. Output on stdout, in the input's format unless -o says otherwise.
 * Exit status: 0 done, 1 an object failed to convert (its message on stderr; nothing is printed
 * for it), 2 usage or input errors. Thread rule: single thread (a command). */

#include <stdio.h>

/* argv[0] is the word "convert". */
int wh_convert_main(int argc, char **argv);
/* The same with the output streams given (tests capture them). */
int wh_convert_run(int argc, char **argv, FILE *out, FILE *err);

#endif
