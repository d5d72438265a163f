#include "kube/client.h"

#include <curl/curl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config/config.h"
#include "kube/kubeconfig.h"
#include "kube/ratelimit.h"
#include "kube/token.h"
#include "kube/watch.h"
#include "log/log.h"
#include "util/buf.h"
#include "util/json.h"
#include "util/jsonparse.h"
#include "util/mem.h"
#include "util/str.h"
#include "util/backoff.h"
#include "util/deadline.h"
#include "util/time.h"

#define NS_PER_MS 1000000LL
#define DEFAULT_TIMEOUT_MS 30000L
/* Error answers are read only for their Status; a server sending more is misbehaving. */
#define ERROR_BODY_CAP (256u * 1024u)
/* Idle easy handles kept for reuse (each keeps its connection to the API server open). */
#define POOL_MAX 8
#define BACKOFF_BASE_MS 100
#define BACKOFF_MAX_MS 5000
/* A watch that receives nothing for this long is considered dead when the caller gave no
 * server-side timeout; TCP keepalive notices vanished peers sooner. */
#define WATCH_IDLE_DEFAULT_S 600L
#define URL_MAX 8192

struct wh_kube_client {
    struct wh_kubeconfig kc;
    long timeout_ms;
    int max_retries;
    bool read_only;
    struct wh_ratelimit rl;
    struct wh_token_source tok;
    char user_agent[64];
    CURLSH *share;
    pthread_mutex_t share_mu[CURL_LOCK_DATA_LAST];
    pthread_mutex_t pool_mu;
    CURL *pool[POOL_MAX];
    int npool;
};

/* What a verb may repeat after a failure (see client.h, "Retries"). */
enum retry_policy {
    RETRY_ALL,       /* GET, PUT, DELETE, merge patches, POST: 429, 5xx, connection errors */
    RETRY_UNAPPLIED, /* JSON patch: only when the request was certainly not applied */
};

struct request {
    const char *method;
    const char *path; /* with its query */
    const char *body; /* NULL: none */
    size_t body_len;
    const char *content_type;
    enum retry_policy policy;
};

/* One transfer's state, seen by the libcurl callbacks. */
struct xfer {
    CURL *h;
    struct wh_buf body;
    bool too_big;
    long retry_after_s; /* -1: no Retry-After */
    /* watch only */
    bool watching; /* a 200 arrived: body bytes are events */
    bool streamed; /* at least the headers of a 200 arrived */
    struct wh_watch_splitter split;
    wh_kube_event_fn fn;
    void *arg;
    enum wh_err stop_rc; /* why the event path aborted the transfer */
    struct wh_errbuf split_eb;
    struct wh_kube_status *st;
    const atomic_bool *stop;
};

/* --- small helpers ------------------------------------------------------------------------ */

static void lock_chk(pthread_mutex_t *m)
{
    if (pthread_mutex_lock(m) != 0)
        WH_PANIC("pthread_mutex_lock failed");
}

static void status_clear(struct wh_kube_status *st)
{
    if (!st)
        return;
    st->code = 0;
    st->reason[0] = '\0';
    st->message[0] = '\0';
    st->attempts = 0;
}

static void status_msg(struct wh_kube_status *st, const char *fmt, ...) WH_PRINTF(2, 3);
static void status_msg(struct wh_kube_status *st, const char *fmt, ...)
{
    if (!st)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(st->message, sizeof(st->message), fmt, ap);
    va_end(ap);
}

static void copy_str(char *dst, size_t dstsz, const char *src)
{
    size_t n = strlen(src);
    if (n >= dstsz)
        n = dstsz - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

/* The StatusReason the API server would use for a code, for answers that carry no Status. */
static const char *reason_for(int code)
{
    switch (code) {
    case 400:
        return "BadRequest";
    case 401:
        return "Unauthorized";
    case 403:
        return "Forbidden";
    case 404:
        return "NotFound";
    case 405:
        return "MethodNotAllowed";
    case 406:
        return "NotAcceptable";
    case 409:
        return "Conflict";
    case 410:
        return "Gone";
    case 413:
        return "RequestEntityTooLarge";
    case 415:
        return "UnsupportedMediaType";
    case 422:
        return "Invalid";
    case 429:
        return "TooManyRequests";
    case 500:
        return "InternalError";
    case 503:
        return "ServiceUnavailable";
    case 504:
        return "Timeout";
    default:
        return "";
    }
}

static enum wh_err map_code(int code)
{
    if (code >= 200 && code < 300)
        return WH_OK;
    switch (code) {
    case 404:
        return WH_ERR_NOT_FOUND;
    case 409:
        return WH_ERR_CONFLICT;
    case 410:
        return WH_ERR_GONE;
    default:
        return WH_ERR_KUBE;
    }
}

/* Fills st from a Status object (or anything else the server sent with an error code). */
static void status_from_json(struct wh_kube_status *st, int http_code, const json_t *s)
{
    if (!st)
        return;
    st->code = http_code;
    const char *reason = wh_json_str(s, "reason");
    const char *msg = wh_json_str(s, "message");
    copy_str(st->reason, sizeof(st->reason), reason && *reason ? reason : reason_for(http_code));
    copy_str(st->message, sizeof(st->message), msg ? msg : "");
}

static void status_from_body(struct wh_kube_status *st, int http_code, const char *body, size_t len)
{
    if (!st)
        return;
    json_t *s = len ? wh_json_parse(body, len, NULL) : NULL;
    if (json_is_object(s)) {
        status_from_json(st, http_code, s);
    } else {
        /* Not a Status (a proxy in the way, say): keep a printable prefix of what came. */
        st->code = http_code;
        copy_str(st->reason, sizeof(st->reason), reason_for(http_code));
        size_t n = 0;
        for (size_t i = 0; i < len && n + 1 < sizeof(st->message) && n < 200; i++)
            st->message[n++] = (body[i] >= 0x20 && body[i] < 0x7f) ? body[i] : ' ';
        st->message[n] = '\0';
        if (n == 0)
            snprintf(st->message, sizeof(st->message), "HTTP %d", http_code);
    }
    json_decref(s);
}

/* Exponential backoff with jitter: half the step fixed, half random, so that clients that
 * failed together do not come back together. */
static int64_t backoff_ms(int retry)
{
    struct wh_backoff b = {
        .first_ms = BACKOFF_BASE_MS, .max_ms = BACKOFF_MAX_MS, .jitter_pct = 50, ._n = retry};
    return wh_backoff_next(&b);
}

/* --- paths and queries -------------------------------------------------------------------- */

static bool segment_ok(const char *s)
{
    if (strcmp(s, ".") == 0 || strcmp(s, "..") == 0)
        return false;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p <= 0x20 || *p == 0x7f || *p == '/' || *p == '%' || *p == '?' || *p == '#')
            return false;
    }
    return true;
}

