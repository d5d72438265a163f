/* kube/writeback.c (wh_cluster_write_status): against the fake API server and standalone
 * state -- the hot path reads no object, the process's own last write is the next base,
 * conflicts re-read and retry, nothing is lost under concurrent writers, dry runs write
 * nothing, and a missing object is NOT_FOUND. */
#include "test/unit/test.h"

#include <pthread.h>
#include <stdlib.h>

#include "kube/cache.h"
#include "kube/client.h"
#include "kube/cluster.h"
#include "test/support/apiserver_proc.h"
#include "util/json.h"
#include "util/str.h"
#include "util/time.h"

#define PUB_PATH "/apis/policy.kruise.io/v1beta1/namespaces/default/podunavailablebudgets/pub"

static json_t *pub_object(void)
{
    return json_pack("{s:s,s:s,s:{s:s,s:s},s:{s:{s:{s:s}}},s:{s:i}}", "apiVersion",
                     "policy.kruise.io/v1beta1", "kind", "PodUnavailableBudget", "metadata", "name",
                     "pub", "namespace", "default", "spec", "selector", "matchLabels", "app", "web",
                     "status", "totalReplicas", 0);
}

static long long total_of(const json_t *obj)
{
    return (long long)json_integer_value(
        json_object_get(json_object_get(obj, "status"), "totalReplicas"));
}

/* Adds one to status.totalReplicas. */
static enum wh_err increment(void *arg, const json_t *current, json_t **desired,
                             struct wh_errbuf *eb)
{
    (void)arg;
    (void)eb;
    *desired = wh_json_copy(current);
    json_object_set_new(wh_json_obj_ensure(*desired, "status"), "totalReplicas",
                        json_integer(total_of(current) + 1));
    return WH_OK;
}

struct fx {
    struct wh_apiserver *srv;
    struct wh_cluster *cl;
};

static bool fx_start(struct fx *fx, bool cache)
{
    struct wh_errbuf eb = {{0}};
    memset(fx, 0, sizeof(*fx));
    struct wh_apiserver_opts ao = {.kruise_crds = true};
    json_t *objs = json_pack("[o]", pub_object());
    enum wh_err rc = wh_apiserver_cluster_new(&ao, objs, 2, &fx->srv, &fx->cl, &eb);
    json_decref(objs);
    if (!rc && cache)
        (void)wh_cluster_declare(fx->cl, WH_RES_PUB, NULL);
    if (!rc)
        rc = wh_apiserver_cluster_start(fx->cl, &eb);
    if (rc)
        fprintf(stderr, "fixture: %s\n", eb.msg);
    return rc == WH_OK;
}

static void fx_stop(struct fx *fx)
{
    wh_cluster_free(fx->cl);
    wh_apiserver_stop(fx->srv);
}

/* How many logged requests had method m and exactly path p; clears the log. */
static int requests(struct fx *fx, const char *m, const char *p)
{
    json_t *all = NULL;
    if (wh_apiserver_control(fx->srv, "DELETE", "requests", NULL, &all, NULL))
        abort();
    int n = 0;
    size_t i;
    json_t *r;
    json_array_foreach(all, i, r)
    {
        n += wh_str_eq(wh_json_str(r, "method"), m) && wh_str_eq(wh_json_str(r, "path"), p);
    }
    json_decref(all);
    return n;
}

static long long stored_total(struct fx *fx)
{
    json_t *obj = NULL;
    struct wh_errbuf eb = {{0}};
    if (wh_cluster_get_live(fx->cl, "policy.kruise.io", "v1beta1", "podunavailablebudgets",
                            "default", "pub", &obj, &eb))
        return -1;
    long long n = total_of(obj);
    json_decref(obj);
    return n;
}

static enum wh_err write_one(struct fx *fx, const struct wh_writeback_opts *o)
{
    struct wh_errbuf eb = {{0}};
    enum wh_err rc = wh_cluster_write_status(fx->cl, WH_RES_PUB, "default", "pub", increment, NULL,
                                             o, NULL, &eb);
    if (rc)
        fprintf(stderr, "write_status: %s\n", eb.msg);
    return rc;
}

