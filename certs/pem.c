#include "certs/pem.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>

#include "certs/der.h"
#include "util/mem.h"

/* Called for each PEM block in order; returns true to stop the walk. */
typedef bool (*block_fn)(const char *type, const unsigned char *der, long len, void *ctx);

/* Walks the PEM blocks of pem. OpenSSL's reader skips text between blocks, as Go's
 * pem.Decode does; a malformed block ends the walk (everything after it is ignored). */
static enum wh_err each_block(const void *pem, size_t len, block_fn fn, void *ctx)
{
    if (len > WH_CERTS_PEM_MAX)
        return WH_ERR_TOO_BIG;
    if (!pem || len == 0)
        return WH_OK;
    BIO *bio = BIO_new_mem_buf(pem, (int)len);
    if (!bio)
        return WH_ERR_NOMEM;
    for (;;) {
        char *type = NULL, *header = NULL;
        unsigned char *der = NULL;
        long der_len = 0;
        if (PEM_read_bio(bio, &type, &header, &der, &der_len) != 1)
            break;
        bool stop = fn(type, der, der_len, ctx);
        OPENSSL_free(type);
        OPENSSL_free(header);
        OPENSSL_clear_free(der, (size_t)der_len);
        if (stop)
            break;
    }
    BIO_free(bio);
    /* End of input is reported as an error too; nothing in the queue is meaningful. */
    ERR_clear_error();
    return WH_OK;
}

struct first_cert_ctx {
    X509 *cert;
    bool seen;
    struct wh_errbuf *why;
};

/* A certificate as Go's x509.ParseCertificate reads it: OpenSSL also takes encodings that
 * are not DER (and ignores trailing bytes), which the API server would then refuse. */
static X509 *parse_cert_der(const unsigned char *der, long len, struct wh_errbuf *why)
{
    struct wh_errbuf der_why;
    if (len <= 0 || wh_certs_der_check_cert(der, (size_t)len, &der_why) != WH_OK) {
        wh_errbuf_set(why, WH_ERR_PARSE,
                      "not DER, which Go's crypto/x509 (the API server) "
                      "refuses: %s",
                      len <= 0 ? "empty" : der_why.msg);
        return NULL;
    }
    const unsigned char *p = der;
    X509 *cert = d2i_X509(NULL, &p, len);
    if (!cert)
        wh_errbuf_set(why, WH_ERR_PARSE, "not an X.509 certificate");
    ERR_clear_error();
    return cert;
}

static bool first_cert_cb(const char *type, const unsigned char *der, long len, void *vctx)
{
    struct first_cert_ctx *ctx = vctx;
    if (strcmp(type, "CERTIFICATE") != 0)
        return false;
    ctx->seen = true;
    ctx->cert = parse_cert_der(der, len, ctx->why);
    return true;
}

enum wh_err wh_certs_pem_first_cert_why(const void *pem, size_t len, X509 **out,
                                        struct wh_errbuf *why)
{
    struct first_cert_ctx ctx = {.why = why};
    enum wh_err rc = each_block(pem, len, first_cert_cb, &ctx);
    if (rc)
        return wh_errbuf_set(why, rc, "%s", wh_strerror(rc));
    if (!ctx.seen)
        return wh_errbuf_set(why, WH_ERR_NOT_FOUND, "no CERTIFICATE block");
    if (!ctx.cert)
        return WH_ERR_PARSE;
    *out = ctx.cert;
    return WH_OK;
}

enum wh_err wh_certs_pem_first_cert(const void *pem, size_t len, X509 **out)
{
    return wh_certs_pem_first_cert_why(pem, len, out, NULL);
}

struct certs_ctx {
    STACK_OF(X509) * certs;
    bool strict;
    bool bad;
};

static bool certs_cb(const char *type, const unsigned char *der, long len, void *vctx)
{
    struct certs_ctx *ctx = vctx;
    if (strcmp(type, "CERTIFICATE") != 0)
        return false;
    X509 *cert = parse_cert_der(der, len, NULL);
    if (!cert) {
        ctx->bad = true;
        return ctx->strict;
    }
    if (!sk_X509_push(ctx->certs, cert)) {
        X509_free(cert);
        ctx->bad = true;
        return true;
    }
    return false;
}

enum wh_err wh_certs_pem_certs(const void *pem, size_t len, bool strict, STACK_OF(X509) * *out)
{
    struct certs_ctx ctx = {.certs = sk_X509_new_null(), .strict = strict};
    if (!ctx.certs)
        return WH_ERR_NOMEM;
    enum wh_err rc = each_block(pem, len, certs_cb, &ctx);
    if (rc)
        goto out;
    if (strict && ctx.bad) {
        rc = WH_ERR_PARSE;
        goto out;
    }
    if (sk_X509_num(ctx.certs) == 0) {
        rc = WH_ERR_NOT_FOUND;
        goto out;
    }
    *out = ctx.certs;
    ctx.certs = NULL;
out:
    sk_X509_pop_free(ctx.certs, X509_free);
    return rc;
}

