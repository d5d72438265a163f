#include "metrics/process.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "metrics/metrics.h"

/* /proc/self/stat fields used, numbered as proc(5) does. */
enum { F_UTIME = 14, F_STIME = 15, F_STARTTIME = 22, F_VSIZE = 23, F_RSS = 24 };

/* Field n (>= 3) of /proc/self/stat, or 0. The command name (field 2) is in parentheses and may
 * hold spaces and parentheses of its own: fields are counted from its last ')'. */
static double stat_field(int n)
{
    char buf[1024];
    FILE *f = fopen("/proc/self/stat", "re");
    if (!f)
        return 0;
    size_t len = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[len] = '\0';
    char *p = strrchr(buf, ')');
    if (!p)
        return 0;
    p++;
    for (int field = 3; *p; field++) {
        while (*p == ' ')
            p++;
        if (field == n)
            return strtod(p, NULL);
        while (*p && *p != ' ')
            p++;
    }
    return 0;
}

static double ticks(void)
{
    long hz = sysconf(_SC_CLK_TCK);
    return hz > 0 ? (double)hz : 100;
}

static double cpu_seconds(void *unused)
{
    (void)unused;
    return (stat_field(F_UTIME) + stat_field(F_STIME)) / ticks();
}

static double resident_bytes(void *unused)
{
    (void)unused;
    return stat_field(F_RSS) * (double)sysconf(_SC_PAGESIZE);
}

static double virtual_bytes(void *unused)
{
    (void)unused;
    return stat_field(F_VSIZE);
}

static double open_fds(void *unused)
{
    (void)unused;
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return 0;
    double n = 0;
    for (struct dirent *e = readdir(d); e; e = readdir(d))
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

static double max_fds(void *unused)
{
    (void)unused;
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return 0;
    return rl.rlim_cur == RLIM_INFINITY ? -1 : (double)rl.rlim_cur;
}

/* The boot time (btime of /proc/stat) plus the process's start in ticks since boot. */
static double start_seconds;

static double start_time(void *unused)
{
    (void)unused;
    return start_seconds;
}

static double boot_time(void)
{
    char line[256];
    double btime = 0;
    FILE *f = fopen("/proc/stat", "re");
    if (!f)
        return 0;
    while (fgets(line, sizeof(line), f)) {
        if (strncmp(line, "btime ", 6) == 0) {
            btime = strtod(line + 6, NULL);
            break;
        }
    }
    fclose(f);
    return btime;
}

void wh_metrics_process_register(void)
{
    double btime = boot_time();
    start_seconds = btime ? btime + stat_field(F_STARTTIME) / ticks() : 0;
    wh_metrics_counter_fn("process_cpu_seconds_total",
                          "Total user and system CPU time spent in seconds.", NULL, cpu_seconds,
                          NULL);
    wh_metrics_gauge_fn("process_resident_memory_bytes", "Resident memory size in bytes.", NULL,
                        resident_bytes, NULL);
    wh_metrics_gauge_fn("process_virtual_memory_bytes", "Virtual memory size in bytes.", NULL,
                        virtual_bytes, NULL);
    wh_metrics_gauge_fn("process_open_fds", "Number of open file descriptors.", NULL, open_fds,
                        NULL);
    wh_metrics_gauge_fn("process_max_fds", "Maximum number of open file descriptors.", NULL,
                        max_fds, NULL);
    wh_metrics_gauge_fn("process_start_time_seconds",
                        "Start time of the process since unix epoch in seconds.", NULL,
                        start_time, NULL);
}
