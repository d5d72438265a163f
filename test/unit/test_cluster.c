#include "test/unit/test.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kube/cluster.h"
#include "util/json.h"
#include "util/str.h"

static char *temp_dir(void)
{
    char *dir = strdup("/tmp/wh-state-XXXXXX");
    CHECK(mkdtemp(dir) != NULL);
    return dir;
}

static void remove_dir(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
}

static enum wh_err count_item(void *arg, json_t *item)
{
    (void)item;
    (*(int *)arg)++;
    return WH_OK;
}

TEST(standalone_state_from_a_directory)
{
    char *dir = temp_dir();
    wh_test_write_file(
        dir, "a.yaml",
        "# two documents\n"
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n  labels: {env: prod}\n"
        "---\n"
        "apiVersion: apps.kruise.io/v1beta1\nkind: SidecarSet\nmetadata:\n  name: log\n"
        "spec:\n  selector: {matchLabels: {app: web}}\n");
    wh_test_write_file(dir, "b.json",
                       "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":["
                       "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p1\","
                       "\"namespace\":\"shop\"},\"status\":{\"phase\":\"Running\"}},"
                       "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p2\","
                       "\"namespace\":\"other\"}}]}");
    wh_test_write_file(
        dir, "c.yml",
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n"
        "metadata: {name: widgets.example.com}\n"
        "spec:\n  group: example.com\n  names: {kind: Widget, plural: widgetz}\n"
        "---\napiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w1, namespace: shop}\n");
    wh_test_write_file(dir, "notes.txt", "not: loaded\n");
    wh_test_write_file(dir, ".hidden.yaml", "this: is not loaded either\n");

    struct wh_cluster *cl = NULL;
    struct wh_errbuf eb = {{0}};
    CHECK_EQ_INT(wh_cluster_new_standalone(dir, &cl, &eb), WH_OK);
    if (!cl) {
        fprintf(stderr, "  %s\n", eb.msg);
        remove_dir(dir);
        free(dir);
        return;
    }
    CHECK(wh_cluster_standalone(cl));
    CHECK(wh_cluster_client(cl) == NULL);
    struct wh_cache *pods = wh_cluster_declare(cl, WH_RES_POD, "shop");
    struct wh_cache *sets = wh_cluster_declare(cl, WH_RES_SIDECARSET, NULL);
    char why[128];
    CHECK(!wh_cluster_synced(cl, why, sizeof(why)));
    CHECK_EQ_INT(wh_cluster_start(cl, &eb), WH_OK);
    CHECK(wh_cluster_synced(cl, why, sizeof(why)));
    CHECK_EQ_INT(wh_cache_size(pods), 1); /* only the declared namespace */
    CHECK_EQ_INT(wh_cache_size(sets), 1);
    struct wh_object *o = wh_cache_get(pods, "shop", "p1");
    CHECK(o && wh_object_resource_version(o)[0] != '\0'); /* a resourceVersion was assigned */
    wh_object_unref(o);

    /* Live reads see every namespace, and custom resources under the CRD's plural. */
    int n = 0;
    CHECK_EQ_INT(wh_cluster_list_live(cl, "", "v1", "pods", NULL, NULL, count_item, &n, &eb),
                 WH_OK);
    CHECK_EQ_INT(n, 2);
    n = 0;
    CHECK_EQ_INT(wh_cluster_list_live(cl, "example.com", "v1", "widgetz", NULL, NULL, count_item,
                                      &n, &eb),
                 WH_OK);
    CHECK_EQ_INT(n, 1);
    CHECK_EQ_INT(wh_cluster_list_live(cl, "", "v1", "pods", NULL, "app=web", count_item, &n, &eb),
                 WH_ERR_INVALID);
    json_t *ns = NULL;
    CHECK_EQ_INT(wh_cluster_get_live(cl, "", "v1", "namespaces", NULL, "shop", &ns, &eb), WH_OK);
    CHECK_EQ_STR(wh_json_label(ns, "env"), "prod");
    json_decref(ns);
    CHECK_EQ_INT(wh_cluster_get_live(cl, "", "v1", "namespaces", NULL, "nope", &ns, &eb),
                 WH_ERR_NOT_FOUND);
    wh_cluster_free(cl);
    remove_dir(dir);
    free(dir);
}

TEST(standalone_writes_follow_api_server_rules)
{
    json_t *objs = wh_test_json(
        "[{\"apiVersion\":\"policy.kruise.io/v1beta1\",\"kind\":\"PodUnavailableBudget\","
        "\"metadata\":{\"name\":\"pub\",\"namespace\":\"ns\",\"resourceVersion\":\"7\"},"
        "\"spec\":{\"maxUnavailable\":1},\"status\":{\"unavailableAllowed\":1}}]");
    struct wh_cluster *cl = NULL;
    struct wh_errbuf eb = {{0}};
    CHECK_EQ_INT(wh_cluster_new_standalone_objects(objs, &cl, &eb), WH_OK);
    struct wh_cache *c = wh_cluster_declare(cl, WH_RES_PUB, NULL);
    CHECK_EQ_INT(wh_cluster_start(cl, &eb), WH_OK);

    /* The status subresource changes only status, and bumps the resourceVersion. */
    json_t *upd = wh_test_json("{\"metadata\":{\"name\":\"pub\",\"namespace\":\"ns\","
                               "\"resourceVersion\":\"7\"},\"spec\":{\"maxUnavailable\":9},"
                               "\"status\":{\"unavailableAllowed\":0}}");
    json_t *stored = NULL;
    CHECK_EQ_INT(wh_cluster_update(cl, WH_RES_PUB, upd, true, &stored, &eb), WH_OK);
    CHECK_EQ_INT(json_integer_value(wh_json_path(stored, "spec", "maxUnavailable", NULL)), 1);
    CHECK_EQ_INT(json_integer_value(wh_json_path(stored, "status", "unavailableAllowed", NULL)),
                 0);
    CHECK(!wh_str_eq(wh_json_meta_str(stored, "resourceVersion"), "7"));
    /* The declared cache sees the write. */
    struct wh_object *o = wh_cache_get(c, "ns", "pub");
    CHECK(o != NULL);
    if (o)
        CHECK_EQ_INT(json_integer_value(
                         wh_json_path(wh_object_json(o), "status", "unavailableAllowed", NULL)),
                     0);
    wh_object_unref(o);
    /* A stale resourceVersion is a conflict; a missing object is not found. */
    CHECK_EQ_INT(wh_cluster_update(cl, WH_RES_PUB, upd, true, NULL, &eb), WH_ERR_CONFLICT);
    CHECK(strstr(eb.msg, "the object has been modified") != NULL);
    json_object_set_new(json_object_get(upd, "metadata"), "name", json_string("gone"));
    CHECK_EQ_INT(wh_cluster_update(cl, WH_RES_PUB, upd, true, NULL, &eb), WH_ERR_NOT_FOUND);
    json_decref(stored);
    json_decref(upd);
    json_decref(objs);
    wh_cluster_free(cl);
}

static enum wh_err zero_allowed(void *arg, const json_t *current, json_t **desired,
                                struct wh_errbuf *eb)
{
    (void)arg;
    (void)eb;
    *desired = wh_json_copy(current);
    json_object_set_new(wh_json_obj_ensure(*desired, "status"), "unavailableAllowed",
                        json_integer(0));
    return WH_OK;
}

static long long allowed_of(json_t *pub)
{
    long long v = pub ? json_integer_value(wh_json_path(pub, "status", "unavailableAllowed", NULL))
                      : -1;
    json_decref(pub);
    return v;
}

TEST(standalone_state_reload_replaces_everything)
{
    char *dir = temp_dir();
    const char *pub = "apiVersion: policy.kruise.io/v1beta1\nkind: PodUnavailableBudget\n"
                      "metadata: {name: pub, namespace: ns}\nspec: {maxUnavailable: 1}\n";
    char *first = wh_str_printf("%sstatus: {unavailableAllowed: 1}\n---\n"
                                "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ns}\n",
                                pub);
    wh_test_write_file(dir, "state.yaml", first);
    struct wh_cluster *cl = NULL;
    struct wh_errbuf eb = {{0}};
    CHECK_EQ_INT(wh_cluster_new_standalone(dir, &cl, &eb), WH_OK);
    struct wh_cache *c = wh_cluster_declare(cl, WH_RES_PUB, NULL);
    CHECK_EQ_INT(wh_cluster_start(cl, &eb), WH_OK);
    /* A status write, remembered by this process as the freshest copy. */
    struct wh_writeback_opts opts = {0};
    CHECK_EQ_INT(wh_cluster_write_status(cl, WH_RES_PUB, "ns", "pub", zero_allowed, NULL, &opts,
                                         NULL, &eb),
                 WH_OK);
    CHECK_EQ_INT(allowed_of(wh_cluster_freshest(cl, WH_RES_PUB, "ns", "pub")), 0);

    /* The new state: the PUB again (no resourceVersion: numbering restarts low), a Namespace,
     * and no Pod. The write made on the old state is forgotten, the Pod is gone, the new kind
     * is there, and the declared cache holds the new PUB. */
    char *second = wh_str_printf("%sstatus: {unavailableAllowed: 5}\n---\n"
                                 "apiVersion: v1\nkind: Namespace\nmetadata: {name: ns}\n",
                                 pub);
    wh_test_write_file(dir, "state.yaml", second);
    size_t n = 0;
    CHECK_EQ_INT(wh_cluster_reload_standalone(cl, dir, &n, &eb), WH_OK);
    CHECK_EQ_INT(n, 2);
    CHECK_EQ_INT(allowed_of(wh_cluster_freshest(cl, WH_RES_PUB, "ns", "pub")), 5);
    CHECK_EQ_INT(wh_cache_size(c), 1);
    json_t *got = NULL;
    CHECK_EQ_INT(wh_cluster_get_live(cl, "", "v1", "pods", "ns", "p", &got, &eb),
                 WH_ERR_NOT_FOUND);
    CHECK_EQ_INT(wh_cluster_get_live(cl, "", "v1", "namespaces", NULL, "ns", &got, &eb), WH_OK);
    json_decref(got);

    /* A state that no longer loads is refused, naming the place, and the state in use stays. */
    wh_test_write_file(dir, "state.yaml", "apiVersion: v1\nkind: Namespace\nmetadata: [\n");
    CHECK(wh_cluster_reload_standalone(cl, dir, &n, &eb) != WH_OK);
    CHECK(strstr(eb.msg, "state.yaml") != NULL);
    CHECK_EQ_INT(allowed_of(wh_cluster_freshest(cl, WH_RES_PUB, "ns", "pub")), 5);
    CHECK_EQ_INT(wh_cluster_get_live(cl, "", "v1", "namespaces", NULL, "ns", &got, &eb), WH_OK);
    json_decref(got);

    wh_cluster_free(cl);
    free(first);
    free(second);
    remove_dir(dir);
    free(dir);
}

TEST(standalone_state_errors_name_the_place)
{
    char *dir = temp_dir();
    wh_test_write_file(dir, "bad.yaml",
                       "apiVersion: v1\nkind: Pod\nmetadata:\n  name: [unclosed\n");
    struct wh_cluster *cl = NULL;
    struct wh_errbuf eb = {{0}};
    CHECK_EQ_INT(wh_cluster_new_standalone(dir, &cl, &eb), WH_ERR_PARSE);
    char want[600];
    snprintf(want, sizeof(want), "%s/bad.yaml:", dir);
    CHECK(strncmp(eb.msg, want, strlen(want)) == 0);
    wh_test_write_file(dir, "bad.yaml", "kind: Pod\nmetadata: {name: x}\n");
    CHECK_EQ_INT(wh_cluster_new_standalone(dir, &cl, &eb), WH_ERR_INVALID);
    CHECK(strstr(eb.msg, "needs apiVersion, kind and metadata.name") != NULL);
    /* An empty name is an error, not an abort (found by fuzz_state). */
    wh_test_write_file(dir, "bad.yaml",
                       "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: \"\"\n");
    CHECK_EQ_INT(wh_cluster_new_standalone(dir, &cl, &eb), WH_ERR_INVALID);
    CHECK(strstr(eb.msg, "needs apiVersion, kind and metadata.name") != NULL);
    wh_test_write_file(dir, "bad.yaml", "- just\n- a list\n");
    CHECK_EQ_INT(wh_cluster_new_standalone(dir, &cl, &eb), WH_ERR_INVALID);
    CHECK(strstr(eb.msg, "not an object") != NULL);
    CHECK_EQ_INT(wh_cluster_new_standalone("/nonexistent/state", &cl, &eb), WH_ERR_IO);
    CHECK(strstr(eb.msg, "/nonexistent/state") != NULL);
    CHECK(cl == NULL);
    remove_dir(dir);
    free(dir);
}
