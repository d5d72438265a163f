#include "util/yaml.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#include "util/buf.h"
#include "util/json.h"
#include "util/mem.h"

#define TAG_PREFIX "tag:yaml.org,2002:"
/* Scalars quoted in error messages are cut here. */
#define QUOTE_MAX 40

/* --- scalar resolution (go-yaml v2's resolve, for untyped targets) ------------------------ */

enum skind { SK_NULL, SK_BOOL, SK_INT, SK_FLOAT, SK_STR };

struct sval {
    enum skind kind;
    bool b;
    long long i;
    double f;
    bool big; /* SK_FLOAT that was written as an integer outside int64 */
};

struct word {
    const char *s;
    enum skind kind;
    int v; /* bool value, or sign of infinity (2: nan) */
};

static const struct word words[] = {
    {"y", SK_BOOL, 1},       {"Y", SK_BOOL, 1},       {"yes", SK_BOOL, 1},
    {"Yes", SK_BOOL, 1},     {"YES", SK_BOOL, 1},     {"true", SK_BOOL, 1},
    {"True", SK_BOOL, 1},    {"TRUE", SK_BOOL, 1},    {"on", SK_BOOL, 1},
    {"On", SK_BOOL, 1},      {"ON", SK_BOOL, 1},      {"n", SK_BOOL, 0},
    {"N", SK_BOOL, 0},       {"no", SK_BOOL, 0},      {"No", SK_BOOL, 0},
    {"NO", SK_BOOL, 0},      {"false", SK_BOOL, 0},   {"False", SK_BOOL, 0},
    {"FALSE", SK_BOOL, 0},   {"off", SK_BOOL, 0},     {"Off", SK_BOOL, 0},
    {"OFF", SK_BOOL, 0},     {"", SK_NULL, 0},        {"~", SK_NULL, 0},
    {"null", SK_NULL, 0},    {"Null", SK_NULL, 0},    {"NULL", SK_NULL, 0},
    {".nan", SK_FLOAT, 2},   {".NaN", SK_FLOAT, 2},   {".NAN", SK_FLOAT, 2},
    {".inf", SK_FLOAT, 1},   {".Inf", SK_FLOAT, 1},   {".INF", SK_FLOAT, 1},
    {"+.inf", SK_FLOAT, 1},  {"+.Inf", SK_FLOAT, 1},  {"+.INF", SK_FLOAT, 1},
    {"-.inf", SK_FLOAT, -1}, {"-.Inf", SK_FLOAT, -1}, {"-.INF", SK_FLOAT, -1},
};

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static int digit_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'Z')
        return c - 'A' + 10;
    return 99;
}

enum parse_int { PI_OK, PI_RANGE, PI_SYNTAX };

/* strconv.ParseInt(s, 0, 64): optional sign, then 0x/0o/0b or a leading 0 (octal) or
 * decimal. On PI_RANGE *approx holds the value as a double (exact rounding for decimal). */
static enum parse_int go_parse_int(const char *s, long long *out, double *approx)
{
    const char *p = s;
    bool neg = false;
    if (*p == '+' || *p == '-') {
        neg = *p == '-';
        p++;
    }
    int base = 10;
    if (p[0] == '0' && p[1] && p[2]) {
        char x = (char)(p[1] | 0x20);
        if (x == 'x' || x == 'o' || x == 'b') {
            base = x == 'x' ? 16 : x == 'o' ? 8 : 2;
            p += 2;
        }
    }
    if (base == 10 && p[0] == '0') {
        base = 8;
        p++;
        if (!*p) {
            *out = 0;
            return PI_OK;
        }
    }
    if (!*p)
        return PI_SYNTAX;
    uint64_t v = 0;
    double d = 0;
    bool over = false;
    for (const char *q = p; *q; q++) {
        int dv = digit_value(*q);
        if (dv >= base)
            return PI_SYNTAX;
        d = d * base + dv;
        if (v > (UINT64_MAX - (uint64_t)dv) / (uint64_t)base)
            over = true;
        else
            v = v * (uint64_t)base + (uint64_t)dv;
    }
    if (!over && !neg && v <= (uint64_t)INT64_MAX) {
        *out = (long long)v;
        return PI_OK;
    }
    if (!over && neg && v <= (uint64_t)INT64_MAX + 1) {
        *out = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(long long)v;
        return PI_OK;
    }
    if (base == 10)
        d = strtod(p, NULL);
    *approx = neg ? -d : d;
    return PI_RANGE;
}

/* go-yaml's yamlStyleFloat: ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$ */
static bool yaml_style_float(const char *s)
{
    const char *p = s;
    if (*p == '+' || *p == '-')
        p++;
    if (*p == '.') {
        p++;
        if (!is_digit(*p))
            return false;
        while (is_digit(*p))
            p++;
    } else {
        if (!is_digit(*p))
            return false;
        while (is_digit(*p))
            p++;
        if (*p == '.') {
            p++;
            while (is_digit(*p))
                p++;
        }
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        if (!is_digit(*p))
            return false;
        while (is_digit(*p))
            p++;
    }
    return *p == '\0';
}

