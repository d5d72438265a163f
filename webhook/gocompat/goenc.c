#include "gocompat/goenc.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/mem.h"
#include "util/utf8.h"

/* --- writing ----------------------------------------------------------------------------- */

/* Bytes encoding/json writes as they are: printable ASCII but '"', '\\' and the HTML
 * characters '<', '>', '&' (a table: most strings are scanned at a lookup a byte). Rows of 16
 * from 0x00; 0x80 and up are decoded as runes. */
static const unsigned char go_plain[256] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* controls */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* controls */
    1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* '"' and '&' */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 0, 1, /* '<' and '>' */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, /* '\\' */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
};

enum wh_err wh_goenc_append_string(struct wh_buf *b, const char *s, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *p = (const unsigned char *)s;
    enum wh_err rc = wh_buf_addc(b, '"');
    size_t start = 0, i = 0;
    while (!rc && i < len) {
        while (i < len && go_plain[p[i]])
            i++;
        if (i == len)
            break;
        unsigned char c = p[i];
        if (c < 0x80) {
            rc = wh_buf_add(b, s + start, i - start);
            char esc[7] = {'\\', 0, 0, 0, 0, 0, 0};
            size_t n = 2;
            switch (c) {
            case '"':
            case '\\':
                esc[1] = (char)c;
                break;
            case '\b':
                esc[1] = 'b';
                break;
            case '\f':
                esc[1] = 'f';
                break;
            case '\n':
                esc[1] = 'n';
                break;
            case '\r':
                esc[1] = 'r';
                break;
            case '\t':
                esc[1] = 't';
                break;
            default:
                memcpy(esc + 1, "u00", 3);
                esc[4] = hex[c >> 4];
                esc[5] = hex[c & 0xf];
                n = 6;
                break;
            }
            if (!rc)
                rc = wh_buf_add(b, esc, n);
            i++;
            start = i;
            continue;
        }
        size_t size;
        uint32_t r = wh_utf8_decode(p + i, len - i, &size);
        if (r == 0xfffd && size == 1) {
            rc = wh_buf_add(b, s + start, i - start);
            if (!rc)
                rc = wh_buf_adds(b, "\\ufffd");
            i++;
            start = i;
            continue;
        }
        if (r == 0x2028 || r == 0x2029) {
            rc = wh_buf_add(b, s + start, i - start);
            if (!rc)
                rc = wh_buf_adds(b, r == 0x2028 ? "\\u2028" : "\\u2029");
            i += size;
            start = i;
            continue;
        }
        i += size;
    }
    if (!rc)
        rc = wh_buf_add(b, s + start, len - start);
    if (!rc)
        rc = wh_buf_addc(b, '"');
    return rc;
}

