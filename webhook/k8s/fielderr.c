#include "k8s/fielderr.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/mem.h"
#include "util/str.h"

/* Messages are built from request data; the cap keeps one absurd value from growing a reply
 * without bound (the API server's own request limit is far below it anyway). */
#define ERROR_TEXT_CAP (4u << 20)

void wh_ferrs_init(struct wh_field_errors *l)
{
    memset(l, 0, sizeof(*l));
}

void wh_ferrs_fini(struct wh_field_errors *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->items[i]);
    free(l->items);
    memset(l, 0, sizeof(*l));
}

static void push(struct wh_field_errors *l, char *text)
{
    if (l->n == l->_cap) {
        l->_cap = l->_cap ? 2 * l->_cap : 8;
        l->items = wh_xrealloc(l->items, l->_cap * sizeof(*l->items));
    }
    l->items[l->n++] = text;
}

void wh_ferr_add_text(struct wh_field_errors *l, const char *text)
{
    push(l, wh_xstrdup(text));
}

static void add(struct wh_field_errors *l, const char *path, const char *type, const char *value,
                const char *detail)
{
    struct wh_buf b;
    enum wh_err rc;
    wh_buf_init(&b, ERROR_TEXT_CAP);
    rc = wh_buf_printf(&b, "%s: %s", path, type);
    if (!rc && value)
        rc = wh_buf_printf(&b, ": %s", value);
    if (!rc && detail && *detail)
        rc = wh_buf_printf(&b, ": %s", detail);
    (void)rc; /* over the cap: the text stays truncated at the last whole part */
    push(l, wh_buf_take(&b, NULL));
}

void wh_ferr_required(struct wh_field_errors *l, const char *path, const char *detail)
{
    add(l, path, "Required value", NULL, detail);
}

void wh_ferr_forbidden(struct wh_field_errors *l, const char *path, const char *detail)
{
    add(l, path, "Forbidden", NULL, detail);
}

void wh_ferr_internal(struct wh_field_errors *l, const char *path, const char *detail)
{
    add(l, path, "Internal error", NULL, detail);
}

void wh_ferr_too_long(struct wh_field_errors *l, const char *path, int max)
{
    char detail[64];
    snprintf(detail, sizeof(detail), "may not be more than %d bytes", max);
    add(l, path, "Too long", NULL, detail);
}

void wh_ferr_invalid_str(struct wh_field_errors *l, const char *path, const char *value,
                         const char *detail)
{
    char *q = wh_go_quote(value ? value : "");
    add(l, path, "Invalid value", q, detail);
    free(q);
}

void wh_ferr_invalid_int(struct wh_field_errors *l, const char *path, long long value,
                         const char *detail)
{
    char v[32];
    snprintf(v, sizeof(v), "%lld", value);
    add(l, path, "Invalid value", v, detail);
}

void wh_ferr_invalid_raw(struct wh_field_errors *l, const char *path, const char *rendered,
                         const char *detail)
{
    add(l, path, "Invalid value", rendered, detail);
}

static void not_supported(struct wh_field_errors *l, const char *path, const char *rendered,
                          const char *const *valid, size_t nvalid)
{
    struct wh_buf d;
    wh_buf_init(&d, ERROR_TEXT_CAP);
    enum wh_err rc = WH_OK;
    if (nvalid)
        rc = wh_buf_adds(&d, "supported values: ");
    for (size_t i = 0; i < nvalid && !rc; i++) {
        char *v = wh_go_quote(valid[i]);
        rc = wh_buf_printf(&d, "%s%s", i ? ", " : "", v);
        free(v);
    }
    char *detail = wh_buf_take(&d, NULL);
    add(l, path, "Unsupported value", rendered, detail);
    free(detail);
}

void wh_ferr_not_supported(struct wh_field_errors *l, const char *path, const char *value,
                           const char *const *valid, size_t nvalid)
{
    char *q = wh_go_quote(value ? value : "");
    not_supported(l, path, q, valid, nvalid);
    free(q);
}

void wh_ferr_not_supported_raw(struct wh_field_errors *l, const char *path, const char *rendered,
                               const char *const *valid, size_t nvalid)
{
    not_supported(l, path, rendered, valid, nvalid);
}

void wh_ferr_not_found(struct wh_field_errors *l, const char *path, const char *value)
{
    char *q = wh_go_quote(value ? value : "");
    add(l, path, "Not found", q, NULL);
    free(q);
}

