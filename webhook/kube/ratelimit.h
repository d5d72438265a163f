#ifndef WH_KUBE_RATELIMIT_H
#define WH_KUBE_RATELIMIT_H

/* A token bucket (qps tokens per second, at most burst stored) for the API client's
 * client-side rate limit, with the clock passed in so that it can be tested without sleeping.
 * Internal to webhook/kube/ (and its tests).
 * Thread rule: thread-safe; one bucket is shared by every thread of a client. */

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

struct wh_ratelimit {
    pthread_mutex_t _mu;
    double _qps;    /* <= 0: unlimited */
    double _burst;  /* >= 1 */
    double _tokens; /* may go negative: callers already waiting for a token */
    int64_t _last_ns;
};

/* qps <= 0 disables the limit; burst < 1 counts as 1. now_ns is the clock reading (monotonic). */
void wh_ratelimit_init(struct wh_ratelimit *rl, double qps, int burst, int64_t now_ns);
void wh_ratelimit_fini(struct wh_ratelimit *rl);

/* Takes one token. *wait_ns receives how long the caller must wait before sending (0 when a
 * token was available). Reservations queue: each caller is given the next free slot, so
 * waiting callers are served in the order they asked. When the wait would exceed max_wait_ns
 * (< 0: no bound) nothing is taken and false is returned. */
bool wh_ratelimit_reserve(struct wh_ratelimit *rl, int64_t now_ns, int64_t max_wait_ns,
                          int64_t *wait_ns);

#endif
