/* The request arena (util/arena.h) covers whole requests: these tests show why nothing may be
 * kept from it, and that what the server keeps past a request (a cached object's parse memo)
 * is made outside it. Under ASan the arena is poisoned between requests, so a kept arena value
 * fails here at its first use; without ASan the reused memory shows as changed content. */
#include "test/unit/test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "config/config.h"
#include "handlers/registry.h"
#include "kube/cache.h"
#include "kube/cluster.h"
#include "server/dispatch.h"
#include "util/arena.h"
#include "util/json.h"
#include "util/reqmem.h"

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

TEST(arena_memory_is_reused_and_poisoned_between_requests)
{
    wh_arena_begin();
    json_t *first = json_string("made in the first request");
    CHECK(wh_arena_allocating());
    wh_arena_pause();
    json_t *kept = json_string("made paused");
    CHECK(!wh_arena_allocating());
    wh_arena_resume();
    wh_arena_end();
    CHECK_EQ_STR(json_string_value(kept), "made paused");
    json_decref(kept);

    /* The next request's values take the same memory: a value kept from the first one would
     * now read as the second one's. */
    wh_arena_begin();
    json_t *second = json_string("made in the second request");
    CHECK(second == first);
    wh_arena_end();

#ifdef UNDER_ASAN
    /* Reading a value of an ended request is reported (in a child: ASan aborts). */
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        if (!freopen("/dev/null", "w", stderr))
            _exit(3);
        wh_arena_begin();
        json_t *v = json_string("gone with the request");
        wh_arena_end();
        _exit(json_is_string(v) ? 0 : 2); /* json_is_string reads v here, instrumented */
    }
    int status = 0;
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
    CHECK(!(WIFEXITED(status) && WEXITSTATUS(status) == 0));
#endif
}

static const char sidecarset_json[] =
    "{\"apiVersion\":\"apps.kruise.io/v1alpha1\",\"kind\":\"SidecarSet\","
    "\"metadata\":{\"name\":\"log-agent\",\"annotations\":{\"kruise.io/sidecarset-hash\":\"h\"}},"
    "\"spec\":{\"selector\":{\"matchLabels\":{\"app\":\"web\"}},"
    "\"containers\":[{\"name\":\"log-agent\",\"image\":\"agent:1\",\"podInjectPolicy\":"
    "\"BeforeAppContainer\"}]}}";

