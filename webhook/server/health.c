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

struct checks {
    struct check c[MAX_CHECKS];
    size_t n;
};

static struct checks ready, live;
static atomic_bool shutting_down;

static void add(struct checks *l, const char *name, wh_ready_fn fn, void *arg)
{
    WH_ASSERT(l->n < MAX_CHECKS);
    l->c[l->n++] = (struct check){name, fn, arg};
}

static bool pass(const struct checks *l, char *why, size_t whysz)
{
    for (size_t i = 0; i < l->n; i++) {
        char detail[256] = "";
        if (!l->c[i].fn(l->c[i].arg, detail, sizeof(detail))) {
            snprintf(why, whysz, "%s: %s", l->c[i].name, detail);
            return false;
        }
    }
    return true;
}

void wh_health_add(const char *name, wh_ready_fn fn, void *arg)
{
    add(&ready, name, fn, arg);
}

void wh_health_add_live(const char *name, wh_ready_fn fn, void *arg)
{
    add(&live, name, fn, arg);
}

bool wh_health_live(char *why, size_t whysz)
{
    return pass(&live, why, whysz);
}

bool wh_health_ready(char *why, size_t whysz)
{
    if (atomic_load(&shutting_down)) {
        snprintf(why, whysz, "shutting down");
        return false;
    }
    return pass(&live, why, whysz) && pass(&ready, why, whysz);
}

void wh_health_shutting_down(void)
{
    atomic_store(&shutting_down, true);
}
