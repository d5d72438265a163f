#include "log/log.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "util/buf.h"
#include "util/str.h"
#include "util/time.h"

static enum wh_log_level min_level = WH_LOG_INFO;
static enum wh_log_format format = WH_LOG_JSON;

static const char *const level_names[] = {"debug", "info", "warn", "error"};

/* A line is at most this long once escaped (a longer one is cut, never lost), its message at
 * most MSG_ROOM bytes into it. */
#define LINE_MAX_BYTES 8192
#define MSG_ROOM (LINE_MAX_BYTES - 1024)

void wh_log_setup(enum wh_log_level min, enum wh_log_format fmt)
{
    min_level = min;
    format = fmt;
}

bool wh_log_enabled(enum wh_log_level level)
{
    return level >= min_level;
}

enum wh_err wh_log_parse_level(const char *s, enum wh_log_level *out)
{
    for (int i = 0; i < 4; i++) {
        if (strcasecmp(s, level_names[i]) == 0) {
            *out = (enum wh_log_level)i;
            return WH_OK;
        }
    }
    if (strcasecmp(s, "warning") == 0) {
        *out = WH_LOG_WARN;
        return WH_OK;
    }
    return WH_ERR_INVALID;
}

enum wh_err wh_log_parse_format(const char *s, enum wh_log_format *out)
{
    if (strcmp(s, "json") == 0)
        *out = WH_LOG_JSON;
    else if (strcmp(s, "text") == 0)
        *out = WH_LOG_TEXT;
    else
        return WH_ERR_INVALID;
    return WH_OK;
}

/* --- escaping ------------------------------------------------------------------------------ */

/* Code points a reader may take for the end of a line: C1 controls (U+0085 is NEL) and the
 * Unicode line and paragraph separators (JavaScript and many viewers split on them). */
static bool breaks_lines(uint32_t cp)
{
    return (cp >= 0x80 && cp <= 0x9f) || cp == 0x2028 || cp == 0x2029;
}

/* Appends s as the inside of a JSON string (quotes not included): valid JSON whatever s holds,
 * bytes that are not UTF-8 written as U+FFFD. Stops once b holds `room` bytes (the line is
 * cut, never lost). */
static void add_json_escaped(struct wh_buf *b, const char *s, size_t room)
{
    const unsigned char *p = (const unsigned char *)s, *end = p + strlen(s);
    enum wh_err rc = WH_OK;
    while (p < end && !rc && b->len < room) {
        uint32_t cp = 0;
        size_t n = *p >= 0x80 ? wh_str_utf8_seq(p, end, &cp) : 1;
        if (*p == '"' || *p == '\\')
            rc = wh_buf_printf(b, "\\%c", *p);
        else if (*p < 0x20 || *p == 0x7f)
            rc = wh_buf_printf(b, "\\u%04x", *p);
        else if (*p < 0x80)
            rc = wh_buf_addc(b, (char)*p);
        else if (!n)
            rc = wh_buf_adds(b, "\\ufffd");
        else if (breaks_lines(cp))
            rc = wh_buf_printf(b, "\\u%04x", (unsigned)cp);
        else
            rc = wh_buf_add(b, p, n);
        p += n ? n : 1;
    }
}

/* Appends s for a text line: bytes that could end the line or drive a terminal (C0 controls,
 * DEL, C1 controls, the line separators, bytes that are not UTF-8) and the backslash are
 * escaped, everything else is kept. Stops once b holds `room` bytes. */
static void add_text_escaped(struct wh_buf *b, const char *s, size_t room)
{
    const unsigned char *p = (const unsigned char *)s, *end = p + strlen(s);
    enum wh_err rc = WH_OK;
    while (p < end && !rc && b->len < room) {
        uint32_t cp = 0;
        size_t n = *p >= 0x80 ? wh_str_utf8_seq(p, end, &cp) : 1;
        if (*p == '\\')
            rc = wh_buf_adds(b, "\\\\");
        else if (*p == '\n')
            rc = wh_buf_adds(b, "\\n");
        else if (*p == '\r')
            rc = wh_buf_adds(b, "\\r");
        else if (*p == '\t')
            rc = wh_buf_adds(b, "\\t");
        else if (*p < 0x20 || *p == 0x7f || (*p >= 0x80 && !n))
            rc = wh_buf_printf(b, "\\x%02x", *p);
        else if (*p < 0x80)
            rc = wh_buf_addc(b, (char)*p);
        else if (breaks_lines(cp))
            rc = wh_buf_printf(b, "\\u%04x", (unsigned)cp);
        else
            rc = wh_buf_add(b, p, n);
        p += n ? n : 1;
    }
}

