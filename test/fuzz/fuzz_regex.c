/* Fuzz target for gocompat/regex, the parser and the matcher. The input is a pattern and a text:
 * its first byte is the pattern's length (the rest of the input when it is 255 or more), the
 * text follows. Nothing may crash, leak or hang, and:
 *   - the syntax check and the compiler agree, and an error's offending text lies inside the
 *     pattern;
 *   - matching takes at most a fixed number of steps per byte of text (linear time);
 *   - a text is matched by itself quoted (\Q...\E).
 * (make regexdiff compares the answers themselves with Go's.) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gocompat/regex.h"
#include "gocompat/regex/regex_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, const uint8_t *p, size_t n)
{
    fprintf(stderr, "%s: pattern of %zu bytes: %.*s\n", what, n, (int)n, (const char *)p);
    abort();
}

/* The most steps a match may take on n bytes: every instruction reached and stepped once per
 * position, and every literal string compared once per position. */
static uint64_t step_bound(const struct wh_regex *r, size_t n)
{
    uint64_t per = 2ull * r->ninst + 1;
    for (uint32_t i = 0; i < r->nstrings; i++)
        per += r->strings[i].n;
    return (n + 1) * per;
}

static void check_one(const uint8_t *pattern, size_t plen, const uint8_t *text, size_t tlen)
{
    const char *p = (const char *)pattern, *t = (const char *)text;
    struct wh_regex *r = NULL;
    struct wh_regex_error err;
    bool valid = wh_regex_valid(p, plen, NULL);
    if (wh_regex_compile(p, plen, &r, &err)) {
        if (valid)
            fail("the syntax check accepts what the compiler refuses", pattern, plen);
        if (err.code <= WH_REGEX_OK || err.code > WH_REGEX_LARGE || err.off > plen ||
            err.len > plen - err.off)
            fail("an error outside the pattern", pattern, plen);
        size_t mlen;
        free(wh_regex_error_message(p, &err, &mlen));
        return;
    }
    if (!valid)
        fail("the compiler accepts what the syntax check refuses", pattern, plen);
    uint64_t steps = 0;
    (void)wh_re_match_counted(r, t, tlen, &steps);
    if (steps > step_bound(r, tlen))
        fail("matching took more than linear steps", pattern, plen);
    wh_regex_free(r);
}

/* \Q<text>\E matches text, when text can be quoted (valid UTF-8, no \E in it). */
static void check_quoted(const uint8_t *text, size_t tlen)
{
    for (size_t i = 0; i < tlen;) {
        size_t w;
        int32_t c = wh_re_decode((const char *)text + i, tlen - i, &w);
        if (c == WH_RE_RUNE_ERROR && w == 1)
            return;
        if (text[i] == '\\' && i + 1 < tlen && text[i + 1] == 'E')
            return;
        i += w;
    }
    char *q = malloc(tlen + 5);
    memcpy(q, "\\Q", 2);
    memcpy(q + 2, text, tlen);
    memcpy(q + 2 + tlen, "\\E", 2);
    struct wh_regex *r = NULL;
    struct wh_regex_error err;
    if (wh_regex_compile(q, tlen + 4, &r, &err) || !wh_regex_match(r, (const char *)text, tlen))
        fail("a quoted text does not match itself", text, tlen);
    wh_regex_free(r);
    free(q);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 65536)
        return 0;
    size_t plen = data[0] < 255 ? data[0] : size - 1;
    if (plen > size - 1)
        plen = size - 1;
    const uint8_t *pattern = data + 1, *text = data + 1 + plen;
    size_t tlen = size - 1 - plen;
    check_one(pattern, plen, text, tlen);
    if (tlen <= 4096)
        check_quoted(text, tlen);
    return 0;
}
