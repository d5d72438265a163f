#ifndef WH_UTIL_ARENA_H
#define WH_UTIL_ARENA_H

/* Request-scoped memory for jansson values. Between wh_arena_begin and wh_arena_end, while not
 * paused, every jansson allocation on this thread is a pointer bump in a per-thread arena and
 * freeing it costs nothing; wh_arena_end releases it all at once. The dispatcher
 * (server/dispatch.c) opens it around the whole request: the review's parse, the handler and
 * whatever it builds (copies, edits, looked-up values), the diff and the answer.
 *
 * Rules:
 *  - only values that die with the request may be made in it;
 *  - memory from json_dumps or jansson that someone frees with free() must not come from the
 *    arena;
 *  - code that builds what it keeps past the request (a cache's objects and parse memo, the
 *    status write-back's memo, models compiled at first use) pauses the arena around that work
 *    (wh_arena_pause / wh_arena_resume), and a value it is handed from the request is copied
 *    there, never kept as it is;
 *  - under AddressSanitizer the arena's memory is poisoned between requests, so a kept arena
 *    value fails loudly at its first use.
 * Thread rule: everything is per thread but the spare chunks of big requests, which one mutex
 * guards (and one thread, started at the first, frees when unused). wh_arena_install runs once
 * from wh_json_init. */

#include <stdbool.h>
#include <stddef.h>

#include "util/err.h"

/* Routes jansson's allocations through the arena-aware functions. */
void wh_arena_install(void);

void wh_arena_begin(void);
/* Releases everything allocated since wh_arena_begin; keeps one chunk for the next request. */
void wh_arena_end(void);

/* Frees the chunk this thread keeps between requests, and the spare chunks big requests left
 * for the next one. Other threads' chunks are freed when they exit; main (whose exit runs no
 * thread destructors) and test runners call this. */
void wh_arena_release(void);

/* Bytes of spare chunks kept for the next big request (shared by all threads: at most 2 MiB,
 * freed by the arena's trimmer thread a second after the last big request). */
size_t wh_arena_stashed(void);

/* A point in the open arena to come back to: wh_arena_rewind releases everything allocated
 * since (its chunks go back at once), so that a request handling its parts one at a time holds
 * one part's values at most. Marks nest: a rewind to a mark also drops the marks taken after
 * it. No value allocated after the mark may be used (or freed) after the rewind; paused
 * allocations are not affected. */
struct wh_arena_mark {
    void *_chunk;
    char *_cur;
};
struct wh_arena_mark wh_arena_mark(void);
void wh_arena_rewind(struct wh_arena_mark m);

/* Pauses / resumes arena allocation (nestable; resuming more than was paused does nothing).
 * Paused allocations are ordinary mallocs. */
void wh_arena_pause(void);
void wh_arena_resume(void);

/* True between wh_arena_begin and wh_arena_end while not paused: jansson allocations on this
 * thread now die with the request. */
bool wh_arena_allocating(void);

/* The memory budget of what is made next (the request body's parse): from now until
 * wh_arena_limit(0) or wh_arena_end, arena allocations fail (jansson then returns NULL) once the
 * arena's chunks would exceed `bytes`, or once util/reqmem's process-wide pool cannot cover a
 * new chunk. Only code that handles NULL from jansson may run meanwhile (util/jsonparse does).
 * Chunks taken under a limit count against the pool until wh_arena_end. */
void wh_arena_limit(size_t bytes);

/* Why an allocation under the limit failed since wh_arena_begin: WH_OK (none failed),
 * WH_ERR_TOO_BIG (over this request's budget) or WH_ERR_NOMEM (the pool is in use). */
enum wh_err wh_arena_failure(void);

/* Bytes of chunks the open arena holds (0 when closed). */
size_t wh_arena_size(void);

/* Every jansson allocation this thread has made, arena or not (benchmarks). */
unsigned long wh_arena_allocations(void);

#endif