void wh_ferr_duplicate(struct wh_field_errors *l, const char *path, const char *value)
{
    char *q = wh_go_quote(value ? value : "");
    add(l, path, "Duplicate value", q, NULL);
    free(q);
}

void wh_ferr_duplicate_raw(struct wh_field_errors *l, const char *path, const char *rendered)
{
    add(l, path, "Duplicate value", rendered, NULL);
}

char *wh_ferrs_aggregate(const struct wh_field_errors *l)
{
    struct wh_buf b;
    size_t kept = 0;
    const char *first = NULL;
    if (l->n == 0)
        return NULL;
    wh_buf_init(&b, ERROR_TEXT_CAP);
    for (size_t i = 0; i < l->n; i++) {
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = strcmp(l->items[i], l->items[j]) == 0;
        if (seen)
            continue;
        if (kept++ == 0)
            first = l->items[i];
        if (wh_buf_printf(&b, "%s%s", kept > 1 ? ", " : "", l->items[i]))
            break;
    }
    if (kept == 1) {
        wh_buf_fini(&b);
        return wh_xstrdup(first);
    }
    char *joined = wh_buf_take(&b, NULL);
    char *out = wh_str_printf("[%s]", joined);
    free(joined);
    return out;
}

/* Decodes one UTF-8 sequence at s (n bytes left); returns its length, 0 when invalid. */
static size_t utf8_decode(const unsigned char *s, size_t n, uint32_t *cp)
{
    size_t len;
    uint32_t c;
    if (s[0] < 0x80) {
        *cp = s[0];
        return 1;
    }
    if ((s[0] & 0xe0) == 0xc0) {
        len = 2;
        c = s[0] & 0x1f;
    } else if ((s[0] & 0xf0) == 0xe0) {
        len = 3;
        c = s[0] & 0x0f;
    } else if ((s[0] & 0xf8) == 0xf0) {
        len = 4;
        c = s[0] & 0x07;
    } else {
        return 0;
    }
    if (len > n)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        c = (c << 6) | (s[i] & 0x3f);
    }
    static const uint32_t min_cp[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (c < min_cp[len] || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
        return 0;
    *cp = c;
    return len;
}

#include "k8s/goisprint.inc"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* The first index i with a[i] >= x (Go's bsearch in strconv), over 16- or 32-bit entries. */
static size_t lower_bound(const void *a, size_t n, bool wide, uint32_t x)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t m = lo + (hi - lo) / 2;
        uint32_t v = wide ? ((const uint32_t *)a)[m] : ((const uint16_t *)a)[m];
        if (v < x)
            lo = m + 1;
        else
            hi = m;
    }
    return lo;
}

/* strconv.IsPrint: what strconv.Quote keeps as it is (letters, marks, numbers, punctuation,
 * symbols and the ASCII space; not the other spaces, format or unassigned runes). */
bool wh_go_is_print(uint32_t r)
{
    if (r <= 0xff)
        return (r >= 0x20 && r <= 0x7e) || (r >= 0xa1 && r != 0xad);
    if (r < 0x10000) {
        uint16_t rr = (uint16_t)r;
        size_t i = lower_bound(is_print16, COUNT(is_print16), false, rr);
        if (i >= COUNT(is_print16) || rr < is_print16[i & ~(size_t)1] || is_print16[i | 1] < rr)
            return false;
        size_t j = lower_bound(is_not_print16, COUNT(is_not_print16), false, rr);
        return !(j < COUNT(is_not_print16) && is_not_print16[j] == rr);
    }
    size_t i = lower_bound(is_print32, COUNT(is_print32), true, r);
    if (i >= COUNT(is_print32) || r < is_print32[i & ~(size_t)1] || is_print32[i | 1] < r)
        return false;
    if (r >= 0x20000)
        return true;
    uint16_t rr = (uint16_t)(r - 0x10000);
    size_t j = lower_bound(is_not_print32, COUNT(is_not_print32), false, rr);
    return !(j < COUNT(is_not_print32) && is_not_print32[j] == rr);
}

size_t wh_go_rune(const char *s, uint32_t *r)
{
    size_t len = utf8_decode((const unsigned char *)s, strlen(s), r);
    if (len == 0) {
        *r = 0xfffd;
        return 1;
    }
    return len;
}

char *wh_go_quote(const char *s)
{
    return wh_go_quoten(s, strlen(s));
}

