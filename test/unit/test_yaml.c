/* Tests for webhook/util/yaml: scalars resolved as sigs.k8s.io/yaml (go-yaml v2) resolves
 * them, keys, documents, anchors and merges, limits, and error positions. */
#include "test/unit/test.h"

#include <stdint.h>
#include <stdlib.h>

#include "util/json.h"
#include "util/mem.h"
#include "util/time.h"
#include "util/yaml.h"

/* Loads text; returns the documents array or NULL (message in eb, code in *rc). */
static json_t *load(const char *text, struct wh_errbuf *eb, enum wh_err *rcp)
{
    json_t *docs = NULL;
    enum wh_err rc = wh_yaml_load(text, strlen(text), "t.yaml", &docs, eb);
    if (rcp)
        *rcp = rc;
    if (rc)
        return NULL;
    return docs;
}

/* Checks that `text` loads to exactly one document equal to the JSON `want`. */
static void check_yaml(const char *text, const char *want)
{
    struct wh_errbuf eb = {{0}};
    enum wh_err rc;
    json_t *docs = load(text, &eb, &rc);
    if (!docs)
        fprintf(stderr, "yaml load failed for:\n%s\n  %s\n", text, eb.msg);
    CHECK_EQ_INT(rc, WH_OK);
    json_t *w = wh_test_json(want);
    json_t *doc = json_array_size(docs) == 1 ? json_array_get(docs, 0) : docs;
    CHECK_EQ_JSON(doc, w);
    /* keep integers and reals apart: 1 is not 1.0 */
    if (doc && json_typeof(doc) != json_typeof(w)) {
        fprintf(stderr, "type differs for %s\n", text);
        CHECK(json_typeof(doc) == json_typeof(w));
    }
    json_decref(w);
    json_decref(docs);
}

/* Checks the value of `v: <scalar>` (the scalar as written after "v: "). */
static void check_value(const char *scalar, const char *want)
{
    char text[256], w[256];
    snprintf(text, sizeof(text), "v: %s\n", scalar);
    snprintf(w, sizeof(w), "{\"v\": %s}", want);
    struct wh_errbuf eb = {{0}};
    enum wh_err rc;
    json_t *docs = load(text, &eb, &rc);
    if (!docs)
        fprintf(stderr, "yaml load failed for %s: %s\n", scalar, eb.msg);
    json_t *wj = wh_test_json(w);
    json_t *got = json_object_get(json_array_get(docs, 0), "v");
    json_t *exp = json_object_get(wj, "v");
    if (!got || !json_equal(got, exp) || json_typeof(got) != json_typeof(exp)) {
        char *s = got ? json_dumps(got, JSON_ENCODE_ANY) : NULL;
        fprintf(stderr, "scalar %s: got %s (%s), want %s\n", scalar, s ? s : "(none)",
                wh_json_type_name(got), want);
        free(s);
        wh_test_failed_checks++;
    }
    json_decref(wj);
    json_decref(docs);
}

static void check_error(const char *text, enum wh_err want_rc, const char *needle)
{
    struct wh_errbuf eb = {{0}};
    enum wh_err rc;
    json_t *docs = load(text, &eb, &rc);
    CHECK(docs == NULL);
    CHECK_EQ_INT(rc, want_rc);
    if (!strstr(eb.msg, needle)) {
        fprintf(stderr, "error \"%s\" lacks \"%s\" (input: %s)\n", eb.msg, needle, text);
        wh_test_failed_checks++;
    }
    json_decref(docs);
}

TEST(yaml_scalars_strings_and_null)
{
    check_value("\"1\"", "\"1\"");
    check_value("'1'", "\"1\"");
    check_value("hello world", "\"hello world\"");
    check_value("null", "null");
    check_value("Null", "null");
    check_value("NULL", "null");
    check_value("~", "null");
    check_value("", "null");
    check_value("'null'", "\"null\"");
    check_value("\"~\"", "\"~\"");
    check_value("nULL", "\"nULL\"");
    check_value("'yes'", "\"yes\"");
    check_value("\"yes\"", "\"yes\"");
    check_value("12:30", "\"12:30\"");
    check_value("2001-12-14", "\"2001-12-14\"");
    check_value("2001-12-14T21:59:43.10Z", "\"2001-12-14T21:59:43.10Z\"");
    check_value("1.2.3", "\"1.2.3\"");
    check_value("0x", "\"0x\"");
    check_value("0o8", "\"0o8\"");
    check_value("+", "\"+\"");
    check_value("_1", "\"_1\"");
    check_value("1e", "\"1e\"");
    check_value("<<", "\"<<\"");
    check_value("!!merge <<", "\"<<\"");
    check_value("\"a\\tb\\u00e9\"", "\"a\\tb\\u00e9\"");
    check_value("\"\\/\"", "\"/\"");
    check_value("20%", "\"20%\"");
}

