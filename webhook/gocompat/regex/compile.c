/* The parse tree to a program for match.c, as Thompson's construction lays it out: a split goes
 * on at the next instruction and at its argument, a jump at its argument. What Go's compiler
 * and Simplify do that changes only the shape (greediness, capture slots, the order of
 * alternatives) is left out: MatchString asks only whether there is a match.
 *
 * Repeats are expanded as Go's Simplify expands them (x{2,4} is x x (x (x)?)?), so the program
 * grows as Go's does and Go's size limit bounds it, with two savings: a literal string is one
 * instruction however long (Go's limit counts it rune by rune only in some parses, so a
 * repeated long literal it accepts would otherwise cost millions of instructions), and a class
 * is stored once however often it is repeated or written. */
#include "gocompat/regex/regex_int.h"

#include <stdlib.h>
#include <string.h>

#include "util/mem.h"

/* Go's limit is 3355443 instructions by its own count, which is about ours; this bound only
 * stops a program that would hold hundreds of megabytes should a pattern get past Go's
 * accounting in a way not found yet ("expression too large", as Go would say). */
#define PROG_LIMIT (4u * 3355443u)

struct builder {
    struct wh_re_parser *p;
    uint32_t *prog;
    size_t n, cap;
    bool too_big;
    /* classes: pairs in crunes, class k at [cat[k], cat[k + 1]) */
    int32_t *crunes;
    size_t ncrunes, capcrunes;
    uint32_t *cat;
    size_t nclasses, capclasses;
    uint32_t *hash; /* open addressing over class indexes + 1, 0 empty */
    size_t hashcap;
    /* strings */
    int32_t *srunes;
    size_t nsrunes, capsrunes;
    struct wh_re_string *strs;
    size_t nstrs, capstrs;
};

static void *grow(void *v, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return v;
    size_t c = *cap ? *cap : 16;
    while (c < need)
        c *= 2;
    *cap = c;
    return wh_xrealloc(v, c * size);
}

static uint32_t emit(struct builder *b, enum wh_re_inst_op op, uint32_t arg)
{
    if (b->n >= PROG_LIMIT) {
        b->too_big = true;
        return (uint32_t)b->n;
    }
    b->prog = grow(b->prog, &b->cap, b->n + 1, sizeof(*b->prog));
    b->prog[b->n] = WH_RE_INST(op, arg);
    return (uint32_t)b->n++;
}

static void patch(struct builder *b, uint32_t at, uint32_t target)
{
    if (at < b->n)
        b->prog[at] = WH_RE_INST(WH_RE_INST_OP(b->prog[at]), target);
}

static uint32_t here(const struct builder *b)
{
    return (uint32_t)b->n;
}

/* Points every instruction of a chain (each argument: the previous one + 1, 0 ending it) at
 * target. */
static void patch_chain(struct builder *b, uint32_t chain, uint32_t target)
{
    while (chain && !b->too_big) {
        uint32_t at = chain - 1;
        chain = WH_RE_INST_ARG(b->prog[at]);
        patch(b, at, target);
    }
}

static uint32_t class_hash(const int32_t *v, uint32_t n)
{
    uint32_t h = 2166136261u;
    for (uint32_t i = 0; i < n; i++) {
        h ^= (uint32_t)v[i];
        h *= 16777619u;
    }
    return h;
}

static bool class_equal(const struct builder *b, uint32_t k, const int32_t *v, uint32_t n)
{
    uint32_t at = b->cat[k], len = b->cat[k + 1] - at;
    return len == n && memcmp(b->crunes + at, v, n * sizeof(*v)) == 0;
}

static void rehash(struct builder *b)
{
    size_t cap = b->hashcap ? b->hashcap * 2 : 64;
    uint32_t *h = wh_xcalloc(cap, sizeof(*h));
    for (uint32_t k = 0; k < b->nclasses; k++) {
        uint32_t at = b->cat[k];
        size_t i = class_hash(b->crunes + at, b->cat[k + 1] - at) & (cap - 1);
        while (h[i])
            i = (i + 1) & (cap - 1);
        h[i] = k + 1;
    }
    free(b->hash);
    b->hash = h;
    b->hashcap = cap;
}