enum wh_err wh_kube_path(char *buf, size_t bufsz, const char *group, const char *version,
                         const char *resource, const char *ns, const char *name, const char *sub)
{
    const char *parts[] = {group, version, resource, ns, name, sub};
    for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
        if (parts[i] && *parts[i] && !segment_ok(parts[i]))
            return WH_ERR_INVALID;
    }
    bool has_res = resource && *resource;
    if (!version || !*version || (!has_res && ((ns && *ns) || (name && *name) || (sub && *sub))))
        return WH_ERR_INVALID;
    if (sub && *sub && !(name && *name))
        return WH_ERR_INVALID;
    int n;
    if (group && *group)
        n = snprintf(buf, bufsz, "/apis/%s/%s", group, version);
    else
        n = snprintf(buf, bufsz, "/api/%s", version);
    size_t len = n < 0 ? bufsz : (size_t)n;
    const char *rest[] = {ns && *ns ? "namespaces" : NULL, ns, resource, name, sub};
    for (size_t i = 0; i < sizeof(rest) / sizeof(rest[0]) && len < bufsz; i++) {
        if (!rest[i] || !*rest[i])
            continue;
        n = snprintf(buf + len, bufsz - len, "/%s", rest[i]);
        len = n < 0 ? bufsz : len + (size_t)n;
    }
    if (len >= bufsz)
        return WH_ERR_TOO_BIG;
    return WH_OK;
}

enum wh_err wh_kube_path_of(char *buf, size_t bufsz, enum wh_resource_id id, const char *ns,
                            const char *name, const char *sub)
{
    const struct wh_resource *r = wh_resource_get(id);
    return wh_kube_path(buf, bufsz, r->group, r->versions[0], r->resource, ns, name, sub);
}

/* Appends name=value (value percent-encoded) to a query being built in b. */
static enum wh_err add_param(struct wh_buf *b, const char *name, const char *value)
{
    static const char hex[] = "0123456789ABCDEF";
    enum wh_err rc = wh_buf_addc(b, strchr(b->data ? b->data : "", '?') ? '&' : '?');
    if (!rc)
        rc = wh_buf_adds(b, name);
    if (!rc)
        rc = wh_buf_addc(b, '=');
    for (const unsigned char *p = (const unsigned char *)value; !rc && *p; p++) {
        if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
            *p == '-' || *p == '.' || *p == '_' || *p == '~') {
            rc = wh_buf_addc(b, (char)*p);
        } else {
            char e[3] = {'%', hex[*p >> 4], hex[*p & 15]};
            rc = wh_buf_add(b, e, 3);
        }
    }
    return rc;
}

static enum wh_err add_param_long(struct wh_buf *b, const char *name, long v)
{
    char num[32];
    snprintf(num, sizeof(num), "%ld", v);
    return add_param(b, name, num);
}

/* --- the client ----------------------------------------------------------------------------- */

static void share_lock(CURL *h, curl_lock_data data, curl_lock_access access, void *ud)
{
    (void)h;
    (void)access;
    struct wh_kube_client *c = ud;
    lock_chk(&c->share_mu[data]);
}

static void share_unlock(CURL *h, curl_lock_data data, void *ud)
{
    (void)h;
    struct wh_kube_client *c = ud;
    pthread_mutex_unlock(&c->share_mu[data]);
}

bool wh_kube_in_cluster(void)
{
    return wh_kubeconfig_in_cluster_present();
}

struct wh_kube_opts wh_kube_opts_of_config(const struct wh_config *cfg)
{
    return (struct wh_kube_opts){
        .kubeconfig = cfg->kubeconfig,
        .qps = (double)cfg->kube_qps,
        .burst = (int)cfg->kube_burst,
        .timeout_ms = (long)cfg->kube_timeout_ms,
        .max_retries = 3,
    };
}

bool wh_kube_standalone(const char *state, const char *kubeconfig)
{
    return (state && state[0]) || ((!kubeconfig || !kubeconfig[0]) && !wh_kube_in_cluster());
}

enum wh_err wh_kube_config_check(const char *kubeconfig, struct wh_errbuf *eb)
{
    struct wh_kubeconfig kc;
    memset(&kc, 0, sizeof(kc));
    enum wh_err rc = kubeconfig && *kubeconfig ? wh_kubeconfig_load(kubeconfig, &kc, eb)
                                               : wh_kubeconfig_in_cluster(&kc, eb);
    wh_kubeconfig_fini(&kc);
    return rc;
}

enum wh_err wh_kube_client_new(const struct wh_kube_opts *opts, struct wh_kube_client **out,
                               struct wh_errbuf *eb)
{
    enum wh_err rc = WH_OK;
    struct wh_kube_client *c = NULL;
    struct wh_kubeconfig kc;

    *out = NULL;
    memset(&kc, 0, sizeof(kc));
    if (opts->kubeconfig && *opts->kubeconfig)
        rc = wh_kubeconfig_load(opts->kubeconfig, &kc, eb);
    else
        rc = wh_kubeconfig_in_cluster(&kc, eb);
    if (rc)
        goto out;

