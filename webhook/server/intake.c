#include "server/intake.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "log/log.h"
#include "util/map.h"
#include "util/mem.h"
#include "util/reqmem.h"
#include "util/time.h"

struct wh_intake {
    struct wh_conn_guard *guard;
    pthread_mutex_t mu;
    struct wh_intake_body *head; /* bodies arriving, in no order */
    size_t arriving;             /* bytes they hold */
    struct wh_map per_ip;        /* ip -> struct addr (owned), while it has bodies arriving */
};

static void lock(struct wh_intake *in)
{
    if (pthread_mutex_lock(&in->mu))
        WH_PANIC("pthread_mutex_lock failed");
}

static void unlock(struct wh_intake *in)
{
    if (pthread_mutex_unlock(&in->mu))
        WH_PANIC("pthread_mutex_unlock failed");
}

/* What the bodies arriving from one address hold, and the lengths they declared. */
struct addr {
    size_t bytes;
    size_t declared;
    unsigned bodies;
};

static size_t ip_bytes(const struct wh_intake *in, const char *ip)
{
    const struct addr *a = wh_map_get(&in->per_ip, ip);
    return a ? a->bytes : 0;
}

/* Addresses with bodies arriving, counting ip when it has none yet. */
static size_t addresses(const struct wh_intake *in, const char *ip)
{
    return wh_map_size(&in->per_ip) + (wh_map_get(&in->per_ip, ip) ? 0 : 1);
}

/* The arriving share: half the pool (0: the pool is unlimited). */
static size_t share(void)
{
    return wh_reqmem_limit() / 2;
}

/* b starts arriving: it joins the list and its address counts in the fair share from now on,
 * even while it holds nothing. The caller holds the lock. */
static void link_body(struct wh_intake *in, struct wh_intake_body *b)
{
    b->_prev = NULL;
    b->_next = in->head;
    if (in->head)
        in->head->_prev = b;
    in->head = b;
    b->_arriving = true;
    struct addr *a = wh_map_get(&in->per_ip, b->_ip);
    if (!a) {
        a = wh_xcalloc(1, sizeof(*a));
        wh_map_put(&in->per_ip, b->_ip, a);
    }
    a->bytes += b->_held;
    a->declared += b->_declared;
    a->bodies++;
    in->arriving += b->_held;
}

/* Takes b out of the arriving share; its held bytes stay taken from the pool. The caller
 * holds the lock. */
static void unlink_body(struct wh_intake *in, struct wh_intake_body *b)
{
    if (!b->_arriving)
        return;
    if (b->_prev)
        b->_prev->_next = b->_next;
    else
        in->head = b->_next;
    if (b->_next)
        b->_next->_prev = b->_prev;
    b->_prev = b->_next = NULL;
    b->_arriving = false;
    in->arriving -= b->_held;
    struct addr *a = wh_map_get(&in->per_ip, b->_ip);
    WH_ASSERT(a && a->bodies > 0 && a->bytes >= b->_held && a->declared >= b->_declared);
    a->bytes -= b->_held;
    a->declared -= b->_declared;
    if (--a->bodies == 0)
        free(wh_map_remove(&in->per_ip, b->_ip));
}

/* The body to close to make room for `for_ip`: of the address holding most (another one), the
 * body that has waited longest for a byte. NULL when no other address holds anything. The
 * caller holds the lock. */
static struct wh_intake_body *victim(struct wh_intake *in, const char *for_ip)
{
    const char *top = NULL;
    size_t most = 0;
    const char *k;
    void *v;
    for (size_t it = 0; wh_map_next(&in->per_ip, &it, &k, &v);) {
        const struct addr *a = v;
        if (a->bytes > most && strcmp(k, for_ip) != 0) {
            most = a->bytes;
            top = k;
        }
    }
    if (!top)
        return NULL;
    struct wh_intake_body *oldest = NULL;
    for (struct wh_intake_body *b = in->head; b; b = b->_next) {
        if (b->_held && strcmp(b->_ip, top) == 0 && (!oldest || b->_last_ns < oldest->_last_ns))
            oldest = b;
    }
    return oldest;
}

