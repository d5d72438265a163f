#ifndef WH_UTIL_MEMTUNE_H
#define WH_UTIL_MEMTUNE_H

/* glibc malloc settings for a server whose large allocations (request bodies, arena chunks of
 * big requests) come and go: without them a burst of large requests left 400 MB held after it
 * ended. Large blocks always come from mmap and go back to the kernel when freed (glibc's
 * default raises the mmap threshold to the largest block freed, so later large blocks stay
 * in the heap for good), the heap is trimmed above a small threshold, and threads share a
 * few malloc arenas instead of 8 per CPU, each holding its own free memory.
 * Thread rule: wh_memtune once at the start of main, before any thread exists. */

void wh_memtune(void);

/* After a large request is released: hands free heap memory back to the kernel now rather
 * than on some later free (glibc trims an arena only when memory is freed into it). At most
 * once every 100 ms. Thread-safe. */
void wh_memtune_release(void);

#endif
