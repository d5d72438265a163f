#include "certs/controller_int.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/bn.h>
#include <openssl/crypto.h>
#include <openssl/x509.h>

#include "certs/fs_store.h"
#include "certs/pem.h"
#include "certs/report.h"
#include "k8s/kruise.h"
#include "kube/cache.h"
#include "kube/leader.h"
#include "log/log.h"
#include "metrics/metrics.h"
#include "util/json.h"
#include "util/str.h"
#include "util/time.h"

#define MIN_GAP_MS 100
#define ROTATION_POLL_MS 2000
#define BACKOFF_START_MS 5
#define BACKOFF_MAX_MS 30000

/* --- triggers (informer and election threads) ------------------------------------------------- */

void wh_ctl_on_secret(void *arg, const struct wh_object *o, const struct wh_object *old)
{
    struct wh_certs_controller *c = arg;
    const struct wh_object *x = o ? o : old;
    if (!x || strcmp(wh_object_name(x), c->env.secret_name) == 0)
        wh_ctl_trigger(c);
}

void wh_ctl_on_config(void *arg, const struct wh_object *o, const struct wh_object *old)
{
    struct wh_certs_controller *c = arg;
    const struct wh_object *x = o ? o : old;
    if (!x || strcmp(wh_object_name(x), c->cfg->mutating_config_name) == 0 ||
        strcmp(wh_object_name(x), c->cfg->validating_config_name) == 0)
        wh_ctl_trigger(c);
}

void wh_ctl_on_crd(void *arg, const struct wh_object *o, const struct wh_object *old)
{
    struct wh_certs_controller *c = arg;
    const struct wh_object *x = o ? o : old;
    if (!x) {
        wh_ctl_trigger(c);
        return;
    }
    const char *group = wh_json_path_str(wh_ctl_crd_view(x), "spec", "group", NULL);
    if (wh_str_eq(group, WH_KRUISE_APPS) || wh_str_eq(group, WH_KRUISE_POLICY))
        wh_ctl_trigger(c);
}

void wh_ctl_on_leadership(void *arg, bool leading)
{
    (void)leading;
    wh_ctl_trigger(arg);
}

/* --- one sync -------------------------------------------------------------------------------- */

static void set_error(struct wh_certs_controller *c, const char *msg)
{
    pthread_mutex_lock(&c->mu);
    snprintf(c->st.last_error, sizeof(c->st.last_error), "%s", msg ? msg : "");
    pthread_mutex_unlock(&c->mu);
}

/* The serial of the first certificate of cert.pem, normalised ("" when unreadable). */
static void bundle_serial(const struct wh_certs_bundle *b, char *out, size_t outsz)
{
    size_t len = 0;
    const char *pem = wh_certs_bundle_get(b, WH_CERTS_CERT, &len);
    X509 *x = NULL;
    out[0] = '\0';
    if (!pem || wh_certs_pem_first_cert(pem, len, &x) != WH_OK)
        return;
    BIGNUM *bn = ASN1_INTEGER_to_BN(X509_get0_serialNumber(x), NULL);
    char *hex = bn ? BN_bn2hex(bn) : NULL;
    if (hex)
        wh_certs_report_serial_norm(hex, out, outsz);
    OPENSSL_free(hex);
    BN_free(bn);
    X509_free(x);
}

static bool is_writer(struct wh_certs_controller *c)
{
    if (c->mode == WH_CERTS_WRITER_EXTERNAL)
        return false;
    /* Each replica's cert dir is its own store in fs mode: nothing to elect (CERT-81). */
    if (c->mode == WH_CERTS_WRITER_FS || !c->cfg->leader_elect)
        return true;
    return c->leader && wh_leader_is_leader(c->leader);
}