    c = wh_xcalloc(1, sizeof(*c));
    c->kc = kc;
    memset(&kc, 0, sizeof(kc));
    c->timeout_ms = opts->timeout_ms > 0 ? opts->timeout_ms : DEFAULT_TIMEOUT_MS;
    c->max_retries = opts->max_retries > 0 ? opts->max_retries : 0;
    c->read_only = opts->read_only;
    int64_t now = wh_time_mono_ns();
    wh_ratelimit_init(&c->rl, opts->qps, opts->burst, now);
    wh_token_init(&c->tok, c->kc.token, c->kc.token_file,
                  opts->token_reread_ms > 0 ? opts->token_reread_ms * NS_PER_MS : 0);
    snprintf(c->user_agent, sizeof(c->user_agent), "kruise-webhook/%s (linux)", WH_VERSION);
    for (int i = 0; i < CURL_LOCK_DATA_LAST; i++) {
        if (pthread_mutex_init(&c->share_mu[i], NULL) != 0)
            WH_PANIC("pthread_mutex_init failed");
    }
    if (pthread_mutex_init(&c->pool_mu, NULL) != 0)
        WH_PANIC("pthread_mutex_init failed");
    /* Shared: DNS answers and TLS sessions (cheap reconnects). Not connections: libcurl does
     * not support sharing its connection cache between concurrent threads, so connections
     * are reused through the pool of idle easy handles instead. */
    c->share = curl_share_init();
    if (!c->share || curl_share_setopt(c->share, CURLSHOPT_LOCKFUNC, share_lock) ||
        curl_share_setopt(c->share, CURLSHOPT_UNLOCKFUNC, share_unlock) ||
        curl_share_setopt(c->share, CURLSHOPT_USERDATA, c) ||
        curl_share_setopt(c->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS) ||
        curl_share_setopt(c->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION)) {
        rc = wh_errbuf_set(eb, WH_ERR_NOMEM, "kube: cannot set up a curl share");
        goto out;
    }
    rc = wh_token_load(&c->tok, now, eb);
    if (rc)
        goto out;
    wh_log(WH_LOG_INFO, "kube: API server %s (%s)%s", c->kc.server, c->kc.origin,
           c->kc.insecure ? ", TLS verification disabled" : "");
    *out = c;
    c = NULL;
out:
    wh_kubeconfig_fini(&kc);
    wh_kube_client_free(c);
    return rc;
}

void wh_kube_client_free(struct wh_kube_client *c)
{
    if (!c)
        return;
    for (int i = 0; i < c->npool; i++)
        curl_easy_cleanup(c->pool[i]);
    if (c->share)
        curl_share_cleanup(c->share);
    pthread_mutex_destroy(&c->pool_mu);
    for (int i = 0; i < CURL_LOCK_DATA_LAST; i++)
        pthread_mutex_destroy(&c->share_mu[i]);
    wh_token_fini(&c->tok);
    wh_ratelimit_fini(&c->rl);
    wh_kubeconfig_fini(&c->kc);
    free(c);
}

const char *wh_kube_client_server(const struct wh_kube_client *c)
{
    return c->kc.server;
}

const char *wh_kube_client_namespace(const struct wh_kube_client *c)
{
    return c->kc.ns;
}

static CURL *handle_get(struct wh_kube_client *c)
{
    CURL *h = NULL;
    lock_chk(&c->pool_mu);
    if (c->npool > 0)
        h = c->pool[--c->npool];
    pthread_mutex_unlock(&c->pool_mu);
    if (h)
        curl_easy_reset(h); /* keeps the live connection and caches, drops every option */
    else
        h = curl_easy_init();
    return h;
}

static void handle_put(struct wh_kube_client *c, CURL *h)
{
    if (!h)
        return;
    lock_chk(&c->pool_mu);
    if (c->npool < POOL_MAX) {
        c->pool[c->npool++] = h;
        h = NULL;
    }
    pthread_mutex_unlock(&c->pool_mu);
    if (h)
        curl_easy_cleanup(h);
}

/* --- one transfer --------------------------------------------------------------------------- */

static size_t on_body(char *p, size_t size, size_t n, void *ud)
{
    struct xfer *x = ud;
    size_t len = size * n;
    if (wh_buf_add(&x->body, p, len)) {
        x->too_big = true;
        return 0;
    }
    return len;
}

static size_t on_header(char *p, size_t size, size_t n, void *ud)
{
    static const char name[] = "retry-after:";
    struct xfer *x = ud;
    size_t len = size * n;
    if (len >= 5 && memcmp(p, "HTTP/", 5) == 0) {
        x->retry_after_s = -1; /* a new response (after a 100 Continue, say) */
    } else if (len > sizeof(name) - 1 && strncasecmp(p, name, sizeof(name) - 1) == 0) {
        /* Only the delay-seconds form; an HTTP-date falls back to our own backoff. */
        long v = 0;
        size_t i = sizeof(name) - 1;
        while (i < len && (p[i] == ' ' || p[i] == '\t'))
            i++;
        size_t digits = 0;
        while (i < len && p[i] >= '0' && p[i] <= '9' && digits < 7) {
            v = v * 10 + (p[i] - '0');
            i++;
            digits++;
        }
        if (digits > 0)
            x->retry_after_s = v;
    }
    return len;
}

#define SETOPT(h, opt, val)                                                                        \
    do {                                                                                           \
        if (curl_easy_setopt((h), (opt), (val)) != CURLE_OK) {                                     \
            bad = #opt;                                                                            \
            goto fail;                                                                             \
        }                                                                                          \
    } while (0)

