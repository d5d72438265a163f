#ifndef WH_SERVER_HTTP_H
#define WH_SERVER_HTTP_H

/* The HTTPS webhook server (libmicrohttpd over GnuTLS: TLS 1.2/1.3, keep-alive, a thread pool,
 * connection timeout and memory limit) plus plain HTTP listeners for health and metrics.
 * Webhook paths come from handlers/registry; answers for bad requests: unknown path 404, method
 * other than POST 405, Content-Type not application/json 415, body over the cap 413 (read no
 * further), malformed JSON or review 400.
 * Thread rule: start/stop on the main thread; requests run on MHD's threads. */

#include "config/config.h"
#include "handlers/registry.h"
#include "util/err.h"

struct wh_http;

/* Starts every listener. cfg and ctx are borrowed and must outlive the server. */
WH_NODISCARD enum wh_err wh_http_start(const struct wh_config *cfg,
                                       const struct wh_handler_ctx *ctx, struct wh_http **out,
                                       struct wh_errbuf *eb);

/* Bound ports (useful with port 0); 0 when that listener is disabled. */
int wh_http_port(const struct wh_http *h);
int wh_http_health_port(const struct wh_http *h);
int wh_http_metrics_port(const struct wh_http *h);

/* The first half of a graceful stop (--shutdown-delay): the listener keeps accepting and
 * answering, but every answer says Connection: close, so that clients holding keep-alive
 * connections (the API server's pool) open new ones, which go to the replicas that stay once
 * the endpoints have dropped this one. */
void wh_http_begin_drain(struct wh_http *h);

/* Graceful stop: stop accepting, answer in-flight requests (with Connection: close), wait up to
 * grace_ms for them, then close every connection, idle keep-alive ones included. Frees h. */
void wh_http_stop(struct wh_http *h, long long grace_ms);

#endif
