#include "certs/bundle.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>

#include "certs/pem.h"
#include "gocompat/gotime.h"
#include "util/mem.h"
#include "util/time.h"

struct blob {
    char *data; /* NULL when absent */
    size_t len;
};

struct wh_certs_bundle {
    struct blob item[WH_CERTS_N_ITEMS];
};

static const char *const item_names[WH_CERTS_N_ITEMS] = {
    [WH_CERTS_CA_KEY] = "ca-key.pem",
    [WH_CERTS_CA_CERT] = "ca-cert.pem",
    [WH_CERTS_CERT] = "cert.pem",
    [WH_CERTS_KEY] = "key.pem",
};

static bool is_key_item(enum wh_certs_item i)
{
    return i == WH_CERTS_CA_KEY || i == WH_CERTS_KEY;
}

const char *wh_certs_bundle_item_name(enum wh_certs_item i)
{
    WH_ASSERT((unsigned)i < WH_CERTS_N_ITEMS);
    return item_names[i];
}

struct wh_certs_bundle *wh_certs_bundle_new(void)
{
    return wh_xcalloc(1, sizeof(struct wh_certs_bundle));
}

static void blob_clear(struct blob *bl, bool wipe)
{
    if (bl->data && wipe)
        OPENSSL_cleanse(bl->data, bl->len);
    free(bl->data);
    bl->data = NULL;
    bl->len = 0;
}

void wh_certs_bundle_free(struct wh_certs_bundle *b)
{
    if (!b)
        return;
    for (int i = 0; i < WH_CERTS_N_ITEMS; i++)
        blob_clear(&b->item[i], is_key_item((enum wh_certs_item)i));
    free(b);
}

const char *wh_certs_bundle_get(const struct wh_certs_bundle *b, enum wh_certs_item i, size_t *len)
{
    WH_ASSERT((unsigned)i < WH_CERTS_N_ITEMS);
    if (len)
        *len = b->item[i].len;
    return b->item[i].data;
}

enum wh_err wh_certs_bundle_set(struct wh_certs_bundle *b, enum wh_certs_item i, const void *data,
                                size_t len)
{
    WH_ASSERT((unsigned)i < WH_CERTS_N_ITEMS);
    blob_clear(&b->item[i], is_key_item(i));
    if (!data || len == 0)
        return WH_OK;
    if (len > WH_CERTS_PEM_MAX)
        return WH_ERR_TOO_BIG;
    b->item[i].data = wh_xmalloc(len + 1);
    memcpy(b->item[i].data, data, len);
    b->item[i].data[len] = '\0';
    b->item[i].len = len;
    return WH_OK;
}

/* Hands a freshly allocated text over to the bundle. */
static void set_take(struct wh_certs_bundle *b, enum wh_certs_item i, char *data, size_t len)
{
    blob_clear(&b->item[i], is_key_item(i));
    b->item[i].data = data;
    b->item[i].len = len;
}

struct wh_certs_bundle *wh_certs_bundle_dup(const struct wh_certs_bundle *b)
{
    struct wh_certs_bundle *c = wh_certs_bundle_new();
    for (int i = 0; i < WH_CERTS_N_ITEMS; i++) {
        /* Lengths are already within the cap, so set cannot fail. */
        enum wh_err rc =
            wh_certs_bundle_set(c, (enum wh_certs_item)i, b->item[i].data, b->item[i].len);
        WH_ASSERT(rc == WH_OK);
    }
    return c;
}

bool wh_certs_bundle_equal(const struct wh_certs_bundle *a, const struct wh_certs_bundle *b)
{
    for (int i = 0; i < WH_CERTS_N_ITEMS; i++) {
        if (a->item[i].len != b->item[i].len)
            return false;
        if (a->item[i].len && memcmp(a->item[i].data, b->item[i].data, a->item[i].len) != 0)
            return false;
    }
    return true;
}

static bool present(const struct wh_certs_bundle *b, enum wh_certs_item i)
{
    return b->item[i].len > 0;
}