TEST(yaml_scalars_booleans)
{
    /* YAML 1.1 as go-yaml v2 (and so kubectl) reads it */
    const char *yes[] = {"true", "True", "TRUE", "yes", "Yes", "YES", "y", "Y", "on", "On", "ON"};
    const char *no[] = {"false", "False", "FALSE", "no", "No", "NO", "n", "N", "off", "Off", "OFF"};
    for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
        check_value(yes[i], "true");
    for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
        check_value(no[i], "false");
    check_value("tRUE", "\"tRUE\"");
    check_value("yES", "\"yES\"");
    check_value("'on'", "\"on\"");
}

TEST(yaml_scalars_numbers)
{
    check_value("1", "1");
    check_value("-1", "-1");
    check_value("+1", "1");
    check_value("0", "0");
    check_value("-0", "0");
    check_value("01", "1");
    check_value("010", "8");
    check_value("0777", "511");
    check_value("08", "8"); /* not octal: go-yaml falls back to the float 8 */
    check_value("0o17", "15");
    check_value("0O17", "15");
    check_value("0x1F", "31");
    check_value("0X1f", "31");
    check_value("-0x10", "-16");
    check_value("0b101", "5");
    check_value("-0b101", "-5");
    check_value("1_000", "1000");
    check_value("1__0_", "10");
    check_value("0x_1F", "31");
    check_value("9223372036854775807", "9223372036854775807");
    check_value("-9223372036854775808", "-9223372036854775808");
    /* beyond int64: the nearest double */
    check_value("9223372036854775808", "9.2233720368547758e18");
    check_value("-9223372036854775809", "-9.2233720368547758e18");
    check_value("99999999999999999999", "1e20");
    check_value("0xFFFFFFFFFFFFFFFFF", "2.9514790517935283e20");
    check_value("1e400", "\"1e400\""); /* too big even for a double: a string, as go-yaml */
    /* floats */
    check_value("1.5", "1.5");
    check_value("-1.5E+3", "-1500");
    check_value("1.0", "1");
    check_value("1.", "1");
    check_value("1e3", "1000");
    check_value("1e-3", "0.001");
    check_value(".5", "0.5");
    check_value("-.5", "-0.5");
    check_value("+.5e1", "5");
    check_value(".5_5", "0.55");
    check_value("._5", "\"._5\"");
    check_value("1_000.5", "1000.5");
    check_value("1e-400", "0");
    check_value("1e20", "1e20");
    check_value("1e19", "1e19");
    check_value("'1.5'", "\"1.5\"");
}

TEST(yaml_scalars_inf_nan_are_errors)
{
    check_error("a: 1\nb: .inf\n", WH_ERR_PARSE, "t.yaml:2:4: .inf: JSON cannot represent");
    check_error("b: -.Inf", WH_ERR_PARSE, "t.yaml:1:4:");
    check_error("b: +.INF", WH_ERR_PARSE, "JSON cannot represent");
    check_error("- .nan", WH_ERR_PARSE, "t.yaml:1:3:");
    check_error("- .NaN", WH_ERR_PARSE, "JSON cannot represent");
    check_error("- !!float .inf", WH_ERR_PARSE, "JSON cannot represent");
    check_value("'.inf'", "\".inf\"");
    check_value(".infinity", "\".infinity\"");
}

