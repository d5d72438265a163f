#include "test/unit/test.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kube/client.h"
#include "kube/ratelimit.h"
#include "kube/token.h"
#include "test/support/apiserver_proc.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/json.h"
#include "util/mem.h"
#include "util/str.h"
#include "util/time.h"

#define MS 1000000LL

/* --- pure parts ------------------------------------------------------------------------------ */

TEST(kube_path_builds_resource_paths)
{
    char p[128];
    CHECK_EQ_INT(wh_kube_path(p, sizeof(p), "", "v1", "pods", "ns1", "web-0", "status"), WH_OK);
    CHECK_EQ_STR(p, "/api/v1/namespaces/ns1/pods/web-0/status");
    CHECK_EQ_INT(wh_kube_path(p, sizeof(p), NULL, "v1", "namespaces", NULL, "kube-system", NULL),
                 WH_OK);
    CHECK_EQ_STR(p, "/api/v1/namespaces/kube-system");
    CHECK_EQ_INT(wh_kube_path(p, sizeof(p), "apps.kruise.io", "v1beta1", "sidecarsets", "", "",
                              ""),
                 WH_OK);
    CHECK_EQ_STR(p, "/apis/apps.kruise.io/v1beta1/sidecarsets");
    CHECK_EQ_INT(wh_kube_path(p, sizeof(p), "apps", "v1", "deployments", "d", NULL, NULL), WH_OK);
    CHECK_EQ_STR(p, "/apis/apps/v1/namespaces/d/deployments");
    CHECK_EQ_INT(wh_kube_path(p, sizeof(p), "rbac.authorization.k8s.io", "v1", "clusterroles",
                              NULL, "system:controller:x", NULL),
                 WH_OK);
    CHECK_EQ_STR(p, "/apis/rbac.authorization.k8s.io/v1/clusterroles/system:controller:x");
    CHECK_EQ_INT(wh_kube_path(p, sizeof(p), "apps", "v1", NULL, NULL, NULL, NULL), WH_OK);
    CHECK_EQ_STR(p, "/apis/apps/v1");
    /* Bad segments, missing parts, too small a buffer. */
    CHECK_EQ_INT(wh_kube_path(p, sizeof(p), "", "v1", "pods", "a/b", "x", NULL), WH_ERR_INVALID);
    CHECK_EQ_INT(wh_kube_path(p, sizeof(p), "", "v1", "pods", NULL, "..", NULL), WH_ERR_INVALID);
    CHECK_EQ_INT(wh_kube_path(p, sizeof(p), "", "v1", "pods", NULL, "a?b", NULL), WH_ERR_INVALID);
    CHECK_EQ_INT(wh_kube_path(p, sizeof(p), "", "v1", "pods", NULL, "a b", NULL), WH_ERR_INVALID);
    CHECK_EQ_INT(wh_kube_path(p, sizeof(p), "", "v1", "pods", NULL, "a%2F", NULL),
                 WH_ERR_INVALID);
    CHECK_EQ_INT(wh_kube_path(p, sizeof(p), "", NULL, "pods", NULL, NULL, NULL), WH_ERR_INVALID);
    CHECK_EQ_INT(wh_kube_path(p, sizeof(p), "", "v1", "pods", "ns", NULL, "status"),
                 WH_ERR_INVALID);
    CHECK_EQ_INT(wh_kube_path(p, sizeof(p), "", "v1", NULL, "ns", NULL, NULL), WH_ERR_INVALID);
    CHECK_EQ_INT(wh_kube_path(p, 20, "", "v1", "pods", "ns1", "web-0", NULL), WH_ERR_TOO_BIG);
    CHECK_EQ_INT(wh_kube_path(p, 8, "", "v1", "pods", NULL, NULL, NULL), WH_ERR_TOO_BIG);
}

TEST(kube_ratelimit_token_bucket)
{
    struct wh_ratelimit rl;
    int64_t t = 1000 * MS, w = -1;
    wh_ratelimit_init(&rl, 10.0, 3, t);
    /* The burst is available at once. */
    for (int i = 0; i < 3; i++) {
        CHECK(wh_ratelimit_reserve(&rl, t, -1, &w));
        CHECK_EQ_INT(w, 0);
    }
    /* Then one token every 100 ms, queued: callers get successive slots. */
    CHECK(wh_ratelimit_reserve(&rl, t, -1, &w));
    CHECK_EQ_INT(w, 100 * MS);
    CHECK(wh_ratelimit_reserve(&rl, t, -1, &w));
    CHECK_EQ_INT(w, 200 * MS);
    /* A caller that cannot wait that long takes nothing. */
    CHECK(!wh_ratelimit_reserve(&rl, t, 250 * MS, &w));
    CHECK(wh_ratelimit_reserve(&rl, t, 300 * MS, &w));
    CHECK_EQ_INT(w, 300 * MS);
    /* 50 ms later the next slot is 50 ms nearer. */
    CHECK(wh_ratelimit_reserve(&rl, t + 50 * MS, -1, &w));
    CHECK_EQ_INT(w, 350 * MS);
    /* After a long idle time the bucket holds burst tokens again, not more. */
    t += 10000 * MS;
    for (int i = 0; i < 3; i++) {
        CHECK(wh_ratelimit_reserve(&rl, t, -1, &w));
        CHECK_EQ_INT(w, 0);
    }
    CHECK(wh_ratelimit_reserve(&rl, t, -1, &w));
    CHECK_EQ_INT(w, 100 * MS);
    /* A clock reading from the past (a thread that lost the race to the lock) adds nothing. */
    CHECK(wh_ratelimit_reserve(&rl, t - 5000 * MS, -1, &w));
    CHECK_EQ_INT(w, 200 * MS);
    wh_ratelimit_fini(&rl);

    /* qps <= 0: unlimited; burst < 1 counts as 1. */
    wh_ratelimit_init(&rl, 0, 0, 0);
    for (int i = 0; i < 1000; i++)
        CHECK(wh_ratelimit_reserve(&rl, 0, 0, &w) && w == 0);
    wh_ratelimit_fini(&rl);
    wh_ratelimit_init(&rl, 2.0, 0, 0);
    CHECK(wh_ratelimit_reserve(&rl, 0, -1, &w) && w == 0);
    CHECK(wh_ratelimit_reserve(&rl, 0, -1, &w) && w == 500 * MS);
    wh_ratelimit_fini(&rl);
}

static char *tmp_token_file(const char *content)
{
    char tmpl[] = "/tmp/wh-token-XXXXXX";
    int fd = mkstemp(tmpl);
    if (fd < 0)
        abort();
    if (write(fd, content, strlen(content)) != (ssize_t)strlen(content))
        abort();
    close(fd);
    return wh_xstrdup(tmpl);
}

static void rewrite(const char *path, const char *content)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        abort();
    fputs(content, f);
    fclose(f);
}

TEST(kube_token_source_rereads_the_file)
{
    char *path = tmp_token_file("  one\n");
    struct wh_token_source ts;
    struct wh_errbuf eb = {{0}};
    int64_t t = 5000 * MS;
    wh_token_init(&ts, "fixed", path, 60000 * MS);
    CHECK(wh_token_has_file(&ts));
    CHECK_EQ_INT(wh_token_load(&ts, t, &eb), WH_OK);
    char *tok = wh_token_get(&ts, t, false);
    CHECK_EQ_STR(tok, "one"); /* the file wins over the fixed token, trimmed */
    free(tok);

    rewrite(path, "two\n");
    tok = wh_token_get(&ts, t + 59999 * MS, false);
    CHECK_EQ_STR(tok, "one"); /* still fresh */
    free(tok);
    tok = wh_token_get(&ts, t + 60000 * MS, false);
    CHECK_EQ_STR(tok, "two"); /* re-read after the period */
    free(tok);
    rewrite(path, "three\n");
    tok = wh_token_get(&ts, t + 60001 * MS, true);
    CHECK_EQ_STR(tok, "three"); /* forced (after a 401) */
    free(tok);

    /* A broken re-read keeps the last good token. */
    rewrite(path, "");
    tok = wh_token_get(&ts, t + 999999 * MS, true);
    CHECK_EQ_STR(tok, "three");
    free(tok);
    rewrite(path, "bad\001token");
    tok = wh_token_get(&ts, t + 999999 * MS, true);
    CHECK_EQ_STR(tok, "three");
    free(tok);
    wh_token_fini(&ts);

    /* No file readable at start: the fixed token is used; without one it is an error. */
    unlink(path);
    wh_token_init(&ts, "fixed", path, 0);
    CHECK_EQ_INT(wh_token_load(&ts, t, &eb), WH_OK);
    tok = wh_token_get(&ts, t, false);
    CHECK_EQ_STR(tok, "fixed");
    free(tok);
    wh_token_fini(&ts);
    wh_token_init(&ts, NULL, path, 0);
    CHECK_EQ_INT(wh_token_load(&ts, t, &eb), WH_ERR_IO);
    CHECK(strstr(eb.msg, path) != NULL);
    wh_token_fini(&ts);
    /* Neither: no token. */
    wh_token_init(&ts, NULL, NULL, 0);
    CHECK_EQ_INT(wh_token_load(&ts, t, &eb), WH_OK);
    CHECK(wh_token_get(&ts, t, true) == NULL);
    CHECK(!wh_token_has_file(&ts));
    wh_token_fini(&ts);
    free(path);
}

