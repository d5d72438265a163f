#include "certs/cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "certs/atomic_dir.h"
#include "certs/env.h"
#include "certs/fs_store.h"
#include "certs/inject.h"
#include "certs/keypair.h"
#include "certs/pem.h"
#include "certs/store.h"
#include "config/config.h"
#include "kube/client.h"
#include "log/log.h"
#include "util/base64.h"
#include "util/json.h"
#include "util/mem.h"
#include "util/str.h"

enum { EXIT_VALID = 0, EXIT_INVALID = 1, EXIT_TROUBLE = 2 };

static wh_certs_secret_reader_fn secret_reader;

static struct wh_certs_cli_hooks cli_hooks;

static bool serves_path(void *arg, const char *path)
{
    return cli_hooks.serves(arg, path);
}

void wh_certs_cli_set_secret_reader(wh_certs_secret_reader_fn fn)
{
    secret_reader = fn;
}

static const char usage_main[] =
    "usage: kruise-webhook certs <command> [options]\n"
    "\n"
    "commands:\n"
    "  generate   create a new CA and serving certificate in a directory\n"
    "  inspect    show and check the certificates of a directory or of the Secret\n"
    "\n"
    "Run 'kruise-webhook certs <command> --help' for the options of a command.\n";

static const char usage_generate[] =
    "usage: kruise-webhook certs generate --out DIR [--host H | --service S --namespace N]\n"
    "                                     [--ecdsa] [--upstream-sans] [--days N]\n"
    "\n"
    "Generates a new self-signed CA and a serving certificate signed by it, and writes them\n"
    "into DIR (created if needed) as ca-key.pem, ca-cert.pem, cert.pem, key.pem, tls.crt and\n"
    "tls.key, replacing what is there atomically (..data symlink swap; keys mode 0600).\n"
    "\n"
    "  --out DIR         target directory (required)\n"
    "  --host H          URL mode: the certificate is for H (an IP address becomes an IP SAN;\n"
    "                    localhost adds 127.0.0.1 and ::1)\n"
    "  --service S       service mode: for S.N.svc (plus S, S.N, S.N.svc.cluster.local)\n"
    "  --namespace N\n"
    "  The default is the name the server would use with the same environment: $WEBHOOK_HOST;\n"
    "  else, with no cluster ($KUBECONFIG unset, not in a pod), localhost, as `make run`;\n"
    "  else the Service $SERVICE_NAME.$POD_NAMESPACE.svc (kruise-webhook-server.kruise-system).\n"
    "  --ecdsa           ECDSA P-256 keys instead of RSA 2048\n"
    "  --upstream-sans   only the SANs upstream kruise-manager writes\n"
    "  --days N          validity in days (default 3650)\n";

static const char usage_inspect[] =
    "usage: kruise-webhook certs inspect DIR [--host H | --service S --namespace N] [--cluster]\n"
    "                                    [--config FILE] [--port N] [--feature-gates G] [--json]\n"
    "       kruise-webhook certs inspect --secret [NAME] [--namespace N] [--json]\n"
    "\n"
    "Shows subjects, SANs, serials and expiry of the CA and serving certificates, and checks\n"
    "them as the controller does: key matches certificate, chains to the CA, names the host,\n"
    "valid beyond the renewal margin ($CERTS_RENEW_BEFORE, default 180d). With --secret (or\n"
    "--cluster) it also checks that the caBundles in the cluster trust the CA: every served\n"
    "entry of the two webhook configurations, and the conversion of our CRDs.\n"
    "The cluster is reached through $KUBECONFIG, else the in-cluster service account.\n"
    "Every certificate is read as the API server reads it (strict DER, Go's crypto/x509).\n"
    "Exit status: 0 valid, 1 invalid (the controller would regenerate) or caBundles that do\n"
    "not trust the CA, 2 error (a directory that cannot be read, no cluster to check).\n"
    "\n"
    "  --host, --service, --namespace   the name to check; by default the one the server\n"
    "                    would use with the same environment (see certs generate --help);\n"
    "                    with --cluster and no $WEBHOOK_HOST, the one the cluster's webhook\n"
    "                    entries name when they all name the same\n"
    "  --secret [NAME]   read the Secret (default $SECRET_NAME) in --namespace instead\n"
    "  --cluster         check the caBundles in the cluster against DIR's CA: the entries\n"
    "                    for every path this version has a handler for (whatever the feature\n"
    "                    gates), and the CRDs converted through our Service or, in URL mode,\n"
    "                    through any port of our host (each must call the port the entries\n"
    "                    call); nothing to check is not a match\n"
    "  --config FILE, --port N, --webhook-host H, --feature-gates G\n"
    "                    the server's settings, merged as the server merges them with the\n"
    "                    environment (WEBHOOK_PORT, WEBHOOK_HOST, ...) and the --config file;\n"
    "                    in URL mode without them, the host and port the entries call\n"
    "  --mutating-config NAME, --validating-config NAME\n"
    "                    the webhook configurations (defaults as for the server)\n"
    "  --json            print the findings as JSON\n";

