#include "util/deadline.h"

#include "util/time.h"

static _Thread_local int64_t current;

int64_t wh_deadline_get(void)
{
    return current;
}

int64_t wh_deadline_set(int64_t mono_ns)
{
    int64_t prev = current;
    current = mono_ns;
    return prev;
}

bool wh_deadline_passed(void)
{
    return current && wh_time_mono_ns() >= current;
}

int64_t wh_deadline_within_ms(long long ms)
{
    if (ms <= 0)
        return current;
    int64_t own = wh_time_mono_ns() + (int64_t)ms * 1000000;
    return current && current < own ? current : own;
}
