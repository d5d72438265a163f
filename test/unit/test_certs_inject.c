/* Tests for certs/inject.c: caBundle and client config of webhook entries (CERT-50..53 as this
 * project defines them), CRD selection and conversion config (CERT-55..57), verification
 * (CERT-38), and the CA lists of a rotation. Pure JSON in, JSON out: no API server. */
#include "test/unit/test.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "certs/bundle.h"
#include "certs/inject.h"
#include "certs/keypair.h"
#include "config/config.h"
#include "handlers/registry.h"
#include "util/base64.h"
#include "util/json.h"
#include "util/str.h"
#include "util/yaml.h"

static bool serves_two(void *arg, const char *path)
{
    (void)arg;
    return strcmp(path, "/validate-namespace") == 0 || strcmp(path, "/mutate-pod") == 0 ||
           strcmp(path, "/convert") == 0;
}

static struct wh_certs_inject_target target(const char *bundle)
{
    struct wh_certs_inject_target t = {
        .ns = "kruise-system",
        .service = "my-svc",
        .host = NULL,
        .port = 9876,
        .ca_bundle = bundle,
        .ca_bundle_len = strlen(bundle),
        .serves = serves_two,
    };
    return t;
}

static char *b64(const char *s)
{
    return wh_base64_encode(s, strlen(s));
}

static json_t *config_with_entries(void)
{
    return wh_test_json(
        "{\"apiVersion\":\"admissionregistration.k8s.io/v1\","
        "\"kind\":\"ValidatingWebhookConfiguration\",\"metadata\":{\"name\":\"v\","
        "\"resourceVersion\":\"7\"},\"webhooks\":["
        "{\"name\":\"vns.kb.io\",\"rules\":[{\"operations\":[\"DELETE\"]}],"
        " \"clientConfig\":{\"service\":{\"namespace\":\"old\",\"name\":\"old-svc\","
        "  \"path\":\"/validate-namespace\",\"port\":443},\"caBundle\":\"Cg==\"}},"
        "{\"name\":\"other.kb.io\",\"clientConfig\":{\"service\":{\"namespace\":\"x\","
        "  \"name\":\"y\",\"path\":\"/validate-something-else\"},\"caBundle\":\"Cg==\"}},"
        "{\"name\":\"nopath.kb.io\",\"clientConfig\":{\"service\":{\"namespace\":\"x\","
        "  \"name\":\"y\"}}},"
        "{\"name\":\"url.kb.io\",\"clientConfig\":{\"url\":\"https://h:1/mutate-pod?x=1\"}}]}");
}

/* CERT-52 (served entries get caBundle and our service; port and path kept; others
 * untouched, including one without a path, which upstream would crash on) and CERT-53
 * (idempotent: the result needs no further change). */
TEST(cert52_served_entries_get_cabundle_and_service)
{
    const char *pem = "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n";
    struct wh_certs_inject_target t = target(pem);
    json_t *cfg = config_with_entries(), *out = NULL, *again = NULL;
    struct wh_certs_inject_stats st;
    struct wh_errbuf eb = {{0}};
    char *want = b64(pem);

    CHECK_EQ_INT(wh_certs_inject_webhooks(cfg, &t, &out, &st, &eb), WH_OK);
    CHECK(out != NULL);
    CHECK_EQ_INT(st.entries, 4);
    CHECK_EQ_INT(st.served, 2);
    CHECK_EQ_INT(st.changed, 2);
    json_t *hooks = json_object_get(out, "webhooks");
    json_t *cc0 = wh_json_obj(json_array_get(hooks, 0), "clientConfig");
    CHECK_EQ_STR(wh_json_str(cc0, "caBundle"), want);
    CHECK_EQ_STR(wh_json_path_str(cc0, "service", "namespace", NULL), "kruise-system");
    CHECK_EQ_STR(wh_json_path_str(cc0, "service", "name", NULL), "my-svc");
    CHECK_EQ_STR(wh_json_path_str(cc0, "service", "path", NULL), "/validate-namespace");
    CHECK_EQ_INT(json_integer_value(wh_json_path(cc0, "service", "port", NULL)), 443);
    CHECK_EQ_JSON(json_object_get(json_array_get(hooks, 0), "rules"),
                  json_object_get(json_array_get(json_object_get(cfg, "webhooks"), 0), "rules"));
    /* unserved and path-less entries: exactly as they were */
    for (size_t i = 1; i <= 2; i++)
        CHECK_EQ_JSON(json_array_get(hooks, i),
                      json_array_get(json_object_get(cfg, "webhooks"), i));
    /* service mode keeps an entry's own URL, as upstream */
    json_t *cc3 = wh_json_obj(json_array_get(hooks, 3), "clientConfig");
    CHECK_EQ_STR(wh_json_str(cc3, "url"), "https://h:1/mutate-pod?x=1");
    CHECK_EQ_STR(wh_json_str(cc3, "caBundle"), want);
    /* input untouched */
    CHECK_EQ_STR(wh_json_path_str(json_array_get(json_object_get(cfg, "webhooks"), 0),
                                  "clientConfig", "caBundle", NULL),
                 "Cg==");

    CHECK_EQ_INT(wh_certs_inject_webhooks(out, &t, &again, &st, &eb), WH_OK);
    CHECK(again == NULL);
    CHECK_EQ_INT(st.changed, 0);
    json_decref(out);
    json_decref(cfg);
    free(want);
}

