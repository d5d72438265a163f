#include "util/str.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/mem.h"

enum wh_err wh_str_to_ll(const char *s, long long min, long long max, long long *out)
{
    if (!s || !*s || isspace((unsigned char)*s))
        return WH_ERR_INVALID;
    char *end = NULL;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || !end || *end != '\0' || v < min || v > max)
        return WH_ERR_INVALID;
    *out = v;
    return WH_OK;
}

const char *wh_str_go_parse_int(const char *s, size_t n, int bits, long long *out)
{
    static const char syntax[] = "invalid syntax", range[] = "value out of range";
    size_t i = 0;
    bool neg = false;
    if (n && (s[0] == '+' || s[0] == '-')) {
        neg = s[0] == '-';
        i = 1;
    }
    if (i == n)
        return syntax;
    /* ParseUint: a syntax error at the first byte that is not a digit, a range error as soon as
     * the value passes the largest of bits bits */
    uint64_t max = bits >= 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1, v = 0;
    for (; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return syntax;
        if (v >= UINT64_MAX / 10 + 1)
            return range;
        v *= 10;
        uint64_t next = v + (uint64_t)(s[i] - '0');
        if (next < v || next > max)
            return range;
        v = next;
    }
    uint64_t cutoff = (uint64_t)1 << (bits - 1);
    if ((!neg && v >= cutoff) || (neg && v > cutoff))
        return range;
    *out = neg ? (long long)(0 - v) : (long long)v;
    return NULL;
}

enum wh_err wh_str_to_bool(const char *s, bool *out)
{
    static const char *const yes[] = {"true", "1", "yes", "on"};
    static const char *const no[] = {"false", "0", "no", "off"};
    if (!s)
        return WH_ERR_INVALID;
    for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
        if (strcasecmp(s, yes[i]) == 0) {
            *out = true;
            return WH_OK;
        }
        if (strcasecmp(s, no[i]) == 0) {
            *out = false;
            return WH_OK;
        }
    }
    return WH_ERR_INVALID;
}

enum wh_err wh_str_to_go_bool(const char *s, bool *out)
{
    static const char *const yes[] = {"1", "t", "T", "TRUE", "true", "True"};
    static const char *const no[] = {"0", "f", "F", "FALSE", "false", "False"};
    for (size_t i = 0; s && i < sizeof(yes) / sizeof(yes[0]); i++) {
        if (strcmp(s, yes[i]) == 0) {
            *out = true;
            return WH_OK;
        }
        if (strcmp(s, no[i]) == 0) {
            *out = false;
            return WH_OK;
        }
    }
    return WH_ERR_INVALID;
}

enum wh_err wh_str_to_duration_ms(const char *s, long long *out_ms)
{
    if (!s || !*s)
        return WH_ERR_INVALID;
    long long total = 0;
    const char *p = s;
    while (*p) {
        if (!isdigit((unsigned char)*p))
            return WH_ERR_INVALID;
        char *end = NULL;
        errno = 0;
        long long v = strtoll(p, &end, 10);
        if (errno || v < 0)
            return WH_ERR_INVALID;
        long long unit;
        if (*end == '\0' && p == s) {
            unit = 1000; /* a bare number is seconds */
        } else if (strncmp(end, "ms", 2) == 0) {
            unit = 1;
            end += 2;
        } else if (*end == 's') {
            unit = 1000;
            end++;
        } else if (*end == 'm') {
            unit = 60 * 1000;
            end++;
        } else if (*end == 'h') {
            unit = 3600 * 1000;
            end++;
        } else {
            return WH_ERR_INVALID;
        }
        if (v > (long long)(INT64_MAX / unit) || total > INT64_MAX - v * unit)
            return WH_ERR_INVALID;
        total += v * unit;
        p = end;
    }
    *out_ms = total;
    return WH_OK;
}

bool wh_str_has_prefix(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

bool wh_str_has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

bool wh_str_eq(const char *a, const char *b)
{
    if (!a || !b)
        return a == b;
    return strcmp(a, b) == 0;
}

char *wh_str_printf(const char *fmt, ...)
{
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        WH_PANIC("bad format string: %s", fmt);
    char *p = wh_xmalloc((size_t)n + 1);
    vsnprintf(p, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    return p;
}

size_t wh_str_utf8_seq(const unsigned char *p, const unsigned char *end, uint32_t *cp)
{
    unsigned char c = p[0];
    size_t n;
    uint32_t v;
    if (c >= 0xc2 && c <= 0xdf) {
        n = 2;
        v = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        v = c & 0x0f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        v = c & 0x07;
    } else {
        return 0;
    }
    if ((size_t)(end - p) < n)
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xc0) != 0x80)
            return 0;
        v = v << 6 | (p[i] & 0x3f);
    }
    if ((n == 3 && v < 0x800) || (n == 4 && (v < 0x10000 || v > 0x10ffff)) ||
        (v >= 0xd800 && v <= 0xdfff))
        return 0;
    *cp = v;
    return n;
}
