#include "util/arena.h"

#include <jansson.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "util/err.h"
#include "util/mem.h"
#include "util/memtune.h"
#include "util/reqmem.h"
#include "util/time.h"

/* Under AddressSanitizer what a request leaves in the chunk kept for the next one is poisoned,
 * and each allocation unpoisons only itself: a value kept past wh_arena_end (a cache, a memo)
 * is reported at its first use instead of being silently overwritten by the next request. */
#if defined(__SANITIZE_ADDRESS__)
#define WH_ARENA_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define WH_ARENA_ASAN 1
#endif
#endif
#ifdef WH_ARENA_ASAN
#include <sanitizer/asan_interface.h>
#define POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#define CHUNK (64 * 1024)
#define MAX_CHUNK (16 * 1024 * 1024)
/* What a thread keeps between requests: enough for ordinary reviews, so that in the steady state
 * a request allocates nothing from malloc (chunks past glibc's mmap threshold would cost an
 * mmap, page faults and a munmap per request). Bigger requests give their memory back. */
#define KEEP_MAX (1024 * 1024)
/* jansson's values hold nothing wider than 8 bytes (pointers, size_t, double); malloc's 16 is
 * for long double and vectors. Small values are most of a parse: 8 saves 4-8% of it. */
#define ALIGN 8

struct chunk {
    struct chunk *next;
    size_t size;    /* usable bytes after the header */
    size_t charged; /* bytes of it taken from the request-memory pool (under a limit) */
    char data[];
};

struct arena {
    struct chunk *chunks; /* newest first; sizes double, so a big request has few chunks */
    char *cur, *end;
    unsigned long allocations;
    bool open;
    int paused;
    size_t limit;       /* wh_arena_limit: 0 = allocations never fail */
    size_t reserved;    /* chunk bytes taken from the request-memory pool */
    size_t high;        /* the most chunk bytes held at once since wh_arena_begin */
    enum wh_err failed; /* why an allocation under the limit failed */
};

static _Thread_local struct arena arena;

/* The spare chunks of big requests, shared by all threads. A request bigger than what a thread
 * keeps (KEEP_MAX) used to free its chunks and the next one to map them again: blocks that
 * large come from mmap, so each big request paid a page fault per 4 KiB and a TLB shootdown
 * when unmapping (half the CPU of a /convert load). The stash keeps up to STASH_MAX bytes of
 * them for the next big request, and a trimmer thread frees them (and trims the heap) once no
 * big request has come for STASH_IDLE_NS, so memory goes back when the load stops.
 * Thread rule: mu guards everything in it. */
#define STASH_MAX (2 * 1024 * 1024)
#define STASH_SLOTS 8
#define STASH_IDLE_NS 1000000000LL
static struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct chunk *c[STASH_SLOTS];
    size_t bytes;
    int64_t used_ns; /* the last put or take */
    bool trimmer;    /* the trimmer thread runs */
} stash = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};

static void stash_lock(void)
{
    if (pthread_mutex_lock(&stash.mu))
        WH_PANIC("pthread_mutex_lock failed");
}

static void stash_unlock(void)
{
    if (pthread_mutex_unlock(&stash.mu))
        WH_PANIC("pthread_mutex_unlock failed");
}

/* Frees every stashed chunk. Call with mu held. */
static void stash_drain(void)
{
    for (int i = 0; i < STASH_SLOTS; i++) {
        if (stash.c[i]) {
            UNPOISON(stash.c[i]->data, stash.c[i]->size);
            free(stash.c[i]);
            stash.c[i] = NULL;
        }
    }
    stash.bytes = 0;
}

static void *trimmer_main(void *unused)
{
    (void)unused;
    stash_lock();
    for (;;) {
        while (!stash.bytes)
            pthread_cond_wait(&stash.cv, &stash.mu);
        int64_t idle = wh_time_mono_ns() - stash.used_ns;
        if (idle >= STASH_IDLE_NS) {
            stash_drain();
            stash_unlock();
            wh_memtune_release();
            stash_lock();
            continue;
        }
        int64_t wake = wh_time_wall_ns() + (STASH_IDLE_NS - idle);
        struct timespec ts = {(time_t)(wake / 1000000000), (long)(wake % 1000000000)};
        pthread_cond_timedwait(&stash.cv, &stash.mu, &ts);
    }
    return NULL;
}