/* strconv's underscoreOK for a decimal float: each "_" sits between two digits. */
static bool underscores_ok(const char *s)
{
    char saw = '^';
    for (const char *p = s; *p; p++) {
        if (is_digit(*p)) {
            saw = '0';
        } else if (*p == '_') {
            if (saw != '0')
                return false;
            saw = '_';
        } else {
            if (saw == '_')
                return false;
            saw = '!';
        }
    }
    return saw != '_';
}

/* strtod that refuses overflow (go's ParseFloat reports ErrRange and go-yaml then keeps the
 * text as a string); underflow to 0 or a subnormal is accepted, as in Go. */
static bool parse_double(const char *s, double *out)
{
    char *end;
    double d = strtod(s, &end);
    if (*end != '\0' || isinf(d))
        return false;
    *out = d;
    return true;
}

static void remove_underscores(const char *s, char *out)
{
    size_t w = 0;
    for (const char *p = s; *p; p++) {
        if (*p != '_')
            out[w++] = *p;
    }
    out[w] = '\0';
}

/* Resolves a plain scalar as go-yaml v2 does without a tag. s is NUL-terminated, len long. */
static void resolve_plain(const char *s, size_t len, struct sval *r)
{
    memset(r, 0, sizeof(*r));
    r->kind = SK_STR;
    if (memchr(s, '\0', len))
        return; /* only a quoted "\0" escape gets here; no number or word contains it */
    char c = len ? s[0] : 'N';
    bool sign = c == '+' || c == '-';
    if (!(sign || is_digit(c) || c == '.' || strchr("yYnNtTfFoO~N", c)))
        return;
    for (size_t k = 0; k < sizeof(words) / sizeof(words[0]); k++) {
        if (strcmp(s, words[k].s) != 0)
            continue;
        r->kind = words[k].kind;
        r->b = words[k].v == 1;
        if (r->kind == SK_FLOAT)
            r->f = words[k].v == 2 ? NAN : words[k].v * INFINITY;
        return;
    }
    if (c == '.') {
        if (!underscores_ok(s))
            return;
        char *plain = wh_xmalloc(len + 1);
        remove_underscores(s, plain);
        if (yaml_style_float(plain) && parse_double(plain, &r->f))
            r->kind = SK_FLOAT;
        free(plain);
        return;
    }
    if (!(sign || is_digit(c)))
        return;

    char *plain = wh_xmalloc(len + 1);
    remove_underscores(s, plain);
    double approx = 0;
    switch (go_parse_int(plain, &r->i, &approx)) {
    case PI_OK:
        r->kind = SK_INT;
        break;
    case PI_RANGE:
        if (!isinf(approx)) {
            r->kind = SK_FLOAT;
            r->f = approx;
            r->big = true;
        }
        break;
    case PI_SYNTAX:
        if (yaml_style_float(plain) && parse_double(plain, &r->f))
            r->kind = SK_FLOAT;
        break;
    }
    free(plain);
}

/* --- Go's FormatFloat(f, 'g', -1, 32), for float keys ------------------------------------- */

