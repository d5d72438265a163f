#include "util/jsoneq.h"

#include <stdint.h>
#include <string.h>

static json_t *unconst(const json_t *v)
{
    return (json_t *)(uintptr_t)v;
}

static double as_double(const json_t *v)
{
    return json_is_integer(v) ? (double)json_integer_value(v) : json_real_value(v);
}

/* An integer and a real with the same value: compared exactly, since converting the integer
 * to double would round above 2^53. */
static bool int_equals_real(const json_t *i, const json_t *r)
{
    double d = json_real_value(r);
    if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0) || d != (double)(long long)d)
        return false;
    return (long long)d == json_integer_value(i);
}

static bool is_nil(const json_t *v)
{
    return !v || json_is_null(v);
}

/* a and b of different JSON types, or one of them missing. */
static bool unlike_equal(const json_t *a, const json_t *b, unsigned how)
{
    if (how & WH_JSON_EQ_NULL_ABSENT && (is_nil(a) || is_nil(b)))
        return is_nil(a) && is_nil(b);
    if (!json_is_number(a) || !json_is_number(b))
        return false;
    if (how & WH_JSON_EQ_FLOAT64)
        return as_double(a) == as_double(b);
    if (!(how & WH_JSON_EQ_NUMBERS))
        return false;
    return json_is_integer(a) ? int_equals_real(a, b) : int_equals_real(b, a);
}

/* With NULL_ABSENT, a member of a that b lacks must be null, and the other way round. */
static bool objects_equal(const json_t *a, const json_t *b, unsigned how)
{
    bool null_absent = how & WH_JSON_EQ_NULL_ABSENT;
    if (!null_absent && json_object_size(a) != json_object_size(b))
        return false;
    const char *key;
    size_t klen;
    json_t *v;
    json_object_keylen_foreach(unconst(a), key, klen, v)
    {
        if (!wh_json_equal(v, json_object_getn(b, key, klen), how))
            return false;
    }
    if (null_absent) {
        json_object_keylen_foreach(unconst(b), key, klen, v)
        {
            if (!json_is_null(v) && !json_object_getn(a, key, klen))
                return false;
        }
    }
    return true;
}

bool wh_json_equal(const json_t *a, const json_t *b, unsigned how)
{
    if (a == b)
        return true;
    if (!a || !b || json_typeof(a) != json_typeof(b))
        return unlike_equal(a, b, how);
    switch (json_typeof(a)) {
    case JSON_OBJECT:
        return objects_equal(a, b, how);
    case JSON_ARRAY: {
        size_t n = json_array_size(a);
        if (n != json_array_size(b))
            return false;
        for (size_t i = 0; i < n; i++) {
            if (!wh_json_equal(json_array_get(a, i), json_array_get(b, i), how))
                return false;
        }
        return true;
    }
    case JSON_STRING:
        return json_string_length(a) == json_string_length(b) &&
               memcmp(json_string_value(a), json_string_value(b), json_string_length(a)) == 0;
    case JSON_INTEGER:
        if (how & WH_JSON_EQ_FLOAT64)
            return as_double(a) == as_double(b);
        return json_integer_value(a) == json_integer_value(b);
    case JSON_REAL:
        return json_real_value(a) == json_real_value(b);
    default:
        return true; /* true, false, null: the type says it all */
    }
}
