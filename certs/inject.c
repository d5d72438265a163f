#include "certs/inject.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/x509.h>

#include "certs/pem.h"
#include "k8s/kruise.h"
#include "util/base64.h"
#include "util/json.h"
#include "util/jsoneq.h"
#include "util/mem.h"
#include "util/str.h"

static void put(json_t *obj, const char *key, json_t *value)
{
    /* Allocation aborts and keys are literals: a failure here is a programming error. */
    int r = json_object_set_new(obj, key, value);
    WH_ASSERT(r == 0 && value);
}

char *wh_certs_inject_entry_path(const json_t *cc)
{
    const json_t *svc = wh_json_obj(cc, "service");
    if (svc) {
        /* Read as the URL it becomes: up to '?' or '#', as a url's path below, so that an
         * entry rewritten into URL mode names the same path the next time (fuzz_certs_inject
         * found "/mutate-#" served, rewritten, then read as "/mutate-"). */
        const char *p = wh_json_str(svc, "path");
        size_t n = p ? strcspn(p, "?#") : 0;
        return n ? wh_xstrndup(p, n) : NULL;
    }
    const char *url = wh_json_str(cc, "url");
    if (!url)
        return NULL;
    /* scheme://authority/path?query#fragment: the path starts at the first '/' after the
     * authority and ends at '?' or '#'. */
    const char *p = strstr(url, "://");
    p = p ? p + 3 : url;
    p += strcspn(p, "/?#");
    if (*p != '/')
        return NULL;
    return wh_xstrndup(p, strcspn(p, "?#"));
}

char *wh_certs_inject_called_name(const json_t *cc)
{
    const json_t *svc = wh_json_obj(cc, "service");
    if (svc) {
        const char *name = wh_json_str(svc, "name"), *ns = wh_json_str(svc, "namespace");
        return name && ns ? wh_str_printf("%s.%s.svc", name, ns) : NULL;
    }
    const char *url = wh_json_str(cc, "url");
    const char *p = url ? strstr(url, "://") : NULL;
    if (!p)
        return NULL;
    p += 3;
    size_t n = p[0] == '[' ? strcspn(p, "]") + 1 : strcspn(p, ":/?#");
    return n > 0 && n <= strlen(p) ? wh_xstrndup(p, n) : NULL;
}

char *wh_certs_inject_url(const char *host, int port, const char *path)
{
    /* An IPv6 literal needs brackets in a URL; one given with brackets already keeps them. */
    bool v6 = strchr(host, ':') != NULL && host[0] != '[';
    return wh_str_printf("https://%s%s%s:%d%s", v6 ? "[" : "", host, v6 ? "]" : "", port, path);
}

static bool url_mode(const struct wh_certs_inject_target *t)
{
    return t->host && t->host[0];
}

static json_t *ca_bundle_b64(const struct wh_certs_inject_target *t)
{
    char *s = wh_base64_encode(t->ca_bundle ? t->ca_bundle : "", t->ca_bundle_len);
    json_t *v = json_string(s);
    free(s);
    return v;
}

/* Rewrites one served entry's clientConfig (a deep copy owned by the caller). */
static void set_client_config(json_t *cc, const char *path, const struct wh_certs_inject_target *t)
{
    put(cc, "caBundle", ca_bundle_b64(t));
    if (url_mode(t)) {
        json_object_del(cc, "service");
        char *url = wh_certs_inject_url(t->host, t->port, path);
        put(cc, "url", json_string(url));
        free(url);
        return;
    }
    json_t *svc = wh_json_obj(cc, "service");
    if (svc) {
        put(svc, "namespace", json_string(t->ns));
        put(svc, "name", json_string(t->service));
    }
}

/* "https://host:port/" of our URL mode, the prefix a URL must have to be ours. */
static bool url_is_ours(const char *url, const struct wh_certs_inject_target *t)
{
    if (!url_mode(t))
        return false;
    char *base = wh_certs_inject_url(t->host, t->port, "/");
    bool ours = wh_str_has_prefix(url, base);
    free(base);
    return ours;
}