bool wh_ctl_caches_synced(struct wh_certs_controller *c, struct wh_errbuf *eb)
{
    struct wh_cache *caches[] = {c->secrets, c->mutating, c->validating, c->crds};
    for (size_t i = 0; i < sizeof(caches) / sizeof(caches[0]); i++) {
        if (caches[i] && !wh_cache_synced(caches[i])) {
            wh_errbuf_set(eb, WH_ERR_NOT_SYNCED, "waiting for the informer caches");
            return false;
        }
    }
    return true;
}

static void update_metrics(struct wh_certs_controller *c, int cas)
{
    time_t t = 0;
    if (wh_certs_bundle_not_after(c->current, WH_CERTS_CA_CERT, &t) == WH_OK)
        wh_metric_set(c->m.not_after_ca, (double)t);
    if (wh_certs_bundle_not_after(c->current, WH_CERTS_CERT, &t) == WH_OK)
        wh_metric_set(c->m.not_after_serving, (double)t);
    wh_metric_set(c->m.bundle_cas, cas);
}

/* The rotation's end, once it may come: the Secret loses its previous-CA annotations (a
 * conflict means someone else wrote it: the next sync decides), then the caBundles the old
 * CAs. *done tells whether they went. */
static enum wh_err finish_rotation(struct wh_certs_controller *c, bool *done, struct wh_errbuf *eb)
{
    bool may = false, expired = false;
    *done = false;
    enum wh_err rc = wh_ctl_rotation_may_end(c, &may, &expired, eb);
    if (rc || !may)
        return rc;
    if (c->mode == WH_CERTS_WRITER_SECRET) {
        rc = wh_ctl_secret_end_rotation(c, eb);
        if (rc)
            return rc == WH_ERR_CONFLICT ? WH_OK : rc;
    }
    rc = wh_ctl_rotation_end(c, expired, eb);
    *done = rc == WH_OK;
    return rc;
}

static enum wh_err sync_once(struct wh_certs_controller *c, struct wh_errbuf *eb)
{
    struct wh_ctl_store_result res = {0};
    enum wh_err rc = WH_OK;
    char *bundle = NULL;
    size_t len = 0;
    int cas = 0;
    bool writer = is_writer(c);

    wh_metric_set(c->m.writer, writer);
    if (!wh_ctl_caches_synced(c, eb))
        return WH_ERR_NOT_SYNCED;
    switch (c->mode) {
    case WH_CERTS_WRITER_SECRET:
        rc = writer ? wh_ctl_secret_writer(c, &res, eb) : wh_ctl_secret_reader(c, &res, eb);
        break;
    case WH_CERTS_WRITER_FS:
        rc = wh_ctl_fs_writer(c, &res, eb);
        break;
    case WH_CERTS_WRITER_EXTERNAL:
        rc = wh_ctl_external_reader(c, &res, eb);
        break;
    }
    if (rc)
        goto out;
    bool changed = false;
    rc = wh_certs_fs_write(c->env.cert_dir, res.bundle, &changed, eb);
    if (rc)
        goto out;
    c->dir_mark = wh_certs_fs_fingerprint(c->env.cert_dir);
    c->dir_marked = true;
    wh_certs_bundle_free(c->current);
    c->current = res.bundle;
    res.bundle = NULL;
    free(c->previous);
    c->previous = res.previous;
    res.previous = NULL;
    c->previous_since = res.since;
    bundle_serial(c->current, c->serial, sizeof(c->serial));
    if (changed)
        wh_log(WH_LOG_INFO, "wrote certificates (serial %s) to %s", c->serial, c->env.cert_dir);

    /* What clients must trust: the current CA, and old ones while a rotation lasts. */
    char *others = NULL;
    size_t others_len = 0, ca_len = 0;
    const char *ca = wh_certs_bundle_get(c->current, WH_CERTS_CA_CERT, &ca_len);
    if (c->previous)
        wh_certs_inject_other_cas(c->previous, strlen(c->previous), ca, ca_len,
                                  (long long)time(NULL), &others, &others_len);
    bundle = wh_ctl_bundle_with(c->current, others, &len);
    free(others);

