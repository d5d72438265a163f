/* The mapping-table engine: compiles a kind's rows (their paths checked against the Go-type
 * model), type-checks source objects with the model, and applies the rows to a shallow copy of
 * the source.
 *
 * Sharing: the destination starts as a shallow copy of the source (wh_cow_root), and every
 * edit goes through the copy-on-write editor (util/cow.h): each container on the way is
 * un-shared before it is changed. Unchanged subtrees therefore stay shared with the request,
 * which is what makes converting a 100-object review cheap. */
#include "conversion/convert_int.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/cow.h"
#include "util/json.h"
#include "util/mem.h"
#include "util/str.h"

/* ---- compiled structures ------------------------------------------------------------------ */

struct seg {
    const char *name; /* NULL for "*" */
    bool any;         /* "*": every value of a map */
    bool arr;         /* "[]": every element of a list */
    bool zero_null;   /* "[]" of a list of structs: a null element is Go's zero struct */
};

struct path {
    char *buf; /* the path text, cut into names */
    struct seg *segs;
    size_t n;
    size_t iter; /* segs[0..iter) are the iteration prefix (up to the last "[]" or "*") */
    const struct wh_gotype *type; /* the Go type of the field the path ends with */
};

struct prow {
    const struct wh_conv_row *row;
    struct path a, b; /* alpha / beta paths, n == 0 when absent */
};

struct wh_conv_plan {
    const struct wh_conv_kind *k;
    const struct wh_gotype *root[2]; /* the kind's Go type in each version */
    struct prow *rows;
    size_t nrows;
    size_t *ops[2]; /* per direction, the rows that edit anything, in table order */
    size_t nops[2];
};

struct wh_conv_ctx {
    char *msg;
};

/* ---- compiling ---------------------------------------------------------------------------- */

WH_NORETURN static void table_error(const struct wh_conv_kind *k, const struct wh_conv_row *r,
                                    const char *what)
{
    WH_PANIC("conversion table %s: row alpha=%s beta=%s: %s", k->kind, r->alpha ? r->alpha : "-",
             r->beta ? r->beta : "-", what);
}

static void parse_path(const char *text, struct path *p)
{
    memset(p, 0, sizeof(*p));
    if (!text)
        return;
    p->buf = wh_xstrdup(text);
    size_t cap = 1;
    for (const char *s = text; *s; s++)
        cap += *s == '.';
    p->segs = wh_xcalloc(cap, sizeof(*p->segs));
    char *s = p->buf;
    for (;;) {
        char *dot = strchr(s, '.');
        if (dot)
            *dot = '\0';
        struct seg *g = &p->segs[p->n++];
        size_t len = strlen(s);
        if (len >= 2 && strcmp(s + len - 2, "[]") == 0) {
            g->arr = true;
            s[len - 2] = '\0';
        }
        if (strcmp(s, "*") == 0)
            g->any = true;
        else
            g->name = s;
        if (g->arr || g->any)
            p->iter = p->n;
        if (!dot)
            break;
        s = dot + 1;
    }
}

static bool same_prefix(const struct path *a, const struct path *b)
{
    if (a->iter != b->iter)
        return false;
    for (size_t i = 0; i < a->iter; i++) {
        const struct seg *x = &a->segs[i], *y = &b->segs[i];
        if (x->any != y->any || x->arr != y->arr || !wh_str_eq(x->name, y->name))
            return false;
    }
    return true;
}

/* Checks a row's path against the model's type of its version: every member exists, "[]"
 * follows exactly the list fields and "*" the map fields ("*[]" a map of lists), and the path
 * ends with a member. */
