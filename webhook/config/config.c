#include "config/config.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yaml.h>

#include "util/buf.h"
#include "util/cpu.h"
#include "util/mem.h"
#include "util/str.h"

enum opt_type {
    T_INT,      /* long long within [min, max] */
    T_BYTES,    /* long long; also "3Mi", "64Ki", "1Gi" */
    T_DURATION, /* long long milliseconds; "10s", "500ms", "2m" */
    T_STRING,
    T_ADDR, /* "host:port", ":port", or "0"/"" to disable */
    T_BOOL,
    T_LOG_LEVEL,
    T_LOG_FORMAT,
};

struct opt {
    const char *name; /* --name, and the key in the --config file */
    /* Environment variable: upstream's name where upstream has one, else WEBHOOK_ and the flag
     * name in capitals (a leading "webhook-" dropped); NULL only for command-line options. */
    const char *env;
    enum opt_type type;
    size_t offset;
    const char *def;
    long long min, max;
    const char *help;
};

#define OFF(field) offsetof(struct wh_config, field)
#define NOLIMIT 0, 0

static const struct opt opts[] = {
    {"port", "WEBHOOK_PORT", T_INT, OFF(port), "9876", 0, 65535,
     "HTTPS port of the webhook server (0 picks a free port)"},
    {"bind-address", "WEBHOOK_BIND_ADDRESS", T_STRING, OFF(bind_address), "", NOLIMIT,
     "address of the HTTPS listener (empty: all interfaces, as a Pod needs)"},
    {"cert-dir", "WEBHOOK_CERT_DIR", T_STRING, OFF(cert_dir), "/tmp/kruise-webhook-certs", NOLIMIT,
     "directory holding the serving certificate (tls.crt/tls.key or cert.pem/key.pem)"},
    {"webhook-host", "WEBHOOK_HOST", T_STRING, OFF(host), "", NOLIMIT,
     "host name or IP the API server uses to reach this server (URL mode when set)"},
    {"namespace", "POD_NAMESPACE", T_STRING, OFF(namespace_), "kruise-system", NOLIMIT,
     "the kruise namespace (certificate Secret, Service, ControllerRevisions, ConfigMap)"},
    {"secret-name", "SECRET_NAME", T_STRING, OFF(secret_name), "kruise-webhook-server-certs",
     NOLIMIT, "name of the Secret that stores the certificates"},
    {"service-name", "SERVICE_NAME", T_STRING, OFF(service_name), "kruise-webhook-server", NOLIMIT,
     "name of the Service in front of this server"},
    {"certs-renew-before", "CERTS_RENEW_BEFORE", T_STRING, OFF(renew_before), "", NOLIMIT,
     "renew certificates this long before expiry: <n>d, <n>m (30 days), <n>y (default 180d)"},
    {"cert-writer", "WEBHOOK_CERT_WRITER", T_STRING, OFF(cert_writer), "", NOLIMIT,
     "certificate store: fs, or secret (default: fs in URL mode, secret otherwise)"},
    {"cert-key-type", "WEBHOOK_CERT_KEY_TYPE", T_STRING, OFF(cert_key_type), "rsa", NOLIMIT,
     "keys of generated certificates: rsa (2048 bits, as upstream) or ecdsa (P-256)"},
    {"mutating-webhook-configuration-name", "WEBHOOK_MUTATING_WEBHOOK_CONFIGURATION_NAME", T_STRING,
     OFF(mutating_config_name), "kruise-webhook-server-mutating", NOLIMIT,
     "MutatingWebhookConfiguration whose entries for our paths get caBundle and clientConfig"},
    {"validating-webhook-configuration-name", "WEBHOOK_VALIDATING_WEBHOOK_CONFIGURATION_NAME",
     T_STRING, OFF(validating_config_name), "kruise-webhook-server-validating", NOLIMIT,
     "ValidatingWebhookConfiguration whose entries for our paths get caBundle and clientConfig"},
    {"webhook-initialize-timeout", "WEBHOOK_INITIALIZE_TIMEOUT", T_DURATION,
     OFF(webhook_init_timeout_ms), "60s", 0, 86400000,
     "exit when certificates and caBundles are not in place after this long (0: do not wait)"},
    {"certs-resync-period", "WEBHOOK_CERTS_RESYNC_PERIOD", T_DURATION, OFF(certs_resync_ms), "1m",
     100, 86400000, "how often certificates and caBundles are checked besides on changes"},
    {"ca-publish-delay", "WEBHOOK_CA_PUBLISH_DELAY", T_DURATION, OFF(ca_publish_delay_ms), "5s", 0,
     3600000,
     "on a CA change, publish old+new CA this long before serving certificates of the new CA"},
    {"leader-elect", "WEBHOOK_LEADER_ELECT", T_BOOL, OFF(leader_elect), "false", NOLIMIT,
     "only the holder of a coordination.k8s.io Lease writes the Secret and caBundles"},
    {"leader-election-id", "WEBHOOK_LEADER_ELECTION_ID", T_STRING, OFF(leader_election_id), "",
     NOLIMIT, "name of that Lease in --namespace (default <secret-name>-writer)"},
    {"leader-election-lease-duration", "WEBHOOK_LEADER_ELECTION_LEASE_DURATION", T_DURATION,
     OFF(leader_lease_duration_ms), "15s", 1000, 3600000,
     "how long a Lease not renewed keeps others from taking it"},
    {"leader-election-renew-deadline", "WEBHOOK_LEADER_ELECTION_RENEW_DEADLINE", T_DURATION,
     OFF(leader_renew_deadline_ms), "10s", 500, 3600000,
     "the writer stops writing when it could not renew for this long"},
    {"leader-election-retry-period", "WEBHOOK_LEADER_ELECTION_RETRY_PERIOD", T_DURATION,
     OFF(leader_retry_period_ms), "2s", 100, 600000, "how often the Lease is renewed or tried"},
    {"feature-gates", "WEBHOOK_FEATURE_GATES", T_STRING, OFF(feature_gates), "", NOLIMIT,
     "feature gates, Name=true,Other=false (upstream OpenKruise names and defaults)"},
    {"kubeconfig", "KUBECONFIG", T_STRING, OFF(kubeconfig), "", NOLIMIT,
     "kubeconfig file; without it: in-cluster config, else standalone"},
    {"state", "WEBHOOK_STATE", T_STRING, OFF(state), "", NOLIMIT,
     "standalone mode: a YAML/JSON file or directory of objects to use as cluster state"},
    {"log-level", "WEBHOOK_LOG_LEVEL", T_LOG_LEVEL, OFF(log_level), "info", NOLIMIT,
     "debug, info, warn or error"},
    {"log-format", "WEBHOOK_LOG_FORMAT", T_LOG_FORMAT, OFF(log_format), "json", NOLIMIT,
     "json or text"},
    {"max-body-bytes", "WEBHOOK_MAX_BODY_BYTES", T_BYTES, OFF(max_body_bytes), "3Mi", 1024,
     1LL << 30, "largest request body accepted (413 above it)"},
    {"threads", "WEBHOOK_THREADS", T_INT, OFF(threads), "0", 0, 1024,
     "HTTPS worker threads (0: one per CPU the container may use, after its cgroup limit)"},
    {"health-addr", "WEBHOOK_HEALTH_ADDR", T_ADDR, OFF(health_addr), ":8000", NOLIMIT,
     "plain HTTP host:port for /healthz and /readyz (:port is all interfaces; 0 disables)"},
    {"metrics-addr", "WEBHOOK_METRICS_ADDR", T_ADDR, OFF(metrics_addr), ":8080", NOLIMIT,
     "plain HTTP host:port for /metrics (:port is all interfaces; 0 disables)"},
    {"request-deadline", "WEBHOOK_REQUEST_DEADLINE", T_DURATION, OFF(request_deadline_ms), "8s",
     100, 600000,
     "an admission request's API calls (status writes, live lists) end by then; keep it below "
     "the webhook configurations' timeoutSeconds"},
    {"admission-warnings", "WEBHOOK_ADMISSION_WARNINGS", T_BOOL, OFF(admission_warnings), "true",
     NOLIMIT,
     "add warnings to admission answers where upstream allows silently (kubectl prints them); "
     "they never change an answer"},
    {"shutdown-delay", "WEBHOOK_SHUTDOWN_DELAY", T_DURATION, OFF(shutdown_delay_ms), "5s", 0,
     3600000,
     "after SIGTERM, keep accepting and answering this long with /readyz 503, so that the "
     "endpoints drop this replica before its listener closes"},
    {"shutdown-grace", "WEBHOOK_SHUTDOWN_GRACE", T_DURATION, OFF(shutdown_grace_ms), "10s", 0,
     3600000, "then, how long to wait for in-flight requests"},
    {"connection-timeout", "WEBHOOK_CONNECTION_TIMEOUT", T_DURATION, OFF(connection_timeout_ms),
     "30s", 1000, 3600000, "idle connections are closed after this long"},
    {"connection-memory-limit", "WEBHOOK_CONNECTION_MEMORY_LIMIT", T_BYTES,
     OFF(connection_memory_limit), "64Ki", 8192, 16 << 20,
     "per-connection memory for headers and I/O buffers"},
    {"max-connections", "WEBHOOK_MAX_CONNECTIONS", T_INT, OFF(max_connections), "1024", 1,
     1000000, "HTTPS connections open at once; past it the oldest idle, else the slowest, is closed"},
    {"max-connections-per-ip", "WEBHOOK_MAX_CONNECTIONS_PER_IP", T_INT,
     OFF(max_connections_per_ip), "256", 1, 1000000,
     "HTTPS connections open at once from one client address (same rule)"},
    {"request-read-timeout", "WEBHOOK_REQUEST_READ_TIMEOUT", T_DURATION,
     OFF(request_read_timeout_ms), "10s", 100, 3600000,
     "a request's headers and body must arrive within this (bytes do not extend it)"},
    {"max-request-memory", "WEBHOOK_MAX_REQUEST_MEMORY", T_BYTES, OFF(max_request_memory), "40Mi",
     1 << 20, 1LL << 40,
     "memory all requests in flight may hold for large bodies and their parse (503 past it)"},
    {"body-bytes-per-thread", "WEBHOOK_BODY_BYTES_PER_THREAD", T_BYTES,
     OFF(body_bytes_per_thread), "256Ki", 0, 1LL << 40,
     "bytes of request bodies over 64 KiB an HTTPS thread reads at once (at least one body); "
     "the others wait in the socket, at most 500 ms (0: no limit)"},
    {"cert-reload-interval", "WEBHOOK_CERT_RELOAD_INTERVAL", T_DURATION,
     OFF(cert_reload_interval_ms), "1s", 100, 3600000,
     "how often the cert dir is checked for a new certificate"},
    {"kube-client-qps", "WEBHOOK_KUBE_CLIENT_QPS", T_INT, OFF(kube_qps), "50", 1, 100000,
     "requests per second to the API server (client-side rate limit)"},
    {"kube-client-burst", "WEBHOOK_KUBE_CLIENT_BURST", T_INT, OFF(kube_burst), "100", 1, 100000,
     "burst above --kube-client-qps"},
    {"kube-client-timeout", "WEBHOOK_KUBE_CLIENT_TIMEOUT", T_DURATION, OFF(kube_timeout_ms), "10s",
     100, 600000, "timeout of each call to the API server (watches excepted)"},
    {"config", NULL, T_STRING, OFF(config_file), "", NOLIMIT,
     "YAML file with any of these options (keys are the flag names)"},
    {"check-config", NULL, T_BOOL, OFF(check_config), "false", NOLIMIT,
     "validate the configuration (flags, environment, --config, --state) and exit"},
    {"help", NULL, T_BOOL, OFF(show_help), "false", NOLIMIT, "print this help and exit"},
    {"version", NULL, T_BOOL, OFF(show_version), "false", NOLIMIT, "print the version and exit"},
};