TEST(yaml_tags)
{
    check_value("!!str 123", "\"123\"");
    check_value("!!str true", "\"true\"");
    check_value("!!int \"12\"", "12");
    check_value("!!int 0x10", "16");
    check_value("!!int 99999999999999999999", "1e20");
    check_value("!!float 1.5", "1.5");
    check_value("!!float 2", "2");
    check_value("!!bool yes", "true");
    check_value("!!bool 'false'", "false");
    check_value("!!null ''", "null");
    check_value("!!null ~", "null");
    check_value("!!binary aGVsbG8=", "\"aGVsbG8=\"");
    check_value("!!timestamp 2001-12-14", "\"2001-12-14\"");
    check_value("! 123", "\"123\"");
    check_value("!local 5", "\"5\"");
    check_value("!<tag:yaml.org,2002:int> 7", "7");
    check_error("v: !!int abc", WH_ERR_PARSE, "t.yaml:1:4: cannot decode !!str `abc` as a !!int");
    check_error("v: !!int 1.5", WH_ERR_PARSE, "cannot decode !!float `1.5` as a !!int");
    check_error("v: !!bool 1", WH_ERR_PARSE, "cannot decode !!int `1` as a !!bool");
    check_error("v: !!null x", WH_ERR_PARSE, "as a !!null");
    check_error("v: !!float abc", WH_ERR_PARSE, "as a !!float");
    /* tags on collections are ignored */
    check_yaml("!!map {a: !!seq [1]}", "{\"a\": [1]}");
}

TEST(yaml_block_scalars)
{
    check_yaml("a: |\n  x\n  123\nb: 1\n", "{\"a\": \"x\\n123\\n\", \"b\": 1}");
    check_yaml("a: |-\n  123\n", "{\"a\": \"123\"}");
    check_yaml("a: |+\n  x\n\nb: 1\n", "{\"a\": \"x\\n\\n\", \"b\": 1}");
    check_yaml("a: >\n  one\n  two\n\n  three\n", "{\"a\": \"one two\\nthree\\n\"}");
    check_yaml("a: >-\n  true\n", "{\"a\": \"true\"}");
    check_yaml("a: |2\n    indented\n", "{\"a\": \"  indented\\n\"}");
}

TEST(yaml_keys)
{
    check_yaml("1: a\ntrue: b\n0x10: d\n1.5: e\nnull_: f\n",
               "{\"1\": \"a\", \"true\": \"b\", \"16\": \"d\", \"1.5\": \"e\", \"null_\": \"f\"}"
               "");
    check_yaml("1e6: a\n.inf: b\n-.inf: c\n1.0: d\n0.0001: e\n0.00001: f\n1e-7: g\n",
               "{\"1e+06\": \"a\", \".inf\": \"b\", \"-.inf\": \"c\", \"1\": \"d\","
               " \"0.0001\": \"e\", \"1e-05\": \"f\", \"1e-07\": \"g\"}");
    check_yaml("123456.0: a\n1234567.0: b\n0.1: c\n-2.5: d\n",
               "{\"123456\": \"a\", \"1.234567e+06\": \"b\", \"0.1\": \"c\", \"-2.5\": \"d\"}");
    check_yaml("\"1\": a\n'true': b\n", "{\"1\": \"a\", \"true\": \"b\"}");
    check_yaml("{a: 1, b: {c: [x, w]}}", "{\"a\": 1, \"b\": {\"c\": [\"x\", \"w\"]}}");
    /* the YAML 1.1 quirk kubectl has too: y and n are booleans, also as keys */
    check_yaml("y: 1\nn: [y, n, x]\n", "{\"true\": 1, \"false\": [true, false, \"x\"]}");
    check_error("~: a\n", WH_ERR_PARSE, "t.yaml:1:1: mapping key is null");
    check_error("? [a]\n: b\n", WH_ERR_PARSE, "t.yaml:1:3: mapping key must be a scalar");
    check_error("{[a]: b}", WH_ERR_PARSE, "mapping key must be a scalar, not a sequence");
    check_error("? {a: 1}\n: b\n", WH_ERR_PARSE, "not a mapping");
}