enum wh_err wh_intake_new(struct wh_conn_guard *guard, struct wh_intake **out)
{
    struct wh_intake *in = wh_xcalloc(1, sizeof(*in));
    in->guard = guard;
    pthread_mutex_init(&in->mu, NULL);
    wh_map_init(&in->per_ip);
    *out = in;
    return WH_OK;
}

void wh_intake_free(struct wh_intake *in)
{
    if (!in)
        return;
    WH_ASSERT(in->head == NULL && wh_map_size(&in->per_ip) == 0);
    wh_map_fini(&in->per_ip);
    pthread_mutex_destroy(&in->mu);
    free(in);
}

bool wh_intake_open(struct wh_intake *in, struct wh_intake_body *b, struct MHD_Connection *conn,
                    size_t length)
{
    size_t limit = wh_reqmem_limit();
    if (!limit)
        return true;
    b->_conn = conn;
    wh_conn_client_ip(conn, b->_ip, sizeof(b->_ip));
    size_t used = wh_reqmem_in_use();
    bool ok = used <= limit && length <= limit - used;
    lock(in);
    const struct addr *a = wh_map_get(&in->per_ip, b->_ip);
    size_t declared = a ? a->declared : 0;
    bool room = in->arriving + length <= share();
    bool fair = ip_bytes(in, b->_ip) + length <= share() / addresses(in, b->_ip);
    ok = ok && (room || fair) && declared + length <= share();
    if (ok) {
        b->_declared = length;
        link_body(in, b);
    }
    unlock(in);
    return ok;
}

enum wh_intake_grant wh_intake_grow(struct wh_intake *in, struct wh_intake_body *b,
                                    struct MHD_Connection *conn, size_t bytes)
{
    if (bytes <= b->_held)
        return WH_INTAKE_GRANTED;
    size_t delta = bytes - b->_held;
    unsigned closed = 0;
    enum wh_intake_grant grant = WH_INTAKE_REFUSED;
    lock(in);
    if (b->_evicted) {
        grant = WH_INTAKE_EVICTED;
        goto out;
    }
    if (!b->_arriving) {
        b->_conn = conn;
        wh_conn_client_ip(conn, b->_ip, sizeof(b->_ip));
        link_body(in, b);
    }
    size_t cap = share();
    if (cap && in->arriving + delta > cap) {
        /* The share is full: only an address within its fair share goes on, and it makes room
         * by closing the others' stalled bodies. */
        if (ip_bytes(in, b->_ip) + delta > cap / addresses(in, b->_ip))
            goto out;
        while (in->arriving + delta > cap) {
            struct wh_intake_body *v = victim(in, b->_ip);
            if (!v)
                break;
            v->_evicted = true;
            unlink_body(in, v);
            wh_conn_guard_close_for_memory(in->guard, v->_conn);
            closed++;
        }
    }
    if (!wh_reqmem_take(delta))
        goto out;
    b->_held = bytes;
    b->_last_ns = wh_time_mono_ns();
    in->arriving += delta;
    ((struct addr *)wh_map_get(&in->per_ip, b->_ip))->bytes += delta;
    grant = WH_INTAKE_GRANTED;
out:
    if (grant == WH_INTAKE_REFUSED)
        unlink_body(in, b); /* it arrives no more: the caller discards the rest */
    unlock(in);
    if (closed)
        WH_LOG_EVERY(10, WH_LOG_WARN,
                     "request memory: closed %u stalled request bodies to make room for a "
                     "body from %s (bodies still arriving may hold half of "
                     "--max-request-memory; an address within its fair share is never "
                     "refused for others)",
                     closed, b->_ip);
    return grant;
}

void wh_intake_complete(struct wh_intake *in, struct wh_intake_body *b)
{
    if (!b->_arriving)
        return;
    lock(in);
    unlink_body(in, b);
    unlock(in);
}

void wh_intake_release(struct wh_intake *in, struct wh_intake_body *b)
{
    if (!b->_held && !b->_arriving)
        return;
    lock(in);
    unlink_body(in, b);
    unlock(in);
    wh_reqmem_give(b->_held);
    b->_held = 0;
}

size_t wh_intake_arriving(struct wh_intake *in)
{
    lock(in);
    size_t n = in->arriving;
    unlock(in);
    return n;
}
