/* Tests for certs/: generation (CERT-20..23), the validity check (CERT-40..43), the store
 * and its directory layout (CERT-39, CERT-45..47), the environment (CERT-01, 03, 10, 12) and
 * the operator commands. Test names carry the property they check. RSA keys are slow to
 * generate, so one RSA bundle is shared and every property not about RSA uses ECDSA. */
#include "test/unit/test.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include "certs/atomic_dir.h"
#include "certs/bundle.h"
#include "certs/cli.h"
#include "certs/env.h"
#include "certs/fs_store.h"
#include "certs/keypair.h"
#include "certs/pem.h"
#include "certs/secret.h"
#include "certs/verify.h"
#include "test/support/certs_hooks.h"
#include "test/support/tls_fixture.h"
#include "util/json.h"
#include "util/mem.h"
#include "util/str.h"

#define DAY ((int64_t)86400)
#define SVC "kruise-webhook-server"
#define NS "kruise-system"
#define SVC_DNS SVC "." NS ".svc"
#define MARGIN (180 * DAY)

static const struct wh_certs_target service_target = {.service = SVC, .namespace = NS};

/* --- helpers ------------------------------------------------------------------------------ */

static time_t shared_t0;
static struct wh_certs_bundle *shared_rsa;

/* The default deployment's material: RSA, service mode, generated once at shared_t0. */
static const struct wh_certs_bundle *rsa_bundle(void)
{
    if (!shared_rsa) {
        struct wh_certs_gen_opts o;
        wh_certs_gen_opts_init(&o);
        shared_t0 = time(NULL);
        o.now = shared_t0;
        struct wh_errbuf eb;
        enum wh_err rc =
            wh_certs_bundle_generate(&o, &service_target, NULL, &shared_rsa, NULL, &eb);
        WH_ASSERT(rc == WH_OK);
    }
    return shared_rsa;
}

/* also: a certificate whose names the new one keeps too (NULL: none). */
static struct wh_certs_bundle *ec_bundle_with(const struct wh_certs_target *t, time_t now,
                                              int64_t validity, bool upstream, X509 *also)
{
    struct wh_certs_gen_opts o;
    struct wh_certs_bundle *b = NULL;
    struct wh_errbuf eb;
    wh_certs_gen_opts_init(&o);
    o.key_type = WH_CERTS_KEY_ECDSA;
    o.now = now;
    if (validity)
        o.validity_secs = validity;
    o.upstream_sans = upstream;
    o.also_names_of = also;
    enum wh_err rc = wh_certs_bundle_generate(&o, t, NULL, &b, NULL, &eb);
    if (rc)
        fprintf(stderr, "generate: %s\n", eb.msg);
    WH_ASSERT(rc == WH_OK);
    return b;
}

static struct wh_certs_bundle *ec_bundle_at(const struct wh_certs_target *t, time_t now,
                                            int64_t validity, bool upstream)
{
    return ec_bundle_with(t, now, validity, upstream, NULL);
}

static struct wh_certs_bundle *ec_bundle(const struct wh_certs_target *t)
{
    return ec_bundle_at(t, 0, 0, false);
}

static X509 *cert_of(const struct wh_certs_bundle *b, enum wh_certs_item i)
{
    size_t len;
    const char *pem = wh_certs_bundle_get(b, i, &len);
    X509 *x = NULL;
    enum wh_err rc = wh_certs_pem_first_cert(pem, len, &x);
    WH_ASSERT(rc == WH_OK);
    return x;
}

static EVP_PKEY *key_of(const struct wh_certs_bundle *b, enum wh_certs_item i)
{
    size_t len;
    const char *pem = wh_certs_bundle_get(b, i, &len);
    EVP_PKEY *k = NULL;
    enum wh_err rc = wh_certs_pem_first_key(pem, len, &k);
    WH_ASSERT(rc == WH_OK);
    return k;
}

static time_t t_of(const ASN1_TIME *t)
{
    time_t v = 0;
    enum wh_err rc = wh_certs_verify_asn1_time(t, &v);
    WH_ASSERT(rc == WH_OK);
    return v;
}

/* -1 absent, 0 present, 1 present and critical */
static int ext_state(X509 *x, int nid)
{
    int idx = X509_get_ext_by_NID(x, nid, -1);
    if (idx < 0)
        return -1;
    return X509_EXTENSION_get_critical(X509_get_ext(x, idx)) ? 1 : 0;
}

static bool serial_in_range(X509 *x)
{
    uint64_t v = 0;
    if (ASN1_INTEGER_get_uint64(&v, X509_get0_serialNumber(x)) != 1)
        return false;
    return v >= 1 && v <= (uint64_t)INT64_MAX - 1;
}

static const char *cn_of(X509 *x, char *buf, size_t size)
{
    X509_NAME *n = X509_get_subject_name(x);
    if (X509_NAME_entry_count(n) != 1)
        return "(not exactly one attribute)";
    if (X509_NAME_get_text_by_NID(n, NID_commonName, buf, (int)size) < 0)
        return "(no CN)";
    return buf;
}

#define CHECK_SANS(x, expected_json)                                                               \
    do {                                                                                           \
        json_t *d_ = wh_certs_bundle_describe_cert((x), time(NULL));                               \
        json_t *w_ = wh_test_json(expected_json);                                                  \
        CHECK_EQ_JSON(json_object_get(d_, "sans"), w_);                                            \
        json_decref(d_);                                                                           \
        json_decref(w_);                                                                           \
    } while (0)

static void set_item(struct wh_certs_bundle *b, enum wh_certs_item i, const char *text)
{
    enum wh_err rc = wh_certs_bundle_set(b, i, text, text ? strlen(text) : 0);
    WH_ASSERT(rc == WH_OK);
}

static void copy_item(struct wh_certs_bundle *to, const struct wh_certs_bundle *from,
                      enum wh_certs_item i)
{
    size_t len;
    const char *p = wh_certs_bundle_get(from, i, &len);
    enum wh_err rc = wh_certs_bundle_set(to, i, p, len);
    WH_ASSERT(rc == WH_OK);
}

static void set_cert(struct wh_certs_bundle *b, enum wh_certs_item i, X509 *x)
{
    char *pem = NULL;
    size_t len = 0;
    enum wh_err rc = wh_certs_pem_encode_cert(x, &pem, &len);
    WH_ASSERT(rc == WH_OK);
    rc = wh_certs_bundle_set(b, i, pem, len);
    WH_ASSERT(rc == WH_OK);
    free(pem);
}

static enum wh_certs_verdict validate(const struct wh_certs_bundle *b, const char *host)
{
    return wh_certs_bundle_validate(b, host, time(NULL), MARGIN, NULL);
}

static char *slurp(const char *dir, const char *name, size_t *len)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    char *data = NULL;
    enum wh_err rc = wh_certs_pem_read_file(path, WH_CERTS_PEM_MAX, &data, len, NULL);
    return rc ? NULL : data;
}

static void touch(const char *path)
{
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f)
        fclose(f);
}

static int count_generations(const char *dir)
{
    int n = 0;
    char path[512];
    snprintf(path, sizeof(path), "%s", dir);
    DIR *d = opendir(path);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, "..2", 3) == 0)
            n++;
    }
    if (d)
        closedir(d);
    return n;
}

/* --- CERT-03, CERT-01, CERT-10, CERT-12: inputs ----------------------------------------- */

TEST(cert03_renew_before_examples)
{
    bool def = true;
    CHECK_EQ_INT(wh_certs_env_parse_renew_before("10d", &def), 240 * 3600);
    CHECK(!def);
    CHECK_EQ_INT(wh_certs_env_parse_renew_before("2m", &def), 60 * DAY);
    CHECK(!def);
    CHECK_EQ_INT(wh_certs_env_parse_renew_before("1y", &def), 365 * DAY);
    CHECK(!def);
    CHECK_EQ_INT(wh_certs_env_parse_renew_before("+7d", &def), 7 * DAY); /* optional sign */
    CHECK(!def);
    CHECK_EQ_INT(wh_certs_env_parse_renew_before("3651d", &def), 3651 * DAY); /* checklist 10 */
    CHECK_EQ_INT(wh_certs_env_parse_renew_before("292y", &def), 292 * 365 * DAY);
    CHECK(!def);
}

TEST(cert03_renew_before_defaults)
{
    /* Every unusable value yields 6 x 30 days. */
    static const char *const bad[] = {
        "",  "oops", "1.5y", "5x", "10",    "0d",   "-3d",
        "d", " 5d",  "5 d",  "5D", "0x10d", "293y", "99999999999999y"};
    bool def = false;
    CHECK_EQ_INT(wh_certs_env_parse_renew_before(NULL, &def), 180 * DAY);
    CHECK(def);
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        def = false;
        int64_t v = wh_certs_env_parse_renew_before(bad[i], &def);
        if (v != 180 * DAY || !def)
            fprintf(stderr, "  CERTS_RENEW_BEFORE=\"%s\" gave %lld\n", bad[i], (long long)v);
        CHECK_EQ_INT(v, 180 * DAY);
        CHECK(def);
    }
}

static void unset_cert_env(void)
{
    static const char *const vars[] = {
        "POD_NAMESPACE", "SECRET_NAME",      "SERVICE_NAME",        "WEBHOOK_HOST",
        "WEBHOOK_PORT",  "WEBHOOK_CERT_DIR", "WEBHOOK_CERT_WRITER", "CERTS_RENEW_BEFORE"};
    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
        unsetenv(vars[i]);
}

TEST(cert01_env_defaults_and_empty_is_unset)
{
    struct wh_certs_env e;
    unset_cert_env();
    setenv("WEBHOOK_HOST", "", 1);
    setenv("POD_NAMESPACE", "", 1);
    CHECK_EQ_INT(wh_certs_env_load(&e, NULL), WH_OK);
    CHECK_EQ_STR(e.pod_namespace, "kruise-system");
    CHECK_EQ_STR(e.secret_name, "kruise-webhook-server-certs");
    CHECK_EQ_STR(e.service_name, "kruise-webhook-server");
    CHECK(e.host == NULL);
    CHECK_EQ_INT(e.port, 9876);
    CHECK_EQ_STR(e.cert_dir, "/tmp/kruise-webhook-certs");
    CHECK(e.cert_writer == NULL);
    CHECK_EQ_INT(e.renew_before_secs, 180 * DAY);
    wh_certs_env_fini(&e);

    setenv("WEBHOOK_HOST", "10.0.0.5", 1);
    setenv("WEBHOOK_PORT", "9443", 1);
    setenv("WEBHOOK_CERT_DIR", "/x/y", 1);
    setenv("CERTS_RENEW_BEFORE", "2m", 1);
    CHECK_EQ_INT(wh_certs_env_load(&e, NULL), WH_OK);
    CHECK_EQ_STR(e.host, "10.0.0.5");
    CHECK_EQ_INT(e.port, 9443);
    CHECK_EQ_STR(e.cert_dir, "/x/y");
    CHECK_EQ_INT(e.renew_before_secs, 60 * DAY);
    wh_certs_env_fini(&e);

    struct wh_errbuf eb;
    setenv("WEBHOOK_PORT", "98x", 1); /* upstream exits at start-up */
    CHECK_EQ_INT(wh_certs_env_load(&e, &eb), WH_ERR_INVALID);
    CHECK(strstr(eb.msg, "WEBHOOK_PORT") != NULL);
    unset_cert_env();
}

TEST(cert10_dns_name)
{
    char *s = wh_certs_target_dns_name(&service_target);
    CHECK_EQ_STR(s, "kruise-webhook-server.kruise-system.svc");
    free(s);
    struct wh_certs_target url = {.host = "10.0.0.5", .service = SVC, .namespace = NS};
    s = wh_certs_target_dns_name(&url);
    CHECK_EQ_STR(s, "10.0.0.5"); /* verbatim */
    free(s);
    struct wh_certs_target none = {.service = SVC};
    CHECK(wh_certs_target_dns_name(&none) == NULL);
}

TEST(cert12_writer_selection)
{
    struct wh_certs_env e = {0};
    CHECK_EQ_INT(wh_certs_env_writer(&e, false), WH_CERTS_WRITER_SECRET);
    CHECK_EQ_INT(wh_certs_env_writer(&e, true), WH_CERTS_WRITER_EXTERNAL);
    e.host = "10.0.0.5";
    CHECK_EQ_INT(wh_certs_env_writer(&e, false), WH_CERTS_WRITER_FS);
    e.cert_writer = "secret";
    CHECK_EQ_INT(wh_certs_env_writer(&e, false), WH_CERTS_WRITER_SECRET);
    e.cert_writer = "external"; /* any other value selects the Secret writer */
    CHECK_EQ_INT(wh_certs_env_writer(&e, false), WH_CERTS_WRITER_SECRET);
    e.host = NULL;
    e.cert_writer = "fs";
    CHECK_EQ_INT(wh_certs_env_writer(&e, false), WH_CERTS_WRITER_FS);
    CHECK_EQ_INT(wh_certs_env_writer(&e, true), WH_CERTS_WRITER_EXTERNAL);
}

/* --- CERT-20..23: generation -------------------------------------------------------------- */

static void check_rsa_2048(EVP_PKEY *k)
{
    BIGNUM *e = NULL;
    CHECK_EQ_INT(EVP_PKEY_get_base_id(k), EVP_PKEY_RSA);
    CHECK_EQ_INT(EVP_PKEY_get_bits(k), 2048);
    CHECK(EVP_PKEY_get_bn_param(k, OSSL_PKEY_PARAM_RSA_E, &e) == 1);
    CHECK(e && BN_get_word(e) == 65537);
    BN_free(e);
}

