#ifndef WH_SERVER_HEALTH_H
#define WH_SERVER_HEALTH_H

/* Readiness: a list of named checks (certificates loaded, caches synced, caBundle injected),
 * all of which must pass for /readyz to answer 200. /healthz only says the process serves.
 * Thread rule: checks are registered on the main thread before the servers start; evaluating
 * and the shutdown flag are thread-safe. */

#include <stdbool.h>
#include <stddef.h>

/* Returns true when ready; otherwise writes a one-line reason into why. Runs on an HTTP thread:
 * it must be fast and must not block. */
typedef bool (*wh_ready_fn)(void *arg, char *why, size_t whysz);

void wh_health_add(const char *name, wh_ready_fn fn, void *arg);

/* True when every check passes and no shutdown has begun; else why names the first failure. */
bool wh_health_ready(char *why, size_t whysz);

/* Marks the process as shutting down: /readyz answers 503 from now on. */
void wh_health_shutting_down(void);

#endif
