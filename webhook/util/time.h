#ifndef WH_UTIL_TIME_H
#define WH_UTIL_TIME_H

/* Clocks. (Timestamps as Kubernetes writes them: gocompat/gotime.h.) Thread rule: thread-safe. */

#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* Monotonic clock, for measuring durations. */
int64_t wh_time_mono_ns(void);
/* Wall clock, for timestamps written into objects and logs. */
int64_t wh_time_wall_ns(void);

/* Sleeps for ms milliseconds (restarting after signals). */
void wh_time_sleep_ms(int64_t ms);

#endif
