#include "test/unit/test.h"

#include <stdlib.h>
#include <unistd.h>

#include "kube/cache.h"
#include "kube/client.h"
#include "kube/cluster.h"
#include "kube/informer.h"
#include "test/support/apiserver_proc.h"
#include "util/json.h"
#include "util/str.h"
#include "util/time.h"

/* A fake API server plus a client on it, shared by the informer tests. */
struct fixture {
    struct wh_apiserver *api;
    struct wh_kube_client *client;
};

static bool fixture_start(struct fixture *f, bool kruise)
{
    memset(f, 0, sizeof(*f));
    wh_test_curl_init();
    struct wh_errbuf eb = {{0}};
    const char *extra[] = {"--bookmark-interval", "0.2", NULL};
    struct wh_apiserver_opts ao = {.kruise_crds = kruise, .extra_args = extra};
    if (wh_apiserver_start(&ao, &f->api, &eb)) {
        fprintf(stderr, "fake API server: %s\n", eb.msg);
        return false;
    }
    char *kc = NULL;
    struct wh_kc_opts ko = {.auth = WH_KC_AUTH_NONE, .ca = WH_KC_CA_DATA};
    if (wh_apiserver_write_kubeconfig(f->api, &ko, NULL, &kc, &eb))
        return false;
    struct wh_kube_opts opts = {.kubeconfig = kc, .timeout_ms = 5000, .max_retries = 0};
    enum wh_err rc = wh_kube_client_new(&opts, &f->client, &eb);
    free(kc);
    return rc == WH_OK;
}

static void fixture_stop(struct fixture *f)
{
    wh_kube_client_free(f->client);
    wh_apiserver_stop(f->api);
}

static void put_configmaps(struct fixture *f, int from, int to, const char *value)
{
    json_t *items = json_array();
    for (int i = from; i < to; i++) {
        char name[32];
        snprintf(name, sizeof(name), "cm-%04d", i);
        json_array_append_new(items, json_pack("{s:s,s:s,s:{s:s,s:s},s:{s:s}}", "apiVersion", "v1",
                                               "kind", "ConfigMap", "metadata", "name", name,
                                               "namespace", "default", "data", "v", value));
    }
    char *body = wh_json_dumps(items);
    struct wh_errbuf eb = {{0}};
    CHECK_EQ_INT(wh_apiserver_control(f->api, "POST", "objects", body, NULL, &eb), WH_OK);
    free(body);
    json_decref(items);
}

/* Waits until cm-<index> in the cache has data.v == value (NULL: until it is absent). */
static bool wait_for(struct wh_cache *c, int index, const char *value)
{
    char name[32];
    snprintf(name, sizeof(name), "cm-%04d", index);
    for (int i = 0; i < 500; i++) {
        struct wh_object *o = wh_cache_get(c, "default", name);
        const char *v = o ? wh_json_path_str(wh_object_json(o), "data", "v", NULL) : NULL;
        bool done = value ? wh_str_eq(v, value) : o == NULL;
        wh_object_unref(o);
        if (done)
            return true;
        wh_time_sleep_ms(20);
    }
    return false;
}

static bool wait_size(struct wh_cache *c, size_t n)
{
    for (int i = 0; i < 500 && wh_cache_size(c) != n; i++)
        wh_time_sleep_ms(20);
    return wh_cache_size(c) == n;
}

TEST(informer_lists_then_follows_the_watch)
{
    struct fixture f;
    CHECK(fixture_start(&f, false));
    if (!f.client) {
        fixture_stop(&f);
        return;
    }
    put_configmaps(&f, 0, 1200, "a"); /* more than two pages of 500 */
    struct wh_cache *c = wh_cache_new(WH_RES_CONFIGMAP);
    struct wh_informer *inf = NULL;
    struct wh_informer_opts o = {.group = "", .version = "v1", .resource = "configmaps",
                                 .ns = "default", .backoff_max_ms = 500};
    CHECK_EQ_INT(wh_informer_start(f.client, c, &o, &inf), WH_OK);
    for (int i = 0; i < 500 && !wh_cache_synced(c); i++)
        wh_time_sleep_ms(20);
    CHECK(wh_cache_synced(c));
    CHECK_EQ_INT(wh_cache_size(c), 1200);

    /* Changes arrive through the watch. */
    put_configmaps(&f, 5, 6, "b");
    CHECK(wait_for(c, 5, "b"));
    struct wh_errbuf eb = {{0}};
    CHECK_EQ_INT(wh_apiserver_control(f.api, "POST", "reset", NULL, NULL, &eb), WH_OK);
    CHECK(wait_size(c, 0)); /* deletions too */

    /* A dropped watch resumes from the last resourceVersion and misses nothing. */
    put_configmaps(&f, 0, 3, "c");
    CHECK(wait_for(c, 2, "c"));
    CHECK_EQ_INT(wh_apiserver_control(f.api, "POST", "drop-watches", NULL, NULL, &eb), WH_OK);
    put_configmaps(&f, 1, 2, "d");
    CHECK(wait_for(c, 1, "d"));

    /* After a compaction the old resourceVersion is gone (410): the informer relists and the
     * cache ends up exact, with objects changed while it was away. */
    CHECK_EQ_INT(wh_apiserver_control(f.api, "POST", "drop-watches", NULL, NULL, &eb), WH_OK);
    put_configmaps(&f, 2, 3, "e");
    CHECK_EQ_INT(wh_apiserver_control(f.api, "POST", "compact", NULL, NULL, &eb), WH_OK);
    CHECK(wait_for(c, 2, "e"));
    CHECK(wait_size(c, 3));
    wh_informer_stop(inf);
    wh_cache_free(c);
    fixture_stop(&f);
}

