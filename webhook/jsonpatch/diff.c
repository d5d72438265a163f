#include "jsonpatch/diff.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "jsonpatch/pointer.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/json.h"
#include "util/jsoneq.h"
#include "util/mem.h"

/* The operations go to one of two sinks: JSON values (wh_patch_diff) or the text those values
 * serialise to, written straight into a buffer (wh_patch_diff_write: no value is built). */
struct diff {
    json_t *ops;        /* the values, or NULL */
    struct wh_buf *out; /* the text, or NULL */
    size_t count;       /* operations emitted */
    enum wh_err rc;     /* the text sink's first error */
    struct wh_buf path; /* pointer of the value being compared */
};

/* jansson's iterators take non-const pointers although they only read. */
static json_t *unconst(const json_t *v)
{
    return (json_t *)(uintptr_t)v;
}

/* Appends the operation as wh_json_write prints the object emit builds: op, path, value. */
static enum wh_err write_op(struct wh_buf *b, bool first, const char *op, const struct wh_buf *path,
                            const json_t *value)
{
    enum wh_err rc = wh_buf_adds(b, first ? "{\"op\":\"" : ",{\"op\":\"");
    if (!rc)
        rc = wh_buf_adds(b, op);
    if (!rc)
        rc = wh_buf_adds(b, "\",\"path\":");
    if (!rc)
        rc = wh_json_write_string(b, path->data ? path->data : "", path->len);
    if (!rc && value) {
        rc = wh_buf_adds(b, ",\"value\":");
        if (!rc)
            rc = wh_json_write(b, value);
    }
    return rc ? rc : wh_buf_addc(b, '}');
}

static void emit(struct diff *d, const char *op, const json_t *value)
{
    d->count++;
    if (d->out) {
        if (!d->rc)
            d->rc = write_op(d->out, d->count == 1, op, &d->path, value);
        return;
    }
    json_t *o = json_object();
    /* The path is made of keys jansson has already validated as UTF-8, escaped with ASCII and
     * joined with ASCII, so it is valid UTF-8 and the check can be skipped. */
    json_t *path = json_stringn_nocheck(d->path.data ? d->path.data : "", d->path.len);
    WH_ASSERT(o && path);
    WH_ASSERT(json_object_set_new(o, "op", json_string(op)) == 0);
    WH_ASSERT(json_object_set_new(o, "path", path) == 0);
    if (value) {
        WH_ASSERT(json_object_set_new(o, "value", wh_json_copy(value)) == 0);
    }
    WH_ASSERT(json_array_append_new(d->ops, o) == 0);
}

/* The path buffer has no practical cap: its length is bounded by the documents the caller
 * already holds, and wh_patch_diff has no way to fail. */
static void push_key(struct diff *d, const char *key, size_t len)
{
    enum wh_err rc = wh_pointer_append(&d->path, key, len);
    if (rc)
        WH_PANIC("JSON pointer too long: %s", wh_strerror(rc));
}

static void push_index(struct diff *d, size_t idx)
{
    enum wh_err rc = wh_pointer_append_index(&d->path, idx);
    if (rc)
        WH_PANIC("JSON pointer too long: %s", wh_strerror(rc));
}

static void diff_value(struct diff *d, const json_t *a, const json_t *b);

static void diff_object(struct diff *d, const json_t *a, const json_t *b)
{
    size_t base = d->path.len;
    const char *key;
    size_t klen;
    json_t *av, *bv;

    json_object_keylen_foreach(unconst(a), key, klen, av)
    {
        if (json_object_getn(b, key, klen))
            continue;
        push_key(d, key, klen);
        emit(d, "remove", NULL);
        wh_pointer_truncate(&d->path, base);
    }
    json_object_keylen_foreach(unconst(b), key, klen, bv)
    {
        av = json_object_getn(a, key, klen);
        push_key(d, key, klen);
        if (!av)
            emit(d, "add", bv);
        else
            diff_value(d, av, bv);
        wh_pointer_truncate(&d->path, base);
    }
}

/* --- array identities ------------------------------------------------------------------- */

/* A 64-bit hash that respects wh_json_equal(WH_JSON_EQ_EXACT): equal values hash equally (object members are
 * combined with a sum so that key order does not matter). Collisions only make a patch less
 * tidy, never wrong: paired elements are always diffed in full. */
static uint64_t mix(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

static uint64_t hash_bytes(const char *s, size_t len, uint64_t seed)
{
    uint64_t h = 0xcbf29ce484222325ULL ^ seed;
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)s[i];
        h *= 0x100000001b3ULL;
    }
    return mix(h ^ len);
}

