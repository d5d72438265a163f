#include "kube/cluster.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kube/cluster_int.h"
#include "kube/informer.h"
#include "log/log.h"
#include "util/buf.h"
#include "util/json.h"
#include "util/map.h"
#include "util/mem.h"
#include "util/str.h"
#include "util/yaml.h"

#define MAX_STATE_FILE (64 << 20)

static struct wh_cluster *cluster_alloc(void)
{
    struct wh_cluster *cl = wh_xcalloc(1, sizeof(*cl));
    wh_map_init(&cl->store);
    pthread_rwlock_init(&cl->store_lock, NULL);
    pthread_mutex_init(&cl->write_lock, NULL);
    for (int i = 0; i < WH_RES_COUNT; i++)
        cl->versions[i] = wh_resource_get((enum wh_resource_id)i)->versions[0];
    cl->next_rv = 1;
    wh_writeback_init(&cl->writeback);
    return cl;
}

enum wh_err wh_cluster_new_api(struct wh_kube_client *client, struct wh_cluster **out,
                               struct wh_errbuf *eb)
{
    (void)eb;
    struct wh_cluster *cl = cluster_alloc();
    cl->client = client;
    *out = cl;
    return WH_OK;
}

void wh_cluster_free(struct wh_cluster *cl)
{
    if (!cl)
        return;
    for (int i = 0; i < WH_RES_COUNT; i++)
        wh_informer_signal(cl->caches[i].informer);
    for (int i = 0; i < WH_RES_COUNT; i++)
        wh_informer_stop(cl->caches[i].informer);
    for (int i = 0; i < WH_RES_COUNT; i++) {
        wh_cache_free(cl->caches[i].cache);
        free(cl->caches[i].ns);
    }
    void *v;
    for (size_t it = 0; wh_map_next(&cl->store, &it, NULL, &v);)
        wh_cache_free(v);
    wh_map_fini(&cl->store);
    pthread_rwlock_destroy(&cl->store_lock);
    pthread_mutex_destroy(&cl->write_lock);
    wh_writeback_fini(&cl->writeback);
    wh_kube_client_free(cl->client);
    free(cl);
}

bool wh_cluster_standalone(const struct wh_cluster *cl)
{
    return cl->client == NULL;
}

struct wh_kube_client *wh_cluster_client(struct wh_cluster *cl)
{
    return cl->client;
}

struct wh_cache *wh_cluster_declare(struct wh_cluster *cl, enum wh_resource_id id, const char *ns)
{
    WH_ASSERT(id < WH_RES_COUNT && !cl->started);
    struct declared *d = &cl->caches[id];
    if (d->cache) {
        if (!wh_str_eq(d->ns, ns && ns[0] ? ns : NULL))
            WH_PANIC("cache %s declared with two scopes", wh_resource_get(id)->resource);
        return d->cache;
    }
    d->cache = wh_cache_new(id);
    d->ns = ns && ns[0] ? wh_xstrdup(ns) : NULL;
    return d->cache;
}

struct wh_cache *wh_cluster_cache(struct wh_cluster *cl, enum wh_resource_id id)
{
    WH_ASSERT(id < WH_RES_COUNT);
    return cl->caches[id].cache;
}

const char *wh_cluster_configmap_value(struct wh_cluster *cl, const char *ns, const char *name,
                                       const char *key, struct wh_object **holder)
{
    struct wh_cache *c = cl ? wh_cluster_cache(cl, WH_RES_CONFIGMAP) : NULL;
    struct wh_object *cm = c ? wh_cache_get(c, ns, name) : NULL;
    const char *text = cm ? wh_json_path_str(wh_object_json(cm), "data", key, NULL) : NULL;
    if (!text) {
        wh_object_unref(cm);
        cm = NULL;
    }
    *holder = cm;
    return text;
}

const char *wh_cluster_version(const struct wh_cluster *cl, enum wh_resource_id id)
{
    WH_ASSERT(id < WH_RES_COUNT);
    return cl->versions[id];
}

bool wh_cluster_synced(struct wh_cluster *cl, char *why, size_t whysz)
{
    for (int i = 0; i < WH_RES_COUNT; i++) {
        if (cl->caches[i].cache && !wh_cache_synced(cl->caches[i].cache)) {
            const struct wh_resource *r = wh_resource_get((enum wh_resource_id)i);
            snprintf(why, whysz, "cache of %s%s%s has not synced", r->resource,
                     r->group[0] ? "." : "", r->group);
            return false;
        }
    }
    return true;
}

