#ifndef WH_KUBE_INFORMER_H
#define WH_KUBE_INFORMER_H

/* Keeps one cache in step with the API server: list (paginated), then watch from the list's
 * resourceVersion with bookmarks; resume after a dropped watch; relist on 410 Gone; back off on
 * errors. The cache is marked synced after the first complete list and stays synced (serving
 * the last known state) while the API server is away.
 * Thread rule: one thread per informer; start/stop from the main thread. */

#include "kube/cache.h"
#include "kube/client.h"
#include "util/err.h"

struct wh_informer;

struct wh_informer_opts {
    const char *group, *version, *resource; /* what to list and watch */
    const char *ns;                          /* NULL or "" = every namespace */
    const char *label_selector;              /* NULL = none */
    const char *field_selector;              /* NULL = none */
    long page_size;                          /* 0 = 500 */
    long watch_timeout_seconds;              /* 0 = a random 5..10 minutes, as client-go */
    long backoff_max_ms;                     /* 0 = 30 s */
};

/* Starts the informer thread. client and cache are borrowed and must outlive it. */
WH_NODISCARD enum wh_err wh_informer_start(struct wh_kube_client *client, struct wh_cache *cache,
                                           const struct wh_informer_opts *opts,
                                           struct wh_informer **out);
/* Asks the thread to stop without waiting for it (accepts NULL): signal every informer first,
 * then stop them, and shutdown waits for the slowest watch instead of the sum of all. */
void wh_informer_signal(struct wh_informer *inf);
/* Stops the thread (within about a second) and frees the informer. Accepts NULL. */
void wh_informer_stop(struct wh_informer *inf);

#endif
