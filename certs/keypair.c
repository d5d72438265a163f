#include "certs/keypair.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/err.h>
#include <openssl/rand.h>
#include <openssl/x509v3.h>

#include "util/mem.h"
#include "util/str.h"

/* RFC 1035 limit on a whole DNS name; longer names cannot be resolved anyway. */
#define MAX_DNS_NAME 253
#define MAX_SANS WH_CERTS_MAX_SANS

void wh_certs_gen_opts_init(struct wh_certs_gen_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->key_type = WH_CERTS_KEY_RSA;
    o->validity_secs = WH_CERTS_VALIDITY_SECS;
    o->backdate_secs = WH_CERTS_BACKDATE_SECS;
}

static bool empty(const char *s)
{
    return !s || !*s;
}

char *wh_certs_target_dns_name(const struct wh_certs_target *t)
{
    if (!empty(t->host))
        return wh_xstrdup(t->host);
    if (empty(t->service) || empty(t->namespace))
        return NULL;
    return wh_str_printf("%s.%s.svc", t->service, t->namespace);
}

void wh_certs_keypair_fini(struct wh_certs_keypair *kp)
{
    X509_free(kp->cert);
    EVP_PKEY_free(kp->key);
    kp->cert = NULL;
    kp->key = NULL;
}

enum wh_err wh_certs_keypair_new_key(enum wh_certs_key_type type, EVP_PKEY **out)
{
    EVP_PKEY *key;
    if (type == WH_CERTS_KEY_ECDSA)
        key = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
    else
        key = EVP_PKEY_Q_keygen(NULL, NULL, "RSA", (size_t)2048);
    if (!key) {
        ERR_clear_error();
        return WH_ERR_TLS;
    }
    *out = key;
    return WH_OK;
}

size_t wh_certs_keypair_parse_ip(const char *s, unsigned char out[16])
{
    static const unsigned char v4_mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    char tmp[64];
    size_t n = strlen(s);
    if (n >= 2 && s[0] == '[' && s[n - 1] == ']') {
        if (n - 2 >= sizeof(tmp))
            return 0;
        memcpy(tmp, s + 1, n - 2);
        tmp[n - 2] = '\0';
        s = tmp;
    }
    if (inet_pton(AF_INET, s, out) == 1)
        return 4;
    if (inet_pton(AF_INET6, s, out) != 1)
        return 0;
    if (memcmp(out, v4_mapped, sizeof(v4_mapped)) == 0) {
        memmove(out, out + 12, 4);
        return 4;
    }
    return 16;
}

/* Go encodes a name attribute as PrintableString when every byte allows it (asterisk
 * included), else as UTF8String; doing the same keeps subjects byte-comparable. */
static bool go_printable(const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
            continue;
        if (!strchr(" '()+,-./:=?*", c))
            return false;
    }
    return true;
}

/* Sets subject CN=cn. The ASN.1 type is given directly rather than through MBSTRING so
 * that OpenSSL does not apply the 64-character upper bound on commonName: Go does not
 * apply it either, and "<svc>.<ns>.svc" can exceed it. */
static enum wh_err set_subject(X509 *x, const char *cn)
{
    X509_NAME *name = X509_get_subject_name(x);
    int type = go_printable(cn) ? V_ASN1_PRINTABLESTRING : V_ASN1_UTF8STRING;
    if (X509_NAME_add_entry_by_NID(name, NID_commonName, type, (const unsigned char *)cn, -1, -1,
                                   0) != 1)
        return WH_ERR_TLS;
    return WH_OK;
}

/* Random serial in [1, 2^63 - 2] (see the header). */
static enum wh_err set_serial(X509 *x)
{
    uint64_t v = 0;
    while (v == 0 || v == INT64_MAX) {
        if (RAND_bytes((unsigned char *)&v, sizeof(v)) != 1)
            return WH_ERR_TLS;
        v &= INT64_MAX;
    }
    if (ASN1_INTEGER_set_uint64(X509_get_serialNumber(x), v) != 1)
        return WH_ERR_TLS;
    return WH_OK;
}