static enum wh_certs_verdict parse_cert_item(const struct wh_certs_bundle *b, enum wh_certs_item i,
                                             X509 **out, struct wh_errbuf *why)
{
    struct wh_errbuf pem_why;
    enum wh_err rc = wh_certs_pem_first_cert_why(b->item[i].data, b->item[i].len, out, &pem_why);
    if (rc == WH_OK)
        return WH_CERTS_VALID;
    wh_errbuf_set(why, rc, "%s: %s%s", item_names[i],
                  rc == WH_ERR_NOT_FOUND ? "" : "first certificate does not parse: ", pem_why.msg);
    return WH_CERTS_GARBAGE;
}

static enum wh_certs_verdict parse_key_item(const struct wh_certs_bundle *b, enum wh_certs_item i,
                                            EVP_PKEY **out, struct wh_errbuf *why)
{
    enum wh_err rc = wh_certs_pem_first_key(b->item[i].data, b->item[i].len, out);
    if (rc == WH_OK)
        return WH_CERTS_VALID;
    wh_errbuf_set(why, rc, "%s: %s", item_names[i],
                  rc == WH_ERR_NOT_FOUND ? "no PRIVATE KEY block"
                                         : "key is not PKCS#1, PKCS#8 or SEC1");
    return WH_CERTS_GARBAGE;
}

static enum wh_certs_verdict missing(enum wh_certs_item i, struct wh_errbuf *why)
{
    wh_errbuf_set(why, WH_ERR_NOT_FOUND, "%s: missing or empty", item_names[i]);
    return WH_CERTS_MISSING;
}

enum wh_err wh_certs_bundle_not_after(const struct wh_certs_bundle *b, enum wh_certs_item i,
                                      time_t *out)
{
    X509 *x = NULL;
    WH_ASSERT(i == WH_CERTS_CA_CERT || i == WH_CERTS_CERT);
    if (!present(b, i))
        return WH_ERR_NOT_FOUND;
    enum wh_err rc = wh_certs_pem_first_cert(b->item[i].data, b->item[i].len, &x);
    if (rc == WH_ERR_NOT_FOUND)
        rc = WH_ERR_PARSE;
    if (!rc)
        rc = wh_certs_verify_asn1_time(X509_get0_notAfter(x), out);
    X509_free(x);
    return rc;
}

/* now + secs without overflowing time_t. */
static time_t time_add(time_t now, int64_t secs)
{
    if (secs > 0 && (int64_t)now > INT64_MAX - secs)
        return (time_t)INT64_MAX;
    return (time_t)((int64_t)now + secs);
}

/* The renewal reason in words: which of cert.pem and its CA ends first within the margin,
 * when, and the margin (the leaf and its CA are both valid now: the chain only fails at
 * now + margin). */
static void expiring_why(X509 *leaf, STACK_OF(X509) * anchors, time_t now, int64_t margin_secs,
                         struct wh_errbuf *why)
{
    X509 *first = leaf;
    const char *name = "cert.pem";
    int64_t end = wh_certs_verify_secs_left(leaf, now);
    for (int i = 0; i < sk_X509_num(anchors); i++) {
        X509 *ca = sk_X509_value(anchors, i);
        int64_t left = wh_certs_verify_secs_left(ca, now);
        if (X509_check_issued(ca, leaf) == X509_V_OK && left < end) {
            first = ca;
            end = left;
            name = "ca-cert.pem";
        }
    }
    char expiry[160], margin[32];
    wh_certs_verify_describe_expiry(first, now, expiry, sizeof(expiry));
    wh_certs_verify_format_secs(margin_secs, margin, sizeof(margin));
    wh_errbuf_set(why, WH_ERR_TLS, "%s %s, within --certs-renew-before %s", name, expiry, margin);
}