/* The index of the class v[0, n), stored once. */
static uint32_t class_index(struct builder *b, const int32_t *v, uint32_t n)
{
    if (2 * (b->nclasses + 1) > b->hashcap)
        rehash(b);
    size_t i = class_hash(v, n) & (b->hashcap - 1);
    while (b->hash[i]) {
        if (class_equal(b, b->hash[i] - 1, v, n))
            return b->hash[i] - 1;
        i = (i + 1) & (b->hashcap - 1);
    }
    uint32_t k = (uint32_t)b->nclasses;
    b->crunes = grow(b->crunes, &b->capcrunes, b->ncrunes + n, sizeof(*b->crunes));
    memcpy(b->crunes + b->ncrunes, v, n * sizeof(*v));
    b->ncrunes += n;
    b->cat = grow(b->cat, &b->capclasses, b->nclasses + 2, sizeof(*b->cat));
    b->cat[k] = (uint32_t)(b->ncrunes - n);
    b->cat[k + 1] = (uint32_t)b->ncrunes;
    b->nclasses++;
    b->hash[i] = k + 1;
    return k;
}

static uint32_t string_index(struct builder *b, const int32_t *v, uint32_t n, bool fold)
{
    b->srunes = grow(b->srunes, &b->capsrunes, b->nsrunes + n, sizeof(*b->srunes));
    memcpy(b->srunes + b->nsrunes, v, n * sizeof(*v));
    b->strs = grow(b->strs, &b->capstrs, b->nstrs + 1, sizeof(*b->strs));
    b->strs[b->nstrs] = (struct wh_re_string){(uint32_t)b->nsrunes, n, fold};
    b->nsrunes += n;
    return (uint32_t)b->nstrs++;
}

static void gen(struct builder *b, struct wh_re_node *re);

static void gen_star(struct builder *b, struct wh_re_node *sub)
{
    uint32_t loop = emit(b, WH_RE_I_SPLIT, 0);
    gen(b, sub);
    emit(b, WH_RE_I_JUMP, loop);
    patch(b, loop, here(b));
}

static void gen_plus(struct builder *b, struct wh_re_node *sub)
{
    uint32_t loop = here(b);
    gen(b, sub);
    emit(b, WH_RE_I_SPLIT, loop);
}

/* x{min,max} as Simplify writes it. */
static void gen_repeat(struct builder *b, struct wh_re_node *re)
{
    struct wh_re_node *sub = re->u.subs.v[0];
    int min = re->min, max = re->max;
    if (max == -1) {
        if (min == 0) {
            gen_star(b, sub);
            return;
        }
        for (int i = 1; i < min && !b->too_big; i++)
            gen(b, sub);
        gen_plus(b, sub);
        return;
    }
    for (int i = 0; i < min && !b->too_big; i++)
        gen(b, sub);
    /* (x(x(x)?)?)?: every optional copy may end the repeat; the splits are chained through
     * their arguments (previous split + 1) until the end is known */
    uint32_t chain = 0;
    for (int i = min; i < max && !b->too_big; i++) {
        chain = emit(b, WH_RE_I_SPLIT, chain) + 1;
        gen(b, sub);
    }
    patch_chain(b, chain, here(b));
}

