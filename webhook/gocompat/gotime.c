#include "gocompat/gotime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/mem.h"
#include "util/str.h"
#include "util/utf8.h"

/* The pieces of the two layouts, in the order Go's parser meets them (nextStdChunk): a literal
 * separator, or a std element with its layout text (quoted in error messages). */
enum elem { E_END, E_LIT, E_YEAR, E_MONTH, E_DAY, E_HOUR, E_MINUTE, E_SECOND, E_FRAC6, E_ZONE };

struct step {
    enum elem e;
    const char *text;
};

static const struct step rfc3339[] = {
    {E_YEAR, "2006"}, {E_LIT, "-"},       {E_MONTH, "01"}, {E_LIT, "-"},     {E_DAY, "02"},
    {E_LIT, "T"},     {E_HOUR, "15"},     {E_LIT, ":"},    {E_MINUTE, "04"}, {E_LIT, ":"},
    {E_SECOND, "05"}, {E_ZONE, "Z07:00"}, {E_END, NULL},
};
static const struct step rfc3339_micro[] = {
    {E_YEAR, "2006"}, {E_LIT, "-"},         {E_MONTH, "01"},    {E_LIT, "-"},     {E_DAY, "02"},
    {E_LIT, "T"},     {E_HOUR, "15"},       {E_LIT, ":"},       {E_MINUTE, "04"}, {E_LIT, ":"},
    {E_SECOND, "05"}, {E_FRAC6, ".000000"}, {E_ZONE, "Z07:00"}, {E_END, NULL},
};

static const char *const layout_text[] = {"2006-01-02T15:04:05Z07:00",
                                          "2006-01-02T15:04:05.000000Z07:00"};

/* A bounded string builder over the caller's error buffer. */
struct sb {
    char *p;
    size_t n, cap;
};

static void sb_putc(struct sb *b, char c)
{
    if (b->n + 1 < b->cap)
        b->p[b->n++] = c;
    b->p[b->n < b->cap ? b->n : b->cap - 1] = '\0';
}

static void sb_puts(struct sb *b, const char *s)
{
    for (; *s; s++)
        sb_putc(b, *s);
}

/* Go's time.quote: '"' and '\\' escaped, bytes outside printable ASCII as \xNN. */
static void sb_quote(struct sb *b, const char *s, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    sb_putc(b, '"');
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < ' ' || c >= 0x80) {
            sb_puts(b, "\\x");
            sb_putc(b, hex[c >> 4]);
            sb_putc(b, hex[c & 0xf]);
            continue;
        }
        if (c == '"' || c == '\\')
            sb_putc(b, '\\');
        sb_putc(b, (char)c);
    }
    sb_putc(b, '"');
}

/* time.ParseError: "cannot parse <rest> as <as>" or, when msg is given, that message (with rest
 * quoted after it when there is one: "extra text"). */
static enum wh_err parse_error(struct wh_errbuf *eb, enum wh_gotime_layout layout, const char *s,
                               size_t len, const char *rest, size_t restlen, const char *as,
                               const char *msg)
{
    if (!eb)
        return WH_ERR_INVALID;
    struct sb b = {eb->msg, 0, sizeof(eb->msg)};
    eb->msg[0] = '\0';
    sb_puts(&b, "parsing time ");
    sb_quote(&b, s, len);
    if (msg) {
        sb_puts(&b, msg);
        if (rest)
            sb_quote(&b, rest, restlen);
        return WH_ERR_INVALID;
    }
    sb_puts(&b, " as ");
    sb_quote(&b, layout_text[layout], strlen(layout_text[layout]));
    sb_puts(&b, ": cannot parse ");
    sb_quote(&b, rest, restlen);
    sb_puts(&b, " as ");
    sb_quote(&b, as, strlen(as));
    return WH_ERR_INVALID;
}

static bool is_digit(const char *p, size_t left, size_t i)
{
    return i < left && p[i] >= '0' && p[i] <= '9';
}

/* Go's getnum: one or two digits (exactly two when fixed). */
static bool getnum(const char **p, size_t *left, bool fixed, int *out)
{
    if (!is_digit(*p, *left, 0))
        return false;
    if (!is_digit(*p, *left, 1)) {
        if (fixed)
            return false;
        *out = (*p)[0] - '0';
        (*p)++;
        (*left)--;
        return true;
    }
    *out = ((*p)[0] - '0') * 10 + ((*p)[1] - '0');
    *p += 2;
    *left -= 2;
    return true;
}

