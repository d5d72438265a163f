/* k8s/imageref against the test tables of the two reference packages it follows, ported as data
 * (test/unit/data/imageref/: each Go test's table as the test declares it). Each table is
 * checked the way its Go test checks it: where the test compares the error itself, the message
 * must be the same; where it only asks for an error, any will do. Tables of what imageref does
 * not implement (FamiliarMatch's globs, ParseAnyReferenceWithSet's short identifiers) are
 * named and skipped, and a table nobody checks fails the test. */
#include <stdlib.h>
#include <string.h>

#include "gocompat/unicase.h"
#include "k8s/imageref.h"
#include "test.h"

struct table {
    enum wh_imageref_dialect d;
    const char *file;
    const char *test, *name;
    const json_t *cases;
    int checked;
};

static const char *str(const json_t *c, const char *key)
{
    const char *v = json_string_value(json_object_get(c, key));
    return v ? v : "";
}

static char *dup_span(const char *s, size_t n)
{
    char *out = malloc(n + 1);
    memcpy(out, s ? s : "", s ? n : 0);
    out[s ? n : 0] = '\0';
    return out;
}

#define CHECK_SPAN(what, span, len, want)                                                          \
    do {                                                                                           \
        char *got_ = dup_span((span), (len));                                                      \
        if (strcmp(got_, (want)) != 0) {                                                           \
            fprintf(stderr, "%s:%d: %s %s: %s is \"%s\", the table says \"%s\"\n", __FILE__,        \
                    __LINE__, t->test, input, what, got_, (want));                                  \
            wh_test_failed_checks++;                                                               \
        }                                                                                          \
        free(got_);                                                                                \
    } while (0)

#define CHECK_TEXT(what, text, want)                                                               \
    do {                                                                                           \
        char *got_ = (text);                                                                       \
        if (strcmp(got_, (want)) != 0) {                                                           \
            fprintf(stderr, "%s:%d: %s %s: %s is \"%s\", the table says \"%s\"\n", __FILE__,        \
                    __LINE__, t->test, input, what, got_, (want));                                  \
            wh_test_failed_checks++;                                                               \
        }                                                                                          \
        free(got_);                                                                                \
    } while (0)

/* rc/eb of a parse against the table's err: the message when exact, else only whether. */
static bool check_err(const struct table *t, const char *input, enum wh_err rc,
                      const struct wh_errbuf *eb, const json_t *want, bool exact)
{
    bool failing = want && !json_is_null(want);
    if (!failing && rc) {
        fprintf(stderr, "%s %s: unexpected error: %s\n", t->test, input, eb->msg);
        wh_test_failed_checks++;
    } else if (failing && !rc) {
        fprintf(stderr, "%s %s: no error, the table says %s\n", t->test, input,
                json_string_value(want));
        wh_test_failed_checks++;
    } else if (failing && exact && strcmp(eb->msg, json_string_value(want)) != 0) {
        fprintf(stderr, "%s %s: error \"%s\", the table says \"%s\"\n", t->test, input, eb->msg,
                json_string_value(want));
        wh_test_failed_checks++;
    }
    return !rc;
}

/* Parse, as TestReferenceParse and TestSerialization check it (the error compared exactly). */
static void check_parse(const struct table *t, const json_t *c, bool serialization)
{
    const char *input = str(c, "input");
    struct wh_imageref r;
    struct wh_errbuf eb = {{0}};
    enum wh_err rc = wh_imageref_parse_ref(t->d, input, strlen(input), &r, &eb);
    if (check_err(t, input, rc, &eb, json_object_get(c, "err"), true)) {
        if (!serialization)
            CHECK_TEXT("String()", wh_imageref_string(&r), input);
        CHECK_SPAN("name", r.name, r.name_len,
                   str(c, serialization ? "name" : "repository"));
        if (!serialization)
            CHECK_SPAN("domain", r.domain, r.domain_len, str(c, "domain"));
        CHECK_SPAN("tag", r.tag, r.tag_len, str(c, "tag"));
        CHECK_SPAN("digest", r.digest, r.digest_len, str(c, "digest"));
    }
    wh_imageref_fini(&r);
}

static void check_normalized_ok(const struct table *t, const char *input, bool ok)
{
    struct wh_imageref r;
    struct wh_errbuf eb = {{0}};
    enum wh_err rc = wh_imageref_parse_normalized(t->d, input, strlen(input), &r, &eb);
    if ((rc == WH_OK) != ok) {
        fprintf(stderr, "%s %s: ParseNormalizedNamed %s (%s)\n", t->test, input,
                ok ? "fails" : "succeeds", eb.msg);
        wh_test_failed_checks++;
    }
    wh_imageref_fini(&r);
}

