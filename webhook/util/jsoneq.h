#ifndef WH_UTIL_JSONEQ_H
#define WH_UTIL_JSONEQ_H

/* Equality of JSON values: the one comparison, with the few ways the callers need it to differ
 * (they are not interchangeable: each one is what its caller's answer depends on).
 *  - WH_JSON_EQ_EXACT: the same JSON type and value. An integer never equals a real (1 and 1.0
 *    differ, as in jansson's json_equal), object member order does not matter, strings and
 *    object keys are compared in full, a NUL inside included (json_equal looks keys up as C
 *    strings, so "x\u0000y" would find "x"). The patch diff, and whatever must tell apart what
 *    a patch would change.
 *  - WH_JSON_EQ_NUMBERS: numbers are equal when their values are, across integer and real,
 *    compared exactly (9007199254740993 is not 9007199254740992.0). RFC 6902's "test".
 *  - WH_JSON_EQ_FLOAT64: numbers are equal when they are as float64, the only number type of
 *    Go's encoding/json decoding into interface{} (so integers beyond 2^53 may be equal).
 *  - WH_JSON_EQ_NULL_ABSENT: an object member that is null equals an absent one, and a null
 *    value equals a missing one (NULL): reflect.DeepEqual of Go structs decoded from the two,
 *    where null and absence both leave a pointer, map or slice nil. An empty {} or [] is not
 *    null: it decodes to an empty, non-nil map or slice, which DeepEqual tells from nil.
 * Flags combine (NULL_ABSENT with one number rule). Without NULL_ABSENT, NULL equals only
 * NULL.
 * Thread rule: thread-safe; the values are only read. */

#include <jansson.h>
#include <stdbool.h>

enum wh_json_eq {
    WH_JSON_EQ_EXACT = 0,
    WH_JSON_EQ_NUMBERS = 1u << 0,
    WH_JSON_EQ_FLOAT64 = 1u << 1,
    WH_JSON_EQ_NULL_ABSENT = 1u << 2,
};

/* True when a and b are equal under how (enum wh_json_eq flags); either may be NULL. */
bool wh_json_equal(const json_t *a, const json_t *b, unsigned how);

#endif