/* --- standalone store ------------------------------------------------------------------------ */

static void store_key(const char *group, const char *resource, char *buf, size_t bufsz)
{
    snprintf(buf, bufsz, "%s/%s", group, resource);
}

/* The store's cache of group/resource. Caches are never removed from the store (a reload
 * empties them), so the pointer stays valid; store_lock guards only the map itself, because a
 * reload or a write may add a resource while requests look others up. */
static struct wh_cache *store_cache(struct wh_cluster *cl, const char *group, const char *resource,
                                    bool create)
{
    char key[256];
    store_key(group, resource, key, sizeof(key));
    pthread_rwlock_rdlock(&cl->store_lock);
    struct wh_cache *c = wh_map_get(&cl->store, key);
    pthread_rwlock_unlock(&cl->store_lock);
    if (!c && create) {
        pthread_rwlock_wrlock(&cl->store_lock);
        c = wh_map_get(&cl->store, key);
        if (!c) {
            c = wh_cache_new(WH_RES_COUNT); /* a store cache may hold any kind: it has no id */
            wh_map_put(&cl->store, key, c);
        }
        pthread_rwlock_unlock(&cl->store_lock);
    }
    return c;
}

/* The group of "apps.kruise.io/v1beta1" is "apps.kruise.io"; of "v1", "". */
static void group_of(const char *api_version, char *buf, size_t bufsz)
{
    const char *slash = strchr(api_version, '/');
    size_t n = slash ? (size_t)(slash - api_version) : 0;
    if (n >= bufsz)
        n = bufsz - 1;
    memcpy(buf, api_version, n);
    buf[n] = '\0';
}

/* The plural of a kind: the catalogue, a loaded CRD, or Kubernetes' default lower-case "s". */
static void resource_of(struct wh_cluster *cl, const json_t *crds, const char *group,
                        const char *kind, char *buf, size_t bufsz)
{
    enum wh_resource_id id = wh_resource_by_kind(group, kind);
    if (id < WH_RES_COUNT) {
        snprintf(buf, bufsz, "%s", wh_resource_get(id)->resource);
        return;
    }
    size_t i;
    json_t *crd;
    json_array_foreach(crds, i, crd)
    {
        const char *g = wh_json_path_str(crd, "spec", "group", NULL);
        const char *k = wh_json_path_str(crd, "spec", "names", "kind", NULL);
        const char *plural = wh_json_path_str(crd, "spec", "names", "plural", NULL);
        if (g && k && plural && strcmp(g, group) == 0 && strcmp(k, kind) == 0) {
            snprintf(buf, bufsz, "%s", plural);
            return;
        }
    }
    (void)cl;
    size_t n = 0;
    for (; kind[n] && n + 2 < bufsz; n++)
        buf[n] = (char)tolower((unsigned char)kind[n]);
    buf[n++] = 's';
    buf[n] = '\0';
}

/* Appends the objects of one document to objs, unwrapping List kinds. */
static enum wh_err add_document(json_t *objs, json_t *doc, const char *path, size_t index,
                                struct wh_errbuf *eb)
{
    if (json_is_null(doc))
        return WH_OK;
    if (!json_is_object(doc))
        return wh_errbuf_set(eb, WH_ERR_INVALID, "%s: document %zu: not an object", path,
                             index + 1);
    json_t *items = json_object_get(doc, "items");
    const char *kind = wh_json_str(doc, "kind");
    if (json_is_array(items) && kind && wh_str_has_suffix(kind, "List")) {
        size_t i;
        json_t *item;
        json_array_foreach(items, i, item)
        {
            enum wh_err rc = add_document(objs, item, path, index, eb);
            if (rc)
                return rc;
        }
        return WH_OK;
    }
    /* An empty name too: the cache cannot hold it (fuzz_state found `name: !tag` -> ""). */
    const char *name = wh_json_meta_str(doc, "name");
    if (!wh_json_str(doc, "apiVersion") || !kind || !name || !name[0])
        return wh_errbuf_set(eb, WH_ERR_INVALID,
                             "%s: document %zu: needs apiVersion, kind and metadata.name", path,
                             index + 1);
    json_array_append(objs, doc);
    return WH_OK;
}

