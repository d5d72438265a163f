#include "k8s/selector.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/mem.h"

enum op { OP_EQUALS, OP_IN, OP_NOTIN, OP_EXISTS, OP_DOESNOTEXIST };

struct req {
    const char *key;
    const char *const *vals;
    uint32_t nvals;
    uint8_t op;
};

/* One allocation: the header, the requirements, the value pointer arrays, then the strings. */
struct wh_selector {
    enum wh_selector_state state;
    uint32_t nreq;
    size_t size;
    const char *error;
    struct req reqs[];
};

static bool parse_op(const char *s, enum op *op)
{
    static const struct {
        const char *name;
        enum op op;
    } ops[] = {{"In", OP_IN},
               {"NotIn", OP_NOTIN},
               {"Exists", OP_EXISTS},
               {"DoesNotExist", OP_DOESNOTEXIST}};
    for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
        if (strcmp(s, ops[i].name) == 0) {
            *op = ops[i].op;
            return true;
        }
    }
    return false;
}

/* Go's %q of an operator name, followed by upstream's words. Returns: new string. */
static char *go_quote_op(const char *s)
{
    size_t n = strlen(s);
    char *out = wh_xmalloc(n * 4 + 64), *p = out;
    *p++ = '"';
    for (const unsigned char *q = (const unsigned char *)s; *q; q++) {
        if (*q == '"' || *q == '\\') {
            *p++ = '\\';
            *p++ = (char)*q;
        } else if (*q < 0x20 || *q == 0x7f) {
            p += snprintf(p, 5, "\\x%02x", *q);
        } else {
            *p++ = (char)*q;
        }
    }
    static const char tail[] = "\" is not a valid pod selector operator";
    memcpy(p, tail, sizeof(tail));
    return out;
}

static const char *str_or_empty(const json_t *v)
{
    return json_is_string(v) ? json_string_value(v) : "";
}

/* Walks sel twice: once to size the block (out == NULL), once to fill it. */
struct layout {
    size_t nreq, nvals, nchars;
    char *err;
};

static void walk(const json_t *sel, struct wh_selector *out, struct layout *lay)
{
    const json_t *ml = json_object_get(sel, "matchLabels");
    const json_t *me = json_object_get(sel, "matchExpressions");
    struct req *reqs = out ? out->reqs : NULL;
    const char **vals = out ? (const char **)(void *)(reqs + lay->nreq) : NULL;
    char *chars = out ? (char *)(vals + lay->nvals) : NULL;
    size_t r = 0, v = 0, c = 0;

#define PUT_STR(dst, s)                                                                            \
    do {                                                                                           \
        size_t n_ = strlen(s) + 1;                                                                 \
        if (out) {                                                                                 \
            memcpy(chars + c, (s), n_);                                                            \
            (dst) = chars + c;                                                                     \
        }                                                                                          \
        c += n_;                                                                                   \
    } while (0)

    if (json_is_object(ml)) {
        const char *k;
        json_t *val;
        json_object_foreach((json_t *)(uintptr_t)ml, k, val)
        {
            const char *key = NULL, *one = NULL;
            PUT_STR(key, k);
            PUT_STR(one, str_or_empty(val));
            if (out) {
                vals[v] = one;
                reqs[r] = (struct req){key, vals + v, 1, OP_EQUALS};
            }
            r++;
            v++;
        }
    }
    if (json_is_array(me)) {
        size_t i;
        json_t *e;
        json_array_foreach(me, i, e)
        {
            const char *opname = str_or_empty(json_object_get(e, "operator"));
            enum op op;
            if (!parse_op(opname, &op)) {
                if (!lay->err)
                    lay->err = go_quote_op(opname);
                continue;
            }
            const char *key = NULL;
            PUT_STR(key, str_or_empty(json_object_get(e, "key")));
            const json_t *values = json_object_get(e, "values");
            size_t first = v, j;
            json_t *s;
            json_array_foreach(values, j, s)
            {
                const char *one = NULL;
                PUT_STR(one, str_or_empty(s));
                if (out)
                    vals[v] = one;
                v++;
            }
            if (out)
                reqs[r] = (struct req){key, vals + first, (uint32_t)(v - first), (uint8_t)op};
            r++;
        }
    }
#undef PUT_STR
    if (!out) {
        lay->nreq = r;
        lay->nvals = v;
        lay->nchars = c;
    }
}

struct wh_selector *wh_selector_new(const json_t *sel)
{
    struct layout lay = {0};
    struct wh_selector *s = NULL;
    if (!json_is_object(sel)) {
        s = wh_xcalloc(1, sizeof(*s));
        s->state = WH_SELECTOR_NOTHING;
        s->size = sizeof(*s);
        return s;
    }
    walk(sel, NULL, &lay);
    if (lay.err) {
        /* upstream fails the whole conversion on the first unknown operator */
        size_t n = strlen(lay.err) + 1;
        s = wh_xcalloc(1, sizeof(*s) + n);
        memcpy((char *)(s + 1), lay.err, n);
        s->error = (const char *)(s + 1);
        s->state = WH_SELECTOR_INVALID;
        s->size = sizeof(*s) + n;
        free(lay.err);
        return s;
    }
    size_t size =
        sizeof(*s) + lay.nreq * sizeof(struct req) + lay.nvals * sizeof(char *) + lay.nchars;
    s = wh_xcalloc(1, size);
    s->nreq = (uint32_t)lay.nreq;
    s->size = size;
    s->state = lay.nreq ? WH_SELECTOR_REQUIREMENTS : WH_SELECTOR_EVERYTHING;
    walk(sel, s, &lay);
    return s;
}

