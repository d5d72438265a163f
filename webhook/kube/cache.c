#include "kube/cache.h"

#include <pthread.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "log/log.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/json.h"
#include "util/jsonparse.h"
#include "util/map.h"
#include "util/mem.h"

#define MAX_INDEXES 4
#define MAX_LISTENERS 8

struct wh_object {
    _Atomic long refs;
    const char *ns, *name, *rv; /* point into strings */
    char *text;
    size_t text_len;
    _Atomic(json_t *) parsed;
    void *view;
    wh_view_free_fn view_free;
    /* The keys each index emitted, computed once before publishing: for index 0, 1, ... a run
     * of NUL-terminated keys ended by an empty string. Removal needs no re-parse. */
    char *ikeys;
    char strings[]; /* ns\0name\0rv\0 */
};

/* The objects one index key maps to, kept sorted by namespace then name. Borrowed pointers:
 * the primary map holds the references. */
struct bucket {
    struct wh_object **items;
    size_t n, cap;
};

struct index {
    struct wh_map keys; /* key -> struct bucket * */
};

/* Everything the lock guards; a relist builds a fresh one and swaps it in. */
struct contents {
    struct wh_map objects; /* "ns/name" -> struct wh_object * (one reference) */
    struct index indexes[MAX_INDEXES];
};

struct listener {
    wh_cache_change_fn fn;
    void *arg;
};

struct wh_cache {
    enum wh_resource_id id;
    pthread_rwlock_t lock;
    struct contents *contents;
    size_t nindexes;
    const char *index_names[MAX_INDEXES];
    wh_index_fn index_fns[MAX_INDEXES];
    wh_view_new_fn view_new;
    wh_view_free_fn view_free;
    struct listener listeners[MAX_LISTENERS];
    size_t nlisteners;
    atomic_bool synced;
    _Atomic uint64_t generation;
};

/* Lock helpers abort on failure: a broken lock is a programming error. */
static void rdlock(struct wh_cache *c)
{
    if (pthread_rwlock_rdlock(&c->lock))
        WH_PANIC("pthread_rwlock_rdlock failed");
}

static void wrlock(struct wh_cache *c)
{
    if (pthread_rwlock_wrlock(&c->lock))
        WH_PANIC("pthread_rwlock_wrlock failed");
}

static void unlock(struct wh_cache *c)
{
    if (pthread_rwlock_unlock(&c->lock))
        WH_PANIC("pthread_rwlock_unlock failed");
}

/* --- objects ----------------------------------------------------------------------------- */

const char *wh_object_namespace(const struct wh_object *o)
{
    return o->ns;
}

const char *wh_object_name(const struct wh_object *o)
{
    return o->name;
}

const char *wh_object_resource_version(const struct wh_object *o)
{
    return o->rv;
}

const char *wh_object_text(const struct wh_object *o, size_t *len)
{
    if (len)
        *len = o->text_len;
    return o->text;
}

const void *wh_object_view(const struct wh_object *o)
{
    return o->view;
}

const json_t *wh_object_json(const struct wh_object *o)
{
    struct wh_object *m = (struct wh_object *)(uintptr_t)o; /* the memo is not logical state */
    json_t *v = atomic_load_explicit(&m->parsed, memory_order_acquire);
    if (v)
        return v;
    struct wh_jsonparse_error jerr;
    wh_arena_pause(); /* the memo outlives the request that asks for it first */
    json_t *fresh = wh_json_parse(o->text, o->text_len, &jerr);
    wh_arena_resume();
    if (!fresh)
        WH_PANIC("cached object %s/%s does not parse: %s", o->ns, o->name, jerr.text);
    json_t *expected = NULL;
    if (atomic_compare_exchange_strong_explicit(&m->parsed, &expected, fresh, memory_order_acq_rel,
                                                memory_order_acquire))
        return fresh;
    json_decref(fresh); /* another reader won the race; use its copy */
    return expected;
}

struct wh_object *wh_object_ref(struct wh_object *o)
{
    atomic_fetch_add_explicit(&o->refs, 1, memory_order_relaxed);
    return o;
}