/* Go's strconv.FormatFloat(f, 'f' or 'e', -1, 64) as encoding/json chooses between them. */
static enum wh_err append_real(struct wh_buf *b, double f)
{
    if (!isfinite(f))
        return wh_buf_adds(b, "null"); /* Go refuses; jansson cannot hold them anyway */
    if (f == 0)
        return wh_buf_adds(b, signbit(f) ? "-0" : "0");
    char digits[40];
    int prec;
    for (prec = 1; prec <= 17; prec++) {
        snprintf(digits, sizeof(digits), "%.*e", prec - 1, f);
        if (strtod(digits, NULL) == f)
            break;
    }
    /* digits is [-]d[.ddd]e[+-]xx: collect the mantissa digits and the exponent */
    char mant[24];
    size_t nm = 0;
    const char *p = digits;
    bool neg = *p == '-';
    if (neg)
        p++;
    for (; *p && *p != 'e'; p++) {
        if (*p != '.')
            mant[nm++] = *p;
    }
    mant[nm] = '\0';
    int exp10 = (int)strtol(p + 1, NULL, 10);
    double a = fabs(f);
    char out[64];
    size_t o = 0;
    if (neg)
        out[o++] = '-';
    if (a < 1e-6 || a >= 1e21) {
        out[o++] = mant[0];
        if (nm > 1) {
            out[o++] = '.';
            memcpy(out + o, mant + 1, nm - 1);
            o += nm - 1;
        }
        o += (size_t)snprintf(out + o, sizeof(out) - o, "e%c%02d", exp10 < 0 ? '-' : '+',
                              exp10 < 0 ? -exp10 : exp10);
        /* Go writes e-07 as e-7 */
        if (out[o - 2] == '0' && (out[o - 3] == '-' || out[o - 3] == '+')) {
            out[o - 2] = out[o - 1];
            o--;
        }
    } else if (exp10 < 0) {
        out[o++] = '0';
        out[o++] = '.';
        for (int i = 0; i < -exp10 - 1; i++)
            out[o++] = '0';
        memcpy(out + o, mant, nm);
        o += nm;
    } else {
        for (int i = 0; i <= exp10; i++)
            out[o++] = (size_t)i < nm ? mant[i] : '0';
        if ((size_t)exp10 + 1 < nm) {
            out[o++] = '.';
            memcpy(out + o, mant + exp10 + 1, nm - (size_t)exp10 - 1);
            o += nm - (size_t)exp10 - 1;
        }
    }
    return wh_buf_add(b, out, o);
}

struct enc_member {
    const char *key;
    size_t len;
    const json_t *value;
};

static int cmp_enc_members(const void *a, const void *b)
{
    return strcmp(((const struct enc_member *)a)->key, ((const struct enc_member *)b)->key);
}

enum wh_err wh_goenc_append(struct wh_buf *b, const json_t *v, bool sort_keys)
{
    enum wh_err rc = WH_OK;
    switch (json_typeof(v)) {
    case JSON_OBJECT: {
        /* Members with their values: no look-up per key after the sort. */
        size_t n = json_object_size(v), k = 0;
        struct enc_member small[16];
        struct enc_member *m = n <= 16 ? small : wh_xmalloc(n * sizeof(*m));
        json_t *obj = (json_t *)(uintptr_t)v;
        for (void *it = json_object_iter(obj); it && k < n; it = json_object_iter_next(obj, it))
            m[k++] = (struct enc_member){json_object_iter_key(it), json_object_iter_key_len(it),
                                         json_object_iter_value(it)};
        if (sort_keys)
            qsort(m, k, sizeof(*m), cmp_enc_members);
        rc = wh_buf_addc(b, '{');
        for (size_t i = 0; !rc && i < k; i++) {
            if (i)
                rc = wh_buf_addc(b, ',');
            if (!rc)
                rc = wh_goenc_append_string(b, m[i].key, m[i].len);
            if (!rc)
                rc = wh_buf_addc(b, ':');
            if (!rc)
                rc = wh_goenc_append(b, m[i].value, sort_keys);
        }
        if (!rc)
            rc = wh_buf_addc(b, '}');
        if (m != small)
            free(m);
        return rc;
    }
    case JSON_ARRAY:
        rc = wh_buf_addc(b, '[');
        for (size_t i = 0; !rc && i < json_array_size(v); i++) {
            if (i)
                rc = wh_buf_addc(b, ',');
            if (!rc)
                rc = wh_goenc_append(b, json_array_get(v, i), sort_keys);
        }
        if (!rc)
            rc = wh_buf_addc(b, ']');
        return rc;
    case JSON_STRING:
        return wh_goenc_append_string(b, json_string_value(v), json_string_length(v));
    case JSON_INTEGER:
        return wh_buf_add_int(b, json_integer_value(v));
    case JSON_REAL:
        return append_real(b, json_real_value(v));
    case JSON_TRUE:
        return wh_buf_adds(b, "true");
    case JSON_FALSE:
        return wh_buf_adds(b, "false");
    case JSON_NULL:
        return wh_buf_adds(b, "null");
    }
    return rc;
}