#define NOPTS (sizeof(opts) / sizeof(opts[0]))

static void *field(struct wh_config *cfg, const struct opt *o)
{
    return (char *)cfg + o->offset;
}

static const struct opt *find_opt(const char *name, size_t len)
{
    for (size_t i = 0; i < NOPTS; i++) {
        if (strlen(opts[i].name) == len && memcmp(opts[i].name, name, len) == 0)
            return &opts[i];
    }
    return NULL;
}

/* Remembers where o's value came from (the source text set_option names in its errors). */
static void set_origin(struct wh_config *cfg, const struct opt *o, const char *source)
{
    char **slot = &cfg->_origins[o - opts];
    free(*slot);
    *slot = wh_xstrdup(source);
}

const char *wh_config_origin(const struct wh_config *cfg, const char *name)
{
    static _Thread_local char fallback[96];
    const struct opt *o = find_opt(name, strlen(name));
    WH_ASSERT(o);
    if (cfg->_origins && cfg->_origins[o - opts])
        return cfg->_origins[o - opts];
    snprintf(fallback, sizeof(fallback), "--%s (default)", o->name);
    return fallback;
}

const char *wh_config_env_name(const char *name)
{
    const struct opt *o = find_opt(name, strlen(name));
    return o ? o->env : NULL;
}

