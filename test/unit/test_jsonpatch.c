/* Tests for webhook/jsonpatch: RFC 6901 pointers, RFC 6902 apply (the appendix examples),
 * and the diff (round trips on random documents, small patches for injection shapes). */
#include "test/unit/test.h"

#include <stdint.h>
#include <stdlib.h>

#include "jsonpatch/apply.h"
#include "jsonpatch/diff.h"
#include "jsonpatch/pointer.h"
#include "test/support/bench_jsonpatch.h"
#include "util/buf.h"
#include "util/json.h"
#include "util/jsoneq.h"
#include "util/time.h"

/* --- helpers ------------------------------------------------------------------------------ */

/* Applies patch (JSON text) to doc (JSON text); returns the result or NULL (message in eb). */
static json_t *apply_text(const char *doc, const char *patch, struct wh_errbuf *eb)
{
    json_t *d = wh_test_json(doc), *p = wh_test_json(patch), *out = NULL;
    enum wh_err rc = wh_patch_apply(d, p, &out, eb);
    json_decref(d);
    json_decref(p);
    if (rc)
        return NULL;
    return out;
}

static void check_apply(const char *doc, const char *patch, const char *want)
{
    struct wh_errbuf eb = {{0}};
    json_t *got = apply_text(doc, patch, &eb);
    json_t *w = wh_test_json(want);
    if (!got)
        fprintf(stderr, "apply failed: %s\n", eb.msg);
    CHECK_EQ_JSON(got, w);
    json_decref(got);
    json_decref(w);
}

/* Checks that applying fails and that the message contains `needle`. */
static void check_apply_fails(const char *doc, const char *patch, const char *needle)
{
    struct wh_errbuf eb = {{0}};
    json_t *got = apply_text(doc, patch, &eb);
    CHECK(got == NULL);
    if (!strstr(eb.msg, needle)) {
        fprintf(stderr, "error message \"%s\" lacks \"%s\"\n", eb.msg, needle);
        CHECK(strstr(eb.msg, needle) != NULL);
    }
    json_decref(got);
}

/* The text wh_patch_diff_write appends is exactly the serialised wh_patch_diff. */
static void check_text_sink(const json_t *from, const json_t *to, const json_t *patch)
{
    char *want = wh_json_dumps(patch);
    struct wh_buf b;
    wh_buf_init(&b, 1 << 20);
    CHECK_EQ_INT(wh_buf_adds(&b, "prefix"), WH_OK);
    size_t n = 99;
    CHECK_EQ_INT(wh_patch_diff_write(&b, from, to, &n), WH_OK);
    CHECK_EQ_STR(b.data + 6, want);
    CHECK_EQ_INT(n, json_array_size(patch));
    /* at its cap the buffer is left as it was */
    struct wh_buf small;
    wh_buf_init(&small, strlen(want) - 1);
    CHECK_EQ_INT(wh_patch_diff_write(&small, from, to, &n), WH_ERR_TOO_BIG);
    CHECK_EQ_INT(small.len, 0);
    CHECK_EQ_INT(n, 0);
    wh_buf_fini(&small);
    wh_buf_fini(&b);
    free(want);
}

/* Diffs, checks the patch reproduces `to`, returns the patch (new ref). */
static json_t *diff_checked(const json_t *from, const json_t *to)
{
    json_t *patch = wh_patch_diff(from, to);
    check_text_sink(from, to, patch);
    json_t *res = NULL;
    struct wh_errbuf eb = {{0}};
    enum wh_err rc = wh_patch_apply(from, patch, &res, &eb);
    CHECK_EQ_INT(rc, WH_OK);
    if (rc)
        fprintf(stderr, "patch does not apply: %s\n", eb.msg);
    CHECK_EQ_JSON(res, to);
    json_decref(res);
    return patch;
}

static void check_diff(const char *from, const char *to, const char *want_patch)
{
    json_t *a = wh_test_json(from), *b = wh_test_json(to), *w = wh_test_json(want_patch);
    json_t *patch = diff_checked(a, b);
    CHECK_EQ_JSON(patch, w);
    json_decref(a);
    json_decref(b);
    json_decref(w);
    json_decref(patch);
}

/* --- RFC 6901 ----------------------------------------------------------------------------- */

static const char rfc6901_doc[] = "{\"foo\": [\"bar\", \"baz\"], \"\": 0, \"a/b\": 1, \"c%d\": 2,"
                                  " \"e^f\": 3, \"g|h\": 4, \"i\\\\j\": 5, \"k\\\"l\": 6,"
                                  " \" \": 7, \"m~n\": 8}";

static void check_get(const json_t *doc, const char *ptr, const char *want)
{
    json_t *got = NULL;
    struct wh_errbuf eb = {{0}};
    enum wh_err rc = wh_pointer_get(doc, ptr, strlen(ptr), &got, &eb);
    CHECK_EQ_INT(rc, WH_OK);
    json_t *w = wh_test_json(want);
    CHECK_EQ_JSON(got, w);
    json_decref(w);
}