void wh_object_unref(struct wh_object *o)
{
    if (!o || atomic_fetch_sub_explicit(&o->refs, 1, memory_order_acq_rel) != 1)
        return;
    if (o->view && o->view_free)
        o->view_free(o->view);
    json_decref(atomic_load(&o->parsed));
    free(o->text);
    free(o->ikeys);
    free(o);
}

/* Returns: new ref; obj without the fields that no handler reads and that can be most of an
 * object's size. obj itself is not modified: only the levels on the way are copied. */
static json_t *stripped(const json_t *obj)
{
    static const char last_applied[] = "kubectl.kubernetes.io/last-applied-configuration";
    json_t *meta = json_object_get(obj, "metadata");
    json_t *ann = json_object_get(meta, "annotations");
    if (!json_object_get(meta, "managedFields") && !json_object_get(ann, last_applied))
        return json_incref((json_t *)(uintptr_t)obj);
    json_t *top = json_copy((json_t *)(uintptr_t)obj);
    json_t *m = json_copy(meta);
    json_object_del(m, "managedFields");
    if (json_object_get(ann, last_applied)) {
        json_t *a = json_copy(ann);
        json_object_del(a, last_applied);
        json_object_set_new(m, "annotations", a);
    }
    json_object_set_new(top, "metadata", m);
    return top;
}

struct key_collector {
    struct wh_buf keys;
};

static void collect_key(void *ctx, const char *key)
{
    struct key_collector *kc = ctx;
    /* Index keys are names and label values: far below the cap. */
    if (key[0] && (wh_buf_adds(&kc->keys, key) || wh_buf_addc(&kc->keys, '\0')))
        WH_PANIC("index keys of one object exceed %zu bytes", kc->keys._cap);
}

/* Steals: in. */
static struct wh_object *object_new(struct wh_cache *c, json_t *in)
{
    /* Everything built here is kept (the view may hold parts of the object): a handler's
     * write (standalone state) hands over a value of its request's arena, which is copied out
     * of it first. */
    bool from_request = wh_arena_allocating();
    wh_arena_pause();
    if (from_request) {
        json_t *copy = wh_json_copy(in);
        json_decref(in);
        in = copy;
    }
    json_t *obj = stripped(in);
    json_decref(in);
    const char *ns = wh_json_meta_str(obj, "namespace");
    const char *name = wh_json_meta_str(obj, "name");
    const char *rv = wh_json_meta_str(obj, "resourceVersion");
    if (!ns)
        ns = "";
    if (!rv)
        rv = "";
    size_t lns = strlen(ns), lname = strlen(name), lrv = strlen(rv);
    struct wh_object *o = wh_xcalloc(1, sizeof(*o) + lns + lname + lrv + 3);
    char *p = o->strings;
    memcpy(p, ns, lns + 1);
    o->ns = p;
    p += lns + 1;
    memcpy(p, name, lname + 1);
    o->name = p;
    p += lname + 1;
    memcpy(p, rv, lrv + 1);
    o->rv = p;
    atomic_init(&o->refs, 1);
    if (c->view_new) {
        o->view = c->view_new(obj);
        o->view_free = c->view_free;
    }
    if (c->nindexes) {
        struct key_collector kc;
        wh_buf_init(&kc.keys, 1 << 20);
        for (size_t i = 0; i < c->nindexes; i++) {
            c->index_fns[i](obj, o->view, collect_key, &kc);
            if (wh_buf_addc(&kc.keys, '\0'))
                WH_PANIC("index keys of one object exceed the cap");
        }
        o->ikeys = wh_buf_take(&kc.keys, NULL);
    }
    o->text = wh_json_dumps(obj);
    o->text_len = strlen(o->text);
    atomic_init(&o->parsed, NULL);
    json_decref(obj);
    wh_arena_resume();
    return o;
}

static void object_key(const char *ns, const char *name, char *buf, size_t bufsz)
{
    snprintf(buf, bufsz, "%s/%s", ns ? ns : "", name);
}

static int object_cmp(const struct wh_object *a, const struct wh_object *b)
{
    int r = strcmp(a->ns, b->ns);
    return r ? r : strcmp(a->name, b->name);
}

