#include "gocompat/gozone.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/buf.h"
#include "util/mem.h"
#include "util/str.h"

/* Go's maxFileSize: a zone file read past this is refused. */
#define MAX_FILE_SIZE (10u << 20)

/* The zone database's directories, in Go's order (zoneinfo_unix.go), spelled as Go spells them:
 * the file read is source + "/" + name. */
static const char *const sources[] = {
    "/usr/share/zoneinfo/",
    "/usr/share/lib/zoneinfo/",
    "/usr/lib/locale/TZ/",
    "/etc/zoneinfo",
};

/* The outcome of reading and parsing one file: 0 loaded, ENOENT (skipped by Go), another errno,
 * or one of these. */
enum { BAD_DATA = -1, TOO_LARGE = -2 };

/* syscall.Errno's text: Go's table is the C library's messages with a lowercase first letter. */
static char *errno_text(int e)
{
    char *s = wh_xstrdup(strerror(e));
    if (s[0] >= 'A' && s[0] <= 'Z')
        s[0] = (char)(s[0] - 'A' + 'a');
    return s;
}

/* dataIO of zoneinfo_read.go: reads that run past the end set the error. */
struct data {
    const unsigned char *p;
    size_t n;
    bool error;
};

static const unsigned char *take(struct data *d, uint64_t n)
{
    if (d->n < n) {
        d->p = NULL;
        d->n = 0;
        d->error = true;
        return NULL;
    }
    const unsigned char *r = d->p;
    d->p += n;
    d->n -= (size_t)n;
    return r;
}

static bool big4(struct data *d, uint32_t *v)
{
    const unsigned char *p = take(d, 4);
    if (!p)
        return false;
    *v = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
    return true;
}

/* LoadLocationFromTZData's checks: whether Go accepts data as a zone. */
static bool tzif_ok(const unsigned char *bytes, size_t len)
{
    struct data d = {bytes, len, false};
    const unsigned char *magic = take(&d, 4);
    if (!magic || memcmp(magic, "TZif", 4) != 0)
        return false;
    const unsigned char *p = take(&d, 16);
    if (!p || (p[0] != 0 && p[0] != '2' && p[0] != '3'))
        return false;
    bool v1 = p[0] == 0;
    enum { NUTC, NSTD, NLEAP, NTIME, NZONE, NCHAR };
    uint64_t n[6];
    for (int i = 0; i < 6; i++) {
        uint32_t v;
        if (!big4(&d, &v))
            return false;
        n[i] = v;
    }
    size_t size = 4;
    if (!v1) {
        /* the 32-bit data, then the second header: the 64-bit counts */
        take(&d, n[NTIME] * 5 + n[NZONE] * 6 + n[NCHAR] + n[NLEAP] * 8 + n[NSTD] + n[NUTC] + 20);
        for (int i = 0; i < 6; i++) {
            uint32_t v;
            if (!big4(&d, &v))
                return false;
            n[i] = v;
        }
        size = 8;
    }
    struct data txtimes = {take(&d, n[NTIME] * size), (size_t)(n[NTIME] * size), false};
    const unsigned char *txzones = take(&d, n[NTIME]);
    struct data zonedata = {take(&d, n[NZONE] * 6), (size_t)(n[NZONE] * 6), false};
    take(&d, n[NCHAR]);
    take(&d, n[NLEAP] * (size + 4));
    take(&d, n[NSTD]);
    take(&d, n[NUTC]);
    if (d.error || n[NZONE] == 0)
        return false;
    for (uint64_t i = 0; i < n[NZONE]; i++) {
        const unsigned char *z = take(&zonedata, 6);
        /* the abbreviation's index must fall inside the abbreviations */
        if (!z || z[5] >= n[NCHAR])
            return false;
    }
    for (uint64_t i = 0; i < n[NTIME]; i++) {
        if (!take(&txtimes, size) || txzones[i] >= n[NZONE])
            return false;
    }
    return true;
}

/* readFile then LoadLocationFromTZData for path. Returns as the enum above. */
static int load_file(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0)
        return errno;
    struct wh_buf b;
    wh_buf_init(&b, MAX_FILE_SIZE + 8192);
    unsigned char chunk[4096];
    int rc = 0;
    for (;;) {
        ssize_t got = read(fd, chunk, sizeof(chunk));
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            rc = errno;
            break;
        }
        if (got == 0)
            break;
        if (wh_buf_add(&b, chunk, (size_t)got) != WH_OK || b.len > MAX_FILE_SIZE) {
            rc = TOO_LARGE;
            break;
        }
    }
    close(fd);
    if (!rc && !tzif_ok((const unsigned char *)b.data, b.len))
        rc = BAD_DATA;
    wh_buf_fini(&b);
    return rc;
}

/* One source: 0 when the zone loads from it, else why not, with *bad_path the path of a
 * TOO_LARGE file (new string). */
static int try_source(const char *dir, const char *name, size_t len, char **bad_path)
{
    if (memchr(name, '\0', len))
        return EINVAL; /* syscall.BytePtrFromString */
    char *path = wh_str_printf("%s/%.*s", dir, (int)len, name);
    int rc = load_file(path);
    if (rc == TOO_LARGE)
        *bad_path = path;
    else
        free(path);
    return rc;
}

static char *error_text(int rc, char *bad_path)
{
    if (rc == BAD_DATA)
        return wh_xstrdup("malformed time zone information");
    if (rc == TOO_LARGE)
        return wh_str_printf("time: file %s is too large", bad_path);
    return errno_text(rc);
}

static bool contains_dot_dot(const char *s, size_t len)
{
    for (size_t i = 0; i + 1 < len; i++) {
        if (s[i] == '.' && s[i + 1] == '.')
            return true;
    }
    return false;
}

enum wh_err wh_gozone_load(const char *name, size_t len, char **message)
{
    *message = NULL;
    if (len == 0 || (len == 3 && memcmp(name, "UTC", 3) == 0) ||
        (len == 5 && memcmp(name, "Local", 5) == 0))
        return WH_OK;
    if (contains_dot_dot(name, len) || name[0] == '/' || name[0] == '\\') {
        *message = wh_xstrdup("time: invalid location name");
        return WH_ERR_INVALID;
    }
    int first = 0;
    char *first_path = NULL;
    const char *zoneinfo = getenv("ZONEINFO");
    if (zoneinfo && *zoneinfo) {
        char *bad = NULL;
        int rc = try_source(zoneinfo, name, len, &bad);
        if (rc == 0)
            return WH_OK;
        if (rc != ENOENT) {
            first = rc;
            first_path = bad;
            bad = NULL;
        }
        free(bad);
    }
    for (size_t i = 0; i < sizeof(sources) / sizeof(sources[0]); i++) {
        char *bad = NULL;
        int rc = try_source(sources[i], name, len, &bad);
        if (rc == 0) {
            free(first_path);
            return WH_OK;
        }
        if (!first && rc != ENOENT) {
            first = rc;
            first_path = bad;
            bad = NULL;
        }
        free(bad);
    }
    *message = first ? error_text(first, first_path)
                     : wh_str_printf("unknown time zone %.*s", (int)len, name);
    free(first_path);
    return WH_ERR_INVALID;
}