static void check_path(const struct wh_conv_kind *k, const struct wh_conv_row *r,
                       const struct wh_gotype *root, struct path *p)
{
    const struct wh_gotype *cur = root;
    for (size_t i = 0; i < p->n; i++) {
        struct seg *g = &p->segs[i];
        bool last = i + 1 == p->n;
        if (g->any) {
            if (wh_gotype_kind(cur) != WH_GK_MAP)
                table_error(k, r, "\"*\" must follow a map field");
            cur = wh_gotype_elem(cur);
        } else {
            if (wh_gotype_kind(cur) != WH_GK_STRUCT)
                table_error(k, r, "a parent of this path is not a struct");
            const struct wh_gofield *f = wh_gotype_member(cur, g->name);
            if (!f)
                table_error(k, r, "no such field in the Go type of this version");
            cur = f->type;
        }
        if (g->arr) {
            if (wh_gotype_kind(cur) != WH_GK_SLICE)
                table_error(k, r, "\"[]\" must follow exactly the list fields");
            cur = wh_gotype_elem(cur);
            g->zero_null = wh_gotype_kind(cur) == WH_GK_STRUCT;
        } else if (!last && wh_gotype_kind(cur) == WH_GK_SLICE) {
            table_error(k, r, "a list field must be followed by \"[]\"");
        }
        if (!last && wh_gotype_kind(cur) == WH_GK_MAP && !p->segs[i + 1].any)
            table_error(k, r, "a map field must be followed by \"*\"");
        if (last && (g->any || g->arr))
            table_error(k, r, "a path must end with a member name");
    }
    p->type = cur;
}

static void compile_row(const struct wh_conv_kind *k, struct wh_conv_plan *p,
                        const struct wh_conv_row *r, struct prow *pr)
{
    pr->row = r;
    parse_path(r->alpha, &pr->a);
    parse_path(r->beta, &pr->b);
    if (pr->a.n)
        check_path(k, r, p->root[WH_CONV_ALPHA], &pr->a);
    if (pr->b.n)
        check_path(k, r, p->root[WH_CONV_BETA], &pr->b);

    bool two = pr->a.n && pr->b.n;
    switch (r->rule) {
    case WH_CONV_COPY:
    case WH_CONV_INVERT:
    case WH_CONV_ENUM:
    case WH_CONV_NO_NULLS:
        if (!two)
            table_error(k, r, "this rule needs both paths");
        if (!same_prefix(&pr->a, &pr->b))
            table_error(k, r, "alpha and beta paths must iterate the same lists and maps");
        if (r->rule == WH_CONV_ENUM && !r->map)
            table_error(k, r, "ENUM needs a map");
        break;
    case WH_CONV_ALPHA_ONLY:
        if (!pr->a.n || pr->b.n)
            table_error(k, r, "ALPHA_ONLY takes only an alpha path");
        break;
    case WH_CONV_BETA_ONLY:
    case WH_CONV_REJECT:
        if (pr->a.n || !pr->b.n)
            table_error(k, r, "this rule takes only a beta path");
        break;
    case WH_CONV_META_TRUE:
    case WH_CONV_META_MOVE:
        if (pr->a.n || !pr->b.n || r->meta == WH_META_NONE || !r->key)
            table_error(k, r, "a metadata rule takes a beta path and a label/annotation key");
        if (pr->b.iter)
            table_error(k, r, "a metadata rule cannot iterate");
        break;
    case WH_CONV_CUSTOM:
        if (!r->fn)
            table_error(k, r, "CUSTOM needs a function");
        break;
    case WH_CONV_DERIVED:
        break;
    }
    if (r->rule == WH_CONV_COPY && two && strcmp(r->alpha, r->beta) == 0)
        table_error(k, r, "a field copied unchanged needs no row");
    if (r->when && (r->rule != WH_CONV_COPY || !two))
        table_error(k, r, "a condition only applies to a rename");
}

/* DERIVED rows only name what a CUSTOM row touches. */
static bool row_edits(const struct wh_conv_row *r)
{
    return r->rule != WH_CONV_DERIVED;
}

struct wh_conv_plan *wh_conv_compile(const struct wh_conv_kind *k)
{
    struct wh_conv_plan *p = wh_xcalloc(1, sizeof(*p));
    p->k = k;
    for (int v = 0; v < 2; v++) {
        char *api = wh_str_printf("%s/%s", k->group, v == WH_CONV_ALPHA ? "v1alpha1" : "v1beta1");
        p->root[v] = wh_gotype_lookup(api, k->kind);
        if (!p->root[v])
            WH_PANIC("conversion table %s: the Go-type model has no %s %s", k->kind, api, k->kind);
        free(api);
    }
    p->nrows = k->nrows;
    p->rows = wh_xcalloc(p->nrows ? p->nrows : 1, sizeof(*p->rows));
    for (size_t i = 0; i < k->nrows; i++)
        compile_row(k, p, &k->rows[i], &p->rows[i]);
    for (int d = 0; d < 2; d++) {
        p->ops[d] = wh_xcalloc(p->nrows ? p->nrows : 1, sizeof(*p->ops[d]));
        for (size_t i = 0; i < p->nrows; i++)
            if (row_edits(p->rows[i].row))
                p->ops[d][p->nops[d]++] = i;
    }
    return p;
}