static enum wh_err parse_bytes(const char *s, long long *out)
{
    static const struct {
        const char *suffix;
        long long mult;
    } units[] = {{"Ki", 1LL << 10}, {"Mi", 1LL << 20}, {"Gi", 1LL << 30},
                 {"k", 1000},       {"M", 1000000},    {"G", 1000000000}};
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
        if (wh_str_has_suffix(s, units[i].suffix) && strlen(s) > strlen(units[i].suffix)) {
            char num[32];
            size_t n = strlen(s) - strlen(units[i].suffix);
            if (n >= sizeof(num))
                return WH_ERR_INVALID;
            memcpy(num, s, n);
            num[n] = '\0';
            long long v = 0;
            if (wh_str_to_ll(num, 0, (1LL << 62) / units[i].mult, &v))
                return WH_ERR_INVALID;
            *out = v * units[i].mult;
            return WH_OK;
        }
    }
    return wh_str_to_ll(s, 0, 1LL << 62, out);
}

/* Every value, whatever its source, goes through here, so a bad value reads the same way. */
static enum wh_err set_option(struct wh_config *cfg, const struct opt *o, const char *value,
                              const char *source, struct wh_errbuf *eb)
{
    void *dst = field(cfg, o);
    long long v = 0;
    switch (o->type) {
    case T_INT:
        if (wh_str_to_ll(value, o->min, o->max, &v))
            return wh_errbuf_set(eb, WH_ERR_INVALID,
                                 "%s: invalid value \"%s\" (want an integer in %lld..%lld)", source,
                                 value, o->min, o->max);
        *(long long *)dst = v;
        return WH_OK;
    case T_BYTES:
        if (parse_bytes(value, &v) || v < o->min || v > o->max)
            return wh_errbuf_set(eb, WH_ERR_INVALID,
                                 "%s: invalid value \"%s\" (want bytes such as 3Mi, between "
                                 "%lld and %lld)",
                                 source, value, o->min, o->max);
        *(long long *)dst = v;
        return WH_OK;
    case T_DURATION:
        if (wh_str_to_duration_ms(value, &v) || v < o->min || v > o->max)
            return wh_errbuf_set(eb, WH_ERR_INVALID,
                                 "%s: invalid duration \"%s\" (want e.g. 10s, 500ms, 2m)", source,
                                 value);
        *(long long *)dst = v;
        return WH_OK;
    case T_ADDR: {
        char host[256];
        int port = 0;
        if (!wh_config_addr_disabled(value) &&
            wh_config_parse_addr(value, host, sizeof(host), &port))
            return wh_errbuf_set(eb, WH_ERR_INVALID,
                                 "%s: invalid address \"%s\" (want host:port, :port, or 0)", source,
                                 value);
        char **s = dst;
        free(*s);
        *s = wh_xstrdup(value);
        return WH_OK;
    }
    case T_STRING: {
        char **s = dst;
        free(*s);
        *s = wh_xstrdup(value);
        return WH_OK;
    }
    case T_BOOL: {
        bool b = false;
        if (wh_str_to_bool(value, &b))
            return wh_errbuf_set(eb, WH_ERR_INVALID,
                                 "%s: invalid value \"%s\" (want true or false)", source, value);
        *(bool *)dst = b;
        return WH_OK;
    }
    case T_LOG_LEVEL:
        if (wh_log_parse_level(value, dst))
            return wh_errbuf_set(eb, WH_ERR_INVALID,
                                 "%s: invalid value \"%s\" (want debug, info, warn or error)",
                                 source, value);
        return WH_OK;
    case T_LOG_FORMAT:
        if (wh_log_parse_format(value, dst))
            return wh_errbuf_set(eb, WH_ERR_INVALID, "%s: invalid value \"%s\" (want json or text)",
                                 source, value);
        return WH_OK;
    }
    WH_PANIC("unknown option type %d", (int)o->type);
}

