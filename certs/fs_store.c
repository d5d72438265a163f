#include "certs/fs_store.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
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

uint64_t wh_certs_fs_fingerprint(const char *dir)
{
    uint64_t h = 1469598103934665603ULL; /* FNV-1a over what stat says of each name */
    for (size_t i = 0; i < N_NAMES; i++) {
        struct stat st;
        char *path = wh_str_printf("%s/%s", dir, all_names[i]);
        uint64_t v[6] = {0};
        if (stat(path, &st) == 0) {
            v[0] = (uint64_t)st.st_dev;
            v[1] = (uint64_t)st.st_ino;
            v[2] = (uint64_t)st.st_size;
            v[3] = (uint64_t)st.st_mtim.tv_sec;
            v[4] = (uint64_t)st.st_mtim.tv_nsec;
            v[5] = (uint64_t)st.st_mode;
        }
        free(path);
        const unsigned char *p = (const unsigned char *)v;
        for (size_t k = 0; k < sizeof(v); k++)
            h = (h ^ p[k]) * 1099511628211ULL;
    }
    return h;
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

/* "<name>.orig-<UTC time>" (with "-<n>" when taken) for a file we replace: nothing the server
 * did not write is ever deleted. Returns: a new string. */
static char *backup_path(const char *dir, const char *name, time_t now)
{
    char stamp[32];
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
    char *path = wh_str_printf("%s/%s.orig-%s", dir, name, stamp);
    struct stat st;
    for (int n = 2; lstat(path, &st) == 0 && n < 1000; n++) {
        free(path);
        path = wh_str_printf("%s/%s.orig-%s-%d", dir, name, stamp, n);
    }
    return path;
}

/* CERT-46 says entries with our names that are not symlinks are deleted so the atomic layout
 * can take their place; they may be the user's own files, so they are renamed beside instead. */
static void keep_foreign(const char *dir)
{
    time_t now = time(NULL);
    for (size_t i = 0; i < N_NAMES; i++) {
        struct stat st;
        char *path = wh_str_printf("%s/%s", dir, all_names[i]);
        if (lstat(path, &st) == 0 && !S_ISLNK(st.st_mode)) {
            char *to = backup_path(dir, all_names[i], now);
            if (rename(path, to) != 0)
                wh_log(WH_LOG_WARN, "%s: cannot move aside: %s", path, strerror(errno));
            else
                wh_log(WH_LOG_INFO, "%s: kept as %s before writing the certificate layout", path,
                       to);
            free(to);
        }
        free(path);
    }
}

/* Before a sync replaces the certificates, each of the six files in the atomic layout is
 * copied beside (plain files are moved aside by keep_foreign): a renewal never loses what was
 * served. Failures are logged; the caller then does not replace anything. */
static enum wh_err back_up_layout(const char *dir, struct wh_errbuf *eb)
{
    time_t now = time(NULL);
    for (size_t i = 0; i < N_NAMES; i++) {
        struct stat st;
        char *path = wh_str_printf("%s/%s", dir, all_names[i]);
        char *data = NULL;
        size_t len = 0;
        enum wh_err rc = WH_OK;
        if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode) &&
            wh_certs_atomic_dir_read(dir, &all_names[i], 1, WH_CERTS_PEM_MAX, &data, &len, NULL) ==
                WH_OK) {
            char *to = backup_path(dir, all_names[i], now);
            int fd = open(to, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
            bool ok = fd >= 0 && write(fd, data, len) == (ssize_t)len;
            if (fd >= 0 && close(fd) != 0)
                ok = false;
            if (!ok)
                rc = wh_errbuf_set(eb, WH_ERR_IO, "cannot keep %s as %s: %s", path, to,
                                   strerror(errno));
            else
                wh_log(WH_LOG_INFO, "%s: kept as %s before renewing", path, to);
            free(to);
            memset(data, 0, len);
        }
        free(data);
        free(path);
        if (rc)
            return rc;
    }
    return WH_OK;
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
    keep_foreign(dir);
    return wh_certs_atomic_dir_write(dir, files, sizeof(files) / sizeof(files[0]), changed, eb);
}

void wh_certs_fs_sync_result_fini(struct wh_certs_fs_sync_result *res)
{
    wh_certs_bundle_free(res->bundle);
    memset(res, 0, sizeof(*res));
}

/* A serving pair with no CA key beside it was made by someone else (cert-manager, an
 * operator, a CA we do not hold): we could never renew it, so it is served as it is. It is
 * checked and what is found logged, and it is never rewritten, whatever the check says. */
static bool user_owned_pair(const char *dir, const char *dns_name, time_t now,
                            struct wh_certs_fs_sync_result *res)
{
    static const char *const ca_key_name[] = {WH_CERTS_FILE_CA_KEY};
    char *ca_key = NULL, *cert = NULL, *key = NULL;
    size_t ca_key_len = 0, cert_len = 0, key_len = 0;
    enum wh_err rc =
        wh_certs_atomic_dir_read(dir, ca_key_name, 1, WH_CERTS_PEM_MAX, &ca_key, &ca_key_len, NULL);
    bool has_ca_key = rc == WH_OK && ca_key_len > 0;
    if (ca_key)
        memset(ca_key, 0, ca_key_len);
    free(ca_key);
    if (has_ca_key || rc == WH_ERR_TOO_BIG ||
        wh_certs_fs_read_serving(dir, &cert, &cert_len, &key, &key_len, NULL) != WH_OK)
        return false;

    X509 *x = NULL;
    EVP_PKEY *k = NULL;
    struct wh_errbuf why = {{0}};
    res->user_owned = true;
    res->verdict = WH_CERTS_VALID;
    if (wh_certs_pem_first_cert(cert, cert_len, &x) || wh_certs_pem_first_key(key, key_len, &k)) {
        res->verdict = WH_CERTS_GARBAGE;
        wh_errbuf_set(&why, WH_ERR_PARSE, "the certificate or the key does not parse");
    } else if (!wh_certs_verify_key_matches(x, k)) {
        res->verdict = WH_CERTS_KEY_MISMATCH;
        wh_errbuf_set(&why, WH_ERR_TLS, "the key does not match the certificate");
    } else if (wh_certs_verify_secs_left(x, now) <= 0) {
        res->verdict = WH_CERTS_EXPIRED;
        wh_errbuf_set(&why, WH_ERR_TLS, "the certificate has expired");
    } else if (!wh_certs_verify_host(x, dns_name)) {
        res->verdict = WH_CERTS_WRONG_HOST;
        wh_errbuf_set(&why, WH_ERR_TLS, "the certificate does not name %s", dns_name);
    }
    snprintf(res->reason, sizeof(res->reason), "%s", why.msg);
    if (res->verdict == WH_CERTS_VALID)
        wh_log(WH_LOG_INFO,
               "%s holds a serving certificate without a CA key: served as the user's own, never "
               "rewritten (%lld days left)",
               dir, (long long)(wh_certs_verify_secs_left(x, now) / 86400));
    else
        wh_log(WH_LOG_WARN,
               "%s holds a serving certificate without a CA key: the user's own, left untouched, "
               "but %s",
               dir, why.msg);
    X509_free(x);
    EVP_PKEY_free(k);
    memset(key, 0, key_len);
    free(key);
    free(cert);
    return true;
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

    if (user_owned_pair(o->dir, dns_name, now, res)) {
        free(dns_name);
        return WH_OK;
    }
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
        rc = back_up_layout(o->dir, eb);
        if (rc)
            goto out;
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
