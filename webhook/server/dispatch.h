#ifndef WH_SERVER_DISPATCH_H
#define WH_SERVER_DISPATCH_H

/* The request pipeline, independent of HTTP: parse the body, decode the review, run the route's
 * handler, diff a mutated object into a JSON Patch, encode the answer. The HTTPS server, the
 * benchmarks and the offline commands all go through here.
 * Thread rule: thread-safe; each call owns everything it allocates. */

#include <stddef.h>

#include "handlers/handler.h"
#include "metrics/metrics.h"

struct wh_reply {
    int http_status;     /* 200 for every review answered, 400 malformed, 413/503 memory */
    char *body;          /* owned, NUL-terminated JSON */
    size_t len;
    bool allowed;        /* admission: the verdict (for metrics and logs) */
    bool patched;        /* admission: a non-empty patch was sent */
    char uid[128];       /* the review uid, for log lines ("" when undecodable) */
};

/* Answers one request body. Never fails: malformed input becomes a 400 reply whose body is a
 * Kubernetes Status object naming the problem (line and column for bad JSON); a body whose
 * parse needs more than its memory budget (util/reqmem.h) a 413, and one that finds the
 * request-memory pool in use a 503. */
void wh_dispatch(const struct wh_route *route, const struct wh_handler_ctx *ctx, const char *body,
                 size_t len, struct wh_reply *reply);
void wh_reply_fini(struct wh_reply *reply);

/* Returns: borrowed, the counter kruise_webhook_errors_total{webhook=path} of answers whose
 * handler failed (created on first use; the HTTP server creates every route's at start so
 * that /metrics lists them before the first failure). */
struct wh_metric *wh_dispatch_errors_metric(const char *path);

/* A Kubernetes Status object {kind: Status, status: Failure, code, reason, message} as used for
 * every plain HTTP error. Returns: a new string (caller frees). */
char *wh_dispatch_status_body(int code, const char *message, size_t *len);

#endif
