#include "test/support/vector_compare.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gocompat/goenc.h"
#include "gocompat/gotime.h"
#include "util/buf.h"
#include "util/mem.h"
#include "util/str.h"
#include "util/time.h"

/* ---- resource quantities (apimachinery pkg/api/resource) ---------------------------------- */

__extension__ typedef unsigned __int128 u128;

enum qfmt { Q_DECIMAL_SI, Q_BINARY_SI, Q_DECIMAL_EXP };

/* value = (neg ? -1 : 1) * m * 10^e */
struct qty {
    bool neg;
    u128 m;
    int e;
    enum qfmt fmt;
};

static const u128 U128_MAX = ~(u128)0;

static bool mul_u128(u128 *x, u128 k)
{
    if (k && *x > U128_MAX / k)
        return false;
    *x *= k;
    return true;
}

static bool add_digit(u128 *x, char d)
{
    if (!mul_u128(x, 10))
        return false;
    u128 v = *x + (u128)(d - '0');
    if (v < *x)
        return false;
    *x = v;
    return true;
}

static const struct {
    const char *suffix;
    int exp;
} dec_suffixes[] = {{"n", -9}, {"u", -6}, {"m", -3}, {"", 0},   {"k", 3},
                    {"M", 6},  {"G", 9},  {"T", 12}, {"P", 15}, {"E", 18}};
static const char *const bin_suffixes[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};

static bool parse_suffix(const char *s, struct qty *q, int *dec_exp, int *bin_exp)
{
    *dec_exp = 0;
    *bin_exp = 0;
    for (size_t i = 0; i < sizeof(dec_suffixes) / sizeof(dec_suffixes[0]); i++)
        if (strcmp(s, dec_suffixes[i].suffix) == 0) {
            q->fmt = Q_DECIMAL_SI;
            *dec_exp = dec_suffixes[i].exp;
            return true;
        }
    for (size_t i = 1; i < sizeof(bin_suffixes) / sizeof(bin_suffixes[0]); i++)
        if (strcmp(s, bin_suffixes[i]) == 0) {
            q->fmt = Q_BINARY_SI;
            *bin_exp = (int)i * 10;
            return true;
        }
    if ((s[0] == 'e' || s[0] == 'E') && s[1]) {
        const char *p = s + 1;
        bool neg = *p == '-';
        if (*p == '-' || *p == '+')
            p++;
        if (!*p)
            return false;
        long v = 0;
        for (; *p; p++) {
            if (*p < '0' || *p > '9' || v > 100000)
                return false;
            v = v * 10 + (*p - '0');
        }
        q->fmt = Q_DECIMAL_EXP;
        *dec_exp = (int)(neg ? -v : v);
        return true;
    }
    return false;
}

/* resource.ParseQuantity, for the values it accepts (at least one digit required). */
static bool parse_quantity(const char *s, struct qty *q)
{
    memset(q, 0, sizeof(*q));
    const char *p = s;
    if (*p == '+' || *p == '-') {
        q->neg = *p == '-';
        p++;
    }
    size_t ndigits = 0, nfrac = 0;
    u128 m = 0;
    for (; *p >= '0' && *p <= '9'; p++, ndigits++)
        if (!add_digit(&m, *p))
            return false;
    if (*p == '.') {
        p++;
        for (; *p >= '0' && *p <= '9'; p++, nfrac++)
            if (!add_digit(&m, *p))
                return false;
    }
    if (ndigits + nfrac == 0)
        return false;
    int dec_exp, bin_exp;
    if (!parse_suffix(p, q, &dec_exp, &bin_exp))
        return false;
    if (bin_exp && !mul_u128(&m, (u128)1 << bin_exp))
        return false;
    q->m = m;
    q->e = dec_exp - (int)nfrac;
    if (q->m == 0)
        q->neg = false;
    /* ParseQuantity caps binary quantities at the largest int64 */
    if (q->fmt == Q_BINARY_SI && q->e >= 0) {
        u128 v = q->m;
        for (int e = q->e; e > 0; e--)
            if (!mul_u128(&v, 10))
                v = U128_MAX;
        if (v > (u128)INT64_MAX) {
            q->m = (u128)INT64_MAX;
            q->e = 0;
        }
    }
    /* ParseQuantity rounds anything finer than a nano up (away from zero) */
    if (q->e < -9) {
        bool rem = false;
        while (q->e < -9) {
            rem = rem || q->m % 10 != 0;
            q->m /= 10;
            q->e++;
        }
        if (rem)
            q->m++;
    }
    return true;
}

static void u128_text(u128 v, char *out, size_t outsz)
{
    char tmp[64];
    size_t n = 0;
    do {
        tmp[n++] = (char)('0' + (int)(v % 10));
        v /= 10;
    } while (v);
    size_t i = 0;
    for (; i < n && i + 1 < outsz; i++)
        out[i] = tmp[n - 1 - i];
    out[i] = '\0';
}

