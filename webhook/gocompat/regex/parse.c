/* regexp/syntax.Parse of Go 1.23 with the flags regexp.Compile passes (syntax.Perl).
 *
 * This follows Go's parser step by step rather than only its grammar, because what it accepts
 * depends on its own bookkeeping: it refuses a tree deeper than 1000, a program larger than
 * 3355443 instructions and more than 33554432 class runes, but it measures these only at
 * certain moments (when a node is pushed on its stack or repeated), counts the nodes it
 * allocated (a node given back is handed out again first), counts the runes of every class each
 * time it is pushed, and memoises sizes and heights per node (the size of a node given back and
 * handed out again stays remembered). So the same stack, the same free list, the same
 * factoring of alternations and the same order of checks are kept here; only the storage is
 * C's. The error codes and offending texts are Go's (regex.h).
 *
 * Errors unwind with longjmp, as Go's limit checks panic: everything a parse allocates belongs
 * to the parser and is released by wh_re_parse_fini. */
#include "gocompat/regex/regex_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/mem.h"

#define MAX_HEIGHT 1000
#define MAX_SIZE ((int64_t)(128 << 20) / 40) /* Go: 128 MB of 40-byte instructions */
#define MAX_RUNES ((int64_t)(128 << 20) / 4) /* Go: 128 MB of 4-byte runes */
#define MAX_REPEAT 1000
/* factor recurses once per level of common prefixes, and Go's goroutine stacks grow where a
 * thread's do not. Each level needs a branch one rune longer than the last (a|aa|aaa|...), so a
 * pattern of n bytes reaches about sqrt(2n) levels: 2500 for 3 MiB. Each level also nests the
 * result one deeper, so past 1000 levels Go refuses the pattern when it pushes the result
 * ("expression nests too deeply"); past this bound we refuse it with that error at once, before
 * the thread's stack (2 MiB at the least, a few hundred bytes a level) could run out. */
#define MAX_FACTOR_DEPTH 4000

/* Nodes come from chunks, so they never move (their inline storage is pointed at). */
#define CHUNK_NODES 256
struct wh_re_chunk {
    struct wh_re_chunk *next;
    size_t used;
    struct wh_re_node nodes[CHUNK_NODES];
};

typedef struct wh_re_node node;

static _Noreturn void fail(struct wh_re_parser *p, enum wh_regex_code code, const char *expr,
                           size_t len)
{
    p->err.code = code;
    p->err.off = expr ? (size_t)(expr - p->whole) : 0;
    p->err.len = expr ? len : 0;
    longjmp(p->fail, 1);
}

/* Expr of the limit errors is the whole pattern. */
static _Noreturn void fail_whole(struct wh_re_parser *p, enum wh_regex_code code)
{
    fail(p, code, p->whole, p->len);
}

/* --- nodes ----------------------------------------------------------------------------------- */

static void release_storage(node *re)
{
    if (re->holds & WH_RE_HOLDS_RUNES)
        wh_re_runes_fini(&re->u.runes);
    if ((re->holds & WH_RE_HOLDS_SUBS) && re->u.subs.v != re->u.subs.inl)
        free(re->u.subs.v);
    re->holds &= (uint8_t) ~(WH_RE_HOLDS_RUNES | WH_RE_HOLDS_SUBS);
}

static node *new_node(struct wh_re_parser *p, enum wh_re_op op)
{
    node *re = p->free;
    if (re) {
        p->free = re->u.next_free;
        /* Go's *re = Regexp{}: its size map entry stays (it is keyed by the node). */
        uint8_t keep = re->holds & WH_RE_HOLDS_SIZE;
        int64_t size = re->size;
        memset(re, 0, sizeof(*re));
        re->holds = keep;
        re->size = size;
    } else {
        if (!p->chunks || p->chunks->used == CHUNK_NODES) {
            struct wh_re_chunk *c = wh_xmalloc(sizeof(*c));
            c->next = p->chunks;
            c->used = 0;
            p->chunks = c;
        }
        re = &p->chunks->nodes[p->chunks->used++];
        memset(re, 0, sizeof(*re));
        p->num_regexp++;
    }
    re->op = (uint8_t)op;
    return re;
}

static void reuse(struct wh_re_parser *p, node *re)
{
    if (p->height_on)
        re->holds &= (uint8_t)~WH_RE_HOLDS_HEIGHT;
    release_storage(re);
    re->u.next_free = p->free;
    p->free = re;
}

static struct wh_re_runes *runes_of(node *re)
{
    if (!(re->holds & WH_RE_HOLDS_RUNES)) {
        release_storage(re);
        wh_re_runes_init(&re->u.runes);
        re->holds |= WH_RE_HOLDS_RUNES;
    }
    return &re->u.runes;
}

static uint32_t nrunes(const node *re)
{
    return (re->holds & WH_RE_HOLDS_RUNES) ? re->u.runes.n : 0;
}

static struct wh_re_subs *subs_of(node *re)
{
    if (!(re->holds & WH_RE_HOLDS_SUBS)) {
        release_storage(re);
        re->u.subs.v = re->u.subs.inl;
        re->u.subs.n = 0;
        re->u.subs.cap = 1;
        re->holds |= WH_RE_HOLDS_SUBS;
    }
    return &re->u.subs;
}

static uint32_t nsubs(const node *re)
{
    return (re->holds & WH_RE_HOLDS_SUBS) ? re->u.subs.n : 0;
}

static node *sub_at(const node *re, uint32_t i)
{
    return re->u.subs.v[i];
}

static void subs_push(node *re, node *sub)
{
    struct wh_re_subs *s = subs_of(re);
    if (s->n == s->cap) {
        uint32_t cap = s->cap * 2;
        if (s->v == s->inl) {
            node **v = wh_xmalloc(cap * sizeof(*v));
            memcpy(v, s->inl, s->n * sizeof(*v));
            s->v = v;
        } else {
            s->v = wh_xrealloc(s->v, cap * sizeof(*s->v));
        }
        s->cap = cap;
    }
    s->v[s->n++] = sub;
}

/* Makes re hold no children and no runes (Go: re.Sub = nil, re.Rune = nil). */
static void clear_storage(node *re)
{
    release_storage(re);
}

/* --- limits ---------------------------------------------------------------------------------- */

static int64_t sat_add(int64_t a, int64_t b)
{
    return a > INT64_MAX / 4 - b ? INT64_MAX / 4 : a + b;
}

static int64_t sat_mul(int64_t a, int64_t b)
{
    if (a != 0 && b > INT64_MAX / 4 / a)
        return INT64_MAX / 4;
    return a * b;
}