TEST(cert20_rsa_2048_keys_and_fresh_serving_key)
{
    const struct wh_certs_bundle *b = rsa_bundle();
    EVP_PKEY *ca_key = key_of(b, WH_CERTS_CA_KEY), *key = key_of(b, WH_CERTS_KEY);
    check_rsa_2048(ca_key);
    check_rsa_2048(key);
    CHECK(EVP_PKEY_eq(ca_key, key) != 1);

    /* A new serving certificate always comes with a new key, even under a reused CA. */
    struct wh_certs_gen_opts o;
    struct wh_certs_bundle *again = NULL;
    bool reused = false;
    wh_certs_gen_opts_init(&o);
    CHECK_EQ_INT(wh_certs_bundle_generate(&o, &service_target, b, &again, &reused, NULL), WH_OK);
    CHECK(reused);
    EVP_PKEY *key2 = key_of(again, WH_CERTS_KEY);
    check_rsa_2048(key2);
    CHECK(EVP_PKEY_eq(key, key2) != 1);
    EVP_PKEY_free(key2);
    wh_certs_bundle_free(again);
    EVP_PKEY_free(ca_key);
    EVP_PKEY_free(key);
}

TEST(cert21_ca_subject_and_extensions)
{
    const struct wh_certs_bundle *b = rsa_bundle();
    X509 *ca = cert_of(b, WH_CERTS_CA_CERT);
    EVP_PKEY *ca_key = key_of(b, WH_CERTS_CA_KEY);
    char cn[256];

    CHECK_EQ_INT(X509_get_version(ca), X509_VERSION_3);
    CHECK_EQ_STR(cn_of(ca, cn, sizeof(cn)), "webhook-cert-ca");
    CHECK_EQ_INT(X509_NAME_cmp(X509_get_subject_name(ca), X509_get_issuer_name(ca)), 0);
    CHECK_EQ_INT(X509_verify(ca, ca_key), 1); /* self-signed with its own key */
    CHECK_EQ_INT(X509_get_signature_nid(ca), NID_sha256WithRSAEncryption);
    CHECK(serial_in_range(ca));
    /* notBefore backdated one hour (our choice, see keypair.h); notAfter = now + 3650 d. */
    CHECK_EQ_INT(t_of(X509_get0_notBefore(ca)), shared_t0 - 3600);
    CHECK_EQ_INT(t_of(X509_get0_notAfter(ca)), shared_t0 + 3650 * DAY);

    int crit = -1;
    BASIC_CONSTRAINTS *bc = X509_get_ext_d2i(ca, NID_basic_constraints, &crit, NULL);
    CHECK(bc && bc->ca && bc->pathlen == NULL);
    CHECK_EQ_INT(crit, 1);
    BASIC_CONSTRAINTS_free(bc);
    CHECK_EQ_INT(ext_state(ca, NID_key_usage), 1);
    CHECK_EQ_INT(X509_get_key_usage(ca),
                 KU_DIGITAL_SIGNATURE | KU_KEY_ENCIPHERMENT | KU_KEY_CERT_SIGN);
    CHECK_EQ_INT(ext_state(ca, NID_subject_alt_name), 0);
    CHECK_SANS(ca, "[\"DNS:webhook-cert-ca\"]");
    CHECK_EQ_INT(ext_state(ca, NID_subject_key_identifier), 0);
    CHECK_EQ_INT(ext_state(ca, NID_authority_key_identifier), -1);
    CHECK_EQ_INT(ext_state(ca, NID_ext_key_usage), -1);
    CHECK_EQ_INT(X509_get_ext_count(ca), 4);

    /* SKI = SHA-1 of the public key bits, as Go computes it. */
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int md_len = 0;
    CHECK_EQ_INT(X509_pubkey_digest(ca, EVP_sha1(), md, &md_len), 1);
    const ASN1_OCTET_STRING *ski = X509_get0_subject_key_id(ca);
    CHECK(ski && (unsigned)ASN1_STRING_length(ski) == md_len &&
          memcmp(ASN1_STRING_get0_data(ski), md, md_len) == 0);
    X509_free(ca);
    EVP_PKEY_free(ca_key);
}

TEST(cert22_serving_certificate_fields)
{
    const struct wh_certs_bundle *b = rsa_bundle();
    X509 *ca = cert_of(b, WH_CERTS_CA_CERT), *leaf = cert_of(b, WH_CERTS_CERT);
    EVP_PKEY *ca_key = key_of(b, WH_CERTS_CA_KEY);
    char cn[256];

    CHECK_EQ_INT(X509_get_version(leaf), X509_VERSION_3);
    CHECK_EQ_STR(cn_of(leaf, cn, sizeof(cn)), SVC_DNS);
    CHECK_EQ_INT(X509_NAME_cmp(X509_get_issuer_name(leaf), X509_get_subject_name(ca)), 0);
    CHECK_EQ_INT(X509_verify(leaf, ca_key), 1);
    CHECK_EQ_INT(X509_get_signature_nid(leaf), NID_sha256WithRSAEncryption);
    CHECK(serial_in_range(leaf));
    CHECK_EQ_INT(ASN1_TIME_compare(X509_get0_notBefore(leaf), X509_get0_notBefore(ca)), 0);
    CHECK_EQ_INT(t_of(X509_get0_notAfter(leaf)), shared_t0 + 3650 * DAY);

    CHECK_EQ_INT(ext_state(leaf, NID_key_usage), 1);
    CHECK_EQ_INT(X509_get_key_usage(leaf), KU_DIGITAL_SIGNATURE | KU_KEY_ENCIPHERMENT);
    CHECK_EQ_INT(ext_state(leaf, NID_ext_key_usage), 0);
    EXTENDED_KEY_USAGE *eku = X509_get_ext_d2i(leaf, NID_ext_key_usage, NULL, NULL);
    CHECK(eku && sk_ASN1_OBJECT_num(eku) == 1 &&
          OBJ_obj2nid(sk_ASN1_OBJECT_value(eku, 0)) == NID_server_auth);
    EXTENDED_KEY_USAGE_free(eku);
    CHECK_EQ_INT(ext_state(leaf, NID_basic_constraints), -1);
    CHECK_EQ_INT(ext_state(leaf, NID_subject_key_identifier), -1);
    CHECK_EQ_INT(ext_state(leaf, NID_authority_key_identifier), 0);
    const ASN1_OCTET_STRING *akid = X509_get0_authority_key_id(leaf);
    CHECK(akid && ASN1_OCTET_STRING_cmp(akid, X509_get0_subject_key_id(ca)) == 0);
    /* Upstream's two names first, then the extra service names the issue asks for. */
    CHECK_SANS(leaf, "[\"DNS:localhost\", \"DNS:" SVC_DNS "\", \"DNS:" SVC "\", \"DNS:" SVC "." NS
                     "\", \"DNS:" SVC_DNS ".cluster.local\"]");
    X509_free(ca);
    X509_free(leaf);
    EVP_PKEY_free(ca_key);
}

TEST(cert22_sans_upstream_exact_service_mode)
{
    struct wh_certs_bundle *b = ec_bundle_at(&service_target, 0, 0, true);
    X509 *leaf = cert_of(b, WH_CERTS_CERT);
    CHECK_SANS(leaf, "[\"DNS:localhost\", \"DNS:" SVC_DNS "\"]"); /* checklist 2 */
    X509_free(leaf);
    wh_certs_bundle_free(b);
}

TEST(cert22_sans_ipv4_host)
{
    /* Checklist 11: CN 10.0.0.5, SANs DNS:localhost, IP:10.0.0.5. */
    struct wh_certs_target t = {.host = "10.0.0.5", .service = SVC, .namespace = NS};
    struct wh_certs_bundle *b = ec_bundle(&t);
    X509 *leaf = cert_of(b, WH_CERTS_CERT);
    char cn[64];
    CHECK_EQ_STR(cn_of(leaf, cn, sizeof(cn)), "10.0.0.5");
    CHECK_SANS(leaf, "[\"DNS:localhost\", \"IP:10.0.0.5\"]");
    CHECK(wh_certs_verify_host(leaf, "10.0.0.5"));
    CHECK(wh_certs_verify_host(leaf, "::ffff:10.0.0.5"));
    CHECK(!wh_certs_verify_host(leaf, "10.0.0.6"));
    CHECK(!wh_certs_verify_host(leaf, SVC_DNS));
    CHECK_EQ_INT(validate(b, "10.0.0.5"), WH_CERTS_VALID);
    X509_free(leaf);
    wh_certs_bundle_free(b);
}

TEST(cert22_sans_ipv4_mapped_stored_as_four_bytes)
{
    struct wh_certs_target t = {.host = "::ffff:10.0.0.1"};
    struct wh_certs_bundle *b = ec_bundle_at(&t, 0, 0, true);
    X509 *leaf = cert_of(b, WH_CERTS_CERT);
    GENERAL_NAMES *gens = X509_get_ext_d2i(leaf, NID_subject_alt_name, NULL, NULL);
    CHECK_EQ_INT(sk_GENERAL_NAME_num(gens), 2);
    const GENERAL_NAME *g = sk_GENERAL_NAME_value(gens, 1);
    CHECK(g && g->type == GEN_IPADD && ASN1_STRING_length(g->d.iPAddress) == 4);
    GENERAL_NAMES_free(gens);
    CHECK_EQ_INT(validate(b, "::ffff:10.0.0.1"), WH_CERTS_VALID);
    X509_free(leaf);
    wh_certs_bundle_free(b);
}

TEST(cert22_sans_ipv6_host_is_an_ip_san)
{
    /* Upstream quirk fixed as the spec recommends: no DNS SAN for an IPv6 literal, so the
     * certificate verifies and is not regenerated at every sync. */
    static const char *const hosts[] = {"fd00::5", "[fd00::5]"};
    for (size_t i = 0; i < 2; i++) {
        struct wh_certs_target t = {.host = hosts[i]};
        struct wh_certs_bundle *b = ec_bundle_at(&t, 0, 0, true);
        X509 *leaf = cert_of(b, WH_CERTS_CERT);
        CHECK_SANS(leaf, "[\"DNS:localhost\", \"IP:fd00::5\"]");
        CHECK(wh_certs_verify_host(leaf, "fd00::5"));
        CHECK(wh_certs_verify_host(leaf, "[fd00:0::5]"));
        CHECK_EQ_INT(validate(b, hosts[i]), WH_CERTS_VALID);
        X509_free(leaf);
        wh_certs_bundle_free(b);
    }
}

TEST(cert22_sans_dns_host_and_localhost)
{
    struct wh_certs_target t = {.host = "webhook.example.com"};
    struct wh_certs_bundle *b = ec_bundle(&t);
    X509 *leaf = cert_of(b, WH_CERTS_CERT);
    CHECK_SANS(leaf, "[\"DNS:localhost\", \"DNS:webhook.example.com\"]");
    X509_free(leaf);
    wh_certs_bundle_free(b);

    /* The standalone default: a certificate for localhost and 127.0.0.1 (and ::1). */
    struct wh_certs_target lh = {.host = "localhost"};
    b = ec_bundle(&lh);
    leaf = cert_of(b, WH_CERTS_CERT);
    CHECK_SANS(leaf, "[\"DNS:localhost\", \"IP:127.0.0.1\", \"IP:::1\"]");
    CHECK(wh_certs_verify_host(leaf, "127.0.0.1"));
    CHECK(wh_certs_verify_host(leaf, "::1"));
    CHECK(wh_certs_verify_host(leaf, "LocalHost"));
    X509_free(leaf);
    wh_certs_bundle_free(b);
}

/* Another server's names kept (a Secret shared during a migration): after ours, without
 * repeats, IP SANs too, cut at WH_CERTS_MAX_SANS. */
TEST(certs_serving_certificate_keeps_another_holders_names)
{
    struct wh_certs_target other_t = {.host = "10.0.0.7"};
    struct wh_certs_bundle *other = ec_bundle(&other_t);
    X509 *other_leaf = cert_of(other, WH_CERTS_CERT);
    struct wh_certs_bundle *b = ec_bundle_with(&service_target, 0, 0, false, other_leaf);
    X509 *leaf = cert_of(b, WH_CERTS_CERT);
    CHECK_SANS(leaf, "[\"DNS:localhost\", \"DNS:" SVC "." NS ".svc\", \"DNS:" SVC "\", \"DNS:" SVC
                     "." NS "\", \"DNS:" SVC "." NS ".svc.cluster.local\", \"IP:10.0.0.7\"]");
    CHECK(wh_certs_verify_host(leaf, "10.0.0.7"));
    X509_free(leaf);
    wh_certs_bundle_free(b);

    /* A certificate with more names than room: the new one is cut, not refused. */
    X509 *many = X509_dup(other_leaf);
    GENERAL_NAMES *gens = sk_GENERAL_NAME_new_null();
    for (int i = 0; i < 40; i++) {
        char name[32];
        snprintf(name, sizeof(name), "n%d.example", i);
        GENERAL_NAME *g = GENERAL_NAME_new();
        ASN1_IA5STRING *v = ASN1_IA5STRING_new();
        ASN1_STRING_set(v, name, (int)strlen(name));
        GENERAL_NAME_set0_value(g, GEN_DNS, v);
        sk_GENERAL_NAME_push(gens, g);
    }
    X509_add1_ext_i2d(many, NID_subject_alt_name, gens, 0, X509V3_ADD_REPLACE);
    GENERAL_NAMES_free(gens);
    b = ec_bundle_with(&service_target, 0, 0, false, many);
    leaf = cert_of(b, WH_CERTS_CERT);
    json_t *d = wh_certs_bundle_describe_cert(leaf, time(NULL));
    CHECK_EQ_INT((long long)json_array_size(json_object_get(d, "sans")), WH_CERTS_MAX_SANS);
    CHECK(wh_certs_verify_host(leaf, "n0.example") && !wh_certs_verify_host(leaf, "n39.example"));
    json_decref(d);
    X509_free(leaf);
    X509_free(many);
    wh_certs_bundle_free(b);
    X509_free(other_leaf);
    wh_certs_bundle_free(other);
}

