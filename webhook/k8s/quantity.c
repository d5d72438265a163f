#include "k8s/quantity.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "util/str.h"

#define MSG_FORMAT                                                                                 \
    "quantities must match the regular expression "                                                \
    "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
#define MSG_NUMERIC "unable to parse numeric part of quantity"
#define MSG_SUFFIX "unable to parse quantity's suffix"

/* The largest number of decimal digits Go's fast path keeps in an int64 (maxInt64Factors). */
#define MAX_INT64_FACTORS 18
#define NANO (-9)

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* --- mantissa arithmetic on digit arrays ---------------------------------------------------- */

static void strip_leading_zeros(struct wh_quantity *q)
{
    size_t i = 0;
    while (i < q->ndigits && q->digits[i] == 0)
        i++;
    if (i) {
        memmove(q->digits, q->digits + i, q->ndigits - i);
        q->ndigits = (uint8_t)(q->ndigits - i);
    }
}

/* mantissa *= m (m small); false on overflow of the digit array. */
static bool mul_small(struct wh_quantity *q, unsigned m)
{
    uint8_t out[WH_QUANTITY_MAX_DIGITS + 8];
    size_t n = 0;
    unsigned carry = 0;
    for (size_t i = q->ndigits; i-- > 0;) {
        unsigned v = q->digits[i] * m + carry;
        out[n++] = (uint8_t)(v % 10);
        carry = v / 10;
        if (n > WH_QUANTITY_MAX_DIGITS)
            return false;
    }
    while (carry) {
        out[n++] = (uint8_t)(carry % 10);
        carry /= 10;
        if (n > WH_QUANTITY_MAX_DIGITS)
            return false;
    }
    for (size_t i = 0; i < n; i++)
        q->digits[i] = out[n - 1 - i];
    q->ndigits = (uint8_t)n;
    strip_leading_zeros(q);
    return true;
}

/* mantissa = v. */
static void set_mantissa_u64(struct wh_quantity *q, uint64_t v)
{
    uint8_t out[20];
    size_t n = 0;
    for (; v; v /= 10)
        out[n++] = (uint8_t)(v % 10);
    for (size_t i = 0; i < n; i++)
        q->digits[i] = out[n - 1 - i];
    q->ndigits = (uint8_t)n;
}

/* mantissa /= d; returns the remainder. */
static unsigned div_small(struct wh_quantity *q, unsigned d)
{
    unsigned rem = 0;
    for (size_t i = 0; i < q->ndigits; i++) {
        unsigned v = rem * 10 + q->digits[i];
        q->digits[i] = (uint8_t)(v / d);
        rem = v % d;
    }
    strip_leading_zeros(q);
    return rem;
}

static bool mantissa_is_zero(const struct wh_quantity *q)
{
    for (size_t i = 0; i < q->ndigits; i++)
        if (q->digits[i])
            return false;
    return true;
}

/* mantissa += 1 (magnitude). */
static bool inc_one(struct wh_quantity *q)
{
    for (size_t i = q->ndigits; i-- > 0;) {
        if (q->digits[i] < 9) {
            q->digits[i]++;
            return true;
        }
        q->digits[i] = 0;
    }
    if (q->ndigits >= WH_QUANTITY_MAX_DIGITS)
        return false;
    memmove(q->digits + 1, q->digits, q->ndigits);
    q->digits[0] = 1;
    q->ndigits++;
    return true;
}

/* Rounds the magnitude away from zero so that scale >= target; true when exact. */
static bool round_to_scale(struct wh_quantity *q, int32_t target)
{
    if (q->scale >= target)
        return true;
    int32_t drop = target - q->scale;
    bool lost = false;
    if ((int64_t)drop >= q->ndigits) {
        lost = !mantissa_is_zero(q);
        q->ndigits = 0;
    } else {
        for (size_t i = q->ndigits - (size_t)drop; i < q->ndigits; i++)
            lost |= q->digits[i] != 0;
        q->ndigits = (uint8_t)(q->ndigits - drop);
    }
    q->scale = target;
    if (lost) {
        if (q->ndigits == 0) {
            q->digits[0] = 1;
            q->ndigits = 1;
        } else {
            (void)inc_one(q); /* cannot overflow: digits were dropped */
        }
    }
    strip_leading_zeros(q);
    return !lost;
}

