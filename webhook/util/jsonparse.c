#include "util/jsonparse.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/arena.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/mem.h"
#include "util/str.h"
#include "util/swar.h"

struct parser {
    const char *start, *p, *end;
    int depth;
    /* Spans (NULL: neither asked nor shared): canon says whether the value just parsed is
     * spelled as wh_json_write spells it, ws counts whitespace runs skipped so far. */
    struct wh_json_spans *spans;
    bool want_canon; /* the caller asked for the spans */
    bool share;      /* an "oldObject" shares what it repeats of "object" (see below) */
    int recording;   /* > 0 inside the value of an "object" member: its spans are kept */
    bool canon;
    size_t ws;
    const char *err_at;
    const char *err_text;
    bool out_of_memory;
    struct wh_buf scratch; /* decoded strings that contain escapes */
    /* wh_json_parse_deferring: the top-level member `outer`'s member `inner`, an array whose
     * elements are checked and left as text; in_outer / in_inner while inside their values. */
    const char *outer, *inner;
    bool in_outer, in_inner;
    struct wh_json_deferred *deferred;
};

static json_t *fail(struct parser *ps, const char *at, const char *text)
{
    if (!ps->err_text) {
        ps->err_at = at;
        ps->err_text = text;
    }
    return NULL;
}

static json_t *no_memory(struct parser *ps)
{
    ps->out_of_memory = true;
    return fail(ps, ps->p, "out of memory for this request");
}