struct args {
    const char *out;
    const char *dir;
    const char *host;
    const char *service;
    const char *namespace;
    const char *secret;
    const char *days;
    const char *mutating;
    const char *validating;
    const char *config;        /* the server's settings: --config FILE, */
    const char *port;          /* --port, */
    const char *feature_gates; /* --feature-gates */
    bool use_secret;
    bool cluster;
    bool ecdsa;
    bool upstream_sans;
    bool json;
    bool help;
};

/* Takes the value of option `name` given as "--name V" or "--name=V". Returns 1 when argv[*i]
 * is that option (and *val set), 0 when it is not, -1 when the value is missing. */
static int opt_value(int argc, char **argv, int *i, const char *name, const char **val)
{
    size_t n = strlen(name);
    if (strncmp(argv[*i], name, n) != 0)
        return 0;
    if (argv[*i][n] == '=') {
        *val = argv[*i] + n + 1;
        return 1;
    }
    if (argv[*i][n] != '\0')
        return 0;
    if (*i + 1 >= argc)
        return -1;
    *val = argv[++*i];
    return 1;
}

static bool parse_args(int argc, char **argv, struct args *a)
{
    memset(a, 0, sizeof(*a));
    const struct {
        const char *name;
        const char **dst;
    } valued[] = {
        {"--out", &a->out},
        {"--host", &a->host},
        {"--service", &a->service},
        {"--namespace", &a->namespace},
        {"--days", &a->days},
        {"--mutating-config", &a->mutating},
        {"--validating-config", &a->validating},
        {"--config", &a->config},
        {"--port", &a->port},
        {"--feature-gates", &a->feature_gates},
        {"--webhook-host", &a->host},
    };
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        bool matched = false;
        for (size_t k = 0; k < sizeof(valued) / sizeof(valued[0]) && !matched; k++) {
            const char *val = NULL;
            int r = opt_value(argc, argv, &i, valued[k].name, &val);
            if (r < 0) {
                fprintf(stderr, "kruise-webhook certs: %s needs a value\n", valued[k].name);
                return false;
            }
            if (r > 0) {
                *valued[k].dst = val;
                matched = true;
            }
        }
        if (matched)
            continue;
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            a->help = true;
        } else if (strcmp(arg, "--ecdsa") == 0) {
            a->ecdsa = true;
        } else if (strcmp(arg, "--upstream-sans") == 0) {
            a->upstream_sans = true;
        } else if (strcmp(arg, "--json") == 0) {
            a->json = true;
        } else if (strcmp(arg, "--cluster") == 0) {
            a->cluster = true;
        } else if (strncmp(arg, "--secret=", 9) == 0) {
            a->use_secret = true;
            a->secret = arg + 9;
        } else if (strcmp(arg, "--secret") == 0) {
            a->use_secret = true;
            if (i + 1 < argc && argv[i + 1][0] != '-')
                a->secret = argv[++i];
        } else if (arg[0] == '-') {
            fprintf(stderr, "kruise-webhook certs: unknown option %s\n", arg);
            return false;
        } else if (!a->dir) {
            a->dir = arg;
        } else {
            fprintf(stderr, "kruise-webhook certs: unexpected argument %s\n", arg);
            return false;
        }
    }
    if (a->host && (a->service || a->namespace)) {
        fprintf(stderr, "kruise-webhook certs: --host excludes --service/--namespace\n");
        return false;
    }
    return true;
}

/* The target named on the command line, else the server's (environment) one. */
static void pick_target(const struct args *a, const struct wh_certs_env *env, bool standalone,
                        struct wh_certs_target *t)
{
    wh_certs_env_target(env, standalone, t);
    if (a->host) {
        t->host = a->host;
    } else if (a->service || a->namespace) {
        t->host = NULL;
        if (a->service)
            t->service = a->service;
        if (a->namespace)
            t->namespace = a->namespace;
    }
}

static const char *jstr(const json_t *obj, const char *key)
{
    const char *s = json_string_value(json_object_get(obj, key));
    return s ? s : "?";
}

static void print_list(const json_t *arr)
{
    size_t i;
    const json_t *v;
    json_array_foreach(arr, i, v)
    {
        printf("%s%s", i ? ", " : "", json_string_value(v));
    }
    if (json_array_size(arr) == 0)
        printf("(none)");
    printf("\n");
}

