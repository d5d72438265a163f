#include "certs/atomic_dir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "certs/pem.h"
#include "log/log.h"
#include "util/mem.h"
#include "util/str.h"

#define DATA_LINK "..data"
#define DATA_TMP_LINK "..data_tmp"
#define MAX_NAME 128
#define MAX_FILES 32
#define MAX_TREE_DEPTH 8
#define READ_ATTEMPTS 5

static bool name_ok(const char *name)
{
    size_t n = strlen(name);
    return n > 0 && n < MAX_NAME && name[0] != '.' && !strchr(name, '/');
}

/* "..YYYY_": the generation directories of this writer and of kubelet's. */
static bool is_generation(const char *name)
{
    if (name[0] != '.' || name[1] != '.')
        return false;
    for (int i = 2; i < 6; i++) {
        if (name[i] < '0' || name[i] > '9')
            return false;
    }
    return name[6] == '_';
}

/* Reads symlink `name` under dfd. *exists is false when there is no such entry;
 * WH_ERR_IO when the entry is not a symlink or cannot be read. */
static enum wh_err read_link(int dfd, const char *name, char *out, size_t outsz, bool *exists,
                             struct wh_errbuf *eb)
{
    ssize_t r = readlinkat(dfd, name, out, outsz - 1);
    *exists = false;
    if (r < 0 && errno == ENOENT)
        return WH_OK;
    if (r < 0)
        return wh_errbuf_set(eb, WH_ERR_IO, "%s: %s", name,
                             errno == EINVAL ? "exists and is not a symlink" : strerror(errno));
    if ((size_t)r >= outsz - 1)
        return wh_errbuf_set(eb, WH_ERR_IO, "%s: symlink target too long", name);
    out[r] = '\0';
    *exists = true;
    return WH_OK;
}

static bool in_payload(const char *name, const struct wh_certs_atomic_file *files, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (strcmp(files[i].name, name) == 0)
            return true;
    }
    return false;
}

/* Lists the entries of directory `name` under dfd (without "." and ".."). Returns a NULL-
 * terminated array of new strings, or NULL when it cannot be opened. */
static char **list_dir(int dfd, const char *name)
{
    int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    DIR *d = fdopendir(fd);
    if (!d) {
        close(fd);
        return NULL;
    }
    size_t n = 0, cap = 8;
    char **names = wh_xmalloc(cap * sizeof(*names));
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (n + 1 >= cap) {
            cap *= 2;
            names = wh_xrealloc(names, cap * sizeof(*names));
        }
        names[n++] = wh_xstrdup(e->d_name);
    }
    names[n] = NULL;
    closedir(d);
    return names;
}

static void free_list(char **names)
{
    for (size_t i = 0; names && names[i]; i++)
        free(names[i]);
    free(names);
}

/* True when generation `gen` holds file f with the same mode and bytes. */
static bool same_file(int dfd, const char *gen, const struct wh_certs_atomic_file *f)
{
    char path[2 * MAX_NAME + 2];
    char buf[4096];
    bool same = false;
    snprintf(path, sizeof(path), "%s/%s", gen, f->name);
    int fd = openat(dfd, path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return false;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (st.st_mode & 07777) != f->mode ||
        (size_t)st.st_size != f->len)
        goto out;
    size_t off = 0;
    while (off < f->len) {
        size_t want = f->len - off < sizeof(buf) ? f->len - off : sizeof(buf);
        ssize_t r = read(fd, buf, want);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0 || memcmp(buf, (const char *)f->data + off, (size_t)r) != 0)
            goto out;
        off += (size_t)r;
    }
    same = true;
out:
    close(fd);
    return same;
}

static bool generation_matches(int dfd, const char *gen, const struct wh_certs_atomic_file *files,
                               size_t n)
{
    char **names = list_dir(dfd, gen);
    size_t count = 0;
    bool ok = names != NULL;
    for (size_t i = 0; ok && names[i]; i++, count++)
        ok = in_payload(names[i], files, n);
    free_list(names);
    if (!ok || count != n)
        return false;
    for (size_t i = 0; i < n; i++) {
        if (!same_file(dfd, gen, &files[i]))
            return false;
    }
    return true;
}

