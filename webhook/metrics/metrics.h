#ifndef WH_METRICS_METRICS_H
#define WH_METRICS_METRICS_H

/* Prometheus metrics: counters, gauges and fixed-bucket histograms, rendered in the text format
 * at /metrics. Series are registered once (find-or-create) and then updated lock-free with
 * relaxed atomics, so the request path never takes a lock for a known series.
 * Thread rule: thread-safe. Series live until wh_metrics_reset (tests) or process exit. */

#include <stdatomic.h>
#include <stdint.h>

#include "util/buf.h"
#include "util/err.h"

struct wh_metric;
struct wh_histogram;

/* Formats label pairs `k1="v1",k2="v2"` with Prometheus escaping into out. The list of key,
 * value strings ends with NULL. Truncates (never overflows) when out is too small. */
void wh_metrics_labels(char *out, size_t outsz, ...);

/* Returns: borrowed; the series name{labels} (labels may be NULL), created on first use. A name
 * registered with another type or help is a programming error (panics). */
struct wh_metric *wh_metrics_counter(const char *name, const char *help, const char *labels);
struct wh_metric *wh_metrics_gauge(const char *name, const char *help, const char *labels);
struct wh_histogram *wh_metrics_histogram(const char *name, const char *help, const char *labels);
/* A gauge computed at scrape time by fn(arg); fn runs on the scraping thread, must be
 * thread-safe and must not call into this module. */
void wh_metrics_gauge_fn(const char *name, const char *help, const char *labels,
                         double (*fn)(void *arg), void *arg);
/* The same for a counter another module keeps (fn must never decrease). */
void wh_metrics_counter_fn(const char *name, const char *help, const char *labels,
                           double (*fn)(void *arg), void *arg);

void wh_metric_add(struct wh_metric *m, uint64_t n); /* counters */
void wh_metric_set(struct wh_metric *m, double v);   /* gauges */
void wh_metric_inc(struct wh_metric *m);             /* gauges: +1 */
void wh_metric_dec(struct wh_metric *m);             /* gauges: -1 */
double wh_metric_value(const struct wh_metric *m);   /* counters and gauges alike */
void wh_histogram_observe(struct wh_histogram *h, double seconds);

/* Adds 1 to name{label_name="label_value",username="username"}, for upstream OpenKruise's
 * counters whose labels come from requests (object names, users). A request can name anything,
 * so a family keeps at most max_series series and counts the rest under "_overflow_"; series
 * counts the family's series (a static of the caller, one per family). */
void wh_metrics_count_capped(const char *name, const char *help, const char *label_name,
                             const char *label_value, const char *username, unsigned max_series,
                             atomic_uint *series);

/* Renders every series. */
WH_NODISCARD enum wh_err wh_metrics_render(struct wh_buf *out);

/* Frees every series (tests, and leak-checked exits). No other thread may be using them. */
void wh_metrics_reset(void);

#endif
