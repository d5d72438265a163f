#include "test/unit/test.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "util/arena.h"
#include "util/json.h"
#include "util/jsonparse.h"
#include "util/reqmem.h"

static void same_as_jansson(const char *text)
{
    json_error_t jerr;
    json_t *want = json_loads(text, JSON_DECODE_ANY, &jerr);
    struct wh_jsonparse_error err;
    json_t *got = wh_json_parse(text, strlen(text), &err);
    CHECK(want != NULL);
    CHECK(got != NULL);
    if (want && got)
        CHECK_EQ_JSON(got, want);
    if (!got)
        fprintf(stderr, "  input: %s\n  error: %d:%d %s\n", text, err.line, err.column, err.text);
    json_decref(want);
    json_decref(got);
}

/* text as an element of a ConversionReview's request.objects: what the whole parse rejects,
 * the parse that defers the elements, with each element's text parsed alone, never accepts
 * (whatever the error it gives: the caller asks wh_json_parse for that). */
static void rejected_when_deferred(const char *text, size_t len)
{
    static const char head[] = "{\"request\":{\"objects\":[{\"kind\":\"A\"},\n";
    size_t n = sizeof(head) - 1 + len + 3;
    char *doc = malloc(n);
    memcpy(doc, head, sizeof(head) - 1);
    memcpy(doc + sizeof(head) - 1, text, len);
    memcpy(doc + sizeof(head) - 1 + len, "]}}", 3);
    struct wh_jsonparse_error err = {0};
    json_t *whole = wh_json_parse(doc, n, &err);
    struct wh_json_deferred d = {0};
    json_t *v = wh_json_parse_deferring(doc, n, &err, "request", "objects", &d);
    bool accepted = v != NULL && d.arrays <= 1 && d.deepest <= WH_JSONPARSE_MAX_DEPTH;
    for (size_t i = 0; accepted && i < d.n; i++) {
        json_t *item = wh_json_parse(doc + d.items[i].off, d.items[i].len, &err);
        accepted = item != NULL;
        json_decref(item);
    }
    CHECK(accepted == (whole != NULL));
    if (accepted != (whole != NULL))
        fprintf(stderr, "  deferred: %.*s\n", (int)n, doc);
    json_decref(whole);
    json_decref(v);
    wh_json_deferred_fini(&d);
    free(doc);
}

static void rejected(const char *text, size_t len, int line, int column, const char *msg)
{
    struct wh_jsonparse_error err = {0};
    json_t *got = wh_json_parse(text, len, &err);
    CHECK(got == NULL);
    json_decref(got);
    CHECK_EQ_INT(err.line, line);
    CHECK_EQ_INT(err.column, column);
    CHECK(strstr(err.text, msg) != NULL);
    if (!strstr(err.text, msg))
        fprintf(stderr, "  input: %.*s\n  error: %s (wanted %s)\n", (int)len, text, err.text, msg);
    rejected_when_deferred(text, len);
}

TEST(jsonparse_matches_jansson_on_valid_input)
{
    same_as_jansson("{}");
    same_as_jansson("[]");
    same_as_jansson(" \t\r\n{ \"a\" : [1, -2, 3.5, -0.25e-3, 1E+2, 0, -0, true, false, null] } \n");
    same_as_jansson("{\"nested\":{\"deep\":[[[{\"x\":\"y\"}]]]},\"e\":\"\"}");
    same_as_jansson("\"just a string\"");
    same_as_jansson("42");
    same_as_jansson("{\"esc\":\"q\\\"b\\\\s\\/n\\nr\\rt\\tb\\bf\\f\"}");
    same_as_jansson("{\"u\":\"\\u00e9\\u4e2d\\ud83d\\ude00 \\u0041\"}");
    same_as_jansson("{\"utf8\":\"caf\xc3\xa9 \xe4\xb8\xad \xf0\x9f\x98\x80\"}");
    same_as_jansson("{\"k\xc3\xa9y\":1,\"a\\u0062c\":2}");
    same_as_jansson("{\"dup\":1,\"dup\":2}"); /* the last one wins */
    same_as_jansson("{\"big\":9223372036854775807,\"small\":-9223372036854775808}");
    same_as_jansson("[1.7976931348623157e308, 5e-324, 123456789012345678e-3]");
}

/* Strings are scanned a word at a time: every character that ends a plain run (quote, escape,
 * control, non-ASCII), at every offset within and past the first words, reads as jansson
 * reads it; a control character is refused at its own column. */