void wh_objlist_init(struct wh_objlist *l)
{
    l->items = l->_inline;
    l->n = 0;
    l->_cap = sizeof(l->_inline) / sizeof(l->_inline[0]);
}

void wh_objlist_fini(struct wh_objlist *l)
{
    for (size_t i = 0; i < l->n; i++)
        wh_object_unref(l->items[i]);
    if (l->items != l->_inline)
        free(l->items);
    wh_objlist_init(l);
}

void wh_objlist_push_new(struct wh_objlist *l, struct wh_object *o)
{
    if (l->n == l->_cap) {
        size_t ncap = l->_cap * 2;
        struct wh_object **items = wh_xmalloc(ncap * sizeof(*items));
        memcpy(items, l->items, l->n * sizeof(*items));
        if (l->items != l->_inline)
            free(l->items);
        l->items = items;
        l->_cap = ncap;
    }
    l->items[l->n++] = o;
}

/* --- contents ------------------------------------------------------------------------------ */

static struct contents *contents_new(void)
{
    struct contents *ct = wh_xcalloc(1, sizeof(*ct));
    wh_map_init(&ct->objects);
    for (size_t i = 0; i < MAX_INDEXES; i++)
        wh_map_init(&ct->indexes[i].keys);
    return ct;
}

static void contents_free(struct contents *ct)
{
    if (!ct)
        return;
    const char *k;
    void *v;
    for (size_t it = 0; wh_map_next(&ct->objects, &it, &k, &v);)
        wh_object_unref(v);
    wh_map_fini(&ct->objects);
    for (size_t i = 0; i < MAX_INDEXES; i++) {
        for (size_t it = 0; wh_map_next(&ct->indexes[i].keys, &it, &k, &v);) {
            struct bucket *b = v;
            free(b->items);
            free(b);
        }
        wh_map_fini(&ct->indexes[i].keys);
    }
    free(ct);
}