/* Options every request shares: URL, TLS, identity, callbacks. */
static enum wh_err setup(struct wh_kube_client *c, struct xfer *x, const char *url,
                         struct curl_slist *headers, char *errbuf)
{
    const char *bad = NULL;
    CURL *h = x->h;
    SETOPT(h, CURLOPT_URL, url);
    SETOPT(h, CURLOPT_NOSIGNAL, 1L);
    SETOPT(h, CURLOPT_SHARE, c->share);
    SETOPT(h, CURLOPT_PROTOCOLS_STR, "https,http");
    SETOPT(h, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
    SETOPT(h, CURLOPT_USERAGENT, c->user_agent);
    SETOPT(h, CURLOPT_ERRORBUFFER, errbuf);
    SETOPT(h, CURLOPT_TCP_KEEPALIVE, 1L);
    SETOPT(h, CURLOPT_TCP_KEEPIDLE, 30L);
    SETOPT(h, CURLOPT_TCP_KEEPINTVL, 10L);
    SETOPT(h, CURLOPT_HTTPHEADER, headers);
    SETOPT(h, CURLOPT_HEADERFUNCTION, on_header);
    SETOPT(h, CURLOPT_HEADERDATA, x);
    if (c->kc.insecure) {
        SETOPT(h, CURLOPT_SSL_VERIFYPEER, 0L);
        SETOPT(h, CURLOPT_SSL_VERIFYHOST, 0L);
    }
    if (c->kc.ca_data) {
        struct curl_blob blob = {c->kc.ca_data, c->kc.ca_len, CURL_BLOB_NOCOPY};
        SETOPT(h, CURLOPT_CAINFO_BLOB, &blob);
    } else if (c->kc.ca_file) {
        SETOPT(h, CURLOPT_CAINFO, c->kc.ca_file);
    }
    if (c->kc.cert_data) {
        struct curl_blob blob = {c->kc.cert_data, c->kc.cert_len, CURL_BLOB_NOCOPY};
        SETOPT(h, CURLOPT_SSLCERT_BLOB, &blob);
    } else if (c->kc.cert_file) {
        SETOPT(h, CURLOPT_SSLCERT, c->kc.cert_file);
    }
    if (c->kc.cert_data || c->kc.cert_file)
        SETOPT(h, CURLOPT_SSLCERTTYPE, "PEM");
    if (c->kc.key_data) {
        struct curl_blob blob = {c->kc.key_data, c->kc.key_len, CURL_BLOB_NOCOPY};
        SETOPT(h, CURLOPT_SSLKEY_BLOB, &blob);
    } else if (c->kc.key_file) {
        SETOPT(h, CURLOPT_SSLKEY, c->kc.key_file);
    }
    if (c->kc.key_data || c->kc.key_file)
        SETOPT(h, CURLOPT_SSLKEYTYPE, "PEM");
    return WH_OK;
fail:
    /* Only an option this libcurl build lacks (blobs need the OpenSSL backend, say). */
    snprintf(errbuf, CURL_ERROR_SIZE, "libcurl rejected %s", bad);
    return WH_ERR_INTERNAL;
}

static struct curl_slist *slist_add(struct curl_slist *l, const char *s)
{
    struct curl_slist *n = curl_slist_append(l, s);
    if (!n)
        WH_PANIC("out of memory in curl_slist_append");
    return n;
}

/* The request headers; token may be NULL. */
static struct curl_slist *make_headers(const char *token, const char *content_type)
{
    struct curl_slist *l = slist_add(NULL, "Accept: application/json");
    /* No "Expect: 100-continue" round trip before large bodies. */
    l = slist_add(l, "Expect:");
    if (content_type) {
        char *ct = wh_str_printf("Content-Type: %s", content_type);
        l = slist_add(l, ct);
        free(ct);
    }
    if (token) {
        char *auth = wh_str_printf("Authorization: Bearer %s", token);
        l = slist_add(l, auth);
        free(auth);
    }
    return l;
}

static enum wh_err make_url(struct wh_kube_client *c, const char *path, char **url)
{
    if (!path || path[0] != '/')
        return WH_ERR_INVALID;
    size_t n = strlen(c->kc.server) + strlen(path);
    if (n >= URL_MAX)
        return WH_ERR_TOO_BIG;
    *url = wh_str_printf("%s%s", c->kc.server, path);
    return WH_OK;
}

/* How a libcurl failure is classified. */
enum curl_kind {
    CK_NOT_SENT,   /* the request never reached the server: safe to repeat for every verb */
    CK_MAYBE_SENT, /* the connection broke after sending: the server may have acted */
    CK_TLS,        /* certificate or key problems: repeating will not help */
    CK_OTHER,
};

static enum curl_kind curl_kind_of(CURLcode r)
{
    switch (r) {
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_CONNECT:
    case CURLE_SSL_CONNECT_ERROR:
        return CK_NOT_SENT;
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
        return CK_MAYBE_SENT;
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_CRL_BADFILE:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_SSL_INVALIDCERTSTATUS:
    case CURLE_SSL_CLIENTCERT:
    case CURLE_SSL_ENGINE_NOTFOUND:
    case CURLE_SSL_ENGINE_SETFAILED:
    case CURLE_SSL_ENGINE_INITFAILED:
        return CK_TLS;
    default:
        return CK_OTHER;
    }
}

static enum wh_err curl_err_to_wh(CURLcode r)
{
    if (r == CURLE_OPERATION_TIMEDOUT)
        return WH_ERR_TIMEOUT;
    if (curl_kind_of(r) == CK_TLS || r == CURLE_SSL_CONNECT_ERROR)
        return WH_ERR_TLS;
    return WH_ERR_IO;
}

/* Waits for the rate limiter without passing the deadline (deadline < 0: none; stop may end
 * the wait early, then false is returned as for a deadline). */
static bool limit_wait(struct wh_kube_client *c, int64_t deadline, const atomic_bool *stop)
{
    int64_t now = wh_time_mono_ns();
    int64_t wait = 0;
    if (!wh_ratelimit_reserve(&c->rl, now, deadline < 0 ? -1 : deadline - now, &wait))
        return false;
    while (wait > 0) {
        if (stop && atomic_load(stop))
            return false;
        int64_t slice = stop && wait > 100 * NS_PER_MS ? 100 * NS_PER_MS : wait;
        wh_time_sleep_ms((slice + NS_PER_MS - 1) / NS_PER_MS);
        wait -= slice;
    }
    return true;
}

/* Sends one request (with retries) and decodes the answer: on 2xx, *out (when out is not
 * NULL) receives the decoded body; otherwise st receives the Status. */
static enum wh_err do_request(struct wh_kube_client *c, const struct request *rq, json_t **out,
                              struct wh_kube_status *st)
{
    enum wh_err rc = WH_OK;
    char *url = NULL;
    char *token = NULL;
    struct curl_slist *headers = NULL;
    struct xfer x;
    char errbuf[CURL_ERROR_SIZE];
    int retries = 0, attempts = 0;
    bool reread = false, force_token = false;
    long code = 0;
    int64_t start = wh_time_mono_ns();
    /* A call made for an admission request also ends with the request's deadline. */
    int64_t deadline = wh_deadline_within_ms(c->timeout_ms);
    bool request_deadline = deadline == wh_deadline_get();

