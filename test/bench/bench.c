/* make bench: in-process benchmarks of the request path (decode -> handler -> diff -> encode)
 * and of each feature. Prints ns/op and jansson allocations per op; never part of make test.
 * Inputs from ../shared/bench are copied into test/bench/data so figures compare over time. */
#include <jansson.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conversion/convert.h"
#include "log/log.h"
#include "server/dispatch.h"
#include "test/support/bench_conversion.h"
#include "test/support/bench_jsonpatch.h"
#include "test/support/bench_sidecarset.h"
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

static bool wanted(const char *label);

/* Runs the pipeline on body until about 0.5 s has passed; prints ns/op and allocations/op. */
void wh_bench_pipeline(const char *label, const struct wh_route *route,
                       const struct wh_handler_ctx *ctx, const char *body, size_t len);
void wh_bench_pipeline(const char *label, const struct wh_route *route,
                       const struct wh_handler_ctx *ctx, const char *body, size_t len)
{
    if (!wanted(label))
        return;
    struct wh_reply reply;
    for (int i = 0; i < 100; i++) { /* warm up */
        wh_dispatch(route, ctx, body, len, &reply);
        wh_reply_fini(&reply);
    }
    /* WH_BENCH_ITERS=n runs exactly n iterations, for instruction counts under callgrind. */
    const char *fixed = getenv("WH_BENCH_ITERS");
    long want = fixed ? strtol(fixed, NULL, 10) : 0;
    long iters = 0;
    unsigned long allocs_before = wh_arena_allocations();
    int64_t start = wh_time_mono_ns(), now = start;
    while (want > 0 ? iters < want : now - start < 500000000) {
        for (int i = 0; i < 100; i++) {
            wh_dispatch(route, ctx, body, len, &reply);
            if (reply.http_status != 200) {
                fprintf(stderr, "bench %s: HTTP %d %s\n", label, reply.http_status, reply.body);
                exit(1);
            }
            wh_reply_fini(&reply);
        }
        iters += 100;
        now = wh_time_mono_ns();
    }
    printf("%-44s %10.0f ns/op %8.0f jansson allocs/op  (%zu-byte review)\n", label,
           (double)(now - start) / (double)iters,
           (double)(wh_arena_allocations() - allocs_before) / (double)iters, len);
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

/* WH_BENCH=name runs only the benchmarks whose label contains name. */
static bool wanted(const char *label)
{
    const char *only = getenv("WH_BENCH");
    return !only || strstr(label, only) != NULL;
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

int main(void)
{
    wh_mem_init();
    wh_log_setup(WH_LOG_ERROR, WH_LOG_TEXT);
    printf("kruise-webhook benchmarks (one core, in process)\n");
    bench_pipeline_overhead();
    bench_convert_pipeline();
    if (wanted("diff"))
        wh_bench_jsonpatch();
    if (wanted("conver"))
        wh_bench_conversion();
    if (wanted("sidecarset"))
        wh_bench_sidecarset();
    wh_arena_release();
    return 0;
}
