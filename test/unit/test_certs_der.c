/* Tests for the strict DER check (certs/der.c) and for the DER of everything the server
 * generates (issue 10: the API server refused our CA's BOOLEAN 0x01). Every certificate the
 * generator can make -- CA and serving, RSA and ECDSA, every kind of name -- is checked as
 * generated and as read back from each of the three stores (the Secret object, the cert
 * dir, `certs generate`). The end-to-end proof that the API server reads them is in
 * test/e2e/. */
#include "test/unit/test.h"

#include <stdlib.h>
#include <string.h>

#include <openssl/pem.h>
#include <openssl/x509.h>

#include "certs/bundle.h"
#include "certs/cli.h"
#include "certs/der.h"
#include "certs/fs_store.h"
#include "certs/pem.h"
#include "certs/secret.h"
#include "certs/selfcall.h"
#include "test/support/apiserver_proc.h"
#include "test/support/certs_hooks.h"
#include "test/support/tls_fixture.h"
#include "util/mem.h"

/* --- generic rules ------------------------------------------------------------------------- */

struct der_case {
    const char *what;
    unsigned char der[16];
    size_t len;
    const char *error; /* NULL: accepted; else a piece of the message */
};

static const struct der_case der_cases[] = {
    {"BOOLEAN TRUE", {0x01, 0x01, 0xff}, 3, NULL},
    {"BOOLEAN FALSE", {0x01, 0x01, 0x00}, 3, NULL},
    {"BOOLEAN 0x01", {0x01, 0x01, 0x01}, 3, "value 0x01, DER allows only 0x00 and 0xff"},
    {"BOOLEAN two bytes", {0x01, 0x02, 0xff, 0xff}, 4, "length is not 1"},
    {"INTEGER 127", {0x02, 0x01, 0x7f}, 3, NULL},
    {"INTEGER 128", {0x02, 0x02, 0x00, 0x80}, 4, NULL},
    {"INTEGER -128", {0x02, 0x01, 0x80}, 3, NULL},
    {"INTEGER leading 00", {0x02, 0x02, 0x00, 0x7f}, 4, "not minimally encoded"},
    {"INTEGER leading ff", {0x02, 0x02, 0xff, 0x80}, 4, "not minimally encoded"},
    {"INTEGER empty", {0x02, 0x00}, 2, "INTEGER at byte 0: empty"},
    {"BIT STRING", {0x03, 0x02, 0x02, 0x84}, 4, NULL},
    {"BIT STRING unused bit set", {0x03, 0x02, 0x02, 0x86}, 4, "unused bits are not zero"},
    {"BIT STRING 8 unused", {0x03, 0x02, 0x08, 0x00}, 4, "invalid number of unused bits"},
    {"BIT STRING empty with unused", {0x03, 0x01, 0x01}, 3, "invalid number of unused bits"},
    {"NULL", {0x05, 0x00}, 2, NULL},
    {"NULL with content", {0x05, 0x01, 0x00}, 3, "not empty"},
    {"OID 2.5.29.19", {0x06, 0x03, 0x55, 0x1d, 0x13}, 5, NULL},
    {"OID padded", {0x06, 0x03, 0x55, 0x80, 0x13}, 5, "not minimally encoded"},
    {"OID unterminated", {0x06, 0x02, 0x55, 0x81}, 4, "unterminated"},
    {"UTCTime",
     {0x17, 0x0d, '2', '6', '1', '1', '2', '6', '0', '0', '0', '0', '0', '0', 'Z'},
     15,
     NULL},
    {"UTCTime month 13",
     {0x17, 0x0d, '2', '6', '1', '3', '2', '6', '0', '0', '0', '0', '0', '0', 'Z'},
     15,
     "YYMMDDHHMMSSZ"},
    {"UTCTime no seconds",
     {0x17, 0x0b, '2', '6', '1', '1', '2', '6', '0', '0', '0', '0', 'Z'},
     13,
     "YYMMDDHHMMSSZ"},
    {"PrintableString", {0x13, 0x03, 'a', '-', '*'}, 5, NULL},
    {"PrintableString @", {0x13, 0x02, 'a', '@'}, 4, "PrintableString set"},
    {"IA5String 0x80", {0x16, 0x01, 0x80}, 3, "above 0x7f"},
    {"UTF8String", {0x0c, 0x02, 0xc3, 0xa9}, 4, NULL},
    {"UTF8String overlong", {0x0c, 0x02, 0xc0, 0x80}, 4, "not valid UTF-8"},
    {"UTF8String surrogate", {0x0c, 0x03, 0xed, 0xa0, 0x80}, 5, "not valid UTF-8"},
    {"constructed OCTET STRING", {0x24, 0x03, 0x04, 0x01, 0x00}, 5, "constructed form"},
    {"constructed RELATIVE-OID", {0x2d, 0x00}, 2, "constructed form"},
    {"primitive SEQUENCE", {0x10, 0x00}, 2, "primitive form"},
    {"EMBEDDED PDV", {0x2b, 0x00}, 2, "type not used by X.509"},
    {"EXTERNAL", {0x28, 0x00}, 2, "type not used by X.509"},
    {"CHARACTER STRING", {0x1d, 0x00}, 2, "type not used by X.509"},
    {"indefinite length", {0x30, 0x80, 0x00, 0x00}, 4, "indefinite length"},
    {"long form below 128", {0x04, 0x81, 0x01, 0x00}, 4, "long-form length below 128"},
    {"length with leading zero", {0x04, 0x82, 0x00, 0x01, 0x00}, 5, "leading zero byte"},
    {"runs past", {0x30, 0x05, 0x05, 0x00}, 4, "runs past its container"},
    {"trailing data", {0x05, 0x00, 0x05, 0x00}, 4, "trailing data"},
    {"high tag number", {0x1f, 0x20, 0x00}, 3, "high-tag-number form"},
    {"nested BOOLEAN 0x01", {0x30, 0x05, 0xa0, 0x03, 0x01, 0x01, 0x01}, 7, "BOOLEAN at byte 4"},
    {"SEQUENCE children fill it", {0x30, 0x04, 0x05, 0x00, 0x05, 0x00}, 6, NULL},
    {"child runs past its SEQUENCE", {0x30, 0x03, 0x04, 0x02, 0x00}, 5, "runs past"},
    {"implicit tag is opaque", {0x82, 0x02, 0x00, 0xff}, 4, NULL},
};