/* --- against the fake API server ------------------------------------------------------------ */

struct fixture {
    struct wh_apiserver *srv;
    struct wh_kube_client *c;
};

static bool fx_start(struct fixture *fx, const struct wh_apiserver_opts *so,
                     const struct wh_kc_opts *ko, const struct wh_kube_opts *co)
{
    struct wh_errbuf eb = {{0}};
    char *kc = NULL;
    memset(fx, 0, sizeof(*fx));
    if (wh_apiserver_start(so, &fx->srv, &eb)) {
        fprintf(stderr, "cannot start the fake apiserver: %s\n", eb.msg);
        CHECK(false);
        return false;
    }
    struct wh_kc_opts kdef = {WH_KC_AUTH_NONE, WH_KC_CA_DATA, NULL, NULL, NULL, NULL};
    if (wh_apiserver_write_kubeconfig(fx->srv, ko ? ko : &kdef, NULL, &kc, &eb)) {
        fprintf(stderr, "kubeconfig: %s\n", eb.msg);
        CHECK(false);
        return false;
    }
    struct wh_kube_opts cdef = {.timeout_ms = 10000, .max_retries = 3};
    struct wh_kube_opts o = co ? *co : cdef;
    o.kubeconfig = kc;
    enum wh_err rc = wh_kube_client_new(&o, &fx->c, &eb);
    free(kc);
    if (rc) {
        fprintf(stderr, "client: %s\n", eb.msg);
        CHECK(false);
        return false;
    }
    return true;
}

static void fx_stop(struct fixture *fx)
{
    wh_kube_client_free(fx->c);
    wh_apiserver_stop(fx->srv);
}

static json_t *control_get(struct fixture *fx, const char *what)
{
    json_t *out = NULL;
    struct wh_errbuf eb = {{0}};
    if (wh_apiserver_control(fx->srv, "GET", what, NULL, &out, &eb)) {
        fprintf(stderr, "control: %s\n", eb.msg);
        abort();
    }
    return out;
}

static void clear_requests(struct fixture *fx)
{
    if (wh_apiserver_control(fx->srv, "DELETE", "requests", NULL, NULL, NULL))
        abort();
}

/* The requests the server logged whose path starts with prefix. Returns: new ref. */
static json_t *requests_to(struct fixture *fx, const char *prefix)
{
    json_t *all = control_get(fx, "requests");
    json_t *out = json_array();
    size_t i;
    json_t *r;
    json_array_foreach(all, i, r)
    {
        if (wh_str_has_prefix(wh_json_str(r, "path"), prefix))
            json_array_append(out, r);
    }
    json_decref(all);
    return out;
}

static json_t *configmap(const char *name, const char *value)
{
    json_t *o = json_pack("{s:s, s:s, s:{s:s, s:s}, s:{s:s}}", "apiVersion", "v1", "kind",
                          "ConfigMap", "metadata", "name", name, "namespace", "default", "data",
                          "k", value);
    WH_ASSERT(o);
    return o;
}

#define CM_PATH "/api/v1/namespaces/default/configmaps"

TEST(kube_client_crud_conflict_and_not_found)
{
    struct fixture fx;
    if (!fx_start(&fx, NULL, NULL, NULL))
        goto out;
    struct wh_kube_status st;
    json_t *obj = configmap("cm1", "v1");
    json_t *got = NULL, *got2 = NULL;

    CHECK_EQ_INT(wh_kube_create(fx.c, CM_PATH, obj, &got, &st), WH_OK);
    CHECK_EQ_INT(st.code, 201);
    CHECK_EQ_INT(st.attempts, 1);
    const char *rv1 = wh_json_meta_str(got, "resourceVersion");
    CHECK(rv1 && *rv1);

    CHECK_EQ_INT(wh_kube_get(fx.c, CM_PATH "/cm1", &got2, &st), WH_OK);
    CHECK_EQ_INT(st.code, 200);
    CHECK_EQ_STR(wh_json_path_str(got2, "data", "k", NULL), "v1");
    CHECK_EQ_STR(wh_json_str(got2, "kind"), "ConfigMap");

    /* Update with the current resourceVersion, then again with the stale one. */
    json_t *upd = json_deep_copy(got2);
    json_object_set_new(wh_json_obj(upd, "data"), "k", json_string("v2"));
    json_t *after = NULL;
    CHECK_EQ_INT(wh_kube_update(fx.c, CM_PATH "/cm1", upd, &after, &st), WH_OK);
    CHECK_EQ_STR(wh_json_path_str(after, "data", "k", NULL), "v2");
    CHECK(!wh_str_eq(wh_json_meta_str(after, "resourceVersion"), rv1));
    json_decref(after);
    after = NULL;
    json_object_set_new(wh_json_obj(upd, "data"), "k", json_string("v3"));
    CHECK_EQ_INT(wh_kube_update(fx.c, CM_PATH "/cm1", upd, &after, &st), WH_ERR_CONFLICT);
    CHECK(after == NULL);
    CHECK_EQ_INT(st.code, 409);
    CHECK_EQ_STR(st.reason, "Conflict");
    CHECK(strstr(st.message, "modified") != NULL);

    /* Merge, strategic and JSON patches. */
    json_t *mp = wh_test_json("{\"data\":{\"m\":\"merge\"}}");
    CHECK_EQ_INT(wh_kube_patch(fx.c, CM_PATH "/cm1", WH_PATCH_MERGE, mp, &after, &st), WH_OK);
    CHECK_EQ_STR(wh_json_path_str(after, "data", "m", NULL), "merge");
    CHECK_EQ_STR(wh_json_path_str(after, "data", "k", NULL), "v2");
    json_decref(after);
    json_decref(mp);
    mp = wh_test_json("{\"metadata\":{\"labels\":{\"s\":\"smp\"}}}");
    CHECK_EQ_INT(wh_kube_patch(fx.c, CM_PATH "/cm1", WH_PATCH_STRATEGIC, mp, NULL, &st), WH_OK);
    json_decref(mp);
    json_t *jp = wh_test_json("[{\"op\":\"test\",\"path\":\"/data/k\",\"value\":\"v2\"},"
                              "{\"op\":\"replace\",\"path\":\"/data/k\",\"value\":\"json\"},"
                              "{\"op\":\"remove\",\"path\":\"/data/m\"}]");
    CHECK_EQ_INT(wh_kube_patch(fx.c, CM_PATH "/cm1", WH_PATCH_JSON, jp, &after, &st), WH_OK);
    CHECK_EQ_STR(wh_json_path_str(after, "data", "k", NULL), "json");
    CHECK(wh_json_path(after, "data", "m", NULL) == NULL);
    CHECK_EQ_STR(wh_json_label(after, "s"), "smp");
    json_decref(after);
    /* A failing JSON patch test op is an error answer (422 on the real server). */
    CHECK_EQ_INT(wh_kube_patch(fx.c, CM_PATH "/cm1", WH_PATCH_JSON, jp, NULL, &st), WH_ERR_KUBE);
    CHECK(st.code >= 400 && st.code < 500);
    json_decref(jp);

    /* Create again: AlreadyExists is a conflict. */
    CHECK_EQ_INT(wh_kube_create(fx.c, CM_PATH, obj, NULL, &st), WH_ERR_CONFLICT);
    CHECK_EQ_STR(st.reason, "AlreadyExists");

    /* Delete (with options), then it is gone. */
    json_t *delopts = wh_test_json("{\"kind\":\"DeleteOptions\",\"apiVersion\":\"v1\","
                                   "\"propagationPolicy\":\"Background\"}");
    CHECK_EQ_INT(wh_kube_delete(fx.c, CM_PATH "/cm1", delopts, &st), WH_OK);
    json_decref(delopts);
    json_t *none = NULL;
    CHECK_EQ_INT(wh_kube_get(fx.c, CM_PATH "/cm1", &none, &st), WH_ERR_NOT_FOUND);
    CHECK(none == NULL);
    CHECK_EQ_INT(st.code, 404);
    CHECK_EQ_STR(st.reason, "NotFound");
    CHECK(strstr(st.message, "cm1") != NULL);
    CHECK_EQ_INT(wh_kube_delete(fx.c, CM_PATH "/cm1", NULL, &st), WH_ERR_NOT_FOUND);

    /* A resource the server does not know is a 404 too; st may be NULL. */
    CHECK_EQ_INT(wh_kube_get(fx.c, "/apis/nope.example/v1/things", &none, NULL),
                 WH_ERR_NOT_FOUND);
    CHECK_EQ_INT(wh_kube_get(fx.c, "no-slash", &none, &st), WH_ERR_INVALID);

    /* Every request carried our identity. */
    json_t *reqs = requests_to(&fx, "/api/v1");
    CHECK(json_array_size(reqs) >= 8);
    char ua[64];
    snprintf(ua, sizeof(ua), "kruise-webhook/%s (linux)", "0.1.0");
    size_t i;
    json_t *r;
    json_array_foreach(reqs, i, r)
    {
        CHECK_EQ_STR(wh_json_str(r, "userAgent"), ua);
        CHECK_EQ_STR(wh_json_str(r, "accept"), "application/json");
    }
    json_decref(reqs);

    json_decref(obj);
    json_decref(got);
    json_decref(got2);
    json_decref(upd);
out:
    fx_stop(&fx);
}