static enum wh_err load_file(json_t *objs, const char *path, struct wh_errbuf *eb)
{
    json_t *docs = NULL;
    enum wh_err rc = wh_yaml_load_file(path, MAX_STATE_FILE, &docs, eb);
    size_t i;
    json_t *doc;
    json_array_foreach(docs, i, doc)
    {
        if (!rc)
            rc = add_document(objs, doc, path, i, eb);
    }
    json_decref(docs);
    return rc;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool is_state_file(const char *name)
{
    return name[0] != '.' && (wh_str_has_suffix(name, ".yaml") || wh_str_has_suffix(name, ".yml") ||
                              wh_str_has_suffix(name, ".json"));
}

enum wh_err wh_cluster_state_files(const char *path, char ***files, size_t *count,
                                   struct wh_errbuf *eb)
{
    struct stat st;
    *files = NULL;
    *count = 0;
    if (stat(path, &st) != 0)
        return wh_errbuf_set(eb, WH_ERR_IO, "--state %s: %s", path, strerror(errno));
    if (!S_ISDIR(st.st_mode)) {
        *files = wh_xcalloc(1, sizeof(**files));
        (*files)[0] = wh_xstrdup(path);
        *count = 1;
        return WH_OK;
    }
    DIR *dir = opendir(path);
    if (!dir)
        return wh_errbuf_set(eb, WH_ERR_IO, "--state %s: %s", path, strerror(errno));
    char **names = NULL;
    size_t n = 0, cap = 0;
    for (struct dirent *de = readdir(dir); de; de = readdir(dir)) {
        if (!is_state_file(de->d_name))
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 16;
            names = wh_xrealloc(names, cap * sizeof(*names));
        }
        names[n++] = wh_str_printf("%s/%s", path, de->d_name);
    }
    closedir(dir);
    if (n > 1) /* an empty directory has no array to sort */
        qsort(names, n, sizeof(*names), cmp_names);
    *files = names;
    *count = n;
    return WH_OK;
}

static enum wh_err load_path(json_t *objs, const char *path, struct wh_errbuf *eb)
{
    char **names = NULL;
    size_t n = 0;
    enum wh_err rc = wh_cluster_state_files(path, &names, &n, eb);
    for (size_t i = 0; i < n; i++) {
        if (!rc)
            rc = load_file(objs, names[i], eb);
        free(names[i]);
    }
    free(names);
    return rc;
}

enum wh_err wh_cluster_new_standalone(const char *state_path, struct wh_cluster **out,
                                      struct wh_errbuf *eb)
{
    json_t *objs = json_array();
    enum wh_err rc = WH_OK;
    if (state_path && state_path[0]) {
        rc = load_path(objs, state_path, eb);
        if (rc) {
            json_decref(objs);
            return rc;
        }
    }
    rc = wh_cluster_new_standalone_objects(objs, out, eb);
    if (!rc)
        wh_log(WH_LOG_INFO, "standalone: loaded %zu objects from %s", json_array_size(objs),
               state_path && state_path[0] ? state_path : "(nothing)");
    json_decref(objs);
    return rc;
}

/* Unwraps List kinds and checks every document of objects (borrowed). Returns in *out: new
 * ref, the plain objects. */
static enum wh_err flatten_objects(const json_t *objects, json_t **out, struct wh_errbuf *eb)
{
    json_t *objs = json_array();
    size_t k;
    json_t *doc;
    json_array_foreach(objects, k, doc)
    {
        enum wh_err rc = add_document(objs, doc, "objects", k, eb);
        if (rc) {
            json_decref(objs);
            return rc;
        }
    }
    *out = objs;
    return WH_OK;
}

/* Makes objs (borrowed, checked by add_document) the whole content of the store, as a relist
 * makes a list the whole content of a cache: every resource's cache is replaced at once, and a
 * resource no longer named is emptied. Objects without a resourceVersion get the next one. */