static STACK_OF(X509) * certs_of(const void *pem, size_t len);
static bool stack_has(STACK_OF(X509) * sk, X509 *c);

/* The caBundle of cc holds a certificate of the target's bundle (our CA, or one of a rotation
 * in progress). */
static bool trusts_one_of_ours(const json_t *cc, const struct wh_certs_inject_target *t)
{
    const char *b64 = wh_json_str(cc, "caBundle");
    unsigned char *have = NULL;
    size_t len = 0;
    bool found = false;
    if (!b64 || !t->ca_bundle || wh_base64_decode(b64, strlen(b64), &have, &len) != WH_OK)
        return false;
    STACK_OF(X509) *a = certs_of(have, len), *b = certs_of(t->ca_bundle, t->ca_bundle_len);
    for (int i = 0; a && b && !found && i < sk_X509_num(a); i++)
        found = stack_has(b, sk_X509_value(a, i));
    sk_X509_pop_free(a, X509_free);
    sk_X509_pop_free(b, X509_free);
    free(have);
    return found;
}

/* An entry whose client config reaches this server: our Service, or our URL. */
static bool targets_us(const json_t *cc, const struct wh_certs_inject_target *t)
{
    const json_t *svc = wh_json_obj(cc, "service");
    if (svc)
        return wh_str_eq(wh_json_str(svc, "namespace"), t->ns) &&
               wh_str_eq(wh_json_str(svc, "name"), t->service);
    const char *url = wh_json_str(cc, "url");
    return url && url_is_ours(url, t);
}

/* Both absent, or equal. */
static bool same_member(const json_t *a, const json_t *b, const char *key)
{
    return wh_json_equal(json_object_get(a, key), json_object_get(b, key), WH_JSON_EQ_EXACT);
}

bool wh_certs_inject_same_target(const json_t *a, const json_t *b)
{
    return same_member(a, b, "url") && same_member(a, b, "service");
}

static void note_removed(struct wh_certs_inject_stats *st, const char *path)
{
    size_t used = strlen(st->removed_paths);
    snprintf(st->removed_paths + used, sizeof(st->removed_paths) - used, "%s%s", used ? ", " : "",
             path);
    st->removed++;
}

enum wh_err wh_certs_inject_webhooks(const json_t *config, const struct wh_certs_inject_target *t,
                                     json_t **out, struct wh_certs_inject_stats *st,
                                     struct wh_errbuf *eb)
{
    struct wh_certs_inject_stats local = {0};
    json_t *copy = NULL;
    *out = NULL;
    if (!st)
        st = &local;
    memset(st, 0, sizeof(*st));
    const char *name = wh_json_meta_str(config, "name");
    if (!name)
        return wh_errbuf_set(eb, WH_ERR_INVALID, "webhook configuration without metadata.name");
    const json_t *hooks = json_object_get(config, "webhooks");
    if (!hooks || json_is_null(hooks))
        return WH_OK;
    if (!json_is_array(hooks))
        return wh_errbuf_set(eb, WH_ERR_INVALID, "%s: webhooks is not a list", name);

    size_t i;
    const json_t *entry;
    /* Entries removed so far: the copy's index of entry i is i - removed. */
    size_t removed = 0;
    json_array_foreach(hooks, i, entry)
    {
        if (!json_is_object(entry)) {
            json_decref(copy);
            return wh_errbuf_set(eb, WH_ERR_INVALID, "%s: webhooks[%zu] is not an object", name, i);
        }
        st->entries++;
        const json_t *cc = wh_json_obj(entry, "clientConfig");
        char *path = wh_certs_inject_entry_path(cc);
        if (path && !t->serves(t->serves_arg, path) && t->knows && t->knows(t->serves_arg, path) &&
            targets_us(cc, t)) {
            if (!copy)
                copy = wh_json_copy(config);
            int r = json_array_remove(json_object_get(copy, "webhooks"), i - removed);
            WH_ASSERT(r == 0);
            removed++;
            note_removed(st, path);
        }
        if (!path || !t->serves(t->serves_arg, path)) {
            free(path);
            continue;
        }
        st->served++;
        if (url_mode(t) && wh_json_obj(cc, "service"))
            st->to_url++;
        json_t *want = cc ? wh_json_copy(cc) : json_object();
        set_client_config(want, path, t);
        free(path);
        if (cc && json_equal(want, cc)) {
            json_decref(want);
            continue;
        }
        st->changed++;
        if (!cc || !wh_certs_inject_same_target(want, cc))
            st->retargeted++;
        if (!copy)
            copy = wh_json_copy(config);
        json_t *centry = json_array_get(json_object_get(copy, "webhooks"), i - removed);
        put(centry, "clientConfig", want);
    }
    *out = copy;
    return WH_OK;
}

