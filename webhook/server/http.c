#include "server/http.h"

#include <arpa/inet.h>
#include <stdarg.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "log/log.h"
#include "metrics/metrics.h"
#include "server/dispatch.h"
#include "server/health.h"
#include "server/tls.h"
#include "util/buf.h"
#include "util/mem.h"
#include "util/str.h"
#include "util/time.h"

/* HTTP status codes counted per webhook without a lookup; others register on first use. */
static const int counted_codes[] = {200, 400, 404, 405, 413, 415, 500, 503};
#define NCODES (sizeof(counted_codes) / sizeof(counted_codes[0]))

struct route_metrics {
    const struct wh_route *route;
    struct wh_metric *requests[NCODES];
    struct wh_metric *in_flight;
    struct wh_histogram *latency;
    struct wh_metric *denied, *patched;
};

/* What one plain HTTP listener serves. */
struct plain_listener {
    bool health;
    bool metrics;
};

struct wh_http {
    const struct wh_config *cfg;
    const struct wh_handler_ctx *ctx;
    struct MHD_Daemon *https;
    struct MHD_Daemon *health;  /* may also serve /metrics when the addresses are equal */
    struct MHD_Daemon *metrics; /* NULL when shared with health or disabled */
    struct plain_listener health_listener, metrics_listener;
    struct route_metrics *routes;
    size_t nroutes;
    atomic_int in_flight;
    atomic_bool draining;
};

/* Per-request state, created on the first access-handler call and freed when MHD reports the
 * request completed. */
struct request {
    struct route_metrics *rm;
    bool probe; /* /healthz or /readyz on the HTTPS port */
    int early_status; /* decided from the headers alone: the body is not read */
    const char *early_message;
    bool too_big;
    struct wh_buf body;
    int64_t start_ns;
};

static struct route_metrics *metrics_for(struct wh_http *h, const struct wh_route *route)
{
    for (size_t i = 0; i < h->nroutes; i++) {
        if (h->routes[i].route == route)
            return &h->routes[i];
    }
    return NULL;
}

static void count_request(struct route_metrics *rm, int code, int64_t start_ns)
{
    if (!rm)
        return;
    struct wh_metric *m = NULL;
    for (size_t i = 0; i < NCODES; i++) {
        if (counted_codes[i] == code)
            m = rm->requests[i];
    }
    if (!m) {
        char labels[256], codebuf[16];
        snprintf(codebuf, sizeof(codebuf), "%d", code);
        wh_metrics_labels(labels, sizeof(labels), "webhook", rm->route->path, "code", codebuf,
                          NULL);
        m = wh_metrics_counter("controller_runtime_webhook_requests_total",
                               "Total number of admission requests by HTTP status code.", labels);
    }
    wh_metric_add(m, 1);
    wh_histogram_observe(rm->latency, (double)(wh_time_mono_ns() - start_ns) / 1e9);
}