static enum wh_err set_validity(X509 *x, const struct wh_certs_gen_opts *o, time_t now,
                                const ASN1_TIME *not_before)
{
    if (not_before) {
        if (X509_set1_notBefore(x, not_before) != 1)
            return WH_ERR_TLS;
    } else if (!X509_time_adj_ex(X509_getm_notBefore(x), 0, -(long)o->backdate_secs, &now)) {
        return WH_ERR_TLS;
    }
    int days = (int)(o->validity_secs / 86400);
    long secs = (long)(o->validity_secs % 86400);
    if (!X509_time_adj_ex(X509_getm_notAfter(x), days, secs, &now))
        return WH_ERR_TLS;
    return WH_OK;
}

static enum wh_err add_key_usage(X509 *x, const int *bits, size_t n)
{
    enum wh_err rc = WH_OK;
    ASN1_BIT_STRING *ku = ASN1_BIT_STRING_new();
    if (!ku)
        return WH_ERR_NOMEM;
    for (size_t i = 0; i < n; i++) {
        if (ASN1_BIT_STRING_set_bit(ku, bits[i], 1) != 1) {
            rc = WH_ERR_TLS;
            goto out;
        }
    }
    if (X509_add1_ext_i2d(x, NID_key_usage, ku, 1, X509V3_ADD_DEFAULT) != 1)
        rc = WH_ERR_TLS;
out:
    ASN1_BIT_STRING_free(ku);
    return rc;
}

/* Key usage bit numbers (RFC 5280 4.2.1.3). */
enum { BIT_DIGITAL_SIGNATURE = 0, BIT_KEY_ENCIPHERMENT = 2, BIT_KEY_CERT_SIGN = 5 };

static enum wh_err add_basic_constraints_ca(X509 *x)
{
    enum wh_err rc = WH_OK;
    BASIC_CONSTRAINTS *bc = BASIC_CONSTRAINTS_new();
    if (!bc)
        return WH_ERR_NOMEM;
    /* OpenSSL writes an ASN1_BOOLEAN's int as the content byte: DER (and Go's crypto/x509,
     * hence the API server) accepts only 0xFF for TRUE. */
    bc->ca = 0xFF;
    if (X509_add1_ext_i2d(x, NID_basic_constraints, bc, 1, X509V3_ADD_DEFAULT) != 1)
        rc = WH_ERR_TLS;
    BASIC_CONSTRAINTS_free(bc);
    return rc;
}

/* RFC 5280 4.2.1.2 method (1), which is what Go uses: SHA-1 of the subjectPublicKey bits. */
static enum wh_err add_subject_key_id(X509 *x)
{
    enum wh_err rc = WH_OK;
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int md_len = 0;
    ASN1_OCTET_STRING *ski = NULL;
    if (X509_pubkey_digest(x, EVP_sha1(), md, &md_len) != 1)
        return WH_ERR_TLS;
    ski = ASN1_OCTET_STRING_new();
    if (!ski)
        return WH_ERR_NOMEM;
    if (ASN1_OCTET_STRING_set(ski, md, (int)md_len) != 1 ||
        X509_add1_ext_i2d(x, NID_subject_key_identifier, ski, 0, X509V3_ADD_DEFAULT) != 1)
        rc = WH_ERR_TLS;
    ASN1_OCTET_STRING_free(ski);
    return rc;
}

static enum wh_err add_authority_key_id(X509 *x, X509 *ca)
{
    enum wh_err rc = WH_OK;
    const ASN1_OCTET_STRING *ca_ski = X509_get0_subject_key_id(ca);
    if (!ca_ski)
        return WH_OK; /* Go copies the parent's SKI only when there is one */
    AUTHORITY_KEYID *akid = AUTHORITY_KEYID_new();
    if (!akid)
        return WH_ERR_NOMEM;
    akid->keyid = ASN1_OCTET_STRING_dup(ca_ski);
    if (!akid->keyid ||
        X509_add1_ext_i2d(x, NID_authority_key_identifier, akid, 0, X509V3_ADD_DEFAULT) != 1)
        rc = WH_ERR_TLS;
    AUTHORITY_KEYID_free(akid);
    return rc;
}