static int64_t calc_size(struct wh_re_parser *p, node *re, bool force)
{
    if (!force && (re->holds & WH_RE_HOLDS_SIZE))
        return re->size;
    int64_t size = 0;
    switch (re->op) {
    case WH_RE_LITERAL:
        size = nrunes(re);
        break;
    case WH_RE_CAPTURE:
    case WH_RE_STAR:
        /* a star may take one instruction or two: Go assumes two */
        size = sat_add(2, calc_size(p, sub_at(re, 0), false));
        break;
    case WH_RE_PLUS:
    case WH_RE_QUEST:
        size = sat_add(1, calc_size(p, sub_at(re, 0), false));
        break;
    case WH_RE_CONCAT:
        for (uint32_t i = 0; i < nsubs(re); i++)
            size = sat_add(size, calc_size(p, sub_at(re, i), false));
        break;
    case WH_RE_ALTERNATE:
        for (uint32_t i = 0; i < nsubs(re); i++)
            size = sat_add(size, calc_size(p, sub_at(re, i), false));
        if (nsubs(re) > 1)
            size = sat_add(size, (int64_t)nsubs(re) - 1);
        break;
    case WH_RE_REPEAT: {
        int64_t sub = calc_size(p, sub_at(re, 0), false);
        if (re->max == -1) {
            size = re->min == 0 ? sat_add(2, sub) : sat_add(1, sat_mul(re->min, sub));
            break;
        }
        /* x{2,5} = xx(x(x(x)?)?)? */
        size = sat_add(sat_mul(re->max, sub), (int64_t)re->max - re->min);
        break;
    }
    default:
        break;
    }
    if (size < 1)
        size = 1;
    re->size = size;
    re->holds |= WH_RE_HOLDS_SIZE;
    return size;
}

static void check_size(struct wh_re_parser *p, node *re)
{
    if (!p->size_on) {
        /* Until the nodes allocated times the product of the repeats seen could pass the
         * limit, sizes are not computed at all. */
        if (p->repeats == 0)
            p->repeats = 1;
        if (re->op == WH_RE_REPEAT) {
            int64_t n = re->max;
            if (n == -1)
                n = re->min;
            if (n <= 0)
                n = 1;
            if (n > MAX_SIZE / p->repeats)
                p->repeats = MAX_SIZE;
            else
                p->repeats *= n;
        }
        if ((int64_t)p->num_regexp < MAX_SIZE / p->repeats)
            return;
        p->size_on = true;
        for (size_t i = 0; i < p->nstack; i++)
            check_size(p, p->stack[i]);
    }
    if (calc_size(p, re, true) > MAX_SIZE)
        fail_whole(p, WH_REGEX_LARGE);
}

static int32_t calc_height(struct wh_re_parser *p, node *re, bool force)
{
    if (!force && (re->holds & WH_RE_HOLDS_HEIGHT))
        return re->height;
    int32_t h = 1;
    for (uint32_t i = 0; i < nsubs(re); i++) {
        int32_t hs = calc_height(p, sub_at(re, i), false);
        if (h < 1 + hs)
            h = 1 + hs;
    }
    re->height = h;
    re->holds |= WH_RE_HOLDS_HEIGHT;
    return h;
}

static void check_height(struct wh_re_parser *p, node *re)
{
    if (p->num_regexp < MAX_HEIGHT)
        return;
    if (!p->height_on) {
        p->height_on = true;
        for (size_t i = 0; i < p->nstack; i++)
            check_height(p, p->stack[i]);
    }
    if (calc_height(p, re, true) > MAX_HEIGHT)
        fail_whole(p, WH_REGEX_NESTING_DEPTH);
}

static void check_limits(struct wh_re_parser *p, node *re)
{
    if (p->num_runes > MAX_RUNES)
        fail_whole(p, WH_REGEX_LARGE);
    check_size(p, re);
    check_height(p, re);
}

/* --- the stack ------------------------------------------------------------------------------- */

static void stack_push(struct wh_re_parser *p, node *re)
{
    if (p->nstack == p->capstack) {
        p->capstack = p->capstack ? p->capstack * 2 : 32;
        p->stack = wh_xrealloc(p->stack, p->capstack * sizeof(*p->stack));
    }
    p->stack[p->nstack++] = re;
}

static bool is_char_class(const node *re)
{
    return (re->op == WH_RE_LITERAL && nrunes(re) == 1) || re->op == WH_RE_CHAR_CLASS ||
           re->op == WH_RE_ANY_CHAR_NOT_NL || re->op == WH_RE_ANY_CHAR;
}

/* maybeConcat: merges the top two literals of the stack (same case folding) into one; when r
 * is a rune, the freed top node takes it with flags. Reports whether r was pushed. */
static bool maybe_concat(struct wh_re_parser *p, int32_t r, uint16_t flags)
{
    size_t n = p->nstack;
    if (n < 2)
        return false;
    node *re1 = p->stack[n - 1], *re2 = p->stack[n - 2];
    if (re1->op != WH_RE_LITERAL || re2->op != WH_RE_LITERAL ||
        (re1->flags & WH_RE_FOLD_CASE) != (re2->flags & WH_RE_FOLD_CASE))
        return false;
    struct wh_re_runes *a = runes_of(re2), *b = runes_of(re1);
    wh_re_runes_append(a, b->v, b->n);
    if (r >= 0) {
        wh_re_runes_fini(b);
        b->v[0] = r;
        b->n = 1;
        re1->flags = flags;
        return true;
    }
    p->nstack = n - 1;
    reuse(p, re1);
    return false;
}

static node *push(struct wh_re_parser *p, node *re)
{
    p->num_runes += nrunes(re);
    const int32_t *v = nrunes(re) ? re->u.runes.v : NULL;
    if (re->op == WH_RE_CHAR_CLASS && nrunes(re) == 2 && v[0] == v[1]) {
        /* a single rune */
        if (maybe_concat(p, v[0], p->flags & (uint16_t)~WH_RE_FOLD_CASE))
            return NULL;
        re->op = WH_RE_LITERAL;
        re->u.runes.n = 1;
        re->flags = p->flags & (uint16_t)~WH_RE_FOLD_CASE;
    } else if ((re->op == WH_RE_CHAR_CLASS && nrunes(re) == 4 && v[0] == v[1] && v[2] == v[3] &&
                wh_re_simple_fold(v[0]) == v[2] && wh_re_simple_fold(v[2]) == v[0]) ||
               (re->op == WH_RE_CHAR_CLASS && nrunes(re) == 2 && v[0] + 1 == v[1] &&
                wh_re_simple_fold(v[0]) == v[1] && wh_re_simple_fold(v[1]) == v[0])) {
        /* a case-insensitive rune like [Aa] or [Δδ] */
        if (maybe_concat(p, v[0], p->flags | WH_RE_FOLD_CASE))
            return NULL;
        re->op = WH_RE_LITERAL;
        re->u.runes.n = 1;
        re->flags = p->flags | WH_RE_FOLD_CASE;
    } else {
        maybe_concat(p, -1, 0);
    }
    stack_push(p, re);
    check_limits(p, re);
    return re;
}

static int32_t min_fold_rune(int32_t r)
{
    if (r < (int32_t)wh_re_min_fold || r > (int32_t)wh_re_max_fold)
        return r;
    int32_t m = r;
    for (int32_t f = wh_re_simple_fold(r); f != r; f = wh_re_simple_fold(f))
        if (f < m)
            m = f;
    return m;
}

static void literal(struct wh_re_parser *p, int32_t r)
{
    node *re = new_node(p, WH_RE_LITERAL);
    re->flags = p->flags;
    if (p->flags & WH_RE_FOLD_CASE)
        r = min_fold_rune(r);
    struct wh_re_runes *rr = runes_of(re);
    rr->v[0] = r;
    rr->n = 1;
    push(p, re);
}

static node *op(struct wh_re_parser *p, enum wh_re_op o)
{
    node *re = new_node(p, o);
    re->flags = p->flags;
    return push(p, re);
}

