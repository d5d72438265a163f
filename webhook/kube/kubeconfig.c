#include "kube/kubeconfig.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log/log.h"
#include "util/base64.h"
#include "util/json.h"
#include "util/mem.h"
#include "util/str.h"
#include "util/yaml.h"

/* The largest kubeconfig read (real ones with dozens of clusters stay far below). */
#define KUBECONFIG_MAX (4u * 1024u * 1024u)
/* The largest namespace file read from the service-account directory. */
#define NS_FILE_MAX 256

const char *wh_kubeconfig_sa_dir(void)
{
    const char *d = getenv("WH_SERVICEACCOUNT_DIR");
    return d && *d ? d : WH_SERVICEACCOUNT_DIR_DEFAULT;
}

void wh_kubeconfig_fini(struct wh_kubeconfig *kc)
{
    free(kc->origin);
    free(kc->server);
    free(kc->ns);
    free(kc->ca_data);
    free(kc->ca_file);
    free(kc->cert_data);
    free(kc->cert_file);
    free(kc->key_data);
    free(kc->key_file);
    free(kc->token);
    free(kc->token_file);
    memset(kc, 0, sizeof(*kc));
}

/* The entry of a named list (clusters, contexts, users) whose name matches; borrowed. */
static json_t *named_entry(const json_t *root, const char *list, const char *name,
                           const char *field)
{
    json_t *arr = wh_json_arr(root, list);
    size_t i;
    json_t *e;
    json_array_foreach(arr, i, e)
    {
        if (wh_str_eq(wh_json_str(e, "name"), name))
            return wh_json_obj(e, field);
    }
    return NULL;
}

/* path resolved against the kubeconfig's directory unless it is absolute. */
static char *resolve(const char *kcpath, const char *path)
{
    if (path[0] == '/')
        return wh_xstrdup(path);
    const char *slash = strrchr(kcpath, '/');
    if (!slash)
        return wh_xstrdup(path);
    return wh_str_printf("%.*s/%s", (int)(slash - kcpath), kcpath, path);
}

/* A file credential: resolved, and checked readable now so that a typo is reported at start
 * rather than as a TLS failure later. */
static enum wh_err file_field(const json_t *o, const char *key, const char *kcpath,
                              const char *where, char **out, struct wh_errbuf *eb)
{
    const char *v = wh_json_str(o, key);
    if (!v || !*v)
        return WH_OK;
    char *p = resolve(kcpath, v);
    if (access(p, R_OK) != 0) {
        int e = errno;
        enum wh_err rc =
            wh_errbuf_set(eb, WH_ERR_IO, "%s: %s.%s: %s: %s", kcpath, where, key, p, strerror(e));
        free(p);
        return rc;
    }
    *out = p;
    return WH_OK;
}

static enum wh_err data_field(const json_t *o, const char *key, const char *kcpath,
                              const char *where, unsigned char **out, size_t *len,
                              struct wh_errbuf *eb)
{
    const char *v = wh_json_str(o, key);
    if (!v || !*v)
        return WH_OK;
    if (wh_base64_decode(v, strlen(v), out, len) || *len == 0)
        return wh_errbuf_set(eb, WH_ERR_INVALID, "%s: %s.%s: not valid base64", kcpath, where,
                             key);
    return WH_OK;
}

/* A *-data field overrides its file form, as in client-go. */
static enum wh_err credential(const json_t *o, const char *file_key, const char *data_key,
                              const char *kcpath, const char *where, char **file,
                              unsigned char **data, size_t *len, struct wh_errbuf *eb)
{
    enum wh_err rc = data_field(o, data_key, kcpath, where, data, len, eb);
    if (rc || *data)
        return rc;
    return file_field(o, file_key, kcpath, where, file, eb);
}

static enum wh_err cluster_part(const json_t *root, const char *path, const char *name,
                                struct wh_kubeconfig *kc, struct wh_errbuf *eb)
{
    enum wh_err rc = WH_OK;
    char where[300];
    const json_t *cl = named_entry(root, "clusters", name, "cluster");
    if (!cl)
        return wh_errbuf_set(eb, WH_ERR_INVALID, "%s: cluster \"%s\" not found", path, name);
    snprintf(where, sizeof(where), "clusters[%s].cluster", name);

    const char *server = wh_json_str(cl, "server");
    if (!server || !*server)
        return wh_errbuf_set(eb, WH_ERR_INVALID, "%s: %s.server is not set", path, where);
    if (!wh_str_has_prefix(server, "https://") && !wh_str_has_prefix(server, "http://"))
        return wh_errbuf_set(eb, WH_ERR_INVALID, "%s: %s.server: not an http(s) URL: %s", path,
                             where, server);
    size_t n = strlen(server);
    while (n > 0 && server[n - 1] == '/')
        n--;
    kc->server = wh_xstrndup(server, n);

