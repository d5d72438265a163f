#ifndef WH_KUBE_CLIENT_H
#define WH_KUBE_CLIENT_H

/* A Kubernetes API client on libcurl + jansson: configuration from a kubeconfig file or the
 * in-cluster service account, the verbs get/list/watch/create/update/patch/delete (and the
 * status subresource through paths), errors decoded from the API server's Status objects,
 * client-side rate limiting, retries with backoff for 429, 5xx and connection errors, and a
 * timeout on every call.
 * Thread rule: a client is thread-safe; each call uses its own curl easy handle (connections,
 * DNS and TLS sessions are shared through a lock-protected curl share). */

#include <jansson.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "util/err.h"

struct wh_kube_client;

struct wh_kube_opts {
    const char *kubeconfig; /* a kubeconfig file; NULL or "" = in-cluster configuration */
    double qps;             /* client-side rate limit (token bucket); <= 0 = unlimited */
    int burst;
    long timeout_ms;        /* per call (not per watch); 0 = 30 s */
    int max_retries;        /* for 429, 5xx and connection errors; < 0 = 0 */
};

/* True when the in-cluster environment (KUBERNETES_SERVICE_HOST/PORT and the service-account
 * token file) is present. */
bool wh_kube_in_cluster(void);

/* Loads the configuration and makes a client. Errors name the file and the problem. */
WH_NODISCARD enum wh_err wh_kube_client_new(const struct wh_kube_opts *opts,
                                            struct wh_kube_client **out, struct wh_errbuf *eb);
void wh_kube_client_free(struct wh_kube_client *c);

/* Returns: borrowed; the API server URL, and the namespace of the current context or of the
 * service account ("" when none). */
const char *wh_kube_client_server(const struct wh_kube_client *c);
const char *wh_kube_client_namespace(const struct wh_kube_client *c);

/* What the API server said when a call failed (a decoded Status, or the HTTP code). */
struct wh_kube_status {
    int code;         /* HTTP status; 0 when no answer arrived */
    char reason[64];  /* Status.reason, e.g. "NotFound", "Conflict", "Expired" */
    char message[512];
};

/* Builds a resource path: /api/v1/namespaces/ns/pods/name/status,
 * /apis/apps.kruise.io/v1beta1/sidecarsets, ... ns, name and sub may be NULL or "". */
WH_NODISCARD enum wh_err wh_kube_path(char *buf, size_t bufsz, const char *group,
                                      const char *version, const char *resource, const char *ns,
                                      const char *name, const char *sub);

/* Every call maps errors the same way: 404 -> WH_ERR_NOT_FOUND, 409 -> WH_ERR_CONFLICT, 410 ->
 * WH_ERR_GONE, any other error answer -> WH_ERR_KUBE; no answer -> WH_ERR_IO; over the deadline ->
 * WH_ERR_TIMEOUT. st (may be NULL) receives the details. */

/* Returns in *out: new ref, the decoded body. */
WH_NODISCARD enum wh_err wh_kube_get(struct wh_kube_client *c, const char *path, json_t **out,
                                     struct wh_kube_status *st);

struct wh_kube_list_opts {
    const char *label_selector;   /* NULL = none */
    const char *field_selector;   /* NULL = none */
    long limit;                   /* page size; 0 = no limit */
    const char *continue_token;   /* NULL = first page */
    const char *resource_version; /* NULL = most recent */
};

/* One page. Returns in *out: new ref, the List object (items, metadata.continue,
 * metadata.resourceVersion). */
WH_NODISCARD enum wh_err wh_kube_list(struct wh_kube_client *c, const char *path,
                                      const struct wh_kube_list_opts *opts, json_t **out,
                                      struct wh_kube_status *st);

/* Called for each item; item is borrowed for the call. A non-OK return stops the listing and is
 * returned by wh_kube_list_all. */
typedef enum wh_err (*wh_kube_item_fn)(void *arg, json_t *item);

/* Every page (following continue tokens). *resource_version (may be NULL) receives the list's
 * resourceVersion as a new string (caller frees). A continue token that expired mid-way returns
 * WH_ERR_GONE. */
WH_NODISCARD enum wh_err wh_kube_list_all(struct wh_kube_client *c, const char *path,
                                          const char *label_selector, const char *field_selector,
                                          long page_size, wh_kube_item_fn fn, void *arg,
                                          char **resource_version, struct wh_kube_status *st);

/* type is "ADDED", "MODIFIED", "DELETED", "BOOKMARK" or "ERROR"; object is borrowed. A non-OK
 * return ends the watch and is returned by wh_kube_watch. */
typedef enum wh_err (*wh_kube_event_fn)(void *arg, const char *type, json_t *object);

struct wh_kube_watch_opts {
    const char *resource_version; /* watch from here (NULL = now) */
    bool bookmarks;               /* allowWatchBookmarks=true */
    long timeout_seconds;         /* server-side timeoutSeconds; 0 = server default */
    const char *label_selector;
    const char *field_selector;
    const atomic_bool *stop; /* when it becomes true the watch returns WH_OK within ~1 s */
};

/* Streams events as they arrive (newline-delimited JSON, parsed incrementally). Returns WH_OK
 * when the server ends the stream or stop is set; an ERROR event carrying a 410 Status returns
 * WH_ERR_GONE (the caller relists). */
WH_NODISCARD enum wh_err wh_kube_watch(struct wh_kube_client *c, const char *path,
                                       const struct wh_kube_watch_opts *opts, wh_kube_event_fn fn,
                                       void *arg, struct wh_kube_status *st);

/* Returns in *out (may be NULL): new ref, the object as stored. */
WH_NODISCARD enum wh_err wh_kube_create(struct wh_kube_client *c, const char *path,
                                        const json_t *obj, json_t **out,
                                        struct wh_kube_status *st);
/* PUT; obj carries metadata.resourceVersion; a stale one returns WH_ERR_CONFLICT. */
WH_NODISCARD enum wh_err wh_kube_update(struct wh_kube_client *c, const char *path,
                                        const json_t *obj, json_t **out,
                                        struct wh_kube_status *st);

enum wh_kube_patch_type { WH_PATCH_MERGE, WH_PATCH_JSON, WH_PATCH_STRATEGIC };
WH_NODISCARD enum wh_err wh_kube_patch(struct wh_kube_client *c, const char *path,
                                       enum wh_kube_patch_type type, const json_t *patch,
                                       json_t **out, struct wh_kube_status *st);
/* options: a DeleteOptions object, or NULL. */
WH_NODISCARD enum wh_err wh_kube_delete(struct wh_kube_client *c, const char *path,
                                        const json_t *options, struct wh_kube_status *st);

/* Discovery: the version of group to use among candidates (preference order, NULL-terminated):
 * the group's preferredVersion when it is a candidate, else the first candidate the cluster
 * serves. Returns WH_ERR_NOT_FOUND when the group or every candidate is not served; *chosen
 * points into candidates. */
WH_NODISCARD enum wh_err wh_kube_pick_version(struct wh_kube_client *c, const char *group,
                                              const char *const *candidates, const char **chosen,
                                              struct wh_kube_status *st);

#endif
