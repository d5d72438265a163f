#include "server/http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "log/log.h"
#include "metrics/metrics.h"
#include "server/conn.h"
#include "server/dispatch.h"
#include "server/framing.h"
#include "server/health.h"
#include "server/intake.h"
#include "server/pace.h"
#include "server/tls.h"
#include "server/watchdog.h"
#include "util/buf.h"
#include "util/mem.h"
#include "util/memtune.h"
#include "util/reqmem.h"
#include "util/str.h"
#include "util/time.h"

/* HTTP status codes counted per webhook without a lookup; others register on first use. */
static const int counted_codes[] = {200, 400, 404, 405, 413, 415, 500, 503};
#define NCODES (sizeof(counted_codes) / sizeof(counted_codes[0]))

/* How long past its deadline a request's handling may go before its worker counts as wedged
 * (server/watchdog.h). */
#define WEDGED_AFTER_MS 10000

/* Probes never need a body; one this large is refused before it is read. */
#define PROBE_BODY_MAX 4096

/* The plain HTTP listeners (health, metrics): kubelet and Prometheus need a few connections;
 * their own limits keep a flood on one port from starving the other or the webhooks. */
static const struct wh_conn_limits plain_limits = {
    .max_total = 64, .max_per_ip = 16, .idle_ms = 30000, .read_ms = 5000};

struct route_metrics {
    const struct wh_route *route;
    struct wh_metric *requests[NCODES];
    struct wh_metric *in_flight;
    struct wh_histogram *latency;
    struct wh_metric *denied, *patched;
};

/* One MHD daemon and what it serves. */
struct listener {
    struct wh_http *h;
    const char *name;
    struct MHD_Daemon *d;
    struct wh_conn_guard *guard;
    struct wh_intake *intake; /* HTTPS: bodies arriving and the request-memory pool */
    struct wh_pace *pace;     /* HTTPS: large bodies read a few at a time per worker */
    bool https;   /* webhooks, /healthz and /readyz over TLS */
    bool health;  /* plain: /healthz and /readyz */
    bool metrics; /* plain: /metrics */
};

struct wh_http {
    const struct wh_config *cfg;
    const struct wh_handler_ctx *ctx;
    struct listener https, health, metrics; /* health may also serve /metrics */
    struct route_metrics *routes;
    size_t nroutes;
    atomic_int in_flight;
    atomic_bool draining;
};

/* Per-request state: made when the request line arrives (MHD's URI callback), freed when MHD
 * reports the request completed. */
