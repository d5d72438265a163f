#include "gocompat/strconv.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "k8s/fielderr.h"
#include "util/mem.h"
#include "util/str.h"

/* Go's *NumError text: `strconv.<fn>: parsing "<s>": <what>`, s quoted with strconv.Quote. */
static enum wh_err num_error(struct wh_errbuf *eb, const char *fn, const char *s, const char *what)
{
    char *q = wh_go_quote(s);
    enum wh_err rc = wh_errbuf_set(eb, WH_ERR_INVALID, "strconv.%s: parsing %s: %s", fn, q, what);
    free(q);
    return rc;
}

/* ParseInt(s, 10, bits)'s verdict: NULL when it parses (*out), else what its error says; *out
 * is then what Go returns with it. */
static const char *parse_int_core(const char *s, int bits, int64_t *out)
{
    const char *p = s;
    bool neg = false;
    *out = 0;
    if (*p == '+' || *p == '-') {
        neg = *p == '-';
        p++;
    }
    if (!*p)
        return "invalid syntax";
    uint64_t limit = bits == 32 ? (uint64_t)1 << 31 : (uint64_t)1 << 63;
    uint64_t v = 0;
    bool over = false;
    /* ParseUint reads digit by digit and gives up at the first that overflows 64 bits: what
     * follows it is not looked at ("99999999999999999999x" is out of range, not a syntax
     * error) */
    for (; *p && !over; p++) {
        if (*p < '0' || *p > '9')
            return "invalid syntax";
        uint64_t d = (uint64_t)(*p - '0');
        if (v > (UINT64_MAX - d) / 10)
            over = true;
        else
            v = v * 10 + d;
    }
    if (over || (!neg && v >= limit) || (neg && v > limit)) {
        /* Go returns the bound of the bit size, with the sign of s */
        *out = neg ? -(int64_t)(limit - 1) - 1 : (int64_t)(limit - 1);
        return "value out of range";
    }
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return NULL;
}

static enum wh_err parse_int(const char *fn, const char *s, int bits, int64_t *out,
                             struct wh_errbuf *eb)
{
    const char *what = parse_int_core(s, bits, out);
    return what ? num_error(eb, fn, s, what) : WH_OK;
}

enum wh_err wh_go_parse_int(const char *s, int bits, int64_t *out, struct wh_errbuf *eb)
{
    return parse_int("ParseInt", s, bits, out, eb);
}

enum wh_err wh_go_atoi(const char *s, int64_t *out, struct wh_errbuf *eb)
{
    return parse_int("Atoi", s, 64, out, eb);
}

enum wh_err wh_go_atoi_message(const char *s, int64_t *out, char **message)
{
    const char *what = parse_int_core(s, 64, out);
    *message = NULL;
    if (!what)
        return WH_OK;
    char *q = wh_go_quote(s);
    *message = wh_str_printf("strconv.Atoi: parsing %s: %s", q, what);
    free(q);
    return WH_ERR_INVALID;
}

int64_t wh_go_atoi_or_zero(const char *s)
{
    int64_t v = 0;
    if (wh_go_atoi(s, &v, NULL))
        return 0;
    return v;
}

