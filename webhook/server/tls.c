#include "server/tls.h"

#include <gnutls/x509.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
