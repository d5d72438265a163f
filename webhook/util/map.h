#ifndef WH_UTIL_MAP_H
#define WH_UTIL_MAP_H

/* A hash map from NUL-terminated string keys to pointers (open addressing, linear probing,
 * seeded hash). Keys are copied; values are the caller's. Thread rule: single thread only (the
 * cache guards its maps with a lock). */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct wh_map {
    struct wh_map_slot *_slots;
    size_t _cap;  /* a power of two, or 0 */
    size_t _used; /* live entries */
    size_t _tomb; /* deleted markers */
};

void wh_map_init(struct wh_map *m);
/* Frees the map's memory (not the values). */
void wh_map_fini(struct wh_map *m);

/* Returns: the value for key, or NULL. */
void *wh_map_get(const struct wh_map *m, const char *key);
/* Inserts or replaces; returns the previous value (or NULL). value must not be NULL. */
void *wh_map_put(struct wh_map *m, const char *key, void *value);
/* Removes key; returns its value (or NULL). */
void *wh_map_remove(struct wh_map *m, const char *key);
size_t wh_map_size(const struct wh_map *m);

/* Iteration: for (size_t it = 0; wh_map_next(m, &it, &k, &v);) ...; the map must not change
 * during it. */
bool wh_map_next(const struct wh_map *m, size_t *it, const char **key, void **value);

#endif
