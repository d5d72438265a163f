#include "kube/informer.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log/log.h"
#include "util/backoff.h"
#include "metrics/metrics.h"
#include "util/json.h"
#include "util/mem.h"
#include "util/time.h"

struct wh_informer {
    struct wh_kube_client *client;
    struct wh_cache *cache;
    struct wh_informer_opts opts;
    char *label_selector, *field_selector;
    char path[512];
    char what[160]; /* "pods" or "sidecarsets.apps.kruise.io", for logs */
    char *rv;       /* last resourceVersion seen */
    pthread_t thread;
    bool started;
    atomic_bool stop;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct wh_metric *m_relists, *m_watches, *m_errors, *m_objects, *m_rv, *m_synced;
};

static char *dup_or_null(const char *s)
{
    return s && s[0] ? wh_xstrdup(s) : NULL;
}

/* Sleeps ms, waking early when the informer is stopped. Returns false when stopped. */
static bool pause_ms(struct wh_informer *inf, long ms)
{
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += ms / 1000;
    deadline.tv_nsec += (ms % 1000) * 1000000;
    if (deadline.tv_nsec >= 1000000000) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000;
    }
    pthread_mutex_lock(&inf->mu);
    while (!atomic_load(&inf->stop)) {
        if (pthread_cond_timedwait(&inf->cv, &inf->mu, &deadline) != 0)
            break;
    }
    pthread_mutex_unlock(&inf->mu);
    return !atomic_load(&inf->stop);
}

/* Exponential backoff with jitter: 0.5 s, 1 s, 2 s, ... up to backoff_max_ms (informer.h). */
static long backoff(struct wh_informer *inf, int attempt)
{
    struct wh_backoff b = {.first_ms = 500, .max_ms = inf->opts.backoff_max_ms, .jitter_pct = 50,
                           ._n = attempt};
    return (long)wh_backoff_next(&b);
}

static void set_rv(struct wh_informer *inf, const char *rv)
{
    if (!rv || !rv[0])
        return;
    free(inf->rv);
    inf->rv = wh_xstrdup(rv);
    /* resourceVersions are opaque, but etcd's are integers: exported when they parse, so a
     * test (or an operator) can tell how far this cache has caught up. */
    char *end = NULL;
    double n = strtod(rv, &end);
    if (end && *end == '\0')
        wh_metric_set(inf->m_rv, n);
}

static enum wh_err collect(void *arg, json_t *item)
{
    json_array_append(arg, item);
    return WH_OK;
}

static enum wh_err relist(struct wh_informer *inf)
{
    json_t *items = json_array();
    char *rv = NULL;
    struct wh_kube_status st = {0};
    enum wh_err rc =
        wh_kube_list_all(inf->client, inf->path, inf->label_selector, inf->field_selector,
                         inf->opts.page_size, collect, items, &rv, &st);
    if (rc) {
        json_decref(items);
        free(rv);
        WH_LOG_EVERY(30, WH_LOG_WARN, "informer %s: list failed: %s (%d %s)", inf->what,
                     wh_strerror(rc), st.code, st.message);
        return rc;
    }
    size_t n = json_array_size(items);
    wh_cache_replace_all_new(inf->cache, items);
    set_rv(inf, rv);
    free(rv);
    wh_metric_add(inf->m_relists, 1);
    wh_metric_set(inf->m_objects, (double)wh_cache_size(inf->cache));
    if (!wh_cache_synced(inf->cache))
        wh_log(WH_LOG_INFO, "informer %s: synced %zu objects at resourceVersion %s", inf->what,
               n, inf->rv ? inf->rv : "");
    wh_cache_set_synced(inf->cache, true);
    wh_metric_set(inf->m_synced, 1);
    return WH_OK;
}

static enum wh_err on_event(void *arg, const char *type, json_t *object)
{
    struct wh_informer *inf = arg;
    const char *rv = wh_json_meta_str(object, "resourceVersion");
    if (strcmp(type, "ADDED") == 0 || strcmp(type, "MODIFIED") == 0) {
        if (wh_cache_upsert_new(inf->cache, json_incref(object)))
            wh_log(WH_LOG_WARN, "informer %s: ignored an event object without a name",
                   inf->what);
    } else if (strcmp(type, "DELETED") == 0) {
        const char *name = wh_json_meta_str(object, "name");
        if (name)
            wh_cache_delete(inf->cache, wh_json_meta_str(object, "namespace"), name);
    } else if (strcmp(type, "ERROR") == 0) {
        return WH_OK; /* the client ends the watch with the Status's code (410: relist) */
    } else if (strcmp(type, "BOOKMARK") != 0) {
        wh_log(WH_LOG_WARN, "informer %s: unexpected watch event %s", inf->what, type);
        return WH_OK;
    }
    set_rv(inf, rv);
    wh_metric_set(inf->m_objects, (double)wh_cache_size(inf->cache));
    return WH_OK;
}

