#include "server/conn.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "log/log.h"
#include "metrics/metrics.h"
#include "util/map.h"
#include "util/mem.h"
#include "util/time.h"

_Static_assert(WH_CONN_IP_MAX >= INET6_ADDRSTRLEN, "room for any address");

/* How often the reaper looks at the deadlines: the granularity of every deadline. */
#define REAP_EVERY_MS 100

enum phase { PHASE_IDLE, PHASE_READING, PHASE_ANSWERING };

enum reason { R_IDLE, R_READ, R_EVICTED, R_REFUSED, R_DRAIN, R_MEMORY, NREASONS };
static const char *const reason_names[NREASONS] = {"idle-deadline", "read-deadline", "evicted",
                                                   "refused",       "drain",         "memory"};

struct entry {
    struct entry *prev, *next; /* in the idle or the reading list; answering: in none */
    MHD_socket fd;
    char ip[WH_CONN_IP_MAX];
    enum phase phase;
    int64_t since_ns; /* when the current phase began */
    bool closing;     /* shut down by the guard, waiting for libmicrohttpd to release it */
    void *attached;   /* wh_conn_guard_attach: freed with the entry */
};

/* Oldest first: entries are appended with the time taken under the lock, so each list is
 * ordered by since_ns and the reaper only ever looks at the heads. */
struct list {
    struct entry *head, *tail;
};

struct wh_conn_guard {
    char name[16];
    struct wh_conn_limits lim;
    pthread_mutex_t mu;
    struct list idle, reading;
    unsigned open;        /* registered and not closing */
    struct wh_map per_ip; /* ip -> open count (as a pointer-sized integer) */
    bool draining;
    bool stop;
    pthread_cond_t cv;
    pthread_t reaper;
    struct wh_metric *m_open;
    struct wh_metric *m_closed[NREASONS];
};

static void list_append(struct list *l, struct entry *e)
{
    e->next = NULL;
    e->prev = l->tail;
    if (l->tail)
        l->tail->next = e;
    else
        l->head = e;
    l->tail = e;
}

static void list_remove(struct list *l, struct entry *e)
{
    if (e->prev)
        e->prev->next = e->next;
    else
        l->head = e->next;
    if (e->next)
        e->next->prev = e->prev;
    else
        l->tail = e->prev;
    e->prev = e->next = NULL;
}

static struct list *list_of(struct wh_conn_guard *g, const struct entry *e)
{
    switch (e->phase) {
    case PHASE_IDLE:
        return &g->idle;
    case PHASE_READING:
        return &g->reading;
    default:
        return NULL;
    }
}

static unsigned ip_count(struct wh_conn_guard *g, const char *ip)
{
    return (unsigned)(uintptr_t)wh_map_get(&g->per_ip, ip);
}

static void ip_adjust(struct wh_conn_guard *g, const char *ip, int delta)
{
    unsigned n = ip_count(g, ip);
    n = delta > 0 ? n + 1 : (n > 0 ? n - 1 : 0);
    if (n)
        wh_map_put(&g->per_ip, ip, (void *)(uintptr_t)n);
    else
        wh_map_remove(&g->per_ip, ip);
}

/* Takes e out of the guard's books (lists, counts); the caller holds the lock. */
static void forget(struct wh_conn_guard *g, struct entry *e)
{
    struct list *l = list_of(g, e);
    if (l)
        list_remove(l, e);
    g->open--;
    ip_adjust(g, e->ip, -1);
    wh_metric_dec(g->m_open);
}

/* Caller holds the lock. The socket is still libmicrohttpd's: it sees end-of-stream and
 * releases the connection (and tells us) on its own thread. */
static void close_entry(struct wh_conn_guard *g, struct entry *e, enum reason why)
{
    if (e->closing)
        return;
    shutdown(e->fd, SHUT_RDWR);
    forget(g, e);
    e->closing = true;
    wh_metric_add(g->m_closed[why], 1);
}

/* The connection to close to make room: the oldest idle one in scope, else the one whose
 * request has been arriving for longest; NULL when every other is being answered. */
static struct entry *victim(struct wh_conn_guard *g, const char *ip, const struct entry *except)
{
    const struct list *lists[] = {&g->idle, &g->reading};
    for (size_t i = 0; i < 2; i++) {
        for (struct entry *e = lists[i]->head; e; e = e->next) {
            if (e != except && (!ip || strcmp(e->ip, ip) == 0))
                return e;
        }
    }
    return NULL;
}