/* Go's atoi on s[0..n): an optional sign, then only digits. */
static bool go_atoi(const char *s, size_t n, long long *out)
{
    bool neg = false;
    if (n > 0 && (s[0] == '-' || s[0] == '+')) {
        neg = s[0] == '-';
        s++;
        n--;
    }
    long long x = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        x = x * 10 + (s[i] - '0');
    }
    *out = neg ? -x : x;
    return true;
}

/* Go's parseNanoseconds: s[0] is the decimal point, s[1..n) the digits (at most nine count). */
static bool nanoseconds(const char *s, size_t n, int32_t *ns, bool *range)
{
    if (s[0] != '.' && s[0] != ',')
        return false;
    if (n > 10)
        n = 10;
    long long x;
    if (!go_atoi(s + 1, n - 1, &x))
        return false;
    if (x < 0) {
        *range = true;
        return true;
    }
    for (size_t i = n; i < 10; i++)
        x *= 10;
    *ns = (int32_t)x;
    return true;
}

static bool leap(long long y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static int days_in(int month, long long year)
{
    static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return days[month - 1] + (month == 2 && leap(year));
}

/* Days from 1970-01-01 to y-m-d, proleptic Gregorian (Howard Hinnant's algorithm). */
static int64_t days_from_civil(int64_t y, int m, int d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static void civil_from_days(int64_t z, int64_t *y, int *m, int *d)
{
    z += 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    *d = (int)(doy - (153 * mp + 2) / 5 + 1);
    *m = (int)(mp < 10 ? mp + 3 : mp - 9);
    *y = yoe + era * 400 + (*m <= 2);
}

enum wh_err wh_gotime_parse(const char *s, size_t len, enum wh_gotime_layout layout,
                            struct wh_gotime *out, struct wh_errbuf *eb)
{
    const struct step *steps = layout == WH_GOTIME_RFC3339 ? rfc3339 : rfc3339_micro;
    const char *p = s;
    size_t left = len;
    long long year = 0;
    int month = 1, day = 1, hour = 0, min = 0, sec = 0, offset = 0;
    int32_t nsec = 0;
    for (const struct step *st = steps;; st++) {
        if (st->e == E_END) {
            if (left)
                return parse_error(eb, layout, s, len, p, left, NULL, ": extra text: ");
            break;
        }
        if (st->e == E_LIT) {
            if (!left || *p != st->text[0])
                return parse_error(eb, layout, s, len, p, left, st->text, NULL);
            p++;
            left--;
            continue;
        }
        const char *hold = p;
        size_t hold_left = left;
        const char *range = NULL;
        bool ok = true;
        switch (st->e) {
        case E_YEAR:
            ok = left >= 4 && is_digit(p, left, 0) && go_atoi(p, 4, &year);
            if (ok) {
                p += 4;
                left -= 4;
            }
            break;
        case E_MONTH:
            ok = getnum(&p, &left, true, &month);
            if (ok && (month <= 0 || month > 12))
                range = "month";
            break;
        case E_DAY:
            ok = getnum(&p, &left, true, &day);
            break;
        case E_HOUR:
            ok = getnum(&p, &left, false, &hour);
            if (ok && hour >= 24)
                range = "hour";
            break;
        case E_MINUTE:
            ok = getnum(&p, &left, true, &min);
            if (ok && min >= 60)
                range = "minute";
            break;
        case E_SECOND: {
            ok = getnum(&p, &left, true, &sec);
            if (!ok)
                break;
            if (sec >= 60) {
                range = "second";
                break;
            }
            /* a fraction the layout does not name is read here (RFC3339 only) */
            if (left >= 2 && (p[0] == '.' || p[0] == ',') && is_digit(p, left, 1) &&
                st[1].e != E_FRAC6) {
                size_t n = 2;
                while (is_digit(p, left, n))
                    n++;
                bool neg = false;
                ok = nanoseconds(p, n, &nsec, &neg);
                if (neg)
                    range = "fractional second";
                p += n;
                left -= n;
            }
            break;
        }
        case E_FRAC6: {
            bool neg = false;
            ok = left >= 7 && nanoseconds(p, 7, &nsec, &neg);
            if (neg)
                range = "fractional second";
            if (left >= 7) {
                p += 7;
                left -= 7;
            }
            break;
        }
        case E_ZONE: {
            if (left >= 1 && p[0] == 'Z') {
                p++;
                left--;
                break;
            }
            if (left < 6 || p[3] != ':') {
                ok = false;
                break;
            }
            const char *hh = p + 1, *mm = p + 4;
            size_t two = 2;
            int hr = 0, mi = 0;
            ok = getnum(&hh, &two, true, &hr);
            two = 2;
            if (ok)
                ok = getnum(&mm, &two, true, &mi);
            if (!ok)
                hr = mi = 0;
            if (hr > 24)
                range = "time zone offset hour";
            if (mi > 60)
                range = "time zone offset minute";
            offset = (hr * 60 + mi) * 60;
            if (p[0] == '-')
                offset = -offset;
            else if (p[0] != '+')
                ok = false;
            p += 6;
            left -= 6;
            break;
        }
        default:
            break;
        }
        if (range) {
            char msg[64];
            snprintf(msg, sizeof(msg), ": %s out of range", range);
            return parse_error(eb, layout, s, len, NULL, 0, NULL, msg);
        }
        if (!ok)
            return parse_error(eb, layout, s, len, hold, hold_left, st->text, NULL);
    }
    if (day < 1 || day > days_in(month, year))
        return parse_error(eb, layout, s, len, NULL, 0, NULL, ": day out of range");
    out->sec = days_from_civil(year, month, day) * 86400 + hour * 3600 + min * 60 + sec - offset;
    out->nsec = nsec;
    return WH_OK;
}

bool wh_gotime_is_zero(struct wh_gotime t)
{
    return t.sec == WH_GOTIME_ZERO_SEC && t.nsec == 0;
}

size_t wh_gotime_format(struct wh_gotime t, enum wh_gotime_layout layout, char *out, size_t outsz)
{
    int64_t days = t.sec / 86400, rem = t.sec % 86400;
    if (rem < 0) {
        rem += 86400;
        days--;
    }
    int64_t y;
    int m, d;
    civil_from_days(days, &y, &m, &d);
    /* Go prints at least four year digits, a minus sign before negative years */
    char year[24];
    if (y < 0)
        snprintf(year, sizeof(year), "-%04lld", -(long long)y);
    else
        snprintf(year, sizeof(year), "%04lld", (long long)y);
    int n;
    if (layout == WH_GOTIME_RFC3339_MICRO)
        n = snprintf(out, outsz, "%s-%02d-%02dT%02d:%02d:%02d.%06dZ", year, m, d, (int)(rem / 3600),
                     (int)(rem / 60 % 60), (int)(rem % 60), (int)(t.nsec / 1000));
    else
        n = snprintf(out, outsz, "%s-%02d-%02dT%02d:%02d:%02dZ", year, m, d, (int)(rem / 3600),
                     (int)(rem / 60 % 60), (int)(rem % 60));
    if (n < 0 || (size_t)n >= outsz)
        WH_PANIC("time buffer of %zu bytes too small", outsz);
    return (size_t)n;
}

struct wh_gotime wh_gotime_from_ns(int64_t unix_ns)
{
    struct wh_gotime t = {unix_ns / 1000000000, (int32_t)(unix_ns % 1000000000)};
    if (t.nsec < 0) {
        t.nsec += 1000000000;
        t.sec--;
    }
    return t;
}

/* --- time.ParseDuration ------------------------------------------------------------------- */

/* The time package's quote(): ASCII from ' ' up as it is ('"' and '\\' escaped), every byte of
 * any other rune (and each invalid byte) as \xNN. Returns: new string. */
static char *time_quote(const char *s, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    char *out = wh_xmalloc(len * 4 + 3);
    size_t o = 0;
    out[o++] = '"';
    for (size_t i = 0; i < len;) {
        unsigned char c = (unsigned char)s[i];
        size_t size = 1;
        if (c >= 0x80 || c < ' ') {
            wh_utf8_decode((const unsigned char *)s + i, len - i, &size);
            for (size_t j = 0; j < size; j++) {
                unsigned char b = (unsigned char)s[i + j];
                out[o++] = '\\';
                out[o++] = 'x';
                out[o++] = hex[b >> 4];
                out[o++] = hex[b & 15];
            }
        } else {
            if (c == '"' || c == '\\')
                out[o++] = '\\';
            out[o++] = (char)c;
        }
        i += size;
    }
    out[o++] = '"';
    out[o] = '\0';
    return out;
}

static enum wh_err duration_error(const char *what, const char *orig, size_t len, char **message)
{
    char *q = time_quote(orig, len);
    *message = wh_str_printf("time: %s %s", what, q);
    free(q);
    return WH_ERR_INVALID;
}

enum wh_err wh_gotime_parse_duration(const char *orig, size_t len, int64_t *ns, char **message)
{
    static const struct {
        const char *name;
        uint64_t ns;
    } units[] = {{"ns", 1},
                 {"us", 1000},
                 {"\xc2\xb5s", 1000}, /* U+00B5, the micro sign */
                 {"\xce\xbcs", 1000}, /* U+03BC, the Greek mu */
                 {"ms", 1000000},
                 {"s", 1000000000},
                 {"m", 60000000000},
                 {"h", 3600000000000}};
    const uint64_t top = (uint64_t)1 << 63;
    const char *s = orig;
    size_t n = len;
    uint64_t d = 0;
    bool neg = false;
    *ns = 0;
    *message = NULL;
    if (n && (s[0] == '-' || s[0] == '+')) {
        neg = s[0] == '-';
        s++;
        n--;
    }
    if (n == 1 && s[0] == '0')
        return WH_OK;
    if (n == 0)
        return duration_error("invalid duration", orig, len, message);
    while (n) {
        uint64_t v = 0, f = 0;
        double scale = 1;
        if (!(s[0] == '.' || (s[0] >= '0' && s[0] <= '9')))
            return duration_error("invalid duration", orig, len, message);
        /* leadingInt: an overflow is an invalid duration */
        size_t pl = n;
        while (n && s[0] >= '0' && s[0] <= '9') {
            if (v > top / 10)
                return duration_error("invalid duration", orig, len, message);
            v = v * 10 + (uint64_t)(s[0] - '0');
            if (v > top)
                return duration_error("invalid duration", orig, len, message);
            s++;
            n--;
        }
        bool pre = pl != n, post = false;
        if (n && s[0] == '.') {
            s++;
            n--;
            pl = n;
            /* leadingFraction: digits past the precision are skipped, not an error */
            bool overflow = false;
            while (n && s[0] >= '0' && s[0] <= '9') {
                if (!overflow) {
                    uint64_t y = f * 10 + (uint64_t)(s[0] - '0');
                    if (f > (top - 1) / 10 || y > top) {
                        overflow = true;
                    } else {
                        f = y;
                        scale *= 10;
                    }
                }
                s++;
                n--;
            }
            post = pl != n;
        }
        if (!pre && !post)
            return duration_error("invalid duration", orig, len, message);
        size_t u = 0;
        while (u < n && s[u] != '.' && !(s[u] >= '0' && s[u] <= '9'))
            u++;
        if (u == 0)
            return duration_error("missing unit in duration", orig, len, message);
        uint64_t unit = 0;
        for (size_t k = 0; k < sizeof(units) / sizeof(units[0]); k++) {
            if (strlen(units[k].name) == u && memcmp(units[k].name, s, u) == 0)
                unit = units[k].ns;
        }
        if (!unit) {
            char *qu = time_quote(s, u);
            char *what = wh_str_printf("unknown unit %s in duration", qu);
            enum wh_err rc = duration_error(what, orig, len, message);
            free(qu);
            free(what);
            return rc;
        }
        s += u;
        n -= u;
        if (v > top / unit)
            return duration_error("invalid duration", orig, len, message);
        v *= unit;
        if (f > 0) {
            v += (uint64_t)((double)f * ((double)unit / scale));
            if (v > top)
                return duration_error("invalid duration", orig, len, message);
        }
        d += v;
        if (d > top)
            return duration_error("invalid duration", orig, len, message);
    }
    if (neg) {
        *ns = (int64_t)(0 - d);
        return WH_OK;
    }
    if (d > top - 1)
        return duration_error("invalid duration", orig, len, message);
    *ns = (int64_t)d;
    return WH_OK;
}
