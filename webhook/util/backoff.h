#ifndef WH_UTIL_BACKOFF_H
#define WH_UTIL_BACKOFF_H

/* Pauses between retries: exponential from a first step to a cap, with jitter, so that clients
 * that failed together do not come back together. The one backoff of the program: the API
 * client's retries, the informers' reconnects, leader election and the read-modify-write loop
 * all take their pauses from here. Thread rule: thread-safe (the random source is a lock-free
 * atomic counter); a struct wh_backoff belongs to one loop. */

#include <stdint.h>

struct wh_backoff {
    int64_t first_ms; /* the first pause's step */
    int64_t max_ms;   /* steps never exceed this */
    int jitter_pct;   /* each pause is step minus up to this percentage, at random (0..100) */
    int _n;           /* pauses taken so far */
};

/* Returns: the next pause in ms (step = first_ms * 2^n, capped at max_ms, minus jitter), and
 * counts it. */
int64_t wh_backoff_next(struct wh_backoff *b);

/* Starts again from first_ms (after a success). */
void wh_backoff_reset(struct wh_backoff *b);

/* A uniformly distributed 64-bit number (splitmix64 over an atomic counter seeded once from
 * the OS): for jitter and identities, not for secrets. */
uint64_t wh_rand64(void);

#endif
