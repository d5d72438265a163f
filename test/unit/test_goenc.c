/* Go-compatible JSON helpers (gocompat/goenc.h): string escapes, syntax messages, merge patch. */
#include <stdlib.h>
#include <string.h>

#include "test/unit/test.h"
#include "gocompat/goenc.h"

static void check_string(const char *in, const char *want)
{
    struct wh_buf b;
    wh_buf_init(&b, 1 << 16);
    CHECK(wh_goenc_append_string(&b, in, strlen(in)) == WH_OK);
    CHECK_EQ_STR(b.data, want);
    wh_buf_fini(&b);
}

TEST(goenc_strings)
{
    check_string("plain", "\"plain\"");
    check_string("<a&b>", "\"\\u003ca\\u0026b\\u003e\"");
    check_string("q\"b\\", "\"q\\\"b\\\\\"");
    check_string("\b\f\n\r\t\x01\x7f", "\"\\b\\f\\n\\r\\t\\u0001\x7f\"");
    check_string("\xe2\x80\xa8-\xe2\x80\xa9", "\"\\u2028-\\u2029\"");
    check_string("bad\xff utf8 \xc3\xa9", "\"bad\\ufffd utf8 \xc3\xa9\"");
}

TEST(goenc_sorted_dump)
{
    json_t *v = wh_test_json("{\"b\":[1,2.5,true,null],\"a\":{\"y\":\"<\",\"x\":1e21}}");
    char *s = wh_goenc_dumps_sorted(v);
    CHECK_EQ_STR(s, "{\"a\":{\"x\":1e+21,\"y\":\"\\u003c\"},\"b\":[1,2.5,true,null]}");
    free(s);
    json_decref(v);
}

/* Every ASCII byte: printable ones but '"', '\\', '<', '>', '&' are written as they are, all
 * others escaped; members keep their order unless sorted. */
TEST(goenc_every_ascii_byte_and_member_order)
{
    for (int c = 1; c < 0x80; c++) {
        char in[2] = {(char)c, 0};
        struct wh_buf b;
        wh_buf_init(&b, 64);
        CHECK(wh_goenc_append_string(&b, in, 1) == WH_OK);
        bool as_is = c >= 0x20 && !strchr("\"\\<>&", c);
        CHECK_EQ_INT(b.len == 3 && b.data[1] == (char)c, as_is);
        wh_buf_fini(&b);
    }
    json_t *v = wh_test_json("{\"b\":\"x\",\"a\":{\"d\":1,\"c\":2}}");
    struct wh_buf b;
    wh_buf_init(&b, 256);
    CHECK(wh_goenc_append(&b, v, false) == WH_OK);
    CHECK_EQ_STR(b.data, "{\"b\":\"x\",\"a\":{\"d\":1,\"c\":2}}");
    wh_buf_fini(&b);
    json_decref(v);
}

/* Strings are scanned a word at a time: a character to escape at any offset is written as it
 * is written alone. */
TEST(goenc_specials_at_every_offset)
{
    const char *specials[] = {"<",    ">",       "&", "\"", "\\", "\n", "\x01", "\xe2\x80\xa8",
                              "\xff", "\xc3\xa9"};
    for (size_t k = 0; k < sizeof(specials) / sizeof(specials[0]); k++) {
        struct wh_buf alone;
        wh_buf_init(&alone, 64);
        CHECK(wh_goenc_append_string(&alone, specials[k], strlen(specials[k])) == WH_OK);
        for (int at = 0; at < 20; at++) {
            char in[64], want[96];
            snprintf(in, sizeof(in), "%.*s%sxyz", at, "abcdefghijklmnopqrstuvwxyz", specials[k]);
            snprintf(want, sizeof(want), "\"%.*s%.*sxyz\"", at, "abcdefghijklmnopqrstuvwxyz",
                     (int)alone.len - 2, alone.data + 1);
            check_string(in, want);
        }
        wh_buf_fini(&alone);
    }
}

