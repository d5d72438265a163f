#include "certs/controller.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <openssl/bn.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <openssl/x509.h>

#include "certs/bundle.h"
#include "certs/env.h"
#include "certs/fs_store.h"
#include "certs/inject.h"
#include "kube/leader.h"
#include "certs/pem.h"
#include "certs/report.h"
#include "certs/secret.h"
#include "certs/selfcall.h"
#include "certs/store.h"
#include "kube/cache.h"
#include "kube/informer.h"
#include "kube/rmw.h"
#include "log/log.h"
#include "metrics/metrics.h"
#include "util/base64.h"
#include "util/json.h"
#include "util/mem.h"
#include "util/str.h"
#include "util/time.h"

#define MS 1000000LL
#define MIN_GAP_MS 100
#define ROTATION_POLL_MS 2000
#define BACKOFF_START_MS 5
#define BACKOFF_MAX_MS 30000
#define STORE_ROUNDS 8
#define SELFCALL_RETRY_MS 1000
#define SELFCALL_MAX 8 /* distinct (caBundle, name) pairs called; more is never seen */

enum kind { K_SECRET, K_MUTATING, K_VALIDATING, K_CRD, K_COUNT };

static const char *const kind_names[K_COUNT] = {
    [K_SECRET] = "Secret",
    [K_MUTATING] = "MutatingWebhookConfiguration",
    [K_VALIDATING] = "ValidatingWebhookConfiguration",
    [K_CRD] = "CustomResourceDefinition",
};

struct metrics {
    struct wh_metric *not_after_ca, *not_after_serving;
    struct wh_metric *gen_ca, *gen_serving, *rotations_done;
    struct wh_metric *writes[K_COUNT], *failures[K_COUNT];
    struct wh_metric *sync_ok, *sync_err;
    struct wh_metric *bundle_cas, *writer, *initialized;
    struct wh_metric *trusted, *renew_before;
};

struct wh_certs_controller {
    const struct wh_config *cfg;
    struct wh_cluster *cluster;
    struct wh_kube_client *client; /* the cluster's */
    struct wh_certs_env env;
    enum wh_certs_writer mode;
    struct wh_certs_target target; /* borrowed from env */
    char *dns_name;
    struct wh_certs_gen_opts gen;
    struct wh_certs_hooks hooks;
    char *identity;
    char *lease_name;
    struct wh_cache *secrets, *mutating, *validating, *crds;
    struct wh_informer *secret_informer; /* ours: only our Secret, not the whole namespace */
    char *secret_selector;
    struct wh_leader *leader;       /* NULL without --leader-elect */
    struct wh_certs_report *report; /* secret mode only */

    /* Controller thread only (or the caller of wh_certs_controller_sync). */
    struct wh_certs_bundle *current; /* the material in effect after the last good store step */
    char *previous;                  /* old CAs still published (PEM), NULL when none */
    time_t previous_since;
    char *secret_rv; /* resourceVersion of the Secret as last read or written */
    char serial[80]; /* normalised serial of current's serving certificate */
    bool synced_ok;  /* the last sync succeeded */
    bool rotation_pending;
    int64_t backoff_ms;
    int64_t last_write_ns[K_COUNT];    /* monotonic, per configuration: fights with another */
    uint64_t last_write_hash[K_COUNT]; /* writer (note_rewrite) */
    char logged_error[256];            /* the sync problem last logged, and when */
    int64_t logged_ns;

    pthread_t thread;
    bool started;
    pthread_mutex_t mu; /* guards stop, trigger, st; the cond var uses the monotonic clock */
    pthread_cond_t cv;
    bool stop;
    bool trigger;
    bool stopped; /* wh_certs_controller_stop ran (main thread only) */
    atomic_bool initialized;
    atomic_bool called;   /* the self-call succeeded (sticky) */
    int64_t next_call_ns; /* controller thread only */
    char call_error[256]; /* the last self-call failure; guarded by mu */
    struct wh_certs_controller_status st;
    struct metrics m;
};

/* --- small helpers -------------------------------------------------------------------------- */

static void trigger(struct wh_certs_controller *c)
{
    pthread_mutex_lock(&c->mu);
    c->trigger = true;
    pthread_cond_broadcast(&c->cv);
    pthread_mutex_unlock(&c->mu);
}

static void deadline_after(struct timespec *ts, int64_t ns)
{
    clock_gettime(CLOCK_MONOTONIC, ts);
    ns += ts->tv_nsec;
    ts->tv_sec += (time_t)(ns / 1000000000);
    ts->tv_nsec = (long)(ns % 1000000000);
}

/* Sleeps ms unless stopped first. Returns true when stopping. Triggers stay pending. */
static bool sleep_unless_stopped(struct wh_certs_controller *c, int64_t ms)
{
    struct timespec ts;
    deadline_after(&ts, ms * MS);
    pthread_mutex_lock(&c->mu);
    while (!c->stop && pthread_cond_timedwait(&c->cv, &c->mu, &ts) == 0)
        ;
    bool stop = c->stop;
    pthread_mutex_unlock(&c->mu);
    return stop;
}

static void set_error(struct wh_certs_controller *c, const char *msg)
{
    pthread_mutex_lock(&c->mu);
    snprintf(c->st.last_error, sizeof(c->st.last_error), "%s", msg ? msg : "");
    pthread_mutex_unlock(&c->mu);
}

static void count_write(struct wh_certs_controller *c, enum kind k, enum wh_err rc)
{
    if (rc) {
        wh_metric_add(c->m.failures[k], 1);
        return;
    }
    wh_metric_add(c->m.writes[k], 1);
    pthread_mutex_lock(&c->mu);
    c->st.writes++;
    pthread_mutex_unlock(&c->mu);
}

/* Our writes are idempotent: writing the same caBundle into the same configuration again
 * within a minute means someone keeps undoing it (another controller with the same
 * configuration names, or a second writer without election). Worth a warning, not a fight. */
static void note_rewrite(struct wh_certs_controller *c, enum kind k, const char *bundle, size_t len)
{
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)bundle[i]) * 1099511628211ULL;
    int64_t now = wh_time_mono_ns();
    if (c->last_write_ns[k] && h == c->last_write_hash[k] && now - c->last_write_ns[k] < 60000 * MS)
        WH_LOG_EVERY(60, WH_LOG_WARN,
                     "%s was changed back %.1f s after we wrote it (re-applied manifests, or "
                     "another controller managing it?)",
                     kind_names[k], (double)(now - c->last_write_ns[k]) / 1e9);
    c->last_write_ns[k] = now;
    c->last_write_hash[k] = h;
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