enum wh_certs_verdict wh_certs_bundle_validate(const struct wh_certs_bundle *b,
                                               const char *dns_name, time_t now,
                                               int64_t margin_secs, struct wh_errbuf *why)
{
    static const enum wh_certs_item required[] = {WH_CERTS_KEY, WH_CERTS_CERT, WH_CERTS_CA_CERT};
    enum wh_certs_verdict v = WH_CERTS_VALID;
    X509 *leaf = NULL;
    EVP_PKEY *key = NULL;
    STACK_OF(X509) *anchors = NULL;
    struct wh_errbuf chain_why;

    for (size_t i = 0; i < sizeof(required) / sizeof(required[0]); i++) {
        if (!present(b, required[i])) {
            v = missing(required[i], why);
            goto out;
        }
    }
    v = parse_cert_item(b, WH_CERTS_CERT, &leaf, why);
    if (v)
        goto out;
    v = parse_key_item(b, WH_CERTS_KEY, &key, why);
    if (v)
        goto out;
    if (!wh_certs_verify_key_matches(leaf, key)) {
        v = WH_CERTS_KEY_MISMATCH;
        wh_errbuf_set(why, WH_ERR_TLS, "key.pem does not match cert.pem");
        goto out;
    }
    if (wh_certs_pem_certs(b->item[WH_CERTS_CA_CERT].data, b->item[WH_CERTS_CA_CERT].len, false,
                           &anchors) != WH_OK) {
        X509 *first = NULL;
        struct wh_errbuf first_why = {"no CERTIFICATE block"};
        if (wh_certs_pem_first_cert_why(b->item[WH_CERTS_CA_CERT].data,
                                        b->item[WH_CERTS_CA_CERT].len, &first, &first_why) == WH_OK)
            X509_free(first); /* cannot happen: the first block would have been an anchor */
        v = WH_CERTS_GARBAGE;
        wh_errbuf_set(why, WH_ERR_PARSE, "ca-cert.pem: no parsable certificate (%s)",
                      first_why.msg);
        goto out;
    }
    v = wh_certs_verify_chain(leaf, anchors, now, time_add(now, margin_secs), &chain_why);
    if (v == WH_CERTS_EXPIRING) {
        expiring_why(leaf, anchors, now, margin_secs, why);
        goto out;
    }
    if (v) {
        wh_errbuf_set(why, WH_ERR_TLS, "cert.pem against ca-cert.pem: %s", chain_why.msg);
        goto out;
    }
    if (dns_name && !wh_certs_verify_host(leaf, dns_name)) {
        v = WH_CERTS_WRONG_HOST;
        wh_errbuf_set(why, WH_ERR_TLS, "cert.pem: no subject alternative name matches %s",
                      dns_name);
        goto out;
    }
    wh_errbuf_set(why, WH_OK, "valid");
out:
    X509_free(leaf);
    EVP_PKEY_free(key);
    sk_X509_pop_free(anchors, X509_free);
    return v;
}

static int key_type_id(enum wh_certs_key_type t)
{
    return t == WH_CERTS_KEY_ECDSA ? EVP_PKEY_EC : EVP_PKEY_RSA;
}

enum wh_certs_verdict wh_certs_bundle_ca_reusable(const struct wh_certs_bundle *b,
                                                  enum wh_certs_key_type key_type, time_t now,
                                                  struct wh_errbuf *why)
{
    enum wh_certs_verdict v = WH_CERTS_VALID;
    X509 *ca = NULL;
    EVP_PKEY *key = NULL;
    STACK_OF(X509) *anchors = NULL;
    STACK_OF(X509) *all = NULL;
    struct wh_errbuf chain_why;
    const struct blob *cert = &b->item[WH_CERTS_CA_CERT];

    if (!present(b, WH_CERTS_CA_KEY) || !present(b, WH_CERTS_CA_CERT)) {
        v = missing(present(b, WH_CERTS_CA_KEY) ? WH_CERTS_CA_CERT : WH_CERTS_CA_KEY, why);
        goto out;
    }
    v = parse_cert_item(b, WH_CERTS_CA_CERT, &ca, why);
    if (v)
        goto out;
    v = parse_key_item(b, WH_CERTS_CA_KEY, &key, why);
    if (v)
        goto out;
    if (!wh_certs_verify_key_matches(ca, key)) {
        v = WH_CERTS_KEY_MISMATCH;
        wh_errbuf_set(why, WH_ERR_TLS, "ca-key.pem does not match ca-cert.pem");
        goto out;
    }
    if (wh_certs_pem_certs(cert->data, cert->len, false, &anchors) != WH_OK) {
        v = WH_CERTS_GARBAGE;
        wh_errbuf_set(why, WH_ERR_PARSE, "ca-cert.pem: no parsable certificate");
        goto out;
    }
    v = wh_certs_verify_chain(ca, anchors, now, time_add(now, WH_CERTS_CA_REUSE_MIN_SECS),
                              &chain_why);
    if (v) {
        wh_errbuf_set(why, WH_ERR_TLS, "ca-cert.pem (checked one year ahead): %s", chain_why.msg);
        goto out;
    }
    if (EVP_PKEY_get_base_id(key) != key_type_id(key_type)) {
        v = WH_CERTS_UNSUITABLE_CA;
        wh_errbuf_set(why, WH_ERR_INVALID, "ca-key.pem: not an %s key",
                      key_type == WH_CERTS_KEY_ECDSA ? "EC" : "RSA");
        goto out;
    }
    if (wh_certs_pem_certs(cert->data, cert->len, true, &all) != WH_OK || sk_X509_num(all) != 1) {
        v = WH_CERTS_UNSUITABLE_CA;
        wh_errbuf_set(why, WH_ERR_INVALID, "ca-cert.pem: must hold exactly one certificate");
        goto out;
    }
    wh_errbuf_set(why, WH_OK, "reusable");
out:
    X509_free(ca);
    EVP_PKEY_free(key);
    sk_X509_pop_free(anchors, X509_free);
    sk_X509_pop_free(all, X509_free);
    return v;
}

