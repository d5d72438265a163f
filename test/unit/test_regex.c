/* gocompat/regex: Go 1.23's regexp.Compile and MatchString, checked against Go's own tables
 * (parse trees from regexp/syntax's parse_test.go, MatchString answers Go gave on its
 * find_test.go and RE2's search tests, written to test/unit/data/regex/ by
 * test/regexdiff), against error messages Go gave, and for the costs: patterns Go refuses are
 * refused after a handful of steps, and matching stays linear in the text. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test/unit/test.h"
#include "gocompat/regex.h"
#include "gocompat/regex/regex_int.h"

/* The message Go's regexp.Compile gives, or NULL when it compiles. Returns: new string. */
static char *compile_error(const char *pattern, size_t len)
{
    struct wh_regex *r = NULL;
    struct wh_regex_error err;
    if (wh_regex_compile(pattern, len, &r, &err) == WH_OK) {
        wh_regex_free(r);
        return NULL;
    }
    return wh_regex_error_message(pattern, &err, NULL);
}

static bool matches(const char *pattern, const char *s)
{
    struct wh_regex *r = NULL;
    struct wh_regex_error err;
    if (wh_regex_compile(pattern, strlen(pattern), &r, &err))
        return false;
    bool m = wh_regex_match(r, s, strlen(s));
    wh_regex_free(r);
    return m;
}

/* Messages as Go 1.23 prints them (every code the parser produces, and where its text starts
 * and ends). */
static const struct {
    const char *pattern, *message;
} go_errors[] = {
    {"*", "missing argument to repetition operator: `*`"},
    {"+", "missing argument to repetition operator: `+`"},
    {"?", "missing argument to repetition operator: `?`"},
    {"a|*", "missing argument to repetition operator: `*`"},
    {"\\Q\\E*", "missing argument to repetition operator: `*`"},
    {"(abc", "missing closing ): `(abc`"},
    {"abc)", "unexpected ): `abc)`"},
    {"x[a-z", "missing closing ]: `[a-z`"},
    {"[a", "missing closing ]: `[a`"},
    {"[[:alpha:", "missing closing ]: `[[:alpha:`"},
    {"[z-a]", "invalid character class range: `z-a`"},
    {"abc\\", "trailing backslash at end of expression: ``"},
    {"a**", "invalid nested repetition operator: `**`"},
    {"a*+", "invalid nested repetition operator: `*+`"},
    {"x{1000}{2}", "invalid nested repetition operator: `{1000}{2}`"},
    {"x{2}*", "invalid nested repetition operator: `{2}*`"},
    {"\\x", "invalid escape sequence: `\\x`"},
    {"\\8", "invalid escape sequence: `\\8`"},
    {"\\1", "invalid escape sequence: `\\1`"},
    {"\\C", "invalid escape sequence: `\\C`"},
    {"\\x{110000}", "invalid escape sequence: `\\x{110000`"},
    {"\\x{}", "invalid escape sequence: `\\x{}`"},
    {"\\xZZ", "invalid escape sequence: `\\xZZ`"},
    {"[\\q]", "invalid escape sequence: `\\q`"},
    {"[\\b]", "invalid escape sequence: `\\b`"},
    {"([a-z]{1,1000}){1,1000}", "invalid repeat count: `{1,1000}`"},
    {"(a{1000}){1000}", "invalid repeat count: `{1000}`"},
    {"a{1001}", "invalid repeat count: `{1001}`"},
    {"x{2,1}", "invalid repeat count: `{2,1}`"},
    {"x{9876543210}", "invalid repeat count: `{9876543210}`"},
    {"\\p{Nope}", "invalid character class range: `\\p{Nope}`"},
    {"[\\p{Nope}]", "invalid character class range: `\\p{Nope}`"},
    {"\\pX", "invalid character class range: `\\pX`"},
    {"\\p", "invalid character class range: `\\p`"},
    {"\\P{^}", "invalid character class range: `\\P{^}`"},
    {"\\p\xc3\xa9", "invalid character class range: `\\p\xc3\xa9`"},
    {"\\p{Greek", "invalid character class range: `\\p{Greek`"},
    {"[[:foo:]]", "invalid character class range: `[:foo:]`"},
    /* names Go 1.25 added or spells loosely, which 1.23 refuses */
    {"\\p{Letter}", "invalid character class range: `\\p{Letter}`"},
    {"\\p{greek}", "invalid character class range: `\\p{greek}`"},
    {"\\p{ASCII}", "invalid character class range: `\\p{ASCII}`"},
    {"\\p{Cn}", "invalid character class range: `\\p{Cn}`"},
    {"\\p{LC}", "invalid character class range: `\\p{LC}`"},
    {"(?P<name", "invalid named capture: `(?P<name`"},
    {"(?P<x y>a)", "invalid named capture: `(?P<x y>`"},
    {"(?<>a)", "invalid named capture: `(?<>`"},
    {"(?P<\xc3\xa9>x)", "invalid named capture: `(?P<\xc3\xa9>`"},
    {"(?P=name)", "invalid or unsupported Perl syntax: `(?P`"},
    {"(?z)", "invalid or unsupported Perl syntax: `(?z`"},
    {"(?i-)", "invalid or unsupported Perl syntax: `(?i-)`"},
    {"(?--i)", "invalid or unsupported Perl syntax: `(?--`"},
    {"\xff", "invalid UTF-8: `\xff`"},
    {"a\xff"
     "b",
     "invalid UTF-8: `\xff"
     "b`"},
};

