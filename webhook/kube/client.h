#ifndef WH_KUBE_CLIENT_H
#define WH_KUBE_CLIENT_H

/* A Kubernetes API client on libcurl + jansson: configuration from a kubeconfig file or the
 * in-cluster service account, the verbs get/list/watch/create/update/patch/delete (and the
 * status subresource through paths), errors decoded from the API server's Status objects,
 * client-side rate limiting, retries with backoff for 429, 5xx and connection errors, and a
 * timeout on every call.
 * Thread rule: a client is thread-safe; each call uses its own curl easy handle. DNS answers and
 * TLS sessions are shared through a lock-protected curl share; connections are not (libcurl
 * does not support sharing them between concurrent threads) but are kept alive in a small pool
 * of idle handles that calls take and give back.
 * libcurl: curl_global_init must have run (main does it) before the first client is made.
 *
 * Retries (a call is bounded by max_retries and by its deadline, timeout_ms, which covers the
 * rate-limit wait, every attempt and every pause; a watch is never retried):
 *   - 429: every verb (the server refused without acting); Retry-After seconds are honoured,
 *     and a Retry-After beyond the deadline ends the call with the 429.
 *   - 5xx (not 501/505) and a connection broken after sending: get, list, discovery, update,
 *     delete, merge and strategic patches, and create. An update repeated after an applied
 *     first try returns WH_ERR_CONFLICT (its resourceVersion is now stale): re-read and
 *     decide, as for any conflict. A repeated delete may return WH_ERR_NOT_FOUND: the object is
 *     gone either way. A repeated create may return WH_ERR_CONFLICT with reason
 *     "AlreadyExists" because the first try succeeded: when st->attempts > 1, get the object
 *     and compare before treating it as someone else's. A JSON patch is not idempotent ("add"
 *     to "/-" appends twice), so it repeats only on 429 and on connection failures that
 *     happened before the request was sent.
 *   - Connection failures before sending (refused, DNS, TLS handshake): every verb.
 *   - 401 with a token file: the file is read again at once and the call repeated once if the
 *     token changed (not counted as a retry).
 * Pauses grow exponentially from 100 ms to 5 s, with jitter. */

#include <jansson.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "kube/resource.h"
#include "util/err.h"

struct wh_kube_client;

struct wh_kube_opts {
    const char *kubeconfig; /* a kubeconfig file; NULL or "" = in-cluster configuration */
    double qps;             /* client-side rate limit (token bucket); <= 0 = unlimited */
    int burst;
    long timeout_ms;        /* per call (not per watch); 0 = 30 s */
    int max_retries;        /* for 429, 5xx and connection errors; < 0 = 0 */
    long token_reread_ms;   /* re-read period of a token file; 0 = 60 s (client-go's) */
    /* Sends GET requests only (get, list, watch, discovery): any other verb fails with
     * WH_ERR_INVALID before anything is sent, so that a command that promises to change
     * nothing (explain) cannot, whatever the code it runs tries. */
    bool read_only;
};

struct wh_config;
/* The options the server's flags give a client (--kubeconfig, --kube-qps, --kube-burst,
 * --kube-timeout), with 3 retries; the server and its commands that read the cluster share
 * them. */
struct wh_kube_opts wh_kube_opts_of_config(const struct wh_config *cfg);

/* The largest response body accepted (lists included); larger ones fail with WH_ERR_TOO_BIG.
 * A single watch event is capped at WH_WATCH_MAX_EVENT (8 MiB, kube/watch.h). */
#define WH_KUBE_MAX_BODY (64u * 1024u * 1024u)

/* True when the in-cluster environment (KUBERNETES_SERVICE_HOST/PORT and the service-account
 * token file) is present. The service-account directory is
 * /var/run/secrets/kubernetes.io/serviceaccount, or $WH_SERVICEACCOUNT_DIR when set (tests). */
bool wh_kube_in_cluster(void);

/* The server's choice of cluster: standalone (no API server) when state (--state) is
 * non-empty, or when kubeconfig is empty (or NULL) and wh_kube_in_cluster() is false. */
bool wh_kube_standalone(const char *state, const char *kubeconfig);

/* What wh_kube_client_new reads before it connects, read and checked, for --check-config: the
 * kubeconfig file (or, when kubeconfig is empty or NULL, the in-cluster service account) exists
 * and parses, and its current-context names a context whose cluster and user exist. Nothing is
 * sent. Errors: those of wh_kube_client_new before it connects, naming the file. */
WH_NODISCARD enum wh_err wh_kube_config_check(const char *kubeconfig, struct wh_errbuf *eb);

