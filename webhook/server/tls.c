#include "server/tls.h"

#include <errno.h>
#include <gnutls/x509.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "certs/fs_store.h"
#include "gocompat/gotime.h"
#include "log/log.h"
#include "metrics/metrics.h"
#include "util/buf.h"
#include "util/mem.h"
#include "util/time.h"

#define MAX_CHAIN 8
/* Far longer than any handshake can take (the connection timeout bounds it). */
#define RETIRE_GRACE_NS (300LL * 1000000000)

struct generation {
    gnutls_pcert_st chain[MAX_CHAIN];
    unsigned int chain_len;
    gnutls_privkey_t key;
    char *cert_pem, *key_pem;
    size_t cert_len, key_len;
    char serial[80];
    time_t not_after;
    int64_t retired_at;
    struct generation *next_retired;
};

static char *cert_dir;
static _Atomic(struct generation *) current;
static struct generation *retired; /* touched only by reloads, which are serialised */
static pthread_mutex_t reload_lock = PTHREAD_MUTEX_INITIALIZER;

static pthread_t watch_thread;
static bool watching;
static pthread_mutex_t watch_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t watch_cv = PTHREAD_COND_INITIALIZER;
static bool watch_stop;
static long long watch_interval_ms;

static struct wh_metric *m_reloads, *m_reload_errors;

/* Failed handshakes (wh_tls_handshake_failed), by what the client did. */
enum failure { F_UNTRUSTED, F_ALERT, F_CLOSED, F_COUNT };
static struct wh_metric *m_failed[F_COUNT];

/* What the client of this thread's last TLS read sent. libmicrohttpd runs a connection's
 * handshake on one thread and reports its failure on that thread right after gnutls_handshake
 * returns, so the failure report finds here the record that ended it. gnutls reads a record
 * in two reads, its 5-byte header and then its body. */
static _Thread_local struct {
    int fd;
    ssize_t n;             /* the last recv: bytes, 0 at EOF, -1 on error */
    unsigned char hdr[5];  /* the last record header read */
    unsigned char body[2]; /* the start of the body read after it */
    size_t body_len;
    int64_t at_ns;
} last_read = {.fd = -1};

static void gen_free(struct generation *g)
{
    if (!g)
        return;
    for (unsigned i = 0; i < g->chain_len; i++)
        gnutls_pcert_deinit(&g->chain[i]);
    if (g->key)
        gnutls_privkey_deinit(g->key);
    free(g->cert_pem);
    free(g->key_pem);
    free(g);
}

static double not_after_gauge(void *arg)
{
    (void)arg;
    struct generation *g = atomic_load(&current);
    return g ? (double)g->not_after : 0;
}

enum wh_err wh_tls_init(const char *dir)
{
    cert_dir = wh_xstrdup(dir);
    m_reloads = wh_metrics_counter("kruise_webhook_certificate_reloads_total",
                                   "Serving certificates loaded from the cert dir.", NULL);
    m_reload_errors =
        wh_metrics_counter("kruise_webhook_certificate_reload_errors_total",
                           "Attempts to load a changed serving certificate that failed.", NULL);
    static const char *const reasons[F_COUNT] = {
        [F_UNTRUSTED] = "certificate_refused", [F_ALERT] = "client_alert", [F_CLOSED] = "closed"};
    for (int i = 0; i < F_COUNT; i++) {
        char labels[64];
        wh_metrics_labels(labels, sizeof(labels), "reason", reasons[i], NULL);
        m_failed[i] = wh_metrics_counter(
            "kruise_webhook_tls_handshake_failures_total",
            "TLS handshakes that failed: the client refused the certificate, sent another "
            "alert, or closed the connection first.",
            labels);
    }
    wh_metrics_gauge_fn("kruise_webhook_certificate_not_after_seconds",
                        "Expiry (unix time) of the serving certificate in use.", NULL,
                        not_after_gauge, NULL);
    return WH_OK;
}

void wh_tls_fini(void)
{
    gen_free(atomic_exchange(&current, NULL));
    while (retired) {
        struct generation *n = retired->next_retired;
        gen_free(retired);
        retired = n;
    }
    free(cert_dir);
    cert_dir = NULL;
    memset(m_failed, 0, sizeof(m_failed));
}