static void store_replace(struct wh_cluster *cl, const json_t *objs)
{
    /* CRDs first, so custom resources in the same files find their plural. */
    json_t *crds = json_array();
    size_t i;
    json_t *o;
    json_array_foreach(objs, i, o)
    {
        if (wh_str_eq(wh_json_str(o, "kind"), "CustomResourceDefinition"))
            json_array_append(crds, o);
    }
    struct wh_map next; /* "group/resource" -> json_t * array of the copies */
    wh_map_init(&next);
    json_array_foreach(objs, i, o)
    {
        char group[128], resource[128], key[256];
        group_of(wh_json_str(o, "apiVersion"), group, sizeof(group));
        resource_of(cl, crds, group, wh_json_str(o, "kind"), resource, sizeof(resource));
        store_key(group, resource, key, sizeof(key));
        json_t *copy = wh_json_copy(o);
        if (!wh_json_meta_str(copy, "resourceVersion")) {
            char rv[32];
            snprintf(rv, sizeof(rv), "%llu", cl->next_rv++);
            json_object_set_new(json_object_get(copy, "metadata"), "resourceVersion",
                                json_string(rv));
        }
        json_t *items = wh_map_get(&next, key);
        if (!items) {
            items = json_array();
            wh_map_put(&next, key, items);
        }
        json_array_append_new(items, copy);
    }
    json_decref(crds);
    pthread_rwlock_wrlock(&cl->store_lock);
    const char *key;
    void *v;
    for (size_t it = 0; wh_map_next(&cl->store, &it, &key, &v);) {
        json_t *items = wh_map_remove(&next, key);
        wh_cache_replace_all_new(v, items ? items : json_array());
    }
    for (size_t it = 0; wh_map_next(&next, &it, &key, &v);) {
        struct wh_cache *c = wh_cache_new(WH_RES_COUNT); /* any kind: it has no id */
        wh_cache_replace_all_new(c, v);
        wh_map_put(&cl->store, key, c);
    }
    pthread_rwlock_unlock(&cl->store_lock);
    wh_map_fini(&next); /* its arrays went to the caches */
}

enum wh_err wh_cluster_new_standalone_objects(const json_t *objects, struct wh_cluster **out,
                                              struct wh_errbuf *eb)
{
    json_t *objs = NULL;
    enum wh_err rc = flatten_objects(objects, &objs, eb);
    if (rc)
        return rc;
    struct wh_cluster *cl = cluster_alloc();
    store_replace(cl, objs);
    json_decref(objs);
    *out = cl;
    return WH_OK;
}

/* Copies the store's objects in scope into a declared cache. */
static void fill_declared(struct wh_cluster *cl, enum wh_resource_id id)
{
    const struct wh_resource *r = wh_resource_get(id);
    struct declared *d = &cl->caches[id];
    json_t *items = json_array();
    struct wh_cache *src = store_cache(cl, r->group, r->resource, false);
    if (src) {
        struct wh_objlist l;
        wh_objlist_init(&l);
        wh_cache_list(src, d->ns, &l);
        for (size_t i = 0; i < l.n; i++)
            json_array_append(items, (json_t *)(uintptr_t)wh_object_json(l.items[i]));
        wh_objlist_fini(&l);
    }
    wh_cache_replace_all_new(d->cache, items);
    wh_cache_set_synced(d->cache, true);
}

enum wh_err wh_cluster_reload_standalone(struct wh_cluster *cl, const char *state_path,
                                         size_t *count, struct wh_errbuf *eb)
{
    WH_ASSERT(!cl->client);
    json_t *loaded = json_array();
    enum wh_err rc = WH_OK;
    if (state_path && state_path[0])
        rc = load_path(loaded, state_path, eb);
    if (rc) {
        json_decref(loaded);
        return rc; /* nothing changed: the state in use stays whole */
    }
    /* Writes are held off for the swap: a status write must not land in the old content after
     * the new one is read, nor its memo outlive the object it was made from. */
    pthread_mutex_lock(&cl->write_lock);
    store_replace(cl, loaded);
    for (int i = 0; i < WH_RES_COUNT; i++) {
        if (cl->caches[i].cache && cl->started)
            fill_declared(cl, (enum wh_resource_id)i);
    }
    wh_writeback_forget(&cl->writeback);
    pthread_mutex_unlock(&cl->write_lock);
    if (count)
        *count = json_array_size(loaded);
    json_decref(loaded);
    return WH_OK;
}

/* --- start ---------------------------------------------------------------------------------- */