/* Loads the configuration and makes a client (no request is sent yet). The token file, when
 * there is one, is read now. Errors name the file and the problem: WH_ERR_IO (unreadable),
 * WH_ERR_PARSE (malformed YAML), WH_ERR_INVALID (missing or unsupported settings, or no
 * kubeconfig outside a cluster). */
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
    char message[2048]; /* room for an API server's validation errors, quoted to users */
    int attempts;     /* requests sent for this call (1 = no retry) */
};

/* Builds a resource path: /api/v1/namespaces/ns/pods/name/status,
 * /apis/apps.kruise.io/v1beta1/sidecarsets, ... ns, name and sub may be NULL or "". */
WH_NODISCARD enum wh_err wh_kube_path(char *buf, size_t bufsz, const char *group,
                                      const char *version, const char *resource, const char *ns,
                                      const char *name, const char *sub);

/* The same for resource id of the catalogue (kube/resource.h) at its first version. */
WH_NODISCARD enum wh_err wh_kube_path_of(char *buf, size_t bufsz, enum wh_resource_id id,
                                         const char *ns, const char *name, const char *sub);

/* Every call maps errors the same way: 404 -> WH_ERR_NOT_FOUND, 409 -> WH_ERR_CONFLICT, 410 ->
 * WH_ERR_GONE, any other error answer -> WH_ERR_KUBE; no answer -> WH_ERR_IO (WH_ERR_TLS for
 * certificate problems); over the deadline -> WH_ERR_TIMEOUT; a body over the cap ->
 * WH_ERR_TOO_BIG; a 2xx body that is not JSON -> WH_ERR_PARSE. st (may be NULL) receives the
 * details; on success st->code is the HTTP status. path starts with '/' (wh_kube_path). */

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

/* Every page (following continue tokens). Items are given the List's apiVersion and kind
 * (without "List") when they lack them, as list items on the wire do. *resource_version (may be
 * NULL) receives the list's resourceVersion as a new string (caller frees). A continue token
 * that expired mid-way returns WH_ERR_GONE. page_size 0 = no limit. */
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
 * when the server ends the stream, when the connection breaks after the stream began (the
 * caller resumes from the last resourceVersion it saw), or when stop is set. An ERROR event is
 * passed to fn and then ends the watch with its Status in st: 410 returns WH_ERR_GONE (the
 * caller relists), other codes map as for every call (WH_ERR_KUBE when none). An answer other
 * than 200 maps as for every call (a 410 answer is WH_ERR_GONE too). A malformed event returns
 * WH_ERR_PARSE, one over WH_WATCH_MAX_EVENT WH_ERR_TOO_BIG. A watch has no overall timeout: the
 * connection is abandoned (WH_OK) after timeout_seconds + 30 s without a byte, or 10 min when
 * timeout_seconds is 0, so pass timeout_seconds (client-go uses 5-10 min). */
WH_NODISCARD enum wh_err wh_kube_watch(struct wh_kube_client *c, const char *path,
                                       const struct wh_kube_watch_opts *opts, wh_kube_event_fn fn,
                                       void *arg, struct wh_kube_status *st);

/* Returns in *out (may be NULL): new ref, the object as stored. obj is only read (it must not
 * change during the call). */
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
/* options: a DeleteOptions object, or NULL. 200 and 202 are success. */
WH_NODISCARD enum wh_err wh_kube_delete(struct wh_kube_client *c, const char *path,
                                        const json_t *options, struct wh_kube_status *st);

/* Discovery: the version of group to use among candidates (preference order, NULL-terminated):
 * the group's preferredVersion when it is a candidate, else the first candidate the cluster
 * serves. Returns WH_ERR_NOT_FOUND when the group or every candidate is not served; *chosen
 * points into candidates. */
WH_NODISCARD enum wh_err wh_kube_pick_version(struct wh_kube_client *c, const char *group,
                                              const char *const *candidates, const char **chosen,
                                              struct wh_kube_status *st);

/* The same for one resource of the group: the group's choice when that version serves resource,
 * else the first candidate whose version does (a CRD of the group may serve fewer versions than
 * another: OpenKruise's CloneSet v1alpha1 only, its WorkloadSpread v1beta1 too). Returns
 * WH_ERR_NOT_FOUND when no candidate version serves it. */
WH_NODISCARD enum wh_err wh_kube_pick_resource_version(struct wh_kube_client *c, const char *group,
                                                       const char *resource,
                                                       const char *const *candidates,
                                                       const char **chosen,
                                                       struct wh_kube_status *st);

#endif
