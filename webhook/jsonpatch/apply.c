#include "jsonpatch/apply.h"

#include <stdbool.h>
#include <string.h>

#include "jsonpatch/pointer.h"
#include "util/json.h"
#include "util/jsoneq.h"

/* How much of a pointer an error message quotes. */
#define QUOTE_MAX 96

/* The container that the last token of p points into, for add, remove and replace. */
static enum wh_err parent_of(json_t *root, const struct wh_pointer *p, json_t **out,
                             struct wh_errbuf *eb)
{
    json_t *parent = NULL;
    enum wh_err rc = wh_pointer_walk(root, p, p->ntok - 1, &parent, eb);
    if (rc)
        return WH_ERR_INVALID;
    if (!json_is_object(parent) && !json_is_array(parent))
        return wh_errbuf_set(eb, WH_ERR_INVALID, "parent is a %s", wh_json_type_name(parent));
    *out = parent;
    return WH_OK;
}

/* Steals: value (also on error). */
static enum wh_err do_add(json_t **root, const struct wh_pointer *p, json_t *value,
                          struct wh_errbuf *eb)
{
    json_t *parent;
    size_t idx;
    enum wh_err rc;
    if (p->ntok == 0) {
        json_decref(*root);
        *root = value;
        return WH_OK;
    }
    rc = parent_of(*root, p, &parent, eb);
    if (rc)
        goto out;
    const struct wh_pointer_tok *t = &p->tok[p->ntok - 1];
    if (json_is_object(parent)) {
        if (json_object_setn_new(parent, t->s, t->len, value) != 0)
            rc = wh_errbuf_set(eb, WH_ERR_INVALID, "cannot set the member");
        return rc;
    }
    if (t->len == 1 && t->s[0] == '-') {
        idx = json_array_size(parent);
    } else if (!wh_pointer_index(t->s, t->len, &idx)) {
        rc = wh_errbuf_set(eb, WH_ERR_INVALID, "not an array index");
        goto out;
    } else if (idx > json_array_size(parent)) {
        rc = wh_errbuf_set(eb, WH_ERR_INVALID, "index %zu is past the end (size %zu)", idx,
                           json_array_size(parent));
        goto out;
    }
    WH_ASSERT(json_array_insert_new(parent, idx, value) == 0);
    return WH_OK;
out:
    json_decref(value);
    return rc;
}

/* Removes the target of p. Returns: new ref to the removed value in *taken when taken is
 * not NULL. */
static enum wh_err do_remove(json_t *root, const struct wh_pointer *p, json_t **taken,
                             struct wh_errbuf *eb)
{
    json_t *parent, *v;
    size_t idx;
    if (p->ntok == 0)
        return wh_errbuf_set(eb, WH_ERR_INVALID, "cannot remove the whole document");
    enum wh_err rc = parent_of(root, p, &parent, eb);
    if (rc)
        return rc;
    const struct wh_pointer_tok *t = &p->tok[p->ntok - 1];
    if (json_is_object(parent)) {
        v = json_object_getn(parent, t->s, t->len);
        if (!v)
            return wh_errbuf_set(eb, WH_ERR_INVALID, "no such member");
        if (taken)
            *taken = json_incref(v);
        WH_ASSERT(json_object_deln(parent, t->s, t->len) == 0);
        return WH_OK;
    }
    if (!wh_pointer_index(t->s, t->len, &idx))
        return wh_errbuf_set(eb, WH_ERR_INVALID, "not an array index");
    if (idx >= json_array_size(parent))
        return wh_errbuf_set(eb, WH_ERR_INVALID, "index %zu out of range (size %zu)", idx,
                             json_array_size(parent));
    if (taken)
        *taken = json_incref(json_array_get(parent, idx));
    WH_ASSERT(json_array_remove(parent, idx) == 0);
    return WH_OK;
}

/* Steals: value (also on error). */
static enum wh_err do_replace(json_t **root, const struct wh_pointer *p, json_t *value,
                              struct wh_errbuf *eb)
{
    json_t *parent;
    size_t idx;
    enum wh_err rc;
    if (p->ntok == 0) {
        json_decref(*root);
        *root = value;
        return WH_OK;
    }
    rc = parent_of(*root, p, &parent, eb);
    if (rc)
        goto out;
    const struct wh_pointer_tok *t = &p->tok[p->ntok - 1];
    if (json_is_object(parent)) {
        if (!json_object_getn(parent, t->s, t->len)) {
            rc = wh_errbuf_set(eb, WH_ERR_INVALID, "no such member");
            goto out;
        }
        WH_ASSERT(json_object_setn_new(parent, t->s, t->len, value) == 0);
        return WH_OK;
    }
    if (!wh_pointer_index(t->s, t->len, &idx)) {
        rc = wh_errbuf_set(eb, WH_ERR_INVALID, "not an array index");
        goto out;
    }
    if (idx >= json_array_size(parent)) {
        rc = wh_errbuf_set(eb, WH_ERR_INVALID, "index %zu out of range (size %zu)", idx,
                           json_array_size(parent));
        goto out;
    }
    WH_ASSERT(json_array_set_new(parent, idx, value) == 0);
    return WH_OK;
out:
    json_decref(value);
    return rc;
}

static bool same_pointer(const struct wh_pointer *a, const struct wh_pointer *b)
{
    if (a->ntok != b->ntok)
        return false;
    for (size_t i = 0; i < a->ntok; i++) {
        if (a->tok[i].len != b->tok[i].len || memcmp(a->tok[i].s, b->tok[i].s, a->tok[i].len) != 0)
            return false;
    }
    return true;
}

