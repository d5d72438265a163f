#include "kube/ratelimit.h"

#include "util/err.h"

void wh_ratelimit_init(struct wh_ratelimit *rl, double qps, int burst, int64_t now_ns)
{
    if (pthread_mutex_init(&rl->_mu, NULL) != 0)
        WH_PANIC("pthread_mutex_init failed");
    rl->_qps = qps > 0 ? qps : 0;
    rl->_burst = burst < 1 ? 1.0 : (double)burst;
    rl->_tokens = rl->_burst; /* a new client may send a burst at once, as client-go's does */
    rl->_last_ns = now_ns;
}

void wh_ratelimit_fini(struct wh_ratelimit *rl)
{
    pthread_mutex_destroy(&rl->_mu);
}

bool wh_ratelimit_reserve(struct wh_ratelimit *rl, int64_t now_ns, int64_t max_wait_ns,
                          int64_t *wait_ns)
{
    *wait_ns = 0;
    if (rl->_qps <= 0)
        return true;
    bool ok = true;
    if (pthread_mutex_lock(&rl->_mu) != 0)
        WH_PANIC("pthread_mutex_lock failed");
    /* A clock reading older than the last one (threads racing to the lock) adds nothing. */
    if (now_ns > rl->_last_ns) {
        rl->_tokens += (double)(now_ns - rl->_last_ns) * rl->_qps / 1e9;
        if (rl->_tokens > rl->_burst)
            rl->_tokens = rl->_burst;
        rl->_last_ns = now_ns;
    }
    double after = rl->_tokens - 1.0;
    int64_t wait = 0;
    if (after < 0) {
        double ns = -after * 1e9 / rl->_qps;
        wait = ns >= 9.2e18 ? INT64_MAX : (int64_t)(ns + 0.5);
    }
    if (max_wait_ns >= 0 && wait > max_wait_ns) {
        ok = false;
    } else {
        rl->_tokens = after;
        *wait_ns = wait;
    }
    pthread_mutex_unlock(&rl->_mu);
    return ok;
}