bool wh_tls_loaded(void)
{
    return atomic_load(&current) != NULL;
}

bool wh_tls_current_info(char *serial, size_t serialsz, time_t *not_after)
{
    /* Generations are freed only after the grace period, so a loaded pointer stays valid here. */
    struct generation *g = atomic_load(&current);
    if (!g)
        return false;
    snprintf(serial, serialsz, "%s", g->serial);
    *not_after = g->not_after;
    return true;
}

/* The transport's read, as gnutls's own (recv on the descriptor), noting what came. */
static ssize_t watched_pull(gnutls_transport_ptr_t ptr, void *buf, size_t len)
{
    int fd = (int)(intptr_t)ptr;
    ssize_t n = recv(fd, buf, len, 0);
    int saved = errno;
    const unsigned char *p = buf;
    if (fd != last_read.fd) {
        memset(last_read.hdr, 0, sizeof(last_read.hdr));
        last_read.body_len = 0;
    }
    last_read.fd = fd;
    last_read.n = n;
    last_read.at_ns = wh_time_mono_ns();
    if (n == 5) {
        memcpy(last_read.hdr, p, 5);
        last_read.body_len = 0;
    } else if (n > 5 && p[0] >= 20 && p[0] <= 23 && p[1] == 3 &&
               (size_t)n == 5 + ((size_t)p[3] << 8 | p[4])) {
        memcpy(last_read.hdr, p, 5); /* a whole record in one read */
        last_read.body_len =
            (size_t)n - 5 < sizeof(last_read.body) ? (size_t)n - 5 : sizeof(last_read.body);
        memcpy(last_read.body, p + 5, last_read.body_len);
    } else if (n > 0) {
        last_read.body_len =
            (size_t)n < sizeof(last_read.body) ? (size_t)n : sizeof(last_read.body);
        memcpy(last_read.body, p, last_read.body_len);
    }
    errno = saved;
    return n;
}

/* A connection's writes. libmicrohttpd 0.9.75 sends an answer's head and its body with two
 * gnutls_record_send calls (mhd_send.c sends no vector over TLS), so each answer cost two TLS
 * records in two sendmsg. The head's record is held here instead and leaves with the body's
 * first record in one sendmsg: half the send calls per answer. A head is held only when
 * wh_tls_hold_head says a body follows it, and held bytes always go out first at the next
 * push, so nothing waits for anything but the body that comes next. */
#define HELD_MAX 1024 /* an answer's head is a few hundred bytes */
#define JOIN_IOV 16

struct wh_tls_conn {
    int fd;
    bool hold;         /* the next push is an answer's head: keep it */
    size_t held, sent; /* bytes held, and how many of them are out */
    unsigned char buf[HELD_MAX];
};

static ssize_t joining_push(gnutls_transport_ptr_t ptr, const giovec_t *iov, int iovcnt)
{
    struct wh_tls_conn *c = ptr;
    size_t total = 0;
    for (int i = 0; i < iovcnt; i++)
        total += iov[i].iov_len;
    if (c->hold && c->held == 0 && total <= sizeof(c->buf)) {
        c->hold = false;
        for (int i = 0; i < iovcnt; i++) {
            memcpy(c->buf + c->held, iov[i].iov_base, iov[i].iov_len);
            c->held += iov[i].iov_len;
        }
        return (ssize_t)total;
    }
    c->hold = false;
    struct iovec v[JOIN_IOV];
    int n = 0;
    size_t pending = c->held - c->sent;
    if (pending)
        v[n++] = (struct iovec){.iov_base = c->buf + c->sent, .iov_len = pending};
    /* A push may take less than it is offered: what does not fit comes again. */
    for (int i = 0; i < iovcnt && n < JOIN_IOV; i++)
        v[n++] = (struct iovec){.iov_base = iov[i].iov_base, .iov_len = iov[i].iov_len};
    struct msghdr m = {.msg_iov = v, .msg_iovlen = (size_t)n};
    ssize_t w = sendmsg(c->fd, &m, MSG_NOSIGNAL);
    if (w < 0 || !pending)
        return w;
    if ((size_t)w < pending) {
        c->sent += (size_t)w; /* the socket is full: the rest goes with the next try */
        errno = EAGAIN;
        return -1;
    }
    c->held = c->sent = 0;
    w -= (ssize_t)pending;
    if (w == 0 && total > 0) {
        errno = EAGAIN;
        return -1;
    }
    return w;
}