/* The magnitude as an int64 when it fits (scale ignored). */
static bool mantissa_int64(const struct wh_quantity *q, int64_t *out)
{
    int64_t v = 0;
    for (size_t i = 0; i < q->ndigits; i++) {
        if (v > (INT64_MAX - q->digits[i]) / 10)
            return false;
        v = v * 10 + q->digits[i];
    }
    *out = v;
    return true;
}

/* --- parsing ------------------------------------------------------------------------------- */

struct parts {
    bool positive;
    size_t value_len; /* str[0:value_len] is Go's "value" */
    const char *num;
    size_t num_len;
    const char *denom;
    size_t denom_len;
    const char *suffix;
    size_t suffix_len;
};

/* Mirrors parseQuantityString's scanner, including what it tolerates ("1.", "+5"). */
static bool scan(const char *str, struct parts *p)
{
    size_t pos = 0, end = strlen(str);
    memset(p, 0, sizeof(*p));
    p->positive = true;
    if (pos < end && (str[0] == '-' || str[0] == '+')) {
        p->positive = str[0] != '-';
        pos++;
    }
    while (pos < end && str[pos] == '0')
        pos++;
    if (pos >= end) {
        p->num = "0";
        p->num_len = 1;
        p->value_len = SIZE_MAX; /* value = num = "0" */
        return true;
    }
    size_t i = pos;
    while (i < end && is_digit(str[i]))
        i++;
    p->num = str + pos;
    p->num_len = i - pos;
    if (i >= end) {
        p->value_len = end;
        if (p->num_len == 0) { /* unreachable: at least one non-zero char remained */
            p->num = "0";
            p->num_len = 1;
        }
        return true;
    }
    pos = i;
    if (p->num_len == 0) {
        p->num = "0";
        p->num_len = 1;
    }
    if (pos < end && str[pos] == '.') {
        pos++;
        i = pos;
        while (i < end && is_digit(str[i]))
            i++;
        p->denom = str + pos;
        p->denom_len = i - pos;
        if (i >= end) {
            p->value_len = end;
            return true;
        }
        pos = i;
    }
    p->value_len = pos;
    size_t suffix_start = pos;
    for (i = pos;; i++) {
        if (i >= end) {
            p->suffix = str + suffix_start;
            p->suffix_len = end - suffix_start;
            return true;
        }
        if (!strchr("eEinumkKMGTP", str[i])) {
            pos = i;
            break;
        }
    }
    if (pos < end && (str[pos] == '-' || str[pos] == '+'))
        pos++;
    for (i = pos;; i++) {
        if (i >= end) {
            p->suffix = str + suffix_start;
            p->suffix_len = end - suffix_start;
            return true;
        }
        if (!is_digit(str[i]))
            return false;
    }
}

struct suffix_row {
    const char *text;
    int base;
    int32_t exponent;
};

static const struct suffix_row dec_suffixes[] = {
    {"n", 10, -9}, {"u", 10, -6}, {"m", 10, -3}, {"", 10, 0},   {"k", 10, 3},
    {"M", 10, 6},  {"G", 10, 9},  {"T", 10, 12}, {"P", 10, 15}, {"E", 10, 18},
};
static const struct suffix_row bin_suffixes[] = {
    {"Ki", 2, 10}, {"Mi", 2, 20}, {"Gi", 2, 30}, {"Ti", 2, 40}, {"Pi", 2, 50}, {"Ei", 2, 60},
};

static bool interpret_suffix(const char *s, size_t n, int *base, int32_t *exp,
                             enum wh_quantity_format *fmt)
{
    for (size_t i = 0; i < sizeof(dec_suffixes) / sizeof(dec_suffixes[0]); i++) {
        if (strlen(dec_suffixes[i].text) == n && memcmp(dec_suffixes[i].text, s, n) == 0) {
            *base = 10;
            *exp = dec_suffixes[i].exponent;
            *fmt = WH_QUANTITY_DECIMAL_SI;
            return true;
        }
    }
    for (size_t i = 0; i < sizeof(bin_suffixes) / sizeof(bin_suffixes[0]); i++) {
        if (strlen(bin_suffixes[i].text) == n && memcmp(bin_suffixes[i].text, s, n) == 0) {
            *base = 2;
            *exp = bin_suffixes[i].exponent;
            *fmt = WH_QUANTITY_BINARY_SI;
            return true;
        }
    }
    if (n > 1 && (s[0] == 'e' || s[0] == 'E')) {
        char tmp[32];
        long long v;
        if (n - 1 >= sizeof(tmp))
            return false;
        memcpy(tmp, s + 1, n - 1);
        tmp[n - 1] = 0;
        /* strconv.ParseInt accepts a leading sign */
        const char *t = tmp[0] == '+' ? tmp + 1 : tmp;
        if (tmp[0] == '+' && (t[0] == '-' || t[0] == '+'))
            return false;
        if (wh_str_to_ll(t, -1000000, 1000000, &v))
            return false;
        *base = 10;
        *exp = (int32_t)v;
        *fmt = WH_QUANTITY_DECIMAL_EXPONENT;
        return true;
    }
    return false;
}

