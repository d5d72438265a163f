#include "test/unit/test.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "kube/cache.h"
#include "util/json.h"
#include "util/map.h"
#include "util/mem.h"

static json_t *obj(const char *ns, const char *name, const char *app)
{
    json_t *o = json_pack("{s:{s:s,s:{s:s}}}", "metadata", "name", name, "labels", "app", app);
    if (ns)
        json_object_set_new(json_object_get(o, "metadata"), "namespace", json_string(ns));
    return o;
}

static void by_app(const json_t *o, const void *view, wh_index_emit_fn emit, void *ctx)
{
    (void)view;
    const char *app = wh_json_label(o, "app");
    if (app)
        emit(ctx, app);
}

struct view {
    char *app;
};

static atomic_int views_alive;

static void *view_new(const json_t *o)
{
    struct view *v = wh_xcalloc(1, sizeof(*v));
    const char *app = wh_json_label(o, "app");
    v->app = wh_xstrdup(app ? app : "");
    views_alive++;
    return v;
}

static void view_free(void *p)
{
    struct view *v = p;
    free(v->app);
    free(v);
    views_alive--;
}

TEST(map_put_get_remove_grow)
{
    struct wh_map m;
    wh_map_init(&m);
    char key[32];
    for (int i = 0; i < 1000; i++) {
        snprintf(key, sizeof(key), "k%d", i);
        CHECK(wh_map_put(&m, key, (void *)(intptr_t)(i + 1)) == NULL);
    }
    CHECK_EQ_INT(wh_map_size(&m), 1000);
    for (int i = 0; i < 1000; i += 2) {
        snprintf(key, sizeof(key), "k%d", i);
        CHECK_EQ_INT((intptr_t)wh_map_remove(&m, key), i + 1);
    }
    CHECK_EQ_INT(wh_map_size(&m), 500);
    CHECK(wh_map_get(&m, "k0") == NULL);
    CHECK_EQ_INT((intptr_t)wh_map_get(&m, "k1"), 2);
    CHECK_EQ_INT((intptr_t)wh_map_put(&m, "k1", (void *)7), 2);
    size_t n = 0;
    for (size_t it = 0; wh_map_next(&m, &it, NULL, NULL);)
        n++;
    CHECK_EQ_INT(n, 500);
    wh_map_fini(&m);
}

TEST(cache_upsert_get_delete)
{
    struct wh_cache *c = wh_cache_new(WH_RES_POD);
    CHECK_EQ_INT(wh_cache_upsert_new(c, obj("ns1", "a", "web")), WH_OK);
    CHECK_EQ_INT(wh_cache_upsert_new(c, obj("ns1", "b", "db")), WH_OK);
    CHECK_EQ_INT(wh_cache_upsert_new(c, obj("ns2", "a", "web")), WH_OK);
    CHECK_EQ_INT(wh_cache_upsert_new(c, json_pack("{s:{}}", "metadata")), WH_ERR_INVALID);
    CHECK_EQ_INT(wh_cache_size(c), 3);
    struct wh_object *o = wh_cache_get(c, "ns2", "a");
    CHECK(o != NULL);
    if (o) {
        CHECK_EQ_STR(wh_object_namespace(o), "ns2");
        CHECK_EQ_STR(wh_json_label(wh_object_json(o), "app"), "web");
    }
    CHECK(wh_cache_get(c, "ns3", "a") == NULL);
    uint64_t gen = wh_cache_generation(c);
    wh_cache_delete(c, "ns2", "a");
    CHECK(wh_cache_generation(c) > gen);
    CHECK(wh_cache_get(c, "ns2", "a") == NULL);
    /* A reference taken before the delete stays valid. */
    if (o)
        CHECK_EQ_STR(wh_object_name(o), "a");
    wh_object_unref(o);
    struct wh_objlist l;
    wh_objlist_init(&l);
    wh_cache_list(c, "ns1", &l);
    CHECK_EQ_INT(l.n, 2);
    if (l.n == 2) {
        CHECK_EQ_STR(wh_object_name(l.items[0]), "a");
        CHECK_EQ_STR(wh_object_name(l.items[1]), "b");
    }
    wh_objlist_fini(&l);
    wh_cache_free(c);
}

TEST(cache_strips_managed_fields)
{
    struct wh_cache *c = wh_cache_new(WH_RES_POD);
    json_t *o = wh_test_json("{\"metadata\":{\"name\":\"x\",\"managedFields\":[{\"manager\":\"m\"}],"
                             "\"annotations\":{\"kubectl.kubernetes.io/last-applied-configuration\":"
                             "\"{}\",\"keep\":\"1\"}}}");
    CHECK_EQ_INT(wh_cache_upsert_new(c, o), WH_OK);
    struct wh_object *got = wh_cache_get(c, NULL, "x");
    CHECK(got != NULL);
    if (got) {
        json_t *want = wh_test_json("{\"metadata\":{\"name\":\"x\",\"annotations\":{\"keep\":\"1\"}}}");
        CHECK_EQ_JSON(wh_object_json(got), want);
        json_decref(want);
    }
    wh_object_unref(got);
    wh_cache_free(c);
}

