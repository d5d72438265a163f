/* The mapping-table engine: compiles a kind's rows into per-version schema trees and per-row
 * paths, type-checks source objects, and applies the rows to a shallow copy of the source.
 *
 * Sharing: the destination starts as json_copy(src), a shallow copy whose members are the
 * source's own values. Before anything under it is edited, each container on the way is
 * replaced by a shallow copy of itself unless it already belongs to the destination alone
 * (refcount 1: only reachable through our freshly made parent). Unchanged subtrees therefore
 * stay shared with the request, which is what makes converting a 100-object review cheap. */
#include "conversion/convert_int.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conversion/rows_int.h"
#include "util/buf.h"
#include "util/json.h"
#include "util/mem.h"
#include "util/str.h"
#include "util/time.h"

/* ---- compiled structures ------------------------------------------------------------------ */

struct seg {
    const char *name; /* NULL for "*" */
    bool any;         /* "*": every value of a map */
    bool arr;         /* "[]": every element of a list */
};

struct path {
    char *buf; /* the path text, cut into names */
    struct seg *segs;
    size_t n;
    size_t iter; /* segs[0..iter) are the iteration prefix (up to the last "[]" or "*") */
};

struct wh_conv_node {
    const char *name;
    struct wh_conv_type type;
    char *go;          /* Go type of the field */
    char *elem;        /* containers: Go type of an element (a value for MAP_LIST: []T) */
    char *elem2;       /* MAP_LIST: Go type of an element of a value */
    char *owner;       /* Go struct that declares the field */
    char *field;       /* JSON path of the field from the object root, as Go reports it */
    char *struct_name; /* STRUCT: the struct's own name, owner of the children */
    struct wh_conv_node **kids;
    uint32_t *kid_hash; /* hash_key() of each kid's name, for the lookup in the check walk */
    size_t nkids, capkids;
};

struct prow {
    const struct wh_conv_row *row;
    struct path a, b; /* alpha / beta paths, n == 0 when absent */
};

struct wh_conv_plan {
    const struct wh_conv_kind *k;
    struct wh_conv_node *root[2];
    struct prow *rows;
    size_t nrows;
    size_t *ops[2]; /* per direction, the rows that edit anything, in table order */
    size_t nops[2];
};

struct wh_conv_ctx {
    char *msg;
};

