/* Strategic merge patch: the functions follow strategicpatch's (mergeMap, mergeSlice, ...) so
 * that the order of their checks, and so their errors, are the library's. Both documents are
 * deep-copied first and then edited in place, as the library edits its decoded maps. */
#include "gocompat/smp.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/buf.h"
#include "util/json.h"
#include "util/jsoneq.h"
#include "util/mem.h"
#include "util/str.h"

#define DIRECTIVE "$patch"
#define RETAIN_KEYS "$retainKeys"
#define DELETE_PREFIX "$deleteFromPrimitiveList"
#define ORDER_PREFIX "$setElementOrder"

/* The library panics where Go compares two maps or two lists with ==; controller-runtime
 * recovers the panic and answers 500 with "panic: <the runtime error> [recovered]". Such an
 * error is told apart from the library's ordinary ones by this start of its message. */
#define PANIC_PREFIX "panic: "

/* ---- Go's view of decoded JSON ------------------------------------------------------------ */

/* The Go types encoding/json decodes JSON into (map[string]interface{} and friends). */
enum dyn { D_NIL, D_MAP, D_SLICE, D_STRING, D_FLOAT, D_BOOL };

static enum dyn dyn_of(const json_t *v)
{
    switch (v ? json_typeof(v) : JSON_NULL) {
    case JSON_OBJECT:
        return D_MAP;
    case JSON_ARRAY:
        return D_SLICE;
    case JSON_STRING:
        return D_STRING;
    case JSON_INTEGER:
    case JSON_REAL:
        return D_FLOAT;
    case JSON_TRUE:
    case JSON_FALSE:
        return D_BOOL;
    default:
        return D_NIL;
    }
}

/* reflect.TypeOf(v) as %s prints it (ErrBadArgType). */
static const char *type_string(const json_t *v)
{
    static const char *const names[] = {
        "%!s(<nil>)", "map[string]interface {}", "[]interface {}", "string", "float64", "bool"};
    return names[dyn_of(v)];
}

static double number(const json_t *v)
{
    return json_is_integer(v) ? (double)json_integer_value(v) : json_real_value(v);
}

/* Go's interface equality: the same dynamic type and value. Go panics on two maps or two
 * lists: find_by_key, where merge keys meet, says so; elsewhere they are never equal here. */
static bool go_equal(const json_t *a, const json_t *b)
{
    enum dyn da = dyn_of(a);
    if (da != dyn_of(b) || da == D_MAP || da == D_SLICE)
        return false;
    if (da == D_NIL)
        return true;
    /* integers and reals are all float64 to Go */
    return wh_json_equal(a, b, WH_JSON_EQ_FLOAT64);
}

/* Message text; a full buffer only cuts the message short. */
static void msg_add(struct wh_buf *b, const char *s, size_t n)
{
    if (wh_buf_add(b, s, n) != WH_OK)
        return;
}

static void msg_adds(struct wh_buf *b, const char *s)
{
    msg_add(b, s, strlen(s));
}

/* fmt's %v of a float64: the shortest digits, in %e form when the exponent is below -4 or at
 * least 6 (strconv's rule for the shortest %g). */
static void put_float(struct wh_buf *b, double d)
{
    char s[48];
    int prec = 1;
    for (; prec <= 17; prec++) {
        snprintf(s, sizeof(s), "%.*e", prec - 1, d);
        if (strtod(s, NULL) == d)
            break;
    }
    const char *e = strchr(s, 'e');
    long exp = e ? strtol(e + 1, NULL, 10) : 0;
    if (exp >= -4 && exp < 6)
        snprintf(s, sizeof(s), "%.*f", (int)(prec - 1 - exp > 0 ? prec - 1 - exp : 0), d);
    msg_adds(b, s); /* C prints %e as Go does: "d.ddde+XX" */
}

/* fmt's %v of a decoded JSON value: map[k:v ...] with sorted keys, [a b], <nil>. */
static void put_value(struct wh_buf *b, const json_t *v);

static void put_value(struct wh_buf *b, const json_t *v)
{
    switch (dyn_of(v)) {
    case D_NIL:
        msg_adds(b, "<nil>");
        return;
    case D_STRING:
        msg_add(b, json_string_value(v), json_string_length(v));
        return;
    case D_FLOAT:
        put_float(b, number(v));
        return;
    case D_BOOL:
        msg_adds(b, json_is_true(v) ? "true" : "false");
        return;
    case D_SLICE: {
        msg_add(b, "[", 1);
        for (size_t i = 0; i < json_array_size(v); i++) {
            if (i)
                msg_add(b, " ", 1);
            put_value(b, json_array_get(v, i));
        }
        msg_add(b, "]", 1);
        return;
    }
    case D_MAP: {
        size_t n;
        const char **keys = wh_json_sorted_keys(v, &n);
        msg_adds(b, "map[");
        for (size_t k = 0; k < n; k++) {
            if (k)
                msg_add(b, " ", 1);
            msg_adds(b, keys[k]);
            msg_add(b, ":", 1);
            put_value(b, json_object_get(v, keys[k]));
        }
        msg_add(b, "]", 1);
        free(keys);
        return;
    }
    }
}

