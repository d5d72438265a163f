#ifndef WH_CERTS_SELFCALL_H
#define WH_CERTS_SELFCALL_H

/* The self-call behind /readyz (issue 10): before a replica calls itself ready, it calls its
 * own HTTPS listener the way the API server will, through what the cluster's configuration
 * says -- the caBundle of an entry, and the name the entry calls (its URL's host, or
 * <service>.<namespace>.svc) -- and reads every certificate as Go's crypto/x509 would
 * (strict DER, certs/der.h). Caught this way: a caBundle or serving certificate the API
 * server cannot parse, a caBundle that does not trust the served certificate, a certificate
 * not valid for the called name, a path not served. The call connects to this replica's own
 * port whatever the name resolves to (in service mode the Service has no ready endpoint yet).
 * It is a GET, which every served path answers 405 without running a handler.
 * Thread rule: thread-safe (no shared state; libcurl initialised by main). */

#include <stddef.h>

#include "util/err.h"

struct wh_certs_selfcall {
    const char *ca_bundle; /* PEM text: the entry's decoded caBundle */
    size_t ca_bundle_len;
    const char *name;         /* the name the API server verifies (host, IP, "[v6]") */
    const char *path;         /* the entry's path */
    const char *connect_host; /* where this replica listens: an IP literal */
    int port;                 /* its HTTPS port */
    long timeout_ms;          /* 0: 5 s */
};

/* Makes the call. WH_OK when the server answered the path as served (405 to the GET).
 * Otherwise eb says what the API server would have met: WH_ERR_PARSE (a certificate it cannot
 * read, with the DER rule broken), WH_ERR_TLS (trust or name), WH_ERR_NOT_FOUND (404: path
 * not served), WH_ERR_IO (no connection). */
WH_NODISCARD enum wh_err wh_certs_selfcall(const struct wh_certs_selfcall *call,
                                           struct wh_errbuf *eb);

#endif
