/* Tests for the certificate controller against the fake API server (test/apiserver): the
 * Secret writer (CERT-30..35, 41, 80), external certificates (CERT-36..38), the file-system
 * writer in URL mode (CERT-11, 12, 39), caBundle injection and repair (CERT-52, 53, 55..57),
 * CA rotation with old and new CA published together until every replica serves the new
 * certificate, leader election (one writer), and the environment taken from the merged
 * configuration (CERT-01). Syncs run on the test thread (wh_certs_controller_sync), so every
 * step is deterministic; the real binary with its threads is tested in
 * test/integration/certs.py. */
#include "test/unit/test.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <openssl/bn.h>
#include <openssl/crypto.h>
#include <openssl/x509.h>

#include "certs/bundle.h"
#include "certs/cli.h"
#include "certs/controller.h"
#include "certs/env.h"
#include "certs/fs_store.h"
#include "certs/inject.h"
#include "certs/keypair.h"
#include "kube/leader.h"
#include "kube/lease.h"
#include "certs/pem.h"
#include "certs/report.h"
#include "certs/secret.h"
#include "certs/store.h"
#include "certs/verify.h"
#include "config/config.h"
#include "config/features.h"
#include "kube/client.h"
#include "kube/cluster.h"
#include "test/support/apiserver_proc.h"
#include "test/support/certs_hooks.h"
#include "test/support/tls_fixture.h"
#include "util/base64.h"
#include "util/json.h"
#include "util/mem.h"
#include "util/str.h"
#include "util/time.h"

#define NS "kruise-system"
#define SECRET "kruise-webhook-server-certs"
#define UPSTREAM_SVC "kruise-webhook-service"
#define MUTATING "kruise-webhook-server-mutating"
#define VALIDATING "kruise-webhook-server-validating"

/* --- the fake cluster ------------------------------------------------------------------------ */

struct fx {
    struct wh_apiserver *srv;
    char *kubeconfig;
    struct wh_kube_client *client; /* the test's own view of the cluster */
    char dir[64];
};

static const char objects[] =
    "[{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"kruise-system\"}},"
    "{\"apiVersion\":\"admissionregistration.k8s.io/v1\",\"kind\":\"MutatingWebhookConfiguration\","
    " \"metadata\":{\"name\":\"" MUTATING "\"},\"webhooks\":["
    " {\"name\":\"msidecarset.kb.io\",\"admissionReviewVersions\":[\"v1\"],\"sideEffects\":"
    "\"None\","
    "  \"clientConfig\":{\"service\":{\"namespace\":\"kruise-system\",\"name\":\"x\","
    "   \"path\":\"/mutate-apps-kruise-io-sidecarset\",\"port\":443}}},"
    " {\"name\":\"mother.kb.io\",\"admissionReviewVersions\":[\"v1\"],\"sideEffects\":\"None\","
    "  \"clientConfig\":{\"service\":{\"namespace\":\"else\",\"name\":\"y\","
    "   \"path\":\"/mutate-not-ours\"},\"caBundle\":\"Cg==\"}}]},"
    "{\"apiVersion\":\"admissionregistration.k8s.io/v1\","
    " \"kind\":\"ValidatingWebhookConfiguration\",\"metadata\":{\"name\":\"" VALIDATING "\"},"
    " \"webhooks\":[{\"name\":\"vnamespace.kb.io\",\"admissionReviewVersions\":[\"v1\"],"
    "  \"sideEffects\":\"None\",\"clientConfig\":{\"service\":{\"namespace\":\"kruise-system\","
    "   \"name\":\"x\",\"path\":\"/validate-namespace\"}}}]}]";

static bool fx_start(struct fx *f)
{
    struct wh_apiserver_opts so = {.kruise_crds = true};
    struct wh_kc_opts ko = {.auth = WH_KC_AUTH_NONE, .ca = WH_KC_CA_DATA};
    struct wh_errbuf eb = {{0}};
    memset(f, 0, sizeof(*f));
    wh_test_curl_init();
    static const char *const vars[] = {
        "POD_NAMESPACE",       "SECRET_NAME",        "SERVICE_NAME",
        "WEBHOOK_HOST",        "WEBHOOK_PORT",       "WEBHOOK_CERT_DIR",
        "WEBHOOK_CERT_WRITER", "CERTS_RENEW_BEFORE", "KUBECONFIG"};
    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
        unsetenv(vars[i]);
    if (wh_apiserver_start(&so, &f->srv, &eb) ||
        wh_apiserver_write_kubeconfig(f->srv, &ko, NULL, &f->kubeconfig, &eb) ||
        wh_apiserver_control(f->srv, "POST", "objects", objects, NULL, &eb)) {
        fprintf(stderr, "fake API server: %s\n", eb.msg);
        CHECK(false);
        return false;
    }
    struct wh_kube_opts co = {.kubeconfig = f->kubeconfig, .timeout_ms = 10000};
    if (wh_kube_client_new(&co, &f->client, &eb)) {
        fprintf(stderr, "client: %s\n", eb.msg);
        CHECK(false);
        return false;
    }
    snprintf(f->dir, sizeof(f->dir), "%s", wh_apiserver_dir(f->srv));
    return true;
}

static void fx_stop(struct fx *f)
{
    wh_kube_client_free(f->client);
    wh_apiserver_stop(f->srv);
    free(f->kubeconfig);
}

static json_t *get_obj(struct fx *f, const char *group, const char *resource, const char *ns,
                       const char *name)
{
    char path[512];
    json_t *o = NULL;
    if (wh_kube_path(path, sizeof(path), group, group[0] ? "v1" : "v1", resource, ns, name, NULL) ||
        wh_kube_get(f->client, path, &o, NULL))
        return NULL;
    return o;
}

static json_t *get_secret(struct fx *f)
{
    return get_obj(f, "", "secrets", NS, SECRET);
}

static json_t *get_config(struct fx *f, bool mutating)
{
    return get_obj(f, "admissionregistration.k8s.io",
                   mutating ? "mutatingwebhookconfigurations" : "validatingwebhookconfigurations",
                   NULL, mutating ? MUTATING : VALIDATING);
}

static void put_obj(struct fx *f, json_t *obj)
{
    char *text = json_dumps(obj, JSON_COMPACT);
    char *list = wh_str_printf("[%s]", text);
    struct wh_errbuf eb = {{0}};
    if (wh_apiserver_control(f->srv, "POST", "objects", list, NULL, &eb))
        fprintf(stderr, "put: %s\n", eb.msg);
    free(list);
    free(text);
}

/* Writes requests since the last call (create, update, patch, delete), optionally only those
 * whose path contains what. */
static int count_writes(struct fx *f, const char *what)
{
    json_t *reqs = NULL;
    struct wh_errbuf eb = {{0}};
    int n = 0;
    if (wh_apiserver_control(f->srv, "GET", "requests?clear=1", NULL, &reqs, &eb))
        return -1;
    size_t i;
    json_t *r;
    json_array_foreach(reqs, i, r)
    {
        const char *m = wh_json_str(r, "method"), *p = wh_json_str(r, "path");
        if (wh_str_eq(m, "GET") || !p)
            continue;
        if (!what || strstr(p, what))
            n++;
    }
    json_decref(reqs);
    return n;
}

static void clear_requests(struct fx *f)
{
    (void)count_writes(f, NULL);
}

/* The decoded caBundle of entry i of a configuration. Returns: new string or NULL. */
static char *entry_bundle(const json_t *cfg, size_t i)
{
    const char *b64 = wh_json_path_str(json_array_get(json_object_get(cfg, "webhooks"), i),
                                       "clientConfig", "caBundle", NULL);
    unsigned char *out = NULL;
    size_t len = 0;
    if (!b64 || wh_base64_decode(b64, strlen(b64), &out, &len))
        return NULL;
    return (char *)out;
}

static char *crd_bundle(struct fx *f, const char *name)
{
    json_t *crd = get_obj(f, "apiextensions.k8s.io", "customresourcedefinitions", NULL, name);
    const char *b64 =
        wh_json_path_str(crd, "spec", "conversion", "webhook", "clientConfig", "caBundle", NULL);
    unsigned char *out = NULL;
    size_t len = 0;
    if (b64 && wh_base64_decode(b64, strlen(b64), &out, &len))
        out = NULL;
    json_decref(crd);
    return (char *)out;
}

static char *secret_item(const json_t *secret, const char *key)
{
    const char *b64 = wh_json_path_str(secret, "data", key, NULL);
    unsigned char *out = NULL;
    size_t len = 0;
    if (!b64 || wh_base64_decode(b64, strlen(b64), &out, &len))
        return NULL;
    return (char *)out;
}

static void serial_of_pem(const char *pem, char *out, size_t outsz)
{
    X509 *x = NULL;
    out[0] = '\0';
    if (!pem || wh_certs_pem_first_cert(pem, strlen(pem), &x))
        return;
    BIGNUM *bn = ASN1_INTEGER_to_BN(X509_get0_serialNumber(x), NULL);
    char *hex = BN_bn2hex(bn);
    wh_certs_report_serial_norm(hex, out, outsz);
    OPENSSL_free(hex);
    BN_free(bn);
    X509_free(x);
}

/* --- one replica --------------------------------------------------------------------------- */

struct inst {
    struct wh_config cfg;
    struct wh_cluster *cl;
    struct wh_certs_controller *c;
    char certdir[160];
    char identity[32];
    char fixed_serial[80]; /* "" = serve what the cert dir holds (an instant reload) */
    int https_port;        /* where the self-call goes; 0 = nowhere yet */
};

static int fake_https_port(void *arg)
{
    return ((struct inst *)arg)->https_port;
}