static void skip_ws(struct parser *ps)
{
    const char *p = ps->p;
    /* Compact JSON (what the API server sends) has no whitespace at all. */
    if (p < ps->end && (unsigned char)*p > ' ')
        return;
    while (p < ps->end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
        p++;
    ps->ws += p != ps->p;
    ps->p = p;
}

/* --- spans --------------------------------------------------------------------------------- */

struct span {
    const json_t *v; /* NULL: a free slot */
    uint32_t off, len;
    uint32_t size; /* members or elements when parsed: a changed container no longer matches */
    bool canon;    /* spelled as util/json.h writes it (wh_json_spans_get) */
};

/* The table lives where jansson's values do (the request arena, within its budget), and when
 * it cannot grow it stops recording: spans only ever save work. */
struct wh_json_spans {
    const char *src;
    struct span *slot;
    size_t mask, n;
    size_t max; /* entries at most: the table never outgrows the input */
};

/* Containers shorter than this are cheaper to print than to look up. */
#define SPAN_MIN 256

/* Sharing. An AdmissionReview of an UPDATE carries the object twice, as "object" and then
 * "oldObject", and the two are mostly the same text: a Pod's spec cannot change at all. So when
 * a member "oldObject" follows a member "object" in one object, each container of oldObject
 * whose text is byte for byte that of the container at the same place in object is that
 * value, shared (a reference more, no copy), instead of being built again. Request values are
 * never changed in place (util/cow.h copies what is shared before an edit), so nothing can tell
 * but the memory: an UPDATE review costs about one parsed object instead of two. On only for
 * bodies of SHARE_BODY_MIN bytes or more (below that the parse is cheap, and recording would
 * cost the hot path) and only in a request arena, which never reuses the memory of a freed
 * value within a request (a stale span could otherwise name a new container). */
#define SHARE_BODY_MIN (64 * 1024)
/* Smaller containers of object are not recorded (an env entry, a port): a table entry for each
 * would cost a third of what it saves, and they are shared with their list when it is
 * unchanged. */
#define SHARE_MIN 64

static size_t span_hash(const json_t *v, size_t mask)
{
    uint64_t x = (uint64_t)(uintptr_t)v;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return (size_t)x & mask;
}

static size_t container_size(const json_t *v)
{
    return json_is_object(v) ? json_object_size(v) : json_array_size(v);
}

static void span_insert(struct wh_json_spans *sp, const struct span *e)
{
    size_t i = span_hash(e->v, sp->mask);
    while (sp->slot[i].v && sp->slot[i].v != e->v)
        i = (i + 1) & sp->mask;
    sp->n += !sp->slot[i].v;
    sp->slot[i] = *e;
}

static void span_put(struct wh_json_spans *sp, const json_t *v, size_t off, size_t len,
                     bool canon)
{
    if (sp->n >= sp->max)
        return;
    if (2 * (sp->n + 1) > sp->mask + 1) {
        json_malloc_t alloc;
        json_free_t release;
        json_get_alloc_funcs(&alloc, &release);
        /* The first table fits the input's spans at most (an object of a ConversionReview,
         * parsed alone, has a few), within 256 slots. */
        size_t mask = sp->mask ? 2 * sp->mask + 1 : 15;
        while (!sp->mask && mask < 255 && mask + 1 < 2 * sp->max)
            mask = 2 * mask + 1;
        struct span *slot = alloc((mask + 1) * sizeof(*slot));
        if (!slot) {
            sp->max = 0; /* over the request's budget: no more spans, the parse goes on */
            return;
        }
        memset(slot, 0, (mask + 1) * sizeof(*slot));
        struct wh_json_spans old = *sp;
        sp->slot = slot;
        sp->mask = mask;
        sp->n = 0;
        for (size_t i = 0; old.slot && i <= old.mask; i++) {
            if (old.slot[i].v)
                span_insert(sp, &old.slot[i]);
        }
        release(old.slot);
    }
    span_insert(sp, &(struct span){v, (uint32_t)off, (uint32_t)len,
                                   (uint32_t)container_size(v), canon});
}

/* The span of container v when recorded and v still has the size it was parsed with. */
static const struct span *span_find(const struct wh_json_spans *sp, const json_t *v)
{
    if (!sp || !sp->slot)
        return NULL;
    size_t i = span_hash(v, sp->mask);
    while (sp->slot[i].v) {
        if (sp->slot[i].v == v)
            return sp->slot[i].size == (uint32_t)container_size(v) ? &sp->slot[i] : NULL;
        i = (i + 1) & sp->mask;
    }
    return NULL;
}

bool wh_json_spans_get(const struct wh_json_spans *sp, const json_t *v, const char **text,
                       size_t *len)
{
    const struct span *e = span_find(sp, v);
    if (!e || !e->canon)
        return false;
    *text = sp->src + e->off;
    *len = e->len;
    return true;
}

void wh_json_spans_free(struct wh_json_spans *sp)
{
    if (!sp)
        return;
    json_malloc_t alloc;
    json_free_t release;
    json_get_alloc_funcs(&alloc, &release);
    release(sp->slot);
    free(sp);
}

/* A container that ended at ps->p and began at start: recorded when it and all it holds are
 * spelled canonically (ws0: the whitespace count just inside its opening bracket). */
static void record_span(struct parser *ps, const json_t *v, const char *start)
{
    size_t len = (size_t)(ps->p - start);
    bool keep_canon = ps->want_canon && ps->canon && len >= SPAN_MIN;
    if (keep_canon || (ps->recording && len >= SHARE_MIN))
        span_put(ps->spans, v, (size_t)(start - ps->start), len, keep_canon);
}

static inline void end_container(struct parser *ps, const json_t *v, const char *start,
                                 size_t ws0, bool canon)
{
    ps->canon = canon && ps->ws == ws0;
    if (ps->spans)
        record_span(ps, v, start);
}

/* Sharing: when ref (a container of "object") was recorded and the input at ps->p is
 * its text byte for byte, the value there is ref: returns it (a new reference) past its text. */
static json_t *shared(struct parser *ps, json_t *ref)
{
    const struct span *e = span_find(ps->spans, ref);
    if (!e || (size_t)(ps->end - ps->p) < e->len || memcmp(ps->p, ps->start + e->off, e->len))
        return NULL;
    ps->p += e->len;
    ps->canon = false; /* spans of the parents are for /convert, which shares nothing */
    return json_incref(ref);
}

/* Bytes a string may hold as they are: printable ASCII but '"' and '\\'. */
static const unsigned char plain[256] = {
    ['\x20'] = 1,
    1,
    0,
    1,
    1,
    1,
    1,
    1,
    1,
    1,
    1,
    1,
    1,
    1,
    1,
    1, /* 0x20-0x2f, '"' = 0x22 */
    1,
    1,
    1,
    1,
    1,
    1,
    1,
    1,
    1,
    1,
    1,
    1,
    1,
    1,
    1,
    1, /* 0x30 */
    1,
    1,
    1,
    1,
    1,
    1,
    1,
    1,
    1,
    1,
    1,
    1,
    1,
    1,
    1,
    1, /* 0x40 */
    1,
    1,
    1,
    1,
    1,
    1,
    1,
    1,
    1,
    1,
    1,
    1,
    0,
    1,
    1,
    1, /* 0x50, '\\' = 0x5c */
    1,
    1,
    1,
    1,
    1,
    1,
    1,
    1,
    1,
    1,
    1,
    1,
    1,
    1,
    1,
    1, /* 0x60 */
    1,
    1,
    1,
    1,
    1,
    1,
    1,
    1,
    1,
    1,
    1,
    1,
    1,
    1,
    1,
    1, /* 0x70 */
};

/* The first byte from p on that is not plain (or end): '"', '\\', a control or non-ASCII.
 * Strings are scanned a word at a time, the word holding the end resolved at once: Kubernetes
 * strings are short, so a byte loop after the last whole word used to cost more than the words. */
static const char *plain_run(const char *p, const char *end)
{
    while (end - p >= 8) {
        uint64_t w = wh_swar_load(p);
        uint64_t hit =
            wh_swar_high(w) | wh_swar_below(w, 0x20) | wh_swar_eq(w, '"') | wh_swar_eq(w, '\\');
        size_t at;
        if (hit && wh_swar_first(hit, &at))
            return p + at;
        if (hit)
            break;
        p += 8;
    }
    while (p < end && plain[(unsigned char)*p])
        p++;
    return p;
}

static int hex4(const char *p, const char *end, uint32_t *out)
{
    if (end - p < 4)
        return -1;
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (uint32_t)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= (uint32_t)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= (uint32_t)(c - 'A' + 10);
        else
            return -1;
    }
    *out = v;
    return 0;
}