/* CERT-11/52 in URL mode: entries point at https://<host>:<port><path>; IPv6 bracketed. */
TEST(cert52_url_mode_entries)
{
    const char *pem = "PEM";
    struct wh_certs_inject_target t = target(pem);
    json_t *cfg = config_with_entries(), *out = NULL;
    struct wh_errbuf eb = {{0}};
    t.host = "10.0.0.5";
    t.port = 9443;
    CHECK_EQ_INT(wh_certs_inject_webhooks(cfg, &t, &out, NULL, &eb), WH_OK);
    json_t *hooks = json_object_get(out, "webhooks");
    json_t *cc0 = wh_json_obj(json_array_get(hooks, 0), "clientConfig");
    CHECK(json_object_get(cc0, "service") == NULL);
    CHECK_EQ_STR(wh_json_str(cc0, "url"), "https://10.0.0.5:9443/validate-namespace");
    CHECK_EQ_STR(wh_json_str(wh_json_obj(json_array_get(hooks, 3), "clientConfig"), "url"),
                 "https://10.0.0.5:9443/mutate-pod");
    json_decref(out);

    t.host = "fd00::5";
    CHECK_EQ_INT(wh_certs_inject_webhooks(cfg, &t, &out, NULL, &eb), WH_OK);
    cc0 = wh_json_obj(json_array_get(json_object_get(out, "webhooks"), 0), "clientConfig");
    CHECK_EQ_STR(wh_json_str(cc0, "url"), "https://[fd00::5]:9443/validate-namespace");
    json_decref(out);
    json_decref(cfg);

    char *u = wh_certs_inject_url("[fd00::5]", 1, "/x");
    CHECK_EQ_STR(u, "https://[fd00::5]:1/x");
    free(u);
}

static bool knows_service_ingress(void *arg, const char *path)
{
    return serves_two(arg, path) || strcmp(path, "/validate-service") == 0 ||
           strcmp(path, "/validate-ingress") == 0;
}

/* Issue 10: entries that point at us for a path known but turned off (a feature gate) are
 * removed; entries for other servers and for paths this version does not know are kept.
 * URL mode counts the entries whose Service became our URL. */