/* Appends s; past the line's cap it is cut (format_line ends the line whatever happens). */
static void put(struct wh_buf *b, const char *s)
{
    enum wh_err cut = wh_buf_adds(b, s);
    (void)cut;
}

/* The line for one event, newline included, into b (capped at LINE_MAX_BYTES). */
static void format_line(struct wh_buf *b, enum wh_log_level level, const char *uid,
                        const char *path, const char *msg)
{
    int64_t ns = wh_time_wall_ns();
    time_t secs = (time_t)(ns / 1000000000);
    struct tm tm;
    gmtime_r(&secs, &tm);
    char ts[40];
    size_t n = strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(ts + n, sizeof(ts) - n, ".%06lldZ", (long long)(ns % 1000000000 / 1000));

    /* The message stops MSG_ROOM bytes into the line, so that a long one is cut but the line
     * keeps its uid, webhook and end. */
    wh_buf_init(b, LINE_MAX_BYTES);
    if (format == WH_LOG_JSON) {
        put(b, "{\"ts\":\"");
        put(b, ts);
        put(b, "\",\"level\":\"");
        put(b, level_names[level]);
        put(b, "\",\"msg\":\"");
        add_json_escaped(b, msg, MSG_ROOM);
        put(b, "\"");
        if (uid) {
            put(b, ",\"uid\":\"");
            add_json_escaped(b, uid, LINE_MAX_BYTES - 64);
            put(b, "\"");
        }
        if (path) {
            put(b, ",\"webhook\":\"");
            add_json_escaped(b, path, LINE_MAX_BYTES - 8);
            put(b, "\"");
        }
        put(b, "}\n");
    } else {
        char head[64];
        snprintf(head, sizeof(head), "%s %-5s ", ts, level_names[level]);
        put(b, head);
        add_text_escaped(b, msg, MSG_ROOM);
        if (uid) {
            put(b, " uid=");
            add_text_escaped(b, uid, LINE_MAX_BYTES - 64);
        }
        if (path) {
            put(b, " webhook=");
            add_text_escaped(b, path, LINE_MAX_BYTES - 8);
        }
        put(b, "\n");
    }
    if (b->len > 0 && b->data[b->len - 1] != '\n')
        b->data[b->len - 1] = '\n'; /* cut at the cap: still one line */
}

/* --- the queue and its writer -------------------------------------------------------------- */

#define QUEUE_BYTES (1024 * 1024)

static struct {
    pthread_mutex_t mu;
    pthread_cond_t more;    /* lines were queued, or stop */
    pthread_cond_t drained; /* the queue is empty and written */
    char buf[QUEUE_BYTES];  /* a ring: used bytes from tail on */
    size_t tail, used;
    bool on;      /* lines go through the queue */
    bool writing; /* the writer holds bytes it took out */
    bool stop;
    pthread_t thread;
    unsigned long unreported; /* dropped since the writer last said so */
    _Atomic unsigned long dropped;
} q = {.mu = PTHREAD_MUTEX_INITIALIZER,
       .more = PTHREAD_COND_INITIALIZER,
       .drained = PTHREAD_COND_INITIALIZER};

static void write_all(const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(STDERR_FILENO, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return; /* stderr is gone: nothing to tell it */
        p += w;
        n -= (size_t)w;
    }
}

/* Hands one whole line to stderr: queued when the writer runs (dropped when the queue is
 * full), else written at once with one write(2), so that lines never interleave. */