TEST(der_generic_rules)
{
    for (size_t i = 0; i < sizeof(der_cases) / sizeof(der_cases[0]); i++) {
        const struct der_case *c = &der_cases[i];
        struct wh_errbuf eb = {{0}};
        enum wh_err rc = wh_certs_der_check(c->der, c->len, &eb);
        if (!c->error) {
            if (rc != WH_OK)
                fprintf(stderr, "%s: refused: %s\n", c->what, eb.msg);
            CHECK_EQ_INT(rc, WH_OK);
            continue;
        }
        if (rc != WH_ERR_PARSE || !strstr(eb.msg, c->error))
            fprintf(stderr, "%s: want \"%s\", got %d \"%s\"\n", c->what, c->error, rc, eb.msg);
        CHECK_EQ_INT(rc, WH_ERR_PARSE);
        CHECK(strstr(eb.msg, c->error) != NULL);
    }
    CHECK_EQ_INT(wh_certs_der_check(NULL, 0, NULL), WH_ERR_PARSE);
}

TEST(der_nesting_is_capped)
{
    enum { DEPTH = 40 };
    unsigned char der[DEPTH * 2 + 2];
    for (int i = 0; i < DEPTH; i++) {
        der[2 * i] = 0x30;
        der[2 * i + 1] = (unsigned char)((DEPTH - i - 1) * 2 + 2);
    }
    der[DEPTH * 2] = 0x05;
    der[DEPTH * 2 + 1] = 0x00;
    struct wh_errbuf eb = {{0}};
    CHECK_EQ_INT(wh_certs_der_check(der, sizeof(der), &eb), WH_ERR_PARSE);
    CHECK(strstr(eb.msg, "nested too deeply") != NULL);
}