/* *accepted: the API server answered 200 and the stream began (however it ended). */
static enum wh_err watch(struct wh_informer *inf, bool *accepted)
{
    long timeout = inf->opts.watch_timeout_seconds;
    if (timeout <= 0)
        timeout = 300 + (long)(wh_rand64() % 300);
    struct wh_kube_watch_opts wo = {
        .resource_version = inf->rv,
        .bookmarks = true,
        .timeout_seconds = timeout,
        .label_selector = inf->label_selector,
        .field_selector = inf->field_selector,
        .stop = &inf->stop,
    };
    struct wh_kube_status st = {0};
    wh_metric_add(inf->m_watches, 1);
    enum wh_err rc = wh_kube_watch(inf->client, inf->path, &wo, on_event, inf, &st);
    *accepted = st.code == 200;
    if (rc && rc != WH_ERR_GONE && !atomic_load(&inf->stop))
        WH_LOG_EVERY(30, WH_LOG_WARN, "informer %s: watch failed: %s (%d %s)", inf->what,
                     wh_strerror(rc), st.code, st.message);
    return rc;
}

static void *informer_main(void *arg)
{
    struct wh_informer *inf = arg;
    int failures = 0;
    bool need_list = true;
    while (!atomic_load(&inf->stop)) {
        enum wh_err rc;
        if (need_list) {
            rc = relist(inf);
            if (rc) {
                wh_metric_add(inf->m_errors, 1);
                if (!pause_ms(inf, backoff(inf, failures++)))
                    break;
                continue;
            }
            need_list = false;
            failures = 0;
        }
        bool accepted = false;
        rc = watch(inf, &accepted);
        if (atomic_load(&inf->stop))
            break;
        if (accepted)
            failures = 0; /* the API server is back: the next failure starts the backoff over */
        if (rc == WH_ERR_GONE) {
            /* Our resourceVersion is older than the API server keeps: start over. */
            wh_log(WH_LOG_INFO, "informer %s: resourceVersion %s expired, relisting", inf->what,
                   inf->rv ? inf->rv : "");
            need_list = true;
        } else if (rc) {
            wh_metric_add(inf->m_errors, 1);
            if (!pause_ms(inf, backoff(inf, failures++)))
                break;
        } else {
            failures = 0; /* the stream ended normally: resume from the last resourceVersion */
        }
    }
    return NULL;
}

enum wh_err wh_informer_start(struct wh_kube_client *client, struct wh_cache *cache,
                              const struct wh_informer_opts *opts, struct wh_informer **out)
{
    struct wh_informer *inf = wh_xcalloc(1, sizeof(*inf));
    inf->client = client;
    inf->cache = cache;
    inf->opts = *opts;
    if (inf->opts.page_size <= 0)
        inf->opts.page_size = 500;
    if (inf->opts.backoff_max_ms <= 0)
        inf->opts.backoff_max_ms = 1000;
    inf->label_selector = dup_or_null(opts->label_selector);
    inf->field_selector = dup_or_null(opts->field_selector);
    atomic_init(&inf->stop, false);
    pthread_mutex_init(&inf->mu, NULL);
    pthread_cond_init(&inf->cv, NULL);
    enum wh_err rc = wh_kube_path(inf->path, sizeof(inf->path), opts->group, opts->version,
                                  opts->resource, opts->ns, NULL, NULL);
    if (rc) {
        wh_informer_stop(inf);
        return rc;
    }
    snprintf(inf->what, sizeof(inf->what), "%s%s%s", opts->resource, opts->group[0] ? "." : "",
             opts->group);
    char labels[256];
    wh_metrics_labels(labels, sizeof(labels), "resource", inf->what, NULL);
    inf->m_relists = wh_metrics_counter("kruise_webhook_informer_lists_total",
                                        "Complete lists (initial and relists) per cache.", labels);
    inf->m_watches = wh_metrics_counter("kruise_webhook_informer_watches_total",
                                        "Watch streams opened per cache.", labels);
    inf->m_errors = wh_metrics_counter("kruise_webhook_informer_errors_total",
                                       "Failed lists and watches per cache.", labels);
    inf->m_objects = wh_metrics_gauge("kruise_webhook_cache_objects", "Objects held per cache.",
                                      labels);
    inf->m_rv = wh_metrics_gauge("kruise_webhook_informer_resource_version",
                                 "The last resourceVersion each cache has seen (when numeric).",
                                 labels);
    /* 0 until the first complete list: /readyz is 503 meanwhile, and an alert says which. */
    inf->m_synced = wh_metrics_gauge("kruise_webhook_cache_synced",
                                     "1 once the cache holds a complete list.", labels);
    if (pthread_create(&inf->thread, NULL, informer_main, inf) != 0) {
        wh_informer_stop(inf);
        return WH_ERR_INTERNAL;
    }
    inf->started = true;
    *out = inf;
    return WH_OK;
}

void wh_informer_signal(struct wh_informer *inf)
{
    if (!inf || !inf->started)
        return;
    pthread_mutex_lock(&inf->mu);
    atomic_store(&inf->stop, true);
    pthread_cond_broadcast(&inf->cv);
    pthread_mutex_unlock(&inf->mu);
}

void wh_informer_stop(struct wh_informer *inf)
{
    if (!inf)
        return;
    if (inf->started) {
        wh_informer_signal(inf);
        pthread_join(inf->thread, NULL);
    }
    pthread_mutex_destroy(&inf->mu);
    pthread_cond_destroy(&inf->cv);
    free(inf->label_selector);
    free(inf->field_selector);
    free(inf->rv);
    free(inf);
}