void wh_conn_client_ip(struct MHD_Connection *conn, char *out, size_t outsz)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    snprintf(out, outsz, "?");
    if (!ci || !ci->client_addr)
        return;
    const struct sockaddr *sa = ci->client_addr;
    if (sa->sa_family == AF_INET) {
        inet_ntop(AF_INET, &((const struct sockaddr_in *)(const void *)sa)->sin_addr, out,
                  (socklen_t)outsz);
    } else if (sa->sa_family == AF_INET6) {
        const struct in6_addr *a = &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr;
        /* An IPv4 client of a dual-stack socket counts as that IPv4 address. */
        if (IN6_IS_ADDR_V4MAPPED(a))
            inet_ntop(AF_INET, &a->s6_addr[12], out, (socklen_t)outsz);
        else
            inet_ntop(AF_INET6, a, out, (socklen_t)outsz);
    }
}

static void started(struct wh_conn_guard *g, struct MHD_Connection *conn, void **socket_context)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
    struct entry *e = wh_xcalloc(1, sizeof(*e));
    e->fd = ci ? ci->connect_fd : MHD_INVALID_SOCKET;
    wh_conn_client_ip(conn, e->ip, sizeof(e->ip));
    e->phase = PHASE_IDLE;
    *socket_context = e;

    enum reason logged = NREASONS;
    unsigned open = 0;
    pthread_mutex_lock(&g->mu);
    e->since_ns = wh_time_mono_ns();
    list_append(&g->idle, e);
    g->open++;
    ip_adjust(g, e->ip, +1);
    wh_metric_inc(g->m_open);
    if (g->draining) {
        close_entry(g, e, R_DRAIN);
    } else if (ip_count(g, e->ip) > g->lim.max_per_ip || g->open > g->lim.max_total) {
        bool per_ip = ip_count(g, e->ip) > g->lim.max_per_ip;
        struct entry *v = victim(g, per_ip ? e->ip : NULL, e);
        close_entry(g, v ? v : e, v ? R_EVICTED : R_REFUSED);
        logged = v ? R_EVICTED : R_REFUSED;
        open = g->open;
    }
    pthread_mutex_unlock(&g->mu);
    if (logged != NREASONS)
        WH_LOG_EVERY(10, WH_LOG_WARN,
                     "%s: connection limit reached (%u open; per client %u, total %u): %s "
                     "(client %s)",
                     g->name, open, g->lim.max_per_ip, g->lim.max_total,
                     logged == R_EVICTED ? "closed the oldest idle or slowest connection"
                                         : "refused a new connection",
                     e->ip);
}

static void closed(struct wh_conn_guard *g, void **socket_context)
{
    struct entry *e = *socket_context;
    if (!e)
        return;
    pthread_mutex_lock(&g->mu);
    if (!e->closing)
        forget(g, e);
    pthread_mutex_unlock(&g->mu);
    *socket_context = NULL;
    free(e->attached);
    free(e);
}

void wh_conn_guard_notify(void *cls, struct MHD_Connection *conn, void **socket_context,
                          enum MHD_ConnectionNotificationCode code)
{
    struct wh_conn_guard *g = cls;
    if (code == MHD_CONNECTION_NOTIFY_STARTED)
        started(g, conn, socket_context);
    else if (code == MHD_CONNECTION_NOTIFY_CLOSED)
        closed(g, socket_context);
}

static struct entry *entry_of(struct MHD_Connection *conn)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return ci ? ci->socket_context : NULL;
}

void wh_conn_guard_attach(struct MHD_Connection *conn, void *p)
{
    struct entry *e = entry_of(conn);
    if (!e) {
        free(p);
        return;
    }
    free(e->attached);
    e->attached = p;
}

static void set_phase(struct wh_conn_guard *g, struct MHD_Connection *conn, enum phase p)
{
    struct entry *e = entry_of(conn);
    if (!e)
        return;
    pthread_mutex_lock(&g->mu);
    if (!e->closing && e->phase != p) {
        struct list *l = list_of(g, e);
        if (l)
            list_remove(l, e);
        e->phase = p;
        e->since_ns = wh_time_mono_ns();
        l = list_of(g, e);
        if (l)
            list_append(l, e);
        if (p == PHASE_IDLE && g->draining)
            close_entry(g, e, R_DRAIN);
    }
    pthread_mutex_unlock(&g->mu);
}

void wh_conn_guard_reading(struct wh_conn_guard *g, struct MHD_Connection *conn)
{
    set_phase(g, conn, PHASE_READING);
}