/* Error messages quote whole maps; the buffer keeps what fits the errbuf anyway. */
#define MSG_CAP 4096

/* mergepatch.ErrNoMergeKey */
static enum wh_err no_merge_key(struct wh_errbuf *eb, const json_t *m, const char *key)
{
    struct wh_buf b;
    wh_buf_init(&b, MSG_CAP);
    put_value(&b, m);
    enum wh_err rc =
        wh_errbuf_set(eb, WH_ERR_INVALID, "map: %s does not contain declared merge key: %s",
                      b.data ? b.data : "", key);
    wh_buf_fini(&b);
    return rc;
}

/* mergepatch.ErrBadPatchType: t printed with %s. */
static enum wh_err bad_patch_type(struct wh_errbuf *eb, const json_t *t, const json_t *m)
{
    struct wh_buf tb, mb;
    wh_buf_init(&tb, MSG_CAP);
    wh_buf_init(&mb, MSG_CAP);
    if (json_is_string(t)) {
        put_value(&tb, t);
    } else if (dyn_of(t) == D_NIL) {
        msg_adds(&tb, "%!s(<nil>)");
    } else {
        msg_adds(&tb, "%!s(");
        msg_adds(&tb, type_string(t));
        msg_adds(&tb, "=");
        put_value(&tb, t);
        msg_add(&tb, ")", 1);
    }
    put_value(&mb, m);
    enum wh_err rc = wh_errbuf_set(eb, WH_ERR_INVALID, "unknown patch type: %s in map: %s",
                                   tb.data ? tb.data : "", mb.data ? mb.data : "");
    wh_buf_fini(&tb);
    wh_buf_fini(&mb);
    return rc;
}

/* mergepatch.ErrBadArgType */
static enum wh_err bad_arg_type(struct wh_errbuf *eb, const char *expected, const json_t *actual)
{
    return wh_errbuf_set(eb, WH_ERR_INVALID, "expected a %s, but received a %s", expected,
                         type_string(actual));
}

/* ---- the schema: patch metadata from the model ------------------------------------------ */

/* reflect's Kind of the model's type, as lookup errors print it. */
static const char *go_kind(const struct wh_gotype *t)
{
    switch (wh_gotype_kind(t)) {
    case WH_GK_STRING:
        return "string";
    case WH_GK_BOOL:
        return "bool";
    case WH_GK_INT32:
        return "int32";
    case WH_GK_INT64:
        return "int64";
    case WH_GK_BYTES:
    case WH_GK_SLICE:
        return "slice";
    case WH_GK_MAP:
        return "map";
    default: /* quantities, times, raw JSON are structs in Go */
        return "struct";
    }
}

static bool struct_kind(const struct wh_gotype *t)
{
    return strcmp(go_kind(t), "struct") == 0;
}

/* Go's Type.Name(): the type's name without its package. */
static const char *short_name(const struct wh_gotype *t)
{
    const char *n = wh_gotype_name(t), *dot = strrchr(n, '.');
    return dot ? dot + 1 : n;
}

struct meta {
    const struct wh_gotype *sub; /* the field's type (for a list: the element's) */
    enum wh_gopatch strategy;
    const char *merge_key; /* "" when none */
};

/* forkedjson.LookupPatchMetadataForStruct: the field of t named key (exactly, else ignoring
 * case, as encoding/json matches). */
static enum wh_err lookup_struct(const struct wh_gotype *t, const char *key, struct meta *m,
                                 struct wh_errbuf *eb)
{
    if (!struct_kind(t))
        return wh_errbuf_set(eb, WH_ERR_INVALID,
                             "merging an object in json but data type is not struct, instead "
                             "is: %s",
                             go_kind(t));
    const struct wh_gofield *f = wh_gotype_member(t, key);
    for (size_t i = 0; !f && i < wh_gotype_nfields(t); i++)
        if (strcasecmp(wh_gotype_field(t, i)->name, key) == 0)
            f = wh_gotype_field(t, i);
    if (!f)
        return wh_errbuf_set(eb, WH_ERR_INVALID,
                             "unable to find api field in struct %s for the json field \"%s\"",
                             short_name(t), key);
    m->sub = f->type;
    m->strategy = f->patch;
    m->merge_key = f->merge_key ? f->merge_key : "";
    return WH_OK;
}