static void check_repository_info(const struct table *t, const json_t *c)
{
    const char *names[] = {str(c, "FamiliarName"), str(c, "FullName"), str(c, "AmbiguousName")};
    for (size_t i = 0; i < 3; i++) {
        const char *input = names[i];
        if (!*input)
            continue;
        struct wh_imageref r;
        struct wh_errbuf eb = {{0}};
        if (check_err(t, input, wh_imageref_parse_normalized(t->d, input, strlen(input), &r, &eb),
                      &eb, NULL, false)) {
            CHECK_TEXT("FamiliarName", wh_imageref_familiar_name(&r), str(c, "FamiliarName"));
            CHECK_TEXT("String()", wh_imageref_string(&r), str(c, "FullName"));
            CHECK_SPAN("Domain", r.domain, r.domain_len, str(c, "Domain"));
            CHECK_SPAN("Path", r.path, r.path_len, str(c, "RemoteName"));
        }
        wh_imageref_fini(&r);
    }
}

/* The type Go's Parse would give: named or not, tagged, digested. */
static int shape(const struct wh_imageref *r)
{
    return (r->name ? 1 : 0) | (r->tag ? 2 : 0) | (r->digest ? 4 : 0);
}

static void check_any(struct table *t, const json_t *c)
{
    if (json_array_size(json_object_get(c, "Digests"))) {
        t->checked--; /* ParseAnyReferenceWithSet: short identifiers, not implemented */
        return;
    }
    const char *input = str(c, "Reference");
    struct wh_imageref r, want;
    struct wh_errbuf eb = {{0}};
    if (check_err(t, input, wh_imageref_parse_any(t->d, input, strlen(input), &r, &eb), &eb, NULL,
                  false)) {
        char *s = wh_imageref_string(&r);
        CHECK_TEXT("String()", s, str(c, "Equivalent"));
        const json_t *expected = json_object_get(c, "Expected");
        if (json_is_string(expected)) { /* a digestReference */
            CHECK(!r.name && r.digest);
            CHECK_SPAN("digest", r.digest, r.digest_len, json_string_value(expected));
        } else {
            const char *eq = str(c, "Equivalent");
            CHECK(wh_imageref_parse_ref(t->d, eq, strlen(eq), &want, &eb) == WH_OK);
            CHECK_EQ_INT(shape(&r), shape(&want));
            wh_imageref_fini(&want);
        }
    }
    wh_imageref_fini(&r);
}

static void check_split(const struct table *t, const json_t *c, bool with_name)
{
    const char *input = str(c, "input");
    const char *path = json_object_get(c, "path") ? str(c, "path") : str(c, "name");
    struct wh_imageref r;
    struct wh_errbuf eb = {{0}};
    enum wh_err rc = with_name ? wh_imageref_with_name(t->d, input, strlen(input), &r, &eb)
                               : wh_imageref_parse_normalized(t->d, input, strlen(input), &r, &eb);
    if (check_err(t, input, rc, &eb, NULL, false)) {
        CHECK_SPAN("domain", r.domain, r.domain_len, str(c, "domain"));
        CHECK_SPAN("path", r.path, r.path_len, path);
    }
    wh_imageref_fini(&r);
}

static void check_docker_ref(const struct table *t, const json_t *c)
{
    const char *input = str(c, "input");
    struct wh_imageref r, again;
    struct wh_errbuf eb = {{0}};
    if (check_err(t, input, wh_imageref_parse_docker_ref(t->d, input, strlen(input), &r, &eb),
                  &eb, NULL, false)) {
        char *s = wh_imageref_string(&r);
        CHECK_SPAN("String()", s, strlen(s), str(c, "expected"));
        CHECK(wh_imageref_parse_ref(t->d, s, strlen(s), &again, &eb) == WH_OK);
        free(s);
    }
    wh_imageref_fini(&r);
}

static void check_with_name_failure(const struct table *t, const json_t *c, bool exact)
{
    const char *input = str(c, "input");
    struct wh_imageref r;
    struct wh_errbuf eb = {{0}};
    check_err(t, input, wh_imageref_with_name(t->d, input, strlen(input), &r, &eb), &eb,
              json_object_get(c, "err"), exact);
    wh_imageref_fini(&r);
}