static char *pod_review(const char *name)
{
    char buf[1024];
    snprintf(buf, sizeof(buf),
             "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":{"
             "\"uid\":\"u-%s\",\"kind\":{\"group\":\"\",\"version\":\"v1\",\"kind\":\"Pod\"},"
             "\"resource\":{\"group\":\"\",\"version\":\"v1\",\"resource\":\"pods\"},"
             "\"operation\":\"CREATE\",\"namespace\":\"shop\",\"options\":{\"apiVersion\":"
             "\"meta.k8s.io/v1\",\"kind\":\"CreateOptions\"},\"object\":{\"apiVersion\":\"v1\","
             "\"kind\":\"Pod\",\"metadata\":{\"name\":\"%s\",\"namespace\":\"shop\",\"labels\":"
             "{\"app\":\"web\"}},\"spec\":{\"containers\":[{\"name\":\"app\",\"image\":\"a\"}]}}}}",
             name, name);
    return strdup(buf);
}

TEST(arena_cached_memo_made_in_a_request_outlives_it)
{
    struct wh_config cfg;
    struct wh_errbuf eb = {{0}};
    char *argv[] = {"kruise-webhook", NULL};
    CHECK_EQ_INT(wh_config_load(&cfg, 1, argv, &eb), WH_OK);
    json_t *objs = wh_test_json("[]");
    json_array_append_new(objs, wh_test_json(sidecarset_json));
    json_array_append_new(objs, wh_test_json("{\"apiVersion\":\"v1\",\"kind\":\"Namespace\","
                                             "\"metadata\":{\"name\":\"shop\"}}"));
    struct wh_cluster *cl = NULL;
    CHECK_EQ_INT(wh_cluster_new_standalone_objects(objs, &cl, &eb), WH_OK);
    CHECK_EQ_INT(wh_routes_setup(&cfg, cl, &eb), WH_OK);
    CHECK_EQ_INT(wh_cluster_start(cl, &eb), WH_OK);
    json_decref(objs);
    const struct wh_route *route = wh_routes_find(&cfg, "/mutate-pod");
    struct wh_handler_ctx ctx = {.cfg = &cfg, .cluster = cl};
    CHECK(route != NULL);

    /* The first request parses the cached SidecarSet (its memo); the second reuses the arena
     * and reads the memo again; then it is read outside any request. */
    for (int i = 0; i < 2 && route; i++) {
        char *body = pod_review(i ? "web-2" : "web-1");
        struct wh_reply reply;
        wh_dispatch(route, &ctx, body, strlen(body), &reply);
        CHECK_EQ_INT(reply.http_status, 200);
        CHECK(reply.patched);
        wh_reply_fini(&reply);
        free(body);
    }
    struct wh_object *o = wh_cache_get(wh_cluster_cache(cl, WH_RES_SIDECARSET), "", "log-agent");
    CHECK(o != NULL);
    if (o) {
        const json_t *memo = wh_object_json(o);
        CHECK_EQ_STR(wh_json_meta_str(memo, "name"), "log-agent");
        CHECK_EQ_STR(
            wh_json_path_str(json_array_get(wh_json_path(memo, "spec", "containers", NULL), 0),
                             "image", NULL),
            "agent:1");
        wh_object_unref(o);
    }
    wh_cluster_free(cl);
    wh_config_fini(&cfg);
}

/* A request bigger than what a thread keeps leaves its large chunks for the next big request,
 * which takes them; with no big request for a second the trimmer frees them. */
TEST(arena_big_requests_share_spare_chunks_until_idle)
{
    /* about 2 MiB of values: past the 1 MiB a thread keeps */
    wh_arena_begin();
    for (int i = 0; i < 20000; i++)
        (void)json_string("a value of the big request, some forty bytes");
    wh_arena_end();
    size_t spare = wh_arena_stashed();
    CHECK(spare > 0);
    wh_arena_begin();
    json_t *v = json_string("x");
    for (int i = 0; i < 20000; i++)
        (void)json_string("a value of the big request, some forty bytes");
    CHECK(wh_arena_stashed() < spare); /* taken by this request */
    CHECK_EQ_STR(json_string_value(v), "x");
    wh_arena_end();
    CHECK(wh_arena_stashed() > 0);
    /* freed once unused: a liveness check, generous bound */
    for (int i = 0; i < 200 && wh_arena_stashed(); i++)
        nanosleep(&(struct timespec){0, 50000000}, NULL);
    CHECK_EQ_INT(wh_arena_stashed(), 0);
}

/* A rewind gives back what was allocated after its mark, chunks and their share of the
 * request-memory pool included, and leaves what came before. */
TEST(arena_rewind_gives_back_what_followed_the_mark)
{
    wh_arena_begin();
    wh_arena_limit(8 << 20);
    json_t *before = json_string("made before the mark");
    size_t size0 = wh_arena_size(), pool0 = wh_reqmem_in_use();
    struct wh_arena_mark mark = wh_arena_mark();
    for (int round = 0; round < 3; round++) {
        json_t *arr = json_array();
        for (int i = 0; i < 20000; i++)
            json_array_append_new(arr, json_string("an element after the mark"));
        CHECK(wh_arena_size() > size0 + 512 * 1024);
        CHECK(wh_reqmem_in_use() > pool0);
        json_decref(arr);
        wh_arena_rewind(mark);
        CHECK_EQ_INT(wh_arena_size(), size0);
        CHECK_EQ_INT(wh_reqmem_in_use(), pool0);
    }
    CHECK_EQ_STR(json_string_value(before), "made before the mark");
    /* marks nest: rewinding to the outer one drops the inner one */
    struct wh_arena_mark inner = wh_arena_mark();
    (void)inner;
    json_t *later = json_string("after the inner mark");
    (void)later;
    wh_arena_rewind(mark);
    CHECK_EQ_INT(wh_arena_size(), size0);
    wh_arena_limit(0);
    wh_arena_end();
    CHECK_EQ_INT(wh_reqmem_in_use(), 0);
    wh_arena_release();
}