/* --- certificate-level rules ----------------------------------------------------------------- */

/* Appends tag, length and content (short lengths only: these certificates are tiny). */
static size_t tlv(unsigned char *out, unsigned char tag, const unsigned char *content, size_t n)
{
    WH_ASSERT(n < 128);
    out[0] = tag;
    out[1] = (unsigned char)n;
    memcpy(out + 2, content, n);
    return n + 2;
}

/* A "certificate" holding only the extensions given (the check reads no other field):
 * SEQUENCE { SEQUENCE { INTEGER 1, [3] { SEQUENCE { exts } } } }. */
static size_t skeleton_cert(unsigned char *out, const unsigned char *exts, size_t n)
{
    unsigned char list[120], wrap[124], tbs[128];
    static const unsigned char serial[] = {0x02, 0x01, 0x01};
    size_t l = tlv(list, 0x30, exts, n);
    size_t w = tlv(wrap, 0xa3, list, l);
    memcpy(tbs, serial, sizeof(serial));
    memcpy(tbs + sizeof(serial), wrap, w);
    size_t t = tlv(out, 0x30, tbs, sizeof(serial) + w);
    unsigned char inner[130];
    memcpy(inner, out, t);
    return tlv(out, 0x30, inner, t);
}

static enum wh_err check_skeleton(const unsigned char *exts, size_t n, struct wh_errbuf *eb)
{
    unsigned char cert[140];
    size_t len = skeleton_cert(cert, exts, n);
    return wh_certs_der_check_cert(cert, len, eb);
}

