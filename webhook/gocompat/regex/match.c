/* MatchString: the program run over the text breadth-first, Thompson's way (Go's NFA matcher
 * without the capture slots). At each position the set of threads is the set of instructions
 * reached, each at most once, so a position costs at most the program's size and the text is
 * read once: time linear in the text for any pattern, no backtracking.
 *
 * The empty-width assertions see the runes on both sides of the position (Go's
 * EmptyOpContext: \b and \B by ASCII word characters). A literal string is compared whole where
 * a thread reaches it, and the thread resumes after it, when the text gets there.
 *
 * Small programs and texts run on the stack; larger ones allocate what they need (4 bytes an
 * instruction, and what the threads take), released before returning. */
#include "gocompat/regex/regex_int.h"

#include <stdlib.h>
#include <string.h>

#include "util/mem.h"

#define INLINE 64

struct vec {
    uint32_t *v;
    size_t n, cap;
    uint32_t *inl;
};

static void vec_init(struct vec *x, uint32_t *inl)
{
    x->v = x->inl = inl;
    x->n = 0;
    x->cap = INLINE;
}

static void vec_grow(struct vec *x)
{
    size_t cap = x->cap * 2;
    if (x->v == x->inl) {
        uint32_t *v = wh_xmalloc(cap * sizeof(*v));
        memcpy(v, x->v, x->n * sizeof(*v));
        x->v = v;
    } else {
        x->v = wh_xrealloc(x->v, cap * sizeof(*x->v));
    }
    x->cap = cap;
}

static inline void vec_push(struct vec *x, uint32_t e)
{
    if (x->n == x->cap)
        vec_grow(x);
    x->v[x->n++] = e;
}

static void vec_fini(struct vec *x)
{
    if (x->v != x->inl)
        free(x->v);
}

struct run {
    const struct wh_regex *re;
    const char *s;
    size_t len;
    uint64_t steps;
    uint32_t ctx;    /* the empty-width flags at the current position */
    uint32_t *stamp; /* per instruction: the position (+1) at which it was last reached */
    uint32_t now;    /* the current position's stamp */
    struct vec clist, pending, stack;
    /* threads waiting for the text to reach the end of a literal string: by byte position,
     * head[pos] indexes wait (pc, next index + 1) */
    int32_t *head;
    struct vec wait;
    size_t waiting;
};

static bool is_word(int32_t r)
{
    return ('0' <= r && r <= '9') || ('A' <= r && r <= 'Z') || ('a' <= r && r <= 'z') || r == '_';
}

/* EmptyOpContext: r1 before, r2 after the position, -1 at either end of the text. */
static uint32_t context(int32_t r1, int32_t r2)
{
    uint32_t op = WH_RE_EMPTY_NO_WORD_BOUNDARY;
    int boundary = 0;
    if (is_word(r1))
        boundary = 1;
    else if (r1 == '\n')
        op |= WH_RE_EMPTY_BEGIN_LINE;
    else if (r1 < 0)
        op |= WH_RE_EMPTY_BEGIN_TEXT | WH_RE_EMPTY_BEGIN_LINE;
    if (is_word(r2))
        boundary ^= 1;
    else if (r2 == '\n')
        op |= WH_RE_EMPTY_END_LINE;
    else if (r2 < 0)
        op |= WH_RE_EMPTY_END_TEXT | WH_RE_EMPTY_END_LINE;
    if (boundary)
        op ^= WH_RE_EMPTY_WORD_BOUNDARY | WH_RE_EMPTY_NO_WORD_BOUNDARY;
    return op;
}

static inline bool reached(const struct run *m, uint32_t pc)
{
    return m->stamp[pc] == m->now;
}

/* utf8.DecodeRuneInString, ASCII without a call. */
static inline int32_t decode(const char *s, size_t n, size_t *w)
{
    if (n && (unsigned char)s[0] < 0x80) {
        *w = 1;
        return (unsigned char)s[0];
    }
    return wh_re_decode(s, n, w);
}

/* Adds the threads pc leads to without reading a rune; true when one of them matches. The
 * next instruction is followed in place, the other branch of a split stacked. */
static bool add(struct run *m, uint32_t pc)
{
    const uint32_t *prog = m->re->prog;
    m->stack.n = 0;
    for (;;) {
        if (!reached(m, pc)) {
            m->stamp[pc] = m->now;
            m->steps++;
            uint32_t inst = prog[pc], arg = WH_RE_INST_ARG(inst);
            switch (WH_RE_INST_OP(inst)) {
            case WH_RE_I_MATCH:
                return true;
            case WH_RE_I_FAIL:
                break;
            case WH_RE_I_JUMP:
                pc = arg;
                continue;
            case WH_RE_I_SPLIT:
                if (!reached(m, arg))
                    vec_push(&m->stack, arg);
                pc++;
                continue;
            case WH_RE_I_EMPTY:
                if ((arg & ~m->ctx) == 0) {
                    pc++;
                    continue;
                }
                break;
            default:
                vec_push(&m->clist, pc);
                break;
            }
        }
        if (m->stack.n == 0)
            return false;
        pc = m->stack.v[--m->stack.n];
    }
}

static bool fold_match(int32_t r, int32_t c)
{
    if (c == r)
        return true;
    for (int32_t f = wh_re_simple_fold(r); f != r; f = wh_re_simple_fold(f))
        if (f == c)
            return true;
    return false;
}