static bool set_digits(struct wh_quantity *q, const char *a, size_t na, const char *b, size_t nb)
{
    if (na + nb > WH_QUANTITY_MAX_DIGITS)
        return false;
    for (size_t i = 0; i < na; i++)
        q->digits[i] = (uint8_t)(a[i] - '0');
    for (size_t i = 0; i < nb; i++)
        q->digits[na + i] = (uint8_t)(b[i] - '0');
    q->ndigits = (uint8_t)(na + nb);
    return true;
}

/* ParseQuantity; q is only computed when want_value (checking a text needs no arithmetic). */
static enum wh_err parse(const char *str, struct wh_quantity *q, bool want_value,
                         struct wh_errbuf *eb)
{
    struct parts p;
    int base = 10;
    int32_t exponent = 0;
    enum wh_quantity_format format = WH_QUANTITY_DECIMAL_SI;
    size_t len = strlen(str);

    memset(q, 0, sizeof(*q));
    q->format = WH_QUANTITY_DECIMAL_SI;
    if (len == 0)
        return wh_errbuf_set(eb, WH_ERR_PARSE, MSG_FORMAT);
    if (len > WH_QUANTITY_MAX_INPUT)
        return wh_errbuf_set(eb, WH_ERR_PARSE, MSG_NUMERIC);
    if (strcmp(str, "0") == 0) {
        memcpy(q->cached, "0", 2);
        return WH_OK;
    }
    if (!scan(str, &p))
        return wh_errbuf_set(eb, WH_ERR_PARSE, MSG_FORMAT);
    if (!interpret_suffix(p.suffix ? p.suffix : "", p.suffix_len, &base, &exponent, &format))
        return wh_errbuf_set(eb, WH_ERR_PARSE, MSG_SUFFIX);

    int32_t precision = 0, scale = 0;
    int32_t bin_shift = 0;
    if (format == WH_QUANTITY_BINARY_SI) {
        if (exponent >= 0 && p.denom_len == 0) {
            bin_shift = exponent;
            precision = 15 - (int32_t)p.num_len - (int32_t)((float)exponent * 3 / 10) - 1;
        } else {
            precision = -1;
        }
    } else {
        scale = exponent;
        precision = MAX_INT64_FACTORS - (int32_t)(p.num_len + p.denom_len);
    }

    if (precision >= 0) {
        scale -= (int32_t)p.denom_len;
        if (scale >= NANO) {
            /* Go's int64 fast path: value = num+denom, times 2^exponent for binary suffixes */
            if (!set_digits(q, p.num, p.num_len, p.denom, p.denom_len))
                return wh_errbuf_set(eb, WH_ERR_PARSE, MSG_NUMERIC);
            if (!want_value) /* when the fast path cannot take it the slow one can */
                return WH_OK;
            int64_t shifted;
            if (mantissa_int64(q, &shifted) && bin_shift < 63 &&
                (shifted == 0 || shifted <= (INT64_MAX >> bin_shift))) {
                bool canonical;
                char sh0 = p.num_len ? p.num[0] : '0';
                q->neg = !p.positive;
                q->scale = scale;
                q->format = format;
                set_mantissa_u64(q, (uint64_t)shifted << bin_shift); /* checked to fit */
                if (format == WH_QUANTITY_BINARY_SI) {
                    canonical = exponent % 10 == 0 && (shifted & 0x07) != 0;
                } else {
                    size_t sl = p.num_len + p.denom_len;
                    bool ends000 = false;
                    if (sl >= 3) {
                        char last[3];
                        for (int k = 0; k < 3; k++) {
                            size_t idx = sl - 3 + (size_t)k;
                            last[k] = idx < p.num_len ? p.num[idx] : p.denom[idx - p.num_len];
                        }
                        ends000 = last[0] == '0' && last[1] == '0' && last[2] == '0';
                    }
                    canonical = scale % 3 == 0 && !ends000 && sh0 != '0';
                }
                if (canonical)
                    memcpy(q->cached, str, len + 1);
                strip_leading_zeros(q);
                if (q->ndigits == 0)
                    q->neg = false;
                return WH_OK;
            }
            memset(q, 0, sizeof(*q));
        }
    }