/* PatchMetaFromStruct.LookupPatchMetadataForSlice: the same, for a list field, with the
 * element's type. */
static enum wh_err lookup_slice(const struct wh_gotype *t, const char *key, struct meta *m,
                                struct wh_errbuf *eb)
{
    enum wh_err rc = lookup_struct(t, key, m, eb);
    if (rc)
        return rc;
    enum wh_gokind k = wh_gotype_kind(m->sub);
    if (k != WH_GK_SLICE && k != WH_GK_BYTES)
        return wh_errbuf_set(eb, WH_ERR_INVALID, "expected slice or array type, but got: %s",
                             go_kind(t));
    const struct wh_gotype *elem = wh_gotype_elem(m->sub);
    if (elem && wh_gotype_kind(elem) == WH_GK_SLICE)
        return wh_errbuf_set(eb, WH_ERR_INVALID, "unexpected slice of slice");
    m->sub = elem ? elem : m->sub;
    return WH_OK;
}

/* ---- helpers of the library -------------------------------------------------------------- */

static void put(json_t *obj, const char *key, json_t *v)
{
    if (!v || json_object_set_new(obj, key, v))
        WH_PANIC("json_object_set_new failed");
}

static void append(json_t *list, json_t *v)
{
    if (!v || json_array_append_new(list, v))
        WH_PANIC("json_array_append_new failed");
}

/* The members of obj, for loops that change obj. Returns: new list of new strings. */
static char **keys_of(const json_t *obj, size_t *n)
{
    *n = json_object_size(obj);
    char **keys = wh_xcalloc(*n ? *n : 1, sizeof(*keys));
    size_t k = 0;
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)(uintptr_t)obj, key, v) keys[k++] = wh_xstrdup(key);
    return keys;
}

static void free_keys(char **keys, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(keys[i]);
    free(keys);
}

/* removeDirectives: a map holding $patch goes away; lists and maps are cleaned below. Returns:
 * new ref, or NULL when v is to be dropped. */
static json_t *remove_directives(json_t *v)
{
    if (json_is_object(v)) {
        if (json_object_get(v, DIRECTIVE))
            return NULL;
        size_t n;
        char **keys = keys_of(v, &n);
        for (size_t i = 0; i < n; i++) {
            json_t *kept = remove_directives(json_object_get(v, keys[i]));
            if (kept)
                put(v, keys[i], kept);
            else
                json_object_del(v, keys[i]);
        }
        free_keys(keys, n);
        return json_incref(v);
    }
    if (json_is_array(v)) {
        json_t *res = json_array();
        for (size_t i = 0; i < json_array_size(v); i++) {
            json_t *kept = remove_directives(json_array_get(v, i));
            if (kept)
                append(res, kept);
        }
        return res;
    }
    return json_incref(v);
}

/* discardNullValuesFromPatch */
static void discard_nulls(json_t *v)
{
    if (json_is_object(v)) {
        size_t n;
        char **keys = keys_of(v, &n);
        for (size_t i = 0; i < n; i++) {
            json_t *m = json_object_get(v, keys[i]);
            if (json_is_null(m))
                json_object_del(v, keys[i]);
            else
                discard_nulls(m);
        }
        free_keys(keys, n);
    } else if (json_is_array(v)) {
        for (size_t i = 0; i < json_array_size(v); i++)
            discard_nulls(json_array_get(v, i));
    }
}

/* findMapInSliceBasedOnKeyValue: the index of the first map of list whose key equals value,
 * -1 when none; -2 (an error in eb) when an element is not a map, or when Go's == panics: two
 * merge keys that are both maps or both lists (PANIC_PREFIX). */
static long find_by_key(const json_t *list, const char *key, const json_t *value,
                        struct wh_errbuf *eb)
{
    for (size_t i = 0; i < json_array_size(list); i++) {
        const json_t *e = json_array_get(list, i);
        if (!json_is_object(e)) {
            wh_errbuf_set(eb, WH_ERR_INVALID, "value for key %zu is not a map", i);
            return -2;
        }
        const json_t *v = json_object_get(e, key);
        enum dyn dv = dyn_of(v);
        if (v && (dv == D_MAP || dv == D_SLICE) && dv == dyn_of(value)) {
            wh_errbuf_set(eb, WH_ERR_INTERNAL,
                          PANIC_PREFIX "runtime error: comparing uncomparable type %s [recovered]",
                          dv == D_MAP ? "map[string]interface {}" : "[]interface {}");
            return -2;
        }
        if (v && go_equal(v, value))
            return (long)i;
    }
    return -1;
}