TEST(cert22_long_names_and_bad_names)
{
    /* CN longer than X.520's 64 characters: Go does not care, neither may we. */
    struct wh_certs_target t = {.service = "a-rather-long-service-name-for-the-kruise-webhook",
                                .namespace = "a-rather-long-namespace-name-too"};
    struct wh_certs_bundle *b = ec_bundle(&t);
    char *dns = wh_certs_target_dns_name(&t);
    CHECK(strlen(dns) > 64);
    CHECK_EQ_INT(validate(b, dns), WH_CERTS_VALID);
    X509 *leaf = cert_of(b, WH_CERTS_CERT);
    char cn[256];
    CHECK_EQ_STR(cn_of(leaf, cn, sizeof(cn)), dns);
    X509_free(leaf);
    free(dns);
    wh_certs_bundle_free(b);

    static const char *const bad[] = {"a,b", "a b", "a/b", "host:9443", "\xc3\xa9t\xc3\xa9"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct wh_certs_gen_opts o;
        struct wh_certs_target bt = {.host = bad[i]};
        struct wh_certs_bundle *out = NULL;
        wh_certs_gen_opts_init(&o);
        o.key_type = WH_CERTS_KEY_ECDSA;
        CHECK_EQ_INT(wh_certs_bundle_generate(&o, &bt, NULL, &out, NULL, NULL), WH_ERR_INVALID);
        CHECK(out == NULL);
    }
}

TEST(cert22_ecdsa_on_request)
{
    struct wh_certs_bundle *b = ec_bundle(&service_target);
    X509 *ca = cert_of(b, WH_CERTS_CA_CERT), *leaf = cert_of(b, WH_CERTS_CERT);
    EVP_PKEY *key = key_of(b, WH_CERTS_KEY);
    CHECK_EQ_INT(EVP_PKEY_get_base_id(key), EVP_PKEY_EC);
    CHECK_EQ_INT(EVP_PKEY_get_bits(key), 256);
    CHECK_EQ_INT(X509_get_signature_nid(leaf), NID_ecdsa_with_SHA256);
    CHECK_EQ_INT(X509_get_key_usage(leaf), KU_DIGITAL_SIGNATURE);
    CHECK_EQ_INT(X509_get_key_usage(ca), KU_DIGITAL_SIGNATURE | KU_KEY_CERT_SIGN);
    CHECK_EQ_INT(validate(b, SVC_DNS), WH_CERTS_VALID);
    EVP_PKEY_free(key);
    X509_free(ca);
    X509_free(leaf);
    wh_certs_bundle_free(b);
}

static bool starts_with_block(const char *pem, const char *type)
{
    char head[96];
    snprintf(head, sizeof(head), "-----BEGIN %s-----\n", type);
    return pem && strncmp(pem, head, strlen(head)) == 0;
}

static int count_blocks(const char *pem)
{
    int n = 0;
    for (const char *p = pem; (p = strstr(p, "-----BEGIN ")) != NULL; p++)
        n++;
    return n;
}

TEST(cert23_pem_encodings)
{
    const struct wh_certs_bundle *b = rsa_bundle();
    const char *ca_key = wh_certs_bundle_get(b, WH_CERTS_CA_KEY, NULL);
    const char *key = wh_certs_bundle_get(b, WH_CERTS_KEY, NULL);
    const char *ca = wh_certs_bundle_get(b, WH_CERTS_CA_CERT, NULL);
    const char *cert = wh_certs_bundle_get(b, WH_CERTS_CERT, NULL);
    CHECK(starts_with_block(ca_key, "RSA PRIVATE KEY"));
    CHECK(starts_with_block(key, "RSA PRIVATE KEY"));
    CHECK(starts_with_block(ca, "CERTIFICATE"));
    CHECK(starts_with_block(cert, "CERTIFICATE"));
    CHECK_EQ_INT(count_blocks(ca), 1);
    CHECK_EQ_INT(count_blocks(cert), 1);
    CHECK_EQ_INT(count_blocks(key), 1);

    /* PKCS#1 DER: the key decodes as a type-specific RSAPrivateKey. */
    BIO *bio = BIO_new_mem_buf(key, -1);
    char *name = NULL, *header = NULL;
    unsigned char *der = NULL;
    long der_len = 0;
    CHECK_EQ_INT(PEM_read_bio(bio, &name, &header, &der, &der_len), 1);
    const unsigned char *p = der;
    EVP_PKEY *k = d2i_PrivateKey(EVP_PKEY_RSA, NULL, &p, der_len);
    CHECK(k != NULL);
    EVP_PKEY_free(k);
    OPENSSL_free(name);
    OPENSSL_free(header);
    OPENSSL_free(der);
    BIO_free(bio);

    /* EC keys: SEC1 "EC PRIVATE KEY". */
    struct wh_certs_bundle *ec = ec_bundle(&service_target);
    CHECK(starts_with_block(wh_certs_bundle_get(ec, WH_CERTS_KEY, NULL), "EC PRIVATE KEY"));
    CHECK(starts_with_block(wh_certs_bundle_get(ec, WH_CERTS_CA_KEY, NULL), "EC PRIVATE KEY"));
    wh_certs_bundle_free(ec);
}

/* --- PEM reading rules (CERT-40 step 2 and 3, CERT-41) ------------------------------------ */

TEST(cert40_pem_key_block_rules)
{
    const struct wh_certs_bundle *b = rsa_bundle();
    EVP_PKEY *key = key_of(b, WH_CERTS_KEY);
    X509 *leaf = cert_of(b, WH_CERTS_CERT);

    /* PKCS#8 ("PRIVATE KEY") is accepted too, after blocks of other types. */
    BIO *bio = BIO_new(BIO_s_mem());
    CHECK_EQ_INT(PEM_write_bio_X509(bio, leaf), 1);
    CHECK_EQ_INT(PEM_write_bio_PrivateKey(bio, key, NULL, NULL, 0, NULL, NULL), 1);
    char *p = NULL;
    long n = BIO_get_mem_data(bio, &p);
    EVP_PKEY *k2 = NULL;
    CHECK_EQ_INT(wh_certs_pem_first_key(p, (size_t)n, &k2), WH_OK);
    CHECK(k2 && EVP_PKEY_eq(k2, key) == 1);
    EVP_PKEY_free(k2);
    BIO_free(bio);

    /* PKCS#1 DER under a block named "PRIVATE KEY" or "FOO PRIVATE KEY" still parses (Go
     * tries all three encodings whatever the type says); "PRIVATE KEYS" is no key block. */
    static const char *const types[] = {"PRIVATE KEY", "FOO PRIVATE KEY", "PRIVATE KEYS"};
    unsigned char *der = NULL;
    int der_len = i2d_PrivateKey(key, &der);
    CHECK(der_len > 0);
    for (size_t i = 0; i < 3; i++) {
        bio = BIO_new(BIO_s_mem());
        CHECK(PEM_write_bio(bio, types[i], "", der, der_len) > 0);
        n = BIO_get_mem_data(bio, &p);
        k2 = NULL;
        enum wh_err rc = wh_certs_pem_first_key(p, (size_t)n, &k2);
        CHECK_EQ_INT(rc, i < 2 ? WH_OK : WH_ERR_NOT_FOUND);
        CHECK(i == 2 || (k2 && EVP_PKEY_eq(k2, key) == 1));
        EVP_PKEY_free(k2);
        BIO_free(bio);
    }
    OPENSSL_free(der);

    CHECK_EQ_INT(wh_certs_pem_first_key("garbage", 7, &k2), WH_ERR_NOT_FOUND);
    CHECK_EQ_INT(wh_certs_pem_first_key(NULL, 0, &k2), WH_ERR_NOT_FOUND);
    const char bad[] = "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n";
    CHECK_EQ_INT(wh_certs_pem_first_key(bad, sizeof(bad) - 1, &k2), WH_ERR_PARSE);
    X509_free(leaf);
    EVP_PKEY_free(key);
}

TEST(cert40_pem_certificate_block_rules)
{
    const struct wh_certs_bundle *b = rsa_bundle();
    const char *cert = wh_certs_bundle_get(b, WH_CERTS_CERT, NULL);
    const char *ca = wh_certs_bundle_get(b, WH_CERTS_CA_CERT, NULL);
    const char broken[] = "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n";
    char *text = NULL;
    X509 *x = NULL;
    STACK_OF(X509) *sk = NULL;

    /* Other block types are skipped; the first CERTIFICATE is the one. */
    text = wh_str_printf("junk\n%s%s", wh_certs_bundle_get(b, WH_CERTS_KEY, NULL), cert);
    CHECK_EQ_INT(wh_certs_pem_first_cert(text, strlen(text), &x), WH_OK);
    X509_free(x);
    x = NULL;
    free(text);
    /* A broken first certificate is not skipped in favour of the next one. */
    text = wh_str_printf("%s%s", broken, cert);
    CHECK_EQ_INT(wh_certs_pem_first_cert(text, strlen(text), &x), WH_ERR_PARSE);
    /* As trust anchors, broken blocks are skipped (lenient); strictly they fail. */
    CHECK_EQ_INT(wh_certs_pem_certs(text, strlen(text), false, &sk), WH_OK);
    CHECK_EQ_INT(sk_X509_num(sk), 1);
    sk_X509_pop_free(sk, X509_free);
    sk = NULL;
    CHECK_EQ_INT(wh_certs_pem_certs(text, strlen(text), true, &sk), WH_ERR_PARSE);
    free(text);
    text = wh_str_printf("%s%s", ca, cert);
    CHECK_EQ_INT(wh_certs_pem_certs(text, strlen(text), true, &sk), WH_OK);
    CHECK_EQ_INT(sk_X509_num(sk), 2);
    sk_X509_pop_free(sk, X509_free);
    free(text);
    CHECK_EQ_INT(wh_certs_pem_certs("nothing", 7, false, &sk), WH_ERR_NOT_FOUND);
    CHECK_EQ_INT(wh_certs_pem_first_cert("", 0, &x), WH_ERR_NOT_FOUND);
    CHECK_EQ_INT(wh_certs_pem_first_cert(cert, WH_CERTS_PEM_MAX + 1, &x), WH_ERR_TOO_BIG);
}

TEST(certs_pem_read_file_caps)
{
    char dir[256], path[300];
    CHECK(wh_tls_fixture_tmpdir(dir, sizeof(dir)));
    snprintf(path, sizeof(path), "%s/f", dir);
    char *data = NULL;
    size_t len = 0;
    struct wh_errbuf eb;
    CHECK_EQ_INT(wh_certs_pem_read_file(path, 10, &data, &len, &eb), WH_ERR_NOT_FOUND);
    FILE *f = fopen(path, "w");
    fputs("0123456789abc", f);
    fclose(f);
    CHECK_EQ_INT(wh_certs_pem_read_file(path, 10, &data, &len, &eb), WH_ERR_TOO_BIG);
    CHECK_EQ_INT(wh_certs_pem_read_file(path, 13, &data, &len, &eb), WH_OK);
    CHECK_EQ_STR(data, "0123456789abc");
    CHECK_EQ_INT(len, 13);
    free(data);
    CHECK_EQ_INT(wh_certs_pem_read_file(dir, 10, &data, &len, &eb), WH_ERR_IO);
    /* A FIFO under a certificate name is refused without blocking. */
    snprintf(path, sizeof(path), "%s/fifo", dir);
    CHECK(mkfifo(path, 0600) == 0);
    CHECK_EQ_INT(wh_certs_pem_read_file(path, 10, &data, &len, &eb), WH_ERR_IO);
    wh_tls_fixture_rmtree(dir);
}

/* --- CERT-40: the validity check -------------------------------------------------------- */

TEST(cert40_fresh_bundle_is_valid)
{
    const struct wh_certs_bundle *b = rsa_bundle();
    struct wh_errbuf why;
    CHECK_EQ_INT(wh_certs_bundle_validate(b, SVC_DNS, time(NULL), MARGIN, &why), WH_CERTS_VALID);
    CHECK_EQ_STR(why.msg, "valid");
    /* CN ignored, but the extra SANs verify too. */
    CHECK_EQ_INT(validate(b, SVC "." NS), WH_CERTS_VALID);
    CHECK_EQ_INT(validate(b, "localhost"), WH_CERTS_VALID);
    CHECK_EQ_INT(validate(b, NULL), WH_CERTS_VALID);
}

TEST(cert40_missing_entries)
{
    static const enum wh_certs_item required[] = {WH_CERTS_KEY, WH_CERTS_CERT, WH_CERTS_CA_CERT};
    struct wh_certs_bundle *b = ec_bundle(&service_target);
    struct wh_errbuf why;
    for (size_t i = 0; i < 3; i++) {
        struct wh_certs_bundle *c = wh_certs_bundle_dup(b);
        set_item(c, required[i], NULL);
        CHECK_EQ_INT(wh_certs_bundle_validate(c, SVC_DNS, time(NULL), MARGIN, &why),
                     WH_CERTS_MISSING);
        CHECK(strstr(why.msg, wh_certs_bundle_item_name(required[i])) != NULL);
        wh_certs_bundle_free(c);
    }
    /* ca-key.pem is not part of the check (CERT-40 step 1). */
    set_item(b, WH_CERTS_CA_KEY, NULL);
    CHECK_EQ_INT(validate(b, SVC_DNS), WH_CERTS_VALID);
    struct wh_certs_bundle *empty = wh_certs_bundle_new();
    CHECK_EQ_INT(validate(empty, SVC_DNS), WH_CERTS_MISSING); /* CERT-35: empty Secret */
    wh_certs_bundle_free(empty);
    wh_certs_bundle_free(b);
}