    /* The inf.Dec path: exact decimal, suffix folded in, rounded up to nano. */
    {
        const char *v = p.value_len == SIZE_MAX ? "0" : str;
        size_t vl = p.value_len == SIZE_MAX ? 1 : p.value_len;
        size_t i = 0;
        bool neg = false;
        char intpart[WH_QUANTITY_MAX_INPUT + 1], frac[WH_QUANTITY_MAX_INPUT + 1];
        size_t ni = 0, nf = 0;
        if (i < vl && (v[i] == '-' || v[i] == '+')) {
            neg = v[i] == '-';
            i++;
        }
        while (i < vl && is_digit(v[i]))
            intpart[ni++] = v[i++];
        if (i < vl && v[i] == '.') {
            i++;
            while (i < vl && is_digit(v[i]))
                frac[nf++] = v[i++];
        }
        /* inf.Dec.SetString needs at least one digit and nothing else */
        if (i != vl || ni + nf == 0)
            return wh_errbuf_set(eb, WH_ERR_PARSE, MSG_NUMERIC);
        if (!want_value)
            return WH_OK;
        memset(q, 0, sizeof(*q));
        if (!set_digits(q, intpart, ni, frac, nf))
            return wh_errbuf_set(eb, WH_ERR_PARSE, MSG_NUMERIC);
        q->scale = -(int32_t)nf;
        q->neg = neg;
        if (base == 10) {
            q->scale += exponent;
        } else {
            for (int32_t k = 0; k < exponent; k++)
                if (!mul_small(q, 2))
                    return wh_errbuf_set(eb, WH_ERR_PARSE, MSG_NUMERIC);
        }
        strip_leading_zeros(q);
        if (!mantissa_is_zero(q))
            (void)round_to_scale(q, NANO);
        if (format == WH_QUANTITY_BINARY_SI) {
            /* the max is a cap on the magnitude: 2^63-1 */
            struct wh_quantity max;
            wh_quantity_set_scaled(&max, INT64_MAX, 0, format);
            bool was_neg = q->neg;
            q->neg = false;
            if (wh_quantity_cmp(q, &max) > 0) {
                memcpy(q->digits, max.digits, max.ndigits);
                q->ndigits = max.ndigits;
                q->scale = 0;
            }
            struct wh_quantity one;
            wh_quantity_set_scaled(&one, 1, 0, format);
            if (wh_quantity_cmp(q, &one) < 0 && !mantissa_is_zero(q))
                format = WH_QUANTITY_DECIMAL_SI;
            q->neg = was_neg;
        }
        q->format = format;
        if (q->ndigits == 0)
            q->neg = false;
        q->cached[0] = 0;
        return WH_OK;
    }
}

enum wh_err wh_quantity_parse(const char *str, struct wh_quantity *q, struct wh_errbuf *eb)
{
    return parse(str, q, true, eb);
}

/* Digits and a known suffix (or none) always parse: "500m", "2Gi", "1". */
static bool plainly_valid(const char *str)
{
    size_t n = 0;
    while (is_digit(str[n]))
        n++;
    if (n == 0 || n > 18)
        return false;
    const char *sfx = str + n;
    if (!*sfx)
        return true;
    if (sfx[1] == '\0')
        return strchr("numkMGTPE", sfx[0]) != NULL;
    return sfx[1] == 'i' && sfx[2] == '\0' && strchr("KMGTPE", sfx[0]) != NULL;
}

enum wh_err wh_quantity_check(const char *str, struct wh_errbuf *eb)
{
    if (plainly_valid(str))
        return WH_OK;
    struct wh_quantity q;
    return parse(str, &q, false, eb);
}