/* repeatIsValid: the repeats nested in re multiply to at most n copies of the innermost. */
static bool repeat_is_valid(const node *re, int n)
{
    if (re->op == WH_RE_REPEAT) {
        int m = re->max;
        if (m == 0)
            return true;
        if (m < 0)
            m = re->min;
        if (m > n)
            return false;
        if (m > 0)
            n /= m;
    }
    for (uint32_t i = 0; i < nsubs(re); i++)
        if (!repeat_is_valid(sub_at(re, i), n))
            return false;
    return true;
}

/* The repetition operator at before (its text ends at after; last_repeat: where the operator
 * just before began, or NULL). Returns where parsing goes on. */
static const char *repeat(struct wh_re_parser *p, enum wh_re_op o, int min, int max,
                          const char *before, const char *after, const char *end,
                          const char *last_repeat)
{
    uint16_t flags = p->flags;
    if (p->flags & WH_RE_PERL_X) {
        if (after < end && *after == '?') {
            after++;
            flags ^= WH_RE_NON_GREEDY;
        }
        /* a** is an error, not a doubled star (and a++ is not supported) */
        if (last_repeat)
            fail(p, WH_REGEX_INVALID_REPEAT_OP, last_repeat, (size_t)(after - last_repeat));
    }
    size_t n = p->nstack;
    if (n == 0 || p->stack[n - 1]->op >= WH_RE_PSEUDO)
        fail(p, WH_REGEX_MISSING_REPEAT_ARG, before, (size_t)(after - before));
    node *sub = p->stack[n - 1];
    node *re = new_node(p, o);
    re->min = min;
    re->max = max;
    re->flags = flags;
    subs_push(re, sub);
    p->stack[n - 1] = re;
    check_limits(p, re);
    if (o == WH_RE_REPEAT && (min >= 2 || max >= 2) && !repeat_is_valid(re, MAX_REPEAT))
        fail(p, WH_REGEX_INVALID_REPEAT_SIZE, before, (size_t)(after - before));
    return after;
}

/* --- concatenation and alternation --------------------------------------------------------- */

static node *collapse(struct wh_re_parser *p, node **subs, size_t n, enum wh_re_op o);

/* cleanAlt */
static void clean_alt(node *re)
{
    if (re->op != WH_RE_CHAR_CLASS)
        return;
    struct wh_re_runes *r = runes_of(re);
    wh_re_clean_class(r);
    if (r->n == 2 && r->v[0] == 0 && r->v[1] == WH_RE_MAX_RUNE) {
        clear_storage(re);
        re->op = WH_RE_ANY_CHAR;
        return;
    }
    if (r->n == 4 && r->v[0] == 0 && r->v[1] == '\n' - 1 && r->v[2] == '\n' + 1 &&
        r->v[3] == WH_RE_MAX_RUNE) {
        clear_storage(re);
        re->op = WH_RE_ANY_CHAR_NOT_NL;
    }
}

static node *concat(struct wh_re_parser *p)
{
    maybe_concat(p, -1, 0);
    size_t i = p->nstack;
    while (i > 0 && p->stack[i - 1]->op < WH_RE_PSEUDO)
        i--;
    size_t n = p->nstack - i;
    p->nstack = i;
    if (n == 0)
        return push(p, new_node(p, WH_RE_EMPTY_MATCH));
    /* the slice stays readable: nothing is pushed before collapse has copied it */
    return push(p, collapse(p, p->stack + i, n, WH_RE_CONCAT));
}

static node *alternate(struct wh_re_parser *p)
{
    size_t i = p->nstack;
    while (i > 0 && p->stack[i - 1]->op < WH_RE_PSEUDO)
        i--;
    size_t n = p->nstack - i;
    p->nstack = i;
    if (n > 0)
        clean_alt(p->stack[i + n - 1]);
    if (n == 0)
        return push(p, new_node(p, WH_RE_NO_MATCH));
    return push(p, collapse(p, p->stack + i, n, WH_RE_ALTERNATE));
}

/* Equal of Go 1.23: literals and classes compare their runes only, not their flags (Go 1.25
 * also compares case folding), so (?i:a)x|ay factors to (?i:a)(?:x|y) as in 1.23. */
static bool equal(const node *x, const node *y)
{
    if (!x || !y)
        return x == y;
    if (x->op != y->op)
        return false;
    switch (x->op) {
    case WH_RE_END_TEXT:
        if ((x->flags ^ y->flags) & WH_RE_WAS_DOLLAR)
            return false;
        break;
    case WH_RE_LITERAL:
    case WH_RE_CHAR_CLASS:
        return nrunes(x) == nrunes(y) &&
               (nrunes(x) == 0 ||
                memcmp(x->u.runes.v, y->u.runes.v, nrunes(x) * sizeof(int32_t)) == 0);
    case WH_RE_ALTERNATE:
    case WH_RE_CONCAT:
        if (nsubs(x) != nsubs(y))
            return false;
        for (uint32_t i = 0; i < nsubs(x); i++)
            if (!equal(sub_at(x, i), sub_at(y, i)))
                return false;
        break;
    case WH_RE_STAR:
    case WH_RE_PLUS:
    case WH_RE_QUEST:
        if (((x->flags ^ y->flags) & WH_RE_NON_GREEDY) || !equal(sub_at(x, 0), sub_at(y, 0)))
            return false;
        break;
    case WH_RE_REPEAT:
        if (((x->flags ^ y->flags) & WH_RE_NON_GREEDY) || x->min != y->min || x->max != y->max ||
            !equal(sub_at(x, 0), sub_at(y, 0)))
            return false;
        break;
    case WH_RE_CAPTURE:
        /* Go compares the index and the name; a capture index names one group */
        if (x->min != y->min || !equal(sub_at(x, 0), sub_at(y, 0)))
            return false;
        break;
    default:
        break;
    }
    return true;
}

/* leadingString: the literal runes re begins with, and their case folding flag. */
static const int32_t *leading_string(node *re, uint32_t *n, uint16_t *flags)
{
    if (re->op == WH_RE_CONCAT && nsubs(re) > 0)
        re = sub_at(re, 0);
    if (re->op != WH_RE_LITERAL) {
        *n = 0;
        *flags = 0;
        return NULL;
    }
    *n = nrunes(re);
    *flags = re->flags & WH_RE_FOLD_CASE;
    return *n ? re->u.runes.v : NULL;
}

/* Removes the first child of the concatenation re; returns what re becomes: an empty match
 * when no child is left, the child when one is (re given back), else re. */
static node *drop_first_sub(struct wh_re_parser *p, node *re)
{
    memmove(re->u.subs.v, re->u.subs.v + 1, (nsubs(re) - 1) * sizeof(node *));
    re->u.subs.n--;
    if (nsubs(re) == 0) {
        re->op = WH_RE_EMPTY_MATCH;
        clear_storage(re);
    } else if (nsubs(re) == 1) {
        node *only = sub_at(re, 0);
        reuse(p, re);
        re = only;
    }
    return re;
}

static node *remove_leading_string(struct wh_re_parser *p, node *re, uint32_t n)
{
    if (re->op == WH_RE_CONCAT && nsubs(re) > 0) {
        node *sub = remove_leading_string(p, sub_at(re, 0), n);
        re->u.subs.v[0] = sub;
        if (sub->op == WH_RE_EMPTY_MATCH) {
            reuse(p, sub);
            re = drop_first_sub(p, re);
        }
        return re;
    }
    if (re->op == WH_RE_LITERAL) {
        struct wh_re_runes *r = runes_of(re);
        memmove(r->v, r->v + n, (r->n - n) * sizeof(int32_t));
        r->n -= n;
        if (r->n == 0)
            re->op = WH_RE_EMPTY_MATCH;
    }
    return re;
}