enum wh_err wh_certs_bundle_generate(const struct wh_certs_gen_opts *o,
                                     const struct wh_certs_target *t,
                                     const struct wh_certs_bundle *reuse_ca_from,
                                     struct wh_certs_bundle **out, bool *ca_reused,
                                     struct wh_errbuf *eb)
{
    enum wh_err rc = WH_OK;
    struct wh_certs_keypair ca = {0}, serving = {0};
    struct wh_certs_bundle *b = NULL;
    time_t now = o->now ? o->now : time(NULL);
    bool reused = false;
    char *text = NULL;
    size_t len = 0;

    if (reuse_ca_from &&
        wh_certs_bundle_ca_reusable(reuse_ca_from, o->key_type, now, NULL) == WH_CERTS_VALID) {
        const struct blob *c = &reuse_ca_from->item[WH_CERTS_CA_CERT];
        const struct blob *k = &reuse_ca_from->item[WH_CERTS_CA_KEY];
        /* Cannot fail: ca_reusable has just parsed both. */
        rc = wh_certs_pem_first_cert(c->data, c->len, &ca.cert);
        if (!rc)
            rc = wh_certs_pem_first_key(k->data, k->len, &ca.key);
        if (rc) {
            wh_errbuf_set(eb, rc, "cannot re-read the CA");
            goto out;
        }
        reused = true;
    } else {
        rc = wh_certs_keypair_new_ca(o, &ca, eb);
        if (rc)
            goto out;
    }
    rc = wh_certs_keypair_new_serving(o, t, ca.cert, ca.key, &serving, eb);
    if (rc)
        goto out;

    b = wh_certs_bundle_new();
    rc = wh_certs_pem_encode_key(ca.key, &text, &len);
    if (rc)
        goto encode_failed;
    set_take(b, WH_CERTS_CA_KEY, text, len);
    rc = wh_certs_pem_encode_cert(ca.cert, &text, &len);
    if (rc)
        goto encode_failed;
    set_take(b, WH_CERTS_CA_CERT, text, len);
    rc = wh_certs_pem_encode_key(serving.key, &text, &len);
    if (rc)
        goto encode_failed;
    set_take(b, WH_CERTS_KEY, text, len);
    rc = wh_certs_pem_encode_cert(serving.cert, &text, &len);
    if (rc)
        goto encode_failed;
    set_take(b, WH_CERTS_CERT, text, len);
    /* What the API server cannot read must never be stored: read both back as Go would. */
    for (int i = WH_CERTS_CA_CERT; i <= WH_CERTS_CERT; i++) {
        struct wh_errbuf why;
        X509 *back = NULL;
        if (wh_certs_pem_first_cert_why(b->item[i].data, b->item[i].len, &back, &why) != WH_OK) {
            rc = wh_errbuf_set(eb, WH_ERR_INTERNAL, "generated %s: %s", item_names[i], why.msg);
            goto out;
        }
        X509_free(back);
    }

    *out = b;
    b = NULL;
    if (ca_reused)
        *ca_reused = reused;
    goto out;
encode_failed:
    wh_errbuf_set(eb, rc, "cannot PEM-encode the generated material");
out:
    wh_certs_bundle_free(b);
    wh_certs_keypair_fini(&ca);
    wh_certs_keypair_fini(&serving);
    return rc;
}

