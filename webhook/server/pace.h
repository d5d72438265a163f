#ifndef WH_SERVER_PACE_H
#define WH_SERVER_PACE_H

/* Pacing of large request bodies on the HTTPS listener's worker threads. A worker reads its
 * connections and answers their requests in turn, so while it answers one the others' bodies
 * wait; left alone it reads every waiting body a little in each pass, and under a load of many
 * connections sending large bodies (32 ConversionReviews of 182 KB) every body sits whole in
 * memory, with its answer after it, before the worker gets to it. Paced, a worker reads at
 * most `per_thread` bytes of bodies over WH_REQMEM_SMALL_BODY at once (counted by their
 * Content-Length; always at least one body); the others' connections are suspended before
 * their first body byte is kept, and their bytes wait in the kernel's socket buffers (TCP
 * holds the client back) until a body of that worker is in. Then they go on in the order they
 * came.
 *
 * A body never waits longer than WH_PACE_MAX_WAIT_MS: a client that sends a large body and
 * stalls holds its worker's turn, so after that long the next body goes on anyway (the
 * request memory pool's rules, server/intake.h, still bound what bodies hold, and the
 * connection guard's read deadline still ends a stalled one). Bodies without a Content-Length
 * (chunked) and bodies the pool refused (read and dropped) are not paced.
 * Thread rule: thread-safe (one mutex, taken before libmicrohttpd's). A body's turn is asked
 * for and ended on its connection's thread; one pacer thread lets overdue bodies go. */

#include <microhttpd.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

#define WH_PACE_MAX_WAIT_MS 500

struct wh_pace;
struct wh_pace_lane;

/* One request's body, embedded in the server's request state and zero-initialised. Only this
 * module touches the fields. */
struct wh_pace_body {
    struct wh_pace_body *_next; /* in its worker's queue while waiting */
    struct MHD_Connection *_conn;
    struct wh_pace_lane *_lane;
    size_t _cost;      /* its Content-Length, while it counts against its worker's bytes */
    int64_t _since_ns; /* when it began to wait */
    int _state;        /* not paced yet, waiting, reading */
};

/* per_thread: bytes of large bodies a worker reads at once (0: no pacing; wh_pace_turn always
 * lets a body go). The HTTPS daemon must have been started with MHD_ALLOW_SUSPEND_RESUME. */
WH_NODISCARD enum wh_err wh_pace_new(size_t per_thread, struct wh_pace **out);
/* After the listener has stopped. Accepts NULL. */
void wh_pace_free(struct wh_pace *p);

/* Before the listener stops: every waiting body goes on now, and later ones never wait (a
 * suspended connection would keep libmicrohttpd from stopping). */
void wh_pace_stop(struct wh_pace *p);

/* The body on conn, declared `length` bytes, has bytes to be read. true: read them. false: not
 * its turn; conn has been suspended, and the caller leaves the bytes unconsumed (libmicrohttpd
 * hands them again when the connection is resumed, and then this returns true). */
WH_NODISCARD bool wh_pace_turn(struct wh_pace *p, struct wh_pace_body *b,
                               struct MHD_Connection *conn, size_t length);

/* The body is in, or the request is over: it counts no more and the next waiting body of its
 * worker may go. Accepts a body that never asked for a turn; calling it twice is harmless. */
void wh_pace_done(struct wh_pace *p, struct wh_pace_body *b);

/* Bodies waiting for their turn now (kruise_webhook_request_bodies_waiting). */
size_t wh_pace_waiting(struct wh_pace *p);
/* Bodies that have waited since the start (kruise_webhook_request_bodies_waited_total). */
unsigned long long wh_pace_waited(struct wh_pace *p);

#endif