/* index(): where item (by its merge key, or itself) stands in order; -1 when absent. */
static long index_of(const json_t *order, const json_t *item, const char *merge_key, bool maps)
{
    const json_t *want =
        maps ? (json_is_object(item) ? json_object_get(item, merge_key) : NULL) : item;
    for (size_t i = 0; i < json_array_size(order); i++) {
        const json_t *e = json_array_get(order, i);
        const json_t *got = maps ? (json_is_object(e) ? json_object_get(e, merge_key) : NULL) : e;
        if (go_equal(want, got))
            return (long)i;
    }
    return -1;
}

/* sliceElementType: the one Go type of the elements of a and b. Returns D_NIL with an error. */
static enum dyn element_type(const json_t *a, const json_t *b, struct wh_errbuf *eb)
{
    const json_t *lists[2] = {a, b};
    bool seen = false;
    enum dyn prev = D_NIL;
    for (int l = 0; l < 2; l++) {
        for (size_t i = 0; i < json_array_size(lists[l]); i++) {
            enum dyn cur = dyn_of(json_array_get(lists[l], i));
            if (!seen) {
                seen = true;
                prev = cur;
                if (prev == D_SLICE) {
                    wh_errbuf_set(eb, WH_ERR_INVALID, "lists of lists are not supported");
                    return D_NIL;
                }
            } else if (prev != cur) {
                struct wh_buf buf;
                wh_buf_init(&buf, MSG_CAP);
                json_t *both = json_pack("[O,O]", a, b);
                put_value(&buf, both);
                json_decref(both);
                wh_errbuf_set(eb, WH_ERR_INVALID, "list element types are not identical: %s",
                              buf.data ? buf.data : "");
                wh_buf_fini(&buf);
                return D_NIL;
            }
        }
    }
    if (!seen)
        wh_errbuf_set(eb, WH_ERR_INVALID, "no elements in any of the given slices");
    /* a list of nulls: Go would fail on the nil type; refuse it too */
    if (seen && prev == D_NIL)
        wh_errbuf_set(eb, WH_ERR_INVALID, "list element types are not identical");
    return prev;
}

/* validateMergeKeyInLists */
static enum wh_err merge_keys_present(const char *merge_key, const json_t *list,
                                      struct wh_errbuf *eb)
{
    for (size_t i = 0; i < json_array_size(list); i++) {
        const json_t *m = json_array_get(list, i);
        if (!json_is_object(m))
            return bad_arg_type(eb, "map[string]interface {}", m);
        if (!json_object_get(m, merge_key))
            return no_merge_key(eb, m, merge_key);
    }
    return WH_OK;
}

/* normalizeSliceOrder: to_sort (stolen) ordered by where its items stand in order (a stable
 * sort), the items marked $patch: delete moved to the end. Returns: new ref, or NULL (eb). */
static json_t *sort_by_order(json_t *to_sort, const json_t *order, const char *merge_key, bool maps,
                             struct wh_errbuf *eb)
{
    json_t *kept = json_array(), *deleted = json_array();
    if (maps &&
        (merge_keys_present(merge_key, to_sort, eb) || merge_keys_present(merge_key, order, eb))) {
        json_decref(to_sort);
        json_decref(kept);
        json_decref(deleted);
        return NULL;
    }
    for (size_t i = 0; i < json_array_size(to_sort); i++) {
        json_t *e = json_array_get(to_sort, i);
        bool del = maps && json_is_object(e) &&
                   wh_str_eq(json_string_value(json_object_get(e, DIRECTIVE)), "delete");
        append(del ? deleted : kept, json_incref(e));
    }
    json_decref(to_sort);
    /* insertion sort: stable, and the lists are short */
    size_t n = json_array_size(kept);
    for (size_t i = 1; i < n; i++) {
        json_t *x = json_incref(json_array_get(kept, i));
        long xi = index_of(order, x, merge_key, maps);
        size_t j = i;
        while (j > 0) {
            long yi = index_of(order, json_array_get(kept, j - 1), merge_key, maps);
            if (xi < 0 || yi < 0 || yi <= xi)
                break;
            json_array_set(kept, j, json_array_get(kept, j - 1));
            j--;
        }
        json_array_set_new(kept, j, x);
    }
    json_array_extend(kept, deleted);
    json_decref(deleted);
    return kept;
}

/* mergeSortedSlice: the server-only items (left) put between the patch items (right) where
 * they stood in server_order. Returns: new ref. */
