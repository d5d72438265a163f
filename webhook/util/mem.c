#include "util/mem.h"

#include <stdlib.h>
#include <string.h>

#include "util/err.h"

void *wh_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        WH_PANIC("out of memory allocating %zu bytes", n);
    return p;
}

void *wh_xcalloc(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p)
        WH_PANIC("out of memory allocating %zu x %zu bytes", count, size);
    return p;
}

void *wh_xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        WH_PANIC("out of memory reallocating %zu bytes", n);
    return q;
}

char *wh_xstrdup(const char *s)
{
    return wh_xstrndup(s, strlen(s));
}

char *wh_xstrndup(const char *s, size_t n)
{
    char *p = wh_xmalloc(n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}
