#ifndef WH_HANDLERS_REGISTRY_H
#define WH_HANDLERS_REGISTRY_H

/* The webhook paths this server answers: one table, path -> handler. The paths are upstream
 * OpenKruise's (see ../shared/spec/), so existing webhook configurations keep working. A handler
 * that is not implemented is not in the table (the path answers 404).
 * Thread rule: the table is immutable; handlers run concurrently on the HTTP worker threads and
 * must only read shared state (caches) or write through the cluster client. */

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "admission/review.h"
#include "config/config.h"
#include "util/err.h"

struct wh_cluster; /* kube/cluster.h: cached cluster state, live reads, writes */

/* Everything a handler may use besides the request. Borrowed for the call. */
struct wh_handler_ctx {
    const struct wh_config *cfg;
    struct wh_cluster *cluster; /* NULL only in unit tests that need no cluster state */
    /* This request's deadline (monotonic ns, util/deadline.h; 0 = none): API calls made for it
     * end by then, and loops that retry stop. The dispatcher also makes it the thread's. */
    int64_t deadline_ns;
    /* The offline inject command: no API calls, no side effects; answers are still computed. */
    bool offline;
};

/* An admission handler answers through resp (allow, deny, warn; mutating handlers edit
 * wh_admission_mutable_object). A returned error other than WH_OK is answered as allowed=false
 * with status code 500 and the errbuf text, as upstream's admission.Errored(500, err). */
typedef enum wh_err (*wh_admit_fn)(const struct wh_handler_ctx *ctx,
                                   const struct wh_admission_request *req,
                                   struct wh_admission_response *resp, struct wh_errbuf *eb);

/* A conversion handler: see conversion/convert.h. */
typedef enum wh_err (*wh_convert_fn)(const char *desired_api_version, const json_t *objects,
                                     json_t **out, char **message);

enum wh_route_kind { WH_ROUTE_MUTATE, WH_ROUTE_VALIDATE, WH_ROUTE_CONVERT };

struct wh_route {
    const char *path;
    enum wh_route_kind kind;
    wh_admit_fn admit;     /* mutate and validate */
    wh_convert_fn convert; /* convert */
    /* Served only when this returns true (feature gates); NULL means always. */
    bool (*enabled)(const struct wh_config *cfg);
    /* Runs once at start-up, before the caches start, for each enabled route: declares the
     * caches the handler reads (wh_cluster_declare, views, indexes). NULL when it needs none.
     * The server is ready only once every declared cache has synced. */
    enum wh_err (*setup)(struct wh_cluster *cluster, const struct wh_config *cfg,
                         struct wh_errbuf *eb);
    /* For a path that several specs share (/mutate-pod: SidecarSet, WorkloadSpread, PUB): the
     * spec areas implemented so far, comma-separated ("sidecarset"). NULL: all of them. The
     * vector harness skips vectors of the areas not listed. */
    const char *areas;
};

/* Returns: the static table of every route the server knows, in a stable order. */
const struct wh_route *wh_routes_all(size_t *count);

/* Returns: the route for path among those enabled by cfg, or NULL. */
const struct wh_route *wh_routes_find(const struct wh_config *cfg, const char *path);

/* True when some route answers path with some configuration (feature gates aside). */
bool wh_routes_known(const char *path);

/* True when route implements spec area (a folder of test/vectors: "sidecarset", ...). */
bool wh_route_covers(const struct wh_route *route, const char *area);

/* Runs the setup of every route enabled by cfg. */
WH_NODISCARD enum wh_err wh_routes_setup(const struct wh_config *cfg, struct wh_cluster *cluster,
                                         struct wh_errbuf *eb);

#endif
