#include "metrics/metrics.h"

#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/mem.h"
#include "util/str.h"

enum kind { COUNTER, GAUGE, HISTOGRAM };

/* Buckets in seconds: controller-runtime's defaults (5ms..10s) with finer ones below, since
 * our answers take microseconds; the upper ones keep existing dashboards meaningful. */
static const double buckets[] = {0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001,
                                 0.0025,  0.005,    0.01,    0.025,  0.05,    0.1,    0.25,
                                 0.5,     1,        2.5,     5,      10};
#define NBUCKETS (sizeof(buckets) / sizeof(buckets[0]))

struct wh_metric {
    struct wh_metric *next;
    char *labels;
    bool counter;           /* value holds a count, not the bits of a double */
    _Atomic uint64_t value; /* counters: the count; gauges: the bits of a double */
    double (*fn)(void *);
    void *arg;
};

struct wh_histogram {
    struct wh_histogram *next;
    char *labels;
    _Atomic uint64_t counts[NBUCKETS + 1]; /* the last one is +Inf */
    _Atomic uint64_t sum_ns;
};

struct family {
    struct family *next;
    char *name;
    char *help;
    enum kind kind;
    struct wh_metric *series;
    struct wh_histogram *hseries;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct family *families;
static struct family **families_tail = &families;

void wh_metrics_labels(char *out, size_t outsz, ...)
{
    struct wh_buf b;
    wh_buf_init(&b, outsz > 0 ? outsz - 1 : 0);
    va_list ap;
    va_start(ap, outsz);
    enum wh_err rc = WH_OK;
    for (const char *k = va_arg(ap, const char *); k && !rc; k = va_arg(ap, const char *)) {
        const char *v = va_arg(ap, const char *);
        rc = wh_buf_printf(&b, "%s%s=\"", b.len ? "," : "", k);
        for (const char *p = v; !rc && *p; p++) {
            if (*p == '\\' || *p == '"')
                rc = wh_buf_printf(&b, "\\%c", *p);
            else if (*p == '\n')
                rc = wh_buf_adds(&b, "\\n");
            else
                rc = wh_buf_addc(&b, *p);
        }
        if (!rc)
            rc = wh_buf_addc(&b, '"');
    }
    va_end(ap);
    if (outsz > 0)
        snprintf(out, outsz, "%s", b.data ? b.data : "");
    wh_buf_fini(&b);
}

static struct family *family_get(const char *name, const char *help, enum kind kind)
{
    for (struct family *f = families; f; f = f->next) {
        if (strcmp(f->name, name) == 0) {
            if (f->kind != kind)
                WH_PANIC("metric %s registered with two types", name);
            return f;
        }
    }
    struct family *f = wh_xcalloc(1, sizeof(*f));
    f->name = wh_xstrdup(name);
    f->help = wh_xstrdup(help);
    f->kind = kind;
    *families_tail = f;
    families_tail = &f->next;
    return f;
}

static struct wh_metric *series_get(const char *name, const char *help, const char *labels,
                                    enum kind kind)
{
    const char *l = labels ? labels : "";
    pthread_mutex_lock(&lock);
    struct family *f = family_get(name, help, kind);
    struct wh_metric **tail = &f->series;
    for (struct wh_metric *m = f->series; m; m = m->next) {
        if (strcmp(m->labels, l) == 0) {
            pthread_mutex_unlock(&lock);
            return m;
        }
        tail = &m->next;
    }
    struct wh_metric *m = wh_xcalloc(1, sizeof(*m));
    m->labels = wh_xstrdup(l);
    m->counter = kind == COUNTER;
    *tail = m;
    pthread_mutex_unlock(&lock);
    return m;
}

struct wh_metric *wh_metrics_counter(const char *name, const char *help, const char *labels)
{
    return series_get(name, help, labels, COUNTER);
}

struct wh_metric *wh_metrics_gauge(const char *name, const char *help, const char *labels)
{
    return series_get(name, help, labels, GAUGE);
}

static void series_fn(const char *name, const char *help, const char *labels, enum kind kind,
                      double (*fn)(void *arg), void *arg)
{
    struct wh_metric *m = series_get(name, help, labels, kind);
    pthread_mutex_lock(&lock);
    m->fn = fn;
    m->arg = arg;
    pthread_mutex_unlock(&lock);
}

void wh_metrics_gauge_fn(const char *name, const char *help, const char *labels,
                         double (*fn)(void *arg), void *arg)
{
    series_fn(name, help, labels, GAUGE, fn, arg);
}

void wh_metrics_counter_fn(const char *name, const char *help, const char *labels,
                           double (*fn)(void *arg), void *arg)
{
    series_fn(name, help, labels, COUNTER, fn, arg);
}

struct wh_histogram *wh_metrics_histogram(const char *name, const char *help, const char *labels)
{
    const char *l = labels ? labels : "";
    pthread_mutex_lock(&lock);
    struct family *f = family_get(name, help, HISTOGRAM);
    struct wh_histogram **tail = &f->hseries;
    for (struct wh_histogram *h = f->hseries; h; h = h->next) {
        if (strcmp(h->labels, l) == 0) {
            pthread_mutex_unlock(&lock);
            return h;
        }
        tail = &h->next;
    }
    struct wh_histogram *h = wh_xcalloc(1, sizeof(*h));
    h->labels = wh_xstrdup(l);
    *tail = h;
    pthread_mutex_unlock(&lock);
    return h;
}

void wh_metric_add(struct wh_metric *m, uint64_t n)
{
    atomic_fetch_add_explicit(&m->value, n, memory_order_relaxed);
}

static uint64_t dbits(double v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof(u));
    return u;
}

