#ifndef WH_CERTS_CLI_H
#define WH_CERTS_CLI_H

/* Operator commands for certificates:
 *   kruise-webhook certs generate --out DIR [--host H | --service S --namespace N]
 *                                 [--ecdsa] [--upstream-sans] [--days N]
 *   kruise-webhook certs inspect DIR [--host H | --service S --namespace N] [--cluster]
 *                                [--config FILE] [--port N] [--feature-gates G] [--json]
 *   kruise-webhook certs inspect --secret [NAME] [--namespace N] [--json]
 *                                [--mutating-config M] [--validating-config V]
 * Defaults for host/port/service/namespace, the Secret name, the configuration names and the
 * renewal margin are the server's settings, merged as the server merges them (flags given to
 * the command > environment > --config file > defaults, CERT-01).
 * Exit status: 0 success (inspect: the set is valid), 1 inspect found the set invalid, 2
 * usage, I/O or generation error.
 * Thread rule: run from main before any thread starts (reads the environment). */

#include "certs/bundle.h"
#include "util/err.h"

#include <stdbool.h>

#include "config/config.h"

/* What the commands need from the server around them (wired by main.c). */
struct wh_certs_cli_hooks {
    /* True when the server configured by cfg answers path (its route table). */
    bool (*serves)(const struct wh_config *cfg, const char *path);
    /* True when the server has a handler for path, whatever the feature gates (NULL: serves
     * decides): `inspect --cluster` checks the entries for every such path. */
    bool (*knows)(const char *path);
};

/* argv[0] is the word "certs"; argv[1] the command. hooks is borrowed for the call. */
int wh_certs_cli_main(int argc, char **argv, const struct wh_certs_cli_hooks *hooks);

/* How `inspect --secret` reads Secret namespace/name: fills *out (new bundle) from the data
 * keys ca-key.pem, ca-cert.pem, cert.pem, key.pem (CERT-32). Without one installed the
 * command reads the Secret through $KUBECONFIG or the in-cluster service account
 * (wh_certs_store_read_for_cli) and also checks the caBundles in that cluster; an installed
 * reader (tests) checks the cluster only with --cluster. */
typedef enum wh_err (*wh_certs_secret_reader_fn)(const char *ns, const char *name,
                                                 struct wh_certs_bundle **out,
                                                 struct wh_errbuf *eb);

/* Installs the reader (NULL removes it). Call before wh_certs_cli_main. */
void wh_certs_cli_set_secret_reader(wh_certs_secret_reader_fn fn);

#endif
