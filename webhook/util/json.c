#include "util/json.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/arena.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/jsonparse.h"
#include "util/mem.h"

void wh_json_init(void)
{
    wh_arena_install(); /* jansson allocates through wh_xmalloc, or a request's arena */
    /* 0 = a random seed from the OS; done here so no two threads race jansson's lazy seeding. */
    json_object_seed(0);
}

const char *wh_json_str(const json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

const char *wh_json_str_or_empty(const json_t *o, const char *key)
{
    const char *s = wh_json_str(o, key);
    return s ? s : "";
}

enum wh_err wh_json_need_str(const json_t *o, const char *key, const char *where, bool required,
                             const char **out, struct wh_errbuf *eb)
{
    json_t *v = json_object_get(o, key);
    if (!v || json_is_null(v)) {
        if (required)
            return wh_errbuf_set(eb, WH_ERR_INVALID, "%s%s: required", where, key);
        *out = "";
        return WH_OK;
    }
    if (!json_is_string(v))
        return wh_errbuf_set(eb, WH_ERR_INVALID, "%s%s: must be a string, not %s", where, key,
                             wh_json_type_name(v));
    *out = json_string_value(v);
    return WH_OK;
}

bool wh_json_present(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return v && !json_is_null(v);
}

json_t *wh_json_obj(const json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return json_is_object(v) ? v : NULL;
}

json_t *wh_json_arr(const json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return json_is_array(v) ? v : NULL;
}

json_t *wh_json_zero_null_items(json_t *list)
{
    size_t i;
    json_t *item;
    json_array_foreach(list, i, item)
    {
        if (json_is_null(item))
            json_array_set_new(list, i, json_object());
    }
    return list;
}

json_t *wh_json_struct_list(json_t *o, const char *key)
{
    return wh_json_zero_null_items(wh_json_arr(o, key));
}

bool wh_json_bool(const json_t *o, const char *key)
{
    return json_is_true(json_object_get(o, key));
}

static json_t *vpath(const json_t *root, va_list ap)
{
    json_t *cur = (json_t *)(uintptr_t)root; /* jansson's getters are not const-correct */
    const char *key;
    while ((key = va_arg(ap, const char *)) != NULL) {
        if (!json_is_object(cur))
            return NULL;
        cur = json_object_get(cur, key);
    }
    return cur;
}

json_t *wh_json_path(const json_t *root, ...)
{
    va_list ap;
    va_start(ap, root);
    json_t *v = vpath(root, ap);
    va_end(ap);
    return v;
}

const char *wh_json_path_str(const json_t *root, ...)
{
    va_list ap;
    va_start(ap, root);
    json_t *v = vpath(root, ap);
    va_end(ap);
    return json_string_value(v);
}

const char *wh_json_meta_str(const json_t *obj, const char *field)
{
    return json_string_value(json_object_get(json_object_get(obj, "metadata"), field));
}

/* metadata.<map>[key] as Go's map[string]string holds it: a null value is "". */
static const char *meta_map_value(const json_t *obj, const char *map, const char *key)
{
    const json_t *v = json_object_get(wh_json_path(obj, "metadata", map, NULL), key);
    return json_is_null(v) ? "" : json_string_value(v);
}

const char *wh_json_label(const json_t *obj, const char *key)
{
    return meta_map_value(obj, "labels", key);
}

const char *wh_json_annotation(const json_t *obj, const char *key)
{
    return meta_map_value(obj, "annotations", key);
}

static json_t *ensure(json_t *o, const char *key, json_t *(*make)(void), json_type type)
{
    json_t *v = json_object_get(o, key);
    if (v && json_typeof(v) == type)
        return v;
    v = make();
    if (json_object_set_new(o, key, v))
        WH_PANIC("json_object_set_new failed for %s", key);
    return v;
}

json_t *wh_json_obj_ensure(json_t *o, const char *key)
{
    return ensure(o, key, json_object, JSON_OBJECT);
}

const char *wh_json_type_name(const json_t *v)
{
    switch (v ? json_typeof(v) : JSON_NULL) {
    case JSON_OBJECT:
        return "object";
    case JSON_ARRAY:
        return "array";
    case JSON_STRING:
        return "string";
    case JSON_INTEGER:
    case JSON_REAL:
        return "number";
    case JSON_TRUE:
    case JSON_FALSE:
        return "boolean";
    case JSON_NULL:
        return "null";
    }
    return "unknown";
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

const char **wh_json_sorted_keys(const json_t *obj, size_t *n)
{
    size_t k = 0;
    *n = json_object_size(obj);
    const char **keys = wh_xmalloc((*n ? *n : 1) * sizeof(*keys));
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)(uintptr_t)obj, key, v) keys[k++] = key;
    qsort(keys, *n, sizeof(*keys), cmp_names);
    return keys;
}