static json_t *merge_sorted(const json_t *left, const json_t *right, const json_t *server_order,
                            const char *merge_key, bool maps)
{
    json_t *out = json_array();
    size_t i = 0, j = 0, nl = json_array_size(left), nr = json_array_size(right);
    while (i < nl || j < nr) {
        if (i >= nl) {
            append(out, json_incref(json_array_get(right, j++)));
        } else if (j >= nr) {
            append(out, json_incref(json_array_get(left, i++)));
        } else {
            long li = index_of(server_order, json_array_get(left, i), merge_key, maps);
            long ri = index_of(server_order, json_array_get(right, j), merge_key, maps);
            if (li >= 0 && ri >= 0 && li < ri)
                append(out, json_incref(json_array_get(left, i++)));
            else
                append(out, json_incref(json_array_get(right, j++)));
        }
    }
    return out;
}

/* partitionPrimitivesByPresentInList (no merge key) / partitionMapsByPresentInList: the items
 * of merged that are in by, and the others. */
static enum wh_err partition(const json_t *merged, const json_t *by, const char *merge_key,
                             json_t **in_by, json_t **others, struct wh_errbuf *eb)
{
    bool maps = merge_key && *merge_key;
    *in_by = json_array();
    *others = json_array();
    for (size_t i = 0; i < json_array_size(merged); i++) {
        json_t *v = json_array_get(merged, i);
        bool found;
        if (maps) {
            if (!json_is_object(v))
                return bad_arg_type(eb, "map[string]interface {}", v);
            const json_t *kv = json_object_get(v, merge_key);
            if (!kv)
                return no_merge_key(eb, v, merge_key);
            long at = find_by_key(by, merge_key, kv, eb);
            if (at == -2)
                return WH_ERR_INVALID;
            found = at >= 0;
        } else {
            found = index_of(by, v, NULL, false) >= 0;
        }
        append(found ? *in_by : *others, json_incref(v));
    }
    return WH_OK;
}

/* normalizeElementOrder: the patch items (stolen) in patch_order, the server-only items
 * (stolen) in server_order, then merged. Returns: new ref, or NULL (eb). */
static json_t *normalize_order(json_t *in_patch, json_t *server_only, const json_t *patch_order,
                               const json_t *server_order, const char *merge_key, bool maps,
                               struct wh_errbuf *eb)
{
    json_t *out = NULL;
    in_patch = sort_by_order(in_patch, patch_order, merge_key, maps, eb);
    if (!in_patch)
        goto out;
    server_only = sort_by_order(server_only, server_order, merge_key, maps, eb);
    if (!server_only)
        goto out;
    out = merge_sorted(server_only, in_patch, server_order, merge_key, maps);
out:
    json_decref(in_patch);
    json_decref(server_only);
    return out;
}

/* Both steps of mergeSlice's ending. Returns: new ref, or NULL (eb). */
static json_t *enforce_order(const json_t *merged, const json_t *patch_order,
                             const json_t *server_order, const char *merge_key, bool maps,
                             struct wh_errbuf *eb)
{
    json_t *in_patch = NULL, *server_only = NULL;
    if (partition(merged, patch_order, merge_key, &in_patch, &server_only, eb)) {
        json_decref(in_patch);
        json_decref(server_only);
        return NULL;
    }
    return normalize_order(in_patch, server_only, patch_order, server_order, merge_key, maps, eb);
}

/* ---- merging ----------------------------------------------------------------------------- */

static json_t *merge_map(json_t *original, json_t *patch, const struct wh_gotype *schema,
                         struct wh_errbuf *eb);