TEST(jsonparse_specials_at_every_offset)
{
    const char *specials[] = {"\\\"", "\\\\", "\\n", "\\u00e9", "\xc3\xa9", "\x7f", "~"};
    for (size_t k = 0; k < sizeof(specials) / sizeof(specials[0]); k++) {
        for (int at = 0; at < 20; at++) {
            char text[96];
            int n = snprintf(text, sizeof(text), "{\"k%.*s%s\":\"%.*s%sxyz\"}", at,
                             "abcdefghijklmnopqrstuvwxyz", specials[k], at,
                             "ABCDEFGHIJKLMNOPQRSTUVWXYZ", specials[k]);
            CHECK(n > 0 && (size_t)n < sizeof(text));
            same_as_jansson(text);
        }
    }
    for (int at = 0; at < 20; at++) {
        char text[64];
        int n = snprintf(text, sizeof(text), "[\"%.*s\x01\"]", at, "abcdefghijklmnopqrstuvwxyz");
        rejected(text, (size_t)n, 1, at + 3, "control character");
    }
}

TEST(jsonparse_extensions_over_jansson)
{
    json_t *v = wh_json_parse("{\"s\":\"a\\u0000b\"}", 16, NULL);
    CHECK(v != NULL);
    CHECK_EQ_INT(json_string_length(json_object_get(v, "s")), 3);
    json_decref(v);
    v = wh_json_parse("[9223372036854775808]", 21, NULL);
    CHECK(v && json_is_real(json_array_get(v, 0)));
    json_decref(v);
}

/* Integers of up to 18 digits are read in place, longer ones by strtoll: at every length on
 * both sides of that edge, each sign and the largest digits, the value is strtoll's, an
 * integer, and one past int64 is a real. */
TEST(jsonparse_integers_at_every_length)
{
    for (int digits = 1; digits <= 19; digits++) {
        for (int variant = 0; variant < 4; variant++) {
            char text[32];
            size_t n = 0;
            if (variant & 1)
                text[n++] = '-';
            for (int i = 0; i < digits; i++)
                text[n++] = variant & 2 ? '9' : (char)('1' + i % 9);
            text[n] = '\0';
            errno = 0;
            long long want = strtoll(text, NULL, 10);
            bool fits = errno != ERANGE; /* 19 nines do not */
            json_t *v = wh_json_parse(text, n, NULL);
            CHECK(v && json_is_integer(v) == fits && json_is_real(v) == !fits);
            if (v && fits)
                CHECK(json_integer_value(v) == want);
            json_decref(v);
        }
    }
    same_as_jansson("[0,-0,7,-7,999999999999999999,-999999999999999999,1000000000000000000]");
    json_t *v = wh_json_parse("[9223372036854775807,-9223372036854775808,-9223372036854775809]",
                              63, NULL);
    CHECK(v && json_integer_value(json_array_get(v, 0)) == INT64_MAX);
    CHECK(v && json_integer_value(json_array_get(v, 1)) == INT64_MIN);
    CHECK(v && json_is_real(json_array_get(v, 2)));
    json_decref(v);
}

TEST(jsonparse_rejects_with_positions)
{
    rejected("", 0, 1, 1, "unexpected end of input");
    rejected("{\"apiVersion\": ", 15, 1, 16, "unexpected end of input");
    rejected("{\"a\":1,}", 8, 1, 8, "expected a string key");
    rejected("{\"a\" 1}", 7, 1, 6, "expected ':'");
    rejected("[1 2]", 5, 1, 4, "expected ',' or ']'");
    rejected("{\"a\":1\n\n  x}", 12, 3, 3, "expected ',' or '}'");
    rejected("[01]", 4, 1, 3, "expected ',' or ']'");
    rejected("[1.]", 4, 1, 4, "digits must follow '.'");
    rejected("[1e]", 4, 1, 4, "digits must follow the exponent");
    rejected("[-]", 3, 1, 3, "invalid number");
    rejected("[tru]", 5, 1, 2, "invalid literal");
    rejected("[1e999]", 7, 1, 2, "real number overflow");
    rejected("{} x", 4, 1, 4, "unexpected data after the value");
    rejected("\"a\tb\"", 5, 1, 3, "control character");
    rejected("\"\\x\"", 4, 1, 2, "invalid escape");
    rejected("\"\\u12\"", 6, 1, 2, "invalid \\u escape");
    rejected("\"\\ud800\"", 8, 1, 2, "unpaired high surrogate");
    rejected("\"\\udc00\"", 8, 1, 2, "lone low surrogate");
    rejected("\"\xc3\x28\"", 4, 1, 2, "invalid UTF-8");
    rejected("\"\xe0\x80\xaf\"", 5, 1, 2, "invalid UTF-8");     /* overlong */
    rejected("\"\xed\xa0\x80\"", 5, 1, 2, "invalid UTF-8");     /* surrogate */
    rejected("\"\xf4\x90\x80\x80\"", 6, 1, 2, "invalid UTF-8"); /* > U+10FFFF */
    rejected("\"abc", 4, 1, 5, "unterminated string");
    rejected("{\"a\\u0000\":1}", 13, 1, 11, "NUL byte in an object key");
    rejected("[1]\0", 4, 1, 4, "unexpected data");
}