char *wh_goenc_dumps_sorted(const json_t *v)
{
    struct wh_buf b;
    wh_buf_init(&b, SIZE_MAX / 2);
    if (wh_goenc_append(&b, v, true))
        WH_PANIC("uncapped buffer refused data");
    return wh_buf_take(&b, NULL);
}

/* --- reading: a validating scanner with Go's messages ---------------------------------- */

struct scan {
    const unsigned char *p;
    size_t n, i;
    int depth;
    char *msg;
    size_t msgsz;
    bool failed;
};

/* Go's quoteChar: 'x', '\'' , '"' or the strconv.Quote escape of the rune. */
static void quote_char(const unsigned char *p, size_t n, char *out, size_t outsz)
{
    size_t size;
    uint32_t r = wh_utf8_decode(p, n, &size);
    if (r == '\'') {
        snprintf(out, outsz, "'\\''");
    } else if (r == '"') {
        snprintf(out, outsz, "'\"'");
    } else if (r == '\\') {
        snprintf(out, outsz, "'\\\\'");
    } else if (r == '\n' || r == '\r' || r == '\t' || r == '\b' || r == '\f' || r == '\v' ||
               r == '\a') {
        const char *e = r == '\n'   ? "\\n"
                        : r == '\r' ? "\\r"
                        : r == '\t' ? "\\t"
                        : r == '\b' ? "\\b"
                        : r == '\f' ? "\\f"
                        : r == '\v' ? "\\v"
                                    : "\\a";
        snprintf(out, outsz, "'%s'", e);
    } else if (r < 0x20 || r == 0x7f) {
        snprintf(out, outsz, "'\\x%02x'", (unsigned)r);
    } else if (r == 0xfffd && size == 1) {
        snprintf(out, outsz, "'\\x%02x'", p[0]);
    } else {
        snprintf(out, outsz, "'%.*s'", (int)size, (const char *)p);
    }
}

static bool fail_at(struct scan *s, const char *context)
{
    if (!s->failed) {
        s->failed = true;
        if (s->i >= s->n) {
            snprintf(s->msg, s->msgsz, "unexpected end of JSON input");
        } else {
            char q[16];
            quote_char(s->p + s->i, s->n - s->i, q, sizeof(q));
            snprintf(s->msg, s->msgsz, "invalid character %s %s", q, context);
        }
    }
    return false;
}

static bool is_space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static void skip_space(struct scan *s)
{
    while (s->i < s->n && is_space(s->p[s->i]))
        s->i++;
}

static bool is_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