const struct wh_conv_kind *wh_conv_plan_kind(const struct wh_conv_plan *p)
{
    return p->k;
}

const struct wh_gotype *wh_conv_root(const struct wh_conv_plan *p, enum wh_conv_ver v)
{
    return p->root[v];
}

enum wh_err wh_conv_check(const struct wh_conv_plan *p, enum wh_conv_ver v, const json_t *obj,
                          char **msg)
{
    return wh_gotype_check_full(obj, p->root[v], msg);
}

/* ---- editing the destination -------------------------------------------------------------- */

static const json_t *get_path(const json_t *v, const char *const *keys, size_t n)
{
    for (size_t i = 0; i < n && v; i++)
        v = json_is_object(v) ? json_object_get(v, keys[i]) : NULL;
    return json_is_null(v) ? NULL : v;
}

static void set_path(json_t *dst, const char *const *keys, size_t n, json_t *val)
{
    json_t *parent = wh_cow_keys(dst, keys, n - 1, true);
    if (json_object_set_new(parent, keys[n - 1], val))
        WH_PANIC("json_object_set_new failed");
}

static void del_path(json_t *dst, const char *const *keys, size_t n)
{
    const json_t *probe = get_path(dst, keys, n - 1);
    if (!json_is_object(probe) || !json_object_get(probe, keys[n - 1]))
        return;
    json_t *parent = wh_cow_keys(dst, keys, n - 1, false);
    json_object_del(parent, keys[n - 1]);
}

#define MAX_KEYS 16

/* Declares keys[0..n), the NULL-terminated names that follow the argument last. */
#define COLLECT_KEYS(keys, n, last)                                                                \
    const char *keys[MAX_KEYS];                                                                    \
    size_t n;                                                                                      \
    do {                                                                                           \
        va_list ap_;                                                                               \
        va_start(ap_, last);                                                                       \
        n = collect_keys(ap_, keys);                                                               \
        va_end(ap_);                                                                               \
    } while (0)

static size_t collect_keys(va_list ap, const char **keys)
{
    size_t n = 0;
    for (;;) {
        const char *k = va_arg(ap, const char *);
        if (!k)
            break;
        if (n == MAX_KEYS)
            WH_PANIC("conversion path longer than %d members", MAX_KEYS);
        keys[n++] = k;
    }
    return n;
}

const json_t *wh_conv_get(const json_t *v, ...)
{
    COLLECT_KEYS(keys, n, v);
    return get_path(v, keys, n);
}

const char *wh_conv_get_str(const json_t *v, ...)
{
    COLLECT_KEYS(keys, n, v);
    return json_string_value(get_path(v, keys, n));
}

void wh_conv_set_new(json_t *dst, json_t *val, ...)
{
    COLLECT_KEYS(keys, n, val);
    WH_ASSERT(n > 0 && val);
    set_path(dst, keys, n, val);
}

void wh_conv_del(json_t *dst, ...)
{
    COLLECT_KEYS(keys, n, dst);
    WH_ASSERT(n > 0);
    del_path(dst, keys, n);
}

json_t *wh_conv_writable(json_t *dst, ...)
{
    COLLECT_KEYS(keys, n, dst);
    return wh_cow_keys(dst, keys, n, false);
}

json_t *wh_conv_ensure(json_t *dst, ...)
{
    COLLECT_KEYS(keys, n, dst);
    return wh_cow_keys(dst, keys, n, true);
}

json_t *wh_conv_ensure_list(json_t *dst, ...)
{
    COLLECT_KEYS(keys, n, dst);
    WH_ASSERT(n > 0);
    return wh_cow_array(wh_cow_keys(dst, keys, n - 1, true), keys[n - 1], true);
}