static enum MHD_Result send_response(struct wh_http *h, struct MHD_Connection *conn, int status,
                            char *body, size_t len, const char *content_type)
{
    struct MHD_Response *r =
        MHD_create_response_from_buffer(len, body, body ? MHD_RESPMEM_MUST_FREE
                                                        : MHD_RESPMEM_PERSISTENT);
    if (!r) {
        free(body);
        return MHD_NO;
    }
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, content_type);
    if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
        MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "POST");
    /* While draining, tell the client not to reuse the connection (the API server would). */
    if (h && atomic_load(&h->draining))
        MHD_add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
    enum MHD_Result ret = MHD_queue_response(conn, (unsigned int)status, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result send_text(struct wh_http *h, struct MHD_Connection *conn, int status,
                                 const char *text)
{
    return send_response(h, conn, status, wh_xstrdup(text), strlen(text), "text/plain; charset=utf-8");
}

static enum MHD_Result send_status(struct wh_http *h, struct MHD_Connection *conn, int status,
                                   const char *message)
{
    size_t len = 0;
    char *body = wh_dispatch_status_body(status, message, &len);
    return send_response(h, conn, status, body, len, "application/json");
}

/* /healthz, /readyz and /metrics, shared by the HTTPS and the plain listeners. */
static enum MHD_Result serve_probe(struct wh_http *h, struct MHD_Connection *conn,
                                   const char *url, bool metrics)
{
    if (strcmp(url, "/healthz") == 0)
        return send_text(h, conn, 200, "ok");
    if (strcmp(url, "/readyz") == 0) {
        char why[320];
        if (wh_health_ready(why, sizeof(why)))
            return send_text(h, conn, 200, "ok");
        char text[400];
        snprintf(text, sizeof(text), "not ready: %s", why);
        return send_text(h, conn, 503, text);
    }
    if (metrics && strcmp(url, "/metrics") == 0) {
        struct wh_buf b;
        wh_buf_init(&b, 16 << 20);
        if (wh_metrics_render(&b)) {
            wh_buf_fini(&b);
            return send_text(h, conn, 500, "metrics too large");
        }
        size_t len = 0;
        char *text = wh_buf_take(&b, &len);
        return send_response(h, conn, 200, text, len, "text/plain; version=0.0.4; charset=utf-8");
    }
    return send_status(h, conn, 404, "not found");
}

static bool is_json_content_type(const char *ct)
{
    if (!ct)
        return false;
    while (*ct == ' ')
        ct++;
    static const char want[] = "application/json";
    size_t n = sizeof(want) - 1;
    if (strncasecmp(ct, want, n) != 0)
        return false;
    ct += n;
    while (*ct == ' ')
        ct++;
    return *ct == '\0' || *ct == ';';
}

/* First call: only headers are known. Decides everything that needs no body. */
static void classify(struct wh_http *h, struct MHD_Connection *conn, const char *url,
                     const char *method, struct request *req)
{
    const struct wh_route *route = wh_routes_find(h->cfg, url);
    if (!route) {
        req->early_status = 404;
        req->early_message = "no webhook is served at this path";
        return;
    }
    req->rm = metrics_for(h, route);
    if (strcmp(method, "POST") != 0) {
        req->early_status = 405;
        req->early_message = "webhooks accept POST only";
        return;
    }
    const char *ct = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Content-Type");
    if (!is_json_content_type(ct)) {
        req->early_status = 415;
        req->early_message = "Content-Type must be application/json";
        return;
    }
    const char *cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Content-Length");
    if (cl) {
        char *end = NULL;
        unsigned long long n = strtoull(cl, &end, 10);
        if (end && *end == '\0' && n > (unsigned long long)h->cfg->max_body_bytes) {
            req->early_status = 413;
            req->early_message = "request body is larger than --max-body-bytes";
            return;
        }
    }
}

static enum MHD_Result on_https(void *cls, struct MHD_Connection *conn, const char *url,
                                const char *method, const char *version,
                                const char *upload_data, size_t *upload_data_size,
                                void **req_cls)
{
    (void)version;
    struct wh_http *h = cls;
    struct request *req = *req_cls;

    if (!req) {
        req = wh_xcalloc(1, sizeof(*req));
        req->start_ns = wh_time_mono_ns();
        wh_buf_init(&req->body, (size_t)h->cfg->max_body_bytes);
        *req_cls = req;
        /* Probes are answered on the final call: a response queued on the first one makes
         * libmicrohttpd close the connection (a body might be unread), and each probe would
         * cost a TLS handshake. */
        req->probe = strcmp(url, "/healthz") == 0 || strcmp(url, "/readyz") == 0;
        if (req->probe) {
            atomic_fetch_add(&h->in_flight, 1);
            return MHD_YES;
        }
        classify(h, conn, url, method, req);
        atomic_fetch_add(&h->in_flight, 1);
        if (req->rm)
            wh_metric_inc(req->rm->in_flight);
        if (req->early_status) {
            /* Answer now: the body is never read (MHD closes the connection after this). */
            count_request(req->rm, req->early_status, req->start_ns);
            return send_status(h, conn, req->early_status, req->early_message);
        }
        return MHD_YES;
    }

    if (req->probe && *upload_data_size) {
        *upload_data_size = 0; /* a probe's body, if any, is ignored */
        return MHD_YES;
    }
    if (req->probe)
        return serve_probe(h, conn, url, false);
    if (*upload_data_size) {
        if (!req->too_big && wh_buf_add(&req->body, upload_data, *upload_data_size)) {
            /* A chunked body grew past the cap: stop storing, answer 413 at the end. */
            req->too_big = true;
            wh_buf_fini(&req->body);
        }
        *upload_data_size = 0;
        return MHD_YES;
    }

    if (req->too_big) {
        count_request(req->rm, 413, req->start_ns);
        return send_status(h, conn, 413, "request body is larger than --max-body-bytes");
    }

    struct wh_reply reply;
    wh_dispatch(req->rm->route, h->ctx, req->body.data ? req->body.data : "", req->body.len,
                &reply);
    wh_buf_fini(&req->body);
    if (reply.http_status == 200) {
        if (!reply.allowed)
            wh_metric_add(req->rm->denied, 1);
        if (reply.patched)
            wh_metric_add(req->rm->patched, 1);
    } else {
        wh_log_req(WH_LOG_INFO, reply.uid[0] ? reply.uid : NULL, req->rm->route->path,
                   "bad request (%d): %.200s", reply.http_status, reply.body);
    }
    if (wh_log_enabled(WH_LOG_DEBUG))
        wh_log_req(WH_LOG_DEBUG, reply.uid, req->rm->route->path, "answered %d in %lld us",
                   reply.http_status, (long long)((wh_time_mono_ns() - req->start_ns) / 1000));
    count_request(req->rm, reply.http_status, req->start_ns);
    enum MHD_Result ret =
        send_response(h, conn, reply.http_status, reply.body, reply.len, "application/json");
    reply.body = NULL; /* owned by MHD now */
    return ret;
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **req_cls,
                         enum MHD_RequestTerminationCode toe)
{
    (void)conn;
    (void)toe;
    struct wh_http *h = cls;
    struct request *req = *req_cls;
    if (!req)
        return;
    if (req->rm)
        wh_metric_dec(req->rm->in_flight);
    wh_buf_fini(&req->body);
    free(req);
    *req_cls = NULL;
    atomic_fetch_sub(&h->in_flight, 1);
}

static enum MHD_Result on_plain(void *cls, struct MHD_Connection *conn, const char *url,
                                const char *method, const char *version,
                                const char *upload_data, size_t *upload_data_size,
                                void **req_cls)
{
    (void)version;
    (void)upload_data;
    /* Answer on the final call, so that keep-alive connections (Prometheus) stay open. */
    static int seen;
    if (!*req_cls) {
        *req_cls = &seen;
        return MHD_YES;
    }
    if (*upload_data_size) {
        *upload_data_size = 0;
        return MHD_YES;
    }
    const struct plain_listener *l = cls;
    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
        return send_status(NULL, conn, 405, "GET only");
    if (!l->health && strcmp(url, "/metrics") != 0)
        return send_status(NULL, conn, 404, "not found");
    return serve_probe(NULL, conn, url, l->metrics);
}

static WH_PRINTF(2, 0) void mhd_log(void *cls, const char *fmt, va_list ap)
{
    (void)cls;
    char msg[512];
    vsnprintf(msg, sizeof(msg), fmt, ap);
    size_t n = strlen(msg);
    while (n > 0 && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
        msg[--n] = '\0';
    /* TLS handshake failures from scanners or clients that distrust us would flood the log. */
    WH_LOG_EVERY(10, WH_LOG_WARN, "http: %s", msg);
}

/* Resolves host (numeric; "" = every interface) and port into ss. */
static enum wh_err make_addr(const char *host, int port, bool v6_any,
                             struct sockaddr_storage *ss)
{
    memset(ss, 0, sizeof(*ss));
    if (!host[0] && v6_any) {
        struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;
        a->sin6_family = AF_INET6;
        a->sin6_addr = in6addr_any;
        a->sin6_port = htons((uint16_t)port);
        return WH_OK;
    }
    if (!host[0]) {
        struct sockaddr_in *a = (struct sockaddr_in *)ss;
        a->sin_family = AF_INET;
        a->sin_addr.s_addr = htonl(INADDR_ANY);
        a->sin_port = htons((uint16_t)port);
        return WH_OK;
    }
    struct addrinfo hints = {.ai_flags = AI_NUMERICHOST | AI_PASSIVE, .ai_socktype = SOCK_STREAM};
    struct addrinfo *res = NULL;
    if (strcmp(host, "localhost") == 0)
        host = "127.0.0.1";
    if (getaddrinfo(host, NULL, &hints, &res) != 0 || !res)
        return WH_ERR_INVALID;
    memcpy(ss, res->ai_addr, res->ai_addrlen);
    freeaddrinfo(res);
    if (ss->ss_family == AF_INET6)
        ((struct sockaddr_in6 *)ss)->sin6_port = htons((uint16_t)port);
    else
        ((struct sockaddr_in *)ss)->sin_port = htons((uint16_t)port);
    return WH_OK;
}

static struct MHD_Daemon *start_https(struct wh_http *h, const char *host, int port)
{
    static const char priorities[] = "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2";
    const struct wh_config *cfg = h->cfg;
    unsigned int flags = MHD_USE_TLS | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL |
                         MHD_USE_ITC | MHD_USE_ERROR_LOG;
    /* Every interface: an IPv6 socket that also takes IPv4, unless this host has no IPv6. */
    for (int attempt = 0; attempt < 2; attempt++) {
        bool v6 = attempt == 0 && !host[0];
        if (attempt == 1 && host[0])
            break;
        struct sockaddr_storage ss;
        if (make_addr(host, port, v6, &ss))
            return NULL;
        unsigned int f = flags | (ss.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0) |
                         (v6 ? MHD_USE_DUAL_STACK : 0);
        struct MHD_Daemon *d = MHD_start_daemon(
            f, (uint16_t)port, NULL, NULL, on_https, h, MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
            MHD_OPTION_SOCK_ADDR, &ss,
            MHD_OPTION_THREAD_POOL_SIZE, (unsigned int)cfg->threads,
            MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)((cfg->connection_timeout_ms + 999) / 1000),
            MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)cfg->connection_memory_limit,
            MHD_OPTION_NOTIFY_COMPLETED, on_completed, h, MHD_OPTION_HTTPS_CERT_CALLBACK,
            wh_tls_cert_callback, MHD_OPTION_HTTPS_PRIORITIES, priorities, MHD_OPTION_END);
        if (d)
            return d;
    }
    return NULL;
}