TEST(cert40_garbage_entries)
{
    static const enum wh_certs_item items[] = {WH_CERTS_KEY, WH_CERTS_CERT, WH_CERTS_CA_CERT};
    struct wh_certs_bundle *b = ec_bundle(&service_target);
    for (size_t i = 0; i < 3; i++) {
        struct wh_certs_bundle *c = wh_certs_bundle_dup(b);
        set_item(c, items[i], "this is not PEM");
        CHECK_EQ_INT(validate(c, SVC_DNS), WH_CERTS_GARBAGE);
        wh_certs_bundle_free(c);
    }
    wh_certs_bundle_free(b);
}

TEST(cert40_key_mismatch_detected)
{
    struct wh_certs_bundle *a = ec_bundle(&service_target), *b = ec_bundle(&service_target);
    struct wh_errbuf why;
    copy_item(a, b, WH_CERTS_KEY);
    CHECK_EQ_INT(wh_certs_bundle_validate(a, SVC_DNS, time(NULL), MARGIN, &why),
                 WH_CERTS_KEY_MISMATCH);
    CHECK(strstr(why.msg, "key.pem") != NULL);
    wh_certs_bundle_free(a);
    wh_certs_bundle_free(b);
}

TEST(cert40_wrong_ca_detected)
{
    /* Checklist 9 / CERT-42 "CA mismatch": another CA with the very same subject name. */
    struct wh_certs_bundle *a = ec_bundle(&service_target), *b = ec_bundle(&service_target);
    copy_item(a, b, WH_CERTS_CA_CERT);
    CHECK_EQ_INT(validate(a, SVC_DNS), WH_CERTS_NOT_CHAINED);
    /* A pool with junk, a stranger and the right CA: the right one is found. */
    char *both = NULL;
    struct wh_certs_bundle *orig = ec_bundle(&service_target);
    copy_item(a, orig, WH_CERTS_CERT);
    copy_item(a, orig, WH_CERTS_KEY);
    both = wh_str_printf("junk\n-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"
                         "%s%s",
                         wh_certs_bundle_get(b, WH_CERTS_CA_CERT, NULL),
                         wh_certs_bundle_get(orig, WH_CERTS_CA_CERT, NULL));
    set_item(a, WH_CERTS_CA_CERT, both);
    CHECK_EQ_INT(validate(a, SVC_DNS), WH_CERTS_VALID);
    free(both);
    wh_certs_bundle_free(orig);
    wh_certs_bundle_free(a);
    wh_certs_bundle_free(b);
}

/* The verdicts, and the reason a renewal logs (issue 22: a certificate with 100 days left was
 * renewed "at depth 0: certificate has expired", OpenSSL's words for a check made 180 days
 * ahead). */
TEST(cert40_expired_and_within_margin)
{
    time_t now = time(NULL);
    struct wh_errbuf why;
    /* Generated 100 days ago for 50 days: expired. */
    struct wh_certs_bundle *b = ec_bundle_at(&service_target, now - 100 * DAY, 50 * DAY, false);
    CHECK_EQ_INT(wh_certs_bundle_validate(b, SVC_DNS, now, MARGIN, &why), WH_CERTS_EXPIRED);
    CHECK(strstr(why.msg, "expired 50d ago") != NULL);
    wh_certs_bundle_free(b);

    /* 100 days left: within the default 180-day margin, fine with a 10-day one. */
    b = ec_bundle_at(&service_target, now, 100 * DAY, false);
    CHECK_EQ_INT(wh_certs_bundle_validate(b, SVC_DNS, now, MARGIN, &why), WH_CERTS_EXPIRING);
    CHECK(strstr(why.msg, "cert.pem expires in 100d (") != NULL);
    CHECK(strstr(why.msg, "within --certs-renew-before 180d") != NULL);
    CHECK(strstr(why.msg, "has expired") == NULL);
    if (strstr(why.msg, "cert.pem expires in 100d (") == NULL)
        fprintf(stderr, "  the reason: %s\n", why.msg);
    CHECK_EQ_INT(wh_certs_bundle_validate(b, SVC_DNS, now, 10 * DAY, NULL), WH_CERTS_VALID);
    CHECK_EQ_INT(wh_certs_bundle_validate(b, SVC_DNS, now, 99 * DAY, NULL), WH_CERTS_VALID);
    CHECK_EQ_INT(wh_certs_bundle_validate(b, SVC_DNS, now, 101 * DAY, NULL), WH_CERTS_EXPIRING);
    wh_certs_bundle_free(b);
}

TEST(cert42_ca_expiring_within_margin_invalidates)
{
    /* A CA with 100 days left signing a 10-year serving certificate: the chain check covers
     * the CA too. */
    struct wh_certs_gen_opts o;
    struct wh_certs_keypair ca = {0}, leaf = {0};
    wh_certs_gen_opts_init(&o);
    o.key_type = WH_CERTS_KEY_ECDSA;
    o.validity_secs = 100 * DAY;
    CHECK_EQ_INT(wh_certs_keypair_new_ca(&o, &ca, NULL), WH_OK);
    o.validity_secs = 3650 * DAY;
    CHECK_EQ_INT(wh_certs_keypair_new_serving(&o, &service_target, ca.cert, ca.key, &leaf, NULL),
                 WH_OK);
    struct wh_certs_bundle *b = wh_certs_bundle_new();
    set_cert(b, WH_CERTS_CA_CERT, ca.cert);
    set_cert(b, WH_CERTS_CERT, leaf.cert);
    char *pem = NULL;
    size_t len = 0;
    CHECK_EQ_INT(wh_certs_pem_encode_key(leaf.key, &pem, &len), WH_OK);
    CHECK_EQ_INT(wh_certs_bundle_set(b, WH_CERTS_KEY, pem, len), WH_OK);
    free(pem);
    struct wh_errbuf why;
    CHECK_EQ_INT(wh_certs_bundle_validate(b, SVC_DNS, time(NULL), MARGIN, &why),
                 WH_CERTS_EXPIRING);
    CHECK(strstr(why.msg, "ca-cert.pem expires in 99d (") != NULL ||
          strstr(why.msg, "ca-cert.pem expires in 100d (") != NULL);
    CHECK(strstr(why.msg, "has expired") == NULL);
    CHECK_EQ_INT(wh_certs_bundle_validate(b, SVC_DNS, time(NULL), 30 * DAY, NULL), WH_CERTS_VALID);
    wh_certs_bundle_free(b);
    wh_certs_keypair_fini(&ca);
    wh_certs_keypair_fini(&leaf);
}

/* Re-signs b's serving certificate after edit() changed it. */
static void resign_leaf(struct wh_certs_bundle *b, void (*edit)(X509 *))
{
    X509 *leaf = cert_of(b, WH_CERTS_CERT);
    EVP_PKEY *ca_key = key_of(b, WH_CERTS_CA_KEY);
    edit(leaf);
    CHECK(X509_sign(leaf, ca_key, EVP_sha256()) > 0);
    set_cert(b, WH_CERTS_CERT, leaf);
    X509_free(leaf);
    EVP_PKEY_free(ca_key);
}

static void edit_subject_to_other(X509 *x)
{
    X509_NAME *n = X509_NAME_new();
    X509_NAME_add_entry_by_txt(n, "CN", MBSTRING_ASC, (const unsigned char *)"foo.example", -1, -1,
                               0);
    X509_set_subject_name(x, n);
    X509_NAME_free(n);
}

static void edit_eku_to_client_auth(X509 *x)
{
    X509_EXTENSION *ext = X509_delete_ext(x, X509_get_ext_by_NID(x, NID_ext_key_usage, -1));
    X509_EXTENSION_free(ext);
    EXTENDED_KEY_USAGE *eku = sk_ASN1_OBJECT_new_null();
    sk_ASN1_OBJECT_push(eku, OBJ_nid2obj(NID_client_auth));
    X509_add1_ext_i2d(x, NID_ext_key_usage, eku, 0, X509V3_ADD_DEFAULT);
    sk_ASN1_OBJECT_free(eku);
}

static void edit_drop_eku(X509 *x)
{
    X509_EXTENSION *ext = X509_delete_ext(x, X509_get_ext_by_NID(x, NID_ext_key_usage, -1));
    X509_EXTENSION_free(ext);
}

TEST(cert40_host_name_through_sans_only)
{
    struct wh_certs_target t = {.host = "bar.example"};
    struct wh_certs_bundle *b = ec_bundle(&t);
    struct wh_errbuf why;
    CHECK_EQ_INT(validate(b, "bar.example"), WH_CERTS_VALID);
    CHECK_EQ_INT(validate(b, "BAR.Example"), WH_CERTS_VALID);
    CHECK_EQ_INT(wh_certs_bundle_validate(b, "baz.example", time(NULL), MARGIN, &why),
                 WH_CERTS_WRONG_HOST);
    CHECK(strstr(why.msg, "baz.example") != NULL);
    /* After SERVICE_NAME/POD_NAMESPACE/WEBHOOK_HOST change (CERT-42). */
    CHECK_EQ_INT(validate(b, SVC_DNS), WH_CERTS_WRONG_HOST);
    /* The subject CN is never used for the match. */
    resign_leaf(b, edit_subject_to_other);
    CHECK_EQ_INT(validate(b, "foo.example"), WH_CERTS_WRONG_HOST);
    CHECK_EQ_INT(validate(b, "bar.example"), WH_CERTS_VALID);
    wh_certs_bundle_free(b);

    /* Wildcards: only as the whole left-most label, one level. */
    struct wh_certs_target w = {.host = "*.example.com"};
    b = ec_bundle_at(&w, 0, 0, true);
    X509 *leaf = cert_of(b, WH_CERTS_CERT);
    CHECK(wh_certs_verify_host(leaf, "a.example.com"));
    CHECK(wh_certs_verify_host(leaf, "A.EXAMPLE.com"));
    CHECK(!wh_certs_verify_host(leaf, "a.b.example.com"));
    CHECK(!wh_certs_verify_host(leaf, "example.com"));
    X509_free(leaf);
    wh_certs_bundle_free(b);
}

TEST(cert40_usage_must_permit_server_auth)
{
    struct wh_certs_bundle *b = ec_bundle(&service_target);
    resign_leaf(b, edit_eku_to_client_auth);
    CHECK_EQ_INT(validate(b, SVC_DNS), WH_CERTS_WRONG_USAGE);
    /* Without an EKU extension everything is permitted. */
    resign_leaf(b, edit_drop_eku);
    CHECK_EQ_INT(validate(b, SVC_DNS), WH_CERTS_VALID);
    wh_certs_bundle_free(b);
}

/* --- CERT-41: reuse of the CA ------------------------------------------------------------- */

TEST(cert41_valid_rsa_ca_is_reused)
{
    const struct wh_certs_bundle *b = rsa_bundle();
    struct wh_certs_gen_opts o;
    struct wh_certs_bundle *out = NULL;
    bool reused = false;
    CHECK_EQ_INT(wh_certs_bundle_ca_reusable(b, WH_CERTS_KEY_RSA, time(NULL), NULL),
                 WH_CERTS_VALID);
    wh_certs_gen_opts_init(&o);
    CHECK_EQ_INT(wh_certs_bundle_generate(&o, &service_target, b, &out, &reused, NULL), WH_OK);
    CHECK(reused);
    /* Same CA bytes (so the caBundle stays), new serving certificate and key. */
    size_t l1, l2;
    const char *c1 = wh_certs_bundle_get(b, WH_CERTS_CA_CERT, &l1);
    const char *c2 = wh_certs_bundle_get(out, WH_CERTS_CA_CERT, &l2);
    CHECK(l1 == l2 && memcmp(c1, c2, l1) == 0);
    c1 = wh_certs_bundle_get(b, WH_CERTS_CA_KEY, &l1);
    c2 = wh_certs_bundle_get(out, WH_CERTS_CA_KEY, &l2);
    CHECK(l1 == l2 && memcmp(c1, c2, l1) == 0);
    CHECK(strcmp(wh_certs_bundle_get(b, WH_CERTS_CERT, NULL),
                 wh_certs_bundle_get(out, WH_CERTS_CERT, NULL)) != 0);
    CHECK_EQ_INT(validate(out, SVC_DNS), WH_CERTS_VALID);
    /* Its notBefore is the reused CA's notBefore (CERT-22). */
    X509 *ca = cert_of(out, WH_CERTS_CA_CERT), *leaf = cert_of(out, WH_CERTS_CERT);
    CHECK_EQ_INT(ASN1_TIME_compare(X509_get0_notBefore(leaf), X509_get0_notBefore(ca)), 0);
    X509_free(ca);
    X509_free(leaf);
    wh_certs_bundle_free(out);

    /* An EC CA is not reused for RSA generation (upstream: RSA only). */
    struct wh_certs_bundle *ec = ec_bundle(&service_target);
    CHECK_EQ_INT(wh_certs_bundle_ca_reusable(ec, WH_CERTS_KEY_RSA, time(NULL), NULL),
                 WH_CERTS_UNSUITABLE_CA);
    CHECK_EQ_INT(wh_certs_bundle_ca_reusable(ec, WH_CERTS_KEY_ECDSA, time(NULL), NULL),
                 WH_CERTS_VALID);
    wh_certs_bundle_free(ec);
}

