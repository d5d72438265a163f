#ifndef WH_HANDLERS_HANDLER_H
#define WH_HANDLERS_HANDLER_H

/* The contract between the server and a handler: what a handler is given, how it answers, and
 * the route that describes it. A feature defines one const struct wh_route per path it answers
 * (next to its code, as upstream's handlers carry their kubebuilder webhook markers) and
 * handlers/registry.c lists it; nothing else knows every route.
 * Thread rule: routes are immutable; handlers run concurrently on the HTTP worker threads and
 * must only read shared state (caches) or write through the cluster client. */

#include <jansson.h>
#include <stdbool.h>

#include "admission/review.h"
#include "config/config.h"
#include "util/err.h"

struct wh_cluster; /* kube/cluster.h: cached cluster state, live reads, writes */

/* Everything a handler may use besides the request. Borrowed for the call. The request's
 * deadline is the thread's (util/deadline.h): API calls made for it end by then, and loops
 * that retry stop. */
struct wh_handler_ctx {
    const struct wh_config *cfg;
    struct wh_cluster *cluster; /* NULL only in unit tests that need no cluster state */
    /* The commands that only tell (inject, explain): nothing is written, answers are still
     * computed, from the cluster given (inject: a standalone state; explain: the API server,
     * read through a read-only client). */
    bool offline;
};

/* An admission handler answers through resp (allow, deny, warn; mutating handlers edit
 * wh_admission_mutable_object or hand over their result with wh_admission_set_mutated_new). A
 * returned error other than WH_OK is answered as allowed=false with status code 500 and the
 * errbuf text, as upstream's admission.Errored(500, err). */
typedef enum wh_err (*wh_admit_fn)(const struct wh_handler_ctx *ctx,
                                   const struct wh_admission_request *req,
                                   struct wh_admission_response *resp, struct wh_errbuf *eb);

/* A conversion handler: see conversion/convert.h. */
typedef enum wh_err (*wh_convert_fn)(const char *desired_api_version, const json_t *objects,
                                     json_t **out, char **message);

enum wh_route_kind { WH_ROUTE_MUTATE, WH_ROUTE_VALIDATE, WH_ROUTE_CONVERT };

/* The operations of a webhook rule (admissionregistration's OperationType). */
enum wh_webhook_op {
    WH_WEBHOOK_CREATE = 1u << 0,
    WH_WEBHOOK_UPDATE = 1u << 1,
    WH_WEBHOOK_DELETE = 1u << 2,
    WH_WEBHOOK_CONNECT = 1u << 3,
};

#define WH_WEBHOOK_MAX_VERSIONS 3

/* One entry of the webhook configurations that sends requests to a route: upstream's
 * kubebuilder marker of the handler (+kubebuilder:webhook:path=...,groups=...,resources=...,
 * verbs=...,versions=...,name=...) with what its config/webhook/patch_manifests.yaml adds.
 * make crds writes the webhook configurations of manifests/base/ and of the Helm chart from
 * these (tools/webhookconfigs.c); the failure policy, timeout, review versions and the
 * namespaces every entry skips are the generator's own. */
struct wh_webhook_entry {
    const char *name;                              /* "vpod.kb.io" */
    const char *group;                             /* the one API group: "" is the core group */
    const char *versions[WH_WEBHOOK_MAX_VERSIONS]; /* its API versions, NULL-terminated */
    const char *resource;                          /* "pods", "pods/eviction" */
    unsigned operations;                           /* enum wh_webhook_op mask */
    /* objectSelector: only objects with this label (Exists); NULL: every object */
    const char *object_label;
    /* namespaceSelector: namespaces without the label control-plane too (upstream's Pod
     * entries), besides the ones every entry skips */
    bool skip_control_plane;
};

#define WH_ROUTE_MAX_ENTRIES 2

struct wh_route {
    const char *path;
    enum wh_route_kind kind;
    wh_admit_fn admit;     /* mutate and validate */
    wh_convert_fn convert; /* convert */
    /* Served only when this returns true (feature gates); NULL means always. */
    bool (*enabled)(const struct wh_config *cfg);
    /* Runs once at start-up, before the caches start, for each enabled route: declares the
     * caches the handler reads (wh_cluster_declare, views, indexes). NULL when it needs none.
     * The server is ready only once every declared cache has synced. Routes that share caches
     * may each declare them: declaring twice is harmless. */
    enum wh_err (*setup)(struct wh_cluster *cluster, const struct wh_config *cfg,
                         struct wh_errbuf *eb);
    /* For a path that several features share (/mutate-pod: the Pod steps): true when the
     * route implements the feature named area (a folder of test/vectors: "sidecarset", ...).
     * NULL: every area. The vector harness skips vectors of the areas a route does not
     * cover. */
    bool (*covers)(const char *area);
    /* The route writes to the API server (status bookkeeping), never for a dry run: its
     * entries say sideEffects: NoneOnDryRun, others None. */
    bool side_effects;
    /* The webhook entries that send requests here (none for /convert, which the CRDs name,
     * and for an alias). */
    struct wh_webhook_entry entries[WH_ROUTE_MAX_ENTRIES];
    /* An older name of the path alias_of, served for old configurations and never registered
     * by ours (the Helm chart's names); NULL for a path of its own. */
    const char *alias_of;
};

#endif
