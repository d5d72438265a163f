/* Rune classes as regexp/syntax builds them. The parser's limits count the runes of classes
 * (numRunes) and compare classes (factoring alternations), so these follow Go's helpers
 * closely: a class is a list of lo/hi pairs, appended without sorting, merged only with the
 * last two pairs, and sorted and merged by clean_class. */
#include "gocompat/regex/regex_int.h"

#include <stdlib.h>
#include <string.h>

#include "util/mem.h"

int32_t wh_re_decode(const char *s, size_t n, size_t *width)
{
    const unsigned char *b = (const unsigned char *)s;
    if (n == 0) {
        *width = 0;
        return WH_RE_RUNE_ERROR;
    }
    *width = 1;
    if (b[0] < 0x80)
        return b[0];
    /* The second byte's range depends on the first (no overlong forms, no surrogates, nothing
     * past U+10FFFF); the others are 0x80-0xBF. */
    unsigned lo = 0x80, hi = 0xBF;
    size_t need;
    int32_t r;
    if (b[0] >= 0xC2 && b[0] <= 0xDF) {
        need = 2;
        r = b[0] & 0x1F;
    } else if (b[0] >= 0xE0 && b[0] <= 0xEF) {
        need = 3;
        r = b[0] & 0x0F;
        if (b[0] == 0xE0)
            lo = 0xA0;
        else if (b[0] == 0xED)
            hi = 0x9F;
    } else if (b[0] >= 0xF0 && b[0] <= 0xF4) {
        need = 4;
        r = b[0] & 0x07;
        if (b[0] == 0xF0)
            lo = 0x90;
        else if (b[0] == 0xF4)
            hi = 0x8F;
    } else {
        return WH_RE_RUNE_ERROR;
    }
    if (n < need)
        return WH_RE_RUNE_ERROR;
    for (size_t i = 1; i < need; i++) {
        unsigned c = b[i];
        if (c < lo || c > hi)
            return WH_RE_RUNE_ERROR;
        lo = 0x80;
        hi = 0xBF;
        r = (r << 6) | (int32_t)(c & 0x3F);
    }
    *width = need;
    return r;
}

/* --- rune lists ---------------------------------------------------------------------------- */

void wh_re_runes_init(struct wh_re_runes *r)
{
    r->v = r->inl;
    r->n = 0;
    r->cap = 2;
}

void wh_re_runes_fini(struct wh_re_runes *r)
{
    if (r->v != r->inl)
        free(r->v);
    wh_re_runes_init(r);
}

static void reserve(struct wh_re_runes *r, uint32_t need)
{
    if (need <= r->cap)
        return;
    uint32_t cap = r->cap;
    while (cap < need)
        cap = cap < 8 ? 8 : cap * 2;
    if (r->v == r->inl) {
        int32_t *v = wh_xmalloc(cap * sizeof(*v));
        memcpy(v, r->inl, r->n * sizeof(*v));
        r->v = v;
    } else {
        r->v = wh_xrealloc(r->v, cap * sizeof(*r->v));
    }
    r->cap = cap;
}

void wh_re_runes_push(struct wh_re_runes *r, int32_t a, int32_t b)
{
    reserve(r, r->n + 2);
    r->v[r->n++] = a;
    r->v[r->n++] = b;
}

void wh_re_runes_append(struct wh_re_runes *r, const int32_t *x, uint32_t n)
{
    reserve(r, r->n + n);
    memmove(r->v + r->n, x, n * sizeof(*x));
    r->n += n;
}

void wh_re_runes_copy(struct wh_re_runes *dst, const int32_t *src, uint32_t n)
{
    reserve(dst, n);
    memmove(dst->v, src, n * sizeof(*src));
    dst->n = n;
}

/* --- folding --------------------------------------------------------------------------------- */