    memset(&x, 0, sizeof(x));
    wh_buf_init(&x.body, WH_KUBE_MAX_BODY);
    if (out)
        *out = NULL;
    status_clear(st);
    if (c->read_only && strcmp(rq->method, "GET") != 0) {
        rc = WH_ERR_INVALID;
        status_msg(st, "a read-only client sends no %s (%s)", rq->method, rq->path);
        goto out;
    }
    rc = make_url(c, rq->path, &url);
    if (rc) {
        status_msg(st, "bad request path");
        goto out;
    }
    for (;;) {
        if (!limit_wait(c, deadline, NULL)) {
            rc = WH_ERR_TIMEOUT;
            status_msg(st, "client-side rate limit: no slot before the deadline");
            goto out;
        }
        int64_t now = wh_time_mono_ns();
        if (now >= deadline) {
            rc = WH_ERR_TIMEOUT;
            if (request_deadline)
                status_msg(st, "the admission request's deadline passed");
            else
                status_msg(st, "deadline of %ld ms passed", c->timeout_ms);
            goto out;
        }
        free(token);
        token = wh_token_get(&c->tok, now, force_token);
        force_token = false;
        curl_slist_free_all(headers);
        headers = make_headers(token, rq->body ? rq->content_type : NULL);

        wh_buf_reset(&x.body);
        x.too_big = false;
        x.retry_after_s = -1;
        errbuf[0] = '\0';
        code = 0;
        x.h = handle_get(c);
        if (!x.h) {
            rc = WH_ERR_NOMEM;
            status_msg(st, "curl_easy_init failed");
            goto out;
        }
        rc = setup(c, &x, url, headers, errbuf);
        if (rc) {
            status_msg(st, "%s", errbuf);
            goto out;
        }
        long remaining_ms = (long)((deadline - now + NS_PER_MS - 1) / NS_PER_MS);
        CURLcode cr = CURLE_OK;
        const char *bad = NULL;
        SETOPT(x.h, CURLOPT_TIMEOUT_MS, remaining_ms);
        SETOPT(x.h, CURLOPT_WRITEFUNCTION, on_body);
        SETOPT(x.h, CURLOPT_WRITEDATA, &x);
        SETOPT(x.h, CURLOPT_ACCEPT_ENCODING, "gzip");
        if (strcmp(rq->method, "GET") != 0)
            SETOPT(x.h, CURLOPT_CUSTOMREQUEST, rq->method);
        if (rq->body) {
            SETOPT(x.h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)rq->body_len);
            SETOPT(x.h, CURLOPT_POSTFIELDS, rq->body);
        }
        cr = curl_easy_perform(x.h);
        attempts++;
        curl_easy_getinfo(x.h, CURLINFO_RESPONSE_CODE, &code);
        handle_put(c, x.h);
        x.h = NULL;

        bool retry = false;
        if (cr != CURLE_OK) {
            enum curl_kind k = curl_kind_of(cr);
            if (x.too_big) {
                rc = WH_ERR_TOO_BIG;
                status_msg(st, "response larger than %u bytes", WH_KUBE_MAX_BODY);
                goto out;
            }
            rc = curl_err_to_wh(cr);
            if (st) {
                st->code = 0;
                st->reason[0] = '\0';
                if (rc == WH_ERR_TIMEOUT && request_deadline)
                    status_msg(st, "no answer before the admission request's deadline");
                else
                    status_msg(st, "%s", errbuf[0] ? errbuf : curl_easy_strerror(cr));
            }
            retry = rc != WH_ERR_TIMEOUT &&
                    (k == CK_NOT_SENT || (k == CK_MAYBE_SENT && rq->policy == RETRY_ALL));
        } else {
            rc = map_code((int)code);
            if (rc == WH_OK) {
                status_clear(st); /* forget what a failed earlier attempt said */
                if (st)
                    st->code = (int)code;
                break;
            }
            status_from_body(st, (int)code, x.body.data, x.body.len);
            if (code == 401 && wh_token_has_file(&c->tok) && !reread) {
                /* The token may have rotated under us: read it again now, and repeat once
                 * when it changed (a rejected request was not applied). */
                reread = true;
                char *fresh = wh_token_get(&c->tok, wh_time_mono_ns(), true);
                bool changed = fresh && (!token || strcmp(fresh, token) != 0);
                free(fresh);
                if (changed) {
                    wh_log(WH_LOG_INFO, "kube: 401 from the API server; retrying with the "
                                        "re-read token");
                    continue;
                }
            }
            retry = code == 429 ||
                    (code >= 500 && code != 501 && code != 505 && rq->policy == RETRY_ALL);
        }
        if (!retry || retries >= c->max_retries)
            goto out;
        int64_t delay_ms =
            x.retry_after_s >= 0 ? (int64_t)x.retry_after_s * 1000 : backoff_ms(retries);
        if (wh_time_mono_ns() + delay_ms * NS_PER_MS >= deadline)
            goto out; /* no time left for another try: report the last answer */
        wh_log(WH_LOG_DEBUG, "kube: %s %s: %s (%ld); retry %d in %lld ms", rq->method, rq->path,
               wh_strerror(rc), code, retries + 1, (long long)delay_ms);
        wh_time_sleep_ms(delay_ms);
        retries++;
        continue;
    fail:
        rc = WH_ERR_INTERNAL;
        status_msg(st, "libcurl rejected %s", bad);
        goto out;
    }

