#include "certs/env.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "log/log.h"
#include "util/mem.h"
#include "util/str.h"

/* NULL when the variable is unset or empty (CERT-01: empty counts as unset). */
static const char *env(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

static char *env_dup(const char *name, const char *def)
{
    const char *v = env(name);
    if (v)
        return wh_xstrdup(v);
    return def ? wh_xstrdup(def) : NULL;
}

int64_t wh_certs_env_parse_renew_before(const char *s, bool *defaulted)
{
    /* Go keeps durations in int64 nanoseconds; larger margins cannot exist upstream. */
    static const int64_t max_secs = INT64_MAX / 1000000000;
    int64_t unit = 0;
    long long n = 0;
    char *num = NULL;
    int64_t result = WH_CERTS_DEFAULT_RENEW_BEFORE_SECS;
    bool ok = false;

    if (!s || !*s)
        goto out;
    size_t len = strlen(s);
    switch (s[len - 1]) {
    case 'd':
        unit = 86400;
        break;
    case 'm':
        unit = (int64_t)30 * 86400;
        break;
    case 'y':
        unit = (int64_t)365 * 86400;
        break;
    default:
        goto out;
    }
    num = wh_xstrndup(s, len - 1);
    if (wh_str_to_ll(num, LLONG_MIN, LLONG_MAX, &n) != WH_OK)
        goto out;
    if (n <= 0 || n > max_secs / unit)
        goto out;
    result = (int64_t)n * unit;
    ok = true;
out:
    free(num);
    if (defaulted)
        *defaulted = !ok;
    return result;
}

enum wh_err wh_certs_env_load(struct wh_certs_env *e, struct wh_errbuf *eb)
{
    memset(e, 0, sizeof(*e));
    e->port = WH_CERTS_DEFAULT_PORT;
    const char *port = env("WEBHOOK_PORT");
    if (port) {
        long long v = 0;
        if (wh_str_to_ll(port, 0, 65535, &v) != WH_OK)
            return wh_errbuf_set(eb, WH_ERR_INVALID, "WEBHOOK_PORT=%s: not a port number", port);
        e->port = (int)v;
    }
    e->pod_namespace = env_dup("POD_NAMESPACE", WH_CERTS_DEFAULT_NAMESPACE);
    e->secret_name = env_dup("SECRET_NAME", WH_CERTS_DEFAULT_SECRET);
    e->service_name = env_dup("SERVICE_NAME", WH_CERTS_DEFAULT_SERVICE);
    e->host = env_dup("WEBHOOK_HOST", NULL);
    e->cert_dir = env_dup("WEBHOOK_CERT_DIR", WH_CERTS_DEFAULT_CERT_DIR);
    e->cert_writer = env_dup("WEBHOOK_CERT_WRITER", NULL);
    const char *renew = env("CERTS_RENEW_BEFORE");
    bool defaulted = false;
    e->renew_before_secs = wh_certs_env_parse_renew_before(renew, &defaulted);
    if (renew && defaulted)
        wh_log(WH_LOG_WARN,
               "CERTS_RENEW_BEFORE=%s is not <n>d, <n>m or <n>y with n > 0; "
               "using 180 days",
               renew);
    return WH_OK;
}

static char *dup_or(const char *v, const char *def)
{
    if (v && *v)
        return wh_xstrdup(v);
    return def ? wh_xstrdup(def) : NULL;
}

enum wh_err wh_certs_env_from_config(struct wh_certs_env *e, const struct wh_config *cfg,
                                     struct wh_errbuf *eb)
{
    memset(e, 0, sizeof(*e));
    if (cfg->port < 0 || cfg->port > 65535)
        return wh_errbuf_set(eb, WH_ERR_INVALID, "port %lld: not a port number", cfg->port);
    e->port = (int)cfg->port;
    e->pod_namespace = dup_or(cfg->namespace_, WH_CERTS_DEFAULT_NAMESPACE);
    e->secret_name = dup_or(cfg->secret_name, WH_CERTS_DEFAULT_SECRET);
    e->service_name = dup_or(cfg->service_name, WH_CERTS_DEFAULT_SERVICE);
    e->host = dup_or(cfg->host, NULL);
    e->cert_dir = dup_or(cfg->cert_dir, WH_CERTS_DEFAULT_CERT_DIR);
    e->cert_writer = dup_or(cfg->cert_writer, NULL);
    bool defaulted = false;
    e->renew_before_secs = wh_certs_env_parse_renew_before(cfg->renew_before, &defaulted);
    if (cfg->renew_before && cfg->renew_before[0] && defaulted)
        wh_log(WH_LOG_WARN,
               "CERTS_RENEW_BEFORE=%s is not <n>d, <n>m or <n>y with n > 0; using 180 days",
               cfg->renew_before);
    return wh_certs_env_check_renew_before(e->renew_before_secs, cfg->renew_before,
                                           wh_config_origin(cfg, "certs-renew-before"), eb);
}

enum wh_err wh_certs_env_check_renew_before(int64_t renew_before_secs, const char *given,
                                            const char *origin, struct wh_errbuf *eb)
{
    const int64_t validity = WH_CERTS_VALIDITY_SECS;
    if (renew_before_secs < validity)
        return WH_OK;
    return wh_errbuf_set(eb, WH_ERR_INVALID,
                         "--certs-renew-before (%s) %s = %lld days is not shorter than the "
                         "%lld-day validity of the certificates this server makes: each would be "
                         "renewed as soon as it was made; use less than %lldd (the default is "
                         "180d)",
                         origin ? origin : "CERTS_RENEW_BEFORE",
                         given && *given ? given : "", (long long)(renew_before_secs / 86400),
                         (long long)(validity / 86400), (long long)(validity / 86400));
}

void wh_certs_env_fini(struct wh_certs_env *e)
{
    free(e->pod_namespace);
    free(e->secret_name);
    free(e->service_name);
    free(e->host);
    free(e->cert_dir);
    free(e->cert_writer);
    memset(e, 0, sizeof(*e));
}

void wh_certs_env_target(const struct wh_certs_env *e, bool standalone, struct wh_certs_target *t)
{
    t->host = e->host ? e->host : standalone ? "localhost" : NULL;
    t->service = e->service_name;
    t->namespace = e->pod_namespace;
}

enum wh_certs_writer wh_certs_env_writer(const struct wh_certs_env *e, bool external_certs_gate)
{
    if (external_certs_gate)
        return WH_CERTS_WRITER_EXTERNAL;
    if (wh_str_eq(e->cert_writer, "fs") || (!e->cert_writer && e->host))
        return WH_CERTS_WRITER_FS;
    return WH_CERTS_WRITER_SECRET;
}