/* The HTTPS server as the controller sees it: here, whatever the cert dir holds. */
static bool fake_serving(void *arg, char *buf, size_t bufsz)
{
    struct inst *in = arg;
    if (in->fixed_serial[0]) {
        snprintf(buf, bufsz, "%s", in->fixed_serial);
        return true;
    }
    char *path = wh_str_printf("%s/cert.pem", in->certdir);
    char *pem = NULL;
    size_t len = 0;
    bool ok = wh_certs_pem_read_file(path, 1 << 20, &pem, &len, NULL) == WH_OK;
    if (ok)
        serial_of_pem(pem, buf, bufsz);
    free(pem);
    free(path);
    return ok && buf[0];
}

static bool inst_start(struct inst *in, struct fx *f, const char *name, const char *const *extra)
{
    char *argv[40];
    int argc = 0;
    struct wh_errbuf eb = {{0}};
    memset(in, 0, sizeof(*in));
    snprintf(in->certdir, sizeof(in->certdir), "%s/certs-%s", f->dir, name);
    snprintf(in->identity, sizeof(in->identity), "replica-%s", name);
    argv[argc++] = "kruise-webhook";
    argv[argc++] = "--kubeconfig";
    argv[argc++] = f->kubeconfig;
    argv[argc++] = "--cert-dir";
    argv[argc++] = in->certdir;
    argv[argc++] = "--ca-publish-delay";
    argv[argc++] = "0";
    argv[argc++] = "--cert-key-type"; /* RSA is tested on its own; each RSA key costs ~0.4 s */
    argv[argc++] = "ecdsa";
    /* The fake cluster's CRDs are OpenKruise's, naming upstream's Service: a replica that
     * takes over that Service (SERVICE_NAME) converts them. */
    argv[argc++] = "--service-name";
    argv[argc++] = UPSTREAM_SVC;
    for (size_t i = 0; extra && extra[i] && argc < 38; i++)
        argv[argc++] = (char *)(uintptr_t)extra[i];
    argv[argc] = NULL;
    if (wh_config_load(&in->cfg, argc, argv, &eb)) {
        fprintf(stderr, "config: %s\n", eb.msg);
        CHECK(false);
        return false;
    }
    struct wh_kube_opts ko = {.kubeconfig = f->kubeconfig, .timeout_ms = 10000, .max_retries = 1};
    struct wh_kube_client *client = NULL;
    struct wh_certs_hooks hooks = {
        .serves = wh_test_certs_serves,
        .serves_arg = &in->cfg,
        .knows = wh_test_certs_knows,
        .serving_serial = fake_serving,
        .serial_arg = in,
        .identity = in->identity,
        .https_port = fake_https_port,
        .https_arg = in};
    if (wh_kube_client_new(&ko, &client, &eb) || wh_cluster_new_api(client, &in->cl, &eb) ||
        wh_certs_controller_new(in->cl, &in->cfg, &hooks, &in->c, &eb) ||
        wh_cluster_start(in->cl, &eb)) {
        fprintf(stderr, "start: %s\n", eb.msg);
        CHECK(false);
        return false;
    }
    for (int i = 0; i < 200; i++) {
        char why[128];
        if (wh_cluster_synced(in->cl, why, sizeof(why)))
            return true;
        wh_time_sleep_ms(25);
    }
    CHECK(false);
    return false;
}

static void inst_stop(struct inst *in)
{
    wh_certs_controller_stop(in->c);
    wh_cluster_free(in->cl);
    wh_certs_controller_free(in->c);
    wh_config_fini(&in->cfg);
}

/* Syncs, waiting briefly for the informers to see the previous writes (the controller reads
 * CRDs from its cache, as upstream reads them from its lister). */
static enum wh_err sync_in(struct inst *in, struct wh_errbuf *eb)
{
    wh_time_sleep_ms(150);
    return wh_certs_controller_sync(in->c, eb);
}

static char *read_dir_file(const char *dir, const char *name)
{
    char *path = wh_str_printf("%s/%s", dir, name);
    char *data = NULL;
    size_t len = 0;
    if (wh_certs_pem_read_file(path, 1 << 20, &data, &len, NULL))
        data = NULL;
    free(path);
    return data;
}

static mode_t mode_of(const char *dir, const char *name)
{
    struct stat st;
    char *path = wh_str_printf("%s/%s", dir, name);
    int r = stat(path, &st);
    free(path);
    return r == 0 ? (st.st_mode & 0777) : 0;
}

/* --- the Secret writer ---------------------------------------------------------------------- */

/* CERT-30/31/33 (one create, exactly the six keys), CERT-45 (files, keys 0600), CERT-52
 * (served entries: caBundle = ca-cert.pem, our service; others untouched), CERT-57 (CRDs),
 * CERT-58 (initialised), then a restart (CERT-80: a second replica reuses everything and
 * writes nothing) and CERT-53 (a second sync writes nothing). */
TEST(cert33_first_start_creates_secret_files_and_cabundles_restart_reuses)
{
    struct fx f;
    struct inst a, b;
    struct wh_errbuf eb = {{0}};
    if (!fx_start(&f))
        return;
    if (!inst_start(&a, &f, "a", NULL))
        goto out_fx;
    clear_requests(&f);
    CHECK_EQ_INT(sync_in(&a, &eb), WH_OK);
    CHECK(wh_certs_controller_initialized(a.c));

    json_t *secret = get_secret(&f);
    CHECK(secret != NULL);
    CHECK_EQ_INT(json_object_size(json_object_get(secret, "data")), 6);
    static const char *const keys[] = {"ca-key.pem", "ca-cert.pem", "cert.pem",
                                       "key.pem",    "tls.crt",     "tls.key"};
    for (size_t i = 0; i < 6; i++)
        CHECK(wh_json_path_str(secret, "data", keys[i], NULL) != NULL);
    CHECK_EQ_STR(wh_json_path_str(secret, "data", "tls.crt", NULL),
                 wh_json_path_str(secret, "data", "cert.pem", NULL));
    CHECK_EQ_STR(wh_json_path_str(secret, "data", "tls.key", NULL),
                 wh_json_path_str(secret, "data", "key.pem", NULL));
    CHECK(wh_json_path(secret, "metadata", "annotations", NULL) == NULL);
    char *ca = secret_item(secret, "ca-cert.pem");
    char *cert = secret_item(secret, "cert.pem");
    char *dir_ca = read_dir_file(a.certdir, "ca-cert.pem");
    char *dir_cert = read_dir_file(a.certdir, "tls.crt");
    CHECK_EQ_STR(dir_ca, ca);
    CHECK_EQ_STR(dir_cert, cert);
    CHECK_EQ_INT(mode_of(a.certdir, "tls.key"), 0600);
    CHECK_EQ_INT(mode_of(a.certdir, "ca-key.pem"), 0600);

    json_t *m = get_config(&f, true), *v = get_config(&f, false);
    char *m0 = entry_bundle(m, 0), *v0 = entry_bundle(v, 0), *m1 = entry_bundle(m, 1);
    CHECK_EQ_STR(m0, ca);
    CHECK_EQ_STR(v0, ca);
    CHECK_EQ_STR(m1, "\n"); /* the unserved entry keeps its Cg== */
    json_t *svc = wh_json_path(json_array_get(json_object_get(m, "webhooks"), 0), "clientConfig",
                               "service", NULL);
    CHECK_EQ_STR(wh_json_str(svc, "namespace"), NS);
    CHECK_EQ_STR(wh_json_str(svc, "name"), UPSTREAM_SVC);
    CHECK_EQ_STR(wh_json_path_str(json_array_get(json_object_get(m, "webhooks"), 1), "clientConfig",
                                  "service", "namespace", NULL),
                 "else");
    char *crd = crd_bundle(&f, "clonesets.apps.kruise.io");
    CHECK_EQ_STR(crd, ca);
    char *none = crd_bundle(&f, "broadcastjobs.apps.kruise.io"); /* strategy None */
    CHECK(none == NULL);
    /* one Secret create, two configurations, nine CRDs */
    CHECK_EQ_INT(count_writes(&f, "/secrets"), 1);

    CHECK_EQ_INT(sync_in(&a, &eb), WH_OK);
    CHECK_EQ_INT(count_writes(&f, NULL), 0);

    if (inst_start(&b, &f, "b", NULL)) {
        clear_requests(&f);
        CHECK_EQ_INT(sync_in(&b, &eb), WH_OK);
        char *b_ca = read_dir_file(b.certdir, "ca-cert.pem");
        CHECK_EQ_STR(b_ca, ca);
        CHECK_EQ_INT(count_writes(&f, "/secrets"), 0);
        CHECK_EQ_INT(count_writes(&f, "webhookconfigurations"), 0);
        free(b_ca);
        inst_stop(&b);
    }
    free(crd);
    free(m0);
    free(v0);
    free(m1);
    json_decref(m);
    json_decref(v);
    free(ca);
    free(cert);
    free(dir_ca);
    free(dir_cert);
    json_decref(secret);
    inst_stop(&a);
out_fx:
    fx_stop(&f);
}

/* CERT-53: a caBundle reset to "Cg==" (manifests re-applied) and a CRD reset are repaired by
 * the next sync with exactly one write each, and nothing else is written. */