TEST(yaml_duplicate_keys)
{
    check_error("a: 1\nb: 2\na: 3\n", WH_ERR_PARSE, "t.yaml:3:1: duplicate key \"a\"");
    check_error("x:\n  w: 1\n  'w': 2\n", WH_ERR_PARSE, "t.yaml:3:3: duplicate key \"w\"");
    /* duplicates after the key conversion */
    check_error("1: a\n\"1\": b\n", WH_ERR_PARSE, "duplicate key \"1\"");
    check_error("yes: a\ntrue: b\n", WH_ERR_PARSE, "duplicate key \"true\"");
    check_error("{a: 1, a: 2}", WH_ERR_PARSE, "t.yaml:1:8: duplicate key \"a\"");
}

TEST(yaml_documents)
{
    struct wh_errbuf eb = {{0}};
    json_t *docs = load("---\na: 1\n---\n---\n# only a comment\n---\nb: 2\n...\n---\n~\n"
                        "--- |\n  text\n...\n",
                        &eb, NULL);
    json_t *w = wh_test_json("[{\"a\": 1}, {\"b\": 2}, \"text\\n\"]");
    CHECK_EQ_JSON(docs, w);
    json_decref(w);
    json_decref(docs);

    docs = load("", &eb, NULL);
    CHECK(docs && json_array_size(docs) == 0);
    json_decref(docs);
    docs = load("# nothing\n", &eb, NULL);
    CHECK(docs && json_array_size(docs) == 0);
    json_decref(docs);

    /* comments, flow and block styles, nested sequences of mappings */
    check_yaml("# leading\n"
               "items: # trailing\n"
               "- name: a\n"
               "  ports:\n"
               "  - 80\n"
               "  - {port: 443, tls: true}\n"
               "- name: b # another\n"
               "  tags: [x, 'y', \"z\", 1]\n"
               "- - nested\n"
               "  - [1, [2, []]]\n"
               "- {}\n"
               "# the end\n",
               "{\"items\": [{\"name\": \"a\", \"ports\": [80, {\"port\": 443, \"tls\": true}]},"
               " {\"name\": \"b\", \"tags\": [\"x\", \"y\", \"z\", 1]},"
               " [\"nested\", [1, [2, []]]], {}]}");
    /* JSON is YAML */
    check_yaml("{\"a\": [1, 2.5, true, false, null, \"x\"], \"b\": {\"c\": \"\\u00e9\\/\\n\"},"
               " \"d\": -0.25e2, \"e\": []}",
               "{\"a\": [1, 2.5, true, false, null, \"x\"], \"b\": {\"c\": \"\\u00e9/\\n\"},"
               " \"d\": -25, \"e\": []}");
    check_yaml("{\"a\":1,\"b\":[{\"c\":\"d\"}]}", "{\"a\":1,\"b\":[{\"c\":\"d\"}]}");
    /* a scalar document is kept */
    check_yaml("hello", "\"hello\"");
}

TEST(yaml_anchors_and_aliases)
{
    struct wh_errbuf eb = {{0}};
    json_t *docs = load("base: &b {x: 1, l: [1, 2]}\nuse: *b\nlist: [&n 5, *n, *n]\n", &eb, NULL);
    json_t *doc = json_array_get(docs, 0);
    json_t *w =
        wh_test_json("{\"base\": {\"x\": 1, \"l\": [1, 2]}, \"use\": {\"x\": 1, \"l\": [1, 2]},"
                     " \"list\": [5, 5, 5]}");
    CHECK_EQ_JSON(doc, w);
    /* every alias is a copy of its own */
    CHECK(json_object_get(doc, "base") != json_object_get(doc, "use"));
    json_decref(w);
    json_decref(docs);

    /* redefinition: the latest wins; anchors do not cross documents */
    check_yaml("a: &x 1\nb: &x 2\nc: *x\n", "{\"a\": 1, \"b\": 2, \"c\": 2}");
    check_error("a: &x 1\n---\nb: *x\n", WH_ERR_PARSE, "t.yaml:3:4: unknown anchor 'x' referenced");
    check_error("a: &x [1, *x]\n", WH_ERR_PARSE, "t.yaml:1:11: anchor 'x' value contains itself");
    /* an alias as a key takes the key form of its value */
    check_yaml("k: &k 10\n*k : v\n", "{\"k\": 10, \"10\": \"v\"}");
    /* an anchor on a key */
    check_yaml("&k yes: 1\nb: *k\n", "{\"true\": 1, \"b\": true}");
}