bool wh_config_addr_disabled(const char *addr)
{
    return addr[0] == '\0' || strcmp(addr, "0") == 0;
}

enum wh_err wh_config_parse_addr(const char *addr, char *host, size_t hostsz, int *port)
{
    const char *colon = strrchr(addr, ':');
    if (!colon)
        return WH_ERR_INVALID;
    const char *h = addr;
    size_t hlen = (size_t)(colon - addr);
    if (hlen >= 2 && h[0] == '[' && h[hlen - 1] == ']') {
        h++;
        hlen -= 2;
    } else if (memchr(h, ':', hlen)) {
        return WH_ERR_INVALID; /* an IPv6 host must be bracketed */
    }
    if (hlen >= hostsz)
        return WH_ERR_INVALID;
    long long p = 0;
    if (wh_str_to_ll(colon + 1, 0, 65535, &p))
        return WH_ERR_INVALID;
    memcpy(host, h, hlen);
    host[hlen] = '\0';
    *port = (int)p;
    return WH_OK;
}

/* Options that only make sense on a command line. */
static bool cli_only(const struct opt *o)
{
    return o->offset == OFF(config_file) || o->offset == OFF(check_config) ||
           o->offset == OFF(show_help) || o->offset == OFF(show_version);
}

/* --- the --config file -------------------------------------------------------------------- */

