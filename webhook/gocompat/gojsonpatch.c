#include "gocompat/gojsonpatch.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "jsonpatch/pointer.h"
#include "util/buf.h"
#include "util/mem.h"

struct walk {
    struct wh_buf path;
    wh_gojsonpatch_fn fn;
    void *arg;
};

/* The Go type an interface{} from encoding/json holds: 0 nil, 1 bool, 2 float64, 3 string,
 * 4 slice, 5 map. */
static int go_type(const json_t *v)
{
    switch (v ? json_typeof(v) : JSON_NULL) {
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

/* reflect.DeepEqual of two decoded interface{} values. */
static bool deep_equal(const json_t *a, const json_t *b)
{
    int ta = go_type(a), tb = go_type(b);
    if (ta != tb)
        return false;
    switch (ta) {
    case 0:
        return true;
    case 1:
        return json_is_true(a) == json_is_true(b);
    case 2:
        return number(a) == number(b);
    case 3:
        return json_string_length(a) == json_string_length(b) &&
               memcmp(json_string_value(a), json_string_value(b), json_string_length(a)) == 0;
    case 4: {
        size_t n = json_array_size(a);
        if (n != json_array_size(b))
            return false;
        for (size_t i = 0; i < n; i++) {
            if (!deep_equal(json_array_get(a, i), json_array_get(b, i)))
                return false;
        }
        return true;
    }
    default: {
        if (json_object_size(a) != json_object_size(b))
            return false;
        const char *k;
        size_t klen;
        json_t *v;
        json_object_keylen_foreach((json_t *)(uintptr_t)a, k, klen, v)
        {
            const json_t *w = json_object_getn(b, k, klen);
            if (!w || !deep_equal(v, w))
                return false;
        }
        return true;
    }
    }
}

static bool basic(const json_t *v)
{
    int t = go_type(v);
    return t >= 1 && t <= 3;
}

/* isSimpleArray: scalars; the first object element decides for the whole array (true when its
 * values are scalars or null); anything else makes it not simple. */
static bool simple_array(const json_t *arr)
{
    size_t i;
    const json_t *e;
    json_array_foreach(arr, i, e)
    {
        if (basic(e))
            continue;
        if (go_type(e) != 5)
            return false;
        const char *k;
        json_t *v;
        json_object_foreach((json_t *)(uintptr_t)e, k, v)
        {
            if (go_type(v) != 0 && !basic(v))
                return false;
        }
        return true;
    }
    return true;
}

static bool emit(struct walk *w, const char *op)
{
    if (wh_buf_addc(&w->path, 0))
        return false; /* the path outgrew its cap: stop */
    w->path.len--;
    return w->fn(op, w->path.data ? w->path.data : "", w->arg);
}

/* makePath: "/" + key, except after a path that ends in "/" (an empty key before it). */
static bool push_key(struct walk *w, const char *key, size_t len)
{
    if (w->path.len && w->path.data[w->path.len - 1] == '/')
        return wh_pointer_escape(&w->path, key, len) == WH_OK;
    return wh_pointer_append(&w->path, key, len) == WH_OK;
}

static bool push_index(struct walk *w, size_t i)
{
    if (w->path.len && w->path.data[w->path.len - 1] == '/')
        return wh_buf_add_int(&w->path, (long long)i) == WH_OK;
    return wh_pointer_append_index(&w->path, i) == WH_OK;
}

static bool values(struct walk *w, const json_t *a, const json_t *b);

/* The operation op at path + key (op NULL: compare a with b there). */
static bool at_key(struct walk *w, const char *key, size_t len, const char *op, const json_t *a,
                   const json_t *b)
{
    size_t mark = w->path.len;
    bool go_on = push_key(w, key, len) && (op ? emit(w, op) : values(w, a, b));
    wh_pointer_truncate(&w->path, mark);
    return go_on;
}

static bool at_index(struct walk *w, size_t i, const char *op, const json_t *a, const json_t *b)
{
    size_t mark = w->path.len;
    bool go_on = push_index(w, i) && (op ? emit(w, op) : values(w, a, b));
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
        const json_t *av = json_is_object(a) ? json_object_getn(a, k, klen) : NULL;
        if (!(av ? at_key(w, k, klen, NULL, av, v) : at_key(w, k, klen, "add", NULL, NULL)))
            return false;
    }
    if (!json_is_object(a))
        return true;
    json_object_keylen_foreach((json_t *)(uintptr_t)a, k, klen, v)
    {
        if (!(json_is_object(b) && json_object_getn(b, k, klen)) &&
            !at_key(w, k, klen, "remove", NULL, NULL))
            return false;
    }
    return true;
}

/* compareEditDistance and its backtrace from the arrays' ends. */
static bool edit_distance(struct walk *w, const json_t *s, const json_t *t)
{
    size_t m = json_array_size(s), n = json_array_size(t);
    size_t *d = wh_xcalloc((m + 1) * (n + 1), sizeof(*d));
#define D(i, j) d[(i) * (n + 1) + (j)]
    for (size_t i = 0; i <= m; i++)
        D(i, 0) = i;
    for (size_t j = 0; j <= n; j++)
        D(0, j) = j;
    for (size_t j = 1; j <= n; j++) {
        for (size_t i = 1; i <= m; i++) {
            if (deep_equal(json_array_get(s, i - 1), json_array_get(t, j - 1))) {
                D(i, j) = D(i - 1, j - 1);
            } else {
                size_t del = D(i - 1, j) + 1, add = D(i, j - 1) + 1, rep = D(i - 1, j - 1) + 1;
                size_t best = rep < add ? rep : add;
                D(i, j) = best < del ? best : del;
            }
        }
    }
    bool go_on = true;
    size_t i = m, j = n;
    bool first_basic = m > 0 && basic(json_array_get(s, 0));
    while (go_on) {
        if (i > 0 && D(i - 1, j) + 1 == D(i, j)) {
            go_on = at_index(w, i - 1, "remove", NULL, NULL);
            i--;
        } else if (j > 0 && D(i, j - 1) + 1 == D(i, j)) {
            go_on = at_index(w, i, "add", NULL, NULL);
            j--;
        } else if (i > 0 && j > 0 && D(i - 1, j - 1) + 1 == D(i, j)) {
            /* upstream asks whether the array's first element is a scalar */
            if (first_basic)
                go_on = at_index(w, i - 1, "replace", NULL, NULL);
            else
                go_on = at_index(w, i - 1, NULL, json_array_get(s, i - 1), json_array_get(t, j - 1));
            i--;
            j--;
        } else if (i > 0 && j > 0 && D(i - 1, j - 1) == D(i, j)) {
            i--;
            j--;
        } else {
            break;
        }
    }
#undef D
    free(d);
    return go_on;
}

static bool arrays(struct walk *w, const json_t *a, const json_t *b)
{
    if (simple_array(a) && simple_array(b))
        return edit_distance(w, a, b);
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
    if (ta == 0)
        return emit(w, "add");
    if (ta != tb)
        return emit(w, "replace");
    switch (ta) {
    case 1:
    case 2:
    case 3:
        return deep_equal(a, b) || emit(w, "replace");
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
    json_t *empty = json_object();
    bool done = objects(&w, json_is_object(from) ? from : empty, json_is_object(to) ? to : empty);
    json_decref(empty);
    wh_buf_fini(&w.path);
    return done;
}