static uint64_t hash_value(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: {
        uint64_t h = 0;
        const char *key;
        size_t klen;
        json_t *m;
        json_object_keylen_foreach(unconst(v), key, klen, m)
        {
            h += mix(hash_bytes(key, klen, 1) ^ (hash_value(m) * 0x9e3779b97f4a7c15ULL));
        }
        return mix(h ^ 0x0b1ec7ULL);
    }
    case JSON_ARRAY: {
        uint64_t h = 0xa77a1ULL;
        size_t i;
        json_t *e;
        json_array_foreach(v, i, e)
        {
            h = mix(h ^ hash_value(e)) + i;
        }
        return h;
    }
    case JSON_STRING:
        return hash_bytes(json_string_value(v), json_string_length(v), 2);
    case JSON_INTEGER:
        return mix((uint64_t)json_integer_value(v) ^ 0x1417ULL);
    case JSON_REAL: {
        double r = json_real_value(v);
        uint64_t bits;
        if (r == 0)
            r = 0; /* -0.0 == 0.0 for wh_json_equal */
        memcpy(&bits, &r, sizeof(bits));
        return mix(bits ^ 0x4ea1ULL);
    }
    case JSON_TRUE:
        return 0x7a0e1ULL;
    case JSON_FALSE:
        return 0xfa15eULL;
    case JSON_NULL:
        break;
    }
    return 0x9a11ULL;
}

/* Kubernetes keys most lists of objects by "name" (containers, env, volumes, ports): such
 * elements keep their identity while other members change, so a changed container is diffed
 * in place instead of being removed and added again. */
static uint64_t identity(const json_t *v, bool *named)
{
    const json_t *name = json_is_object(v) ? json_object_get(v, "name") : NULL;
    uint64_t h;
    *named = json_is_string(name);
    if (*named)
        h = hash_bytes(json_string_value(name), json_string_length(name), 3);
    else
        h = hash_value(v);
    return h ? h : 1; /* 0 marks a free slot */
}

struct idtab {
    size_t mask;
    uint64_t *key;
    size_t *left_a; /* occurrences not yet consumed in the old middle */
    size_t *left_b; /* ... and in the new one */
};

static void idtab_init(struct idtab *t, size_t n)
{
    size_t cap = 16;
    while (cap < 2 * n)
        cap *= 2;
    t->mask = cap - 1;
    t->key = wh_xcalloc(cap, sizeof(*t->key));
    t->left_a = wh_xcalloc(cap, sizeof(*t->left_a));
    t->left_b = wh_xcalloc(cap, sizeof(*t->left_b));
}

static void idtab_fini(struct idtab *t)
{
    free(t->key);
    free(t->left_a);
    free(t->left_b);
}

static size_t idtab_slot(const struct idtab *t, uint64_t k)
{
    size_t i = (size_t)mix(k) & t->mask;
    while (t->key[i] && t->key[i] != k)
        i = (i + 1) & t->mask;
    return i;
}

struct elem {
    uint64_t id;
    size_t slot;
    bool named;
};

/* The old middle a[p, p+na) is turned into the new middle b[p, p+nb). Both are walked once,
 * keeping the array being patched in mind: it is b[0, p+j) followed by a[p+i, ...), so the
 * element a[p+i] sits at index p+j. At each step the two current elements are paired (and
 * diffed) when they share an identity, or when neither is wanted later on the other side
 * (an element changed in place); otherwise the old one is removed if nothing later wants it,
 * or the new one inserted if nothing later provides it. */