TEST(regex_go_errors)
{
    for (size_t i = 0; i < sizeof(go_errors) / sizeof(go_errors[0]); i++) {
        char want[256];
        snprintf(want, sizeof(want), "error parsing regexp: %s", go_errors[i].message);
        char *got = compile_error(go_errors[i].pattern, strlen(go_errors[i].pattern));
        if (!got || strcmp(got, want) != 0)
            fprintf(stderr, "pattern %s:\n", go_errors[i].pattern);
        CHECK_EQ_STR(got, want);
        free(got);
        struct wh_regex_error err;
        CHECK(!wh_regex_valid(go_errors[i].pattern, strlen(go_errors[i].pattern), &err));
    }
}

/* A NUL is a character like another (JSON can carry one); the message keeps it. */
TEST(regex_nul_bytes)
{
    static const char pattern[] = "a\0(";
    struct wh_regex *r = NULL;
    struct wh_regex_error err;
    CHECK(wh_regex_compile(pattern, 3, &r, &err) == WH_ERR_INVALID);
    size_t len = 0;
    char *msg = wh_regex_error_message(pattern, &err, &len);
    static const char want[] = "error parsing regexp: missing closing ): `a\0(`";
    CHECK_EQ_INT(len, sizeof(want) - 1);
    CHECK(memcmp(msg, want, sizeof(want) - 1) == 0);
    free(msg);
    CHECK(wh_regex_compile("a\0b", 3, &r, &err) == WH_OK);
    CHECK(wh_regex_match(r, "xa\0b", 4));
    CHECK(!wh_regex_match(r, "xa", 2));
    wh_regex_free(r);
}