struct wh_tls_conn *wh_tls_watch_session(gnutls_session_t session)
{
    struct wh_tls_conn *c = wh_xcalloc(1, sizeof(*c));
    c->fd = gnutls_transport_get_int(session);
    /* gnutls reads through this from the first byte of the handshake on (MHD sets the
     * descriptor as the transport; the pull is gnutls's default, recv). Writes go through
     * joining_push, which has the connection's state as its transport pointer. */
    gnutls_transport_set_pull_function(session, watched_pull);
    gnutls_transport_set_ptr2(session, (gnutls_transport_ptr_t)(intptr_t)c->fd, c);
    gnutls_transport_set_vec_push_function(session, joining_push);
    return c;
}

void wh_tls_hold_head(gnutls_session_t session)
{
    gnutls_transport_ptr_t recv_ptr = NULL, send_ptr = NULL;
    gnutls_transport_get_ptr2(session, &recv_ptr, &send_ptr);
    if (send_ptr && send_ptr != recv_ptr)
        ((struct wh_tls_conn *)send_ptr)->hold = true;
}

/* libmicrohttpd 0.9.75 sends an answer's body right after its head, in the same pass of its
 * event loop, with one gnutls_record_send (mhd_send.c, MHD_send_hdr_and_body_), and gnutls sends
 * one record, at most 16 KiB, per call: the rest of a 182 KB /convert answer waited for the
 * following passes, and each pass first answers the other connections' complete requests. So
 * under 32 connections every answer waited in memory while a dozen others were parsed and
 * converted (make bench-rss: 13.5 answers waiting, on average, when one was queued; 6.2 with
 * this). This definition takes MHD's calls (the executable's symbol comes before the library's
 * for the libraries it links) and, on the sessions this server watches (wh_tls_watch_session),
 * sends record after record until the data is out or the socket is full, as send() does on a
 * plain socket. A count short of what was offered is what send() may return too: MHD offers
 * the rest again, from the byte after the last record that left; a record that met a full
 * socket (GNUTLS_E_AGAIN, GNUTLS_E_INTERRUPTED) is kept by gnutls, which flushes it first at
 * that next call, which starts at that record's first byte, as gnutls asks. Sessions this
 * server does not watch (libldap's, say) get gnutls's own single record. */
#define SEND_PASS_MAX (1024 * 1024) /* bytes per call: no one answer holds a worker for long */

ssize_t gnutls_record_send(gnutls_session_t session, const void *data, size_t size)
{
    gnutls_transport_ptr_t recv_ptr = NULL, send_ptr = NULL;
    gnutls_transport_get_ptr2(session, &recv_ptr, &send_ptr);
    if (!send_ptr || send_ptr == recv_ptr || !data)
        return gnutls_record_send2(session, data, size, 0, 0);
    const char *p = data;
    size_t total = 0;
    while (total < size && total < SEND_PASS_MAX) {
        ssize_t w = gnutls_record_send2(session, p + total, size - total, 0, 0);
        if (w <= 0)
            return total ? (ssize_t)total : w;
        total += (size_t)w;
    }
    return (ssize_t)total;
}

static bool refuses_certificate(int desc)
{
    switch (desc) {
    case GNUTLS_A_BAD_CERTIFICATE:
    case GNUTLS_A_UNSUPPORTED_CERTIFICATE:
    case GNUTLS_A_CERTIFICATE_REVOKED:
    case GNUTLS_A_CERTIFICATE_EXPIRED:
    case GNUTLS_A_CERTIFICATE_UNKNOWN:
    case GNUTLS_A_UNKNOWN_CA:
        return true;
    default:
        return false;
    }
}