static enum wh_err write_file(int gen_fd, const struct wh_certs_atomic_file *f,
                              struct wh_errbuf *eb)
{
    enum wh_err rc = WH_OK;
    int fd = openat(gen_fd, f->name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return wh_errbuf_set(eb, WH_ERR_IO, "create %s: %s", f->name, strerror(errno));
    size_t off = 0;
    while (off < f->len) {
        ssize_t w = write(fd, (const char *)f->data + off, f->len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0) {
            rc = wh_errbuf_set(eb, WH_ERR_IO, "write %s: %s", f->name, strerror(errno));
            goto out;
        }
        off += (size_t)w;
    }
    /* fchmod rather than the open mode: the umask must not loosen or tighten the result. */
    if (fchmod(fd, f->mode) != 0 || fsync(fd) != 0)
        rc = wh_errbuf_set(eb, WH_ERR_IO, "finish %s: %s", f->name, strerror(errno));
out:
    if (close(fd) != 0 && !rc)
        rc = wh_errbuf_set(eb, WH_ERR_IO, "close %s: %s", f->name, strerror(errno));
    return rc;
}

/* Makes dir/<name> a symlink to ..data/<name>. Kubelet never rewrites an existing visible
 * link; we also repair one that points elsewhere, replacing it atomically. */
static enum wh_err ensure_visible(int dfd, const char *name, struct wh_errbuf *eb)
{
    char want[MAX_NAME + 8], cur[2 * MAX_NAME], tmp[MAX_NAME + 8];
    bool exists = false;
    snprintf(want, sizeof(want), DATA_LINK "/%s", name);
    enum wh_err rc = read_link(dfd, name, cur, sizeof(cur), &exists, eb);
    if (rc)
        return rc;
    if (exists && strcmp(cur, want) == 0)
        return WH_OK;
    if (!exists) {
        if (symlinkat(want, dfd, name) != 0)
            return wh_errbuf_set(eb, WH_ERR_IO, "symlink %s: %s", name, strerror(errno));
        return WH_OK;
    }
    snprintf(tmp, sizeof(tmp), "..tmp_%s", name);
    unlinkat(dfd, tmp, 0);
    if (symlinkat(want, dfd, tmp) != 0 || renameat(dfd, tmp, dfd, name) != 0) {
        rc = wh_errbuf_set(eb, WH_ERR_IO, "relink %s: %s", name, strerror(errno));
        unlinkat(dfd, tmp, 0);
    }
    return rc;
}

/* Removes directory `name` under dfd and everything below it (bounded depth). */
static bool remove_tree(int dfd, const char *name, int depth)
{
    bool ok = true;
    int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT;
    char **names = list_dir(fd, ".");
    for (size_t i = 0; names && names[i]; i++) {
        struct stat st;
        if (fstatat(fd, names[i], &st, AT_SYMLINK_NOFOLLOW) != 0)
            continue;
        if (S_ISDIR(st.st_mode))
            ok = depth < MAX_TREE_DEPTH && remove_tree(fd, names[i], depth + 1) && ok;
        else if (unlinkat(fd, names[i], 0) != 0)
            ok = false;
    }
    free_list(names);
    close(fd);
    if (unlinkat(dfd, name, AT_REMOVEDIR) != 0)
        ok = false;
    return ok;
}

/* After the switch: visible links of names that left the payload, then every generation
 * directory other than the current one (the previous one and any a crash left behind). */
static void clean_up(int dfd, const char *dir, const char *current, const char *previous,
                     const struct wh_certs_atomic_file *files, size_t n)
{
    if (previous) {
        char **old = list_dir(dfd, previous);
        for (size_t i = 0; old && old[i]; i++) {
            char want[MAX_NAME + 8], cur[2 * MAX_NAME];
            bool exists = false;
            if (in_payload(old[i], files, n) || !name_ok(old[i]))
                continue;
            snprintf(want, sizeof(want), DATA_LINK "/%s", old[i]);
            if (read_link(dfd, old[i], cur, sizeof(cur), &exists, NULL) == WH_OK && exists &&
                strcmp(cur, want) == 0)
                unlinkat(dfd, old[i], 0);
        }
        free_list(old);
    }
    char **all = list_dir(dfd, ".");
    for (size_t i = 0; all && all[i]; i++) {
        if (!is_generation(all[i]) || strcmp(all[i], current) == 0)
            continue;
        if (!remove_tree(dfd, all[i], 0))
            wh_log(WH_LOG_WARN, "%s: cannot remove old generation %s", dir, all[i]);
    }
    free_list(all);
}

enum wh_err wh_certs_atomic_dir_write(const char *dir, const struct wh_certs_atomic_file *files,
                                      size_t n, bool *changed, struct wh_errbuf *eb)
{
    enum wh_err rc = WH_OK;
    int dfd = -1, gen_fd = -1;
    char old[2 * MAX_NAME];
    bool have_old = false, published = false;
    char *gen_path = NULL;
    const char *gen = NULL;

    if (changed)
        *changed = false;
    if (n == 0 || n > MAX_FILES)
        return wh_errbuf_set(eb, WH_ERR_INVALID, "between 1 and %d files", MAX_FILES);
    for (size_t i = 0; i < n; i++) {
        if (!name_ok(files[i].name) || in_payload(files[i].name, files, i))
            return wh_errbuf_set(eb, WH_ERR_INVALID, "bad or repeated file name \"%s\"",
                                 files[i].name);
    }
    dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        return wh_errbuf_set(eb, WH_ERR_IO, "%s: %s", dir, strerror(errno));
    rc = read_link(dfd, DATA_LINK, old, sizeof(old), &have_old, eb);
    if (rc)
        goto out;
    if (have_old && generation_matches(dfd, old, files, n)) {
        for (size_t i = 0; i < n && !rc; i++)
            rc = ensure_visible(dfd, files[i].name, eb);
        goto out;
    }

    /* Kubelet's naming: UTC time of the write, then mkdtemp's random suffix. */
    char stamp[64];
    struct tm tm;
    time_t now = time(NULL);
    gmtime_r(&now, &tm);
    strftime(stamp, sizeof(stamp), "..%Y_%m_%d_%H_%M_%S.", &tm);
    gen_path = wh_str_printf("%s/%sXXXXXX", dir, stamp);
    if (!mkdtemp(gen_path)) {
        rc = wh_errbuf_set(eb, WH_ERR_IO, "%s: cannot create a generation directory: %s", dir,
                           strerror(errno));
        free(gen_path);
        gen_path = NULL;
        goto out;
    }
    gen = strrchr(gen_path, '/') + 1;
    gen_fd = open(gen_path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (gen_fd < 0 || fchmod(gen_fd, 0755) != 0) {
        rc = wh_errbuf_set(eb, WH_ERR_IO, "%s: %s", gen_path, strerror(errno));
        goto out;
    }
    for (size_t i = 0; i < n && !rc; i++)
        rc = write_file(gen_fd, &files[i], eb);
    if (rc)
        goto out;
    if (fsync(gen_fd) != 0) {
        rc = wh_errbuf_set(eb, WH_ERR_IO, "%s: fsync: %s", gen_path, strerror(errno));
        goto out;
    }
    for (size_t i = 0; i < n && !rc; i++)
        rc = ensure_visible(dfd, files[i].name, eb);
    if (rc)
        goto out;

    /* The commit point: rename(2) replaces ..data atomically. */
    unlinkat(dfd, DATA_TMP_LINK, 0);
    if (symlinkat(gen, dfd, DATA_TMP_LINK) != 0 ||
        renameat(dfd, DATA_TMP_LINK, dfd, DATA_LINK) != 0) {
        rc = wh_errbuf_set(eb, WH_ERR_IO, "%s: cannot switch " DATA_LINK ": %s", dir,
                           strerror(errno));
        unlinkat(dfd, DATA_TMP_LINK, 0);
        goto out;
    }
    published = true;
    if (changed)
        *changed = true;
    if (fsync(dfd) != 0)
        wh_log(WH_LOG_WARN, "%s: fsync: %s", dir, strerror(errno));
    clean_up(dfd, dir, gen, have_old ? old : NULL, files, n);
out:
    if (gen_fd >= 0)
        close(gen_fd);
    if (gen && !published)
        remove_tree(dfd, gen, 0);
    free(gen_path);
    if (dfd >= 0)
        close(dfd);
    return rc;
}

static void free_results(char **out_data, size_t *out_len, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (out_data[i]) {
            /* The files may hold private keys. */
            memset(out_data[i], 0, out_len[i]);
            free(out_data[i]);
        }
        out_data[i] = NULL;
        out_len[i] = 0;
    }
}

/* Resolves dir/..data into *target (new string); NULL when there is no ..data link. */
static enum wh_err resolve_data(const char *dir, char **target, struct wh_errbuf *eb)
{
    char buf[4096];
    char *link = wh_str_printf("%s/" DATA_LINK, dir);
    ssize_t r = readlink(link, buf, sizeof(buf) - 1);
    int err = errno;
    free(link);
    *target = NULL;
    if (r < 0 && (err == ENOENT || err == EINVAL))
        return WH_OK;
    if (r < 0)
        return wh_errbuf_set(eb, WH_ERR_IO, "%s/" DATA_LINK ": %s", dir, strerror(err));
    buf[r] = '\0';
    *target = buf[0] == '/' ? wh_xstrdup(buf) : wh_str_printf("%s/%s", dir, buf);
    return WH_OK;
}

/* True when dir/name is the layout's link "..data/<name>": it is read below the generation
 * resolved once for all names. Anything else at that name (a plain file renamed over the link,
 * a link elsewhere) is what a reader of dir/name gets, so it is read as such. */
static bool via_data(const char *dir, const char *name, const char *base)
{
    if (!base)
        return false;
    char want[MAX_NAME + 8], cur[MAX_NAME + 8];
    snprintf(want, sizeof(want), DATA_LINK "/%s", name);
    char *path = wh_str_printf("%s/%s", dir, name);
    ssize_t r = readlink(path, cur, sizeof(cur) - 1);
    free(path);
    if (r < 0 || (size_t)r >= sizeof(cur) - 1)
        return false;
    cur[r] = '\0';
    return strcmp(cur, want) == 0;
}

enum wh_err wh_certs_atomic_dir_read(const char *dir, const char *const *names, size_t n,
                                     size_t cap, char **out_data, size_t *out_len,
                                     struct wh_errbuf *eb)
{
    enum wh_err rc = WH_OK;
    char *base = NULL, *again = NULL;
    for (size_t i = 0; i < n; i++) {
        out_data[i] = NULL;
        out_len[i] = 0;
    }
    for (int attempt = 0; attempt < READ_ATTEMPTS; attempt++) {
        rc = resolve_data(dir, &base, eb);
        if (rc)
            return rc;
        for (size_t i = 0; i < n && !rc; i++) {
            char *path =
                wh_str_printf("%s/%s", via_data(dir, names[i], base) ? base : dir, names[i]);
            rc = wh_certs_pem_read_file(path, cap, &out_data[i], &out_len[i], eb);
            free(path);
        }
        if (!rc || !base || rc != WH_ERR_NOT_FOUND)
            break;
        /* A missing file below ..data is real unless a writer switched generations (and
         * removed the one we were reading) meanwhile. */
        free_results(out_data, out_len, n);
        rc = resolve_data(dir, &again, eb);
        bool switched = !rc && again && strcmp(again, base) != 0;
        free(again);
        again = NULL;
        free(base);
        base = NULL;
        if (rc)
            return rc;
        rc = WH_ERR_NOT_FOUND; /* eb still names the missing file */
        if (!switched)
            break;
    }
    free(base);
    if (rc)
        free_results(out_data, out_len, n);
    return rc;
}
