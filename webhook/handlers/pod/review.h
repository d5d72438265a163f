#ifndef WH_HANDLERS_POD_REVIEW_H
#define WH_HANDLERS_POD_REVIEW_H

/* One Pod admission request as the feature steps of /mutate-pod and /validate-pod see it
 * (handlers/pod/step.h; pipeline.c runs them): what is asked (operation, dry run), the Pod in each
 * of its roles, a copy-on-write editor for the Pod being mutated, and a generic "explain" channel
 * through which every step can say why it did or did not act (inject --explain).
 * Thread rule: a struct wh_pod_review belongs to one request (one thread). */

#include <jansson.h>
#include <stdbool.h>
#include <time.h>

#include "admission/review.h"
#include "handlers/handler.h"
#include "util/err.h"

/* The operations the Pod webhooks see; steps declare masks of them. */
enum wh_pod_op {
    WH_POD_CREATE = 1u << 0, /* pods CREATE */
    WH_POD_UPDATE = 1u << 1, /* pods UPDATE */
    WH_POD_DELETE = 1u << 2, /* pods DELETE */
    WH_POD_EVICT = 1u << 3,  /* pods/eviction CREATE */
    /* /mutate-pod: a CREATE of a subresource, or of another resource, which upstream's
     * readiness gate alone does not tell from a Pod's */
    WH_POD_CREATE_OTHER = 1u << 4,
};

/* A step's account of one decision: step is its name ("sidecarset", "workloadspread", ...),
 * subject what it considered (a SidecarSet, a WorkloadSpread; NULL: the Pod as a whole), acted
 * whether it changed or recorded anything for it, reason a human sentence. */
typedef void (*wh_pod_explain_fn)(void *arg, const char *step, const char *subject, bool acted,
                                  const char *reason);

struct wh_pod_review {
    const struct wh_handler_ctx *ctx;
    const struct wh_admission_request *req;
    struct wh_admission_response *resp;
    /* The operation; 0 for a request no step handles (another subresource or operation).
     * /validate-pod counts an UPDATE of any subresource as WH_POD_UPDATE, as upstream. */
    enum wh_pod_op op;
    /* metadata.namespace of the Pod, or request.namespace when it has none */
    const char *namespace_;
    /* request.dryRun, a non-empty options.dryRun, or (eviction) a non-empty
     * deleteOptions.dryRun: steps compute their answer but never write (kube/cluster.h
     * wh_writeback_opts.dry_run). True for the offline inject command as well. (WorkloadSpread's
     * creation step goes by options.dryRun alone, as upstream: workloadspread/pod.c.) */
    bool dry_run;
    /* EVICT: request.object, an Eviction (policy/v1 or v1beta1); NULL otherwise */
    const json_t *eviction;
    /* the clock for timestamps steps write; 0 = now (tests fix it) */
    time_t now;
    wh_pod_explain_fn explain; /* NULL: nobody asked */
    void *explain_arg;
    /* internal */
    const char *_step;
    json_t *_evicted;
    bool _evicted_read;
    enum wh_err _evicted_rc;
    char _evicted_msg[256];
};

/* Returns: borrowed; the Pod being admitted as the steps before left it: for /mutate-pod the
 * request's object with the edits made so far, for /validate-pod the request's object (UPDATE:
 * the new Pod; DELETE: NULL, see wh_pod_review_old). Read only. */
const json_t *wh_pod_review_pod(const struct wh_pod_review *pr);

/* Returns: borrowed; request.oldObject (UPDATE: the Pod before; DELETE: the Pod deleted), or
 * NULL. */
const json_t *wh_pod_review_old(const struct wh_pod_review *pr);

/* The Pod an eviction names (request.name in request.namespace), read from the API server
 * (standalone: the state) once per request and shared by the steps; within the request's
 * deadline. Returns in *pod: borrowed, valid for the request. Errors carry the API server's
 * message (pods "x" not found). */
WH_NODISCARD enum wh_err wh_pod_review_evicted(struct wh_pod_review *pr, const json_t **pod,
                                               struct wh_errbuf *eb);

/* /mutate-pod: the object at the path of member names (NULL-terminated; none = the Pod
 * itself) made private to this request, copy-on-write (util/cow.h): change it and what you
 * create, nothing else. Missing or mistyped steps become {}. Returns: borrowed, owned by
 * pr->resp (the server diffs it against the request's object into the patch). */
json_t *wh_pod_review_own(struct wh_pod_review *pr, ...);

/* Tells the explain channel (when someone listens; pr may be NULL) about a decision of the
 * running step. */
void wh_pod_review_explain(const struct wh_pod_review *pr, const char *subject, bool acted,
                           const char *fmt, ...) WH_PRINTF(4, 5);

/* True when the step may write to the API server: not a dry run, not offline. */
bool wh_pod_review_may_write(const struct wh_pod_review *pr);

#endif
