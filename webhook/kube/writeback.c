/* Status write-back for admission handlers (kube/cluster.h wh_cluster_write_status): a
 * per-object lock, a base that is never older than this process's own last write, and the
 * read-modify-write loop of kube/rmw.c against the API server or the standalone state. */
#include "kube/cluster_int.h"

#include <stdio.h>
#include <string.h>

#include "kube/cache.h"
#include "util/arena.h"
#include "util/json.h"
#include "util/str.h"

/* Past this many remembered writes the memo starts over: it only saves a conflict round. */
#define MEMO_MAX 4096

void wh_writeback_init(struct wh_writeback *wb)
{
    for (int i = 0; i < WH_WRITEBACK_STRIPES; i++)
        pthread_mutex_init(&wb->stripes[i], NULL);
    pthread_mutex_init(&wb->memo_lock, NULL);
    wh_map_init(&wb->memo);
}

static void memo_clear(struct wh_writeback *wb)
{
    void *v;
    for (size_t it = 0; wh_map_next(&wb->memo, &it, NULL, &v);)
        json_decref(v);
    wh_map_fini(&wb->memo);
    wh_map_init(&wb->memo);
}

void wh_writeback_forget(struct wh_writeback *wb)
{
    pthread_mutex_lock(&wb->memo_lock);
    memo_clear(wb);
    pthread_mutex_unlock(&wb->memo_lock);
}

void wh_writeback_fini(struct wh_writeback *wb)
{
    memo_clear(wb);
    wh_map_fini(&wb->memo);
    for (int i = 0; i < WH_WRITEBACK_STRIPES; i++)
        pthread_mutex_destroy(&wb->stripes[i]);
    pthread_mutex_destroy(&wb->memo_lock);
}

static void object_key(enum wh_resource_id id, const char *ns, const char *name, char *buf,
                       size_t bufsz)
{
    snprintf(buf, bufsz, "%d/%s/%s", (int)id, ns ? ns : "", name);
}

static pthread_mutex_t *stripe(struct wh_writeback *wb, const char *key)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (const char *p = key; *p; p++)
        h = (h ^ (unsigned char)*p) * 16777619u;
    return &wb->stripes[h % WH_WRITEBACK_STRIPES];
}

json_t *wh_cluster_freshest(struct wh_cluster *cl, enum wh_resource_id id, const char *ns,
                            const char *name)
{
    char key[512];
    object_key(id, ns, name, key, sizeof(key));
    json_t *cached = NULL;
    struct wh_cache *c = wh_cluster_cache(cl, id);
    struct wh_object *o = c ? wh_cache_get(c, ns, name) : NULL;
    if (o)
        cached = json_incref((json_t *)(uintptr_t)wh_object_json(o));
    const char *cached_rv = o ? wh_object_resource_version(o) : NULL;

    struct wh_writeback *wb = &cl->writeback;
    json_t *mine = NULL;
    pthread_mutex_lock(&wb->memo_lock);
    json_t *m = wh_map_get(&wb->memo, key);
    if (m && wh_rmw_newer(wh_json_meta_str(m, "resourceVersion"), cached_rv)) {
        mine = json_incref(m);
    } else if (m && cached) {
        json_decref(wh_map_remove(&wb->memo, key)); /* the cache caught up */
    }
    pthread_mutex_unlock(&wb->memo_lock);
    wh_object_unref(o); /* cached holds its own reference to the parsed JSON */
    if (mine) {
        json_decref(cached);
        return mine;
    }
    return cached;
}

static void remember(struct wh_writeback *wb, const char *key, json_t *stored)
{
    pthread_mutex_lock(&wb->memo_lock);
    if (wh_map_size(&wb->memo) >= MEMO_MAX)
        memo_clear(wb);
    json_decref(wh_map_put(&wb->memo, key, json_incref(stored)));
    pthread_mutex_unlock(&wb->memo_lock);
}

struct io_arg {
    struct wh_cluster *cl;
    enum wh_resource_id id;
    const char *ns, *name;
};

static enum wh_err io_get(void *arg, json_t **out, struct wh_errbuf *eb)
{
    struct io_arg *a = arg;
    const struct wh_resource *r = wh_resource_get(a->id);
    return wh_cluster_get_live(a->cl, r->group, wh_cluster_version(a->cl, a->id), r->resource,
                               a->ns, a->name, out, eb);
}

static enum wh_err io_put(void *arg, const json_t *obj, bool create, json_t **stored,
                          struct wh_errbuf *eb)
{
    struct io_arg *a = arg;
    if (create)
        return wh_errbuf_set(eb, WH_ERR_NOT_FOUND, "%s \"%s\" not found",
                             wh_resource_get(a->id)->resource, a->name);
    return wh_cluster_update(a->cl, a->id, obj, true, stored, eb);
}

enum wh_err wh_cluster_write_status(struct wh_cluster *cl, enum wh_resource_id id, const char *ns,
                                    const char *name, wh_rmw_decide_fn decide, void *arg,
                                    const struct wh_writeback_opts *opts, struct wh_rmw_result *res,
                                    struct wh_errbuf *eb)
{
    /* What is kept here (the memo, the standalone store) outlives the request: everything
     * the write makes, the decision's values included, is ordinary memory. */
    wh_arena_pause();
    static const struct wh_writeback_opts defaults = {0};
    const struct wh_writeback_opts *o = opts ? opts : &defaults;
    struct wh_writeback *wb = &cl->writeback;
    char key[512];
    object_key(id, ns, name, key, sizeof(key));
    struct io_arg ia = {.cl = cl, .id = id, .ns = ns && ns[0] ? ns : NULL, .name = name};
    struct wh_rmw_io io = {.get = io_get, .put = io_put, .arg = &ia};
    struct wh_rmw_result local = {0};
    struct wh_rmw_result *r = res ? res : &local;

    pthread_mutex_t *lock = stripe(wb, key);
    pthread_mutex_lock(lock);
    json_t *base = wh_cluster_freshest(cl, id, ns, name);
    struct wh_rmw_opts ro = {
        .base = base,
        .confirm_unchanged = true,
        .dry_run = o->dry_run,
        .max_attempts = o->max_attempts,
        .backoff_ms = o->backoff_ms,
    };
    enum wh_err rc = wh_rmw_run(&io, &ro, decide, arg, r, eb);
    if (rc == WH_OK && r->stored)
        remember(wb, key, r->stored);
    pthread_mutex_unlock(lock);
    json_decref(base);
    if (r == &local)
        wh_rmw_result_fini(&local);
    wh_arena_resume();
    return rc;
}