    json_t *insecure = json_object_get(cl, "insecure-skip-tls-verify");
    if (insecure && !json_is_boolean(insecure))
        return wh_errbuf_set(eb, WH_ERR_INVALID, "%s: %s.insecure-skip-tls-verify: not a boolean",
                             path, where);
    kc->insecure = json_is_true(insecure);

    rc = credential(cl, "certificate-authority", "certificate-authority-data", path, where,
                    &kc->ca_file, &kc->ca_data, &kc->ca_len, eb);
    if (rc)
        return rc;
    if (kc->insecure && (kc->ca_file || kc->ca_data))
        return wh_errbuf_set(eb, WH_ERR_INVALID,
                             "%s: %s: a certificate authority together with "
                             "insecure-skip-tls-verify is not allowed",
                             path, where);
    return WH_OK;
}

static enum wh_err user_part(const json_t *root, const char *path, const char *name,
                             struct wh_kubeconfig *kc, struct wh_errbuf *eb)
{
    enum wh_err rc = WH_OK;
    char where[300];
    const json_t *u = named_entry(root, "users", name, "user");
    if (!u)
        return wh_errbuf_set(eb, WH_ERR_INVALID, "%s: user \"%s\" not found", path, name);
    snprintf(where, sizeof(where), "users[%s].user", name);

    if (json_object_get(u, "exec") || json_object_get(u, "auth-provider"))
        return wh_errbuf_set(eb, WH_ERR_INVALID,
                             "%s: %s: exec and auth-provider credential plugins are not "
                             "supported; use token, tokenFile or a client certificate",
                             path, where);
    if (wh_json_str(u, "username") || wh_json_str(u, "password"))
        return wh_errbuf_set(eb, WH_ERR_INVALID,
                             "%s: %s: basic authentication is not supported (the API server "
                             "removed it); use token, tokenFile or a client certificate",
                             path, where);

    const char *tok = wh_json_str(u, "token");
    for (const unsigned char *p = (const unsigned char *)(tok ? tok : ""); *p; p++) {
        if (*p < 0x20 || *p == 0x7f)
            return wh_errbuf_set(eb, WH_ERR_INVALID, "%s: %s.token: control character", path,
                                 where);
    }
    if (tok && *tok)
        kc->token = wh_xstrdup(tok);
    rc = file_field(u, "tokenFile", path, where, &kc->token_file, eb);
    if (rc)
        return rc;
    rc = credential(u, "client-certificate", "client-certificate-data", path, where,
                    &kc->cert_file, &kc->cert_data, &kc->cert_len, eb);
    if (rc)
        return rc;
    rc = credential(u, "client-key", "client-key-data", path, where, &kc->key_file,
                    &kc->key_data, &kc->key_len, eb);
    if (rc)
        return rc;
    bool have_cert = kc->cert_file || kc->cert_data;
    bool have_key = kc->key_file || kc->key_data;
    if (have_cert != have_key)
        return wh_errbuf_set(eb, WH_ERR_INVALID, "%s: %s: %s without %s", path, where,
                             have_cert ? "client-certificate" : "client-key",
                             have_cert ? "client-key" : "client-certificate");
    return WH_OK;
}

enum wh_err wh_kubeconfig_from_json(const json_t *root, const char *path,
                                    struct wh_kubeconfig *out, struct wh_errbuf *eb)
{
    enum wh_err rc = WH_OK;
    struct wh_kubeconfig kc;

    memset(&kc, 0, sizeof(kc));
    memset(out, 0, sizeof(*out));
    kc.origin = wh_xstrdup(path);
    if (!json_is_object(root)) {
        rc = wh_errbuf_set(eb, WH_ERR_INVALID, "%s: not a kubeconfig (expected a mapping)",
                           path);
        goto out;
    }
    const char *cur = wh_json_str(root, "current-context");
    json_t *curv = json_object_get(root, "current-context");
    if (curv && !json_is_string(curv) && !json_is_null(curv)) {
        /* y, yes, on, 1 ... are not strings to YAML 1.1: the name needs quotes. */
        rc = wh_errbuf_set(eb, WH_ERR_INVALID, "%s: current-context: not a string (quote it)",
                           path);
        goto out;
    }
    if (!cur || !*cur) {
        rc = wh_errbuf_set(eb, WH_ERR_INVALID, "%s: current-context is not set", path);
        goto out;
    }
    const json_t *ctx = named_entry(root, "contexts", cur, "context");
    if (!ctx) {
        rc = wh_errbuf_set(eb, WH_ERR_INVALID, "%s: context \"%s\" not found", path, cur);
        goto out;
    }
    const char *cluster = wh_json_str(ctx, "cluster");
    if (!cluster || !*cluster) {
        rc = wh_errbuf_set(eb, WH_ERR_INVALID, "%s: context \"%s\" names no cluster", path, cur);
        goto out;
    }
    rc = cluster_part(root, path, cluster, &kc, eb);
    if (rc)
        goto out;
    /* A context without a user is anonymous access, which kubectl allows too. */
    const char *user = wh_json_str(ctx, "user");
    if (user && *user) {
        rc = user_part(root, path, user, &kc, eb);
        if (rc)
            goto out;
    }
    const char *ns = wh_json_str(ctx, "namespace");
    kc.ns = wh_xstrdup(ns ? ns : "");
    *out = kc;
    memset(&kc, 0, sizeof(kc));
out:
    wh_kubeconfig_fini(&kc);
    return rc;
}

