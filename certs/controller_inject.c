#include "certs/controller_int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "certs/inject.h"
#include "kube/cache.h"
#include "kube/cluster.h"
#include "log/log.h"
#include "util/json.h"
#include "util/str.h"
#include "util/time.h"

/* CRDs are large (their schemas) and a parsed object stays in the cache once opened, so the
 * controller never opens them: it works on this view, the few fields CERT-55..57 look at and
 * the annotation naming the URL this server last wrote, and reads a whole CRD from the API
 * server only when it has to write it. */
void *wh_ctl_crd_view_new(const json_t *obj)
{
    const json_t *spec = wh_json_obj(obj, "spec");
    const json_t *conv = wh_json_obj(spec, "conversion");
    const char *url = wh_json_path_str(obj, "metadata", "annotations",
                                       WH_CERTS_CRD_URL_ANNOTATION, NULL);
    json_t *v = json_pack("{s:{s:s?,s:s?,s:{s:s?}},s:{s:s?,s:{s:s?},s:[{s:s?}],s:o?}}",
                          "metadata", "name", wh_json_meta_str(obj, "name"), "resourceVersion",
                          wh_json_meta_str(obj, "resourceVersion"), "annotations",
                          WH_CERTS_CRD_URL_ANNOTATION, url, "spec", "group",
                          wh_json_str(spec, "group"), "names", "kind",
                          wh_json_path_str(spec, "names", "kind", NULL), "versions", "name",
                          wh_json_str(json_array_get(wh_json_arr(spec, "versions"), 0), "name"),
                          "conversion", conv ? json_deep_copy(conv) : NULL);
    WH_ASSERT(v != NULL);
    if (json_array_size(wh_json_arr(spec, "versions")) == 0)
        json_array_clear(wh_json_path(v, "spec", "versions", NULL));
    return v;
}

void wh_ctl_crd_view_free(void *view)
{
    json_decref(view);
}

const json_t *wh_ctl_crd_view(const struct wh_object *o)
{
    const json_t *v = wh_object_view(o);
    return v ? v : wh_object_json(o);
}

void wh_ctl_target_for(const struct wh_certs_controller *c, const char *bundle, size_t len,
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
enum wh_err wh_ctl_get_config(struct wh_certs_controller *c, enum wh_ctl_kind k, json_t **out,
                              struct wh_errbuf *eb)
{
    const char *name =
        k == WH_CTL_MUTATING ? c->cfg->mutating_config_name : c->cfg->validating_config_name;
    const struct wh_resource *r =
        wh_resource_get(k == WH_CTL_MUTATING ? WH_RES_MUTATING_WEBHOOK_CONFIGURATION
                                             : WH_RES_VALIDATING_WEBHOOK_CONFIGURATION);
    struct wh_errbuf why = {{0}};
    enum wh_err rc = wh_cluster_get_live(c->cluster, r->group, r->versions[0], r->resource, NULL,
                                         name, out, &why);
    if (rc == WH_ERR_NOT_FOUND) {
        *out = NULL;
        WH_LOG_EVERY(60, WH_LOG_WARN, "not found %s %s: no caBundle to keep there",
                     wh_ctl_kind_names[k], name);
        return WH_OK;
    }
    if (rc)
        return wh_errbuf_set(eb, rc, "get %s %s: %s", wh_ctl_kind_names[k], name, why.msg);
    return WH_OK;
}

/* Our writes are idempotent: writing the same caBundle into the same configuration again
 * within a minute means someone keeps undoing it (another controller with the same
 * configuration names, or a second writer without election). Worth a warning, not a fight. */
static void note_rewrite(struct wh_certs_controller *c, enum wh_ctl_kind k, const char *bundle,
                         size_t len)
{
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)bundle[i]) * 1099511628211ULL;
    int64_t now = wh_time_mono_ns();
    if (c->last_write_ns[k] && h == c->last_write_hash[k] &&
        now - c->last_write_ns[k] < 60000 * WH_CTL_MS)
        WH_LOG_EVERY(60, WH_LOG_WARN,
                     "%s was changed back %.1f s after we wrote it (re-applied manifests, or "
                     "another controller managing it?)",
                     wh_ctl_kind_names[k], (double)(now - c->last_write_ns[k]) / 1e9);
    c->last_write_ns[k] = now;
    c->last_write_hash[k] = h;
}