/* " from 10.0.0.7:51234", or "" when the peer is unknown. */
static void peer_of(int fd, char *buf, size_t bufsz)
{
    struct sockaddr_storage ss;
    socklen_t len = sizeof(ss);
    char host[INET6_ADDRSTRLEN] = "", port[8] = "";
    buf[0] = '\0';
    if (fd < 0 || getpeername(fd, (struct sockaddr *)&ss, &len) != 0 ||
        getnameinfo((struct sockaddr *)&ss, len, host, sizeof(host), port, sizeof(port),
                    NI_NUMERICHOST | NI_NUMERICSERV) != 0)
        return;
    snprintf(buf, bufsz, " from %s%s%s:%s", ss.ss_family == AF_INET6 ? "[" : "", host,
             ss.ss_family == AF_INET6 ? "]" : "", port);
}

void wh_tls_handshake_failed(void)
{
    char peer[96] = "", serial[80] = "?";
    time_t not_after = 0;
    enum failure f = F_CLOSED;
    int desc = -1;
    /* Read by this very handshake, microseconds ago; anything older belongs to another. */
    bool fresh = last_read.fd >= 0 && wh_time_mono_ns() - last_read.at_ns < 1000000000LL;
    if (fresh) {
        peer_of(last_read.fd, peer, sizeof(peer));
        const unsigned char *h = last_read.hdr;
        size_t rec_len = (size_t)h[3] << 8 | h[4];
        if (last_read.n > 0 && h[0] == 21 && rec_len == 2 && last_read.body_len == 2) {
            desc = last_read.body[1]; /* a plaintext alert (before encryption, or TLS 1.2) */
            f = refuses_certificate(desc) ? F_UNTRUSTED : F_ALERT;
        } else if (last_read.n > 0 && h[0] == 23 && rec_len > 0 && rec_len <= 40) {
            /* TLS 1.3: an encrypted record this small ending the handshake after the client
             * got our certificate is an alert (2 bytes, type, AEAD tag). Go's crypto/tls (the
             * API server) sends one when it cannot verify the certificate. */
            f = F_UNTRUSTED;
        } else if (last_read.n > 0) {
            f = F_ALERT;
        }
    }
    last_read.fd = -1;
    wh_tls_current_info(serial, sizeof(serial), &not_after);
    if (m_failed[f]) /* NULL before wh_tls_init (a listener started without it: tests) */
        wh_metric_add(m_failed[f], 1);
    if (f == F_UNTRUSTED) {
        char alert[64] = "an encrypted alert";
        if (desc >= 0)
            snprintf(alert, sizeof(alert), "alert %s",
                     gnutls_alert_get_name((gnutls_alert_description_t)desc));
        WH_LOG_EVERY(10, WH_LOG_WARN,
                     "TLS handshake%s failed: the client refused this server's certificate "
                     "(serial %s; it sent %s): it does not trust the CA that signed it, or the "
                     "certificate does not name the host it called. From the API server this "
                     "means a caBundle that does not trust this server: its requests fail "
                     "(libmicrohttpd reports this as \"received handshake message out of "
                     "context\")",
                     peer, serial, alert);
    } else if (f == F_ALERT) {
        WH_LOG_EVERY(10, WH_LOG_WARN,
                     "TLS handshake%s failed: the client sent %s%s (no TLS version, cipher or "
                     "group in common, or not TLS at all)",
                     peer, desc >= 0 ? "alert " : "something this server cannot use",
                     desc >= 0 ? gnutls_alert_get_name((gnutls_alert_description_t)desc) : "");
    } else {
        WH_LOG_EVERY(60, WH_LOG_INFO,
                     "TLS handshake%s failed: the client closed the connection first (a TCP "
                     "probe, or a client stopping, such as an API server that restarts); no "
                     "request was lost. Counted in "
                     "kruise_webhook_tls_handshake_failures_total{reason=\"closed\"}",
                     peer);
    }
}