    if (c->mode == WH_CERTS_WRITER_EXTERNAL) {
        rc = wh_ctl_verify_all(c, ca, ca_len, true, eb);
    } else if (writer) {
        rc = wh_ctl_inject_all(c, bundle, len, eb);
    } else {
        rc = wh_ctl_verify_all(c, ca, ca_len, false, eb);
        if (rc)
            rc = WH_ERR_NOT_SYNCED; /* the writer has not published our CA yet */
    }
    /* Whether the caBundles trust what we serve: verified, or just written. */
    wh_metric_set(c->m.trusted, rc == WH_OK);
    if (rc)
        goto out;
    c->rotation_pending = false;
    if (writer && c->previous) {
        bool done = false;
        rc = finish_rotation(c, &done, eb);
        if (rc)
            goto out;
        c->rotation_pending = !done;
    }
    cas = c->previous ? wh_certs_inject_count_cas(bundle, len)
                      : wh_certs_inject_count_cas(ca, ca_len);
    update_metrics(c, cas);
out:
    wh_ctl_store_result_fini(&res);
    free(bundle);
    pthread_mutex_lock(&c->mu);
    c->st.writer = writer;
    c->st.rotating = c->previous != NULL;
    if (!rc)
        c->st.bundle_cas = cas;
    snprintf(c->st.serial, sizeof(c->st.serial), "%s", c->serial);
    if (rc)
        c->st.failures++;
    else
        c->st.syncs++;
    pthread_mutex_unlock(&c->mu);
    return rc;
}

enum wh_err wh_ctl_sync(struct wh_certs_controller *c, struct wh_errbuf *eb)
{
    enum wh_err rc = sync_once(c, eb);
    c->synced_ok = rc == WH_OK;
    wh_metric_add(rc ? c->m.sync_err : c->m.sync_ok, 1);
    set_error(c, rc ? eb->msg : "");
    /* Retries come fast: a problem is logged when it changes, and again every 30 s. */
    int64_t now = wh_time_mono_ns();
    if (rc && (strcmp(eb->msg, c->logged_error) != 0 || now - c->logged_ns > 30000 * WH_CTL_MS)) {
        if (rc == WH_ERR_NOT_SYNCED)
            wh_log(WH_LOG_INFO, "certificates: %s", eb->msg);
        else
            wh_log(WH_LOG_WARN, "certificate sync failed: %s", eb->msg);
        snprintf(c->logged_error, sizeof(c->logged_error), "%s", eb->msg);
        c->logged_ns = now;
    } else if (!rc) {
        c->logged_error[0] = '\0';
    }
    return rc;
}

/* --- the thread ------------------------------------------------------------------------------ */

/* What initialisation waits for, when the last sync succeeded: readiness and a start-up that
 * times out then say that, not just "not initialized". */
static void note_wait(struct wh_certs_controller *c, bool have, const char *own)
{
    pthread_mutex_lock(&c->mu);
    if (!have)
        snprintf(c->wait_reason, sizeof(c->wait_reason),
                 "the HTTPS server presents no certificate yet (it reads %s every %lld ms)",
                 c->env.cert_dir, c->cfg->cert_reload_interval_ms);
    else
        snprintf(c->wait_reason, sizeof(c->wait_reason),
                 "the HTTPS server presents certificate %s, not %s that the last sync wrote to %s",
                 own, c->serial, c->env.cert_dir);
    pthread_mutex_unlock(&c->mu);
}

/* Work that is cheap and runs at every wake-up: initialisation once the HTTPS server presents
 * what the last sync wrote (CERT-72's proof, made in process), the serving report, and a look
 * at the cert dir: anyone may delete or rewrite it, and the HTTPS server re-reads it every
 * --cert-reload-interval, so the controller looks as often (this thread wakes at least that
 * often) instead of finding out at the next resync. */