/* A read-only client (explain) sends GET requests and refuses every other verb before anything
 * leaves the process: the API server never sees the write. */
TEST(kube_client_read_only_sends_no_write)
{
    struct fixture fx;
    struct wh_kube_opts ro = {.timeout_ms = 10000, .max_retries = 3, .read_only = true};
    if (!fx_start(&fx, NULL, NULL, &ro))
        goto out;
    struct wh_kube_status st;
    json_t *obj = configmap("cm-ro", "v1");
    json_t *got = NULL;
    clear_requests(&fx);
    CHECK_EQ_INT(wh_kube_create(fx.c, CM_PATH, obj, &got, &st), WH_ERR_INVALID);
    CHECK(got == NULL);
    CHECK(strstr(st.message, "a read-only client sends no POST") != NULL);
    CHECK_EQ_INT(wh_kube_update(fx.c, CM_PATH "/cm-ro", obj, NULL, &st), WH_ERR_INVALID);
    CHECK_EQ_INT(wh_kube_delete(fx.c, CM_PATH "/cm-ro", NULL, &st), WH_ERR_INVALID);
    CHECK_EQ_INT(wh_kube_get(fx.c, CM_PATH "/cm-ro", &got, &st), WH_ERR_NOT_FOUND);
    json_t *reqs = control_get(&fx, "requests");
    CHECK_EQ_INT((int)json_array_size(reqs), 1);
    CHECK_EQ_STR(wh_json_str(json_array_get(reqs, 0), "method"), "GET");
    json_decref(reqs);
    json_decref(obj);
out:
    fx_stop(&fx);
}

/* A write from inside a request, with jansson allocating from the request's arena (a handler's
 * dry run, as ResourceDistribution's): the body the client encodes is its own memory. Before,
 * it was json_dumps' arena memory given to free(), and the process aborted. */
TEST(kube_client_writes_under_the_request_arena)
{
    struct fixture fx;
    if (!fx_start(&fx, NULL, NULL, NULL))
        goto out;
    struct wh_kube_status st;
    wh_arena_begin();
    json_t *obj = configmap("cm-arena", "v1");
    json_t *got = NULL;
    CHECK(wh_arena_allocating());
    CHECK_EQ_INT(wh_kube_create(fx.c, CM_PATH "?dryRun=All", obj, &got, &st), WH_OK);
    CHECK_EQ_INT(st.code, 201);
    CHECK_EQ_STR(wh_json_path_str(got, "data", "k", NULL), "v1");
    CHECK_EQ_INT(wh_kube_update(fx.c, CM_PATH "/cm-arena", obj, NULL, &st), WH_ERR_NOT_FOUND);
    json_decref(got);
    json_decref(obj);
    wh_arena_end();
out:
    fx_stop(&fx);
}

TEST(kube_client_status_subresource)
{
    struct fixture fx;
    if (!fx_start(&fx, NULL, NULL, NULL))
        goto out;
    struct wh_kube_status st;
    json_t *pod = wh_test_json("{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":"
                               "\"p\",\"namespace\":\"default\"},\"spec\":{\"containers\":"
                               "[{\"name\":\"c\",\"image\":\"nginx\"}]}}");
    json_t *got = NULL;
    CHECK_EQ_INT(wh_kube_create(fx.c, "/api/v1/namespaces/default/pods", pod, &got, &st), WH_OK);
    /* PUT .../status changes status only. */
    json_t *upd = json_deep_copy(got);
    json_object_set_new(upd, "status", json_pack("{s:s}", "phase", "Running"));
    json_object_set_new(wh_json_obj(upd, "metadata"), "labels", json_pack("{s:s}", "x", "y"));
    json_t *after = NULL;
    CHECK_EQ_INT(wh_kube_update(fx.c, "/api/v1/namespaces/default/pods/p/status", upd, &after,
                                &st),
                 WH_OK);
    CHECK_EQ_STR(wh_json_path_str(after, "status", "phase", NULL), "Running");
    CHECK(wh_json_label(after, "x") == NULL);
    json_decref(after);
    /* A merge patch of the status. */
    json_t *mp = wh_test_json("{\"status\":{\"phase\":\"Succeeded\"}}");
    CHECK_EQ_INT(wh_kube_patch(fx.c, "/api/v1/namespaces/default/pods/p/status", WH_PATCH_MERGE,
                               mp, &after, &st),
                 WH_OK);
    CHECK_EQ_STR(wh_json_path_str(after, "status", "phase", NULL), "Succeeded");
    json_decref(after);
    json_decref(mp);
    /* The stale resourceVersion conflicts on the subresource too. */
    CHECK_EQ_INT(wh_kube_update(fx.c, "/api/v1/namespaces/default/pods/p/status", upd, NULL, &st),
                 WH_ERR_CONFLICT);
    json_decref(upd);
    json_decref(got);
    json_decref(pod);
out:
    fx_stop(&fx);
}

/* Loads n ConfigMaps through the control endpoint (fast). */
static void load_configmaps(struct fixture *fx, int n, const char *label)
{
    json_t *items = json_array();
    for (int i = 0; i < n; i++) {
        char name[32];
        snprintf(name, sizeof(name), "cm-%05d", i);
        json_t *o = configmap(name, "x");
        if (label && i % 2 == 0)
            json_object_set_new(wh_json_obj(o, "metadata"), "labels",
                                json_pack("{s:s}", "app", label));
        json_array_append_new(items, o);
    }
    char *body = json_dumps(items, JSON_COMPACT);
    struct wh_errbuf eb = {{0}};
    if (wh_apiserver_control(fx->srv, "POST", "objects", body, NULL, &eb)) {
        fprintf(stderr, "load: %s\n", eb.msg);
        abort();
    }
    free(body);
    json_decref(items);
}