static bool is_hex(unsigned char c)
{
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static bool scan_string(struct scan *s)
{
    s->i++; /* opening quote */
    while (s->i < s->n) {
        unsigned char c = s->p[s->i];
        if (c == '"') {
            s->i++;
            return true;
        }
        if (c < 0x20)
            return fail_at(s, "in string literal");
        if (c == '\\') {
            s->i++;
            if (s->i >= s->n)
                return fail_at(s, "");
            c = s->p[s->i];
            if (c == 'u') {
                s->i++;
                for (int k = 0; k < 4; k++, s->i++) {
                    if (s->i >= s->n)
                        return fail_at(s, "");
                    if (!is_hex(s->p[s->i]))
                        return fail_at(s, "in \\u hexadecimal character escape");
                }
                continue;
            }
            if (!strchr("\"\\/bfnrt", c) || c == 0)
                return fail_at(s, "in string escape code");
        }
        s->i++;
    }
    return fail_at(s, "");
}

static bool scan_number(struct scan *s)
{
    if (s->p[s->i] == '-') {
        s->i++;
        if (s->i >= s->n)
            return fail_at(s, "");
        if (!is_digit(s->p[s->i]))
            return fail_at(s, "in numeric literal");
    }
    if (s->p[s->i] == '0') {
        s->i++;
    } else {
        while (s->i < s->n && is_digit(s->p[s->i]))
            s->i++;
    }
    if (s->i < s->n && s->p[s->i] == '.') {
        s->i++;
        if (s->i >= s->n)
            return fail_at(s, "");
        if (!is_digit(s->p[s->i]))
            return fail_at(s, "after decimal point in numeric literal");
        while (s->i < s->n && is_digit(s->p[s->i]))
            s->i++;
    }
    if (s->i < s->n && (s->p[s->i] == 'e' || s->p[s->i] == 'E')) {
        s->i++;
        if (s->i < s->n && (s->p[s->i] == '+' || s->p[s->i] == '-'))
            s->i++;
        if (s->i >= s->n)
            return fail_at(s, "");
        if (!is_digit(s->p[s->i]))
            return fail_at(s, "in exponent of numeric literal");
        while (s->i < s->n && is_digit(s->p[s->i]))
            s->i++;
    }
    return true;
}

static bool scan_literal(struct scan *s, const char *word)
{
    char ctx[48];
    for (size_t k = 0; word[k]; k++, s->i++) {
        if (s->i >= s->n)
            return fail_at(s, "");
        if (s->p[s->i] != (unsigned char)word[k]) {
            snprintf(ctx, sizeof(ctx), "in literal %s (expecting '%c')", word, word[k]);
            return fail_at(s, ctx);
        }
    }
    return true;
}

static bool scan_value(struct scan *s)
{
    skip_space(s);
    if (s->i >= s->n)
        return fail_at(s, "");
    if (++s->depth > 10000) /* Go's maxNestingDepth */
        return fail_at(s, "looking for beginning of value");
    unsigned char c = s->p[s->i];
    bool ok = true;
    if (c == '{') {
        s->i++;
        skip_space(s);
        if (s->i < s->n && s->p[s->i] == '}') {
            s->i++;
        } else {
            for (;;) {
                skip_space(s);
                if (s->i >= s->n || s->p[s->i] != '"') {
                    ok = fail_at(s, "looking for beginning of object key string");
                    break;
                }
                if (!scan_string(s)) {
                    ok = false;
                    break;
                }
                skip_space(s);
                if (s->i >= s->n || s->p[s->i] != ':') {
                    ok = fail_at(s, "after object key");
                    break;
                }
                s->i++;
                if (!scan_value(s)) {
                    ok = false;
                    break;
                }
                skip_space(s);
                if (s->i < s->n && s->p[s->i] == ',') {
                    s->i++;
                    continue;
                }
                if (s->i < s->n && s->p[s->i] == '}') {
                    s->i++;
                    break;
                }
                ok = fail_at(s, "after object key:value pair");
                break;
            }
        }
    } else if (c == '[') {
        s->i++;
        skip_space(s);
        if (s->i < s->n && s->p[s->i] == ']') {
            s->i++;
        } else {
            for (;;) {
                if (!scan_value(s)) {
                    ok = false;
                    break;
                }
                skip_space(s);
                if (s->i < s->n && s->p[s->i] == ',') {
                    s->i++;
                    continue;
                }
                if (s->i < s->n && s->p[s->i] == ']') {
                    s->i++;
                    break;
                }
                ok = fail_at(s, "after array element");
                break;
            }
        }
    } else if (c == '"') {
        ok = scan_string(s);
    } else if (c == '-' || is_digit(c)) {
        ok = scan_number(s);
    } else if (c == 't') {
        ok = scan_literal(s, "true");
    } else if (c == 'f') {
        ok = scan_literal(s, "false");
    } else if (c == 'n') {
        ok = scan_literal(s, "null");
    } else {
        ok = fail_at(s, "looking for beginning of value");
    }
    s->depth--;
    return ok;
}

bool wh_goenc_valid(const char *text, size_t len, char *msg, size_t msgsz)
{
    char dummy[8];
    struct scan s = {(const unsigned char *)text, len,  0, 0, msg ? msg : dummy,
                     msg ? msgsz : sizeof(dummy), false};
    if (!scan_value(&s))
        return false;
    skip_space(&s);
    if (s.i < s.n)
        return fail_at(&s, "after top-level value");
    return true;
}

/* --- merge patch (evanphx/json-patch v5.6.0) ------------------------------------------- */

/* A lazyNode: raw text until something needs it as an object (DOC) or array (ARY). A JSON
 * null is a NULL node pointer, as Go unmarshals null into a nil *lazyNode. */
enum which { RAW, DOC, ARY };

struct member;

struct node {
    enum which which;
    const char *raw;
    size_t rawlen;
    struct member *members; /* DOC; n == 0 with nil_doc for a "null" document */
    struct node **items;    /* ARY */
    size_t n;
};

struct member {
    char *key; /* decoded */
    struct node *val;
};

static void node_free(struct node *nd)
{
    if (!nd)
        return;
    for (size_t i = 0; nd->which == DOC && i < nd->n; i++) {
        free(nd->members[i].key);
        node_free(nd->members[i].val);
    }
    for (size_t i = 0; nd->which == ARY && i < nd->n; i++)
        node_free(nd->items[i]);
    free(nd->members);
    free(nd->items);
    free(nd);
}

static struct node *raw_node(const char *raw, size_t len)
{
    struct node *nd = wh_xcalloc(1, sizeof(*nd));
    nd->which = RAW;
    nd->raw = raw;
    nd->rawlen = len;
    return nd;
}

/* Skips one value of already validated text; returns the index after it. */
static size_t skip_value(const char *t, size_t n, size_t i)
{
    int depth = 0;
    bool in_str = false;
    for (; i < n; i++) {
        char c = t[i];
        if (in_str) {
            if (c == '\\')
                i++;
            else if (c == '"') {
                in_str = false;
                if (depth == 0)
                    return i + 1;
            }
            continue;
        }
        if (c == '"') {
            in_str = true;
        } else if (c == '{' || c == '[') {
            depth++;
        } else if (c == '}' || c == ']') {
            if (depth == 0)
                return i; /* the end of the enclosing container */
            if (--depth == 0)
                return i + 1;
        } else if (depth == 0 && (c == ',' || c == ':' || is_space((unsigned char)c))) {
            return i;
        }
    }
    return i;
}

static size_t skip_ws(const char *t, size_t n, size_t i)
{
    while (i < n && is_space((unsigned char)t[i]))
        i++;
    return i;
}

static unsigned hexval(char c)
{
    if (c >= '0' && c <= '9')
        return (unsigned)(c - '0');
    if (c >= 'a' && c <= 'f')
        return (unsigned)(c - 'a' + 10);
    return (unsigned)(c - 'A' + 10);
}

static void put_rune(struct wh_buf *b, uint32_t r)
{
    char u[4];
    size_t n;
    if (r < 0x80) {
        u[0] = (char)r;
        n = 1;
    } else if (r < 0x800) {
        u[0] = (char)(0xc0 | (r >> 6));
        u[1] = (char)(0x80 | (r & 0x3f));
        n = 2;
    } else if (r < 0x10000) {
        u[0] = (char)(0xe0 | (r >> 12));
        u[1] = (char)(0x80 | ((r >> 6) & 0x3f));
        u[2] = (char)(0x80 | (r & 0x3f));
        n = 3;
    } else {
        u[0] = (char)(0xf0 | (r >> 18));
        u[1] = (char)(0x80 | ((r >> 12) & 0x3f));
        u[2] = (char)(0x80 | ((r >> 6) & 0x3f));
        u[3] = (char)(0x80 | (r & 0x3f));
        n = 4;
    }
    if (wh_buf_add(b, u, n))
        WH_PANIC("uncapped buffer refused data");
}

/* Decodes a validated JSON string literal at t[i] (Go's unquote: bad surrogates and invalid
 * UTF-8 become U+FFFD). Returns: new string. */
static char *decode_string(const char *t, size_t n, size_t i, size_t *end)
{
    struct wh_buf b;
    wh_buf_init(&b, SIZE_MAX / 2);
    i++;
    while (i < n && t[i] != '"') {
        if (t[i] != '\\') {
            size_t size;
            uint32_t r = wh_utf8_decode((const unsigned char *)t + i, n - i, &size);
            put_rune(&b, r);
            i += size;
            continue;
        }
        char e = t[i + 1];
        i += 2;
        switch (e) {
        case 'b':
            put_rune(&b, '\b');
            break;
        case 'f':
            put_rune(&b, '\f');
            break;
        case 'n':
            put_rune(&b, '\n');
            break;
        case 'r':
            put_rune(&b, '\r');
            break;
        case 't':
            put_rune(&b, '\t');
            break;
        case 'u': {
            uint32_t r = hexval(t[i]) << 12 | hexval(t[i + 1]) << 8 | hexval(t[i + 2]) << 4 |
                         hexval(t[i + 3]);
            i += 4;
            if (r >= 0xd800 && r < 0xdc00 && i + 6 <= n && t[i] == '\\' && t[i + 1] == 'u') {
                uint32_t lo = hexval(t[i + 2]) << 12 | hexval(t[i + 3]) << 8 |
                              hexval(t[i + 4]) << 4 | hexval(t[i + 5]);
                if (lo >= 0xdc00 && lo < 0xe000) {
                    r = 0x10000 + ((r - 0xd800) << 10) + (lo - 0xdc00);
                    i += 6;
                }
            }
            if (r >= 0xd800 && r < 0xe000)
                r = 0xfffd;
            put_rune(&b, r);
            break;
        }
        default:
            put_rune(&b, (unsigned char)e);
            break;
        }
    }
    *end = i + 1;
    char *out = wh_buf_take(&b, NULL);
    return out;
}

/* intoDoc: turns a RAW object into a DOC (later duplicate keys win, as in a Go map).
 * Returns false when the node is not an object. */
static bool into_doc(struct node *nd)
{
    if (nd->which == DOC)
        return true;
    if (nd->which != RAW || nd->rawlen == 0 || nd->raw[0] != '{')
        return false;
    const char *t = nd->raw;
    size_t n = nd->rawlen, i = skip_ws(t, n, 1), cap = 0;
    struct member *m = NULL;
    size_t count = 0;
    while (i < n && t[i] != '}') {
        size_t end;
        char *key = decode_string(t, n, i, &end);
        i = skip_ws(t, n, end) + 1; /* ':' */
        i = skip_ws(t, n, i);
        size_t vend = skip_value(t, n, i);
        struct node *val =
            (vend - i == 4 && memcmp(t + i, "null", 4) == 0) ? NULL : raw_node(t + i, vend - i);
        size_t k;
        for (k = 0; k < count && strcmp(m[k].key, key) != 0; k++)
            ;
        if (k < count) {
            free(key);
            node_free(m[k].val);
            m[k].val = val;
        } else {
            if (count == cap) {
                cap = cap ? cap * 2 : 8;
                m = wh_xrealloc(m, cap * sizeof(*m));
            }
            m[count++] = (struct member){key, val};
        }
        i = skip_ws(t, n, vend);
        if (i < n && t[i] == ',')
            i = skip_ws(t, n, i + 1);
    }
    nd->which = DOC;
    nd->members = m;
    nd->n = count;
    return true;
}

static bool into_ary(struct node *nd)
{
    if (nd->which == ARY)
        return true;
    if (nd->which != RAW || nd->rawlen == 0 || nd->raw[0] != '[')
        return false;
    const char *t = nd->raw;
    size_t n = nd->rawlen, i = skip_ws(t, n, 1), cap = 0, count = 0;
    struct node **items = NULL;
    while (i < n && t[i] != ']') {
        size_t vend = skip_value(t, n, i);
        struct node *val =
            (vend - i == 4 && memcmp(t + i, "null", 4) == 0) ? NULL : raw_node(t + i, vend - i);
        if (count == cap) {
            cap = cap ? cap * 2 : 8;
            items = wh_xrealloc(items, cap * sizeof(*items));
        }
        items[count++] = val;
        i = skip_ws(t, n, vend);
        if (i < n && t[i] == ',')
            i = skip_ws(t, n, i + 1);
    }
    nd->which = ARY;
    nd->items = items;
    nd->n = count;
    return true;
}

static void prune_nulls(struct node *nd);

static void prune_doc_nulls(struct node *nd)
{
    size_t o = 0;
    for (size_t i = 0; i < nd->n; i++) {
        if (!nd->members[i].val) {
            free(nd->members[i].key);
            continue;
        }
        prune_nulls(nd->members[i].val);
        nd->members[o++] = nd->members[i];
    }
    nd->n = o;
}

static void prune_nulls(struct node *nd)
{
    if (into_doc(nd)) {
        prune_doc_nulls(nd);
    } else if (into_ary(nd)) {
        for (size_t i = 0; i < nd->n; i++) {
            if (nd->items[i])
                prune_nulls(nd->items[i]);
        }
    }
}

static struct node *merge(struct node *cur, struct node *patch);

static void merge_docs(struct node *doc, struct node *patch)
{
    for (size_t i = 0; i < patch->n; i++) {
        const char *k = patch->members[i].key;
        struct node *v = patch->members[i].val;
        size_t j;
        for (j = 0; j < doc->n && strcmp(doc->members[j].key, k) != 0; j++)
            ;
        if (!v) {
            if (j < doc->n) {
                free(doc->members[j].key);
                node_free(doc->members[j].val);
                doc->members[j] = doc->members[--doc->n];
            }
            continue;
        }
        patch->members[i].val = NULL; /* moved into doc */
        if (j == doc->n) {
            prune_nulls(v);
            doc->members = wh_xrealloc(doc->members, (doc->n + 1) * sizeof(*doc->members));
            doc->members[doc->n++] = (struct member){wh_xstrdup(k), v};
        } else if (!doc->members[j].val) {
            prune_nulls(v);
            doc->members[j].val = v;
        } else {
            doc->members[j].val = merge(doc->members[j].val, v);
        }
    }
}

/* merge(cur, patch): consumes both, returns the result. */
static struct node *merge(struct node *cur, struct node *patch)
{
    if (!into_doc(cur)) {
        prune_nulls(patch);
        node_free(cur);
        return patch;
    }
    if (!into_doc(patch)) {
        node_free(cur);
        return patch;
    }
    merge_docs(cur, patch);
    node_free(patch);
    return cur;
}

/* json.Compact with HTML escaping, as json.Marshal writes a RawMessage. */
static void append_compact(struct wh_buf *b, const char *t, size_t n)
{
    bool in_str = false;
    size_t start = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)t[i];
        const char *rep = NULL;
        size_t skip = 1;
        if (in_str) {
            if (c == '\\') {
                i++;
                continue;
            }
            if (c == '"')
                in_str = false;
            else if (c == '<')
                rep = "\\u003c";
            else if (c == '>')
                rep = "\\u003e";
            else if (c == '&')
                rep = "\\u0026";
            else if (c == 0xe2 && i + 2 < n && (unsigned char)t[i + 1] == 0x80 &&
                     ((unsigned char)t[i + 2] == 0xa8 || (unsigned char)t[i + 2] == 0xa9)) {
                rep = (unsigned char)t[i + 2] == 0xa8 ? "\\u2028" : "\\u2029";
                skip = 3;
            }
        } else if (c == '"') {
            in_str = true;
        } else if (is_space(c)) {
            rep = "";
        }
        if (rep) {
            if (wh_buf_add(b, t + start, i - start) || wh_buf_adds(b, rep))
                WH_PANIC("uncapped buffer refused data");
            i += skip - 1;
            start = i + 1;
        }
    }
    if (wh_buf_add(b, t + start, n - start))
        WH_PANIC("uncapped buffer refused data");
}