TEST(yaml_merge_keys)
{
    check_yaml("base: &b {x: 1, w: 2}\n"
               "over:\n"
               "  <<: *b\n"
               "  w: 3\n"
               "  z: 4\n",
               "{\"base\": {\"x\": 1, \"w\": 2}, \"over\": {\"w\": 3, \"z\": 4, \"x\": 1}}");
    /* written keys win even when they come before the merge */
    check_yaml("b: &b {x: 1, w: 2}\no: {w: 3, <<: *b}\n",
               "{\"b\": {\"x\": 1, \"w\": 2}, \"o\": {\"w\": 3, \"x\": 1}}");
    /* a list of sources: the first one wins */
    check_yaml("a: &a {x: a1, w: a2}\nb: &b {x: b1, z: b3}\nm:\n  <<: [*a, *b]\n",
               "{\"a\": {\"x\": \"a1\", \"w\": \"a2\"}, \"b\": {\"x\": \"b1\", \"z\": \"b3\"},"
               " \"m\": {\"x\": \"a1\", \"w\": \"a2\", \"z\": \"b3\"}}");
    /* an inline source, and a merge of a merge */
    check_yaml("m:\n  <<: {p: 1}\n  q: 2\n", "{\"m\": {\"q\": 2, \"p\": 1}}");
    check_yaml("a: &a {x: 1}\nb: &b {<<: *a, w: 2}\nc: {<<: *b}\n",
               "{\"a\": {\"x\": 1}, \"b\": {\"w\": 2, \"x\": 1}, \"c\": {\"w\": 2, \"x\": 1}}");
    /* a quoted "<<" is an ordinary key */
    check_yaml("m: {\"<<\": {a: 1}}\n", "{\"m\": {\"<<\": {\"a\": 1}}}");
    check_yaml("m: {!!merge <<: {a: 1}}\n", "{\"m\": {\"a\": 1}}");
    check_error("m:\n  <<: 1\n", WH_ERR_PARSE, "t.yaml:2:7: map merge requires map");
    check_error("m:\n  <<: [{a: 1}, 2]\n", WH_ERR_PARSE, "map merge requires map");
}

TEST(yaml_alias_bomb)
{
    const char *bomb =
        "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n"
        "b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n"
        "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n"
        "d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n"
        "e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n"
        "f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n"
        "g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\n"
        "h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]\n"
        "i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]\n";
    int64_t t0 = wh_time_mono_ns();
    check_error(bomb, WH_ERR_TOO_BIG, "aliases expand to more than");
    CHECK(wh_time_mono_ns() - t0 < 2000000000LL);

    /* One big string aliased many times is caught too: units count bytes. */
    size_t n = 2000;
    char *text = wh_xmalloc(300000 + n * 4);
    size_t w = 0;
    w += (size_t)snprintf(text + w, 20, "s: &s \"");
    memset(text + w, 'x', 200000);
    w += 200000;
    w += (size_t)snprintf(text + w, 20, "\"\nl: [");
    for (size_t i = 0; i < n; i++)
        w += (size_t)snprintf(text + w, 5, "*s,");
    w += (size_t)snprintf(text + w, 5, "]\n");
    check_error(text, WH_ERR_TOO_BIG, "aliases expand");
    free(text);

    /* The limits are parameters. */
    struct wh_yaml_limits lim = {0, 9};
    json_t *docs = NULL;
    struct wh_errbuf eb = {{0}};
    const char *small = "a: &a [1, 2]\nb: *a\nc: *a\n";
    CHECK_EQ_INT(wh_yaml_load_limits(small, strlen(small), "t.yaml", &lim, &docs, &eb),
                 WH_ERR_TOO_BIG);
    CHECK(strstr(eb.msg, "t.yaml:3:4:") != NULL);
    lim.max_alias_units = 100;
    CHECK_EQ_INT(wh_yaml_load_limits(small, strlen(small), "t.yaml", &lim, &docs, &eb), WH_OK);
    json_decref(docs);
}

