#ifndef WH_SERVER_HEALTH_H
#define WH_SERVER_HEALTH_H

/* Liveness and readiness, as named checks. Liveness (the HTTPS workers are not wedged) must
 * pass for /healthz to answer 200: a process that fails it cannot recover by itself and is
 * restarted. Readiness (certificates loaded, caches synced, caBundle injected) and liveness
 * must pass for /readyz: traffic goes elsewhere meanwhile.
 * Thread rule: checks are registered on the main thread before the servers start (the HTTPS
 * listener registers its own before its health listener starts); evaluating and the shutdown
 * flag are thread-safe. */

#include <stdbool.h>
#include <stddef.h>

/* Returns true when ready; otherwise writes a one-line reason into why. Runs on an HTTP thread:
 * it must be fast and must not block. */
typedef bool (*wh_ready_fn)(void *arg, char *why, size_t whysz);

void wh_health_add(const char *name, wh_ready_fn fn, void *arg);
void wh_health_add_live(const char *name, wh_ready_fn fn, void *arg);

/* True when every liveness check passes; else why names the first failure. */
bool wh_health_live(char *why, size_t whysz);
/* True when every check passes and no shutdown has begun; else why names the first failure. */
bool wh_health_ready(char *why, size_t whysz);

/* Marks the process as shutting down: /readyz answers 503 from now on. */
void wh_health_shutting_down(void);

#endif