TEST(cert53_reset_cabundle_is_repaired_with_one_write)
{
    struct fx f;
    struct inst a;
    struct wh_errbuf eb = {{0}};
    if (!fx_start(&f))
        return;
    if (!inst_start(&a, &f, "a", NULL))
        goto out_fx;
    CHECK_EQ_INT(sync_in(&a, &eb), WH_OK);
    json_t *m = get_config(&f, true);
    char *good = entry_bundle(m, 0);
    json_object_set_new(
        wh_json_path(json_array_get(json_object_get(m, "webhooks"), 0), "clientConfig", NULL),
        "caBundle", json_string("Cg=="));
    put_obj(&f, m);
    json_t *crd = get_obj(&f, "apiextensions.k8s.io", "customresourcedefinitions", NULL,
                          "sidecarsets.apps.kruise.io");
    json_object_set_new(wh_json_path(crd, "spec", "conversion", "webhook", "clientConfig", NULL),
                        "caBundle", json_string("Cg=="));
    put_obj(&f, crd);
    clear_requests(&f);
    CHECK_EQ_INT(sync_in(&a, &eb), WH_OK);
    CHECK_EQ_INT(count_writes(&f, "mutatingwebhookconfigurations"), 1);
    json_t *m2 = get_config(&f, true);
    char *now = entry_bundle(m2, 0);
    CHECK_EQ_STR(now, good);
    char *c2 = crd_bundle(&f, "sidecarsets.apps.kruise.io");
    CHECK_EQ_STR(c2, good);
    CHECK_EQ_INT(sync_in(&a, &eb), WH_OK);
    CHECK_EQ_INT(count_writes(&f, "webhookconfigurations"), 0);
    CHECK_EQ_INT(count_writes(&f, "customresourcedefinitions"), 0);
    free(c2);
    free(now);
    free(good);
    json_decref(m2);
    json_decref(crd);
    json_decref(m);
    inst_stop(&a);
out_fx:
    fx_stop(&f);
}

static int count_certs(const char *pem)
{
    return pem ? wh_certs_inject_count_cas(pem, strlen(pem)) : 0;
}

static void put_report(struct fx *f, const char *who, const char *serial)
{
    struct wh_lease_record rec = {0};
    snprintf(rec.holder, sizeof(rec.holder), "%s", who);
    rec.duration_s = 90;
    wh_lease_microtime(wh_time_wall_ns(), rec.renew_time, sizeof(rec.renew_time));
    json_t *labels = json_pack("{s:s}", WH_CERTS_REPORT_LABEL, SECRET);
    json_t *ann = json_pack("{s:s}", WH_CERTS_REPORT_SERIAL, serial);
    char *name = wh_str_printf(SECRET "-serving-%s", who);
    json_t *o = wh_lease_object(NS, name, &rec, labels, ann);
    put_obj(f, o);
    json_decref(o);
    json_decref(labels);
    json_decref(ann);
    free(name);
}

/* A deleted Secret is regenerated with a new CA and re-injected (CERT-42); the caBundles
 * first carry the new and the old CA (taken from the cert dir: the Secret is gone), the
 * Secret records the old CA, and the old CA goes only once every live replica reports the
 * new certificate: a lagging replica holds it back. */
TEST(cert42_deleted_secret_regenerated_old_ca_kept_until_replicas_serve_new)
{
    struct fx f;
    struct inst a;
    struct wh_errbuf eb = {{0}};
    char path[256];
    if (!fx_start(&f))
        return;
    if (!inst_start(&a, &f, "a", NULL))
        goto out_fx;
    CHECK_EQ_INT(sync_in(&a, &eb), WH_OK);
    char *old_ca = read_dir_file(a.certdir, "ca-cert.pem");
    char *old_cert = read_dir_file(a.certdir, "cert.pem");
    char old_serial[80];
    serial_of_pem(old_cert, old_serial, sizeof(old_serial));
    put_report(&f, "replica-b", old_serial);

    CHECK_EQ_INT(wh_kube_path(path, sizeof(path), "", "v1", "secrets", NS, SECRET, NULL), WH_OK);
    CHECK_EQ_INT(wh_kube_delete(f.client, path, NULL, NULL), WH_OK);
    CHECK_EQ_INT(sync_in(&a, &eb), WH_OK);
    json_t *secret = get_secret(&f);
    char *new_ca = secret_item(secret, "ca-cert.pem");
    CHECK(new_ca && old_ca && strcmp(new_ca, old_ca) != 0);
    CHECK(wh_json_annotation(secret, WH_CERTS_ANN_PREVIOUS_CA) != NULL);
    json_t *v = get_config(&f, false);
    char *bundle = entry_bundle(v, 0);
    CHECK_EQ_INT(count_certs(bundle), 2);
    CHECK(bundle && wh_certs_inject_bundle_trusts(bundle, strlen(bundle), old_ca, strlen(old_ca)));
    CHECK(bundle && wh_certs_inject_bundle_trusts(bundle, strlen(bundle), new_ca, strlen(new_ca)));
    struct wh_certs_controller_status st;
    wh_certs_controller_status(a.c, &st);
    CHECK(st.rotating);
    CHECK_EQ_INT(st.bundle_cas, 2);

    /* replica-b still serves the old certificate: the old CA stays */
    CHECK_EQ_INT(sync_in(&a, &eb), WH_OK);
    json_decref(v);
    free(bundle);
    v = get_config(&f, false);
    bundle = entry_bundle(v, 0);
    CHECK_EQ_INT(count_certs(bundle), 2);

    /* now it serves the new one */
    char new_serial[80];
    char *new_cert = secret_item(secret, "cert.pem");
    serial_of_pem(new_cert, new_serial, sizeof(new_serial));
    put_report(&f, "replica-b", new_serial);
    CHECK_EQ_INT(sync_in(&a, &eb), WH_OK);
    json_decref(v);
    free(bundle);
    v = get_config(&f, false);
    bundle = entry_bundle(v, 0);
    CHECK_EQ_STR(bundle, new_ca);
    char *crd = crd_bundle(&f, "clonesets.apps.kruise.io");
    CHECK_EQ_STR(crd, new_ca);
    json_t *after = get_secret(&f);
    CHECK(wh_json_annotation(after, WH_CERTS_ANN_PREVIOUS_CA) == NULL);
    char *still = secret_item(after, "ca-cert.pem");
    CHECK_EQ_STR(still, new_ca);
    wh_certs_controller_status(a.c, &st);
    CHECK(!st.rotating);
    CHECK_EQ_INT(st.bundle_cas, 1);

    free(still);
    json_decref(after);
    free(crd);
    free(new_cert);
    free(bundle);
    json_decref(v);
    free(new_ca);
    json_decref(secret);
    free(old_cert);
    free(old_ca);
    inst_stop(&a);
out_fx:
    fx_stop(&f);
}

static struct wh_certs_bundle *short_lived_bundle(int64_t validity_secs)
{
    struct wh_certs_gen_opts o;
    struct wh_certs_bundle *b = NULL;
    struct wh_errbuf eb = {{0}};
    struct wh_certs_target t = {.service = UPSTREAM_SVC, .namespace = NS};
    wh_certs_gen_opts_init(&o);
    o.key_type = WH_CERTS_KEY_ECDSA;
    o.validity_secs = validity_secs;
    WH_ASSERT(wh_certs_bundle_generate(&o, &t, NULL, &b, NULL, &eb) == WH_OK);
    return b;
}

/* A certificate inside the renewal window (CERT-40 at now + 180 days) is renewed; its CA
 * expires within a year, so a new CA comes too (CERT-41); while the HTTPS server still serves
 * the old certificate the old CA stays published, and the serving certificate it gets
 * chains to the new CA. */
TEST(cert41_certificate_in_renewal_window_rotates_ca_with_overlap)
{
    struct fx f;
    struct inst a;
    struct wh_errbuf eb = {{0}};
    if (!fx_start(&f))
        return;
    struct wh_certs_bundle *old = short_lived_bundle(30 * 86400);
    json_t *obj = wh_certs_secret_object(NS, SECRET, NULL, old);
    put_obj(&f, obj);
    json_decref(obj);
    if (!inst_start(&a, &f, "a", NULL))
        goto out_old;
    /* the old certificate is what the server presents until the reload */
    serial_of_pem(wh_certs_bundle_get(old, WH_CERTS_CERT, NULL), a.fixed_serial,
                  sizeof(a.fixed_serial));
    CHECK_EQ_INT(sync_in(&a, &eb), WH_OK);
    json_t *secret = get_secret(&f);
    char *new_ca = secret_item(secret, "ca-cert.pem");
    const char *old_ca = wh_certs_bundle_get(old, WH_CERTS_CA_CERT, NULL);
    CHECK(new_ca && strcmp(new_ca, old_ca) != 0);
    json_t *m = get_config(&f, true);
    char *bundle = entry_bundle(m, 0);
    CHECK_EQ_INT(count_certs(bundle), 2);
    CHECK(bundle && wh_certs_inject_bundle_trusts(bundle, strlen(bundle), old_ca, strlen(old_ca)));
    CHECK(!wh_certs_controller_initialized(a.c)); /* the server does not present it yet */
    /* ... and readiness (and a start-up that times out) says so. */
    char why[300] = "";
    CHECK(!wh_certs_controller_ready(a.c, why, sizeof(why)));
    CHECK(strstr(why, "the HTTPS server presents certificate") != NULL);
    CHECK(strstr(why, "that the last sync wrote to") != NULL);

    CHECK_EQ_INT(sync_in(&a, &eb), WH_OK);
    json_decref(m);
    free(bundle);
    m = get_config(&f, true);
    bundle = entry_bundle(m, 0);
    CHECK_EQ_INT(count_certs(bundle), 2);

    a.fixed_serial[0] = '\0'; /* the reload: the server now presents the new certificate */
    CHECK_EQ_INT(sync_in(&a, &eb), WH_OK); /* its tick reports the new serial */
    CHECK_EQ_INT(sync_in(&a, &eb), WH_OK);
    CHECK(wh_certs_controller_initialized(a.c));
    json_decref(m);
    free(bundle);
    m = get_config(&f, true);
    bundle = entry_bundle(m, 0);
    CHECK_EQ_STR(bundle, new_ca);
    struct wh_certs_bundle *now_stored = NULL;
    CHECK_EQ_INT(wh_certs_secret_read(secret, WH_CERTS_SECRET_GENERATED, &now_stored, &eb), WH_OK);
    CHECK_EQ_INT(wh_certs_bundle_validate(now_stored, UPSTREAM_SVC ".kruise-system.svc", time(NULL),
                                          180 * 86400LL, NULL),
                 WH_CERTS_VALID);
    wh_certs_bundle_free(now_stored);
    free(bundle);
    json_decref(m);
    free(new_ca);
    json_decref(secret);
    inst_stop(&a);
out_old:
    wh_certs_bundle_free(old);
    fx_stop(&f);
}