TEST(der_certificate_extension_rules)
{
    /* basicConstraints critical, cA TRUE: fine */
    static const unsigned char bc_ok[] = {0x30, 0x0f, 0x06, 0x03, 0x55, 0x1d, 0x13, 0x01, 0x01,
                                          0xff, 0x04, 0x05, 0x30, 0x03, 0x01, 0x01, 0xff};
    /* the bug: cA encoded 0x01 inside the extension value */
    static const unsigned char bc_01[] = {0x30, 0x0f, 0x06, 0x03, 0x55, 0x1d, 0x13, 0x01, 0x01,
                                          0xff, 0x04, 0x05, 0x30, 0x03, 0x01, 0x01, 0x01};
    /* cA FALSE written out (DEFAULT FALSE must be omitted) */
    static const unsigned char bc_false[] = {0x30, 0x0c, 0x06, 0x03, 0x55, 0x1d, 0x13,
                                             0x04, 0x05, 0x30, 0x03, 0x01, 0x01, 0x00};
    /* critical FALSE written out */
    static const unsigned char crit_false[] = {0x30, 0x0c, 0x06, 0x03, 0x55, 0x1d, 0x13,
                                               0x01, 0x01, 0x00, 0x04, 0x02, 0x30, 0x00};
    /* keyUsage digitalSignature with 1 unused bit: trailing zero bits */
    static const unsigned char ku_trailing[] = {0x30, 0x0b, 0x06, 0x03, 0x55, 0x1d, 0x0f,
                                                0x04, 0x04, 0x03, 0x02, 0x01, 0x80};
    static const unsigned char ku_ok[] = {0x30, 0x0b, 0x06, 0x03, 0x55, 0x1d, 0x0f,
                                          0x04, 0x04, 0x03, 0x02, 0x07, 0x80};
    /* an extension value that is not one DER value */
    static const unsigned char value_trailing[] = {0x30, 0x0b, 0x06, 0x03, 0x55, 0x1d, 0x13,
                                                   0x04, 0x04, 0x30, 0x00, 0x05, 0x00};
    struct wh_errbuf eb = {{0}};
    CHECK_EQ_INT(check_skeleton(bc_ok, sizeof(bc_ok), &eb), WH_OK);
    CHECK_EQ_INT(check_skeleton(ku_ok, sizeof(ku_ok), &eb), WH_OK);
    CHECK_EQ_INT(check_skeleton(bc_01, sizeof(bc_01), &eb), WH_ERR_PARSE);
    CHECK(strstr(eb.msg, "BOOLEAN") && strstr(eb.msg, "0x01"));
    CHECK_EQ_INT(check_skeleton(bc_false, sizeof(bc_false), &eb), WH_ERR_PARSE);
    CHECK(strstr(eb.msg, "basicConstraints cA") != NULL);
    CHECK_EQ_INT(check_skeleton(crit_false, sizeof(crit_false), &eb), WH_ERR_PARSE);
    CHECK(strstr(eb.msg, "extension critical") != NULL);
    CHECK_EQ_INT(check_skeleton(ku_trailing, sizeof(ku_trailing), &eb), WH_ERR_PARSE);
    CHECK(strstr(eb.msg, "trailing zero bits") != NULL);
    CHECK_EQ_INT(check_skeleton(value_trailing, sizeof(value_trailing), &eb), WH_ERR_PARSE);
    CHECK(strstr(eb.msg, "trailing data") != NULL);

    unsigned char twice[sizeof(bc_ok) * 2];
    memcpy(twice, bc_ok, sizeof(bc_ok));
    memcpy(twice + sizeof(bc_ok), bc_ok, sizeof(bc_ok));
    CHECK_EQ_INT(check_skeleton(twice, sizeof(twice), &eb), WH_ERR_PARSE);
    CHECK(strstr(eb.msg, "appears twice") != NULL);

    /* data after the certificate (Go: "x509: trailing data") */
    unsigned char cert[150];
    size_t len = skeleton_cert(cert, bc_ok, sizeof(bc_ok));
    cert[len] = 0x00;
    CHECK_EQ_INT(wh_certs_der_check_cert(cert, len + 1, &eb), WH_ERR_PARSE);
    CHECK(strstr(eb.msg, "trailing data") != NULL);
}

/* The certificate this project generated before issue 10: OpenSSL reads it, so nothing
 * noticed; the PEM reader (and so every check in certs/) now refuses it with the reason. */
TEST(der_pre_issue10_ca_is_refused_everywhere)
{
    struct wh_tls_fixture fx;
    struct wh_errbuf eb = {{0}};
    CHECK_EQ_INT(wh_tls_fixture_init(&fx, false, &eb), WH_OK);
    struct wh_certs_bundle *bad = wh_tls_fixture_non_der_ca(fx.bundle);
    size_t len = 0;
    const char *pem = wh_certs_bundle_get(bad, WH_CERTS_CA_CERT, &len);

    /* OpenSSL alone accepts it: the reason this check exists. */
    BIO *bio = BIO_new_mem_buf(pem, (int)len);
    X509 *lenient = PEM_read_bio_X509(bio, NULL, NULL, NULL);
    CHECK(lenient != NULL);
    X509_free(lenient);
    BIO_free(bio);

    X509 *x = NULL;
    CHECK_EQ_INT(wh_certs_pem_first_cert_why(pem, len, &x, &eb), WH_ERR_PARSE);
    CHECK(strstr(eb.msg, "not DER") && strstr(eb.msg, "value 0x01"));
    STACK_OF(X509) *sk = NULL;
    CHECK_EQ_INT(wh_certs_pem_certs(pem, len, false, &sk), WH_ERR_NOT_FOUND);

    struct wh_errbuf why = {{0}};
    CHECK_EQ_INT(wh_certs_bundle_validate(bad, "localhost", time(NULL), 0, &why), WH_CERTS_GARBAGE);
    CHECK(strstr(why.msg, "ca-cert.pem") && strstr(why.msg, "value 0x01"));
    CHECK(wh_certs_bundle_ca_reusable(bad, WH_CERTS_KEY_ECDSA, time(NULL), NULL) != WH_CERTS_VALID);
    json_t *report = wh_certs_bundle_inspect(bad, "localhost", time(NULL), 0);
    CHECK(strstr(json_string_value(json_object_get(json_object_get(report, "ca"), "error")),
                 "value 0x01") != NULL);
    CHECK_EQ_STR(json_string_value(json_object_get(report, "verdict")), "unparsable");
    json_decref(report);
    wh_certs_bundle_free(bad);
    wh_tls_fixture_fini(&fx);
}