static void print_cert(const char *title, const json_t *c)
{
    printf("%s\n", title);
    if (json_object_get(c, "error")) {
        printf("  error:       %s\n", jstr(c, "error"));
        return;
    }
    json_int_t left = json_integer_value(json_object_get(c, "secs_left"));
    printf("  subject:     %s\n", jstr(c, "subject"));
    printf("  issuer:      %s\n", jstr(c, "issuer"));
    printf("  serial:      %s (0x%s)\n", jstr(c, "serial"), jstr(c, "serial_hex"));
    printf("  not before:  %s\n", jstr(c, "not_before"));
    printf("  not after:   %s (%lld days %s)\n", jstr(c, "not_after"),
           (long long)((left < 0 ? -left : left) / 86400), left < 0 ? "ago, EXPIRED" : "left");
    printf("  key:         %s\n", jstr(c, "key"));
    printf("  CA:          %s\n", json_is_true(json_object_get(c, "is_ca")) ? "yes" : "no");
    printf("  key usage:   ");
    print_list(json_object_get(c, "key_usage"));
    printf("  ext usage:   ");
    print_list(json_object_get(c, "ext_key_usage"));
    printf("  SANs:        ");
    print_list(json_object_get(c, "sans"));
    printf("  sha256:      %s\n", jstr(c, "sha256"));
}

static const char *yes_no(const json_t *r, const char *key)
{
    return json_is_true(json_object_get(r, key)) ? "yes" : "NO";
}

static void print_report(const char *where, const json_t *r)
{
    const json_t *k;
    printf("source:        %s\n", where);
    print_cert("CA certificate (ca-cert.pem)", json_object_get(r, "ca"));
    print_cert("serving certificate (cert.pem, tls.crt)", json_object_get(r, "serving"));
    k = json_object_get(r, "ca_key");
    printf("CA key (ca-key.pem):           %s\n",
           json_object_get(k, "error") ? jstr(k, "error") : jstr(k, "key"));
    k = json_object_get(r, "serving_key");
    printf("serving key (key.pem, tls.key): %s\n",
           json_object_get(k, "error") ? jstr(k, "error") : jstr(k, "key"));
    printf("checks\n");
    printf("  serving key matches certificate: %s\n", yes_no(r, "pair_matches"));
    printf("  CA key matches CA certificate:   %s\n", yes_no(r, "ca_pair_matches"));
    printf("  serving certificate chains to CA: %s\n", yes_no(r, "chains"));
    if (json_object_get(r, "host"))
        printf("  valid for %s: %s\n", jstr(r, "host"), yes_no(r, "valid_for_host"));
    printf("  CA reusable one more year:       %s\n", yes_no(r, "ca_reusable"));
    printf("  verdict (renewal margin %lld days): %s\n",
           (long long)json_integer_value(json_object_get(r, "renew_before_secs")) / 86400,
           jstr(r, "verdict"));
    if (strcmp(jstr(r, "verdict"), "valid") != 0)
        printf("  reason: %s\n", jstr(r, "reason"));
}

/* For inspect: the four files one by one, so that a partial directory can still be shown. */
static enum wh_err read_dir_lenient(const char *dir, struct wh_certs_bundle **out,
                                    struct wh_errbuf *eb)
{
    enum wh_err rc = wh_certs_fs_read(dir, out, eb);
    if (rc != WH_ERR_NOT_FOUND)
        return rc;
    struct wh_certs_bundle *b = wh_certs_bundle_new();
    for (int i = 0; i < WH_CERTS_N_ITEMS; i++) {
        const char *name = wh_certs_bundle_item_name((enum wh_certs_item)i);
        char *data = NULL;
        size_t len = 0;
        rc = wh_certs_atomic_dir_read(dir, &name, 1, WH_CERTS_PEM_MAX, &data, &len, eb);
        if (rc == WH_ERR_NOT_FOUND)
            continue;
        if (rc == WH_OK)
            rc = wh_certs_bundle_set(b, (enum wh_certs_item)i, data, len);
        if (data)
            memset(data, 0, len);
        free(data);
        if (rc) {
            wh_certs_bundle_free(b);
            return rc;
        }
    }
    *out = b;
    return WH_OK;
}

/* Decoded caBundle of a client config trusts every certificate of ca. */
static bool trusts(const json_t *cc, const char *ca, size_t ca_len)
{
    const char *b64 = wh_json_str(cc, "caBundle");
    unsigned char *bundle = NULL;
    size_t len = 0;
    bool ok = b64 && wh_base64_decode(b64, strlen(b64), &bundle, &len) == WH_OK &&
              wh_certs_inject_bundle_trusts(bundle, len, ca, ca_len);
    free(bundle);
    return ok;
}

static void note(json_t *obj, const char *key, json_t *value)
{
    int r = json_object_set_new(obj, key, value);
    WH_ASSERT(r == 0);
}

/* What the cluster check gathers. */
struct scan {
    const struct wh_certs_inject_target *t;
    X509 *leaf;    /* the serving certificate (may be NULL) */
    json_t *names; /* {name: valid-for-it} for every entry and selected CRD it checks */
};

static void scan_name(struct scan *sc, const json_t *cc)
{
    char *name = wh_certs_inject_called_name(cc);
    if (name && !json_object_get(sc->names, name))
        note(sc->names, name, json_boolean(sc->leaf && wh_certs_verify_host(sc->leaf, name)));
    free(name);
}