/* --- inspect ------------------------------------------------------------------------------ */

static void put(json_t *obj, const char *key, json_t *value)
{
    /* Allocation aborts and keys are literals, so this fails only on a programming error. */
    int r = json_object_set_new(obj, key, value);
    WH_ASSERT(r == 0 && value);
}

static void append(json_t *arr, json_t *value)
{
    int r = json_array_append_new(arr, value);
    WH_ASSERT(r == 0 && value);
}

/* Certificates come from outside: bytes outside printable ASCII are shown as \xNN so the
 * result is always valid UTF-8 (jansson refuses anything else) and safe on a terminal. */
static json_t *json_text(const char *p, size_t n)
{
    char *buf = wh_xmalloc(n * 4 + 1);
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c >= 0x20 && c < 0x7f) {
            buf[o++] = (char)c;
        } else {
            snprintf(buf + o, 5, "\\x%02x", c);
            o += 4;
        }
    }
    buf[o] = '\0';
    json_t *s = json_string(buf);
    free(buf);
    return s;
}

static json_t *name_json(const X509_NAME *name)
{
    json_t *s = NULL;
    char *p = NULL;
    BIO *bio = BIO_new(BIO_s_mem());
    if (bio && X509_NAME_print_ex(bio, name, 0, XN_FLAG_RFC2253) >= 0) {
        long n = BIO_get_mem_data(bio, &p);
        if (n >= 0)
            s = json_text(p ? p : "", (size_t)n);
    }
    BIO_free(bio);
    ERR_clear_error();
    return s ? s : json_string("?");
}

static json_t *time_json(const ASN1_TIME *t)
{
    time_t v = 0;
    char buf[WH_GOTIME_MAX];
    if (wh_certs_verify_asn1_time(t, &v) != WH_OK)
        return json_string("?");
    wh_gotime_format((struct wh_gotime){(int64_t)v, 0}, WH_GOTIME_RFC3339, buf, sizeof(buf));
    return json_string(buf);
}

static json_t *key_desc(EVP_PKEY *key)
{
    char group[64] = "";
    size_t glen = 0;
    char buf[96];
    switch (EVP_PKEY_get_base_id(key)) {
    case EVP_PKEY_RSA:
        snprintf(buf, sizeof(buf), "RSA %d", EVP_PKEY_get_bits(key));
        break;
    case EVP_PKEY_EC:
        if (EVP_PKEY_get_utf8_string_param(key, OSSL_PKEY_PARAM_GROUP_NAME, group, sizeof(group),
                                           &glen) != 1)
            snprintf(group, sizeof(group), "?");
        snprintf(buf, sizeof(buf), "EC %s", group);
        break;
    default:
        snprintf(buf, sizeof(buf), "%s %d", OBJ_nid2sn(EVP_PKEY_get_base_id(key)),
                 EVP_PKEY_get_bits(key));
        break;
    }
    ERR_clear_error();
    return json_string(buf);
}

static json_t *serial_json(X509 *cert, bool hex)
{
    json_t *s = NULL;
    BIGNUM *bn = ASN1_INTEGER_to_BN(X509_get0_serialNumber(cert), NULL);
    char *text = bn ? (hex ? BN_bn2hex(bn) : BN_bn2dec(bn)) : NULL;
    if (text)
        s = json_string(text);
    OPENSSL_free(text);
    BN_free(bn);
    ERR_clear_error();
    return s ? s : json_string("?");
}