json_t *wh_json_copy(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: {
        json_t *o = json_object();
        const char *k;
        size_t klen;
        json_t *m;
        json_object_keylen_foreach((json_t *)(uintptr_t)v, k, klen, m)
        {
            json_object_setn_new_nocheck(o, k, klen, wh_json_copy(m));
        }
        return o;
    }
    case JSON_ARRAY: {
        size_t n = json_array_size(v);
        json_t *a = json_array();
        for (size_t i = 0; i < n; i++)
            json_array_append_new(a, wh_json_copy(json_array_get(v, i)));
        return a;
    }
    case JSON_STRING:
        return json_stringn_nocheck(json_string_value(v), json_string_length(v));
    case JSON_INTEGER:
        return json_integer(json_integer_value(v));
    case JSON_REAL:
        return json_real(json_real_value(v));
    default:
        return json_incref((json_t *)(uintptr_t)v); /* true, false and null are singletons */
    }
}

json_t *wh_json_string_lossy(const char *s)
{
    return wh_json_stringn_lossy(s, strlen(s));
}

json_t *wh_json_stringn_lossy(const char *s, size_t n)
{
    json_t *v = json_stringn(s, n);
    if (v)
        return v;
    char *copy = wh_xmalloc(n + 1);
    memcpy(copy, s, n);
    copy[n] = '\0';
    /* Keep well-formed sequences, replace every byte that does not start one. */
    size_t i = 0;
    while (i < n) {
        unsigned char c = (unsigned char)copy[i];
        size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
        bool ok = len > 0 && i + len <= n;
        for (size_t k = 1; ok && k < len; k++)
            ok = ((unsigned char)copy[i + k] >> 6) == 2;
        if (!ok) {
            copy[i] = '?';
            len = 1;
        }
        i += len;
    }
    v = json_stringn(copy, n);
    if (!v) {
        /* Well-formed but still refused (overlong forms, surrogates): keep ASCII only. */
        for (i = 0; i < n; i++)
            copy[i] = (unsigned char)copy[i] < 0x80 ? copy[i] : '?';
        v = json_stringn(copy, n);
    }
    free(copy);
    if (!v)
        WH_PANIC("could not build a JSON string");
    return v;
}

/* Characters that need an escape inside a JSON string: controls, '"' and '\\'. */
static const unsigned char needs_escape[256] = {
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,         1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, ['"'] = 1, ['\\'] = 1,
};

/* Plain runs are copied whole: most Kubernetes strings need no escaping at all. */
enum wh_err wh_json_write_string(struct wh_buf *b, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    enum wh_err rc = wh_buf_addc(b, '"');
    const unsigned char *p = (const unsigned char *)s, *end = p + n, *run = p;
    while (!rc) {
        while (p < end && !needs_escape[*p])
            p++;
        rc = wh_buf_add(b, run, (size_t)(p - run));
        if (rc || p == end)
            break;
        char esc[6] = {'\\', 'u', '0', '0', hex[*p >> 4], hex[*p & 15]};
        size_t elen = 2;
        switch (*p) {
        case '"':
            esc[1] = '"';
            break;
        case '\\':
            esc[1] = '\\';
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
        case '\b':
            esc[1] = 'b';
            break;
        case '\f':
            esc[1] = 'f';
            break;
        default:
            elen = 6;
        }
        rc = wh_buf_add(b, esc, elen);
        run = ++p;
    }
    return rc ? rc : wh_buf_addc(b, '"');
}

/* The shortest spelling that reads back as the same double, and never one that reads as an
 * integer (1.0 stays "1.0"). */