/* The standalone and URL-mode store regenerates such material at its next sync. */
TEST(der_fs_sync_replaces_a_non_der_ca)
{
    char base[256], dir[400];
    struct wh_tls_fixture fx;
    struct wh_errbuf eb = {{0}};
    CHECK(wh_tls_fixture_tmpdir(base, sizeof(base)));
    snprintf(dir, sizeof(dir), "%s/certs", base);
    CHECK_EQ_INT(wh_tls_fixture_init(&fx, false, &eb), WH_OK);
    struct wh_certs_bundle *bad = wh_tls_fixture_non_der_ca(fx.bundle);
    CHECK_EQ_INT(wh_certs_fs_write(dir, bad, NULL, &eb), WH_OK);

    struct wh_certs_fs_sync_opts o = {.dir = dir, .target = {.host = "localhost"}};
    wh_certs_gen_opts_init(&o.gen);
    o.gen.key_type = WH_CERTS_KEY_ECDSA;
    o.renew_before_secs = 86400;
    struct wh_certs_fs_sync_result r;
    CHECK_EQ_INT(wh_certs_fs_sync(&o, &r, &eb), WH_OK);
    CHECK(r.generated);
    CHECK_EQ_INT(r.verdict, WH_CERTS_GARBAGE);
    size_t len = 0;
    const char *ca = wh_certs_bundle_get(r.bundle, WH_CERTS_CA_CERT, &len);
    X509 *x = NULL;
    CHECK_EQ_INT(wh_certs_pem_first_cert(ca, len, &x), WH_OK);
    X509_free(x);
    wh_certs_fs_sync_result_fini(&r);
    wh_certs_bundle_free(bad);
    wh_tls_fixture_fini(&fx);
    wh_tls_fixture_rmtree(base);
}

/* --- everything the generator makes ------------------------------------------------------- */

/* Every CERTIFICATE block and the keys of b, through the strict check. */
static void check_bundle_der(const struct wh_certs_bundle *b, const char *label)
{
    for (int i = 0; i < WH_CERTS_N_ITEMS; i++) {
        size_t len = 0;
        const char *pem = wh_certs_bundle_get(b, (enum wh_certs_item)i, &len);
        BIO *bio = BIO_new_mem_buf(pem, (int)len);
        char *name = NULL, *header = NULL;
        unsigned char *der = NULL;
        long der_len = 0;
        CHECK(pem && PEM_read_bio(bio, &name, &header, &der, &der_len) == 1);
        struct wh_errbuf eb = {{0}};
        bool cert = name && strcmp(name, "CERTIFICATE") == 0;
        enum wh_err rc = cert ? wh_certs_der_check_cert(der, (size_t)der_len, &eb)
                              : wh_certs_der_check(der, (size_t)der_len, &eb);
        if (rc)
            fprintf(stderr, "%s %s: %s\n", label, wh_certs_bundle_item_name((enum wh_certs_item)i),
                    eb.msg);
        CHECK_EQ_INT(rc, WH_OK);
        OPENSSL_free(name);
        OPENSSL_free(header);
        OPENSSL_clear_free(der, (size_t)der_len);
        BIO_free(bio);
    }
}