TEST(certs_unserved_entries_of_ours_are_removed)
{
    const char *pem = "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n";
    struct wh_certs_inject_target t = target(pem);
    t.knows = knows_service_ingress;
    json_t *cfg = wh_test_json(
        "{\"metadata\":{\"name\":\"v\"},\"webhooks\":["
        "{\"name\":\"svc-ours\",\"clientConfig\":{\"service\":{\"namespace\":"
        "\"kruise-system\",\"name\":\"my-svc\",\"path\":\"/validate-service\"}}},"
        "{\"name\":\"ns\",\"clientConfig\":{\"service\":{\"namespace\":\"kruise-system\","
        "  \"name\":\"my-svc\",\"path\":\"/validate-namespace\"}}},"
        "{\"name\":\"svc-theirs\",\"clientConfig\":{\"service\":{\"namespace\":"
        "\"kruise-system\",\"name\":\"kruise-webhook-service\",\"path\":"
        "\"/validate-service\"}}},"
        "{\"name\":\"future\",\"clientConfig\":{\"service\":{\"namespace\":"
        "\"kruise-system\",\"name\":\"my-svc\",\"path\":\"/validate-future\"}}},"
        "{\"name\":\"ingress-ours\",\"clientConfig\":{\"service\":{\"namespace\":"
        "\"kruise-system\",\"name\":\"my-svc\",\"path\":\"/validate-ingress\"}}}]}");
    json_t *out = NULL;
    struct wh_certs_inject_stats st;
    CHECK_EQ_INT(wh_certs_inject_webhooks(cfg, &t, &out, &st, NULL), WH_OK);
    CHECK_EQ_INT(st.entries, 5);
    CHECK_EQ_INT(st.removed, 2);
    CHECK_EQ_STR(st.removed_paths, "/validate-service, /validate-ingress");
    CHECK_EQ_INT(st.served, 1);
    CHECK_EQ_INT(st.to_url, 0);
    json_t *hooks = json_object_get(out, "webhooks");
    CHECK_EQ_INT(json_array_size(hooks), 3);
    CHECK_EQ_STR(wh_json_str(json_array_get(hooks, 0), "name"), "ns");
    CHECK(wh_json_path_str(json_array_get(hooks, 0), "clientConfig", "caBundle", NULL) != NULL);
    CHECK_EQ_STR(wh_json_str(json_array_get(hooks, 1), "name"), "svc-theirs");
    CHECK_EQ_STR(wh_json_str(json_array_get(hooks, 2), "name"), "future");
    json_t *again = NULL;
    CHECK_EQ_INT(wh_certs_inject_webhooks(out, &t, &again, &st, NULL), WH_OK);
    CHECK(again == NULL);
    json_decref(out);
    out = NULL;

    /* Without the hook nothing is removed (the behaviour before issue 10). */
    t.knows = NULL;
    CHECK_EQ_INT(wh_certs_inject_webhooks(cfg, &t, &out, &st, NULL), WH_OK);
    CHECK_EQ_INT(st.removed, 0);
    CHECK_EQ_INT(json_array_size(json_object_get(out, "webhooks")), 5);
    json_decref(out);
    out = NULL;

    /* URL mode: our Service's entries become URLs (counted), and an entry with our URL for a
     * turned-off path goes too; another server's URL stays. */
    t.knows = knows_service_ingress;
    t.host = "127.0.0.1";
    json_t *url_cfg = wh_test_json(
        "{\"metadata\":{\"name\":\"v\"},\"webhooks\":["
        "{\"name\":\"ns\",\"clientConfig\":{\"service\":{\"namespace\":\"kruise-system\","
        "  \"name\":\"my-svc\",\"path\":\"/validate-namespace\"}}},"
        "{\"name\":\"svc-url-ours\",\"clientConfig\":{\"url\":"
        "\"https://127.0.0.1:9876/validate-service\"}},"
        "{\"name\":\"svc-url-theirs\",\"clientConfig\":{\"url\":"
        "\"https://10.0.0.1:9876/validate-service\"}}]}");
    CHECK_EQ_INT(wh_certs_inject_webhooks(url_cfg, &t, &out, &st, NULL), WH_OK);
    CHECK_EQ_INT(st.removed, 1);
    CHECK_EQ_INT(st.to_url, 1);
    hooks = json_object_get(out, "webhooks");
    CHECK_EQ_INT(json_array_size(hooks), 2);
    CHECK_EQ_STR(wh_json_path_str(json_array_get(hooks, 0), "clientConfig", "url", NULL),
                 "https://127.0.0.1:9876/validate-namespace");
    CHECK_EQ_STR(wh_json_str(json_array_get(hooks, 1), "name"), "svc-url-theirs");
    json_decref(out);
    json_decref(url_cfg);
    json_decref(cfg);
}

