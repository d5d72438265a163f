/* util/jsoneq: the one JSON equality and the ways its callers need it to differ. */
#include "test/unit/test.h"

#include "util/jsoneq.h"

static bool eq(const char *a, const char *b, unsigned how)
{
    json_t *x = json_loads(a, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL),
           *y = json_loads(b, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
    CHECK(x && y);
    bool r = wh_json_equal(x, y, how);
    /* every mode is symmetric */
    CHECK(r == wh_json_equal(y, x, how));
    json_decref(x);
    json_decref(y);
    return r;
}

TEST(jsoneq_exact_is_json_equal_with_whole_keys)
{
    CHECK(eq("{\"a\":[1,\"x\",true,null],\"b\":{}}", "{\"b\":{},\"a\":[1,\"x\",true,null]}", 0));
    CHECK(!eq("1", "1.0", WH_JSON_EQ_EXACT));
    CHECK(eq("-0.0", "0.0", WH_JSON_EQ_EXACT));
    CHECK(!eq("{\"a\":null}", "{}", WH_JSON_EQ_EXACT));
    CHECK(!eq("[1,2]", "[2,1]", WH_JSON_EQ_EXACT));
    CHECK(!eq("\"a\\u0000b\"", "\"a\\u0000c\"", WH_JSON_EQ_EXACT));
    /* json_equal finds "x" for "x\0y" */
    json_t *k1 = json_object(), *k2 = json_object();
    CHECK_EQ_INT(json_object_setn_new(k1, "x\0y", 3, json_integer(1)), 0);
    CHECK_EQ_INT(json_object_set_new(k2, "x", json_integer(1)), 0);
    CHECK(json_equal(k1, k2));
    CHECK(!wh_json_equal(k1, k2, WH_JSON_EQ_EXACT));
    CHECK(!wh_json_equal(k1, k2, WH_JSON_EQ_NULL_ABSENT));
    json_decref(k1);
    json_decref(k2);
    json_t *v = json_string("v");
    CHECK(wh_json_equal(NULL, NULL, WH_JSON_EQ_EXACT));
    CHECK(!wh_json_equal(v, NULL, WH_JSON_EQ_EXACT));
    CHECK(!wh_json_equal(NULL, json_null(), WH_JSON_EQ_EXACT));
    json_decref(v);
}

TEST(jsoneq_numbers_by_value_exactly_or_as_float64)
{
    CHECK(eq("[1,{\"a\":2}]", "[1.0,{\"a\":2.0}]", WH_JSON_EQ_NUMBERS));
    CHECK(!eq("1", "1.5", WH_JSON_EQ_NUMBERS));
    CHECK(!eq("1", "\"1\"", WH_JSON_EQ_NUMBERS));
    /* 2^53 + 1 is not the double 2^53 by value ... */
    CHECK(!eq("9007199254740993", "9007199254740992.0", WH_JSON_EQ_NUMBERS));
    CHECK(!eq("9007199254740993", "9007199254740992", WH_JSON_EQ_NUMBERS));
    CHECK(!eq("1", "1e300", WH_JSON_EQ_NUMBERS));
    /* ... but it is as float64, Go's only number in interface{} */
    CHECK(eq("9007199254740993", "9007199254740992.0", WH_JSON_EQ_FLOAT64));
    CHECK(eq("9007199254740993", "9007199254740992", WH_JSON_EQ_FLOAT64));
    CHECK(eq("2", "2.0", WH_JSON_EQ_FLOAT64));
    CHECK(!eq("2", "true", WH_JSON_EQ_FLOAT64));
}

TEST(jsoneq_null_absent_is_deepequal_of_decoded_structs)
{
    unsigned na = WH_JSON_EQ_NULL_ABSENT;
    CHECK(eq("{\"a\":null,\"b\":{\"c\":null}}", "{\"b\":{}}", na));
    CHECK(eq("null", "null", na));
    CHECK(!eq("{\"a\":{}}", "{}", na)); /* an empty map is not a nil one */
    CHECK(!eq("{\"a\":[]}", "{\"a\":null}", na));
    CHECK(!eq("{\"a\":1}", "{\"a\":1.0}", na));
    CHECK(eq("[null,{\"x\":null}]", "[null,{}]", na));
    CHECK(!eq("[null]", "[]", na));
    json_t *v = json_object();
    CHECK(wh_json_equal(NULL, json_null(), na));
    CHECK(!wh_json_equal(NULL, v, na));
    json_decref(v);
}