/* Through each store and back: the Secret object, the cert dir. */
static void check_stores(const struct wh_certs_bundle *b, const char *dir, const char *label)
{
    struct wh_certs_bundle *back = NULL;
    json_t *secret = wh_certs_secret_object("kruise-system", "s", NULL, b);
    CHECK_EQ_INT(wh_certs_secret_read(secret, WH_CERTS_SECRET_GENERATED, &back, NULL), WH_OK);
    CHECK(back && wh_certs_bundle_equal(back, b));
    if (back)
        check_bundle_der(back, label);
    wh_certs_bundle_free(back);
    json_decref(secret);
    back = NULL;
    CHECK_EQ_INT(wh_certs_fs_write(dir, b, NULL, NULL), WH_OK);
    CHECK_EQ_INT(wh_certs_fs_read(dir, &back, NULL), WH_OK);
    CHECK(back && wh_certs_bundle_equal(back, b));
    if (back)
        check_bundle_der(back, label);
    wh_certs_bundle_free(back);
}

TEST(der_every_generated_certificate_is_strict)
{
    static const struct wh_certs_target targets[] = {
        {.service = "kruise-webhook-server", .namespace = "kruise-system"},
        {.host = "localhost"},
        {.host = "127.0.0.1"},
        {.host = "::1"},
        {.host = "webhook.example.com"},
    };
    char base[256], dir[400];
    CHECK(wh_tls_fixture_tmpdir(base, sizeof(base)));
    snprintf(dir, sizeof(dir), "%s/certs", base);
    for (int kt = 0; kt < 2; kt++) {
        for (size_t t = 0; t < sizeof(targets) / sizeof(targets[0]); t++) {
            /* RSA keys are slow: every name with ECDSA, two with RSA. */
            if (kt == WH_CERTS_KEY_RSA && t > 1)
                continue;
            for (int upstream = 0; upstream < 2; upstream++) {
                struct wh_certs_gen_opts o;
                wh_certs_gen_opts_init(&o);
                o.key_type = (enum wh_certs_key_type)kt;
                o.upstream_sans = upstream;
                struct wh_certs_bundle *b = NULL, *again = NULL;
                struct wh_errbuf eb = {{0}};
                bool reused = false;
                char label[160];
                snprintf(label, sizeof(label), "%s %s%s", kt ? "ECDSA" : "RSA",
                         targets[t].host ? targets[t].host : targets[t].service,
                         upstream ? " upstream SANs" : "");
                CHECK_EQ_INT(wh_certs_bundle_generate(&o, &targets[t], NULL, &b, NULL, &eb), WH_OK);
                if (!b)
                    continue;
                check_bundle_der(b, label);
                check_stores(b, dir, label);
                /* A reused CA is re-encoded: that encoding must be DER too. */
                CHECK_EQ_INT(wh_certs_bundle_generate(&o, &targets[t], b, &again, &reused, &eb),
                             WH_OK);
                CHECK(reused);
                if (again)
                    check_bundle_der(again, label);
                wh_certs_bundle_free(again);
                wh_certs_bundle_free(b);
            }
        }
    }
    wh_tls_fixture_rmtree(base);
}

/* The third store: `certs generate` writes the same layout. */
TEST(der_certs_generate_output_is_strict)
{
    char base[256], dir[400];
    CHECK(wh_tls_fixture_tmpdir(base, sizeof(base)));
    snprintf(dir, sizeof(dir), "%s/out", base);
    static const char *const variants[][2] = {{"--host", "127.0.0.1"}, {"--host", "localhost"}};
    for (int ecdsa = 0; ecdsa < 2; ecdsa++) {
        for (size_t v = 0; v < 2; v++) {
            char *argv[] = {"certs",
                            "generate",
                            "--out",
                            dir,
                            (char *)(uintptr_t)variants[v][0],
                            (char *)(uintptr_t)variants[v][1],
                            ecdsa ? "--ecdsa" : "--upstream-sans"};
            CHECK_EQ_INT(wh_test_certs_cli_run(7, argv), 0);
            struct wh_certs_bundle *b = NULL;
            CHECK_EQ_INT(wh_certs_fs_read(dir, &b, NULL), WH_OK);
            if (b)
                check_bundle_der(b, ecdsa ? "certs generate --ecdsa" : "certs generate");
            wh_certs_bundle_free(b);
        }
    }
    wh_tls_fixture_rmtree(base);
}