/* The entries the check counts: those for a path this server has a handler for, whatever
 * the feature gates of these settings say (the server may run with other gates: an entry for
 * a path it has turned off is removed by the server, so one that exists is called). */
static bool checked_path(const struct wh_config *cfg, const char *path)
{
    return cli_hooks.knows ? cli_hooks.knows(path) : cli_hooks.serves(cfg, path);
}

/* Host without IPv6 brackets, for comparisons. Returns: a new string. */
static char *bare_host(const char *h)
{
    size_t n = strlen(h);
    if (n >= 2 && h[0] == '[' && h[n - 1] == ']')
        return wh_xstrndup(h + 1, n - 2);
    return wh_xstrdup(h);
}

/* The port of cc's url when it calls host (443 when the URL names none); -1 when cc has no url
 * or calls another host. */
static int port_on(const json_t *cc, const char *host)
{
    const char *url = wh_json_str(cc, "url");
    char *name = url ? wh_certs_inject_called_name(cc) : NULL;
    char *a = name ? bare_host(name) : NULL, *b = bare_host(host);
    int port = -1;
    if (a && strcmp(a, b) == 0) {
        const char *p = strstr(url, "://") + 3; /* called_name found it */
        p += p[0] == '[' ? strcspn(p, "]") + 1 : strcspn(p, ":/?#");
        long long v = 443;
        if (*p == ':') {
            char digits[8] = "";
            size_t n = strspn(p + 1, "0123456789");
            if (n > 0 && n < sizeof(digits)) {
                memcpy(digits, p + 1, n);
                digits[n] = '\0';
                if (wh_str_to_ll(digits, 0, 65535, &v) != WH_OK)
                    v = -1;
            } else {
                v = -1;
            }
        }
        port = (int)v;
    }
    free(name);
    free(a);
    free(b);
    return port;
}

/* URL mode without a host in the settings: the one host the checked entries' URLs call
 * (NULL when they call none, or several). Returns: a new string. */
static char *entries_url_host(json_t *const live[2], const struct wh_config *cfg)
{
    char *host = NULL;
    bool several = false;
    for (int k = 0; k < 2 && !several; k++) {
        size_t i;
        const json_t *e;
        json_array_foreach(json_object_get(live[k], "webhooks"), i, e)
        {
            const json_t *cc = wh_json_obj(e, "clientConfig");
            char *p = wh_certs_inject_entry_path(cc);
            char *name = p && checked_path(cfg, p) && wh_json_str(cc, "url")
                             ? wh_certs_inject_called_name(cc)
                             : NULL;
            if (name && !host)
                host = wh_xstrdup(name);
            else if (name && strcmp(name, host) != 0)
                several = true;
            free(name);
            free(p);
        }
    }
    if (several) {
        free(host);
        host = NULL;
    }
    return host;
}

/* The one port the checked entries' URLs on host call; -1 when none or several. */
static int entries_port(json_t *const live[2], const struct wh_config *cfg, const char *host)
{
    int port = -1;
    for (int k = 0; k < 2; k++) {
        size_t i;
        const json_t *e;
        json_array_foreach(json_object_get(live[k], "webhooks"), i, e)
        {
            const json_t *cc = wh_json_obj(e, "clientConfig");
            char *p = wh_certs_inject_entry_path(cc);
            int q = p && checked_path(cfg, p) ? port_on(cc, host) : -1;
            free(p);
            if (q < 0)
                continue;
            if (port >= 0 && q != port)
                return -1;
            port = q;
        }
    }
    return port;
}

struct crd_scan {
    struct scan *sc;
    json_t *out;
    int selected, trusting;
};

/* Ours: CERT-55 and our Service or our URL; in URL mode any port of our host, so that a
 * conversion left on an old port is reported, not skipped. */
static bool crd_checked(const json_t *crd, const struct wh_certs_inject_target *t)
{
    if (wh_certs_inject_crd_selected(crd, t))
        return true;
    if (!t->host || !t->host[0])
        return false;
    struct wh_certs_inject_target at = *t;
    at.port =
        port_on(wh_json_path(crd, "spec", "conversion", "webhook", "clientConfig", NULL), t->host);
    return at.port >= 0 && wh_certs_inject_crd_selected(crd, &at);
}

static enum wh_err scan_crd(void *arg, json_t *crd)
{
    struct crd_scan *cs = arg;
    const struct wh_certs_inject_target *t = cs->sc->t;
    if (!crd_checked(crd, t))
        return WH_OK;
    cs->selected++;
    const json_t *cc = wh_json_path(crd, "spec", "conversion", "webhook", "clientConfig", NULL);
    scan_name(cs->sc, cc);
    if (trusts(cc, t->ca_bundle, t->ca_bundle_len))
        cs->trusting++;
    else
        json_array_append_new(json_object_get(cs->out, "not_trusting"),
                              json_string(wh_json_meta_str(crd, "name")));
    const char *url = wh_json_str(cc, "url");
    if (t->host && t->host[0] && url) {
        char *base = wh_certs_inject_url(t->host, t->port, "/");
        if (!wh_str_has_prefix(url, base)) {
            json_t *o = json_object();
            note(o, "crd", json_string(wh_json_meta_str(crd, "name")));
            note(o, "url", json_string(url));
            json_array_append_new(json_object_get(cs->out, "elsewhere"), o);
        }
        free(base);
    }
    return WH_OK;
}