void wh_quantity_set_scaled(struct wh_quantity *q, int64_t v, int32_t scale,
                            enum wh_quantity_format format)
{
    char buf[32];
    uint64_t mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    int n = snprintf(buf, sizeof(buf), "%llu", (unsigned long long)mag);
    memset(q, 0, sizeof(*q));
    q->neg = v < 0;
    q->format = format;
    q->scale = scale;
    (void)set_digits(q, buf, (size_t)n, "", 0);
    strip_leading_zeros(q);
}

bool wh_quantity_is_zero(const struct wh_quantity *q)
{
    return mantissa_is_zero(q);
}

int wh_quantity_sign(const struct wh_quantity *q)
{
    if (mantissa_is_zero(q))
        return 0;
    return q->neg ? -1 : 1;
}

static int cmp_magnitude(const struct wh_quantity *a, const struct wh_quantity *b)
{
    /* compare a.m*10^a.s with b.m*10^b.s digit by digit from the most significant */
    int64_t ea = (int64_t)a->ndigits + a->scale, eb = (int64_t)b->ndigits + b->scale;
    bool za = mantissa_is_zero(a), zb = mantissa_is_zero(b);
    if (za || zb)
        return za && zb ? 0 : (za ? -1 : 1);
    if (ea != eb)
        return ea < eb ? -1 : 1;
    size_t n = a->ndigits > b->ndigits ? a->ndigits : b->ndigits;
    for (size_t i = 0; i < n; i++) {
        int da = i < a->ndigits ? a->digits[i] : 0;
        int db = i < b->ndigits ? b->digits[i] : 0;
        if (da != db)
            return da < db ? -1 : 1;
    }
    return 0;
}

int wh_quantity_cmp(const struct wh_quantity *a, const struct wh_quantity *b)
{
    int sa = wh_quantity_sign(a), sb = wh_quantity_sign(b);
    if (sa != sb)
        return sa < sb ? -1 : 1;
    if (sa == 0)
        return 0;
    int m = cmp_magnitude(a, b);
    return sa > 0 ? m : -m;
}

bool wh_quantity_add(struct wh_quantity *sum, const struct wh_quantity *x)
{
    WH_ASSERT(!sum->neg && !x->neg);
    if (mantissa_is_zero(x))
        return true;
    if (mantissa_is_zero(sum)) {
        *sum = *x;
        sum->cached[0] = 0;
        return true;
    }
    /* Align both mantissas to the smaller scale, then add digit by digit from the right. */
    int32_t scale = sum->scale < x->scale ? sum->scale : x->scale;
    int64_t na = (int64_t)sum->ndigits + (sum->scale - scale);
    int64_t nb = (int64_t)x->ndigits + (x->scale - scale);
    int64_t n = (na > nb ? na : nb) + 1;
    if (n > WH_QUANTITY_MAX_DIGITS + 1)
        return false;
    uint8_t out[WH_QUANTITY_MAX_DIGITS + 1];
    unsigned carry = 0;
    for (int64_t k = 0; k < n; k++) { /* k-th digit from the right, at the common scale */
        int64_t ia = (int64_t)sum->ndigits - 1 - (k - (sum->scale - scale));
        int64_t ib = (int64_t)x->ndigits - 1 - (k - (x->scale - scale));
        unsigned v = carry;
        if (k >= sum->scale - scale && ia >= 0)
            v += sum->digits[ia];
        if (k >= x->scale - scale && ib >= 0)
            v += x->digits[ib];
        out[n - 1 - k] = (uint8_t)(v % 10);
        carry = v / 10;
    }
    size_t lead = 0;
    while (lead < (size_t)n && out[lead] == 0)
        lead++;
    if ((size_t)n - lead > WH_QUANTITY_MAX_DIGITS)
        return false;
    memcpy(sum->digits, out + lead, (size_t)n - lead);
    sum->ndigits = (uint8_t)((size_t)n - lead);
    sum->scale = scale;
    sum->cached[0] = 0;
    return true;
}

bool wh_quantity_round_up(struct wh_quantity *q, int32_t scale)
{
    if (q->scale >= scale)
        return true;
    q->cached[0] = 0;
    bool exact = round_to_scale(q, scale);
    if (q->ndigits == 0)
        q->neg = false;
    return exact;
}

