#ifndef WH_UTIL_REQMEM_H
#define WH_UTIL_REQMEM_H

/* The request memory budget, in one place: what a request may cost while it is handled, and
 * what all requests in flight may hold together. A JSON body costs more once parsed than on the
 * wire (jansson spends 200 bytes on an object before its first member: a Pod review about 3x, a
 * list of small env entries or ports 11x, a body of `[{},{},...]` 74x), so a request is parsed
 * under a budget proportional to its body and capped, and both the bodies being received
 * (server/intake.h) and those budgets draw on one process-wide pool. A request over its own
 * budget is answered 413, one that finds the pool in use 503, and its memory goes back at
 * once.
 * Thread rule: thread-safe (atomics); wh_reqmem_set_limit runs before the servers start. */

#include <stdbool.h>
#include <stddef.h>

/* Parse budget of one request: WH_REQMEM_PER_BODY_BYTE times the body plus
 * WH_REQMEM_BASE, at most WH_REQMEM_REQUEST_MAX. Valid Kubernetes objects parse to 3-12x their
 * size (12x: nothing but small list entries, measured with the arena's counting); 24x leaves
 * room for those and stops `[{},{},...]` early. The cap admits an UPDATE review of two 1.5 MiB
 * objects (etcd's limit) made of such entries even where they differ (where they are the same
 * text, util/jsonparse.h shares them and the review costs one object), and keeps one request
 * below the default pool (40 MiB), so that a body over its budget is told 413, not 503. */
#define WH_REQMEM_PER_BODY_BYTE 24
#define WH_REQMEM_BASE (1024 * 1024)
#define WH_REQMEM_REQUEST_MAX (32 * 1024 * 1024)
size_t wh_reqmem_parse_budget(size_t body_len);

/* Bodies up to this size do not draw on the pool: ordinary reviews are never refused for
 * memory while someone sends large ones (the connection caps bound their total). */
#define WH_REQMEM_SMALL_BODY (64 * 1024)

/* The pool: bytes of request bodies and parse budgets in use at once (0 = unlimited). */
void wh_reqmem_set_limit(size_t bytes);
size_t wh_reqmem_limit(void);

/* Takes n bytes from the pool; false (and nothing taken) when they are not available. */
bool wh_reqmem_take(size_t n);
void wh_reqmem_give(size_t n);

/* Bytes taken now (tests and the metric). */
size_t wh_reqmem_in_use(void);

#endif