TEST(cert41_ca_reuse_refusals)
{
    time_t now = time(NULL);
    struct wh_certs_bundle *b = ec_bundle(&service_target);
    struct wh_certs_bundle *other = ec_bundle(&service_target);
    struct wh_certs_bundle *c;
    enum wh_certs_key_type ec = WH_CERTS_KEY_ECDSA;

    c = wh_certs_bundle_dup(b);
    set_item(c, WH_CERTS_CA_KEY, NULL);
    CHECK_EQ_INT(wh_certs_bundle_ca_reusable(c, ec, now, NULL), WH_CERTS_MISSING);
    wh_certs_bundle_free(c);

    c = wh_certs_bundle_dup(b);
    copy_item(c, other, WH_CERTS_CA_KEY);
    CHECK_EQ_INT(wh_certs_bundle_ca_reusable(c, ec, now, NULL), WH_CERTS_KEY_MISMATCH);
    wh_certs_bundle_free(c);

    c = wh_certs_bundle_dup(b);
    char *two = wh_str_printf("%s%s", wh_certs_bundle_get(b, WH_CERTS_CA_CERT, NULL),
                              wh_certs_bundle_get(other, WH_CERTS_CA_CERT, NULL));
    set_item(c, WH_CERTS_CA_CERT, two);
    free(two);
    CHECK_EQ_INT(wh_certs_bundle_ca_reusable(c, ec, now, NULL), WH_CERTS_UNSUITABLE_CA);
    wh_certs_bundle_free(c);

    /* Less than a year left: replaced, whatever CERTS_RENEW_BEFORE says. */
    struct wh_certs_bundle *short_ca = ec_bundle_at(&service_target, now, 364 * DAY, false);
    CHECK_EQ_INT(wh_certs_bundle_ca_reusable(short_ca, ec, now, NULL), WH_CERTS_EXPIRING);
    struct wh_certs_gen_opts o;
    struct wh_certs_bundle *out = NULL;
    bool reused = true;
    wh_certs_gen_opts_init(&o);
    o.key_type = ec;
    CHECK_EQ_INT(wh_certs_bundle_generate(&o, &service_target, short_ca, &out, &reused, NULL),
                 WH_OK);
    CHECK(!reused);
    CHECK(strcmp(wh_certs_bundle_get(out, WH_CERTS_CA_CERT, NULL),
                 wh_certs_bundle_get(short_ca, WH_CERTS_CA_CERT, NULL)) != 0);
    wh_certs_bundle_free(out);
    struct wh_certs_bundle *year = ec_bundle_at(&service_target, now, 366 * DAY, false);
    CHECK_EQ_INT(wh_certs_bundle_ca_reusable(year, ec, now, NULL), WH_CERTS_VALID);
    wh_certs_bundle_free(year);
    wh_certs_bundle_free(short_ca);
    wh_certs_bundle_free(b);
    wh_certs_bundle_free(other);
}

TEST(cert43_normal_lifetime)
{
    /* Renewed 180 days before the 10-year end; by then the CA has under a year left. */
    const struct wh_certs_bundle *b = rsa_bundle();
    time_t end = shared_t0 + 3650 * DAY;
    CHECK_EQ_INT(wh_certs_bundle_validate(b, SVC_DNS, end - 181 * DAY, MARGIN, NULL),
                 WH_CERTS_VALID);
    CHECK_EQ_INT(wh_certs_bundle_validate(b, SVC_DNS, end - 179 * DAY, MARGIN, NULL),
                 WH_CERTS_EXPIRING);
    CHECK_EQ_INT(wh_certs_bundle_ca_reusable(b, WH_CERTS_KEY_RSA, end - 179 * DAY, NULL),
                 WH_CERTS_EXPIRING);
    CHECK_EQ_INT(wh_certs_bundle_validate(b, SVC_DNS, end + 1, MARGIN, NULL), WH_CERTS_EXPIRED);
    /* A margin longer than the validity regenerates at every sync (checklist 10). */
    CHECK_EQ_INT(wh_certs_bundle_validate(b, SVC_DNS, time(NULL), 3651 * DAY, NULL),
                 WH_CERTS_EXPIRING);
}

/* --- bundle and inspect ------------------------------------------------------------------- */

TEST(certs_bundle_basics)
{
    struct wh_certs_bundle *b = wh_certs_bundle_new();
    size_t len = 99;
    CHECK(wh_certs_bundle_get(b, WH_CERTS_CERT, &len) == NULL);
    CHECK_EQ_INT(len, 0);
    set_item(b, WH_CERTS_CERT, "abc");
    CHECK_EQ_STR(wh_certs_bundle_get(b, WH_CERTS_CERT, &len), "abc");
    CHECK_EQ_INT(len, 3);
    struct wh_certs_bundle *c = wh_certs_bundle_dup(b);
    CHECK(wh_certs_bundle_equal(b, c));
    set_item(c, WH_CERTS_KEY, "k");
    CHECK(!wh_certs_bundle_equal(b, c));
    char *big = wh_xcalloc(1, WH_CERTS_PEM_MAX + 1);
    CHECK_EQ_INT(wh_certs_bundle_set(c, WH_CERTS_KEY, big, WH_CERTS_PEM_MAX + 1), WH_ERR_TOO_BIG);
    CHECK(wh_certs_bundle_get(c, WH_CERTS_KEY, NULL) == NULL);
    free(big);
    CHECK_EQ_STR(wh_certs_bundle_item_name(WH_CERTS_CA_KEY), "ca-key.pem");
    CHECK_EQ_STR(wh_certs_bundle_item_name(WH_CERTS_CA_CERT), "ca-cert.pem");
    CHECK_EQ_STR(wh_certs_bundle_item_name(WH_CERTS_CERT), "cert.pem");
    CHECK_EQ_STR(wh_certs_bundle_item_name(WH_CERTS_KEY), "key.pem");
    wh_certs_bundle_free(b);
    wh_certs_bundle_free(c);
    wh_certs_bundle_free(NULL);
}

TEST(certs_inspect_report)
{
    const struct wh_certs_bundle *b = rsa_bundle();
    json_t *r = wh_certs_bundle_inspect(b, SVC_DNS, time(NULL), MARGIN);
    json_t *ca = json_object_get(r, "ca"), *s = json_object_get(r, "serving");
    CHECK_EQ_STR(json_string_value(json_object_get(ca, "subject")), "CN=webhook-cert-ca");
    CHECK_EQ_STR(json_string_value(json_object_get(ca, "issuer")), "CN=webhook-cert-ca");
    CHECK_EQ_STR(json_string_value(json_object_get(s, "subject")), "CN=" SVC_DNS);
    CHECK_EQ_STR(json_string_value(json_object_get(s, "key")), "RSA 2048");
    CHECK(json_is_true(json_object_get(ca, "is_ca")));
    CHECK(json_is_false(json_object_get(s, "is_ca")));
    CHECK(json_is_true(json_object_get(r, "pair_matches")));
    CHECK(json_is_true(json_object_get(r, "ca_pair_matches")));
    CHECK(json_is_true(json_object_get(r, "chains")));
    CHECK(json_is_true(json_object_get(r, "valid_for_host")));
    CHECK(json_is_true(json_object_get(r, "ca_reusable")));
    CHECK_EQ_STR(json_string_value(json_object_get(r, "verdict")), "valid");
    json_int_t left = json_integer_value(json_object_get(s, "secs_left"));
    CHECK(left > 3649 * DAY && left <= 3650 * DAY);
    json_t *want = wh_test_json("[\"serverAuth\"]");
    CHECK_EQ_JSON(json_object_get(s, "ext_key_usage"), want);
    json_decref(want);
    json_decref(r);

    struct wh_certs_bundle *broken = wh_certs_bundle_new();
    copy_item(broken, b, WH_CERTS_CERT);
    set_item(broken, WH_CERTS_KEY, "junk");
    r = wh_certs_bundle_inspect(broken, NULL, time(NULL), MARGIN);
    CHECK(json_object_get(json_object_get(r, "ca"), "error") != NULL);
    CHECK(json_object_get(json_object_get(r, "serving_key"), "error") != NULL);
    CHECK(json_is_false(json_object_get(r, "pair_matches")));
    CHECK(json_is_false(json_object_get(r, "chains")));
    CHECK(json_object_get(r, "host") == NULL);
    CHECK_EQ_STR(json_string_value(json_object_get(r, "verdict")), "missing");
    json_decref(r);
    wh_certs_bundle_free(broken);
}

/* --- CERT-45..47: the certificate directory ---------------------------------------------- */

static void check_visible(const char *dir, const char *name, mode_t mode)
{
    char path[512], target[256];
    struct stat st;
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    CHECK(lstat(path, &st) == 0 && S_ISLNK(st.st_mode));
    ssize_t n = readlink(path, target, sizeof(target) - 1);
    CHECK(n > 0);
    target[n > 0 ? n : 0] = '\0';
    char want[128];
    snprintf(want, sizeof(want), "..data/%s", name);
    CHECK_EQ_STR(target, want);
    CHECK(stat(path, &st) == 0 && S_ISREG(st.st_mode));
    if ((st.st_mode & 07777) != mode)
        fprintf(stderr, "  %s: mode %o, want %o\n", name, (unsigned)(st.st_mode & 07777),
                (unsigned)mode);
    CHECK_EQ_INT(st.st_mode & 07777, mode);
}

static void check_item_file(const char *dir, const char *name, const struct wh_certs_bundle *b,
                            enum wh_certs_item i)
{
    size_t len = 0, want_len = 0;
    char *data = slurp(dir, name, &len);
    const char *want = wh_certs_bundle_get(b, i, &want_len);
    CHECK(data && len == want_len && memcmp(data, want, len) == 0);
    free(data);
}

TEST(cert45_file_names_contents_and_modes)
{
    char dir[256];
    struct wh_certs_bundle *b = ec_bundle(&service_target);
    bool changed = false;
    CHECK(wh_tls_fixture_tmpdir(dir, sizeof(dir)));
    CHECK_EQ_INT(wh_certs_fs_write(dir, b, &changed, NULL), WH_OK);
    CHECK(changed);
    check_visible(dir, "ca-key.pem", 0600);
    check_visible(dir, "ca-cert.pem", 0644);
    check_visible(dir, "cert.pem", 0644);
    check_visible(dir, "tls.crt", 0644);
    check_visible(dir, "key.pem", 0600);
    check_visible(dir, "tls.key", 0600);
    check_item_file(dir, "ca-key.pem", b, WH_CERTS_CA_KEY);
    check_item_file(dir, "ca-cert.pem", b, WH_CERTS_CA_CERT);
    check_item_file(dir, "cert.pem", b, WH_CERTS_CERT);
    check_item_file(dir, "tls.crt", b, WH_CERTS_CERT);
    check_item_file(dir, "key.pem", b, WH_CERTS_KEY);
    check_item_file(dir, "tls.key", b, WH_CERTS_KEY);

    struct wh_certs_bundle *back = NULL;
    CHECK_EQ_INT(wh_certs_fs_read(dir, &back, NULL), WH_OK);
    CHECK(back && wh_certs_bundle_equal(back, b));
    wh_certs_bundle_free(back);

    struct wh_certs_bundle *partial = wh_certs_bundle_dup(b);
    set_item(partial, WH_CERTS_KEY, NULL);
    CHECK_EQ_INT(wh_certs_fs_write(dir, partial, NULL, NULL), WH_ERR_INVALID);
    wh_certs_bundle_free(partial);
    wh_certs_bundle_free(b);
    wh_tls_fixture_rmtree(dir);
}

TEST(cert46_directory_preparation)
{
    char base[256], dir[400], path[512];
    struct wh_certs_bundle *b = ec_bundle(&service_target);
    CHECK(wh_tls_fixture_tmpdir(base, sizeof(base)));
    /* Missing parents are created. */
    snprintf(dir, sizeof(dir), "%s/a/b/certs", base);
    CHECK_EQ_INT(wh_certs_fs_write(dir, b, NULL, NULL), WH_OK);
    wh_tls_fixture_rmtree(dir);
    CHECK(mkdir(dir, 0755) == 0);
    /* Plain files with our names (another tool's layout) are replaced; others stay. */
    snprintf(path, sizeof(path), "%s/cert.pem", dir);
    FILE *f = fopen(path, "w");
    fputs("old plain file", f);
    fclose(f);
    snprintf(path, sizeof(path), "%s/notes.txt", dir);
    f = fopen(path, "w");
    fputs("keep me", f);
    fclose(f);
    CHECK_EQ_INT(wh_certs_fs_write(dir, b, NULL, NULL), WH_OK);
    check_visible(dir, "cert.pem", 0644);
    check_item_file(dir, "cert.pem", b, WH_CERTS_CERT);
    size_t len;
    char *kept = slurp(dir, "notes.txt", &len);
    CHECK_EQ_STR(kept, "keep me");
    free(kept);
    /* A file where the directory should be: an error, not a crash. */
    snprintf(path, sizeof(path), "%s/notes.txt/sub", dir);
    CHECK_EQ_INT(wh_certs_fs_write(path, b, NULL, NULL), WH_ERR_IO);
    wh_certs_bundle_free(b);
    wh_tls_fixture_rmtree(base);
}