void wh_selector_free(struct wh_selector *s)
{
    free(s);
}

enum wh_selector_state wh_selector_state(const struct wh_selector *s)
{
    return s->state;
}

const char *wh_selector_error(const struct wh_selector *s)
{
    return s->error;
}

size_t wh_selector_size(const struct wh_selector *s)
{
    return s->size;
}

static bool has_value(const struct req *r, const char *v)
{
    for (uint32_t i = 0; i < r->nvals; i++) {
        if (strcmp(r->vals[i], v) == 0)
            return true;
    }
    return false;
}

/* A label's value. A few labels are found faster by comparing keys than by hashing the key (a
 * pod is matched against every SidecarSet's selector, requirement by requirement). */
static const json_t *label_get(const json_t *labels, const char *key)
{
    json_t *obj = (json_t *)(uintptr_t)labels;
    if (json_object_size(obj) > 8)
        return json_object_get(obj, key);
    size_t len = strlen(key);
    for (void *it = json_object_iter(obj); it; it = json_object_iter_next(obj, it)) {
        if (json_object_iter_key_len(it) == len && memcmp(json_object_iter_key(it), key, len) == 0)
            return json_object_iter_value(it);
    }
    return NULL;
}

bool wh_selector_matches(const struct wh_selector *s, const json_t *labels)
{
    switch (s->state) {
    case WH_SELECTOR_NOTHING:
    case WH_SELECTOR_INVALID:
        return false;
    case WH_SELECTOR_EVERYTHING:
        return true;
    case WH_SELECTOR_REQUIREMENTS:
        break;
    }
    for (uint32_t i = 0; i < s->nreq; i++) {
        const struct req *r = &s->reqs[i];
        const json_t *lv = labels ? label_get(labels, r->key) : NULL;
        /* a label value that is not a string cannot be stored; treat it as "" */
        const char *val = lv ? str_or_empty(lv) : NULL;
        switch ((enum op)r->op) {
        case OP_EQUALS:
        case OP_IN:
            if (!val || !has_value(r, val))
                return false;
            break;
        case OP_NOTIN:
            if (val && has_value(r, val))
                return false;
            break;
        case OP_EXISTS:
            if (!val)
                return false;
            break;
        case OP_DOESNOTEXIST:
            if (val)
                return false;
            break;
        }
    }
    return true;
}

bool wh_selector_key_values(const struct wh_selector *s, const char *key, const char *const **vals,
                            size_t *n)
{
    if (s->state != WH_SELECTOR_REQUIREMENTS)
        return false;
    for (int pass = 0; pass < 2; pass++) {
        enum op want = pass == 0 ? OP_EQUALS : OP_IN;
        for (uint32_t i = 0; i < s->nreq; i++) {
            const struct req *r = &s->reqs[i];
            if (r->op == want && strcmp(r->key, key) == 0) {
                *vals = r->vals;
                *n = r->nvals;
                return true;
            }
        }
    }
    return false;
}

/* One matchExpressions entry as a query term; false when it cannot be one. */
static bool query_term(struct wh_buf *b, const json_t *e)
{
    const char *key = json_string_value(json_object_get(e, "key"));
    const char *op = json_string_value(json_object_get(e, "operator"));
    const json_t *values = json_object_get(e, "values");
    if (!key || !op)
        return false;
    if (strcmp(op, "Exists") == 0)
        return wh_buf_adds(b, key) == WH_OK;
    if (strcmp(op, "DoesNotExist") == 0)
        return wh_buf_printf(b, "!%s", key) == WH_OK;
    bool in = strcmp(op, "In") == 0;
    if ((!in && strcmp(op, "NotIn") != 0) || !json_is_array(values) ||
        json_array_size(values) == 0)
        return false;
    if (wh_buf_printf(b, "%s %s (", key, in ? "in" : "notin"))
        return false;
    size_t i;
    const json_t *v;
    json_array_foreach(values, i, v)
    {
        if (!json_is_string(v) || wh_buf_printf(b, "%s%s", i ? "," : "", json_string_value(v)))
            return false;
    }
    return wh_buf_addc(b, ')') == WH_OK;
}

char *wh_selector_query(const json_t *sel)
{
    if (!json_is_object(sel))
        return NULL;
    struct wh_buf b;
    wh_buf_init(&b, 64 * 1024);
    bool ok = true;
    const json_t *labels = json_object_get(sel, "matchLabels");
    const json_t *exprs = json_object_get(sel, "matchExpressions");
    if ((labels && !json_is_object(labels) && !json_is_null(labels)) ||
        (exprs && !json_is_array(exprs) && !json_is_null(exprs)))
        ok = false;
    const char *k;
    const json_t *v;
    json_object_foreach((json_t *)(uintptr_t)labels, k, v)
    {
        if (ok)
            ok = json_is_string(v) &&
                 wh_buf_printf(&b, "%s%s=%s", b.len ? "," : "", k, json_string_value(v)) == WH_OK;
    }
    size_t i;
    json_array_foreach(exprs, i, v)
    {
        if (ok && b.len)
            ok = wh_buf_addc(&b, ',') == WH_OK;
        if (ok)
            ok = query_term(&b, v);
    }
    if (!ok) {
        wh_buf_fini(&b);
        return NULL;
    }
    return wh_buf_take(&b, NULL);
}