int wh_tls_cert_callback(gnutls_session_t session, const gnutls_datum_t *req_ca_dn, int nreqs,
                         const gnutls_pk_algorithm_t *pk_algos, int pk_algos_length,
                         gnutls_pcert_st **pcert, unsigned int *pcert_length,
                         gnutls_privkey_t *pkey)
{
    (void)session;
    (void)req_ca_dn;
    (void)nreqs;
    (void)pk_algos;
    (void)pk_algos_length;
    struct generation *g = atomic_load(&current);
    if (!g)
        return -1; /* no certificate yet: the handshake fails, the server is not ready */
    *pcert = g->chain;
    *pcert_length = g->chain_len;
    *pkey = g->key;
    return 0;
}

/* Both files from one generation of the cert dir (a kubelet swap between two opens would
 * otherwise pair an old certificate with a new key). */
static enum wh_err read_pair(char **cert, size_t *cert_len, char **key, size_t *key_len,
                             struct wh_errbuf *eb)
{
    return wh_certs_fs_read_serving(cert_dir, cert, cert_len, key, key_len, eb);
}

static enum wh_err key_id(gnutls_pubkey_t pub, unsigned char *id, size_t *len)
{
    return gnutls_pubkey_get_key_id(pub, GNUTLS_KEYID_USE_SHA256, id, len) < 0 ? WH_ERR_TLS : WH_OK;
}

/* The private key must belong to the first certificate of the chain. */
static enum wh_err check_match(struct generation *g, struct wh_errbuf *eb)
{
    enum wh_err rc = WH_OK;
    gnutls_pubkey_t from_key = NULL;
    unsigned char a[64], b[64];
    size_t alen = sizeof(a), blen = sizeof(b);
    if (gnutls_pubkey_init(&from_key) < 0 ||
        gnutls_pubkey_import_privkey(from_key, g->key, 0, 0) < 0) {
        rc = wh_errbuf_set(eb, WH_ERR_TLS, "cannot read the public half of the private key");
        goto out;
    }
    if (key_id(from_key, a, &alen) || key_id(g->chain[0].pubkey, b, &blen) || alen != blen ||
        memcmp(a, b, alen) != 0)
        rc = wh_errbuf_set(eb, WH_ERR_TLS, "the private key does not match the certificate");
out:
    if (from_key)
        gnutls_pubkey_deinit(from_key);
    return rc;
}

static void read_details(struct generation *g)
{
    gnutls_x509_crt_t crt = NULL;
    if (gnutls_x509_crt_init(&crt) < 0)
        return;
    if (gnutls_x509_crt_import(crt, &g->chain[0].cert, GNUTLS_X509_FMT_DER) >= 0) {
        unsigned char serial[40];
        size_t n = sizeof(serial);
        if (gnutls_x509_crt_get_serial(crt, serial, &n) >= 0) {
            for (size_t i = 0; i < n && 2 * i + 2 < sizeof(g->serial); i++)
                snprintf(g->serial + 2 * i, 3, "%02x", serial[i]);
        }
        g->not_after = gnutls_x509_crt_get_expiration_time(crt);
    }
    gnutls_x509_crt_deinit(crt);
}

static enum wh_err build_generation(char *cert, size_t cert_len, char *key, size_t key_len,
                                    struct generation **out, struct wh_errbuf *eb)
{
    enum wh_err rc = WH_OK;
    struct generation *g = wh_xcalloc(1, sizeof(*g));
    g->cert_pem = cert;
    g->cert_len = cert_len;
    g->key_pem = key;
    g->key_len = key_len;
    gnutls_datum_t cd = {(unsigned char *)cert, (unsigned int)cert_len};
    gnutls_datum_t kd = {(unsigned char *)key, (unsigned int)key_len};
    g->chain_len = MAX_CHAIN;
    int grc =
        gnutls_pcert_list_import_x509_raw(g->chain, &g->chain_len, &cd, GNUTLS_X509_FMT_PEM, 0);
    if (grc < 0 || g->chain_len == 0) {
        g->chain_len = 0;
        rc =
            wh_errbuf_set(eb, WH_ERR_TLS, "cannot parse the certificate: %s", gnutls_strerror(grc));
        goto out;
    }
    grc = gnutls_privkey_init(&g->key);
    if (grc >= 0)
        grc = gnutls_privkey_import_x509_raw(g->key, &kd, GNUTLS_X509_FMT_PEM, NULL, 0);
    if (grc < 0) {
        rc =
            wh_errbuf_set(eb, WH_ERR_TLS, "cannot parse the private key: %s", gnutls_strerror(grc));
        goto out;
    }
    rc = check_match(g, eb);
    if (rc)
        goto out;
    read_details(g);
    *out = g;
    g = NULL;
out:
    gen_free(g);
    return rc;
}