TEST(cert47_atomic_layout)
{
    char dir[256], path[512], target[256], first[256];
    struct wh_certs_bundle *a = ec_bundle(&service_target), *b = ec_bundle(&service_target);
    bool changed = false;
    struct stat st;
    CHECK(wh_tls_fixture_tmpdir(dir, sizeof(dir)));
    CHECK_EQ_INT(wh_certs_fs_write(dir, a, &changed, NULL), WH_OK);
    CHECK(changed);

    /* ..data -> "..YYYY_MM_DD_HH_MM_SS.<6 random>" (relative), a 0755 directory. */
    snprintf(path, sizeof(path), "%s/..data", dir);
    ssize_t n = readlink(path, target, sizeof(target) - 1);
    CHECK(n == 28);
    target[n > 0 ? n : 0] = '\0';
    CHECK(strncmp(target, "..", 2) == 0 && target[6] == '_' && target[9] == '_' &&
          target[21] == '.' && strchr(target, '/') == NULL);
    snprintf(path, sizeof(path), "%s/%s", dir, target);
    CHECK(lstat(path, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 07777) == 0755);
    snprintf(first, sizeof(first), "%s", target);
    CHECK_EQ_INT(count_generations(dir), 1);

    /* Same content: nothing is written, same generation. */
    CHECK_EQ_INT(wh_certs_fs_write(dir, a, &changed, NULL), WH_OK);
    CHECK(!changed);
    snprintf(path, sizeof(path), "%s/..data", dir);
    n = readlink(path, target, sizeof(target) - 1);
    target[n > 0 ? n : 0] = '\0';
    CHECK_EQ_STR(target, first);

    /* A generation left behind by a crashed writer, and a visible link gone astray. */
    snprintf(path, sizeof(path), "%s/..2020_01_01_00_00_00.abcdef", dir);
    CHECK(mkdir(path, 0755) == 0);
    snprintf(path, sizeof(path), "%s/..2020_01_01_00_00_00.abcdef/tls.crt", dir);
    touch(path);
    snprintf(path, sizeof(path), "%s/tls.key", dir);
    unlink(path);
    CHECK(symlink("/nonexistent/elsewhere", path) == 0);

    /* New content: a new generation, the old ones removed, links repaired. */
    CHECK_EQ_INT(wh_certs_fs_write(dir, b, &changed, NULL), WH_OK);
    CHECK(changed);
    snprintf(path, sizeof(path), "%s/..data", dir);
    n = readlink(path, target, sizeof(target) - 1);
    target[n > 0 ? n : 0] = '\0';
    CHECK(strcmp(target, first) != 0);
    CHECK_EQ_INT(count_generations(dir), 1);
    snprintf(path, sizeof(path), "%s/%s", dir, first);
    CHECK(lstat(path, &st) != 0 && errno == ENOENT);
    snprintf(path, sizeof(path), "%s/..data_tmp", dir);
    CHECK(lstat(path, &st) != 0);
    check_visible(dir, "tls.key", 0600);
    check_item_file(dir, "tls.key", b, WH_CERTS_KEY);
    check_item_file(dir, "ca-cert.pem", b, WH_CERTS_CA_CERT);

    /* Mode drift (for instance upstream's 0666) is rewritten too. */
    snprintf(path, sizeof(path), "%s/..data/key.pem", dir);
    CHECK(chmod(path, 0666) == 0);
    CHECK_EQ_INT(wh_certs_fs_write(dir, b, &changed, NULL), WH_OK);
    CHECK(changed);
    check_visible(dir, "key.pem", 0600);
    wh_certs_bundle_free(a);
    wh_certs_bundle_free(b);
    wh_tls_fixture_rmtree(dir);
}

TEST(cert47_generic_writer_payload_changes)
{
    char dir[256], path[512];
    struct stat st;
    bool changed = false;
    CHECK(wh_tls_fixture_tmpdir(dir, sizeof(dir)));
    const struct wh_certs_atomic_file one[] = {{"a", "A1", 2, 0644}, {"b", "B1", 2, 0600}};
    const struct wh_certs_atomic_file two[] = {{"a", "A2", 2, 0644}, {"c", "C2", 2, 0644}};
    CHECK_EQ_INT(wh_certs_atomic_dir_write(dir, one, 2, &changed, NULL), WH_OK);
    CHECK_EQ_INT(wh_certs_atomic_dir_write(dir, two, 2, &changed, NULL), WH_OK);
    CHECK(changed);
    snprintf(path, sizeof(path), "%s/b", dir);
    CHECK(lstat(path, &st) != 0); /* left the payload: link removed */
    size_t len;
    char *c = slurp(dir, "c", &len);
    CHECK_EQ_STR(c, "C2");
    free(c);
    /* A name that is not a symlink is the caller's business: refused. */
    snprintf(path, sizeof(path), "%s/d", dir);
    touch(path);
    const struct wh_certs_atomic_file three[] = {{"d", "D", 1, 0644}};
    CHECK_EQ_INT(wh_certs_atomic_dir_write(dir, three, 1, &changed, NULL), WH_ERR_IO);
    c = slurp(dir, "a", &len); /* the previous generation is still visible */
    CHECK_EQ_STR(c, "A2");
    free(c);
    CHECK_EQ_INT(count_generations(dir), 1);
    const struct wh_certs_atomic_file bad[] = {{"../x", "X", 1, 0644}};
    CHECK_EQ_INT(wh_certs_atomic_dir_write(dir, bad, 1, NULL, NULL), WH_ERR_INVALID);
    const struct wh_certs_atomic_file dup[] = {{"a", "X", 1, 0644}, {"a", "Y", 1, 0644}};
    CHECK_EQ_INT(wh_certs_atomic_dir_write(dir, dup, 2, NULL, NULL), WH_ERR_INVALID);
    wh_tls_fixture_rmtree(dir);
}

TEST(cert47_reload_after_swap)
{
    char dir[256];
    struct wh_certs_bundle *a = ec_bundle(&service_target), *b = ec_bundle(&service_target);
    char *cert = NULL, *key = NULL;
    size_t cert_len = 0, key_len = 0;
    CHECK(wh_tls_fixture_tmpdir(dir, sizeof(dir)));
    CHECK_EQ_INT(wh_certs_fs_read_serving(dir, &cert, &cert_len, &key, &key_len, NULL),
                 WH_ERR_NOT_FOUND);
    CHECK_EQ_INT(wh_certs_fs_write(dir, a, NULL, NULL), WH_OK);
    CHECK_EQ_INT(wh_certs_fs_read_serving(dir, &cert, &cert_len, &key, &key_len, NULL), WH_OK);
    CHECK_EQ_STR(cert, wh_certs_bundle_get(a, WH_CERTS_CERT, NULL));
    CHECK_EQ_STR(key, wh_certs_bundle_get(a, WH_CERTS_KEY, NULL));
    free(cert);
    free(key);
    CHECK_EQ_INT(wh_certs_fs_write(dir, b, NULL, NULL), WH_OK);
    CHECK_EQ_INT(wh_certs_fs_read_serving(dir, &cert, &cert_len, &key, &key_len, NULL), WH_OK);
    CHECK_EQ_STR(cert, wh_certs_bundle_get(b, WH_CERTS_CERT, NULL));
    CHECK_EQ_STR(key, wh_certs_bundle_get(b, WH_CERTS_KEY, NULL));
    free(cert);
    free(key);

    /* A plain directory (no ..data) with only cert.pem/key.pem is read too. */
    wh_tls_fixture_rmtree(dir);
    CHECK(mkdir(dir, 0700) == 0);
    char path[512];
    snprintf(path, sizeof(path), "%s/cert.pem", dir);
    FILE *f = fopen(path, "w");
    fputs(wh_certs_bundle_get(a, WH_CERTS_CERT, NULL), f);
    fclose(f);
    snprintf(path, sizeof(path), "%s/key.pem", dir);
    f = fopen(path, "w");
    fputs(wh_certs_bundle_get(a, WH_CERTS_KEY, NULL), f);
    fclose(f);
    CHECK_EQ_INT(wh_certs_fs_read_serving(dir, &cert, &cert_len, &key, &key_len, NULL), WH_OK);
    CHECK_EQ_STR(cert, wh_certs_bundle_get(a, WH_CERTS_CERT, NULL));
    free(cert);
    free(key);
    wh_certs_bundle_free(a);
    wh_certs_bundle_free(b);
    wh_tls_fixture_rmtree(dir);
}

struct swapper {
    const char *dir;
    struct wh_certs_bundle *b[2];
    int rounds;
    _Atomic int done;
};

static void *swap_thread(void *arg)
{
    struct swapper *s = arg;
    for (int i = 0; i < s->rounds; i++) {
        enum wh_err rc = wh_certs_fs_write(s->dir, s->b[i % 2], NULL, NULL);
        WH_ASSERT(rc == WH_OK);
    }
    s->done = 1;
    return NULL;
}

TEST(cert47_readers_never_see_a_mixed_pair)
{
    char dir[256];
    struct swapper s = {.dir = dir, .rounds = 150};
    s.b[0] = ec_bundle(&service_target);
    s.b[1] = ec_bundle(&service_target);
    CHECK(wh_tls_fixture_tmpdir(dir, sizeof(dir)));
    CHECK_EQ_INT(wh_certs_fs_write(dir, s.b[0], NULL, NULL), WH_OK);
    pthread_t th;
    CHECK(pthread_create(&th, NULL, swap_thread, &s) == 0);
    int reads = 0, mismatches = 0, failures = 0;
    while (!s.done) {
        char *cert = NULL, *key = NULL;
        size_t cl, kl;
        if (wh_certs_fs_read_serving(dir, &cert, &cl, &key, &kl, NULL) != WH_OK) {
            failures++; /* allowed (the server keeps its certificate), never a mix */
            continue;
        }
        X509 *x = NULL;
        EVP_PKEY *k = NULL;
        if (wh_certs_pem_first_cert(cert, cl, &x) != WH_OK ||
            wh_certs_pem_first_key(key, kl, &k) != WH_OK || !wh_certs_verify_key_matches(x, k))
            mismatches++;
        reads++;
        X509_free(x);
        EVP_PKEY_free(k);
        free(cert);
        free(key);
    }
    pthread_join(th, NULL);
    if (getenv("WH_TEST_VERBOSE"))
        fprintf(stderr, "  %d reads, %d failed, %d mixed\n", reads, failures, mismatches);
    CHECK(reads > 0);
    CHECK_EQ_INT(mismatches, 0);
    CHECK_EQ_INT(count_generations(dir), 1);
    wh_certs_bundle_free(s.b[0]);
    wh_certs_bundle_free(s.b[1]);
    wh_tls_fixture_rmtree(dir);
}

/* --- CERT-39: the file-system writer's sync ----------------------------------------------- */

static void sync_opts(struct wh_certs_fs_sync_opts *o, const char *dir,
                      const struct wh_certs_target *t)
{
    memset(o, 0, sizeof(*o));
    o->dir = dir;
    o->target = *t;
    wh_certs_gen_opts_init(&o->gen);
    o->gen.key_type = WH_CERTS_KEY_ECDSA;
    o->renew_before_secs = MARGIN;
}

TEST(cert39_fs_sync_generates_keeps_and_regenerates)
{
    char base[256], dir[400], path[512];
    struct wh_certs_fs_sync_opts o;
    struct wh_certs_fs_sync_result r1, r2, r3;
    struct wh_certs_target t = {.host = "localhost"};
    CHECK(wh_tls_fixture_tmpdir(base, sizeof(base)));
    snprintf(dir, sizeof(dir), "%s/kruise-webhook-certs", base);
    sync_opts(&o, dir, &t);

    /* Absent: generated (the `make run` start-up path). */
    CHECK_EQ_INT(wh_certs_fs_sync(&o, &r1, NULL), WH_OK);
    CHECK(r1.generated && r1.changed);
    CHECK_EQ_INT(r1.verdict, WH_CERTS_MISSING);
    CHECK_EQ_INT(validate(r1.bundle, "localhost"), WH_CERTS_VALID);
    CHECK_EQ_INT(validate(r1.bundle, "127.0.0.1"), WH_CERTS_VALID);

    /* Valid: kept, nothing rewritten. */
    CHECK_EQ_INT(wh_certs_fs_sync(&o, &r2, NULL), WH_OK);
    CHECK(!r2.generated && !r2.changed);
    CHECK_EQ_INT(r2.verdict, WH_CERTS_VALID);
    CHECK(wh_certs_bundle_equal(r1.bundle, r2.bundle));
    wh_certs_fs_sync_result_fini(&r2);

    /* Serving certificate from another CA: regenerated with a brand-new CA (never reused). */
    struct wh_certs_bundle *other = ec_bundle(&t);
    struct wh_certs_bundle *mixed = wh_certs_bundle_dup(r1.bundle);
    copy_item(mixed, other, WH_CERTS_CERT);
    copy_item(mixed, other, WH_CERTS_KEY);
    CHECK_EQ_INT(wh_certs_fs_write(dir, mixed, NULL, NULL), WH_OK);
    CHECK_EQ_INT(wh_certs_fs_sync(&o, &r3, NULL), WH_OK);
    CHECK(r3.generated && r3.changed);
    CHECK_EQ_INT(r3.verdict, WH_CERTS_NOT_CHAINED);
    CHECK(strcmp(wh_certs_bundle_get(r3.bundle, WH_CERTS_CA_CERT, NULL),
                 wh_certs_bundle_get(r1.bundle, WH_CERTS_CA_CERT, NULL)) != 0);
    struct wh_certs_bundle *on_disk = NULL;
    CHECK_EQ_INT(wh_certs_fs_read(dir, &on_disk, NULL), WH_OK);
    CHECK(on_disk && wh_certs_bundle_equal(on_disk, r3.bundle));
    wh_certs_bundle_free(on_disk);
    wh_certs_fs_sync_result_fini(&r3);

    /* dnsName changed: regenerated. */
    struct wh_certs_target t2 = {.host = "10.1.2.3"};
    sync_opts(&o, dir, &t2);
    CHECK_EQ_INT(wh_certs_fs_sync(&o, &r3, NULL), WH_OK);
    CHECK(r3.generated);
    CHECK_EQ_INT(r3.verdict, WH_CERTS_WRONG_HOST);
    wh_certs_fs_sync_result_fini(&r3);

    /* A renew margin beyond the validity: regenerated at every sync. */
    o.renew_before_secs = 3651 * DAY;
    CHECK_EQ_INT(wh_certs_fs_sync(&o, &r3, NULL), WH_OK);
    CHECK(r3.generated);
    CHECK_EQ_INT(r3.verdict, WH_CERTS_EXPIRING);
    wh_certs_fs_sync_result_fini(&r3);
    o.renew_before_secs = MARGIN;

    /* A broken symlink counts as missing. */
    snprintf(path, sizeof(path), "%s/tls.key", dir);
    unlink(path);
    CHECK(symlink("..data/nothing-here", path) == 0);
    bool all = true;
    CHECK_EQ_INT(wh_certs_fs_exists(dir, &all, NULL), WH_OK);
    CHECK(!all);
    CHECK_EQ_INT(wh_certs_fs_sync(&o, &r3, NULL), WH_OK);
    CHECK(r3.generated);
    CHECK_EQ_INT(r3.verdict, WH_CERTS_MISSING);
    check_visible(dir, "tls.key", 0600);
    wh_certs_fs_sync_result_fini(&r3);

    /* Garbage in a file: regenerated. */
    snprintf(path, sizeof(path), "%s/..data/ca-cert.pem", dir);
    FILE *f = fopen(path, "w");
    fputs("garbage", f);
    fclose(f);
    CHECK_EQ_INT(wh_certs_fs_sync(&o, &r3, NULL), WH_OK);
    CHECK(r3.generated);
    CHECK_EQ_INT(r3.verdict, WH_CERTS_GARBAGE);
    wh_certs_fs_sync_result_fini(&r3);

    wh_certs_bundle_free(other);
    wh_certs_bundle_free(mixed);
    wh_certs_fs_sync_result_fini(&r1);
    wh_tls_fixture_rmtree(base);
}