/* ObjectMeta, the same in every kind and both versions. */
static const struct wh_conv_row meta_rows[] = {
    COPY("metadata", T_STRUCT("v1.ObjectMeta")),
    COPY("metadata.name", T_STR),
    COPY("metadata.generateName", T_STR),
    COPY("metadata.namespace", T_STR),
    COPY("metadata.selfLink", T_STR),
    COPY("metadata.uid", T_ENUM("types.UID", NULL)),
    COPY("metadata.resourceVersion", T_STR),
    COPY("metadata.generation", T_I64),
    COPY("metadata.creationTimestamp", T_TIME),
    COPY("metadata.deletionTimestamp", T_TIME),
    COPY("metadata.deletionGracePeriodSeconds", T_I64),
    COPY("metadata.labels", T_STRMAP),
    COPY("metadata.annotations", T_STRMAP),
    COPY("metadata.ownerReferences", T_LIST("[]v1.OwnerReference")),
    COPY("metadata.finalizers", T_STRS),
    COPY("metadata.managedFields", T_LIST("[]v1.ManagedFieldsEntry")),
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

/* Go type text for version v: "V." becomes the version's package. */
static char *resolve_go(const char *go, enum wh_conv_ver v)
{
    const char *pkg = v == WH_CONV_ALPHA ? "v1alpha1." : "v1beta1.";
    struct wh_buf b;
    wh_buf_init(&b, 1024);
    for (const char *s = go; *s; s++) {
        bool start = s == go || s[-1] == ']' || s[-1] == '*' || s[-1] == '[';
        enum wh_err rc;
        if (start && s[0] == 'V' && s[1] == '.') {
            rc = wh_buf_adds(&b, pkg);
            s++;
        } else {
            rc = wh_buf_addc(&b, *s);
        }
        if (rc)
            WH_PANIC("Go type name too long: %s", go);
    }
    return wh_buf_take(&b, NULL);
}

static char *strip_prefix(const char *s, const char *prefix)
{
    if (wh_str_has_prefix(s, prefix))
        s += strlen(prefix);
    if (*s == '*')
        s++;
    return wh_xstrdup(s);
}

static char *struct_name_of(const char *go)
{
    const char *s = go;
    while (*s == '*' || *s == '[' || *s == ']')
        s++;
    const char *dot = strrchr(s, '.');
    return wh_xstrdup(dot ? dot + 1 : s);
}

static struct wh_conv_node *node_new(const char *name, const struct wh_conv_type *t,
                                     enum wh_conv_ver v, const struct wh_conv_node *parent)
{
    struct wh_conv_node *n = wh_xcalloc(1, sizeof(*n));
    n->name = name;
    n->type = *t;
    const char *go = v == WH_CONV_BETA && t->go_beta ? t->go_beta : t->go;
    n->go = resolve_go(go, v);
    switch (t->shape) {
    case WH_CS_ONE:
        break;
    case WH_CS_LIST:
        n->elem = t->elem ? resolve_go(t->elem, v) : strip_prefix(n->go, "[]");
        break;
    case WH_CS_MAP:
        n->elem = strip_prefix(n->go, "map[string]");
        break;
    case WH_CS_MAP_LIST:
        n->elem = strip_prefix(n->go, "map[string]");
        n->elem2 = strip_prefix(n->elem, "[]");
        break;
    }
    if (t->kind == WH_CK_STRUCT) {
        const char *base = n->elem2 ? n->elem2 : n->elem ? n->elem : n->go;
        n->struct_name = struct_name_of(base);
    }
    if (parent) {
        n->owner = wh_xstrdup(parent->struct_name);
        n->field =
            parent->field[0] ? wh_str_printf("%s.%s", parent->field, name) : wh_xstrdup(name);
    }
    return n;
}

/* FNV-1a: member lookups in the check walk compare hashes, not strings, first. */
static uint32_t hash_key(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

static struct wh_conv_node *find_kid_hashed(const struct wh_conv_node *n, const char *name,
                                            uint32_t h)
{
    for (size_t i = 0; i < n->nkids; i++)
        if (n->kid_hash[i] == h && strcmp(n->kids[i]->name, name) == 0)
            return n->kids[i];
    return NULL;
}

static struct wh_conv_node *find_kid(const struct wh_conv_node *n, const char *name)
{
    return find_kid_hashed(n, name, hash_key(name));
}

static void add_kid(struct wh_conv_node *n, struct wh_conv_node *kid)
{
    if (n->nkids == n->capkids) {
        n->capkids = n->capkids ? n->capkids * 2 : 4;
        n->kids = wh_xrealloc(n->kids, n->capkids * sizeof(*n->kids));
        n->kid_hash = wh_xrealloc(n->kid_hash, n->capkids * sizeof(*n->kid_hash));
    }
    n->kid_hash[n->nkids] = hash_key(kid->name);
    n->kids[n->nkids++] = kid;
}

/* Adds the row's field to version v's tree (path p). */
static void schema_add(const struct wh_conv_kind *k, const struct wh_conv_row *r,
                       struct wh_conv_node *root, const struct path *p, enum wh_conv_ver v)
{
    struct wh_conv_node *cur = root;
    for (size_t i = 0; i + 1 < p->n; i++) {
        const struct seg *g = &p->segs[i];
        if (g->any) {
            bool ok = g->arr ? cur->type.shape == WH_CS_MAP_LIST : cur->type.shape == WH_CS_MAP;
            if (!ok)
                table_error(k, r, "\"*\" must follow a map field (\"*[]\" a map of lists)");
            continue;
        }
        struct wh_conv_node *next = find_kid(cur, g->name);
        if (!next)
            table_error(k, r, "a parent of this path has no row of its own");
        if (next->type.kind != WH_CK_STRUCT)
            table_error(k, r, "a parent of this path is not a struct");
        bool want_arr = next->type.shape == WH_CS_LIST;
        if (g->arr != want_arr)
            table_error(k, r, "\"[]\" must follow exactly the list fields");
        bool want_any = next->type.shape == WH_CS_MAP || next->type.shape == WH_CS_MAP_LIST;
        bool has_any = i + 2 < p->n && p->segs[i + 1].any;
        if (want_any != has_any)
            table_error(k, r, "a map field must be followed by \"*\"");
        cur = next;
    }
    const struct seg *last = &p->segs[p->n - 1];
    if (last->any || last->arr)
        table_error(k, r, "a path must end with a member name");
    if (find_kid(cur, last->name))
        table_error(k, r, "two rows for the same field");
    add_kid(cur, node_new(last->name, &r->type, v, cur));
}

static void compile_row(const struct wh_conv_kind *k, struct wh_conv_plan *p,
                        const struct wh_conv_row *r, struct prow *pr)
{
    pr->row = r;
    parse_path(r->alpha, &pr->a);
    parse_path(r->beta, &pr->b);
    if (pr->a.n)
        schema_add(k, r, p->root[WH_CONV_ALPHA], &pr->a, WH_CONV_ALPHA);
    if (pr->b.n)
        schema_add(k, r, p->root[WH_CONV_BETA], &pr->b, WH_CONV_BETA);

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
    case WH_CONV_TYPE_ONLY:
        break;
    }
    if (r->when && (r->rule != WH_CONV_COPY || !two))
        table_error(k, r, "a condition only applies to a rename");
}

/* Rows that only describe a field (a copy in place, a member of a moved struct) edit nothing. */
static bool row_edits(const struct wh_conv_row *r)
{
    if (r->rule == WH_CONV_TYPE_ONLY)
        return false;
    if (r->rule == WH_CONV_COPY)
        return strcmp(r->alpha, r->beta) != 0;
    return true;
}

struct wh_conv_plan *wh_conv_compile(const struct wh_conv_kind *k)
{
    static const struct wh_conv_type top = T_STRUCT("");
    struct wh_conv_plan *p = wh_xcalloc(1, sizeof(*p));
    p->k = k;
    for (int v = 0; v < 2; v++) {
        p->root[v] = node_new("", &top, (enum wh_conv_ver)v, NULL);
        free(p->root[v]->struct_name);
        p->root[v]->struct_name = wh_xstrdup(k->kind);
        p->root[v]->field = wh_xstrdup("");
    }
    size_t nmeta = sizeof(meta_rows) / sizeof(meta_rows[0]);
    p->nrows = nmeta + k->nrows;
    p->rows = wh_xcalloc(p->nrows, sizeof(*p->rows));
    for (size_t i = 0; i < nmeta; i++)
        compile_row(k, p, &meta_rows[i], &p->rows[i]);
    for (size_t i = 0; i < k->nrows; i++)
        compile_row(k, p, &k->rows[i], &p->rows[nmeta + i]);
    for (int d = 0; d < 2; d++) {
        p->ops[d] = wh_xcalloc(p->nrows, sizeof(*p->ops[d]));
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

const struct wh_conv_node *wh_conv_schema(const struct wh_conv_plan *p, enum wh_conv_ver v)
{
    return p->root[v];
}

size_t wh_conv_node_nchildren(const struct wh_conv_node *n)
{
    return n->nkids;
}

const struct wh_conv_node *wh_conv_node_child(const struct wh_conv_node *n, size_t i)
{
    return i < n->nkids ? n->kids[i] : NULL;
}

const char *wh_conv_node_name(const struct wh_conv_node *n)
{
    return n->name;
}

const struct wh_conv_type *wh_conv_node_type(const struct wh_conv_node *n)
{
    return &n->type;
}

const char *wh_conv_node_owner(const struct wh_conv_node *n)
{
    return n->owner;
}

const char *wh_conv_node_field(const struct wh_conv_node *n)
{
    return n->field;
}

const char *wh_conv_node_go(const struct wh_conv_node *n)
{
    return n->go;
}

const char *wh_conv_node_elem(const struct wh_conv_node *n)
{
    return n->elem2 ? n->elem2 : n->elem;
}

/* ---- type checking ------------------------------------------------------------------------ */

/* Go's decoder keeps the first type mismatch and goes on, but an error from a custom
 * UnmarshalJSON (IntOrString, Time) ends decoding at once and wins over a kept one. */
struct chk {
    char *msg;
    bool stop;
};

static void number_text(const json_t *v, char *out, size_t outsz)
{
    if (json_is_integer(v)) {
        snprintf(out, outsz, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        return;
    }
    /* The literal is gone after parsing; the shortest exact spelling is the closest to it. */
    double d = json_real_value(v);
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(out, outsz, "%.*g", prec, d);
        if (strtod(out, NULL) == d)
            return;
    }
}

static void chk_fail(struct chk *k, const struct wh_conv_node *n, const char *what,
                     const char *type, bool stop)
{
    if (k->msg && !stop)
        return;
    free(k->msg);
    k->msg = wh_str_printf("json: cannot unmarshal %s into Go struct field %s.%s of type %s", what,
                           n->owner, n->field, type);
    if (stop)
        k->stop = true;
}

static void chk_int(struct chk *k, const struct wh_conv_node *n, const json_t *v, const char *type,
                    long long min, long long max, bool stop)
{
    char num[64];
    if (json_is_integer(v)) {
        json_int_t x = json_integer_value(v);
        if (x >= min && x <= max)
            return;
    }
    if (!json_is_number(v)) {
        chk_fail(k, n, wh_json_go_type_name(v), type, stop);
        return;
    }
    char what[80];
    number_text(v, num, sizeof(num));
    snprintf(what, sizeof(what), "number %s", num);
    chk_fail(k, n, what, type, stop);
}

/* Go's time.Parse(time.RFC3339, s) error text, for the shapes that matter: which element of
 * the layout the text stops matching, or which field is out of range. */
static char *time_error(const char *s)
{
    static const struct {
        const char *elem;
        int digits; /* 0: a literal separator */
    } layout[] = {{"2006", 4}, {"-", 0}, {"01", 2}, {"-", 0}, {"02", 2}, {"T", 0},
                  {"15", 2},   {":", 0}, {"04", 2}, {":", 0}, {"05", 2}};
    const char *p = s;
    int vals[11] = {0};
    for (size_t i = 0; i < sizeof(layout) / sizeof(layout[0]); i++) {
        bool ok = true;
        if (layout[i].digits) {
            for (int d = 0; d < layout[i].digits; d++)
                ok = ok && p[d] >= '0' && p[d] <= '9';
            if (ok)
                for (int d = 0; d < layout[i].digits; d++)
                    vals[i] = vals[i] * 10 + (p[d] - '0');
        } else {
            ok = *p == layout[i].elem[0];
        }
        if (!ok)
            return wh_str_printf("parsing time \"%s\" as \"2006-01-02T15:04:05Z07:00\": cannot "
                                 "parse \"%s\" as \"%s\"",
                                 s, p, layout[i].elem);
        p += layout[i].digits ? (size_t)layout[i].digits : 1;
    }
    if (vals[2] < 1 || vals[2] > 12)
        return wh_str_printf("parsing time \"%s\": month out of range", s);
    if (vals[4] < 1 || vals[4] > 31)
        return wh_str_printf("parsing time \"%s\": day out of range", s);
    if (vals[6] > 23)
        return wh_str_printf("parsing time \"%s\": hour out of range", s);
    if (vals[8] > 59)
        return wh_str_printf("parsing time \"%s\": minute out of range", s);
    if (vals[10] > 59)
        return wh_str_printf("parsing time \"%s\": second out of range", s);
    if (*p == '.') {
        p++;
        while (*p >= '0' && *p <= '9')
            p++;
    }
    const char *zone = p;
    if (*p == 'Z') {
        p++;
    } else if ((*p == '+' || *p == '-') && p[1] >= '0' && p[1] <= '9' && p[2] >= '0' &&
               p[2] <= '9' && p[3] == ':' && p[4] >= '0' && p[4] <= '9' && p[5] >= '0' &&
               p[5] <= '9') {
        if ((p[1] - '0') * 10 + (p[2] - '0') > 23 || (p[4] - '0') * 10 + (p[5] - '0') > 59)
            return wh_str_printf("parsing time \"%s\": time zone offset out of range", s);
        p += 6;
    } else {
        return wh_str_printf("parsing time \"%s\" as \"2006-01-02T15:04:05Z07:00\": cannot "
                             "parse \"%s\" as \"Z07:00\"",
                             s, zone);
    }
    if (*p)
        return wh_str_printf("parsing time \"%s\": extra text: \"%s\"", s, p);
    return NULL;
}

static bool leap(int y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

/* Also rejects the days a month does not have, as Go does ("day out of range"). */
static char *time_check(const char *s)
{
    char *err = time_error(s);
    if (err)
        return err;
    int y = (s[0] - '0') * 1000 + (s[1] - '0') * 100 + (s[2] - '0') * 10 + (s[3] - '0');
    int m = (s[5] - '0') * 10 + (s[6] - '0');
    int d = (s[8] - '0') * 10 + (s[9] - '0');
    static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int max = mdays[m - 1] + (m == 2 && leap(y));
    if (d > max)
        return wh_str_printf("parsing time \"%s\": day out of range", s);
    return NULL;
}

bool wh_conv_parse_time(const char *s, long long *epoch)
{
    char *err = time_check(s);
    if (err) {
        free(err);
        return false;
    }
    time_t t;
    if (wh_time_parse_rfc3339(s, &t) != 0)
        return false;
    *epoch = (long long)t;
    return true;
}

void wh_conv_format_time(long long epoch, char *out, size_t outsz)
{
    time_t t = (time_t)epoch;
    struct tm tm;
    if (!gmtime_r(&t, &tm)) {
        snprintf(out, outsz, "0001-01-01T00:00:00Z");
        return;
    }
    snprintf(out, outsz, "%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900, tm.tm_mon + 1,
             tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

static void chk_value(struct chk *k, const struct wh_conv_node *n, const json_t *v);

static void chk_leaf(struct chk *k, const struct wh_conv_node *n, const char *type, const json_t *v)
{
    if (json_is_null(v))
        return;
    switch (n->type.kind) {
    case WH_CK_STRING:
        if (!json_is_string(v))
            chk_fail(k, n, wh_json_go_type_name(v), type, false);
        return;
    case WH_CK_BOOL:
        if (!json_is_boolean(v))
            chk_fail(k, n, wh_json_go_type_name(v), type, false);
        return;
    case WH_CK_INT32:
        chk_int(k, n, v, type, INT32_MIN, INT32_MAX, false);
        return;
    case WH_CK_INT64:
        chk_int(k, n, v, type, LLONG_MIN, LLONG_MAX, false);
        return;
    case WH_CK_INTSTR:
        /* IntOrString.UnmarshalJSON decodes a non-string into its int32 member. */
        if (!json_is_string(v))
            chk_int(k, n, v, "int32", INT32_MIN, INT32_MAX, true);
        return;
    case WH_CK_TIME: {
        /* metav1.Time.UnmarshalJSON decodes into a string, then parses it. */
        if (!json_is_string(v)) {
            chk_fail(k, n, wh_json_go_type_name(v), "string", true);
            return;
        }
        char *err = time_check(json_string_value(v));
        if (err) {
            free(k->msg);
            k->msg = err;
            k->stop = true;
        }
        return;
    }
    case WH_CK_RAW:
        return;
    case WH_CK_STRUCT: {
        if (!json_is_object(v)) {
            chk_fail(k, n, wh_json_go_type_name(v), type, false);
            return;
        }
        if (!n->nkids)
            return;
        const char *key;
        json_t *val;
        json_object_foreach((json_t *)(uintptr_t)v, key, val)
        {
            const struct wh_conv_node *kid = find_kid_hashed(n, key, hash_key(key));
            if (kid)
                chk_value(k, kid, val);
            if (k->stop)
                return;
        }
        return;
    }
    }
}

static void chk_value(struct chk *k, const struct wh_conv_node *n, const json_t *v)
{
    if (json_is_null(v))
        return;
    size_t i;
    json_t *e;
    const char *key;
    switch (n->type.shape) {
    case WH_CS_ONE:
        chk_leaf(k, n, n->go, v);
        return;
    case WH_CS_LIST:
        if (!json_is_array(v)) {
            chk_fail(k, n, wh_json_go_type_name(v), n->go, false);
            return;
        }
        json_array_foreach(v, i, e)
        {
            chk_leaf(k, n, n->elem, e);
            if (k->stop)
                return;
        }
        return;
    case WH_CS_MAP:
        if (!json_is_object(v)) {
            chk_fail(k, n, wh_json_go_type_name(v), n->go, false);
            return;
        }
        json_object_foreach((json_t *)(uintptr_t)v, key, e)
        {
            chk_leaf(k, n, n->elem, e);
            if (k->stop)
                return;
        }
        return;
    case WH_CS_MAP_LIST:
        if (!json_is_object(v)) {
            chk_fail(k, n, wh_json_go_type_name(v), n->go, false);
            return;
        }
        json_object_foreach((json_t *)(uintptr_t)v, key, e)
        {
            if (json_is_null(e))
                continue;
            if (!json_is_array(e)) {
                chk_fail(k, n, wh_json_go_type_name(e), n->elem, false);
                continue;
            }
            size_t j;
            json_t *x;
            json_array_foreach(e, j, x)
            {
                chk_leaf(k, n, n->elem2, x);
                if (k->stop)
                    return;
            }
        }
        return;
    }
}

enum wh_err wh_conv_check(const struct wh_conv_plan *p, enum wh_conv_ver v, const json_t *obj,
                          char **msg)
{
    struct chk k = {0};
    chk_leaf(&k, p->root[v], "", obj);
    if (!k.msg)
        return WH_OK;
    *msg = k.msg;
    return WH_ERR_INVALID;
}

/* ---- editing the destination -------------------------------------------------------------- */

/* A container that the destination shares with the source (or with another place in itself)
 * has more than one reference; one that only our own edits created or un-shared has one. */
static bool shared(const json_t *v)
{
    return v->refcount > 1;
}

/* Returns: borrowed; obj[key] made writable (obj must be writable), NULL when it is not an
 * object/array. */
static json_t *own_member(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    if (!v || !(json_is_object(v) || json_is_array(v)))
        return NULL;
    if (shared(v)) {
        json_t *cp = json_copy(v);
        if (!cp || json_object_set_new(obj, key, cp))
            WH_PANIC("json copy failed");
        v = cp;
    }
    return v;
}

json_t *wh_conv_writable_elem(json_t *array, size_t i)
{
    json_t *v = json_array_get(array, i);
    if (!v || !(json_is_object(v) || json_is_array(v)))
        return NULL;
    if (shared(v)) {
        json_t *cp = json_copy(v);
        if (!cp || json_array_set_new(array, i, cp))
            WH_PANIC("json copy failed");
        v = cp;
    }
    return v;
}

/* Walks keys[0..n) under dst, making each object writable; creates missing (or non-object)
 * steps when create. Returns: borrowed, or NULL. */
static json_t *own_path(json_t *dst, const char *const *keys, size_t n, bool create)
{
    json_t *cur = dst;
    for (size_t i = 0; i < n; i++) {
        json_t *next = json_object_get(cur, keys[i]);
        if (!json_is_object(next)) {
            if (!create)
                return NULL;
            next = json_object();
            if (json_object_set_new(cur, keys[i], next))
                WH_PANIC("json_object_set_new failed");
        } else {
            next = own_member(cur, keys[i]);
        }
        cur = next;
    }
    return cur;
}

static const json_t *get_path(const json_t *v, const char *const *keys, size_t n)
{
    for (size_t i = 0; i < n && v; i++)
        v = json_is_object(v) ? json_object_get(v, keys[i]) : NULL;
    return json_is_null(v) ? NULL : v;
}

static void set_path(json_t *dst, const char *const *keys, size_t n, json_t *val)
{
    json_t *parent = own_path(dst, keys, n - 1, true);
    if (json_object_set_new(parent, keys[n - 1], val))
        WH_PANIC("json_object_set_new failed");
}

static void del_path(json_t *dst, const char *const *keys, size_t n)
{
    const json_t *probe = get_path(dst, keys, n - 1);
    if (!json_is_object(probe) || !json_object_get(probe, keys[n - 1]))
        return;
    json_t *parent = own_path(dst, keys, n - 1, false);
    json_object_del(parent, keys[n - 1]);
}

#define MAX_KEYS 16

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
    const char *keys[MAX_KEYS];
    va_list ap;
    va_start(ap, v);
    size_t n = collect_keys(ap, keys);
    va_end(ap);
    return get_path(v, keys, n);
}

const char *wh_conv_get_str(const json_t *v, ...)
{
    const char *keys[MAX_KEYS];
    va_list ap;
    va_start(ap, v);
    size_t n = collect_keys(ap, keys);
    va_end(ap);
    return json_string_value(get_path(v, keys, n));
}

void wh_conv_set_new(json_t *dst, json_t *val, ...)
{
    const char *keys[MAX_KEYS];
    va_list ap;
    va_start(ap, val);
    size_t n = collect_keys(ap, keys);
    va_end(ap);
    WH_ASSERT(n > 0 && val);
    set_path(dst, keys, n, val);
}

void wh_conv_del(json_t *dst, ...)
{
    const char *keys[MAX_KEYS];
    va_list ap;
    va_start(ap, dst);
    size_t n = collect_keys(ap, keys);
    va_end(ap);
    WH_ASSERT(n > 0);
    del_path(dst, keys, n);
}

json_t *wh_conv_writable(json_t *dst, ...)
{
    const char *keys[MAX_KEYS];
    va_list ap;
    va_start(ap, dst);
    size_t n = collect_keys(ap, keys);
    va_end(ap);
    return own_path(dst, keys, n, false);
}

json_t *wh_conv_ensure(json_t *dst, ...)
{
    const char *keys[MAX_KEYS];
    va_list ap;
    va_start(ap, dst);
    size_t n = collect_keys(ap, keys);
    va_end(ap);
    return own_path(dst, keys, n, true);
}

json_t *wh_conv_ensure_list(json_t *dst, ...)
{
    const char *keys[MAX_KEYS];
    va_list ap;
    va_start(ap, dst);
    size_t n = collect_keys(ap, keys);
    va_end(ap);
    WH_ASSERT(n > 0);
    json_t *parent = own_path(dst, keys, n - 1, true);
    if (!json_is_array(json_object_get(parent, keys[n - 1])) &&
        json_object_set_new(parent, keys[n - 1], json_array()))
        WH_PANIC("json_object_set_new failed");
    return own_member(parent, keys[n - 1]);
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

/* Calls fn for every element the row's iteration prefix reaches, with the source element and
 * the matching (writable) destination element. Elements that a previous row removed or
 * reshaped in the destination are skipped. */
static enum wh_err each(struct apply *a, const struct seg *segs, size_t n, const json_t *s,
                        json_t *d, elem_fn fn)
{
    if (n == 0)
        return fn(a, s, d);
    const struct seg *g = &segs[0];
    enum wh_err rc = WH_OK;
    if (g->any) {
        const char *key;
        json_t *sv;
        json_object_foreach((json_t *)(uintptr_t)s, key, sv)
        {
            if (!json_is_object(sv) && !json_is_array(sv))
                continue;
            json_t *dv = own_member(d, key);
            if (!dv || json_typeof(dv) != json_typeof(sv))
                continue;
            if (g->arr) {
                size_t i;
                json_t *se;
                json_array_foreach(sv, i, se)
                {
                    if (!json_is_object(se))
                        continue;
                    json_t *de = wh_conv_writable_elem(dv, i);
                    if (!json_is_object(de))
                        continue;
                    rc = each(a, segs + 1, n - 1, se, de, fn);
                    if (rc)
                        return rc;
                }
            } else if (json_is_object(sv)) {
                rc = each(a, segs + 1, n - 1, sv, dv, fn);
                if (rc)
                    return rc;
            }
        }
        return WH_OK;
    }
    const json_t *sv = json_object_get(s, g->name);
    if (g->arr ? !json_is_array(sv) : !json_is_object(sv))
        return WH_OK;
    json_t *dv = own_member(d, g->name);
    if (!dv || json_typeof(dv) != json_typeof(sv))
        return WH_OK;
    if (!g->arr)
        return each(a, segs + 1, n - 1, sv, dv, fn);
    size_t i;
    json_t *se;
    json_array_foreach(sv, i, se)
    {
        if (!json_is_object(se))
            continue;
        json_t *de = wh_conv_writable_elem(dv, i);
        if (!json_is_object(de))
            continue;
        rc = each(a, segs + 1, n - 1, se, de, fn);
        if (rc)
            return rc;
    }
    return WH_OK;
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
    if (v)
        set_path(d, tk, tn, json_incref((json_t *)(uintptr_t)v));
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
    case WH_CONV_TYPE_ONLY:
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
