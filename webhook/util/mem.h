#ifndef WH_UTIL_MEM_H
#define WH_UTIL_MEM_H

/* Allocation that aborts on failure (as h2o_mem_alloc does): every request is bounded by the
 * body cap, so running out of memory is an environment failure that Kubernetes answers by
 * restarting the pod. After wh_json_init (util/json.h), jansson allocates through these too, so a
 * NULL from jansson only ever means "missing or wrong type". This is the bottom of the tree: it
 * includes nothing of the project but util/err.h. Thread rule: thread-safe. */

#include <stddef.h>

/* Returns: new memory, never NULL. */
void *wh_xmalloc(size_t n);
void *wh_xcalloc(size_t count, size_t size);
void *wh_xrealloc(void *p, size_t n);
char *wh_xstrdup(const char *s);
char *wh_xstrndup(const char *s, size_t n);

#endif
