#ifndef WH_SERVER_CONN_H
#define WH_SERVER_CONN_H

/* The connection guard of one libmicrohttpd listener: the limits libmicrohttpd lacks.
 *  - Absolute deadlines: a connection with no request in progress (fresh, in the TLS handshake,
 *    sending its request line, or kept alive between requests) is closed idle_ms after it
 *    became idle; a request's headers and body must arrive within read_ms of its request line.
 *    Bytes arriving do not extend either (libmicrohttpd's own timeout restarts on every byte,
 *    so one byte a second held a slot for ever).
 *  - Caps: more than max_total connections, or more than max_per_ip from one client address,
 *    and the guard makes room at once: it closes that scope's oldest idle connection, else the
 *    one whose request has been arriving for longest; a request being answered is never
 *    closed. Only when nothing can go is the new connection itself refused.
 *  - Drain: wh_conn_guard_drain closes every idle connection now and each one that becomes
 *    idle later, so after SIGTERM no kept-alive connection is served again.
 * Connections are closed with shutdown(2) on their socket: libmicrohttpd's thread then sees
 * the end of the stream and releases the connection itself. The guard only touches a socket
 * while the connection is registered, and libmicrohttpd reports the close (which unregisters
 * it) before it closes the descriptor, so a reused descriptor is never shut down.
 * Thread rule: thread-safe. The hooks run on libmicrohttpd's threads; one reaper thread per
 * guard enforces the deadlines; new/free/drain run on the main thread. */

#include <microhttpd.h>
#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

struct wh_conn_guard;

struct wh_conn_limits {
    unsigned max_total;  /* open connections */
    unsigned max_per_ip; /* open connections from one client address */
    int64_t idle_ms;     /* no request in progress: closed this long after becoming idle */
    int64_t read_ms;     /* from the request line until the body is complete */
};

/* name labels the metrics and log lines ("https", "health", "metrics"). */
WH_NODISCARD enum wh_err wh_conn_guard_new(const char *name, const struct wh_conn_limits *lim,
                                           struct wh_conn_guard **out);
/* Stops the reaper and frees the guard; call after MHD_stop_daemon. Accepts NULL. */
void wh_conn_guard_free(struct wh_conn_guard *g);

/* For MHD_OPTION_NOTIFY_CONNECTION (cls = the guard). */
void wh_conn_guard_notify(void *cls, struct MHD_Connection *conn, void **socket_context,
                          enum MHD_ConnectionNotificationCode code);

/* Keeps p (malloc'd, owning nothing) with conn until libmicrohttpd reports the connection
 * closed, after its TLS session is gone; then frees it. Steals: p (freed at once when conn is
 * not registered). Call on conn's thread, after the guard saw it start. */
void wh_conn_guard_attach(struct MHD_Connection *conn, void *p);

/* The request line of a new request has arrived: its read deadline starts. */
void wh_conn_guard_reading(struct wh_conn_guard *g, struct MHD_Connection *conn);
/* The request is complete and being answered: no deadline applies. */
void wh_conn_guard_answering(struct wh_conn_guard *g, struct MHD_Connection *conn);
/* The request is finished (answered or aborted): the connection is idle again. */
void wh_conn_guard_idle(struct wh_conn_guard *g, struct MHD_Connection *conn);

/* Closes idle connections now and every connection as soon as it becomes idle. */
void wh_conn_guard_drain(struct wh_conn_guard *g);

/* Closes conn, whose request body is being received, to give its memory to others
 * (server/intake.h); counted with reason "memory". conn must be registered (its request not
 * yet reported completed). */
void wh_conn_guard_close_for_memory(struct wh_conn_guard *g, struct MHD_Connection *conn);

/* The client's address as text ("?" when unknown); an IPv4 client of a dual-stack socket as
 * its IPv4 address. */
#define WH_CONN_IP_MAX 46
void wh_conn_client_ip(struct MHD_Connection *conn, char *out, size_t outsz);

#endif