/* TestWithTag and TestWithDigest: a name, then the other part, then the one tested. */
static void check_with(const struct table *t, const json_t *c, bool tag_last)
{
    const char *input = str(c, "name"), *tag = str(c, "tag"), *digest = str(c, "digest");
    struct wh_imageref r;
    struct wh_errbuf eb = {{0}};
    CHECK(wh_imageref_with_name(t->d, input, strlen(input), &r, &eb) == WH_OK);
    if (tag_last) {
        if (*digest)
            CHECK(wh_imageref_with_digest(&r, digest, strlen(digest), &eb) == WH_OK);
        CHECK(wh_imageref_with_tag(&r, tag, strlen(tag), &eb) == WH_OK);
    } else {
        if (*tag)
            CHECK(wh_imageref_with_tag(&r, tag, strlen(tag), &eb) == WH_OK);
        CHECK(wh_imageref_with_digest(&r, digest, strlen(digest), &eb) == WH_OK);
    }
    CHECK_TEXT("String()", wh_imageref_string(&r), str(c, "combined"));
    wh_imageref_fini(&r);
}

static void check_named(const struct table *t, const json_t *c)
{
    const char *input = str(c, "input");
    const char *path = json_object_get(c, "path") ? str(c, "path") : str(c, "name");
    struct wh_imageref r;
    struct wh_errbuf eb = {{0}};
    if (check_err(t, input, wh_imageref_parse_named(t->d, input, strlen(input), &r, &eb), &eb,
                  json_object_get(c, "err"), true)) {
        CHECK_SPAN("domain", r.domain, r.domain_len, str(c, "domain"));
        CHECK_SPAN("path", r.path, r.path_len, path);
    }
    wh_imageref_fini(&r);
}

/* A capture the table lists, "" for one it leaves out. */
static const char *sub(const json_t *subs, size_t i)
{
    const char *v = json_string_value(json_array_get(subs, i));
    return v ? v : "";
}

/* The Go test compares only the captures its table lists. */
#define CHECK_SUB(what, span, len, subs, i)                                                        \
    do {                                                                                           \
        if ((i) < json_array_size(subs))                                                           \
            CHECK_SPAN(what, span, len, sub(subs, i));                                             \
    } while (0)

/* A regexpMatch: match, and the captures when it does. */
static void check_regexp(const struct table *t, const json_t *c, int which)
{
    const char *input = str(c, "input");
    size_t n = strlen(input);
    bool want = json_is_true(json_object_get(c, "match"));
    const json_t *subs = json_object_get(c, "subs");
    struct wh_imageref r;
    bool got;
    switch (which) {
    case 0:
        got = wh_imageref_is_domain(t->d, input, n);
        break;
    case 1:
        got = wh_imageref_match_name(t->d, input, n, &r);
        if (got && want) {
            CHECK_SUB("domain", r.domain, r.domain_len, subs, 0);
            CHECK_SUB("path", r.path, r.path_len, subs, 1);
        }
        break;
    case 2:
        got = wh_imageref_match(t->d, input, n, &r);
        if (got && want) {
            CHECK_SUB("name", r.name, r.name_len, subs, 0);
            CHECK_SUB("tag", r.tag, r.tag_len, subs, 1);
            CHECK_SUB("digest", r.digest, r.digest_len, subs, 2);
        }
        break;
    default: { /* anchoredIdentifierRegexp: what ParseNormalizedNamed refuses first */
        struct wh_errbuf eb = {{0}};
        if (wh_imageref_parse_normalized(t->d, input, n, &r, &eb) == WH_OK)
            eb.msg[0] = '\0';
        got = strstr(eb.msg, "cannot specify 64-byte hexadecimal strings") != NULL;
        wh_imageref_fini(&r);
    }
    }
    if (got != want) {
        fprintf(stderr, "%s %s: %s, the table says %s\n", t->test, input,
                got ? "matches" : "does not match", want ? "it matches" : "it does not");
        wh_test_failed_checks++;
    }
}

static bool is(const struct table *t, const char *test, const char *name)
{
    return strcmp(t->test, test) == 0 && (!name || strcmp(t->name, name) == 0);
}