/* Reads a scalar or, for feature-gates, a mapping of Name: bool into "Name=bool,..." text. */
static enum wh_err read_value(yaml_parser_t *parser, const char *file, const char *key,
                              struct wh_buf *out, struct wh_errbuf *eb)
{
    yaml_event_t ev;
    if (!yaml_parser_parse(parser, &ev))
        return wh_errbuf_set(eb, WH_ERR_PARSE, "%s:%zu:%zu: %s", file,
                             parser->problem_mark.line + 1, parser->problem_mark.column + 1,
                             parser->problem ? parser->problem : "invalid YAML");
    enum wh_err rc = WH_OK;
    size_t line = ev.start_mark.line + 1, col = ev.start_mark.column + 1;
    if (ev.type == YAML_SCALAR_EVENT) {
        rc = wh_buf_add(out, ev.data.scalar.value, ev.data.scalar.length);
    } else if (ev.type == YAML_MAPPING_START_EVENT && strcmp(key, "feature-gates") == 0) {
        yaml_event_delete(&ev);
        for (;;) {
            if (!yaml_parser_parse(parser, &ev))
                return wh_errbuf_set(eb, WH_ERR_PARSE, "%s:%zu:%zu: %s", file,
                                     parser->problem_mark.line + 1, parser->problem_mark.column + 1,
                                     parser->problem ? parser->problem : "invalid YAML");
            if (ev.type == YAML_MAPPING_END_EVENT)
                break;
            if (ev.type != YAML_SCALAR_EVENT) {
                rc = wh_errbuf_set(eb, WH_ERR_INVALID, "%s:%zu:%zu: %s: want Name: true|false",
                                   file, ev.start_mark.line + 1, ev.start_mark.column + 1, key);
                goto out;
            }
            if (out->len)
                rc = wh_buf_addc(out, ',');
            if (!rc)
                rc = wh_buf_add(out, ev.data.scalar.value, ev.data.scalar.length);
            yaml_event_delete(&ev);
            if (!yaml_parser_parse(parser, &ev))
                return wh_errbuf_set(eb, WH_ERR_PARSE, "%s: invalid YAML", file);
            if (ev.type != YAML_SCALAR_EVENT) {
                rc = wh_errbuf_set(eb, WH_ERR_INVALID, "%s:%zu:%zu: %s: want Name: true|false",
                                   file, ev.start_mark.line + 1, ev.start_mark.column + 1, key);
                goto out;
            }
            if (!rc)
                rc = wh_buf_addc(out, '=');
            if (!rc)
                rc = wh_buf_add(out, ev.data.scalar.value, ev.data.scalar.length);
            yaml_event_delete(&ev);
            if (rc)
                break;
        }
    } else {
        rc = wh_errbuf_set(eb, WH_ERR_INVALID, "%s:%zu:%zu: %s: want a single value", file, line,
                           col, key);
    }
    if (rc == WH_ERR_TOO_BIG)
        rc = wh_errbuf_set(eb, WH_ERR_INVALID, "%s:%zu:%zu: %s: value too long", file, line, col,
                           key);
out:
    yaml_event_delete(&ev);
    return rc;
}

