#include "test/support/tls_fixture.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "certs/fs_store.h"
#include "certs/keypair.h"

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
