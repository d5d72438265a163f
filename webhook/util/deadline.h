#ifndef WH_UTIL_DEADLINE_H
#define WH_UTIL_DEADLINE_H

/* The deadline of the work this thread is doing now, in the manner of a Go context's: the
 * dispatcher sets it around each admission request (--request-deadline, default 8 s, below the
 * API server's 10 s webhook timeout), and everything that may wait on the network under a
 * request obeys it -- every API client call, the read-modify-write loop, live lists -- so a
 * slow API server cannot make an answer arrive after the API server stopped waiting for it.
 * Background threads (informers, the certificate controller) have none.
 * Thread rule: per thread; nothing is shared. */

#include <stdbool.h>
#include <stdint.h>

/* Monotonic nanoseconds (util/time.h wh_time_mono_ns), or 0 when this thread has none. */
int64_t wh_deadline_get(void);

/* Sets this thread's deadline (0 clears it). Returns: the previous one, to restore when the
 * scoped work ends. */
int64_t wh_deadline_set(int64_t mono_ns);

/* True when this thread has a deadline and it has passed. */
bool wh_deadline_passed(void);

/* The earlier of this thread's deadline and now + ms (ms <= 0: only the thread's deadline;
 * neither: 0). */
int64_t wh_deadline_within_ms(long long ms);

#endif
