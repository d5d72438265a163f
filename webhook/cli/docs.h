#ifndef WH_CLI_DOCS_H
#define WH_CLI_DOCS_H

/* Input and output of the offline commands (inject, convert): Kubernetes documents read from a
 * file or stdin as YAML or JSON, printed back in the same format. Thread rule: single thread. */

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "util/err.h"

#define WH_CLI_MAX_INPUT (64 << 20)

/* Reads path ("-" = stdin, at most WH_CLI_MAX_INPUT bytes) as YAML or JSON documents.
 * Returns in *docs: new ref, an array (one element per document). *json_input (may be NULL)
 * tells whether the text was JSON, so output can match it. Errors name the file, and
 * file:line:col for syntax. */
WH_NODISCARD enum wh_err wh_cli_read_docs(const char *path, json_t **docs, bool *json_input,
                                          struct wh_errbuf *eb);

/* Prints doc as a YAML document (preceded by "---" unless first) or as indented JSON. */
WH_NODISCARD enum wh_err wh_cli_print_doc(FILE *out, const json_t *doc, bool yaml, bool first,
                                          struct wh_errbuf *eb);

#endif