static enum wh_err add_eku_server_auth(X509 *x)
{
    enum wh_err rc = WH_OK;
    EXTENDED_KEY_USAGE *eku = sk_ASN1_OBJECT_new_null();
    if (!eku)
        return WH_ERR_NOMEM;
    if (!sk_ASN1_OBJECT_push(eku, OBJ_nid2obj(NID_server_auth)) ||
        X509_add1_ext_i2d(x, NID_ext_key_usage, eku, 0, X509V3_ADD_DEFAULT) != 1)
        rc = WH_ERR_TLS;
    sk_ASN1_OBJECT_free(eku); /* the object is OpenSSL's static one */
    return rc;
}

/* The SAN list being built: DNS names or IP addresses, in order, without duplicates. */
struct san {
    int type; /* GEN_DNS or GEN_IPADD */
    unsigned char bytes[MAX_DNS_NAME + 1];
    size_t len;
};

struct san_list {
    struct san item[MAX_SANS];
    size_t n;
};

static bool dns_name_ok(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > MAX_DNS_NAME)
        return false;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '-' || c == '.' || c == '_' || c == '*';
        if (!ok)
            return false;
    }
    return true;
}

static void san_add(struct san_list *l, int type, const void *bytes, size_t len)
{
    for (size_t i = 0; i < l->n; i++) {
        if (l->item[i].type == type && l->item[i].len == len &&
            memcmp(l->item[i].bytes, bytes, len) == 0)
            return;
    }
    WH_ASSERT(l->n < MAX_SANS && len <= MAX_DNS_NAME);
    struct san *s = &l->item[l->n++];
    s->type = type;
    memcpy(s->bytes, bytes, len);
    s->len = len;
}

static enum wh_err san_add_dns(struct san_list *l, const char *name, struct wh_errbuf *eb)
{
    if (!dns_name_ok(name))
        return wh_errbuf_set(eb, WH_ERR_INVALID, "\"%s\" cannot be a DNS name", name);
    san_add(l, GEN_DNS, name, strlen(name));
    return WH_OK;
}

static enum wh_err san_add_ip(struct san_list *l, const char *ip)
{
    unsigned char addr[16];
    size_t n = wh_certs_keypair_parse_ip(ip, addr);
    WH_ASSERT(n != 0);
    san_add(l, GEN_IPADD, addr, n);
    return WH_OK;
}

static enum wh_err build_sans(const struct wh_certs_target *t, const char *dns_name,
                              bool upstream_only, struct san_list *l, struct wh_errbuf *eb)
{
    enum wh_err rc = WH_OK;
    char *extra = NULL;
    unsigned char addr[16];
    san_add(l, GEN_DNS, "localhost", strlen("localhost"));
    if (wh_certs_keypair_parse_ip(dns_name, addr) != 0)
        return san_add_ip(l, dns_name);
    rc = san_add_dns(l, dns_name, eb);
    if (rc || upstream_only)
        return rc;
    if (!empty(t->host)) {
        if (strcmp(t->host, "localhost") == 0) {
            rc = san_add_ip(l, "127.0.0.1");
            if (!rc)
                rc = san_add_ip(l, "::1");
        }
        return rc;
    }
    rc = san_add_dns(l, t->service, eb);
    if (rc)
        goto out;
    extra = wh_str_printf("%s.%s", t->service, t->namespace);
    rc = san_add_dns(l, extra, eb);
    if (rc)
        goto out;
    free(extra);
    extra = wh_str_printf("%s.%s.svc.cluster.local", t->service, t->namespace);
    rc = san_add_dns(l, extra, eb);
out:
    free(extra);
    return rc;
}

/* The SANs of another holder's certificate, after ours, while there is room: enough for
 * the handful a Service-named certificate has; a longer list is cut, never refused. */
