#include "certs/fs_store.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "certs/atomic_dir.h"
#include "certs/pem.h"
#include "log/log.h"
#include "util/mem.h"
#include "util/str.h"

static const char *const all_names[] = {
    WH_CERTS_FILE_CA_KEY,  WH_CERTS_FILE_CA_CERT, WH_CERTS_FILE_CERT,
    WH_CERTS_FILE_TLS_CRT, WH_CERTS_FILE_KEY,     WH_CERTS_FILE_TLS_KEY,
};
#define N_NAMES (sizeof(all_names) / sizeof(all_names[0]))

enum wh_err wh_certs_fs_exists(const char *dir, bool *all_present, struct wh_errbuf *eb)
{
    *all_present = true;
    for (size_t i = 0; i < N_NAMES; i++) {
        struct stat st;
        char *path = wh_str_printf("%s/%s", dir, all_names[i]);
        int r = stat(path, &st);
        int err = errno;
        free(path);
        if (r == 0)
            continue;
        if (err == ENOENT || err == ENOTDIR) {
            *all_present = false;
            return WH_OK;
        }
        return wh_errbuf_set(eb, WH_ERR_IO, "%s/%s: %s", dir, all_names[i], strerror(err));
    }
    return WH_OK;
}

enum wh_err wh_certs_fs_read(const char *dir, struct wh_certs_bundle **out, struct wh_errbuf *eb)
{
    static const enum wh_certs_item items[] = {WH_CERTS_CA_KEY, WH_CERTS_CA_CERT, WH_CERTS_CERT,
                                               WH_CERTS_KEY};
    const char *names[WH_CERTS_N_ITEMS];
    char *data[WH_CERTS_N_ITEMS] = {0};
    size_t len[WH_CERTS_N_ITEMS] = {0};
    struct wh_certs_bundle *b = NULL;
    bool all_present = false;

    enum wh_err rc = wh_certs_fs_exists(dir, &all_present, eb);
    if (rc)
        return rc;
    if (!all_present)
        return wh_errbuf_set(eb, WH_ERR_NOT_FOUND, "%s: not all six certificate files exist", dir);
    for (size_t i = 0; i < WH_CERTS_N_ITEMS; i++)
        names[i] = wh_certs_bundle_item_name(items[i]);
    rc = wh_certs_atomic_dir_read(dir, names, WH_CERTS_N_ITEMS, WH_CERTS_PEM_MAX, data, len, eb);
    if (rc)
        return rc;
    b = wh_certs_bundle_new();
    for (size_t i = 0; i < WH_CERTS_N_ITEMS && !rc; i++)
        rc = wh_certs_bundle_set(b, items[i], data[i], len[i]);
    for (size_t i = 0; i < WH_CERTS_N_ITEMS; i++) {
        if (data[i])
            memset(data[i], 0, len[i]);
        free(data[i]);
    }
    if (rc) {
        wh_certs_bundle_free(b);
        return wh_errbuf_set(eb, rc, "%s: file too big", dir);
    }
    *out = b;
    return WH_OK;
}

enum wh_err wh_certs_fs_read_serving(const char *dir, char **cert, size_t *cert_len, char **key,
                                     size_t *key_len, struct wh_errbuf *eb)
{
    static const char *const tls_names[] = {WH_CERTS_FILE_TLS_CRT, WH_CERTS_FILE_TLS_KEY};
    static const char *const pem_names[] = {WH_CERTS_FILE_CERT, WH_CERTS_FILE_KEY};
    char *data[2];
    size_t len[2];
    enum wh_err rc = wh_certs_atomic_dir_read(dir, tls_names, 2, WH_CERTS_PEM_MAX, data, len, eb);
    if (rc == WH_ERR_NOT_FOUND)
        rc = wh_certs_atomic_dir_read(dir, pem_names, 2, WH_CERTS_PEM_MAX, data, len, eb);
    if (rc)
        return rc;
    *cert = data[0];
    *cert_len = len[0];
    *key = data[1];
    *key_len = len[1];
    return WH_OK;
}

/* mkdir -p with mode 0777 before umask, as upstream's os.MkdirAll(dir, 0777). */
static enum wh_err make_dirs(const char *dir, struct wh_errbuf *eb)
{
    enum wh_err rc = WH_OK;
    char *path = wh_xstrdup(dir);
    size_t n = strlen(path);
    for (size_t i = 1; i <= n && !rc; i++) {
        if (path[i] != '/' && path[i] != '\0')
            continue;
        char saved = path[i];
        path[i] = '\0';
        if (mkdir(path, 0777) != 0 && errno != EEXIST)
            rc = wh_errbuf_set(eb, WH_ERR_IO, "mkdir %s: %s", path, strerror(errno));
        path[i] = saved;
    }
    struct stat st;
    if (!rc && (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)))
        rc = wh_errbuf_set(eb, WH_ERR_IO, "%s: not a directory", dir);
    /* The default lives in /tmp: someone else owning it could read or swap our keys. */
    if (!rc && (st.st_uid != geteuid() || (st.st_mode & 022)))
        WH_LOG_EVERY(3600, WH_LOG_WARN,
                     "%s: owned by uid %u or writable by others; other local users may be "
                     "able to replace the certificates",
                     dir, (unsigned)st.st_uid);
    free(path);
    return rc;
}