/* The path clientConfig cc (JSON text) targets, compared with want (NULL: none). */
static void check_entry_path(const char *cc_text, const char *want)
{
    json_t *cc = wh_test_json(cc_text);
    char *p = wh_certs_inject_entry_path(cc);
    if (want)
        CHECK_EQ_STR(p, want);
    else
        CHECK(p == NULL);
    free(p);
    json_decref(cc);
}

TEST(cert52_entry_paths_and_bad_shapes)
{
    check_entry_path("{\"url\":\"https://a.b:8443/p/q?x#y\"}", "/p/q");
    check_entry_path("{\"url\":\"https://a.b:8443\"}", NULL);
    check_entry_path("{\"service\":{\"name\":\"x\",\"path\":\"\"}}", NULL);
    /* A service path is read up to '?' or '#' as well (fuzz_certs_inject: rewritten into URL
     * mode it must name the same path again). */
    check_entry_path("{\"service\":{\"name\":\"x\",\"path\":\"/mutate-pod#x\"}}", "/mutate-pod");
    check_entry_path("{\"service\":{\"name\":\"x\",\"path\":\"?q\"}}", NULL);
    CHECK(wh_certs_inject_entry_path(NULL) == NULL);

    struct wh_certs_inject_target t = target("PEM");
    json_t *out = NULL;
    struct wh_errbuf eb = {{0}};
    json_t *bad = wh_test_json("{\"metadata\":{\"name\":\"m\"},\"webhooks\":{}}");
    CHECK_EQ_INT(wh_certs_inject_webhooks(bad, &t, &out, NULL, &eb), WH_ERR_INVALID);
    json_decref(bad);
    bad = wh_test_json("{\"metadata\":{\"name\":\"m\"},\"webhooks\":[3]}");
    CHECK_EQ_INT(wh_certs_inject_webhooks(bad, &t, &out, NULL, &eb), WH_ERR_INVALID);
    json_decref(bad);
    bad = wh_test_json("{\"metadata\":{\"name\":\"m\"}}");
    CHECK_EQ_INT(wh_certs_inject_webhooks(bad, &t, &out, NULL, &eb), WH_OK);
    CHECK(out == NULL);
    json_decref(bad);
}

static json_t *crd(const char *group, const char *first_version, const char *kind,
                   const char *strategy, const char *client_config)
{
    char *text = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&text, &n);
    fprintf(f,
            "{\"apiVersion\":\"apiextensions.k8s.io/v1\",\"kind\":\"CustomResourceDefinition\","
            "\"metadata\":{\"name\":\"x.%s\",\"resourceVersion\":\"3\"},\"spec\":{\"group\":"
            "\"%s\",\"names\":{\"kind\":\"%s\",\"plural\":\"x\"},\"versions\":[{\"name\":\"%s\"},"
            "{\"name\":\"v9\"}],\"conversion\":{\"strategy\":\"%s\"%s%s%s}}}",
            group, group, kind, first_version, strategy, client_config ? ",\"webhook\":{" : "",
            client_config ? client_config : "", client_config ? "}" : "");
    fclose(f);
    json_t *j = wh_test_json(text);
    free(text);
    return j;
}