TEST(pointer_rfc6901_examples)
{
    json_t *doc = wh_test_json(rfc6901_doc);
    check_get(doc, "", rfc6901_doc);
    check_get(doc, "/foo", "[\"bar\", \"baz\"]");
    check_get(doc, "/foo/0", "\"bar\"");
    check_get(doc, "/", "0");
    check_get(doc, "/a~1b", "1");
    check_get(doc, "/c%d", "2");
    check_get(doc, "/e^f", "3");
    check_get(doc, "/g|h", "4");
    check_get(doc, "/i\\j", "5");
    check_get(doc, "/k\"l", "6");
    check_get(doc, "/ ", "7");
    check_get(doc, "/m~0n", "8");
    json_decref(doc);
}

static void check_escape(const char *tok, const char *want)
{
    struct wh_buf b;
    wh_buf_init(&b, 1024);
    CHECK_EQ_INT(wh_pointer_append(&b, tok, strlen(tok)), WH_OK);
    CHECK_EQ_STR(b.data, want);
    /* and back */
    struct wh_pointer p;
    CHECK_EQ_INT(wh_pointer_parse(b.data, b.len, &p, NULL), WH_OK);
    CHECK_EQ_INT(p.ntok, 1);
    if (p.ntok == 1)
        CHECK_EQ_STR(p.tok[0].s, tok);
    wh_pointer_fini(&p);
    wh_buf_fini(&b);
}

TEST(pointer_escape)
{
    check_escape("m~n", "/m~0n");
    check_escape("a/b", "/a~1b");
    check_escape("~1", "/~01"); /* "~" first, so "~1" does not become "/" */
    check_escape("/~", "/~1~0");
    check_escape("", "/");
    check_escape("kruise.io/sidecarset-hash", "/kruise.io~1sidecarset-hash");

    struct wh_buf b;
    wh_buf_init(&b, 1024);
    CHECK_EQ_INT(wh_pointer_append(&b, "spec", 4), WH_OK);
    CHECK_EQ_INT(wh_pointer_append(&b, "containers", 10), WH_OK);
    CHECK_EQ_INT(wh_pointer_append_index(&b, 12), WH_OK);
    CHECK_EQ_STR(b.data, "/spec/containers/12");
    wh_pointer_truncate(&b, 5);
    CHECK_EQ_STR(b.data, "/spec");
    wh_buf_reset(&b);
    CHECK_EQ_INT(wh_pointer_escape(&b, "a~b/c", 5), WH_OK);
    CHECK_EQ_STR(b.data, "a~0b~1c");
    wh_buf_fini(&b);

    /* The cap leaves the buffer as it was. */
    wh_buf_init(&b, 6);
    CHECK_EQ_INT(wh_pointer_append(&b, "abc", 3), WH_OK);
    CHECK_EQ_INT(wh_pointer_append(&b, "~~", 2), WH_ERR_TOO_BIG);
    CHECK_EQ_STR(b.data, "/abc");
    CHECK_EQ_INT(wh_pointer_append_index(&b, 10), WH_ERR_TOO_BIG);
    CHECK_EQ_STR(b.data, "/abc");
    CHECK_EQ_INT(b.len, 4);
    CHECK_EQ_INT(wh_pointer_append_index(&b, 0), WH_OK);
    CHECK_EQ_STR(b.data, "/abc/0");
    wh_buf_fini(&b);
}

TEST(pointer_parse)
{
    struct wh_pointer p;
    struct wh_errbuf eb = {{0}};
    CHECK_EQ_INT(wh_pointer_parse("", 0, &p, &eb), WH_OK);
    CHECK_EQ_INT(p.ntok, 0);
    wh_pointer_fini(&p);

    CHECK_EQ_INT(wh_pointer_parse("/a//b/", 6, &p, &eb), WH_OK);
    CHECK_EQ_INT(p.ntok, 4);
    if (p.ntok == 4) {
        CHECK_EQ_STR(p.tok[0].s, "a");
        CHECK_EQ_INT(p.tok[1].len, 0);
        CHECK_EQ_STR(p.tok[2].s, "b");
        CHECK_EQ_INT(p.tok[3].len, 0);
    }
    wh_pointer_fini(&p);

    /* A NUL inside a token survives. */
    CHECK_EQ_INT(wh_pointer_parse("/a\0b", 4, &p, &eb), WH_OK);
    CHECK_EQ_INT(p.ntok, 1);
    CHECK_EQ_INT(p.tok[0].len, 3);
    wh_pointer_fini(&p);

    CHECK_EQ_INT(wh_pointer_parse("a/b", 3, &p, &eb), WH_ERR_INVALID);
    CHECK(strstr(eb.msg, "start") != NULL);
    wh_pointer_fini(&p);
    CHECK_EQ_INT(wh_pointer_parse("/a~2", 4, &p, &eb), WH_ERR_INVALID);
    CHECK_EQ_INT(wh_pointer_parse("/a~", 3, &p, &eb), WH_ERR_INVALID);
    CHECK_EQ_INT(wh_pointer_parse("/~/", 3, &p, &eb), WH_ERR_INVALID);

    struct wh_pointer a, b;
    CHECK_EQ_INT(wh_pointer_parse("/a", 2, &a, NULL), WH_OK);
    CHECK_EQ_INT(wh_pointer_parse("/ab", 3, &b, NULL), WH_OK);
    CHECK(!wh_pointer_is_proper_prefix(&a, &b));
    wh_pointer_fini(&b);
    CHECK_EQ_INT(wh_pointer_parse("/a/b", 4, &b, NULL), WH_OK);
    CHECK(wh_pointer_is_proper_prefix(&a, &b));
    CHECK(!wh_pointer_is_proper_prefix(&b, &a));
    CHECK(!wh_pointer_is_proper_prefix(&a, &a));
    wh_pointer_fini(&a);
    wh_pointer_fini(&b);
}

