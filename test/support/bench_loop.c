#include "test/support/bench_loop.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "server/dispatch.h"
#include "util/base64.h"
#include "util/json.h"
#include "util/time.h"

void wh_bench_config(struct wh_config *cfg)
{
    struct wh_errbuf eb = {{0}};
    char *argv[] = {"kruise-webhook", NULL};
    if (wh_config_load(cfg, 1, argv, &eb)) {
        fprintf(stderr, "bench: %s\n", eb.msg);
        exit(1);
    }
}

bool wh_bench_wanted(const char *label)
{
    const char *only = getenv("WH_BENCH");
    return !only || strstr(label, only) != NULL;
}

bool wh_bench_wanted_group(const char *prefix)
{
    const char *only = getenv("WH_BENCH");
    return !only || strstr(prefix, only) != NULL || strncmp(only, prefix, strlen(prefix)) == 0;
}

int64_t wh_bench_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static double dispatch_loop(const char *label, const struct wh_route *route,
                            const struct wh_handler_ctx *ctx, const char *body, size_t len,
                            int64_t budget_ns, long *iters, int64_t (*clock_ns)(void))
{
    struct wh_reply reply;
    for (int i = 0; i < 200; i++) { /* warm up */
        wh_dispatch(route, ctx, body, len, &reply);
        wh_reply_fini(&reply);
    }
    const char *fixed = getenv("WH_BENCH_ITERS");
    long want = fixed ? strtol(fixed, NULL, 10) : 0;
    long n = 0;
    int64_t start = clock_ns(), now = start;
    while (want > 0 ? n < want : now - start < budget_ns) {
        for (int i = 0; i < 50; i++) {
            wh_dispatch(route, ctx, body, len, &reply);
            if (reply.http_status != 200) {
                fprintf(stderr, "bench %s: HTTP %d %s\n", label, reply.http_status, reply.body);
                exit(1);
            }
            wh_reply_fini(&reply);
        }
        n += 50;
        now = clock_ns();
    }
    if (iters)
        *iters = n;
    return (double)(now - start) / (double)n;
}

void wh_bench_check_patch(const char *label, const struct wh_reply *reply, const char *want)
{
    json_t *answer = json_loads(reply->body, 0, NULL);
    const char *patch64 = wh_json_path_str(answer, "response", "patch", NULL);
    bool ok = reply->http_status == 200 && reply->allowed && patch64;
    if (ok && want) {
        size_t n = 0;
        unsigned char *patch = NULL;
        ok = wh_base64_decode(patch64, strlen(patch64), &patch, &n) == WH_OK;
        ok = ok && strstr((const char *)patch, want) != NULL;
        free(patch);
    }
    if (!ok) {
        fprintf(stderr, "bench %s: unexpected answer (want %s): %.400s\n", label, want,
                reply->body);
        exit(1);
    }
    json_decref(answer);
}

double wh_bench_dispatch_ns(const char *label, const struct wh_route *route,
                            const struct wh_handler_ctx *ctx, const char *body, size_t len,
                            int64_t budget_ns, long *iters)
{
    return dispatch_loop(label, route, ctx, body, len, budget_ns, iters, wh_time_mono_ns);
}

double wh_bench_dispatch_cpu_ns(const char *label, const struct wh_route *route,
                                const struct wh_handler_ctx *ctx, const char *body, size_t len,
                                int64_t budget_ns, long *iters)
{
    return dispatch_loop(label, route, ctx, body, len, budget_ns, iters, wh_bench_cpu_ns);
}
