#include "util/map.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/mem.h"

struct wh_map_slot {
    char *key; /* NULL = empty; TOMB = deleted */
    void *value;
    uint64_t hash;
};

static char tomb_marker;
#define TOMB (&tomb_marker)

/* A per-process seed, so that names chosen by a client cannot be picked to collide. */
static uint64_t seed_value;
static pthread_once_t seed_once = PTHREAD_ONCE_INIT;

static void make_seed(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    seed_value = ((uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15ULL ^ (uint64_t)ts.tv_sec) | 1;
}

static uint64_t seed(void)
{
    pthread_once(&seed_once, make_seed);
    return seed_value;
}

static uint64_t hash_key(const char *key)
{
    /* FNV-1a, seeded, with a final mix so that low bits depend on every byte. */
    uint64_t h = 0xcbf29ce484222325ULL ^ seed();
    for (const unsigned char *p = (const unsigned char *)key; *p; p++) {
        h ^= *p;
        h *= 0x100000001b3ULL;
    }
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return h;
}

void wh_map_init(struct wh_map *m)
{
    memset(m, 0, sizeof(*m));
}

void wh_map_fini(struct wh_map *m)
{
    for (size_t i = 0; i < m->_cap; i++) {
        if (m->_slots[i].key && m->_slots[i].key != TOMB)
            free(m->_slots[i].key);
    }
    free(m->_slots);
    memset(m, 0, sizeof(*m));
}

static struct wh_map_slot *find(const struct wh_map *m, const char *key, uint64_t h)
{
    if (!m->_cap)
        return NULL;
    size_t mask = m->_cap - 1;
    for (size_t i = h & mask, n = 0; n < m->_cap; i = (i + 1) & mask, n++) {
        struct wh_map_slot *s = &m->_slots[i];
        if (!s->key)
            return NULL;
        if (s->key != TOMB && s->hash == h && strcmp(s->key, key) == 0)
            return s;
    }
    return NULL;
}

static void grow(struct wh_map *m)
{
    size_t ncap = m->_cap ? m->_cap : 8;
    /* Keep the load (live + tombstones) under 70%; rehash in place of tombstones when enough. */
    while ((m->_used + 1) * 10 >= ncap * 7)
        ncap *= 2;
    struct wh_map_slot *old = m->_slots;
    size_t ocap = m->_cap;
    m->_slots = wh_xcalloc(ncap, sizeof(*m->_slots));
    m->_cap = ncap;
    m->_tomb = 0;
    size_t mask = ncap - 1;
    for (size_t i = 0; i < ocap; i++) {
        if (!old[i].key || old[i].key == TOMB)
            continue;
        size_t j = old[i].hash & mask;
        while (m->_slots[j].key)
            j = (j + 1) & mask;
        m->_slots[j] = old[i];
    }
    free(old);
}

void *wh_map_get(const struct wh_map *m, const char *key)
{
    struct wh_map_slot *s = find(m, key, hash_key(key));
    return s ? s->value : NULL;
}

void *wh_map_put(struct wh_map *m, const char *key, void *value)
{
    uint64_t h = hash_key(key);
    struct wh_map_slot *s = find(m, key, h);
    if (s) {
        void *old = s->value;
        s->value = value;
        return old;
    }
    if ((m->_used + m->_tomb + 1) * 10 >= m->_cap * 7)
        grow(m);
    size_t mask = m->_cap - 1;
    size_t i = h & mask;
    while (m->_slots[i].key && m->_slots[i].key != TOMB)
        i = (i + 1) & mask;
    if (m->_slots[i].key == TOMB)
        m->_tomb--;
    m->_slots[i] = (struct wh_map_slot){wh_xstrdup(key), value, h};
    m->_used++;
    return NULL;
}

void *wh_map_remove(struct wh_map *m, const char *key)
{
    struct wh_map_slot *s = find(m, key, hash_key(key));
    if (!s)
        return NULL;
    void *v = s->value;
    free(s->key);
    s->key = TOMB;
    s->value = NULL;
    m->_used--;
    m->_tomb++;
    return v;
}

size_t wh_map_size(const struct wh_map *m)
{
    return m->_used;
}

bool wh_map_next(const struct wh_map *m, size_t *it, const char **key, void **value)
{
    while (*it < m->_cap) {
        struct wh_map_slot *s = &m->_slots[(*it)++];
        if (s->key && s->key != TOMB) {
            if (key)
                *key = s->key;
            if (value)
                *value = s->value;
            return true;
        }
    }
    return false;
}