    if (out) {
        struct wh_jsonparse_error jerr;
        *out = wh_json_parse(x.body.data ? x.body.data : "", x.body.len, &jerr);
        if (!*out) {
            rc = WH_ERR_PARSE;
            status_msg(st, "undecodable answer: %s at %d:%d", jerr.text, jerr.line, jerr.column);
        }
    }
out:
    handle_put(c, x.h);
    if (st)
        st->attempts = attempts;
    if (wh_log_enabled(WH_LOG_DEBUG))
        wh_log(WH_LOG_DEBUG, "kube: %s %s -> %ld %s (%d attempt%s, %lld ms)", rq->method, rq->path,
               code, rc ? wh_strerror(rc) : "ok", attempts, attempts == 1 ? "" : "s",
               (long long)((wh_time_mono_ns() - start) / NS_PER_MS));
    curl_slist_free_all(headers);
    free(token);
    free(url);
    wh_buf_fini(&x.body);
    return rc;
}

/* --- verbs ----------------------------------------------------------------------------------- */

enum wh_err wh_kube_get(struct wh_kube_client *c, const char *path, json_t **out,
                        struct wh_kube_status *st)
{
    struct request rq = {"GET", path, NULL, 0, NULL, RETRY_ALL};
    return do_request(c, &rq, out, st);
}

enum wh_err wh_kube_list(struct wh_kube_client *c, const char *path,
                         const struct wh_kube_list_opts *opts, json_t **out,
                         struct wh_kube_status *st)
{
    enum wh_err rc = WH_OK;
    struct wh_buf q;

    *out = NULL;
    wh_buf_init(&q, URL_MAX);
    rc = wh_buf_adds(&q, path ? path : "");
    if (!rc && opts && opts->label_selector && *opts->label_selector)
        rc = add_param(&q, "labelSelector", opts->label_selector);
    if (!rc && opts && opts->field_selector && *opts->field_selector)
        rc = add_param(&q, "fieldSelector", opts->field_selector);
    if (!rc && opts && opts->limit > 0)
        rc = add_param_long(&q, "limit", opts->limit);
    if (!rc && opts && opts->continue_token && *opts->continue_token)
        rc = add_param(&q, "continue", opts->continue_token);
    if (!rc && opts && opts->resource_version)
        rc = add_param(&q, "resourceVersion", opts->resource_version);
    if (rc) {
        status_clear(st);
        status_msg(st, "list query longer than %d bytes", URL_MAX);
        goto out;
    }
    struct request rq = {"GET", q.data, NULL, 0, NULL, RETRY_ALL};
    rc = do_request(c, &rq, out, st);
    if (!rc && !json_is_array(wh_json_arr(*out, "items"))) {
        rc = WH_ERR_PARSE;
        status_msg(st, "list answer without items");
        json_decref(*out);
        *out = NULL;
    }
out:
    wh_buf_fini(&q);
    return rc;
}

enum wh_err wh_kube_list_all(struct wh_kube_client *c, const char *path, const char *label_selector,
                             const char *field_selector, long page_size, wh_kube_item_fn fn,
                             void *arg, char **resource_version, struct wh_kube_status *st)
{
    enum wh_err rc = WH_OK;
    json_t *page = NULL;
    char *cont = NULL;
    char *rv = NULL;

    if (resource_version)
        *resource_version = NULL;
    for (;;) {
        struct wh_kube_list_opts lo = {label_selector, field_selector, page_size, cont, NULL};
        rc = wh_kube_list(c, path, &lo, &page, st);
        if (rc)
            goto out;
        /* Items of a List carry no kind/apiVersion on the wire; give them the List's, so
         * that cached objects look like what a get or a watch returns. */
        const char *api_version = wh_json_str(page, "apiVersion");
        const char *list_kind = wh_json_str(page, "kind");
        char *kind = NULL;
        if (list_kind && wh_str_has_suffix(list_kind, "List"))
            kind = wh_xstrndup(list_kind, strlen(list_kind) - 4);
        json_t *items = wh_json_arr(page, "items");
        size_t i;
        json_t *item;
        json_array_foreach(items, i, item)
        {
            if (json_is_object(item)) {
                if (api_version && !json_object_get(item, "apiVersion"))
                    json_object_set_new(item, "apiVersion", json_string(api_version));
                if (kind && *kind && !json_object_get(item, "kind"))
                    json_object_set_new(item, "kind", json_string(kind));
            }
            rc = fn(arg, item);
            if (rc)
                break;
        }
        free(kind);
        if (rc)
            goto out;
        const char *prv = wh_json_path_str(page, "metadata", "resourceVersion", NULL);
        free(rv);
        rv = prv ? wh_xstrdup(prv) : NULL;
        const char *next = wh_json_path_str(page, "metadata", "continue", NULL);
        free(cont);
        cont = next && *next ? wh_xstrdup(next) : NULL;
        json_decref(page);
        page = NULL;
        if (!cont)
            break;
    }
    if (resource_version) {
        *resource_version = rv;
        rv = NULL;
    }
out:
    json_decref(page);
    free(cont);
    free(rv);
    return rc;
}

static enum wh_err send_object(struct wh_kube_client *c, const char *method, const char *path,
                               const char *content_type, enum retry_policy policy,
                               const json_t *obj, json_t **out, struct wh_kube_status *st)
{
    enum wh_err rc = WH_OK;
    char *body = NULL;

    if (out)
        *out = NULL;
    /* not json_dumps: jansson's allocator is the request's arena when a handler writes
     * (ResourceDistribution's dry run), and free() of arena memory aborts the process */
    body = wh_json_dumps(obj);
    struct request rq = {method, path, body, strlen(body), content_type, policy};
    rc = do_request(c, &rq, out, st);
    free(body);
    return rc;
}

enum wh_err wh_kube_create(struct wh_kube_client *c, const char *path, const json_t *obj,
                           json_t **out, struct wh_kube_status *st)
{
    return send_object(c, "POST", path, "application/json", RETRY_ALL, obj, out, st);
}

enum wh_err wh_kube_update(struct wh_kube_client *c, const char *path, const json_t *obj,
                           json_t **out, struct wh_kube_status *st)
{
    return send_object(c, "PUT", path, "application/json", RETRY_ALL, obj, out, st);
}