static node *leading_regexp(node *re)
{
    if (re->op == WH_RE_EMPTY_MATCH)
        return NULL;
    if (re->op == WH_RE_CONCAT && nsubs(re) > 0) {
        node *sub = sub_at(re, 0);
        return sub->op == WH_RE_EMPTY_MATCH ? NULL : sub;
    }
    return re;
}

static node *remove_leading_regexp(struct wh_re_parser *p, node *re, bool reuse_it)
{
    if (re->op == WH_RE_CONCAT && nsubs(re) > 0) {
        if (reuse_it)
            reuse(p, sub_at(re, 0));
        return drop_first_sub(p, re);
    }
    if (reuse_it)
        reuse(p, re);
    return new_node(p, WH_RE_EMPTY_MATCH);
}

static void append_literal(struct wh_re_runes *r, int32_t x, uint16_t flags)
{
    if (flags & WH_RE_FOLD_CASE)
        wh_re_append_folded_range(r, x, x);
    else
        wh_re_append_range(r, x, x);
}

/* mergeCharClass: dst = dst|src, dst the more complex (dst->op >= src->op). */
static void merge_char_class(node *dst, node *src)
{
    switch (dst->op) {
    case WH_RE_ANY_CHAR:
        break;
    case WH_RE_ANY_CHAR_NOT_NL: {
        bool nl = false;
        if (src->op == WH_RE_LITERAL)
            nl = nrunes(src) == 1 && src->u.runes.v[0] == '\n';
        else if (src->op == WH_RE_CHAR_CLASS)
            for (uint32_t i = 0; i + 1 < nrunes(src) && !nl; i += 2)
                nl = src->u.runes.v[i] <= '\n' && '\n' <= src->u.runes.v[i + 1];
        else if (src->op == WH_RE_ANY_CHAR)
            nl = true;
        if (nl)
            dst->op = WH_RE_ANY_CHAR;
        break;
    }
    case WH_RE_CHAR_CLASS:
        if (src->op == WH_RE_LITERAL)
            append_literal(runes_of(dst), src->u.runes.v[0], src->flags);
        else
            wh_re_append_class(runes_of(dst), src->u.runes.v, nrunes(src));
        break;
    case WH_RE_LITERAL: {
        if (src->u.runes.v[0] == dst->u.runes.v[0] && src->flags == dst->flags)
            break;
        struct wh_re_runes *r = runes_of(dst);
        int32_t d = r->v[0];
        dst->op = WH_RE_CHAR_CLASS;
        r->n = 0;
        append_literal(r, d, dst->flags);
        append_literal(r, src->u.runes.v[0], src->flags);
        break;
    }
    default:
        break;
    }
}

/* factor: takes common prefixes out of the alternation sub[0, n) in place (ABC|ABD|AEF|BCX|BCY
 * becomes A(B[CD]|EF)|BC[XY]); returns the new length. */
static size_t factor(struct wh_re_parser *p, node **sub, size_t n)
{
    if (n < 2)
        return n;
    if (++p->depth > MAX_FACTOR_DEPTH)
        fail_whole(p, WH_REGEX_NESTING_DEPTH);

    /* Round 1: common literal prefixes. str aliases the runes of a node in sub[start, i). */
    const int32_t *str = NULL;
    uint32_t nstr = 0;
    uint16_t strflags = 0;
    size_t start = 0, out = 0;
    for (size_t i = 0; i <= n; i++) {
        const int32_t *istr = NULL;
        uint32_t nistr = 0;
        uint16_t iflags = 0;
        if (i < n) {
            istr = leading_string(sub[i], &nistr, &iflags);
            if (iflags == strflags) {
                uint32_t same = 0;
                while (same < nstr && same < nistr && str[same] == istr[same])
                    same++;
                if (same > 0) {
                    nstr = same;
                    continue;
                }
            }
        }
        if (i == start + 1) {
            sub[out++] = sub[start];
        } else if (i > start + 1) {
            node *prefix = new_node(p, WH_RE_LITERAL);
            prefix->flags = strflags;
            wh_re_runes_append(runes_of(prefix), str, nstr);
            for (size_t j = start; j < i; j++) {
                sub[j] = remove_leading_string(p, sub[j], nstr);
                check_limits(p, sub[j]);
            }
            node *suffix = collapse(p, sub + start, i - start, WH_RE_ALTERNATE);
            node *re = new_node(p, WH_RE_CONCAT);
            subs_push(re, prefix);
            subs_push(re, suffix);
            sub[out++] = re;
        }
        start = i;
        str = istr;
        nstr = nistr;
        strflags = iflags;
    }
    n = out;

    /* Round 2: a common leading piece (a class, or a fixed repeat of one), only the first
     * piece of each concatenation. */
    start = 0;
    out = 0;
    node *first = NULL;
    for (size_t i = 0; i <= n; i++) {
        node *ifirst = NULL;
        if (i < n) {
            ifirst = leading_regexp(sub[i]);
            if (first && equal(first, ifirst) &&
                (is_char_class(first) || (first->op == WH_RE_REPEAT && first->min == first->max &&
                                          is_char_class(sub_at(first, 0)))))
                continue;
        }
        if (i == start + 1) {
            sub[out++] = sub[start];
        } else if (i > start + 1) {
            node *prefix = first;
            for (size_t j = start; j < i; j++) {
                sub[j] = remove_leading_regexp(p, sub[j], j != start);
                check_limits(p, sub[j]);
            }
            node *suffix = collapse(p, sub + start, i - start, WH_RE_ALTERNATE);
            node *re = new_node(p, WH_RE_CONCAT);
            subs_push(re, prefix);
            subs_push(re, suffix);
            sub[out++] = re;
        }
        start = i;
        first = ifirst;
    }
    n = out;

    /* Round 3: runs of single runes and classes become one class. */
    start = 0;
    out = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i < n && is_char_class(sub[i]))
            continue;
        if (i == start + 1) {
            sub[out++] = sub[start];
        } else if (i > start + 1) {
            /* start from the most complex */
            size_t max = start;
            for (size_t j = start + 1; j < i; j++)
                if (sub[max]->op < sub[j]->op ||
                    (sub[max]->op == sub[j]->op && nrunes(sub[max]) < nrunes(sub[j])))
                    max = j;
            node *t = sub[start];
            sub[start] = sub[max];
            sub[max] = t;
            for (size_t j = start + 1; j < i; j++) {
                merge_char_class(sub[start], sub[j]);
                reuse(p, sub[j]);
            }
            clean_alt(sub[start]);
            sub[out++] = sub[start];
        }
        if (i < n)
            sub[out++] = sub[i];
        start = i + 1;
    }
    n = out;

    /* Round 4: runs of empty matches become one. */
    out = 0;
    for (size_t i = 0; i < n; i++) {
        if (i + 1 < n && sub[i]->op == WH_RE_EMPTY_MATCH && sub[i + 1]->op == WH_RE_EMPTY_MATCH)
            continue;
        sub[out++] = sub[i];
    }
    p->depth--;
    return out;
}