TEST(cert39_fs_sync_unwritable_directory_fails)
{
    char base[256], dir[400];
    struct wh_certs_fs_sync_opts o;
    struct wh_certs_fs_sync_result r;
    struct wh_certs_target t = {.host = "localhost"};
    struct wh_errbuf eb;
    CHECK(wh_tls_fixture_tmpdir(base, sizeof(base)));
    snprintf(dir, sizeof(dir), "%s/file", base);
    touch(dir); /* a file where the directory should be */
    sync_opts(&o, dir, &t);
    CHECK(wh_certs_fs_sync(&o, &r, &eb) != WH_OK);
    CHECK(r.bundle == NULL);
    wh_tls_fixture_rmtree(base);
}

/* --- CERT-70/72: what the server and the readiness check read --------------------------- */

TEST(cert72_served_certificate_chains_to_ca_file_for_localhost)
{
    struct wh_tls_fixture fx;
    struct wh_errbuf eb;
    CHECK_EQ_INT(wh_tls_fixture_init(&fx, false, &eb), WH_OK);
    size_t ca_len, cert_len, key_len;
    char *ca = wh_test_read_file(fx.ca_file, &ca_len);
    char *cert = wh_test_read_file(fx.cert_file, &cert_len);
    char *key = wh_test_read_file(fx.key_file, &key_len);
    X509 *leaf = NULL;
    EVP_PKEY *k = NULL;
    STACK_OF(X509) *anchors = NULL;
    CHECK_EQ_INT(wh_certs_pem_first_cert(cert, cert_len, &leaf), WH_OK);
    CHECK_EQ_INT(wh_certs_pem_first_key(key, key_len, &k), WH_OK);
    CHECK(wh_certs_verify_key_matches(leaf, k));
    CHECK_EQ_INT(wh_certs_pem_certs(ca, ca_len, false, &anchors), WH_OK);
    CHECK_EQ_INT(wh_certs_verify_chain(leaf, anchors, time(NULL), time(NULL), NULL),
                 WH_CERTS_VALID);
    CHECK(wh_certs_verify_host(leaf, "localhost"));
    sk_X509_pop_free(anchors, X509_free);
    X509_free(leaf);
    EVP_PKEY_free(k);
    free(ca);
    free(cert);
    free(key);
    wh_tls_fixture_fini(&fx);
}

/* --- operator commands -------------------------------------------------------------------- */

TEST(certs_cli_generate_and_inspect)
{
    char base[256], dir[400];
    CHECK(wh_tls_fixture_tmpdir(base, sizeof(base)));
    snprintf(dir, sizeof(dir), "%s/out", base);
    unset_cert_env();

    char *gen[] = {"certs", "generate", "--out", dir, "--host", "localhost", "--ecdsa"};
    CHECK_EQ_INT(wh_test_certs_cli_run(7, gen), 0);
    check_visible(dir, "tls.key", 0600);
    char *insp[] = {"certs", "inspect", dir, "--host", "localhost"};
    CHECK_EQ_INT(wh_test_certs_cli_run(5, insp), 0);
    char *insp_json[] = {"certs", "inspect", dir, "--host=127.0.0.1", "--json"};
    CHECK_EQ_INT(wh_test_certs_cli_run(5, insp_json), 0);
    char *wrong[] = {"certs", "inspect", dir, "--service", "x", "--namespace", "y"};
    CHECK_EQ_INT(wh_test_certs_cli_run(7, wrong), 1); /* valid material, but not for x.y.svc */
    char *svc[] = {"certs", "generate", "--out", dir, "--ecdsa", "--days", "30"};
    CHECK_EQ_INT(wh_test_certs_cli_run(7, svc), 0); /* no cluster: localhost, as `make run` */
    char *insp_svc[] = {"certs", "inspect", dir};
    CHECK_EQ_INT(wh_test_certs_cli_run(3, insp_svc), 1); /* 30 days < 180-day margin */
    setenv("CERTS_RENEW_BEFORE", "10d", 1);
    CHECK_EQ_INT(wh_test_certs_cli_run(3, insp_svc), 0);
    unsetenv("CERTS_RENEW_BEFORE");

    char *secret[] = {"certs", "inspect", "--secret"};
    CHECK_EQ_INT(wh_test_certs_cli_run(3, secret), 2); /* needs a cluster connection */
    char *help[] = {"certs", "generate", "--help"};
    CHECK_EQ_INT(wh_test_certs_cli_run(3, help), 0);
    char *help2[] = {"certs", "inspect", "--help"};
    CHECK_EQ_INT(wh_test_certs_cli_run(3, help2), 0);
    char *top[] = {"certs", "--help"};
    CHECK_EQ_INT(wh_test_certs_cli_run(2, top), 0);
    char *none[] = {"certs"};
    CHECK_EQ_INT(wh_test_certs_cli_run(1, none), 2);
    char *unknown[] = {"certs", "frobnicate"};
    CHECK_EQ_INT(wh_test_certs_cli_run(2, unknown), 2);
    char *noout[] = {"certs", "generate"};
    CHECK_EQ_INT(wh_test_certs_cli_run(2, noout), 2);
    char *both[] = {"certs", "generate", "--out", dir, "--host", "h", "--service", "s"};
    CHECK_EQ_INT(wh_test_certs_cli_run(8, both), 2);
    char *missing_value[] = {"certs", "generate", "--out"};
    CHECK_EQ_INT(wh_test_certs_cli_run(3, missing_value), 2);
    char *bad_days[] = {"certs", "generate", "--out", dir, "--days", "0"};
    CHECK_EQ_INT(wh_test_certs_cli_run(6, bad_days), 2);
    char *nodir[] = {"certs", "inspect", "/nonexistent/certs/dir"};
    CHECK_EQ_INT(wh_test_certs_cli_run(3, nodir), 2);
    char empty_dir[420];
    snprintf(empty_dir, sizeof(empty_dir), "%s/empty", base);
    CHECK(mkdir(empty_dir, 0700) == 0);
    char *empty[] = {"certs", "inspect", empty_dir};
    CHECK_EQ_INT(wh_test_certs_cli_run(3, empty), 1); /* everything missing: invalid */
    wh_tls_fixture_rmtree(base);
}

/* The name the commands default to is the server's with the same environment; and the
 * failures of issue 11 item 8: each says what is wrong, the same failure the same status. */
TEST(certs_cli_defaults_and_failures)
{
    char base[256], dir[400], *out = NULL;
    CHECK(wh_tls_fixture_tmpdir(base, sizeof(base)));
    snprintf(dir, sizeof(dir), "%s/out", base);
    unset_cert_env();
    char *kc = getenv("KUBECONFIG") ? wh_xstrdup(getenv("KUBECONFIG")) : NULL;
    unsetenv("KUBECONFIG");

    char *gen[] = {"certs", "generate", "--out", dir, "--ecdsa"};
    char *json[] = {"certs", "inspect", dir, "--json"};
    /* No cluster: localhost, as `make run` serves. */
    CHECK_EQ_INT(wh_test_certs_cli_run(5, gen), 0);
    CHECK_EQ_INT(wh_test_certs_cli_output(4, json, &out), 0);
    CHECK(strstr(out, "\"host\": \"localhost\"") != NULL);
    free(out);
    /* URL mode: WEBHOOK_HOST. */
    setenv("WEBHOOK_HOST", "127.0.0.1", 1);
    CHECK_EQ_INT(wh_test_certs_cli_run(5, gen), 0);
    CHECK_EQ_INT(wh_test_certs_cli_output(4, json, &out), 0);
    CHECK(strstr(out, "\"host\": \"127.0.0.1\"") != NULL);
    free(out);
    unsetenv("WEBHOOK_HOST");
    /* A cluster: the Service. */
    setenv("KUBECONFIG", "/nonexistent/kubeconfig", 1);
    CHECK_EQ_INT(wh_test_certs_cli_run(5, gen), 0);
    CHECK_EQ_INT(wh_test_certs_cli_output(4, json, &out), 0);
    CHECK(strstr(out, "\"host\": \"" SVC_DNS "\"") != NULL);
    free(out);

    /* --cluster and --secret without a reachable cluster: the same error, status 2. */
    char *cluster[] = {"certs", "inspect", dir, "--cluster"};
    CHECK_EQ_INT(wh_test_certs_cli_output(4, cluster, &out), 2);
    CHECK(strstr(out, "cannot check the cluster") && strstr(out, "/nonexistent/kubeconfig"));
    free(out);
    char *secret[] = {"certs", "inspect", "--secret"};
    CHECK_EQ_INT(wh_test_certs_cli_output(3, secret, &out), 2);
    CHECK(strstr(out, "/nonexistent/kubeconfig") != NULL);
    free(out);
    unsetenv("KUBECONFIG");

    char missing[420];
    snprintf(missing, sizeof(missing), "%s/missing", base);
    char *nodir[] = {"certs", "inspect", missing};
    CHECK_EQ_INT(wh_test_certs_cli_output(3, nodir, &out), 2);
    CHECK(strstr(out, "missing: cannot be read: No such file or directory") != NULL);
    free(out);
    char *noout[] = {"certs", "generate", "--ecdsa"};
    CHECK_EQ_INT(wh_test_certs_cli_output(3, noout, &out), 2);
    char *err = strstr(out, "--out DIR is required"), *use = strstr(out, "usage:");
    CHECK(err && use && err < use);
    free(out);
    char *neither[] = {"certs", "inspect"};
    CHECK_EQ_INT(wh_test_certs_cli_output(2, neither, &out), 2);
    CHECK(strstr(out, "a directory or --secret is required") != NULL);
    free(out);

    if (kc)
        setenv("KUBECONFIG", kc, 1);
    free(kc);
    wh_tls_fixture_rmtree(base);
}

static enum wh_err fake_secret(const char *ns, const char *name, struct wh_certs_bundle **out,
                               struct wh_errbuf *eb)
{
    if (strcmp(ns, "kruise-system") != 0 || strcmp(name, "kruise-webhook-server-certs") != 0)
        return wh_errbuf_set(eb, WH_ERR_NOT_FOUND, "not found");
    /* What the Kubernetes half will do: GET the Secret, then read it. */
    json_t *secret = wh_certs_secret_object(ns, name, "1", rsa_bundle());
    enum wh_err rc = wh_certs_secret_read(secret, WH_CERTS_SECRET_GENERATED, out, eb);
    json_decref(secret);
    return rc;
}

TEST(certs_cli_inspect_secret_hook)
{
    unset_cert_env();
    wh_certs_cli_set_secret_reader(fake_secret);
    char *secret[] = {"certs", "inspect", "--secret"};
    CHECK_EQ_INT(wh_test_certs_cli_run(3, secret), 0);
    char *other[] = {"certs", "inspect", "--secret", "other"};
    CHECK_EQ_INT(wh_test_certs_cli_run(4, other), 2);
    wh_certs_cli_set_secret_reader(NULL);
}

/* --- Secret shapes (for the Secret writer, CERT-31..36) ---------------------------------- */