static void go_format_g32(double f, char *out, size_t outsz)
{
    float x = (float)f;
    if (isnan(x)) {
        snprintf(out, outsz, ".nan");
        return;
    }
    if (isinf(x)) {
        snprintf(out, outsz, x > 0 ? ".inf" : "-.inf");
        return;
    }
    /* The shortest decimal that reads back as the same float32. */
    char e[32];
    for (int prec = 1; prec <= 9; prec++) {
        snprintf(e, sizeof(e), "%.*e", prec - 1, (double)x);
        if (strtof(e, NULL) == x)
            break;
    }
    const char *p = e;
    bool neg = *p == '-';
    if (neg)
        p++;
    char digits[16];
    size_t nd = 0;
    for (; *p && *p != 'e'; p++) {
        if (is_digit(*p) && nd < sizeof(digits) - 1)
            digits[nd++] = *p;
    }
    int exp = *p == 'e' ? (int)strtol(p + 1, NULL, 10) : 0;
    while (nd > 1 && digits[nd - 1] == '0')
        nd--;
    digits[nd] = '\0';
    if (x == 0)
        exp = 0;

    /* Go uses %e when the exponent is < -4 or >= 6 for the shortest form, with every digit
     * and a two-digit minimum exponent (1e+06, 1.5e-07); otherwise %f with no padding. */
    char txt[64];
    size_t w = 0;
    if (neg)
        txt[w++] = '-';
    if (exp < -4 || exp >= 6) {
        txt[w++] = digits[0];
        if (nd > 1) {
            txt[w++] = '.';
            memcpy(txt + w, digits + 1, nd - 1);
            w += nd - 1;
        }
        snprintf(txt + w, sizeof(txt) - w, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
    } else {
        int dp = exp + 1; /* digits before the point: -3..6 */
        if (dp <= 0) {
            txt[w++] = '0';
            txt[w++] = '.';
            for (int k = 0; k < -dp; k++)
                txt[w++] = '0';
            memcpy(txt + w, digits, nd);
            w += nd;
        } else {
            for (int k = 0; k < dp || (size_t)k < nd; k++) {
                if (k == dp)
                    txt[w++] = '.';
                txt[w++] = (size_t)k < nd ? digits[k] : '0';
            }
        }
        txt[w] = '\0';
    }
    snprintf(out, outsz, "%s", txt);
}

/* --- the loader --------------------------------------------------------------------------- */

/* units: nodes plus bytes of scalar and key text, what an alias to it costs.
 * height: mapping/sequence levels inside it (0 for a scalar). */
struct anchor {
    json_t *value;
    size_t units;
    size_t height;
};

struct frame {
    json_t *node; /* array or object being built */
    bool is_map;
    char *anchor;
    size_t units;
    size_t height;
    /* mappings: the key waiting for its value */
    bool have_key;
    bool key_is_merge;
    char *key;
    size_t key_len;
    yaml_mark_t key_mark;
    json_t *merges; /* objects merged in at the end, first one wins */
    char *ptr;      /* with marks: this node's JSON pointer; NULL inside a merge source */
};

struct loader {
    const char *file;
    const char *buf;
    size_t len;
    size_t max_depth;
    size_t max_units;
    size_t alias_units;
    struct wh_errbuf *eb;
    struct frame *stack;
    size_t depth, stack_alloc;
    json_t *anchor_index; /* name -> index into anchors */
    struct anchor *anchors;
    size_t nanchors, anchors_alloc;
    json_t *root;
    bool have_root;
    json_t *marks; /* with marks: the document's {JSON pointer: line}; NULL without */
};

static enum wh_err fail(struct loader *l, enum wh_err rc, yaml_mark_t m, const char *fmt, ...)
    WH_PRINTF(4, 5);

static enum wh_err fail(struct loader *l, enum wh_err rc, yaml_mark_t m, const char *fmt, ...)
{
    char msg[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return wh_errbuf_set(l->eb, rc, "%s:%zu:%zu: %s", l->file, m.line + 1, m.column + 1, msg);
}

static int quote_len(const char *s, size_t len)
{
    const char *nul = memchr(s, '\0', len);
    if (nul)
        len = (size_t)(nul - s);
    return (int)(len > QUOTE_MAX ? QUOTE_MAX : len);
}


static void anchors_reset(struct loader *l)
{
    for (size_t i = 0; i < l->nanchors; i++)
        json_decref(l->anchors[i].value);
    l->nanchors = 0;
    json_object_clear(l->anchor_index);
}

/* Steals: v. */
static void anchor_define(struct loader *l, const char *name, json_t *v, size_t units,
                          size_t height)
{
    if (l->nanchors == l->anchors_alloc) {
        l->anchors_alloc = l->anchors_alloc ? 2 * l->anchors_alloc : 16;
        l->anchors = wh_xrealloc(l->anchors, l->anchors_alloc * sizeof(*l->anchors));
    }
    l->anchors[l->nanchors].value = v;
    l->anchors[l->nanchors].units = units;
    l->anchors[l->nanchors].height = height;
    WH_ASSERT(json_object_set_new_nocheck(l->anchor_index, name,
                                          json_integer((json_int_t)l->nanchors)) == 0);
    l->nanchors++;
}

static enum wh_err anchor_find(struct loader *l, const char *name, yaml_mark_t m,
                               const struct anchor **out)
{
    /* An alias inside the node its anchor names would make an infinite value. */
    for (size_t i = 0; i < l->depth; i++) {
        if (l->stack[i].anchor && strcmp(l->stack[i].anchor, name) == 0)
            return fail(l, WH_ERR_PARSE, m, "anchor '%s' value contains itself", name);
    }
    json_t *idx = json_object_get(l->anchor_index, name);
    if (!idx)
        return fail(l, WH_ERR_PARSE, m, "unknown anchor '%s' referenced", name);
    *out = &l->anchors[json_integer_value(idx)];
    return WH_OK;
}

static struct frame *top(struct loader *l)
{
    return l->depth ? &l->stack[l->depth - 1] : NULL;
}

static bool wants_key(struct loader *l)
{
    struct frame *f = top(l);
    return f && f->is_map && !f->have_key;
}

static void frame_fini(struct frame *f)
{
    json_decref(f->node);
    json_decref(f->merges);
    free(f->anchor);
    free(f->key);
    free(f->ptr);
}

/* --- marks: the line of each value, by JSON pointer ---------------------------------------- */

/* Appends "/" and tok escaped as RFC 6901 says (~ as ~0, / as ~1). */
static void pointer_add(struct wh_buf *b, const char *tok, size_t len)
{
    WH_ASSERT(wh_buf_addc(b, '/') == WH_OK);
    for (size_t i = 0; i < len; i++) {
        const char *esc = tok[i] == '~' ? "~0" : tok[i] == '/' ? "~1" : NULL;
        WH_ASSERT((esc ? wh_buf_adds(b, esc) : wh_buf_addc(b, tok[i])) == WH_OK);
    }
}

/* The pointer of the value the next event makes (new string), or NULL when it has none: no
 * marks wanted, or a merge source (its members are merged under other names). */
static char *next_pointer(struct loader *l)
{
    struct frame *f = top(l);
    if (!l->marks)
        return NULL;
    if (!f)
        return wh_xstrdup("");
    if (!f->ptr || (f->is_map && f->key_is_merge))
        return NULL;
    struct wh_buf b;
    wh_buf_init(&b, SIZE_MAX);
    WH_ASSERT(wh_buf_adds(&b, f->ptr) == WH_OK);
    if (f->is_map) {
        pointer_add(&b, f->key, f->key_len);
    } else {
        char idx[24];
        snprintf(idx, sizeof(idx), "%zu", json_array_size(f->node));
        pointer_add(&b, idx, strlen(idx));
    }
    return wh_buf_take(&b, NULL);
}

/* Records the line of the value the next event makes: a mapping member's is its key's line,
 * where an editor looks for it; others start where they are. Returns the pointer (new string,
 * or NULL) for a mapping or sequence to keep. */
static char *mark_next(struct loader *l, yaml_mark_t at)
{
    char *ptr = next_pointer(l);
    if (!ptr)
        return NULL;
    struct frame *f = top(l);
    size_t line = (f && f->is_map ? f->key_mark.line : at.line) + 1;
    WH_ASSERT(json_object_set_new(l->marks, ptr, json_integer((json_int_t)line)) == 0);
    return ptr;
}

/* Puts a finished value where it belongs: document root, sequence item, mapping value, or
 * merge source. Steals: v; anchor (the name, may be NULL). */
static enum wh_err place(struct loader *l, json_t *v, size_t units, size_t height, char *anchor,
                         yaml_mark_t m)
{
    enum wh_err rc = WH_OK;
    struct frame *f = top(l);
    if (anchor) {
        anchor_define(l, anchor, json_incref(v), units, height);
        free(anchor);
    }
    if (!f) {
        l->root = v;
        l->have_root = true;
        return WH_OK;
    }
    f->units += units;
    if (height + 1 > f->height)
        f->height = height + 1;
    if (!f->is_map) {
        WH_ASSERT(json_array_append_new(f->node, v) == 0);
        return WH_OK;
    }
    WH_ASSERT(f->have_key);
    f->have_key = false;
    if (f->key_is_merge) {
        size_t i;
        json_t *e;
        bool ok = json_is_object(v);
        if (json_is_array(v)) {
            ok = true;
            json_array_foreach(v, i, e)
            {
                ok = ok && json_is_object(e);
            }
        }
        if (!ok) {
            rc =
                fail(l, WH_ERR_PARSE, m, "map merge requires map or sequence of maps as the value");
            goto out;
        }
        if (!f->merges)
            f->merges = json_array();
        if (json_is_object(v)) {
            WH_ASSERT(json_array_append(f->merges, v) == 0);
        } else {
            json_array_foreach(v, i, e)
            {
                WH_ASSERT(json_array_append(f->merges, e) == 0);
            }
        }
        goto out;
    }
    if (json_object_getn(f->node, f->key, f->key_len)) {
        rc = fail(l, WH_ERR_PARSE, f->key_mark, "duplicate key \"%.*s\"",
                  quote_len(f->key, f->key_len), f->key);
        goto out;
    }
    if (json_object_setn_new(f->node, f->key, f->key_len, v) != 0) {
        v = NULL;
        rc = fail(l, WH_ERR_PARSE, f->key_mark, "key is not valid UTF-8");
        goto out;
    }
    v = NULL;
out:
    free(f->key);
    f->key = NULL;
    json_decref(v);
    return rc;
}

static enum wh_err set_key(struct loader *l, char *key, size_t len, yaml_mark_t m)
{
    struct frame *f = top(l);
    f->key = key;
    f->key_len = len;
    f->key_mark = m;
    f->key_is_merge = false;
    f->have_key = true;
    f->units += len;
    return WH_OK;
}

/* A JSON value used as a mapping key (an alias to a scalar): printed as sigs.k8s.io/yaml
 * prints a key of that Go type. */
static enum wh_err key_from_json(struct loader *l, const json_t *v, yaml_mark_t m, char **key,
                                 size_t *len)
{
    char tmp[64];
    switch (json_typeof(v)) {
    case JSON_STRING:
        /* not wh_xstrndup: the string may hold a NUL */
        *len = json_string_length(v);
        *key = wh_xmalloc(*len + 1);
        memcpy(*key, json_string_value(v), *len + 1);
        return WH_OK;
    case JSON_INTEGER:
        snprintf(tmp, sizeof(tmp), "%lld", (long long)json_integer_value(v));
        break;
    case JSON_REAL:
        go_format_g32(json_real_value(v), tmp, sizeof(tmp));
        break;
    case JSON_TRUE:
    case JSON_FALSE:
        snprintf(tmp, sizeof(tmp), "%s", json_is_true(v) ? "true" : "false");
        break;
    case JSON_NULL:
        return fail(l, WH_ERR_PARSE, m, "mapping key is null");
    default:
        return fail(l, WH_ERR_PARSE, m, "mapping key must be a scalar, not a %s",
                    json_is_object(v) ? "mapping" : "sequence");
    }
    *len = strlen(tmp);
    *key = wh_xstrdup(tmp);
    return WH_OK;
}

static const char *short_tag(const char *tag)
{
    return strncmp(tag, TAG_PREFIX, strlen(TAG_PREFIX)) == 0 ? tag + strlen(TAG_PREFIX) : tag;
}

static const char *kind_name(enum skind k)
{
    static const char *const names[] = {"null", "bool", "int", "float", "str"};
    return names[k];
}

/* Resolves a scalar event into r, honouring its tag. */
static enum wh_err resolve_event(struct loader *l, const yaml_event_t *e, struct sval *r)
{
    const char *s = (const char *)e->data.scalar.value;
    size_t len = e->data.scalar.length;
    const char *tag = (const char *)e->data.scalar.tag;
    memset(r, 0, sizeof(*r));
    r->kind = SK_STR;
    if (!tag || !*tag) {
        if (e->data.scalar.plain_implicit && e->data.scalar.style == YAML_PLAIN_SCALAR_STYLE)
            resolve_plain(s, len, r);
        return WH_OK;
    }
    const char *st = short_tag(tag);
    enum skind want;
    if (st == tag)
        return WH_OK; /* "!" or a local tag: the text stays a string */
    if (strcmp(st, "int") == 0)
        want = SK_INT;
    else if (strcmp(st, "float") == 0)
        want = SK_FLOAT;
    else if (strcmp(st, "bool") == 0)
        want = SK_BOOL;
    else if (strcmp(st, "null") == 0)
        want = SK_NULL;
    else
        return WH_OK; /* str, binary, timestamp, merge, and the rest */
    resolve_plain(s, len, r);
    if (r->kind == want || (want == SK_INT && r->kind == SK_FLOAT && r->big))
        return WH_OK;
    if (want == SK_FLOAT && r->kind == SK_INT) {
        r->kind = SK_FLOAT;
        r->f = (double)r->i;
        return WH_OK;
    }
    return fail(l, WH_ERR_PARSE, e->start_mark, "cannot decode !!%s `%.*s` as a !!%s",
                kind_name(r->kind), quote_len(s, len), s, st);
}

/* Returns: new ref in *out, the JSON form of a resolved scalar. */
static enum wh_err scalar_json(struct loader *l, const yaml_event_t *e, const struct sval *r,
                               json_t **out)
{
    const char *s = (const char *)e->data.scalar.value;
    size_t len = e->data.scalar.length;
    json_t *v = NULL;
    switch (r->kind) {
    case SK_NULL:
        v = json_null();
        break;
    case SK_BOOL:
        v = json_boolean(r->b);
        break;
    case SK_INT:
        v = json_integer((json_int_t)r->i);
        break;
    case SK_FLOAT:
        if (isnan(r->f) || isinf(r->f))
            return fail(l, WH_ERR_PARSE, e->start_mark,
                        "%.*s: JSON cannot represent infinity or NaN", quote_len(s, len), s);
        /* Go's json.Marshal prints an integral float64 without a fraction. An integer too
         * big for int64 stays a real: it is already rounded. */
        if (!r->big && r->f >= -9223372036854775808.0 && r->f < 9223372036854775808.0 &&
            r->f == floor(r->f))
            v = json_integer((json_int_t)r->f);
        else
            v = json_real(r->f);
        break;
    case SK_STR:
        v = json_stringn(s, len);
        if (!v)
            return fail(l, WH_ERR_PARSE, e->start_mark, "scalar is not valid UTF-8");
        break;
    }
    WH_ASSERT(v);
    *out = v;
    return WH_OK;
}

/* go-yaml's isMerge: a plain untagged "<<", or any "<<" tagged !!merge. Only a key can be
 * one; as a value "<<" is a string. */
static bool is_merge_key(const yaml_event_t *e)
{
    const char *tag = (const char *)e->data.scalar.tag;
    if (e->data.scalar.length != 2 || memcmp(e->data.scalar.value, "<<", 2) != 0)
        return false;
    if (tag && *tag)
        return strcmp(tag, TAG_PREFIX "merge") == 0;
    return e->data.scalar.plain_implicit && e->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
}

static char *take_anchor(yaml_char_t *a)
{
    return a ? wh_xstrdup((const char *)a) : NULL;
}

static enum wh_err on_scalar(struct loader *l, const yaml_event_t *e)
{
    struct sval r;
    json_t *v = NULL;
    char *anchor = take_anchor(e->data.scalar.anchor);
    const char *s = (const char *)e->data.scalar.value;
    size_t len = e->data.scalar.length;
    enum wh_err rc = resolve_event(l, e, &r);
    if (rc)
        goto out;

    if (wants_key(l)) {
        char tmp[64];
        char *key = NULL;
        size_t klen = 0;
        if (anchor && !(r.kind == SK_FLOAT && !isfinite(r.f))) {
            /* An alias to it gives the key's value form (a JSON value cannot be inf). */
            json_t *av = NULL;
            rc = scalar_json(l, e, &r, &av);
            if (rc)
                goto out;
            anchor_define(l, anchor, av, 1 + len, 0);
        }
        if (is_merge_key(e)) {
            rc = set_key(l, NULL, 0, e->start_mark);
            top(l)->key_is_merge = true;
            goto out;
        }
        switch (r.kind) {
        case SK_NULL:
            rc = fail(l, WH_ERR_PARSE, e->start_mark, "mapping key is null");
            goto out;
        case SK_BOOL:
            snprintf(tmp, sizeof(tmp), "%s", r.b ? "true" : "false");
            break;
        case SK_INT:
            snprintf(tmp, sizeof(tmp), "%lld", r.i);
            break;
        case SK_FLOAT:
            go_format_g32(r.f, tmp, sizeof(tmp));
            break;
        case SK_STR:
            key = wh_xmalloc(len + 1);
            memcpy(key, s, len + 1);
            klen = len;
            break;
        }
        if (!key) {
            klen = strlen(tmp);
            key = wh_xstrdup(tmp);
        }
        rc = set_key(l, key, klen, e->start_mark);
        goto out;
    }

    rc = scalar_json(l, e, &r, &v);
    if (rc)
        goto out;
    free(mark_next(l, e->start_mark));
    rc = place(l, v, 1 + len, 0, anchor, e->start_mark);
    v = NULL;
    anchor = NULL;
out:
    free(anchor);
    json_decref(v);
    return rc;
}

static enum wh_err on_alias(struct loader *l, const yaml_event_t *e)
{
    const char *name = (const char *)e->data.alias.anchor;
    const struct anchor *a = NULL;
    enum wh_err rc = anchor_find(l, name, e->start_mark, &a);
    if (rc)
        return rc;
    if (a->units > l->max_units || l->alias_units > l->max_units - a->units)
        return fail(l, WH_ERR_TOO_BIG, e->start_mark,
                    "aliases expand to more than %zu nodes and bytes", l->max_units);
    l->alias_units += a->units;
    if (wants_key(l)) {
        char *key = NULL;
        size_t klen = 0;
        rc = key_from_json(l, a->value, e->start_mark, &key, &klen);
        if (rc)
            return rc;
        return set_key(l, key, klen, e->start_mark);
    }
    if (l->depth + a->height > l->max_depth)
        return fail(l, WH_ERR_TOO_BIG, e->start_mark, "nesting deeper than %zu levels",
                    l->max_depth);
    free(mark_next(l, e->start_mark));
    return place(l, wh_json_copy(a->value), a->units, a->height, NULL, e->start_mark);
}

static enum wh_err on_start(struct loader *l, const yaml_event_t *e, bool is_map)
{
    yaml_char_t *anchor = is_map ? e->data.mapping_start.anchor : e->data.sequence_start.anchor;
    if (wants_key(l))
        return fail(l, WH_ERR_PARSE, e->start_mark, "mapping key must be a scalar, not a %s",
                    is_map ? "mapping" : "sequence");
    if (l->depth >= l->max_depth)
        return fail(l, WH_ERR_TOO_BIG, e->start_mark, "nesting deeper than %zu levels",
                    l->max_depth);
    if (l->depth == l->stack_alloc) {
        l->stack_alloc = l->stack_alloc ? 2 * l->stack_alloc : 16;
        l->stack = wh_xrealloc(l->stack, l->stack_alloc * sizeof(*l->stack));
    }
    char *ptr = mark_next(l, e->start_mark);
    struct frame *f = &l->stack[l->depth++];
    memset(f, 0, sizeof(*f));
    f->ptr = ptr;
    f->node = is_map ? json_object() : json_array();
    WH_ASSERT(f->node);
    f->is_map = is_map;
    f->anchor = take_anchor(anchor);
    f->units = 1;
    f->height = 1;
    return WH_OK;
}

static enum wh_err on_end(struct loader *l, const yaml_event_t *e)
{
    struct frame f = l->stack[--l->depth];
    if (f.merges) {
        /* Keys written in the mapping win, then the first merge source that has the key. */
        size_t i;
        json_t *src;
        json_array_foreach(f.merges, i, src)
        {
            const char *key;
            size_t klen;
            json_t *v;
            json_object_keylen_foreach(src, key, klen, v)
            {
                if (!json_object_getn(f.node, key, klen))
                    WH_ASSERT(json_object_setn_nocheck(f.node, key, klen, v) == 0);
            }
        }
    }
    json_t *node = f.node;
    char *anchor = f.anchor;
    f.node = NULL;
    f.anchor = NULL;
    frame_fini(&f);
    return place(l, node, f.units, f.height, anchor, e->start_mark);
}

static enum wh_err parser_error(struct loader *l, const yaml_parser_t *p)
{
    if (p->error == YAML_MEMORY_ERROR)
        return wh_errbuf_set(l->eb, WH_ERR_NOMEM, "%s: out of memory", l->file);
    const char *problem = p->problem ? p->problem : "invalid YAML";
    if (p->error == YAML_READER_ERROR) {
        /* Reader errors carry a byte offset, not a mark. */
        yaml_mark_t m = {0, 0, 0};
        size_t off = p->problem_offset < l->len ? p->problem_offset : l->len;
        for (size_t i = 0; i < off; i++) {
            if (l->buf[i] == '\n') {
                m.line++;
                m.column = 0;
            } else {
                m.column++;
            }
        }
        return fail(l, WH_ERR_PARSE, m, "%s", problem);
    }
    if (p->context)
        return fail(l, WH_ERR_PARSE, p->problem_mark, "%s (%s at %zu:%zu)", problem, p->context,
                    p->context_mark.line + 1, p->context_mark.column + 1);
    return fail(l, WH_ERR_PARSE, p->problem_mark, "%s", problem);
}

static enum wh_err load(const char *buf, size_t len, const char *filename,
                        const struct wh_yaml_limits *lim, json_t **docs, json_t **marks,
                        struct wh_errbuf *eb)
{
    enum wh_err rc = WH_OK;
    yaml_parser_t parser;
    yaml_event_t event;
    bool have_event = false, done = false;
    json_t *out = json_array();
    json_t *marks_out = marks ? json_array() : NULL;
    struct loader l;
    memset(&l, 0, sizeof(l));
    l.file = filename ? filename : "<input>";
    l.buf = buf;
    l.len = len;
    l.eb = eb;
    l.max_depth = lim && lim->max_depth ? lim->max_depth : WH_YAML_MAX_DEPTH;
    l.max_units = lim && lim->max_alias_units ? lim->max_alias_units : WH_YAML_ALIAS_UNITS;
    if (!(lim && lim->max_alias_units) && len <= SIZE_MAX / 4 && 4 * len > l.max_units)
        l.max_units = 4 * len;
    l.anchor_index = json_object();
    WH_ASSERT(out && l.anchor_index);

    if (!yaml_parser_initialize(&parser)) {
        json_decref(out);
        json_decref(l.anchor_index);
        return wh_errbuf_set(eb, WH_ERR_NOMEM, "%s: cannot initialise the YAML parser", l.file);
    }
    yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);

    while (!done) {
        if (!yaml_parser_parse(&parser, &event)) {
            rc = parser_error(&l, &parser);
            goto out;
        }
        have_event = true;
        switch (event.type) {
        case YAML_STREAM_END_EVENT:
            done = true;
            break;
        case YAML_DOCUMENT_START_EVENT:
            /* anchors belong to one document */
            anchors_reset(&l);
            if (marks_out)
                l.marks = json_object();
            break;
        case YAML_DOCUMENT_END_EVENT:
            if (l.have_root && !json_is_null(l.root)) {
                WH_ASSERT(json_array_append(out, l.root) == 0);
                if (marks_out)
                    WH_ASSERT(json_array_append(marks_out, l.marks) == 0);
            }
            json_decref(l.marks);
            l.marks = NULL;
            json_decref(l.root);
            l.root = NULL;
            l.have_root = false;
            break;
        case YAML_SCALAR_EVENT:
            rc = on_scalar(&l, &event);
            break;
        case YAML_ALIAS_EVENT:
            rc = on_alias(&l, &event);
            break;
        case YAML_SEQUENCE_START_EVENT:
            rc = on_start(&l, &event, false);
            break;
        case YAML_MAPPING_START_EVENT:
            rc = on_start(&l, &event, true);
            break;
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT:
            rc = on_end(&l, &event);
            break;
        default:
            break;
        }
        yaml_event_delete(&event);
        have_event = false;
        if (rc)
            goto out;
    }
    *docs = out;
    out = NULL;
    if (marks) {
        *marks = marks_out;
        marks_out = NULL;
    }
out:
    if (have_event)
        yaml_event_delete(&event);
    yaml_parser_delete(&parser);
    while (l.depth > 0)
        frame_fini(&l.stack[--l.depth]);
    free(l.stack);
    anchors_reset(&l);
    free(l.anchors);
    json_decref(l.anchor_index);
    json_decref(l.root);
    json_decref(l.marks);
    json_decref(out);
    json_decref(marks_out);
    return rc;
}

enum wh_err wh_yaml_load_limits(const char *buf, size_t len, const char *filename,
                                const struct wh_yaml_limits *lim, json_t **docs,
                                struct wh_errbuf *eb)
{
    return load(buf, len, filename, lim, docs, NULL, eb);
}

enum wh_err wh_yaml_load(const char *buf, size_t len, const char *filename, json_t **docs,
                         struct wh_errbuf *eb)
{
    return load(buf, len, filename, NULL, docs, NULL, eb);
}

enum wh_err wh_yaml_load_marks(const char *buf, size_t len, const char *filename, json_t **docs,
                               json_t **marks, struct wh_errbuf *eb)
{
    return load(buf, len, filename, NULL, docs, marks, eb);
}

size_t wh_yaml_mark_line(const json_t *marks, const json_t *path)
{
    struct wh_buf b;
    wh_buf_init(&b, SIZE_MAX);
    json_t *line = json_object_get(marks, "");
    size_t i;
    const json_t *seg;
    json_array_foreach(path, i, seg)
    {
        char idx[24];
        if (json_is_string(seg)) {
            pointer_add(&b, json_string_value(seg), json_string_length(seg));
        } else {
            snprintf(idx, sizeof(idx), "%" JSON_INTEGER_FORMAT, json_integer_value(seg));
            pointer_add(&b, idx, strlen(idx));
        }
        json_t *at = json_object_getn(marks, b.data, b.len);
        if (!at)
            break; /* brought in by an alias or a merge key: the nearest line that has one */
        line = at;
    }
    wh_buf_fini(&b);
    return line ? (size_t)json_integer_value(line) : 0;
}

/* Reads path whole, at most max_bytes, into b (initialised here; the caller releases it). */
static enum wh_err read_file(const char *path, size_t max_bytes, struct wh_buf *b,
                             struct wh_errbuf *eb)
{
    enum wh_err rc = WH_OK;
    char chunk[16384];
    wh_buf_init(b, max_bytes);
    /* Opened without waiting: a FIFO (or a device) named here would block the open, and with it
     * the start-up, until something writes to it; it is refused instead. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0 && !S_ISREG(st.st_mode)) {
        close(fd);
        return wh_errbuf_set(eb, WH_ERR_IO, "%s: not a regular file (%s): only files are read",
                             path,
                             S_ISFIFO(st.st_mode)  ? "a FIFO"
                             : S_ISDIR(st.st_mode) ? "a directory"
                             : S_ISSOCK(st.st_mode) ? "a socket"
                                                    : "a device");
    }
    FILE *f = fd >= 0 ? fdopen(fd, "rb") : NULL;
    if (!f) {
        char why[128];
        if (strerror_r(errno, why, sizeof(why)) != 0)
            snprintf(why, sizeof(why), "errno %d", errno);
        if (fd >= 0)
            close(fd);
        return wh_errbuf_set(eb, WH_ERR_IO, "%s: cannot open: %s", path, why);
    }
    for (;;) {
        size_t n = fread(chunk, 1, sizeof(chunk), f);
        if (n > 0) {
            rc = wh_buf_add(b, chunk, n);
            if (rc) {
                rc =
                    wh_errbuf_set(eb, WH_ERR_TOO_BIG, "%s: larger than %zu bytes", path, max_bytes);
                goto out;
            }
        }
        if (n < sizeof(chunk)) {
            if (ferror(f))
                rc = wh_errbuf_set(eb, WH_ERR_IO, "%s: read error", path);
            break;
        }
    }
out:
    fclose(f);
    return rc;
}

static enum wh_err load_file(const char *path, size_t max_bytes, json_t **docs, json_t **marks,
                             struct wh_errbuf *eb)
{
    struct wh_buf b;
    enum wh_err rc = read_file(path, max_bytes, &b, eb);
    if (!rc)
        rc = load(b.data ? b.data : "", b.len, path, NULL, docs, marks, eb);
    wh_buf_fini(&b);
    return rc;
}

enum wh_err wh_yaml_load_file(const char *path, size_t max_bytes, json_t **docs,
                              struct wh_errbuf *eb)
{
    return load_file(path, max_bytes, docs, NULL, eb);
}

enum wh_err wh_yaml_load_file_marks(const char *path, size_t max_bytes, json_t **docs,
                                    json_t **marks, struct wh_errbuf *eb)
{
    return load_file(path, max_bytes, docs, marks, eb);
}