static const char *meta_map(enum wh_conv_meta m)
{
    return m == WH_META_LABEL ? "labels" : "annotations";
}

const char *wh_conv_meta_get(const json_t *obj, enum wh_conv_meta m, const char *key)
{
    return wh_conv_get_str(obj, "metadata", meta_map(m), key, NULL);
}

void wh_conv_meta_set(json_t *dst, enum wh_conv_meta m, const char *key, const char *value)
{
    wh_conv_set_new(dst, json_string(value), "metadata", meta_map(m), key, NULL);
}

void wh_conv_meta_del(json_t *dst, enum wh_conv_meta m, const char *key)
{
    wh_conv_del(dst, "metadata", meta_map(m), key, NULL);
    const json_t *map = wh_conv_get(dst, "metadata", meta_map(m), NULL);
    if (json_is_object(map) && json_object_size(map) == 0)
        wh_conv_del(dst, "metadata", meta_map(m), NULL);
}

enum wh_err wh_conv_fail(struct wh_conv_ctx *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char tmp[1];
    int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
    va_end(ap);
    free(c->msg);
    c->msg = wh_xmalloc((size_t)(n < 0 ? 0 : n) + 1);
    va_start(ap, fmt);
    vsnprintf(c->msg, (size_t)(n < 0 ? 0 : n) + 1, fmt, ap);
    va_end(ap);
    return WH_ERR_INVALID;
}

bool wh_conv_parse_int(const char *s, long long min, long long max, long long *out)
{
    if (!s || !*s)
        return false;
    const char *p = s;
    if (*p == '+' || *p == '-')
        p++;
    if (!*p)
        return false;
    for (const char *q = p; *q; q++)
        if (*q < '0' || *q > '9')
            return false;
    errno = 0;
    char *end = NULL;
    long long v = strtoll(s, &end, 10);
    if (errno || *end || v < min || v > max)
        return false;
    *out = v;
    return true;
}

char *wh_conv_quote(const char *s)
{
    struct wh_buf b;
    wh_buf_init(&b, (size_t)-1 / 2);
    enum wh_err rc = wh_buf_addc(&b, '"');
    for (const unsigned char *p = (const unsigned char *)s; !rc && *p; p++) {
        static const char esc[] = "\\a\\b\\t\\n\\v\\f\\r";
        if (*p == '"' || *p == '\\') {
            rc = wh_buf_addc(&b, '\\');
            if (!rc)
                rc = wh_buf_addc(&b, (char)*p);
        } else if (*p >= 7 && *p <= 13) {
            rc = wh_buf_add(&b, esc + 2 * (*p - 7), 2);
        } else if (*p < 0x20 || *p == 0x7f) {
            rc = wh_buf_printf(&b, "\\x%02x", *p);
        } else {
            rc = wh_buf_addc(&b, (char)*p);
        }
    }
    if (!rc)
        rc = wh_buf_addc(&b, '"');
    if (rc)
        WH_PANIC("quoting failed");
    return wh_buf_take(&b, NULL);
}

/* ---- applying rows ------------------------------------------------------------------------ */

struct apply {
    struct wh_conv_ctx *c;
    const struct prow *pr;
    enum wh_conv_dir dir;
    const struct path *from, *to; /* source-side and destination-side paths of the row */
};

typedef enum wh_err (*elem_fn)(struct apply *a, const json_t *s, json_t *d);

/* Element i of the list sv (source) and dv (destination, writable) for a row to edit: a null
 * element of a list of structs is Go's zero struct (decoding null into a struct leaves its zero
 * value), which rows then fill (an empty condition reason becomes "Unknown": found by the
 * differential run), so it becomes {} in the destination and is read as *zero. Returns: the
 * destination element (borrowed), with *se the source one; NULL to skip the element. */