TEST(pointer_index_and_walk)
{
    size_t i = 99;
    CHECK(wh_pointer_index("0", 1, &i) && i == 0);
    CHECK(wh_pointer_index("10", 2, &i) && i == 10);
    CHECK(!wh_pointer_index("01", 2, &i));
    CHECK(!wh_pointer_index("-", 1, &i));
    CHECK(!wh_pointer_index("+1", 2, &i));
    CHECK(!wh_pointer_index("1a", 2, &i));
    CHECK(!wh_pointer_index("", 0, &i));
    CHECK(!wh_pointer_index("99999999999999999999999", 23, &i));

    json_t *doc = wh_test_json("{\"a\": [1, {\"b\": true}], \"s\": \"x\"}");
    json_t *got = NULL;
    struct wh_errbuf eb = {{0}};
    CHECK_EQ_INT(wh_pointer_get(doc, "/a/1/b", 6, &got, &eb), WH_OK);
    CHECK(json_is_true(got));
    got = NULL;
    CHECK_EQ_INT(wh_pointer_get(doc, "/a/2", 4, &got, &eb), WH_ERR_NOT_FOUND);
    CHECK(got == NULL);
    CHECK(strstr(eb.msg, "\"2\"") != NULL);
    CHECK_EQ_INT(wh_pointer_get(doc, "/a/-", 4, &got, &eb), WH_ERR_NOT_FOUND);
    CHECK_EQ_INT(wh_pointer_get(doc, "/a/01", 5, &got, &eb), WH_ERR_NOT_FOUND);
    CHECK_EQ_INT(wh_pointer_get(doc, "/s/x", 4, &got, &eb), WH_ERR_INVALID);
    CHECK(strstr(eb.msg, "string") != NULL);
    CHECK_EQ_INT(wh_pointer_get(doc, "/zz", 3, &got, &eb), WH_ERR_NOT_FOUND);
    json_decref(doc);
}

/* --- RFC 6902 appendix A ------------------------------------------------------------------ */

TEST(apply_rfc6902_appendix)
{
    /* A.1 adding an object member */
    check_apply("{\"foo\":\"bar\"}", "[{\"op\":\"add\",\"path\":\"/baz\",\"value\":\"qux\"}]",
                "{\"baz\":\"qux\",\"foo\":\"bar\"}");
    /* A.2 adding an array element */
    check_apply("{\"foo\":[\"bar\",\"baz\"]}",
                "[{\"op\":\"add\",\"path\":\"/foo/1\",\"value\":\"qux\"}]",
                "{\"foo\":[\"bar\",\"qux\",\"baz\"]}");
    /* A.3 removing an object member */
    check_apply("{\"baz\":\"qux\",\"foo\":\"bar\"}", "[{\"op\":\"remove\",\"path\":\"/baz\"}]",
                "{\"foo\":\"bar\"}");
    /* A.4 removing an array element */
    check_apply("{\"foo\":[\"bar\",\"qux\",\"baz\"]}", "[{\"op\":\"remove\",\"path\":\"/foo/1\"}]",
                "{\"foo\":[\"bar\",\"baz\"]}");
    /* A.5 replacing a value */
    check_apply("{\"baz\":\"qux\",\"foo\":\"bar\"}",
                "[{\"op\":\"replace\",\"path\":\"/baz\",\"value\":\"boo\"}]",
                "{\"baz\":\"boo\",\"foo\":\"bar\"}");
    /* A.6 moving a value */
    check_apply("{\"foo\":{\"bar\":\"baz\",\"waldo\":\"fred\"},\"qux\":{\"corge\":\"grault\"}}",
                "[{\"op\":\"move\",\"from\":\"/foo/waldo\",\"path\":\"/qux/thud\"}]",
                "{\"foo\":{\"bar\":\"baz\"},\"qux\":{\"corge\":\"grault\",\"thud\":\"fred\"}}");
    /* A.7 moving an array element */
    check_apply("{\"foo\":[\"all\",\"grass\",\"cows\",\"eat\"]}",
                "[{\"op\":\"move\",\"from\":\"/foo/1\",\"path\":\"/foo/3\"}]",
                "{\"foo\":[\"all\",\"cows\",\"eat\",\"grass\"]}");
    /* A.8 testing a value: success */
    check_apply("{\"baz\":\"qux\",\"foo\":[\"a\",2,\"c\"]}",
                "[{\"op\":\"test\",\"path\":\"/baz\",\"value\":\"qux\"},"
                " {\"op\":\"test\",\"path\":\"/foo/1\",\"value\":2}]",
                "{\"baz\":\"qux\",\"foo\":[\"a\",2,\"c\"]}");
    /* A.9 testing a value: error */
    check_apply_fails("{\"baz\":\"qux\"}",
                      "[{\"op\":\"test\",\"path\":\"/baz\",\"value\":\"bar\"}]", "test failed");
    /* A.10 adding a nested member object */
    check_apply("{\"foo\":\"bar\"}",
                "[{\"op\":\"add\",\"path\":\"/child\",\"value\":{\"grandchild\":{}}}]",
                "{\"foo\":\"bar\",\"child\":{\"grandchild\":{}}}");
    /* A.11 ignoring unrecognized elements */
    check_apply("{\"foo\":\"bar\"}",
                "[{\"op\":\"add\",\"path\":\"/baz\",\"value\":\"qux\",\"xyz\":123}]",
                "{\"foo\":\"bar\",\"baz\":\"qux\"}");
    /* A.12 adding to a nonexistent target */
    check_apply_fails("{\"foo\":\"bar\"}",
                      "[{\"op\":\"add\",\"path\":\"/baz/bat\",\"value\":\"qux\"}]",
                      "op 0 (add) path \"/baz/bat\": token \"baz\" (#1) not found");
    /* A.13 invalid JSON Patch document: duplicate "op" members. jansson keeps the last one,
     * so rejecting it is the loader's job: JSON_REJECT_DUPLICATES does it. */
    {
        json_error_t jerr;
        json_t *p = json_loads("[{\"op\":\"add\",\"path\":\"/baz\",\"value\":\"qux\","
                               "\"op\":\"remove\"}]",
                               JSON_REJECT_DUPLICATES, &jerr);
        CHECK(p == NULL);
        json_decref(p);
    }
    /* A.14 ~ escape ordering */
    check_apply("{\"/\":9,\"~1\":10}", "[{\"op\":\"test\",\"path\":\"/~01\",\"value\":10}]",
                "{\"/\":9,\"~1\":10}");
    /* A.15 comparing strings and numbers */
    check_apply_fails("{\"/\":9,\"~1\":10}",
                      "[{\"op\":\"test\",\"path\":\"/~01\",\"value\":\"10\"}]", "test failed");
    /* A.16 adding an array value */
    check_apply("{\"foo\":[\"bar\"]}",
                "[{\"op\":\"add\",\"path\":\"/foo/-\",\"value\":[\"abc\",\"def\"]}]",
                "{\"foo\":[\"bar\",[\"abc\",\"def\"]]}");
}