/* A string member of an operation, with its length (pointers may contain NULs). */
static bool op_string(const json_t *op, const char *key, const char **s, size_t *len)
{
    const json_t *v = json_object_get(op, key);
    if (!json_is_string(v))
        return false;
    *s = json_string_value(v);
    *len = json_string_length(v);
    return true;
}

static bool name_is(const char *name, size_t nlen, const char *want)
{
    return nlen == strlen(want) && memcmp(name, want, nlen) == 0;
}

static int quote_len(const char *s, size_t len)
{
    const char *nul = memchr(s, '\0', len);
    if (nul)
        len = (size_t)(nul - s);
    return (int)(len > QUOTE_MAX ? QUOTE_MAX : len);
}

static enum wh_err apply_one(json_t **root, const json_t *op, size_t index, struct wh_errbuf *eb)
{
    struct wh_pointer path = {0}, from = {0};
    struct wh_errbuf inner = {{0}};
    const char *name = "?", *ps = "", *fs = "";
    size_t nlen = 1, plen = 0, flen = 0;
    const char *which = "path";
    json_t *v = NULL;
    const json_t *value;
    enum wh_err rc = WH_OK;

    if (!json_is_object(op))
        return wh_errbuf_set(eb, WH_ERR_INVALID, "op %zu: not an object", index);
    if (!op_string(op, "op", &name, &nlen))
        return wh_errbuf_set(eb, WH_ERR_INVALID, "op %zu: \"op\" missing or not a string", index);
    if (!op_string(op, "path", &ps, &plen))
        return wh_errbuf_set(eb, WH_ERR_INVALID, "op %zu (%.*s): \"path\" missing or not a string",
                             index, quote_len(name, nlen), name);
    rc = wh_pointer_parse(ps, plen, &path, &inner);
    if (rc)
        goto out;
    value = json_object_get(op, "value");

    if (name_is(name, nlen, "add") || name_is(name, nlen, "replace") ||
        name_is(name, nlen, "test")) {
        if (!value) {
            rc = wh_errbuf_set(&inner, WH_ERR_INVALID, "\"value\" missing");
            goto out;
        }
        if (name_is(name, nlen, "test")) {
            rc = wh_pointer_walk(*root, &path, path.ntok, &v, &inner);
            if (rc)
                goto out;
            /* RFC 6902 section 4.6: numbers are equal when their values are */
            if (!wh_json_equal(v, value, WH_JSON_EQ_NUMBERS))
                rc = wh_errbuf_set(&inner, WH_ERR_INVALID, "test failed: values differ");
            v = NULL; /* borrowed */
            goto out;
        }
        v = wh_json_copy(value);
        if (name_is(name, nlen, "add"))
            rc = do_add(root, &path, v, &inner);
        else
            rc = do_replace(root, &path, v, &inner);
        v = NULL; /* stolen */
    } else if (name_is(name, nlen, "remove")) {
        rc = do_remove(*root, &path, NULL, &inner);
    } else if (name_is(name, nlen, "move") || name_is(name, nlen, "copy")) {
        which = "from";
        if (!op_string(op, "from", &fs, &flen)) {
            rc = wh_errbuf_set(&inner, WH_ERR_INVALID, "\"from\" missing or not a string");
            goto out;
        }
        rc = wh_pointer_parse(fs, flen, &from, &inner);
        if (rc)
            goto out;
        if (name_is(name, nlen, "copy")) {
            rc = wh_pointer_walk(*root, &from, from.ntok, &v, &inner);
            if (rc)
                goto out;
            v = wh_json_copy(v);
        } else {
            if (wh_pointer_is_proper_prefix(&from, &path)) {
                which = "path";
                rc = wh_errbuf_set(&inner, WH_ERR_INVALID, "cannot move a value into itself");
                goto out;
            }
            if (same_pointer(&from, &path)) {
                rc = wh_pointer_walk(*root, &from, from.ntok, &v, &inner);
                v = NULL; /* borrowed; moving onto itself changes nothing */
                goto out;
            }
            rc = do_remove(*root, &from, &v, &inner);
            if (rc)
                goto out;
        }
        which = "path";
        rc = do_add(root, &path, v, &inner);
        v = NULL; /* stolen */
    } else {
        rc = wh_errbuf_set(&inner, WH_ERR_INVALID, "unknown op");
    }

out:
    if (rc) {
        const char *ws = which[0] == 'f' ? fs : ps;
        size_t wlen = which[0] == 'f' ? flen : plen;
        wh_errbuf_set(eb, WH_ERR_INVALID, "op %zu (%.*s) %s \"%.*s\": %s", index,
                      quote_len(name, nlen), name, which, quote_len(ws, wlen), ws, inner.msg);
        rc = WH_ERR_INVALID;
    }
    json_decref(v);
    wh_pointer_fini(&path);
    wh_pointer_fini(&from);
    return rc;
}

enum wh_err wh_patch_apply(const json_t *doc, const json_t *patch, json_t **out,
                           struct wh_errbuf *eb)
{
    json_t *root = NULL;
    enum wh_err rc = WH_OK;
    if (!doc)
        return wh_errbuf_set(eb, WH_ERR_INVALID, "no document");
    if (!json_is_array(patch))
        return wh_errbuf_set(eb, WH_ERR_INVALID, "a JSON patch must be an array, not %s",
                             patch ? wh_json_type_name(patch) : "nothing");
    root = wh_json_copy(doc);
    for (size_t i = 0; i < json_array_size(patch); i++) {
        rc = apply_one(&root, json_array_get(patch, i), i, eb);
        if (rc)
            goto out;
    }
    *out = root;
    root = NULL;
out:
    json_decref(root);
    return rc;
}