/* mergeSlice. Returns: new ref, or NULL (eb). */
static json_t *merge_slice(json_t *original, json_t *patch, const struct wh_gotype *schema,
                           const char *merge_key, bool delete_list, struct wh_errbuf *eb)
{
    if (json_array_size(original) == 0 && json_array_size(patch) == 0)
        return json_incref(original);
    struct wh_errbuf tmp = {{0}};
    enum dyn kind = element_type(original, patch, &tmp);
    if (tmp.msg[0]) {
        wh_errbuf_set(eb, WH_ERR_INVALID, "%s", tmp.msg);
        return NULL;
    }
    if (kind != D_MAP) {
        if (delete_list) { /* deleteFromSlice */
            json_t *out = json_array();
            for (size_t i = 0; i < json_array_size(original); i++)
                if (index_of(patch, json_array_get(original, i), NULL, false) < 0)
                    append(out, json_incref(json_array_get(original, i)));
            return out;
        }
        json_t *merged = json_array(); /* deduplicateScalars(append(original, patch)) */
        const json_t *parts[2] = {original, patch};
        for (int p = 0; p < 2; p++)
            for (size_t i = 0; i < json_array_size(parts[p]); i++) {
                json_t *e = json_array_get(parts[p], i);
                if (index_of(merged, e, NULL, false) < 0)
                    append(merged, json_incref(e));
            }
        json_t *out = enforce_order(merged, patch, original, merge_key, false, eb);
        json_decref(merged);
        return out;
    }
    if (!*merge_key) {
        wh_errbuf_set(eb, WH_ERR_INVALID, "cannot merge lists without merge key for %s",
                      go_kind(schema));
        return NULL;
    }
    /* mergeSliceWithSpecialElements: deletions from the server list, a replacement of it */
    json_t *base = json_copy(original), *items = json_array(), *merged = NULL, *out = NULL;
    bool replace = false;
    for (size_t i = 0; i < json_array_size(patch); i++) {
        json_t *e = json_array_get(patch, i);
        const json_t *d = json_object_get(e, DIRECTIVE);
        if (!d) {
            append(items, json_incref(e));
            continue;
        }
        const char *ds = json_string_value(d);
        if (wh_str_eq(ds, "delete")) {
            const json_t *kv = json_object_get(e, merge_key);
            if (!kv) {
                no_merge_key(eb, e, merge_key);
                goto out;
            }
            for (;;) {
                long at = find_by_key(base, merge_key, kv, eb);
                if (at == -2)
                    goto out;
                if (at < 0)
                    break;
                json_array_remove(base, (size_t)at);
            }
        } else if (wh_str_eq(ds, "replace")) {
            replace = true;
        } else if (wh_str_eq(ds, "merge")) {
            wh_errbuf_set(eb, WH_ERR_INVALID, "merging lists cannot yet be specified in the patch");
            goto out;
        } else {
            bad_patch_type(eb, d, e);
            goto out;
        }
    }
    if (replace) {
        json_decref(base);
        base = items;
        items = json_array();
    }
    /* mergeSliceWithoutSpecialElements: elements of the same key merged, the others appended */
    merged = json_copy(base);
    for (size_t i = 0; i < json_array_size(items); i++) {
        json_t *e = json_array_get(items, i);
        const json_t *kv = json_object_get(e, merge_key);
        if (!kv) {
            no_merge_key(eb, e, merge_key);
            goto out;
        }
        long at = find_by_key(merged, merge_key, kv, eb);
        if (at == -2)
            goto out;
        if (at < 0) {
            append(merged, json_incref(e));
            continue;
        }
        json_t *m = merge_map(json_array_get(merged, (size_t)at), e, schema, eb);
        if (!m)
            goto out;
        /* the library merges in the server list itself: its order sees the result */
        if ((size_t)at < json_array_size(base))
            json_array_set(base, (size_t)at, m);
        json_array_set_new(merged, (size_t)at, m);
    }
    out = enforce_order(merged, items, base, merge_key, true, eb);
out:
    json_decref(base);
    json_decref(items);
    json_decref(merged);
    return out;
}

/* mergeSliceHandler. Returns: new ref, or NULL (eb). */
static json_t *merge_slice_field(json_t *original, json_t *patch, const struct meta *m,
                                 bool delete_list, struct wh_errbuf *eb)
{
    if (m->strategy == WH_GOPATCH_MERGE || delete_list)
        return merge_slice(original, patch, m->sub, m->merge_key, delete_list, eb);
    return json_incref(patch);
}

/* mergeMapHandler. Returns: new ref, or NULL (eb). */
static json_t *merge_map_field(json_t *original, json_t *patch, const struct meta *m,
                               struct wh_errbuf *eb)
{
    if (m->strategy != WH_GOPATCH_REPLACE)
        return merge_map(original, patch, m->sub, eb);
    return json_incref(patch);
}

/* applyRetainKeysDirective */
static enum wh_err retain_keys(json_t *original, json_t *patch, struct wh_errbuf *eb)
{
    json_t *list = json_object_get(patch, RETAIN_KEYS);
    if (!list)
        return WH_OK;
    json_incref(list);
    json_object_del(patch, RETAIN_KEYS);
    enum wh_err rc = WH_OK;
    if (!json_is_array(list)) {
        rc = wh_errbuf_set(eb, WH_ERR_INVALID, "invalid patch format of retainKeys");
        goto out;
    }
    const char *key;
    json_t *v;
    json_object_foreach(patch, key, v)
    {
        if (json_is_null(v) || wh_str_has_prefix(key, DELETE_PREFIX) ||
            wh_str_has_prefix(key, ORDER_PREFIX))
            continue;
        json_t *k = json_string(key);
        bool listed = index_of(list, k, NULL, false) >= 0;
        json_decref(k);
        if (!listed) {
            rc = wh_errbuf_set(eb, WH_ERR_INVALID, "invalid patch format of retainKeys");
            goto out;
        }
    }
    size_t n;
    char **keys = keys_of(original, &n);
    for (size_t i = 0; i < n; i++) {
        json_t *k = json_string(keys[i]);
        if (index_of(list, k, NULL, false) < 0)
            json_object_del(original, keys[i]);
        json_decref(k);
    }
    free_keys(keys, n);
out:
    json_decref(list);
    return rc;
}

