#include "test/support/tls_fixture.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/bio.h>
#include <openssl/pem.h>

#include "certs/fs_store.h"
#include "certs/keypair.h"
#include "certs/pem.h"
#include "util/mem.h"

bool wh_tls_fixture_tmpdir(char *buf, size_t size)
{
    const char *base = getenv("TMPDIR");
    int n = snprintf(buf, size, "%s/wh-certs-XXXXXX", base && *base ? base : "/tmp");
    if (n < 0 || (size_t)n >= size)
        return false;
    return mkdtemp(buf) != NULL;
}

void wh_tls_fixture_rmtree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return;
    if (!S_ISDIR(st.st_mode)) {
        unlink(path);
        return;
    }
    DIR *d = opendir(path);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            char child[1024];
            int n = snprintf(child, sizeof(child), "%s/%s", path, e->d_name);
            if (n > 0 && (size_t)n < sizeof(child))
                wh_tls_fixture_rmtree(child);
        }
        closedir(d);
    }
    rmdir(path);
}

enum wh_err wh_tls_fixture_init(struct wh_tls_fixture *f, bool rsa, struct wh_errbuf *eb)
{
    enum wh_err rc = WH_OK;
    struct wh_certs_gen_opts o;
    struct wh_certs_target t = {.host = "localhost"};

    memset(f, 0, sizeof(*f));
    if (!wh_tls_fixture_tmpdir(f->dir, sizeof(f->dir)))
        return wh_errbuf_set(eb, WH_ERR_IO, "cannot create a temporary directory");
    snprintf(f->ca_file, sizeof(f->ca_file), "%s/%s", f->dir, WH_CERTS_FILE_CA_CERT);
    snprintf(f->cert_file, sizeof(f->cert_file), "%s/%s", f->dir, WH_CERTS_FILE_TLS_CRT);
    snprintf(f->key_file, sizeof(f->key_file), "%s/%s", f->dir, WH_CERTS_FILE_TLS_KEY);
    wh_certs_gen_opts_init(&o);
    o.key_type = rsa ? WH_CERTS_KEY_RSA : WH_CERTS_KEY_ECDSA;
    rc = wh_certs_bundle_generate(&o, &t, NULL, &f->bundle, NULL, eb);
    if (!rc)
        rc = wh_certs_fs_write(f->dir, f->bundle, NULL, eb);
    if (rc)
        wh_tls_fixture_fini(f);
    return rc;
}

void wh_tls_fixture_fini(struct wh_tls_fixture *f)
{
    if (f->dir[0])
        wh_tls_fixture_rmtree(f->dir);
    wh_certs_bundle_free(f->bundle);
    memset(f, 0, sizeof(*f));
}

struct wh_certs_bundle *wh_tls_fixture_non_der_ca(const struct wh_certs_bundle *b)
{
    /* extnValue of basicConstraints with cA TRUE: SEQUENCE { BOOLEAN 0xff } */
    static const unsigned char bc_true[] = {0x30, 0x03, 0x01, 0x01, 0xff};
    size_t len = 0;
    const char *pem = wh_certs_bundle_get(b, WH_CERTS_CA_CERT, &len);
    X509 *ca = NULL;
    WH_ASSERT(wh_certs_pem_first_cert(pem, len, &ca) == WH_OK);
    unsigned char *der = NULL;
    int n = i2d_X509(ca, &der);
    WH_ASSERT(n > 0);
    bool patched = false;
    for (int i = 0; i + (int)sizeof(bc_true) <= n && !patched; i++) {
        if (memcmp(der + i, bc_true, sizeof(bc_true)) == 0) {
            der[i + 4] = 0x01;
            patched = true;
        }
    }
    WH_ASSERT(patched);
    BIO *bio = BIO_new(BIO_s_mem());
    WH_ASSERT(bio && PEM_write_bio(bio, "CERTIFICATE", "", der, n) > 0);
    char *text = NULL;
    long tlen = BIO_get_mem_data(bio, &text);
    struct wh_certs_bundle *out = wh_certs_bundle_dup(b);
    WH_ASSERT(tlen > 0 && wh_certs_bundle_set(out, WH_CERTS_CA_CERT, text, (size_t)tlen) == WH_OK);
    BIO_free(bio);
    OPENSSL_free(der);
    X509_free(ca);
    return out;
}