static double bitsd(uint64_t u)
{
    double v;
    memcpy(&v, &u, sizeof(v));
    return v;
}

void wh_metric_set(struct wh_metric *m, double v)
{
    atomic_store_explicit(&m->value, dbits(v), memory_order_relaxed);
}

static void gauge_add(struct wh_metric *m, double d)
{
    uint64_t old = atomic_load_explicit(&m->value, memory_order_relaxed);
    while (!atomic_compare_exchange_weak_explicit(&m->value, &old, dbits(bitsd(old) + d),
                                                  memory_order_relaxed, memory_order_relaxed))
        ;
}

void wh_metric_inc(struct wh_metric *m)
{
    gauge_add(m, 1);
}

void wh_metric_dec(struct wh_metric *m)
{
    gauge_add(m, -1);
}

double wh_metric_value(const struct wh_metric *m)
{
    uint64_t v =
        atomic_load_explicit(&((struct wh_metric *)(uintptr_t)m)->value, memory_order_relaxed);
    return m->counter ? (double)v : bitsd(v);
}

void wh_histogram_observe(struct wh_histogram *h, double seconds)
{
    size_t i = 0;
    while (i < NBUCKETS && seconds > buckets[i])
        i++;
    atomic_fetch_add_explicit(&h->counts[i], 1, memory_order_relaxed);
    double ns = seconds * 1e9;
    atomic_fetch_add_explicit(&h->sum_ns, ns > 0 ? (uint64_t)ns : 0, memory_order_relaxed);
}

/* The shortest spelling that reads back as v, as Go's strconv.FormatFloat(v, 'g', -1, 64) and
 * so Prometheus' Go client write it (9 digits turned a start time of 1796166209.39 s into
 * 1.79616621e+09, a second later). */
static void shortest(char *num, size_t numsz, double v)
{
    for (int digits = 9; digits <= 17; digits++) {
        snprintf(num, numsz, "%.*g", digits, v);
        if (strtod(num, NULL) == v)
            return;
    }
}

static enum wh_err render_value(struct wh_buf *out, const char *name, const char *suffix,
                                const char *labels, const char *extra, double v)
{
    const char *sep = labels[0] && extra[0] ? "," : "";
    bool braces = labels[0] || extra[0];
    char num[64];
    if (isinf(v))
        snprintf(num, sizeof(num), "%s", v > 0 ? "+Inf" : "-Inf");
    else if (v == floor(v) && fabs(v) < 1e15)
        snprintf(num, sizeof(num), "%.0f", v);
    else
        shortest(num, sizeof(num), v);
    return wh_buf_printf(out, "%s%s%s%s%s%s%s %s\n", name, suffix, braces ? "{" : "", labels, sep,
                         extra, braces ? "}" : "", num);
}

enum wh_err wh_metrics_render(struct wh_buf *out)
{
    enum wh_err rc = WH_OK;
    pthread_mutex_lock(&lock);
    for (struct family *f = families; f && !rc; f = f->next) {
        static const char *const types[] = {"counter", "gauge", "histogram"};
        rc = wh_buf_printf(out, "# HELP %s %s\n# TYPE %s %s\n", f->name, f->help, f->name,
                           types[f->kind]);
        for (struct wh_metric *m = f->series; m && !rc; m = m->next) {
            double v;
            v = m->fn ? m->fn(m->arg) : wh_metric_value(m);
            rc = render_value(out, f->name, "", m->labels, "", v);
        }
        for (struct wh_histogram *h = f->hseries; h && !rc; h = h->next) {
            uint64_t cum = 0;
            for (size_t i = 0; i <= NBUCKETS && !rc; i++) {
                cum += atomic_load_explicit(&h->counts[i], memory_order_relaxed);
                char le[48];
                if (i < NBUCKETS)
                    snprintf(le, sizeof(le), "le=\"%g\"", buckets[i]);
                else
                    snprintf(le, sizeof(le), "le=\"+Inf\"");
                rc = render_value(out, f->name, "_bucket", h->labels, le, (double)cum);
            }
            if (!rc)
                rc = render_value(out, f->name, "_sum", h->labels, "",
                                  (double)atomic_load_explicit(&h->sum_ns, memory_order_relaxed) /
                                      1e9);
            if (!rc)
                rc = render_value(out, f->name, "_count", h->labels, "", (double)cum);
        }
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

void wh_metrics_reset(void)
{
    pthread_mutex_lock(&lock);
    struct family *f = families;
    while (f) {
        struct family *fn = f->next;
        for (struct wh_metric *m = f->series, *mn; m; m = mn) {
            mn = m->next;
            free(m->labels);
            free(m);
        }
        for (struct wh_histogram *h = f->hseries, *hn; h; h = hn) {
            hn = h->next;
            free(h->labels);
            free(h);
        }
        free(f->name);
        free(f->help);
        free(f);
        f = fn;
    }
    families = NULL;
    families_tail = &families;
    pthread_mutex_unlock(&lock);
}

void wh_metrics_count_capped(const char *name, const char *help, const char *label_name,
                             const char *label_value, const char *username, unsigned max_series,
                             atomic_uint *series)
{
    char labels[1024];
    if (atomic_load_explicit(series, memory_order_relaxed) >= max_series) {
        label_value = "_overflow_";
        username = "_overflow_";
    }
    wh_metrics_labels(labels, sizeof(labels), label_name, label_value, "username", username, NULL);
    struct wh_metric *m = wh_metrics_counter(name, help, labels);
    /* Series are only ever created here, right before their first increment, so a zero value
     * means a new series. */
    if (wh_metric_value(m) == 0)
        atomic_fetch_add_explicit(series, 1, memory_order_relaxed);
    wh_metric_add(m, 1);
}