TEST(jsonparse_depth_limit)
{
    size_t n = WH_JSONPARSE_MAX_DEPTH + 1;
    char *deep = wh_test_read_file("/dev/null", NULL);
    free(deep);
    deep = malloc(2 * n + 1);
    memset(deep, '[', n);
    memset(deep + n, ']', n);
    deep[2 * n] = '\0';
    struct wh_jsonparse_error err = {0};
    CHECK(wh_json_parse(deep, 2 * n, &err) == NULL);
    CHECK(strstr(err.text, "maximum nesting depth") != NULL);
    json_t *ok = wh_json_parse(deep + 1, 2 * n - 2, &err);
    CHECK(ok != NULL);
    json_decref(ok);
    /* As a ConversionReview's object, 3 levels down: too deep there, though not alone. */
    rejected_when_deferred(deep + 3, 2 * n - 6);
    free(deep);
}

/* Random documents: what jansson prints, we parse back to the same value. */
static json_t *random_value(uint32_t *seed, int depth)
{
    *seed = *seed * 1103515245 + 12345;
    int kind = (int)(*seed >> 16) % (depth > 4 ? 5 : 7);
    char s[32];
    switch (kind) {
    case 0:
        return json_integer((json_int_t)(*seed) - 0x40000000);
    case 1:
        return json_real((double)(*seed % 100000) / 7.0);
    case 2:
        snprintf(s, sizeof(s), "s\"\\/\n%u\x01\xc3\xa9", *seed % 1000);
        return json_string(s);
    case 3:
        return json_boolean(*seed & 1);
    case 4:
        return json_null();
    case 5: {
        json_t *a = json_array();
        for (uint32_t i = 0; i < *seed % 5; i++)
            json_array_append_new(a, random_value(seed, depth + 1));
        return a;
    }
    default: {
        json_t *o = json_object();
        for (uint32_t i = 0; i < *seed % 5; i++) {
            snprintf(s, sizeof(s), "k%u/~\x7f", (*seed >> 8) % 50);
            json_object_set_new(o, s, random_value(seed, depth + 1));
        }
        return o;
    }
    }
}

TEST(jsonparse_round_trips_random_documents)
{
    uint32_t seed = 7;
    for (int i = 0; i < 2000; i++) {
        json_t *doc = random_value(&seed, 0);
        size_t flags = JSON_ENCODE_ANY | (i % 2 ? JSON_INDENT(2) : JSON_COMPACT) |
                       (i % 3 ? 0 : JSON_ENSURE_ASCII);
        char *text = json_dumps(doc, flags);
        json_t *back = wh_json_parse(text, strlen(text), NULL);
        CHECK(back != NULL);
        if (back && !json_equal(back, doc)) {
            CHECK_EQ_JSON(back, doc);
            i = 2000;
        }
        json_decref(back);
        json_decref(doc);
        free(text);
    }
}

TEST(jsonwrite_round_trips_through_jansson)
{
    uint32_t seed = 11;
    for (int i = 0; i < 2000; i++) {
        json_t *doc = random_value(&seed, 0);
        char *text = wh_json_dumps(doc);
        json_error_t jerr;
        json_t *back = json_loads(text, JSON_DECODE_ANY, &jerr);
        CHECK(back != NULL);
        if (back && !json_equal(back, doc)) {
            CHECK_EQ_JSON(back, doc);
            fprintf(stderr, "  text: %s\n", text);
            i = 2000;
        }
        json_decref(back);
        json_decref(doc);
        free(text);
    }
}

