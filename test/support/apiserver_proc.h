#ifndef WH_TEST_SUPPORT_APISERVER_PROC_H
#define WH_TEST_SUPPORT_APISERVER_PROC_H

/* The project's fake API server (test/apiserver/apiserver.py) as a child process, for tests:
 * start it on a free port over HTTPS with the test certificates (test/data/tls), write
 * kubeconfig files pointing at it, drive its /_control/ endpoint, stop it.
 * Locations (relative to the working directory, which is the repository root under make):
 *   $WH_APISERVER   the script (default test/apiserver/apiserver.py)
 *   $WH_PYTHON      the interpreter (default python3)
 *   $WH_TEST_TLS    the certificate directory (default test/data/tls)
 * Each server gets a private temporary directory (its log, and files tests put there), removed
 * by wh_apiserver_stop unless $WH_KEEP_APISERVER_DIR is set.
 * Thread rule: start and stop from one thread; wh_apiserver_control is thread-safe. */

#include <jansson.h>
#include <stdbool.h>

#include "util/err.h"

struct wh_apiserver;

struct wh_apiserver_opts {
    const char *token;             /* --token: require this bearer token; NULL = no check */
    bool client_ca;                /* --client-ca with the test CA: client certificates log in */
    bool kruise_crds;              /* --kruise-crds */
    const char *const *extra_args; /* more arguments, NULL-terminated; NULL = none */
};

/* Calls curl_global_init once, thread-safely (the unit runner does not call it; main does). */
void wh_test_curl_init(void);

/* Starts the server and waits (up to 20 s) until it prints its address. opts may be NULL.
 * Errors: WH_ERR_IO (cannot start, or it exited; eb holds the end of its output),
 * WH_ERR_TIMEOUT. */
WH_NODISCARD enum wh_err wh_apiserver_start(const struct wh_apiserver_opts *opts,
                                            struct wh_apiserver **out, struct wh_errbuf *eb);

/* SIGTERM, then SIGKILL after 5 s; reaps the child and frees s. Accepts NULL. */
void wh_apiserver_stop(struct wh_apiserver *s);

/* Returns: borrowed, valid while s lives. "https://127.0.0.1:<port>". */
const char *wh_apiserver_url(const struct wh_apiserver *s);
int wh_apiserver_port(const struct wh_apiserver *s);
/* Returns: borrowed; the server's private temporary directory (absolute). */
const char *wh_apiserver_dir(const struct wh_apiserver *s);
/* Returns: borrowed; absolute path of a file in the test TLS directory, e.g. "ca.pem". The
 * result is a static per-thread buffer, overwritten by the next call. */
const char *wh_apiserver_tls_file(const char *name);

enum wh_kc_auth {
    WH_KC_AUTH_NONE,       /* no user credentials */
    WH_KC_AUTH_TOKEN,      /* users[].user.token */
    WH_KC_AUTH_TOKEN_FILE, /* users[].user.tokenFile */
    WH_KC_AUTH_CERT_DATA,  /* client-certificate-data / client-key-data */
    WH_KC_AUTH_CERT_FILE,  /* client-certificate / client-key (absolute paths) */
};

enum wh_kc_ca {
    WH_KC_CA_DATA,     /* certificate-authority-data */
    WH_KC_CA_FILE,     /* certificate-authority (absolute path) */
    WH_KC_CA_INSECURE, /* insecure-skip-tls-verify: true */
    WH_KC_CA_NONE,     /* nothing: the system roots (which do not trust the test CA) */
};

struct wh_kc_opts {
    enum wh_kc_auth auth;
    enum wh_kc_ca ca;
    const char *token;      /* TOKEN: the token; TOKEN_FILE: written to token_file */
    const char *token_file; /* TOKEN_FILE: the path (NULL = <dir>/token) */
    const char *ns;         /* the context's namespace; NULL = none */
    const char *server;     /* overrides the server URL; NULL = this server's */
};

/* Writes a kubeconfig for s at path (NULL = <dir>/kubeconfig) with one cluster, user and
 * context. It is written as JSON, which is YAML too (kubectl reads it). *written (may be NULL)
 * receives a new string, the path used (caller frees). */
WH_NODISCARD enum wh_err wh_apiserver_write_kubeconfig(const struct wh_apiserver *s,
                                                       const struct wh_kc_opts *o, const char *path,
                                                       char **written, struct wh_errbuf *eb);

/* One request to the control endpoint: method "GET", "POST" or "DELETE", what is the part after
 * /_control/ ("reset", "fail?code=500&count=2", "requests?clear=true", ...), body (may be
 * NULL) is sent as JSON. *out (may be NULL) receives a new ref, the decoded answer. Errors:
 * WH_ERR_IO (no answer), WH_ERR_KUBE (an error status; eb says which). */
WH_NODISCARD enum wh_err wh_apiserver_control(const struct wh_apiserver *s, const char *method,
                                              const char *what, const char *body, json_t **out,
                                              struct wh_errbuf *eb);

struct wh_cluster;

/* A fake API server (opts as for wh_apiserver_start) holding objects (borrowed JSON array of
 * objects, status included; NULL: none), and an API-mode cluster (kube/cluster.h) pointed at
 * it through a client that retries max_retries times. The cluster is not started: declare
 * caches, then wh_apiserver_cluster_start. On failure *srv and *cl may still need freeing (both
 * accept NULL). */
WH_NODISCARD enum wh_err wh_apiserver_cluster_new(const struct wh_apiserver_opts *opts,
                                                  const json_t *objects, int max_retries,
                                                  struct wh_apiserver **srv, struct wh_cluster **cl,
                                                  struct wh_errbuf *eb);

/* Starts cl and waits (up to 10 s) until every declared cache has synced. */
WH_NODISCARD enum wh_err wh_apiserver_cluster_start(struct wh_cluster *cl, struct wh_errbuf *eb);

/* Shorthand: POST what, answer ignored; aborts the test program when it fails (control
 * requests failing means the fixture is broken, not the code under test). */
void wh_apiserver_post(const struct wh_apiserver *s, const char *what);

#endif