static void run_table(struct table *t)
{
    size_t i;
    const json_t *c;
    bool beta = t->d == WH_IMAGEREF_DISTRIBUTION;
    json_array_foreach(t->cases, i, c)
    {
        const char *s = json_string_value(c);
        t->checked++;
        if (is(t, "TestValidateReferenceName", "validRepoNames") ||
            is(t, "TestValidateRemoteName", "validRepositoryNames"))
            check_normalized_ok(t, s, true);
        else if (is(t, "TestValidateReferenceName", "invalidRepoNames") ||
                 is(t, "TestValidateRemoteName", "invalidRepositoryNames"))
            check_normalized_ok(t, s, false);
        else if (is(t, "TestParseRepositoryInfo", NULL))
            check_repository_info(t, c);
        else if (is(t, "TestParseAnyReference", NULL))
            check_any(t, c);
        else if (is(t, "TestNormalizedSplitHostname", NULL))
            check_split(t, c, false);
        else if (is(t, "TestSplitHostname", NULL) || is(t, "TestDomainAndPath", NULL))
            check_split(t, c, true);
        else if (is(t, "TestParseDockerRef", NULL))
            check_docker_ref(t, c);
        else if (is(t, "TestReferenceParse", NULL))
            check_parse(t, c, false);
        else if (is(t, "TestSerialization", NULL))
            check_parse(t, c, true);
        else if (is(t, "TestWithNameFailure", NULL))
            check_with_name_failure(t, c, beta);
        else if (is(t, "TestWithTag", NULL))
            check_with(t, c, true);
        else if (is(t, "TestWithDigest", NULL))
            check_with(t, c, false);
        else if (is(t, "TestParseNamed", NULL))
            check_named(t, c);
        else if (is(t, "TestDomainRegexp", NULL))
            check_regexp(t, c, 0);
        else if (is(t, "TestFullNameRegexp", NULL))
            check_regexp(t, c, 1);
        else if (is(t, "TestReferenceRegexp", NULL))
            check_regexp(t, c, 2);
        else if (is(t, "TestIdentifierRegexp", beta ? NULL : "fullCases"))
            check_regexp(t, c, 3);
        else
            t->checked--;
    }
}

/* Tables not ported: FamiliarMatch (path.Match globs) and ShortIdentifierRegexp, which only
 * ParseAnyReferenceWithSet's digest sets use. */
static bool skipped(const struct table *t)
{
    return is(t, "TestMatch", NULL) || is(t, "TestIdentifierRegexp", "shortCases");
}

static void run_file(enum wh_imageref_dialect d, const char *file, int min_cases)
{
    json_error_t jerr;
    json_t *doc = json_load_file(file, 0, &jerr);
    CHECK(doc != NULL);
    if (!doc)
        return;
    int total = 0;
    size_t i;
    const json_t *tab;
    json_array_foreach(json_object_get(doc, "tables"), i, tab)
    {
        struct table t = {.d = d, .file = file, .test = str(tab, "test"), .name = str(tab, "table"),
                          .cases = json_object_get(tab, "cases")};
        run_table(&t);
        if (!t.checked && !skipped(&t)) {
            fprintf(stderr, "%s: table %s.%s is checked by nothing\n", file, t.test, t.name);
            wh_test_failed_checks++;
        }
        total += t.checked;
    }
    CHECK(total >= min_cases);
    json_decref(doc);
}

TEST(imageref_docker_distribution_tables)
{
    run_file(WH_IMAGEREF_DOCKER, "test/unit/data/imageref/docker-distribution-v2.8.2.json", 250);
}

TEST(imageref_distribution_reference_tables)
{
    run_file(WH_IMAGEREF_DISTRIBUTION, "test/unit/data/imageref/distribution-reference-v0.6.0.json",
             290);
}

