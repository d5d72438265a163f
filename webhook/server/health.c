#include "server/health.h"

#include <stdatomic.h>
#include <stdio.h>

#include "util/err.h"

#define MAX_CHECKS 16

struct check {
    const char *name;
    wh_ready_fn fn;
    void *arg;
};

static struct check checks[MAX_CHECKS];
static size_t nchecks;
static atomic_bool shutting_down;

void wh_health_add(const char *name, wh_ready_fn fn, void *arg)
{
    WH_ASSERT(nchecks < MAX_CHECKS);
    checks[nchecks++] = (struct check){name, fn, arg};
}

bool wh_health_ready(char *why, size_t whysz)
{
    if (atomic_load(&shutting_down)) {
        snprintf(why, whysz, "shutting down");
        return false;
    }
    for (size_t i = 0; i < nchecks; i++) {
        char detail[256] = "";
        if (!checks[i].fn(checks[i].arg, detail, sizeof(detail))) {
            snprintf(why, whysz, "%s: %s", checks[i].name, detail);
            return false;
        }
    }
    return true;
}

void wh_health_shutting_down(void)
{
    atomic_store(&shutting_down, true);
}
