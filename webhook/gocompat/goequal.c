#include "gocompat/goequal.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "k8s/quantity.h"
#include "util/jsoneq.h"

/* Go's zero value and nil read the same way: absent and null. */
static bool nil(const json_t *v)
{
    return !v || json_is_null(v);
}

static bool equal(const json_t *a, const json_t *b, const struct wh_gotype *t,
                  enum wh_goeq_mode mode);

/* The text ParseQuantity reads: a string without surrounding white space, or a number. */
static void quantity_text(const json_t *v, char *out, size_t outsz)
{
    if (json_is_string(v)) {
        const char *s = json_string_value(v);
        size_t len = json_string_length(v);
        while (len && (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')) {
            s++;
            len--;
        }
        while (len && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\n' ||
                       s[len - 1] == '\r'))
            len--;
        if (len >= outsz)
            len = outsz - 1;
        memcpy(out, s, len);
        out[len] = 0;
    } else if (json_is_integer(v)) {
        snprintf(out, outsz, "%lld", (long long)json_integer_value(v));
    } else if (json_is_real(v)) {
        snprintf(out, outsz, "%.17g", json_real_value(v));
    } else {
        snprintf(out, outsz, "0");
    }
}

static bool quantity_equal(const json_t *a, const json_t *b, enum wh_goeq_mode mode)
{
    char ta[WH_QUANTITY_MAX_INPUT + 1], tb[WH_QUANTITY_MAX_INPUT + 1];
    if (nil(a) || nil(b)) {
        if (nil(a) && nil(b))
            return true;
        if (mode == WH_GOEQ_REFLECT)
            return false;
    }
    quantity_text(nil(a) ? NULL : a, ta, sizeof(ta));
    quantity_text(nil(b) ? NULL : b, tb, sizeof(tb));
    if (mode == WH_GOEQ_REFLECT)
        return strcmp(ta, tb) == 0;
    struct wh_quantity qa, qb;
    struct wh_errbuf eb;
    if (wh_quantity_parse(ta, &qa, &eb) || wh_quantity_parse(tb, &qb, &eb))
        return strcmp(ta, tb) == 0;
    return wh_quantity_cmp(&qa, &qb) == 0;
}

/* IntOrString: a string is {String, s}, anything else {Int, n}. */
static bool intstr_equal(const json_t *a, const json_t *b)
{
    bool sa = json_is_string(a), sb = json_is_string(b);
    if (sa != sb)
        return false;
    if (sa)
        return strcmp(json_string_value(a), json_string_value(b)) == 0;
    return (json_is_integer(a) ? json_integer_value(a) : 0) ==
           (json_is_integer(b) ? json_integer_value(b) : 0);
}

static bool struct_equal(const json_t *a, const json_t *b, const struct wh_gotype *t,
                         enum wh_goeq_mode mode, const char *const *skip)
{
    size_t n = wh_gotype_nfields(t);
    for (size_t i = 0; i < n; i++) {
        const struct wh_gofield *f = wh_gotype_field(t, i);
        bool skipped = false;
        for (const char *const *s = skip; s && *s && !skipped; s++)
            skipped = strcmp(*s, f->name) == 0;
        if (skipped)
            continue;
        const json_t *fa = json_is_object(a) ? json_object_get(a, f->name) : NULL;
        const json_t *fb = json_is_object(b) ? json_object_get(b, f->name) : NULL;
        if (f->flags & WH_GOF_POINTER) {
            /* a nil pointer equals only another nil pointer, in both modes */
            if (nil(fa) || nil(fb)) {
                if (nil(fa) != nil(fb))
                    return false;
                continue;
            }
        }
        if (!equal(fa, fb, f->type, mode))
            return false;
    }
    return true;
}

static bool slice_equal(const json_t *a, const json_t *b, const struct wh_gotype *t,
                        enum wh_goeq_mode mode)
{
    size_t na = json_is_array(a) ? json_array_size(a) : 0;
    size_t nb = json_is_array(b) ? json_array_size(b) : 0;
    if (mode == WH_GOEQ_REFLECT && nil(a) != nil(b))
        return false;
    if (na != nb)
        return false;
    for (size_t i = 0; i < na; i++) {
        if (!equal(json_array_get(a, i), json_array_get(b, i), wh_gotype_elem(t), mode))
            return false;
    }
    return true;
}

static bool map_equal(const json_t *a, const json_t *b, const struct wh_gotype *t,
                      enum wh_goeq_mode mode)
{
    size_t na = json_is_object(a) ? json_object_size(a) : 0;
    size_t nb = json_is_object(b) ? json_object_size(b) : 0;
    if (mode == WH_GOEQ_REFLECT && nil(a) != nil(b))
        return false;
    if (na != nb)
        return false;
    const char *k;
    const json_t *va;
    json_object_foreach((json_t *)(uintptr_t)a, k, va)
    {
        const json_t *vb = json_object_get(b, k);
        if (!vb || !equal(va, vb, wh_gotype_elem(t), mode))
            return false;
    }
    return true;
}

static bool equal(const json_t *a, const json_t *b, const struct wh_gotype *t,
                  enum wh_goeq_mode mode)
{
    switch (wh_gotype_kind(t)) {
    case WH_GK_STRING:
    case WH_GK_BYTES:
    case WH_GK_TIME:
    case WH_GK_MICROTIME: {
        /* times: the API server writes them in UTC, so the text stands for the instant */
        const char *sa = json_is_string(a) ? json_string_value(a) : "";
        const char *sb = json_is_string(b) ? json_string_value(b) : "";
        if (wh_gotype_kind(t) != WH_GK_STRING && wh_gotype_kind(t) != WH_GK_BYTES &&
            nil(a) != nil(b))
            return false;
        return strcmp(sa, sb) == 0;
    }
    case WH_GK_BOOL:
        return json_is_true(a) == json_is_true(b);
    case WH_GK_INT32:
    case WH_GK_INT64:
        return (json_is_integer(a) ? json_integer_value(a) : 0) ==
               (json_is_integer(b) ? json_integer_value(b) : 0);
    case WH_GK_QUANTITY:
        return quantity_equal(a, b, mode);
    case WH_GK_INTSTR:
        return intstr_equal(nil(a) ? NULL : a, nil(b) ? NULL : b);
    case WH_GK_RAW:
        if (nil(a) || nil(b))
            return nil(a) == nil(b);
        return wh_json_equal(a, b, WH_JSON_EQ_EXACT);
    case WH_GK_STRUCT:
        return struct_equal(a, b, t, mode, NULL);
    case WH_GK_SLICE:
        return slice_equal(a, b, t, mode);
    case WH_GK_MAP:
        return map_equal(a, b, t, mode);
    }
    return false;
}

bool wh_go_deep_equal(const json_t *a, const json_t *b, const struct wh_gotype *t,
                      enum wh_goeq_mode mode)
{
    return equal(a, b, t, mode);
}

bool wh_go_deep_equal_except(const json_t *a, const json_t *b, const struct wh_gotype *t,
                             enum wh_goeq_mode mode, const char *const *skip)
{
    return struct_equal(a, b, t, mode, skip);
}