static struct MHD_Daemon *start_plain(struct plain_listener *l, const char *addr)
{
    char host[256];
    int port = 0;
    if (wh_config_parse_addr(addr, host, sizeof(host), &port))
        return NULL;
    for (int attempt = 0; attempt < 2; attempt++) {
        bool v6 = attempt == 0 && !host[0];
        if (attempt == 1 && host[0])
            break;
        struct sockaddr_storage ss;
        if (make_addr(host, port, v6, &ss))
            return NULL;
        unsigned int f = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO | MHD_USE_ERROR_LOG |
                         (ss.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0) |
                         (v6 ? MHD_USE_DUAL_STACK : 0);
        struct MHD_Daemon *d = MHD_start_daemon(
            f, (uint16_t)port, NULL, NULL, on_plain, l, MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
            MHD_OPTION_SOCK_ADDR, &ss, MHD_OPTION_CONNECTION_TIMEOUT, 30u,
            MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(64 * 1024), MHD_OPTION_END);
        if (d)
            return d;
    }
    return NULL;
}

static int bound_port(struct MHD_Daemon *d)
{
    if (!d)
        return 0;
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    return info ? info->port : 0;
}

static void register_route_metrics(struct wh_http *h)
{
    size_t n = 0;
    const struct wh_route *all = wh_routes_all(&n);
    h->routes = wh_xcalloc(n ? n : 1, sizeof(*h->routes));
    for (size_t i = 0; i < n; i++) {
        const struct wh_route *r = &all[i];
        if (r->enabled && !r->enabled(h->cfg))
            continue;
        struct route_metrics *rm = &h->routes[h->nroutes++];
        rm->route = r;
        char labels[256];
        for (size_t c = 0; c < NCODES; c++) {
            char code[16];
            snprintf(code, sizeof(code), "%d", counted_codes[c]);
            wh_metrics_labels(labels, sizeof(labels), "webhook", r->path, "code", code, NULL);
            rm->requests[c] =
                wh_metrics_counter("controller_runtime_webhook_requests_total",
                                   "Total number of admission requests by HTTP status code.",
                                   labels);
        }
        wh_metrics_labels(labels, sizeof(labels), "webhook", r->path, NULL);
        rm->in_flight = wh_metrics_gauge("controller_runtime_webhook_requests_in_flight",
                                         "Current number of admission requests being served.",
                                         labels);
        rm->latency = wh_metrics_histogram("controller_runtime_webhook_latency_seconds",
                                           "Histogram of the latency of processing admission "
                                           "requests",
                                           labels);
        rm->denied = wh_metrics_counter("kruise_webhook_denied_total",
                                        "Admission requests answered with allowed=false.",
                                        labels);
        wh_dispatch_errors_metric(r->path);
        rm->patched = wh_metrics_counter("kruise_webhook_patched_total",
                                         "Admission requests answered with a non-empty patch.",
                                         labels);
    }
}