TEST(apply_semantics)
{
    /* root replacement */
    check_apply("{\"a\":1}", "[{\"op\":\"add\",\"path\":\"\",\"value\":[1]}]", "[1]");
    check_apply("{\"a\":1}", "[{\"op\":\"replace\",\"path\":\"\",\"value\":null}]", "null");
    check_apply("[1,2]", "[{\"op\":\"add\",\"path\":\"/2\",\"value\":3}]", "[1,2,3]");
    check_apply("[1,2]", "[{\"op\":\"add\",\"path\":\"/0\",\"value\":0}]", "[0,1,2]");
    check_apply("{\"a\":{\"b\":1}}",
                "[{\"op\":\"copy\",\"from\":\"/a\",\"path\":\"/c\"},"
                " {\"op\":\"add\",\"path\":\"/c/b\",\"value\":2}]",
                "{\"a\":{\"b\":1},\"c\":{\"b\":2}}");
    /* move onto itself, and to a sibling array position */
    check_apply("{\"a\":[1,2]}", "[{\"op\":\"move\",\"from\":\"/a\",\"path\":\"/a\"}]",
                "{\"a\":[1,2]}");
    check_apply("{\"a\":[1,2,3]}", "[{\"op\":\"move\",\"from\":\"/a/0\",\"path\":\"/a/-\"}]",
                "{\"a\":[2,3,1]}");
    check_apply("{}", "[{\"op\":\"move\",\"from\":\"\",\"path\":\"\"}]", "{}");
    /* add on an existing member replaces it; null values are values */
    check_apply("{\"a\":1}", "[{\"op\":\"add\",\"path\":\"/a\",\"value\":null}]", "{\"a\":null}");
    /* test compares numbers by value and objects without order */
    check_apply("{\"n\":1,\"o\":{\"x\":1,\"y\":[2.0]}}",
                "[{\"op\":\"test\",\"path\":\"/n\",\"value\":1.0},"
                " {\"op\":\"test\",\"path\":\"/o\",\"value\":{\"y\":[2],\"x\":1}}]",
                "{\"n\":1,\"o\":{\"x\":1,\"y\":[2.0]}}");
    check_apply_fails("{\"n\":1}", "[{\"op\":\"test\",\"path\":\"/n\",\"value\":1.5}]",
                      "test failed");
    check_apply_fails("{\"n\":[1]}", "[{\"op\":\"test\",\"path\":\"/n\",\"value\":[1,2]}]",
                      "test failed");
    /* values are copied: later operations do not write into the patch */
    {
        json_t *doc = wh_test_json("{}");
        json_t *patch = wh_test_json("[{\"op\":\"add\",\"path\":\"/a\",\"value\":{}},"
                                     " {\"op\":\"add\",\"path\":\"/a/b\",\"value\":1}]");
        json_t *before = json_deep_copy(patch), *out = NULL;
        CHECK_EQ_INT(wh_patch_apply(doc, patch, &out, NULL), WH_OK);
        CHECK_EQ_JSON(patch, before);
        json_decref(doc);
        json_decref(patch);
        json_decref(before);
        json_decref(out);
    }
}