/* regexp/syntax's invalidRegexps, onlyPerl and onlyPOSIX, under regexp.Compile's Perl flags. */
TEST(regex_go_invalid_and_valid)
{
    static const char *const invalid[] = {
        "(",
        ")",
        "(a",
        "a)",
        "(a))",
        "(a|b|",
        "a|b|)",
        "(a|b|))",
        "(a|b",
        "a|b)",
        "(a|b))",
        "[a-z",
        "([a-z)",
        "[a-z)",
        "([a-z]))",
        "x{1001}",
        "x{9876543210}",
        "x{2,1}",
        "x{1,9876543210}",
        "\xff",
        "[\xff]",
        "[\\\xff]",
        "\\\xff",
        "(?P<name>a",
        "(?P<name>",
        "(?P<name",
        "(?P<x y>a)",
        "(?P<>a)",
        "(?<name>a",
        "(?<name>",
        "(?<name",
        "(?<x y>a)",
        "(?<>a)",
        "[a-Z]",
        "(?i)[a-Z]",
        "\\Q\\E*",
        "a{100000}",
        "a{100000,}",
        "((((((((((x{2}){2}){2}){2}){2}){2}){2}){2}){2}){2})",
        /* onlyPOSIX */
        "a++",
        "a**",
        "a?*",
        "a+*",
        "a{1}*",
        ".{1}{2}.{3}",
    };
    for (size_t i = 0; i < sizeof(invalid) / sizeof(invalid[0]); i++) {
        char *e = compile_error(invalid[i], strlen(invalid[i]));
        if (!e)
            fprintf(stderr, "should fail: %s\n", invalid[i]);
        CHECK(e != NULL);
        free(e);
    }
    static const char *const valid[] = {
        "[a-b-c]",
        "\\Qabc\\E",
        "\\Q*+?{[\\E",
        "\\Q\\\\E",
        "\\Q\\\\\\E",
        "\\Q\\\\\\\\E",
        "\\Q\\\\\\\\\\E",
        "(?:a)",
        "(?P<name>a)",
        "(?<name>a)",
        "(?P<n>a)(?P<n>b)",
        "(?i)[Z-a]",
        "a{,5}",
        "[[:word:]-z]",
        "[\\d-z]",
        "(?)",
        "(?U)a+?",
        "\\p{Old_Italic}",
        "(?i)\\p{Old_Italic}",
        "\\p{Any}",
        "\\P{Any}",
        "((((((((((x{2}){2}){2}){2}){2}){2}){2}){2}){2}))",
        "((((((((((x{1}){2}){2}){2}){2}){2}){2}){2}){2}){2})",
        "(?i)(?-i:a)(?s-m:.)(?U:b*)",
    };
    for (size_t i = 0; i < sizeof(valid) / sizeof(valid[0]); i++) {
        char *e = compile_error(valid[i], strlen(valid[i]));
        if (e)
            fprintf(stderr, "should compile: %s: %s\n", valid[i], e);
        CHECK(e == NULL);
        free(e);
    }
}

/* Reads a data line's field (\\ \t \n \xHH escapes) into out; returns its length. */
static size_t unescape(const char *s, size_t n, char *out)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] != '\\' || i + 1 == n) {
            out[o++] = s[i];
            continue;
        }
        char c = s[++i];
        if (c == 't') {
            out[o++] = '\t';
        } else if (c == 'n') {
            out[o++] = '\n';
        } else if (c == 'x' && i + 2 < n) {
            char hex[3] = {s[i + 1], s[i + 2], 0};
            out[o++] = (char)strtol(hex, NULL, 16);
            i += 2;
        } else {
            out[o++] = c;
        }
    }
    out[o] = '\0';
    return o;
}

/* Splits line (without its newline) at tabs into at most max fields. */
static int fields(char *line, char **f, size_t *len, int max)
{
    int n = 0;
    char *p = line;
    while (n < max) {
        char *tab = strchr(p, '\t');
        f[n] = p;
        len[n] = tab ? (size_t)(tab - p) : strlen(p);
        n++;
        if (!tab)
            break;
        p = tab + 1;
    }
    return n;
}

static uint16_t flags_named(const char *name, size_t n)
{
    if (n == 4 && memcmp(name, "test", 4) == 0)
        return WH_RE_CLASS_NL | WH_RE_DOT_NL | WH_RE_PERL_X | WH_RE_UNICODE_GROUPS;
    if (n == 4 && memcmp(name, "fold", 4) == 0)
        return WH_RE_FOLD_CASE;
    if (n == 7 && memcmp(name, "matchnl", 7) == 0)
        return WH_RE_CLASS_NL | WH_RE_DOT_NL;
    return 0;
}

/* The parse trees of regexp/syntax's own tests: the factoring of alternations, the merging of
 * literals and classes, case folding, flags. */