static bool in_class(const struct wh_regex *re, uint32_t k, int32_t c)
{
    const int32_t *v = re->runes + re->classes[k];
    size_t lo = 0, hi = (re->classes[k + 1] - re->classes[k]) / 2;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c < v[2 * mid])
            hi = mid;
        else if (c > v[2 * mid + 1])
            lo = mid + 1;
        else
            return true;
    }
    return false;
}

/* The length in bytes of string k at s[0, n), or 0 when the text does not start with it. */
static size_t string_at(struct run *m, uint32_t k, const char *s, size_t n)
{
    const struct wh_re_string *str = &m->re->strings[k];
    const int32_t *v = m->re->runes + str->at;
    size_t at = 0;
    for (uint32_t i = 0; i < str->n; i++) {
        size_t w;
        m->steps++;
        if (at == n)
            return 0;
        int32_t c = decode(s + at, n - at, &w);
        if (str->fold ? !fold_match(v[i], c) : c != v[i])
            return 0;
        at += w;
    }
    return at;
}

static void wait_for(struct run *m, size_t pos, uint32_t pc)
{
    if (!m->head) {
        m->head = wh_xmalloc((m->len + 1) * sizeof(*m->head));
        memset(m->head, 0xff, (m->len + 1) * sizeof(*m->head));
    }
    vec_push(&m->wait, pc);
    vec_push(&m->wait, (uint32_t)(m->head[pos] + 1));
    m->head[pos] = (int32_t)(m->wait.n / 2 - 1);
    m->waiting++;
}

static bool run(struct run *m)
{
    const struct wh_regex *re = m->re;
    size_t pos = 0, w = 0;
    int32_t prev = -1, cur = m->len ? decode(m->s, m->len, &w) : -1;
    for (;;) {
        if (re->has_first && !re->anchored && m->pending.n == 0 && m->waiting == 0) {
            /* no thread alive: go to where one can start */
            while (pos < m->len &&
                   !((re->first[(unsigned char)m->s[pos] / 64] >> ((unsigned char)m->s[pos] % 64)) &
                     1)) {
                m->steps++;
                prev = cur;
                pos += w;
                cur = pos < m->len ? decode(m->s + pos, m->len - pos, &w) : -1;
            }
        }
        m->ctx = context(prev, cur);
        /* a new stamp forgets what the last position reached (positions past 2^32 - 1 wrap
         * around only after every stamp was cleared) */
        if (++m->now == 0) {
            memset(m->stamp, 0, re->ninst * sizeof(*m->stamp));
            m->now = 1;
        }
        m->clist.n = 0;
        for (size_t i = 0; i < m->pending.n; i++)
            if (add(m, m->pending.v[i]))
                return true;
        m->pending.n = 0;
        if (m->head) {
            for (int32_t e = m->head[pos]; e >= 0; e = (int32_t)m->wait.v[2 * e + 1] - 1) {
                m->waiting--;
                if (add(m, m->wait.v[2 * e]))
                    return true;
            }
        }
        if ((!re->anchored || pos == 0) && add(m, 0))
            return true;
        if (pos >= m->len)
            return false;
        if (re->anchored && m->clist.n == 0 && m->waiting == 0)
            return false;
        for (size_t i = 0; i < m->clist.n; i++) {
            uint32_t pc = m->clist.v[i], inst = re->prog[pc], arg = WH_RE_INST_ARG(inst);
            bool ok = false;
            m->steps++;
            switch (WH_RE_INST_OP(inst)) {
            case WH_RE_I_RUNE:
                ok = cur == (int32_t)arg;
                break;
            case WH_RE_I_FOLD:
                ok = fold_match((int32_t)arg, cur);
                break;
            case WH_RE_I_CLASS:
                ok = in_class(re, arg, cur);
                break;
            case WH_RE_I_ANY:
                ok = true;
                break;
            case WH_RE_I_ANY_NOT_NL:
                ok = cur != '\n';
                break;
            case WH_RE_I_STRING: {
                size_t n = string_at(m, arg, m->s + pos, m->len - pos);
                if (n)
                    wait_for(m, pos + n, pc + 1);
                break;
            }
            default:
                break;
            }
            if (ok)
                vec_push(&m->pending, pc + 1);
        }
        prev = cur;
        pos += w;
        cur = pos < m->len ? decode(m->s + pos, m->len - pos, &w) : -1;
    }
}

bool wh_re_match_counted(const struct wh_regex *r, const char *s, size_t len, uint64_t *steps)
{
    uint32_t clist[INLINE], pending[INLINE], stack[INLINE], wait[INLINE], stamp[4 * INLINE];
    struct run m;
    memset(&m, 0, sizeof(m));
    m.re = r;
    m.s = s;
    m.len = len;
    m.stamp = r->ninst <= 4 * INLINE ? stamp : wh_xmalloc(r->ninst * sizeof(*m.stamp));
    memset(m.stamp, 0, r->ninst * sizeof(*m.stamp));
    vec_init(&m.clist, clist);
    vec_init(&m.pending, pending);
    vec_init(&m.stack, stack);
    vec_init(&m.wait, wait);
    bool matched = run(&m);
    if (m.stamp != stamp)
        free(m.stamp);
    free(m.head);
    vec_fini(&m.clist);
    vec_fini(&m.pending);
    vec_fini(&m.stack);
    vec_fini(&m.wait);
    if (steps)
        *steps = m.steps;
    return matched;
}