/* CERT-55: strategy Webhook, a Kruise type by the first listed version, and pointing at us. */
TEST(cert55_crd_selection)
{
    struct wh_certs_inject_target t = target("PEM");
    const char *ours = "\"clientConfig\":{\"service\":{\"namespace\":\"kruise-system\","
                       "\"name\":\"my-svc\",\"path\":\"/convert\"}}";
    const char *theirs = "\"clientConfig\":{\"service\":{\"namespace\":\"kruise-system\","
                         "\"name\":\"kruise-webhook-service\",\"path\":\"/convert\"}}";
    struct {
        json_t *crd;
        bool selected;
    } cases[] = {
        {crd("apps.kruise.io", "v1alpha1", "CloneSet", "Webhook", ours), true},
        {crd("apps.kruise.io", "v1beta1", "SidecarSet", "Webhook", NULL), true},
        {crd("policy.kruise.io", "v1alpha1", "PodUnavailableBudget", "Webhook", ours), true},
        {crd("apps.kruise.io", "v1alpha1", "CloneSet", "None", ours), false},
        {crd("apps.kruise.io", "v1alpha1", "CloneSet", "Webhook", theirs), false},
        {crd("apps.kruise.io", "v1beta1", "EphemeralJob", "Webhook", ours), false},
        {crd("apps.kruise.io", "v2", "CloneSet", "Webhook", ours), false},
        {crd("example.com", "v1alpha1", "CloneSet", "Webhook", ours), false},
        {crd("policy.kruise.io", "v1beta1", "CloneSet", "Webhook", ours), false},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        bool got = wh_certs_inject_crd_selected(cases[i].crd, &t);
        if (got != cases[i].selected)
            fprintf(stderr, "case %zu\n", i);
        CHECK(got == cases[i].selected);
        json_decref(cases[i].crd);
    }
    json_t *no_versions =
        wh_test_json("{\"spec\":{\"group\":\"apps.kruise.io\",\"names\":{\"kind\":\"CloneSet\"},"
                     "\"versions\":[],\"conversion\":{\"strategy\":\"Webhook\"}}}");
    CHECK(!wh_certs_inject_crd_selected(no_versions, &t));
    json_decref(no_versions);

    /* URL mode: a URL on our host and port is ours, another is not. */
    t.host = "10.0.0.5";
    json_t *url_ours = crd("apps.kruise.io", "v1alpha1", "CloneSet", "Webhook",
                           "\"clientConfig\":{\"url\":\"https://10.0.0.5:9876/convert\"}");
    json_t *url_theirs = crd("apps.kruise.io", "v1alpha1", "CloneSet", "Webhook",
                             "\"clientConfig\":{\"url\":\"https://10.0.0.6:9876/convert\"}");
    CHECK(wh_certs_inject_crd_selected(url_ours, &t));
    CHECK(!wh_certs_inject_crd_selected(url_theirs, &t));
    json_decref(url_ours);
    json_decref(url_theirs);
}

/* CERT-56/57: desired client config, conversionReviewVersions, no write when equal. */
TEST(cert57_crd_conversion_config)
{
    const char *pem = "-----BEGIN CERTIFICATE-----\nAA==\n-----END CERTIFICATE-----\n";
    struct wh_certs_inject_target t = target(pem);
    json_t *in = crd("apps.kruise.io", "v1beta1", "CloneSet", "Webhook",
                     "\"clientConfig\":{\"service\":{\"namespace\":\"kruise-system\","
                     "\"name\":\"my-svc\",\"path\":\"/convert\"}},"
                     "\"conversionReviewVersions\":[\"v1\"]");
    json_t *out = NULL, *again = NULL;
    wh_certs_inject_crd(in, &t, &out);
    CHECK(out != NULL);
    char *want_b64 = b64(pem);
    char *want_text = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&want_text, &n);
    fprintf(f,
            "{\"clientConfig\":{\"service\":{\"namespace\":\"kruise-system\",\"name\":\"my-svc\","
            "\"path\":\"/convert\",\"port\":443},\"caBundle\":\"%s\"},"
            "\"conversionReviewVersions\":[\"v1\",\"v1beta1\"]}",
            want_b64);
    fclose(f);
    json_t *want = wh_test_json(want_text);
    CHECK_EQ_JSON(wh_json_path(out, "spec", "conversion", "webhook", NULL), want);
    CHECK_EQ_STR(wh_json_path_str(out, "spec", "conversion", "strategy", NULL), "Webhook");
    CHECK_EQ_STR(wh_json_meta_str(out, "resourceVersion"), "3");
    wh_certs_inject_crd(out, &t, &again);
    CHECK(again == NULL);
    json_decref(out);

    /* URL mode (CERT-56) */
    t.host = "10.0.0.5";
    t.port = 9443;
    json_t *svc_ours = in; /* pointing at our Service: URL mode moves it to our URL */
    wh_certs_inject_crd(svc_ours, &t, &out);
    CHECK_EQ_STR(
        wh_json_path_str(out, "spec", "conversion", "webhook", "clientConfig", "url", NULL),
        "https://10.0.0.5:9443/convert");
    CHECK(wh_json_path(out, "spec", "conversion", "webhook", "clientConfig", "service", NULL) ==
          NULL);
    json_decref(out);
    json_decref(want);
    json_decref(in);
    free(want_text);
    free(want_b64);
}