enum wh_err wh_kube_patch(struct wh_kube_client *c, const char *path, enum wh_kube_patch_type type,
                          const json_t *patch, json_t **out, struct wh_kube_status *st)
{
    switch (type) {
    case WH_PATCH_MERGE:
        return send_object(c, "PATCH", path, "application/merge-patch+json", RETRY_ALL, patch, out,
                           st);
    case WH_PATCH_STRATEGIC:
        return send_object(c, "PATCH", path, "application/strategic-merge-patch+json", RETRY_ALL,
                           patch, out, st);
    case WH_PATCH_JSON:
        return send_object(c, "PATCH", path, "application/json-patch+json", RETRY_UNAPPLIED, patch,
                           out, st);
    }
    WH_PANIC("bad patch type %d", (int)type);
}

enum wh_err wh_kube_delete(struct wh_kube_client *c, const char *path, const json_t *options,
                           struct wh_kube_status *st)
{
    if (options)
        return send_object(c, "DELETE", path, "application/json", RETRY_ALL, options, NULL, st);
    struct request rq = {"DELETE", path, NULL, 0, NULL, RETRY_ALL};
    return do_request(c, &rq, NULL, st);
}

/* --- watch ----------------------------------------------------------------------------------- */

static enum wh_err on_event(void *arg, const char *type, json_t *object)
{
    struct xfer *x = arg;
    enum wh_err rc = x->fn(x->arg, type, object);
    if (rc)
        return rc;
    if (strcmp(type, "ERROR") == 0) {
        /* The server ends the stream after an ERROR event; say why. */
        json_t *code = json_object_get(object, "code");
        int http = json_is_integer(code) ? (int)json_integer_value(code) : 0;
        status_from_json(x->st, http, object);
        rc = map_code(http);
        return rc ? rc : WH_ERR_KUBE;
    }
    return WH_OK;
}

static size_t on_watch_body(char *p, size_t size, size_t n, void *ud)
{
    struct xfer *x = ud;
    size_t len = size * n;
    if (!x->streamed) {
        long code = 0;
        curl_easy_getinfo(x->h, CURLINFO_RESPONSE_CODE, &code);
        x->watching = code == 200;
        x->streamed = true;
    }
    if (!x->watching)
        return on_body(p, size, n, ud);
    enum wh_err rc = wh_watch_feed(&x->split, p, len, on_event, x, &x->split_eb);
    if (rc) {
        x->stop_rc = rc;
        return 0;
    }
    return len;
}

static int on_watch_progress(void *ud, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
                             curl_off_t ulnow)
{
    (void)dltotal;
    (void)dlnow;
    (void)ultotal;
    (void)ulnow;
    struct xfer *x = ud;
    return x->stop && atomic_load(x->stop) ? 1 : 0;
}

enum wh_err wh_kube_watch(struct wh_kube_client *c, const char *path,
                          const struct wh_kube_watch_opts *opts, wh_kube_event_fn fn, void *arg,
                          struct wh_kube_status *st)
{
    enum wh_err rc = WH_OK;
    struct wh_buf q;
    char *url = NULL;
    char *token = NULL;
    struct curl_slist *headers = NULL;
    struct xfer x;
    char errbuf[CURL_ERROR_SIZE];
    const char *bad = NULL;
    long code = 0;
    const atomic_bool *stop = opts ? opts->stop : NULL;

    memset(&x, 0, sizeof(x));
    wh_buf_init(&x.body, ERROR_BODY_CAP);
    wh_watch_init(&x.split, 0);
    wh_buf_init(&q, URL_MAX);
    status_clear(st);
    x.fn = fn;
    x.arg = arg;
    x.st = st;
    x.stop = stop;

    rc = wh_buf_adds(&q, path ? path : "");
    if (!rc)
        rc = add_param(&q, "watch", "true");
    if (!rc && opts && opts->resource_version && *opts->resource_version)
        rc = add_param(&q, "resourceVersion", opts->resource_version);
    if (!rc && opts && opts->bookmarks)
        rc = add_param(&q, "allowWatchBookmarks", "true");
    if (!rc && opts && opts->timeout_seconds > 0)
        rc = add_param_long(&q, "timeoutSeconds", opts->timeout_seconds);
    if (!rc && opts && opts->label_selector && *opts->label_selector)
        rc = add_param(&q, "labelSelector", opts->label_selector);
    if (!rc && opts && opts->field_selector && *opts->field_selector)
        rc = add_param(&q, "fieldSelector", opts->field_selector);
    if (!rc)
        rc = make_url(c, q.data, &url);
    if (rc) {
        status_msg(st, "bad watch path or query too long");
        goto out;
    }
    if ((stop && atomic_load(stop)) || !limit_wait(c, -1, stop))
        goto out; /* stopped before it began */
    if (st)
        st->attempts = 1;
    token = wh_token_get(&c->tok, wh_time_mono_ns(), false);
    headers = make_headers(token, NULL);
    x.h = handle_get(c);
    if (!x.h) {
        rc = WH_ERR_NOMEM;
        status_msg(st, "curl_easy_init failed");
        goto out;
    }
    errbuf[0] = '\0';
    rc = setup(c, &x, url, headers, errbuf);
    if (rc) {
        status_msg(st, "%s", errbuf);
        goto out;
    }
    long idle_s =
        opts && opts->timeout_seconds > 0 ? opts->timeout_seconds + 30 : WATCH_IDLE_DEFAULT_S;
    SETOPT(x.h, CURLOPT_CONNECTTIMEOUT_MS, c->timeout_ms);
    SETOPT(x.h, CURLOPT_LOW_SPEED_LIMIT, 1L);
    SETOPT(x.h, CURLOPT_LOW_SPEED_TIME, idle_s);
    SETOPT(x.h, CURLOPT_WRITEFUNCTION, on_watch_body);
    SETOPT(x.h, CURLOPT_WRITEDATA, &x);
    SETOPT(x.h, CURLOPT_NOPROGRESS, 0L);
    SETOPT(x.h, CURLOPT_XFERINFOFUNCTION, on_watch_progress);
    SETOPT(x.h, CURLOPT_XFERINFODATA, &x);