struct collect {
    int n;
    int stop_after; /* call compact when n reaches it; 0 = never */
    struct fixture *fx;
    char last[32];
    bool ordered;
    bool typed;
};

static enum wh_err count_item(void *arg, json_t *item)
{
    struct collect *c = arg;
    const char *name = wh_json_meta_str(item, "name");
    if (!name || strcmp(name, c->last) <= 0)
        c->ordered = false;
    snprintf(c->last, sizeof(c->last), "%s", name ? name : "");
    if (!wh_str_eq(wh_json_str(item, "kind"), "ConfigMap") ||
        !wh_str_eq(wh_json_str(item, "apiVersion"), "v1"))
        c->typed = false;
    c->n++;
    if (c->stop_after && c->n == c->stop_after) {
        /* The list's snapshot becomes older than what the server keeps. */
        json_t *o = configmap("zz-late", "x");
        if (wh_kube_create(c->fx->c, CM_PATH, o, NULL, NULL))
            abort();
        json_decref(o);
        wh_apiserver_post(c->fx->srv, "compact");
    }
    return WH_OK;
}

static enum wh_err refuse_150th(void *arg, json_t *item)
{
    (void)item;
    int *n = arg;
    return ++*n == 150 ? WH_ERR_INTERNAL : WH_OK;
}

TEST(kube_client_list_pages_selectors_and_expired_continue)
{
    struct fixture fx;
    if (!fx_start(&fx, NULL, NULL, NULL))
        goto out;
    load_configmaps(&fx, 2500, "even");
    clear_requests(&fx);

    struct wh_kube_status st;
    struct collect col = {.ordered = true, .typed = true, .fx = &fx};
    char *rv = NULL;
    CHECK_EQ_INT(wh_kube_list_all(fx.c, CM_PATH, NULL, NULL, 500, count_item, &col, &rv, &st),
                 WH_OK);
    CHECK_EQ_INT(col.n, 2500);
    CHECK(col.ordered);
    CHECK(col.typed);
    CHECK(rv && *rv);
    json_t *reqs = requests_to(&fx, CM_PATH);
    CHECK_EQ_INT(json_array_size(reqs), 5);
    CHECK(strstr(wh_json_str(json_array_get(reqs, 0), "query"), "limit=500") != NULL);
    CHECK(strstr(wh_json_str(json_array_get(reqs, 1), "query"), "continue=") != NULL);
    json_decref(reqs);
    free(rv);
    rv = NULL;

    /* One page with the continue token and remaining count. */
    json_t *page = NULL;
    struct wh_kube_list_opts lo = {.limit = 1000};
    CHECK_EQ_INT(wh_kube_list(fx.c, CM_PATH, &lo, &page, &st), WH_OK);
    CHECK_EQ_INT(json_array_size(wh_json_arr(page, "items")), 1000);
    const char *cont = wh_json_path_str(page, "metadata", "continue", NULL);
    CHECK(cont && *cont);
    json_decref(page);

    /* Label selector (with characters that need escaping). */
    memset(&col, 0, sizeof(col));
    col.ordered = col.typed = true;
    CHECK_EQ_INT(wh_kube_list_all(fx.c, CM_PATH, "app in (even, odd),app!=none", NULL, 0,
                                  count_item, &col, NULL, &st),
                 WH_OK);
    CHECK_EQ_INT(col.n, 1250);
    memset(&col, 0, sizeof(col));
    CHECK_EQ_INT(wh_kube_list_all(fx.c, CM_PATH, NULL, "metadata.name=cm-00007", 0, count_item,
                                  &col, NULL, &st),
                 WH_OK);
    CHECK_EQ_INT(col.n, 1);
    /* A bad selector is the server's 400. */
    CHECK_EQ_INT(wh_kube_list_all(fx.c, CM_PATH, "a in (", NULL, 0, count_item, &col, NULL, &st),
                 WH_ERR_KUBE);
    CHECK_EQ_INT(st.code, 400);

    /* The continue token expires mid-way: GONE. */
    memset(&col, 0, sizeof(col));
    col.fx = &fx;
    col.stop_after = 700;
    CHECK_EQ_INT(wh_kube_list_all(fx.c, CM_PATH, NULL, NULL, 500, count_item, &col, &rv, &st),
                 WH_ERR_GONE);
    CHECK_EQ_INT(st.code, 410);
    CHECK_EQ_STR(st.reason, "Expired");
    CHECK_EQ_INT(col.n, 1000); /* two pages seen, the third refused */
    CHECK(rv == NULL);

    /* A callback error stops the listing and comes back. */
    int seen = 0;
    CHECK_EQ_INT(wh_kube_list_all(fx.c, CM_PATH, NULL, NULL, 100, refuse_150th, &seen, NULL, &st),
                 WH_ERR_INTERNAL);
    CHECK_EQ_INT(seen, 150);
out:
    fx_stop(&fx);
}

TEST(kube_client_retries_500_and_429_then_gives_up)
{
    struct fixture fx;
    struct wh_kube_opts co = {.timeout_ms = 20000, .max_retries = 3};
    if (!fx_start(&fx, NULL, NULL, &co))
        goto out;
    struct wh_kube_status st;
    json_t *got = NULL;

    /* Two 500s, then success. */
    wh_apiserver_post(fx.srv, "fail?code=500&count=2&path_prefix=/api/v1/namespaces");
    CHECK_EQ_INT(wh_kube_get(fx.c, "/api/v1/namespaces/default", &got, &st), WH_OK);
    CHECK_EQ_INT(st.attempts, 3);
    CHECK_EQ_INT(st.code, 200);
    CHECK_EQ_STR(st.reason, ""); /* nothing left over from the failed attempts */
    CHECK_EQ_STR(wh_json_meta_str(got, "name"), "default");
    json_decref(got);
    got = NULL;

    /* More failures than retries: the last status comes back. */
    wh_apiserver_post(fx.srv, "fail?code=503&count=10&path_prefix=/api/v1/namespaces");
    CHECK_EQ_INT(wh_kube_get(fx.c, "/api/v1/namespaces/default", &got, &st), WH_ERR_KUBE);
    CHECK(got == NULL);
    CHECK_EQ_INT(st.attempts, 4);
    CHECK_EQ_INT(st.code, 503);
    CHECK_EQ_STR(st.reason, "ServiceUnavailable");
    wh_apiserver_post(fx.srv, "fail?clear=true");

    /* 429 with Retry-After: 1 is honoured. */
    wh_apiserver_post(fx.srv, "fail?code=429&count=1&path_prefix=/api/v1/namespaces");
    int64_t t0 = wh_time_mono_ns();
    CHECK_EQ_INT(wh_kube_get(fx.c, "/api/v1/namespaces/default", &got, &st), WH_OK);
    CHECK_EQ_INT(st.attempts, 2);
    CHECK(wh_time_mono_ns() - t0 >= 900 * MS);
    json_decref(got);
    got = NULL;

    /* A create repeated after a 500 (the server did not act here, so it succeeds). */
    wh_apiserver_post(fx.srv, "fail?code=500&count=1&methods=POST");
    json_t *cm = configmap("retried", "x");
    CHECK_EQ_INT(wh_kube_create(fx.c, CM_PATH, cm, NULL, &st), WH_OK);
    CHECK_EQ_INT(st.attempts, 2);
    json_decref(cm);

    /* A JSON patch is not repeated after a 500; a merge patch is. */
    json_t *jp = wh_test_json("[{\"op\":\"add\",\"path\":\"/data/n\",\"value\":\"1\"}]");
    wh_apiserver_post(fx.srv, "fail?code=500&count=1&methods=PATCH");
    CHECK_EQ_INT(wh_kube_patch(fx.c, CM_PATH "/retried", WH_PATCH_JSON, jp, NULL, &st),
                 WH_ERR_KUBE);
    CHECK_EQ_INT(st.attempts, 1);
    CHECK_EQ_INT(st.code, 500);
    wh_apiserver_post(fx.srv, "fail?code=429&count=1&methods=PATCH");
    CHECK_EQ_INT(wh_kube_patch(fx.c, CM_PATH "/retried", WH_PATCH_JSON, jp, NULL, &st), WH_OK);
    CHECK_EQ_INT(st.attempts, 2);
    json_decref(jp);
    json_t *mp = wh_test_json("{\"data\":{\"m\":\"1\"}}");
    wh_apiserver_post(fx.srv, "fail?code=500&count=1&methods=PATCH");
    CHECK_EQ_INT(wh_kube_patch(fx.c, CM_PATH "/retried", WH_PATCH_MERGE, mp, NULL, &st), WH_OK);
    CHECK_EQ_INT(st.attempts, 2);
    json_decref(mp);

    /* 4xx other than 429 are never repeated. */
    wh_apiserver_post(fx.srv, "fail?code=403&count=5");
    CHECK_EQ_INT(wh_kube_get(fx.c, "/api/v1/namespaces/default", &got, &st), WH_ERR_KUBE);
    CHECK_EQ_INT(st.attempts, 1);
    CHECK_EQ_INT(st.code, 403);
    CHECK_EQ_STR(st.reason, "Forbidden");
    wh_apiserver_post(fx.srv, "fail?clear=true");
out:
    fx_stop(&fx);
}