/* --- the self-call behind /readyz ------------------------------------------------------------ */

/* The self-call against an HTTPS server presenting fx's serving certificate (the fake API
 * server, which answers 404 on a webhook path: TLS worked, the path is not served there). */
TEST(selfcall_reads_trust_and_name_as_the_api_server)
{
    struct wh_tls_fixture fx, other;
    struct wh_errbuf eb = {{0}};
    struct wh_apiserver *srv = NULL;
    wh_test_curl_init();
    CHECK_EQ_INT(wh_tls_fixture_init(&fx, false, &eb), WH_OK);
    CHECK_EQ_INT(wh_tls_fixture_init(&other, false, &eb), WH_OK);
    const char *extra[] = {"--cert", fx.cert_file, "--key", fx.key_file, NULL};
    struct wh_apiserver_opts o = {.extra_args = extra};
    if (wh_apiserver_start(&o, &srv, &eb)) {
        fprintf(stderr, "fake API server: %s\n", eb.msg);
        CHECK(false);
        goto out;
    }
    size_t len = 0;
    const char *ca = wh_certs_bundle_get(fx.bundle, WH_CERTS_CA_CERT, &len);
    struct wh_certs_selfcall call = {.ca_bundle = ca,
                                     .ca_bundle_len = len,
                                     .name = "localhost",
                                     .path = "/mutate-pod",
                                     .connect_host = "127.0.0.1",
                                     .port = wh_apiserver_port(srv)};
    /* Trusted, named: the TLS part passes and the path is reported not served. */
    CHECK_EQ_INT(wh_certs_selfcall(&call, &eb), WH_ERR_NOT_FOUND);
    CHECK(strstr(eb.msg, "no webhook is served at this path") != NULL);
    /* A name the certificate does not hold. */
    call.name = "kruise-webhook-server.kruise-system.svc";
    CHECK_EQ_INT(wh_certs_selfcall(&call, &eb), WH_ERR_TLS);
    /* A caBundle of another CA. */
    call.name = "localhost";
    call.ca_bundle = wh_certs_bundle_get(other.bundle, WH_CERTS_CA_CERT, &call.ca_bundle_len);
    CHECK_EQ_INT(wh_certs_selfcall(&call, &eb), WH_ERR_TLS);
    /* The bug of issue 10: the right CA, encoded so that Go cannot read it. OpenSSL would have
     * trusted it; the self-call reads it as the API server does. */
    struct wh_certs_bundle *bad = wh_tls_fixture_non_der_ca(fx.bundle);
    call.ca_bundle = wh_certs_bundle_get(bad, WH_CERTS_CA_CERT, &call.ca_bundle_len);
    CHECK_EQ_INT(wh_certs_selfcall(&call, &eb), WH_ERR_PARSE);
    CHECK(strstr(eb.msg, "no certificate the API server can read") != NULL);
    wh_certs_bundle_free(bad);
    /* Nobody listening. */
    call.ca_bundle = ca;
    call.ca_bundle_len = len;
    call.port = 1;
    CHECK_EQ_INT(wh_certs_selfcall(&call, &eb), WH_ERR_IO);
out:
    wh_apiserver_stop(srv);
    wh_tls_fixture_fini(&other);
    wh_tls_fixture_fini(&fx);
}
