#include "util/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/mem.h"

void wh_buf_init(struct wh_buf *b, size_t cap)
{
    b->data = NULL;
    b->len = 0;
    b->_alloc = 0;
    b->_cap = cap;
}

void wh_buf_fini(struct wh_buf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = 0;
    b->_alloc = 0;
}

void wh_buf_reset(struct wh_buf *b)
{
    b->len = 0;
    if (b->data)
        b->data[0] = '\0';
}

static enum wh_err reserve(struct wh_buf *b, size_t extra)
{
    if (extra > b->_cap || b->len > b->_cap - extra)
        return WH_ERR_TOO_BIG;
    size_t need = b->len + extra + 1;
    if (need <= b->_alloc)
        return WH_OK;
    size_t n = b->_alloc ? b->_alloc : 64;
    while (n < need)
        n = n > ((size_t)-1) / 2 ? need : n * 2;
    b->data = wh_xrealloc(b->data, n);
    b->_alloc = n;
    return WH_OK;
}

enum wh_err wh_buf_reserve(struct wh_buf *b, size_t extra)
{
    if (extra > b->_cap || b->len > b->_cap - extra)
        return WH_ERR_TOO_BIG;
    size_t need = b->len + extra + 1;
    if (need > b->_alloc) {
        b->data = wh_xrealloc(b->data, need);
        b->_alloc = need;
        b->data[b->len] = '\0';
    }
    return WH_OK;
}

enum wh_err wh_buf_add_grow(struct wh_buf *b, const void *p, size_t n)
{
    enum wh_err rc = reserve(b, n);
    if (rc)
        return rc;
    if (n)
        memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = '\0';
    return WH_OK;
}

enum wh_err wh_buf_adds(struct wh_buf *b, const char *s)
{
    return wh_buf_add(b, s, strlen(s));
}

enum wh_err wh_buf_add_int(struct wh_buf *b, long long v)
{
    char tmp[24];
    char *p = tmp + sizeof(tmp);
    /* Work on the magnitude as unsigned so LLONG_MIN needs no special case. */
    unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
    do {
        *--p = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        *--p = '-';
    return wh_buf_add(b, p, (size_t)(tmp + sizeof(tmp) - p));
}

enum wh_err wh_buf_vprintf(struct wh_buf *b, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0)
        return WH_ERR_INVALID;
    enum wh_err rc = reserve(b, (size_t)n);
    if (rc)
        return rc;
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
    return WH_OK;
}

enum wh_err wh_buf_printf(struct wh_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    enum wh_err rc = wh_buf_vprintf(b, fmt, ap);
    va_end(ap);
    return rc;
}

void wh_buf_put(struct wh_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    enum wh_err rc = wh_buf_vprintf(b, fmt, ap);
    va_end(ap);
    (void)rc;
}

char *wh_buf_take(struct wh_buf *b, size_t *len)
{
    char *p = b->data ? b->data : wh_xstrdup("");
    if (len)
        *len = b->len;
    b->data = NULL;
    b->len = 0;
    b->_alloc = 0;
    return p;
}

/* Unused bytes worth a realloc: below this the cut saves less than malloc's own rounding. */
#define FIT_SLACK 4096

char *wh_buf_take_fitted(struct wh_buf *b, size_t *len)
{
    if (b->data && b->_alloc - b->len - 1 >= FIT_SLACK) {
        b->data = wh_xrealloc(b->data, b->len + 1);
        b->_alloc = b->len + 1;
    }
    return wh_buf_take(b, len);
}
