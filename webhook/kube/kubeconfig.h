#ifndef WH_KUBE_KUBECONFIG_H
#define WH_KUBE_KUBECONFIG_H

/* Where the API client connects and how it authenticates: read from a kubeconfig file (the
 * subset kubectl uses for a token or client certificate), or from the in-cluster environment.
 * Internal to webhook/kube/ (and its tests). Thread rule: a loaded struct is immutable. */

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "util/err.h"

/* The service-account directory of a pod; WH_SERVICEACCOUNT_DIR overrides it (for tests). */
#define WH_SERVICEACCOUNT_DIR_DEFAULT "/var/run/secrets/kubernetes.io/serviceaccount"

struct wh_kubeconfig {
    char *origin; /* the kubeconfig path, or "in-cluster", for messages */
    char *server; /* scheme, host, optional port and path prefix; no trailing slash */
    char *ns;     /* the context's or service account's namespace; "" when none */
    bool insecure;
    /* Each credential is either in memory (*_data, from a *-data field) or a file path
     * (absolute, or relative to the working directory once resolved); at most one of the two. */
    unsigned char *ca_data;
    size_t ca_len;
    char *ca_file;
    unsigned char *cert_data;
    size_t cert_len;
    char *cert_file;
    unsigned char *key_data;
    size_t key_len;
    char *key_file;
    char *token;      /* NULL when none */
    char *token_file; /* NULL when none */
};

/* Loads a kubeconfig file: its current-context, that context's cluster (server,
 * certificate-authority[-data], insecure-skip-tls-verify) and user (token, tokenFile,
 * client-certificate[-data], client-key[-data]), and the context's namespace. Relative paths
 * resolve against the file's directory, as kubectl does. Errors name the file: WH_ERR_IO
 * (unreadable), WH_ERR_PARSE (malformed YAML), WH_ERR_INVALID (anything missing, unsupported
 * or inconsistent: no current-context, unknown context, cluster or user, exec plugins, a CA
 * together with insecure-skip-tls-verify, a certificate without its key, ...). */
WH_NODISCARD enum wh_err wh_kubeconfig_load(const char *path, struct wh_kubeconfig *out,
                                            struct wh_errbuf *eb);

/* The same from an already parsed document (root is borrowed); path names it in messages and
 * anchors relative paths. */
WH_NODISCARD enum wh_err wh_kubeconfig_from_json(const json_t *root, const char *path,
                                                 struct wh_kubeconfig *out,
                                                 struct wh_errbuf *eb);

/* The in-cluster configuration: https to $KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT
 * (an IPv6 host bracketed), the token file, ca.crt and namespace of the service-account
 * directory. A missing ca.crt falls back to the system roots, a missing namespace to "".
 * Errors: WH_ERR_INVALID when the environment variables are not set. The token file itself is
 * read (and checked) by the client. */
WH_NODISCARD enum wh_err wh_kubeconfig_in_cluster(struct wh_kubeconfig *out,
                                                  struct wh_errbuf *eb);

/* True when the service environment variables are set and the token file is readable. */
bool wh_kubeconfig_in_cluster_present(void);

/* Returns: static or environment string; the service-account directory in use. */
const char *wh_kubeconfig_sa_dir(void);

/* Releases everything; accepts a zeroed struct. */
void wh_kubeconfig_fini(struct wh_kubeconfig *kc);

#endif
