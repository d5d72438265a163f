#include "server/pace.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

#include "util/mem.h"
#include "util/time.h"

enum { NOT_PACED, WAITING, READING };

/* One worker thread: the bytes of the large bodies it reads now, and the bodies waiting for
 * them to come in, oldest first. */
struct wh_pace_lane {
    pthread_t thread;
    size_t reading;
    struct wh_pace_body *head, *tail;
};

struct wh_pace {
    size_t per_thread;
    pthread_mutex_t mu;
    pthread_cond_t cv; /* a body began to wait, or the pacer is to stop */
    struct wh_pace_lane **lanes;
    size_t nlanes;
    size_t waiting;
    unsigned long long waited; /* bodies that ever waited */
    bool stopped; /* wh_pace_stop: nothing waits any more */
    bool quit;    /* the pacer thread ends */
    pthread_t pacer;
};

static void lock(struct wh_pace *p)
{
    if (pthread_mutex_lock(&p->mu))
        WH_PANIC("pthread_mutex_lock failed");
}

static void unlock(struct wh_pace *p)
{
    if (pthread_mutex_unlock(&p->mu))
        WH_PANIC("pthread_mutex_unlock failed");
}

/* The calling worker's lane, made on its first large body. The caller holds the lock. */
static struct wh_pace_lane *my_lane(struct wh_pace *p)
{
    pthread_t self = pthread_self();
    for (size_t i = 0; i < p->nlanes; i++) {
        if (pthread_equal(p->lanes[i]->thread, self))
            return p->lanes[i];
    }
    p->lanes = wh_xrealloc(p->lanes, (p->nlanes + 1) * sizeof(*p->lanes));
    struct wh_pace_lane *lane = wh_xcalloc(1, sizeof(*lane));
    lane->thread = self;
    p->lanes[p->nlanes++] = lane;
    return lane;
}

static void start_reading(struct wh_pace_lane *lane, struct wh_pace_body *b)
{
    b->_state = READING;
    b->_lane = lane;
    lane->reading += b->_cost;
}

/* Whether b may start now beside what its lane reads. */
static bool fits(const struct wh_pace *p, const struct wh_pace_lane *lane,
                 const struct wh_pace_body *b)
{
    return lane->reading == 0 || lane->reading + b->_cost <= p->per_thread;
}

/* Lets the lane's waiting bodies go while they fit, and those that waited their longest
 * (now_ns < 0: all of them). The caller holds the lock. */
static void let_go(struct wh_pace *p, struct wh_pace_lane *lane, int64_t now_ns)
{
    while (lane->head) {
        struct wh_pace_body *b = lane->head;
        bool overdue = now_ns < 0 || now_ns - b->_since_ns >= WH_PACE_MAX_WAIT_MS * 1000000LL;
        if (!overdue && !fits(p, lane, b))
            break;
        lane->head = b->_next;
        if (!lane->head)
            lane->tail = NULL;
        b->_next = NULL;
        p->waiting--;
        start_reading(lane, b);
        /* libmicrohttpd's mutex is taken under ours, never the other way round: it calls no
         * handler of ours while it holds it. */
        MHD_resume_connection(b->_conn);
    }
}

static void *pacer_main(void *arg)
{
    struct wh_pace *p = arg;
    lock(p);
    while (!p->quit) {
        if (!p->waiting) {
            pthread_cond_wait(&p->cv, &p->mu);
            continue;
        }
        /* The oldest waiting body is at the head of some lane: wake when it is due. */
        int64_t due = INT64_MAX;
        for (size_t i = 0; i < p->nlanes; i++) {
            const struct wh_pace_body *b = p->lanes[i]->head;
            if (b && b->_since_ns + WH_PACE_MAX_WAIT_MS * 1000000LL < due)
                due = b->_since_ns + WH_PACE_MAX_WAIT_MS * 1000000LL;
        }
        if (due > wh_time_mono_ns()) {
            struct timespec ts = {.tv_sec = (time_t)(due / 1000000000),
                                  .tv_nsec = (long)(due % 1000000000)};
            pthread_cond_timedwait(&p->cv, &p->mu, &ts);
        }
        int64_t now = wh_time_mono_ns();
        for (size_t i = 0; i < p->nlanes; i++)
            let_go(p, p->lanes[i], now);
    }
    unlock(p);
    return NULL;
}

