#include "util/backoff.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <time.h>
#include <unistd.h>

#include "util/time.h"

static _Atomic uint64_t state;
static atomic_bool seeded;

uint64_t wh_rand64(void)
{
    if (!atomic_load_explicit(&seeded, memory_order_acquire)) {
        /* Seeding twice in a race is harmless: any seed will do for jitter. */
        uint64_t s = (uint64_t)wh_time_wall_ns() ^ ((uint64_t)getpid() << 32);
        atomic_store_explicit(&state, s, memory_order_relaxed);
        atomic_store_explicit(&seeded, true, memory_order_release);
    }
    uint64_t z = atomic_fetch_add_explicit(&state, 0x9e3779b97f4a7c15ULL, memory_order_relaxed);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

int64_t wh_backoff_next(struct wh_backoff *b)
{
    int64_t step = b->first_ms > 0 ? b->first_ms : 1;
    for (int i = 0; i < b->_n && step < b->max_ms; i++)
        step *= 2;
    if (b->max_ms > 0 && step > b->max_ms)
        step = b->max_ms;
    if (b->_n < 62)
        b->_n++;
    int pct = b->jitter_pct < 0 ? 0 : b->jitter_pct > 100 ? 100 : b->jitter_pct;
    int64_t span = step * pct / 100;
    return step - (span > 0 ? (int64_t)(wh_rand64() % (uint64_t)(span + 1)) : 0);
}

void wh_backoff_reset(struct wh_backoff *b)
{
    b->_n = 0;
}