static json_t *list_elem(const struct seg *g, const json_t *sv, json_t *dv, size_t i,
                         const json_t *zero, const json_t **se)
{
    *se = json_array_get(sv, i);
    if (g->zero_null && json_is_null(*se) && json_is_null(json_array_get(dv, i))) {
        if (json_array_set_new(dv, i, json_object()))
            WH_PANIC("json_array_set_new failed");
        *se = zero;
    }
    if (!json_is_object(*se))
        return NULL;
    json_t *de = wh_cow_elem(dv, i);
    return json_is_object(de) ? de : NULL;
}

static enum wh_err each(struct apply *a, const struct seg *segs, size_t n, const json_t *s,
                        json_t *d, elem_fn fn);

/* each() of the rest of the path (segs[1..n)) for every element of the lists sv and dv that
 * segs[0], a "[]", iterates. */
static enum wh_err each_elem(struct apply *a, const struct seg *segs, size_t n, const json_t *sv,
                             json_t *dv, elem_fn fn)
{
    enum wh_err rc = WH_OK;
    json_t *zero = json_object();
    for (size_t i = 0; i < json_array_size(sv) && !rc; i++) {
        const json_t *se;
        json_t *de = list_elem(&segs[0], sv, dv, i, zero, &se);
        if (de)
            rc = each(a, segs + 1, n - 1, se, de, fn);
    }
    json_decref(zero);
    return rc;
}

/* Calls fn for every element the row's iteration prefix reaches, with the source element and
 * the matching (writable) destination element. Elements that a previous row removed or
 * reshaped in the destination are skipped. */
static enum wh_err each(struct apply *a, const struct seg *segs, size_t n, const json_t *s,
                        json_t *d, elem_fn fn)
{
    if (n == 0)
        return fn(a, s, d);
    const struct seg *g = &segs[0];
    if (g->any) {
        const char *key;
        json_t *sv;
        json_object_foreach((json_t *)(uintptr_t)s, key, sv)
        {
            if (!json_is_object(sv) && !json_is_array(sv))
                continue;
            json_t *dv = wh_cow_member(d, key);
            if (!dv || json_typeof(dv) != json_typeof(sv))
                continue;
            enum wh_err rc = WH_OK;
            if (g->arr)
                rc = each_elem(a, segs, n, sv, dv, fn);
            else if (json_is_object(sv))
                rc = each(a, segs + 1, n - 1, sv, dv, fn);
            if (rc)
                return rc;
        }
        return WH_OK;
    }
    const json_t *sv = json_object_get(s, g->name);
    if (g->arr ? !json_is_array(sv) : !json_is_object(sv))
        return WH_OK;
    json_t *dv = wh_cow_member(d, g->name);
    if (!dv || json_typeof(dv) != json_typeof(sv))
        return WH_OK;
    if (!g->arr)
        return each(a, segs + 1, n - 1, sv, dv, fn);
    return each_elem(a, segs, n, sv, dv, fn);
}

/* The member names of a path's tail (after the iteration prefix). */
static size_t tail_keys(const struct path *p, const char **keys)
{
    size_t n = 0;
    for (size_t i = p->iter; i < p->n; i++)
        keys[n++] = p->segs[i].name;
    return n;
}

static enum wh_err do_move(struct apply *a, const json_t *s, json_t *d)
{
    const char *fk[MAX_KEYS], *tk[MAX_KEYS];
    size_t fn = tail_keys(a->from, fk), tn = tail_keys(a->to, tk);
    const json_t *v = get_path(s, fk, fn);
    del_path(d, fk, fn);
    /* What Go's decoding drops may pass through at its own path (the API server prunes it),
     * never under another name: a moved subtree leaves behind what its new type lacks (found
     * by the differential run: an unknown member of a ResourceDistribution's namespaceSelector
     * reappeared in namespaceLabelSelector). */
    json_t *pruned = v ? wh_gotype_prune_unknown(v, a->to->type) : NULL;
    if (v)
        set_path(d, tk, tn, pruned ? pruned : json_incref((json_t *)(uintptr_t)v));
    else
        del_path(d, tk, tn);
    return WH_OK;
}

static enum wh_err do_invert(struct apply *a, const json_t *s, json_t *d)
{
    const char *fk[MAX_KEYS], *tk[MAX_KEYS];
    size_t fn = tail_keys(a->from, fk), tn = tail_keys(a->to, tk);
    bool on = json_is_true(get_path(s, fk, fn));
    del_path(d, fk, fn);
    if (on)
        del_path(d, tk, tn);
    else
        set_path(d, tk, tn, json_true());
    return WH_OK;
}