static void free_expired_retired(int64_t now)
{
    struct generation **pp = &retired;
    while (*pp) {
        struct generation *g = *pp;
        if (now - g->retired_at > RETIRE_GRACE_NS) {
            *pp = g->next_retired;
            gen_free(g);
        } else {
            pp = &g->next_retired;
        }
    }
}

enum wh_err wh_tls_reload(bool *changed, struct wh_errbuf *eb)
{
    enum wh_err rc = WH_OK;
    char *cert = NULL, *key = NULL;
    size_t cert_len = 0, key_len = 0;
    *changed = false;
    pthread_mutex_lock(&reload_lock);
    free_expired_retired(wh_time_mono_ns());
    rc = read_pair(&cert, &cert_len, &key, &key_len, eb);
    if (rc)
        goto out;
    struct generation *cur = atomic_load(&current);
    if (cur && cur->cert_len == cert_len && cur->key_len == key_len &&
        memcmp(cur->cert_pem, cert, cert_len) == 0 && memcmp(cur->key_pem, key, key_len) == 0)
        goto out; /* unchanged */
    struct generation *g = NULL;
    rc = build_generation(cert, cert_len, key, key_len, &g, eb);
    cert = key = NULL; /* owned by the generation, or freed with it */
    if (rc) {
        wh_metric_add(m_reload_errors, 1);
        goto out;
    }
    struct generation *old = atomic_exchange(&current, g);
    if (old) {
        old->retired_at = wh_time_mono_ns();
        old->next_retired = retired;
        retired = old;
    }
    wh_metric_add(m_reloads, 1);
    *changed = true;
    char when[WH_GOTIME_MAX];
    wh_gotime_format((struct wh_gotime){(int64_t)g->not_after, 0}, WH_GOTIME_RFC3339, when,
                     sizeof(when));
    wh_log(WH_LOG_INFO, "serving certificate loaded from %s (serial %s, expires %s)", cert_dir,
           g->serial, when);
out:
    pthread_mutex_unlock(&reload_lock);
    free(cert);
    free(key);
    return rc;
}

static void *watch_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&watch_mu);
    while (!watch_stop) {
        struct timespec deadline;
        clock_gettime(CLOCK_REALTIME, &deadline);
        deadline.tv_sec += watch_interval_ms / 1000;
        deadline.tv_nsec += (watch_interval_ms % 1000) * 1000000;
        if (deadline.tv_nsec >= 1000000000) {
            deadline.tv_sec++;
            deadline.tv_nsec -= 1000000000;
        }
        pthread_cond_timedwait(&watch_cv, &watch_mu, &deadline);
        if (watch_stop)
            break;
        pthread_mutex_unlock(&watch_mu);
        bool changed = false;
        struct wh_errbuf eb = {{0}};
        if (wh_tls_reload(&changed, &eb))
            WH_LOG_EVERY(60, WH_LOG_WARN, "serving certificate not reloaded: %s", eb.msg);
        pthread_mutex_lock(&watch_mu);
    }
    pthread_mutex_unlock(&watch_mu);
    return NULL;
}

enum wh_err wh_tls_watch_start(long long interval_ms)
{
    watch_interval_ms = interval_ms;
    watch_stop = false;
    if (pthread_create(&watch_thread, NULL, watch_main, NULL) != 0)
        return WH_ERR_INTERNAL;
    watching = true;
    return WH_OK;
}

void wh_tls_watch_stop(void)
{
    if (!watching)
        return;
    pthread_mutex_lock(&watch_mu);
    watch_stop = true;
    pthread_cond_signal(&watch_cv);
    pthread_mutex_unlock(&watch_mu);
    pthread_join(watch_thread, NULL);
    watching = false;
}
