/* sched_getaffinity and CPU_COUNT are GNU extensions. */
#define _GNU_SOURCE
#include "util/cpu.h"

#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <stdbool.h>

/* Reads a small file into buf (NUL-terminated); false when it cannot be read. */
static bool read_small(const char *root, const char *rel, char *buf, size_t bufsz)
{
    char path[PATH_MAX];
    int n = snprintf(path, sizeof(path), "%s/%s", root, rel);
    if (n < 0 || (size_t)n >= sizeof(path))
        return false;
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    size_t got = fread(buf, 1, bufsz - 1, f);
    fclose(f);
    buf[got] = '\0';
    return got > 0;
}

static bool parse_ll(const char *s, long long *out)
{
    char *end = NULL;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s)
        return false;
    *out = v;
    return true;
}

/* CPUs from a quota and a period (microseconds); 0 when unlimited or unreadable. */
static long from_quota(long long quota, long long period)
{
    if (quota <= 0 || period <= 0)
        return 0;
    return (long)((quota + period - 1) / period);
}

/* cgroup v2: "max 100000" or "150000 100000" in <dir>/cpu.max. */
static long v2_limit(const char *root, const char *dir)
{
    char rel[PATH_MAX], buf[128];
    int n = snprintf(rel, sizeof(rel), "sys/fs/cgroup%s/cpu.max", dir);
    if (n < 0 || (size_t)n >= sizeof(rel) || !read_small(root, rel, buf, sizeof(buf)))
        return 0;
    if (strncmp(buf, "max", 3) == 0)
        return 0;
    long long quota = 0, period = 100000;
    char *sp = strchr(buf, ' ');
    if (!parse_ll(buf, &quota) || (sp && !parse_ll(sp + 1, &period)))
        return 0;
    return from_quota(quota, period);
}

/* cgroup v1: cpu.cfs_quota_us (-1: none) and cpu.cfs_period_us under the cpu controller. */
static long v1_limit(const char *root, const char *mount, const char *dir)
{
    char rel[PATH_MAX], buf[64];
    long long quota = 0, period = 0;
    int n = snprintf(rel, sizeof(rel), "sys/fs/cgroup/%s%s/cpu.cfs_quota_us", mount, dir);
    if (n < 0 || (size_t)n >= sizeof(rel) || !read_small(root, rel, buf, sizeof(buf)) ||
        !parse_ll(buf, &quota))
        return 0;
    n = snprintf(rel, sizeof(rel), "sys/fs/cgroup/%s%s/cpu.cfs_period_us", mount, dir);
    if (n < 0 || (size_t)n >= sizeof(rel) || !read_small(root, rel, buf, sizeof(buf)) ||
        !parse_ll(buf, &period))
        return 0;
    return from_quota(quota, period);
}

static long lower(long have, long limit)
{
    return limit > 0 && (have == 0 || limit < have) ? limit : have;
}

/* The tightest limit on dir and each of its ancestors ("" is the root of the hierarchy). */
static long limit_along(const char *root, const char *mount, const char *path)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof(dir), "%s", strcmp(path, "/") == 0 ? "" : path);
    long best = 0;
    for (;;) {
        best = lower(best, mount ? v1_limit(root, mount, dir) : v2_limit(root, dir));
        char *slash = strrchr(dir, '/');
        if (!slash || !dir[0])
            break;
        *slash = '\0';
    }
    return best;
}

/* The limit from /proc/self/cgroup's lines ("0::/path" for v2, "N:cpu,cpuacct:/path" for
 * v1); inside a container's cgroup namespace the paths are "/" and the files sit at the top. */
static long cgroup_limit(const char *root)
{
    char text[4096];
    long best = 0;
    if (!read_small(root, "proc/self/cgroup", text, sizeof(text)))
        return lower(limit_along(root, NULL, "/"), limit_along(root, "cpu", "/"));
    for (char *line = text; line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        char *c1 = strchr(line, ':');
        char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (c2) {
            *c2 = '\0';
            const char *controllers = c1 + 1, *path = c2 + 1;
            if (!controllers[0]) {
                best = lower(best, limit_along(root, NULL, path));
            } else {
                /* v1: the cpu controller, mounted alone or together with cpuacct. */
                for (const char *m = controllers; m;) {
                    const char *comma = strchr(m, ',');
                    size_t len = comma ? (size_t)(comma - m) : strlen(m);
                    if (len == 3 && strncmp(m, "cpu", 3) == 0) {
                        best = lower(best, limit_along(root, controllers, path));
                        best = lower(best, limit_along(root, "cpu", path));
                    }
                    m = comma ? comma + 1 : NULL;
                }
            }
        }
        line = nl ? nl + 1 : NULL;
    }
    return best;
}

long wh_cpu_count(const char *root)
{
    long n = 0;
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) == 0)
        n = CPU_COUNT(&set);
    if (n <= 0)
        n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n <= 0)
        n = 1;
    long limit = cgroup_limit(root);
    if (limit > 0 && limit < n)
        n = limit;
    return n;
}
