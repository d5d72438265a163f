#ifndef WH_UTIL_BUF_H
#define WH_UTIL_BUF_H

/* A growable byte buffer with a hard cap (curl's dynbuf): every buffer fed from outside the
 * process has one. The contents are always NUL-terminated (the NUL is not counted in len and
 * does not count against the cap). Thread rule: single thread only. */

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "util/err.h"

struct wh_buf {
    char *data; /* NULL until the first append */
    size_t len;
    size_t _alloc;
    size_t _cap; /* maximum len */
};

void wh_buf_init(struct wh_buf *b, size_t cap);
/* Releases the memory; b may be reused after wh_buf_init. Accepts a zeroed buffer. */
void wh_buf_fini(struct wh_buf *b);
void wh_buf_reset(struct wh_buf *b);

/* Makes room for `extra` more bytes in one allocation (a body of known length is then never
 * copied while it grows). WH_ERR_TOO_BIG when len + extra exceeds the cap. */
WH_NODISCARD enum wh_err wh_buf_reserve(struct wh_buf *b, size_t extra);

/* What wh_buf_add does when b has no room yet (grows it); call wh_buf_add instead. */
WH_NODISCARD enum wh_err wh_buf_add_grow(struct wh_buf *b, const void *p, size_t n);

/* Returns WH_ERR_TOO_BIG (and leaves b unchanged) when the result would exceed the cap. Inline
 * because the JSON writers append a few bytes at a time: with room already allocated an append
 * is a copy and a store. */
WH_NODISCARD static inline enum wh_err wh_buf_add(struct wh_buf *b, const void *p, size_t n)
{
    if (n < b->_alloc - b->len && n <= b->_cap - b->len) {
        memcpy(b->data + b->len, p, n);
        b->len += n;
        b->data[b->len] = '\0';
        return WH_OK;
    }
    return wh_buf_add_grow(b, p, n);
}

WH_NODISCARD static inline enum wh_err wh_buf_addc(struct wh_buf *b, char c)
{
    if (b->len + 1 < b->_alloc && b->len < b->_cap) {
        b->data[b->len++] = c;
        b->data[b->len] = '\0';
        return WH_OK;
    }
    return wh_buf_add_grow(b, &c, 1);
}

WH_NODISCARD enum wh_err wh_buf_adds(struct wh_buf *b, const char *s);
/* Appends v in decimal (what printf's %lld writes, without the cost of printf). */
WH_NODISCARD enum wh_err wh_buf_add_int(struct wh_buf *b, long long v);
WH_NODISCARD enum wh_err wh_buf_printf(struct wh_buf *b, const char *fmt, ...) WH_PRINTF(2, 3);
WH_NODISCARD enum wh_err wh_buf_vprintf(struct wh_buf *b, const char *fmt, va_list ap)
    WH_PRINTF(2, 0);
/* wh_buf_printf for text built within a cap chosen far above what it can hold (values printed
 * into messages): a cut at the cap is the only failure, and leaves what fitted. */
void wh_buf_put(struct wh_buf *b, const char *fmt, ...) WH_PRINTF(2, 3);

/* Hands the contents over (NUL-terminated, caller frees; never NULL) and resets b. */
char *wh_buf_take(struct wh_buf *b, size_t *len);
/* wh_buf_take for contents that are kept a while after they are written (an answer waiting to
 * be sent): the memory handed over is cut to their length when the doubling that built them
 * left 4 KiB or more unused. */
char *wh_buf_take_fitted(struct wh_buf *b, size_t *len);

#endif
