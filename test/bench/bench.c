/* make bench: in-process benchmarks of the request path (decode -> handler -> diff -> encode)
 * and of each feature. Prints ns/op and jansson allocations per op; never part of make test.
 * Inputs from ../shared/bench are copied into test/bench/data so figures compare over time. */
#include <jansson.h>
#include <malloc.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conversion/convert.h"
#include "config/config.h"
#include "gocompat/gotype.h"
#include "handlers/registry.h"
#include "kube/cluster.h"
#include "log/log.h"
#include "server/dispatch.h"
#include "test/support/bench_conversion.h"
#include "test/support/bench_jsonpatch.h"
#include "test/support/bench_loop.h"
#include "test/support/bench_podtemplate.h"
#include "test/support/bench_podsteps.h"
#include "test/support/bench_pub.h"
#include "test/support/bench_regex.h"
#include "test/support/bench_sidecarset.h"
#include "test/support/bench_workloads.h"
#include "test/support/bench_workloadspread.h"
#include "util/arena.h"
#include "util/json.h"
#include "util/mem.h"
#include "util/time.h"

/* What a minimal mutating handler does: one annotation, so the pipeline's own cost shows. */
static enum wh_err annotate(const struct wh_handler_ctx *ctx,
                            const struct wh_admission_request *req,
                            struct wh_admission_response *resp, struct wh_errbuf *eb)
{
    (void)ctx;
    (void)eb;
    json_t *obj = wh_admission_mutable_object(resp, req);
    json_t *ann = wh_json_obj_ensure(wh_json_obj_ensure(obj, "metadata"), "annotations");
    json_object_set_new(ann, "bench.kruise.io/seen", json_string("true"));
    return WH_OK;
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "bench: cannot open %s (run from the repository root)\n", path);
        exit(1);
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = wh_xmalloc((size_t)n + 1);
    if (fread(buf, 1, (size_t)n, f) != (size_t)n)
        exit(1);
    buf[n] = '\0';
    fclose(f);
    *len = (size_t)n;
    return buf;
}

/* Runs the pipeline on body until about 0.5 s has passed; prints ns/op and allocations/op. */
void wh_bench_pipeline(const char *label, const struct wh_route *route,
                       const struct wh_handler_ctx *ctx, const char *body, size_t len);
void wh_bench_pipeline(const char *label, const struct wh_route *route,
                       const struct wh_handler_ctx *ctx, const char *body, size_t len)
{
    if (!wh_bench_wanted(label))
        return;
    double ns = wh_bench_dispatch_ns(label, route, ctx, body, len, 500000000, NULL);
    /* Every request allocates alike: one more, counted alone, gives the allocations per op. */
    struct wh_reply reply;
    unsigned long allocs_before = wh_arena_allocations();
    wh_dispatch(route, ctx, body, len, &reply);
    unsigned long allocs = wh_arena_allocations() - allocs_before;
    wh_reply_fini(&reply);
    printf("%-44s %10.0f ns/op %8lu jansson allocs/op  (%zu-byte review)\n", label, ns, allocs,
           len);
}

static void bench_pipeline_overhead(void)
{
    static const struct wh_route route = {
        .path = "/bench", .kind = WH_ROUTE_MUTATE, .admit = annotate};
    size_t len = 0;
    char *body = read_file("test/bench/data/pod-create.json", &len);
    wh_bench_pipeline("pipeline: pod-create (annotate)", &route, NULL, body, len);
    free(body);

    /* The same review carrying a Pod with 1500 environment variables. */
    json_error_t jerr;
    json_t *review = json_load_file("test/bench/data/pod-create.json", 0, &jerr);
    json_t *pod = wh_bench_jsonpatch_pod(1500, 0);
    json_object_set_new(json_object_get(review, "request"), "object", pod);
    body = wh_json_dumps(review);
    wh_bench_pipeline("pipeline: pod with 1500 env vars (annotate)", &route, NULL, body,
                      strlen(body));
    free(body);
    json_decref(review);
}