/* Issue 10: a Secret written by a version that encoded the CA's cA flag as 0x01 (the API
 * server cannot read that CA) gets a new, DER-correct CA at the first sync, and the old CA
 * is not kept in the caBundles (Go could not use it anyway). */
TEST(certs_secret_with_non_der_ca_is_regenerated)
{
    struct fx f;
    struct inst a;
    struct wh_errbuf eb = {{0}};
    if (!fx_start(&f))
        return;
    struct wh_certs_bundle *good = short_lived_bundle(3650 * 86400LL);
    struct wh_certs_bundle *bad = wh_tls_fixture_non_der_ca(good);
    json_t *obj = wh_certs_secret_object(NS, SECRET, NULL, bad);
    put_obj(&f, obj);
    json_decref(obj);
    if (!inst_start(&a, &f, "a", NULL))
        goto out;
    CHECK_EQ_INT(sync_in(&a, &eb), WH_OK);
    json_t *secret = get_secret(&f);
    char *ca = secret_item(secret, "ca-cert.pem");
    X509 *x = NULL;
    CHECK(ca && strcmp(ca, wh_certs_bundle_get(bad, WH_CERTS_CA_CERT, NULL)) != 0);
    CHECK(ca && wh_certs_pem_first_cert(ca, strlen(ca), &x) == WH_OK);
    X509_free(x);
    json_t *m = get_config(&f, true);
    char *bundle = entry_bundle(m, 0);
    CHECK_EQ_STR(bundle, ca);
    free(bundle);
    json_decref(m);
    free(ca);
    json_decref(secret);
    inst_stop(&a);
out:
    wh_certs_bundle_free(bad);
    wh_certs_bundle_free(good);
    fx_stop(&f);
}

struct racer {
    struct inst *in;
    enum wh_err rc;
};

static void *race_sync(void *arg)
{
    struct racer *r = arg;
    struct wh_errbuf eb = {{0}};
    r->rc = wh_certs_controller_sync(r->in->c, &eb);
    return NULL;
}

/* CERT-33/80: two replicas creating the Secret at once end with one Secret (AlreadyExists ->
 * read back) and both cert dirs hold its certificates. Creates are delayed so both are in
 * flight together. */
TEST(cert33_creation_race_ends_with_one_secret)
{
    struct fx f;
    struct inst a, b;
    if (!fx_start(&f))
        return;
    if (!inst_start(&a, &f, "a", NULL))
        goto out_fx;
    if (!inst_start(&b, &f, "b", NULL))
        goto out_a;
    wh_apiserver_post(f.srv, "delay?ms=400&count=2&methods=POST&path_prefix=/api/v1/namespaces/"
                             "kruise-system/secrets");
    clear_requests(&f);
    struct racer ra = {&a, WH_ERR_INTERNAL}, rb = {&b, WH_ERR_INTERNAL};
    pthread_t ta, tb;
    pthread_create(&ta, NULL, race_sync, &ra);
    pthread_create(&tb, NULL, race_sync, &rb);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    /* Both wrote the configurations too: the later PUT may meet a 409, which fails that sync
     * (retried later, CERT-34); certificates were settled before that. */
    CHECK(ra.rc == WH_OK || ra.rc == WH_ERR_CONFLICT);
    CHECK(rb.rc == WH_OK || rb.rc == WH_ERR_CONFLICT);
    CHECK_EQ_INT(count_writes(&f, "/secrets"), 2); /* both tried, one won */
    json_t *secret = get_secret(&f);
    char *ca = secret_item(secret, "ca-cert.pem"), *cert = secret_item(secret, "cert.pem");
    char *a_cert = read_dir_file(a.certdir, "tls.crt"),
         *b_cert = read_dir_file(b.certdir, "tls.crt");
    CHECK_EQ_STR(a_cert, cert);
    CHECK_EQ_STR(b_cert, cert);
    json_t *m = get_config(&f, true);
    char *bundle = entry_bundle(m, 0);
    struct wh_errbuf eb = {{0}};
    CHECK_EQ_INT(sync_in(&a, &eb), WH_OK);
    CHECK_EQ_INT(sync_in(&b, &eb), WH_OK);
    json_decref(m);
    free(bundle);
    m = get_config(&f, true);
    bundle = entry_bundle(m, 0);
    CHECK_EQ_STR(bundle, ca);
    free(bundle);
    json_decref(m);
    free(a_cert);
    free(b_cert);
    free(ca);
    free(cert);
    json_decref(secret);
    inst_stop(&b);
out_a:
    inst_stop(&a);
out_fx:
    fx_stop(&f);
}

/* CERT-35 (an empty Secret, as the manifests create it, is overwritten, not re-created) and
 * CERT-34 (a 409 on the update is retried after a fresh read). */