/* collapse: o applied to subs[0, n), children of the same o hoisted (no concatenation of a
 * concatenation); an alternation is factored. */
static node *collapse(struct wh_re_parser *p, node **subs, size_t n, enum wh_re_op o)
{
    if (n == 1)
        return subs[0];
    node *re = new_node(p, o);
    subs_of(re);
    for (size_t i = 0; i < n; i++) {
        node *sub = subs[i];
        if (sub->op == o) {
            for (uint32_t k = 0; k < nsubs(sub); k++)
                subs_push(re, sub_at(sub, k));
            reuse(p, sub);
        } else {
            subs_push(re, sub);
        }
    }
    if (o == WH_RE_ALTERNATE) {
        re->u.subs.n = (uint32_t)factor(p, re->u.subs.v, re->u.subs.n);
        if (re->u.subs.n == 1) {
            node *old = re;
            re = sub_at(re, 0);
            reuse(p, old);
        }
    }
    return re;
}

/* swapVerticalBar: when the top of the stack sits above a '|', moves it below; two classes on
 * either side merge into one. */
static bool swap_vertical_bar(struct wh_re_parser *p)
{
    size_t n = p->nstack;
    if (n >= 3 && p->stack[n - 2]->op == WH_RE_VERTICAL_BAR && is_char_class(p->stack[n - 1]) &&
        is_char_class(p->stack[n - 3])) {
        node *re1 = p->stack[n - 1], *re3 = p->stack[n - 3];
        if (re1->op > re3->op) {
            node *t = re1;
            re1 = re3;
            re3 = t;
            p->stack[n - 3] = re3;
        }
        merge_char_class(re3, re1);
        reuse(p, re1);
        p->nstack = n - 1;
        return true;
    }
    if (n >= 2) {
        node *re1 = p->stack[n - 1], *re2 = p->stack[n - 2];
        if (re2->op == WH_RE_VERTICAL_BAR) {
            if (n >= 3)
                clean_alt(p->stack[n - 3]);
            p->stack[n - 2] = re1;
            p->stack[n - 1] = re2;
            return true;
        }
    }
    return false;
}

static void parse_vertical_bar(struct wh_re_parser *p)
{
    concat(p);
    if (!swap_vertical_bar(p))
        op(p, WH_RE_VERTICAL_BAR);
}

static void parse_right_paren(struct wh_re_parser *p)
{
    concat(p);
    if (swap_vertical_bar(p))
        p->nstack--;
    alternate(p);
    size_t n = p->nstack;
    if (n < 2)
        fail_whole(p, WH_REGEX_UNEXPECTED_PAREN);
    node *re1 = p->stack[n - 1], *re2 = p->stack[n - 2];
    p->nstack = n - 2;
    if (re2->op != WH_RE_LEFT_PAREN)
        fail_whole(p, WH_REGEX_UNEXPECTED_PAREN);
    p->flags = re2->flags;
    if (re2->min == 0) {
        push(p, re1);
    } else {
        re2->op = WH_RE_CAPTURE;
        subs_push(re2, re1);
        push(p, re2);
    }
}

/* --- lexical pieces -------------------------------------------------------------------------- */

/* nextRune: the rune at *t (*t advanced past it); invalid UTF-8 fails with the rest of the text
 * (up to end) as Go's Expr. An empty text gives U+FFFD and no error, as in Go. */
static int32_t next_rune(struct wh_re_parser *p, const char **t, const char *end)
{
    size_t w;
    int32_t c = wh_re_decode(*t, (size_t)(end - *t), &w);
    if (c == WH_RE_RUNE_ERROR && w == 1)
        fail(p, WH_REGEX_INVALID_UTF8, *t, (size_t)(end - *t));
    *t += w;
    return c;
}

static void check_utf8(struct wh_re_parser *p, const char *s, const char *end)
{
    while (s < end)
        next_rune(p, &s, end);
}

static bool is_alnum(int32_t c)
{
    return ('0' <= c && c <= '9') || ('A' <= c && c <= 'Z') || ('a' <= c && c <= 'z');
}