static enum wh_err start_api(struct wh_cluster *cl, struct wh_errbuf *eb)
{
    for (int i = 0; i < WH_RES_COUNT; i++) {
        struct declared *d = &cl->caches[i];
        if (!d->cache)
            continue;
        const struct wh_resource *r = wh_resource_get((enum wh_resource_id)i);
        if (r->versions[1]) {
            const char *chosen = NULL;
            struct wh_kube_status st = {0};
            enum wh_err rc = wh_kube_pick_resource_version(cl->client, r->group, r->resource,
                                                           r->versions, &chosen, &st);
            if (rc == WH_OK) {
                cl->versions[i] = chosen;
            } else if (rc == WH_ERR_NOT_FOUND) {
                /* Not installed: nothing to cache, and nothing will ask about it. */
                wh_log(WH_LOG_WARN, "%s.%s is not served by the cluster; its cache stays empty",
                       r->resource, r->group);
                wh_cache_set_synced(d->cache, true);
                continue;
            } else {
                return wh_errbuf_set(eb, rc, "discovery of %s failed: %d %s", r->group, st.code,
                                     st.message);
            }
        }
        struct wh_informer_opts opts = {
            .group = r->group,
            .version = cl->versions[i],
            .resource = r->resource,
            .ns = d->ns,
        };
        enum wh_err rc = wh_informer_start(cl->client, d->cache, &opts, &d->informer);
        if (rc)
            return wh_errbuf_set(eb, rc, "cannot start the informer for %s", r->resource);
    }
    return WH_OK;
}

enum wh_err wh_cluster_start(struct wh_cluster *cl, struct wh_errbuf *eb)
{
    WH_ASSERT(!cl->started);
    cl->started = true;
    if (cl->client)
        return start_api(cl, eb);
    for (int i = 0; i < WH_RES_COUNT; i++) {
        if (cl->caches[i].cache)
            fill_declared(cl, (enum wh_resource_id)i);
    }
    return WH_OK;
}

/* --- live reads and writes ------------------------------------------------------------------ */

/* The standalone store's objects of a resource (in namespace ns; NULL or "" for all), at most
 * limit of them (0: all); no selectors. */
static enum wh_err list_store(struct wh_cluster *cl, const char *group, const char *resource,
                              const char *ns, const char *label_selector, size_t limit,
                              wh_kube_item_fn fn, void *arg, struct wh_errbuf *eb)
{
    if (label_selector && label_selector[0])
        return wh_errbuf_set(eb, WH_ERR_INVALID, "standalone state supports no label selectors");
    struct wh_cache *c = store_cache(cl, group, resource, false);
    if (!c)
        return WH_OK;
    struct wh_objlist l;
    wh_objlist_init(&l);
    wh_cache_list(c, ns && ns[0] ? ns : NULL, &l);
    enum wh_err rc = WH_OK;
    for (size_t i = 0; i < l.n && !rc && (!limit || i < limit); i++)
        rc = fn(arg, (json_t *)(uintptr_t)wh_object_json(l.items[i]));
    wh_objlist_fini(&l);
    return rc;
}

enum wh_err wh_cluster_list_live(struct wh_cluster *cl, const char *group, const char *version,
                                 const char *resource, const char *ns, const char *label_selector,
                                 wh_kube_item_fn fn, void *arg, struct wh_errbuf *eb)
{
    if (cl->client) {
        char path[512];
        enum wh_err rc = wh_kube_path(path, sizeof(path), group, version, resource, ns, NULL, NULL);
        if (rc)
            return wh_errbuf_set(eb, rc, "bad resource %s.%s", resource, group);
        struct wh_kube_status st = {0};
        rc = wh_kube_list_all(cl->client, path, label_selector, NULL, 500, fn, arg, NULL, &st);
        /* Errors of the API server get a message; an error fn returned to stop passes through. */
        if (rc == WH_ERR_KUBE || rc == WH_ERR_IO || rc == WH_ERR_TIMEOUT || rc == WH_ERR_GONE ||
            rc == WH_ERR_NOT_FOUND || rc == WH_ERR_CONFLICT)
            return wh_errbuf_set(eb, rc, "list %s%s%s failed: %s", resource, group[0] ? "." : "",
                                 group, st.message[0] ? st.message : wh_strerror(rc));
        return rc;
    }
    return list_store(cl, group, resource, ns, label_selector, 0, fn, arg, eb);
}