static void keep_sans_of(struct san_list *l, X509 *other)
{
    GENERAL_NAMES *gens = X509_get_ext_d2i(other, NID_subject_alt_name, NULL, NULL);
    for (int i = 0; gens && i < sk_GENERAL_NAME_num(gens) && l->n < MAX_SANS; i++) {
        const GENERAL_NAME *g = sk_GENERAL_NAME_value(gens, i);
        int type = 0;
        const ASN1_STRING *v = GENERAL_NAME_get0_value(g, &type);
        const unsigned char *bytes = ASN1_STRING_get0_data(v);
        size_t len = (size_t)ASN1_STRING_length(v);
        char name[MAX_DNS_NAME + 1];
        if (type == GEN_DNS && len <= MAX_DNS_NAME) {
            memcpy(name, bytes, len);
            name[len] = '\0';
            if (strlen(name) == len && dns_name_ok(name))
                san_add(l, GEN_DNS, name, len);
        } else if (type == GEN_IPADD && (len == 4 || len == 16)) {
            san_add(l, GEN_IPADD, bytes, len);
        }
    }
    GENERAL_NAMES_free(gens);
}

static enum wh_err add_sans(X509 *x, const struct san_list *l)
{
    enum wh_err rc = WH_OK;
    GENERAL_NAMES *gens = sk_GENERAL_NAME_new_null();
    if (!gens)
        return WH_ERR_NOMEM;
    for (size_t i = 0; i < l->n; i++) {
        GENERAL_NAME *g = GENERAL_NAME_new();
        ASN1_STRING *v =
            l->item[i].type == GEN_DNS ? ASN1_IA5STRING_new() : ASN1_OCTET_STRING_new();
        if (!g || !v || ASN1_STRING_set(v, l->item[i].bytes, (int)l->item[i].len) != 1) {
            GENERAL_NAME_free(g);
            ASN1_STRING_free(v);
            rc = WH_ERR_NOMEM;
            goto out;
        }
        GENERAL_NAME_set0_value(g, l->item[i].type, v);
        if (!sk_GENERAL_NAME_push(gens, g)) {
            GENERAL_NAME_free(g);
            rc = WH_ERR_NOMEM;
            goto out;
        }
    }
    if (X509_add1_ext_i2d(x, NID_subject_alt_name, gens, 0, X509V3_ADD_DEFAULT) != 1)
        rc = WH_ERR_TLS;
out:
    GENERAL_NAMES_free(gens);
    return rc;
}

static time_t opts_now(const struct wh_certs_gen_opts *o)
{
    return o->now ? o->now : time(NULL);
}

static enum wh_err check_opts(const struct wh_certs_gen_opts *o, struct wh_errbuf *eb)
{
    if (o->validity_secs <= 0 || o->validity_secs > (int64_t)100 * 365 * 86400)
        return wh_errbuf_set(eb, WH_ERR_INVALID, "validity must be between 1 s and 100 years");
    if (o->backdate_secs < 0 || o->backdate_secs > (int64_t)365 * 86400)
        return wh_errbuf_set(eb, WH_ERR_INVALID, "backdating must be between 0 and 1 year");
    return WH_OK;
}

enum wh_err wh_certs_keypair_new_ca(const struct wh_certs_gen_opts *o, struct wh_certs_keypair *out,
                                    struct wh_errbuf *eb)
{
    static const int rsa_ku[] = {BIT_DIGITAL_SIGNATURE, BIT_KEY_ENCIPHERMENT, BIT_KEY_CERT_SIGN};
    static const int ec_ku[] = {BIT_DIGITAL_SIGNATURE, BIT_KEY_CERT_SIGN};
    enum wh_err rc = check_opts(o, eb);
    struct wh_certs_keypair kp = {0};
    struct san_list sans = {0};
    time_t now = opts_now(o);
    if (rc)
        return rc;

