#include "certs/controller_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/x509.h>

#include "certs/fs_store.h"
#include "certs/pem.h"
#include "certs/secret.h"
#include "certs/store.h"
#include "kube/rmw.h"
#include "log/log.h"
#include "metrics/metrics.h"
#include "util/json.h"
#include "util/mem.h"

#define STORE_ROUNDS 8

void wh_ctl_store_result_fini(struct wh_ctl_store_result *r)
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

/* A certificate just made must pass the check the next sync makes. When it cannot (a renewal
 * margin as long as the validity, a name a certificate cannot be valid for), storing it would
 * only start the next renewal: a new certificate, or a CA rotation, at every sync. Refusing
 * it turns that loop into a sync error that names the cause, retried with backoff. */
static enum wh_err check_fresh(const struct wh_certs_controller *c,
                               const struct wh_certs_bundle *fresh, time_t now,
                               struct wh_errbuf *eb)
{
    struct wh_errbuf why = {{0}};
    if (wh_certs_bundle_validate(fresh, c->dns_name, now, c->env.renew_before_secs, &why) ==
        WH_CERTS_VALID)
        return WH_OK;
    return wh_errbuf_set(eb, WH_ERR_INVALID,
                         "certificates just generated for %s would be renewed at once (%s): "
                         "not stored",
                         c->dns_name, why.msg);
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
    /* A CA reusable for a year (CERT-41) may still end within a longer renewal margin: the
     * certificate it signs would be renewed at once, so a new CA is due instead. */
    if (!rc && d->reused && check_fresh(c, d->fresh, now, NULL) != WH_OK) {
        wh_certs_bundle_free(d->fresh);
        d->fresh = NULL;
        d->reused = false;
        rc = wh_certs_bundle_generate(&gen, &c->target, NULL, &d->fresh, NULL, eb);
    }
    X509_free(other);
    if (!rc)
        rc = check_fresh(c, d->fresh, now, eb);
    if (rc)
        return rc;
    if (!d->reused) {
        d->old = wh_ctl_cas_still_trusted(c, s->bundle, s->previous_ca, d->fresh);
        d->since = now;
        if (d->old[0]) {
            rc = wh_ctl_publish_ahead(c, d->fresh, d->old, eb);
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

static void keep_resource_version(struct wh_certs_controller *c, const json_t *obj)
{
    const char *rv = wh_json_meta_str(obj, "resourceVersion");
    free(c->secret_rv);
    c->secret_rv = rv ? wh_xstrdup(rv) : NULL;
}

/* The Secret writer (CERT-33/34/40/41) with the rotation protocol. */
enum wh_err wh_ctl_secret_writer(struct wh_certs_controller *c, struct wh_ctl_store_result *res,
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
    wh_ctl_count_writes(c, WH_CTL_SECRET, &out, rc);
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
enum wh_err wh_ctl_secret_reader(struct wh_certs_controller *c, struct wh_ctl_store_result *res,
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
enum wh_err wh_ctl_external_reader(struct wh_certs_controller *c, struct wh_ctl_store_result *res,
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
 * memory (one process per directory).
 * The directory is also what anyone can delete or spoil under us: then the material in effect
 * (c->current, which the HTTPS server still presents and the caBundles still trust) is
 * written back as long as it is valid, instead of a new CA that nothing trusts yet (CERT-39
 * would generate one, and requests would fail until the caBundles and the server caught up).
 * When it is not valid any more either, new certificates come with the rotation protocol:
 * the in-memory CA stays published beside the new one (wh_ctl_cas_still_trusted). */
enum wh_err wh_ctl_fs_writer(struct wh_certs_controller *c, struct wh_ctl_store_result *res,
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
    if (v != WH_CERTS_VALID && c->current &&
        wh_certs_bundle_validate(c->current, c->dns_name, now, c->env.renew_before_secs, NULL) ==
            WH_CERTS_VALID) {
        wh_log(WH_LOG_WARN,
               "cert dir %s lost the certificates this server presents (%s): writing them "
               "back (serial %s)",
               c->env.cert_dir, why.msg, c->serial);
        wh_certs_bundle_free(cur);
        cur = wh_certs_bundle_dup(c->current);
        v = WH_CERTS_VALID;
    }
    if (v == WH_CERTS_VALID) {
        res->bundle = cur;
        res->previous = c->previous ? wh_xstrdup(c->previous) : NULL;
        res->since = c->previous_since;
        return WH_OK;
    }
    struct wh_certs_gen_opts gen = c->gen;
    gen.now = now;
    rc = wh_certs_bundle_generate(&gen, &c->target, NULL, &fresh, NULL, eb);
    if (!rc)
        rc = check_fresh(c, fresh, now, eb);
    char *old = NULL;
    if (!rc) {
        old = wh_ctl_cas_still_trusted(c, cur, c->previous, fresh);
        if (old[0])
            rc = wh_ctl_publish_ahead(c, fresh, old, eb);
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
enum wh_err wh_ctl_secret_end_rotation(struct wh_certs_controller *c, struct wh_errbuf *eb)
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
    wh_ctl_count_writes(c, WH_CTL_SECRET, &out, rc);
    if (rc == WH_OK && out.stored)
        keep_resource_version(c, out.stored);
    wh_rmw_result_fini(&out);
    json_decref(base);
    return rc;
}