static enum wh_err load_file(struct wh_config *cfg, const char *file, bool *from_file,
                             struct wh_errbuf *eb)
{
    enum wh_err rc = WH_OK;
    FILE *f = fopen(file, "rb");
    if (!f)
        return wh_errbuf_set(eb, WH_ERR_IO, "--config: cannot open %s: %s", file, strerror(errno));
    yaml_parser_t parser;
    yaml_parser_initialize(&parser);
    yaml_parser_set_input_file(&parser, f);
    struct wh_buf val;
    wh_buf_init(&val, 64 * 1024);
    yaml_event_t ev;
    int depth = 0;
    bool done = false;
    while (!done) {
        if (!yaml_parser_parse(&parser, &ev)) {
            rc = wh_errbuf_set(eb, WH_ERR_PARSE, "%s:%zu:%zu: %s", file,
                               parser.problem_mark.line + 1, parser.problem_mark.column + 1,
                               parser.problem ? parser.problem : "invalid YAML");
            goto out;
        }
        switch (ev.type) {
        case YAML_STREAM_END_EVENT:
            done = true;
            break;
        case YAML_MAPPING_START_EVENT:
            if (depth++ > 0) {
                rc = wh_errbuf_set(eb, WH_ERR_INVALID, "%s:%zu:%zu: unexpected mapping", file,
                                   ev.start_mark.line + 1, ev.start_mark.column + 1);
            }
            break;
        case YAML_MAPPING_END_EVENT:
            depth--;
            break;
        case YAML_SCALAR_EVENT: {
            if (depth != 1) {
                if (ev.data.scalar.length == 0)
                    break; /* an empty document */
                rc =
                    wh_errbuf_set(eb, WH_ERR_INVALID, "%s:%zu:%zu: want a mapping of option: value",
                                  file, ev.start_mark.line + 1, ev.start_mark.column + 1);
                break;
            }
            size_t line = ev.start_mark.line + 1, col = ev.start_mark.column + 1;
            const struct opt *o =
                find_opt((const char *)ev.data.scalar.value, ev.data.scalar.length);
            if (!o || cli_only(o)) {
                rc = wh_errbuf_set(eb, WH_ERR_INVALID, "%s:%zu:%zu: unknown option \"%.*s\"", file,
                                   line, col, (int)ev.data.scalar.length,
                                   (const char *)ev.data.scalar.value);
                break;
            }
            wh_buf_reset(&val);
            rc = read_value(&parser, file, o->name, &val, eb);
            if (rc)
                break;
            char source[512];
            snprintf(source, sizeof(source), "%s:%zu:%zu: %s", file, line, col, o->name);
            rc = set_option(cfg, o, val.data ? val.data : "", source, eb);
            if (!rc)
                set_origin(cfg, o, source);
            from_file[o - opts] = true;
            break;
        }
        case YAML_SEQUENCE_START_EVENT:
            rc = wh_errbuf_set(eb, WH_ERR_INVALID, "%s:%zu:%zu: want a mapping of option: value",
                               file, ev.start_mark.line + 1, ev.start_mark.column + 1);
            break;
        default:
            break;
        }
        yaml_event_delete(&ev);
        if (rc)
            goto out;
    }
out:
    wh_buf_fini(&val);
    yaml_parser_delete(&parser);
    fclose(f);
    return rc;
}