/* What the tables do not say, in the words OpenKruise's users see. */
TEST(imageref_messages_and_edges)
{
    struct wh_imageref r;
    struct wh_errbuf eb = {{0}};
    /* a NUL inside a JSON string is a byte of the reference, as in Go */
    CHECK(wh_imageref_parse_ref(WH_IMAGEREF_DOCKER, "nginx\0x", 7, &r, &eb) == WH_ERR_INVALID);
    CHECK_EQ_STR(eb.msg, "invalid reference format");
    /* the uppercase message, through Go's lower-casing: the Kelvin sign lowers to 'k' */
    CHECK(wh_imageref_parse_ref(WH_IMAGEREF_DOCKER, "\xe2\x84\xaaube", 6, &r, &eb) ==
          WH_ERR_INVALID);
    CHECK_EQ_STR(eb.msg, "repository name must be lowercase");
    CHECK(wh_imageref_parse_normalized(WH_IMAGEREF_DOCKER, "nginx\xc3\x89", 7, &r, &eb) ==
          WH_ERR_INVALID);
    CHECK_EQ_STR(eb.msg, "invalid reference format: repository name must be lowercase");
    wh_imageref_fini(&r);
    CHECK(wh_imageref_parse_normalized(WH_IMAGEREF_DOCKER, "nginx\xc3\xa9", 7, &r, &eb) ==
          WH_ERR_INVALID);
    CHECK_EQ_STR(eb.msg, "invalid reference format");
    wh_imageref_fini(&r);
    CHECK(wh_imageref_parse_normalized(WH_IMAGEREF_DISTRIBUTION, "Docker/x", 8, &r, &eb) ==
          WH_OK); /* an uppercase first component is a host there */
    wh_imageref_fini(&r);
    CHECK(wh_imageref_parse_normalized(WH_IMAGEREF_DISTRIBUTION, "a/Docker", 8, &r, &eb) ==
          WH_ERR_INVALID);
    CHECK_EQ_STR(eb.msg, "invalid reference format: repository name (a/Docker) must be lowercase");
    wh_imageref_fini(&r);
    /* digests: go-digest's three errors (util.ParseImage's Parse; normalised, "a@SHA256" would
     * be an uppercase remote name first) */
    static const struct {
        const char *ref, *msg;
    } digests[] = {
        {"a@sha256:abc", "invalid reference format"},
        {"a@sha256:0123456789abcdef0123456789abcdef", "invalid checksum digest length"},
        {"a@sha256:0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef",
         "invalid checksum digest format"},
        {"a@md5:0123456789abcdef0123456789abcdef", "unsupported digest algorithm"},
        {"a@SHA256:0123456789abcdef0123456789abcdef", "invalid checksum digest format"},
    };
    for (size_t i = 0; i < sizeof(digests) / sizeof(digests[0]); i++) {
        CHECK(wh_imageref_parse_ref(WH_IMAGEREF_DOCKER, digests[i].ref, strlen(digests[i].ref),
                                    &r, &eb) == WH_ERR_INVALID);
        CHECK_EQ_STR(eb.msg, digests[i].msg);
        wh_imageref_fini(&r);
    }
    /* the daemon's NormalizeImageRef: a tag beside a digest is dropped, latest added */
    const char *both = "nginx:1@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789"
                       "abcdef";
    CHECK(wh_imageref_parse_docker_ref(WH_IMAGEREF_DOCKER, both, strlen(both), &r, &eb) == WH_OK);
    char *s = wh_imageref_string(&r);
    CHECK_EQ_STR(s, "docker.io/library/nginx@sha256:0123456789abcdef0123456789abcdef0123456789abcdef"
                    "0123456789abcdef");
    free(s);
    wh_imageref_fini(&r);
    /* a name long enough for the heap */
    char longname[700];
    memset(longname, 'a', sizeof(longname));
    longname[1] = '/';
    CHECK(wh_imageref_parse_normalized(WH_IMAGEREF_DOCKER, longname, sizeof(longname), &r, &eb) ==
          WH_ERR_INVALID);
    CHECK_EQ_STR(eb.msg, "repository name must not be more than 255 characters");
    wh_imageref_fini(&r);
    /* Kubernetes' pull policy */
    CHECK(wh_imageref_pulls_latest("nginx", 5));
    CHECK(wh_imageref_pulls_latest("[::1]:5000/a", 12));
    CHECK(!wh_imageref_pulls_latest("nginx:1", 7));
    CHECK(wh_imageref_pulls_latest("a/b:latest", 10));
    CHECK(!wh_imageref_pulls_latest("Nginx", 5));
}

TEST(unicase_lower_changes)
{
    CHECK(!wh_go_lower_changes("abc-1.é", 8));
    CHECK(wh_go_lower_changes("abC", 3));
    CHECK(wh_go_lower_changes("\xc3\x89", 2)); /* É */
    CHECK(wh_go_lower_changes("\xff", 1));     /* not UTF-8: Go writes U+FFFD */
    CHECK(!wh_go_lower_changes("\xef\xbf\xbd", 3));
    CHECK(wh_go_lower_changes("\xe1\xbe\x88", 3)); /* U+1F88, a titlecase letter */
    CHECK(wh_go_lower_changes("\xed\xa0\x80", 3)); /* a surrogate is not UTF-8 */
    char out[8];
    CHECK_EQ_INT(wh_go_lower_ascii("A\xc4\xb0K", 4, out), 3);
    CHECK(memcmp(out, "aik", 3) == 0);
    CHECK_EQ_INT(wh_go_lower_ascii("\xc3\x89", 2, out), (long long)(size_t)-1);
}