int64_t wh_quantity_scaled_value(const struct wh_quantity *q, int32_t scale)
{
    struct wh_quantity t = *q;
    int64_t v;
    (void)round_to_scale(&t, scale);
    /* now value = m * 10^(t.scale - scale) in units of 10^scale */
    for (int32_t k = scale; k < t.scale; k++)
        if (!mul_small(&t, 10))
            return t.neg ? INT64_MIN : INT64_MAX;
    if (!mantissa_int64(&t, &v))
        return t.neg ? INT64_MIN : INT64_MAX;
    return t.neg ? -v : v;
}

static const char *dec_suffix_for(int32_t exponent)
{
    for (size_t i = 0; i < sizeof(dec_suffixes) / sizeof(dec_suffixes[0]); i++)
        if (dec_suffixes[i].exponent == exponent)
            return dec_suffixes[i].text;
    return ""; /* Go finds no suffix and prints none */
}

static void put_digits(const struct wh_quantity *q, char *out, size_t outsz, size_t *pos)
{
    if (q->neg && *pos + 1 < outsz)
        out[(*pos)++] = '-';
    for (size_t i = 0; i < q->ndigits && *pos + 1 < outsz; i++)
        out[(*pos)++] = (char)('0' + q->digits[i]);
    if (q->ndigits == 0 && *pos + 1 < outsz)
        out[(*pos)++] = '0';
}

void wh_quantity_format(const struct wh_quantity *q, char *out, size_t outsz)
{
    size_t pos = 0;
    if (outsz == 0)
        return;
    out[0] = 0;
    if (q->cached[0]) {
        snprintf(out, outsz, "%s", q->cached);
        return;
    }
    if (mantissa_is_zero(q)) {
        snprintf(out, outsz, "0");
        return;
    }
    enum wh_quantity_format format = q->format;
    struct wh_quantity t = *q;
    if (format == WH_QUANTITY_BINARY_SI) {
        struct wh_quantity lim;
        wh_quantity_set_scaled(&lim, 1024, 0, format);
        struct wh_quantity probe = t;
        probe.neg = false;
        if (cmp_magnitude(&probe, &lim) < 0 || !round_to_scale(&probe, 0)) {
            /* below 1024, or a fraction: printed as DecimalSI without rounding */
            format = WH_QUANTITY_DECIMAL_SI;
        } else {
            probe.neg = q->neg;
            t = probe;
        }
    }
    if (format == WH_QUANTITY_BINARY_SI) {
        /* t is an integer now: bring the scale to 0, then take out factors of 1024 */
        int32_t exp1024 = 0;
        while (t.scale > 0) {
            if (!mul_small(&t, 10))
                break;
            t.scale--;
        }
        for (;;) {
            struct wh_quantity probe = t;
            struct wh_quantity lim;
            wh_quantity_set_scaled(&lim, 1024, 0, format);
            probe.neg = false;
            if (cmp_magnitude(&probe, &lim) < 0)
                break;
            if (div_small(&probe, 1024) != 0)
                break;
            probe.neg = t.neg;
            t = probe;
            exp1024++;
        }
        put_digits(&t, out, outsz, &pos);
        out[pos] = 0;
        const char *suffix = "";
        for (size_t i = 0; i < sizeof(bin_suffixes) / sizeof(bin_suffixes[0]); i++)
            if (bin_suffixes[i].exponent == exp1024 * 10)
                suffix = bin_suffixes[i].text;
        snprintf(out + pos, outsz - pos, "%s", suffix);
        return;
    }
    /* decimal: factors of ten into the exponent, then down to a multiple of three */
    int32_t exponent = t.scale;
    while (t.ndigits > 1 && t.digits[t.ndigits - 1] == 0) {
        t.ndigits--;
        exponent++;
    }
    while (exponent % 3 != 0) {
        if (!mul_small(&t, 10))
            break;
        exponent--;
    }
    put_digits(&t, out, outsz, &pos);
    out[pos] = 0;
    if (format == WH_QUANTITY_DECIMAL_EXPONENT) {
        if (exponent != 0)
            snprintf(out + pos, outsz - pos, "e%d", (int)exponent);
    } else {
        snprintf(out + pos, outsz - pos, "%s", dec_suffix_for(exponent));
    }
}