enum wh_err wh_pace_new(size_t per_thread, struct wh_pace **out)
{
    struct wh_pace *p = wh_xcalloc(1, sizeof(*p));
    p->per_thread = per_thread;
    pthread_mutex_init(&p->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC); /* the clock of wh_time_mono_ns */
    pthread_cond_init(&p->cv, &ca);
    pthread_condattr_destroy(&ca);
    if (per_thread && pthread_create(&p->pacer, NULL, pacer_main, p) != 0) {
        pthread_cond_destroy(&p->cv);
        pthread_mutex_destroy(&p->mu);
        free(p);
        return WH_ERR_NOMEM;
    }
    *out = p;
    return WH_OK;
}

void wh_pace_free(struct wh_pace *p)
{
    if (!p)
        return;
    if (p->per_thread) {
        lock(p);
        p->quit = true;
        pthread_cond_signal(&p->cv);
        unlock(p);
        pthread_join(p->pacer, NULL);
    }
    WH_ASSERT(p->waiting == 0);
    for (size_t i = 0; i < p->nlanes; i++)
        free(p->lanes[i]);
    free(p->lanes);
    pthread_cond_destroy(&p->cv);
    pthread_mutex_destroy(&p->mu);
    free(p);
}

void wh_pace_stop(struct wh_pace *p)
{
    if (!p)
        return;
    lock(p);
    p->stopped = true;
    for (size_t i = 0; i < p->nlanes; i++)
        let_go(p, p->lanes[i], -1);
    unlock(p);
}

bool wh_pace_turn(struct wh_pace *p, struct wh_pace_body *b, struct MHD_Connection *conn,
                  size_t length)
{
    /* Set to READING on this thread, or by another before it resumed this connection. */
    if (!p->per_thread || b->_state == READING)
        return true;
    bool go = true;
    lock(p);
    if (b->_state == NOT_PACED && !p->stopped) {
        struct wh_pace_lane *lane = my_lane(p);
        b->_conn = conn;
        b->_cost = length;
        if (!lane->head && fits(p, lane, b)) {
            start_reading(lane, b);
        } else {
            b->_state = WAITING;
            b->_lane = lane;
            b->_since_ns = wh_time_mono_ns();
            if (lane->tail)
                lane->tail->_next = b;
            else
                lane->head = b;
            lane->tail = b;
            p->waiting++;
            p->waited++;
            /* Suspended under our lock, so that no one resumes it before. */
            MHD_suspend_connection(conn);
            pthread_cond_signal(&p->cv);
            go = false;
        }
    } else if (b->_state == NOT_PACED) {
        b->_state = READING; /* stopped: counted nowhere */
        b->_cost = 0;
    }
    unlock(p);
    return go;
}

void wh_pace_done(struct wh_pace *p, struct wh_pace_body *b)
{
    if (!p || b->_state == NOT_PACED)
        return;
    lock(p);
    struct wh_pace_lane *lane = b->_lane;
    if (b->_state == WAITING) {
        /* Its connection ended while it waited (the server stopping). */
        struct wh_pace_body **at = &lane->head, *prev = NULL;
        while (*at && *at != b) {
            prev = *at;
            at = &(*at)->_next;
        }
        if (*at) {
            *at = b->_next;
            if (lane->tail == b)
                lane->tail = prev;
            p->waiting--;
        }
    } else if (lane) {
        lane->reading -= b->_cost;
        let_go(p, lane, wh_time_mono_ns());
    }
    b->_state = NOT_PACED;
    b->_cost = 0;
    b->_lane = NULL;
    b->_next = NULL;
    unlock(p);
}

size_t wh_pace_waiting(struct wh_pace *p)
{
    lock(p);
    size_t n = p->waiting;
    unlock(p);
    return n;
}

unsigned long long wh_pace_waited(struct wh_pace *p)
{
    lock(p);
    unsigned long long n = p->waited;
    unlock(p);
    return n;
}