static void output(const char *line, size_t len)
{
    pthread_mutex_lock(&q.mu);
    if (!q.on) {
        pthread_mutex_unlock(&q.mu);
        write_all(line, len);
        return;
    }
    if (len > QUEUE_BYTES - q.used) {
        q.unreported++;
        atomic_fetch_add_explicit(&q.dropped, 1, memory_order_relaxed);
        pthread_mutex_unlock(&q.mu);
        return;
    }
    size_t head = (q.tail + q.used) % QUEUE_BYTES;
    size_t first = len < QUEUE_BYTES - head ? len : QUEUE_BYTES - head;
    memcpy(q.buf + head, line, first);
    memcpy(q.buf, line + first, len - first);
    q.used += len;
    pthread_cond_signal(&q.more);
    pthread_mutex_unlock(&q.mu);
}

static void *writer_main(void *unused)
{
    (void)unused;
    static char chunk[64 * 1024];
    pthread_mutex_lock(&q.mu);
    for (;;) {
        while (!q.used && !q.unreported && !q.stop)
            pthread_cond_wait(&q.more, &q.mu);
        if (!q.used && !q.unreported && q.stop)
            break;
        size_t n = q.used;
        if (n > QUEUE_BYTES - q.tail)
            n = QUEUE_BYTES - q.tail;
        if (n > sizeof(chunk))
            n = sizeof(chunk);
        memcpy(chunk, q.buf + q.tail, n);
        q.tail = (q.tail + n) % QUEUE_BYTES;
        q.used -= n;
        /* Dropped lines are reported once what was queued before them is out. */
        unsigned long dropped = q.used ? 0 : q.unreported;
        q.unreported -= dropped;
        q.writing = true;
        pthread_mutex_unlock(&q.mu);
        write_all(chunk, n);
        if (dropped) {
            char msg[200];
            snprintf(msg, sizeof(msg),
                     "%lu log lines dropped: stderr did not take them as fast as they came (a "
                     "full pipe, a stalled log collector); counted in "
                     "kruise_webhook_log_lines_dropped_total",
                     dropped);
            struct wh_buf b;
            format_line(&b, WH_LOG_WARN, NULL, NULL, msg);
            write_all(b.data, b.len);
            wh_buf_fini(&b);
        }
        pthread_mutex_lock(&q.mu);
        q.writing = false;
        if (!q.used && !q.unreported)
            pthread_cond_broadcast(&q.drained);
    }
    pthread_mutex_unlock(&q.mu);
    return NULL;
}

enum wh_err wh_log_start(void)
{
    pthread_mutex_lock(&q.mu);
    enum wh_err rc = WH_OK;
    if (!q.on) {
        q.stop = false;
        q.on = pthread_create(&q.thread, NULL, writer_main, NULL) == 0;
        rc = q.on ? WH_OK : WH_ERR_INTERNAL;
    }
    pthread_mutex_unlock(&q.mu);
    return rc;
}

bool wh_log_stop(long long timeout_ms)
{
    int64_t wake = wh_time_wall_ns() + timeout_ms * 1000000;
    struct timespec ts = {(time_t)(wake / 1000000000), (long)(wake % 1000000000)};
    pthread_mutex_lock(&q.mu);
    if (!q.on) {
        pthread_mutex_unlock(&q.mu);
        return true;
    }
    while ((q.used || q.unreported || q.writing) &&
           pthread_cond_timedwait(&q.drained, &q.mu, &ts) == 0) {
    }
    bool drained = !q.used && !q.unreported && !q.writing;
    if (drained) {
        q.stop = true;
        q.on = false;
        pthread_cond_signal(&q.more);
    }
    pthread_mutex_unlock(&q.mu);
    if (drained)
        pthread_join(q.thread, NULL);
    return drained;
}

unsigned long wh_log_dropped(void)
{
    return atomic_load_explicit(&q.dropped, memory_order_relaxed);
}

/* --- the rate limit of each kind ------------------------------------------------------------ */

static const char *const kind_names[WH_LOG_KINDS] = {
    "bad_request", "denied", "conversion_failed", "handler_failed", "request"};

/* A token bucket: WH_LOG_BURST lines, refilled at WH_LOG_PER_SECOND. */
struct bucket {
    pthread_mutex_t mu;
    bool started;
    double tokens;
    int64_t last_ns;
    unsigned long held; /* held back since the last line of the kind */
    _Atomic unsigned long suppressed;
};