/* Reads a small text file and trims it; NULL when unreadable or empty. */
static char *read_trimmed(const char *path, size_t cap)
{
    char buf[NS_FILE_MAX + 1];
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    if (cap > NS_FILE_MAX)
        cap = NS_FILE_MAX;
    size_t n = fread(buf, 1, cap, f);
    fclose(f);
    buf[n] = '\0';
    size_t s = 0;
    while (s < n && strchr(" \t\r\n", buf[s]))
        s++;
    while (n > s && strchr(" \t\r\n", buf[n - 1]))
        n--;
    if (n == s)
        return NULL;
    return wh_xstrndup(buf + s, n - s);
}

enum wh_err wh_kubeconfig_in_cluster(struct wh_kubeconfig *out, struct wh_errbuf *eb)
{
    enum wh_err rc = WH_OK;
    struct wh_kubeconfig kc;
    const char *host = getenv("KUBERNETES_SERVICE_HOST");
    const char *port = getenv("KUBERNETES_SERVICE_PORT");
    const char *dir = wh_kubeconfig_sa_dir();
    long long portnum = 0;

    memset(&kc, 0, sizeof(kc));
    memset(out, 0, sizeof(*out));
    kc.origin = wh_xstrdup("in-cluster");
    if (!host || !*host || !port || !*port) {
        rc = wh_errbuf_set(eb, WH_ERR_INVALID,
                           "no kubeconfig given and not in a cluster "
                           "(KUBERNETES_SERVICE_HOST/KUBERNETES_SERVICE_PORT are not set)");
        goto out;
    }
    if (wh_str_to_ll(port, 1, 65535, &portnum)) {
        rc = wh_errbuf_set(eb, WH_ERR_INVALID, "KUBERNETES_SERVICE_PORT: not a port: %s", port);
        goto out;
    }
    if (strchr(host, ':') && host[0] != '[')
        kc.server = wh_str_printf("https://[%s]:%lld", host, portnum);
    else
        kc.server = wh_str_printf("https://%s:%lld", host, portnum);
    kc.token_file = wh_str_printf("%s/token", dir);
    char *ca = wh_str_printf("%s/ca.crt", dir);
    if (access(ca, R_OK) == 0) {
        kc.ca_file = ca;
    } else {
        wh_log(WH_LOG_WARN, "kube: %s is not readable; trusting the system roots", ca);
        free(ca);
    }
    char *nspath = wh_str_printf("%s/namespace", dir);
    kc.ns = read_trimmed(nspath, NS_FILE_MAX);
    free(nspath);
    if (!kc.ns)
        kc.ns = wh_xstrdup("");
    *out = kc;
    memset(&kc, 0, sizeof(kc));
out:
    wh_kubeconfig_fini(&kc);
    return rc;
}

bool wh_kubeconfig_in_cluster_present(void)
{
    const char *host = getenv("KUBERNETES_SERVICE_HOST");
    const char *port = getenv("KUBERNETES_SERVICE_PORT");
    if (!host || !*host || !port || !*port)
        return false;
    char *tok = wh_str_printf("%s/token", wh_kubeconfig_sa_dir());
    bool ok = access(tok, R_OK) == 0;
    free(tok);
    return ok;
}

enum wh_err wh_kubeconfig_load(const char *path, struct wh_kubeconfig *out, struct wh_errbuf *eb)
{
    enum wh_err rc = WH_OK;
    json_t *docs = NULL;

    memset(out, 0, sizeof(*out));
    rc = wh_yaml_load_file(path, KUBECONFIG_MAX, &docs, eb);
    if (rc) {
        /* The loader names the file for syntax errors, but not always for open errors. */
        if (!wh_str_has_prefix(eb ? eb->msg : "", path) && eb) {
            char msg[sizeof(eb->msg)];
            snprintf(msg, sizeof(msg), "%s", eb->msg);
            wh_errbuf_set(eb, rc, "%s: %s", path, msg);
        }
        goto out;
    }
    if (json_array_size(docs) == 0) {
        rc = wh_errbuf_set(eb, WH_ERR_INVALID,
                           "%s: empty: no current-context, no clusters, no users", path);
        goto out;
    }
    if (json_array_size(docs) != 1) {
        rc = wh_errbuf_set(eb, WH_ERR_INVALID, "%s: expected one YAML document, found %zu", path,
                           json_array_size(docs));
        goto out;
    }
    rc = wh_kubeconfig_from_json(json_array_get(docs, 0), path, out, eb);
out:
    json_decref(docs);
    return rc;
}