TEST(kube_client_deadline_bounds_calls_and_retries)
{
    struct fixture fx;
    struct wh_kube_opts co = {.timeout_ms = 400, .max_retries = 5};
    if (!fx_start(&fx, NULL, NULL, &co))
        goto out;
    struct wh_kube_status st;
    json_t *got = NULL;

    /* A slow answer: TIMEOUT near the deadline. */
    wh_apiserver_post(fx.srv, "delay?ms=1500&count=1&path_prefix=/api/v1/namespaces");
    int64_t t0 = wh_time_mono_ns();
    CHECK_EQ_INT(wh_kube_get(fx.c, "/api/v1/namespaces/default", &got, &st), WH_ERR_TIMEOUT);
    int64_t took = wh_time_mono_ns() - t0;
    CHECK(took >= 350 * MS && took < 1400 * MS);

    /* A Retry-After beyond the deadline ends the call with the 429 at once. */
    wh_apiserver_post(fx.srv, "fail?code=429&count=1&path_prefix=/api/v1/namespaces");
    t0 = wh_time_mono_ns();
    CHECK_EQ_INT(wh_kube_get(fx.c, "/api/v1/namespaces/default", &got, &st), WH_ERR_KUBE);
    CHECK_EQ_INT(st.code, 429);
    CHECK_EQ_INT(st.attempts, 1);
    CHECK(wh_time_mono_ns() - t0 < 900 * MS);
out:
    fx_stop(&fx);
}

TEST(kube_client_connection_errors)
{
    struct fixture fx;
    if (!fx_start(&fx, NULL, NULL, NULL))
        goto out;
    struct wh_errbuf eb = {{0}};
    struct wh_kube_status st;
    json_t *got = NULL;
    char *kc = NULL;
    struct wh_kube_client *c = NULL;

    /* Nobody listens: IO after max_retries + 1 attempts (refused before sending). */
    struct wh_kc_opts ko = {WH_KC_AUTH_NONE, WH_KC_CA_DATA, NULL, NULL, NULL,
                            "https://127.0.0.1:1"};
    CHECK_EQ_INT(wh_apiserver_write_kubeconfig(fx.srv, &ko, NULL, &kc, &eb), WH_OK);
    struct wh_kube_opts co = {.kubeconfig = kc, .timeout_ms = 5000, .max_retries = 2};
    CHECK_EQ_INT(wh_kube_client_new(&co, &c, &eb), WH_OK);
    CHECK_EQ_INT(wh_kube_get(c, "/api/v1/namespaces", &got, &st), WH_ERR_IO);
    CHECK_EQ_INT(st.attempts, 3);
    CHECK_EQ_INT(st.code, 0);
    CHECK(st.message[0] != '\0');
    wh_kube_client_free(c);
    c = NULL;
    free(kc);
    kc = NULL;

    /* The system roots do not trust the test CA: TLS, not retried. */
    struct wh_kc_opts ko2 = {WH_KC_AUTH_NONE, WH_KC_CA_NONE, NULL, NULL, NULL, NULL};
    CHECK_EQ_INT(wh_apiserver_write_kubeconfig(fx.srv, &ko2, NULL, &kc, &eb), WH_OK);
    co.kubeconfig = kc;
    CHECK_EQ_INT(wh_kube_client_new(&co, &c, &eb), WH_OK);
    CHECK_EQ_INT(wh_kube_get(c, "/api/v1/namespaces", &got, &st), WH_ERR_TLS);
    CHECK_EQ_INT(st.attempts, 1);
    wh_kube_client_free(c);
    c = NULL;
    free(kc);
    kc = NULL;

    /* CA file and insecure variants work. */
    enum wh_kc_ca cas[] = {WH_KC_CA_FILE, WH_KC_CA_INSECURE};
    for (size_t i = 0; i < 2; i++) {
        struct wh_kc_opts ko3 = {WH_KC_AUTH_NONE, cas[i], NULL, NULL, "default", NULL};
        CHECK_EQ_INT(wh_apiserver_write_kubeconfig(fx.srv, &ko3, NULL, &kc, &eb), WH_OK);
        co.kubeconfig = kc;
        CHECK_EQ_INT(wh_kube_client_new(&co, &c, &eb), WH_OK);
        CHECK_EQ_STR(wh_kube_client_namespace(c), "default");
        CHECK_EQ_STR(wh_kube_client_server(c), wh_apiserver_url(fx.srv));
        CHECK_EQ_INT(wh_kube_get(c, "/api/v1/namespaces/default", &got, &st), WH_OK);
        json_decref(got);
        got = NULL;
        wh_kube_client_free(c);
        c = NULL;
        free(kc);
        kc = NULL;
    }
out:
    fx_stop(&fx);
}

TEST(kube_client_bearer_token_and_client_certificate_auth)
{
    struct fixture fx;
    struct wh_apiserver_opts so = {.token = "s3cret", .client_ca = true};
    struct wh_kc_opts ko = {WH_KC_AUTH_TOKEN, WH_KC_CA_DATA, "s3cret", NULL, NULL, NULL};
    if (!fx_start(&fx, &so, &ko, NULL))
        goto out;
    struct wh_errbuf eb = {{0}};
    struct wh_kube_status st;
    json_t *got = NULL;
    char *kc = NULL;
    struct wh_kube_client *c = NULL;

    CHECK_EQ_INT(wh_kube_get(fx.c, "/api/v1/namespaces/default", &got, &st), WH_OK);
    json_decref(got);
    got = NULL;

    struct {
        enum wh_kc_auth auth;
        const char *token;
        enum wh_err want;
    } cases[] = {
        {WH_KC_AUTH_TOKEN, "wrong", WH_ERR_KUBE},
        {WH_KC_AUTH_NONE, NULL, WH_ERR_KUBE},
        {WH_KC_AUTH_TOKEN_FILE, "s3cret", WH_OK},
        {WH_KC_AUTH_CERT_DATA, NULL, WH_OK},
        {WH_KC_AUTH_CERT_FILE, NULL, WH_OK},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct wh_kc_opts k = {cases[i].auth, WH_KC_CA_FILE, cases[i].token, NULL, NULL, NULL};
        CHECK_EQ_INT(wh_apiserver_write_kubeconfig(fx.srv, &k, NULL, &kc, &eb), WH_OK);
        struct wh_kube_opts co = {.kubeconfig = kc, .timeout_ms = 5000, .max_retries = 2};
        CHECK_EQ_INT(wh_kube_client_new(&co, &c, &eb), WH_OK);
        enum wh_err rc = wh_kube_get(c, "/api/v1/namespaces/default", &got, &st);
        if (rc != cases[i].want)
            fprintf(stderr, "auth case %zu: %s (%d %s)\n", i, wh_strerror(rc), st.code,
                    st.message);
        CHECK_EQ_INT(rc, cases[i].want);
        if (cases[i].want) {
            CHECK_EQ_INT(st.code, 401);
            CHECK_EQ_STR(st.reason, "Unauthorized");
            CHECK_EQ_INT(st.attempts, 1);
        }
        json_decref(got);
        got = NULL;
        wh_kube_client_free(c);
        c = NULL;
        free(kc);
        kc = NULL;
    }
out:
    fx_stop(&fx);
}

