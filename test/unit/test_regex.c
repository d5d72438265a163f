/* gocompat/regex: Go's regexp syntax errors word for word, and MatchString semantics. */
#include <string.h>

#include "test/unit/test.h"
#include "gocompat/regex.h"

static void check_error(const char *pattern, const char *want)
{
    char msg[256];
    CHECK(!wh_regex_check(pattern, msg, sizeof(msg)));
    CHECK_EQ_STR(msg, want);
}

TEST(regex_go_errors)
{
    check_error("[a", "error parsing regexp: missing closing ]: `[a`");
    check_error("a**", "error parsing regexp: invalid nested repetition operator: `**`");
    check_error("*a", "error parsing regexp: missing argument to repetition operator: `*`");
    check_error("(a", "error parsing regexp: missing closing ): `(a`");
    check_error("a)", "error parsing regexp: unexpected ): `a)`");
    check_error("[z-a]", "error parsing regexp: invalid character class range: `z-a`");
    check_error("\\q", "error parsing regexp: invalid escape sequence: `\\q`");
    check_error("a\\", "error parsing regexp: trailing backslash at end of expression: ``");
    check_error("a{1001}", "error parsing regexp: invalid repeat count: `{1001}`");
    check_error("(?z)", "error parsing regexp: invalid or unsupported Perl syntax: `(?z`");
    check_error("a|*", "error parsing regexp: missing argument to repetition operator: `*`");
}

static bool matches(const char *pattern, const char *s)
{
    struct wh_regex r;
    struct wh_errbuf eb;
    if (wh_regex_compile(&r, pattern, &eb))
        return false;
    bool m = wh_regex_match(&r, s);
    wh_regex_free(&r);
    return m;
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
}