TEST(apply_errors)
{
    check_apply_fails("{}", "{}", "must be an array");
    check_apply_fails("{}", "[1]", "op 0: not an object");
    check_apply_fails("{}", "[{\"path\":\"/a\"}]", "op 0: \"op\" missing");
    check_apply_fails("{}", "[{\"op\":\"add\",\"value\":1}]", "\"path\" missing");
    check_apply_fails("{}", "[{\"op\":\"frob\",\"path\":\"/a\"}]",
                      "op 0 (frob) path \"/a\": unknown op");
    check_apply_fails("{}", "[{\"op\":\"add\",\"path\":\"/a\"}]", "\"value\" missing");
    check_apply_fails("{}", "[{\"op\":\"add\",\"path\":\"a\",\"value\":1}]", "start with");
    check_apply_fails("{\"a\":[1]}", "[{\"op\":\"add\",\"path\":\"/a/01\",\"value\":1}]",
                      "not an array index");
    check_apply_fails("{\"a\":[1]}", "[{\"op\":\"add\",\"path\":\"/a/2\",\"value\":1}]",
                      "past the end");
    check_apply_fails("{\"a\":[1]}", "[{\"op\":\"remove\",\"path\":\"/a/1\"}]", "out of range");
    check_apply_fails("{\"a\":[1]}", "[{\"op\":\"remove\",\"path\":\"/a/-\"}]",
                      "not an array index");
    check_apply_fails("{\"a\":[1]}", "[{\"op\":\"replace\",\"path\":\"/a/-\",\"value\":1}]",
                      "not an array index");
    check_apply_fails("{\"a\":1}", "[{\"op\":\"remove\",\"path\":\"/b\"}]", "no such member");
    check_apply_fails("{\"a\":1}", "[{\"op\":\"replace\",\"path\":\"/b\",\"value\":1}]",
                      "no such member");
    check_apply_fails("{\"a\":1}", "[{\"op\":\"remove\",\"path\":\"\"}]", "whole document");
    check_apply_fails("{\"a\":1}", "[{\"op\":\"add\",\"path\":\"/a/b\",\"value\":1}]",
                      "parent is a number");
    check_apply_fails("{\"a\":{\"b\":1}}", "[{\"op\":\"move\",\"from\":\"/a\",\"path\":\"/a/b\"}]",
                      "op 0 (move) path \"/a/b\": cannot move a value into itself");
    check_apply_fails("{\"a\":1}", "[{\"op\":\"move\",\"from\":\"/x\",\"path\":\"/y\"}]",
                      "op 0 (move) from \"/x\"");
    check_apply_fails("{\"a\":1}", "[{\"op\":\"copy\",\"path\":\"/y\"}]", "\"from\" missing");
    check_apply_fails("{\"a\":1}", "[{\"op\":\"copy\",\"from\":\"/a\",\"path\":\"/q/r\"}]",
                      "op 0 (copy) path \"/q/r\"");

    /* Atomic: a failing op late in the patch leaves doc and *out alone. */
    json_t *doc = wh_test_json("{\"a\":[1,2,3],\"b\":{}}");
    json_t *before = json_deep_copy(doc);
    json_t *patch = wh_test_json("[{\"op\":\"remove\",\"path\":\"/a/0\"},"
                                 " {\"op\":\"add\",\"path\":\"/b/c\",\"value\":1},"
                                 " {\"op\":\"test\",\"path\":\"/b/c\",\"value\":2}]");
    json_t *sentinel = json_string("untouched"), *out = sentinel;
    struct wh_errbuf eb = {{0}};
    CHECK_EQ_INT(wh_patch_apply(doc, patch, &out, &eb), WH_ERR_INVALID);
    CHECK(out == sentinel);
    CHECK_EQ_JSON(doc, before);
    CHECK(strstr(eb.msg, "op 2 (test) path \"/b/c\"") != NULL);
    json_decref(sentinel);
    json_decref(doc);
    json_decref(before);
    json_decref(patch);
}

/* --- diff: exact patches for the shapes that matter -------------------------------------- */