char *wh_go_quoten(const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    struct wh_buf b;
    size_t i = 0;
    wh_buf_init(&b, ERROR_TEXT_CAP);
    enum wh_err rc = wh_buf_addc(&b, '"');
    while (!rc && i < n) {
        uint32_t cp = 0;
        size_t len = utf8_decode((const unsigned char *)s + i, n - i, &cp);
        if (len == 0) {
            unsigned char c = (unsigned char)s[i];
            char esc[5] = {'\\', 'x', hex[c >> 4], hex[c & 0xf], 0};
            rc = wh_buf_adds(&b, esc);
            i++;
            continue;
        }
        if (len > 1) {
            /* non-ASCII runes are kept when strconv.IsPrint says so */
            if (!wh_go_is_print(cp))
                rc = cp > 0xffff ? wh_buf_printf(&b, "\\U%08x", (unsigned)cp)
                                 : wh_buf_printf(&b, "\\u%04x", (unsigned)cp);
            else
                rc = wh_buf_add(&b, s + i, len);
            i += len;
            continue;
        }
        char c = s[i++];
        switch (c) {
        case '"':
            rc = wh_buf_adds(&b, "\\\"");
            break;
        case '\\':
            rc = wh_buf_adds(&b, "\\\\");
            break;
        case '\a':
            rc = wh_buf_adds(&b, "\\a");
            break;
        case '\b':
            rc = wh_buf_adds(&b, "\\b");
            break;
        case '\f':
            rc = wh_buf_adds(&b, "\\f");
            break;
        case '\n':
            rc = wh_buf_adds(&b, "\\n");
            break;
        case '\r':
            rc = wh_buf_adds(&b, "\\r");
            break;
        case '\t':
            rc = wh_buf_adds(&b, "\\t");
            break;
        case '\v':
            rc = wh_buf_adds(&b, "\\v");
            break;
        default:
            if ((unsigned char)c < 0x20 || c == 0x7f) {
                char esc[5] = {'\\', 'x', hex[(unsigned char)c >> 4], hex[c & 0xf], 0};
                rc = wh_buf_adds(&b, esc);
            } else {
                rc = wh_buf_addc(&b, c);
            }
        }
    }
    if (!rc)
        rc = wh_buf_addc(&b, '"');
    return wh_buf_take(&b, NULL);
}

/* Whether fmt converts nothing but %s and %zu. */
static bool plain_path_format(const char *fmt)
{
    for (; *fmt; fmt++) {
        if (*fmt != '%')
            continue;
        if (fmt[1] == 's')
            fmt++;
        else if (fmt[1] == 'z' && fmt[2] == 'u')
            fmt += 2;
        else
            return false;
    }
    return true;
}

/* Appends n bytes of s at *len, as far as outsz - 1 allows. */
static void path_append(char *out, size_t outsz, size_t *len, const char *s, size_t n)
{
    size_t room = outsz - 1 - *len;
    n = n < room ? n : room;
    memmove(out + *len, s, n);
    *len += n;
}

/* A field's path is built for every field validated, whether or not it is ever named in an
 * error, so the formats every path uses (%s, %zu and text: "%s[%zu]", "%s.name") are written
 * here rather than through vsnprintf's machinery, which cost a validation a fifth of its time;
 * another conversion goes to vsnprintf. Both truncate alike: a truncated path still names the
 * field well enough. */
char *wh_fpath(char *out, size_t outsz, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (!outsz || !plain_path_format(fmt)) {
        (void)vsnprintf(out, outsz, fmt, ap);
        va_end(ap);
        return out;
    }
    size_t len = 0;
    for (const char *f = fmt; *f && len < outsz - 1;) {
        const char *pct = strchr(f, '%');
        size_t lit = pct ? (size_t)(pct - f) : strlen(f);
        path_append(out, outsz, &len, f, lit);
        if (!pct)
            break;
        if (pct[1] == 's') {
            const char *arg = va_arg(ap, const char *);
            if (!arg)
                arg = "(null)"; /* as glibc's printf writes it */
            path_append(out, outsz, &len, arg, strlen(arg));
            f = pct + 2;
        } else { /* %zu */
            char digits[24];
            size_t v = va_arg(ap, size_t), d = sizeof(digits);
            do {
                digits[--d] = (char)('0' + v % 10);
                v /= 10;
            } while (v);
            path_append(out, outsz, &len, digits + d, sizeof(digits) - d);
            f = pct + 3;
        }
    }
    out[len] = '\0';
    va_end(ap);
    return out;
}