/* Counts the logged API requests (not /_control) by answer code. */
static int count_code(struct fixture *fx, int code)
{
    json_t *reqs = requests_to(fx, "/api/");
    int n = 0;
    size_t i;
    json_t *r;
    json_array_foreach(reqs, i, r)
    {
        if (json_integer_value(json_object_get(r, "code")) == code)
            n++;
    }
    json_decref(reqs);
    return n;
}

TEST(kube_client_token_file_rotation)
{
    struct fixture fx;
    struct wh_apiserver_opts so = {.token = "new-token"};
    struct wh_kc_opts ko = {WH_KC_AUTH_TOKEN_FILE, WH_KC_CA_DATA, "old-token", NULL, NULL, NULL};
    struct wh_kube_opts co = {.timeout_ms = 5000, .max_retries = 0, .token_reread_ms = 3600000};
    if (!fx_start(&fx, &so, &ko, &co))
        goto out;
    struct wh_kube_status st;
    json_t *got = NULL;
    char *tokpath = wh_str_printf("%s/token", wh_apiserver_dir(fx.srv));

    /* The old token is refused; re-reading gives the same one: 401 after two requests. */
    CHECK_EQ_INT(wh_kube_get(fx.c, "/api/v1/namespaces/default", &got, &st), WH_ERR_KUBE);
    CHECK_EQ_INT(st.code, 401);
    CHECK_EQ_INT(st.attempts, 1);
    CHECK_EQ_INT(count_code(&fx, 401), 1);

    /* The file rotates: the next 401 makes the client read it again and repeat at once. */
    rewrite(tokpath, "new-token\n");
    CHECK_EQ_INT(wh_kube_get(fx.c, "/api/v1/namespaces/default", &got, &st), WH_OK);
    CHECK_EQ_INT(st.attempts, 2);
    CHECK_EQ_INT(count_code(&fx, 401), 2);
    CHECK_EQ_INT(count_code(&fx, 200), 1);
    json_decref(got);
    got = NULL;
    wh_kube_client_free(fx.c);
    fx.c = NULL;

    /* Periodic re-read: with a short period a rotated file is used without any 401. */
    struct wh_errbuf eb = {{0}};
    char *kc = wh_str_printf("%s/kubeconfig", wh_apiserver_dir(fx.srv));
    struct wh_kube_opts co2 = {.kubeconfig = kc, .timeout_ms = 5000, .token_reread_ms = 1};
    CHECK_EQ_INT(wh_kube_client_new(&co2, &fx.c, &eb), WH_OK);
    clear_requests(&fx);
    CHECK_EQ_INT(wh_kube_get(fx.c, "/api/v1/namespaces/default", &got, &st), WH_OK);
    json_decref(got);
    got = NULL;
    rewrite(tokpath, "rotated-elsewhere\n");
    wh_time_sleep_ms(5);
    CHECK_EQ_INT(wh_kube_get(fx.c, "/api/v1/namespaces/default", &got, &st), WH_ERR_KUBE);
    CHECK_EQ_INT(st.code, 401); /* the new file content was sent, and refused */
    rewrite(tokpath, "new-token\n");
    wh_time_sleep_ms(5);
    CHECK_EQ_INT(wh_kube_get(fx.c, "/api/v1/namespaces/default", &got, &st), WH_OK);
    CHECK_EQ_INT(st.attempts, 1);
    json_decref(got);
    free(kc);
    free(tokpath);
out:
    fx_stop(&fx);
}

TEST(kube_client_in_cluster_configuration)
{
    struct fixture fx;
    struct wh_apiserver_opts so = {.token = "sa-token"};
    if (!fx_start(&fx, &so, NULL, NULL))
        goto out;
    const char *dir = wh_apiserver_dir(fx.srv);
    char *tok = wh_str_printf("%s/token", dir);
    char *ca = wh_str_printf("%s/ca.crt", dir);
    char *ns = wh_str_printf("%s/namespace", dir);
    rewrite(tok, "sa-token\n");
    char *capem = wh_test_read_file(wh_apiserver_tls_file("ca.pem"), NULL);
    rewrite(ca, capem);
    free(capem);
    rewrite(ns, "kruise-system");
    char port[16];
    snprintf(port, sizeof(port), "%d", wh_apiserver_port(fx.srv));
    setenv("WH_SERVICEACCOUNT_DIR", dir, 1);
    setenv("KUBERNETES_SERVICE_HOST", "127.0.0.1", 1);
    setenv("KUBERNETES_SERVICE_PORT", port, 1);

    CHECK(wh_kube_in_cluster());
    struct wh_kube_client *c = NULL;
    struct wh_errbuf eb = {{0}};
    struct wh_kube_opts co = {.kubeconfig = NULL, .timeout_ms = 5000};
    CHECK_EQ_INT(wh_kube_client_new(&co, &c, &eb), WH_OK);
    if (c) {
        CHECK_EQ_STR(wh_kube_client_namespace(c), "kruise-system");
        CHECK_EQ_STR(wh_kube_client_server(c), wh_apiserver_url(fx.srv));
        struct wh_kube_status st;
        json_t *got = NULL;
        CHECK_EQ_INT(wh_kube_get(c, "/api/v1/namespaces/kube-system", &got, &st), WH_OK);
        json_decref(got);
        wh_kube_client_free(c);
        c = NULL;
    }
    /* No token file: the client cannot be made, and says which file. */
    unlink(tok);
    co.kubeconfig = "";
    CHECK_EQ_INT(wh_kube_client_new(&co, &c, &eb), WH_ERR_IO);
    CHECK(strstr(eb.msg, tok) != NULL);
    CHECK(c == NULL);
    CHECK(!wh_kube_in_cluster());

    unsetenv("WH_SERVICEACCOUNT_DIR");
    unsetenv("KUBERNETES_SERVICE_HOST");
    unsetenv("KUBERNETES_SERVICE_PORT");
    /* Outside a cluster without a kubeconfig: a clear error. */
    CHECK_EQ_INT(wh_kube_client_new(&co, &c, &eb), WH_ERR_INVALID);
    CHECK(strstr(eb.msg, "not in a cluster") != NULL);
    free(tok);
    free(ca);
    free(ns);
out:
    fx_stop(&fx);
}

TEST(kube_client_pick_version_from_discovery)
{
    struct fixture fx;
    struct wh_apiserver_opts so = {.kruise_crds = true};
    if (!fx_start(&fx, &so, NULL, NULL))
        goto out;
    struct wh_kube_status st;
    const char *chosen = NULL;
    const char *const both[] = {"v1beta1", "v1alpha1", NULL};
    const char *const alpha_first[] = {"v1alpha1", "v1beta1", NULL};
    const char *const alpha[] = {"v1alpha1", NULL};
    const char *const v2[] = {"v2", NULL};
    const char *const v1[] = {"v1", NULL};

    CHECK_EQ_INT(wh_kube_pick_version(fx.c, "apps.kruise.io", both, &chosen, &st), WH_OK);
    CHECK_EQ_STR(chosen, "v1beta1");
    /* The cluster's preference wins over the caller's order. */
    CHECK_EQ_INT(wh_kube_pick_version(fx.c, "apps.kruise.io", alpha_first, &chosen, &st), WH_OK);
    CHECK_EQ_STR(chosen, "v1beta1");
    CHECK(chosen == alpha_first[1]);
    CHECK_EQ_INT(wh_kube_pick_version(fx.c, "apps.kruise.io", alpha, &chosen, &st), WH_OK);
    CHECK_EQ_STR(chosen, "v1alpha1");
    CHECK_EQ_INT(wh_kube_pick_version(fx.c, "apps.kruise.io", v2, &chosen, &st),
                 WH_ERR_NOT_FOUND);
    CHECK(chosen == NULL);
    CHECK_EQ_INT(wh_kube_pick_version(fx.c, "nope.example.com", both, &chosen, &st),
                 WH_ERR_NOT_FOUND);
    CHECK_EQ_INT(wh_kube_pick_version(fx.c, "", v1, &chosen, &st), WH_OK);
    CHECK_EQ_STR(chosen, "v1");
    CHECK_EQ_INT(wh_kube_pick_version(fx.c, "apps", v1, &chosen, &st), WH_OK);
    CHECK_EQ_STR(chosen, "v1");
out:
    fx_stop(&fx);

    /* An older OpenKruise serving v1alpha1 only. */
    static const char *const alpha_only[] = {"--kruise-crds-alpha-only", NULL};
    struct wh_apiserver_opts so2 = {.extra_args = alpha_only};
    if (!fx_start(&fx, &so2, NULL, NULL))
        goto out2;
    CHECK_EQ_INT(wh_kube_pick_version(fx.c, "apps.kruise.io", both, &chosen, &st), WH_OK);
    CHECK_EQ_STR(chosen, "v1alpha1");
out2:
    fx_stop(&fx);
}