TEST(cert31_secret_data_keys_and_object)
{
    struct wh_certs_bundle *b = ec_bundle(&service_target);
    json_t *o = wh_certs_secret_object("kruise-system", "kruise-webhook-server-certs", NULL, b);
    json_t *data = json_object_get(o, "data");
    CHECK_EQ_INT(json_object_size(data), 6);
    CHECK_EQ_STR(json_string_value(json_object_get(data, "tls.crt")),
                 json_string_value(json_object_get(data, "cert.pem")));
    CHECK_EQ_STR(json_string_value(json_object_get(data, "tls.key")),
                 json_string_value(json_object_get(data, "key.pem")));
    CHECK(json_object_get(data, "ca-key.pem") && json_object_get(data, "ca-cert.pem"));
    /* CERT-33: metadata holds only namespace and name; no type, labels or annotations. */
    json_t *want_meta = wh_test_json("{\"namespace\": \"kruise-system\", "
                                     "\"name\": \"kruise-webhook-server-certs\"}");
    CHECK_EQ_JSON(json_object_get(o, "metadata"), want_meta);
    json_decref(want_meta);
    CHECK(json_object_get(o, "type") == NULL);

    /* Read back: the same bundle. */
    struct wh_certs_bundle *back = NULL;
    CHECK_EQ_INT(wh_certs_secret_read(o, WH_CERTS_SECRET_GENERATED, &back, NULL), WH_OK);
    CHECK(back && wh_certs_bundle_equal(back, b));
    wh_certs_bundle_free(back);
    json_decref(o);

    /* CERT-34: the PUT carries the resourceVersion of the GET. */
    o = wh_certs_secret_object("ns", "n", "12345", b);
    CHECK_EQ_STR(wh_json_path_str(o, "metadata", "resourceVersion", NULL), "12345");
    json_decref(o);
    wh_certs_bundle_free(b);
}

TEST(cert32_secret_read_rules)
{
    struct wh_certs_bundle *b = NULL;
    struct wh_errbuf eb;
    /* tls.crt/tls.key are ignored on read; keys absent give empty items (CERT-35). */
    json_t *s = wh_test_json("{\"data\": {\"tls.crt\": \"eA==\", \"cert.pem\": \"Y2VydA==\", "
                             "\"other\": \"eA==\"}}");
    CHECK_EQ_INT(wh_certs_secret_read(s, WH_CERTS_SECRET_GENERATED, &b, NULL), WH_OK);
    CHECK_EQ_STR(wh_certs_bundle_get(b, WH_CERTS_CERT, NULL), "cert");
    CHECK(wh_certs_bundle_get(b, WH_CERTS_KEY, NULL) == NULL);
    CHECK_EQ_INT(validate(b, SVC_DNS), WH_CERTS_MISSING);
    wh_certs_bundle_free(b);
    json_decref(s);

    /* The empty Secret of the manifests. */
    s = wh_test_json("{\"metadata\": {\"name\": \"kruise-webhook-certs\"}}");
    CHECK_EQ_INT(wh_certs_secret_read(s, WH_CERTS_SECRET_GENERATED, &b, NULL), WH_OK);
    CHECK_EQ_INT(validate(b, SVC_DNS), WH_CERTS_MISSING);
    wh_certs_bundle_free(b);
    json_decref(s);

    /* CERT-36: cert-manager's names. */
    s = wh_test_json("{\"data\": {\"ca.crt\": \"Y2E=\", \"tls.crt\": \"dGxz\", "
                     "\"tls.key\": \"a2V5\"}}");
    CHECK_EQ_INT(wh_certs_secret_read(s, WH_CERTS_SECRET_EXTERNAL, &b, NULL), WH_OK);
    CHECK_EQ_STR(wh_certs_bundle_get(b, WH_CERTS_CA_CERT, NULL), "ca");
    CHECK_EQ_STR(wh_certs_bundle_get(b, WH_CERTS_CERT, NULL), "tls");
    CHECK_EQ_STR(wh_certs_bundle_get(b, WH_CERTS_KEY, NULL), "key");
    CHECK(wh_certs_bundle_get(b, WH_CERTS_CA_KEY, NULL) == NULL);
    wh_certs_bundle_free(b);
    json_decref(s);

    b = NULL;
    s = wh_test_json("{\"data\": {\"cert.pem\": \"***\"}}");
    CHECK_EQ_INT(wh_certs_secret_read(s, WH_CERTS_SECRET_GENERATED, &b, &eb), WH_ERR_PARSE);
    CHECK(strstr(eb.msg, "cert.pem") != NULL);
    CHECK(b == NULL);
    json_decref(s);
    s = wh_test_json("{\"data\": {\"key.pem\": 5}}");
    CHECK_EQ_INT(wh_certs_secret_read(s, WH_CERTS_SECRET_GENERATED, &b, &eb), WH_ERR_PARSE);
    json_decref(s);
}

TEST(certs_bundle_not_after)
{
    const struct wh_certs_bundle *b = rsa_bundle();
    time_t t = 0;
    CHECK_EQ_INT(wh_certs_bundle_not_after(b, WH_CERTS_CERT, &t), WH_OK);
    CHECK_EQ_INT(t, shared_t0 + 3650 * DAY);
    CHECK_EQ_INT(wh_certs_bundle_not_after(b, WH_CERTS_CA_CERT, &t), WH_OK);
    struct wh_certs_bundle *e = wh_certs_bundle_new();
    CHECK_EQ_INT(wh_certs_bundle_not_after(e, WH_CERTS_CERT, &t), WH_ERR_NOT_FOUND);
    set_item(e, WH_CERTS_CERT, "junk");
    CHECK_EQ_INT(wh_certs_bundle_not_after(e, WH_CERTS_CERT, &t), WH_ERR_PARSE);
    wh_certs_bundle_free(e);
}

/* --- user files are never destroyed (issue 17) -------------------------------------------- */

/* How many entries of dir start with prefix; the first one's name goes to first. */
static int count_prefixed(const char *dir, const char *prefix, char *first, size_t firstsz)
{
    int n = 0;
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, prefix, strlen(prefix)) != 0)
            continue;
        if (n++ == 0 && first)
            snprintf(first, firstsz, "%s", e->d_name);
    }
    if (d)
        closedir(d);
    return n;
}

TEST(fs_sync_serves_a_pair_without_ca_key_as_the_users_own)
{
    char dir[256];
    struct wh_certs_target t = {.host = "localhost"};
    struct wh_certs_bundle *b = ec_bundle(&t);
    struct wh_certs_fs_sync_opts o;
    struct wh_certs_fs_sync_result r;
    CHECK(wh_tls_fixture_tmpdir(dir, sizeof(dir)));
    sync_opts(&o, dir, &t);
    const char *cert = wh_certs_bundle_get(b, WH_CERTS_CERT, NULL);
    const char *key = wh_certs_bundle_get(b, WH_CERTS_KEY, NULL);
    wh_test_write_file(dir, "tls.crt", cert);
    wh_test_write_file(dir, "tls.key", key);
    CHECK_EQ_INT(wh_certs_fs_sync(&o, &r, NULL), WH_OK);
    CHECK(r.user_owned && !r.generated && !r.changed && r.bundle == NULL);
    CHECK_EQ_INT(r.verdict, WH_CERTS_VALID);
    wh_certs_fs_sync_result_fini(&r);
    /* Even when it is wrong for this host, nothing is written; the verdict says why. */
    struct wh_certs_target other = {.host = "10.9.9.9"};
    sync_opts(&o, dir, &other);
    CHECK_EQ_INT(wh_certs_fs_sync(&o, &r, NULL), WH_OK);
    CHECK(r.user_owned && !r.generated);
    CHECK_EQ_INT(r.verdict, WH_CERTS_WRONG_HOST);
    wh_certs_fs_sync_result_fini(&r);
    /* An empty ca-key.pem is no CA key either (cert-manager's layout through the Secret). */
    wh_test_write_file(dir, "ca-key.pem", "");
    CHECK_EQ_INT(wh_certs_fs_sync(&o, &r, NULL), WH_OK);
    CHECK(r.user_owned);
    wh_certs_fs_sync_result_fini(&r);
    size_t len;
    char *now = slurp(dir, "tls.crt", &len);
    CHECK_EQ_STR(now, cert);
    free(now);
    now = slurp(dir, "tls.key", &len);
    CHECK_EQ_STR(now, key);
    free(now);
    CHECK_EQ_INT(count_prefixed(dir, "..data", NULL, 0), 0); /* no layout was written */
    CHECK_EQ_INT(count_prefixed(dir, "cert.pem", NULL, 0), 0);
    wh_certs_bundle_free(b);
    wh_tls_fixture_rmtree(dir);
}

TEST(fs_sync_renewal_keeps_replaced_files_beside)
{
    char dir[256], name[256];
    struct wh_certs_target t = {.host = "localhost"};
    struct wh_certs_fs_sync_opts o;
    struct wh_certs_fs_sync_result r;
    CHECK(wh_tls_fixture_tmpdir(dir, sizeof(dir)));
    sync_opts(&o, dir, &t);
    /* All six as plain files, the certificates valid 30 days: inside the renewal margin. */
    struct wh_certs_bundle *short_lived = ec_bundle_at(&t, 0, 30 * DAY, false);
    static const struct {
        const char *name;
        enum wh_certs_item item;
    } six[] = {{"ca-key.pem", WH_CERTS_CA_KEY}, {"ca-cert.pem", WH_CERTS_CA_CERT},
               {"cert.pem", WH_CERTS_CERT},     {"tls.crt", WH_CERTS_CERT},
               {"key.pem", WH_CERTS_KEY},       {"tls.key", WH_CERTS_KEY}};
    for (size_t i = 0; i < 6; i++)
        wh_test_write_file(dir, six[i].name, wh_certs_bundle_get(short_lived, six[i].item, NULL));
    CHECK_EQ_INT(wh_certs_fs_sync(&o, &r, NULL), WH_OK);
    CHECK(r.generated && r.changed && !r.user_owned);
    CHECK_EQ_INT(r.verdict, WH_CERTS_EXPIRING);
    for (size_t i = 0; i < 6; i++) {
        char prefix[64];
        snprintf(prefix, sizeof(prefix), "%s.orig-", six[i].name);
        CHECK_EQ_INT(count_prefixed(dir, prefix, name, sizeof(name)), 1);
        size_t len;
        char *kept = slurp(dir, name, &len);
        CHECK_EQ_STR(kept, wh_certs_bundle_get(short_lived, six[i].item, NULL));
        free(kept);
    }
    check_visible(dir, "tls.crt", 0644);
    check_item_file(dir, "tls.crt", r.bundle, WH_CERTS_CERT);
    /* The layout written by the sync renewed again: its files are copied beside too. */
    struct wh_certs_bundle *first = wh_certs_bundle_dup(r.bundle);
    wh_certs_fs_sync_result_fini(&r);
    o.renew_before_secs = 3651 * DAY;
    CHECK_EQ_INT(wh_certs_fs_sync(&o, &r, NULL), WH_OK);
    CHECK(r.generated);
    CHECK_EQ_INT(count_prefixed(dir, "tls.key.orig-", NULL, 0), 2);
    wh_certs_fs_sync_result_fini(&r);
    wh_certs_bundle_free(first);
    wh_certs_bundle_free(short_lived);
    wh_tls_fixture_rmtree(dir);
}

TEST(atomic_read_serves_a_plain_file_renamed_over_the_layout)
{
    char dir[256], path[512];
    struct wh_certs_bundle *a = ec_bundle(&service_target), *b = ec_bundle(&service_target);
    char *cert = NULL, *key = NULL;
    size_t cl = 0, kl = 0;
    CHECK(wh_tls_fixture_tmpdir(dir, sizeof(dir)));
    CHECK_EQ_INT(wh_certs_fs_write(dir, a, NULL, NULL), WH_OK);
    /* mv new.crt tls.crt; mv new.key tls.key, while ..data still points at a's generation. */
    wh_test_write_file(dir, "new.crt", wh_certs_bundle_get(b, WH_CERTS_CERT, NULL));
    wh_test_write_file(dir, "new.key", wh_certs_bundle_get(b, WH_CERTS_KEY, NULL));
    char from[512];
    snprintf(from, sizeof(from), "%s/new.crt", dir);
    snprintf(path, sizeof(path), "%s/tls.crt", dir);
    CHECK(rename(from, path) == 0);
    snprintf(from, sizeof(from), "%s/new.key", dir);
    snprintf(path, sizeof(path), "%s/tls.key", dir);
    CHECK(rename(from, path) == 0);
    CHECK_EQ_INT(wh_certs_fs_read_serving(dir, &cert, &cl, &key, &kl, NULL), WH_OK);
    CHECK_EQ_STR(cert, wh_certs_bundle_get(b, WH_CERTS_CERT, NULL));
    CHECK_EQ_STR(key, wh_certs_bundle_get(b, WH_CERTS_KEY, NULL));
    free(cert);
    free(key);
    /* The other names still come from the layout. */
    size_t len;
    char *ca = NULL;
    static const char *const ca_name[] = {"ca-cert.pem"};
    CHECK_EQ_INT(wh_certs_atomic_dir_read(dir, ca_name, 1, WH_CERTS_PEM_MAX, &ca, &len, NULL),
                 WH_OK);
    CHECK_EQ_STR(ca, wh_certs_bundle_get(a, WH_CERTS_CA_CERT, NULL));
    free(ca);
    /* A later write moves the plain files aside rather than deleting them. */
    CHECK_EQ_INT(wh_certs_fs_write(dir, a, NULL, NULL), WH_OK);
    char name[256];
    CHECK_EQ_INT(count_prefixed(dir, "tls.crt.orig-", name, sizeof(name)), 1);
    char *kept = slurp(dir, name, &len);
    CHECK_EQ_STR(kept, wh_certs_bundle_get(b, WH_CERTS_CERT, NULL));
    free(kept);
    check_visible(dir, "tls.crt", 0644);
    wh_certs_bundle_free(a);
    wh_certs_bundle_free(b);
    wh_tls_fixture_rmtree(dir);
}
