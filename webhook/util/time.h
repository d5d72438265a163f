#ifndef WH_UTIL_TIME_H
#define WH_UTIL_TIME_H

/* Clocks and timestamps. Thread rule: thread-safe. */

#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* Monotonic clock, for measuring durations. */
int64_t wh_time_mono_ns(void);
/* Wall clock, for timestamps written into objects and logs. */
int64_t wh_time_wall_ns(void);

/* Formats t as RFC 3339 in UTC with whole seconds ("2024-05-01T10:00:00Z"), as Kubernetes
 * prints metav1.Time. out must hold at least 21 bytes. */
void wh_time_format_rfc3339(time_t t, char *out, size_t outsz);

/* Parses an RFC 3339 timestamp (any offset, optional fraction); returns 0 on success. */
int wh_time_parse_rfc3339(const char *s, time_t *out);

/* Sleeps for ms milliseconds (restarting after signals). */
void wh_time_sleep_ms(int64_t ms);

#endif