/* A CRD of group mix.example.com with kind and its served versions. Returns: new ref. */
static json_t *mix_crd(const char *plural, const char *kind, const char *versions_json)
{
    json_t *versions = wh_test_json(versions_json);
    json_t *vs = json_array();
    size_t i;
    json_t *v;
    json_array_foreach(versions, i, v)
        json_array_append_new(vs, json_pack("{s:O,s:b,s:b,s:{s:{s:s,s:b}}}", "name", v, "served", 1,
                                            "storage", i == 0, "schema", "openAPIV3Schema", "type",
                                            "object", "x-kubernetes-preserve-unknown-fields", 1));
    json_decref(versions);
    char name[128];
    snprintf(name, sizeof(name), "%s.mix.example.com", plural);
    return json_pack("{s:s,s:s,s:{s:s},s:{s:s,s:s,s:{s:s,s:s},s:o}}", "apiVersion",
                     "apiextensions.k8s.io/v1", "kind", "CustomResourceDefinition", "metadata",
                     "name", name, "spec", "group", "mix.example.com", "scope", "Namespaced",
                     "names", "plural", plural, "kind", kind, "versions", vs);
}

TEST(kube_client_pick_resource_version)
{
    struct fixture fx;
    struct wh_apiserver_opts so = {0};
    if (!fx_start(&fx, &so, NULL, NULL))
        goto out;
    struct wh_kube_status st;
    /* the group prefers v1beta1 (bars serve it), but foos serve v1alpha1 only */
    json_t *foos = mix_crd("foos", "Foo", "[\"v1alpha1\"]");
    json_t *bars = mix_crd("bars", "Bar", "[\"v1beta1\",\"v1alpha1\"]");
    const char *crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
    CHECK_EQ_INT(wh_kube_create(fx.c, crds, foos, NULL, &st), WH_OK);
    CHECK_EQ_INT(wh_kube_create(fx.c, crds, bars, NULL, &st), WH_OK);
    json_decref(foos);
    json_decref(bars);
    const char *const both[] = {"v1beta1", "v1alpha1", NULL};
    const char *chosen = NULL;
    CHECK_EQ_INT(wh_kube_pick_version(fx.c, "mix.example.com", both, &chosen, &st), WH_OK);
    CHECK_EQ_STR(chosen, "v1beta1");
    CHECK_EQ_INT(wh_kube_pick_resource_version(fx.c, "mix.example.com", "foos", both, &chosen, &st),
                 WH_OK);
    CHECK_EQ_STR(chosen, "v1alpha1");
    CHECK_EQ_INT(wh_kube_pick_resource_version(fx.c, "mix.example.com", "bars", both, &chosen, &st),
                 WH_OK);
    CHECK_EQ_STR(chosen, "v1beta1");
    CHECK_EQ_INT(
        wh_kube_pick_resource_version(fx.c, "mix.example.com", "nopes", both, &chosen, &st),
        WH_ERR_NOT_FOUND);
    CHECK(chosen == NULL);
    CHECK_EQ_STR(st.message, "no served version of group mix.example.com has nopes");
out:
    fx_stop(&fx);
}

/* --- watch ------------------------------------------------------------------------------------ */

struct events {
    struct wh_buf log;
    atomic_int n; /* read by the test while a watch thread runs */
    int bookmarks;
    int end_after; /* return WH_ERR_NOT_SYNCED (as a marker) after this many non-bookmarks */
    int bookmarks_wanted;
    atomic_bool *stop_on_first;
    char last_rv[32];
};

static void events_init(struct events *e)
{
    memset(e, 0, sizeof(*e));
    wh_buf_init(&e->log, 1 << 20);
    if (wh_buf_adds(&e->log, ""))
        abort();
}

static enum wh_err on_ev(void *arg, const char *type, json_t *obj)
{
    struct events *e = arg;
    const char *rv = wh_json_meta_str(obj, "resourceVersion");
    snprintf(e->last_rv, sizeof(e->last_rv), "%s", rv ? rv : "");
    if (strcmp(type, "BOOKMARK") == 0) {
        e->bookmarks++;
        if (e->bookmarks_wanted && e->bookmarks >= e->bookmarks_wanted)
            return WH_ERR_NOT_SYNCED;
        return WH_OK;
    }
    atomic_fetch_add(&e->n, 1);
    const char *name = wh_json_meta_str(obj, "name");
    if (wh_buf_printf(&e->log, "%s:%s;", type, name ? name : "-"))
        abort();
    if (e->end_after && atomic_load(&e->n) >= e->end_after)
        return WH_ERR_NOT_SYNCED;
    return WH_OK;
}

static char *current_rv(struct fixture *fx)
{
    json_t *page = NULL;
    struct wh_kube_list_opts lo = {.limit = 1};
    if (wh_kube_list(fx->c, CM_PATH, &lo, &page, NULL))
        abort();
    char *rv = wh_xstrdup(wh_json_path_str(page, "metadata", "resourceVersion", NULL));
    json_decref(page);
    return rv;
}

TEST(kube_watch_replays_in_order_and_resumes_from_a_version)
{
    struct fixture fx;
    if (!fx_start(&fx, NULL, NULL, NULL))
        goto out;
    struct wh_kube_status st;
    char *rv0 = current_rv(&fx);
    json_t *a = configmap("a", "1"), *b = configmap("b", "1"), *got = NULL;
    CHECK_EQ_INT(wh_kube_create(fx.c, CM_PATH, a, NULL, &st), WH_OK);
    CHECK_EQ_INT(wh_kube_create(fx.c, CM_PATH, b, &got, &st), WH_OK);
    char *rv_b = wh_xstrdup(wh_json_meta_str(got, "resourceVersion"));
    json_t *mp = wh_test_json("{\"data\":{\"k\":\"2\"}}");
    CHECK_EQ_INT(wh_kube_patch(fx.c, CM_PATH "/a", WH_PATCH_MERGE, mp, NULL, &st), WH_OK);
    CHECK_EQ_INT(wh_kube_delete(fx.c, CM_PATH "/b", NULL, &st), WH_OK);

    struct events ev;
    events_init(&ev);
    ev.end_after = 4;
    struct wh_kube_watch_opts wo = {.resource_version = rv0, .timeout_seconds = 10};
    CHECK_EQ_INT(wh_kube_watch(fx.c, CM_PATH, &wo, on_ev, &ev, &st), WH_ERR_NOT_SYNCED);
    CHECK_EQ_STR(ev.log.data, "ADDED:a;ADDED:b;MODIFIED:a;DELETED:b;");
    wh_buf_fini(&ev.log);

    /* From b's version: only what came after. */
    events_init(&ev);
    ev.end_after = 2;
    wo.resource_version = rv_b;
    CHECK_EQ_INT(wh_kube_watch(fx.c, CM_PATH, &wo, on_ev, &ev, &st), WH_ERR_NOT_SYNCED);
    CHECK_EQ_STR(ev.log.data, "MODIFIED:a;DELETED:b;");
    wh_buf_fini(&ev.log);

    /* Label selector on the watch; the server's timeout ends it with WH_OK. */
    events_init(&ev);
    struct wh_kube_watch_opts wo2 = {.resource_version = rv0, .timeout_seconds = 1,
                                     .label_selector = "app=none"};
    CHECK_EQ_INT(wh_kube_watch(fx.c, CM_PATH, &wo2, on_ev, &ev, &st), WH_OK);
    CHECK_EQ_INT(ev.n, 0);
    CHECK_EQ_INT(st.code, 200);
    wh_buf_fini(&ev.log);

    /* A watch on something that does not exist: 404. */
    events_init(&ev);
    CHECK_EQ_INT(wh_kube_watch(fx.c, "/apis/nope.example/v1/things", &wo2, on_ev, &ev, &st),
                 WH_ERR_NOT_FOUND);
    CHECK_EQ_INT(st.code, 404);
    wh_buf_fini(&ev.log);

    json_decref(mp);
    json_decref(a);
    json_decref(b);
    json_decref(got);
    free(rv0);
    free(rv_b);
out:
    fx_stop(&fx);
}