void wh_conn_guard_answering(struct wh_conn_guard *g, struct MHD_Connection *conn)
{
    set_phase(g, conn, PHASE_ANSWERING);
}

void wh_conn_guard_idle(struct wh_conn_guard *g, struct MHD_Connection *conn)
{
    set_phase(g, conn, PHASE_IDLE);
}

void wh_conn_guard_drain(struct wh_conn_guard *g)
{
    if (!g)
        return;
    pthread_mutex_lock(&g->mu);
    g->draining = true;
    while (g->idle.head)
        close_entry(g, g->idle.head, R_DRAIN);
    pthread_mutex_unlock(&g->mu);
}

void wh_conn_guard_close_for_memory(struct wh_conn_guard *g, struct MHD_Connection *conn)
{
    struct entry *e = entry_of(conn);
    if (!e)
        return;
    pthread_mutex_lock(&g->mu);
    close_entry(g, e, R_MEMORY);
    pthread_mutex_unlock(&g->mu);
}

/* Closes the heads of a list that are past their deadline; returns how many. */
static unsigned reap_list(struct wh_conn_guard *g, struct list *l, int64_t limit_ms, int64_t now,
                          enum reason why)
{
    unsigned n = 0;
    while (l->head && now - l->head->since_ns >= limit_ms * 1000000) {
        close_entry(g, l->head, why);
        n++;
    }
    return n;
}

static void *reaper_main(void *arg)
{
    struct wh_conn_guard *g = arg;
    pthread_mutex_lock(&g->mu);
    while (!g->stop) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        ts.tv_nsec += REAP_EVERY_MS * 1000000L;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&g->cv, &g->mu, &ts);
        if (g->stop)
            break;
        int64_t now = wh_time_mono_ns();
        reap_list(g, &g->idle, g->lim.idle_ms, now, R_IDLE);
        unsigned slow = reap_list(g, &g->reading, g->lim.read_ms, now, R_READ);
        if (slow) {
            pthread_mutex_unlock(&g->mu);
            WH_LOG_EVERY(10, WH_LOG_WARN,
                         "%s: closed %u connections whose request did not arrive within %lld ms",
                         g->name, slow, (long long)g->lim.read_ms);
            pthread_mutex_lock(&g->mu);
        }
    }
    pthread_mutex_unlock(&g->mu);
    return NULL;
}

enum wh_err wh_conn_guard_new(const char *name, const struct wh_conn_limits *lim,
                              struct wh_conn_guard **out)
{
    struct wh_conn_guard *g = wh_xcalloc(1, sizeof(*g));
    snprintf(g->name, sizeof(g->name), "%s", name);
    g->lim = *lim;
    if (g->lim.max_total == 0)
        g->lim.max_total = 1;
    if (g->lim.max_per_ip == 0)
        g->lim.max_per_ip = 1;
    wh_map_init(&g->per_ip);
    pthread_mutex_init(&g->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&g->cv, &ca);
    pthread_condattr_destroy(&ca);

    char labels[128];
    wh_metrics_labels(labels, sizeof(labels), "listener", name, NULL);
    g->m_open = wh_metrics_gauge("kruise_webhook_connections", "Open client connections.", labels);
    for (int r = 0; r < NREASONS; r++) {
        wh_metrics_labels(labels, sizeof(labels), "listener", name, "reason", reason_names[r],
                          NULL);
        g->m_closed[r] = wh_metrics_counter(
            "kruise_webhook_connections_closed_total",
            "Connections closed or refused by the server's limits, by reason.", labels);
    }
    if (pthread_create(&g->reaper, NULL, reaper_main, g) != 0) {
        wh_map_fini(&g->per_ip);
        pthread_cond_destroy(&g->cv);
        pthread_mutex_destroy(&g->mu);
        free(g);
        return WH_ERR_INTERNAL;
    }
    *out = g;
    return WH_OK;
}

void wh_conn_guard_free(struct wh_conn_guard *g)
{
    if (!g)
        return;
    pthread_mutex_lock(&g->mu);
    g->stop = true;
    pthread_cond_signal(&g->cv);
    pthread_mutex_unlock(&g->mu);
    pthread_join(g->reaper, NULL);
    /* The daemon is stopped: every connection has been reported closed. */
    WH_ASSERT(g->idle.head == NULL && g->reading.head == NULL);
    wh_map_fini(&g->per_ip);
    pthread_cond_destroy(&g->cv);
    pthread_mutex_destroy(&g->mu);
    free(g);
}