TEST(writeback_base_is_own_last_write)
{
    struct fx fx;
    if (!fx_start(&fx, false)) {
        CHECK(false);
        fx_stop(&fx);
        return;
    }
    (void)requests(&fx, "", "");
    /* no cache: the first write reads the object */
    CHECK_EQ_INT(write_one(&fx, NULL), WH_OK);
    CHECK_EQ_INT(requests(&fx, "GET", PUB_PATH), 1);
    /* the second starts from what the first stored: no read */
    CHECK_EQ_INT(write_one(&fx, NULL), WH_OK);
    CHECK_EQ_INT(requests(&fx, "GET", PUB_PATH), 0);
    CHECK_EQ_INT(stored_total(&fx), 2);
    (void)requests(&fx, "", "");
    /* someone else writes: our remembered base is stale; one conflict, one read, no loss */
    json_t *obj = NULL;
    struct wh_errbuf eb = {{0}};
    CHECK_EQ_INT(wh_cluster_get_live(fx.cl, "policy.kruise.io", "v1beta1", "podunavailablebudgets",
                                     "default", "pub", &obj, &eb),
                 WH_OK);
    json_object_set_new(json_object_get(obj, "status"), "totalReplicas", json_integer(10));
    CHECK_EQ_INT(wh_cluster_update(fx.cl, WH_RES_PUB, obj, true, NULL, &eb), WH_OK);
    json_decref(obj);
    (void)requests(&fx, "", "");
    struct wh_rmw_result res;
    CHECK_EQ_INT(wh_cluster_write_status(fx.cl, WH_RES_PUB, "default", "pub", increment, NULL, NULL,
                                         &res, &eb),
                 WH_OK);
    CHECK_EQ_INT(res.conflicts, 1);
    CHECK_EQ_INT(requests(&fx, "GET", PUB_PATH), 1);
    CHECK_EQ_INT(stored_total(&fx), 11);
    wh_rmw_result_fini(&res);
    /* a dry run decides and writes nothing */
    (void)requests(&fx, "", "");
    struct wh_writeback_opts dry = {.dry_run = true};
    CHECK_EQ_INT(write_one(&fx, &dry), WH_OK);
    CHECK_EQ_INT(requests(&fx, "PUT", PUB_PATH "/status"), 0);
    CHECK_EQ_INT(stored_total(&fx), 11);
    /* absent */
    CHECK_EQ_INT(wh_cluster_write_status(fx.cl, WH_RES_PUB, "default", "nope", increment, NULL,
                                         NULL, NULL, &eb),
                 WH_ERR_NOT_FOUND);
    fx_stop(&fx);
}

TEST(writeback_hot_path_reads_nothing_with_a_cache)
{
    struct fx fx;
    if (!fx_start(&fx, true)) {
        CHECK(false);
        fx_stop(&fx);
        return;
    }
    (void)requests(&fx, "", "");
    for (int i = 0; i < 5; i++)
        CHECK_EQ_INT(write_one(&fx, NULL), WH_OK);
    CHECK_EQ_INT(requests(&fx, "GET", PUB_PATH), 0);
    CHECK_EQ_INT(stored_total(&fx), 5);
    fx_stop(&fx);
}

struct storm {
    struct fx *fx;
    int n;
    int failed;
};

static void *storm_thread(void *arg)
{
    struct storm *st = arg;
    for (int i = 0; i < st->n; i++) {
        if (write_one(st->fx, NULL) != WH_OK)
            __atomic_add_fetch(&st->failed, 1, __ATOMIC_RELAXED);
    }
    return NULL;
}

TEST(writeback_concurrent_in_process_exact)
{
    struct fx fx;
    if (!fx_start(&fx, true)) {
        CHECK(false);
        fx_stop(&fx);
        return;
    }
    pthread_t t[8];
    struct storm st = {&fx, 10, 0};
    for (int i = 0; i < 8; i++)
        pthread_create(&t[i], NULL, storm_thread, &st);
    for (int i = 0; i < 8; i++)
        pthread_join(t[i], NULL);
    CHECK_EQ_INT(st.failed, 0);
    CHECK_EQ_INT(stored_total(&fx), 80);
    /* one process serialises its writes: no conflicts among its own threads */
    fx_stop(&fx);
}

TEST(writeback_standalone)
{
    json_t *objs = json_pack("[o]", pub_object());
    struct wh_cluster *cl = NULL;
    struct wh_errbuf eb = {{0}};
    CHECK_EQ_INT(wh_cluster_new_standalone_objects(objs, &cl, &eb), WH_OK);
    json_decref(objs);
    (void)wh_cluster_declare(cl, WH_RES_PUB, NULL);
    CHECK_EQ_INT(wh_cluster_start(cl, &eb), WH_OK);
    for (int i = 0; i < 3; i++)
        CHECK_EQ_INT(wh_cluster_write_status(cl, WH_RES_PUB, "default", "pub", increment, NULL,
                                             NULL, NULL, &eb),
                     WH_OK);
    json_t *fresh = wh_cluster_freshest(cl, WH_RES_PUB, "default", "pub");
    CHECK_EQ_INT(total_of(fresh), 3);
    json_decref(fresh);
    struct wh_object *o = wh_cache_get(wh_cluster_cache(cl, WH_RES_PUB), "default", "pub");
    CHECK(o && total_of(wh_object_json(o)) == 3);
    wh_object_unref(o);
    CHECK_EQ_INT(wh_cluster_write_status(cl, WH_RES_PUB, "default", "absent", increment, NULL, NULL,
                                         NULL, &eb),
                 WH_ERR_NOT_FOUND);
    wh_cluster_free(cl);
}