enum wh_err wh_cluster_list_page_live(struct wh_cluster *cl, const char *group,
                                      const char *version, const char *resource, const char *ns,
                                      const char *label_selector, long limit, wh_kube_item_fn fn,
                                      void *arg, struct wh_errbuf *eb)
{
    WH_ASSERT(limit > 0);
    if (!cl->client)
        return list_store(cl, group, resource, ns, label_selector, (size_t)limit, fn, arg, eb);
    char path[512];
    enum wh_err rc = wh_kube_path(path, sizeof(path), group, version, resource, ns, NULL, NULL);
    if (rc)
        return wh_errbuf_set(eb, rc, "bad resource %s.%s", resource, group);
    struct wh_kube_status st = {0};
    struct wh_kube_list_opts lo = {.label_selector = label_selector, .limit = limit};
    json_t *page = NULL;
    rc = wh_kube_list(cl->client, path, &lo, &page, &st);
    if (rc)
        return wh_errbuf_set(eb, rc, "list %s%s%s failed: %s", resource, group[0] ? "." : "",
                             group, st.message[0] ? st.message : wh_strerror(rc));
    size_t i;
    json_t *item;
    json_array_foreach(json_object_get(page, "items"), i, item)
    {
        /* the real API server may answer more than limit from its watch cache */
        if (rc || i >= (size_t)limit)
            break;
        rc = fn(arg, item);
    }
    json_decref(page);
    return rc;
}

enum wh_err wh_cluster_get_live(struct wh_cluster *cl, const char *group, const char *version,
                                const char *resource, const char *ns, const char *name,
                                json_t **out, struct wh_errbuf *eb)
{
    if (cl->client) {
        char path[512];
        enum wh_err rc = wh_kube_path(path, sizeof(path), group, version, resource, ns, name, NULL);
        if (rc)
            return wh_errbuf_set(eb, rc, "bad resource %s.%s", resource, group);
        struct wh_kube_status st = {0};
        rc = wh_kube_get(cl->client, path, out, &st);
        if (rc)
            return wh_errbuf_set(eb, rc, "%s", st.message[0] ? st.message : wh_strerror(rc));
        return WH_OK;
    }
    struct wh_cache *c = store_cache(cl, group, resource, false);
    struct wh_object *o = c ? wh_cache_get(c, ns, name) : NULL;
    if (!o)
        return wh_errbuf_set(eb, WH_ERR_NOT_FOUND, "%s%s%s \"%s\" not found", resource,
                             group[0] ? "." : "", group, name);
    *out = wh_json_copy(wh_object_json(o));
    wh_object_unref(o);
    return WH_OK;
}

enum wh_err wh_cluster_create_dry_run(struct wh_cluster *cl, const char *group,
                                      const char *version, const char *resource, const char *ns,
                                      const json_t *obj, struct wh_kube_status *st)
{
    memset(st, 0, sizeof(*st));
    if (!cl->client)
        return WH_OK;
    char path[512], dry[600];
    enum wh_err rc = wh_kube_path(path, sizeof(path), group, version, resource, ns, NULL, NULL);
    if (rc) {
        snprintf(st->message, sizeof(st->message), "bad resource %s.%s", resource, group);
        return rc;
    }
    snprintf(dry, sizeof(dry), "%s?dryRun=All", path);
    return wh_kube_create(cl->client, dry, obj, NULL, st);
}

/* The plural of group/version kind in API mode: the resource list of the group version. */
/* A group or version as discovery names them: letters, digits, '.' and '-'. Owner references
 * come from request bodies, so nothing else may reach a path. */
static bool plain_name(const char *s, bool empty_ok)
{
    size_t n = strlen(s);
    if ((!n && !empty_ok) || n > 253)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '-'))
            return false;
    }
    return true;
}

static enum wh_err discover_plural(struct wh_cluster *cl, const char *group, const char *version,
                                   const char *kind, char *buf, size_t bufsz, struct wh_errbuf *eb)
{
    char path[512];
    if (!plain_name(group, true) || !plain_name(version, false) || !kind[0])
        return wh_errbuf_set(eb, WH_ERR_NOT_FOUND,
                             "no matches for kind \"%.64s\" in version \"%.64s%s%.64s\"", kind,
                             group, group[0] ? "/" : "", version);
    int n = group[0] ? snprintf(path, sizeof(path), "/apis/%s/%s", group, version)
                     : snprintf(path, sizeof(path), "/api/%s", version);
    if (n < 0 || (size_t)n >= sizeof(path))
        return wh_errbuf_set(eb, WH_ERR_INVALID, "group version too long");
    json_t *list = NULL;
    struct wh_kube_status st = {0};
    enum wh_err rc = wh_kube_get(cl->client, path, &list, &st);
    /* A group version the cluster does not serve has no such kind either (a REST mapper says
     * so in the same words). */
    if (rc && rc != WH_ERR_NOT_FOUND)
        return wh_errbuf_set(eb, rc, "discovery of %s failed: %s", path,
                             st.message[0] ? st.message : wh_strerror(rc));
    rc = wh_errbuf_set(eb, WH_ERR_NOT_FOUND, "no matches for kind \"%s\" in version \"%s%s%s\"",
                       kind, group, group[0] ? "/" : "", version);
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(list, "resources"), i, r)
    {
        const char *plural = wh_json_str(r, "name");
        if (wh_str_eq(wh_json_str(r, "kind"), kind) && plural && !strchr(plural, '/')) {
            snprintf(buf, bufsz, "%s", plural);
            rc = WH_OK;
            break;
        }
    }
    json_decref(list);
    return rc;
}

