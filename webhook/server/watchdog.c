#include "server/watchdog.h"

#include <stdatomic.h>
#include <stdio.h>

#include "util/time.h"

/* One slot per thread that ever entered, taken at its first entry (MHD's pool: --threads). */
#define MAX_THREADS 1024

static _Atomic int64_t since[MAX_THREADS]; /* when the thread entered; 0: outside */
static atomic_uint threads;
static _Atomic int64_t limit_ns = 30000000000LL;
static _Thread_local int slot = -1;

void wh_watchdog_set_limit(int64_t ms)
{
    atomic_store(&limit_ns, ms * 1000000);
}

static _Atomic int64_t *mine(void)
{
    if (slot < 0)
        slot = (int)atomic_fetch_add(&threads, 1);
    return slot < MAX_THREADS ? &since[slot] : NULL;
}

void wh_watchdog_enter(void)
{
    _Atomic int64_t *s = mine();
    if (s)
        atomic_store_explicit(s, wh_time_mono_ns(), memory_order_relaxed);
}

void wh_watchdog_leave(void)
{
    _Atomic int64_t *s = mine();
    if (s)
        atomic_store_explicit(s, 0, memory_order_relaxed);
}

bool wh_watchdog_live(void *unused, char *why, size_t whysz)
{
    (void)unused;
    int64_t now = wh_time_mono_ns(), limit = atomic_load(&limit_ns);
    unsigned n = atomic_load(&threads);
    for (unsigned i = 0; i < n && i < MAX_THREADS; i++) {
        int64_t t = atomic_load_explicit(&since[i], memory_order_relaxed);
        if (t && now - t > limit) {
            snprintf(why, whysz,
                     "worker %u has been in one request for %.1f s, longer than a request may "
                     "take (%.1f s): it is wedged",
                     i, (double)(now - t) / 1e9, (double)limit / 1e9);
            return false;
        }
    }
    return true;
}
