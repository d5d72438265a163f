#ifndef WH_TEST_SUPPORT_BENCH_LOOP_H
#define WH_TEST_SUPPORT_BENCH_LOOP_H

/* What the per-feature benchmarks share: the server's default configuration, and the timing
 * loop of one request through the whole pipeline (wh_dispatch) again and again.
 * Thread rule: single thread only. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/config.h"
#include "handlers/registry.h"

/* Loads the configuration the binary runs with when given no flags; exits on error. Release
 * with wh_config_fini. */
void wh_bench_config(struct wh_config *cfg);

/* WH_BENCH=name: true when label contains name (or WH_BENCH is unset). */
bool wh_bench_wanted(const char *label);
/* True when a benchmark of the group whose labels start with prefix may be wanted: WH_BENCH
 * is unset, names part of prefix, or names a label under it. */
bool wh_bench_wanted_group(const char *prefix);

/* Warms up with 200 requests, then dispatches body in batches of 50 until budget_ns have
 * passed (WH_BENCH_ITERS=n: exactly n requests, for instruction counts under callgrind).
 * Returns the nanoseconds per request; *iters (may be NULL) the requests timed. Exits when an
 * answer is not HTTP 200. */
double wh_bench_dispatch_ns(const char *label, const struct wh_route *route,
                            const struct wh_handler_ctx *ctx, const char *body, size_t len,
                            int64_t budget_ns, long *iters);
/* The same timed in the thread's CPU time (budget_ns too): on a shared machine wall time would
 * time the neighbours as well. */
double wh_bench_dispatch_cpu_ns(const char *label, const struct wh_route *route,
                                const struct wh_handler_ctx *ctx, const char *body, size_t len,
                                int64_t budget_ns, long *iters);

/* The calling thread's CPU time in nanoseconds (CLOCK_THREAD_CPUTIME_ID). */
int64_t wh_bench_cpu_ns(void);

/* Exits unless reply is HTTP 200, allowed, with a JSON patch that contains want (NULL: any
 * patch). */
struct wh_reply;
void wh_bench_check_patch(const char *label, const struct wh_reply *reply, const char *want);

#endif