static char *ca_pem(time_t now, int64_t validity)
{
    struct wh_certs_gen_opts o;
    struct wh_certs_bundle *b = NULL;
    struct wh_errbuf eb = {{0}};
    struct wh_certs_target t = {.host = "h"};
    wh_certs_gen_opts_init(&o);
    o.key_type = WH_CERTS_KEY_ECDSA;
    o.now = now;
    o.validity_secs = validity;
    o.backdate_secs = 0;
    WH_ASSERT(wh_certs_bundle_generate(&o, &t, NULL, &b, NULL, &eb) == WH_OK);
    char *pem = strdup(wh_certs_bundle_get(b, WH_CERTS_CA_CERT, NULL));
    wh_certs_bundle_free(b);
    return pem;
}

/* The CA lists of a rotation: old CAs other than the new one, deduplicated, expired dropped;
 * trust checks compare certificates, not bytes. */
TEST(certs_rotation_ca_lists)
{
    time_t now = time(NULL);
    char *a = ca_pem(now, 86400), *b = ca_pem(now, 86400), *gone = ca_pem(now - 10, 5);
    char *all = NULL, *out = NULL;
    size_t n = 0, out_len = 0;
    FILE *f = open_memstream(&all, &n);
    fprintf(f, "%s\n%s%sgarbage\n%s%s", a, b, b, gone, a);
    fclose(f);
    wh_certs_inject_other_cas(all, strlen(all), a, strlen(a), now, &out, &out_len);
    CHECK_EQ_STR(out, b);
    CHECK_EQ_INT(wh_certs_inject_count_cas(all, strlen(all)), 5);
    CHECK(wh_certs_inject_bundle_trusts(all, strlen(all), b, strlen(b)));
    char *ab = NULL;
    n = 0;
    f = open_memstream(&ab, &n);
    fprintf(f, "%s%s", a, b);
    fclose(f);
    CHECK(wh_certs_inject_bundle_trusts(ab, strlen(ab), a, strlen(a)));
    CHECK(!wh_certs_inject_bundle_trusts(a, strlen(a), ab, strlen(ab)));
    CHECK(!wh_certs_inject_bundle_trusts(a, strlen(a), "x", 1));
    free(out);
    wh_certs_inject_other_cas(a, strlen(a), a, strlen(a), now, &out, &out_len);
    CHECK_EQ_STR(out, "");
    CHECK_EQ_INT((int)out_len, 0);
    free(out);
    free(ab);
    free(all);
    free(a);
    free(b);
    free(gone);
}

/* CERT-38: external certificates are verified byte for byte; replicas that do not write only
 * need every served entry to trust their CA. */
TEST(cert38_verification_messages)
{
    char *a = ca_pem(time(NULL), 86400), *b = ca_pem(time(NULL), 86400);
    char *ab = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&ab, &n);
    fprintf(f, "%s%s", a, b);
    fclose(f);
    struct wh_certs_inject_target t = target(ab);
    json_t *cfg = config_with_entries(), *fixed = NULL;
    struct wh_errbuf eb = {{0}};
    CHECK_EQ_INT(
        wh_certs_inject_verify_webhooks(cfg, "ValidatingWebhookConfiguration", &t, true, &eb),
        WH_ERR_INVALID);
    CHECK_EQ_STR(eb.msg, "caBundle of ValidatingWebhookConfiguration v does not match the "
                         "external caBundle");
    CHECK_EQ_INT(wh_certs_inject_webhooks(cfg, &t, &fixed, NULL, &eb), WH_OK);
    CHECK_EQ_INT(wh_certs_inject_verify_webhooks(fixed, "V", &t, true, &eb), WH_OK);
    /* a reader that has CA b only: trusted through the two-CA bundle */
    struct wh_certs_inject_target tb = target(b);
    CHECK_EQ_INT(wh_certs_inject_verify_webhooks(fixed, "V", &tb, false, &eb), WH_OK);
    CHECK_EQ_INT(wh_certs_inject_verify_webhooks(fixed, "V", &tb, true, &eb), WH_ERR_INVALID);

    json_t *c = crd("apps.kruise.io", "v1beta1", "CloneSet", "Webhook", NULL);
    CHECK_EQ_INT(wh_certs_inject_verify_crd(c, &t, true, &eb), WH_ERR_INVALID);
    CHECK_EQ_STR(eb.msg, "bad conversion configuration of CRD x.apps.kruise.io");
    json_t *cf = NULL;
    wh_certs_inject_crd(c, &tb, &cf);
    CHECK_EQ_INT(wh_certs_inject_verify_crd(cf, &t, true, &eb), WH_ERR_INVALID);
    CHECK_EQ_STR(eb.msg, "caBundle of CRD x.apps.kruise.io does not match external caBundle");
    CHECK_EQ_INT(wh_certs_inject_verify_crd(cf, &tb, true, &eb), WH_OK);
    json_decref(cf);
    json_decref(c);
    json_decref(fixed);
    json_decref(cfg);
    free(ab);
    free(a);
    free(b);
}