/* validatePatchWithSetOrderList: the patch's items appear in the order's relative order. */
static enum wh_err check_order(const json_t *plist, const json_t *order, const char *merge_key,
                               struct wh_errbuf *eb)
{
    if (!json_array_size(order) || !json_array_size(plist))
        return WH_OK;
    bool maps = *merge_key != '\0';
    for (size_t i = 0; maps && i < json_array_size(plist); i++)
        if (!json_is_object(json_array_get(plist, i)))
            return bad_arg_type(eb, "map[string]interface {}", json_array_get(plist, i));
    size_t pi = 0, oi = 0, np = json_array_size(plist), no = json_array_size(order);
    while (pi < np && oi < no) {
        const json_t *pe = json_array_get(plist, pi), *oe = json_array_get(order, oi);
        const json_t *d = json_is_object(pe) ? json_object_get(pe, DIRECTIVE) : NULL;
        if (d) { /* deletions are left out, other directives skipped */
            pi++;
            continue;
        }
        bool eq;
        if (!maps) {
            eq = go_equal(pe, oe);
        } else if (!json_is_object(oe)) {
            return bad_arg_type(eb, "map[string]interface {}", oe);
        } else {
            const json_t *a = json_object_get(pe, merge_key), *b = json_object_get(oe, merge_key);
            if (!a)
                return no_merge_key(eb, pe, merge_key);
            if (!b)
                return no_merge_key(eb, oe, merge_key);
            eq = go_equal(a, b);
        }
        if (eq)
            pi++;
        oi++;
    }
    if (pi < np && oi >= no) {
        struct wh_buf pb, ob;
        wh_buf_init(&pb, MSG_CAP);
        wh_buf_init(&ob, MSG_CAP);
        put_value(&pb, plist);
        put_value(&ob, order);
        wh_errbuf_set(eb, WH_ERR_INVALID,
                      "The order in patch list:\n%s\n doesn't match %s list:\n%s\n",
                      pb.data ? pb.data : "", ORDER_PREFIX, ob.data ? ob.data : "");
        wh_buf_fini(&pb);
        wh_buf_fini(&ob);
        return WH_ERR_INVALID;
    }
    return WH_OK;
}

/* One $setElementOrder/<field> directive: the field's list merged and put in that order. */
static enum wh_err set_order_of(json_t *original, json_t *patch, const char *field,
                                const json_t *order, const struct wh_gotype *schema,
                                struct wh_errbuf *eb)
{
    json_t *olist = json_object_get(original, field), *plist = json_object_get(patch, field);
    json_t *merged = NULL, *in_order = NULL, *others = NULL, *both = NULL;
    enum wh_err rc = WH_OK;
    struct meta m;
    if (!json_is_array(order))
        return bad_arg_type(eb, "[]interface {}", order);
    if (olist && !json_is_array(olist))
        return bad_arg_type(eb, "[]interface {}", olist);
    if (plist && !json_is_array(plist))
        return bad_arg_type(eb, "[]interface {}", plist);
    rc = lookup_slice(schema, field, &m, eb);
    if (!rc)
        rc = check_order(plist, order, m.merge_key, eb);
    if (rc)
        return rc;
    if (olist && !plist)
        merged = json_incref(olist);
    else if (plist && !olist)
        merged = remove_directives(plist);
    else if (olist && plist && !(merged = merge_slice_field(olist, plist, &m, false, eb)))
        return WH_ERR_INVALID;
    if (!merged)
        return WH_OK;
    rc = partition(merged, order, m.merge_key, &in_order, &others, eb);
    if (rc)
        goto out;
    struct wh_errbuf tmp = {{0}};
    json_t *none = json_array();
    enum dyn kind = element_type(olist ? olist : none, plist ? plist : none, &tmp);
    json_decref(none);
    if (tmp.msg[0]) {
        rc = wh_errbuf_set(eb, WH_ERR_INVALID, "%s", tmp.msg);
        goto out;
    }
    json_t *server = olist ? json_incref(olist) : json_array();
    both = normalize_order(in_order, others, order, server, m.merge_key, kind == D_MAP, eb);
    in_order = others = NULL;
    json_decref(server);
    if (!both) {
        rc = WH_ERR_INVALID;
        goto out;
    }
    put(original, field, both);
    json_object_del(patch, field);
out:
    json_decref(merged);
    json_decref(in_order);
    json_decref(others);
    return rc;
}