/* The index of the first pair whose rune is >= r. */
static size_t fold_lower_bound(int32_t r)
{
    size_t lo = 0, hi = wh_re_nfold_pairs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if ((int32_t)wh_re_fold_pairs[2 * mid] < r)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int32_t wh_re_simple_fold(int32_t r)
{
    if (r < 0 || r > WH_RE_MAX_RUNE)
        return r;
    size_t i = fold_lower_bound(r);
    if (i < wh_re_nfold_pairs && (int32_t)wh_re_fold_pairs[2 * i] == r)
        return (int32_t)wh_re_fold_pairs[2 * i + 1];
    return r;
}

/* --- Go's class helpers ----------------------------------------------------------------------- */

void wh_re_append_range(struct wh_re_runes *r, int32_t lo, int32_t hi)
{
    /* Extending the last or the next-to-last pair keeps case-folded alphabets (A-Z beside a-z)
     * to two pairs, as Go does. */
    uint32_t n = r->n;
    for (uint32_t i = 2; i <= 4; i += 2) {
        if (n >= i) {
            int32_t rlo = r->v[n - i], rhi = r->v[n - i + 1];
            if (lo <= rhi + 1 && rlo <= hi + 1) {
                if (lo < rlo)
                    r->v[n - i] = lo;
                if (hi > rhi)
                    r->v[n - i + 1] = hi;
                return;
            }
        }
    }
    wh_re_runes_push(r, lo, hi);
}

void wh_re_append_folded_range(struct wh_re_runes *r, int32_t lo, int32_t hi)
{
    int32_t min_fold = (int32_t)wh_re_min_fold, max_fold = (int32_t)wh_re_max_fold;
    if ((lo <= min_fold && hi >= max_fold) || hi < min_fold || lo > max_fold) {
        wh_re_append_range(r, lo, hi);
        return;
    }
    if (lo < min_fold) {
        wh_re_append_range(r, lo, min_fold - 1);
        lo = min_fold;
    }
    if (hi > max_fold) {
        wh_re_append_range(r, max_fold + 1, hi);
        hi = max_fold;
    }
    /* Go walks every rune of the range; only the runes SimpleFold moves add anything, so this
     * walks those (the set is the same, and every caller cleans the class before it is
     * counted or compared). */
    wh_re_append_range(r, lo, hi);
    for (size_t i = fold_lower_bound(lo);
         i < wh_re_nfold_pairs && (int32_t)wh_re_fold_pairs[2 * i] <= hi; i++) {
        int32_t c = (int32_t)wh_re_fold_pairs[2 * i];
        for (int32_t f = (int32_t)wh_re_fold_pairs[2 * i + 1]; f != c; f = wh_re_simple_fold(f))
            wh_re_append_range(r, f, f);
    }
}

void wh_re_append_class(struct wh_re_runes *r, const int32_t *x, uint32_t nx)
{
    for (uint32_t i = 0; i + 1 < nx; i += 2)
        wh_re_append_range(r, x[i], x[i + 1]);
}

void wh_re_append_folded_class(struct wh_re_runes *r, const int32_t *x, uint32_t nx)
{
    for (uint32_t i = 0; i + 1 < nx; i += 2)
        wh_re_append_folded_range(r, x[i], x[i + 1]);
}

void wh_re_append_negated_class(struct wh_re_runes *r, const int32_t *x, uint32_t nx)
{
    int32_t next = 0;
    for (uint32_t i = 0; i + 1 < nx; i += 2) {
        if (next <= x[i] - 1)
            wh_re_append_range(r, next, x[i] - 1);
        next = x[i + 1] + 1;
    }
    if (next <= WH_RE_MAX_RUNE)
        wh_re_append_range(r, next, WH_RE_MAX_RUNE);
}

void wh_re_append_table(struct wh_re_runes *r, const uint32_t *tab, uint32_t ntab)
{
    for (uint32_t i = 0; i < ntab; i++) {
        int32_t lo = (int32_t)tab[3 * i], hi = (int32_t)tab[3 * i + 1];
        int32_t stride = (int32_t)tab[3 * i + 2];
        if (stride == 1) {
            wh_re_append_range(r, lo, hi);
            continue;
        }
        for (int32_t c = lo; c <= hi; c += stride)
            wh_re_append_range(r, c, c);
    }
}

void wh_re_append_negated_table(struct wh_re_runes *r, const uint32_t *tab, uint32_t ntab)
{
    int32_t next = 0;
    for (uint32_t i = 0; i < ntab; i++) {
        int32_t lo = (int32_t)tab[3 * i], hi = (int32_t)tab[3 * i + 1];
        int32_t stride = (int32_t)tab[3 * i + 2];
        if (stride == 1) {
            if (next <= lo - 1)
                wh_re_append_range(r, next, lo - 1);
            next = hi + 1;
            continue;
        }
        for (int32_t c = lo; c <= hi; c += stride) {
            if (next <= c - 1)
                wh_re_append_range(r, next, c - 1);
            next = c + 1;
        }
    }
    if (next <= WH_RE_MAX_RUNE)
        wh_re_append_range(r, next, WH_RE_MAX_RUNE);
}

static int pair_cmp(const void *a, const void *b)
{
    const int32_t *x = a, *y = b;
    if (x[0] != y[0])
        return x[0] < y[0] ? -1 : 1;
    if (x[1] != y[1])
        return x[1] > y[1] ? -1 : 1;
    return 0;
}

void wh_re_clean_class(struct wh_re_runes *r)
{
    if (r->n < 2)
        return;
    qsort(r->v, r->n / 2, 2 * sizeof(int32_t), pair_cmp);
    uint32_t w = 2;
    for (uint32_t i = 2; i < r->n; i += 2) {
        int32_t lo = r->v[i], hi = r->v[i + 1];
        if (lo <= r->v[w - 1] + 1) {
            if (hi > r->v[w - 1])
                r->v[w - 1] = hi;
            continue;
        }
        r->v[w] = lo;
        r->v[w + 1] = hi;
        w += 2;
    }
    r->n = w;
}

void wh_re_negate_class(struct wh_re_runes *r)
{
    int32_t next = 0;
    uint32_t w = 0;
    for (uint32_t i = 0; i + 1 < r->n; i += 2) {
        int32_t lo = r->v[i], hi = r->v[i + 1];
        if (next <= lo - 1) {
            r->v[w] = next;
            r->v[w + 1] = lo - 1;
            w += 2;
        }
        next = hi + 1;
    }
    r->n = w;
    if (next <= WH_RE_MAX_RUNE)
        wh_re_runes_push(r, next, WH_RE_MAX_RUNE);
}

/* --- groups ---------------------------------------------------------------------------------- */

/* perl_groups.go of regexp/syntax: ASCII only. */
static const int32_t digit[] = {0x30, 0x39};
static const int32_t space[] = {0x9, 0xa, 0xc, 0xd, 0x20, 0x20};
static const int32_t word[] = {0x30, 0x39, 0x41, 0x5a, 0x5f, 0x5f, 0x61, 0x7a};
static const int32_t alnum[] = {0x30, 0x39, 0x41, 0x5a, 0x61, 0x7a};
static const int32_t alpha[] = {0x41, 0x5a, 0x61, 0x7a};
static const int32_t ascii[] = {0x0, 0x7f};
static const int32_t blank[] = {0x9, 0x9, 0x20, 0x20};
static const int32_t cntrl[] = {0x0, 0x1f, 0x7f, 0x7f};
static const int32_t graph[] = {0x21, 0x7e};
static const int32_t lower[] = {0x61, 0x7a};
static const int32_t print[] = {0x20, 0x7e};
static const int32_t punct[] = {0x21, 0x2f, 0x3a, 0x40, 0x5b, 0x60, 0x7b, 0x7e};
static const int32_t posix_space[] = {0x9, 0xd, 0x20, 0x20};
static const int32_t upper[] = {0x41, 0x5a};
static const int32_t xdigit[] = {0x30, 0x39, 0x41, 0x46, 0x61, 0x66};

#define GROUP(name, class)                                                                         \
    {                                                                                              \
        name, class, sizeof(class) / sizeof(class[0])                                              \
    }
static const struct named_group {
    const char *name;
    const int32_t *class;
    uint32_t n;
} posix_groups[] = {
    GROUP("alnum", alnum), GROUP("alpha", alpha),       GROUP("ascii", ascii),
    GROUP("blank", blank), GROUP("cntrl", cntrl),       GROUP("digit", digit),
    GROUP("graph", graph), GROUP("lower", lower),       GROUP("print", print),
    GROUP("punct", punct), GROUP("space", posix_space), GROUP("upper", upper),
    GROUP("word", word),   GROUP("xdigit", xdigit),
};

bool wh_re_perl_group(const char *s, size_t n, struct wh_re_group *g)
{
    if (n < 2 || s[0] != '\\')
        return false;
    switch (s[1]) {
    case 'd':
    case 'D':
        *g = (struct wh_re_group){s[1] == 'd' ? 1 : -1, digit, 2};
        return true;
    case 's':
    case 'S':
        *g = (struct wh_re_group){s[1] == 's' ? 1 : -1, space, 6};
        return true;
    case 'w':
    case 'W':
        *g = (struct wh_re_group){s[1] == 'w' ? 1 : -1, word, 8};
        return true;
    default:
        return false;
    }
}

bool wh_re_posix_group(const char *name, size_t n, struct wh_re_group *g)
{
    /* "[:" [^] word ":]" */
    if (n < 5 || memcmp(name, "[:", 2) != 0 || memcmp(name + n - 2, ":]", 2) != 0)
        return false;
    int sign = 1;
    const char *w = name + 2;
    size_t wn = n - 4;
    if (wn > 0 && w[0] == '^') {
        sign = -1;
        w++;
        wn--;
    }
    for (size_t i = 0; i < sizeof(posix_groups) / sizeof(posix_groups[0]); i++) {
        const struct named_group *e = &posix_groups[i];
        if (strlen(e->name) == wn && memcmp(e->name, w, wn) == 0) {
            *g = (struct wh_re_group){sign, e->class, e->n};
            return true;
        }
    }
    return false;
}

/* --- Unicode tables --------------------------------------------------------------------------- */

static const uint32_t any_table[] = {0x0, 0xffff, 1, 0x10000, WH_RE_MAX_RUNE, 1};

static int name_cmp(const char *name, size_t n, const char *entry)
{
    size_t en = strlen(entry);
    int c = memcmp(name, entry, n < en ? n : en);
    if (c != 0)
        return c;
    return n < en ? -1 : n > en ? 1 : 0;
}

static const struct wh_re_utable *find(const struct wh_re_utable *t, size_t count, const char *name,
                                       size_t n)
{
    size_t lo = 0, hi = count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = name_cmp(name, n, t[mid].name);
        if (c == 0)
            return &t[mid];
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}

bool wh_re_unicode_table(const char *name, size_t n, const uint32_t **tab, uint32_t *ntab,
                         const uint32_t **fold, uint32_t *nfold)
{
    if (n == 3 && memcmp(name, "Any", 3) == 0) {
        *tab = *fold = any_table;
        *ntab = *nfold = 2;
        return true;
    }
    const struct wh_re_utable *e = find(wh_re_categories, wh_re_ncategories, name, n);
    if (!e)
        e = find(wh_re_scripts, wh_re_nscripts, name, n);
    if (!e)
        return false;
    *tab = e->tab;
    *ntab = e->ntab;
    *fold = e->fold;
    *nfold = e->nfold;
    return true;
}