static size_t bucket_pos(const struct bucket *b, const struct wh_object *o, bool *found)
{
    size_t lo = 0, hi = b->n;
    *found = false;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int r = object_cmp(b->items[mid], o);
        if (r == 0) {
            *found = true;
            return mid;
        }
        if (r < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* sorted: keep the bucket in order now (one change), or append and sort later (a relist). */
static void bucket_add(struct index *idx, const char *key, struct wh_object *o, bool sorted)
{
    struct bucket *b = wh_map_get(&idx->keys, key);
    if (!b) {
        b = wh_xcalloc(1, sizeof(*b));
        wh_map_put(&idx->keys, key, b);
    }
    bool found = false;
    size_t pos = sorted ? bucket_pos(b, o, &found) : b->n;
    if (found)
        return; /* the index emitted the same key twice */
    if (b->n == b->cap) {
        b->cap = b->cap ? b->cap * 2 : 4;
        b->items = wh_xrealloc(b->items, b->cap * sizeof(*b->items));
    }
    memmove(b->items + pos + 1, b->items + pos, (b->n - pos) * sizeof(*b->items));
    b->items[pos] = o;
    b->n++;
}

static void bucket_remove(struct index *idx, const char *key, struct wh_object *o)
{
    struct bucket *b = wh_map_get(&idx->keys, key);
    if (!b)
        return;
    size_t pos = b->n;
    for (size_t i = 0; i < b->n; i++) {
        if (b->items[i] == o)
            pos = i;
    }
    if (pos == b->n)
        return;
    memmove(b->items + pos, b->items + pos + 1, (b->n - pos - 1) * sizeof(*b->items));
    if (--b->n == 0) {
        wh_map_remove(&idx->keys, key);
        free(b->items);
        free(b);
    }
}

/* Adds o to (or removes it from) every index, under the write lock; the keys were computed
 * before, so no user code runs here. */
static void index_object(struct contents *ct, size_t nindexes, struct wh_object *o, bool add,
                         bool sorted)
{
    const char *k = o->ikeys;
    for (size_t i = 0; k && i < nindexes; i++) {
        for (; *k; k += strlen(k) + 1) {
            if (add)
                bucket_add(&ct->indexes[i], k, o, sorted);
            else
                bucket_remove(&ct->indexes[i], k, o);
        }
        k++; /* the empty string ending this index's keys */
    }
}

static int cmp_ptr(const void *a, const void *b)
{
    return object_cmp(*(struct wh_object *const *)a, *(struct wh_object *const *)b);
}

static void sort_buckets(struct contents *ct, size_t nindexes)
{
    for (size_t i = 0; i < nindexes; i++) {
        void *v;
        for (size_t it = 0; wh_map_next(&ct->indexes[i].keys, &it, NULL, &v);) {
            struct bucket *b = v;
            qsort(b->items, b->n, sizeof(*b->items), cmp_ptr);
            /* Drop duplicates an index may have emitted for one object. */
            size_t w = 0;
            for (size_t r = 0; r < b->n; r++) {
                if (w == 0 || b->items[w - 1] != b->items[r])
                    b->items[w++] = b->items[r];
            }
            b->n = w;
        }
    }
}

/* --- the cache --------------------------------------------------------------------------- */

struct wh_cache *wh_cache_new(enum wh_resource_id id)
{
    struct wh_cache *c = wh_xcalloc(1, sizeof(*c));
    c->id = id;
    if (pthread_rwlock_init(&c->lock, NULL))
        WH_PANIC("pthread_rwlock_init failed");
    c->contents = contents_new();
    atomic_init(&c->synced, false);
    atomic_init(&c->generation, 0);
    return c;
}

void wh_cache_free(struct wh_cache *c)
{
    if (!c)
        return;
    contents_free(c->contents);
    pthread_rwlock_destroy(&c->lock);
    free(c);
}

void wh_cache_set_view(struct wh_cache *c, wh_view_new_fn make, wh_view_free_fn release)
{
    WH_ASSERT(wh_map_size(&c->contents->objects) == 0);
    c->view_new = make;
    c->view_free = release;
}

void wh_cache_add_index(struct wh_cache *c, const char *name, wh_index_fn fn)
{
    for (size_t i = 0; i < c->nindexes; i++) {
        if (strcmp(c->index_names[i], name) == 0) {
            WH_ASSERT(c->index_fns[i] == fn); /* two features, one name: a programming error */
            return;                           /* declared again by another route's setup */
        }
    }
    WH_ASSERT(c->nindexes < MAX_INDEXES);
    WH_ASSERT(wh_map_size(&c->contents->objects) == 0);
    c->index_names[c->nindexes] = name;
    c->index_fns[c->nindexes] = fn;
    c->nindexes++;
}

void wh_cache_on_change(struct wh_cache *c, wh_cache_change_fn fn, void *arg)
{
    WH_ASSERT(c->nlisteners < MAX_LISTENERS);
    c->listeners[c->nlisteners++] = (struct listener){fn, arg};
}

static void notify(struct wh_cache *c, const struct wh_object *o, const struct wh_object *old)
{
    for (size_t i = 0; i < c->nlisteners; i++)
        c->listeners[i].fn(c->listeners[i].arg, o, old);
}

enum wh_err wh_cache_upsert_new(struct wh_cache *c, json_t *obj)
{
    const char *name = wh_json_meta_str(obj, "name");
    if (!json_is_object(obj) || !name || !name[0]) {
        json_decref(obj);
        return WH_ERR_INVALID;
    }
    struct wh_object *o = object_new(c, obj);
    char key[512];
    object_key(o->ns, o->name, key, sizeof(key));

    wrlock(c);
    struct contents *ct = c->contents;
    struct wh_object *old = wh_map_put(&ct->objects, key, o);
    if (old)
        index_object(ct, c->nindexes, old, false, true);
    index_object(ct, c->nindexes, o, true, true);
    atomic_fetch_add(&c->generation, 1);
    if (old)
        wh_object_ref(old); /* for the listeners, below */
    wh_object_ref(o);
    unlock(c);

    notify(c, o, old);
    wh_object_unref(o);
    if (old) {
        wh_object_unref(old); /* the listeners' reference */
        wh_object_unref(old); /* the map's reference */
    }
    return WH_OK;
}

void wh_cache_delete(struct wh_cache *c, const char *ns, const char *name)
{
    char key[512];
    object_key(ns, name, key, sizeof(key));
    wrlock(c);
    struct contents *ct = c->contents;
    struct wh_object *old = wh_map_remove(&ct->objects, key);
    if (old) {
        index_object(ct, c->nindexes, old, false, true);
        atomic_fetch_add(&c->generation, 1);
    }
    unlock(c);
    if (old) {
        notify(c, NULL, old);
        wh_object_unref(old);
    }
}

void wh_cache_replace_all_new(struct wh_cache *c, json_t *items)
{
    /* Build the new contents outside the lock, then swap: readers see all or nothing. */
    struct contents *ct = contents_new();
    size_t i;
    json_t *item;
    json_array_foreach(items, i, item)
    {
        const char *name = wh_json_meta_str(item, "name");
        if (!json_is_object(item) || !name || !name[0])
            continue;
        struct wh_object *o = object_new(c, json_incref(item));
        char key[512];
        object_key(o->ns, o->name, key, sizeof(key));
        struct wh_object *dup = wh_map_put(&ct->objects, key, o);
        if (dup) {
            index_object(ct, c->nindexes, dup, false, false);
            wh_object_unref(dup);
        }
        index_object(ct, c->nindexes, o, true, false);
    }
    json_decref(items);
    sort_buckets(ct, c->nindexes);

    wrlock(c);
    struct contents *old = c->contents;
    c->contents = ct;
    atomic_fetch_add(&c->generation, 1);
    unlock(c);
    contents_free(old);
    notify(c, NULL, NULL);
}

void wh_cache_set_synced(struct wh_cache *c, bool synced)
{
    atomic_store(&c->synced, synced);
}

bool wh_cache_synced(const struct wh_cache *c)
{
    return atomic_load(&((struct wh_cache *)(uintptr_t)c)->synced);
}

size_t wh_cache_size(const struct wh_cache *c)
{
    struct wh_cache *m = (struct wh_cache *)(uintptr_t)c;
    rdlock(m);
    size_t n = wh_map_size(&m->contents->objects);
    unlock(m);
    return n;
}

uint64_t wh_cache_generation(const struct wh_cache *c)
{
    return atomic_load(&((struct wh_cache *)(uintptr_t)c)->generation);
}

struct wh_object *wh_cache_get(struct wh_cache *c, const char *ns, const char *name)
{
    char key[512];
    object_key(ns, name, key, sizeof(key));
    rdlock(c);
    struct wh_object *o = wh_map_get(&c->contents->objects, key);
    if (o)
        wh_object_ref(o);
    unlock(c);
    return o;
}

void wh_cache_list(struct wh_cache *c, const char *ns, struct wh_objlist *out)
{
    size_t start = out->n;
    rdlock(c);
    void *v;
    for (size_t it = 0; wh_map_next(&c->contents->objects, &it, NULL, &v);) {
        struct wh_object *o = v;
        if (!ns || strcmp(o->ns, ns) == 0)
            wh_objlist_push_new(out, wh_object_ref(o));
    }
    unlock(c);
    qsort(out->items + start, out->n - start, sizeof(*out->items), cmp_ptr);
}

void wh_cache_by_index(struct wh_cache *c, const char *index, const char *key,
                       struct wh_objlist *out)
{
    rdlock(c);
    struct index *idx = NULL;
    for (size_t i = 0; i < c->nindexes; i++) {
        if (strcmp(c->index_names[i], index) == 0)
            idx = &c->contents->indexes[i];
    }
    if (!idx) {
        unlock(c);
        WH_PANIC("cache %s has no index %s", wh_resource_get(c->id)->resource, index);
    }
    struct bucket *b = wh_map_get(&idx->keys, key);
    for (size_t i = 0; b && i < b->n; i++)
        wh_objlist_push_new(out, wh_object_ref(b->items[i]));
    unlock(c);
}

enum wh_err wh_cache_not_found(struct wh_errbuf *eb, const char *group, const char *kind,
                               const char *name)
{
    return wh_errbuf_set(eb, WH_ERR_NOT_FOUND, "%s%s%s \"%s\" not found", kind,
                         group[0] ? "." : "", group, name);
}