TEST(diff_basic)
{
    check_diff("{\"a\":1}", "{\"a\":1}", "[]");
    check_diff("[]", "[]", "[]");
    check_diff("{\"a\":1,\"b\":2}", "{\"b\":3,\"c\":4}",
               "[{\"op\":\"remove\",\"path\":\"/a\"},"
               " {\"op\":\"replace\",\"path\":\"/b\",\"value\":3},"
               " {\"op\":\"add\",\"path\":\"/c\",\"value\":4}]");
    check_diff("{\"a\":1}", "[1]", "[{\"op\":\"replace\",\"path\":\"\",\"value\":[1]}]");
    check_diff("{\"a\":1}", "{\"a\":1.0}", "[{\"op\":\"replace\",\"path\":\"/a\",\"value\":1.0}]");
    check_diff("{\"a\":{\"x\":1}}", "{\"a\":[1]}",
               "[{\"op\":\"replace\",\"path\":\"/a\",\"value\":[1]}]");
    check_diff("{\"a\":true}", "{\"a\":false}",
               "[{\"op\":\"replace\",\"path\":\"/a\",\"value\":false}]");
    /* keys are escaped */
    check_diff("{}", "{\"a/b\":{\"~\":1}}",
               "[{\"op\":\"add\",\"path\":\"/a~1b\",\"value\":{\"~\":1}}]");
    check_diff("{\"a/b\":{\"~\":1}}", "{\"a/b\":{\"~\":2}}",
               "[{\"op\":\"replace\",\"path\":\"/a~1b/~0\",\"value\":2}]");
    /* arrays: prefix and suffix kept, scalars changed in place */
    check_diff("[1,2,3,4]", "[1,5,3,4]", "[{\"op\":\"replace\",\"path\":\"/1\",\"value\":5}]");
    check_diff("[1,2,3]", "[1,2,3,4,5]",
               "[{\"op\":\"add\",\"path\":\"/3\",\"value\":4},"
               " {\"op\":\"add\",\"path\":\"/4\",\"value\":5}]");
    check_diff("[1,2,3,4,5]", "[1,5]",
               "[{\"op\":\"remove\",\"path\":\"/3\"}, {\"op\":\"remove\",\"path\":\"/2\"},"
               " {\"op\":\"remove\",\"path\":\"/1\"}]");
    check_diff(
        "[1,2]", "[2,1]",
        "[{\"op\":\"remove\",\"path\":\"/0\"}, {\"op\":\"add\",\"path\":\"/1\",\"value\":1}]");
    /* a key with a NUL inside */
    {
        json_t *a = json_object(), *b = json_object();
        CHECK_EQ_INT(json_object_setn_new(b, "x\0y", 3, json_integer(1)), 0);
        json_t *patch = wh_patch_diff(a, b), *res = NULL;
        CHECK_EQ_INT(json_array_size(patch), 1);
        CHECK_EQ_INT(json_string_length(json_object_get(json_array_get(patch, 0), "path")), 4);
        CHECK_EQ_INT(wh_patch_apply(a, patch, &res, NULL), WH_OK);
        CHECK(wh_json_equal(res, b, WH_JSON_EQ_EXACT));
        /* json_equal cannot tell these apart; wh_json_equal can */
        json_t *c = json_object();
        CHECK_EQ_INT(json_object_set_new(c, "x", json_integer(1)), 0);
        CHECK(json_equal(b, c));
        CHECK(!wh_json_equal(b, c, WH_JSON_EQ_EXACT));
        json_t *p2 = wh_patch_diff(c, b);
        CHECK_EQ_INT(json_array_size(p2), 2);
        json_decref(p2);
        json_decref(c);
        json_decref(res);
        json_decref(patch);
        json_decref(a);
        json_decref(b);
    }
}

static const char three_containers[] =
    "{\"metadata\":{\"name\":\"p\",\"annotations\":{\"a\":\"1\"}},\"spec\":{\"containers\":["
    "{\"name\":\"c1\",\"image\":\"i1\"},{\"name\":\"c2\",\"image\":\"i2\"},"
    "{\"name\":\"c3\",\"image\":\"i3\"}]}}";

static void insert_container_at(size_t idx, const char *want)
{
    json_t *a = wh_test_json(three_containers);
    json_t *b = json_deep_copy(a);
    json_t *cs = wh_json_path(b, "spec", "containers", NULL);
    CHECK_EQ_INT(
        json_array_insert_new(cs, idx, wh_test_json("{\"name\":\"sidecar\",\"image\":\"s\"}")), 0);
    json_t *patch = diff_checked(a, b);
    json_t *w = wh_test_json(want);
    CHECK_EQ_JSON(patch, w);
    json_decref(w);
    json_decref(patch);
    json_decref(a);
    json_decref(b);
}

TEST(diff_sidecar_insertion)
{
    insert_container_at(0, "[{\"op\":\"add\",\"path\":\"/spec/containers/0\","
                           "\"value\":{\"name\":\"sidecar\",\"image\":\"s\"}}]");
    insert_container_at(1, "[{\"op\":\"add\",\"path\":\"/spec/containers/1\","
                           "\"value\":{\"name\":\"sidecar\",\"image\":\"s\"}}]");
    insert_container_at(3, "[{\"op\":\"add\",\"path\":\"/spec/containers/3\","
                           "\"value\":{\"name\":\"sidecar\",\"image\":\"s\"}}]");

    /* Sidecar at the front while every app container also gets a volume mount: one add for
     * the sidecar plus one small add per container, not a rewrite of the whole list. */
    check_diff(
        "{\"containers\":[{\"name\":\"c1\",\"image\":\"i1\"},{\"name\":\"c2\",\"image\":\"i2\"}]}",
        "{\"containers\":[{\"name\":\"sc\",\"image\":\"s\"},"
        "{\"name\":\"c1\",\"image\":\"i1\",\"volumeMounts\":[{\"name\":\"v\"}]},"
        "{\"name\":\"c2\",\"image\":\"i2\",\"volumeMounts\":[{\"name\":\"v\"}]}]}",
        "[{\"op\":\"add\",\"path\":\"/containers/0\",\"value\":{\"name\":\"sc\",\"image\":\"s\"}},"
        " {\"op\":\"add\",\"path\":\"/containers/1/volumeMounts\",\"value\":[{\"name\":\"v\"}]},"
        " {\"op\":\"add\",\"path\":\"/containers/2/volumeMounts\",\"value\":[{\"name\":\"v\"}]}]");
    /* ... and in the middle */
    check_diff("{\"c\":[{\"name\":\"a\",\"x\":1},{\"name\":\"b\",\"x\":1}]}",
               "{\"c\":[{\"name\":\"a\",\"x\":2},{\"name\":\"s\"},{\"name\":\"b\",\"x\":2}]}",
               "[{\"op\":\"replace\",\"path\":\"/c/0/x\",\"value\":2},"
               " {\"op\":\"add\",\"path\":\"/c/1\",\"value\":{\"name\":\"s\"}},"
               " {\"op\":\"replace\",\"path\":\"/c/2/x\",\"value\":2}]");
    /* a container replaced by another name is a remove and an add */
    check_diff("{\"c\":[{\"name\":\"a\"},{\"name\":\"b\",\"i\":1},{\"name\":\"z\"}]}",
               "{\"c\":[{\"name\":\"a\"},{\"name\":\"q\",\"i\":1},{\"name\":\"z\"}]}",
               "[{\"op\":\"remove\",\"path\":\"/c/1\"},"
               " {\"op\":\"add\",\"path\":\"/c/1\",\"value\":{\"name\":\"q\",\"i\":1}}]");
}