static int cmp_members(const void *a, const void *b)
{
    return strcmp(((const struct member *)a)->key, ((const struct member *)b)->key);
}

static void marshal(struct wh_buf *b, struct node *nd)
{
    enum wh_err rc = WH_OK;
    if (!nd) {
        rc = wh_buf_adds(b, "null");
    } else if (nd->which == RAW) {
        append_compact(b, nd->raw, nd->rawlen);
    } else if (nd->which == DOC) {
        if (nd->n) /* an empty object has no member array: qsort(NULL, 0) is undefined */
            qsort(nd->members, nd->n, sizeof(*nd->members), cmp_members);
        rc = wh_buf_addc(b, '{');
        for (size_t i = 0; !rc && i < nd->n; i++) {
            if (i)
                rc = wh_buf_addc(b, ',');
            if (!rc)
                rc = wh_goenc_append_string(b, nd->members[i].key, strlen(nd->members[i].key));
            if (!rc)
                rc = wh_buf_addc(b, ':');
            if (!rc)
                marshal(b, nd->members[i].val);
        }
        if (!rc)
            rc = wh_buf_addc(b, '}');
    } else {
        rc = wh_buf_addc(b, '[');
        for (size_t i = 0; !rc && i < nd->n; i++) {
            if (i)
                rc = wh_buf_addc(b, ',');
            if (!rc)
                marshal(b, nd->items[i]);
        }
        if (!rc)
            rc = wh_buf_addc(b, ']');
    }
    if (rc)
        WH_PANIC("uncapped buffer refused data");
}