struct request {
    struct listener *l;
    struct route_metrics *rm;
    bool seen;        /* the first access-handler call (headers complete) happened */
    bool probe;       /* answered by serve_probe */
    size_t body_seen; /* bytes received */
    long long length; /* the declared Content-Length, or -1 (chunked) */
    size_t room;      /* bytes the body's buffer has room for */
    bool discarding;  /* refused for memory: the rest is read and dropped, then 503 */
    struct wh_intake_body intake;
    struct wh_pace_body pace;
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

/* One line per bad request, rate-limited (log/log.h): what the client did is logged, never the
 * body. */
#define log_bad_request(uid, path, ...)                                                            \
    wh_log_limited(WH_LOG_BAD_REQUEST, WH_LOG_INFO, (uid), (path), __VA_ARGS__)

/* close: the connection ends after this answer (the body was not read, or the framing was
 * ambiguous, or the server is draining). */
static enum MHD_Result send_response(struct wh_http *h, struct MHD_Connection *conn, int status,
                                     char *body, size_t len, const char *content_type, bool close)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(
        len, body, body ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
    if (!r) {
        free(body);
        return MHD_NO;
    }
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, content_type);
    if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
        MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, h ? "POST" : "GET");
    if (status == MHD_HTTP_SERVICE_UNAVAILABLE)
        MHD_add_response_header(r, MHD_HTTP_HEADER_RETRY_AFTER, "1");
    /* While draining, tell the client not to reuse the connection (the API server would). */
    if (close || (h && atomic_load(&h->draining)))
        MHD_add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
    enum MHD_Result ret = MHD_queue_response(conn, (unsigned int)status, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result send_text(struct wh_http *h, struct MHD_Connection *conn, int status,
                                 const char *text)
{
    return send_response(h, conn, status, wh_xstrdup(text), strlen(text),
                         "text/plain; charset=utf-8", false);
}

static enum MHD_Result send_status(struct wh_http *h, struct MHD_Connection *conn, int status,
                                   const char *message, bool close)
{
    size_t len = 0;
    char *body = wh_dispatch_status_body(status, message, &len);
    return send_response(h, conn, status, body, len, "application/json", close);
}

static bool is_probe_path(const char *url)
{
    return strcmp(url, "/healthz") == 0 || strcmp(url, "/readyz") == 0;
}

/* 200 "ok" when check passes, else `failed` with what failed. */
static enum MHD_Result send_health(struct wh_http *h, struct MHD_Connection *conn,
                                   bool (*check)(char *why, size_t whysz), int failed,
                                   const char *what)
{
    char why[320];
    if (check(why, sizeof(why)))
        return send_text(h, conn, 200, "ok");
    char text[400];
    snprintf(text, sizeof(text), "%s: %s", what, why);
    return send_text(h, conn, failed, text);
}

/* /healthz, /readyz and /metrics, shared by the HTTPS and the plain listeners. */
static enum MHD_Result serve_probe(struct listener *l, struct MHD_Connection *conn, const char *url)
{
    struct wh_http *h = l->https ? l->h : NULL;
    if (strcmp(url, "/healthz") == 0 && (l->https || l->health))
        return send_health(h, conn, wh_health_live, 500, "unhealthy");
    if (strcmp(url, "/readyz") == 0 && (l->https || l->health))
        return send_health(h, conn, wh_health_ready, 503, "not ready");
    if (l->metrics && strcmp(url, "/metrics") == 0) {
        struct wh_buf b;
        wh_buf_init(&b, 16 << 20);
        if (wh_metrics_render(&b)) {
            wh_buf_fini(&b);
            return send_text(h, conn, 500, "metrics too large");
        }
        size_t len = 0;
        char *text = wh_buf_take(&b, &len);
        return send_response(h, conn, 200, text, len, "text/plain; version=0.0.4; charset=utf-8",
                             false);
    }
    return send_status(h, conn, 404, "not found", false);
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

/* The Content-Length, or -1 when there is none (chunked) or it does not parse (MHD has
 * refused such requests before we see them). */
static long long content_length(struct MHD_Connection *conn)
{
    const char *cl =
        MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
    if (!cl)
        return -1;
    char *end = NULL;
    unsigned long long n = strtoull(cl, &end, 10);
    if (end == cl || *end != '\0' || n > (unsigned long long)LLONG_MAX)
        return -1;
    return (long long)n;
}

/* Makes room for n more body bytes. The buffer grows by doubling up to the declared length
 * (or --max-body-bytes, chunked), so that what a body holds follows what has arrived; each
 * step past the small-body allowance is taken from the request-memory pool (server/intake.h). */
static enum wh_intake_grant body_room(struct listener *l, struct request *req,
                                      struct MHD_Connection *conn, size_t n)
{
    size_t need = req->body.len + n;
    if (need <= req->room)
        return WH_INTAKE_GRANTED;
    size_t end = req->length >= 0 ? (size_t)req->length : (size_t)l->h->cfg->max_body_bytes;
    size_t room = req->room ? req->room * 2 : WH_REQMEM_SMALL_BODY;
    if (room > end)
        room = end;
    if (room < need)
        room = need;
    if (room > WH_REQMEM_SMALL_BODY) {
        enum wh_intake_grant g = wh_intake_grow(l->intake, &req->intake, conn, room);
        if (g != WH_INTAKE_GRANTED)
            return g;
    }
    /* room never passes the buffer's cap, --max-body-bytes: checked before */
    enum wh_err rc = wh_buf_reserve(&req->body, room - req->body.len);
    WH_ASSERT(rc == WH_OK);
    req->room = room;
    return WH_INTAKE_GRANTED;
}

/* First call: only the headers are known. Decides everything that needs no body; an answer
 * given now closes the connection (the body stays unread). */
static enum MHD_Result first_call(struct listener *l, struct request *req,
                                  struct MHD_Connection *conn, const char *url, const char *method,
                                  const char *version)
{
    struct wh_http *h = l->h;
    const struct wh_route *route = l->https ? wh_routes_find(h->cfg, url) : NULL;
    req->rm = route ? metrics_for(h, route) : NULL;
    if (req->rm)
        wh_metric_inc(req->rm->in_flight);
    struct wh_http *hh = l->https ? h : NULL;

    const char *framing = wh_framing_problem(conn, method, version);
    if (framing) {
        count_request(req->rm, 400, req->start_ns);
        log_bad_request(NULL, url, "bad request (400): %s", framing);
        return send_status(hh, conn, 400, framing, true);
    }
    long long cl = content_length(conn);

    if (!l->https || is_probe_path(url)) {
        if (!l->https && strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
            return send_status(NULL, conn, 405, "GET only", true);
        /* A chunked probe body is counted as it arrives (take_body). */
        if (cl > PROBE_BODY_MAX)
            return send_status(hh, conn, 413, "probes take no body", true);
        req->probe = true;
        return MHD_YES;
    }

    int status = 0;
    const char *message = NULL;
    if (!route) {
        status = 404;
        message = "no webhook is served at this path";
    } else if (strcmp(method, "POST") != 0) {
        status = 405;
        message = "webhooks accept POST only";
    } else if (!is_json_content_type(
                   MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Content-Type"))) {
        status = 415;
        message = "Content-Type must be application/json";
    } else if (cl > h->cfg->max_body_bytes) {
        status = 413;
        message = "request body is larger than --max-body-bytes";
    }
    if (status) {
        count_request(req->rm, status, req->start_ns);
        if (status == 413)
            log_bad_request(NULL, url, "refused (%d): %s (Content-Length %lld)", status, message,
                            cl);
        return send_status(h, conn, status, message, true);
    }
    req->length = cl;
    /* A body that could not be held now is read without being kept and answered 503 once it
     * is in: an answer sent before the body would be lost to the reset that closing a socket
     * with unread bytes sends (a client still writing never reads it). */
    if (cl > WH_REQMEM_SMALL_BODY && !wh_intake_open(l->intake, &req->intake, conn, (size_t)cl))
        req->discarding = true;
    return MHD_YES;
}

/* Body bytes. Past a cap reading stops at once: MHD closes the connection (it can send no
 * answer before the body is complete), and the refusal is counted and logged. */
static enum MHD_Result take_body(struct listener *l, struct request *req,
                                 struct MHD_Connection *conn, const char *url, const char *data,
                                 size_t n)
{
    struct wh_http *h = l->h;
    req->body_seen += n;
    if (req->probe) {
        if (req->body_seen <= PROBE_BODY_MAX)
            return MHD_YES;
        log_bad_request(NULL, url, "closed: probe body over %d bytes", PROBE_BODY_MAX);
        return MHD_NO;
    }
    int status = 0;
    enum wh_intake_grant grant = WH_INTAKE_GRANTED;
    if (req->body_seen > (size_t)h->cfg->max_body_bytes)
        status = 413;
    else if (req->discarding)
        return MHD_YES; /* read, not kept: answered 503 once it is in */
    else
        grant = body_room(l, req, conn, n);
    if (grant == WH_INTAKE_REFUSED) {
        /* No memory for it now: the rest is read without being kept, and the answer is a
         * 503 the client can act on, not a connection cut half way. */
        wh_buf_fini(&req->body);
        wh_intake_release(l->intake, &req->intake);
        req->discarding = true;
        return MHD_YES;
    }
    if (grant == WH_INTAKE_EVICTED)
        status = 503;
    else if (!status && wh_buf_add(&req->body, data, n))
        status = 413;
    if (!status)
        return MHD_YES;
    count_request(req->rm, status, req->start_ns);
    log_bad_request(NULL, url, "closed (%d): %s body %s after %zu bytes", status,
                    req->length < 0 ? "chunked" : "the",
                    status == 413 ? "over --max-body-bytes"
                                  : "stalled, closed to make room in the request memory",
                    req->body_seen);
    wh_buf_fini(&req->body);
    return MHD_NO;
}

static enum MHD_Result answer_review(struct wh_http *h, struct request *req,
                                     struct MHD_Connection *conn)
{
    if (req->discarding) {
        count_request(req->rm, 503, req->start_ns);
        log_bad_request(NULL, req->rm->route->path,
                        "refused (503): no request memory for a body of %zu bytes (read and "
                        "dropped); retry",
                        req->body_seen);
        return send_status(h, conn, 503, "the server is short of request memory; retry", true);
    }
    struct wh_reply reply;
    wh_pace_done(h->https.pace, &req->pace);
    wh_intake_complete(h->https.intake, &req->intake);
    wh_dispatch(req->rm->route, h->ctx, req->body.data ? req->body.data : "", req->body.len,
                &reply);
    wh_buf_fini(&req->body);
    wh_intake_release(h->https.intake, &req->intake);
    if (reply.http_status == 200) {
        if (!reply.allowed)
            wh_metric_add(req->rm->denied, 1);
        if (reply.patched)
            wh_metric_add(req->rm->patched, 1);
    } else {
        log_bad_request(reply.uid[0] ? reply.uid : NULL, req->rm->route->path,
                        "bad request (%d): %.200s", reply.http_status, reply.body);
    }
    if (wh_log_enabled(WH_LOG_DEBUG))
        wh_log_req(WH_LOG_DEBUG, reply.uid, req->rm->route->path, "answered %d in %lld us",
                   reply.http_status, (long long)((wh_time_mono_ns() - req->start_ns) / 1000));
    count_request(req->rm, reply.http_status, req->start_ns);
    enum MHD_Result ret =
        send_response(h, conn, reply.http_status, reply.body, reply.len, "application/json", false);
    reply.body = NULL; /* owned by MHD now */
    /* A POST's answer always has a body: its head can leave with it (server/tls.h). */
    if (ret == MHD_YES && reply.len > 0 && reply.http_status >= 200 && reply.http_status != 204 &&
        reply.http_status != 304) {
        const union MHD_ConnectionInfo *ci =
            MHD_get_connection_info(conn, MHD_CONNECTION_INFO_GNUTLS_SESSION);
        if (ci && ci->tls_session)
            wh_tls_hold_head((gnutls_session_t)ci->tls_session);
    }
    return ret;
}

static enum MHD_Result handle(struct listener *l, struct MHD_Connection *conn, const char *url,
                              const char *method, const char *version, const char *upload_data,
                              size_t *upload_data_size, void **req_cls)
{
    struct request *req = *req_cls;
    if (!req)
        return MHD_NO; /* the URI callback makes one for every request */
    if (!req->seen) {
        req->seen = true;
        /* Probes are answered on the final call: a response queued on the first one makes
         * libmicrohttpd close the connection (a body might be unread), and each probe would
         * cost a new connection. */
        return first_call(l, req, conn, url, method, version);
    }
    if (*upload_data_size) {
        /* A large body waits for its worker's turn with its bytes left unconsumed
         * (server/pace.h); the bytes of one refused for memory are dropped at once. */
        if (l->pace && !req->probe && !req->discarding && req->length > WH_REQMEM_SMALL_BODY &&
            !wh_pace_turn(l->pace, &req->pace, conn, (size_t)req->length))
            return MHD_YES;
        size_t n = *upload_data_size;
        *upload_data_size = 0;
        return take_body(l, req, conn, url, upload_data, n);
    }
    wh_conn_guard_answering(l->guard, conn);
    if (req->probe)
        return serve_probe(l, conn, url);
    return answer_review(l->h, req, conn);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_data_size, void **req_cls)
{
    struct listener *l = cls;
    if (!l->https)
        return handle(l, conn, url, method, version, upload_data, upload_data_size, req_cls);
    wh_watchdog_enter();
    enum MHD_Result r =
        handle(l, conn, url, method, version, upload_data, upload_data_size, req_cls);
    wh_watchdog_leave();
    return r;
}

/* The request line has arrived: the request exists from here on, and so does its deadline. */
static void *on_uri(void *cls, const char *uri, struct MHD_Connection *conn)
{
    (void)uri;
    struct listener *l = cls;
    struct request *req = wh_xcalloc(1, sizeof(*req));
    req->l = l;
    req->start_ns = wh_time_mono_ns();
    req->length = -1;
    wh_buf_init(&req->body, (size_t)l->h->cfg->max_body_bytes);
    wh_conn_guard_reading(l->guard, conn);
    if (l->https)
        atomic_fetch_add(&l->h->in_flight, 1);
    return req;
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **req_cls,
                         enum MHD_RequestTerminationCode toe)
{
    (void)toe;
    struct listener *l = cls;
    struct request *req = *req_cls;
    if (!req)
        return;
    wh_conn_guard_idle(l->guard, conn);
    if (req->rm)
        wh_metric_dec(req->rm->in_flight);
    wh_buf_fini(&req->body);
    wh_pace_done(l->pace, &req->pace);
    if (l->intake)
        wh_intake_release(l->intake, &req->intake);
    if (req->body_seen > WH_REQMEM_SMALL_BODY)
        wh_memtune_release();
    free(req);
    *req_cls = NULL;
    if (l->https)
        atomic_fetch_sub(&l->h->in_flight, 1);
}

static WH_PRINTF(2, 0) void mhd_log(void *cls, const char *fmt, va_list ap)
{
    (void)cls;
    char msg[512];
    vsnprintf(msg, sizeof(msg), fmt, ap);
    size_t n = strlen(msg);
    while (n > 0 && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
        msg[--n] = '\0';
    /* libmicrohttpd's words for any failed TLS handshake (server/tls.h says what it was). */
    if (wh_str_has_prefix(msg, "Error: received handshake message out of context")) {
        wh_tls_handshake_failed();
        return;
    }
    /* Other connection errors from scanners or broken clients would flood the log. */
    WH_LOG_EVERY(10, WH_LOG_WARN, "http: %s", msg);
}

/* Resolves host (numeric; "" = every interface) and port into ss. */
static enum wh_err make_addr(const char *host, int port, bool v6_any, struct sockaddr_storage *ss)
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

/* libmicrohttpd's own cap sits above the guard's, which closes connections to make room: MHD
 * splits its cap between the pool's threads and would refuse before the guard could act. */
static unsigned int mhd_connection_cap(unsigned int guard_max, unsigned int threads)
{
    unsigned long long cap = ((unsigned long long)guard_max + 64) * (threads ? threads : 1);
    return cap > 1000000 ? 1000000 : (unsigned int)cap;
}

/* The HTTPS listener's connections: the guard's bookkeeping, and the TLS session watched so
 * that a failed handshake can be told apart (server/tls.h). */
static void on_https_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
                                enum MHD_ConnectionNotificationCode code)
{
    wh_conn_guard_notify(cls, conn, socket_context, code);
    if (code != MHD_CONNECTION_NOTIFY_STARTED)
        return;
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_GNUTLS_SESSION);
    if (ci && ci->tls_session)
        wh_conn_guard_attach(conn, wh_tls_watch_session((gnutls_session_t)ci->tls_session));
}

static struct MHD_Daemon *start_daemon(struct listener *l, const char *host, int port,
                                       unsigned int threads, unsigned int guard_max)
{
    static const char priorities[] = "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2";
    const struct wh_config *cfg = l->h->cfg;
    unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ITC |
                         MHD_USE_ERROR_LOG | (l->https ? MHD_USE_TLS | MHD_ALLOW_SUSPEND_RESUME : 0);
    unsigned int timeout_s = l->https ? (unsigned int)((cfg->connection_timeout_ms + 999) / 1000)
                                      : (unsigned int)(plain_limits.idle_ms / 1000);
    size_t mem = l->https ? (size_t)cfg->connection_memory_limit : (size_t)(64 * 1024);
    /* Every interface: an IPv6 socket that also takes IPv4, unless this host has no IPv6. */
    for (int attempt = 0; attempt < 2; attempt++) {
        bool v6 = attempt == 0 && !host[0];
        if (attempt == 1 && host[0])
            break;
        struct sockaddr_storage ss;
        if (make_addr(host, port, v6, &ss))
            return NULL;
        unsigned int f =
            flags | (ss.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0) | (v6 ? MHD_USE_DUAL_STACK : 0);
        struct MHD_Daemon *d;
        if (l->https)
            d = MHD_start_daemon(
                f, (uint16_t)port, NULL, NULL, on_request, l, MHD_OPTION_EXTERNAL_LOGGER, mhd_log,
                NULL, MHD_OPTION_SOCK_ADDR, &ss, MHD_OPTION_THREAD_POOL_SIZE, threads,
                MHD_OPTION_CONNECTION_TIMEOUT, timeout_s, MHD_OPTION_CONNECTION_MEMORY_LIMIT, mem,
                MHD_OPTION_CONNECTION_LIMIT, mhd_connection_cap(guard_max, threads),
                MHD_OPTION_NOTIFY_CONNECTION, on_https_connection, l->guard,
                MHD_OPTION_URI_LOG_CALLBACK, on_uri, l, MHD_OPTION_NOTIFY_COMPLETED, on_completed,
                l, MHD_OPTION_HTTPS_CERT_CALLBACK, wh_tls_cert_callback,
                MHD_OPTION_HTTPS_PRIORITIES, priorities, MHD_OPTION_END);
        else
            d = MHD_start_daemon(
                f, (uint16_t)port, NULL, NULL, on_request, l, MHD_OPTION_EXTERNAL_LOGGER, mhd_log,
                NULL, MHD_OPTION_SOCK_ADDR, &ss, MHD_OPTION_CONNECTION_TIMEOUT, timeout_s,
                MHD_OPTION_CONNECTION_MEMORY_LIMIT, mem, MHD_OPTION_CONNECTION_LIMIT,
                mhd_connection_cap(guard_max, 1), MHD_OPTION_NOTIFY_CONNECTION,
                wh_conn_guard_notify, l->guard, MHD_OPTION_URI_LOG_CALLBACK, on_uri, l,
                MHD_OPTION_NOTIFY_COMPLETED, on_completed, l, MHD_OPTION_END);
        if (d)
            return d;
    }
    return NULL;
}

static enum wh_err start_listener(struct wh_http *h, struct listener *l, const char *name,
                                  const char *host, int port, unsigned int threads,
                                  const struct wh_conn_limits *lim)
{
    l->h = h;
    l->name = name;
    enum wh_err rc = wh_conn_guard_new(name, lim, &l->guard);
    if (!rc && l->https)
        rc = wh_intake_new(l->guard, &l->intake);
    if (!rc && l->https)
        rc = wh_pace_new((size_t)h->cfg->body_bytes_per_thread, &l->pace);
    if (rc)
        return rc;
    l->d = start_daemon(l, host, port, threads, lim->max_total);
    return l->d ? WH_OK : WH_ERR_IO;
}

static enum wh_err start_plain(struct wh_http *h, struct listener *l, const char *name,
                               const char *addr)
{
    char host[256];
    int port = 0;
    if (wh_config_parse_addr(addr, host, sizeof(host), &port))
        return WH_ERR_INVALID;
    return start_listener(h, l, name, host, port, 1, &plain_limits);
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
    const struct wh_route *const *all = wh_routes_all(&n);
    h->routes = wh_xcalloc(n ? n : 1, sizeof(*h->routes));
    for (size_t i = 0; i < n; i++) {
        const struct wh_route *r = all[i];
        if (r->enabled && !r->enabled(h->cfg))
            continue;
        struct route_metrics *rm = &h->routes[h->nroutes++];
        rm->route = r;
        char labels[256];
        for (size_t c = 0; c < NCODES; c++) {
            char code[16];
            snprintf(code, sizeof(code), "%d", counted_codes[c]);
            wh_metrics_labels(labels, sizeof(labels), "webhook", r->path, "code", code, NULL);
            rm->requests[c] = wh_metrics_counter(
                "controller_runtime_webhook_requests_total",
                "Total number of admission requests by HTTP status code.", labels);
        }
        wh_metrics_labels(labels, sizeof(labels), "webhook", r->path, NULL);
        rm->in_flight =
            wh_metrics_gauge("controller_runtime_webhook_requests_in_flight",
                             "Current number of admission requests being served.", labels);
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

/* A listener that did not start (libmicrohttpd's log line before says why: a port in use, a
 * host not on this machine): which option moves it, and where its value came from. */
static enum wh_err listen_failed(const struct wh_config *cfg, const char *what, const char *at,
                                 const char *option, struct wh_errbuf *eb)
{
    return wh_errbuf_set(eb, WH_ERR_IO,
                         "cannot listen for %s on %s (the line above says why); it is set by "
                         "--%s or %s, here by %s: choose another address or port there",
                         what, at, option, wh_config_env_name(option),
                         wh_config_origin(cfg, option));
}

static double log_suppressed(void *kind)
{
    return (double)wh_log_suppressed((enum wh_log_kind)(uintptr_t)kind);
}

static double log_dropped(void *unused)
{
    (void)unused;
    return (double)wh_log_dropped();
}

static double pool_in_use(void *unused)
{
    (void)unused;
    return (double)wh_reqmem_in_use();
}

static double pool_arriving(void *intake)
{
    return (double)wh_intake_arriving(intake);
}

static double bodies_waiting(void *pace)
{
    return (double)wh_pace_waiting(pace);
}

static double bodies_waited(void *pace)
{
    return (double)wh_pace_waited(pace);
}

static void register_log_metrics(void)
{
    for (int k = 0; k < WH_LOG_KINDS; k++) {
        char labels[64];
        wh_metrics_labels(labels, sizeof(labels), "kind", wh_log_kind_name((enum wh_log_kind)k),
                          NULL);
        wh_metrics_counter_fn("kruise_webhook_log_lines_suppressed_total",
                              "Log lines a client can cause at will held back by their kind's "
                              "rate limit.",
                              labels, log_suppressed, (void *)(uintptr_t)k);
    }
    wh_metrics_counter_fn("kruise_webhook_log_lines_dropped_total",
                          "Log lines dropped because stderr did not drain.", NULL, log_dropped,
                          NULL);
}

enum wh_err wh_http_start(const struct wh_config *cfg, const struct wh_handler_ctx *ctx,
                          struct wh_http **out, struct wh_errbuf *eb)
{
    struct wh_http *h = wh_xcalloc(1, sizeof(*h));
    h->cfg = cfg;
    h->ctx = ctx;
    register_route_metrics(h);
    register_log_metrics();
    wh_reqmem_set_limit((size_t)cfg->max_request_memory);

    /* A request's handling ends by its deadline (--request-deadline); a worker still in one
     * WEDGED_AFTER_MS later will not serve again. Registered before any listener runs: the
     * list of checks is not locked. */
    wh_watchdog_set_limit((cfg->request_deadline_ms > 0 ? cfg->request_deadline_ms : 20000) +
                          WEDGED_AFTER_MS);
    static atomic_bool registered;
    if (!atomic_exchange(&registered, true))
        wh_health_add_live("https-workers", wh_watchdog_live, NULL);
    const struct wh_conn_limits https_limits = {
        .max_total = (unsigned)cfg->max_connections,
        .max_per_ip = (unsigned)cfg->max_connections_per_ip,
        .idle_ms = cfg->connection_timeout_ms,
        .read_ms = cfg->request_read_timeout_ms,
    };
    h->https.https = true;
    if (start_listener(h, &h->https, "https", cfg->bind_address, (int)cfg->port,
                       (unsigned int)cfg->threads, &https_limits)) {
        wh_http_stop(h, 0);
        char at[300];
        snprintf(at, sizeof(at), "%s:%lld", cfg->bind_address[0] ? cfg->bind_address : "*",
                 cfg->port);
        return listen_failed(cfg, "HTTPS", at, "port", eb);
    }
    /* Read by the metrics listener, which stops with the HTTPS one (wh_http_stop). */
    wh_metrics_gauge_fn("kruise_webhook_request_memory_bytes",
                        "Bytes of --max-request-memory in use: all (bodies over 64 KiB and "
                        "parses) and those of bodies still arriving.",
                        "state=\"in_use\"", pool_in_use, NULL);
    wh_metrics_gauge_fn("kruise_webhook_request_memory_bytes",
                        "Bytes of --max-request-memory in use: all (bodies over 64 KiB and "
                        "parses) and those of bodies still arriving.",
                        "state=\"arriving\"", pool_arriving, h->https.intake);
    wh_metrics_gauge_fn("kruise_webhook_request_bodies_waiting",
                        "Request bodies over 64 KiB waiting in their socket for a worker thread "
                        "to read them (--body-bytes-per-thread).",
                        NULL, bodies_waiting, h->https.pace);
    wh_metrics_counter_fn("kruise_webhook_request_bodies_waited_total",
                          "Request bodies over 64 KiB that waited in their socket for their "
                          "worker thread (--body-bytes-per-thread).",
                          NULL, bodies_waited, h->https.pace);
    bool health_on = !wh_config_addr_disabled(cfg->health_addr);
    bool metrics_on = !wh_config_addr_disabled(cfg->metrics_addr);
    /* One listener for both when they name the same fixed address (port 0 means two ports). */
    bool shared = health_on && metrics_on && strcmp(cfg->health_addr, cfg->metrics_addr) == 0 &&
                  !wh_str_has_suffix(cfg->health_addr, ":0");
    if (health_on) {
        h->health.health = true;
        h->health.metrics = shared;
        if (start_plain(h, &h->health, "health", cfg->health_addr)) {
            wh_http_stop(h, 0);
            return listen_failed(cfg, shared ? "/healthz, /readyz and /metrics" : "/healthz and /readyz",
                                 cfg->health_addr, "health-addr", eb);
        }
    }
    if (metrics_on && !shared) {
        h->metrics.metrics = true;
        if (start_plain(h, &h->metrics, "metrics", cfg->metrics_addr)) {
            wh_http_stop(h, 0);
            return listen_failed(cfg, "/metrics", cfg->metrics_addr, "metrics-addr", eb);
        }
    }
    *out = h;
    return WH_OK;
}

int wh_http_port(const struct wh_http *h)
{
    return bound_port(h->https.d);
}

int wh_http_health_port(const struct wh_http *h)
{
    return bound_port(h->health.d);
}

int wh_http_metrics_port(const struct wh_http *h)
{
    return h->metrics.d ? bound_port(h->metrics.d)
                        : (h->health.metrics ? bound_port(h->health.d) : 0);
}

static void stop_listener(struct listener *l)
{
    if (l->d)
        MHD_stop_daemon(l->d);
    l->d = NULL;
}

void wh_http_begin_drain(struct wh_http *h)
{
    atomic_store(&h->draining, true);
}

/* New connections are refused at the TCP level from the start of the drain, without
 * MHD_quiesce_daemon: in libmicrohttpd 0.9.75 quiescing an epoll thread pool races the workers
 * (the caller and a worker both remove the listen socket from that worker's epoll set, and the
 * one that loses aborts the process: "Failed to remove listen FD from epoll set"). Instead the
 * listen socket's descriptor is replaced with an eventfd that never becomes readable. The
 * socket itself is closed: the kernel refuses new connections, resets those in the backlog and
 * drops it from every epoll set. MHD keeps a valid descriptor under the same number (no reused
 * number can confuse its workers) and shuts it down and closes it itself when it stops. */
static void stop_accepting(struct MHD_Daemon *d)
{
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_LISTEN_FD);
    if (!info || info->listen_fd == MHD_INVALID_SOCKET)
        return;
    int quiet = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (quiet < 0 || dup2(quiet, info->listen_fd) < 0 ||
        fcntl(info->listen_fd, F_SETFD, FD_CLOEXEC) < 0)
        wh_log(WH_LOG_WARN, "draining: the listener stays open until the server stops (%s)",
               strerror(errno));
    if (quiet >= 0)
        close(quiet);
}

void wh_http_stop(struct wh_http *h, long long grace_ms)
{
    if (!h)
        return;
    /* The drain, in one place: no new connections, kept-alive ones closed as soon as they are
     * idle, in-flight requests answered with Connection: close within the grace period. */
    atomic_store(&h->draining, true);
    if (h->https.d) {
        stop_accepting(h->https.d);
        wh_conn_guard_drain(h->https.guard);
        int64_t deadline = wh_time_mono_ns() + grace_ms * 1000000;
        while (atomic_load(&h->in_flight) > 0 && wh_time_mono_ns() < deadline)
            wh_time_sleep_ms(5);
        if (atomic_load(&h->in_flight) > 0)
            wh_log(WH_LOG_WARN, "shutdown grace period over with %d requests in flight",
                   atomic_load(&h->in_flight));
    }
    wh_pace_stop(h->https.pace);
    stop_listener(&h->https);
    stop_listener(&h->health);
    stop_listener(&h->metrics);
    wh_intake_free(h->https.intake);
    wh_pace_free(h->https.pace);
    wh_conn_guard_free(h->https.guard);
    wh_conn_guard_free(h->health.guard);
    wh_conn_guard_free(h->metrics.guard);
    free(h->routes);
    free(h);
}