/* A group version as Go's schema.GroupVersion prints it: "v1" for the core group. */
static void gv_string(char *buf, size_t bufsz, const char *group, const char *version)
{
    snprintf(buf, bufsz, "%s%s%s", group, group[0] && version[0] ? "/" : "", version);
}

enum wh_err wh_cluster_resource_for_kind(struct wh_cluster *cl, const char *group,
                                         const char *version, const char *kind, char *plural,
                                         size_t pluralsz, struct wh_errbuf *eb)
{
    enum wh_resource_id id = wh_resource_by_kind(group, kind);
    if (id < WH_RES_COUNT) {
        snprintf(plural, pluralsz, "%s", wh_resource_get(id)->resource);
        return WH_OK;
    }
    if (cl->client)
        return discover_plural(cl, group, version, kind, plural, pluralsz, eb);
    const struct wh_resource *crds_res = wh_resource_get(WH_RES_CRD);
    struct wh_cache *c = store_cache(cl, crds_res->group, crds_res->resource, false);
    struct wh_objlist l;
    wh_objlist_init(&l);
    if (c)
        wh_cache_list(c, NULL, &l);
    bool found = false;
    for (size_t i = 0; i < l.n && !found; i++) {
        const json_t *crd = wh_object_json(l.items[i]);
        const json_t *spec = wh_json_obj(crd, "spec");
        const char *p = wh_json_path_str(spec, "names", "plural", NULL);
        if (!p || !wh_str_eq(wh_json_str(spec, "group"), group) ||
            !wh_str_eq(wh_json_path_str(spec, "names", "kind", NULL), kind))
            continue;
        size_t k;
        json_t *v;
        json_array_foreach(wh_json_arr(spec, "versions"), k, v)
        {
            if (wh_str_eq(wh_json_str(v, "name"), version)) {
                snprintf(plural, pluralsz, "%s", p);
                found = true;
                break;
            }
        }
    }
    wh_objlist_fini(&l);
    if (found)
        return WH_OK;
    char gv[300];
    gv_string(gv, sizeof(gv), group, version);
    return wh_errbuf_set(eb, WH_ERR_NOT_FOUND, "no matches for kind \"%s\" in version \"%s\"",
                         kind, gv);
}

enum wh_err wh_cluster_get_live_kind(struct wh_cluster *cl, const char *api_version,
                                     const char *kind, const char *ns, const char *name,
                                     json_t **out, struct wh_errbuf *eb)
{
    *out = NULL;
    char group[256], version[128], plural[256];
    const char *slash = strchr(api_version, '/');
    if (slash && strchr(slash + 1, '/'))
        return wh_errbuf_set(eb, WH_ERR_INVALID, "unexpected GroupVersion string: %s", api_version);
    group_of(api_version, group, sizeof(group));
    snprintf(version, sizeof(version), "%s", slash ? slash + 1 : api_version);
    enum wh_err rc = WH_OK;
    if (cl->client) {
        enum wh_resource_id id = wh_resource_by_kind(group, kind);
        if (id < WH_RES_COUNT)
            snprintf(plural, sizeof(plural), "%s", wh_resource_get(id)->resource);
        else
            rc = discover_plural(cl, group, version, kind, plural, sizeof(plural), eb);
    } else {
        json_t *crds = json_array();
        const struct wh_resource *crds_res = wh_resource_get(WH_RES_CRD);
        struct wh_cache *c = store_cache(cl, crds_res->group, crds_res->resource, false);
        struct wh_objlist l;
        wh_objlist_init(&l);
        if (c)
            wh_cache_list(c, NULL, &l);
        for (size_t i = 0; i < l.n; i++)
            json_array_append(crds, (json_t *)(uintptr_t)wh_object_json(l.items[i]));
        resource_of(cl, crds, group, kind, plural, sizeof(plural));
        wh_objlist_fini(&l);
        json_decref(crds);
    }
    if (!rc)
        rc = wh_cluster_get_live(cl, group, version, plural, ns, name, out, eb);
    return rc;
}