static json_t *sans_json(X509 *cert)
{
    json_t *arr = json_array();
    GENERAL_NAMES *gens = X509_get_ext_d2i(cert, NID_subject_alt_name, NULL, NULL);
    for (int i = 0; i < sk_GENERAL_NAME_num(gens); i++) {
        const GENERAL_NAME *g = sk_GENERAL_NAME_value(gens, i);
        char buf[300];
        const ASN1_IA5STRING *text = NULL;
        const char *prefix = NULL;
        if (g->type == GEN_DNS) {
            text = g->d.dNSName;
            prefix = "DNS:";
        } else if (g->type == GEN_URI) {
            text = g->d.uniformResourceIdentifier;
            prefix = "URI:";
        } else if (g->type == GEN_IPADD) {
            char ip[INET6_ADDRSTRLEN] = "?";
            int n = ASN1_STRING_length(g->d.iPAddress);
            const unsigned char *p = ASN1_STRING_get0_data(g->d.iPAddress);
            if (n == 4 || n == 16)
                inet_ntop(n == 4 ? AF_INET : AF_INET6, p, ip, sizeof(ip));
            snprintf(buf, sizeof(buf), "IP:%s", ip);
        } else {
            snprintf(buf, sizeof(buf), "other:%d", g->type);
        }
        if (text) {
            size_t plen = strlen(prefix), n = (size_t)ASN1_STRING_length(text);
            char *joined = wh_xmalloc(plen + n + 1);
            memcpy(joined, prefix, plen);
            memcpy(joined + plen, ASN1_STRING_get0_data(text), n);
            append(arr, json_text(joined, plen + n));
            free(joined);
        } else {
            append(arr, json_string(buf));
        }
    }
    GENERAL_NAMES_free(gens);
    ERR_clear_error();
    return arr;
}

static json_t *key_usage_json(X509 *cert)
{
    static const struct {
        uint32_t bit;
        const char *name;
    } ku[] = {
        {KU_DIGITAL_SIGNATURE, "digitalSignature"},
        {KU_NON_REPUDIATION, "contentCommitment"},
        {KU_KEY_ENCIPHERMENT, "keyEncipherment"},
        {KU_DATA_ENCIPHERMENT, "dataEncipherment"},
        {KU_KEY_AGREEMENT, "keyAgreement"},
        {KU_KEY_CERT_SIGN, "keyCertSign"},
        {KU_CRL_SIGN, "cRLSign"},
    };
    json_t *arr = json_array();
    uint32_t bits = X509_get_key_usage(cert);
    if (bits == UINT32_MAX)
        return arr; /* no extension */
    for (size_t i = 0; i < sizeof(ku) / sizeof(ku[0]); i++) {
        if (bits & ku[i].bit)
            append(arr, json_string(ku[i].name));
    }
    return arr;
}

static json_t *ext_key_usage_json(X509 *cert)
{
    json_t *arr = json_array();
    EXTENDED_KEY_USAGE *eku = X509_get_ext_d2i(cert, NID_ext_key_usage, NULL, NULL);
    for (int i = 0; i < sk_ASN1_OBJECT_num(eku); i++) {
        char buf[80];
        const ASN1_OBJECT *obj = sk_ASN1_OBJECT_value(eku, i);
        int nid = OBJ_obj2nid(obj);
        if (nid == NID_server_auth)
            snprintf(buf, sizeof(buf), "serverAuth");
        else if (nid == NID_client_auth)
            snprintf(buf, sizeof(buf), "clientAuth");
        else if (OBJ_obj2txt(buf, sizeof(buf), obj, 1) <= 0)
            snprintf(buf, sizeof(buf), "?");
        append(arr, json_text(buf, strlen(buf)));
    }
    EXTENDED_KEY_USAGE_free(eku);
    ERR_clear_error();
    return arr;
}

static json_t *fingerprint_json(X509 *cert)
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    char hex[EVP_MAX_MD_SIZE * 3 + 1];
    if (X509_digest(cert, EVP_sha256(), md, &n) != 1) {
        ERR_clear_error();
        return json_string("?");
    }
    for (unsigned int i = 0; i < n; i++)
        snprintf(hex + i * 3, 4, "%02X%s", md[i], i + 1 < n ? ":" : "");
    return json_string(hex);
}

json_t *wh_certs_bundle_describe_cert(X509 *cert, time_t now)
{
    json_t *d = json_object();
    EVP_PKEY *pub = X509_get0_pubkey(cert);
    put(d, "subject", name_json(X509_get_subject_name(cert)));
    put(d, "issuer", name_json(X509_get_issuer_name(cert)));
    put(d, "serial", serial_json(cert, false));
    put(d, "serial_hex", serial_json(cert, true));
    put(d, "not_before", time_json(X509_get0_notBefore(cert)));
    put(d, "not_after", time_json(X509_get0_notAfter(cert)));
    put(d, "secs_left", json_integer(wh_certs_verify_secs_left(cert, now)));
    put(d, "is_ca", json_boolean(X509_check_ca(cert) != 0));
    put(d, "key", pub ? key_desc(pub) : json_string("?"));
    put(d, "key_usage", key_usage_json(cert));
    put(d, "ext_key_usage", ext_key_usage_json(cert));
    put(d, "sans", sans_json(cert));
    put(d, "sha256", fingerprint_json(cert));
    ERR_clear_error();
    return d;
}