char *wh_vec_quantity_canonical(const char *s)
{
    struct qty q;
    if (!s || !parse_quantity(s, &q))
        return NULL;
    if (q.m == 0)
        return wh_xstrdup("0");
    char num[64];
    const char *sign = q.neg ? "-" : "";
    enum qfmt fmt = q.fmt;
    if (fmt == Q_BINARY_SI) {
        /* only integers of at least 1024 print in base 1024 */
        u128 v = q.m;
        bool integral = true;
        for (int e = q.e; e < 0 && integral; e++) {
            integral = v % 10 == 0;
            v /= 10;
        }
        for (int e = q.e; e > 0 && integral; e--)
            if (!mul_u128(&v, 10))
                return NULL;
        if (!integral || v < 1024) {
            fmt = Q_DECIMAL_SI;
        } else {
            int k = 0;
            while (k < 6 && v % 1024 == 0) {
                v /= 1024;
                k++;
            }
            u128_text(v, num, sizeof(num));
            char out[96];
            snprintf(out, sizeof(out), "%s%s%s", sign, num, bin_suffixes[k]);
            return wh_xstrdup(out);
        }
    }
    u128 m = q.m;
    int e = q.e;
    while (m % 10 == 0) {
        m /= 10;
        e++;
    }
    while (e % 3 != 0) {
        if (!mul_u128(&m, 10))
            return NULL;
        e--;
    }
    char suffix[16] = "";
    if (fmt == Q_DECIMAL_EXP) {
        if (e)
            snprintf(suffix, sizeof(suffix), "e%d", e);
    } else {
        for (; e > 18; e--)
            if (!mul_u128(&m, 10))
                return NULL;
        for (size_t i = 0; i < sizeof(dec_suffixes) / sizeof(dec_suffixes[0]); i++)
            if (dec_suffixes[i].exp == e)
                snprintf(suffix, sizeof(suffix), "%s", dec_suffixes[i].suffix);
    }
    u128_text(m, num, sizeof(num));
    char out[96];
    snprintf(out, sizeof(out), "%s%s%s", sign, num, suffix);
    return wh_xstrdup(out);
}

/* ---- normalisation ------------------------------------------------------------------------ */

static bool quantity_map(const char *key)
{
    return key && (strcmp(key, "requests") == 0 || strcmp(key, "limits") == 0 ||
                   strcmp(key, "capacity") == 0 || strcmp(key, "allocatable") == 0);
}

static bool dropped(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_NULL:
    case JSON_FALSE:
        return true;
    case JSON_OBJECT:
        return json_object_size(v) == 0;
    case JSON_ARRAY:
        return json_array_size(v) == 0;
    case JSON_STRING:
        return json_string_length(v) == 0;
    case JSON_INTEGER:
        return json_integer_value(v) == 0;
    case JSON_REAL:
        return json_real_value(v) == 0.0;
    case JSON_TRUE:
        return false;
    }
    return false;
}

/* quantity: v is a quantity (a value of a requests/limits/... map, or of a storage member);
 * quantities: v is such a map, so its values are. */