TEST(jsonwrite_spelling)
{
    json_t *v = wh_test_json("{\"s\":\"a\\\"b\\\\c\\n\\u0001\\u00e9<>&\",\"i\":-12,\"r\":1.0,"
                             "\"r2\":0.1,\"r3\":1e300,\"a\":[true,false,null,{}],\"o\":{}}");
    char *text = wh_json_dumps(v);
    CHECK_EQ_STR(text, "{\"s\":\"a\\\"b\\\\c\\n\\u0001\xc3\xa9<>&\",\"i\":-12,\"r\":1.0,"
                       "\"r2\":0.1,\"r3\":1e+300,\"a\":[true,false,null,{}],\"o\":{}}");
    free(text);
    json_decref(v);
}

/* The writer scans a word at a time too: a character to escape at any offset is written as it
 * is written alone, and reads back. */
TEST(jsonwrite_specials_at_every_offset)
{
    const char *specials[] = {"\"", "\\", "\n", "\x01", "\x1f", "\xc3\xa9", "\x7f", "/"};
    for (size_t k = 0; k < sizeof(specials) / sizeof(specials[0]); k++) {
        json_t *one = json_string(specials[k]);
        char *alone = wh_json_dumps(one);
        json_decref(one);
        for (int at = 0; at < 20; at++) {
            char s[64], want[96];
            snprintf(s, sizeof(s), "%.*s%sxyz", at, "abcdefghijklmnopqrstuvwxyz", specials[k]);
            snprintf(want, sizeof(want), "\"%.*s%.*sxyz\"", at, "abcdefghijklmnopqrstuvwxyz",
                     (int)strlen(alone) - 2, alone + 1);
            json_t *v = json_string(s);
            char *got = wh_json_dumps(v);
            CHECK_EQ_STR(got, want);
            json_t *back = json_loads(got, JSON_DECODE_ANY, NULL);
            CHECK(back && json_equal(back, v));
            json_decref(back);
            free(got);
            json_decref(v);
        }
        free(alone);
    }
}

TEST(jsonparse_stops_at_the_arena_budget)
{
    /* 100 000 empty objects cost ~20 MB parsed; a 1 MiB budget stops the parse. */
    size_t n = 100000, len = 0;
    char *text = malloc(3 * n + 2);
    text[len++] = '[';
    for (size_t i = 0; i < n; i++) {
        memcpy(text + len, i + 1 < n ? "{}," : "{}]", 3);
        len += 3;
    }
    wh_arena_begin();
    wh_arena_limit(1 << 20);
    struct wh_jsonparse_error err = {0};
    json_t *v = wh_json_parse(text, len, &err);
    CHECK(v == NULL);
    CHECK(err.out_of_memory);
    CHECK_EQ_INT(wh_arena_failure(), WH_ERR_TOO_BIG);
    CHECK(wh_arena_size() <= 1 << 20);
    wh_arena_limit(0);
    wh_arena_end();
    CHECK_EQ_INT(wh_reqmem_in_use(), 0);
    /* The same text without a limit parses: the budget, not the input, failed. */
    wh_arena_begin();
    v = wh_json_parse(text, len, &err);
    CHECK(v != NULL && json_array_size(v) == n);
    wh_arena_end();
    /* A small document fits a small budget. */
    wh_arena_begin();
    wh_arena_limit(wh_reqmem_parse_budget(20));
    static const char small[] = "{\"a\":[1,2,\"x\"]}";
    v = wh_json_parse(small, sizeof(small) - 1, &err);
    CHECK(v != NULL);
    CHECK_EQ_INT(wh_arena_failure(), WH_OK);
    wh_arena_end();
    free(text);
}

TEST(jsonparse_keeps_nul_in_strings)
{
    json_t *v = wh_json_parse("\"a\\u0000b\"", 10, NULL);
    CHECK(json_is_string(v) && json_string_length(v) == 3 && json_string_value(v)[2] == 'b');
    json_decref(v);
}