TEST(cache_index_follows_updates)
{
    struct wh_cache *c = wh_cache_new(WH_RES_POD);
    wh_cache_add_index(c, "app", by_app);
    wh_cache_set_view(c, view_new, view_free);
    CHECK_EQ_INT(wh_cache_upsert_new(c, obj("ns", "z", "web")), WH_OK);
    CHECK_EQ_INT(wh_cache_upsert_new(c, obj("ns", "a", "web")), WH_OK);
    CHECK_EQ_INT(wh_cache_upsert_new(c, obj("ns", "m", "db")), WH_OK);
    struct wh_objlist l;
    wh_objlist_init(&l);
    wh_cache_by_index(c, "app", "web", &l);
    CHECK_EQ_INT(l.n, 2);
    if (l.n == 2) { /* sorted by name */
        CHECK_EQ_STR(wh_object_name(l.items[0]), "a");
        CHECK_EQ_STR(wh_object_name(l.items[1]), "z");
        CHECK_EQ_STR(((const struct view *)wh_object_view(l.items[0]))->app, "web");
    }
    wh_objlist_fini(&l);
    /* Relabelling moves the object between keys. */
    CHECK_EQ_INT(wh_cache_upsert_new(c, obj("ns", "z", "db")), WH_OK);
    wh_cache_by_index(c, "app", "web", &l);
    CHECK_EQ_INT(l.n, 1);
    wh_objlist_fini(&l);
    wh_cache_by_index(c, "app", "db", &l);
    CHECK_EQ_INT(l.n, 2);
    wh_objlist_fini(&l);
    wh_cache_delete(c, "ns", "m");
    wh_cache_by_index(c, "app", "db", &l);
    CHECK_EQ_INT(l.n, 1);
    wh_objlist_fini(&l);
    wh_cache_by_index(c, "app", "none", &l);
    CHECK_EQ_INT(l.n, 0);
    wh_objlist_fini(&l);
    CHECK_EQ_INT(views_alive, 2);
    wh_cache_free(c);
    CHECK_EQ_INT(views_alive, 0);
}

static int changes, relists;

static void on_change(void *arg, const struct wh_object *o, const struct wh_object *old)
{
    (void)arg;
    if (!o && !old)
        relists++;
    else
        changes++;
}

TEST(cache_replace_all_and_listeners)
{
    struct wh_cache *c = wh_cache_new(WH_RES_SIDECARSET);
    wh_cache_add_index(c, "app", by_app);
    wh_cache_on_change(c, on_change, NULL);
    changes = relists = 0;
    CHECK_EQ_INT(wh_cache_upsert_new(c, obj(NULL, "old", "web")), WH_OK);
    json_t *items = json_array();
    for (int i = 40; i > 0; i--) {
        char name[16];
        snprintf(name, sizeof(name), "s%02d", i);
        json_array_append_new(items, obj(NULL, name, i % 2 ? "odd" : "even"));
    }
    json_array_append_new(items, json_string("not an object")); /* skipped */
    wh_cache_replace_all_new(c, items);
    CHECK_EQ_INT(changes, 1);
    CHECK_EQ_INT(relists, 1);
    CHECK_EQ_INT(wh_cache_size(c), 40);
    CHECK(wh_cache_get(c, NULL, "old") == NULL);
    struct wh_objlist l;
    wh_objlist_init(&l);
    wh_cache_by_index(c, "app", "odd", &l);
    CHECK_EQ_INT(l.n, 20);
    for (size_t i = 1; i < l.n; i++)
        CHECK(strcmp(wh_object_name(l.items[i - 1]), wh_object_name(l.items[i])) < 0);
    wh_objlist_fini(&l);
    wh_cache_free(c);
}

/* Readers must never see a half-applied update while one writer churns (run under make tsan). */
struct stress {
    struct wh_cache *c;
    atomic_bool stop;
    atomic_int bad;
};

static void *reader(void *arg)
{
    struct stress *s = arg;
    while (!atomic_load(&s->stop)) {
        struct wh_objlist l;
        wh_objlist_init(&l);
        wh_cache_by_index(s->c, "app", "web", &l);
        for (size_t i = 0; i < l.n; i++) {
            const json_t *j = wh_object_json(l.items[i]);
            const char *app = wh_json_label(j, "app");
            const struct view *v = wh_object_view(l.items[i]);
            if (!app || strcmp(app, "web") != 0 || strcmp(v->app, "web") != 0)
                atomic_fetch_add(&s->bad, 1);
        }
        wh_objlist_fini(&l);
        struct wh_object *o = wh_cache_get(s->c, "ns", "p7");
        if (o && strcmp(wh_object_name(o), "p7") != 0)
            atomic_fetch_add(&s->bad, 1);
        wh_object_unref(o);
    }
    return NULL;
}

TEST(cache_concurrent_readers_and_writer)
{
    struct stress s = {.c = wh_cache_new(WH_RES_POD)};
    wh_cache_add_index(s.c, "app", by_app);
    wh_cache_set_view(s.c, view_new, view_free);
    atomic_init(&s.stop, false);
    atomic_init(&s.bad, 0);
    pthread_t th[3];
    for (int i = 0; i < 3; i++)
        pthread_create(&th[i], NULL, reader, &s);
    for (int round = 0; round < 300; round++) {
        char name[16];
        snprintf(name, sizeof(name), "p%d", round % 20);
        if (wh_cache_upsert_new(s.c, obj("ns", name, round % 3 ? "web" : "db")))
            atomic_fetch_add(&s.bad, 1);
        if (round % 7 == 0)
            wh_cache_delete(s.c, "ns", name);
        if (round % 50 == 0) {
            json_t *items = json_array();
            for (int i = 0; i < 20; i++) {
                snprintf(name, sizeof(name), "p%d", i);
                json_array_append_new(items, obj("ns", name, "web"));
            }
            wh_cache_replace_all_new(s.c, items);
        }
    }
    atomic_store(&s.stop, true);
    for (int i = 0; i < 3; i++)
        pthread_join(th[i], NULL);
    CHECK_EQ_INT(atomic_load(&s.bad), 0);
    wh_cache_free(s.c);
    CHECK_EQ_INT(views_alive, 0);
}