TEST(cert34_empty_secret_overwritten_and_conflict_retried)
{
    struct fx f;
    struct inst a;
    struct wh_errbuf eb = {{0}};
    if (!fx_start(&f))
        return;
    json_t *empty = wh_test_json("{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":{"
                                 "\"namespace\":\"kruise-system\",\"name\":\"" SECRET "\","
                                 "\"labels\":{\"a\":\"b\"}}}");
    put_obj(&f, empty);
    json_decref(empty);
    if (!inst_start(&a, &f, "a", NULL))
        goto out_fx;
    wh_apiserver_post(f.srv, "fail?code=409&count=1&methods=PUT&path_prefix=/api/v1/namespaces/"
                             "kruise-system/secrets");
    clear_requests(&f);
    CHECK_EQ_INT(sync_in(&a, &eb), WH_OK);
    CHECK_EQ_INT(count_writes(&f, "/secrets/" SECRET), 2);
    json_t *secret = get_secret(&f);
    CHECK_EQ_INT(json_object_size(json_object_get(secret, "data")), 6);
    CHECK(wh_json_path(secret, "metadata", "labels", NULL) == NULL); /* PUT semantics */
    json_decref(secret);
    inst_stop(&a);
out_fx:
    fx_stop(&f);
}

/* CERT-02/36/37/38: with the EnableExternalCerts gate, external certificates are read with
 * cert-manager's keys, written to the cert dir, never generated and never written to the cluster;
 * configurations are verified, and the sync fails with upstream's message until their caBundles
 * match ca.crt byte for byte. */
/* cert-manager's Secret for ext (ca.crt, tls.crt, tls.key). Returns: ext's CA in base64 (free). */
static char *put_external_secret(struct fx *f, const struct wh_certs_bundle *ext)
{
    const char *ca = wh_certs_bundle_get(ext, WH_CERTS_CA_CERT, NULL);
    const char *crt = wh_certs_bundle_get(ext, WH_CERTS_CERT, NULL);
    const char *key = wh_certs_bundle_get(ext, WH_CERTS_KEY, NULL);
    char *ca64 = wh_base64_encode(ca, strlen(ca));
    char *crt64 = wh_base64_encode(crt, strlen(crt));
    char *key64 = wh_base64_encode(key, strlen(key));
    json_t *s = json_pack("{s:s,s:s,s:{s:s,s:s},s:{s:s,s:s,s:s}}", "apiVersion", "v1", "kind",
                          "Secret", "metadata", "namespace", NS, "name", SECRET, "data", "ca.crt",
                          ca64, "tls.crt", crt64, "tls.key", key64);
    put_obj(f, s);
    json_decref(s);
    free(crt64);
    free(key64);
    return ca64;
}

/* What cert-manager's CA injector does: every entry of both configurations gets ca64. */
static void inject_every_entry(struct fx *f, const char *ca64)
{
    for (int i = 0; i < 2; i++) {
        json_t *cfg = get_config(f, i == 0);
        size_t k;
        json_t *e;
        json_array_foreach(json_object_get(cfg, "webhooks"), k, e)
        {
            json_object_set_new(wh_json_obj(e, "clientConfig"), "caBundle", json_string(ca64));
        }
        put_obj(f, cfg);
        json_decref(cfg);
    }
}

TEST(cert38_external_mode_reads_verifies_never_writes)
{
    struct fx f;
    struct inst a;
    struct wh_errbuf eb = {{0}};
    if (!fx_start(&f))
        return;
    struct wh_certs_bundle *ext = short_lived_bundle(400 * 86400);
    const char *ca = wh_certs_bundle_get(ext, WH_CERTS_CA_CERT, NULL);
    char *ca64 = put_external_secret(&f, ext);
    static const char *const gate[] = {"--feature-gates", "EnableExternalCerts=true", NULL};
    if (!inst_start(&a, &f, "a", gate))
        goto out_ext;
    clear_requests(&f);
    CHECK_EQ_INT(sync_in(&a, &eb), WH_ERR_INVALID);
    CHECK_EQ_STR(eb.msg, "caBundle of MutatingWebhookConfiguration " MUTATING
                         " does not match the external caBundle");
    char *dir_ca = read_dir_file(a.certdir, "ca-cert.pem");
    CHECK_EQ_STR(dir_ca, ca);
    char *dir_key = read_dir_file(a.certdir, "ca-key.pem"); /* no ca.key: empty file */
    CHECK_EQ_STR(dir_key, "");
    CHECK(!wh_certs_controller_initialized(a.c));

    inject_every_entry(&f, ca64); /* cert-manager's CA injector */
    CHECK_EQ_INT(sync_in(&a, &eb), WH_ERR_INVALID);
    CHECK(strstr(eb.msg, "CRD") != NULL); /* CRDs pointing at us have no caBundle yet */
    static const char *const crds[] = {"clonesets",
                                       "sidecarsets",
                                       "statefulsets",
                                       "uniteddeployments",
                                       "daemonsets",
                                       "containerrecreaterequests",
                                       "resourcedistributions",
                                       "persistentpodstates",
                                       "workloadspreads"};
    for (size_t i = 0; i < sizeof(crds) / sizeof(crds[0]); i++) {
        char *name = wh_str_printf("%s.apps.kruise.io", crds[i]);
        json_t *crd = get_obj(&f, "apiextensions.k8s.io", "customresourcedefinitions", NULL, name);
        json_object_set_new(
            wh_json_path(crd, "spec", "conversion", "webhook", "clientConfig", NULL), "caBundle",
            json_string(ca64));
        put_obj(&f, crd);
        json_decref(crd);
        free(name);
    }
    CHECK_EQ_INT(sync_in(&a, &eb), WH_OK);
    CHECK(wh_certs_controller_initialized(a.c));
    CHECK_EQ_INT(count_writes(&f, NULL), 0);
    free(dir_key);
    free(dir_ca);
    inst_stop(&a);
out_ext:
    free(ca64);
    wh_certs_bundle_free(ext);
    fx_stop(&f);
}

static char *write_tmp(const char *dir, const char *name, const char *text)
{
    char *path = wh_str_printf("%s/%s", dir, name);
    FILE *fp = fopen(path, "w");
    WH_ASSERT(fp && fputs(text, fp) >= 0 && fclose(fp) == 0);
    return path;
}

/* Issue 10: initialised is not enough for /readyz; the replica calls itself through the
 * configured clientConfigs. With external certificates the entries' caBundles are right but
 * nothing makes them name this server: an entry calling another Service is a TLS name failure
 * the API server would meet, reported in why. (Here the "server" is a fake API server with
 * the certificate, which answers the path 404: once the name is right, that is what shows.) */
TEST(certs_readiness_calls_through_the_configuration)
{
    struct fx f;
    struct inst a;
    struct wh_errbuf eb = {{0}};
    struct wh_apiserver *https = NULL;
    char why[256] = "";
    if (!fx_start(&f))
        return;
    struct wh_certs_bundle *ext = short_lived_bundle(400 * 86400);
    char *crt = write_tmp(f.dir, "ext.crt", wh_certs_bundle_get(ext, WH_CERTS_CERT, NULL));
    char *key = write_tmp(f.dir, "ext.key", wh_certs_bundle_get(ext, WH_CERTS_KEY, NULL));
    char *ca64 = put_external_secret(&f, ext);
    /* Every caBundle right (cert-manager's injector), the entries calling Service "x". */
    inject_every_entry(&f, ca64);
    const char *extra[] = {"--cert", crt, "--key", key, NULL};
    struct wh_apiserver_opts ho = {.extra_args = extra};
    CHECK_EQ_INT(wh_apiserver_start(&ho, &https, &eb), WH_OK);
    /* No CRD conversions to check: only the two configurations. */
    static const char *const args[] = {"--feature-gates", "EnableExternalCerts=true",
                                       "--service-name", "no-crd-names-this", NULL};
    if (!https || !inst_start(&a, &f, "a", args))
        goto out;
    a.https_port = wh_apiserver_port(https);
    CHECK_EQ_INT(sync_in(&a, &eb), WH_OK);
    CHECK(wh_certs_controller_initialized(a.c));
    CHECK(!wh_certs_controller_called(a.c, why, sizeof(why)));
    CHECK(strstr(why, "x.kruise-system.svc") != NULL);

    /* The entries now call the Service the certificate is for: TLS passes, the path does not
     * exist at this fake. */
    for (int i = 0; i < 2; i++) {
        json_t *cfg = get_config(&f, i == 0);
        json_t *svc = wh_json_path(json_array_get(json_object_get(cfg, "webhooks"), 0),
                                   "clientConfig", "service", NULL);
        json_object_set_new(svc, "name", json_string(UPSTREAM_SVC));
        put_obj(&f, cfg);
        json_decref(cfg);
    }
    for (int i = 0; i < 30 && !strstr(why, "no webhook is served"); i++) {
        CHECK_EQ_INT(sync_in(&a, &eb), WH_OK);
        CHECK(!wh_certs_controller_called(a.c, why, sizeof(why)));
    }
    if (!strstr(why, "no webhook is served at this path"))
        fprintf(stderr, "why: %s\n", why);
    CHECK(strstr(why, "no webhook is served at this path") != NULL);
    inst_stop(&a);
out:
    wh_apiserver_stop(https);
    free(crt);
    free(key);
    free(ca64);
    wh_certs_bundle_free(ext);
    fx_stop(&f);
}

/* CERT-11/12/39: with a webhook host the cert dir is the store (no Secret), entries and CRDs
 * get URLs on that host and port, and the certificate names the IP. */
TEST(cert39_url_mode_uses_the_fs_writer_and_urls)
{
    struct fx f;
    struct inst a;
    struct wh_errbuf eb = {{0}};
    if (!fx_start(&f))
        return;
    static const char *const url[] = {"--webhook-host", "127.0.0.1", "--port", "9443", NULL};
    if (!inst_start(&a, &f, "a", url))
        goto out_fx;
    clear_requests(&f);
    CHECK_EQ_INT(sync_in(&a, &eb), WH_OK);
    CHECK_EQ_INT(count_writes(&f, "/secrets"), 0);
    json_t *secret = get_secret(&f);
    CHECK(secret == NULL);
    json_t *m = get_config(&f, true);
    json_t *cc =
        wh_json_path(json_array_get(json_object_get(m, "webhooks"), 0), "clientConfig", NULL);
    CHECK_EQ_STR(wh_json_str(cc, "url"), "https://127.0.0.1:9443/mutate-apps-kruise-io-sidecarset");
    CHECK(json_object_get(cc, "service") == NULL);
    json_t *crd = get_obj(&f, "apiextensions.k8s.io", "customresourcedefinitions", NULL,
                          "clonesets.apps.kruise.io");
    CHECK_EQ_STR(
        wh_json_path_str(crd, "spec", "conversion", "webhook", "clientConfig", "url", NULL),
        "https://127.0.0.1:9443/convert");
    struct wh_certs_bundle *b = NULL;
    CHECK_EQ_INT(wh_certs_fs_read(a.certdir, &b, &eb), WH_OK);
    CHECK_EQ_INT(wh_certs_bundle_validate(b, "127.0.0.1", time(NULL), 0, NULL), WH_CERTS_VALID);
    wh_certs_bundle_free(b);
    CHECK(wh_certs_controller_initialized(a.c));
    CHECK_EQ_INT(sync_in(&a, &eb), WH_OK);
    CHECK_EQ_INT(count_writes(&f, NULL), 0);
    json_decref(crd);
    json_decref(m);
    json_decref(secret);
    inst_stop(&a);
out_fx:
    fx_stop(&f);
}

/* Issue 10: `certs inspect DIR --cluster` for a URL-mode server, run without WEBHOOK_HOST
 * (the server had it as a flag), checks the name the cluster's entries call, 127.0.0.1, not
 * the Service; the entries are reported with that name. A host the certificate does not
 * name is a mismatch.
 * Issue 22: run with none of the server's settings (no WEBHOOK_HOST, no WEBHOOK_PORT, no
 * feature gates) it finds the host and port the entries call, checks every CRD converted on
 * that host (it said "0 of 0" and "match: yes"), reports a CRD left on another port, counts
 * an entry for a path the default gates turn off, and says "nothing was checked" rather than
 * "match: yes" when nothing calls the server. */
TEST(certs_cli_inspect_cluster_url_mode_checks_what_it_claims)
{
    struct fx f;
    struct inst a;
    struct wh_errbuf eb = {{0}};
    char *out = NULL;
    if (!fx_start(&f))
        return;
    static const char *const url[] = {"--webhook-host", "127.0.0.1", "--port", "9443", NULL};
    if (!inst_start(&a, &f, "a", url))
        goto out_fx;
    CHECK_EQ_INT(sync_in(&a, &eb), WH_OK);
    setenv("KUBECONFIG", f.kubeconfig, 1);
    setenv("SERVICE_NAME", UPSTREAM_SVC, 1); /* as the replica, but no WEBHOOK_HOST */
    char *argv[] = {"certs", "inspect", a.certdir, "--cluster"};
    CHECK_EQ_INT(wh_test_certs_cli_output(4, argv, &out), 0);
    CHECK(strstr(out, "valid for 127.0.0.1: yes") != NULL);
    CHECK(strstr(out, "the API server calls 127.0.0.1: certificate valid for it: yes") != NULL);
    CHECK(strstr(out, "CRDs converted by us: 9 of 9 trust the CA") != NULL);
    CHECK(strstr(out, "called at https://127.0.0.1:9443 (host from the webhook entries, port "
                      "from the webhook entries)") != NULL);
    CHECK(strstr(out, "match: yes") != NULL);
    free(out);
    char *other[] = {"certs", "inspect", a.certdir, "--cluster", "--host", "10.9.9.9"};
    CHECK_EQ_INT(wh_test_certs_cli_output(6, other, &out), 1);
    free(out);

    /* An entry for /validate-service (off without ResourcesDeletionProtection) that does not
     * trust the CA: counted and reported whatever the gates of the command's settings. */
    json_t *v = get_config(&f, false);
    json_t *e = json_deep_copy(json_array_get(json_object_get(v, "webhooks"), 0));
    json_object_set_new(e, "name", json_string("vservice.kb.io"));
    json_object_set_new(json_object_get(e, "clientConfig"), "url",
                        json_string("https://127.0.0.1:9443/validate-service"));
    json_object_set_new(json_object_get(e, "clientConfig"), "caBundle", json_string("Cg=="));
    json_array_append_new(json_object_get(v, "webhooks"), e);
    put_obj(&f, v);
    json_decref(v);
    CHECK_EQ_INT(wh_test_certs_cli_output(4, argv, &out), 1);
    CHECK(strstr(out, "1 of 2 entries for this server's paths trust the CA") != NULL);
    free(out);

    /* A CRD left on the old port. */
    json_t *crd = get_obj(&f, "apiextensions.k8s.io", "customresourcedefinitions", NULL,
                          "clonesets.apps.kruise.io");
    json_object_set_new(wh_json_path(crd, "spec", "conversion", "webhook", "clientConfig", NULL),
                        "url", json_string("https://127.0.0.1:8443/convert"));
    put_obj(&f, crd);
    json_decref(crd);
    CHECK_EQ_INT(wh_test_certs_cli_output(4, argv, &out), 1);
    CHECK(strstr(out, "CRD clonesets.apps.kruise.io converts through "
                      "https://127.0.0.1:8443/convert, not this server's port") != NULL);
    free(out);

    /* Nothing calls the server (no entry for its paths, no CRD through its Service): nothing
     * is checked, and that is not a match. */
    json_t *m = get_config(&f, true);
    json_array_remove(json_object_get(m, "webhooks"), 0); /* mother.kb.io stays: not our path */
    put_obj(&f, m);
    json_decref(m);
    v = get_config(&f, false);
    json_array_clear(json_object_get(v, "webhooks"));
    put_obj(&f, v);
    json_decref(v);
    char *svc[] = {"certs", "inspect", a.certdir, "--cluster", "--service", "x", "--namespace", "y"};
    CHECK_EQ_INT(wh_test_certs_cli_output(8, svc, &out), 1);
    CHECK(strstr(out, "nothing was checked") != NULL);
    CHECK(strstr(out, "match: NO") != NULL);
    free(out);
    unsetenv("KUBECONFIG");
    unsetenv("SERVICE_NAME");
    inst_stop(&a);
out_fx:
    fx_stop(&f);
}

/* --leader-elect: one Lease holder writes; the other replica only reads the Secret, waits for
 * it and for the caBundles, and then serves the same certificate; a released Lease passes to
 * the other replica at once. */
TEST(certs_leader_elect_one_writer)
{
    struct fx f;
    struct inst a, b;
    struct wh_errbuf eb = {{0}};
    bool la = false, lb = false;
    static const char *const le[] = {"--leader-elect", NULL};
    if (!fx_start(&f))
        return;
    if (!inst_start(&a, &f, "a", le))
        goto out_fx;
    if (!inst_start(&b, &f, "b", le))
        goto out_a;
    CHECK_EQ_INT(wh_certs_controller_step_election(a.c, &la, &eb), WH_OK);
    CHECK_EQ_INT(wh_certs_controller_step_election(b.c, &lb, &eb), WH_OK);
    CHECK(la && !lb);
    json_t *lease = get_obj(&f, "coordination.k8s.io", "leases", NS, SECRET "-writer");
    CHECK_EQ_STR(wh_json_path_str(lease, "spec", "holderIdentity", NULL), "replica-a");
    CHECK_EQ_INT(json_integer_value(wh_json_path(lease, "spec", "leaseDurationSeconds", NULL)), 15);
    json_decref(lease);

    CHECK_EQ_INT(sync_in(&b, &eb), WH_ERR_NOT_SYNCED); /* no Secret yet: wait, write nothing */
    CHECK(get_secret(&f) == NULL);
    CHECK_EQ_INT(sync_in(&a, &eb), WH_OK);
    CHECK_EQ_INT(sync_in(&b, &eb), WH_OK);
    struct wh_certs_controller_status sa, sb;
    wh_certs_controller_status(a.c, &sa);
    wh_certs_controller_status(b.c, &sb);
    CHECK(sa.writer && !sb.writer);
    CHECK(sa.writes > 0);
    CHECK_EQ_INT(sb.writes, 0);
    char *ca_a = read_dir_file(a.certdir, "tls.crt"), *ca_b = read_dir_file(b.certdir, "tls.crt");
    CHECK_EQ_STR(ca_a, ca_b);
    CHECK(wh_certs_controller_initialized(b.c));
    free(ca_a);
    free(ca_b);

    /* a stops cleanly: the Lease is released and b takes it at its next try */
    wh_certs_controller_stop(a.c);
    CHECK_EQ_INT(wh_certs_controller_step_election(b.c, &lb, &eb), WH_OK);
    CHECK(lb);
    inst_stop(&b);
out_a:
    inst_stop(&a);
out_fx:
    fx_stop(&f);
}

/* client-go's rules: a Lease held by a live holder is not taken; one whose record did not
 * change for leaseDurationSeconds (on our clock) is, with leaseTransitions + 1; a holder
 * that lost it sees so at its next try. */
TEST(certs_leader_lease_expiry_takeover)
{
    struct fx f;
    struct wh_leader *a = NULL, *b = NULL;
    struct wh_errbuf eb = {{0}};
    bool la = false, lb = false;
    if (!fx_start(&f))
        return;
    struct wh_leader_opts o = {.ns = NS,
                                     .name = "test-lease",
                                     .identity = "a",
                                     .lease_duration_ms = 1000,
                                     .renew_deadline_ms = 600,
                                     .retry_period_ms = 100};
    CHECK_EQ_INT(wh_leader_new(f.client, &o, &a, &eb), WH_OK);
    o.identity = "b";
    CHECK_EQ_INT(wh_leader_new(f.client, &o, &b, &eb), WH_OK);
    o.renew_deadline_ms = 5000;
    struct wh_leader *bad = NULL;
    CHECK_EQ_INT(wh_leader_new(f.client, &o, &bad, &eb), WH_ERR_INVALID);

    CHECK_EQ_INT(wh_leader_step(a, &la, &eb), WH_OK);
    CHECK(la && wh_leader_is_leader(a));
    CHECK_EQ_INT(wh_leader_step(b, &lb, &eb), WH_OK);
    CHECK(!lb && !wh_leader_is_leader(b));
    CHECK_EQ_INT(wh_leader_step(a, &la, &eb), WH_OK); /* renew */
    CHECK(la);
    wh_time_sleep_ms(300);
    CHECK_EQ_INT(wh_leader_step(b, &lb, &eb), WH_OK); /* the record changed: alive */
    CHECK(!lb);
    wh_time_sleep_ms(1100);               /* a stops renewing */
    CHECK(!wh_leader_is_leader(a)); /* past its renew deadline */
    CHECK_EQ_INT(wh_leader_step(b, &lb, &eb), WH_OK);
    CHECK(lb);
    json_t *lease = get_obj(&f, "coordination.k8s.io", "leases", NS, "test-lease");
    CHECK_EQ_STR(wh_json_path_str(lease, "spec", "holderIdentity", NULL), "b");
    CHECK_EQ_INT(json_integer_value(wh_json_path(lease, "spec", "leaseTransitions", NULL)), 1);
    CHECK(wh_json_path_str(lease, "spec", "renewTime", NULL) != NULL);
    json_decref(lease);
    CHECK_EQ_INT(wh_leader_step(a, &la, &eb), WH_OK);
    CHECK(!la);
    wh_leader_free(a);
    wh_leader_free(b); /* releases: holder emptied */
    lease = get_obj(&f, "coordination.k8s.io", "leases", NS, "test-lease");
    CHECK_EQ_STR(wh_json_path_str(lease, "spec", "holderIdentity", NULL), "");
    json_decref(lease);
    fx_stop(&f);
}

/* Serving reports: written on change, listed by the writer, dead ones ignored. */
TEST(certs_serving_reports)
{
    struct fx f;
    struct wh_errbuf eb = {{0}};
    struct wh_certs_report_summary sum;
    if (!fx_start(&f))
        return;
    struct wh_certs_report *r = wh_certs_report_new(f.client, NS, SECRET, "Host_1:x");
    CHECK_EQ_INT(wh_certs_report_publish(r, "00:AB:cd", false, &eb), WH_OK);
    json_t *lease = get_obj(&f, "coordination.k8s.io", "leases", NS, SECRET "-serving-host-1-x");
    CHECK_EQ_STR(wh_json_annotation(lease, WH_CERTS_REPORT_SERIAL), "abcd");
    json_decref(lease);
    clear_requests(&f);
    CHECK_EQ_INT(wh_certs_report_publish(r, "abcd", false, &eb), WH_OK);
    CHECK_EQ_INT(count_writes(&f, NULL), 0); /* unchanged, heartbeat not due */
    CHECK_EQ_INT(wh_certs_report_publish(r, "ef", false, &eb), WH_OK);
    CHECK_EQ_INT(count_writes(&f, NULL), 1);
    CHECK_EQ_INT(wh_certs_report_check(f.client, NS, SECRET, "EF", time(NULL), &sum, &eb), WH_OK);
    CHECK_EQ_INT(sum.live, 1);
    CHECK_EQ_INT(sum.current, 1);
    CHECK_EQ_INT(wh_certs_report_check(f.client, NS, SECRET, "01", time(NULL), &sum, &eb), WH_OK);
    CHECK_EQ_INT(sum.current, 0);
    CHECK_EQ_STR(sum.lagging, "Host_1:x");
    /* two hours later the report is dead and collected */
    CHECK_EQ_INT(wh_certs_report_check(f.client, NS, SECRET, "01", time(NULL) + 7200, &sum, &eb),
                 WH_OK);
    CHECK_EQ_INT(sum.live, 0);
    CHECK_EQ_INT(sum.removed, 1);
    wh_certs_report_withdraw(r); /* already gone: only logged */
    wh_certs_report_free(r);
    char buf[8];
    wh_certs_report_serial_norm("000", buf, sizeof(buf));
    CHECK_EQ_STR(buf, "0");
    fx_stop(&f);
}

/* CERT-01 through the merged configuration: a flag overrides the variable. */
TEST(cert01_env_from_config_flags_override_environment)
{
    struct wh_config cfg;
    struct wh_certs_env e;
    struct wh_errbuf eb = {{0}};
    setenv("WEBHOOK_HOST", "from-env", 1);
    setenv("SECRET_NAME", "env-secret", 1);
    setenv("CERTS_RENEW_BEFORE", "10d", 1);
    char *argv[] = {"kruise-webhook", "--webhook-host", "from-flag", NULL};
    CHECK_EQ_INT(wh_config_load(&cfg, 3, argv, &eb), WH_OK);
    CHECK_EQ_INT(wh_certs_env_from_config(&e, &cfg, &eb), WH_OK);
    CHECK_EQ_STR(e.host, "from-flag");
    CHECK_EQ_STR(e.secret_name, "env-secret");
    CHECK_EQ_INT(e.renew_before_secs, 10 * 86400);
    CHECK(e.cert_writer == NULL);
    CHECK_EQ_INT(wh_certs_env_writer(&e, false), WH_CERTS_WRITER_FS);
    CHECK_EQ_STR(cfg.mutating_config_name, "kruise-webhook-server-mutating");
    CHECK_EQ_STR(cfg.validating_config_name, "kruise-webhook-server-validating");
    CHECK_EQ_INT(cfg.webhook_init_timeout_ms, 60000);
    wh_certs_env_fini(&e);
    wh_config_fini(&cfg);
    unsetenv("WEBHOOK_HOST");
    unsetenv("SECRET_NAME");
    unsetenv("CERTS_RENEW_BEFORE");
}

/* `certs inspect --secret` reads the Secret from the cluster and says whether the caBundles
 * there trust its CA (exit 0), or not (exit 1, after a reset). */
TEST(certs_cli_inspect_secret_checks_cluster_cabundles)
{
    struct fx f;
    struct inst a;
    struct wh_errbuf eb = {{0}};
    char *argv[] = {"certs", "inspect", "--secret", NULL};
    if (!fx_start(&f))
        return;
    if (!inst_start(&a, &f, "a", NULL))
        goto out_fx;
    setenv("KUBECONFIG", f.kubeconfig, 1);
    setenv("SERVICE_NAME", UPSTREAM_SVC, 1); /* the replica's settings */
    CHECK_EQ_INT(wh_test_certs_cli_run(3, argv), 2); /* no Secret yet */
    CHECK_EQ_INT(sync_in(&a, &eb), WH_OK);
    CHECK_EQ_INT(wh_test_certs_cli_run(3, argv), 0);
    json_t *v = get_config(&f, false);
    json_object_set_new(
        wh_json_path(json_array_get(json_object_get(v, "webhooks"), 0), "clientConfig", NULL),
        "caBundle", json_string("Cg=="));
    put_obj(&f, v);
    json_decref(v);
    CHECK_EQ_INT(wh_test_certs_cli_run(3, argv), 1);
    unsetenv("KUBECONFIG");
    unsetenv("SERVICE_NAME");
    inst_stop(&a);
out_fx:
    fx_stop(&f);
}

/* CERT-02/12: AllAlpha=true turns EnableExternalCerts on unless it is named false, and the
 * gate wins over every other writer choice. */
TEST(cert02_all_alpha_selects_external_certificates_unless_disabled)
{
    static const struct {
        const char *gates;
        const char *host;
        enum wh_certs_writer want;
    } cases[] = {
        {"", "", WH_CERTS_WRITER_SECRET},
        {"AllAlpha=true", "", WH_CERTS_WRITER_EXTERNAL},
        {"AllAlpha=true,EnableExternalCerts=false", "", WH_CERTS_WRITER_SECRET},
        {"EnableExternalCerts=true", "10.0.0.5", WH_CERTS_WRITER_EXTERNAL},
        {"", "10.0.0.5", WH_CERTS_WRITER_FS},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct wh_config cfg;
        struct wh_certs_env e;
        struct wh_errbuf eb = {{0}};
        char *argv[] = {"kruise-webhook",
                        "--feature-gates",
                        (char *)(uintptr_t)cases[i].gates,
                        "--webhook-host",
                        (char *)(uintptr_t)cases[i].host,
                        NULL};
        CHECK_EQ_INT(wh_config_load(&cfg, 5, argv, &eb), WH_OK);
        CHECK_EQ_INT(wh_certs_env_from_config(&e, &cfg, &eb), WH_OK);
        CHECK_EQ_INT(
            wh_certs_env_writer(&e, wh_feature_on(&cfg.features, WH_FEATURE_EnableExternalCerts)),
            cases[i].want);
        wh_certs_env_fini(&e);
        wh_config_fini(&cfg);
    }
}

/* CERT-82: a Secret made for another Service name (a rolling update that renames it) gets a
 * new serving certificate for ours, signed by the same CA: the caBundle does not change, so
 * no rotation is needed. */
TEST(cert82_other_service_name_renews_serving_certificate_keeping_the_ca)
{
    struct fx f;
    struct inst a;
    struct wh_errbuf eb = {{0}};
    static const char *const svc[] = {"--service-name", "renamed-service", NULL};
    if (!fx_start(&f))
        return;
    if (!inst_start(&a, &f, "a", NULL))
        goto out_fx;
    CHECK_EQ_INT(sync_in(&a, &eb), WH_OK);
    json_t *before = get_secret(&f);
    char *ca = secret_item(before, "ca-cert.pem"), *cert = secret_item(before, "cert.pem");
    inst_stop(&a);
    if (!inst_start(&a, &f, "b", svc))
        goto out_ca;
    CHECK_EQ_INT(sync_in(&a, &eb), WH_OK);
    json_t *after = get_secret(&f);
    char *ca2 = secret_item(after, "ca-cert.pem"), *cert2 = secret_item(after, "cert.pem");
    CHECK_EQ_STR(ca2, ca);
    CHECK(cert && cert2 && strcmp(cert, cert2) != 0);
    CHECK(wh_json_annotation(after, WH_CERTS_ANN_PREVIOUS_CA) == NULL);
    /* The Secret's other user (here the first instance, in a migration kruise-manager) still
     * finds a certificate valid for its name, so it has nothing to rewrite. */
    X509 *x = NULL;
    CHECK_EQ_INT(wh_certs_pem_first_cert(cert2, strlen(cert2), &x), WH_OK);
    CHECK(x && wh_certs_verify_host(x, "renamed-service." NS ".svc"));
    CHECK(x && wh_certs_verify_host(x, UPSTREAM_SVC "." NS ".svc"));
    X509_free(x);
    struct wh_certs_controller_status st;
    wh_certs_controller_status(a.c, &st);
    CHECK(!st.rotating);
    json_t *m = get_config(&f, true);
    CHECK_EQ_STR(wh_json_path_str(json_array_get(json_object_get(m, "webhooks"), 0), "clientConfig",
                                  "service", "name", NULL),
                 "renamed-service");
    json_decref(m);
    free(ca2);
    free(cert2);
    json_decref(after);
    inst_stop(&a);
out_ca:
    free(ca);
    free(cert);
    json_decref(before);
out_fx:
    fx_stop(&f);
}

/* CERT-51, changed on purpose: a configuration that does not exist is skipped (logged), not a
 * failed sync, so a cluster may use one of the two, or none (conversion only). */
TEST(cert51_missing_configuration_is_skipped)
{
    struct fx f;
    struct inst a;
    struct wh_errbuf eb = {{0}};
    char path[256];
    if (!fx_start(&f))
        return;
    CHECK_EQ_INT(wh_kube_path(path, sizeof(path), "admissionregistration.k8s.io", "v1",
                              "validatingwebhookconfigurations", NULL, VALIDATING, NULL),
                 WH_OK);
    CHECK_EQ_INT(wh_kube_delete(f.client, path, NULL, NULL), WH_OK);
    if (!inst_start(&a, &f, "a", NULL))
        goto out_fx;
    CHECK_EQ_INT(sync_in(&a, &eb), WH_OK);
    CHECK(wh_certs_controller_initialized(a.c));
    json_t *secret = get_secret(&f);
    char *ca = secret_item(secret, "ca-cert.pem");
    json_t *m = get_config(&f, true);
    char *m0 = entry_bundle(m, 0);
    CHECK_EQ_STR(m0, ca);
    free(m0);
    json_decref(m);
    free(ca);
    json_decref(secret);
    inst_stop(&a);
out_fx:
    fx_stop(&f);
}

/* The conversion URL of a CRD, as a new string (NULL when none). */
static char *crd_url(struct fx *f, const char *name)
{
    json_t *crd = get_obj(f, "apiextensions.k8s.io", "customresourcedefinitions", NULL, name);
    const char *url =
        wh_json_path_str(crd, "spec", "conversion", "webhook", "clientConfig", "url", NULL);
    char *out = url ? wh_xstrdup(url) : NULL;
    json_decref(crd);
    return out;
}

static void remove_tree(const char *dir)
{
    char *cmd = wh_str_printf("rm -rf '%s'", dir);
    CHECK_EQ_INT(system(cmd), 0);
    free(cmd);
}

/* Issue 22: in URL mode the cert dir is the store, and anyone may delete it. The certificates
 * in use (still served, still in the caBundles) are written back: no new CA published alone,
 * which made the API server refuse the old certificate until the reload. */
TEST(certs_url_mode_deleted_cert_dir_gets_the_certificates_in_use_back)
{
    struct fx f;
    struct inst a;
    struct wh_errbuf eb = {{0}};
    if (!fx_start(&f))
        return;
    static const char *const url[] = {"--webhook-host", "127.0.0.1", "--port", "9443", NULL};
    if (!inst_start(&a, &f, "a", url))
        goto out_fx;
    CHECK_EQ_INT(sync_in(&a, &eb), WH_OK);
    char *ca = read_dir_file(a.certdir, "ca-cert.pem");
    char *cert = read_dir_file(a.certdir, "tls.crt");
    /* The HTTPS server keeps presenting what it loaded while the directory is gone. */
    serial_of_pem(cert, a.fixed_serial, sizeof(a.fixed_serial));
    remove_tree(a.certdir);
    clear_requests(&f);
    CHECK_EQ_INT(sync_in(&a, &eb), WH_OK);
    char *ca2 = read_dir_file(a.certdir, "ca-cert.pem");
    char *cert2 = read_dir_file(a.certdir, "tls.crt");
    CHECK_EQ_STR(ca2, ca);
    CHECK_EQ_STR(cert2, cert);
    CHECK_EQ_INT(count_writes(&f, NULL), 0); /* the caBundles already trust it */
    json_t *m = get_config(&f, true);
    char *bundle = entry_bundle(m, 0);
    CHECK_EQ_STR(bundle, ca);
    struct wh_certs_controller_status st;
    wh_certs_controller_status(a.c, &st);
    CHECK(!st.rotating);
    CHECK_EQ_INT(st.bundle_cas, 1);
    free(bundle);
    json_decref(m);
    free(ca2);
    free(cert2);
    free(ca);
    free(cert);
    inst_stop(&a);
out_fx:
    fx_stop(&f);
}

/* Issue 22: when the certificates in use are due for renewal too, the new CA is published
 * beside the old one held in memory (the rotation protocol, as docs/certificates.md says),
 * though the directory that held the old one is gone. */
TEST(certs_url_mode_deleted_cert_dir_renewal_keeps_the_old_ca_published)
{
    struct fx f;
    struct inst a;
    struct wh_errbuf eb = {{0}};
    if (!fx_start(&f))
        return;
    /* Valid just beyond the 180-day margin: due for renewal a few seconds from now. */
    struct wh_certs_gen_opts o;
    struct wh_certs_bundle *old = NULL;
    struct wh_certs_target t = {.host = "127.0.0.1"};
    wh_certs_gen_opts_init(&o);
    o.key_type = WH_CERTS_KEY_ECDSA;
    o.validity_secs = 180 * 86400LL + 3;
    o.backdate_secs = 0;
    WH_ASSERT(wh_certs_bundle_generate(&o, &t, NULL, &old, NULL, &eb) == WH_OK);
    static const char *const url[] = {"--webhook-host", "127.0.0.1", "--port", "9443", NULL};
    if (!inst_start(&a, &f, "a", url))
        goto out_old;
    CHECK_EQ_INT(wh_certs_fs_write(a.certdir, old, NULL, &eb), WH_OK);
    serial_of_pem(wh_certs_bundle_get(old, WH_CERTS_CERT, NULL), a.fixed_serial,
                  sizeof(a.fixed_serial));
    CHECK_EQ_INT(sync_in(&a, &eb), WH_OK);
    const char *old_ca = wh_certs_bundle_get(old, WH_CERTS_CA_CERT, NULL);
    char *ca = read_dir_file(a.certdir, "ca-cert.pem");
    CHECK_EQ_STR(ca, old_ca); /* still valid: kept */
    free(ca);
    wh_time_sleep_ms(4000); /* now within the margin */
    remove_tree(a.certdir);
    CHECK_EQ_INT(sync_in(&a, &eb), WH_OK);
    ca = read_dir_file(a.certdir, "ca-cert.pem");
    CHECK(ca && strcmp(ca, old_ca) != 0);
    json_t *m = get_config(&f, true);
    char *bundle = entry_bundle(m, 0);
    CHECK_EQ_INT(count_certs(bundle), 2);
    CHECK(bundle && wh_certs_inject_bundle_trusts(bundle, strlen(bundle), old_ca, strlen(old_ca)));
    CHECK(bundle && ca && wh_certs_inject_bundle_trusts(bundle, strlen(bundle), ca, strlen(ca)));
    struct wh_certs_controller_status st;
    wh_certs_controller_status(a.c, &st);
    CHECK(st.rotating);
    CHECK_EQ_INT(st.bundle_cas, 2);
    free(bundle);
    json_decref(m);
    free(ca);
    inst_stop(&a);
out_old:
    wh_certs_bundle_free(old);
    fx_stop(&f);
}

/* Issue 22: a renewal margin longer than the certificates' validity renewed every certificate
 * as soon as it was made (a CA rotation every 5.6 s, never listening). Refused, naming the
 * flag and both durations. */
TEST(certs_renew_before_longer_than_the_validity_is_refused)
{
    struct fx f;
    struct inst a;
    if (!fx_start(&f))
        return;
    struct wh_config cfg;
    struct wh_errbuf eb = {{0}};
    char *argv[] = {"kruise-webhook", "--kubeconfig", f.kubeconfig, "--certs-renew-before", "11y",
                    NULL};
    CHECK_EQ_INT(wh_config_load(&cfg, 5, argv, &eb), WH_OK);
    struct wh_certs_env e;
    CHECK_EQ_INT(wh_certs_env_from_config(&e, &cfg, &eb), WH_ERR_INVALID);
    CHECK(strstr(eb.msg, "--certs-renew-before") != NULL);
    CHECK(strstr(eb.msg, "11y = 4015 days") != NULL);
    CHECK(strstr(eb.msg, "3650-day validity") != NULL);
    wh_certs_env_fini(&e);
    wh_config_fini(&cfg);
    struct wh_kube_opts ko = {.kubeconfig = f.kubeconfig, .timeout_ms = 10000};
    struct wh_kube_client *client = NULL;
    memset(&a, 0, sizeof(a));
    CHECK_EQ_INT(wh_config_load(&a.cfg, 5, argv, &eb), WH_OK);
    CHECK_EQ_INT(wh_kube_client_new(&ko, &client, &eb), WH_OK);
    CHECK_EQ_INT(wh_cluster_new_api(client, &a.cl, &eb), WH_OK);
    struct wh_certs_hooks hooks = {.serves = wh_test_certs_serves,
                                   .serves_arg = &a.cfg,
                                   .serving_serial = fake_serving,
                                   .serial_arg = &a};
    CHECK_EQ_INT(wh_certs_controller_new(a.cl, &a.cfg, &hooks, &a.c, &eb), WH_ERR_INVALID);
    CHECK(a.c == NULL);
    CHECK_EQ_INT(wh_certs_env_check_renew_before(3649 * 86400LL, "3649d", NULL, &eb), WH_OK);
    wh_cluster_free(a.cl);
    wh_config_fini(&a.cfg);
    fx_stop(&f);
}

/* Whatever the settings, a certificate that would be due for renewal the moment it is made is
 * never stored. Here a stored CA valid for 1.5 years, reusable by CERT-41 (one year), with a
 * 2-year renewal margin: every serving certificate it signed was due at once, so each sync
 * (and the Secret watch after each write) made another. A new CA is made instead, once. */
TEST(certs_reused_ca_ending_within_the_margin_is_replaced_not_reused_forever)
{
    struct fx f;
    struct inst a;
    struct wh_errbuf eb = {{0}};
    if (!fx_start(&f))
        return;
    struct wh_certs_bundle *old = short_lived_bundle(548 * 86400LL);
    json_t *obj = wh_certs_secret_object(NS, SECRET, NULL, old);
    put_obj(&f, obj);
    json_decref(obj);
    static const char *const margin[] = {"--certs-renew-before", "730d", NULL};
    if (!inst_start(&a, &f, "a", margin))
        goto out_old;
    CHECK_EQ_INT(sync_in(&a, &eb), WH_OK);
    json_t *s1 = get_secret(&f);
    char *ca1 = secret_item(s1, "ca-cert.pem"), *cert1 = secret_item(s1, "cert.pem");
    CHECK(ca1 && strcmp(ca1, wh_certs_bundle_get(old, WH_CERTS_CA_CERT, NULL)) != 0);
    for (int i = 0; i < 3; i++)
        CHECK_EQ_INT(sync_in(&a, &eb), WH_OK);
    json_t *s2 = get_secret(&f);
    char *cert2 = secret_item(s2, "cert.pem");
    CHECK_EQ_STR(cert2, cert1);
    free(cert2);
    json_decref(s2);
    free(ca1);
    free(cert1);
    json_decref(s1);
    inst_stop(&a);
out_old:
    wh_certs_bundle_free(old);
    fx_stop(&f);
}

/* Issue 22: the server moved to another port in URL mode (--port): the webhook entries and the
 * CRDs' conversions call the new port. Before, the CRDs kept the old one (not ours any more by
 * their URL), and every v1alpha1 read failed with "connection refused". */
TEST(certs_url_mode_port_change_moves_the_crd_conversions_too)
{
    struct fx f;
    struct inst a;
    struct wh_errbuf eb = {{0}};
    if (!fx_start(&f))
        return;
    static const char *const p1[] = {"--webhook-host", "127.0.0.1", "--port", "9443", NULL};
    static const char *const p2[] = {"--webhook-host", "127.0.0.1", "--port", "9555", NULL};
    if (!inst_start(&a, &f, "a", p1))
        goto out_fx;
    CHECK_EQ_INT(sync_in(&a, &eb), WH_OK);
    char *u = crd_url(&f, "clonesets.apps.kruise.io");
    CHECK_EQ_STR(u, "https://127.0.0.1:9443/convert");
    free(u);
    inst_stop(&a);
    /* The same cert dir (the same CA), another port. */
    if (!inst_start(&a, &f, "a", p2))
        goto out_fx;
    CHECK_EQ_INT(sync_in(&a, &eb), WH_OK);
    u = crd_url(&f, "clonesets.apps.kruise.io");
    CHECK_EQ_STR(u, "https://127.0.0.1:9555/convert");
    free(u);
    u = crd_url(&f, "sidecarsets.apps.kruise.io");
    CHECK_EQ_STR(u, "https://127.0.0.1:9555/convert");
    free(u);
    json_t *m = get_config(&f, true);
    CHECK_EQ_STR(wh_json_path_str(json_array_get(json_object_get(m, "webhooks"), 0), "clientConfig",
                                  "url", NULL),
                 "https://127.0.0.1:9555/mutate-apps-kruise-io-sidecarset");
    json_decref(m);
    inst_stop(&a);
out_fx:
    fx_stop(&f);
}