TEST(yaml_depth_limit)
{
    size_t n = WH_YAML_MAX_DEPTH + 10;
    char *text = wh_xmalloc(2 * n + 1);
    for (size_t i = 0; i < n; i++) {
        text[i] = '[';
        text[n + i] = ']';
    }
    text[2 * n] = '\0';
    check_error(text, WH_ERR_TOO_BIG, "nesting deeper than 512 levels");
    free(text);

    /* exactly at the limit is fine */
    struct wh_yaml_limits lim = {3, 0};
    json_t *docs = NULL;
    struct wh_errbuf eb = {{0}};
    CHECK_EQ_INT(wh_yaml_load_limits("[[[1]]]", 7, NULL, &lim, &docs, &eb), WH_OK);
    json_decref(docs);
    docs = NULL;
    CHECK_EQ_INT(wh_yaml_load_limits("[[[[1]]]]", 9, NULL, &lim, &docs, &eb), WH_ERR_TOO_BIG);
    CHECK(strstr(eb.msg, "<input>:1:4:") != NULL);
    /* an alias cannot smuggle depth in */
    const char *deep = "a: &a [[1]]\nb: [[*a]]\n";
    CHECK_EQ_INT(wh_yaml_load_limits(deep, strlen(deep), NULL, &lim, &docs, &eb), WH_ERR_TOO_BIG);
}

TEST(yaml_syntax_errors)
{
    check_error("a: 1\n b: 2\n", WH_ERR_PARSE,
                "t.yaml:2:3: mapping values are not allowed in this context");
    check_error("a: [1, 2\n", WH_ERR_PARSE, "t.yaml:2:1:");
    check_error("a: \"unterminated\n", WH_ERR_PARSE, "t.yaml:2:1: found unexpected end of stream");
    check_error("key: value\n- item\n", WH_ERR_PARSE, "t.yaml:2:1:");
    check_error("a: 1\n\tb: 2\n", WH_ERR_PARSE, "t.yaml:2:1:");
    check_error("a: *\n", WH_ERR_PARSE,
                "t.yaml:1:5: did not find expected alphabetic or numeric character (while "
                "scanning an alias at 1:4)");
    /* reader errors carry an offset, turned into line and column */
    check_error("a: 1\nb: \x01\n", WH_ERR_PARSE, "t.yaml:2:4: control characters are not allowed");
    check_error("a: \xff\n", WH_ERR_PARSE, "t.yaml:1:4: invalid leading UTF-8 octet");
    /* the file name defaults */
    json_t *docs = NULL;
    struct wh_errbuf eb = {{0}};
    CHECK_EQ_INT(wh_yaml_load("[", 1, NULL, &docs, &eb), WH_ERR_PARSE);
    CHECK(strncmp(eb.msg, "<input>:", 8) == 0);
    CHECK(docs == NULL);
}

static void check_file(const char *yaml_path, const char *json_path)
{
    json_t *docs = NULL;
    struct wh_errbuf eb = {{0}};
    CHECK_EQ_INT(wh_yaml_load_file(yaml_path, 1 << 20, &docs, &eb), WH_OK);
    if (!docs)
        fprintf(stderr, "%s\n", eb.msg);
    char *want_text = wh_test_read_file(json_path, NULL);
    json_t *want = wh_test_json(want_text);
    CHECK_EQ_INT(json_array_size(docs), 1);
    CHECK_EQ_JSON(json_array_get(docs, 0), want);
    json_decref(want);
    free(want_text);
    json_decref(docs);
}

TEST(yaml_real_files)
{
    check_file("test/unit/data/yaml/kubeconfig.yaml", "test/unit/data/yaml/kubeconfig.json");
    check_file("test/unit/data/yaml/sidecarset.yaml", "test/unit/data/yaml/sidecarset.json");

    json_t *docs = NULL;
    struct wh_errbuf eb = {{0}};
    CHECK_EQ_INT(wh_yaml_load_file("test/unit/data/yaml/kubeconfig.yaml", 100, &docs, &eb),
                 WH_ERR_TOO_BIG);
    CHECK_EQ_INT(wh_yaml_load_file("test/unit/data/yaml/no-such-file.yaml", 100, &docs, &eb),
                 WH_ERR_IO);
    CHECK(strstr(eb.msg, "no-such-file.yaml") != NULL);
    CHECK(docs == NULL);
}