static enum wh_err write_real(struct wh_buf *b, double d)
{
    char num[40];
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(num, sizeof(num), "%.*g", prec, d);
        if (strtod(num, NULL) == d)
            break;
    }
    if (!strpbrk(num, ".eEn")) /* "n": inf and nan cannot be JSON; jansson refuses them too */
        return wh_buf_printf(b, "%s.0", num);
    return wh_buf_adds(b, num);
}

static enum wh_err write_value(struct wh_buf *b, const json_t *v, const struct wh_json_spans *spans)
{
    enum wh_err rc = WH_OK;
    const char *text;
    size_t len;
    if (spans && (json_is_object(v) || json_is_array(v)) &&
        wh_json_spans_get(spans, v, &text, &len))
        return wh_buf_add(b, text, len);
    switch (json_typeof(v)) {
    case JSON_OBJECT: {
        rc = wh_buf_addc(b, '{');
        const char *k;
        json_t *val;
        bool first = true;
        json_object_foreach((json_t *)(uintptr_t)v, k, val)
        {
            if (rc)
                break;
            if (!first)
                rc = wh_buf_addc(b, ',');
            first = false;
            if (!rc)
                rc = wh_json_write_string(b, k, strlen(k));
            if (!rc)
                rc = wh_buf_addc(b, ':');
            if (!rc)
                rc = write_value(b, val, spans);
        }
        return rc ? rc : wh_buf_addc(b, '}');
    }
    case JSON_ARRAY: {
        rc = wh_buf_addc(b, '[');
        size_t n = json_array_size(v);
        for (size_t i = 0; i < n && !rc; i++) {
            if (i)
                rc = wh_buf_addc(b, ',');
            if (!rc)
                rc = write_value(b, json_array_get(v, i), spans);
        }
        return rc ? rc : wh_buf_addc(b, ']');
    }
    case JSON_STRING:
        return wh_json_write_string(b, json_string_value(v), json_string_length(v));
    case JSON_INTEGER:
        return wh_buf_add_int(b, json_integer_value(v));
    case JSON_REAL:
        return write_real(b, json_real_value(v));
    case JSON_TRUE:
        return wh_buf_adds(b, "true");
    case JSON_FALSE:
        return wh_buf_adds(b, "false");
    case JSON_NULL:
        return wh_buf_adds(b, "null");
    }
    return WH_ERR_INVALID;
}

enum wh_err wh_json_write(struct wh_buf *b, const json_t *v)
{
    return write_value(b, v, NULL);
}

enum wh_err wh_json_write_spans(struct wh_buf *b, const json_t *v,
                                const struct wh_json_spans *spans)
{
    return write_value(b, v, spans);
}

const char *wh_json_go_type_name(const json_t *v)
{
    return json_is_boolean(v) ? "bool" : wh_json_type_name(v);
}

char *wh_json_dumps(const json_t *v)
{
    struct wh_buf b;
    wh_buf_init(&b, (size_t)1 << 32);
    if (wh_json_write(&b, v))
        WH_PANIC("a JSON value does not serialise");
    size_t len = 0;
    char *text = wh_buf_take(&b, &len);
    /* The buffer grew by doubling: give the slack back, the text may be kept for long (the
     * cache keeps every object this way). */
    return wh_xrealloc(text, len + 1);
}

static const char *str_or_empty(const json_t *v, size_t *n)
{
    *n = json_is_string(v) ? json_string_length(v) : 0;
    return json_is_string(v) ? json_string_value(v) : "";
}

static int cmp_json_strings(const void *a, const void *b)
{
    size_t na, nb;
    const char *sa = str_or_empty(*(const json_t *const *)a, &na);
    const char *sb = str_or_empty(*(const json_t *const *)b, &nb);
    int c = memcmp(sa, sb, na < nb ? na : nb);
    return c ? c : (na > nb) - (na < nb);
}

bool wh_json_strings_repeat(const json_t *arr)
{
    size_t n = json_array_size(arr);
    if (n < 2)
        return false;
    const json_t **items = wh_xmalloc(n * sizeof(*items));
    for (size_t i = 0; i < n; i++)
        items[i] = json_array_get(arr, i);
    qsort(items, n, sizeof(*items), cmp_json_strings);
    bool repeat = false;
    for (size_t i = 1; i < n && !repeat; i++)
        repeat = cmp_json_strings(&items[i - 1], &items[i]) == 0;
    free(items);
    return repeat;
}