static enum wh_err do_enum(struct apply *a, const json_t *s, json_t *d)
{
    const char *fk[MAX_KEYS], *tk[MAX_KEYS];
    size_t fn = tail_keys(a->from, fk), tn = tail_keys(a->to, tk);
    const json_t *v = get_path(s, fk, fn);
    const char *text = json_is_string(v) ? json_string_value(v) : v ? NULL : "";
    const struct wh_conv_enum *hit = NULL;
    for (const struct wh_conv_enum *e = a->pr->row->map; text && e->alpha; e++) {
        const char *from = a->dir == WH_CONV_UP ? e->alpha : e->beta;
        if ((e->dirs & (1u << a->dir)) && strcmp(from, text) == 0) {
            hit = e;
            break;
        }
    }
    if (!hit)
        return strcmp(a->pr->row->alpha, a->pr->row->beta) == 0 ? WH_OK : do_move(a, s, d);
    del_path(d, fk, fn);
    set_path(d, tk, tn, json_string(a->dir == WH_CONV_UP ? hit->beta : hit->alpha));
    return WH_OK;
}

static enum wh_err do_no_nulls(struct apply *a, const json_t *s, json_t *d)
{
    (void)s;
    const char *tk[MAX_KEYS];
    size_t tn = tail_keys(a->to, tk);
    const json_t *list = get_path(d, tk, tn);
    if (!json_is_array(list))
        return WH_OK;
    size_t i;
    json_t *e;
    bool any = false;
    json_array_foreach(list, i, e) any = any || json_is_null(e);
    if (!any)
        return WH_OK;
    json_t *out = json_array();
    json_array_foreach(list, i, e)
    {
        if (!json_is_null(e) && json_array_append(out, e))
            WH_PANIC("json_array_append failed");
    }
    set_path(d, tk, tn, out);
    return WH_OK;
}

static enum wh_err do_drop(struct apply *a, const json_t *s, json_t *d)
{
    (void)s;
    const char *tk[MAX_KEYS];
    size_t tn = tail_keys(a->to, tk);
    del_path(d, tk, tn);
    return WH_OK;
}

/* A rename whose condition is false: neither side survives. */
static enum wh_err do_drop_both(struct apply *a, const json_t *s, json_t *d)
{
    (void)s;
    const char *k[MAX_KEYS];
    size_t n = tail_keys(a->from, k);
    del_path(d, k, n);
    n = tail_keys(a->to, k);
    del_path(d, k, n);
    return WH_OK;
}

static enum wh_err run_each(struct apply *a, const struct path *iter_path, const json_t *src,
                            json_t *dst, elem_fn fn)
{
    return each(a, iter_path->segs, iter_path->iter, src, dst, fn);
}

/* Does any element that segs[0..n) reaches under v hold the path's tail? A read-only probe, so
 * that dropping a field nobody sent un-shares nothing. */
static bool present(const struct path *p, const struct seg *segs, size_t n, const json_t *v);

static bool present_in_list(const struct path *p, const struct seg *segs, size_t n,
                            const json_t *list)
{
    size_t i;
    json_t *e;
    json_array_foreach(list, i, e)
    {
        if (present(p, segs, n, e))
            return true;
    }
    return false;
}

static bool present(const struct path *p, const struct seg *segs, size_t n, const json_t *v)
{
    if (!json_is_object(v))
        return false;
    if (n == 0) {
        const char *k[MAX_KEYS];
        size_t nk = tail_keys(p, k);
        const json_t *parent = nk > 1 ? get_path(v, k, nk - 1) : v;
        return json_is_object(parent) && json_object_get(parent, k[nk - 1]) != NULL;
    }
    const struct seg *g = &segs[0];
    if (g->any) {
        const char *key;
        json_t *x;
        json_object_foreach((json_t *)(uintptr_t)v, key, x)
        {
            if (g->arr ? present_in_list(p, segs + 1, n - 1, x) : present(p, segs + 1, n - 1, x))
                return true;
        }
        return false;
    }
    const json_t *x = json_object_get(v, g->name);
    return g->arr ? present_in_list(p, segs + 1, n - 1, x) : present(p, segs + 1, n - 1, x);
}