/* Hands c to the stash; false when it is full (the caller frees c). */
static bool stash_put(struct chunk *c)
{
    bool put = false;
    stash_lock();
    for (int i = 0; i < STASH_SLOTS && !put; i++) {
        if (!stash.c[i] && stash.bytes + c->size <= STASH_MAX) {
            POISON(c->data, c->size);
            stash.c[i] = c;
            stash.bytes += c->size;
            put = true;
        }
    }
    if (put) {
        stash.used_ns = wh_time_mono_ns();
        if (!stash.trimmer) {
            pthread_t t;
            pthread_attr_t attr;
            pthread_attr_init(&attr);
            pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
            stash.trimmer = pthread_create(&t, &attr, trimmer_main, NULL) == 0;
            pthread_attr_destroy(&attr);
        }
        pthread_cond_signal(&stash.cv);
    }
    stash_unlock();
    return put;
}

/* The largest stashed chunk of need to max bytes, or NULL. */
static struct chunk *stash_take(size_t need, size_t max)
{
    struct chunk *best = NULL;
    int at = -1;
    stash_lock();
    for (int i = 0; i < STASH_SLOTS; i++) {
        struct chunk *c = stash.c[i];
        if (c && c->size >= need && c->size <= max && (!best || c->size > best->size)) {
            best = c;
            at = i;
        }
    }
    if (best) {
        stash.c[at] = NULL;
        stash.bytes -= best->size;
        stash.used_ns = wh_time_mono_ns();
    }
    stash_unlock();
    return best;
}

/* Frees the chunk a thread keeps between requests when that thread exits. */
static pthread_key_t exit_key;
static pthread_once_t exit_once = PTHREAD_ONCE_INIT;

static void release_chunks(void *unused)
{
    (void)unused;
    while (arena.chunks) {
        struct chunk *next = arena.chunks->next;
        UNPOISON(arena.chunks->data, arena.chunks->size);
        free(arena.chunks);
        arena.chunks = next;
    }
}

static void make_exit_key(void)
{
    if (pthread_key_create(&exit_key, release_chunks))
        WH_PANIC("pthread_key_create failed");
}

static bool in_arena(const void *p)
{
    for (struct chunk *c = arena.chunks; c; c = c->next) {
        if ((const char *)p >= c->data && (const char *)p < c->data + c->size)
            return true;
    }
    return false;
}

static size_t chunk_bytes(void)
{
    size_t total = 0;
    for (struct chunk *c = arena.chunks; c; c = c->next)
        total += c->size;
    return total;
}

/* Under a limit a new chunk must fit in what is left of the budget (it shrinks to fit) and
 * be covered by the pool; returns 0 when it cannot be had. */
static size_t limited_chunk(size_t size, size_t need)
{
    size_t have = chunk_bytes();
    size_t left = have < arena.limit ? arena.limit - have : 0;
    if (size > left)
        size = left;
    if (size < need) {
        arena.failed = WH_ERR_TOO_BIG;
        return 0;
    }
    if (!wh_reqmem_take(size)) {
        arena.failed = WH_ERR_NOMEM;
        return 0;
    }
    arena.reserved += size;
    return size;
}

static void *arena_malloc(size_t n)
{
    arena.allocations++;
    if (!arena.open || arena.paused)
        return wh_xmalloc(n);
    size_t need = (n + ALIGN - 1) & ~(size_t)(ALIGN - 1);
    if ((size_t)(arena.end - arena.cur) < need) {
        size_t size = arena.chunks ? arena.chunks->size * 2 : CHUNK;
        /* Under a budget every chunk is charged to the request-memory pool whole, unused tail
         * included: chunks grow by a quarter of what the arena holds instead of doubling, so
         * at most a fifth of what a parse takes from the pool is idle (doubling left up to
         * half: a 12 MiB parse held 24 MiB of the pool). */
        if (arena.limit)
            size = chunk_bytes() / 4 > CHUNK ? chunk_bytes() / 4 : CHUNK;
        if (size > MAX_CHUNK)
            size = MAX_CHUNK;
        if (size < need)
            size = need;
        size_t charged = 0;
        if (arena.limit) {
            size = limited_chunk(size, need);
            if (!size)
                return NULL;
            charged = size;
        }
        /* A spare chunk of a big request, within what a limit allows (it was reserved). */
        struct chunk *c =
            size > KEEP_MAX / 4 ? stash_take(need, arena.limit ? size : SIZE_MAX) : NULL;
        if (c) {
            size = c->size; /* it may be larger or smaller than asked: use all of it */
        } else {
            c = wh_xmalloc(sizeof(*c) + size);
            POISON(c->data, size);
            c->size = size;
        }
        c->charged = charged;
        c->next = arena.chunks;
        arena.chunks = c;
        arena.cur = c->data;
        arena.end = c->data + size;
        size_t held = chunk_bytes();
        if (held > arena.high)
            arena.high = held;
    }
    void *p = arena.cur;
    arena.cur += need;
    UNPOISON(p, n);
    return p;
}