TEST(reqmem_budget_and_pool)
{
    CHECK_EQ_INT(wh_reqmem_parse_budget(0), WH_REQMEM_BASE);
    CHECK_EQ_INT(wh_reqmem_parse_budget(4096), WH_REQMEM_BASE + 4096 * WH_REQMEM_PER_BODY_BYTE);
    CHECK_EQ_INT(wh_reqmem_parse_budget(3u << 20), WH_REQMEM_REQUEST_MAX);
    CHECK_EQ_INT(wh_reqmem_parse_budget((size_t)-1), WH_REQMEM_REQUEST_MAX);
    wh_reqmem_set_limit(100);
    CHECK(wh_reqmem_take(60));
    CHECK(!wh_reqmem_take(41));
    CHECK(wh_reqmem_take(40));
    CHECK(!wh_reqmem_take(1));
    wh_reqmem_give(100);
    CHECK_EQ_INT(wh_reqmem_in_use(), 0);
    wh_reqmem_set_limit(0);
    CHECK(wh_reqmem_take(1u << 30));
    wh_reqmem_give(1u << 30);
}

/* Long enough for containers to be recorded (util/jsonparse.c records from 256 bytes). */
#define PAD                                                                                        \
    "0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890"  \
    "1234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901"  \
    "23456789012345678901234567890123456789"

/* Writing with the spans of a parse gives exactly what serialising the values gives, whatever
 * the input's spelling (whitespace, escapes, non-ASCII, "-0", reals, duplicate keys), and a
 * container whose size changed after the parse is serialised, not copied. */
TEST(jsonparse_spans_copy_only_what_prints_the_same)
{
    static const char *const inputs[] = {
        "{\"a\":[1,2,3],\"b\":{\"c\":\"d\",\"e\":[true,false,null]},\"pad\":\"" PAD "\"}",
        "{\"a\": [1, 2],\"b\":{\"c\":\"d\"},\"pad\":\"" PAD "\"}",
        "{\"a\":\"\\u0041\\/x\",\"b\":{\"k\":\"v\"},\"pad\":\"" PAD "\"}",
        "{\"a\":\"\xc3\xa9t\xc3\xa9\",\"b\":{\"k\":-0},\"pad\":\"" PAD "\"}",
        "{\"a\":1.50,\"b\":[1e3,-0,12345678901234567890],\"pad\":\"" PAD "\"}",
        "{\"a\":1,\"a\":2,\"b\":{\"x\":{},\"y\":[]},\"pad\":\"" PAD "\"}",
        "[{\"pad\":\"" PAD "\",\"n\":[[],[[]],{}]},{\"pad\":\"" PAD "\"}]",
    };
    for (size_t i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++) {
        struct wh_json_spans *spans = NULL;
        json_t *v = wh_json_parse_spans(inputs[i], strlen(inputs[i]), NULL, &spans);
        CHECK(v != NULL && spans != NULL);
        char *want = wh_json_dumps(v);
        struct wh_buf b;
        wh_buf_init(&b, 1 << 20);
        CHECK_EQ_INT(wh_json_write_spans(&b, v, spans), WH_OK);
        CHECK_EQ_STR(b.data, want);
        /* a member added to a recorded container after the parse shows (the rule forbids
         * changing a parsed container below one that is written: edits copy the way down) */
        if (json_is_object(v))
            json_object_set_new(v, "added", json_true());
        else
            json_array_append_new(v, json_true());
        free(want);
        want = wh_json_dumps(v);
        wh_buf_reset(&b);
        CHECK_EQ_INT(wh_json_write_spans(&b, v, spans), WH_OK);
        CHECK_EQ_STR(b.data, want);
        /* compact canonical input: the root's text is the input itself */
        const char *text = NULL;
        size_t len = 0;
        if (i == 0) {
            json_object_del(v, "added");
            CHECK(wh_json_spans_get(spans, v, &text, &len));
            CHECK(len == strlen(inputs[i]) && text == inputs[i]);
        }
        wh_buf_fini(&b);
        free(want);
        wh_json_spans_free(spans);
        json_decref(v);
    }
    /* a failed parse leaves no spans */
    struct wh_json_spans *spans = (struct wh_json_spans *)1;
    CHECK(wh_json_parse_spans("{\"a\":", 5, NULL, &spans) == NULL);
    CHECK(spans == NULL);
}

/* --- sharing between object and oldObject (issue 22) -------------------------------------- */

/* An UPDATE-like review: object and oldObject with the same spec (n env entries) and labels,
 * a different resourceVersion and status. Caller frees. */