TEST(diff_annotations_and_env)
{
    check_diff("{\"metadata\":{\"annotations\":{\"a\":\"1\"}}}",
               "{\"metadata\":{\"annotations\":{\"a\":\"1\",\"kruise.io/sidecarset-hash\":\"h\"}}}",
               "[{\"op\":\"add\",\"path\":\"/metadata/annotations/kruise.io~1sidecarset-hash\","
               "\"value\":\"h\"}]");
    check_diff("{\"metadata\":{\"name\":\"p\"}}",
               "{\"metadata\":{\"name\":\"p\",\"annotations\":{\"k\":\"v\"}}}",
               "[{\"op\":\"add\",\"path\":\"/metadata/annotations\",\"value\":{\"k\":\"v\"}}]");

    json_t *pod = wh_bench_jsonpatch_pod(1500, 0);
    json_t *to = json_deep_copy(pod);
    json_t *env =
        json_object_get(json_array_get(wh_json_path(to, "spec", "containers", NULL), 0), "env");
    CHECK_EQ_INT(json_array_append_new(env, json_pack("{s:s,s:s}", "name", "NEW", "value", "1")),
                 0);
    CHECK_EQ_INT(json_array_append_new(env, json_pack("{s:s,s:s}", "name", "NEW2", "value", "2")),
                 0);
    json_t *patch = diff_checked(pod, to);
    json_t *w = wh_test_json("[{\"op\":\"add\",\"path\":\"/spec/containers/0/env/1500\","
                             "\"value\":{\"name\":\"NEW\",\"value\":\"1\"}},"
                             " {\"op\":\"add\",\"path\":\"/spec/containers/0/env/1501\","
                             "\"value\":{\"name\":\"NEW2\",\"value\":\"2\"}}]");
    CHECK_EQ_JSON(patch, w);
    json_decref(w);
    json_decref(patch);

    /* The injection the benchmark measures: sidecar, volume, two annotations. */
    json_t *inj = wh_bench_jsonpatch_inject(pod);
    patch = diff_checked(pod, inj);
    CHECK_EQ_INT(json_array_size(patch), 3);
    json_decref(patch);
    json_decref(inj);
    json_decref(pod);
    json_decref(to);
}

/* Linear, not quadratic: 20000 moved elements diff in a few milliseconds (an O(n*m)
 * algorithm needs seconds even without sanitizers). */
TEST(diff_is_linear)
{
    json_t *a = json_array(), *b = json_array();
    for (int i = 0; i < 20000; i++) {
        CHECK_EQ_INT(json_array_append_new(a, json_pack("{s:i,s:s}", "i", i, "v", "x")), 0);
        CHECK_EQ_INT(json_array_append_new(b, json_pack("{s:i,s:s}", "i", 19999 - i, "v", "x")), 0);
    }
    int64_t t0 = wh_time_mono_ns();
    json_t *patch = wh_patch_diff(a, b);
    int64_t ns = wh_time_mono_ns() - t0;
    CHECK(json_array_size(patch) > 0);
    CHECK(ns < 2000000000LL);
    json_decref(patch);
    json_decref(a);
    json_decref(b);
}

/* --- diff: round trips on random documents ------------------------------------------------ */

static uint64_t rng_state;

static uint64_t rnd(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545f4914f6cdd1dULL;
}

static size_t rndn(size_t n)
{
    return (size_t)(rnd() % n);
}

static const char *const keys[] = {"a", "b", "name", "a/b", "~",    "~1",   "m~0n",
                                   "",  "/", "-",    "0",   "spec", "x~/y", "env"};
static const char *const strs[] = {"", "x", "y", "c1", "c2", "sidecar", "~/", "\xc3\xa9"};

static json_t *gen(int depth);

