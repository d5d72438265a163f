#ifndef WH_UTIL_ARENA_H
#define WH_UTIL_ARENA_H

/* Request-scoped memory for jansson values. Between wh_arena_begin and wh_arena_end, while not
 * paused, every jansson allocation on this thread is a pointer bump in a per-thread arena and
 * freeing it costs nothing; wh_arena_end releases it all at once. The dispatcher
 * (server/dispatch.c) is the only user: it parses the review inside the arena and never walks it
 * to free it (a 4.3 KB Pod is ~750 values: ~1500 mallocs and frees saved).
 *
 * Rules:
 *  - only values that die with the request may be made in it: the dispatcher pauses the arena
 *    before handlers run, so what they create is ordinary memory;
 *  - memory from json_dumps or jansson that someone frees with free() must not come from the
 *    arena;
 *  - a value made in the arena must not be kept past wh_arena_end: code that builds what it
 *    keeps (the cache, the status write-back) asserts wh_arena_allocating() is false.
 * Thread rule: everything is per thread. wh_arena_install runs once from wh_json_init. */

#include <stdbool.h>
#include <stddef.h>

#include "util/err.h"

/* Routes jansson's allocations through the arena-aware functions. */
void wh_arena_install(void);

void wh_arena_begin(void);
/* Releases everything allocated since wh_arena_begin; keeps one chunk for the next request. */
void wh_arena_end(void);

/* Frees the chunk this thread keeps between requests. Other threads' chunks are freed when
 * they exit; main (whose exit runs no thread destructors) and test runners call this. */
void wh_arena_release(void);

/* Pauses / resumes arena allocation (nestable; resuming more than was paused does nothing).
 * Paused allocations are ordinary mallocs. */
void wh_arena_pause(void);
void wh_arena_resume(void);

/* True between wh_arena_begin and wh_arena_end while not paused: jansson allocations on this
 * thread now die with the request. Code that builds what it keeps asserts this is false. */
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