/* A failure to talk to the cluster (as opposed to a finding about it): the report gets
 * "error" and "trouble", and the command exits 2, as `--secret` does for the same failure. */
static void trouble(json_t *report, const char *msg)
{
    note(report, "error", json_string(msg));
    note(report, "trouble", json_true());
}

/* Whether the caBundles in the cluster trust b's CA and name what b's serving certificate is
 * valid for, with the server's settings cfg/env. In URL mode the host and port are the
 * settings' (--webhook-host/--port, WEBHOOK_HOST/WEBHOOK_PORT, --config), else what the
 * webhook entries call; every CRD conversion on that host must call the same port. Nothing
 * to check is not a match. Returns: new ref, a report with "match" (and "trouble" when the
 * cluster could not be read). */
static json_t *check_cluster(const struct wh_certs_bundle *b, const struct args *a,
                             const struct wh_config *cfg, const struct wh_certs_env *env)
{
    json_t *report = json_object();
    struct wh_errbuf eb = {{0}};
    struct wh_kube_client *c = NULL;
    json_t *live[2] = {NULL, NULL};
    char *url_host = NULL;
    bool match = true;
    size_t ca_len = 0, cert_len = 0;
    int checked = 0;
    const char *ca = wh_certs_bundle_get(b, WH_CERTS_CA_CERT, &ca_len);
    const char *cert = wh_certs_bundle_get(b, WH_CERTS_CERT, &cert_len);
    struct wh_kube_opts ko = {
        .kubeconfig = getenv("KUBECONFIG"), .timeout_ms = 10000, .max_retries = 2};
    struct scan sc = {.names = json_object()};
    note(report, "names", sc.names);
    if (cert && wh_certs_pem_first_cert(cert, cert_len, &sc.leaf) != WH_OK)
        sc.leaf = NULL;

    if (wh_kube_client_new(&ko, &c, &eb)) {
        trouble(report, eb.msg);
        match = false;
        goto out;
    }
    const struct {
        enum wh_resource_id id;
        const char *name;
    } configs[] = {
        {WH_RES_MUTATING_WEBHOOK_CONFIGURATION,
         a->mutating ? a->mutating : cfg->mutating_config_name},
        {WH_RES_VALIDATING_WEBHOOK_CONFIGURATION,
         a->validating ? a->validating : cfg->validating_config_name},
    };
    json_t *per_config[2];
    for (size_t k = 0; k < 2; k++) {
        char path[512], key[300];
        struct wh_kube_status st = {0};
        per_config[k] = json_object();
        snprintf(key, sizeof(key), "%s/%s", wh_resource_get(configs[k].id)->kind, configs[k].name);
        note(report, key, per_config[k]);
        enum wh_err rc =
            wh_kube_path_of(path, sizeof(path), configs[k].id, NULL, configs[k].name, NULL);
        if (!rc)
            rc = wh_kube_get(c, path, &live[k], &st);
        if (rc) {
            const char *msg = st.message[0] ? st.message : wh_strerror(rc);
            note(per_config[k], "error", json_string(msg));
            if (rc != WH_ERR_NOT_FOUND)
                trouble(report, msg);
            match = false;
            live[k] = NULL;
        }
    }

    /* Where the API server must call this server. */
    struct wh_certs_inject_target t = {
        .ns = a->namespace ? a->namespace : env->pod_namespace,
        .service = a->service ? a->service : env->service_name,
        .host = a->host ? a->host : env->host,
        .port = env->port,
        .ca_bundle = ca ? ca : "",
        .ca_bundle_len = ca_len,
        .serves = serves_path,
        .serves_arg = (void *)(uintptr_t)cfg,
    };
    const char *host_from = a->host ? "--host" : "the settings (--webhook-host, WEBHOOK_HOST)";
    if (!t.host && !a->service && !a->namespace) {
        url_host = entries_url_host(live, cfg);
        t.host = url_host;
        host_from = "the webhook entries";
    }
    if (t.host) {
        json_t *at = json_object();
        int q = entries_port(live, cfg, t.host);
        note(at, "host", json_string(t.host));
        note(at, "host_from", json_string(host_from));
        if (q >= 0 && q != t.port)
            note(at, "settings_port", json_integer(t.port));
        if (q >= 0)
            t.port = q;
        note(at, "port", json_integer(t.port));
        note(at, "port_from",
             json_string(q >= 0 ? "the webhook entries" : "the settings (--port, WEBHOOK_PORT)"));
        note(report, "called_at", at);
    }
    sc.t = &t;

    for (size_t k = 0; k < 2; k++) {
        int entries = 0, trusting = 0;
        size_t i;
        const json_t *e;
        if (!live[k])
            continue;
        json_array_foreach(json_object_get(live[k], "webhooks"), i, e)
        {
            const json_t *cc = wh_json_obj(e, "clientConfig");
            char *p = wh_certs_inject_entry_path(cc);
            if (p && checked_path(cfg, p)) {
                entries++;
                trusting += trusts(cc, t.ca_bundle, t.ca_bundle_len);
                scan_name(&sc, cc);
            }
            free(p);
        }
        note(per_config[k], "served_entries", json_integer(entries));
        note(per_config[k], "trusting_entries", json_integer(trusting));
        match = match && entries == trusting;
        checked += entries;
    }
    struct crd_scan cs = {&sc, json_object(), 0, 0};
    struct wh_kube_status st = {0};
    char path[256];
    note(report, "crds", cs.out);
    note(cs.out, "not_trusting", json_array());
    note(cs.out, "elsewhere", json_array());
    if (wh_kube_path_of(path, sizeof(path), WH_RES_CRD, NULL, NULL, NULL) ||
        wh_kube_list_all(c, path, NULL, NULL, 100, scan_crd, &cs, NULL, &st)) {
        const char *msg = st.message[0] ? st.message : "cannot list CRDs";
        note(cs.out, "error", json_string(msg));
        trouble(report, msg);
        match = false;
    }
    note(cs.out, "selected", json_integer(cs.selected));
    note(cs.out, "trusting", json_integer(cs.trusting));
    match = match && cs.selected == cs.trusting &&
            json_array_size(json_object_get(cs.out, "elsewhere")) == 0;
    checked += cs.selected;
    if (checked == 0) {
        note(report, "nothing_checked", json_true());
        match = false;
    }
    const char *name;
    const json_t *valid;
    json_object_foreach(sc.names, name, valid)
    {
        match = match && json_is_true(valid);
    }
out:
    note(report, "match", json_boolean(match));
    X509_free(sc.leaf);
    wh_kube_client_free(c);
    json_decref(live[0]);
    json_decref(live[1]);
    free(url_host);
    return report;
}