static void gen(struct builder *b, struct wh_re_node *re)
{
    if (b->too_big)
        return;
    switch (re->op) {
    case WH_RE_NO_MATCH:
        emit(b, WH_RE_I_FAIL, 0);
        break;
    case WH_RE_EMPTY_MATCH:
        break;
    case WH_RE_LITERAL: {
        const int32_t *v = re->u.runes.v;
        uint32_t n = re->u.runes.n;
        bool fold = (re->flags & WH_RE_FOLD_CASE) != 0;
        if (n == 1) {
            bool folds = fold && wh_re_simple_fold(v[0]) != v[0];
            emit(b, folds ? WH_RE_I_FOLD : WH_RE_I_RUNE, (uint32_t)v[0]);
            break;
        }
        if (!(re->holds & WH_RE_HOLDS_INDEX)) {
            re->height = (int32_t)string_index(b, v, n, fold);
            re->holds |= WH_RE_HOLDS_INDEX;
        }
        emit(b, WH_RE_I_STRING, (uint32_t)re->height);
        break;
    }
    case WH_RE_CHAR_CLASS:
        if (re->u.runes.n == 0) {
            emit(b, WH_RE_I_FAIL, 0);
            break;
        }
        if (!(re->holds & WH_RE_HOLDS_INDEX)) {
            re->height = (int32_t)class_index(b, re->u.runes.v, re->u.runes.n);
            re->holds |= WH_RE_HOLDS_INDEX;
        }
        emit(b, WH_RE_I_CLASS, (uint32_t)re->height);
        break;
    case WH_RE_ANY_CHAR_NOT_NL:
        emit(b, WH_RE_I_ANY_NOT_NL, 0);
        break;
    case WH_RE_ANY_CHAR:
        emit(b, WH_RE_I_ANY, 0);
        break;
    case WH_RE_BEGIN_LINE:
        emit(b, WH_RE_I_EMPTY, WH_RE_EMPTY_BEGIN_LINE);
        break;
    case WH_RE_END_LINE:
        emit(b, WH_RE_I_EMPTY, WH_RE_EMPTY_END_LINE);
        break;
    case WH_RE_BEGIN_TEXT:
        emit(b, WH_RE_I_EMPTY, WH_RE_EMPTY_BEGIN_TEXT);
        break;
    case WH_RE_END_TEXT:
        emit(b, WH_RE_I_EMPTY, WH_RE_EMPTY_END_TEXT);
        break;
    case WH_RE_WORD_BOUNDARY:
        emit(b, WH_RE_I_EMPTY, WH_RE_EMPTY_WORD_BOUNDARY);
        break;
    case WH_RE_NO_WORD_BOUNDARY:
        emit(b, WH_RE_I_EMPTY, WH_RE_EMPTY_NO_WORD_BOUNDARY);
        break;
    case WH_RE_CAPTURE:
        gen(b, re->u.subs.v[0]);
        break;
    case WH_RE_STAR:
        gen_star(b, re->u.subs.v[0]);
        break;
    case WH_RE_PLUS:
        gen_plus(b, re->u.subs.v[0]);
        break;
    case WH_RE_QUEST: {
        uint32_t skip = emit(b, WH_RE_I_SPLIT, 0);
        gen(b, re->u.subs.v[0]);
        patch(b, skip, here(b));
        break;
    }
    case WH_RE_REPEAT:
        gen_repeat(b, re);
        break;
    case WH_RE_CONCAT:
        for (uint32_t i = 0; i < re->u.subs.n && !b->too_big; i++)
            gen(b, re->u.subs.v[i]);
        break;
    case WH_RE_ALTERNATE: {
        /* split to the next alternative, the alternative, a jump to the end; the jumps are
         * chained through their arguments (previous jump + 1) until the end is known */
        uint32_t chain = 0;
        uint32_t n = re->u.subs.n;
        for (uint32_t i = 0; i < n && !b->too_big; i++) {
            uint32_t split = 0;
            bool last = i + 1 == n;
            if (!last)
                split = emit(b, WH_RE_I_SPLIT, 0);
            gen(b, re->u.subs.v[i]);
            if (!last) {
                chain = emit(b, WH_RE_I_JUMP, chain) + 1;
                patch(b, split, here(b));
            }
        }
        patch_chain(b, chain, here(b));
        break;
    }
    default:
        break;
    }
}

/* --- where a match can start ------------------------------------------------------------ */

static void set_byte(struct wh_regex *r, unsigned b)
{
    r->first[b / 64] |= 1ull << (b % 64);
}

static unsigned lead_byte(int32_t c)
{
    if (c < 0x80)
        return (unsigned)c;
    if (c < 0x800)
        return 0xC0 | (unsigned)(c >> 6);
    if (c < 0x10000)
        return 0xE0 | (unsigned)(c >> 12);
    return 0xF0 | (unsigned)(c >> 18);
}

/* The first bytes of the runes lo..hi; U+FFFD also stands for every invalid byte. */
static void set_range(struct wh_regex *r, int32_t lo, int32_t hi)
{
    static const int32_t seg[][2] = {
        {0, 0x7F}, {0x80, 0x7FF}, {0x800, 0xFFFF}, {0x10000, 0x10FFFF}};
    for (size_t i = 0; i < 4; i++) {
        int32_t a = lo > seg[i][0] ? lo : seg[i][0], b = hi < seg[i][1] ? hi : seg[i][1];
        for (unsigned x = a <= b ? lead_byte(a) : 1, y = a <= b ? lead_byte(b) : 0; x <= y; x++)
            set_byte(r, x);
    }
    if (lo <= WH_RE_RUNE_ERROR && WH_RE_RUNE_ERROR <= hi)
        for (unsigned x = 0x80; x <= 0xFF; x++)
            set_byte(r, x);
}

static void set_rune(struct wh_regex *r, int32_t c, bool fold)
{
    set_range(r, c, c);
    if (fold)
        for (int32_t f = wh_re_simple_fold(c); f != c; f = wh_re_simple_fold(f))
            set_range(r, f, f);
}

