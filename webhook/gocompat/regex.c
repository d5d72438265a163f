#include "gocompat/regex.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "gocompat/regex/regex_int.h"
#include "util/mem.h"

static const char *const code_texts[] = {
    [WH_REGEX_OK] = "",
    [WH_REGEX_INTERNAL_ERROR] = "regexp/syntax: internal error",
    [WH_REGEX_INVALID_CHAR_CLASS] = "invalid character class",
    [WH_REGEX_INVALID_CHAR_RANGE] = "invalid character class range",
    [WH_REGEX_INVALID_ESCAPE] = "invalid escape sequence",
    [WH_REGEX_INVALID_NAMED_CAPTURE] = "invalid named capture",
    [WH_REGEX_INVALID_PERL_OP] = "invalid or unsupported Perl syntax",
    [WH_REGEX_INVALID_REPEAT_OP] = "invalid nested repetition operator",
    [WH_REGEX_INVALID_REPEAT_SIZE] = "invalid repeat count",
    [WH_REGEX_INVALID_UTF8] = "invalid UTF-8",
    [WH_REGEX_MISSING_BRACKET] = "missing closing ]",
    [WH_REGEX_MISSING_PAREN] = "missing closing )",
    [WH_REGEX_MISSING_REPEAT_ARG] = "missing argument to repetition operator",
    [WH_REGEX_TRAILING_BACKSLASH] = "trailing backslash at end of expression",
    [WH_REGEX_UNEXPECTED_PAREN] = "unexpected )",
    [WH_REGEX_NESTING_DEPTH] = "expression nests too deeply",
    [WH_REGEX_LARGE] = "expression too large",
};

const char *wh_regex_code_text(enum wh_regex_code code)
{
    if ((size_t)code >= sizeof(code_texts) / sizeof(code_texts[0]))
        return code_texts[WH_REGEX_INTERNAL_ERROR];
    return code_texts[code];
}

char *wh_regex_error_message(const char *pattern, const struct wh_regex_error *err, size_t *len)
{
    static const char head[] = "error parsing regexp: ";
    const char *code = wh_regex_code_text(err->code);
    size_t hn = sizeof(head) - 1, cn = strlen(code);
    char *msg = wh_xmalloc(hn + cn + 3 + err->len + 2);
    char *at = msg;
    memcpy(at, head, hn);
    at += hn;
    memcpy(at, code, cn);
    at += cn;
    memcpy(at, ": `", 3);
    at += 3;
    if (err->len)
        memcpy(at, pattern + err->off, err->len);
    at += err->len;
    memcpy(at, "`", 2);
    if (len)
        *len = (size_t)(at + 1 - msg);
    return msg;
}

bool wh_regex_valid(const char *pattern, size_t len, struct wh_regex_error *err)
{
    struct wh_re_parser p;
    bool ok = wh_re_parse(&p, pattern, len, WH_RE_PERL) != NULL;
    if (!ok && err)
        *err = p.err;
    wh_re_parse_fini(&p);
    return ok;
}

static _Atomic unsigned long compilations;

unsigned long wh_regex_compilations(void)
{
    return atomic_load_explicit(&compilations, memory_order_relaxed);
}

enum wh_err wh_regex_compile(const char *pattern, size_t len, struct wh_regex **out,
                             struct wh_regex_error *err)
{
    atomic_fetch_add_explicit(&compilations, 1, memory_order_relaxed);
    struct wh_re_parser p;
    struct wh_re_node *root = wh_re_parse(&p, pattern, len, WH_RE_PERL);
    struct wh_regex *r = root ? wh_re_compile(&p, root) : NULL;
    if (!r)
        *err = p.err;
    wh_re_parse_fini(&p);
    *out = r;
    return r ? WH_OK : WH_ERR_INVALID;
}

void wh_regex_free(struct wh_regex *r)
{
    if (!r)
        return;
    free(r->prog);
    free(r->runes);
    free(r->classes);
    free(r->strings);
    free(r);
}

bool wh_regex_match(const struct wh_regex *r, const char *s, size_t len)
{
    return wh_re_match_counted(r, s, len, NULL);
}

size_t wh_regex_memory(const struct wh_regex *r)
{
    return r ? r->bytes : 0;
}
