#include "util/reqmem.h"

#include <stdatomic.h>

static atomic_size_t limit;
static atomic_size_t in_use;

size_t wh_reqmem_parse_budget(size_t body_len)
{
    if (body_len > (WH_REQMEM_REQUEST_MAX - WH_REQMEM_BASE) / WH_REQMEM_PER_BODY_BYTE)
        return WH_REQMEM_REQUEST_MAX;
    return WH_REQMEM_BASE + body_len * WH_REQMEM_PER_BODY_BYTE;
}

void wh_reqmem_set_limit(size_t bytes)
{
    atomic_store(&limit, bytes);
}

size_t wh_reqmem_limit(void)
{
    return atomic_load(&limit);
}

bool wh_reqmem_take(size_t n)
{
    size_t max = atomic_load_explicit(&limit, memory_order_relaxed);
    size_t cur = atomic_load_explicit(&in_use, memory_order_relaxed);
    do {
        if (max && (n > max || cur > max - n))
            return false;
    } while (!atomic_compare_exchange_weak(&in_use, &cur, cur + n));
    return true;
}

void wh_reqmem_give(size_t n)
{
    atomic_fetch_sub(&in_use, n);
}

size_t wh_reqmem_in_use(void)
{
    return atomic_load(&in_use);
}