static json_t *error_json(const char *msg)
{
    json_t *d = json_object();
    put(d, "error", json_string(msg));
    return d;
}

json_t *wh_certs_bundle_inspect(const struct wh_certs_bundle *b, const char *dns_name, time_t now,
                                int64_t margin_secs)
{
    json_t *r = json_object();
    X509 *ca = NULL, *leaf = NULL;
    EVP_PKEY *ca_key = NULL, *key = NULL;
    STACK_OF(X509) *anchors = NULL;
    struct wh_errbuf why;

    if (!present(b, WH_CERTS_CA_CERT))
        put(r, "ca", error_json("missing"));
    else if (parse_cert_item(b, WH_CERTS_CA_CERT, &ca, &why))
        put(r, "ca", error_json(why.msg));
    else
        put(r, "ca", wh_certs_bundle_describe_cert(ca, now));

    if (!present(b, WH_CERTS_CERT))
        put(r, "serving", error_json("missing"));
    else if (parse_cert_item(b, WH_CERTS_CERT, &leaf, &why))
        put(r, "serving", error_json(why.msg));
    else
        put(r, "serving", wh_certs_bundle_describe_cert(leaf, now));

    if (!present(b, WH_CERTS_CA_KEY)) {
        put(r, "ca_key", error_json("missing"));
    } else if (parse_key_item(b, WH_CERTS_CA_KEY, &ca_key, &why)) {
        put(r, "ca_key", error_json(why.msg));
    } else {
        json_t *k = json_object();
        put(k, "key", key_desc(ca_key));
        put(r, "ca_key", k);
    }
    if (!present(b, WH_CERTS_KEY)) {
        put(r, "serving_key", error_json("missing"));
    } else if (parse_key_item(b, WH_CERTS_KEY, &key, &why)) {
        put(r, "serving_key", error_json(why.msg));
    } else {
        json_t *k = json_object();
        put(k, "key", key_desc(key));
        put(r, "serving_key", k);
    }

    put(r, "pair_matches", json_boolean(leaf && key && wh_certs_verify_key_matches(leaf, key)));
    put(r, "ca_pair_matches",
        json_boolean(ca && ca_key && wh_certs_verify_key_matches(ca, ca_key)));
    bool chains = false;
    if (leaf && present(b, WH_CERTS_CA_CERT) &&
        wh_certs_pem_certs(b->item[WH_CERTS_CA_CERT].data, b->item[WH_CERTS_CA_CERT].len, false,
                           &anchors) == WH_OK) {
        /* "Chains" is asked about now, without the renewal margin. */
        chains = wh_certs_verify_chain(leaf, anchors, now, now, NULL) == WH_CERTS_VALID;
    }
    put(r, "chains", json_boolean(chains));
    if (dns_name) {
        put(r, "host", json_string(dns_name));
        put(r, "valid_for_host", json_boolean(leaf && wh_certs_verify_host(leaf, dns_name)));
    }
    enum wh_certs_verdict v = wh_certs_bundle_validate(b, dns_name, now, margin_secs, &why);
    put(r, "verdict", json_string(wh_certs_verdict_str(v)));
    put(r, "reason", json_string(why.msg));
    put(r, "renew_before_secs", json_integer(margin_secs));
    enum wh_certs_key_type kt = WH_CERTS_KEY_RSA;
    if (ca_key && EVP_PKEY_get_base_id(ca_key) == EVP_PKEY_EC)
        kt = WH_CERTS_KEY_ECDSA;
    put(r, "ca_reusable",
        json_boolean(wh_certs_bundle_ca_reusable(b, kt, now, NULL) == WH_CERTS_VALID));

    X509_free(ca);
    X509_free(leaf);
    EVP_PKEY_free(ca_key);
    EVP_PKEY_free(key);
    sk_X509_pop_free(anchors, X509_free);
    ERR_clear_error();
    return r;
}
