#include "kube/leader.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "kube/lease.h"
#include "kube/rmw.h"
#include "log/log.h"
#include "util/backoff.h"
#include "util/json.h"
#include "util/mem.h"
#include "util/time.h"

struct wh_leader {
    struct wh_kube_client *client;
    char *ns, *name, *identity;
    int64_t lease_ms, renew_deadline_ms, retry_ms;
    void (*on_change)(void *arg, bool leading);
    void *arg;

    atomic_bool leading;
    _Atomic int64_t last_renew_mono_ns;

    /* What we last saw in the Lease and when it last changed, on our clock: expiry is judged
     * from this, never from the timestamps other nodes wrote. Election thread only. */
    struct wh_lease_record observed;
    bool have_observed;
    int64_t observed_mono_ns;

    pthread_t thread;
    bool started;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool stop;
};

enum wh_err wh_leader_new(struct wh_kube_client *client, const struct wh_leader_opts *o,
                          struct wh_leader **out, struct wh_errbuf *eb)
{
    if (!o->ns || !*o->ns || !o->name || !*o->name || !o->identity || !*o->identity)
        return wh_errbuf_set(eb, WH_ERR_INVALID,
                             "leader election needs a namespace, a Lease "
                             "name and an identity");
    if (!(o->retry_period_ms > 0 && o->retry_period_ms < o->renew_deadline_ms &&
          o->renew_deadline_ms < o->lease_duration_ms))
        return wh_errbuf_set(eb, WH_ERR_INVALID,
                             "leader election: want retry period < renew deadline < lease "
                             "duration (got %lld ms, %lld ms, %lld ms)",
                             (long long)o->retry_period_ms, (long long)o->renew_deadline_ms,
                             (long long)o->lease_duration_ms);
    struct wh_leader *l = wh_xcalloc(1, sizeof(*l));
    l->client = client;
    l->ns = wh_xstrdup(o->ns);
    l->name = wh_xstrdup(o->name);
    l->identity = wh_xstrdup(o->identity);
    l->lease_ms = o->lease_duration_ms;
    l->renew_deadline_ms = o->renew_deadline_ms;
    l->retry_ms = o->retry_period_ms;
    l->on_change = o->on_change;
    l->arg = o->arg;
    pthread_mutex_init(&l->mu, NULL);
    pthread_cond_init(&l->cv, NULL);
    *out = l;
    return WH_OK;
}

const char *wh_leader_identity(const struct wh_leader *l)
{
    return l->identity;
}

bool wh_leader_is_leader(const struct wh_leader *l)
{
    if (!atomic_load(&l->leading))
        return false;
    int64_t age = wh_time_mono_ns() - atomic_load(&l->last_renew_mono_ns);
    return age < l->renew_deadline_ms * 1000000;
}

static long long lease_secs(const struct wh_leader *l)
{
    return (l->lease_ms + 999) / 1000;
}

static bool same_record(const struct wh_lease_record *a, const struct wh_lease_record *b)
{
    return strcmp(a->holder, b->holder) == 0 && strcmp(a->renew_time, b->renew_time) == 0 &&
           strcmp(a->acquire_time, b->acquire_time) == 0 && a->transitions == b->transitions &&
           a->duration_s == b->duration_s;
}

static void set_leading(struct wh_leader *l, bool leading)
{
    if (atomic_exchange(&l->leading, leading) == leading)
        return;
    wh_log(WH_LOG_INFO, "%s leadership of Lease %s/%s as %s", leading ? "acquired" : "lost", l->ns,
           l->name, l->identity);
    if (l->on_change)
        l->on_change(l->arg, leading);
}

/* The election's decision on the Lease as it is now (kube/rmw.h): take it when it is absent,
 * ours, or has not changed for its duration as measured on our clock; else leave it. */
static enum wh_err decide_step(void *arg, const json_t *current, json_t **desired,
                               struct wh_errbuf *eb)
{
    (void)eb;
    struct wh_leader *l = arg;
    int64_t mono = wh_time_mono_ns();
    char now[40];
    wh_lease_microtime(wh_time_wall_ns(), now, sizeof(now));
    struct wh_lease_record rec, next;
    memset(&rec, 0, sizeof(rec));
    if (current) {
        wh_lease_parse(current, &rec);
        if (!l->have_observed || !same_record(&rec, &l->observed)) {
            l->observed = rec;
            l->have_observed = true;
            l->observed_mono_ns = mono;
        } else {
            /* Same record: keep the time we first saw it, but follow the resourceVersion. */
            memcpy(l->observed.resource_version, rec.resource_version,
                   sizeof(rec.resource_version));
        }
    }
    bool mine = strcmp(rec.holder, l->identity) == 0;
    int64_t dur_ms = rec.duration_s > 0 ? rec.duration_s * 1000 : l->lease_ms;
    if (current && rec.holder[0] && !mine && l->observed_mono_ns + dur_ms * 1000000 > mono)
        return WH_OK; /* held by someone else, and alive as far as we can tell */
    next = rec;
    snprintf(next.holder, sizeof(next.holder), "%s", l->identity);
    next.duration_s = lease_secs(l);
    snprintf(next.renew_time, sizeof(next.renew_time), "%s", now);
    if (!mine) {
        snprintf(next.acquire_time, sizeof(next.acquire_time), "%s", now);
        next.transitions = current ? rec.transitions + 1 : 0;
    }
    *desired = wh_lease_object(l->ns, l->name, &next, NULL, NULL);
    return WH_OK;
}