TEST(regex_go_parse_trees)
{
    FILE *f = fopen("test/unit/data/regex/parse.txt", "r");
    CHECK(f != NULL);
    if (!f)
        return;
    char line[4096], pattern[4096], want[4096];
    int cases = 0;
    while (fgets(line, sizeof(line), f)) {
        line[strcspn(line, "\n")] = '\0';
        if (line[0] == '#' || line[0] == '\0')
            continue;
        char *fl[3];
        size_t ln[3];
        if (fields(line, fl, ln, 3) != 3)
            continue;
        size_t plen = unescape(fl[1], ln[1], pattern);
        size_t wlen = unescape(fl[2], ln[2], want);
        struct wh_re_parser p;
        struct wh_re_node *root = wh_re_parse(&p, pattern, plen, flags_named(fl[0], ln[0]));
        CHECK(root != NULL);
        if (root) {
            size_t dlen;
            char *got = wh_re_dump(root, pattern, &dlen);
            if (dlen != wlen || memcmp(got, want, wlen) != 0)
                fprintf(stderr, "%s: %s\n", line, got);
            CHECK_EQ_STR(got, want);
            free(got);
        }
        wh_re_parse_fini(&p);
        cases++;
    }
    fclose(f);
    CHECK(cases > 150);
}

/* MatchString as Go 1.23 answered on Go's and RE2's test cases. */
TEST(regex_go_match_cases)
{
    FILE *f = fopen("test/unit/data/regex/match.txt", "r");
    CHECK(f != NULL);
    if (!f)
        return;
    char line[8192], pattern[8192], text[8192];
    int cases = 0, matched = 0;
    while (fgets(line, sizeof(line), f)) {
        line[strcspn(line, "\n")] = '\0';
        if (line[0] == '#')
            continue;
        char *fl[3];
        size_t ln[3];
        if (fields(line, fl, ln, 3) != 3)
            continue;
        size_t plen = unescape(fl[0], ln[0], pattern);
        size_t tlen = unescape(fl[1], ln[1], text);
        bool want = fl[2][0] == '1';
        struct wh_regex *r = NULL;
        struct wh_regex_error err;
        CHECK(wh_regex_compile(pattern, plen, &r, &err) == WH_OK);
        if (!r)
            continue;
        bool got = wh_regex_match(r, text, tlen);
        if (got != want)
            fprintf(stderr, "MatchString(%s, %s): %d, Go says %d\n", fl[0], fl[1], got, want);
        CHECK(got == want);
        wh_regex_free(r);
        cases++;
        matched += want;
    }
    fclose(f);
    CHECK(cases > 1000);
    CHECK(matched > 300);
}

