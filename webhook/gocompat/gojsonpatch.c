#include "gocompat/gojsonpatch.h"

#include <stdint.h>
#include <string.h>

#include "jsonpatch/pointer.h"
#include "util/buf.h"

struct walk {
    struct wh_buf path;
    wh_gojsonpatch_fn fn;
    void *arg;
};

/* The Go type an interface{} from encoding/json holds: 0 nil, 1 bool, 2 float64, 3 string,
 * 4 slice, 5 map. */
static int go_type(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_NULL:
        return 0;
    case JSON_TRUE:
    case JSON_FALSE:
        return 1;
    case JSON_INTEGER:
    case JSON_REAL:
        return 2;
    case JSON_STRING:
        return 3;
    case JSON_ARRAY:
        return 4;
    default:
        return 5;
    }
}

static double number(const json_t *v)
{
    return json_is_integer(v) ? (double)json_integer_value(v) : json_real_value(v);
}

static bool emit(struct walk *w, const char *op)
{
    if (wh_buf_addc(&w->path, 0))
        return false;
    w->path.len--;
    return w->fn(op, w->path.data ? w->path.data : "", w->arg);
}

static bool values(struct walk *w, const json_t *a, const json_t *b);

static bool at_key(struct walk *w, const char *key, size_t len, const char *op, const json_t *a,
                   const json_t *b)
{
    size_t mark = w->path.len;
    bool go_on = true;
    if (wh_pointer_append(&w->path, key, len))
        return false;
    go_on = op ? emit(w, op) : values(w, a, b);
    wh_pointer_truncate(&w->path, mark);
    return go_on;
}

static bool at_index(struct walk *w, size_t i, const char *op, const json_t *a, const json_t *b)
{
    size_t mark = w->path.len;
    bool go_on = true;
    if (wh_pointer_append_index(&w->path, i))
        return false;
    go_on = op ? emit(w, op) : values(w, a, b);
    wh_pointer_truncate(&w->path, mark);
    return go_on;
}

static bool objects(struct walk *w, const json_t *a, const json_t *b)
{
    const char *k;
    size_t klen;
    json_t *v;
    json_object_keylen_foreach((json_t *)(uintptr_t)b, k, klen, v)
    {
        const json_t *av = json_object_getn(a, k, klen);
        if (!(av ? at_key(w, k, klen, NULL, av, v) : at_key(w, k, klen, "add", NULL, NULL)))
            return false;
    }
    json_object_keylen_foreach((json_t *)(uintptr_t)a, k, klen, v)
    {
        if (!json_object_getn(b, k, klen) && !at_key(w, k, klen, "remove", NULL, NULL))
            return false;
    }
    return true;
}

static bool arrays(struct walk *w, const json_t *a, const json_t *b)
{
    size_t na = json_array_size(a), nb = json_array_size(b);
    size_t n = na < nb ? na : nb;
    for (size_t i = na; i > n; i--) {
        if (!at_index(w, i - 1, "remove", NULL, NULL))
            return false;
    }
    for (size_t i = n; i < nb; i++) {
        if (!at_index(w, i, "add", NULL, NULL))
            return false;
    }
    for (size_t i = 0; i < n; i++) {
        if (!at_index(w, i, NULL, json_array_get(a, i), json_array_get(b, i)))
            return false;
    }
    return true;
}

static bool values(struct walk *w, const json_t *a, const json_t *b)
{
    int ta = go_type(a), tb = go_type(b);
    if (ta == 0 && tb == 0)
        return true;
    if (ta != tb)
        return emit(w, "replace");
    switch (ta) {
    case 1:
        return json_is_true(a) == json_is_true(b) || emit(w, "replace");
    case 2:
        return number(a) == number(b) || emit(w, "replace");
    case 3:
        return (json_string_length(a) == json_string_length(b) &&
                memcmp(json_string_value(a), json_string_value(b), json_string_length(a)) == 0) ||
               emit(w, "replace");
    case 4:
        return arrays(w, a, b);
    default:
        return objects(w, a, b);
    }
}

bool wh_gojsonpatch_each(const json_t *from, const json_t *to, wh_gojsonpatch_fn fn, void *arg)
{
    struct walk w = {.fn = fn, .arg = arg};
    wh_buf_init(&w.path, 1 << 20); /* paths are bounded by the request body */
    bool done = values(&w, from ? from : json_null(), to ? to : json_null());
    wh_buf_fini(&w.path);
    return done;
}
