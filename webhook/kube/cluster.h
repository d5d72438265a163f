#ifndef WH_KUBE_CLUSTER_H
#define WH_KUBE_CLUSTER_H

/* Cluster state as the handlers see it, with one interface for two backends:
 *  - API: a Kubernetes client, versions from discovery, one informer per declared cache;
 *  - standalone: objects loaded from local YAML/JSON files (--state), no API server; writes
 *    apply to the in-memory store and are logged.
 * Handlers declare the caches they need before start; only those are kept.
 * Thread rule: declare and start on the main thread before the HTTP server starts; afterwards
 * every function is thread-safe. */

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "kube/cache.h"
#include "kube/client.h"
#include "kube/resource.h"
#include "kube/rmw.h"
#include "util/err.h"

struct wh_cluster;

/* Steals: client. */
WH_NODISCARD enum wh_err wh_cluster_new_api(struct wh_kube_client *client, struct wh_cluster **out,
                                            struct wh_errbuf *eb);
/* Loads every object of state_path: a file or a directory of .yaml/.yml/.json files (sorted by
 * name; not recursive), multi-document YAML allowed. NULL or "" = empty cluster. Errors name
 * file:line:col. */
WH_NODISCARD enum wh_err wh_cluster_new_standalone(const char *state_path, struct wh_cluster **out,
                                                   struct wh_errbuf *eb);
/* The same from objects in memory (borrowed; List kinds are unwrapped). */
WH_NODISCARD enum wh_err wh_cluster_new_standalone_objects(const json_t *objects,
                                                           struct wh_cluster **out,
                                                           struct wh_errbuf *eb);
/* The files state_path (--state) names, in the order the standalone cluster loads them: the
 * file itself, or the .yaml, .yml and .json files of the directory (none starting with "."),
 * sorted by name. Returns: *files new (free each string, then the array), *count of them.
 * Errors: WH_ERR_IO naming --state and the path. */
WH_NODISCARD enum wh_err wh_cluster_state_files(const char *state_path, char ***files,
                                                size_t *count, struct wh_errbuf *eb);

/* Standalone mode: re-reads state_path (as wh_cluster_new_standalone reads it) and makes it the
 * whole state, as a relist does in API mode: every declared cache is replaced at once and what
 * this process remembered of its own status writes is forgotten. On error nothing changes.
 * *count (may be NULL) receives the number of objects loaded. Thread-safe: requests in flight
 * see the old state or the new one per cache. */
WH_NODISCARD enum wh_err wh_cluster_reload_standalone(struct wh_cluster *cl,
                                                      const char *state_path, size_t *count,
                                                      struct wh_errbuf *eb);
/* Stops informers and frees everything. Accepts NULL. */
void wh_cluster_free(struct wh_cluster *cl);

bool wh_cluster_standalone(const struct wh_cluster *cl);
/* Returns: borrowed; NULL in standalone mode. */
struct wh_kube_client *wh_cluster_client(struct wh_cluster *cl);

/* Declares a cache of resource id, limited to namespace ns (NULL = every namespace), and returns
 * it so the caller can add views and indexes before start. Declaring the same resource twice
 * returns the same cache; the scopes must agree (programming error otherwise). */
struct wh_cache *wh_cluster_declare(struct wh_cluster *cl, enum wh_resource_id id, const char *ns);
/* Returns: borrowed; the declared cache, or NULL when nobody declared it. */
struct wh_cache *wh_cluster_cache(struct wh_cluster *cl, enum wh_resource_id id);
/* The string data[key] of ConfigMap ns/name as the declared ConfigMap cache holds it, or NULL
 * (cl NULL, no cache declared, no such ConfigMap or key, not a string). *holder is the object
 * the text lives in: release it with wh_object_unref once the text is used (NULL when the
 * answer is NULL). */
const char *wh_cluster_configmap_value(struct wh_cluster *cl, const char *ns, const char *name,
                                       const char *key, struct wh_object **holder);

/* API mode: resolves versions by discovery and starts one informer per declared cache.
 * Standalone: fills the declared caches and marks them synced. */
WH_NODISCARD enum wh_err wh_cluster_start(struct wh_cluster *cl, struct wh_errbuf *eb);

/* True when every declared cache has synced; else why names one that has not. */
bool wh_cluster_synced(struct wh_cluster *cl, char *why, size_t whysz);

/* Returns: the version in use for id (the cluster's choice among the catalogue's candidates once
 * started; the first candidate before, or when the group is not served). */
const char *wh_cluster_version(const struct wh_cluster *cl, enum wh_resource_id id);

/* Live, paginated list straight from the API server (or the standalone store), for decisions
 * that must not trust a cache and are rare (deletion protection). ns NULL = all namespaces.
 * fn gets each item (borrowed). Standalone mode supports no selectors (WH_ERR_INVALID). */
WH_NODISCARD enum wh_err wh_cluster_list_live(struct wh_cluster *cl, const char *group,
                                              const char *version, const char *resource,
                                              const char *ns, const char *label_selector,
                                              wh_kube_item_fn fn, void *arg, struct wh_errbuf *eb);

/* Live, one page of at most limit (> 0) items, for questions a first page answers (does any
 * object match this selector, a few examples): fn gets the items of that page only. One call,
 * within the thread's deadline. Standalone: as wh_cluster_list_live, up to limit items. */