    CURLcode cr = curl_easy_perform(x.h);
    curl_easy_getinfo(x.h, CURLINFO_RESPONSE_CODE, &code);
    if (st && !x.stop_rc)
        st->code = (int)code; /* an ERROR event has put its own Status there */
    if (x.stop_rc) {
        rc = x.stop_rc;
        if (rc == WH_ERR_PARSE || rc == WH_ERR_TOO_BIG)
            status_msg(st, "%s", x.split_eb.msg);
        goto out;
    }
    if (cr == CURLE_ABORTED_BY_CALLBACK) {
        rc = WH_OK; /* the stop flag */
        goto out;
    }
    if (code == 200 || (cr != CURLE_OK && x.watching)) {
        /* A stream that ended, cleanly or not, after a 200: the caller resumes from the last
         * resourceVersion it saw, so both are a normal end. A line cut by a broken connection
         * is no event. */
        if (cr == CURLE_OK) {
            rc = wh_watch_finish(&x.split, on_event, &x, &x.split_eb);
            if (rc == WH_ERR_PARSE || rc == WH_ERR_TOO_BIG)
                status_msg(st, "%s", x.split_eb.msg);
        } else {
            wh_log(WH_LOG_DEBUG, "kube: watch %s ended: %s", path,
                   errbuf[0] ? errbuf : curl_easy_strerror(cr));
        }
        goto out;
    }
    if (cr != CURLE_OK) {
        rc = x.too_big ? WH_ERR_TOO_BIG : curl_err_to_wh(cr);
        status_msg(st, "%s", errbuf[0] ? errbuf : curl_easy_strerror(cr));
        goto out;
    }
    rc = map_code((int)code);
    if (rc == WH_OK)
        rc = WH_ERR_KUBE; /* a 2xx other than 200 is no watch stream */
    status_from_body(st, (int)code, x.body.data, x.body.len);
    if (code == 401 && wh_token_has_file(&c->tok))
        free(wh_token_get(&c->tok, wh_time_mono_ns(), true)); /* for the caller's next try */
    goto out;
fail:
    rc = WH_ERR_INTERNAL;
    status_msg(st, "libcurl rejected %s", bad);
out:
    handle_put(c, x.h);
    wh_log(WH_LOG_DEBUG, "kube: watch %s -> %ld %s", path, code, rc ? wh_strerror(rc) : "ok");
    curl_slist_free_all(headers);
    free(token);
    free(url);
    wh_watch_fini(&x.split);
    wh_buf_fini(&x.body);
    wh_buf_fini(&q);
    return rc;
}

/* --- discovery ------------------------------------------------------------------------------- */

enum wh_err wh_kube_pick_version(struct wh_kube_client *c, const char *group,
                                 const char *const *candidates, const char **chosen,
                                 struct wh_kube_status *st)
{
    enum wh_err rc = WH_OK;
    json_t *doc = NULL;
    char path[512];
    bool core = !group || !*group;

    *chosen = NULL;
    if (!core && !segment_ok(group))
        return WH_ERR_INVALID;
    if (core)
        snprintf(path, sizeof(path), "/api");
    else if (snprintf(path, sizeof(path), "/apis/%s", group) >= (int)sizeof(path))
        return WH_ERR_TOO_BIG;
    rc = wh_kube_get(c, path, &doc, st);
    if (rc)
        goto out;
    /* /api answers APIVersions {versions: ["v1"]}; /apis/<group> answers APIGroup
     * {versions: [{version}], preferredVersion: {version}}. */
    const char *preferred = wh_json_path_str(doc, "preferredVersion", "version", NULL);
    json_t *versions = wh_json_arr(doc, "versions");
    if (core && json_array_size(versions) > 0)
        preferred = json_string_value(json_array_get(versions, 0));
    for (size_t i = 0; preferred && candidates[i]; i++) {
        if (strcmp(candidates[i], preferred) == 0) {
            *chosen = candidates[i];
            goto out;
        }
    }
    for (size_t i = 0; candidates[i]; i++) {
        size_t j;
        json_t *v;
        json_array_foreach(versions, j, v)
        {
            const char *name = json_is_string(v) ? json_string_value(v) : wh_json_str(v, "version");
            if (wh_str_eq(name, candidates[i])) {
                *chosen = candidates[i];
                goto out;
            }
        }
    }
    rc = WH_ERR_NOT_FOUND;
    if (st) {
        copy_str(st->reason, sizeof(st->reason), "NotFound");
        status_msg(st, "group %s serves none of the wanted versions", core ? "core" : group);
    }
out:
    json_decref(doc);
    return rc;
}

/* Whether group/version lists resource (a GET of the group version's resource list). */
static enum wh_err serves(struct wh_kube_client *c, const char *group, const char *version,
                          const char *resource, bool *yes, struct wh_kube_status *st)
{
    char path[512];
    *yes = false;
    if (snprintf(path, sizeof(path), "/apis/%s/%s", group, version) >= (int)sizeof(path))
        return WH_ERR_TOO_BIG;
    json_t *doc = NULL;
    enum wh_err rc = wh_kube_get(c, path, &doc, st);
    if (rc == WH_ERR_NOT_FOUND)
        return WH_OK;
    size_t i;
    json_t *r;
    json_array_foreach(wh_json_arr(doc, "resources"), i, r) *yes |=
        wh_str_eq(wh_json_str(r, "name"), resource);
    json_decref(doc);
    return rc;
}

enum wh_err wh_kube_pick_resource_version(struct wh_kube_client *c, const char *group,
                                          const char *resource, const char *const *candidates,
                                          const char **chosen, struct wh_kube_status *st)
{
    enum wh_err rc = wh_kube_pick_version(c, group, candidates, chosen, st);
    if (rc || !group || !*group)
        return rc;
    bool yes = false;
    rc = serves(c, group, *chosen, resource, &yes, st);
    for (size_t i = 0; !rc && !yes && candidates[i]; i++) {
        if (candidates[i] == *chosen)
            continue;
        rc = serves(c, group, candidates[i], resource, &yes, st);
        if (!rc && yes)
            *chosen = candidates[i];
    }
    if (!rc && !yes) {
        *chosen = NULL;
        rc = WH_ERR_NOT_FOUND;
        if (st) {
            copy_str(st->reason, sizeof(st->reason), "NotFound");
            status_msg(st, "no served version of group %s has %s", group, resource);
        }
    }
    return rc;
}