/* CERT-46: entries with our names that are not symlinks (plain files from other tools or
 * from an older layout) are removed so the atomic layout can take their place. */
static void remove_foreign(const char *dir)
{
    for (size_t i = 0; i < N_NAMES; i++) {
        struct stat st;
        char *path = wh_str_printf("%s/%s", dir, all_names[i]);
        if (lstat(path, &st) == 0 && !S_ISLNK(st.st_mode)) {
            int r = S_ISDIR(st.st_mode) ? rmdir(path) : unlink(path);
            if (r != 0)
                wh_log(WH_LOG_WARN, "%s: cannot remove: %s", path, strerror(errno));
        }
        free(path);
    }
}

enum wh_err wh_certs_fs_write(const char *dir, const struct wh_certs_bundle *b, bool *changed,
                              struct wh_errbuf *eb)
{
    size_t ca_key_len, ca_len, cert_len, key_len;
    const char *ca_key = wh_certs_bundle_get(b, WH_CERTS_CA_KEY, &ca_key_len);
    const char *ca = wh_certs_bundle_get(b, WH_CERTS_CA_CERT, &ca_len);
    const char *cert = wh_certs_bundle_get(b, WH_CERTS_CERT, &cert_len);
    const char *key = wh_certs_bundle_get(b, WH_CERTS_KEY, &key_len);
    if (changed)
        *changed = false;
    /* CERT-37 writes an empty ca-key.pem when cert-manager's Secret has no ca.key, so only
     * the three others are required. */
    if (!ca_len || !cert_len || !key_len)
        return wh_errbuf_set(eb, WH_ERR_INVALID, "incomplete certificate bundle");
    const struct wh_certs_atomic_file files[] = {
        {WH_CERTS_FILE_CA_KEY, ca_key ? ca_key : "", ca_key_len, WH_CERTS_KEY_MODE},
        {WH_CERTS_FILE_CA_CERT, ca, ca_len, WH_CERTS_CERT_MODE},
        {WH_CERTS_FILE_CERT, cert, cert_len, WH_CERTS_CERT_MODE},
        {WH_CERTS_FILE_TLS_CRT, cert, cert_len, WH_CERTS_CERT_MODE},
        {WH_CERTS_FILE_KEY, key, key_len, WH_CERTS_KEY_MODE},
        {WH_CERTS_FILE_TLS_KEY, key, key_len, WH_CERTS_KEY_MODE},
    };
    enum wh_err rc = make_dirs(dir, eb);
    if (rc)
        return rc;
    remove_foreign(dir);
    return wh_certs_atomic_dir_write(dir, files, sizeof(files) / sizeof(files[0]), changed, eb);
}

void wh_certs_fs_sync_result_fini(struct wh_certs_fs_sync_result *res)
{
    wh_certs_bundle_free(res->bundle);
    memset(res, 0, sizeof(*res));
}

enum wh_err wh_certs_fs_sync(const struct wh_certs_fs_sync_opts *o,
                             struct wh_certs_fs_sync_result *res, struct wh_errbuf *eb)
{
    enum wh_err rc = WH_OK;
    struct wh_certs_bundle *cur = NULL;
    struct wh_errbuf why = {{0}};
    char *dns_name = wh_certs_target_dns_name(&o->target);
    time_t now = o->gen.now ? o->gen.now : time(NULL);

    memset(res, 0, sizeof(*res));
    if (!dns_name)
        return wh_errbuf_set(eb, WH_ERR_INVALID, "no host, or no service and namespace");

    rc = wh_certs_fs_read(o->dir, &cur, &why);
    if (rc == WH_ERR_NOT_FOUND || rc == WH_ERR_TOO_BIG) {
        res->verdict = rc == WH_ERR_NOT_FOUND ? WH_CERTS_MISSING : WH_CERTS_GARBAGE;
        rc = WH_OK;
    } else if (rc) {
        wh_errbuf_set(eb, rc, "%s", why.msg);
        goto out;
    } else {
        res->verdict = wh_certs_bundle_validate(cur, dns_name, now, o->renew_before_secs, &why);
    }
    snprintf(res->reason, sizeof(res->reason), "%s", why.msg);

    if (res->verdict == WH_CERTS_VALID) {
        res->bundle = cur;
        cur = NULL;
    } else {
        struct wh_certs_gen_opts gen = o->gen;
        gen.now = now;
        rc = wh_certs_bundle_generate(&gen, &o->target, NULL, &res->bundle, NULL, eb);
        if (rc)
            goto out;
        res->generated = true;
        wh_log(WH_LOG_INFO, "certificates in %s for %s regenerated: %s", o->dir, dns_name,
               res->reason);
    }
    rc = wh_certs_fs_write(o->dir, res->bundle, &res->changed, eb);
out:
    if (rc)
        wh_certs_fs_sync_result_fini(res);
    wh_certs_bundle_free(cur);
    free(dns_name);
    return rc;
}