enum wh_err wh_leader_step(struct wh_leader *l, bool *leading, struct wh_errbuf *eb)
{
    char path[512], collection[512];
    *leading = false;
    enum wh_err rc = wh_lease_path(path, sizeof(path), l->ns, l->name);
    if (!rc)
        rc = wh_lease_path(collection, sizeof(collection), l->ns, NULL);
    if (rc)
        return wh_errbuf_set(eb, rc, "bad Lease name %s/%s", l->ns, l->name);
    struct wh_rmw_kube k = {.client = l->client, .path = path, .collection_path = collection};
    struct wh_rmw_io io;
    wh_rmw_kube_io(&k, &io);
    /* One write per round: a conflict means another candidate won this round. */
    struct wh_rmw_opts o = {.create = true, .max_attempts = 1};
    struct wh_rmw_result res;
    rc = wh_rmw_run(&io, &o, decide_step, l, &res, eb);
    if (rc == WH_ERR_CONFLICT)
        rc = WH_OK;
    if (rc == WH_OK && res.stored) {
        wh_lease_parse(res.stored, &l->observed);
        l->have_observed = true;
        l->observed_mono_ns = wh_time_mono_ns();
        atomic_store(&l->last_renew_mono_ns, l->observed_mono_ns);
        set_leading(l, true);
        *leading = true;
    }
    wh_rmw_result_fini(&res);
    return rc;
}

/* Waits ms, or less when stopped. Returns true when stopped. */
static bool wait_ms(struct wh_leader *l, int64_t ms)
{
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += (time_t)(ms / 1000);
    deadline.tv_nsec += (long)(ms % 1000) * 1000000;
    if (deadline.tv_nsec >= 1000000000) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000;
    }
    pthread_mutex_lock(&l->mu);
    while (!l->stop && pthread_cond_timedwait(&l->cv, &l->mu, &deadline) == 0)
        ;
    bool stop = l->stop;
    pthread_mutex_unlock(&l->mu);
    return stop;
}

static void *election_main(void *arg)
{
    struct wh_leader *l = arg;
    do {
        struct wh_errbuf eb = {{0}};
        bool won = false;
        if (wh_leader_step(l, &won, &eb))
            WH_LOG_EVERY(30, WH_LOG_WARN, "leader election: %s", eb.msg);
        int64_t mono = wh_time_mono_ns();
        if (!won && atomic_load(&l->leading) &&
            mono - atomic_load(&l->last_renew_mono_ns) >= l->renew_deadline_ms * 1000000) {
            set_leading(l, false);
        }
        /* Candidates retry with client-go's jitter (up to +20%) so they do not move in step. */
        int64_t pause = l->retry_ms;
        if (!atomic_load(&l->leading))
            pause += pause * (int64_t)(wh_rand64() % 21) / 100;
        if (wait_ms(l, pause))
            break;
    } while (true);
    return NULL;
}

enum wh_err wh_leader_start(struct wh_leader *l)
{
    WH_ASSERT(!l->started);
    if (pthread_create(&l->thread, NULL, election_main, l) != 0)
        return WH_ERR_INTERNAL;
    l->started = true;
    return WH_OK;
}

/* Empties the holder of a Lease we hold, so a successor need not wait for it to expire. */
static enum wh_err decide_release(void *arg, const json_t *current, json_t **desired,
                                  struct wh_errbuf *eb)
{
    (void)eb;
    struct wh_leader *l = arg;
    struct wh_lease_record rec;
    wh_lease_parse(current, &rec);
    if (strcmp(rec.holder, l->identity) != 0)
        return WH_OK;
    char now[40];
    wh_lease_microtime(wh_time_wall_ns(), now, sizeof(now));
    rec.holder[0] = '\0';
    rec.duration_s = 1;
    snprintf(rec.acquire_time, sizeof(rec.acquire_time), "%s", now);
    snprintf(rec.renew_time, sizeof(rec.renew_time), "%s", now);
    *desired = wh_lease_object(l->ns, l->name, &rec, NULL, NULL);
    return WH_OK;
}

/* Hands the Lease over at once instead of letting it expire. */
static void release(struct wh_leader *l)
{
    char path[512];
    if (wh_lease_path(path, sizeof(path), l->ns, l->name))
        return;
    struct wh_rmw_kube k = {.client = l->client, .path = path};
    struct wh_rmw_io io;
    wh_rmw_kube_io(&k, &io);
    struct wh_rmw_opts o = {.max_attempts = 1};
    struct wh_rmw_result res;
    if (wh_rmw_run(&io, &o, decide_release, l, &res, NULL) == WH_OK && res.stored)
        wh_log(WH_LOG_INFO, "released Lease %s/%s", l->ns, l->name);
    wh_rmw_result_fini(&res);
}

void wh_leader_free(struct wh_leader *l)
{
    if (!l)
        return;
    if (l->started) {
        pthread_mutex_lock(&l->mu);
        l->stop = true;
        pthread_cond_broadcast(&l->cv);
        pthread_mutex_unlock(&l->mu);
        pthread_join(l->thread, NULL);
    }
    if (atomic_load(&l->leading)) {
        atomic_store(&l->leading, false);
        release(l);
    }
    pthread_mutex_destroy(&l->mu);
    pthread_cond_destroy(&l->cv);
    free(l->ns);
    free(l->name);
    free(l->identity);
    free(l);
}
