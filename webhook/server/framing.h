#ifndef WH_SERVER_FRAMING_H
#define WH_SERVER_FRAMING_H

/* What RFC 9112 requires of a request's head and libmicrohttpd 0.9.75 does not check, looked at
 * when the headers are complete (the access handler's first call). A request that fails is
 * answered 400 and the connection closed, since a proxy in front could read it otherwise
 * (request smuggling):
 *  - ambiguous framing (6.1, 6.3): two different Content-Length, Content-Length with
 *    Transfer-Encoding, a transfer coding other than chunked; libmicrohttpd takes the first
 *    Content-Length and lets chunked win silently;
 *  - a field name that is not a token (5.1): whitespace before the colon
 *    ("Transfer-Encoding : chunked" was ignored and the body framed by Content-Length);
 *  - a control character in a field value (RFC 9110 5.5: CR, NUL; HTAB is fine);
 *  - obsolete line folding (5.2): libmicrohttpd before 0.9.77 appends the continuation line to
 *    the field's *name*, and cuts a value at a NUL. Both are found by where the fields lie:
 *    that version parses the head in place, each field right after the previous line, so a
 *    name or value anywhere else is one it rewrote (checked only with those versions).
 * Bare LF as a line end is accepted: RFC 9112 2.2 lets a recipient take a single LF for the end
 * of a line, libmicrohttpd does, and nothing above depends on it.
 * Thread rule: any thread (the connection's). */

#include <microhttpd.h>

/* NULL when the head is sound; else what is wrong with it (a static string). method and
 * version are the access handler's. */
const char *wh_framing_problem(struct MHD_Connection *conn, const char *method,
                               const char *version);

#endif