TEST(kube_watch_bookmarks_and_gone_after_compaction)
{
    struct fixture fx;
    static const char *const fast_bookmarks[] = {"--bookmark-interval", "0.2", NULL};
    struct wh_apiserver_opts so = {.extra_args = fast_bookmarks};
    if (!fx_start(&fx, &so, NULL, NULL))
        goto out;
    struct wh_kube_status st;
    char *rv0 = current_rv(&fx);
    json_t *a = configmap("a", "1");
    CHECK_EQ_INT(wh_kube_create(fx.c, CM_PATH, a, NULL, &st), WH_OK);

    struct events ev;
    events_init(&ev);
    ev.bookmarks_wanted = 2;
    struct wh_kube_watch_opts wo = {.resource_version = rv0, .bookmarks = true,
                                    .timeout_seconds = 10};
    CHECK_EQ_INT(wh_kube_watch(fx.c, CM_PATH, &wo, on_ev, &ev, &st), WH_ERR_NOT_SYNCED);
    CHECK_EQ_INT(ev.bookmarks, 2);
    CHECK_EQ_STR(ev.log.data, "ADDED:a;");
    CHECK(ev.last_rv[0] != '\0'); /* bookmarks carry a resourceVersion */
    json_t *reqs = requests_to(&fx, CM_PATH);
    const char *q = wh_json_str(json_array_get(reqs, json_array_size(reqs) - 1), "query");
    CHECK(q && strstr(q, "allowWatchBookmarks=true") && strstr(q, "watch=true") &&
          strstr(q, "timeoutSeconds=10"));
    json_decref(reqs);
    wh_buf_fini(&ev.log);

    /* Compaction: the old version is gone. The ERROR event reaches the callback first. */
    CHECK_EQ_INT(wh_kube_delete(fx.c, CM_PATH "/a", NULL, &st), WH_OK);
    wh_apiserver_post(fx.srv, "compact");
    events_init(&ev);
    struct wh_kube_watch_opts wo2 = {.resource_version = rv0, .timeout_seconds = 10};
    CHECK_EQ_INT(wh_kube_watch(fx.c, CM_PATH, &wo2, on_ev, &ev, &st), WH_ERR_GONE);
    CHECK_EQ_INT(st.code, 410);
    CHECK_EQ_STR(st.reason, "Expired");
    CHECK(strstr(st.message, "too old") != NULL);
    CHECK_EQ_STR(ev.log.data, "ERROR:-;");
    wh_buf_fini(&ev.log);
    json_decref(a);
    free(rv0);
out:
    fx_stop(&fx);
}

struct watcher {
    struct wh_kube_client *c;
    atomic_bool stop;
    atomic_bool done;
    enum wh_err rc;
    struct events ev;
    char *rv;
};

static void *watch_thread(void *arg)
{
    struct watcher *w = arg;
    struct wh_kube_status st;
    struct wh_kube_watch_opts wo = {.resource_version = w->rv, .bookmarks = true,
                                    .timeout_seconds = 60, .stop = &w->stop};
    w->rc = wh_kube_watch(w->c, CM_PATH, &wo, on_ev, &w->ev, &st);
    atomic_store(&w->done, true);
    return NULL;
}

static int watches_open(struct fixture *fx)
{
    json_t *w = control_get(fx, "watches");
    int n = (int)json_integer_value(json_object_get(w, "configmaps"));
    json_decref(w);
    return n;
}

static bool wait_until(atomic_bool *flag, int ms)
{
    for (int i = 0; i < ms / 10 && !atomic_load(flag); i++)
        wh_time_sleep_ms(10);
    return atomic_load(flag);
}

TEST(kube_watch_stop_flag_and_dropped_stream)
{
    struct fixture fx;
    if (!fx_start(&fx, NULL, NULL, NULL))
        goto out;
    struct wh_kube_status st;
    struct watcher w = {.c = fx.c};
    pthread_t th;

    /* Live events, then the stop flag ends the watch quickly. */
    events_init(&w.ev);
    w.rv = current_rv(&fx);
    atomic_init(&w.stop, false);
    atomic_init(&w.done, false);
    CHECK_EQ_INT(pthread_create(&th, NULL, watch_thread, &w), 0);
    for (int i = 0; i < 300 && watches_open(&fx) < 1; i++)
        wh_time_sleep_ms(10);
    CHECK_EQ_INT(watches_open(&fx), 1);
    json_t *a = configmap("live", "1");
    CHECK_EQ_INT(wh_kube_create(fx.c, CM_PATH, a, NULL, &st), WH_OK); /* concurrent call */
    for (int i = 0; i < 300 && atomic_load(&w.ev.n) < 1; i++)
        wh_time_sleep_ms(10);
    int64_t t0 = wh_time_mono_ns();
    atomic_store(&w.stop, true);
    CHECK(wait_until(&w.done, 3000));
    CHECK(wh_time_mono_ns() - t0 < 2500 * MS);
    pthread_join(th, NULL);
    CHECK_EQ_INT(w.rc, WH_OK);
    CHECK_EQ_STR(w.ev.log.data, "ADDED:live;");
    wh_buf_fini(&w.ev.log);
    free(w.rv);

    /* The server drops the connection mid-stream: a clean return, soon. */
    events_init(&w.ev);
    w.rv = current_rv(&fx);
    atomic_store(&w.stop, false);
    atomic_store(&w.done, false);
    CHECK_EQ_INT(pthread_create(&th, NULL, watch_thread, &w), 0);
    for (int i = 0; i < 300 && watches_open(&fx) < 1; i++)
        wh_time_sleep_ms(10);
    wh_apiserver_post(fx.srv, "drop-watches");
    bool ended = wait_until(&w.done, 5000);
    CHECK(ended);
    if (!ended)
        atomic_store(&w.stop, true);
    pthread_join(th, NULL);
    CHECK_EQ_INT(w.rc, WH_OK);
    wh_buf_fini(&w.ev.log);
    free(w.rv);

    /* A stop flag already set: returns at once without events. */
    events_init(&w.ev);
    w.rv = NULL;
    atomic_store(&w.stop, true);
    t0 = wh_time_mono_ns();
    watch_thread(&w);
    CHECK_EQ_INT(w.rc, WH_OK);
    CHECK(wh_time_mono_ns() - t0 < 2500 * MS);
    wh_buf_fini(&w.ev.log);
    json_decref(a);
out:
    fx_stop(&fx);
}

/* Several threads share one client (and its rate limiter and handle pool). */
struct hammer {
    struct wh_kube_client *c;
    int ok;
};

static void *hammer_thread(void *arg)
{
    struct hammer *h = arg;
    for (int i = 0; i < 20; i++) {
        json_t *got = NULL;
        if (wh_kube_get(h->c, "/api/v1/namespaces/default", &got, NULL) == WH_OK)
            h->ok++;
        json_decref(got);
    }
    return NULL;
}

TEST(kube_client_is_shared_by_threads)
{
    struct fixture fx;
    struct wh_kube_opts co = {.timeout_ms = 20000, .max_retries = 2, .qps = 200, .burst = 10};
    if (!fx_start(&fx, NULL, NULL, &co))
        goto out;
    struct hammer hs[4];
    pthread_t th[4];
    for (int i = 0; i < 4; i++) {
        hs[i].c = fx.c;
        hs[i].ok = 0;
        CHECK_EQ_INT(pthread_create(&th[i], NULL, hammer_thread, &hs[i]), 0);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        CHECK_EQ_INT(hs[i].ok, 20);
    }
out:
    fx_stop(&fx);
}
