#include "util/memtune.h"

#include <stdatomic.h>
#include <stdlib.h> /* defines __GLIBC__ on glibc */

#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "util/time.h"

/* Blocks from this size up are mmapped (and unmapped when freed). */
#define MMAP_THRESHOLD (1024 * 1024)
/* Free memory above the heap's top beyond this is returned. */
#define TRIM_THRESHOLD (512 * 1024)
/* Malloc arenas shared by all threads. */
#define ARENAS 2

void wh_memtune(void)
{
#ifdef __GLIBC__
    /* Setting the thresholds explicitly also turns glibc's dynamic adjustment off. */
    mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD);
    mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD);
    mallopt(M_ARENA_MAX, ARENAS);
#endif
}

void wh_memtune_release(void)
{
#ifdef __GLIBC__
    static _Atomic long long last_ms;
    long long now = wh_time_mono_ns() / 1000000;
    long long prev = atomic_load_explicit(&last_ms, memory_order_relaxed);
    if (now - prev < 100 || !atomic_compare_exchange_strong(&last_ms, &prev, now))
        return;
    malloc_trim(0);
#endif
}