/* Drops the field at path p (a one-version field) from dst. */
static enum wh_err drop(struct apply *a, const struct path *p, const json_t *src, json_t *dst)
{
    if (!present(p, p->segs, p->iter, dst))
        return WH_OK;
    a->to = p;
    return run_each(a, p, src, dst, do_drop);
}

static enum wh_err apply_row(struct wh_conv_ctx *c, const struct prow *pr, enum wh_conv_dir dir,
                             const json_t *src, json_t *dst)
{
    const struct wh_conv_row *r = pr->row;
    struct apply a = {.c = c, .pr = pr, .dir = dir};
    a.from = dir == WH_CONV_UP ? &pr->a : &pr->b;
    a.to = dir == WH_CONV_UP ? &pr->b : &pr->a;
    switch (r->rule) {
    case WH_CONV_COPY:
        if (r->when && !r->when(dir, src))
            return run_each(&a, &pr->a, src, dst, do_drop_both);
        return run_each(&a, &pr->a, src, dst, do_move);
    case WH_CONV_INVERT:
        return run_each(&a, &pr->a, src, dst, do_invert);
    case WH_CONV_ENUM:
        return run_each(&a, &pr->a, src, dst, do_enum);
    case WH_CONV_NO_NULLS:
        return run_each(&a, &pr->a, src, dst, do_no_nulls);
    case WH_CONV_ALPHA_ONLY:
        return drop(&a, &pr->a, src, dst);
    case WH_CONV_BETA_ONLY:
        return drop(&a, &pr->b, src, dst);
    case WH_CONV_REJECT: {
        const char *k[MAX_KEYS];
        size_t n = tail_keys(&pr->b, k);
        if (dir == WH_CONV_DOWN && pr->b.iter == 0 && get_path(src, k, n))
            return wh_conv_fail(c, "%s", r->key);
        return drop(&a, &pr->b, src, dst);
    }
    case WH_CONV_META_TRUE: {
        const char *k[MAX_KEYS];
        size_t n = tail_keys(&pr->b, k);
        if (dir == WH_CONV_UP) {
            const char *v = wh_conv_meta_get(src, r->meta, r->key);
            if (v && strcmp(v, "true") == 0)
                set_path(dst, k, n, json_true());
            else
                del_path(dst, k, n);
        } else {
            if (r->write_back && json_is_true(get_path(src, k, n)))
                wh_conv_meta_set(dst, r->meta, r->key, "true");
            del_path(dst, k, n);
        }
        return WH_OK;
    }
    case WH_CONV_META_MOVE: {
        const char *k[MAX_KEYS];
        size_t n = tail_keys(&pr->b, k);
        if (dir == WH_CONV_UP) {
            const char *v = wh_conv_meta_get(src, r->meta, r->key);
            if (v) {
                set_path(dst, k, n, json_string(v));
                wh_conv_meta_del(dst, r->meta, r->key);
            } else {
                del_path(dst, k, n);
            }
        } else {
            const char *v = json_string_value(get_path(src, k, n));
            if (v && *v)
                wh_conv_meta_set(dst, r->meta, r->key, v);
            del_path(dst, k, n);
        }
        return WH_OK;
    }
    case WH_CONV_CUSTOM:
        return r->fn(c, dir, src, dst);
    case WH_CONV_DERIVED:
        return WH_OK;
    }
    return WH_OK;
}

enum wh_err wh_conv_apply(const struct wh_conv_plan *p, enum wh_conv_dir dir, const json_t *src,
                          json_t *dst, char **msg)
{
    struct wh_conv_ctx c = {0};
    for (size_t i = 0; i < p->nops[dir]; i++) {
        enum wh_err rc = apply_row(&c, &p->rows[p->ops[dir][i]], dir, src, dst);
        if (rc) {
            *msg = c.msg ? c.msg : wh_xstrdup("conversion failed");
            return rc;
        }
    }
    free(c.msg);
    return WH_OK;
}