/* CERT-55: the Kruise API types known to the manager, by group, version and kind. */
static bool known_kruise_type(const char *group, const char *version, const char *kind)
{
    static const char *const apps_v1alpha1[] = {"AdvancedCronJob",
                                                "BroadcastJob",
                                                "CloneSet",
                                                "ContainerRecreateRequest",
                                                "DaemonSet",
                                                "EphemeralJob",
                                                "ImageListPullJob",
                                                "ImagePullJob",
                                                "NodeImage",
                                                "NodePodProbe",
                                                "PersistentPodState",
                                                "PodProbeMarker",
                                                "ResourceDistribution",
                                                "SidecarSet",
                                                "StatefulSet",
                                                "UnitedDeployment",
                                                "WorkloadSpread",
                                                NULL};
    static const char *const apps_v1beta1[] = {"AdvancedCronJob",
                                               "BroadcastJob",
                                               "CloneSet",
                                               "ContainerRecreateRequest",
                                               "DaemonSet",
                                               "ImageListPullJob",
                                               "ImagePullJob",
                                               "NodeImage",
                                               "PersistentPodState",
                                               "ResourceDistribution",
                                               "SidecarSet",
                                               "StatefulSet",
                                               "UnitedDeployment",
                                               "WorkloadSpread",
                                               NULL};
    const char *const *kinds = NULL;
    if (!group || !version || !kind)
        return false;
    if (strcmp(group, WH_KRUISE_APPS) == 0 && strcmp(version, "v1alpha1") == 0)
        kinds = apps_v1alpha1;
    else if (strcmp(group, WH_KRUISE_APPS) == 0 && strcmp(version, "v1beta1") == 0)
        kinds = apps_v1beta1;
    else if (strcmp(group, WH_KRUISE_POLICY) == 0 &&
             (strcmp(version, "v1alpha1") == 0 || strcmp(version, "v1beta1") == 0))
        return strcmp(kind, "PodUnavailableBudget") == 0;
    for (; kinds && *kinds; kinds++) {
        if (strcmp(*kinds, kind) == 0)
            return true;
    }
    return false;
}

bool wh_certs_inject_crd_selected(const json_t *crd, const struct wh_certs_inject_target *t)
{
    const json_t *spec = wh_json_obj(crd, "spec");
    const json_t *versions = wh_json_arr(spec, "versions");
    const json_t *conv = wh_json_obj(spec, "conversion");
    if (json_array_size(versions) == 0 || !conv ||
        !wh_str_eq(wh_json_str(conv, "strategy"), "Webhook"))
        return false;
    if (!known_kruise_type(wh_json_str(spec, "group"),
                           wh_json_str(json_array_get(versions, 0), "name"),
                           wh_json_path_str(spec, "names", "kind", NULL)))
        return false;
    const json_t *cc = wh_json_path(conv, "webhook", "clientConfig", NULL);
    const json_t *svc = wh_json_obj(cc, "service");
    const char *url = wh_json_str(cc, "url");
    if (!svc && !url)
        return true; /* Webhook strategy with no target: nobody else's */
    if (svc)
        return wh_str_eq(wh_json_str(svc, "namespace"), t->ns) &&
               wh_str_eq(wh_json_str(svc, "name"), t->service);
    if (url_is_ours(url, t))
        return true;
    /* Another host or port: ours before --port or --webhook-host changed when it still calls
     * the URL this server last wrote there, with a caBundle trusting our CA. Trust alone is
     * not enough: kruise-manager in URL mode, sharing our CA during a migration, points every
     * Kruise CRD at itself at each sync, and taking them back made the two rewrite each
     * other's without end. */
    return url_mode(t) && trusts_one_of_ours(cc, t) &&
           wh_str_eq(url, wh_json_path_str(crd, "metadata", "annotations",
                                           WH_CERTS_CRD_URL_ANNOTATION, NULL));
}

