#include "util/memtune.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif

/* Blocks from this size up are mmapped (and unmapped when freed). */
#define MMAP_THRESHOLD (128 * 1024)
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