    rc = wh_certs_keypair_new_key(o->key_type, &kp.key);
    if (rc) {
        wh_errbuf_set(eb, rc, "cannot generate the CA private key");
        goto out;
    }
    kp.cert = X509_new();
    if (!kp.cert) {
        rc = WH_ERR_NOMEM;
        goto out;
    }
    rc = WH_ERR_TLS;
    if (X509_set_version(kp.cert, X509_VERSION_3) != 1 || X509_set_pubkey(kp.cert, kp.key) != 1)
        goto fail;
    if (set_serial(kp.cert) || set_subject(kp.cert, WH_CERTS_CA_CN) ||
        X509_set_issuer_name(kp.cert, X509_get_subject_name(kp.cert)) != 1 ||
        set_validity(kp.cert, o, now, NULL))
        goto fail;
    /* Extension order follows Go's CreateCertificate, so dumps line up with upstream's. */
    if (o->key_type == WH_CERTS_KEY_ECDSA)
        rc = add_key_usage(kp.cert, ec_ku, sizeof(ec_ku) / sizeof(ec_ku[0]));
    else
        rc = add_key_usage(kp.cert, rsa_ku, sizeof(rsa_ku) / sizeof(rsa_ku[0]));
    if (rc)
        goto fail;
    san_add(&sans, GEN_DNS, WH_CERTS_CA_CN, strlen(WH_CERTS_CA_CN));
    rc = add_basic_constraints_ca(kp.cert);
    if (!rc)
        rc = add_subject_key_id(kp.cert);
    if (!rc)
        rc = add_sans(kp.cert, &sans);
    if (rc)
        goto fail;
    if (X509_sign(kp.cert, kp.key, EVP_sha256()) <= 0) {
        rc = WH_ERR_TLS;
        goto fail;
    }
    *out = kp;
    kp.cert = NULL;
    kp.key = NULL;
    goto out;
fail:
    wh_errbuf_set(eb, rc, "cannot build the CA certificate");
out:
    wh_certs_keypair_fini(&kp);
    ERR_clear_error();
    return rc;
}

enum wh_err wh_certs_keypair_new_serving(const struct wh_certs_gen_opts *o,
                                         const struct wh_certs_target *t, X509 *ca_cert,
                                         EVP_PKEY *ca_key, struct wh_certs_keypair *out,
                                         struct wh_errbuf *eb)
{
    static const int rsa_ku[] = {BIT_DIGITAL_SIGNATURE, BIT_KEY_ENCIPHERMENT};
    static const int ec_ku[] = {BIT_DIGITAL_SIGNATURE};
    enum wh_err rc = check_opts(o, eb);
    struct wh_certs_keypair kp = {0};
    struct san_list sans = {0};
    char *dns_name = NULL;
    time_t now = opts_now(o);
    if (rc)
        return rc;

    dns_name = wh_certs_target_dns_name(t);
    if (!dns_name)
        return wh_errbuf_set(eb, WH_ERR_INVALID, "no host, or no service and namespace");
    rc = build_sans(t, dns_name, o->upstream_sans, &sans, eb);
    if (rc)
        goto out;
    if (o->also_names_of)
        keep_sans_of(&sans, o->also_names_of);
    rc = wh_certs_keypair_new_key(o->key_type, &kp.key);
    if (rc) {
        wh_errbuf_set(eb, rc, "cannot generate the serving private key");
        goto out;
    }
    kp.cert = X509_new();
    if (!kp.cert) {
        rc = WH_ERR_NOMEM;
        goto out;
    }
    rc = WH_ERR_TLS;
    if (X509_set_version(kp.cert, X509_VERSION_3) != 1 || X509_set_pubkey(kp.cert, kp.key) != 1)
        goto fail;
    if (set_serial(kp.cert) || set_subject(kp.cert, dns_name) ||
        X509_set_issuer_name(kp.cert, X509_get_subject_name(ca_cert)) != 1 ||
        set_validity(kp.cert, o, now, X509_get0_notBefore(ca_cert)))
        goto fail;
    if (o->key_type == WH_CERTS_KEY_ECDSA)
        rc = add_key_usage(kp.cert, ec_ku, sizeof(ec_ku) / sizeof(ec_ku[0]));
    else
        rc = add_key_usage(kp.cert, rsa_ku, sizeof(rsa_ku) / sizeof(rsa_ku[0]));
    if (!rc)
        rc = add_eku_server_auth(kp.cert);
    if (!rc)
        rc = add_authority_key_id(kp.cert, ca_cert);
    if (!rc)
        rc = add_sans(kp.cert, &sans);
    if (rc)
        goto fail;
    if (X509_sign(kp.cert, ca_key, EVP_sha256()) <= 0) {
        rc = WH_ERR_TLS;
        goto fail;
    }
    *out = kp;
    kp.cert = NULL;
    kp.key = NULL;
    goto out;
fail:
    wh_errbuf_set(eb, rc, "cannot build the serving certificate for %s", dns_name);
out:
    free(dns_name);
    wh_certs_keypair_fini(&kp);
    ERR_clear_error();
    return rc;
}