static void diff_middle(struct diff *d, const json_t *a, const json_t *b, size_t p, size_t na,
                        size_t nb)
{
    size_t base = d->path.len;
    struct idtab t;
    struct elem *ea = wh_xmalloc(na * sizeof(*ea));
    struct elem *eb = wh_xmalloc(nb * sizeof(*eb));
    idtab_init(&t, na + nb);
    for (size_t i = 0; i < na; i++) {
        ea[i].id = identity(json_array_get(a, p + i), &ea[i].named);
        ea[i].slot = idtab_slot(&t, ea[i].id);
        t.key[ea[i].slot] = ea[i].id;
        t.left_a[ea[i].slot]++;
    }
    for (size_t j = 0; j < nb; j++) {
        eb[j].id = identity(json_array_get(b, p + j), &eb[j].named);
        eb[j].slot = idtab_slot(&t, eb[j].id);
        t.key[eb[j].slot] = eb[j].id;
        t.left_b[eb[j].slot]++;
    }

    size_t i = 0, j = 0;
    while (i < na && j < nb) {
        const struct elem *x = &ea[i], *y = &eb[j];
        bool pair = x->id == y->id;
        bool x_wanted = t.left_b[x->slot] > 0;
        bool y_offered = t.left_a[y->slot] > 0;
        if (!pair && !x_wanted && !y_offered)
            pair = !(x->named && y->named); /* two different names are two elements */
        push_index(d, p + j);
        if (pair) {
            diff_value(d, json_array_get(a, p + i), json_array_get(b, p + j));
            t.left_a[x->slot]--;
            t.left_b[y->slot]--;
            i++;
            j++;
        } else if (!x_wanted || y_offered) {
            /* y_offered with x_wanted is a reordering: give up on the old element here, its
             * identity will be inserted again where the new array wants it. */
            emit(d, "remove", NULL);
            t.left_a[x->slot]--;
            i++;
        } else {
            emit(d, "add", json_array_get(b, p + j));
            t.left_b[y->slot]--;
            j++;
        }
        wh_pointer_truncate(&d->path, base);
    }
    /* Trailing removals go from the highest index down so that each pointer stays valid. */
    for (size_t k = na - i; k > 0; k--) {
        push_index(d, p + j + k - 1);
        emit(d, "remove", NULL);
        wh_pointer_truncate(&d->path, base);
    }
    for (; j < nb; j++) {
        push_index(d, p + j);
        emit(d, "add", json_array_get(b, p + j));
        wh_pointer_truncate(&d->path, base);
    }
    idtab_fini(&t);
    free(ea);
    free(eb);
}

static void diff_array(struct diff *d, const json_t *a, const json_t *b)
{
    size_t base = d->path.len;
    size_t na = json_array_size(a), nb = json_array_size(b);
    size_t min = na < nb ? na : nb;
    size_t pre = 0, suf = 0;
    while (pre < min && wh_json_equal(json_array_get(a, pre), json_array_get(b, pre), WH_JSON_EQ_EXACT))
        pre++;
    while (suf < min - pre &&
           wh_json_equal(json_array_get(a, na - 1 - suf), json_array_get(b, nb - 1 - suf),
                         WH_JSON_EQ_EXACT))
        suf++;
    na -= pre + suf;
    nb -= pre + suf;

    if (na == 0) {
        for (size_t j = 0; j < nb; j++) {
            push_index(d, pre + j);
            emit(d, "add", json_array_get(b, pre + j));
            wh_pointer_truncate(&d->path, base);
        }
    } else if (nb == 0) {
        for (size_t i = na; i > 0; i--) {
            push_index(d, pre + i - 1);
            emit(d, "remove", NULL);
            wh_pointer_truncate(&d->path, base);
        }
    } else {
        diff_middle(d, a, b, pre, na, nb);
    }
}

static void diff_value(struct diff *d, const json_t *a, const json_t *b)
{
    if (a == b) {
        /* Copy-on-write edits share every unchanged subtree with the original. */
        return;
    }
    if (json_typeof(a) != json_typeof(b)) {
        emit(d, "replace", b);
    } else if (json_is_object(a)) {
        diff_object(d, a, b);
    } else if (json_is_array(a)) {
        diff_array(d, a, b);
    } else if (!wh_json_equal(a, b, WH_JSON_EQ_EXACT)) {
        emit(d, "replace", b);
    }
}

json_t *wh_patch_diff(const json_t *from, const json_t *to)
{
    struct diff d = {.ops = json_array()};
    WH_ASSERT(d.ops && from && to);
    wh_buf_init(&d.path, SIZE_MAX / 4);
    diff_value(&d, from, to);
    wh_buf_fini(&d.path);
    return d.ops;
}

enum wh_err wh_patch_diff_write(struct wh_buf *out, const json_t *from, const json_t *to,
                                size_t *count)
{
    WH_ASSERT(from && to);
    size_t start = out->len;
    struct diff d = {.out = out};
    wh_buf_init(&d.path, SIZE_MAX / 4);
    d.rc = wh_buf_addc(out, '[');
    if (!d.rc)
        diff_value(&d, from, to);
    if (!d.rc)
        d.rc = wh_buf_addc(out, ']');
    wh_buf_fini(&d.path);
    if (d.rc) {
        out->len = start;
        if (out->data)
            out->data[start] = '\0';
        d.count = 0;
    }
    if (count)
        *count = d.count;
    return d.rc;
}