/* mergePatchIntoOriginal: the $setElementOrder/<field> directives, each taken out of the
 * patch with the list it orders. */
static enum wh_err set_element_order(json_t *original, json_t *patch,
                                     const struct wh_gotype *schema, struct wh_errbuf *eb)
{
    size_t n;
    char **keys = keys_of(patch, &n);
    enum wh_err rc = WH_OK;
    for (size_t i = 0; i < n && !rc; i++) {
        if (!wh_str_has_prefix(keys[i], ORDER_PREFIX))
            continue;
        json_t *order = json_incref(json_object_get(patch, keys[i]));
        json_object_del(patch, keys[i]);
        const char *slash = strchr(keys[i], '/');
        if (!json_is_array(order))
            rc = bad_arg_type(eb, "[]interface {}", order);
        else if (!slash || (size_t)(slash - keys[i]) != strlen(ORDER_PREFIX))
            rc = wh_errbuf_set(eb, WH_ERR_INVALID, "invalid patch format of setElementOrder list");
        else
            rc = set_order_of(original, patch, slash + 1, order, schema, eb);
        json_decref(order);
    }
    free_keys(keys, n);
    return rc;
}

/* mergeMap. original and patch are edited. Returns: new ref, or NULL (eb). */
static json_t *merge_map(json_t *original, json_t *patch, const struct wh_gotype *schema,
                         struct wh_errbuf *eb)
{
    const json_t *directive = json_object_get(patch, DIRECTIVE);
    if (directive) { /* handleDirectiveInMergeMap */
        if (wh_str_eq(json_string_value(directive), "replace")) {
            json_object_del(patch, DIRECTIVE);
            return json_incref(patch);
        }
        if (wh_str_eq(json_string_value(directive), "delete"))
            return json_object();
        bad_patch_type(eb, directive, patch);
        return NULL;
    }
    if (retain_keys(original, patch, eb) || set_element_order(original, patch, schema, eb))
        return NULL;
    size_t n;
    char **keys = keys_of(patch, &n);
    json_t *res = NULL;
    for (size_t i = 0; i < n; i++) {
        json_t *pv = json_object_get(patch, keys[i]);
        const char *k = keys[i];
        bool delete_list = false;
        if (wh_str_has_prefix(k, DELETE_PREFIX)) { /* preprocessDeletionListForMerging */
            const char *slash = strchr(k, '/');
            if (!slash || (size_t)(slash - k) != strlen(DELETE_PREFIX)) {
                wh_errbuf_set(eb, WH_ERR_INVALID, "invalid patch format of primitive list");
                goto out;
            }
            k = slash + 1;
            delete_list = true;
        }
        if (json_is_null(pv)) {
            json_object_del(original, k);
            continue;
        }
        json_t *ov = json_object_get(original, k);
        if (!ov || dyn_of(ov) != dyn_of(pv)) {
            if (delete_list)
                continue;
            discard_nulls(pv);
            json_t *kept = remove_directives(pv);
            if (kept)
                put(original, k, kept);
            else
                json_object_del(original, k);
            continue;
        }
        json_t *nv = NULL;
        struct meta m;
        if (json_is_object(ov)) {
            if (lookup_struct(schema, k, &m, eb))
                goto out;
            nv = merge_map_field(ov, pv, &m, eb);
        } else if (json_is_array(ov)) {
            if (lookup_slice(schema, k, &m, eb))
                goto out;
            nv = merge_slice_field(ov, pv, &m, delete_list, eb);
        } else {
            nv = remove_directives(pv);
            if (!nv) {
                json_object_del(original, k);
                continue;
            }
        }
        if (!nv)
            goto out;
        put(original, k, nv);
    }
    res = json_incref(original);
out:
    free_keys(keys, n);
    return res;
}

enum wh_err wh_smp_apply(const json_t *original, const json_t *patch, const struct wh_gotype *t,
                         json_t **out, struct wh_errbuf *eb)
{
    *out = NULL;
    if (!json_is_object(original) || !json_is_object(patch))
        return wh_errbuf_set(eb, WH_ERR_INVALID, "invalid JSON document");
    json_t *o = json_deep_copy(original), *p = json_deep_copy(patch);
    if (!o || !p)
        WH_PANIC("json_deep_copy failed");
    *out = merge_map(o, p, t, eb);
    json_decref(o);
    json_decref(p);
    if (*out)
        return WH_OK;
    return strncmp(eb->msg, PANIC_PREFIX, strlen(PANIC_PREFIX)) == 0 ? WH_ERR_INTERNAL
                                                                      : WH_ERR_INVALID;
}