static bool put_utf8(struct wh_buf *b, uint32_t cp)
{
    char out[4];
    size_t n;
    if (cp < 0x80) {
        out[0] = (char)cp;
        n = 1;
    } else if (cp < 0x800) {
        out[0] = (char)(0xc0 | cp >> 6);
        out[1] = (char)(0x80 | (cp & 0x3f));
        n = 2;
    } else if (cp < 0x10000) {
        out[0] = (char)(0xe0 | cp >> 12);
        out[1] = (char)(0x80 | (cp >> 6 & 0x3f));
        out[2] = (char)(0x80 | (cp & 0x3f));
        n = 3;
    } else {
        out[0] = (char)(0xf0 | cp >> 18);
        out[1] = (char)(0x80 | (cp >> 12 & 0x3f));
        out[2] = (char)(0x80 | (cp >> 6 & 0x3f));
        out[3] = (char)(0x80 | (cp & 0x3f));
        n = 4;
    }
    return wh_buf_add(b, out, n) == WH_OK;
}

/* Parses a string whose opening quote was consumed. On success s and len describe it: a span of
 * the input when it has no escapes, else the scratch buffer (valid until the next string). */
static bool parse_string(struct parser *ps, const char **s, size_t *len, bool *has_nul)
{
    const char *start = ps->p, *p = ps->p, *end = ps->end;
    *has_nul = false;
    /* Fast path: plain ASCII up to the closing quote. */
    p = plain_run(p, end);
    if (p < end && *p == '"') {
        *s = start;
        *len = (size_t)(p - start);
        ps->p = p + 1;
        ps->canon = true;
        return true;
    }
    /* Escapes and non-ASCII: wh_json_write may spell the string otherwise. */
    ps->canon = false;
    wh_buf_reset(&ps->scratch);
    if (wh_buf_add(&ps->scratch, start, (size_t)(p - start))) {
        fail(ps, p, "string too long");
        return false;
    }
    while (p < end) {
        unsigned char c = (unsigned char)*p;
        if (c == '"') {
            *s = ps->scratch.data ? ps->scratch.data : "";
            *len = ps->scratch.len;
            ps->p = p + 1;
            return true;
        }
        if (c < 0x20) {
            fail(ps, p, "control character in a string");
            return false;
        }
        if (c >= 0x80) {
            uint32_t cp;
            size_t n = wh_str_utf8_seq((const unsigned char *)p, (const unsigned char *)end, &cp);
            if (!n) {
                fail(ps, p, "invalid UTF-8 in a string");
                return false;
            }
            if (wh_buf_add(&ps->scratch, p, n)) {
                fail(ps, p, "string too long");
                return false;
            }
            p += n;
            continue;
        }
        if (c != '\\') {
            const char *q = plain_run(p, end);
            if (wh_buf_add(&ps->scratch, p, (size_t)(q - p))) {
                fail(ps, p, "string too long");
                return false;
            }
            p = q;
            continue;
        }
        if (p + 1 >= end)
            break;
        char e = p[1];
        char lit = 0;
        switch (e) {
        case '"':
            lit = '"';
            break;
        case '\\':
            lit = '\\';
            break;
        case '/':
            lit = '/';
            break;
        case 'b':
            lit = '\b';
            break;
        case 'f':
            lit = '\f';
            break;
        case 'n':
            lit = '\n';
            break;
        case 'r':
            lit = '\r';
            break;
        case 't':
            lit = '\t';
            break;
        case 'u': {
            uint32_t cp;
            if (hex4(p + 2, end, &cp)) {
                fail(ps, p, "invalid \\u escape");
                return false;
            }
            p += 6;
            if (cp >= 0xdc00 && cp <= 0xdfff) {
                fail(ps, p - 6, "lone low surrogate in a \\u escape");
                return false;
            }
            if (cp >= 0xd800 && cp <= 0xdbff) {
                uint32_t lo;
                if (end - p < 6 || p[0] != '\\' || p[1] != 'u' || hex4(p + 2, end, &lo) ||
                    lo < 0xdc00 || lo > 0xdfff) {
                    fail(ps, p - 6, "unpaired high surrogate in a \\u escape");
                    return false;
                }
                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                p += 6;
            }
            if (cp == 0)
                *has_nul = true;
            if (!put_utf8(&ps->scratch, cp)) {
                fail(ps, p, "string too long");
                return false;
            }
            continue;
        }
        default:
            fail(ps, p, "invalid escape in a string");
            return false;
        }
        if (wh_buf_addc(&ps->scratch, lit)) {
            fail(ps, p, "string too long");
            return false;
        }
        p += 2;
    }
    fail(ps, end, "unterminated string");
    return false;
}