void wh_ctl_tick(struct wh_certs_controller *c)
{
    char own[80];
    bool have = wh_ctl_serving_serial(c, own, sizeof(own));
    if (c->dir_marked && wh_certs_fs_fingerprint(c->env.cert_dir) != c->dir_mark) {
        c->dir_marked = false; /* one trigger; the sync marks it again */
        wh_log(WH_LOG_WARN, "cert dir %s was changed or deleted by someone else: syncing now",
               c->env.cert_dir);
        wh_ctl_trigger(c);
    }
    if (!atomic_load(&c->initialized) && c->synced_ok && c->serial[0] &&
        (!have || strcmp(own, c->serial) != 0))
        note_wait(c, have, own);
    if (!atomic_load(&c->initialized) && c->synced_ok && c->serial[0] && have &&
        strcmp(own, c->serial) == 0) {
        pthread_mutex_lock(&c->mu);
        atomic_store(&c->initialized, true);
        c->st.initialized = true;
        pthread_cond_broadcast(&c->cv);
        pthread_mutex_unlock(&c->mu);
        wh_metric_set(c->m.initialized, 1);
        wh_log(WH_LOG_INFO, "certificate controller initialised: serving certificate %s for %s",
               c->serial, c->dns_name);
    }
    if (c->report && have) {
        struct wh_errbuf eb = {{0}};
        if (wh_certs_report_publish(c->report, own, false, &eb))
            WH_LOG_EVERY(60, WH_LOG_WARN, "%s", eb.msg);
    }
    wh_ctl_selfcall_tick(c);
}

void *wh_ctl_main(void *arg)
{
    struct wh_certs_controller *c = arg;
    int64_t next_sync = wh_time_mono_ns(), last_sync = 0;
    for (;;) {
        struct timespec ts;
        int64_t now = wh_time_mono_ns();
        bool settled =
            atomic_load(&c->initialized) && (atomic_load(&c->called) || !c->hooks.https_port);
        int64_t tick_ms = settled ? 1000 : 200;
        if (c->cfg->cert_reload_interval_ms > 0 && c->cfg->cert_reload_interval_ms < tick_ms)
            tick_ms = c->cfg->cert_reload_interval_ms;
        int64_t tick_ns = tick_ms * WH_CTL_MS;
        int64_t wake = next_sync < now + tick_ns ? next_sync : now + tick_ns;
        pthread_mutex_lock(&c->mu);
        if (!c->stop && !c->trigger && wake > now) {
            wh_ctl_deadline_after(&ts, wake - now);
            pthread_cond_timedwait(&c->cv, &c->mu, &ts);
        }
        bool stop = c->stop, trig = c->trigger;
        c->trigger = false;
        pthread_mutex_unlock(&c->mu);
        if (stop)
            break;
        now = wh_time_mono_ns();
        if (trig) {
            int64_t earliest = last_sync + MIN_GAP_MS * WH_CTL_MS;
            if (next_sync > earliest)
                next_sync = earliest > now ? earliest : now;
        }
        wh_ctl_tick(c);
        now = wh_time_mono_ns();
        if (now < next_sync)
            continue;
        struct wh_errbuf eb = {{0}};
        last_sync = now;
        enum wh_err rc = wh_ctl_sync(c, &eb);
        int64_t delay_ms;
        if (rc) {
            c->backoff_ms = c->backoff_ms ? c->backoff_ms * 2 : BACKOFF_START_MS;
            if (c->backoff_ms > BACKOFF_MAX_MS)
                c->backoff_ms = BACKOFF_MAX_MS;
            delay_ms = c->backoff_ms < MIN_GAP_MS ? MIN_GAP_MS : c->backoff_ms;
        } else {
            c->backoff_ms = 0;
            delay_ms = c->rotation_pending ? ROTATION_POLL_MS : c->cfg->certs_resync_ms;
        }
        next_sync = wh_time_mono_ns() + delay_ms * WH_CTL_MS;
        wh_ctl_tick(c);
    }
    return NULL;
}
