#ifndef WH_SERVER_INTAKE_H
#define WH_SERVER_INTAKE_H

/* Request bodies while they arrive, and what they may take of the request-memory pool
 * (util/reqmem). The rules, so that no client that has not sent its body can keep others from
 * being answered:
 *  - A body takes memory from the pool as its bytes arrive (the caller grows its buffer by
 *    doubling, up to the declared length, and asks for each step), never on the strength of a
 *    Content-Length: a client that declares 3 MB and sends a byte a second holds what it sent.
 *  - Bodies still arriving may hold half the pool between them (the arriving share); the other
 *    half stays for requests whose body is in, to be parsed and answered.
 *  - A client address whose arriving bodies hold no more than its fair share (the arriving
 *    share divided by the addresses with bodies arriving) is never refused for the others:
 *    when the share is full, room is made by closing, through the connection guard, the body
 *    of the address holding most that has waited longest for a byte (counted as
 *    kruise_webhook_connections_closed_total{reason="memory"}). Its memory goes back as soon
 *    as its connection's thread lets the request go.
 *  - An address over its fair share is refused once the share is full, and so is a body the pool
 *    cannot cover: the caller reads the rest of such a body without keeping it and answers 503
 *    once it is in (an answer sent earlier would be lost to the reset of a socket closed with
 *    unread bytes).
 *  - From the headers, the Content-Lengths an address has declared for bodies still arriving
 *    may add up to the arriving share at most; past that its next body is refused from the
 *    start (read, dropped, 503). Nothing is taken for them, so this limits only that address:
 *    many big bodies from one client are told 503, not cut off half way.
 * Bodies of up to WH_REQMEM_SMALL_BODY bytes are not counted at all (util/reqmem.h).
 * Thread rule: thread-safe (one mutex, taken before the connection guard's). A body is opened,
 * grown, completed and released on its connection's thread. */

#include <microhttpd.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "server/conn.h"
#include "util/err.h"

struct wh_intake;

/* One request's body, embedded in the server's request state and zero-initialised. Only this
 * module touches the fields. */
struct wh_intake_body {
    struct wh_intake_body *_prev, *_next; /* in the arriving list */
    struct MHD_Connection *_conn;
    char _ip[WH_CONN_IP_MAX];
    size_t _held;     /* bytes taken from the pool */
    size_t _declared; /* its Content-Length when opened from the headers, else 0 */
    int64_t _last_ns; /* when its memory last grew (a byte arrived) */
    bool _arriving;   /* counted in the arriving share */
    bool _evicted;    /* closed to make room: never grows again */
};

/* guard: the listener's connection guard, which closes evicted bodies' connections. */
WH_NODISCARD enum wh_err wh_intake_new(struct wh_conn_guard *guard, struct wh_intake **out);
/* After the listener has stopped (no body left). Accepts NULL. */
void wh_intake_free(struct wh_intake *in);

/* From the headers: a body of `length` bytes (its Content-Length) starts on conn. false when it
 * could not be held now or its client has declared too much already (the caller answers 503);
 * true: it counts as arriving, with nothing taken yet. */
WH_NODISCARD bool wh_intake_open(struct wh_intake *in, struct wh_intake_body *b,
                                 struct MHD_Connection *conn, size_t length);

enum wh_intake_grant {
    WH_INTAKE_GRANTED,
    WH_INTAKE_REFUSED, /* no room now: nothing more taken; the body no longer arrives here */
    WH_INTAKE_EVICTED, /* closed to make room for others: its connection is being shut down */
};

/* The body on conn now needs `bytes` of memory in all (its buffer's new size): takes what it
 * did not hold yet from the pool. Refused: the caller lets the memory go (wh_intake_release),
 * reads the rest without keeping it and answers 503. */
WH_NODISCARD enum wh_intake_grant wh_intake_grow(struct wh_intake *in, struct wh_intake_body *b,
                                                 struct MHD_Connection *conn, size_t bytes);

/* The body is complete: it leaves the arriving share; its bytes stay taken until
 * wh_intake_release. */
void wh_intake_complete(struct wh_intake *in, struct wh_intake_body *b);

/* The request is over: the body's bytes go back to the pool. b may never have grown. */
void wh_intake_release(struct wh_intake *in, struct wh_intake_body *b);

/* Bytes held by bodies still arriving (kruise_webhook_request_memory_bytes{state="arriving"}). */
size_t wh_intake_arriving(struct wh_intake *in);

#endif
