#include "certs/controller.h"
#include "certs/controller_int.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <openssl/rand.h>

#include "certs/bundle.h"
#include "certs/env.h"
#include "certs/report.h"
#include "kube/cache.h"
#include "kube/informer.h"
#include "kube/leader.h"
#include "log/log.h"
#include "metrics/metrics.h"
#include "util/mem.h"
#include "util/str.h"
#include "util/time.h"

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

static void register_metrics(struct wh_ctl_metrics *m)
{
    char labels[128];
    static const char *const ks[WH_CTL_KINDS] = {"secret", "mutatingwebhookconfiguration",
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
    for (int k = 0; k < WH_CTL_KINDS; k++) {
        wh_metrics_labels(labels, sizeof(labels), "kind", ks[k], NULL);
        m->writes[k] = wh_metrics_counter("kruise_webhook_certs_writes_total",
                                          "Objects written by the certificate controller.", labels);
        m->failures[k] = wh_metrics_counter(
            "kruise_webhook_certs_write_failures_total",
            "Writes of the certificate controller that failed (conflicts included).", labels);
        if (k != WH_CTL_SECRET)
            m->drift[k] = wh_metrics_gauge(
                "kruise_webhook_certs_drift",
                "Webhook configurations and CRDs whose caBundle or target (URL, Service) the "
                "last sync found different from this server's and could not repair.",
                labels);
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
            .on_change = wh_ctl_on_leadership,
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
        wh_cache_on_change(c->secrets, wh_ctl_on_secret, c);
        c->secret_selector = wh_str_printf("metadata.name=%s", c->env.secret_name);
    }
    c->mutating = wh_cluster_declare(cl, WH_RES_MUTATING_WEBHOOK_CONFIGURATION, NULL);
    wh_cache_on_change(c->mutating, wh_ctl_on_config, c);
    c->validating = wh_cluster_declare(cl, WH_RES_VALIDATING_WEBHOOK_CONFIGURATION, NULL);
    wh_cache_on_change(c->validating, wh_ctl_on_config, c);
    c->crds = wh_cluster_declare(cl, WH_RES_CRD, NULL);
    wh_cache_set_view(c->crds, wh_ctl_crd_view_new, wh_ctl_crd_view_free);
    wh_cache_on_change(c->crds, wh_ctl_on_crd, c);
    register_metrics(&c->m);
    wh_metric_set(c->m.renew_before, (double)c->env.renew_before_secs);
    if (c->secrets) {
        const struct wh_resource *sr = wh_resource_get(WH_RES_SECRET);
        struct wh_informer_opts io = {
            .group = sr->group,
            .version = sr->versions[0],
            .resource = sr->resource,
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
    if (pthread_create(&c->thread, NULL, wh_ctl_main, c) != 0)
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
    wh_ctl_deadline_after(&ts, timeout_ms * WH_CTL_MS);
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
    const char *problem = c->st.last_error[0] ? c->st.last_error : c->wait_reason;
    snprintf(why, whysz, "webhook controller has not initialized%s%s", problem[0] ? ": " : "",
             problem);
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
    for (int i = 0; i < 200 && !wh_ctl_caches_synced(c, NULL); i++)
        wh_time_sleep_ms(25);
    enum wh_err rc = wh_ctl_sync(c, eb);
    wh_ctl_tick(c);
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
