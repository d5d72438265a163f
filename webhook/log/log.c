#include "log/log.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "util/buf.h"
#include "util/time.h"

static enum wh_log_level min_level = WH_LOG_INFO;
static enum wh_log_format format = WH_LOG_JSON;

static const char *const level_names[] = {"debug", "info", "warn", "error"};

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

/* Appends s as the inside of a JSON string (quotes not included). */
static void add_json_escaped(struct wh_buf *b, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        enum wh_err rc;
        if (*p == '"' || *p == '\\')
            rc = wh_buf_printf(b, "\\%c", *p);
        else if (*p < 0x20)
            rc = wh_buf_printf(b, "\\u%04x", *p);
        else
            rc = wh_buf_addc(b, (char)*p);
        if (rc)
            return; /* over the line cap: the line is cut, never lost entirely */
    }
}

/* Appends s for a text line: bytes that could end the line or drive a terminal (C0 controls,
 * DEL, C1 controls as UTF-8) and the backslash are escaped, everything else is kept. */
static void add_text_escaped(struct wh_buf *b, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        enum wh_err rc;
        if (*p == '\\')
            rc = wh_buf_adds(b, "\\\\");
        else if (*p == '\n')
            rc = wh_buf_adds(b, "\\n");
        else if (*p == '\r')
            rc = wh_buf_adds(b, "\\r");
        else if (*p == '\t')
            rc = wh_buf_adds(b, "\\t");
        else if (*p < 0x20 || *p == 0x7f)
            rc = wh_buf_printf(b, "\\x%02x", *p);
        else if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)
            rc = wh_buf_printf(b, "\\u%04x", *++p);
        else
            rc = wh_buf_addc(b, (char)*p);
        if (rc)
            return; /* over the line cap: the line is cut, never lost entirely */
    }
}

static WH_PRINTF(4, 0) void emit(enum wh_log_level level, const char *uid, const char *path, const char *fmt,
                 va_list ap)
{
    char msg[2048];
    vsnprintf(msg, sizeof(msg), fmt, ap);

    int64_t ns = wh_time_wall_ns();
    time_t secs = (time_t)(ns / 1000000000);
    struct tm tm;
    gmtime_r(&secs, &tm);
    char ts[40];
    size_t n = strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(ts + n, sizeof(ts) - n, ".%06lldZ", (long long)(ns % 1000000000 / 1000));

    struct wh_buf b;
    wh_buf_init(&b, 8192);
    enum wh_err rc = WH_OK;
    if (format == WH_LOG_JSON) {
        rc = wh_buf_printf(&b, "{\"ts\":\"%s\",\"level\":\"%s\",\"msg\":\"", ts,
                           level_names[level]);
        add_json_escaped(&b, msg);
        rc = wh_buf_adds(&b, "\"");
        if (!rc && uid) {
            rc = wh_buf_adds(&b, ",\"uid\":\"");
            add_json_escaped(&b, uid);
            rc = wh_buf_adds(&b, "\"");
        }
        if (!rc && path) {
            rc = wh_buf_adds(&b, ",\"webhook\":\"");
            add_json_escaped(&b, path);
            rc = wh_buf_adds(&b, "\"");
        }
        if (!rc)
            rc = wh_buf_adds(&b, "}\n");
    } else {
        rc = wh_buf_printf(&b, "%s %-5s ", ts, level_names[level]);
        add_text_escaped(&b, msg);
        if (uid) {
            rc = wh_buf_adds(&b, " uid=");
            add_text_escaped(&b, uid);
        }
        if (path) {
            rc = wh_buf_adds(&b, " webhook=");
            add_text_escaped(&b, path);
        }
        rc = wh_buf_adds(&b, "\n");
    }
    if (rc && b.len > 0 && b.data[b.len - 1] != '\n')
        b.data[b.len - 1] = '\n'; /* truncated: still one line */
    if (b.len) {
        ssize_t unused = write(STDERR_FILENO, b.data, b.len);
        (void)unused;
    }
    wh_buf_fini(&b);
}

void wh_log(enum wh_log_level level, const char *fmt, ...)
{
    if (level < min_level)
        return;
    va_list ap;
    va_start(ap, fmt);
    emit(level, NULL, NULL, fmt, ap);
    va_end(ap);
}

void wh_log_req(enum wh_log_level level, const char *uid, const char *path, const char *fmt, ...)
{
    if (level < min_level)
        return;
    va_list ap;
    va_start(ap, fmt);
    emit(level, uid, path, fmt, ap);
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

bool wh_log_limit_pass(struct wh_log_limit *l, unsigned lines, int seconds, unsigned long *dropped)
{
    long long now = (long long)(wh_time_mono_ns() / 1000000000);
    long long start = atomic_load(&l->window);
    if (now - start >= seconds && atomic_compare_exchange_strong(&l->window, &start, now))
        atomic_store(&l->used, 0);
    if (atomic_fetch_add(&l->used, 1) >= lines) {
        atomic_fetch_add(&l->dropped, 1);
        return false;
    }
    *dropped = atomic_exchange(&l->dropped, 0);
    return true;
}