static void print_cluster(const json_t *r)
{
    const char *key;
    const json_t *v;
    printf("caBundles in the cluster\n");
    if (json_object_get(r, "error") && !json_object_get(r, "crds")) {
        printf("  error: %s\n", jstr(r, "error"));
        return;
    }
    const json_t *at = json_object_get(r, "called_at");
    if (at) {
        printf("  this server is called at https://%s:%lld (host from %s, port from %s)\n",
               jstr(at, "host"), (long long)json_integer_value(json_object_get(at, "port")),
               jstr(at, "host_from"), jstr(at, "port_from"));
        if (json_object_get(at, "settings_port"))
            printf("  note: the settings name port %lld; the webhook entries call %lld (pass the "
                   "server's --port or WEBHOOK_PORT to check against it)\n",
                   (long long)json_integer_value(json_object_get(at, "settings_port")),
                   (long long)json_integer_value(json_object_get(at, "port")));
    }
    json_object_foreach((json_t *)(uintptr_t)r, key, v)
    {
        if (!json_is_object(v) || strcmp(key, "crds") == 0 || strcmp(key, "names") == 0 ||
            strcmp(key, "called_at") == 0)
            continue;
        if (json_object_get(v, "error"))
            printf("  %s: %s\n", key, jstr(v, "error"));
        else
            printf("  %s: %lld of %lld entries for this server's paths trust the CA\n", key,
                   (long long)json_integer_value(json_object_get(v, "trusting_entries")),
                   (long long)json_integer_value(json_object_get(v, "served_entries")));
    }
    const json_t *crds = json_object_get(r, "crds");
    if (json_object_get(crds, "error"))
        printf("  CRDs: %s\n", jstr(crds, "error"));
    else
        printf("  CRDs converted by us: %lld of %lld trust the CA\n",
               (long long)json_integer_value(json_object_get(crds, "trusting")),
               (long long)json_integer_value(json_object_get(crds, "selected")));
    size_t i;
    json_array_foreach(json_object_get(crds, "elsewhere"), i, v)
    {
        printf("  CRD %s converts through %s, not this server's port: %s\n", jstr(v, "crd"),
               jstr(v, "url"), "the server repairs it when it runs with these settings");
    }
    json_object_foreach((json_t *)(uintptr_t)json_object_get(r, "names"), key, v)
    {
        printf("  the API server calls %s: certificate valid for it: %s\n", key,
               json_is_true(v) ? "yes" : "NO");
    }
    if (json_is_true(json_object_get(r, "nothing_checked")))
        printf("  nothing in the cluster calls this server: no entry for its paths, no CRD "
               "converted through it; nothing was checked\n");
    printf("  match: %s\n", yes_no(r, "match"));
}

