#ifndef WH_KUBE_INFORMER_H
#define WH_KUBE_INFORMER_H

/* Keeps one cache in step with the API server: list (paginated), then watch from the list's
 * resourceVersion with bookmarks; resume after a dropped watch; relist on 410 Gone; back off on
 * errors. The cache is marked synced after the first complete list and stays synced (serving
 * the last known state) while the API server is away.
 * Backoff: 0.5 s, doubling, capped at backoff_max_ms (default 1 s), half of each step random,
 * and back to the start as soon as a list or watch succeeds (a watch that the API server
 * accepted counts, however it ends). So while the API server is away each informer tries
 * about once a second, and a watch resumes within about a second of its return: unlike
 * client-go's 30 s cap, because handlers read only these caches and a SidecarSet created
 * after an API server restart must reach the next Pod at once.
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
    long backoff_max_ms;                     /* 0 = 1 s */
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