static enum wh_err update_standalone(struct wh_cluster *cl, enum wh_resource_id id,
                                     const json_t *obj, bool status, json_t **out,
                                     struct wh_errbuf *eb)
{
    const struct wh_resource *r = wh_resource_get(id);
    const char *ns = wh_json_meta_str(obj, "namespace");
    const char *name = wh_json_meta_str(obj, "name");
    if (!name)
        return wh_errbuf_set(eb, WH_ERR_INVALID, "update of %s without metadata.name", r->resource);
    pthread_mutex_lock(&cl->write_lock);
    enum wh_err rc = WH_OK;
    struct wh_cache *c = store_cache(cl, r->group, r->resource, true);
    struct wh_object *cur = wh_cache_get(c, ns, name);
    json_t *next = NULL;
    if (!cur) {
        rc = wh_errbuf_set(eb, WH_ERR_NOT_FOUND, "%s \"%s\" not found", r->resource, name);
        goto out;
    }
    const char *want_rv = wh_json_meta_str(obj, "resourceVersion");
    if (want_rv && strcmp(want_rv, wh_object_resource_version(cur)) != 0) {
        rc = wh_errbuf_set(eb, WH_ERR_CONFLICT,
                           "Operation cannot be fulfilled on %s \"%s\": the object has been "
                           "modified; please apply your changes to the latest version and try "
                           "again",
                           r->resource, name);
        goto out;
    }
    /* Like the API server: the status subresource changes only status, the main resource
     * everything else. */
    next = wh_json_copy(wh_object_json(cur));
    if (status) {
        json_t *st = json_object_get(obj, "status");
        json_object_set_new(next, "status", st ? wh_json_copy(st) : json_object());
    } else {
        json_t *keep = json_incref(json_object_get(next, "status"));
        json_decref(next);
        next = wh_json_copy(obj);
        if (keep)
            json_object_set_new(next, "status", keep);
        else
            json_object_del(next, "status");
    }
    char rv[32];
    snprintf(rv, sizeof(rv), "%llu", cl->next_rv++ + 1000000);
    json_object_set_new(wh_json_obj_ensure(next, "metadata"), "resourceVersion", json_string(rv));
    wh_log(WH_LOG_INFO, "standalone: updated %s%s %s%s%s to resourceVersion %s", r->resource,
           status ? "/status" : "", ns ? ns : "", ns ? "/" : "", name, rv);
    if (out)
        *out = wh_json_copy(next);
    struct declared *d = &cl->caches[id];
    if (d->cache && (!d->ns || wh_str_eq(d->ns, ns)))
        rc = wh_cache_upsert_new(d->cache, wh_json_copy(next));
    if (!rc)
        rc = wh_cache_upsert_new(c, next);
    else
        json_decref(next);
    next = NULL;
out:
    wh_object_unref(cur);
    pthread_mutex_unlock(&cl->write_lock);
    return rc;
}

enum wh_err wh_cluster_update(struct wh_cluster *cl, enum wh_resource_id id, const json_t *obj,
                              bool status, json_t **out, struct wh_errbuf *eb)
{
    if (!cl->client)
        return update_standalone(cl, id, obj, status, out, eb);
    const struct wh_resource *r = wh_resource_get(id);
    char path[512];
    enum wh_err rc = wh_kube_path(path, sizeof(path), r->group, cl->versions[id], r->resource,
                                  wh_json_meta_str(obj, "namespace"), wh_json_meta_str(obj, "name"),
                                  status ? "status" : NULL);
    if (rc)
        return wh_errbuf_set(eb, rc, "bad object for %s", r->resource);
    struct wh_kube_status st = {0};
    rc = wh_kube_update(cl->client, path, obj, out, &st);
    if (rc)
        return wh_errbuf_set(eb, rc, "%s", st.message[0] ? st.message : wh_strerror(rc));
    return WH_OK;
}