/* CERT-56 */
static json_t *desired_conversion_config(const struct wh_certs_inject_target *t)
{
    json_t *cc = json_object();
    if (url_mode(t)) {
        char *url = wh_certs_inject_url(t->host, t->port, "/convert");
        put(cc, "url", json_string(url));
        free(url);
    } else {
        json_t *svc = json_object();
        put(svc, "namespace", json_string(t->ns));
        put(svc, "name", json_string(t->service));
        put(svc, "path", json_string("/convert"));
        put(svc, "port", json_integer(443));
        put(cc, "service", svc);
    }
    put(cc, "caBundle", ca_bundle_b64(t));
    return cc;
}

void wh_certs_inject_crd(const json_t *crd, const struct wh_certs_inject_target *t, json_t **out)
{
    *out = NULL;
    if (!wh_certs_inject_crd_selected(crd, t))
        return;
    json_t *want = desired_conversion_config(t);
    const json_t *have = wh_json_path(crd, "spec", "conversion", "webhook", "clientConfig", NULL);
    const char *url = wh_json_str(want, "url");
    const char *noted =
        wh_json_path_str(crd, "metadata", "annotations", WH_CERTS_CRD_URL_ANNOTATION, NULL);
    if (have && json_equal(want, have) && (!url || wh_str_eq(url, noted))) {
        json_decref(want);
        return;
    }
    json_t *copy = wh_json_copy(crd);
    if (url) {
        json_t *md = json_object_get(copy, "metadata");
        if (!json_is_object(md)) {
            md = json_object();
            put(copy, "metadata", md);
        }
        json_t *ann = json_object_get(md, "annotations");
        if (!json_is_object(ann)) {
            ann = json_object();
            put(md, "annotations", ann);
        }
        put(ann, WH_CERTS_CRD_URL_ANNOTATION, json_string(url));
    }
    json_t *webhook = json_object();
    put(webhook, "clientConfig", want);
    json_t *versions = json_array();
    json_array_append_new(versions, json_string("v1"));
    json_array_append_new(versions, json_string("v1beta1"));
    put(webhook, "conversionReviewVersions", versions);
    put(wh_json_path(copy, "spec", "conversion", NULL), "webhook", webhook);
    *out = copy;
}

/* The decoded caBundle of a clientConfig. Returns: a new buffer (NULL when absent or not
 * base64). */
static unsigned char *decoded_bundle(const json_t *cc, size_t *len)
{
    const char *b64 = wh_json_str(cc, "caBundle");
    unsigned char *data = NULL;
    *len = 0;
    if (!b64)
        return NULL;
    if (wh_base64_decode(b64, strlen(b64), &data, len) != WH_OK)
        return NULL;
    return data;
}

static bool bundle_ok(const json_t *cc, const struct wh_certs_inject_target *t, bool exact)
{
    size_t len = 0;
    unsigned char *have = decoded_bundle(cc, &len);
    bool ok;
    if (exact)
        ok = have && len == t->ca_bundle_len && memcmp(have, t->ca_bundle, len) == 0;
    else
        ok = have && wh_certs_inject_bundle_trusts(have, len, t->ca_bundle, t->ca_bundle_len);
    free(have);
    return ok;
}

enum wh_err wh_certs_inject_verify_webhooks(const json_t *config, const char *kind,
                                            const struct wh_certs_inject_target *t, bool exact,
                                            struct wh_errbuf *eb)
{
    const char *name = wh_json_meta_str(config, "name");
    size_t i;
    const json_t *entry;
    json_array_foreach(json_object_get(config, "webhooks"), i, entry)
    {
        const json_t *cc = wh_json_obj(entry, "clientConfig");
        char *path = wh_certs_inject_entry_path(cc);
        bool served = path && t->serves(t->serves_arg, path);
        free(path);
        if (served && !bundle_ok(cc, t, exact))
            return wh_errbuf_set(eb, WH_ERR_INVALID,
                                 "caBundle of %s %s does not match the %s caBundle", kind,
                                 name ? name : "?", exact ? "external" : "stored");
    }
    return WH_OK;
}