/* Go tries PKCS#1, then PKCS#8, then SEC1 regardless of the block type; so do we. */
static EVP_PKEY *parse_key_der(const unsigned char *der, long len)
{
    const unsigned char *p = der;
    EVP_PKEY *key = d2i_PrivateKey(EVP_PKEY_RSA, NULL, &p, len);
    if (key)
        return key;
    p = der;
    PKCS8_PRIV_KEY_INFO *p8 = d2i_PKCS8_PRIV_KEY_INFO(NULL, &p, len);
    if (p8) {
        key = EVP_PKCS82PKEY(p8);
        PKCS8_PRIV_KEY_INFO_free(p8);
        if (key)
            return key;
    }
    p = der;
    return d2i_PrivateKey(EVP_PKEY_EC, NULL, &p, len);
}

struct first_key_ctx {
    EVP_PKEY *key;
    bool seen;
};

static bool is_key_type(const char *type)
{
    static const char suffix[] = " PRIVATE KEY";
    size_t n = strlen(type), sn = sizeof(suffix) - 1;
    if (strcmp(type, "PRIVATE KEY") == 0)
        return true;
    return n > sn && memcmp(type + n - sn, suffix, sn) == 0;
}

static bool first_key_cb(const char *type, const unsigned char *der, long len, void *vctx)
{
    struct first_key_ctx *ctx = vctx;
    if (!is_key_type(type))
        return false;
    ctx->seen = true;
    ctx->key = parse_key_der(der, len);
    return true;
}

enum wh_err wh_certs_pem_first_key(const void *pem, size_t len, EVP_PKEY **out)
{
    struct first_key_ctx ctx = {0};
    enum wh_err rc = each_block(pem, len, first_key_cb, &ctx);
    ERR_clear_error();
    if (rc)
        return rc;
    if (!ctx.seen)
        return WH_ERR_NOT_FOUND;
    if (!ctx.key)
        return WH_ERR_PARSE;
    *out = ctx.key;
    return WH_OK;
}

static enum wh_err bio_take(BIO *bio, char **out, size_t *len)
{
    char *p = NULL;
    long n = BIO_get_mem_data(bio, &p);
    if (n <= 0 || !p)
        return WH_ERR_INTERNAL;
    char *s = wh_xmalloc((size_t)n + 1);
    memcpy(s, p, (size_t)n);
    s[n] = '\0';
    *out = s;
    *len = (size_t)n;
    return WH_OK;
}

enum wh_err wh_certs_pem_encode_cert(X509 *cert, char **out, size_t *len)
{
    enum wh_err rc = WH_OK;
    BIO *bio = BIO_new(BIO_s_mem());
    if (!bio)
        return WH_ERR_NOMEM;
    if (PEM_write_bio_X509(bio, cert) != 1) {
        rc = WH_ERR_TLS;
        goto out;
    }
    rc = bio_take(bio, out, len);
out:
    BIO_free(bio);
    ERR_clear_error();
    return rc;
}

enum wh_err wh_certs_pem_encode_key(EVP_PKEY *key, char **out, size_t *len)
{
    enum wh_err rc = WH_OK;
    int id = EVP_PKEY_get_base_id(key);
    if (id != EVP_PKEY_RSA && id != EVP_PKEY_EC)
        return WH_ERR_INVALID;
    /* The secure-memory BIO wipes its buffer when freed. */
    BIO *bio = BIO_new(BIO_s_secmem());
    if (!bio)
        return WH_ERR_NOMEM;
    /* "Traditional" is the type-specific structure: PKCS#1 for RSA (CERT-23), SEC1 for EC. */
    if (PEM_write_bio_PrivateKey_traditional(bio, key, NULL, NULL, 0, NULL, NULL) != 1) {
        rc = WH_ERR_TLS;
        goto out;
    }
    rc = bio_take(bio, out, len);
out:
    BIO_free(bio);
    ERR_clear_error();
    return rc;
}

enum wh_err wh_certs_pem_read_file(const char *path, size_t cap, char **out, size_t *len,
                                   struct wh_errbuf *eb)
{
    enum wh_err rc = WH_OK;
    char *buf = NULL;
    /* O_NONBLOCK: a FIFO planted under a certificate name must not hang the reader. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        if (errno == ENOENT)
            return wh_errbuf_set(eb, WH_ERR_NOT_FOUND, "%s: not found", path);
        return wh_errbuf_set(eb, WH_ERR_IO, "%s: %s", path, strerror(errno));
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        rc = wh_errbuf_set(eb, WH_ERR_IO, "%s: not a regular file", path);
        goto out;
    }
    if ((unsigned long long)st.st_size > cap) {
        rc = wh_errbuf_set(eb, WH_ERR_TOO_BIG, "%s: larger than %zu bytes", path, cap);
        goto out;
    }
    size_t want = (size_t)st.st_size, got = 0;
    buf = wh_xmalloc(want + 1);
    while (got < want) {
        ssize_t n = read(fd, buf + got, want - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            rc = wh_errbuf_set(eb, WH_ERR_IO, "%s: %s", path, strerror(errno));
            goto out;
        }
        if (n == 0)
            break; /* shrank while reading: keep what is there */
        got += (size_t)n;
    }
    buf[got] = '\0';
    *out = buf;
    *len = got;
    buf = NULL;
out:
    if (buf) {
        OPENSSL_cleanse(buf, (size_t)st.st_size);
        free(buf);
    }
    close(fd);
    return rc;
}