TEST(regex_match_anywhere)
{
    CHECK(matches("^sidecar\\.example\\.com/.*$", "sidecar.example.com/owner"));
    CHECK(!matches("^sidecar\\.example\\.com/.*$", "sidecarxexample.com/owner"));
    CHECK(matches("owner", "sidecar.example.com/owner")); /* unanchored */
    CHECK(matches("\\d+-[\\w.]+", "12-ab.c"));
    CHECK(!matches("^\\d+$", "12a"));
    CHECK(matches("(?i)ABC", "xabcx"));
    CHECK(matches("a*?", ""));
    CHECK(matches("[\\]a]", "]"));
    CHECK(matches("(?P<n>a)b", "ab"));
    CHECK(matches("\\Qa.b\\E", "a.b"));
    CHECK(!matches("\\Qa.b\\E", "axb"));
    CHECK(matches("a{2,3}", "aaa"));
    CHECK(matches("^app-(web|db)$", "app-db"));
    CHECK(!matches("^app-(web|db)$", "app-dbx"));
    /* a literal string that ends where another thread begins */
    CHECK(matches("(?:abc){3}$", "xabcabcabc"));
    CHECK(!matches("(?:abc){3}$", "xabcabcab"));
    CHECK(matches("^(?:ab|abc)+d", "abcabd"));
    /* Unicode classes are exact, not ASCII approximations */
    CHECK(matches("^\\p{Greek}+$", "\xce\xb1\xce\xb2\xce\xb3"));
    CHECK(!matches("^\\p{Greek}+$", "abc"));
    CHECK(matches("^\\pL+$", "\xc3\xa9t\xc3\xa9"));
    CHECK(matches("^[[:^alpha:]]$", "\xc3\xa9")); /* POSIX classes are ASCII */
    /* Go 1.23: \pC is Cc|Cf|Co|Cs, so an unassigned code point (U+0378) is not in it */
    CHECK(!matches("\\pC", "\xcd\xb8"));
    CHECK(matches("\\pC", "\x01"));
    /* case folding follows SimpleFold orbits: k, K and the Kelvin sign */
    CHECK(matches("(?i)k", "\xe2\x84\xaa"));
    CHECK(!matches("k", "\xe2\x84\xaa"));
    CHECK(matches("(?i)\xc5\xbf", "S")); /* long s */
    /* $ is the end of the text, (?m) makes it the end of a line */
    CHECK(!matches("^b$", "a\nb\nc"));
    CHECK(matches("(?m)^b$", "a\nb\nc"));
    CHECK(matches("\\bmain\\b", "my main app"));
    CHECK(!matches("\\bmain\\b", "mymainapp"));
    /* an invalid byte reads as U+FFFD */
    CHECK(matches("^.$", "\xff"));
    CHECK(matches("\\x{fffd}", "a\xff"));
}

/* Go 1.23 factors (?i:A)x|A(?i:y) as (?i:A)(?:x|(?i:y)): its Equal compares the runes of two
 * literals, not their case folding (Go 1.25 compares both). What upstream runs matches "aY". */
TEST(regex_go123_factoring)
{
    CHECK(matches("(?i:A)x|A(?i:y)", "aY"));
    CHECK(matches("(?i:A)x|A(?i:y)", "ax"));
    CHECK(!matches("(?i:a)x|a(?i:y)", "AY")); /* the folded literal is 'A', the other 'a' */
}

/* The patterns of issue 22 are refused at once: the parser gives up after a few nodes. */
TEST(regex_pathological_refused_fast)
{
    static const char *const patterns[] = {
        "([a-z]{1,1000}){1,1000}",
        "(a{1000}){1000}",
        "((a{100}){100}){100}",
        "(?:(?:(?:x{10}){10}){10}){10}",
    };
    for (size_t i = 0; i < sizeof(patterns) / sizeof(patterns[0]); i++) {
        struct wh_re_parser p;
        struct wh_re_node *root = wh_re_parse(&p, patterns[i], strlen(patterns[i]), WH_RE_PERL);
        CHECK(root == NULL);
        CHECK_EQ_INT(p.err.code, WH_REGEX_INVALID_REPEAT_SIZE);
        CHECK(p.num_regexp < 20);
        wh_re_parse_fini(&p);
    }
}

static char *repeat(const char *s, int n, const char *tail)
{
    size_t len = strlen(s), tl = strlen(tail);
    char *out = malloc(len * (size_t)n + tl + 1);
    for (int i = 0; i < n; i++)
        memcpy(out + len * (size_t)i, s, len);
    memcpy(out + len * (size_t)n, tail, tl + 1);
    return out;
}