WH_NODISCARD enum wh_err wh_cluster_list_page_live(struct wh_cluster *cl, const char *group,
                                                   const char *version, const char *resource,
                                                   const char *ns, const char *label_selector,
                                                   long limit, wh_kube_item_fn fn, void *arg,
                                                   struct wh_errbuf *eb);

/* Live get of one object. Returns in *out: new ref. WH_ERR_NOT_FOUND when absent. */
WH_NODISCARD enum wh_err wh_cluster_get_live(struct wh_cluster *cl, const char *group,
                                             const char *version, const char *resource,
                                             const char *ns, const char *name, json_t **out,
                                             struct wh_errbuf *eb);

/* The resource (plural) serving kind in group/version, as a REST mapper finds it: the
 * catalogue, else discovery of the group version (API mode) or the loaded CRDs (standalone).
 * WH_ERR_NOT_FOUND, with Go's message (`no matches for kind "K" in version "G/V"`), when nothing
 * serves it. */
WH_NODISCARD enum wh_err wh_cluster_resource_for_kind(struct wh_cluster *cl, const char *group,
                                                      const char *version, const char *kind,
                                                      char *plural, size_t pluralsz,
                                                      struct wh_errbuf *eb);

/* Live get of one object named by apiVersion and kind, for kinds outside the catalogue (the
 * custom workloads of a white list): the resource comes from discovery of the group version
 * (API mode) or from the loaded CRDs, else Kubernetes' lower-case kind plus "s" (standalone).
 * Returns in *out: new ref. WH_ERR_NOT_FOUND when the object is absent or the cluster serves no
 * such kind; WH_ERR_INVALID when api_version does not parse. */
WH_NODISCARD enum wh_err wh_cluster_get_live_kind(struct wh_cluster *cl, const char *api_version,
                                                  const char *kind, const char *ns,
                                                  const char *name, json_t **out,
                                                  struct wh_errbuf *eb);

/* A dry-run creation (POST ...?dryRun=All) of obj (borrowed) as resource of group/version in
 * namespace ns: what the API server's validation says of an object without storing it (the
 * object a ResourceDistribution distributes). WH_OK when the API server accepts it; otherwise
 * its error with st (the Status: code, reason, message) filled, WH_ERR_IO or WH_ERR_TIMEOUT
 * when no answer came by the request's deadline. Standalone mode has no API server to ask and
 * accepts. */
WH_NODISCARD enum wh_err wh_cluster_create_dry_run(struct wh_cluster *cl, const char *group,
                                                   const char *version, const char *resource,
                                                   const char *ns, const json_t *obj,
                                                   struct wh_kube_status *st);

/* Writes obj (borrowed) with PUT, to the status subresource when status is true. A stale
 * metadata.resourceVersion returns WH_ERR_CONFLICT for the caller to re-read and retry.
 * Returns in *out (may be NULL): new ref, the object as stored. */
WH_NODISCARD enum wh_err wh_cluster_update(struct wh_cluster *cl, enum wh_resource_id id,
                                           const json_t *obj, bool status, json_t **out,
                                           struct wh_errbuf *eb);

/* --- status write-back (kube/writeback.c) ----------------------------------------------------- */

struct wh_writeback_opts {
    bool dry_run;       /* decide, never write */
    int max_attempts;   /* writes tried at most; 0 = until the thread's deadline */
    int64_t backoff_ms; /* first pause after a conflict; 0 = 10 ms */
};

/* Read, modify, write the status of object id ns/name (ns NULL or "" when cluster-scoped), for
 * admission handlers that keep books in a status (WorkloadSpread, PodUnavailableBudget):
 *  - writes of the same object are serialised inside this process (a per-object lock held
 *    across the write), so conflicts come only from other replicas and controllers;
 *  - the first base is the newer, by resourceVersion, of the cached copy and this process's
 *    last write of the object, so the hot path makes no GET;
 *  - decide (kube/rmw.h) gets that object (read-only; never modify it) and returns the whole
 *    object with its new status, or nothing to write; a decision to write nothing (a budget
 *    spent, no room in any subset) made on the cached or remembered copy is made again on a live
 *    read, so a stale cache never decides a denial;
 *  - PUT .../status with the base's resourceVersion; on 409 a live GET and a retry with
 *    jittered backoff, bounded by max_attempts and the thread's deadline (util/deadline.h);
 *  - the stored object is kept and is the next request's base until the cache catches up;
 *  - standalone: the same against the in-memory state.
 * WH_ERR_NOT_FOUND when the object does not exist; other errors as wh_rmw_run. res (may be
 * NULL) is released with wh_rmw_result_fini. */
WH_NODISCARD enum wh_err wh_cluster_write_status(struct wh_cluster *cl, enum wh_resource_id id,
                                                 const char *ns, const char *name,
                                                 wh_rmw_decide_fn decide, void *arg,
                                                 const struct wh_writeback_opts *opts,
                                                 struct wh_rmw_result *res, struct wh_errbuf *eb);

/* Returns: new ref, the freshest copy of id ns/name this process knows without a network call
 * (the newer of the cache and its own last status write), or NULL when it knows none. */
json_t *wh_cluster_freshest(struct wh_cluster *cl, enum wh_resource_id id, const char *ns,
                            const char *name);

#endif
