#ifndef WH_CLI_CHECK_H
#define WH_CLI_CHECK_H

/* `kruise-webhook --check-config`: what the server reads before it listens, read and checked
 * as the server would read it, with nothing started and nothing sent:
 *  - the renewal margin (--certs-renew-before): a text the server would replace by 180 days,
 *    and a margin not shorter than the validity of the certificate in --cert-dir;
 *  - the cluster the server would use: the kubeconfig (or the in-cluster service account)
 *    exists, parses and has a current context, without connecting;
 *  - --state: it loads, and every object of a type the Go-type model knows decodes as Go
 *    decodes it (a SidecarSet with `selector: "app=web"` does not), named by file, line and
 *    field.
 * Flags, environment and --config were checked by loading cfg. Every problem is printed on
 * err, one line each, naming the file, line and field or the flag and where its value came
 * from; "configuration ok" goes to out when there is none.
 * Returns: the exit status, 0 (ok) or 2.
 * Thread rule: single thread (a command). */

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

struct wh_config;

int wh_check_config_run(const struct wh_config *cfg, FILE *out, FILE *err);

/* Whether obj (borrowed; apiVersion and kind name its type) fails to decode as its Go type of
 * the model: false when it decodes or the model has no such type; true with *msg (Go's error,
 * new string) and *field (new string: where, as "spec.containers[0].image"; "" for obj itself)
 * otherwise. *path (may be NULL) gets the same place as a JSON array (new ref), for
 * util/yaml's marks. */
bool wh_check_object_type(const json_t *obj, char **msg, char **field, json_t **path);

#endif