/* --- loading ------------------------------------------------------------------------------ */

/* Finds --config in argv before anything else, since the file sits below flags and env. */
static const char *config_flag(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            break;
        if (strcmp(argv[i], "--config") == 0 && i + 1 < argc)
            return argv[i + 1];
        if (wh_str_has_prefix(argv[i], "--config="))
            return argv[i] + strlen("--config=");
    }
    return NULL;
}

bool wh_config_is_flag(const char *arg, bool *takes_next)
{
    *takes_next = false;
    if (arg[0] != '-' || arg[1] != '-' || arg[2] == '\0')
        return false;
    const char *name = arg + 2;
    const char *eq = strchr(name, '=');
    const struct opt *o = find_opt(name, eq ? (size_t)(eq - name) : strlen(name));
    if (!o)
        return false;
    *takes_next = !eq && o->type != T_BOOL;
    return true;
}

static enum wh_err load_flags(struct wh_config *cfg, int argc, char **argv, struct wh_errbuf *eb)
{
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "-h") == 0)
            arg = "--help";
        if (arg[0] != '-' || arg[1] != '-' || arg[2] == '\0')
            return wh_errbuf_set(eb, WH_ERR_INVALID, "unexpected argument \"%s\"", arg);
        const char *name = arg + 2;
        const char *eq = strchr(name, '=');
        size_t nlen = eq ? (size_t)(eq - name) : strlen(name);
        const struct opt *o = find_opt(name, nlen);
        if (!o)
            return wh_errbuf_set(eb, WH_ERR_INVALID, "unknown flag --%.*s (see --help)", (int)nlen,
                                 name);
        const char *value;
        if (eq) {
            value = eq + 1;
        } else if (o->type == T_BOOL) {
            value = "true";
        } else if (i + 1 < argc) {
            value = argv[++i];
        } else {
            return wh_errbuf_set(eb, WH_ERR_INVALID, "flag --%s needs a value", o->name);
        }
        char source[96];
        snprintf(source, sizeof(source), "flag --%s", o->name);
        enum wh_err rc = set_option(cfg, o, value, source, eb);
        if (rc)
            return rc;
        set_origin(cfg, o, source);
    }
    return WH_OK;
}