/* A state file: several objects in one stream, the form --state reads. */
TEST(yaml_multi_object_state)
{
    const char *text = "apiVersion: v1\n"
                       "kind: Namespace\n"
                       "metadata:\n"
                       "  name: demo\n"
                       "  labels: {sidecar-injection: enabled}\n"
                       "---\n"
                       "apiVersion: apps.kruise.io/v1alpha1\n"
                       "kind: SidecarSet\n"
                       "metadata: {name: s}\n"
                       "spec:\n"
                       "  selector: {matchLabels: {app: web}}\n"
                       "  containers:\n"
                       "  - name: agent\n"
                       "    image: agent:1\n"
                       "...\n";
    struct wh_errbuf eb = {{0}};
    json_t *docs = load(text, &eb, NULL);
    CHECK_EQ_INT(json_array_size(docs), 2);
    CHECK_EQ_STR(wh_json_str(json_array_get(docs, 1), "kind"), "SidecarSet");
    CHECK_EQ_STR(wh_json_label(json_array_get(docs, 0), "sidecar-injection"), "enabled");
    json_decref(docs);
}

/* --check-config points at the line of a wrongly typed field: the marks give each value's line
 * by JSON pointer (a member at its key's line, an item where it starts), one object per
 * document that wh_yaml_load keeps (empty and null documents skipped alike), and a value an
 * alias or merge key brought in falls back to the nearest line that has one. */
TEST(yaml_marks_give_each_value_its_line)
{
    static const char text[] = "---\n"
                               "~\n"
                               "---\n"
                               "kind: Pod\n"                 /* 4 */
                               "spec:\n"                     /* 5 */
                               "  containers:\n"             /* 6 */
                               "    - name: a\n"             /* 7 */
                               "      image: 5\n"            /* 8 */
                               "    - {name: b, image: x}\n" /* 9 */
                               "  a/b~c: 1\n"                /* 10 */
                               "base: &b {x: {y: 1}}\n"      /* 11 */
                               "ref: *b\n"                   /* 12 */
                               "merged:\n"                   /* 13 */
                               "  <<: *b\n"                  /* 14 */
                               "---\n"
                               "- 1\n"; /* 16 */
    json_t *docs = NULL, *marks = NULL;
    struct wh_errbuf eb = {{0}};
    CHECK_EQ_INT(wh_yaml_load_marks(text, strlen(text), "t.yaml", &docs, &marks, &eb), WH_OK);
    CHECK_EQ_INT(json_array_size(docs), 2);
    CHECK_EQ_INT(json_array_size(marks), 2);
    const json_t *m = json_array_get(marks, 0);
    static const struct {
        const char *path;
        size_t line;
    } cases[] = {
        {"[]", 4},
        {"[\"kind\"]", 4},
        {"[\"spec\"]", 5},
        {"[\"spec\",\"containers\"]", 6},
        {"[\"spec\",\"containers\",0]", 7},
        {"[\"spec\",\"containers\",0,\"image\"]", 8},
        {"[\"spec\",\"containers\",1,\"image\"]", 9},
        {"[\"spec\",\"a/b~c\"]", 10},
        {"[\"spec\",\"nothing\",\"here\"]", 5},
        {"[\"base\",\"x\",\"y\"]", 11},
        {"[\"ref\",\"x\",\"y\"]", 12},
        {"[\"merged\",\"x\",\"y\"]", 13},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        json_t *path = wh_test_json(cases[i].path);
        size_t got = wh_yaml_mark_line(m, path);
        if (got != cases[i].line) {
            fprintf(stderr, "mark of %s: line %zu, want %zu\n", cases[i].path, got,
                    cases[i].line);
            wh_test_failed_checks++;
        }
        json_decref(path);
    }
    json_t *first = wh_test_json("[0]");
    CHECK_EQ_INT(wh_yaml_mark_line(json_array_get(marks, 1), first), 16);
    json_decref(first);
    json_decref(docs);
    json_decref(marks);
    /* on an error nothing is returned */
    marks = NULL;
    CHECK_EQ_INT(wh_yaml_load_marks("a: [", 4, "t.yaml", &docs, &marks, &eb), WH_ERR_PARSE);
    CHECK(marks == NULL);
}