static struct bucket buckets[WH_LOG_KINDS] = {
    {.mu = PTHREAD_MUTEX_INITIALIZER}, {.mu = PTHREAD_MUTEX_INITIALIZER},
    {.mu = PTHREAD_MUTEX_INITIALIZER}, {.mu = PTHREAD_MUTEX_INITIALIZER},
    {.mu = PTHREAD_MUTEX_INITIALIZER}};

const char *wh_log_kind_name(enum wh_log_kind kind)
{
    return kind < WH_LOG_KINDS ? kind_names[kind] : "?";
}

/* True when a line of the kind may go now; *held says how many were held back before it. */
static bool bucket_take(enum wh_log_kind kind, unsigned long *held)
{
    struct bucket *k = &buckets[kind];
    int64_t now = wh_time_mono_ns();
    bool pass = false;
    pthread_mutex_lock(&k->mu);
    if (!k->started) {
        k->started = true;
        k->tokens = WH_LOG_BURST;
    } else {
        k->tokens += (double)(now - k->last_ns) / 1e9 * WH_LOG_PER_SECOND;
        if (k->tokens > WH_LOG_BURST)
            k->tokens = WH_LOG_BURST;
    }
    k->last_ns = now;
    if (k->tokens >= 1) {
        k->tokens -= 1;
        *held = k->held;
        k->held = 0;
        pass = true;
    } else {
        k->held++;
        atomic_fetch_add_explicit(&k->suppressed, 1, memory_order_relaxed);
    }
    pthread_mutex_unlock(&k->mu);
    return pass;
}

unsigned long wh_log_suppressed(enum wh_log_kind kind)
{
    return kind < WH_LOG_KINDS
               ? atomic_load_explicit(&buckets[kind].suppressed, memory_order_relaxed)
               : 0;
}

/* --- entry points -------------------------------------------------------------------------- */

static WH_PRINTF(5, 0) void emit(enum wh_log_level level, const char *uid, const char *path,
                                 unsigned long held, const char *fmt, va_list ap)
{
    char msg[2048];
    int n = vsnprintf(msg, sizeof(msg), fmt, ap);
    if (held && n >= 0 && (size_t)n < sizeof(msg))
        snprintf(msg + n, sizeof(msg) - (size_t)n,
                 " (%lu more lines of this kind held back by the log rate limit)", held);
    struct wh_buf b;
    format_line(&b, level, uid, path, msg);
    output(b.data, b.len);
    wh_buf_fini(&b);
}

void wh_log(enum wh_log_level level, const char *fmt, ...)
{
    if (level < min_level)
        return;
    va_list ap;
    va_start(ap, fmt);
    emit(level, NULL, NULL, 0, fmt, ap);
    va_end(ap);
}

static WH_PRINTF(5, 0) void limited(enum wh_log_kind kind, enum wh_log_level level,
                                    const char *uid, const char *path, const char *fmt,
                                    va_list ap)
{
    unsigned long held = 0;
    if (level < min_level || !bucket_take(kind, &held))
        return;
    emit(level, uid, path, held, fmt, ap);
}

void wh_log_limited(enum wh_log_kind kind, enum wh_log_level level, const char *uid,
                    const char *path, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    limited(kind, level, uid, path, fmt, ap);
    va_end(ap);
}

void wh_log_req(enum wh_log_level level, const char *uid, const char *path, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (level == WH_LOG_DEBUG) {
        if (level >= min_level)
            emit(level, uid, path, 0, fmt, ap);
    } else {
        limited(WH_LOG_REQUEST, level, uid, path, fmt, ap);
    }
    va_end(ap);
}

bool wh_log_ratelimit_pass(_Atomic long long *last, int seconds)
{
    long long now = (long long)(wh_time_mono_ns() / 1000000000);
    long long prev = atomic_load_explicit(last, memory_order_relaxed);
    if (prev != 0 && now - prev < seconds)
        return false;
    return atomic_compare_exchange_strong(last, &prev, now ? now : 1);
}