static bool serving_serial(struct wh_certs_controller *c, char *out, size_t outsz)
{
    char raw[128];
    if (!c->hooks.serving_serial(c->hooks.serial_arg, raw, sizeof(raw)))
        return false;
    wh_certs_report_serial_norm(raw, out, outsz);
    return true;
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

/* --- cache callbacks (informer threads) ------------------------------------------------------ */

static void on_secret(void *arg, const struct wh_object *o, const struct wh_object *old)
{
    struct wh_certs_controller *c = arg;
    const struct wh_object *x = o ? o : old;
    if (!x || strcmp(wh_object_name(x), c->env.secret_name) == 0)
        trigger(c);
}

static void on_config(void *arg, const struct wh_object *o, const struct wh_object *old)
{
    struct wh_certs_controller *c = arg;
    const struct wh_object *x = o ? o : old;
    if (!x || strcmp(wh_object_name(x), c->cfg->mutating_config_name) == 0 ||
        strcmp(wh_object_name(x), c->cfg->validating_config_name) == 0)
        trigger(c);
}

/* CRDs are large (their schemas) and a parsed object stays in the cache once opened, so the
 * controller never opens them: it works on this view, the few fields CERT-55..57 look at, and
 * reads a whole CRD from the API server only when it has to write it. */
static void *crd_view_new(const json_t *obj)
{
    const json_t *spec = wh_json_obj(obj, "spec");
    const json_t *conv = wh_json_obj(spec, "conversion");
    json_t *v = json_pack("{s:{s:s?,s:s?},s:{s:s?,s:{s:s?},s:[{s:s?}],s:o?}}", "metadata", "name",
                          wh_json_meta_str(obj, "name"), "resourceVersion",
                          wh_json_meta_str(obj, "resourceVersion"), "spec", "group",
                          wh_json_str(spec, "group"), "names", "kind",
                          wh_json_path_str(spec, "names", "kind", NULL), "versions", "name",
                          wh_json_str(json_array_get(wh_json_arr(spec, "versions"), 0), "name"),
                          "conversion", conv ? json_deep_copy(conv) : NULL);
    WH_ASSERT(v != NULL);
    if (json_array_size(wh_json_arr(spec, "versions")) == 0)
        json_array_clear(wh_json_path(v, "spec", "versions", NULL));
    return v;
}

static void crd_view_free(void *view)
{
    json_decref(view);
}

static const json_t *crd_view(const struct wh_object *o)
{
    const json_t *v = wh_object_view(o);
    return v ? v : wh_object_json(o);
}

static void on_crd(void *arg, const struct wh_object *o, const struct wh_object *old)
{
    struct wh_certs_controller *c = arg;
    const struct wh_object *x = o ? o : old;
    if (!x) {
        trigger(c);
        return;
    }
    const char *group = wh_json_path_str(crd_view(x), "spec", "group", NULL);
    if (wh_str_eq(group, "apps.kruise.io") || wh_str_eq(group, "policy.kruise.io"))
        trigger(c);
}

static void on_leadership(void *arg, bool leading)
{
    (void)leading;
    trigger(arg);
}

/* --- caBundle injection ---------------------------------------------------------------------- */

static void target_for(const struct wh_certs_controller *c, const char *bundle, size_t len,
                       struct wh_certs_inject_target *t)
{
    t->ns = c->env.pod_namespace;
    t->service = c->env.service_name;
    t->host = c->env.host;
    t->port = c->env.port;
    t->ca_bundle = bundle;
    t->ca_bundle_len = len;
    t->serves = c->hooks.serves;
    t->serves_arg = c->hooks.serves_arg;
    t->knows = c->hooks.knows;
}

/* In URL mode an entry installed with a service gets a url instead; the API server then
 * refuses a re-apply of that manifest (exactly one of url or service): say what to install. */
static void warn_to_url(const char *kind, const char *name, int n)
{
    if (n > 0)
        wh_log(WH_LOG_WARN,
               "URL mode: %d entries of %s %s named a Service and now carry this server's URL; "
               "re-applying a manifest with the Service there is refused by the API server: "
               "install URL-form manifests (scripts/url-mode-manifests.py)",
               n, kind, name);
}

/* The configuration by name. A missing one is not an error (upstream fails the sync and
 * never becomes ready, CERT-51): with configurable names, a cluster may well use only one of
 * the two, or none (conversion only, tests); there is then nothing to keep right in it.
 * *out is NULL then, and the absence is logged once a minute. */
static enum wh_err get_config(struct wh_certs_controller *c, enum kind k, json_t **out,
                              struct wh_errbuf *eb)
{
    const char *name =
        k == K_MUTATING ? c->cfg->mutating_config_name : c->cfg->validating_config_name;
    const char *resource =
        k == K_MUTATING ? "mutatingwebhookconfigurations" : "validatingwebhookconfigurations";
    struct wh_errbuf why = {{0}};
    enum wh_err rc = wh_cluster_get_live(c->cluster, "admissionregistration.k8s.io", "v1", resource,
                                         NULL, name, out, &why);
    if (rc == WH_ERR_NOT_FOUND) {
        *out = NULL;
        WH_LOG_EVERY(60, WH_LOG_WARN, "not found %s %s: no caBundle to keep there", kind_names[k],
                     name);
        return WH_OK;
    }
    if (rc)
        return wh_errbuf_set(eb, rc, "get %s %s: %s", kind_names[k], name, why.msg);
    return WH_OK;
}

/* Writes the caBundle everywhere it must be (CERT-52, CERT-57), only where it differs. The
 * first failure ends the pass, as upstream: the sync is retried. */
static enum wh_err inject_all(struct wh_certs_controller *c, const char *bundle, size_t len,
                              struct wh_errbuf *eb)
{
    struct wh_certs_inject_target t;
    enum wh_err rc = WH_OK;
    target_for(c, bundle, len, &t);
    for (enum kind k = K_MUTATING; k <= K_VALIDATING && !rc; k++) {
        json_t *live = NULL, *want = NULL;
        struct wh_certs_inject_stats stats;
        struct wh_errbuf why = {{0}};
        rc = get_config(c, k, &live, eb);
        if (!rc && live)
            rc = wh_certs_inject_webhooks(live, &t, &want, &stats, eb);
        if (!rc && want) {
            rc = wh_cluster_update(c->cluster,
                                   k == K_MUTATING ? WH_RES_MUTATING_WEBHOOK_CONFIGURATION
                                                   : WH_RES_VALIDATING_WEBHOOK_CONFIGURATION,
                                   want, false, NULL, &why);
            count_write(c, k, rc);
            if (rc)
                wh_errbuf_set(eb, rc, "failed to update %s %s: %s", kind_names[k],
                              wh_json_meta_str(live, "name"), why.msg);
            else if (stats.changed)
                wh_log(WH_LOG_INFO, "updated caBundle of %d of %d webhooks in %s %s", stats.changed,
                       stats.entries, kind_names[k], wh_json_meta_str(live, "name"));
            if (!rc && stats.removed)
                wh_log(WH_LOG_WARN,
                       "removed %d webhooks from %s %s: their paths are not served with these "
                       "settings (%s); a feature gate turns them on",
                       stats.removed, kind_names[k], wh_json_meta_str(live, "name"),
                       stats.removed_paths);
            if (!rc)
                warn_to_url(kind_names[k], wh_json_meta_str(live, "name"), stats.to_url);
            if (!rc)
                note_rewrite(c, k, bundle, len);
        }
        json_decref(want);
        json_decref(live);
    }
    if (rc)
        return rc;

    struct wh_objlist l;
    wh_objlist_init(&l);
    wh_cache_list(c->crds, NULL, &l);
    for (size_t i = 0; i < l.n && !rc; i++) {
        json_t *want = NULL, *live = NULL;
        struct wh_errbuf why = {{0}};
        wh_certs_inject_crd(crd_view(l.items[i]), &t, &want);
        if (!want)
            continue;
        json_decref(want);
        want = NULL;
        rc = wh_cluster_get_live(c->cluster, "apiextensions.k8s.io", "v1",
                                 "customresourcedefinitions", NULL, wh_object_name(l.items[i]),
                                 &live, &why);
        if (rc == WH_ERR_NOT_FOUND) {
            rc = WH_OK; /* deleted meanwhile */
            continue;
        }
        bool had_service = false;
        if (!rc) {
            wh_certs_inject_crd(live, &t, &want);
            had_service = wh_json_path(live, "spec", "conversion", "webhook", "clientConfig",
                                       "service", NULL) != NULL;
        }
        json_decref(live);
        if (rc || !want) {
            if (rc)
                wh_errbuf_set(eb, rc, "get CRD %s: %s", wh_object_name(l.items[i]), why.msg);
            continue;
        }
        rc = wh_cluster_update(c->cluster, WH_RES_CRD, want, false, NULL, &why);
        count_write(c, K_CRD, rc);
        if (rc)
            wh_errbuf_set(eb, rc, "failed to update CRD %s: %s", wh_object_name(l.items[i]),
                          why.msg);
        else
            wh_log(WH_LOG_INFO, "updated conversion caBundle of CRD %s",
                   wh_object_name(l.items[i]));
        if (!rc && t.host && t.host[0] && had_service)
            warn_to_url("CRD", wh_object_name(l.items[i]), 1);
        json_decref(want);
    }
    wh_objlist_fini(&l);
    return rc;
}

/* CERT-38 (exact) and the non-writing replicas' wait (trusting). */
static enum wh_err verify_all(struct wh_certs_controller *c, const char *bundle, size_t len,
                              bool exact, struct wh_errbuf *eb)
{
    struct wh_certs_inject_target t;
    enum wh_err rc = WH_OK;
    target_for(c, bundle, len, &t);
    for (enum kind k = K_MUTATING; k <= K_VALIDATING && !rc; k++) {
        json_t *live = NULL;
        rc = get_config(c, k, &live, eb);
        if (!rc && live)
            rc = wh_certs_inject_verify_webhooks(live, kind_names[k], &t, exact, eb);
        json_decref(live);
    }
    struct wh_objlist l;
    wh_objlist_init(&l);
    wh_cache_list(c->crds, NULL, &l);
    for (size_t i = 0; i < l.n && !rc; i++)
        rc = wh_certs_inject_verify_crd(crd_view(l.items[i]), &t, exact, eb);
    wh_objlist_fini(&l);
    return rc;
}

/* --- the stores ------------------------------------------------------------------------------ */

static char *read_dir_ca(const struct wh_certs_controller *c, size_t *len)
{
    char *path = wh_str_printf("%s/%s", c->env.cert_dir, WH_CERTS_FILE_CA_CERT);
    char *data = NULL;
    *len = 0;
    if (wh_certs_pem_read_file(path, WH_CERTS_PEM_MAX, &data, len, NULL) != WH_OK)
        data = NULL;
    free(path);
    return data;
}

/* The CA certificates that clients may trust right now besides new_ca: the stored CA, the
 * one in our cert dir (what this replica has been serving, even when the Secret is gone),
 * and the CAs of a rotation still in progress. Returns: a new string, "" when none. */
static char *cas_still_trusted(const struct wh_certs_controller *c,
                               const struct wh_certs_bundle *stored, const char *in_progress,
                               const struct wh_certs_bundle *fresh)
{
    size_t stored_len = 0, dir_len = 0, new_len = 0, out_len = 0;
    const char *stored_ca =
        stored ? wh_certs_bundle_get(stored, WH_CERTS_CA_CERT, &stored_len) : NULL;
    const char *new_ca = wh_certs_bundle_get(fresh, WH_CERTS_CA_CERT, &new_len);
    char *dir_ca = read_dir_ca(c, &dir_len);
    char *all = wh_str_printf("%s\n%s\n%s", stored_ca ? stored_ca : "", dir_ca ? dir_ca : "",
                              in_progress ? in_progress : "");
    char *out = NULL;
    wh_certs_inject_other_cas(all, strlen(all), new_ca, new_len, (long long)time(NULL), &out,
                              &out_len);
    free(all);
    free(dir_ca);
    return out;
}

static char *bundle_with(const struct wh_certs_bundle *b, const char *others, size_t *len)
{
    size_t ca_len = 0;
    const char *ca = wh_certs_bundle_get(b, WH_CERTS_CA_CERT, &ca_len);
    char *text = wh_str_printf("%.*s%s", (int)ca_len, ca ? ca : "", others ? others : "");
    *len = strlen(text);
    return text;
}

/* Publishes new CA + old CAs ahead of storing certificates of the new CA, and waits
 * --ca-publish-delay so that API servers use the bundle before anyone serves them. */
static enum wh_err publish_ahead(struct wh_certs_controller *c, const struct wh_certs_bundle *fresh,
                                 const char *old, struct wh_errbuf *eb)
{
    size_t len = 0;
    char *bundle = bundle_with(fresh, old, &len);
    enum wh_err rc = inject_all(c, bundle, len, eb);
    free(bundle);
    if (rc)
        return rc;
    wh_log(WH_LOG_INFO,
           "CA rotation: caBundles now trust the new and the old CA; new certificates are "
           "stored in %lld ms",
           c->cfg->ca_publish_delay_ms);
    if (sleep_unless_stopped(c, c->cfg->ca_publish_delay_ms))
        return wh_errbuf_set(eb, WH_ERR_INTERNAL, "stopping");
    return WH_OK;
}

struct store_result {
    struct wh_certs_bundle *bundle; /* new */
    char *previous;                 /* new; NULL when no rotation is in progress */
    time_t since;
};

static void store_result_fini(struct store_result *r)
{
    wh_certs_bundle_free(r->bundle);
    free(r->previous);
    memset(r, 0, sizeof(*r));
}

static void took_new_certs(struct wh_certs_controller *c, bool new_ca, const char *where,
                           const char *reason)
{
    wh_metric_add(c->m.gen_serving, 1);
    if (new_ca)
        wh_metric_add(c->m.gen_ca, 1);
    wh_log(WH_LOG_INFO, "generated a new serving certificate%s for %s in %s: %s",
           new_ca ? " and a new CA" : " (CA kept)", c->dns_name, where, reason);
}

/* One decision of the Secret writer (kube/rmw.h), made again on every conflict. */
struct secret_decision {
    struct wh_certs_controller *c;
    char where[300];
    int rounds;
    /* valid: what is stored already serves */
    bool valid;
    struct wh_certs_stored stored;
    /* else what this round would write */
    struct wh_certs_bundle *fresh;
    bool reused;
    char *old;
    time_t since;
    char why[256];
};

static void decision_reset(struct secret_decision *d)
{
    wh_certs_stored_fini(&d->stored);
    wh_certs_bundle_free(d->fresh);
    d->fresh = NULL;
    free(d->old);
    d->old = NULL;
    d->valid = d->reused = false;
    d->since = 0;
    d->why[0] = '\0';
}

/* CERT-40/41: keep a valid Secret; else generate (reusing the CA when it may serve on), publish
 * old and new CA ahead of a CA change, and write. */
static enum wh_err decide_secret(void *arg, const json_t *current, json_t **desired,
                                 struct wh_errbuf *eb)
{
    struct secret_decision *d = arg;
    struct wh_certs_controller *c = d->c;
    if (d->rounds++)
        wh_log(WH_LOG_INFO, "%s changed while we wrote it: reading it again", d->where);
    decision_reset(d);
    time_t now = time(NULL);
    struct wh_errbuf why = {{0}};
    wh_certs_store_decode(current, WH_CERTS_SECRET_GENERATED, &d->stored);
    const struct wh_certs_stored *s = &d->stored;
    enum wh_certs_verdict verdict = WH_CERTS_MISSING;
    if (!s->exists)
        snprintf(why.msg, sizeof(why.msg), "the Secret does not exist");
    else if (s->problem[0])
        snprintf(why.msg, sizeof(why.msg), "%s", s->problem);
    else
        verdict =
            wh_certs_bundle_validate(s->bundle, c->dns_name, now, c->env.renew_before_secs, &why);
    if (verdict == WH_CERTS_VALID) {
        d->valid = true;
        return WH_OK;
    }
    snprintf(d->why, sizeof(d->why), "%s", why.msg);
    struct wh_certs_gen_opts gen = c->gen;
    gen.now = now;
    /* Valid in every way but our name (the host is checked last): another server serves it
     * from this Secret (kruise-manager, while its webhooks move here). Its names stay, so
     * that neither of us finds the other's certificate wrong and rewrites it; the CA stays
     * too (wh_certs_bundle_generate reuses it). */
    X509 *other = NULL;
    size_t cert_len = 0;
    const char *cert = verdict == WH_CERTS_WRONG_HOST
                           ? wh_certs_bundle_get(s->bundle, WH_CERTS_CERT, &cert_len)
                           : NULL;
    if (cert && wh_certs_pem_first_cert(cert, cert_len, &other) == WH_OK) {
        gen.also_names_of = other;
        wh_log(WH_LOG_INFO,
               "%s: its certificate serves another name; the new one keeps that "
               "name and the CA",
               d->where);
    }
    enum wh_err rc = wh_certs_bundle_generate(&gen, &c->target, s->exists ? s->bundle : NULL,
                                              &d->fresh, &d->reused, eb);
    X509_free(other);
    if (rc)
        return rc;
    if (!d->reused) {
        d->old = cas_still_trusted(c, s->bundle, s->previous_ca, d->fresh);
        d->since = now;
        if (d->old[0]) {
            rc = publish_ahead(c, d->fresh, d->old, eb);
            if (rc)
                return rc;
        }
    } else {
        d->old = s->previous_ca ? wh_xstrdup(s->previous_ca) : NULL;
        d->since = s->previous_since;
    }
    *desired =
        wh_certs_store_object(c->env.pod_namespace, c->env.secret_name, d->fresh, d->old, d->since);
    return WH_OK;
}

/* Counts the writes of one loop for the metrics: each conflict failed, the last as rc. */
static void count_writes(struct wh_certs_controller *c, enum kind k,
                         const struct wh_rmw_result *res, enum wh_err rc)
{
    for (int i = 0; i < res->conflicts; i++)
        count_write(c, k, WH_ERR_CONFLICT);
    if (res->writes > res->conflicts)
        count_write(c, k, rc);
}

static void keep_resource_version(struct wh_certs_controller *c, const json_t *obj)
{
    const char *rv = wh_json_meta_str(obj, "resourceVersion");
    free(c->secret_rv);
    c->secret_rv = rv ? wh_xstrdup(rv) : NULL;
}

/* The Secret writer (CERT-33/34/40/41) with the rotation protocol. */
static enum wh_err secret_writer(struct wh_certs_controller *c, struct store_result *res,
                                 struct wh_errbuf *eb)
{
    char path[512], collection[512];
    struct secret_decision d = {.c = c};
    snprintf(d.where, sizeof(d.where), "Secret %s/%s", c->env.pod_namespace, c->env.secret_name);
    enum wh_err rc = wh_certs_store_paths(c->env.pod_namespace, c->env.secret_name, path,
                                          sizeof(path), collection, sizeof(collection));
    if (rc)
        return wh_errbuf_set(eb, rc, "%s: bad name", d.where);
    struct wh_rmw_kube k = {.client = c->client, .path = path, .collection_path = collection};
    struct wh_rmw_io io;
    wh_rmw_kube_io(&k, &io);
    struct wh_rmw_opts o = {.create = true, .max_attempts = STORE_ROUNDS};
    struct wh_rmw_result out;
    rc = wh_rmw_run(&io, &o, decide_secret, &d, &out, eb);
    count_writes(c, K_SECRET, &out, rc);
    if (rc == WH_OK && d.valid) {
        res->bundle = d.stored.bundle;
        d.stored.bundle = NULL;
        res->previous = d.stored.previous_ca;
        d.stored.previous_ca = NULL;
        res->since = d.stored.previous_since;
        free(c->secret_rv);
        c->secret_rv = d.stored.resource_version;
        d.stored.resource_version = NULL;
    } else if (rc == WH_OK && out.stored) {
        took_new_certs(c, !d.reused, d.where, d.why);
        res->bundle = d.fresh;
        d.fresh = NULL;
        res->previous = d.old && d.old[0] ? d.old : NULL;
        if (res->previous)
            d.old = NULL;
        res->since = d.since;
        keep_resource_version(c, out.stored);
    } else if (rc == WH_ERR_CONFLICT) {
        wh_errbuf_set(eb, rc, "gave up writing %s after %d conflicts", d.where, STORE_ROUNDS);
    }
    wh_rmw_result_fini(&out);
    decision_reset(&d);
    return rc;
}

/* Replicas that do not write: the Secret must exist and be usable now. */
static enum wh_err secret_reader(struct wh_certs_controller *c, struct store_result *res,
                                 struct wh_errbuf *eb)
{
    struct wh_certs_stored s;
    struct wh_errbuf why = {{0}};
    enum wh_err rc = wh_certs_store_read(c->client, c->env.pod_namespace, c->env.secret_name,
                                         WH_CERTS_SECRET_GENERATED, &s, eb);
    if (rc)
        goto out;
    if (!s.exists) {
        rc = wh_errbuf_set(eb, WH_ERR_NOT_SYNCED,
                           "Secret %s/%s does not exist yet: waiting for the writer",
                           c->env.pod_namespace, c->env.secret_name);
        goto out;
    }
    /* Usable now is enough here: renewing ahead of time is the writer's job. */
    if (wh_certs_bundle_validate(s.bundle, c->dns_name, time(NULL), 0, &why) != WH_CERTS_VALID) {
        rc = wh_errbuf_set(
            eb, WH_ERR_NOT_SYNCED, "Secret %s/%s is not usable (%s): waiting for the writer",
            c->env.pod_namespace, c->env.secret_name, s.problem[0] ? s.problem : why.msg);
        goto out;
    }
    res->bundle = s.bundle;
    s.bundle = NULL;
    res->previous = s.previous_ca;
    s.previous_ca = NULL;
    res->since = s.previous_since;
out:
    wh_certs_stored_fini(&s);
    return rc;
}

/* CERT-36/37: used as is, never written, never judged. */
static enum wh_err external_reader(struct wh_certs_controller *c, struct store_result *res,
                                   struct wh_errbuf *eb)
{
    struct wh_certs_stored s;
    enum wh_err rc = wh_certs_store_read(c->client, c->env.pod_namespace, c->env.secret_name,
                                         WH_CERTS_SECRET_EXTERNAL, &s, eb);
    if (!rc && !s.exists)
        rc = wh_errbuf_set(eb, WH_ERR_NOT_FOUND, "external certificates: Secret %s/%s not found",
                           c->env.pod_namespace, c->env.secret_name);
    if (!rc && s.problem[0])
        rc = wh_errbuf_set(eb, WH_ERR_PARSE, "external certificates: Secret %s/%s: %s",
                           c->env.pod_namespace, c->env.secret_name, s.problem);
    if (!rc) {
        res->bundle = s.bundle;
        s.bundle = NULL;
    }
    wh_certs_stored_fini(&s);
    return rc;
}

/* CERT-39: the cert dir is the store; the CA is never reused. A rotation's old CA is kept in
 * memory (one process per directory). */
static enum wh_err fs_writer(struct wh_certs_controller *c, struct store_result *res,
                             struct wh_errbuf *eb)
{
    struct wh_certs_bundle *cur = NULL, *fresh = NULL;
    struct wh_errbuf why = {{0}};
    time_t now = time(NULL);
    enum wh_certs_verdict v = WH_CERTS_MISSING;
    enum wh_err rc = wh_certs_fs_read(c->env.cert_dir, &cur, &why);
    if (rc == WH_OK)
        v = wh_certs_bundle_validate(cur, c->dns_name, now, c->env.renew_before_secs, &why);
    else if (rc != WH_ERR_NOT_FOUND && rc != WH_ERR_TOO_BIG)
        return wh_errbuf_set(eb, rc, "%s", why.msg);
    rc = WH_OK;
    if (v == WH_CERTS_VALID) {
        res->bundle = cur;
        res->previous = c->previous ? wh_xstrdup(c->previous) : NULL;
        res->since = c->previous_since;
        return WH_OK;
    }
    struct wh_certs_gen_opts gen = c->gen;
    gen.now = now;
    rc = wh_certs_bundle_generate(&gen, &c->target, NULL, &fresh, NULL, eb);
    char *old = NULL;
    if (!rc) {
        old = cas_still_trusted(c, cur, c->previous, fresh);
        if (old[0])
            rc = publish_ahead(c, fresh, old, eb);
    }
    if (!rc) {
        took_new_certs(c, true, c->env.cert_dir, why.msg);
        res->bundle = fresh;
        fresh = NULL;
        res->previous = old && old[0] ? old : NULL;
        if (res->previous)
            old = NULL;
        res->since = now;
    }
    free(old);
    wh_certs_bundle_free(fresh);
    wh_certs_bundle_free(cur);
    return rc;
}

/* --- rotation end ---------------------------------------------------------------------------- */

static enum wh_err decide_plain(void *arg, const json_t *current, json_t **desired,
                                struct wh_errbuf *eb)
{
    (void)current;
    (void)eb;
    struct wh_certs_controller *c = arg;
    *desired = wh_certs_store_object(c->env.pod_namespace, c->env.secret_name, c->current, NULL, 0);
    return WH_OK;
}

/* Ends a rotation in the Secret: the current certificates without the previous-CA
 * annotations, written over exactly the version this writer stored (one attempt: a conflict
 * means someone else wrote, and the next sync decides again). */
static enum wh_err store_without_previous(struct wh_certs_controller *c, struct wh_errbuf *eb)
{
    char path[512], collection[512];
    enum wh_err rc = wh_certs_store_paths(c->env.pod_namespace, c->env.secret_name, path,
                                          sizeof(path), collection, sizeof(collection));
    if (rc)
        return wh_errbuf_set(eb, rc, "Secret %s/%s: bad name", c->env.pod_namespace,
                             c->env.secret_name);
    json_t *base = json_pack("{s:{s:s?}}", "metadata", "resourceVersion", c->secret_rv);
    struct wh_rmw_kube k = {.client = c->client, .path = path};
    struct wh_rmw_io io;
    wh_rmw_kube_io(&k, &io);
    struct wh_rmw_opts o = {.base = base, .max_attempts = 1};
    struct wh_rmw_result out;
    rc = wh_rmw_run(&io, &o, decide_plain, c, &out, eb);
    count_writes(c, K_SECRET, &out, rc);
    if (rc == WH_OK && out.stored)
        keep_resource_version(c, out.stored);
    wh_rmw_result_fini(&out);
    json_decref(base);
    return rc;
}

/* The old CAs may go once every live replica serves the current certificate (reports), this
 * one included, and at least --ca-publish-delay after the new CA was stored. Returns WH_OK
 * with *done telling whether they went. */
static enum wh_err finish_rotation(struct wh_certs_controller *c, bool *done, struct wh_errbuf *eb)
{
    char own[80];
    size_t ca_len = 0, left_len = 0;
    char *left = NULL;
    const char *ca = wh_certs_bundle_get(c->current, WH_CERTS_CA_CERT, &ca_len);
    time_t now = time(NULL);
    enum wh_err rc = WH_OK;

    *done = false;
    wh_certs_inject_other_cas(c->previous, strlen(c->previous), ca, ca_len, (long long)now, &left,
                              &left_len);
    bool useless = left_len == 0; /* every old CA expired: nothing left to protect */
    free(left);
    if (!useless) {
        if (!serving_serial(c, own, sizeof(own)) || strcmp(own, c->serial) != 0)
            return WH_OK;
        if (now - c->previous_since < c->cfg->ca_publish_delay_ms / 1000)
            return WH_OK;
        if (c->mode == WH_CERTS_WRITER_SECRET) {
            struct wh_certs_report_summary sum;
            rc = wh_certs_report_check(c->client, c->env.pod_namespace, c->env.secret_name,
                                       c->serial, now, &sum, eb);
            if (rc)
                return rc;
            if (sum.current < sum.live) {
                WH_LOG_EVERY(60, WH_LOG_INFO,
                             "CA rotation: keeping the old CA while %d of %d replicas serve "
                             "older certificates: %s",
                             sum.live - sum.current, sum.live, sum.lagging);
                return WH_OK;
            }
        }
    }
    if (c->mode == WH_CERTS_WRITER_SECRET) {
        rc = store_without_previous(c, eb);
        if (rc)
            return rc == WH_ERR_CONFLICT ? WH_OK : rc; /* someone wrote it: next sync decides */
    }
    free(c->previous);
    c->previous = NULL;
    size_t len = 0;
    char *bundle = bundle_with(c->current, NULL, &len);
    rc = inject_all(c, bundle, len, eb);
    free(bundle);
    if (rc)
        return rc;
    wh_metric_add(c->m.rotations_done, 1);
    wh_log(WH_LOG_INFO, "CA rotation finished: %s; caBundles trust only the current CA",
           useless ? "the old CAs expired" : "every replica serves the new certificate");
    *done = true;
    return WH_OK;
}

/* --- one sync -------------------------------------------------------------------------------- */

static bool caches_synced(struct wh_certs_controller *c, struct wh_errbuf *eb)
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

static enum wh_err sync_once(struct wh_certs_controller *c, struct wh_errbuf *eb)
{
    struct store_result res = {0};
    enum wh_err rc = WH_OK;
    char *bundle = NULL;
    size_t len = 0;
    int cas = 0;
    bool writer = is_writer(c);

    wh_metric_set(c->m.writer, writer);
    if (!caches_synced(c, eb))
        return WH_ERR_NOT_SYNCED;
    switch (c->mode) {
    case WH_CERTS_WRITER_SECRET:
        rc = writer ? secret_writer(c, &res, eb) : secret_reader(c, &res, eb);
        break;
    case WH_CERTS_WRITER_FS:
        rc = fs_writer(c, &res, eb);
        break;
    case WH_CERTS_WRITER_EXTERNAL:
        rc = external_reader(c, &res, eb);
        break;
    }
    if (rc)
        goto out;
    bool changed = false;
    rc = wh_certs_fs_write(c->env.cert_dir, res.bundle, &changed, eb);
    if (rc)
        goto out;
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
    bundle = bundle_with(c->current, others, &len);
    free(others);

    if (c->mode == WH_CERTS_WRITER_EXTERNAL) {
        rc = verify_all(c, ca, ca_len, true, eb);
    } else if (writer) {
        rc = inject_all(c, bundle, len, eb);
    } else {
        rc = verify_all(c, ca, ca_len, false, eb);
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
    store_result_fini(&res);
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

static enum wh_err do_sync(struct wh_certs_controller *c, struct wh_errbuf *eb)
{
    enum wh_err rc = sync_once(c, eb);
    c->synced_ok = rc == WH_OK;
    wh_metric_add(rc ? c->m.sync_err : c->m.sync_ok, 1);
    set_error(c, rc ? eb->msg : "");
    /* Retries come fast: a problem is logged when it changes, and again every 30 s. */
    int64_t now = wh_time_mono_ns();
    if (rc && (strcmp(eb->msg, c->logged_error) != 0 || now - c->logged_ns > 30000 * MS)) {
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

/* --- the self-call (readiness) ---------------------------------------------------------------- */

struct call_target {
    char *name, *path, *bundle;
    size_t bundle_len;
    const char *where; /* for messages: the entry or CRD */
};

/* Adds the call cc stands for when it is new (same name and caBundle: one call does). */
static void add_call(struct call_target *ts, size_t *n, const json_t *cc, const char *where,
                     const char *default_path)
{
    char *name = wh_certs_inject_called_name(cc), *path = wh_certs_inject_entry_path(cc);
    const char *b64 = wh_json_str(cc, "caBundle");
    unsigned char *bundle = NULL;
    size_t len = 0;
    if (!b64 || wh_base64_decode(b64, strlen(b64), &bundle, &len) != WH_OK)
        bundle = NULL;
    bool dup = false;
    for (size_t i = 0; i < *n && !dup && name && bundle; i++)
        dup = strcmp(ts[i].name, name) == 0 && ts[i].bundle_len == len &&
              memcmp(ts[i].bundle, bundle, len) == 0;
    if (!name || dup || *n == SELFCALL_MAX) {
        free(name);
        free(path);
        free(bundle);
        return;
    }
    ts[*n] = (struct call_target){.name = name,
                                  .path = path ? path : wh_xstrdup(default_path),
                                  .bundle = (char *)bundle,
                                  .bundle_len = len,
                                  .where = where};
    (*n)++;
}

/* Where this replica's HTTPS server can be reached from inside: its bind address, loopback
 * for a wildcard. */
static const char *connect_host(const struct wh_config *cfg, char *buf, size_t bufsz)
{
    const char *b = cfg->bind_address;
    if (!b[0] || strcmp(b, "0.0.0.0") == 0 || strcmp(b, "*") == 0)
        return "127.0.0.1";
    if (strcmp(b, "::") == 0 || strcmp(b, "[::]") == 0)
        return "::1";
    size_t n = strlen(b);
    if (b[0] == '[' && n > 2 && b[n - 1] == ']')
        snprintf(buf, bufsz, "%.*s", (int)(n - 2), b + 1);
    else
        snprintf(buf, bufsz, "%s", b);
    return buf;
}

/* Calls this replica through every distinct (name, caBundle) the cluster's served entries and
 * our CRDs hold. */
static enum wh_err selfcall_all(struct wh_certs_controller *c, int port, int *calls,
                                struct wh_errbuf *eb)
{
    struct call_target ts[SELFCALL_MAX];
    size_t n = 0;
    json_t *live[2] = {NULL, NULL};
    struct wh_certs_inject_target t;
    enum wh_err rc = WH_OK;
    target_for(c, NULL, 0, &t);
    for (enum kind k = K_MUTATING; k <= K_VALIDATING && !rc; k++) {
        rc = get_config(c, k, &live[k - K_MUTATING], eb);
        size_t i;
        const json_t *e;
        json_array_foreach(json_object_get(live[k - K_MUTATING], "webhooks"), i, e)
        {
            const json_t *cc = wh_json_obj(e, "clientConfig");
            char *path = wh_certs_inject_entry_path(cc);
            if (path && t.serves(t.serves_arg, path))
                add_call(ts, &n, cc, kind_names[k], "/");
            free(path);
        }
    }
    struct wh_objlist l;
    wh_objlist_init(&l);
    wh_cache_list(c->crds, NULL, &l);
    for (size_t i = 0; i < l.n && !rc; i++) {
        if (wh_certs_inject_crd_selected(crd_view(l.items[i]), &t))
            add_call(ts, &n,
                     wh_json_path(crd_view(l.items[i]), "spec", "conversion", "webhook",
                                  "clientConfig", NULL),
                     kind_names[K_CRD], "/convert");
    }
    char buf[64];
    const char *host = connect_host(c->cfg, buf, sizeof(buf));
    for (size_t i = 0; i < n && !rc; i++) {
        struct wh_errbuf why = {{0}};
        struct wh_certs_selfcall call = {.ca_bundle = ts[i].bundle ? ts[i].bundle : "",
                                         .ca_bundle_len = ts[i].bundle_len,
                                         .name = ts[i].name,
                                         .path = ts[i].path,
                                         .connect_host = host,
                                         .port = port};
        rc = wh_certs_selfcall(&call, &why);
        if (rc) {
            char *url = wh_certs_inject_url(ts[i].name, port, ts[i].path);
            wh_errbuf_set(eb, rc, "%s with the caBundle of the %s: %s", url, ts[i].where, why.msg);
            free(url);
        }
    }
    *calls = (int)n;
    for (size_t i = 0; i < n; i++) {
        free(ts[i].name);
        free(ts[i].path);
        free(ts[i].bundle);
    }
    wh_objlist_fini(&l);
    json_decref(live[0]);
    json_decref(live[1]);
    return rc;
}

static void selfcall_tick(struct wh_certs_controller *c)
{
    int port = c->hooks.https_port ? c->hooks.https_port(c->hooks.https_arg) : 0;
    int64_t now = wh_time_mono_ns();
    if (atomic_load(&c->called) || !atomic_load(&c->initialized) || port <= 0 ||
        now < c->next_call_ns)
        return;
    struct wh_errbuf eb = {{0}};
    int calls = 0;
    enum wh_err rc = selfcall_all(c, port, &calls, &eb);
    pthread_mutex_lock(&c->mu);
    snprintf(c->call_error, sizeof(c->call_error), "%s", rc ? eb.msg : "");
    pthread_mutex_unlock(&c->mu);
    if (rc) {
        WH_LOG_EVERY(30, WH_LOG_WARN, "not ready: calling this server as the API server would: %s",
                     eb.msg);
        c->next_call_ns = wh_time_mono_ns() + SELFCALL_RETRY_MS * MS;
        return;
    }
    atomic_store(&c->called, true);
    if (calls)
        wh_log(WH_LOG_INFO,
               "called this server as the API server does, through %d configured "
               "clientConfig%s: it answers",
               calls, calls == 1 ? "" : "s");
    else
        wh_log(WH_LOG_INFO, "no served webhook entry or CRD conversion in the cluster calls "
                            "this server yet: nothing to call");
}

/* --- the thread ------------------------------------------------------------------------------ */

/* Work that is cheap and runs at every wake-up: initialisation once the HTTPS server presents
 * what the last sync wrote (CERT-72's proof, made in process), and the serving report. */
static void tick(struct wh_certs_controller *c)
{
    char own[80];
    bool have = serving_serial(c, own, sizeof(own));
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
    selfcall_tick(c);
}

static void *controller_main(void *arg)
{
    struct wh_certs_controller *c = arg;
    int64_t next_sync = wh_time_mono_ns(), last_sync = 0;
    for (;;) {
        struct timespec ts;
        int64_t now = wh_time_mono_ns();
        bool settled =
            atomic_load(&c->initialized) && (atomic_load(&c->called) || !c->hooks.https_port);
        int64_t tick_ns = (settled ? 1000 : 200) * MS;
        int64_t wake = next_sync < now + tick_ns ? next_sync : now + tick_ns;
        pthread_mutex_lock(&c->mu);
        if (!c->stop && !c->trigger && wake > now) {
            deadline_after(&ts, wake - now);
            pthread_cond_timedwait(&c->cv, &c->mu, &ts);
        }
        bool stop = c->stop, trig = c->trigger;
        c->trigger = false;
        pthread_mutex_unlock(&c->mu);
        if (stop)
            break;
        now = wh_time_mono_ns();
        if (trig) {
            int64_t earliest = last_sync + MIN_GAP_MS * MS;
            if (next_sync > earliest)
                next_sync = earliest > now ? earliest : now;
        }
        tick(c);
        now = wh_time_mono_ns();
        if (now < next_sync)
            continue;
        struct wh_errbuf eb = {{0}};
        last_sync = now;
        enum wh_err rc = do_sync(c, &eb);
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
        next_sync = wh_time_mono_ns() + delay_ms * MS;
        tick(c);
    }
    return NULL;
}

/* --- life cycle ------------------------------------------------------------------------------ */

static char *default_identity(void)
{
    char host[256] = "";
    unsigned char r[4] = {0};
    if (gethostname(host, sizeof(host) - 1) != 0 || !host[0])
        snprintf(host, sizeof(host), "kruise-webhook");
    host[sizeof(host) - 1] = '\0';
    if (RAND_bytes(r, sizeof(r)) != 1) {
        int64_t t = wh_time_wall_ns();
        memcpy(r, &t, sizeof(r));
    }
    return wh_str_printf("%s_%02x%02x%02x%02x", host, r[0], r[1], r[2], r[3]);
}

static void register_metrics(struct metrics *m)
{
    char labels[128];
    static const char *const ks[K_COUNT] = {"secret", "mutatingwebhookconfiguration",
                                            "validatingwebhookconfiguration",
                                            "customresourcedefinition"};
    const char *na = "Expiry (unix time) of the certificates in the store.";
    wh_metrics_labels(labels, sizeof(labels), "certificate", "ca", NULL);
    m->not_after_ca = wh_metrics_gauge("kruise_webhook_certs_not_after_seconds", na, labels);
    wh_metrics_labels(labels, sizeof(labels), "certificate", "serving", NULL);
    m->not_after_serving = wh_metrics_gauge("kruise_webhook_certs_not_after_seconds", na, labels);
    const char *gen = "Certificates generated (CA, or serving certificate).";
    wh_metrics_labels(labels, sizeof(labels), "certificate", "ca", NULL);
    m->gen_ca = wh_metrics_counter("kruise_webhook_certs_generated_total", gen, labels);
    wh_metrics_labels(labels, sizeof(labels), "certificate", "serving", NULL);
    m->gen_serving = wh_metrics_counter("kruise_webhook_certs_generated_total", gen, labels);
    m->rotations_done =
        wh_metrics_counter("kruise_webhook_certs_ca_rotations_total",
                           "CA rotations completed (old CA dropped from the caBundles).", NULL);
    for (int k = 0; k < K_COUNT; k++) {
        wh_metrics_labels(labels, sizeof(labels), "kind", ks[k], NULL);
        m->writes[k] = wh_metrics_counter("kruise_webhook_certs_writes_total",
                                          "Objects written by the certificate controller.", labels);
        m->failures[k] = wh_metrics_counter(
            "kruise_webhook_certs_write_failures_total",
            "Writes of the certificate controller that failed (conflicts included).", labels);
    }
    const char *syncs = "Certificate controller syncs.";
    wh_metrics_labels(labels, sizeof(labels), "result", "success", NULL);
    m->sync_ok = wh_metrics_counter("kruise_webhook_certs_syncs_total", syncs, labels);
    wh_metrics_labels(labels, sizeof(labels), "result", "error", NULL);
    m->sync_err = wh_metrics_counter("kruise_webhook_certs_syncs_total", syncs, labels);
    m->bundle_cas = wh_metrics_gauge("kruise_webhook_certs_ca_bundle_certificates",
                                     "CA certificates in the published caBundle (2 during a "
                                     "CA rotation).",
                                     NULL);
    m->writer = wh_metrics_gauge("kruise_webhook_certs_writer",
                                 "1 when this replica writes the Secret and caBundles.", NULL);
    m->initialized = wh_metrics_gauge("kruise_webhook_certs_initialized",
                                      "1 once certificates and caBundles were in place.", NULL);
    m->trusted = wh_metrics_gauge("kruise_webhook_certs_ca_bundle_trusted",
                                  "1 when, at the last sync, every served webhook entry and "
                                  "Kruise CRD trusted the CA this server serves from.",
                                  NULL);
    m->renew_before = wh_metrics_gauge("kruise_webhook_certs_renew_before_seconds",
                                       "The renewal margin (CERTS_RENEW_BEFORE): certificates "
                                       "are renewed this long before they expire.",
                                       NULL);
}

enum wh_err wh_certs_controller_new(struct wh_cluster *cl, const struct wh_config *cfg,
                                    const struct wh_certs_hooks *hooks,
                                    struct wh_certs_controller **out, struct wh_errbuf *eb)
{
    enum wh_err rc = WH_OK;
    if (wh_cluster_standalone(cl))
        return wh_errbuf_set(eb, WH_ERR_INVALID, "the certificate controller needs an API server");
    struct wh_certs_controller *c = wh_xcalloc(1, sizeof(*c));
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&c->cv, &ca);
    pthread_condattr_destroy(&ca);
    pthread_mutex_init(&c->mu, NULL);
    c->cfg = cfg;
    c->cluster = cl;
    c->client = wh_cluster_client(cl);
    rc = wh_certs_env_from_config(&c->env, cfg, eb);
    if (rc)
        goto fail;
    c->mode =
        wh_certs_env_writer(&c->env, wh_feature_on(&cfg->features, WH_FEATURE_EnableExternalCerts));
    wh_certs_env_target(&c->env, false, &c->target);
    c->dns_name = wh_certs_target_dns_name(&c->target);
    if (!c->dns_name) {
        rc = wh_errbuf_set(eb, WH_ERR_INVALID, "no webhook host, or no service and namespace");
        goto fail;
    }
    if (c->env.host && c->env.port == 0)
        wh_log(WH_LOG_WARN, "URL mode with port 0: webhook URLs will name port 0; set --port");
    wh_certs_gen_opts_init(&c->gen);
    if (strcmp(cfg->cert_key_type, "ecdsa") == 0)
        c->gen.key_type = WH_CERTS_KEY_ECDSA;
    WH_ASSERT(hooks && hooks->serves && hooks->serving_serial);
    c->hooks = *hooks;
    c->identity = c->hooks.identity ? wh_xstrdup(c->hooks.identity) : default_identity();
    c->hooks.identity = c->identity;
    c->lease_name = cfg->leader_election_id && cfg->leader_election_id[0]
                        ? wh_xstrdup(cfg->leader_election_id)
                        : wh_str_printf("%s-writer", c->env.secret_name);
    if (cfg->leader_elect && c->mode == WH_CERTS_WRITER_SECRET) {
        struct wh_leader_opts lo = {
            .ns = c->env.pod_namespace,
            .name = c->lease_name,
            .identity = c->identity,
            .lease_duration_ms = cfg->leader_lease_duration_ms,
            .renew_deadline_ms = cfg->leader_renew_deadline_ms,
            .retry_period_ms = cfg->leader_retry_period_ms,
            .on_change = on_leadership,
            .arg = c,
        };
        rc = wh_leader_new(c->client, &lo, &c->leader, eb);
        if (rc)
            goto fail;
    }
    if (c->mode == WH_CERTS_WRITER_SECRET)
        c->report =
            wh_certs_report_new(c->client, c->env.pod_namespace, c->env.secret_name, c->identity);
    if (c->mode != WH_CERTS_WRITER_FS) {
        /* A cache of its own with a field selector: the namespace's other Secrets (Helm
         * releases, tokens) are none of our business and would only cost memory. */
        c->secrets = wh_cache_new(WH_RES_SECRET);
        wh_cache_on_change(c->secrets, on_secret, c);
        c->secret_selector = wh_str_printf("metadata.name=%s", c->env.secret_name);
    }
    c->mutating = wh_cluster_declare(cl, WH_RES_MUTATING_WEBHOOK_CONFIGURATION, NULL);
    wh_cache_on_change(c->mutating, on_config, c);
    c->validating = wh_cluster_declare(cl, WH_RES_VALIDATING_WEBHOOK_CONFIGURATION, NULL);
    wh_cache_on_change(c->validating, on_config, c);
    c->crds = wh_cluster_declare(cl, WH_RES_CRD, NULL);
    wh_cache_set_view(c->crds, crd_view_new, crd_view_free);
    wh_cache_on_change(c->crds, on_crd, c);
    register_metrics(&c->m);
    wh_metric_set(c->m.renew_before, (double)c->env.renew_before_secs);
    if (c->secrets) {
        struct wh_informer_opts io = {
            .group = "",
            .version = "v1",
            .resource = "secrets",
            .ns = c->env.pod_namespace,
            .field_selector = c->secret_selector,
        };
        rc = wh_informer_start(c->client, c->secrets, &io, &c->secret_informer);
        if (rc) {
            wh_errbuf_set(eb, rc, "cannot start the Secret informer");
            goto fail;
        }
    }
    static const char *const modes[] = {"secret", "fs", "external"};
    wh_log(WH_LOG_INFO,
           "certificate controller: %s store, certificate for %s, cert dir %s, identity %s%s",
           modes[c->mode], c->dns_name, c->env.cert_dir, c->identity,
           c->leader ? ", writer chosen by leader election" : "");
    *out = c;
    return WH_OK;
fail:
    wh_certs_controller_free(c);
    return rc;
}

enum wh_err wh_certs_controller_start(struct wh_certs_controller *c, struct wh_errbuf *eb)
{
    WH_ASSERT(!c->started);
    if (c->leader && wh_leader_start(c->leader))
        return wh_errbuf_set(eb, WH_ERR_INTERNAL, "cannot start the leader election thread");
    if (pthread_create(&c->thread, NULL, controller_main, c) != 0)
        return wh_errbuf_set(eb, WH_ERR_INTERNAL, "cannot start the certificate controller");
    c->started = true;
    return WH_OK;
}

bool wh_certs_controller_initialized(struct wh_certs_controller *c)
{
    return atomic_load(&c->initialized);
}

bool wh_certs_controller_wait_initialized(struct wh_certs_controller *c, int64_t timeout_ms)
{
    struct timespec ts;
    deadline_after(&ts, timeout_ms * MS);
    pthread_mutex_lock(&c->mu);
    while (!atomic_load(&c->initialized) && !c->stop) {
        if (pthread_cond_timedwait(&c->cv, &c->mu, &ts) == ETIMEDOUT)
            break;
    }
    pthread_mutex_unlock(&c->mu);
    return atomic_load(&c->initialized);
}

bool wh_certs_controller_ready(void *controller, char *why, size_t whysz)
{
    struct wh_certs_controller *c = controller;
    if (atomic_load(&c->initialized))
        return true;
    pthread_mutex_lock(&c->mu);
    snprintf(why, whysz, "webhook controller has not initialized%s%s",
             c->st.last_error[0] ? ": " : "", c->st.last_error);
    pthread_mutex_unlock(&c->mu);
    return false;
}

bool wh_certs_controller_called(void *controller, char *why, size_t whysz)
{
    struct wh_certs_controller *c = controller;
    if (atomic_load(&c->called) || !c->hooks.https_port)
        return true;
    pthread_mutex_lock(&c->mu);
    snprintf(why, whysz, "not yet called as the API server would call%s%s",
             c->call_error[0] ? ": " : "", c->call_error);
    pthread_mutex_unlock(&c->mu);
    return false;
}

void wh_certs_controller_status(struct wh_certs_controller *c,
                                struct wh_certs_controller_status *st)
{
    pthread_mutex_lock(&c->mu);
    *st = c->st;
    st->initialized = atomic_load(&c->initialized);
    pthread_mutex_unlock(&c->mu);
}

enum wh_err wh_certs_controller_sync(struct wh_certs_controller *c, struct wh_errbuf *eb)
{
    WH_ASSERT(!c->started);
    for (int i = 0; i < 200 && !caches_synced(c, NULL); i++)
        wh_time_sleep_ms(25);
    enum wh_err rc = do_sync(c, eb);
    tick(c);
    return rc;
}

enum wh_err wh_certs_controller_step_election(struct wh_certs_controller *c, bool *leading,
                                              struct wh_errbuf *eb)
{
    WH_ASSERT(!c->started);
    *leading = false;
    if (!c->leader)
        return wh_errbuf_set(eb, WH_ERR_INVALID, "leader election is off");
    return wh_leader_step(c->leader, leading, eb);
}

void wh_certs_controller_stop(struct wh_certs_controller *c)
{
    if (!c || c->stopped)
        return;
    c->stopped = true;
    if (c->started) {
        pthread_mutex_lock(&c->mu);
        c->stop = true;
        pthread_cond_broadcast(&c->cv);
        pthread_mutex_unlock(&c->mu);
        pthread_join(c->thread, NULL);
    }
    wh_informer_stop(c->secret_informer);
    c->secret_informer = NULL;
    wh_certs_report_withdraw(c->report);
    wh_leader_free(c->leader);
    c->leader = NULL;
}

void wh_certs_controller_free(struct wh_certs_controller *c)
{
    if (!c)
        return;
    wh_certs_controller_stop(c);
    wh_certs_report_free(c->report);
    wh_cache_free(c->secrets);
    free(c->secret_selector);
    wh_certs_bundle_free(c->current);
    free(c->previous);
    free(c->secret_rv);
    free(c->dns_name);
    free(c->identity);
    free(c->lease_name);
    wh_certs_env_fini(&c->env);
    pthread_mutex_destroy(&c->mu);
    pthread_cond_destroy(&c->cv);
    free(c);
}