static void arena_free(void *p)
{
    /* Outside a request the arena has no live chunks, so this is a plain free. */
    if (p && arena.open && in_arena(p))
        return;
    free(p);
}

void wh_arena_install(void)
{
    json_set_alloc_funcs(arena_malloc, arena_free);
}

void wh_arena_begin(void)
{
    WH_ASSERT(!arena.open);
    if (!arena.chunks) {
        /* Any non-NULL value arms the destructor for this thread. */
        pthread_once(&exit_once, make_exit_key);
        pthread_setspecific(exit_key, &arena);
    }
    arena.open = true;
    arena.paused = 0;
    arena.limit = 0;
    arena.failed = WH_OK;
    arena.high = chunk_bytes();
    if (arena.chunks) {
        arena.cur = arena.chunks->data;
        arena.end = arena.chunks->data + arena.chunks->size;
    }
}

void wh_arena_end(void)
{
    WH_ASSERT(arena.open);
    /* What the request held at its most, though rewinds gave some of it back. */
    size_t total = arena.high > chunk_bytes() ? arena.high : chunk_bytes();
    bool freed_big = false;
    /* One chunk that held the whole request is kept as is. Several are replaced by one chunk as
     * large as all of them, so the next request of this size needs a single chunk. A request
     * bigger than what a thread keeps gives all its chunks back (the large ones to the stash for
     * the next big request): a thread keeping one would hold it past the load. */
    if (total > KEEP_MAX) {
        while (arena.chunks) {
            struct chunk *c = arena.chunks;
            arena.chunks = c->next;
            if (c->size <= KEEP_MAX / 4 || !stash_put(c)) {
                freed_big |= c->size > KEEP_MAX / 4;
                UNPOISON(c->data, c->size);
                free(c);
            }
        }
    } else if (!arena.chunks || arena.chunks->next || arena.chunks->size < total) {
        release_chunks(NULL);
        if (total > 0) {
            struct chunk *c = wh_xmalloc(sizeof(*c) + total);
            c->size = total;
            c->next = NULL;
            arena.chunks = c;
        }
    }
    if (arena.chunks) {
        arena.chunks->charged = 0; /* the pool gets arena.reserved back below */
        POISON(arena.chunks->data, arena.chunks->size);
    }
    if (freed_big)
        wh_memtune_release();
    arena.cur = arena.end = NULL;
    arena.open = false;
    arena.paused = 0;
    arena.limit = 0;
    wh_reqmem_give(arena.reserved);
    arena.reserved = 0;
}

struct wh_arena_mark wh_arena_mark(void)
{
    WH_ASSERT(arena.open);
    return (struct wh_arena_mark){._chunk = arena.chunks, ._cur = arena.cur};
}

void wh_arena_rewind(struct wh_arena_mark m)
{
    WH_ASSERT(arena.open);
    bool freed_big = false;
    while (arena.chunks != m._chunk) {
        struct chunk *c = arena.chunks;
        WH_ASSERT(c); /* the mark's chunk is still held: marks nest */
        arena.chunks = c->next;
        wh_reqmem_give(c->charged);
        arena.reserved -= c->charged;
        c->charged = 0;
        if (c->size <= KEEP_MAX / 4 || !stash_put(c)) {
            freed_big |= c->size > KEEP_MAX / 4;
            UNPOISON(c->data, c->size);
            free(c);
        }
    }
    if (arena.chunks) {
        arena.cur = m._cur;
        arena.end = arena.chunks->data + arena.chunks->size;
        POISON(arena.cur, (size_t)(arena.end - arena.cur));
    } else {
        arena.cur = arena.end = NULL;
    }
    if (freed_big)
        wh_memtune_release();
}

void wh_arena_release(void)
{
    WH_ASSERT(!arena.open);
    release_chunks(NULL);
    stash_lock();
    stash_drain();
    stash_unlock();
}

size_t wh_arena_stashed(void)
{
    stash_lock();
    size_t n = stash.bytes;
    stash_unlock();
    return n;
}

void wh_arena_pause(void)
{
    arena.paused++;
}

void wh_arena_resume(void)
{
    if (arena.paused > 0)
        arena.paused--;
}

bool wh_arena_allocating(void)
{
    return arena.open && !arena.paused;
}

void wh_arena_limit(size_t bytes)
{
    arena.limit = bytes;
}

enum wh_err wh_arena_failure(void)
{
    return arena.failed;
}

size_t wh_arena_size(void)
{
    return arena.open ? chunk_bytes() : 0;
}

unsigned long wh_arena_allocations(void)
{
    return arena.allocations;
}
