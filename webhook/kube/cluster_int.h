#ifndef WH_KUBE_CLUSTER_INT_H
#define WH_KUBE_CLUSTER_INT_H

/* Internals of struct wh_cluster shared by kube/cluster.c (caches, standalone store, live
 * reads) and kube/writeback.c (status write-back); nothing outside those two includes this. */

#include <pthread.h>
#include <stdbool.h>

#include "kube/cluster.h"
#include "kube/informer.h"
#include "util/map.h"

#define WH_WRITEBACK_STRIPES 64

/* Status write-back state: per-object serialisation and the last object each status write
 * stored, so the next request in this process starts from it before the watch delivers it. */
struct wh_writeback {
    pthread_mutex_t stripes[WH_WRITEBACK_STRIPES]; /* an object's lock: stripes[hash % N] */
    pthread_mutex_t memo_lock;                     /* guards memo; never held during I/O */
    struct wh_map memo;                            /* "id/ns/name" -> json_t * (frozen) */
};

void wh_writeback_init(struct wh_writeback *wb);
void wh_writeback_fini(struct wh_writeback *wb);
/* Drops every remembered write (the state they were made on was replaced). */
void wh_writeback_forget(struct wh_writeback *wb);

struct declared {
    struct wh_cache *cache;
    char *ns;
    struct wh_informer *informer;
};

struct wh_cluster {
    struct wh_kube_client *client; /* NULL in standalone mode */
    struct declared caches[WH_RES_COUNT];
    const char *versions[WH_RES_COUNT];
    bool started;
    /* standalone: every loaded object, "group/resource" -> struct wh_cache * */
    struct wh_map store;
    pthread_rwlock_t store_lock; /* guards the map store (not the caches, which lock alone) */
    pthread_mutex_t write_lock; /* standalone writes: read-check-write must not interleave */
    unsigned long long next_rv;
    struct wh_writeback writeback;
};

#endif