/* Which bytes a match can begin with: the runes the instructions reached from the start
 * without reading anything can read (assertions taken as true). No set when a match may be
 * empty or begin with any rune. */
static void first_bytes(struct wh_regex *r)
{
    uint8_t *seen = wh_xcalloc(r->ninst, 1);
    uint32_t *stack = wh_xmalloc(r->ninst * 2 * sizeof(*stack) + sizeof(*stack));
    size_t n = 0;
    bool ok = true;
    stack[n++] = 0;
    while (n && ok) {
        uint32_t pc = stack[--n];
        if (seen[pc])
            continue;
        seen[pc] = 1;
        uint32_t inst = r->prog[pc], arg = WH_RE_INST_ARG(inst);
        switch (WH_RE_INST_OP(inst)) {
        case WH_RE_I_MATCH:
        case WH_RE_I_ANY:
        case WH_RE_I_ANY_NOT_NL:
            ok = false;
            break;
        case WH_RE_I_FAIL:
            break;
        case WH_RE_I_RUNE:
            set_rune(r, (int32_t)arg, false);
            break;
        case WH_RE_I_FOLD:
            set_rune(r, (int32_t)arg, true);
            break;
        case WH_RE_I_STRING:
            set_rune(r, r->runes[r->strings[arg].at], r->strings[arg].fold);
            break;
        case WH_RE_I_CLASS:
            for (uint32_t i = r->classes[arg]; i < r->classes[arg + 1]; i += 2)
                set_range(r, r->runes[i], r->runes[i + 1]);
            break;
        case WH_RE_I_EMPTY:
            stack[n++] = pc + 1;
            break;
        case WH_RE_I_JUMP:
            stack[n++] = arg;
            break;
        case WH_RE_I_SPLIT:
            stack[n++] = arg;
            stack[n++] = pc + 1;
            break;
        }
    }
    r->has_first = ok;
    if (!ok)
        memset(r->first, 0, sizeof(r->first));
    free(seen);
    free(stack);
}

struct wh_regex *wh_re_compile(struct wh_re_parser *p, struct wh_re_node *root)
{
    struct builder b;
    memset(&b, 0, sizeof(b));
    b.p = p;
    gen(&b, root);
    emit(&b, WH_RE_I_MATCH, 0);
    struct wh_regex *r = NULL;
    if (b.too_big) {
        p->err = (struct wh_regex_error){WH_REGEX_LARGE, 0, p->len};
        goto out;
    }
    r = wh_xcalloc(1, sizeof(*r));
    r->ninst = (uint32_t)b.n;
    r->prog = wh_xrealloc(b.prog, b.n * sizeof(*b.prog));
    b.prog = NULL;
    size_t nrunes = b.ncrunes + b.nsrunes;
    r->runes = wh_xmalloc((nrunes ? nrunes : 1) * sizeof(*r->runes));
    if (b.ncrunes)
        memcpy(r->runes, b.crunes, b.ncrunes * sizeof(*r->runes));
    if (b.nsrunes)
        memcpy(r->runes + b.ncrunes, b.srunes, b.nsrunes * sizeof(*r->runes));
    r->nclasses = (uint32_t)b.nclasses;
    r->classes = wh_xmalloc((b.nclasses + 1) * sizeof(*r->classes));
    if (b.nclasses)
        memcpy(r->classes, b.cat, (b.nclasses + 1) * sizeof(*r->classes));
    else
        r->classes[0] = 0;
    r->nstrings = (uint32_t)b.nstrs;
    r->strings = wh_xmalloc((b.nstrs ? b.nstrs : 1) * sizeof(*r->strings));
    for (size_t i = 0; i < b.nstrs; i++) {
        r->strings[i] = b.strs[i];
        r->strings[i].at += (uint32_t)b.ncrunes;
    }
    r->anchored = WH_RE_INST_OP(r->prog[0]) == WH_RE_I_EMPTY &&
                  WH_RE_INST_ARG(r->prog[0]) == WH_RE_EMPTY_BEGIN_TEXT;
    first_bytes(r);
    r->bytes = sizeof(*r) + r->ninst * sizeof(*r->prog) + nrunes * sizeof(*r->runes) +
               (r->nclasses + 1) * sizeof(*r->classes) + r->nstrings * sizeof(*r->strings);
out:
    free(b.prog);
    free(b.crunes);
    free(b.cat);
    free(b.hash);
    free(b.srunes);
    free(b.strs);
    return r;
}