static char *update_review(size_t n, bool old_first, size_t *len)
{
    struct wh_buf spec, b;
    wh_buf_init(&spec, 64u << 20);
    wh_buf_init(&b, 64u << 20);
    CHECK_EQ_INT(wh_buf_adds(&spec, "{\"containers\":[{\"name\":\"main\",\"env\":["), WH_OK);
    for (size_t i = 0; i < n; i++)
        CHECK_EQ_INT(wh_buf_printf(&spec, "%s{\"name\":\"ENV_%06zu\",\"value\":\"v%zu\"}",
                                   i ? "," : "", i, i),
                     WH_OK);
    CHECK_EQ_INT(wh_buf_adds(&spec, "]}]}"), WH_OK);
    const char *labels =
        "{\"app\":\"web\",\"app.kubernetes.io/managed-by\":\"helm\",\"tier\":\"frontend\"}";
    char *objs[2];
    for (int k = 0; k < 2; k++) {
        struct wh_buf o;
        wh_buf_init(&o, 64u << 20);
        CHECK_EQ_INT(wh_buf_printf(&o,
                                   "{\"metadata\":{\"name\":\"p\",\"resourceVersion\":\"%d\","
                                   "\"labels\":%s},\"spec\":%s,\"status\":{\"phase\":\"%s\"}}",
                                   k + 1, labels, spec.data, k ? "Pending" : "Running"),
                     WH_OK);
        objs[k] = wh_buf_take(&o, NULL);
    }
    CHECK_EQ_INT(wh_buf_printf(&b, "{\"request\":{\"uid\":\"u\",\"%s\":%s,\"%s\":%s}}",
                               old_first ? "oldObject" : "object", objs[old_first],
                               old_first ? "object" : "oldObject", objs[!old_first]),
                 WH_OK);
    free(objs[0]);
    free(objs[1]);
    wh_buf_fini(&spec);
    return wh_buf_take(&b, len);
}

static json_t *member(json_t *v, const char *a, const char *b)
{
    return json_object_get(json_object_get(json_object_get(v, "request"), a), b);
}

TEST(jsonparse_old_object_shares_what_repeats_object)
{
    size_t len = 0;
    char *text = update_review(3000, false, &len);
    CHECK(len > 64 * 1024);
    /* the reference: parsed outside an arena, nothing shared */
    json_t *plain = wh_json_parse(text, len, NULL);
    CHECK(plain != NULL);
    CHECK(member(plain, "object", "spec") != member(plain, "oldObject", "spec"));

    wh_arena_begin();
    size_t before = wh_arena_size();
    json_t *v = wh_json_parse(text, len, NULL);
    CHECK(v != NULL);
    /* the same tree for every reader */
    CHECK_EQ_JSON(v, plain);
    /* what is the same text at the same place is one value: the spec, the labels */
    CHECK(member(v, "object", "spec") == member(v, "oldObject", "spec"));
    json_t *om = member(v, "object", "metadata"), *oldm = member(v, "oldObject", "metadata");
    CHECK(om != oldm);
    CHECK(json_object_get(om, "labels") == json_object_get(oldm, "labels"));
    CHECK(member(v, "object", "status") != member(v, "oldObject", "status"));
    /* and the review costs about one object: under two thirds of it parsed twice */
    size_t shared = wh_arena_size() - before;
    wh_arena_end();

    wh_arena_begin();
    char *reversed = update_review(3000, true, &len);
    before = wh_arena_size();
    json_t *r = wh_json_parse(reversed, len, NULL);
    CHECK(r != NULL);
    /* oldObject first: it has nothing to share with yet */
    CHECK(member(r, "object", "spec") != member(r, "oldObject", "spec"));
    size_t unshared = wh_arena_size() - before;
    CHECK(shared * 3 < unshared * 2);
    wh_arena_end();
    free(reversed);

    /* a small body is parsed as it is: recording would cost the hot path */
    char *small = update_review(10, false, &len);
    CHECK(len < 64 * 1024);
    wh_arena_begin();
    json_t *s = wh_json_parse(small, len, NULL);
    CHECK(s != NULL && member(s, "object", "spec") != member(s, "oldObject", "spec"));
    wh_arena_end();
    free(small);
    json_decref(plain);
    free(text);
}

/* Sharing is by place, not by text alone: the same text elsewhere in oldObject is its own
 * value, and a container whose text differs by one byte is parsed again (its unchanged
 * members shared). */