TEST(informer_survives_failing_lists)
{
    struct fixture f;
    CHECK(fixture_start(&f, false));
    if (!f.client) {
        fixture_stop(&f);
        return;
    }
    put_configmaps(&f, 0, 3, "a");
    struct wh_errbuf eb = {{0}};
    /* The first three lists fail: the cache is not synced meanwhile, then it is. */
    CHECK_EQ_INT(wh_apiserver_control(f.api, "POST",
                                      "fail?code=500&count=3&path_prefix=/api/v1/namespaces/"
                                      "default/configmaps&methods=GET",
                                      NULL, NULL, &eb),
                 WH_OK);
    struct wh_cache *c = wh_cache_new(WH_RES_CONFIGMAP);
    struct wh_informer *inf = NULL;
    struct wh_informer_opts o = {.group = "", .version = "v1", .resource = "configmaps",
                                 .ns = "default", .backoff_max_ms = 200};
    CHECK_EQ_INT(wh_informer_start(f.client, c, &o, &inf), WH_OK);
    wh_time_sleep_ms(50);
    CHECK(!wh_cache_synced(c));
    for (int i = 0; i < 500 && !wh_cache_synced(c); i++)
        wh_time_sleep_ms(20);
    CHECK(wh_cache_synced(c));
    CHECK_EQ_INT(wh_cache_size(c), 3);
    wh_informer_stop(inf);
    wh_cache_free(c);
    fixture_stop(&f);
}

TEST(cluster_api_mode_picks_versions_and_syncs)
{
    struct fixture f;
    CHECK(fixture_start(&f, true));
    if (!f.client) {
        fixture_stop(&f);
        return;
    }
    json_t *ss = wh_test_json("[{\"apiVersion\":\"apps.kruise.io/v1beta1\",\"kind\":\"SidecarSet\","
                              "\"metadata\":{\"name\":\"s1\"},\"spec\":{}}]");
    char *body = wh_json_dumps(ss);
    struct wh_errbuf eb = {{0}};
    CHECK_EQ_INT(wh_apiserver_control(f.api, "POST", "objects", body, NULL, &eb), WH_OK);
    free(body);
    json_decref(ss);
    struct wh_cluster *cl = NULL;
    CHECK_EQ_INT(wh_cluster_new_api(f.client, &cl, &eb), WH_OK); /* takes the client */
    f.client = NULL;
    struct wh_cache *c = wh_cluster_declare(cl, WH_RES_SIDECARSET, NULL);
    CHECK(wh_cluster_declare(cl, WH_RES_SIDECARSET, NULL) == c);
    char why[256] = "";
    CHECK(!wh_cluster_synced(cl, why, sizeof(why)));
    CHECK(strstr(why, "sidecarsets.apps.kruise.io") != NULL);
    CHECK_EQ_INT(wh_cluster_start(cl, &eb), WH_OK);
    CHECK_EQ_STR(wh_cluster_version(cl, WH_RES_SIDECARSET), "v1beta1");
    for (int i = 0; i < 500 && !wh_cluster_synced(cl, why, sizeof(why)); i++)
        wh_time_sleep_ms(20);
    CHECK(wh_cluster_synced(cl, why, sizeof(why)));
    struct wh_object *o = wh_cache_get(c, NULL, "s1");
    CHECK(o != NULL);
    wh_object_unref(o);
    wh_cluster_free(cl);
    fixture_stop(&f);
}

TEST(cluster_api_mode_older_openkruise_serves_v1alpha1)
{
    wh_test_curl_init();
    struct wh_errbuf eb = {{0}};
    const char *extra[] = {"--kruise-crds-alpha-only", NULL};
    struct wh_apiserver_opts ao = {.extra_args = extra};
    struct wh_apiserver *api = NULL;
    CHECK_EQ_INT(wh_apiserver_start(&ao, &api, &eb), WH_OK);
    if (!api)
        return;
    char *kc = NULL;
    struct wh_kc_opts ko = {.auth = WH_KC_AUTH_NONE, .ca = WH_KC_CA_DATA};
    CHECK_EQ_INT(wh_apiserver_write_kubeconfig(api, &ko, NULL, &kc, &eb), WH_OK);
    struct wh_kube_opts opts = {.kubeconfig = kc, .timeout_ms = 5000};
    struct wh_kube_client *client = NULL;
    CHECK_EQ_INT(wh_kube_client_new(&opts, &client, &eb), WH_OK);
    free(kc);
    struct wh_cluster *cl = NULL;
    CHECK_EQ_INT(wh_cluster_new_api(client, &cl, &eb), WH_OK);
    wh_cluster_declare(cl, WH_RES_SIDECARSET, NULL);
    CHECK_EQ_INT(wh_cluster_start(cl, &eb), WH_OK);
    CHECK_EQ_STR(wh_cluster_version(cl, WH_RES_SIDECARSET), "v1alpha1");
    wh_cluster_free(cl);
    wh_apiserver_stop(api);
}