/* What a changed entry or CRD called before: "" when only its caBundle differed. */
static void what_changed(const json_t *was, const json_t *now, char *out, size_t outsz)
{
    out[0] = '\0';
    if (!was || wh_certs_inject_same_target(was, now))
        return;
    const char *url = wh_json_str(was, "url");
    const json_t *svc = wh_json_obj(was, "service");
    if (url)
        snprintf(out, outsz, " (it called %s)", url);
    else if (svc)
        snprintf(out, outsz, " (it called Service %s/%s)", wh_json_str(svc, "namespace"),
                 wh_json_str(svc, "name"));
    else
        snprintf(out, outsz, " (it called nothing)");
}

/* Writes the caBundle everywhere it must be (CERT-52, CERT-57), only where it differs: the
 * caBundle and the target (URL or Service), so a changed --port or --webhook-host reaches
 * the CRDs' conversions as well as the entries. The first failure ends the pass, as
 * upstream: the sync is retried. Objects found different and not written stay counted in
 * kruise_webhook_certs_drift until a pass writes them. */
enum wh_err wh_ctl_inject_all(struct wh_certs_controller *c, const char *bundle, size_t len,
                              struct wh_errbuf *eb)
{
    struct wh_certs_inject_target t;
    enum wh_err rc = WH_OK;
    int drift[WH_CTL_KINDS] = {0};
    wh_ctl_target_for(c, bundle, len, &t);
    for (enum wh_ctl_kind k = WH_CTL_MUTATING; k <= WH_CTL_VALIDATING && !rc; k++) {
        json_t *live = NULL, *want = NULL;
        struct wh_certs_inject_stats stats;
        struct wh_errbuf why = {{0}};
        rc = wh_ctl_get_config(c, k, &live, eb);
        if (!rc && live)
            rc = wh_certs_inject_webhooks(live, &t, &want, &stats, eb);
        if (!rc && want) {
            rc = wh_cluster_update(c->cluster,
                                   k == WH_CTL_MUTATING ? WH_RES_MUTATING_WEBHOOK_CONFIGURATION
                                                        : WH_RES_VALIDATING_WEBHOOK_CONFIGURATION,
                                   want, false, NULL, &why);
            wh_ctl_count_write(c, k, rc);
            drift[k] = rc != WH_OK;
            if (rc)
                wh_errbuf_set(eb, rc, "failed to update %s %s: %s", wh_ctl_kind_names[k],
                              wh_json_meta_str(live, "name"), why.msg);
            else if (stats.retargeted)
                wh_log(WH_LOG_WARN,
                       "repaired %d of %d webhooks in %s %s: %d of them called another URL or "
                       "Service than this server",
                       stats.changed, stats.entries, wh_ctl_kind_names[k],
                       wh_json_meta_str(live, "name"), stats.retargeted);
            else if (stats.changed)
                wh_log(WH_LOG_INFO, "updated caBundle of %d of %d webhooks in %s %s", stats.changed,
                       stats.entries, wh_ctl_kind_names[k], wh_json_meta_str(live, "name"));
            if (!rc && stats.removed)
                wh_log(WH_LOG_WARN,
                       "removed %d webhooks from %s %s: their paths are not served with these "
                       "settings (%s); a feature gate turns them on",
                       stats.removed, wh_ctl_kind_names[k], wh_json_meta_str(live, "name"),
                       stats.removed_paths);
            if (!rc)
                warn_to_url(wh_ctl_kind_names[k], wh_json_meta_str(live, "name"), stats.to_url);
            if (!rc)
                note_rewrite(c, k, bundle, len);
        }
        json_decref(want);
        json_decref(live);
    }
    if (rc)
        goto out;