static json_t *parse_number(struct parser *ps)
{
    const char *p = ps->p, *end = ps->end, *start = p;
    bool integral = true;
    if (p < end && *p == '-')
        p++;
    if (p >= end)
        return fail(ps, p, "unexpected end of input in a number");
    if (*p == '0') {
        p++;
    } else if (*p >= '1' && *p <= '9') {
        while (p < end && *p >= '0' && *p <= '9')
            p++;
    } else {
        return fail(ps, p, "invalid number");
    }
    if (p < end && *p == '.') {
        integral = false;
        p++;
        if (p >= end || *p < '0' || *p > '9')
            return fail(ps, p, "invalid number: digits must follow '.'");
        while (p < end && *p >= '0' && *p <= '9')
            p++;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        integral = false;
        p++;
        if (p < end && (*p == '+' || *p == '-'))
            p++;
        if (p >= end || *p < '0' || *p > '9')
            return fail(ps, p, "invalid number: digits must follow the exponent");
        while (p < end && *p >= '0' && *p <= '9')
            p++;
    }
    size_t n = (size_t)(p - start);
    bool negative = *start == '-';
    if (integral && n - negative <= 18) {
        /* 18 digits cannot overflow int64: read in place, without the copy and strtoll (a
         * /convert of 100 StatefulSets reads 1 900 integers: 210 k instructions in strtoll). */
        long long v = 0;
        for (const char *d = start + negative; d < p; d++)
            v = v * 10 + (*d - '0');
        ps->p = p;
        ps->canon = !(n == 2 && negative);
        json_t *i = json_integer(negative ? -v : v);
        return i ? i : no_memory(ps);
    }
    char tmp[512];
    if (n >= sizeof(tmp))
        return fail(ps, start, "number too long");
    memcpy(tmp, start, n);
    tmp[n] = '\0';
    ps->p = p;
    ps->canon = false; /* reals, "-0" and integers outside int64 print otherwise */
    if (integral) {
        errno = 0;
        long long v = strtoll(tmp, NULL, 10);
        if (errno != ERANGE) {
            ps->canon = !(n == 2 && tmp[0] == '-');
            json_t *i = json_integer(v);
            return i ? i : no_memory(ps);
        }
        /* Outside int64: a real, as Go decodes such a number into a float64. */
    }
    errno = 0;
    double d = strtod(tmp, NULL);
    if (errno == ERANGE && isinf(d))
        return fail(ps, start, "real number overflow");
    json_t *r = json_real(d);
    return r ? r : no_memory(ps);
}

static bool literal(struct parser *ps, const char *word, size_t n)
{
    if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n) != 0)
        return false;
    ps->p += n;
    return true;
}