/* URL mode: a CRD calling another URL with a caBundle of our CA is ours only while that URL is
 * the one this server wrote there (its annotation), and every write notes the URL. Before, any
 * such CRD was taken: kruise-manager in URL mode with our CA and this server rewrote each
 * other's CRDs without end (found with the real kruise-manager in e2e). */
TEST(cert55_url_mode_another_url_is_ours_only_where_we_wrote_it)
{
    char *ca = ca_pem(time(NULL), 86400);
    struct wh_certs_inject_target t = target(ca);
    t.host = "127.0.0.1";
    t.port = 9555;
    char *ca64 = b64(ca);
    char *cc = wh_str_printf("\"clientConfig\":{\"url\":\"https://127.0.0.1:9443/convert\","
                             "\"caBundle\":\"%s\"}",
                             ca64);
    json_t *before_move = crd("apps.kruise.io", "v1alpha1", "CloneSet", "Webhook", cc);
    CHECK(!wh_certs_inject_crd_selected(before_move, &t)); /* no note: not known to be ours */
    json_t *ann = json_object_get(before_move, "metadata");
    CHECK_EQ_INT(json_object_set_new(ann, "annotations",
                                     json_pack("{s:s}", WH_CERTS_CRD_URL_ANNOTATION,
                                               "https://127.0.0.1:9443/convert")),
                 0);
    CHECK(wh_certs_inject_crd_selected(before_move, &t)); /* ours on the old port */
    json_t *out = NULL, *again = NULL;
    wh_certs_inject_crd(before_move, &t, &out);
    CHECK_EQ_STR(
        wh_json_path_str(out, "spec", "conversion", "webhook", "clientConfig", "url", NULL),
        "https://127.0.0.1:9555/convert");
    CHECK_EQ_STR(wh_json_path_str(out, "metadata", "annotations", WH_CERTS_CRD_URL_ANNOTATION,
                                  NULL),
                 "https://127.0.0.1:9555/convert");
    wh_certs_inject_crd(out, &t, &again);
    CHECK(again == NULL);
    /* Another server wrote its URL since (the note still names ours): not ours any more. */
    json_object_set_new(wh_json_path(out, "spec", "conversion", "webhook", "clientConfig", NULL),
                        "url", json_string("https://localhost:30024/convert"));
    CHECK(!wh_certs_inject_crd_selected(out, &t));
    /* On our URL without the note: ours, and written once for the note alone. */
    json_object_set_new(wh_json_path(out, "spec", "conversion", "webhook", "clientConfig", NULL),
                        "url", json_string("https://127.0.0.1:9555/convert"));
    json_object_del(wh_json_path(out, "metadata", "annotations", NULL),
                    WH_CERTS_CRD_URL_ANNOTATION);
    wh_certs_inject_crd(out, &t, &again);
    CHECK(again != NULL);
    CHECK_EQ_STR(wh_json_path_str(again, "metadata", "annotations",
                                  WH_CERTS_CRD_URL_ANNOTATION, NULL),
                 "https://127.0.0.1:9555/convert");
    CHECK_EQ_JSON(wh_json_path(again, "spec", "conversion", NULL),
                  wh_json_path(out, "spec", "conversion", NULL));
    json_decref(again);
    json_decref(out);
    json_decref(before_move);
    free(cc);
    free(ca64);
    free(ca);
}