/* With --cluster and nothing naming the host (flags, WEBHOOK_HOST), the name the cluster's
 * entries call when they all call one; else NULL. Returns: borrowed from cluster. */
static const char *cluster_name(const struct args *a, const struct wh_certs_env *env,
                                const json_t *cluster)
{
    const json_t *names = json_object_get(cluster, "names");
    if (a->host || a->service || a->namespace || env->host || json_object_size(names) != 1)
        return NULL;
    return json_object_iter_key(json_object_iter((json_t *)(uintptr_t)names));
}

static int cmd_inspect(const struct args *a, const struct wh_config *cfg,
                       const struct wh_certs_env *env)
{
    int status = EXIT_TROUBLE;
    struct wh_certs_bundle *b = NULL;
    struct wh_errbuf eb = {{0}};
    struct wh_certs_target t;
    char *dns_name = NULL, *where = NULL;
    json_t *report = NULL, *cluster = NULL;
    bool check = a->cluster;

    if (a->use_secret == (a->dir != NULL)) {
        fprintf(stderr, "kruise-webhook certs inspect: %s\n\n%s",
                a->use_secret ? "a directory and --secret exclude each other"
                              : "a directory or --secret is required",
                usage_inspect);
        return EXIT_TROUBLE;
    }
    if (a->use_secret) {
        const char *name = a->secret && *a->secret ? a->secret : env->secret_name;
        const char *ns = a->namespace ? a->namespace : env->pod_namespace;
        wh_certs_secret_reader_fn reader = secret_reader;
        if (!reader) {
            reader = wh_certs_store_read_for_cli;
            check = true; /* a real cluster: look at its caBundles too */
        }
        if (reader(ns, name, &b, &eb) != WH_OK) {
            fprintf(stderr, "kruise-webhook certs inspect: Secret %s/%s: %s\n", ns, name, eb.msg);
            return EXIT_TROUBLE;
        }
        where = wh_str_printf("Secret %s/%s", ns, name);
    } else {
        struct stat st;
        if (stat(a->dir, &st) != 0) {
            fprintf(stderr, "kruise-webhook certs inspect: %s: cannot be read: %s\n", a->dir,
                    strerror(errno));
            return EXIT_TROUBLE;
        }
        if (!S_ISDIR(st.st_mode)) {
            fprintf(stderr, "kruise-webhook certs inspect: %s: not a directory\n", a->dir);
            return EXIT_TROUBLE;
        }
        if (read_dir_lenient(a->dir, &b, &eb) != WH_OK) {
            fprintf(stderr, "kruise-webhook certs inspect: %s\n", eb.msg);
            return EXIT_TROUBLE;
        }
        where = wh_str_printf("directory %s", a->dir);
    }
    if (check)
        cluster = check_cluster(b, a, cfg, env);
    /* As in the server, one namespace holds the Secret and names the service. */
    pick_target(a, env, !check && wh_kube_standalone(NULL, getenv("KUBECONFIG")), &t);
    const char *from_cluster = cluster ? cluster_name(a, env, cluster) : NULL;
    dns_name = from_cluster ? wh_xstrdup(from_cluster) : wh_certs_target_dns_name(&t);
    report = wh_certs_bundle_inspect(b, dns_name, time(NULL), env->renew_before_secs);
    if (cluster)
        note(report, "cluster", json_incref(cluster));
    if (a->json) {
        int r = json_object_set_new(report, "source", json_string(where));
        WH_ASSERT(r == 0);
        char *text = json_dumps(report, JSON_INDENT(2) | JSON_SORT_KEYS);
        if (text)
            printf("%s\n", text);
        free(text);
    } else {
        print_report(where, report);
        if (cluster)
            print_cluster(cluster);
    }
    status = strcmp(jstr(report, "verdict"), "valid") == 0 ? EXIT_VALID : EXIT_INVALID;
    if (cluster && !json_is_true(json_object_get(cluster, "match")))
        status = EXIT_INVALID;
    if (cluster && json_is_true(json_object_get(cluster, "trouble"))) {
        fprintf(stderr, "kruise-webhook certs inspect: cannot check the cluster: %s\n",
                jstr(cluster, "error"));
        status = EXIT_TROUBLE;
    }
    json_decref(cluster);
    json_decref(report);
    free(dns_name);
    free(where);
    wh_certs_bundle_free(b);
    return status;
}

