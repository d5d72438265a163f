#include "jsonpatch/pointer.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/json.h"
#include "util/mem.h"

/* Error messages quote at most this much of a token: the message buffer is small and a key
 * can be arbitrarily long. */
#define QUOTE_MAX 64

static int quote_len(const char *s, size_t len)
{
    const char *nul = memchr(s, '\0', len);
    if (nul)
        len = (size_t)(nul - s);
    return (int)(len > QUOTE_MAX ? QUOTE_MAX : len);
}

enum wh_err wh_pointer_escape(struct wh_buf *b, const char *tok, size_t len)
{
    size_t start = b->len;
    size_t from = 0;
    enum wh_err rc = WH_OK;
    /* Copy runs of ordinary bytes in one call: keys rarely contain "~" or "/". */
    for (size_t i = 0; i < len; i++) {
        if (tok[i] != '~' && tok[i] != '/')
            continue;
        rc = wh_buf_add(b, tok + from, i - from);
        if (rc)
            goto out;
        rc = wh_buf_add(b, tok[i] == '~' ? "~0" : "~1", 2);
        if (rc)
            goto out;
        from = i + 1;
    }
    rc = wh_buf_add(b, tok + from, len - from);
out:
    if (rc)
        wh_pointer_truncate(b, start);
    return rc;
}

enum wh_err wh_pointer_append(struct wh_buf *b, const char *tok, size_t len)
{
    size_t start = b->len;
    enum wh_err rc = wh_buf_addc(b, '/');
    if (rc)
        return rc;
    rc = wh_pointer_escape(b, tok, len);
    if (rc)
        wh_pointer_truncate(b, start);
    return rc;
}

enum wh_err wh_pointer_append_index(struct wh_buf *b, size_t idx)
{
    WH_ASSERT(idx <= (size_t)LLONG_MAX);
    size_t len = b->len;
    enum wh_err rc = wh_buf_addc(b, '/');
    if (!rc)
        rc = wh_buf_add_int(b, (long long)idx);
    if (rc) /* unchanged, as an append that does not fit leaves it */
        wh_pointer_truncate(b, len);
    return rc;
}

void wh_pointer_truncate(struct wh_buf *b, size_t len)
{
    WH_ASSERT(len <= b->len);
    b->len = len;
    if (b->data)
        b->data[len] = '\0';
}

enum wh_err wh_pointer_parse(const char *ptr, size_t len, struct wh_pointer *p,
                             struct wh_errbuf *eb)
{
    p->ntok = 0;
    p->tok = NULL;
    p->_mem = NULL;
    if (len == 0)
        return WH_OK;
    if (ptr[0] != '/')
        return wh_errbuf_set(eb, WH_ERR_INVALID, "JSON pointer \"%.*s\" does not start with \"/\"",
                             quote_len(ptr, len), ptr);

    size_t ntok = 0;
    for (size_t i = 0; i < len; i++)
        ntok += ptr[i] == '/';

    /* Unescaping only shortens a token, so the tokens are decoded in place into one copy of
     * the pointer, each "/" becoming the NUL that ends the token before it. */
    enum wh_err rc = WH_OK;
    char *mem = wh_xmalloc(len + 1);
    struct wh_pointer_tok *tok = wh_xcalloc(ntok, sizeof(*tok));
    size_t w = 0, t = 0, r = 0;
    while (r < len) {
        /* ptr[r] == '/': a new token starts after it */
        r++;
        size_t tstart = w;
        while (r < len && ptr[r] != '/') {
            char c = ptr[r];
            if (c == '~') {
                char next = r + 1 < len ? ptr[r + 1] : '\0';
                if (next != '0' && next != '1') {
                    rc = wh_errbuf_set(eb, WH_ERR_INVALID,
                                       "JSON pointer \"%.*s\": \"~\" must be followed by 0 or 1",
                                       quote_len(ptr, len), ptr);
                    goto out;
                }
                c = next == '0' ? '~' : '/';
                r++;
            }
            mem[w++] = c;
            r++;
        }
        tok[t].s = mem + tstart;
        tok[t].len = w - tstart;
        mem[w++] = '\0';
        t++;
    }
    WH_ASSERT(t == ntok && w <= len + 1);
    p->ntok = ntok;
    p->tok = tok;
    p->_mem = mem;
    tok = NULL;
    mem = NULL;
out:
    free(mem);
    free(tok);
    return rc;
}

void wh_pointer_fini(struct wh_pointer *p)
{
    free(p->tok);
    free(p->_mem);
    p->tok = NULL;
    p->_mem = NULL;
    p->ntok = 0;
}

bool wh_pointer_is_proper_prefix(const struct wh_pointer *a, const struct wh_pointer *b)
{
    if (a->ntok >= b->ntok)
        return false;
    for (size_t i = 0; i < a->ntok; i++) {
        if (a->tok[i].len != b->tok[i].len || memcmp(a->tok[i].s, b->tok[i].s, a->tok[i].len) != 0)
            return false;
    }
    return true;
}

bool wh_pointer_index(const char *tok, size_t len, size_t *out)
{
    if (len == 0 || (len > 1 && tok[0] == '0'))
        return false;
    size_t v = 0;
    for (size_t i = 0; i < len; i++) {
        if (tok[i] < '0' || tok[i] > '9')
            return false;
        size_t d = (size_t)(tok[i] - '0');
        if (v > (SIZE_MAX - d) / 10)
            return false;
        v = v * 10 + d;
    }
    *out = v;
    return true;
}

enum wh_err wh_pointer_walk(const json_t *doc, const struct wh_pointer *p, size_t n, json_t **out,
                            struct wh_errbuf *eb)
{
    WH_ASSERT(n <= p->ntok);
    const json_t *cur = doc;
    for (size_t i = 0; i < n; i++) {
        const struct wh_pointer_tok *t = &p->tok[i];
        const json_t *next = NULL;
        if (json_is_object(cur)) {
            next = json_object_getn(cur, t->s, t->len);
        } else if (json_is_array(cur)) {
            size_t idx;
            if (wh_pointer_index(t->s, t->len, &idx) && idx < json_array_size(cur))
                next = json_array_get(cur, idx);
        } else {
            return wh_errbuf_set(eb, WH_ERR_INVALID, "token \"%.*s\" (#%zu) steps into a %s",
                                 quote_len(t->s, t->len), t->s, i + 1, wh_json_type_name(cur));
        }
        if (!next)
            return wh_errbuf_set(eb, WH_ERR_NOT_FOUND, "token \"%.*s\" (#%zu) not found",
                                 quote_len(t->s, t->len), t->s, i + 1);
        cur = next;
    }
    /* jansson's getters take const and return non-const; the caller decides what to do. */
    *out = (json_t *)(uintptr_t)cur;
    return WH_OK;
}

enum wh_err wh_pointer_get(const json_t *doc, const char *ptr, size_t len, json_t **out,
                           struct wh_errbuf *eb)
{
    struct wh_pointer p;
    enum wh_err rc = wh_pointer_parse(ptr, len, &p, eb);
    if (rc)
        goto out;
    rc = wh_pointer_walk(doc, &p, p.ntok, out, eb);
out:
    wh_pointer_fini(&p);
    return rc;
}