/* Go's own limits, at their edges: depth 1000, 33554432 class runes, 3355443 instructions. */
TEST(regex_go_limits)
{
    struct {
        const char *unit, *tail;
        int n;
        enum wh_regex_code want;
    } cases[] = {
        {"(", "", 1000, WH_REGEX_NESTING_DEPTH}, /* with as many ')' below */
        {"(", "", 999, WH_REGEX_OK},
        {"\\pL", "", 27000, WH_REGEX_LARGE},
        {"\\pL", "", 25000, WH_REGEX_OK},
        {"(xx?){1000}", "", 1000, WH_REGEX_LARGE},
        {"a{1000}", "", 3355, WH_REGEX_OK},
        {"a{1000}", "", 3356, WH_REGEX_LARGE},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *p = repeat(cases[i].unit, cases[i].n, cases[i].tail);
        if (strcmp(cases[i].unit, "(") == 0) {
            char *q = repeat(")", cases[i].n, "");
            char *both = malloc(strlen(p) + strlen(q) + 2);
            snprintf(both, strlen(p) + strlen(q) + 2, "%sa%s", p, q);
            free(p);
            free(q);
            p = both;
        }
        struct wh_regex_error err = {WH_REGEX_OK, 0, 0};
        bool ok = wh_regex_valid(p, strlen(p), &err);
        CHECK_EQ_INT(ok ? WH_REGEX_OK : err.code, cases[i].want);
        if (!ok) {
            /* Go's text for these is the whole pattern */
            CHECK_EQ_INT(err.off, 0);
            CHECK_EQ_INT(err.len, strlen(p));
        }
        free(p);
    }
    /* (?:a...a){1000}: 3355 runes pass by Go's count, 3356 do not */
    char *lit = repeat("a", 3355, "){1000}");
    char *p = malloc(strlen(lit) + 4);
    snprintf(p, strlen(lit) + 4, "(?:%s", lit);
    CHECK(wh_regex_valid(p, strlen(p), NULL));
    free(p);
    free(lit);
    lit = repeat("a", 3356, "){1000}");
    p = malloc(strlen(lit) + 4);
    snprintf(p, strlen(lit) + 4, "(?:%s", lit);
    CHECK(!wh_regex_valid(p, strlen(p), NULL));
    free(p);
    free(lit);
}

/* A long literal repeated is one instruction: Go accepts (?:a{100000 times}){50}, which would
 * be five million instructions expanded. */
TEST(regex_long_literal_repeated_is_small)
{
    char *lit = repeat("a", 100000, "){50}");
    char *p = malloc(strlen(lit) + 4);
    snprintf(p, strlen(lit) + 4, "(?:%s", lit);
    struct wh_regex *r = NULL;
    struct wh_regex_error err;
    CHECK(wh_regex_compile(p, strlen(p), &r, &err) == WH_OK);
    CHECK(wh_regex_memory(r) < 600 * 1024);
    uint64_t steps = 0;
    CHECK(!wh_re_match_counted(r, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
                               62, &steps));
    CHECK(steps < 10000);
    wh_regex_free(r);
    free(p);
    free(lit);
}

/* Matching a long name against nested patterns costs a bounded number of steps per byte,
 * the same for 1000 bytes as for 100 (backtracking engines take exponential time on these). */
TEST(regex_match_is_linear)
{
    static const struct {
        const char *pattern;
        char fill;
    } cases[] = {
        {"(a*)*b", 'a'},
        {"(a|aa)*c", 'a'},
        {"(x+x+)+y", 'x'},
        {"^(a?){30}a{30}$", 'a'},
        {"([a-z0-9]+-?)*[a-z0-9]+!$", 'a'},
        {"(?:(?:a|b)*(?:a|b)*)*c", 'a'},
        {"(.*){20}z", 'q'},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct wh_regex *r = NULL;
        struct wh_regex_error err;
        CHECK(wh_regex_compile(cases[i].pattern, strlen(cases[i].pattern), &r, &err) == WH_OK);
        if (!r)
            continue;
        uint64_t steps[2];
        size_t lens[2] = {100, 1000};
        for (int k = 0; k < 2; k++) {
            char *s = malloc(lens[k]);
            memset(s, cases[i].fill, lens[k]);
            CHECK(!wh_re_match_counted(r, s, lens[k], &steps[k]));
            /* at most every instruction twice (added, then stepped) per position */
            CHECK(steps[k] <= (uint64_t)(lens[k] + 1) * 2 * r->ninst);
            free(s);
        }
        /* ten times the text, at most ten times the work (and a little) */
        CHECK(steps[1] <= steps[0] * 11);
        wh_regex_free(r);
    }
}