static int cmd_generate(const struct args *a, const struct wh_certs_env *env)
{
    struct wh_certs_gen_opts o;
    struct wh_certs_target t;
    struct wh_certs_bundle *b = NULL;
    struct wh_errbuf eb = {{0}};
    int status = EXIT_TROUBLE;
    char *dns_name = NULL;
    json_t *report = NULL;

    if (!a->out || a->dir) {
        fprintf(stderr, "kruise-webhook certs generate: %s\n\n%s",
                a->out ? "unexpected argument (the directory goes after --out)"
                       : "--out DIR is required",
                usage_generate);
        return EXIT_TROUBLE;
    }
    wh_certs_gen_opts_init(&o);
    o.key_type = a->ecdsa ? WH_CERTS_KEY_ECDSA : WH_CERTS_KEY_RSA;
    o.upstream_sans = a->upstream_sans;
    if (a->days) {
        long long days = 0;
        if (wh_str_to_ll(a->days, 1, 36500, &days) != WH_OK) {
            fprintf(stderr, "kruise-webhook certs generate: --days must be 1..36500\n");
            return EXIT_TROUBLE;
        }
        o.validity_secs = (int64_t)days * 86400;
    }
    pick_target(a, env, wh_kube_standalone(NULL, getenv("KUBECONFIG")), &t);
    dns_name = wh_certs_target_dns_name(&t);
    if (!dns_name) {
        fprintf(stderr, "kruise-webhook certs generate: no host, or no service and namespace\n");
        goto out;
    }
    if (wh_certs_bundle_generate(&o, &t, NULL, &b, NULL, &eb) != WH_OK ||
        wh_certs_fs_write(a->out, b, NULL, &eb) != WH_OK) {
        fprintf(stderr, "kruise-webhook certs generate: %s\n", eb.msg);
        goto out;
    }
    report = wh_certs_bundle_inspect(b, dns_name, time(NULL), 0);
    const json_t *s = json_object_get(report, "serving");
    printf("wrote %s/{ca-key.pem,ca-cert.pem,cert.pem,key.pem,tls.crt,tls.key}\n", a->out);
    printf("  CA:       %s, serial %s, until %s\n", jstr(json_object_get(report, "ca"), "subject"),
           jstr(json_object_get(report, "ca"), "serial"),
           jstr(json_object_get(report, "ca"), "not_after"));
    printf("  serving:  %s, serial %s, until %s\n", jstr(s, "subject"), jstr(s, "serial"),
           jstr(s, "not_after"));
    printf("  key:      %s\n", jstr(s, "key"));
    printf("  SANs:     ");
    print_list(json_object_get(s, "sans"));
    status = EXIT_VALID;
out:
    json_decref(report);
    wh_certs_bundle_free(b);
    free(dns_name);
    return status;
}

int wh_certs_cli_main(int argc, char **argv, const struct wh_certs_cli_hooks *hooks)
{
    WH_ASSERT(hooks && hooks->serves);
    cli_hooks = *hooks;
    struct args a;
    struct wh_certs_env env;
    struct wh_errbuf eb = {{0}};
    int status;

    memset(&env, 0, sizeof(env));
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        fprintf(argc < 2 ? stderr : stdout, "%s", usage_main);
        return argc < 2 ? EXIT_TROUBLE : EXIT_VALID;
    }
    const char *cmd = argv[1];
    bool is_generate = strcmp(cmd, "generate") == 0, is_inspect = strcmp(cmd, "inspect") == 0;
    if (!is_generate && !is_inspect) {
        fprintf(stderr, "kruise-webhook certs: unknown command %s\n\n%s", cmd, usage_main);
        return EXIT_TROUBLE;
    }
    const char *usage = is_generate ? usage_generate : usage_inspect;
    if (!parse_args(argc - 1, argv + 1, &a)) {
        fprintf(stderr, "\n%s", usage);
        return EXIT_TROUBLE;
    }
    if (a.help) {
        printf("%s", usage);
        return EXIT_VALID;
    }
    /* A command's output is its report: the client's connection notes would only clutter it. */
    if (wh_log_enabled(WH_LOG_INFO))
        wh_log_setup(WH_LOG_WARN, WH_LOG_TEXT);
    /* The server's settings as the server merges them (flags > environment > --config file >
     * defaults): the same host, port, names and feature gates. */
    char *cargv[8];
    int cargc = 0;
    cargv[cargc++] = "kruise-webhook";
    const struct {
        const char *flag, *value;
    } forward[] = {
        {"--config", a.config}, {"--port", a.port}, {"--feature-gates", a.feature_gates}};
    for (size_t i = 0; i < sizeof(forward) / sizeof(forward[0]); i++) {
        if (!forward[i].value)
            continue;
        cargv[cargc++] = (char *)(uintptr_t)forward[i].flag;
        cargv[cargc++] = (char *)(uintptr_t)forward[i].value;
    }
    cargv[cargc] = NULL;
    struct wh_config cfg;
    if (wh_config_load(&cfg, cargc, cargv, &eb) != WH_OK ||
        wh_certs_env_from_config(&env, &cfg, &eb) != WH_OK) {
        fprintf(stderr, "kruise-webhook certs: %s\n", eb.msg);
        wh_certs_env_fini(&env);
        wh_config_fini(&cfg);
        return EXIT_TROUBLE;
    }
    status = is_generate ? cmd_generate(&a, &env) : cmd_inspect(&a, &cfg, &env);
    wh_certs_env_fini(&env);
    wh_config_fini(&cfg);
    return status;
}
