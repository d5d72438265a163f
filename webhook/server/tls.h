#ifndef WH_SERVER_TLS_H
#define WH_SERVER_TLS_H

/* The serving certificate, hot-reloaded from the cert dir. The files are tls.crt/tls.key, or
 * cert.pem/key.pem as upstream also writes; the kubelet replaces them by swapping a ..data
 * symlink, so they are re-read every interval and swapped in as a new "generation" when their
 * bytes change and the key matches the certificate. New TLS handshakes get the current
 * generation through the libmicrohttpd certificate callback; no restart, no dropped request.
 * Retired generations are freed only after a grace period, since gnutls documents no lifetime
 * for the pointers the callback returns.
 * Thread rule: a process-wide singleton. wh_tls_init/fini run on the main thread with no server
 * running; the callback runs on any MHD thread; reloads happen on the reload thread (or on the
 * caller of wh_tls_reload). */

#include <gnutls/abstract.h>
#include <gnutls/gnutls.h>
#include <stdbool.h>
#include <time.h>

#include "util/err.h"

WH_NODISCARD enum wh_err wh_tls_init(const char *cert_dir);
void wh_tls_fini(void);

/* Loads the files now if their bytes changed. *changed tells whether a new generation was
 * swapped in. Errors: WH_ERR_IO (missing or unreadable files), WH_ERR_TLS (unparsable, or the key
 * does not match the certificate); the current generation then stays in service. */
WH_NODISCARD enum wh_err wh_tls_reload(bool *changed, struct wh_errbuf *eb);

/* True once a key pair is in service. */
bool wh_tls_loaded(void);

/* Details of the generation in service (false when none). serial is hex. */
bool wh_tls_current_info(char *serial, size_t serialsz, time_t *not_after);

/* Starts / stops the thread that calls wh_tls_reload every interval_ms. */
WH_NODISCARD enum wh_err wh_tls_watch_start(long long interval_ms);
void wh_tls_watch_stop(void);

/* libmicrohttpd reports every failed TLS handshake with the same words, "Error: received
 * handshake message out of context" (MHD_run_tls_handshake_ drops gnutls's error code), though
 * it is almost never about an out-of-context message. Called in its place, on the MHD thread
 * that ran the handshake, this says what happened from what the client sent last (the reads
 * of sessions passed to wh_tls_watch_session): an alert refusing the certificate, or, in TLS
 * 1.3, an encrypted alert after our certificate (WARN: from the API server, its caBundle does
 * not trust us and requests fail); another alert or bytes that are not TLS (WARN); or nothing:
 * the client closed the connection (INFO: probes, an API server that stops). Counted in
 * kruise_webhook_tls_handshake_failures_total{reason}; log lines are rate-limited. */
void wh_tls_handshake_failed(void);

/* Watches a new connection's TLS session for wh_tls_handshake_failed: its reads go through a
 * recv that notes what arrived. Its writes go through a sendmsg that can send an answer's
 * head with its body (wh_tls_hold_head), and libmicrohttpd's gnutls_record_send calls on it
 * send all they are given while the socket takes it, not one record (tls.c says why). Call
 * when the connection starts, on its MHD thread.
 * Returns: new state that the session uses until it is deinitialised; the caller frees it
 * (free) after that, when libmicrohttpd reports the connection closed. */
struct wh_tls_conn;
struct wh_tls_conn *wh_tls_watch_session(gnutls_session_t session);

/* An answer was just queued on session's connection, and libmicrohttpd sends its body right
 * after its head: the head's record is held back and leaves with the body's first record in
 * one sendmsg. Only for answers with a body that is sent (not HEAD, not 1xx/204/304): a held
 * head waits for the next write. Call from the access handler that queued the answer, after
 * MHD_queue_response succeeded. No effect on a session not watched. */
void wh_tls_hold_head(gnutls_session_t session);

/* For MHD_OPTION_HTTPS_CERT_CALLBACK. */
int wh_tls_cert_callback(gnutls_session_t session, const gnutls_datum_t *req_ca_dn, int nreqs,
                         const gnutls_pk_algorithm_t *pk_algos, int pk_algos_length,
                         gnutls_pcert_st **pcert, unsigned int *pcert_length,
                         gnutls_privkey_t *pkey);

#endif