static json_t *norm(const json_t *v, bool quantity, bool quantities)
{
    if (json_is_object(v)) {
        json_t *out = json_object();
        const char *key;
        json_t *val;
        json_object_foreach((json_t *)(uintptr_t)v, key, val)
        {
            bool q = quantities || strcmp(key, "storage") == 0;
            json_t *n = norm(val, q, quantity_map(key));
            if (dropped(n))
                json_decref(n);
            else
                json_object_set_new(out, key, n);
        }
        return out;
    }
    if (json_is_array(v)) {
        json_t *out = json_array();
        size_t i;
        json_t *e;
        json_array_foreach(v, i, e) json_array_append_new(out, norm(e, false, false));
        return out;
    }
    if (quantity && (json_is_string(v) || json_is_number(v))) {
        /* a number is read from its text as the API server's encoding/json writes it
         * (1e20 as 100000000000000000000: 100E, not the exponent form 1e20) */
        char buf[64];
        const char *text = json_string_value(v);
        struct wh_buf b;
        wh_buf_init(&b, sizeof(buf));
        if (json_is_integer(v))
            snprintf(buf, sizeof(buf), "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        else if (json_is_real(v))
            snprintf(buf, sizeof(buf), "%s",
                     wh_goenc_append(&b, v, false) == WH_OK ? b.data : "NaN");
        wh_buf_fini(&b);
        if (!text)
            text = buf;
        char *c = wh_vec_quantity_canonical(text);
        if (c) {
            json_t *out = json_string(c);
            free(c);
            return out;
        }
    }
    if (json_is_string(v)) {
        struct wh_gotime t;
        if (wh_gotime_parse(json_string_value(v), json_string_length(v), WH_GOTIME_RFC3339, &t,
                            NULL) == WH_OK) {
            char buf[WH_GOTIME_MAX];
            wh_gotime_format(t, WH_GOTIME_RFC3339, buf, sizeof(buf));
            return json_string(buf);
        }
    }
    return json_incref((json_t *)(uintptr_t)v);
}

json_t *wh_vec_normalise(const json_t *v)
{
    return norm(v, false, false);
}

/* ---- comparison --------------------------------------------------------------------------- */

#define MAX_DIFFS 10

struct cmp {
    struct wh_buf *diff;
    int ndiff;
    bool truncated; /* the diff buffer reached its cap */
    char path[1024];
    size_t len;
};

/* Returns: new string, v printed compactly (cut at 300 bytes), "(absent)" for NULL. */
static char *show(const json_t *v)
{
    if (!v)
        return wh_xstrdup("(absent)");
    char *s = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
    if (!s)
        return wh_xstrdup("(unprintable)");
    if (strlen(s) > 300)
        memcpy(s + 297, "...", 4);
    return s;
}

static void append(struct cmp *c, const char *text)
{
    if (wh_buf_adds(c->diff, text) != WH_OK)
        c->truncated = true;
}

static void report(struct cmp *c, const json_t *e, const json_t *a)
{
    c->ndiff++;
    if (!c->diff || c->ndiff > MAX_DIFFS)
        return;
    char *se = show(e), *sa = show(a);
    char *line = wh_str_printf("%s: expected %s, actual %s\n", c->len ? c->path : "/", se, sa);
    append(c, line);
    free(line);
    free(se);
    free(sa);
}

/* Appends one JSON pointer step; returns the length to restore. */
static size_t push(struct cmp *c, const char *key, size_t index, bool is_index)
{
    size_t old = c->len;
    char step[256];
    if (is_index) {
        snprintf(step, sizeof(step), "/%zu", index);
    } else {
        size_t n = 0;
        step[n++] = '/';
        for (const char *k = key; *k && n + 3 < sizeof(step); k++) {
            if (*k == '~' || *k == '/') {
                step[n++] = '~';
                step[n++] = *k == '~' ? '0' : '1';
            } else {
                step[n++] = *k;
            }
        }
        step[n] = '\0';
    }
    size_t sl = strlen(step);
    if (c->len + sl < sizeof(c->path)) {
        memcpy(c->path + c->len, step, sl + 1);
        c->len += sl;
    }
    return old;
}

static void pop(struct cmp *c, size_t old)
{
    c->len = old;
    c->path[old] = '\0';
}

static void compare(struct cmp *c, const json_t *e, const json_t *a, const json_t *in)
{
    if (json_is_object(e) && json_is_object(a)) {
        const char *key;
        json_t *ev;
        json_object_foreach((json_t *)(uintptr_t)e, key, ev)
        {
            size_t old = push(c, key, 0, false);
            json_t *av = json_object_get(a, key);
            if (!av)
                report(c, ev, NULL);
            else
                compare(c, ev, av, json_is_object(in) ? json_object_get(in, key) : NULL);
            pop(c, old);
        }
        json_t *av;
        json_object_foreach((json_t *)(uintptr_t)a, key, av)
        {
            if (json_object_get(e, key))
                continue;
            const json_t *iv = json_is_object(in) ? json_object_get(in, key) : NULL;
            if (iv && json_equal((json_t *)(uintptr_t)iv, av))
                continue;
            size_t old = push(c, key, 0, false);
            report(c, NULL, av);
            pop(c, old);
        }
        return;
    }
    if (json_is_array(e) && json_is_array(a) && json_array_size(e) == json_array_size(a)) {
        size_t i;
        json_t *ev;
        json_array_foreach(e, i, ev)
        {
            size_t old = push(c, NULL, i, true);
            compare(c, ev, json_array_get(a, i), json_is_array(in) ? json_array_get(in, i) : NULL);
            pop(c, old);
        }
        return;
    }
    if (!json_equal((json_t *)(uintptr_t)e, (json_t *)(uintptr_t)a))
        report(c, e, a);
}

bool wh_vec_conversion_equal(const json_t *expected, const json_t *actual, const json_t *input,
                             struct wh_buf *diff)
{
    json_t *e = expected ? wh_vec_normalise(expected) : NULL;
    json_t *a = actual ? wh_vec_normalise(actual) : NULL;
    json_t *in = input ? wh_vec_normalise(input) : NULL;
    struct cmp c = {.diff = diff};
    if (!e || !a) {
        if (e != a)
            report(&c, e, a);
    } else {
        compare(&c, e, a, in);
    }
    if (diff && c.ndiff > MAX_DIFFS) {
        char *more = wh_str_printf("... and %d more\n", c.ndiff - MAX_DIFFS);
        append(&c, more);
        free(more);
    }
    json_decref(e);
    json_decref(a);
    json_decref(in);
    return c.ndiff == 0;
}