static int32_t unhex(int32_t c)
{
    if ('0' <= c && c <= '9')
        return c - '0';
    if ('a' <= c && c <= 'f')
        return c - 'a' + 10;
    if ('A' <= c && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* An octal escape: first (a digit read already) and up to two more digits at *t. */
static int32_t octal(int32_t first, const char **t, const char *end)
{
    int32_t r = first - '0';
    for (int i = 1; i < 3 && *t < end && **t >= '0' && **t <= '7'; i++) {
        r = r * 8 + (**t - '0');
        (*t)++;
    }
    return r;
}

/* parseEscape: the escape at *s (a backslash); *s advanced past it. */
static int32_t parse_escape(struct wh_re_parser *p, const char **s, const char *end)
{
    const char *start = *s, *t = start + 1;
    if (t == end)
        fail(p, WH_REGEX_TRAILING_BACKSLASH, NULL, 0);
    int32_t c = next_rune(p, &t, end), r = 0;
    switch (c) {
    default:
        if (c < 0x80 && !is_alnum(c)) {
            /* an escaped punctuation or space character is itself (\_ included) */
            *s = t;
            return c;
        }
        break;
    case '1':
    case '2':
    case '3':
    case '4':
    case '5':
    case '6':
    case '7':
        /* a single non-zero digit would be a backreference */
        if (t == end || *t < '0' || *t > '7')
            break;
        r = octal(c, &t, end);
        *s = t;
        return r;
    case '0':
        r = octal(c, &t, end);
        *s = t;
        return r;
    case 'x': {
        if (t == end)
            break;
        c = next_rune(p, &t, end);
        if (c == '{') {
            /* any number of hex digits in braces, at least one, at most U+10FFFF */
            int nhex = 0;
            bool ok = false;
            for (;;) {
                if (t == end)
                    break;
                c = next_rune(p, &t, end);
                if (c == '}') {
                    ok = nhex > 0;
                    break;
                }
                int32_t v = unhex(c);
                if (v < 0)
                    break;
                r = r * 16 + v;
                if (r > WH_RE_MAX_RUNE)
                    break;
                nhex++;
            }
            if (!ok)
                break;
            *s = t;
            return r;
        }
        int32_t x = unhex(c);
        c = next_rune(p, &t, end);
        int32_t y = unhex(c);
        if (x < 0 || y < 0)
            break;
        *s = t;
        return x * 16 + y;
    }
    /* C escapes; no \b, which is the word boundary outside classes and an error inside */
    case 'a':
        *s = t;
        return '\a';
    case 'f':
        *s = t;
        return '\f';
    case 'n':
        *s = t;
        return '\n';
    case 'r':
        *s = t;
        return '\r';
    case 't':
        *s = t;
        return '\t';
    case 'v':
        *s = t;
        return '\v';
    }
    fail(p, WH_REGEX_INVALID_ESCAPE, start, (size_t)(t - start));
}

/* parseClassChar: one character of a class (whole: the class from its '['). */
static int32_t parse_class_char(struct wh_re_parser *p, const char **s, const char *end,
                                const char *whole)
{
    if (*s == end)
        fail(p, WH_REGEX_MISSING_BRACKET, whole, (size_t)(end - whole));
    if (**s == '\\')
        return parse_escape(p, s, end);
    return next_rune(p, s, end);
}

/* appendGroup */
static void append_group(struct wh_re_parser *p, struct wh_re_runes *r, const struct wh_re_group *g)
{
    if (!(p->flags & WH_RE_FOLD_CASE)) {
        if (g->sign < 0)
            wh_re_append_negated_class(r, g->class, g->n);
        else
            wh_re_append_class(r, g->class, g->n);
        return;
    }
    p->tmp.n = 0;
    wh_re_append_folded_class(&p->tmp, g->class, g->n);
    wh_re_clean_class(&p->tmp);
    if (g->sign < 0)
        wh_re_append_negated_class(r, p->tmp.v, p->tmp.n);
    else
        wh_re_append_class(r, p->tmp.v, p->tmp.n);
}

/* parsePerlClassEscape: \d and friends at *s, appended to r; false when there is none. */
static bool parse_perl_class_escape(struct wh_re_parser *p, const char **s, const char *end,
                                    struct wh_re_runes *r)
{
    struct wh_re_group g;
    if (!(p->flags & WH_RE_PERL_X) || !wh_re_perl_group(*s, (size_t)(end - *s), &g))
        return false;
    append_group(p, r, &g);
    *s += 2;
    return true;
}

/* parseNamedClass: [:alnum:] and friends at *s (which starts "[:"), appended to r; false when
 * there is no ":]" after it. */
static bool parse_named_class(struct wh_re_parser *p, const char **s, const char *end,
                              struct wh_re_runes *r)
{
    const char *t = *s;
    const char *close = NULL;
    /* Go looks for ":]" anywhere after the "[:" */
    for (const char *q = t + 2; q + 1 < end; q++) {
        if (q[0] == ':' && q[1] == ']') {
            close = q;
            break;
        }
    }
    if (!close)
        return false;
    size_t n = (size_t)(close + 2 - t);
    struct wh_re_group g;
    if (!wh_re_posix_group(t, n, &g))
        fail(p, WH_REGEX_INVALID_CHAR_RANGE, t, n);
    append_group(p, r, &g);
    *s = t + n;
    return true;
}

/* parseUnicodeClass: \pL, \p{Greek}, \PL, \p{^Greek} at *s, appended to r; false when *s is not
 * one. */
static bool parse_unicode_class(struct wh_re_parser *p, const char **s, const char *end,
                                struct wh_re_runes *r)
{
    const char *t = *s;
    if (!(p->flags & WH_RE_UNICODE_GROUPS) || end - t < 2 || t[0] != '\\' ||
        (t[1] != 'p' && t[1] != 'P'))
        return false;
    int sign = t[1] == 'P' ? -1 : 1;
    const char *q = t + 2;
    int32_t c = next_rune(p, &q, end);
    const char *seq = t, *name, *rest;
    size_t nseq, nname;
    if (c != '{') {
        /* a one-letter name (whatever rune follows, even none) */
        nseq = (size_t)(q - t);
        name = t + 2;
        nname = nseq - 2;
        rest = q;
    } else {
        const char *close = memchr(t, '}', (size_t)(end - t));
        if (!close) {
            check_utf8(p, t, end);
            fail(p, WH_REGEX_INVALID_CHAR_RANGE, t, (size_t)(end - t));
        }
        nseq = (size_t)(close + 1 - t);
        rest = close + 1;
        name = t + 3;
        nname = (size_t)(close - name);
        check_utf8(p, name, close);
    }
    if (nname > 0 && name[0] == '^') {
        sign = -sign;
        name++;
        nname--;
    }
    const uint32_t *tab, *fold;
    uint32_t ntab, nfold;
    if (!wh_re_unicode_table(name, nname, &tab, &ntab, &fold, &nfold))
        fail(p, WH_REGEX_INVALID_CHAR_RANGE, seq, nseq);
    if (!(p->flags & WH_RE_FOLD_CASE) || !fold) {
        if (sign > 0)
            wh_re_append_table(r, tab, ntab);
        else
            wh_re_append_negated_table(r, tab, ntab);
    } else {
        /* the table and its fold complement, merged and cleaned first */
        p->tmp.n = 0;
        wh_re_append_table(&p->tmp, tab, ntab);
        wh_re_append_table(&p->tmp, fold, nfold);
        wh_re_clean_class(&p->tmp);
        if (sign > 0)
            wh_re_append_class(r, p->tmp.v, p->tmp.n);
        else
            wh_re_append_negated_class(r, p->tmp.v, p->tmp.n);
    }
    *s = rest;
    return true;
}

/* parseClass: the class at *s ('['), pushed. */
static void parse_class(struct wh_re_parser *p, const char **s, const char *end)
{
    const char *whole = *s, *t = *s + 1;
    node *re = new_node(p, WH_RE_CHAR_CLASS);
    re->flags = p->flags;
    struct wh_re_runes *class = runes_of(re);
    int sign = 1;
    if (t < end && *t == '^') {
        sign = -1;
        t++;
        /* without ClassNL a negated class must not match \n: put it in, to be negated */
        if (!(p->flags & WH_RE_CLASS_NL))
            wh_re_runes_push(class, '\n', '\n');
    }
    bool first = true; /* ] and - are literal first */
    while (t == end || *t != ']' || first) {
        /* POSIX (not the Perl flags): - only first or last */
        if (t < end && *t == '-' && !(p->flags & WH_RE_PERL_X) && !first &&
            (end - t == 1 || t[1] != ']')) {
            size_t w;
            (void)wh_re_decode(t + 1, (size_t)(end - t - 1), &w);
            fail(p, WH_REGEX_INVALID_CHAR_RANGE, t, 1 + w);
        }
        first = false;
        if (end - t > 2 && t[0] == '[' && t[1] == ':' && parse_named_class(p, &t, end, class))
            continue;
        if (parse_unicode_class(p, &t, end, class))
            continue;
        if (parse_perl_class_escape(p, &t, end, class))
            continue;
        const char *rng = t;
        int32_t lo = parse_class_char(p, &t, end, whole), hi = lo;
        /* [a-] is a and - */
        if (end - t >= 2 && t[0] == '-' && t[1] != ']') {
            t++;
            hi = parse_class_char(p, &t, end, whole);
            if (hi < lo)
                fail(p, WH_REGEX_INVALID_CHAR_RANGE, rng, (size_t)(t - rng));
        }
        if (!(p->flags & WH_RE_FOLD_CASE))
            wh_re_append_range(class, lo, hi);
        else
            wh_re_append_folded_range(class, lo, hi);
    }
    t++; /* ] */
    wh_re_clean_class(class);
    if (sign < 0)
        wh_re_negate_class(class);
    push(p, re);
    *s = t;
}

/* parseInt: decimal digits at *s without a leading zero; -1 when 1e8 or more. */
static bool parse_int(const char **s, const char *end, int *out)
{
    const char *t = *s;
    if (t == end || *t < '0' || *t > '9')
        return false;
    if (end - t >= 2 && t[0] == '0' && t[1] >= '0' && t[1] <= '9')
        return false;
    int n = 0;
    bool big = false;
    for (; t < end && *t >= '0' && *t <= '9'; t++) {
        if (big)
            continue;
        if (n >= 100000000) {
            n = -1;
            big = true;
            continue;
        }
        n = n * 10 + (*t - '0');
    }
    *out = n;
    *s = t;
    return true;
}

/* parseRepeat: {min}, {min,} (max -1) or {min,max} at *s; false when it is not one (then '{' is
 * a literal). A number too big makes min -1. */
static bool parse_repeat(const char **s, const char *end, int *min, int *max)
{
    const char *t = *s;
    if (t == end || *t != '{')
        return false;
    t++;
    if (!parse_int(&t, end, min))
        return false;
    if (t == end)
        return false;
    if (*t != ',') {
        *max = *min;
    } else {
        t++;
        if (t == end)
            return false;
        if (*t == '}') {
            *max = -1;
        } else {
            if (!parse_int(&t, end, max))
                return false;
            if (*max < 0)
                *min = -1;
        }
    }
    if (t == end || *t != '}')
        return false;
    *s = t + 1;
    return true;
}

static bool is_valid_capture_name(const char *name, size_t n)
{
    if (n == 0)
        return false;
    for (size_t i = 0; i < n; i++)
        if (name[i] != '_' && !is_alnum((unsigned char)name[i]))
            return false;
    return true;
}

/* parsePerlFlags: (?i) (?i:  (?: (?P<name> (?<name> at *s ("(?"). */
static void parse_perl_flags(struct wh_re_parser *p, const char **s, const char *end)
{
    const char *start = *s, *t = start;
    size_t n = (size_t)(end - t);
    bool with_p = n > 4 && t[2] == 'P' && t[3] == '<';
    bool with_name = n > 3 && t[2] == '<';
    if (with_p || with_name) {
        const char *name = t + (with_name ? 3 : 4);
        const char *close = memchr(t, '>', n);
        if (!close) {
            check_utf8(p, t, end);
            fail(p, WH_REGEX_INVALID_NAMED_CAPTURE, start, n);
        }
        check_utf8(p, name, close);
        if (!is_valid_capture_name(name, (size_t)(close - name)))
            fail(p, WH_REGEX_INVALID_NAMED_CAPTURE, start, (size_t)(close + 1 - start));
        p->num_cap++;
        node *re = op(p, WH_RE_LEFT_PAREN);
        re->min = p->num_cap;
        re->max = (int32_t)(name - p->whole) + 1; /* where the name is, for wh_re_dump */
        *s = close + 1;
        return;
    }
    /* flags, then ':' (a group) or ')' */
    t += 2;
    uint16_t flags = p->flags;
    int sign = 1;
    bool saw_flag = false;
    while (t < end) {
        int32_t c = next_rune(p, &t, end);
        switch (c) {
        case 'i':
            flags |= WH_RE_FOLD_CASE;
            saw_flag = true;
            continue;
        case 'm':
            flags &= (uint16_t)~WH_RE_ONE_LINE;
            saw_flag = true;
            continue;
        case 's':
            flags |= WH_RE_DOT_NL;
            saw_flag = true;
            continue;
        case 'U':
            flags |= WH_RE_NON_GREEDY;
            saw_flag = true;
            continue;
        case '-':
            if (sign < 0)
                break;
            sign = -1;
            /* inverted, so that the flags above clear instead of set; inverted back below */
            flags = (uint16_t)~flags;
            saw_flag = false;
            continue;
        case ':':
        case ')':
            if (sign < 0) {
                if (!saw_flag)
                    break;
                flags = (uint16_t)~flags;
            }
            if (c == ':')
                op(p, WH_RE_LEFT_PAREN);
            p->flags = flags;
            *s = t;
            return;
        default:
            break;
        }
        break;
    }
    fail(p, WH_REGEX_INVALID_PERL_OP, start, (size_t)(t - start));
}

/* --- the parse ------------------------------------------------------------------------------- */

static void parse_all(struct wh_re_parser *p)
{
    const char *t = p->whole, *end = p->whole + p->len;
    const char *last_repeat = NULL;
    while (t < end) {
        const char *this_repeat = NULL;
        switch (*t) {
        default:
            literal(p, next_rune(p, &t, end));
            break;
        case '(':
            if ((p->flags & WH_RE_PERL_X) && end - t >= 2 && t[1] == '?') {
                parse_perl_flags(p, &t, end);
                break;
            }
            p->num_cap++;
            op(p, WH_RE_LEFT_PAREN)->min = p->num_cap;
            t++;
            break;
        case '|':
            parse_vertical_bar(p);
            t++;
            break;
        case ')':
            parse_right_paren(p);
            t++;
            break;
        case '^':
            op(p, (p->flags & WH_RE_ONE_LINE) ? WH_RE_BEGIN_TEXT : WH_RE_BEGIN_LINE);
            t++;
            break;
        case '$':
            if (p->flags & WH_RE_ONE_LINE)
                op(p, WH_RE_END_TEXT)->flags |= WH_RE_WAS_DOLLAR;
            else
                op(p, WH_RE_END_LINE);
            t++;
            break;
        case '.':
            op(p, (p->flags & WH_RE_DOT_NL) ? WH_RE_ANY_CHAR : WH_RE_ANY_CHAR_NOT_NL);
            t++;
            break;
        case '[':
            parse_class(p, &t, end);
            break;
        case '*':
        case '+':
        case '?': {
            enum wh_re_op o = *t == '*' ? WH_RE_STAR : *t == '+' ? WH_RE_PLUS : WH_RE_QUEST;
            const char *before = t;
            t = repeat(p, o, 0, 0, before, t + 1, end, last_repeat);
            this_repeat = before;
            break;
        }
        case '{': {
            const char *before = t, *after = t;
            int min = 0, max = 0;
            if (!parse_repeat(&after, end, &min, &max)) {
                literal(p, '{');
                t++;
                break;
            }
            if (min < 0 || min > MAX_REPEAT || max > MAX_REPEAT || (max >= 0 && min > max))
                fail(p, WH_REGEX_INVALID_REPEAT_SIZE, before, (size_t)(after - before));
            t = repeat(p, WH_RE_REPEAT, min, max, before, after, end, last_repeat);
            this_repeat = before;
            break;
        }
        case '\\': {
            if ((p->flags & WH_RE_PERL_X) && end - t >= 2) {
                bool done = true;
                switch (t[1]) {
                case 'A':
                    op(p, WH_RE_BEGIN_TEXT);
                    t += 2;
                    break;
                case 'b':
                    op(p, WH_RE_WORD_BOUNDARY);
                    t += 2;
                    break;
                case 'B':
                    op(p, WH_RE_NO_WORD_BOUNDARY);
                    t += 2;
                    break;
                case 'C':
                    /* any byte: not supported */
                    fail(p, WH_REGEX_INVALID_ESCAPE, t, 2);
                case 'Q': {
                    /* \Q...\E: literals; invalid UTF-8 is reported up to the \E */
                    const char *lit = t + 2, *lend = end;
                    for (const char *q = lit; q + 1 < end; q++) {
                        if (q[0] == '\\' && q[1] == 'E') {
                            lend = q;
                            break;
                        }
                    }
                    t = lend == end ? end : lend + 2;
                    while (lit < lend)
                        literal(p, next_rune(p, &lit, lend));
                    break;
                }
                case 'z':
                    op(p, WH_RE_END_TEXT);
                    t += 2;
                    break;
                default:
                    done = false;
                    break;
                }
                if (done)
                    break;
            }
            node *re = new_node(p, WH_RE_CHAR_CLASS);
            re->flags = p->flags;
            if (end - t >= 2 && (t[1] == 'p' || t[1] == 'P') &&
                parse_unicode_class(p, &t, end, runes_of(re))) {
                push(p, re);
                break;
            }
            if (parse_perl_class_escape(p, &t, end, runes_of(re))) {
                push(p, re);
                break;
            }
            reuse(p, re);
            literal(p, parse_escape(p, &t, end));
            break;
        }
        }
        last_repeat = this_repeat;
    }
    concat(p);
    if (swap_vertical_bar(p))
        p->nstack--;
    alternate(p);
    if (p->nstack != 1)
        fail_whole(p, WH_REGEX_MISSING_PAREN);
}

struct wh_re_node *wh_re_parse(struct wh_re_parser *p, const char *pattern, size_t len,
                               uint16_t flags)
{
    memset(p, 0, sizeof(*p));
    p->whole = pattern;
    p->len = len;
    p->flags = flags;
    wh_re_runes_init(&p->tmp);
    if (setjmp(p->fail))
        return NULL;
    parse_all(p);
    return p->stack[0];
}

void wh_re_parse_fini(struct wh_re_parser *p)
{
    struct wh_re_chunk *c = p->chunks;
    while (c) {
        struct wh_re_chunk *next = c->next;
        for (size_t i = 0; i < c->used; i++)
            release_storage(&c->nodes[i]);
        free(c);
        c = next;
    }
    p->chunks = NULL;
    free(p->stack);
    p->stack = NULL;
    wh_re_runes_fini(&p->tmp);
}

/* --- the tests' view of a tree -----------------------------------------------------------------
 */

struct out {
    char *s;
    size_t n, cap;
};

static void out_add(struct out *o, const char *s, size_t n)
{
    if (o->n + n + 1 > o->cap) {
        while (o->n + n + 1 > o->cap)
            o->cap = o->cap ? o->cap * 2 : 64;
        o->s = wh_xrealloc(o->s, o->cap);
    }
    memcpy(o->s + o->n, s, n);
    o->n += n;
    o->s[o->n] = '\0';
}

static void out_str(struct out *o, const char *s)
{
    out_add(o, s, strlen(s));
}

/* utf8.AppendRune: surrogates and values past U+10FFFF are written as U+FFFD. */
static void out_rune(struct out *o, int32_t r)
{
    char b[4];
    if ((r >= 0xD800 && r <= 0xDFFF) || r < 0 || r > WH_RE_MAX_RUNE)
        r = WH_RE_RUNE_ERROR;
    if (r < 0x80) {
        b[0] = (char)r;
        out_add(o, b, 1);
    } else if (r < 0x800) {
        b[0] = (char)(0xC0 | (r >> 6));
        b[1] = (char)(0x80 | (r & 0x3F));
        out_add(o, b, 2);
    } else if (r < 0x10000) {
        b[0] = (char)(0xE0 | (r >> 12));
        b[1] = (char)(0x80 | ((r >> 6) & 0x3F));
        b[2] = (char)(0x80 | (r & 0x3F));
        out_add(o, b, 3);
    } else {
        b[0] = (char)(0xF0 | (r >> 18));
        b[1] = (char)(0x80 | ((r >> 12) & 0x3F));
        b[2] = (char)(0x80 | ((r >> 6) & 0x3F));
        b[3] = (char)(0x80 | (r & 0x3F));
        out_add(o, b, 4);
    }
}

static void dump(struct out *o, const node *re, const char *pattern)
{
    static const char *const names[] = {
        [WH_RE_NO_MATCH] = "no",         [WH_RE_EMPTY_MATCH] = "emp",
        [WH_RE_LITERAL] = "lit",         [WH_RE_CHAR_CLASS] = "cc",
        [WH_RE_ANY_CHAR_NOT_NL] = "dnl", [WH_RE_ANY_CHAR] = "dot",
        [WH_RE_BEGIN_LINE] = "bol",      [WH_RE_END_LINE] = "eol",
        [WH_RE_BEGIN_TEXT] = "bot",      [WH_RE_END_TEXT] = "eot",
        [WH_RE_WORD_BOUNDARY] = "wb",    [WH_RE_NO_WORD_BOUNDARY] = "nwb",
        [WH_RE_CAPTURE] = "cap",         [WH_RE_STAR] = "star",
        [WH_RE_PLUS] = "plus",           [WH_RE_QUEST] = "que",
        [WH_RE_REPEAT] = "rep",          [WH_RE_CONCAT] = "cat",
        [WH_RE_ALTERNATE] = "alt",
    };
    char num[64];
    if (re->op >= sizeof(names) / sizeof(names[0]) || !names[re->op]) {
        snprintf(num, sizeof(num), "op%d", re->op);
        out_str(o, num);
    } else if (re->op == WH_RE_LITERAL) {
        out_str(o, nrunes(re) > 1 ? "str" : "lit");
        if (re->flags & WH_RE_FOLD_CASE)
            for (uint32_t i = 0; i < nrunes(re); i++)
                if (wh_re_simple_fold(re->u.runes.v[i]) != re->u.runes.v[i]) {
                    out_str(o, "fold");
                    break;
                }
    } else {
        if (re->op >= WH_RE_STAR && re->op <= WH_RE_REPEAT && (re->flags & WH_RE_NON_GREEDY))
            out_str(o, "n");
        out_str(o, names[re->op]);
    }
    out_str(o, "{");
    switch (re->op) {
    case WH_RE_END_TEXT:
        if (!(re->flags & WH_RE_WAS_DOLLAR))
            out_str(o, "\\z");
        break;
    case WH_RE_LITERAL:
        for (uint32_t i = 0; i < nrunes(re); i++)
            out_rune(o, re->u.runes.v[i]);
        break;
    case WH_RE_CONCAT:
    case WH_RE_ALTERNATE:
        for (uint32_t i = 0; i < nsubs(re); i++)
            dump(o, sub_at(re, i), pattern);
        break;
    case WH_RE_STAR:
    case WH_RE_PLUS:
    case WH_RE_QUEST:
        dump(o, sub_at(re, 0), pattern);
        break;
    case WH_RE_REPEAT:
        snprintf(num, sizeof(num), "%d,%d ", re->min, re->max);
        out_str(o, num);
        dump(o, sub_at(re, 0), pattern);
        break;
    case WH_RE_CAPTURE:
        if (re->max > 0) {
            const char *name = pattern + re->max - 1, *e = strchr(name, '>');
            out_add(o, name, (size_t)(e - name));
            out_str(o, ":");
        }
        dump(o, sub_at(re, 0), pattern);
        break;
    case WH_RE_CHAR_CLASS:
        for (uint32_t i = 0; i + 1 < nrunes(re); i += 2) {
            /* Go's %#x: 0x0 for zero too */
            unsigned lo = (unsigned)re->u.runes.v[i], hi = (unsigned)re->u.runes.v[i + 1];
            if (lo == hi)
                snprintf(num, sizeof(num), "%s0x%x", i ? " " : "", lo);
            else
                snprintf(num, sizeof(num), "%s0x%x-0x%x", i ? " " : "", lo, hi);
            out_str(o, num);
        }
        break;
    default:
        break;
    }
    out_str(o, "}");
}

char *wh_re_dump(const struct wh_re_node *re, const char *pattern, size_t *len)
{
    struct out o = {NULL, 0, 0};
    out_str(&o, "");
    dump(&o, re, pattern);
    *len = o.n;
    return o.s;
}