static long rss_kib(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    long size = 0, resident = 0;
    if (f) {
        if (fscanf(f, "%ld %ld", &size, &resident) != 2)
            resident = 0;
        fclose(f);
    }
    return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

/* n copies of template with metadata.name (and namespace, if ns_count) varied. */
static json_t *copies(const json_t *template, int n, const char *prefix, int ns_count)
{
    json_t *items = json_array();
    for (int i = 0; i < n; i++) {
        json_t *o = json_deep_copy(template);
        char name[64], ns[32];
        snprintf(name, sizeof(name), "%s-%05d", prefix, i);
        json_t *meta = wh_json_obj_ensure(o, "metadata");
        json_object_set_new(meta, "name", json_string(name));
        json_object_set_new(meta, "resourceVersion", json_integer(i + 1));
        if (ns_count) {
            snprintf(ns, sizeof(ns), "ns-%03d", i % ns_count);
            json_object_set_new(meta, "namespace", json_string(ns));
        }
        json_array_append_new(items, o);
    }
    return items;
}

/* Issue 3's figure: resident memory with 10 000 Pods and 10 000 SidecarSets cached, through
 * the caches the handlers declare (the SidecarSet view and namespace index included). */
static void bench_cache_memory(void)
{
    struct wh_config cfg;
    struct wh_errbuf eb = {{0}};
    char *argv[] = {"kruise-webhook", NULL};
    struct wh_cluster *cl = NULL;
    json_t *none = json_array();
    if (wh_config_load(&cfg, 1, argv, &eb) || wh_cluster_new_standalone_objects(none, &cl, &eb) ||
        wh_routes_setup(&cfg, cl, &eb)) {
        fprintf(stderr, "bench: %s\n", eb.msg);
        exit(1);
    }
    struct wh_cache *pods = wh_cluster_declare(cl, WH_RES_POD, NULL);
    if (wh_cluster_start(cl, &eb))
        exit(1);
    json_decref(none);
    json_error_t jerr;
    json_t *review = json_load_file("test/bench/data/pod-create.json", 0, &jerr);
    json_t *sets = json_load_file("test/bench/data/sidecarsets-50.json", 0, &jerr);
    if (!review || !sets) {
        fprintf(stderr, "bench: cannot load the bench inputs\n");
        exit(1);
    }
    /* One object at a time, each freed once stored, so RSS shows what the cache keeps. */
    const json_t *pod = wh_json_path(review, "request", "object", NULL);
    struct wh_cache *setcache = wh_cluster_cache(cl, WH_RES_SIDECARSET);
    size_t pod_bytes = 0, set_bytes = 0;
    malloc_trim(0);
    long before = rss_kib();
    for (int i = 0; i < 10000; i++) {
        json_t *one = copies(pod, 1, "pod", 0);
        json_t *o = json_incref(json_array_get(one, 0));
        char name[32], ns[32];
        snprintf(name, sizeof(name), "pod-%05d", i);
        snprintf(ns, sizeof(ns), "ns-%03d", i % 100);
        json_object_set_new(json_object_get(o, "metadata"), "name", json_string(name));
        json_object_set_new(json_object_get(o, "metadata"), "namespace", json_string(ns));
        char *t = wh_json_dumps(o);
        pod_bytes += strlen(t);
        free(t);
        if (wh_cache_upsert_new(pods, o))
            exit(1);
        json_decref(one);
    }
    malloc_trim(0);
    long with_pods = rss_kib();
    for (int i = 0; i < 10000; i++) {
        json_t *o = json_deep_copy(json_array_get(sets, (size_t)i % json_array_size(sets)));
        char name[32];
        snprintf(name, sizeof(name), "ss-%05d", i);
        json_object_set_new(json_object_get(o, "metadata"), "name", json_string(name));
        char *t = wh_json_dumps(o);
        set_bytes += strlen(t);
        free(t);
        if (wh_cache_upsert_new(setcache, o))
            exit(1);
    }
    malloc_trim(0);
    long with_sets = rss_kib();
    printf("cache memory: 10000 Pods (%zu KiB of JSON) +%ld KiB RSS; 10000 SidecarSets "
           "(%zu KiB of JSON) +%ld KiB RSS; process RSS %ld KiB\n",
           pod_bytes / 1024, with_pods - before, set_bytes / 1024, with_sets - with_pods,
           with_sets);

    /* A restart's resync of 50 000 SidecarSets: what the informer does with one list. */
    json_t *big = json_array();
    for (int i = 0; i < 1000; i++) {
        json_t *batch = copies(json_array_get(sets, (size_t)i % json_array_size(sets)), 50, "x", 0);
        for (size_t k = 0; k < json_array_size(batch); k++) {
            char name[64];
            snprintf(name, sizeof(name), "big-%04d-%02zu", i, k);
            json_object_set_new(json_object_get(json_array_get(batch, k), "metadata"), "name",
                                json_string(name));
        }
        json_array_extend(big, batch);
        json_decref(batch);
    }
    int64_t t0 = wh_time_mono_ns();
    wh_cache_replace_all_new(wh_cluster_cache(cl, WH_RES_SIDECARSET), big);
    printf("cache resync: 50000 SidecarSets into the indexed cache in %.0f ms\n",
           (double)(wh_time_mono_ns() - t0) / 1e6);
    json_decref(review);
    json_decref(sets);
    wh_cluster_free(cl);
    wh_config_fini(&cfg);
}

/* The whole /convert request for the 100-StatefulSet review of ../shared/bench. */
static void bench_convert_pipeline(void)
{
    static const struct wh_route route = {
        .path = "/convert", .kind = WH_ROUTE_CONVERT, .convert = wh_convert_objects};
    size_t len = 0;
    char *body = read_file("test/bench/data/conversion-100.json", &len);
    wh_bench_pipeline("pipeline: /convert 100 StatefulSets", &route, NULL, body, len);
    free(body);
}

/* What /mutate-pod's decoding check costs on the pod-create Pod (Go's typed decoding, checked
 * against the model without building anything). */
static void bench_pod_check(void)
{
    const char *label = "gotype: check the pod-create Pod";
    if (!wh_bench_wanted(label))
        return;
    json_error_t jerr;
    json_t *review = json_load_file("test/bench/data/pod-create.json", 0, &jerr);
    const json_t *pod = wh_json_path(review, "request", "object", NULL);
    const struct wh_gotype *t = wh_gotype_lookup("v1", "Pod");
    struct wh_errbuf eb;
    const char *fixed = getenv("WH_BENCH_ITERS");
    long want = fixed ? strtol(fixed, NULL, 10) : 0, iters = 0;
    int64_t start = wh_time_mono_ns(), now = start;
    while (want > 0 ? iters < want : now - start < 300000000) {
        if (wh_gotype_check(pod, t, &eb)) {
            fprintf(stderr, "bench %s: %s\n", label, eb.msg);
            exit(1);
        }
        iters++;
        if (iters % 64 == 0 || want > 0)
            now = wh_time_mono_ns();
    }
    printf("%-44s %10.0f ns/op\n", label, (double)(now - start) / (double)iters);
    json_decref(review);
}

int main(void)
{
    wh_json_init();
    wh_log_setup(WH_LOG_ERROR, WH_LOG_TEXT);
    printf("kruise-webhook benchmarks (one core, in process)\n");
    bench_pipeline_overhead();
    bench_convert_pipeline();
    bench_pod_check();
    if (wh_bench_wanted_group("diff"))
        wh_bench_jsonpatch();
    if (wh_bench_wanted_group("conver"))
        wh_bench_conversion();
    if (wh_bench_wanted_group("sidecarset"))
        wh_bench_sidecarset();
    if (wh_bench_wanted_group("pub"))
        wh_bench_pub();
    if (wh_bench_wanted_group("regex"))
        wh_bench_regex();
    if (wh_bench_wanted_group("workloadspread"))
        wh_bench_workloadspread();
    if (wh_bench_wanted_group("workloads"))
        wh_bench_workloads();
    if (wh_bench_wanted_group("podtemplate"))
        wh_bench_podtemplate();
    if (wh_bench_wanted_group("podsteps"))
        wh_bench_podsteps();
    if (wh_bench_wanted_group("cache"))
        bench_cache_memory();
    wh_arena_release();
    return 0;
}