static json_t *parse_value(struct parser *ps, json_t *ref);

static bool is_key(const char *key, size_t klen, const char *word)
{
    return klen == strlen(word) && memcmp(key, word, klen) == 0;
}

/* ref: the object of "object" this one stands in for within an "oldObject", or NULL. */
static json_t *parse_object(struct parser *ps, json_t *ref)
{
    json_t *obj = json_object();
    if (!obj)
        return no_memory(ps);
    const char *open = ps->p;
    ps->p++; /* '{' */
    size_t ws0 = ps->ws;
    bool canon = true;
    skip_ws(ps);
    if (ps->p < ps->end && *ps->p == '}') {
        ps->p++;
        end_container(ps, obj, open, ws0, canon);
        return obj;
    }
    for (;;) {
        skip_ws(ps);
        if (ps->p >= ps->end || *ps->p != '"') {
            json_decref(obj);
            return fail(ps, ps->p, "expected a string key");
        }
        ps->p++;
        const char *key;
        size_t klen;
        bool has_nul;
        if (!parse_string(ps, &key, &klen, &has_nul)) {
            json_decref(obj);
            return NULL;
        }
        if (has_nul) {
            json_decref(obj);
            return fail(ps, ps->p, "NUL byte in an object key is not supported");
        }
        /* A key decoded into the scratch buffer, which the value below reuses, is copied; a
         * key without escapes is a span of the input and used as it is. */
        canon = canon && ps->canon;
        char small[128];
        char *kcopy = NULL;
        if ((uintptr_t)key < (uintptr_t)ps->start || (uintptr_t)key >= (uintptr_t)ps->end) {
            kcopy = klen < sizeof(small) ? small : wh_xmalloc(klen + 1);
            memcpy(kcopy, key, klen);
            key = kcopy;
        }
        skip_ws(ps);
        if (ps->p >= ps->end || *ps->p != ':') {
            if (kcopy != small)
                free(kcopy);
            json_decref(obj);
            return fail(ps, ps->p, "expected ':'");
        }
        ps->p++;
        /* What the member stands in for in "object": the same member there, or, for
         * "oldObject" beside "object", that whole object. */
        json_t *child_ref = NULL;
        bool record = false;
        if (ps->share) {
            if (ref)
                child_ref = json_object_getn(ref, key, klen);
            else if (is_key(key, klen, "oldObject"))
                child_ref = json_object_get(obj, "object");
            else
                record = is_key(key, klen, "object");
            ps->recording += record;
        }
        /* The path of the deferred array: the value of `outer` at the top, of `inner` in it. */
        bool outer = ps->outer && ps->depth == 1 && is_key(key, klen, ps->outer);
        bool inner = ps->in_outer && ps->depth == 2 && is_key(key, klen, ps->inner);
        ps->in_outer |= outer;
        ps->in_inner |= inner;
        json_t *v = parse_value(ps, child_ref);
        if (outer)
            ps->in_outer = false;
        if (inner)
            ps->in_inner = false;
        if (record)
            ps->recording--;
        if (!v) {
            if (kcopy != small)
                free(kcopy);
            json_decref(obj);
            return NULL;
        }
        canon = canon && ps->canon;
        /* Fails only when jansson cannot allocate (it releases v then). A duplicate key
         * replaces the first one's value in its place: not the input's spelling. */
        size_t before = ps->spans ? json_object_size(obj) : 0;
        int set = json_object_setn_new_nocheck(obj, key, klen, v);
        canon = canon && (!ps->spans || json_object_size(obj) > before);
        if (kcopy != small)
            free(kcopy);
        if (set) {
            json_decref(obj);
            return no_memory(ps);
        }
        skip_ws(ps);
        if (ps->p < ps->end && *ps->p == ',') {
            ps->p++;
            continue;
        }
        if (ps->p < ps->end && *ps->p == '}') {
            ps->p++;
            end_container(ps, obj, open, ws0, canon);
            return obj;
        }
        json_decref(obj);
        return fail(ps, ps->p, "expected ',' or '}'");
    }
}

/* An element of the deferred array: only delimited, not checked (the caller parses its text
 * alone, which checks it): strings are skipped to their closing quote, brackets counted, and
 * the element ends at the bracket that closes it or at a ',' or closing bracket outside any.
 * In the tree a null stands for it. */