TEST(jsonparse_sharing_is_by_place)
{
    struct wh_buf b;
    wh_buf_init(&b, 8u << 20);
    char pad[70000];
    memset(pad, 'x', sizeof(pad) - 1);
    pad[sizeof(pad) - 1] = '\0';
    const char *big = "{\"k1\":\"a value long enough to be recorded\",\"k2\":[1,2,3,4,5,6,7,8]}";
    CHECK_EQ_INT(wh_buf_printf(&b,
                               "{\"object\":{\"a\":%s,\"b\":{\"x\":1},\"pad\":\"%s\","
                               "\"list\":[%s,%s]},"
                               "\"oldObject\":{\"a\":{\"x\":1},\"b\":%s,\"pad\":\"%s\","
                               "\"list\":[%s,{\"k1\":\"a value long enough to be recorded\","
                               "\"k2\":[1,2,3,4,5,6,7,9]}]}}",
                               big, pad, big, big, big, pad, big),
                 WH_OK);
    wh_arena_begin();
    json_t *v = wh_json_parse(b.data, b.len, NULL);
    CHECK(v != NULL);
    json_t *o = json_object_get(v, "object"), *old = json_object_get(v, "oldObject");
    /* b of oldObject has a's text: not shared (another place) */
    CHECK(json_object_get(old, "b") != json_object_get(o, "a"));
    CHECK_EQ_JSON(json_object_get(old, "b"), json_object_get(o, "a"));
    json_t *ol = json_object_get(o, "list"), *oldl = json_object_get(old, "list");
    CHECK(json_array_get(oldl, 0) == json_array_get(ol, 0));
    CHECK(json_array_get(oldl, 1) != json_array_get(ol, 1));
    CHECK(json_integer_value(json_array_get(json_object_get(json_array_get(oldl, 1), "k2"), 7)) ==
          9);
    json_t *plain = NULL;
    wh_arena_pause();
    plain = wh_json_parse(b.data, b.len, NULL);
    wh_arena_resume();
    CHECK_EQ_JSON(v, plain);
    json_decref(plain);
    wh_arena_end();
    wh_buf_fini(&b);
}

/* A ConversionReview's objects left as text: the tree holds a null for each, items their text,
 * of the array the tree keeps when the path repeats; the path is the top-level object's
 * "request", then its "objects", nowhere else. */
TEST(jsonparse_defers_the_elements_of_one_array)
{
    static const char doc[] =
        "{\"request\":{\"objects\":[{\"a\":1}],\"uid\":\"u\"},\"x\":{\"objects\":[1]},"
        "\"request\":{\"uid\":\"v\",\"objects\":[ {\"b\":[2, \"\\u0041\"]} ,\n3,\"s\",null],"
        "\"y\":{\"objects\":[4]}}}";
    for (int arena = 0; arena < 2; arena++) {
        struct wh_json_deferred d = {0};
        if (arena)
            wh_arena_begin();
        size_t before = wh_arena_size();
        struct wh_jsonparse_error err = {0};
        json_t *v = wh_json_parse_deferring(doc, sizeof(doc) - 1, &err, "request", "objects", &d);
        CHECK(v != NULL);
        const json_t *objs = wh_json_path(v, "request", "objects", NULL);
        CHECK(json_is_array(objs) && json_array_size(objs) == 4);
        for (size_t i = 0; i < json_array_size(objs); i++)
            CHECK(json_is_null(json_array_get(objs, i)));
        CHECK_EQ_STR(wh_json_path_str(v, "request", "uid", NULL), "v");
        /* elsewhere the same key is parsed as usual */
        CHECK_EQ_INT(json_array_size(wh_json_path(v, "request", "y", "objects", NULL)), 1);
        CHECK_EQ_INT(json_array_size(wh_json_path(v, "x", "objects", NULL)), 1);
        CHECK_EQ_INT(d.n, 4);
        static const char *const want[] = {"{\"b\":[2, \"\\u0041\"]}", "3", "\"s\"", "null"};
        for (size_t i = 0; i < d.n && i < 4; i++) {
            CHECK_EQ_INT(d.items[i].len, strlen(want[i]));
            CHECK(memcmp(doc + d.items[i].off, want[i], strlen(want[i])) == 0);
        }
        json_decref(v);
        if (arena) {
            /* what checking the big element allocated went back: a small arena */
            CHECK(wh_arena_size() - before <= 64 * 1024);
            wh_arena_end();
        }
        wh_json_deferred_fini(&d);
    }
}