enum wh_err wh_config_load(struct wh_config *cfg, int argc, char **argv, struct wh_errbuf *eb)
{
    enum wh_err rc = WH_OK;
    memset(cfg, 0, sizeof(*cfg));
    cfg->_origins = wh_xcalloc(NOPTS, sizeof(*cfg->_origins));
    for (size_t i = 0; i < NOPTS; i++) {
        rc = set_option(cfg, &opts[i], opts[i].def, opts[i].name, eb);
        if (rc)
            WH_PANIC("bad default for %s: %s", opts[i].name, eb ? eb->msg : "");
        char source[96];
        snprintf(source, sizeof(source), "--%s (default)", opts[i].name);
        set_origin(cfg, &opts[i], source);
    }
    bool from_file[NOPTS] = {false};
    const char *file = config_flag(argc, argv);
    if (file) {
        rc = load_file(cfg, file, from_file, eb);
        if (rc)
            return rc;
    }
    for (size_t i = 0; i < NOPTS; i++) {
        const char *v = opts[i].env ? getenv(opts[i].env) : NULL;
        if (!v || !*v)
            continue; /* empty counts as unset (certs.md CERT-01) */
        char source[96];
        snprintf(source, sizeof(source), "environment variable %s", opts[i].env);
        rc = set_option(cfg, &opts[i], v, source, eb);
        if (rc)
            return rc;
        set_origin(cfg, &opts[i], source);
    }
    rc = load_flags(cfg, argc, argv, eb);
    if (rc)
        return rc;

    wh_features_init(&cfg->features);
    rc = wh_features_parse(&cfg->features, cfg->feature_gates, eb);
    if (rc) {
        /* named as the value's source: a typo in WEBHOOK_FEATURE_GATES is not in a flag */
        char msg[sizeof(eb->msg)];
        snprintf(msg, sizeof(msg), "%s", eb->msg);
        return wh_errbuf_set(eb, rc, "%s: %s", wh_config_origin(cfg, "feature-gates"), msg);
    }
    if (strcmp(cfg->cert_key_type, "rsa") != 0 && strcmp(cfg->cert_key_type, "ecdsa") != 0)
        return wh_errbuf_set(eb, WH_ERR_INVALID, "%s: invalid value \"%s\" (want rsa or ecdsa)",
                             wh_config_origin(cfg, "cert-key-type"), cfg->cert_key_type);
    if (cfg->threads == 0)
        cfg->threads = wh_cpu_count("/");
    return WH_OK;
}

void wh_config_fini(struct wh_config *cfg)
{
    for (size_t i = 0; i < NOPTS; i++) {
        if (opts[i].type == T_STRING || opts[i].type == T_ADDR) {
            char **s = field(cfg, &opts[i]);
            free(*s);
            *s = NULL;
        }
        if (cfg->_origins)
            free(cfg->_origins[i]);
    }
    free(cfg->_origins);
    cfg->_origins = NULL;
}

void wh_config_usage(FILE *out, const char *prog)
{
    fprintf(out,
            "Usage: %s [flags]               run the webhook server\n"
            "       %s inject -f POD --state FILE   inject SidecarSets into a Pod offline\n"
            "       %s explain pod|eviction|delete ...  why, about a live Pod or deletion\n"
            "       %s convert -f FILE --to VERSION convert objects offline\n"
            "       %s certs generate|inspect ...   certificate operations\n\n"
            "Flags (environment variable in brackets; precedence: flag > environment > --config "
            "file > default):\n",
            prog, prog, prog, prog, prog);
    bool first_cli = true;
    for (size_t i = 0; i < NOPTS; i++) {
        const struct opt *o = &opts[i];
        char head[64];
        snprintf(head, sizeof(head), "--%s%s", o->name, o->type == T_BOOL ? "" : " VALUE");
        fprintf(out, "  %-32s %s", head, o->help);
        if (o->env)
            fprintf(out, " [%s]", o->env);
        if (o->def[0] && o->type != T_BOOL)
            fprintf(out, " (default %s)", o->def);
        fputc('\n', out);
    }
    fputs("\nCommand-line only (no environment variable, not in --config files):", out);
    for (size_t i = 0; i < NOPTS; i++) {
        if (!cli_only(&opts[i]))
            continue;
        fprintf(out, "%s --%s", first_cli ? "" : ",", opts[i].name);
        first_cli = false;
    }
    fputs(".\n", out);
}