static json_t *defer_value(struct parser *ps)
{
    skip_ws(ps);
    const char *start = ps->p, *p = ps->p, *end = ps->end;
    int depth = 0, deepest = 0;
    while (p < end) {
        char c = *p;
        if (c == '"') {
            /* to the next quote that no odd run of backslashes escapes */
            const char *q = p + 1;
            for (;;) {
                q = memchr(q, '"', (size_t)(end - q));
                if (!q)
                    break;
                const char *b = q;
                while (b > p + 1 && b[-1] == '\\')
                    b--;
                if ((q - b) % 2 == 0)
                    break;
                q++;
            }
            if (!q) {
                p = end;
                break;
            }
            p = q;
        } else if (c == '{' || c == '[') {
            if (++depth > deepest)
                deepest = depth;
        } else if (c == '}' || c == ']') {
            if (depth == 0)
                break;
            if (--depth == 0) {
                p++;
                break;
            }
        } else if (c == ',' && depth == 0) {
            break;
        }
        p++;
    }
    if (depth || p == start)
        return fail(ps, p, "unexpected end of input");
    ps->p = p;
    struct wh_json_deferred *d = ps->deferred;
    if (d->n == d->cap) {
        d->cap = d->cap ? d->cap * 2 : 16;
        d->items = wh_xrealloc(d->items, d->cap * sizeof(*d->items));
    }
    d->items[d->n].off = (size_t)(start - ps->start);
    d->items[d->n].len = (size_t)(p - start);
    d->n++;
    /* Its values lie this much deeper than in a parse of its text alone. */
    if (deepest + ps->depth + 1 > d->deepest)
        d->deepest = deepest + ps->depth + 1;
    return json_null();
}

static json_t *parse_array(struct parser *ps, json_t *ref)
{
    json_t *arr = json_array();
    if (!arr)
        return no_memory(ps);
    const char *open = ps->p;
    ps->p++; /* '[' */
    size_t ws0 = ps->ws;
    bool canon = true;
    /* The deferred array (the last one of its path wins, as the tree's last member does). */
    bool defer = ps->in_inner && ps->depth == 3;
    if (defer) {
        ps->deferred->n = 0;
        ps->deferred->arrays++;
    }
    skip_ws(ps);
    if (ps->p < ps->end && *ps->p == ']') {
        ps->p++;
        end_container(ps, arr, open, ws0, canon);
        return arr;
    }
    for (;;) {
        json_t *v = defer ? defer_value(ps)
                          : parse_value(ps, ref ? json_array_get(ref, json_array_size(arr)) : NULL);
        if (!v) {
            json_decref(arr);
            return NULL;
        }
        canon = canon && ps->canon;
        if (json_array_append_new(arr, v)) {
            json_decref(arr);
            return no_memory(ps);
        }
        skip_ws(ps);
        if (ps->p < ps->end && *ps->p == ',') {
            ps->p++;
            continue;
        }
        if (ps->p < ps->end && *ps->p == ']') {
            ps->p++;
            end_container(ps, arr, open, ws0, canon);
            return arr;
        }
        json_decref(arr);
        return fail(ps, ps->p, "expected ',' or ']'");
    }
}

/* ref: the value of "object" this one stands in for within an "oldObject", or NULL. */
static json_t *parse_value(struct parser *ps, json_t *ref)
{
    skip_ws(ps);
    if (ps->p >= ps->end)
        return fail(ps, ps->p, "unexpected end of input");
    if (++ps->depth > WH_JSONPARSE_MAX_DEPTH)
        return fail(ps, ps->p, "maximum nesting depth exceeded");
    json_t *v = NULL;
    switch (*ps->p) {
    case '{':
        if (ref && !json_is_object(ref))
            ref = NULL;
        v = ref ? shared(ps, ref) : NULL;
        if (!v)
            v = parse_object(ps, ref);
        break;
    case '[':
        if (ref && !json_is_array(ref))
            ref = NULL;
        v = ref ? shared(ps, ref) : NULL;
        if (!v)
            v = parse_array(ps, ref);
        break;
    case '"': {
        ps->p++;
        const char *s;
        size_t len;
        bool has_nul;
        if (parse_string(ps, &s, &len, &has_nul)) {
            v = json_stringn_nocheck(s, len);
            if (!v)
                v = no_memory(ps);
        }
        break;
    }
    case 't':
        ps->canon = true;
        v = literal(ps, "true", 4) ? json_true() : fail(ps, ps->p, "invalid literal");
        break;
    case 'f':
        ps->canon = true;
        v = literal(ps, "false", 5) ? json_false() : fail(ps, ps->p, "invalid literal");
        break;
    case 'n':
        ps->canon = true;
        v = literal(ps, "null", 4) ? json_null() : fail(ps, ps->p, "invalid literal");
        break;
    default:
        if (*ps->p == '-' || (*ps->p >= '0' && *ps->p <= '9'))
            v = parse_number(ps);
        else
            v = fail(ps, ps->p, "unexpected character");
    }
    ps->depth--;
    return v;
}