static int lower(int c)
{
    return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

/* strconv's special(): the length of a whole "inf", "infinity" or "nan" with an optional sign
 * before the infinities, case-insensitively; 0 when s is not one. */
static size_t special(const char *s, double *v)
{
    static const char inf[] = "infinity";
    size_t sign = 0;
    double sv = 1;
    if (*s == '+' || *s == '-') {
        sv = *s == '-' ? -1 : 1;
        sign = 1;
    }
    const char *p = s + sign;
    size_t n = 0;
    while (n < 8 && p[n] && lower((unsigned char)p[n]) == inf[n])
        n++;
    if (n > 3 && n < 8)
        n = 3;
    if (n == 3 || n == 8) {
        *v = sv * INFINITY;
        return sign + n;
    }
    if (!sign && lower((unsigned char)s[0]) == 'n' && lower((unsigned char)s[1]) == 'a' &&
        lower((unsigned char)s[2]) == 'n') {
        *v = NAN;
        return 3;
    }
    return 0;
}

/* strconv's underscoreOK: underscores only between digits, or between a base prefix and a
 * digit. */
static bool underscores_ok(const char *s, size_t len)
{
    char saw = '^';
    size_t i = 0;
    bool hex = false;
    if (len >= 1 && (s[0] == '-' || s[0] == '+')) {
        s++;
        len--;
    }
    if (len >= 2 && s[0] == '0' &&
        (lower((unsigned char)s[1]) == 'b' || lower((unsigned char)s[1]) == 'o' ||
         lower((unsigned char)s[1]) == 'x')) {
        i = 2;
        saw = '0';
        hex = lower((unsigned char)s[1]) == 'x';
    }
    for (; i < len; i++) {
        int c = lower((unsigned char)s[i]);
        if ((c >= '0' && c <= '9') || (hex && c >= 'a' && c <= 'f')) {
            saw = '0';
            continue;
        }
        if (c == '_') {
            if (saw != '0')
                return false;
            saw = '_';
            continue;
        }
        if (saw == '_')
            return false;
        saw = '!';
    }
    return saw != '_';
}

/* strconv's readFloat, for syntax only: true when the whole of s is a float literal. */
static bool float_syntax(const char *s)
{
    size_t i = 0, n = strlen(s);
    bool hex = false, digits = false, underscores = false, dot = false;
    if (i < n && (s[i] == '+' || s[i] == '-'))
        i++;
    if (i + 2 < n + 1 && i + 1 < n && s[i] == '0' && lower((unsigned char)s[i + 1]) == 'x') {
        hex = true;
        i += 2;
    }
    for (; i < n; i++) {
        int c = lower((unsigned char)s[i]);
        if (c == '_') {
            underscores = true;
            continue;
        }
        if (c == '.') {
            if (dot)
                break;
            dot = true;
            continue;
        }
        if ((c >= '0' && c <= '9') || (hex && c >= 'a' && c <= 'f')) {
            digits = true;
            continue;
        }
        break;
    }
    if (!digits)
        return false;
    if (i < n && lower((unsigned char)s[i]) == (hex ? 'p' : 'e')) {
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-'))
            i++;
        if (i >= n || s[i] < '0' || s[i] > '9')
            return false;
        while (i < n && ((s[i] >= '0' && s[i] <= '9') || s[i] == '_')) {
            if (s[i] == '_')
                underscores = true;
            i++;
        }
    } else if (hex) {
        return false; /* a hexadecimal mantissa needs its p exponent */
    }
    if (i != n)
        return false;
    return !underscores || underscores_ok(s, n);
}

enum wh_err wh_go_parse_float(const char *s, double *out, struct wh_errbuf *eb)
{
    *out = 0;
    double v;
    size_t sp = special(s, &v);
    if (sp && sp == strlen(s)) {
        *out = v;
        return WH_OK;
    }
    if (!float_syntax(s))
        return num_error(eb, "ParseFloat", s, "invalid syntax");
    size_t n = strlen(s);
    char *clean = wh_xmalloc(n + 1), *q = clean;
    for (size_t i = 0; i < n; i++) {
        if (s[i] != '_')
            *q++ = s[i];
    }
    *q = 0;
    errno = 0;
    char *end = NULL;
    v = strtod(clean, &end);
    bool overflow = errno == ERANGE && isinf(v);
    free(clean);
    *out = v;
    if (overflow)
        return num_error(eb, "ParseFloat", s, "value out of range");
    return WH_OK;
}

int64_t wh_go_float_to_int(double v)
{
    if (isnan(v) || v >= 9223372036854775808.0 || v < -9223372036854775808.0)
        return INT64_MIN;
    return (int64_t)v;
}
