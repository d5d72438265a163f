#ifndef WH_LOG_LOG_H
#define WH_LOG_LOG_H

/* Logging: one event = one line on stderr, written with a single write(2) so lines from
 * different threads never interleave. JSON by default ({"ts":...,"level":...,"msg":...}),
 * or text. Request lines carry the review uid. Bodies and secrets are never logged at info.
 * Whatever a client sent cannot forge a line: JSON escapes it, and text writes control
 * characters (C0, DEL, C1) and the backslash as \n, \t, \xNN, \u0085, \\.
 * Thread rule: thread-safe; wh_log_setup must run before threads start. */

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
/* A request line: adds "uid" (and "webhook" when path is not NULL). */
void wh_log_req(enum wh_log_level level, const char *uid, const char *path, const char *fmt, ...)
    WH_PRINTF(4, 5);

/* Logs at most once per `seconds` from this call site (repeated environment errors such as an
 * unreachable API server would otherwise flood the log). */
#define WH_LOG_EVERY(seconds, level, ...)                                                          \
    do {                                                                                           \
        static _Atomic long long wh_log_last_;                                                     \
        if (wh_log_ratelimit_pass(&wh_log_last_, (seconds)))                                       \
            wh_log((level), __VA_ARGS__);                                                          \
    } while (0)
bool wh_log_ratelimit_pass(_Atomic long long *last, int seconds);

/* At most `lines` lines per `seconds` for one kind of event (bad requests: any client can
 * cause them at will). When a line passes after others were dropped, *dropped says how many
 * (to mention in it); callers count the drops in a metric. Zero-initialised. */
struct wh_log_limit {
    _Atomic long long window;
    _Atomic unsigned used;
    _Atomic unsigned long dropped;
};
bool wh_log_limit_pass(struct wh_log_limit *l, unsigned lines, int seconds, unsigned long *dropped);

#endif