enum wh_err wh_http_start(const struct wh_config *cfg, const struct wh_handler_ctx *ctx,
                          struct wh_http **out, struct wh_errbuf *eb)
{
    struct wh_http *h = wh_xcalloc(1, sizeof(*h));
    h->cfg = cfg;
    h->ctx = ctx;
    register_route_metrics(h);

    h->https = start_https(h, cfg->bind_address, (int)cfg->port);
    if (!h->https) {
        wh_http_stop(h, 0);
        return wh_errbuf_set(eb, WH_ERR_IO, "cannot listen for HTTPS on %s:%lld",
                             cfg->bind_address[0] ? cfg->bind_address : "*", cfg->port);
    }
    bool health_on = !wh_config_addr_disabled(cfg->health_addr);
    bool metrics_on = !wh_config_addr_disabled(cfg->metrics_addr);
    /* One listener for both when they name the same fixed address (port 0 means two ports). */
    bool shared = health_on && metrics_on && strcmp(cfg->health_addr, cfg->metrics_addr) == 0 &&
                  !wh_str_has_suffix(cfg->health_addr, ":0");
    if (health_on) {
        h->health_listener = (struct plain_listener){.health = true, .metrics = shared};
        h->health = start_plain(&h->health_listener, cfg->health_addr);
        if (!h->health) {
            wh_http_stop(h, 0);
            return wh_errbuf_set(eb, WH_ERR_IO, "cannot listen on --health-addr %s",
                                 cfg->health_addr);
        }
    }
    if (metrics_on && !shared) {
        h->metrics_listener = (struct plain_listener){.health = false, .metrics = true};
        h->metrics = start_plain(&h->metrics_listener, cfg->metrics_addr);
        if (!h->metrics) {
            wh_http_stop(h, 0);
            return wh_errbuf_set(eb, WH_ERR_IO, "cannot listen on --metrics-addr %s",
                                 cfg->metrics_addr);
        }
    }
    *out = h;
    return WH_OK;
}