    struct wh_objlist l;
    wh_objlist_init(&l);
    wh_cache_list(c->crds, NULL, &l);
    for (size_t i = 0; i < l.n && !rc; i++) {
        json_t *want = NULL, *live = NULL;
        struct wh_errbuf why = {{0}};
        wh_certs_inject_crd(wh_ctl_crd_view(l.items[i]), &t, &want);
        if (!want)
            continue;
        json_decref(want);
        want = NULL;
        const struct wh_resource *crd = wh_resource_get(WH_RES_CRD);
        rc = wh_cluster_get_live(c->cluster, crd->group, crd->versions[0], crd->resource, NULL,
                                 wh_object_name(l.items[i]), &live, &why);
        if (rc == WH_ERR_NOT_FOUND) {
            rc = WH_OK; /* deleted meanwhile */
            continue;
        }
        bool had_service = false, same_config = false;
        char was[300] = "";
        const char *now_calls = "this server's Service";
        if (!rc) {
            const json_t *cc =
                wh_json_path(live, "spec", "conversion", "webhook", "clientConfig", NULL);
            wh_certs_inject_crd(live, &t, &want);
            had_service = wh_json_obj(cc, "service") != NULL;
            const json_t *to =
                wh_json_path(want, "spec", "conversion", "webhook", "clientConfig", NULL);
            if (to)
                what_changed(cc, to, was, sizeof(was));
            same_config = cc && to && json_equal(cc, to);
            if (wh_json_str(to, "url"))
                now_calls = wh_json_str(to, "url");
        }
        json_decref(live);
        if (rc || !want) {
            if (rc)
                wh_errbuf_set(eb, rc, "get CRD %s: %s", wh_object_name(l.items[i]), why.msg);
            drift[WH_CTL_CRD] += rc != WH_OK;
            continue;
        }
        rc = wh_cluster_update(c->cluster, WH_RES_CRD, want, false, NULL, &why);
        wh_ctl_count_write(c, WH_CTL_CRD, rc);
        drift[WH_CTL_CRD] += rc != WH_OK;
        if (rc)
            wh_errbuf_set(eb, rc, "failed to update CRD %s: %s", wh_object_name(l.items[i]),
                          why.msg);
        else if (was[0])
            wh_log(WH_LOG_WARN, "repaired the conversion of CRD %s%s: it calls %s now",
                   wh_object_name(l.items[i]), was, now_calls);
        else if (same_config)
            wh_log(WH_LOG_INFO, "noted in CRD %s the conversion URL this server wrote (%s)",
                   wh_object_name(l.items[i]), now_calls);
        else
            wh_log(WH_LOG_INFO, "updated conversion caBundle of CRD %s",
                   wh_object_name(l.items[i]));
        if (!rc && t.host && t.host[0] && had_service)
            warn_to_url("CRD", wh_object_name(l.items[i]), 1);
        json_decref(want);
    }
    wh_objlist_fini(&l);
out:
    for (enum wh_ctl_kind k = WH_CTL_MUTATING; k < WH_CTL_KINDS; k++)
        wh_metric_set(c->m.drift[k], drift[k]);
    return rc;
}

/* CERT-38 (exact) and the non-writing replicas' wait (trusting). */
enum wh_err wh_ctl_verify_all(struct wh_certs_controller *c, const char *bundle, size_t len,
                              bool exact, struct wh_errbuf *eb)
{
    struct wh_certs_inject_target t;
    enum wh_err rc = WH_OK;
    wh_ctl_target_for(c, bundle, len, &t);
    for (enum wh_ctl_kind k = WH_CTL_MUTATING; k <= WH_CTL_VALIDATING && !rc; k++) {
        json_t *live = NULL;
        rc = wh_ctl_get_config(c, k, &live, eb);
        if (!rc && live)
            rc = wh_certs_inject_verify_webhooks(live, wh_ctl_kind_names[k], &t, exact, eb);
        json_decref(live);
    }
    struct wh_objlist l;
    wh_objlist_init(&l);
    wh_cache_list(c->crds, NULL, &l);
    for (size_t i = 0; i < l.n && !rc; i++)
        rc = wh_certs_inject_verify_crd(wh_ctl_crd_view(l.items[i]), &t, exact, eb);
    wh_objlist_fini(&l);
    return rc;
}