static json_t *gen_scalar(void)
{
    switch (rndn(7)) {
    case 0:
        return json_string(strs[rndn(sizeof(strs) / sizeof(strs[0]))]);
    case 1:
        return json_integer((json_int_t)rndn(5) - 2);
    case 2:
        return json_real((double)rndn(4) / 2);
    case 3:
        return json_true();
    case 4:
        return json_false();
    case 5:
        return json_null();
    default:
        return json_string(keys[rndn(sizeof(keys) / sizeof(keys[0]))]);
    }
}

static json_t *gen(int depth)
{
    size_t kind = depth <= 0 ? 2 : rndn(5);
    if (kind == 0) {
        json_t *o = json_object();
        size_t n = rndn(5);
        if (rndn(3) == 0)
            json_object_set_new(o, "name", json_string(strs[rndn(sizeof(strs) / sizeof(strs[0]))]));
        for (size_t i = 0; i < n; i++)
            json_object_set_new(o, keys[rndn(sizeof(keys) / sizeof(keys[0]))], gen(depth - 1));
        return o;
    }
    if (kind == 1) {
        json_t *a = json_array();
        size_t n = rndn(6);
        for (size_t i = 0; i < n; i++)
            json_array_append_new(a, gen(depth - 1));
        return a;
    }
    return gen_scalar();
}

/* Consumes v and returns its edited version (often v itself): deletions, insertions, moves and
 * changes, recursively. */
static json_t *mutate(json_t *v, int depth)
{
    if (rndn(8) == 0) {
        json_decref(v);
        return gen(depth);
    }
    if (json_is_object(v)) {
        const char *key;
        json_t *m, *tmp;
        json_object_foreach_safe(v, tmp, key, m)
        {
            switch (rndn(5)) {
            case 0:
                json_object_del(v, key);
                break;
            case 1:
                /* mutate consumes the extra reference; set_new releases the old value */
                json_object_set_new(v, key, mutate(json_incref(m), depth - 1));
                break;
            default:
                break;
            }
        }
        if (rndn(2))
            json_object_set_new(v, keys[rndn(sizeof(keys) / sizeof(keys[0]))], gen(depth - 1));
        return v;
    }
    if (json_is_array(v)) {
        size_t edits = rndn(4);
        for (size_t e = 0; e < edits; e++) {
            size_t n = json_array_size(v);
            switch (rndn(4)) {
            case 0:
                json_array_insert_new(v, n ? rndn(n + 1) : 0, gen(depth - 1));
                break;
            case 1:
                if (n)
                    json_array_remove(v, rndn(n));
                break;
            case 2:
                if (n > 1) { /* move */
                    size_t from = rndn(n), to = rndn(n);
                    json_t *x = json_incref(json_array_get(v, from));
                    json_array_remove(v, from);
                    json_array_insert_new(v, to, x);
                }
                break;
            default:
                if (n) {
                    size_t i = rndn(n);
                    json_t *x = json_incref(json_array_get(v, i));
                    json_array_set_new(v, i, mutate(x, depth - 1));
                }
                break;
            }
        }
        return v;
    }
    json_decref(v);
    return gen_scalar();
}

TEST(diff_roundtrip_random)
{
    int failures = 0;
    for (uint64_t seed = 1; seed <= 4000 && failures < 3; seed++) {
        rng_state = seed * 0x9e3779b97f4a7c15ULL;
        json_t *a = gen(4);
        json_t *b = seed % 7 == 0 ? gen(4) : mutate(json_deep_copy(a), 4);
        json_t *patch = wh_patch_diff(a, b);
        json_t *res = NULL;
        struct wh_errbuf eb = {{0}};
        enum wh_err rc = wh_patch_apply(a, patch, &res, &eb);
        if (rc || !wh_json_equal(res, b, WH_JSON_EQ_EXACT)) {
            failures++;
            char *sa = wh_json_dumps(a), *sb = wh_json_dumps(b), *sp = wh_json_dumps(patch);
            fprintf(stderr, "seed %llu: %s\n from %s\n to %s\n patch %s\n",
                    (unsigned long long)seed, rc ? eb.msg : "result differs", sa, sb, sp);
            free(sa);
            free(sb);
            free(sp);
            CHECK(!"diff round trip");
        }
        /* only add/remove/replace, and nothing at all between equal documents */
        size_t i;
        json_t *op;
        json_array_foreach(patch, i, op)
        {
            const char *name = wh_json_str(op, "op");
            CHECK(name && (strcmp(name, "add") == 0 || strcmp(name, "remove") == 0 ||
                           strcmp(name, "replace") == 0));
        }
        json_t *same = wh_patch_diff(a, a);
        CHECK_EQ_INT(json_array_size(same), 0);
        json_decref(same);
        json_decref(res);
        json_decref(patch);
        json_decref(a);
        json_decref(b);
    }
}

/* The patch owns copies: changing `to` afterwards does not change it. */
TEST(diff_owns_values)
{
    json_t *a = wh_test_json("{}"), *b = wh_test_json("{\"x\":{\"y\":1}}");
    json_t *patch = wh_patch_diff(a, b);
    json_object_set_new(json_object_get(b, "x"), "y", json_integer(2));
    json_t *w = wh_test_json("[{\"op\":\"add\",\"path\":\"/x\",\"value\":{\"y\":1}}]");
    CHECK_EQ_JSON(patch, w);
    json_decref(w);
    json_decref(patch);
    json_decref(a);
    json_decref(b);
}