enum wh_err wh_certs_inject_verify_crd(const json_t *crd, const struct wh_certs_inject_target *t,
                                       bool exact, struct wh_errbuf *eb)
{
    const char *name = wh_json_meta_str(crd, "name");
    if (!wh_certs_inject_crd_selected(crd, t))
        return WH_OK;
    const json_t *cc = wh_json_path(crd, "spec", "conversion", "webhook", "clientConfig", NULL);
    if (!cc)
        return wh_errbuf_set(eb, WH_ERR_INVALID, "bad conversion configuration of CRD %s",
                             name ? name : "?");
    if (!bundle_ok(cc, t, exact))
        return wh_errbuf_set(eb, WH_ERR_INVALID, "caBundle of CRD %s does not match %s caBundle",
                             name ? name : "?", exact ? "external" : "stored");
    return WH_OK;
}

static STACK_OF(X509) * certs_of(const void *pem, size_t len)
{
    STACK_OF(X509) *sk = NULL;
    if (!pem || !len || wh_certs_pem_certs(pem, len, false, &sk) != WH_OK)
        return NULL;
    return sk;
}

static bool stack_has(STACK_OF(X509) * sk, X509 *c)
{
    for (int i = 0; i < sk_X509_num(sk); i++) {
        if (X509_cmp(sk_X509_value(sk, i), c) == 0)
            return true;
    }
    return false;
}

bool wh_certs_inject_bundle_trusts(const void *bundle, size_t bundle_len, const void *cas,
                                   size_t cas_len)
{
    STACK_OF(X509) *have = certs_of(bundle, bundle_len), *want = certs_of(cas, cas_len);
    bool ok = have && want && sk_X509_num(want) > 0;
    for (int i = 0; ok && i < sk_X509_num(want); i++)
        ok = stack_has(have, sk_X509_value(want, i));
    sk_X509_pop_free(have, X509_free);
    sk_X509_pop_free(want, X509_free);
    return ok;
}

int wh_certs_inject_count_cas(const void *pem, size_t len)
{
    STACK_OF(X509) *sk = certs_of(pem, len);
    int n = sk ? sk_X509_num(sk) : 0;
    sk_X509_pop_free(sk, X509_free);
    return n;
}

static enum wh_err append_cert(char **out, size_t *out_len, X509 *c)
{
    char *pem = NULL;
    size_t len = 0;
    enum wh_err rc = wh_certs_pem_encode_cert(c, &pem, &len);
    if (rc)
        return rc;
    *out = wh_xrealloc(*out, *out_len + len + 1);
    memcpy(*out + *out_len, pem, len + 1);
    *out_len += len;
    free(pem);
    return WH_OK;
}

void wh_certs_inject_other_cas(const void *cas, size_t cas_len, const void *exclude,
                               size_t exclude_len, long long now, char **out, size_t *out_len)
{
    STACK_OF(X509) *all = certs_of(cas, cas_len), *ex = certs_of(exclude, exclude_len);
    STACK_OF(X509) *seen = sk_X509_new_null();
    char *text = wh_xstrdup("");
    size_t len = 0;
    time_t t = (time_t)now;

    for (int i = 0; all && i < sk_X509_num(all); i++) {
        X509 *c = sk_X509_value(all, i);
        if ((ex && stack_has(ex, c)) || stack_has(seen, c) ||
            X509_cmp_time(X509_get0_notAfter(c), &t) <= 0)
            continue;
        /* Encoding a certificate that parsed cannot fail short of a broken OpenSSL. */
        if (append_cert(&text, &len, c) == WH_OK)
            sk_X509_push(seen, c);
    }
    sk_X509_free(seen); /* borrowed pointers: all owns them */
    sk_X509_pop_free(all, X509_free);
    sk_X509_pop_free(ex, X509_free);
    *out = text;
    *out_len = len;
}