/* The text of a valid document without surrounding whitespace. */
static void trim(const char **t, size_t *n)
{
    while (*n && is_space((unsigned char)**t)) {
        (*t)++;
        (*n)--;
    }
    while (*n && is_space((unsigned char)(*t)[*n - 1]))
        (*n)--;
}

enum wh_err wh_goenc_merge_patch(const char *doc, size_t doclen, const char *patch, size_t patchlen,
                                 char **out, struct wh_errbuf *eb)
{
    if (!wh_goenc_valid(doc, doclen, NULL, 0))
        return wh_errbuf_set(eb, WH_ERR_INVALID, "Invalid JSON Document");
    if (!wh_goenc_valid(patch, patchlen, NULL, 0))
        return wh_errbuf_set(eb, WH_ERR_INVALID, "Invalid JSON Patch");
    trim(&doc, &doclen);
    trim(&patch, &patchlen);
    if (doclen == 4 && memcmp(doc, "null", 4) == 0)
        return wh_errbuf_set(eb, WH_ERR_INVALID, "Invalid JSON Document");
    if (patchlen == 4 && memcmp(patch, "null", 4) == 0)
        return wh_errbuf_set(eb, WH_ERR_INVALID, "Invalid JSON Patch");
    struct node *d = raw_node(doc, doclen), *p = raw_node(patch, patchlen);
    bool doc_ok = into_doc(d), patch_ok = into_doc(p);
    struct node *result = NULL;
    if (doc_ok && patch_ok) {
        merge_docs(d, p);
        result = d;
        node_free(p);
    } else if (patch_ok) {
        /* not a document: the result is the patch without its nulls */
        prune_doc_nulls(p);
        result = p;
        node_free(d);
    } else if (into_ary(p)) {
        for (size_t i = 0; i < p->n; i++) {
            if (p->items[i])
                prune_nulls(p->items[i]);
        }
        result = p;
        node_free(d);
    } else {
        node_free(d);
        node_free(p);
        return wh_errbuf_set(eb, WH_ERR_INVALID, "Invalid JSON Patch");
    }
    struct wh_buf b;
    wh_buf_init(&b, SIZE_MAX / 2);
    marshal(&b, result);
    node_free(result);
    *out = wh_buf_take(&b, NULL);
    return WH_OK;
}