int wh_http_port(const struct wh_http *h)
{
    return bound_port(h->https);
}

int wh_http_health_port(const struct wh_http *h)
{
    return bound_port(h->health);
}

int wh_http_metrics_port(const struct wh_http *h)
{
    return h->metrics ? bound_port(h->metrics)
                      : (h->health_listener.metrics ? bound_port(h->health) : 0);
}

void wh_http_begin_drain(struct wh_http *h)
{
    atomic_store(&h->draining, true);
}

void wh_http_stop(struct wh_http *h, long long grace_ms)
{
    if (!h)
        return;
    atomic_store(&h->draining, true);
    if (h->https) {
        MHD_socket s = MHD_quiesce_daemon(h->https);
        if (s != MHD_INVALID_SOCKET)
            close(s);
        int64_t deadline = wh_time_mono_ns() + grace_ms * 1000000;
        while (atomic_load(&h->in_flight) > 0 && wh_time_mono_ns() < deadline)
            wh_time_sleep_ms(5);
        if (atomic_load(&h->in_flight) > 0)
            wh_log(WH_LOG_WARN, "shutdown grace period over with %d requests in flight",
                   atomic_load(&h->in_flight));
        MHD_stop_daemon(h->https);
    }
    if (h->health)
        MHD_stop_daemon(h->health);
    if (h->metrics)
        MHD_stop_daemon(h->metrics);
    free(h->routes);
    free(h);
}