json_t *wh_json_parse(const char *buf, size_t len, struct wh_jsonparse_error *err)
{
    return wh_json_parse_spans(buf, len, err, NULL);
}

static json_t *parse_doc(struct parser *ps, const char *buf, size_t len,
                         struct wh_jsonparse_error *err, struct wh_json_spans **spans);

json_t *wh_json_parse_spans(const char *buf, size_t len, struct wh_jsonparse_error *err,
                            struct wh_json_spans **spans)
{
    struct parser ps = {.start = buf, .p = buf, .end = buf + len};
    ps.share = len >= SHARE_BODY_MIN && wh_arena_allocating();
    return parse_doc(&ps, buf, len, err, spans);
}

json_t *wh_json_parse_deferring(const char *buf, size_t len, struct wh_jsonparse_error *err,
                                const char *outer, const char *inner,
                                struct wh_json_deferred *deferred)
{
    struct parser ps = {.start = buf, .p = buf, .end = buf + len};
    ps.outer = outer;
    ps.inner = inner;
    ps.deferred = deferred;
    deferred->n = 0;
    deferred->arrays = 0;
    deferred->deepest = 0;
    json_t *v = parse_doc(&ps, buf, len, err, NULL);
    if (!v)
        deferred->n = 0;
    return v;
}

void wh_json_deferred_fini(struct wh_json_deferred *deferred)
{
    free(deferred->items);
    *deferred = (struct wh_json_deferred){0};
}

static json_t *parse_doc(struct parser *ps_, const char *buf, size_t len,
                         struct wh_jsonparse_error *err, struct wh_json_spans **spans)
{
    struct parser ps = *ps_;
    ps.want_canon = spans != NULL;
    if ((spans || ps.share) && len <= UINT32_MAX) {
        ps.spans = wh_xcalloc(1, sizeof(*ps.spans));
        ps.spans->src = buf;
        /* two slots of 24 bytes per entry: at most the input's size, and far less than the
         * values they describe */
        ps.spans->max = len / (ps.share ? SHARE_MIN : SPAN_MIN) + 16;
    }
    /* Decoded strings never exceed their encoded length. */
    wh_buf_init(&ps.scratch, len + 1);
    json_t *v = parse_value(&ps, NULL);
    if (v) {
        skip_ws(&ps);
        if (ps.p != ps.end) {
            json_decref(v);
            v = fail(&ps, ps.p, "unexpected data after the value");
        }
    }
    wh_buf_fini(&ps.scratch);
    if (spans && v) {
        *spans = ps.spans;
    } else {
        if (spans)
            *spans = NULL;
        wh_json_spans_free(ps.spans);
    }
    if (!v && err) {
        err->out_of_memory = ps.out_of_memory;
        /* Position: counted only on failure, so success costs nothing. */
        const char *at = ps.err_at ? ps.err_at : ps.p;
        int line = 1, col = 1;
        for (const char *q = buf; q < at; q++) {
            if (*q == '\n') {
                line++;
                col = 1;
            } else {
                col++;
            }
        }
        err->line = line;
        err->column = col;
        err->offset = (size_t)(at - buf);
        char near[24] = "";
        if (at < buf + len) {
            size_t n = (size_t)(buf + len - at) < 8 ? (size_t)(buf + len - at) : 8;
            size_t k = 0;
            for (size_t i = 0; i < n && k + 1 < sizeof(near); i++)
                near[k++] = (at[i] >= 0x20 && at[i] < 0x7f) ? at[i] : '?';
            near[k] = '\0';
        }
        if (near[0])
            snprintf(err->text, sizeof(err->text), "%s near '%s'",
                     ps.err_text ? ps.err_text : "invalid JSON", near);
        else
            snprintf(err->text, sizeof(err->text), "%s",
                     ps.err_text ? ps.err_text : "invalid JSON");
    }
    return v;
}