static void check_invalid(const char *text, const char *want)
{
    char msg[160];
    CHECK(!wh_goenc_valid(text, strlen(text), msg, sizeof(msg)));
    CHECK_EQ_STR(msg, want);
}

TEST(goenc_syntax_messages)
{
    char msg[160];
    const char *ok = " {\"a\": [1, -2.5e3, \"x\\u00e9\", null, true, false]} ";
    CHECK(wh_goenc_valid(ok, strlen(ok), msg, sizeof(msg)));
    check_invalid("", "unexpected end of JSON input");
    check_invalid("{\"a\":1", "unexpected end of JSON input");
    check_invalid("x", "invalid character 'x' looking for beginning of value");
    check_invalid("{nope", "invalid character 'n' looking for beginning of object key string");
    check_invalid("{\"a\" 1}", "invalid character '1' after object key");
    check_invalid("{\"a\":1 2}", "invalid character '2' after object key:value pair");
    check_invalid("[1 2]", "invalid character '2' after array element");
    check_invalid("{} {}", "invalid character '{' after top-level value");
    check_invalid("tru", "unexpected end of JSON input");
    check_invalid("trux", "invalid character 'x' in literal true (expecting 'e')");
    check_invalid("-x", "invalid character 'x' in numeric literal");
    check_invalid("1.x", "invalid character 'x' after decimal point in numeric literal");
    check_invalid("\"\\q\"", "invalid character 'q' in string escape code");
    check_invalid("\"a\nb\"", "invalid character '\\n' in string literal");
}

static void check_merge(const char *doc, const char *patch, const char *want)
{
    char *out = NULL;
    struct wh_errbuf eb = {{0}};
    enum wh_err rc = wh_goenc_merge_patch(doc, strlen(doc), patch, strlen(patch), &out, &eb);
    if (want[0] == '!') {
        CHECK(rc != WH_OK);
        CHECK_EQ_STR(eb.msg, want + 1);
    } else {
        CHECK(rc == WH_OK);
        CHECK_EQ_STR(out, want);
    }
    free(out);
}

TEST(goenc_merge_patch)
{
    check_merge("{\"app\": 0}", "{\"log-agent\":1}", "{\"app\":0,\"log-agent\":1}");
    /* untouched values keep their text (order, number spelling, escapes); merged objects and
     * every object taken from the patch are sorted */
    check_merge("{\"z\":{\"q\":1.0,\"p\":\"\\u00e9<\"},\"a\":{\"d\":1,\"c\":2}}",
                "{\"a\":{\"e\":{\"y\":1,\"x\":null}},\"b\":[{\"k\":null,\"j\":2},null]}",
                "{\"a\":{\"c\":2,\"d\":1,\"e\":{\"y\":1}},\"b\":[{\"j\":2},null],\"z\":{\"q\":1.0,"
                "\"p\":\"\\u00e9\\u003c\"}}");
    /* null deletes */
    check_merge("{\"a\":1,\"b\":2}", "{\"a\":null,\"c\":null}", "{\"b\":2}");
    /* a current value that is not an object is replaced by the (pruned) patch */
    check_merge("{\"a\":[1]}", "{\"a\":{\"x\":null,\"y\":1}}", "{\"a\":{\"y\":1}}");
    check_merge("{\"a\":null}", "{\"a\":{\"x\":null}}", "{\"a\":{}}");
    check_merge("[1,2]", "{\"a\":null,\"b\":1}", "{\"b\":1}");
    check_merge("5", "[{\"a\":null},null]", "[{},null]");
    check_merge("{\"a\":1}", "\"str\"", "!Invalid JSON Patch");
    check_merge("null", "{}", "!Invalid JSON Document");
    check_merge("{\"a\":1}", "null", "!Invalid JSON Patch");
    check_merge("{bad", "{}", "!Invalid JSON Document");
    check_merge("{}", "{bad", "!Invalid JSON Patch");
    /* duplicate keys: the last wins */
    check_merge("{\"a\":1,\"a\":2}", "{}", "{\"a\":2}");
}
