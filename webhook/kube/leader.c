#include "kube/leader.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/rand.h>

#include "kube/lease.h"
#include "log/log.h"
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

static bool same_record(const struct wh_lease_record *a,
                        const struct wh_lease_record *b)
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

/* Sends rec (create when it has no resourceVersion). *won is false on a lost race. */
static enum wh_err write_record(struct wh_leader *l, struct wh_lease_record *rec,
                                bool *won, struct wh_errbuf *eb)
{
    char path[512];
    struct wh_kube_status st = {0};
    json_t *obj = wh_lease_object(l->ns, l->name, rec, NULL, NULL), *stored = NULL;
    bool create = rec->resource_version[0] == '\0';
    enum wh_err rc = wh_lease_path(path, sizeof(path), l->ns, create ? NULL : l->name);
    if (!rc)
        rc = create ? wh_kube_create(l->client, path, obj, &stored, &st)
                    : wh_kube_update(l->client, path, obj, &stored, &st);
    json_decref(obj);
    *won = false;
    if (rc == WH_ERR_CONFLICT) {
        rc = WH_OK;
    } else if (rc) {
        wh_errbuf_set(eb, rc, "%s Lease %s/%s: %d %s", create ? "create" : "update", l->ns, l->name,
                      st.code, st.message[0] ? st.message : wh_strerror(rc));
    } else {
        wh_lease_parse(stored, &l->observed);
        l->have_observed = true;
        l->observed_mono_ns = wh_time_mono_ns();
        *won = true;
    }
    if (*won) {
        atomic_store(&l->last_renew_mono_ns, l->observed_mono_ns);
        set_leading(l, true);
    }
    json_decref(stored);
    return rc;
}

enum wh_err wh_leader_step(struct wh_leader *l, bool *leading, struct wh_errbuf *eb)
{
    char path[512];
    json_t *obj = NULL;
    struct wh_kube_status st = {0};
    struct wh_lease_record rec;
    int64_t mono = wh_time_mono_ns();
    char now[40];
    wh_lease_microtime(wh_time_wall_ns(), now, sizeof(now));

    *leading = false;
    enum wh_err rc = wh_lease_path(path, sizeof(path), l->ns, l->name);
    if (!rc)
        rc = wh_kube_get(l->client, path, &obj, &st);
    if (rc == WH_ERR_NOT_FOUND) {
        memset(&rec, 0, sizeof(rec));
        snprintf(rec.holder, sizeof(rec.holder), "%s", l->identity);
        rec.duration_s = lease_secs(l);
        snprintf(rec.acquire_time, sizeof(rec.acquire_time), "%s", now);
        snprintf(rec.renew_time, sizeof(rec.renew_time), "%s", now);
        return write_record(l, &rec, leading, eb);
    }
    if (rc)
        return wh_errbuf_set(eb, rc, "get Lease %s/%s: %d %s", l->ns, l->name, st.code,
                             st.message[0] ? st.message : wh_strerror(rc));
    wh_lease_parse(obj, &rec);
    json_decref(obj);

    if (!l->have_observed || !same_record(&rec, &l->observed)) {
        l->observed = rec;
        l->have_observed = true;
        l->observed_mono_ns = mono;
    } else {
        /* Same record: keep the time we first saw it, but follow the resourceVersion. */
        memcpy(l->observed.resource_version, rec.resource_version, sizeof(rec.resource_version));
    }
    bool mine = strcmp(rec.holder, l->identity) == 0;
    int64_t dur_ms = rec.duration_s > 0 ? rec.duration_s * 1000 : l->lease_ms;
    if (rec.holder[0] && !mine && l->observed_mono_ns + dur_ms * 1000000 > mono)
        return WH_OK; /* held by someone else, and alive as far as we can tell */

    struct wh_lease_record next = rec;
    snprintf(next.holder, sizeof(next.holder), "%s", l->identity);
    next.duration_s = lease_secs(l);
    snprintf(next.renew_time, sizeof(next.renew_time), "%s", now);
    if (!mine) {
        snprintf(next.acquire_time, sizeof(next.acquire_time), "%s", now);
        next.transitions = rec.transitions + 1;
    }
    return write_record(l, &next, leading, eb);
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
        if (!atomic_load(&l->leading)) {
            unsigned char r = 0;
            if (RAND_bytes(&r, 1) == 1)
                pause += pause * r / 255 / 5;
        }
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

/* Hands the Lease over at once instead of letting it expire. */
static void release(struct wh_leader *l)
{
    char path[512];
    json_t *obj = NULL;
    struct wh_kube_status st = {0};
    struct wh_lease_record rec;
    if (wh_lease_path(path, sizeof(path), l->ns, l->name) ||
        wh_kube_get(l->client, path, &obj, &st))
        return;
    wh_lease_parse(obj, &rec);
    json_decref(obj);
    if (strcmp(rec.holder, l->identity) != 0)
        return;
    char now[40];
    wh_lease_microtime(wh_time_wall_ns(), now, sizeof(now));
    rec.holder[0] = '\0';
    rec.duration_s = 1;
    snprintf(rec.acquire_time, sizeof(rec.acquire_time), "%s", now);
    snprintf(rec.renew_time, sizeof(rec.renew_time), "%s", now);
    obj = wh_lease_object(l->ns, l->name, &rec, NULL, NULL);
    if (wh_kube_update(l->client, path, obj, NULL, &st) == WH_OK)
        wh_log(WH_LOG_INFO, "released Lease %s/%s", l->ns, l->name);
    json_decref(obj);
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
