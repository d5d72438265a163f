#ifndef WH_SERVER_WATCHDOG_H
#define WH_SERVER_WATCHDOG_H

/* Liveness of worker threads. Each notes when it enters the work it does for one request and
 * when it leaves; one that has been inside for longer than the limit is wedged (waiting for a
 * lock never released, for a write that never completes): it will not serve again by itself.
 * The check is a wh_ready_fn (server/health.h) for /healthz.
 * Thread rule: thread-safe; set the limit before workers run. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

void wh_watchdog_set_limit(int64_t ms);

/* This thread begins / ends a piece of work (not nested). */
void wh_watchdog_enter(void);
void wh_watchdog_leave(void);

/* True when no thread has been inside one piece of work for longer than the limit; else why
 * says which and for how long. */
bool wh_watchdog_live(void *unused, char *why, size_t whysz);

#endif
