#include "util/cow.h"

#include <stdarg.h>
#include <stdint.h>

#include "util/err.h"

json_t *wh_cow_root(const json_t *v)
{
    json_t *cp =
        (json_is_object(v) || json_is_array(v)) ? json_copy((json_t *)(uintptr_t)v) : json_object();
    if (!cp)
        WH_PANIC("json_copy failed");
    return cp;
}

bool wh_cow_private(const json_t *v)
{
    return v->refcount == 1;
}

/* Replaces obj[key] (shared v) by a shallow copy. Returns: borrowed, the copy. */
static json_t *unshare_member(json_t *obj, const char *key, json_t *v)
{
    json_t *cp = json_copy(v);
    if (!cp || json_object_set_new(obj, key, cp))
        WH_PANIC("json copy failed");
    return cp;
}

static json_t *own_member(json_t *obj, const char *key, bool create, bool array)
{
    json_t *v = json_object_get(obj, key);
    if (!(array ? json_is_array(v) : json_is_object(v))) {
        if (!create)
            return NULL;
        v = array ? json_array() : json_object();
        if (json_object_set_new(obj, key, v))
            WH_PANIC("json_object_set_new failed");
        return v;
    }
    return wh_cow_private(v) ? v : unshare_member(obj, key, v);
}

json_t *wh_cow_object(json_t *obj, const char *key, bool create)
{
    return own_member(obj, key, create, false);
}

json_t *wh_cow_array(json_t *obj, const char *key, bool create)
{
    return own_member(obj, key, create, true);
}

json_t *wh_cow_member(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    if (!json_is_object(v) && !json_is_array(v))
        return NULL;
    return wh_cow_private(v) ? v : unshare_member(obj, key, v);
}

json_t *wh_cow_elem(json_t *arr, size_t i)
{
    json_t *v = json_array_get(arr, i);
    if (!json_is_object(v) && !json_is_array(v))
        return NULL;
    if (wh_cow_private(v))
        return v;
    json_t *cp = json_copy(v);
    if (!cp || json_array_set_new(arr, i, cp))
        WH_PANIC("json copy failed");
    return cp;
}

json_t *wh_cow_vpath(json_t *root, va_list ap)
{
    json_t *cur = root;
    for (const char *key = va_arg(ap, const char *); key; key = va_arg(ap, const char *))
        cur = wh_cow_object(cur, key, true);
    return cur;
}

json_t *wh_cow_path(json_t *root, ...)
{
    va_list ap;
    va_start(ap, root);
    json_t *cur = wh_cow_vpath(root, ap);
    va_end(ap);
    return cur;
}

json_t *wh_cow_keys(json_t *root, const char *const *keys, size_t n, bool create)
{
    json_t *cur = root;
    for (size_t i = 0; i < n && cur; i++)
        cur = wh_cow_object(cur, keys[i], create);
    return cur;
}
