#ifndef WH_LOG_LOG_H
#define WH_LOG_LOG_H

/* Logging: one event = one line on stderr, JSON by default ({"ts":...,"level":...,"msg":...})
 * or text. Request lines carry the review uid. Bodies and secrets are never logged at info.
 * Whatever a client sent cannot forge a line: JSON escapes it (and writes U+2028, U+2029, the
 * C1 controls and bytes that are not UTF-8 as escapes, so that every line is one line of valid
 * JSON for any reader), and text writes control characters (C0, DEL, C1, U+2028, U+2029) and
 * the backslash as \n, \t, \xNN, \u0085, \u2028, \\.
 *
 * Two promises for the request path:
 *  - Logging never blocks: once wh_log_start has run, a line is copied into a queue (1 MiB)
 *    that a thread of its own writes to stderr. When stderr does not drain (a pipe nobody
 *    reads, a stalled collector) and the queue is full, lines are dropped, counted
 *    (wh_log_dropped), and the next line written says how many.
 *  - Logging never floods: lines any client can cause at will (wh_log_limited, wh_log_req) are
 *    rate-limited per kind of line: a burst of WH_LOG_BURST, then WH_LOG_PER_SECOND a second.
 *    The lines held back are counted (wh_log_suppressed) and the next line of that kind says
 *    how many.
 * Thread rule: thread-safe; wh_log_setup and wh_log_start run before other threads log. */

#include <stdbool.h>

#include "util/err.h"

enum wh_log_level { WH_LOG_DEBUG, WH_LOG_INFO, WH_LOG_WARN, WH_LOG_ERROR };
enum wh_log_format { WH_LOG_JSON, WH_LOG_TEXT };

void wh_log_setup(enum wh_log_level min, enum wh_log_format fmt);
bool wh_log_enabled(enum wh_log_level level);

/* Parses "debug|info|warn|error" / "json|text". */
WH_NODISCARD enum wh_err wh_log_parse_level(const char *s, enum wh_log_level *out);
WH_NODISCARD enum wh_err wh_log_parse_format(const char *s, enum wh_log_format *out);

void wh_log(enum wh_log_level level, const char *fmt, ...) WH_PRINTF(2, 3);

/* Kinds of lines a client can cause at will, each with its own rate limit. */
enum wh_log_kind {
    WH_LOG_BAD_REQUEST,       /* refused before a handler ran: 4xx, 503, a cut-off body */
    WH_LOG_DENIED,            /* a policy denial (allowed: false) */
    WH_LOG_CONVERSION_FAILED, /* a ConversionReview answered Failure */
    WH_LOG_HANDLER_FAILED,    /* a handler that failed (status 500) */
    WH_LOG_REQUEST,           /* any other line about one request (wh_log_req) */
    WH_LOG_KINDS
};
#define WH_LOG_BURST 20
#define WH_LOG_PER_SECOND 2

/* The kind's name, for the metric's label ("bad_request", "denied", ...). */
const char *wh_log_kind_name(enum wh_log_kind kind);

/* A line about one request: adds "uid" and "webhook" (each when not NULL); rate-limited per
 * kind (above). */
void wh_log_limited(enum wh_log_kind kind, enum wh_log_level level, const char *uid,
                    const char *path, const char *fmt, ...) WH_PRINTF(5, 6);
/* wh_log_limited of kind WH_LOG_REQUEST; debug lines, asked for, are not limited. */
void wh_log_req(enum wh_log_level level, const char *uid, const char *path, const char *fmt, ...)
    WH_PRINTF(4, 5);

/* Lines of a kind held back by its rate limit since the start. */
unsigned long wh_log_suppressed(enum wh_log_kind kind);

/* Logs at most once per `seconds` from this call site (repeated environment errors such as an
 * unreachable API server would otherwise flood the log). */
#define WH_LOG_EVERY(seconds, level, ...)                                                          \
    do {                                                                                           \
        static _Atomic long long wh_log_last_;                                                     \
        if (wh_log_ratelimit_pass(&wh_log_last_, (seconds)))                                       \
            wh_log((level), __VA_ARGS__);                                                          \
    } while (0)
bool wh_log_ratelimit_pass(_Atomic long long *last, int seconds);

/* From now on lines go through the queue and the writer thread (see above). WH_ERR_INTERNAL
 * when the thread cannot start: lines are then written as they come. */
WH_NODISCARD enum wh_err wh_log_start(void);
/* Waits up to timeout_ms for the queue to be written; then, if it was, stops the writer and
 * writes lines as they come again, and returns true. When stderr does not drain it returns
 * false and the queue stays (lines go on being dropped rather than blocking the caller). */
bool wh_log_stop(long long timeout_ms);
/* Lines dropped because stderr did not drain, since the start. */
unsigned long wh_log_dropped(void);

#endif
