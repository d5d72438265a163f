#include "util/json.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/err.h"
#include "util/mem.h"

const char *wh_json_str(const json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
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

const char *wh_json_label(const json_t *obj, const char *key)
{
    return wh_json_path_str(obj, "metadata", "labels", key, NULL);
}

const char *wh_json_annotation(const json_t *obj, const char *key)
{
    return wh_json_path_str(obj, "metadata", "annotations", key, NULL);
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

json_t *wh_json_arr_ensure(json_t *o, const char *key)
{
    return ensure(o, key, json_array, JSON_ARRAY);
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

json_t *wh_json_string_lossy(const char *s)
{
    json_t *v = json_string(s);
    if (v)
        return v;
    size_t n = strlen(s);
    char *copy = wh_xstrndup(s, n);
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
    v = json_string(copy);
    if (!v) {
        /* Well-formed but still refused (overlong forms, surrogates): keep ASCII only. */
        for (i = 0; i < n; i++)
            copy[i] = (unsigned char)copy[i] < 0x80 ? copy[i] : '?';
        v = json_string(copy);
    }
    free(copy);
    if (!v)
        WH_PANIC("could not build a JSON string");
    return v;
}

char *wh_json_dumps(const json_t *v)
{
    char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
    if (!s)
        WH_PANIC("json_dumps failed");
    return s;
}
