/* gocompat/cron (robfig/cron v3.0.1's parser) and the Go pieces it stands on (time.ParseDuration,
 * time.LoadLocation): robfig's own test tables from parser_test.go and spec_test.go, ported as
 * data (expected schedules as robfig's code computes them), then whole messages per branch. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gocompat/cron.h"
#include "gocompat/gotime.h"
#include "gocompat/gozone.h"
#include "test/unit/test.h"

/* parser_test.go's secondParser: Second | Minute | Hour | Dom | Month | DowOptional | Descriptor */
#define SECOND_PARSER                                                                              \
    (WH_CRON_SECOND | WH_CRON_MINUTE | WH_CRON_HOUR | WH_CRON_DOM | WH_CRON_MONTH |                \
     WH_CRON_DOW_OPTIONAL | WH_CRON_DESCRIPTOR)
#define STAR WH_CRON_STAR_BIT
/* all(bounds): every value of the bounds plus the star bit (TestAll) */
#define ALL_SECONDS (0xfffffffffffffffull | STAR)
#define ALL_HOURS (0xffffffull | STAR)
#define ALL_DOM (0xfffffffeull | STAR)
#define ALL_MONTHS (0x1ffeull | STAR)
#define ALL_DOW (0x7full | STAR)

/* Every spec of spec_test.go (TestActivation, TestNext, TestNextWithTz) with the schedule
 * robfig's parser gives it (bits printed by its own code). */
static const struct {
    const char *spec;
    unsigned options;
    uint64_t bits[6];
    const char *location;
} spec_test_specs[] = {
    {"0/15 * * * *",
     WH_CRON_STANDARD,
     {0x1ull, 0x200040008001ull, 0x8000000000ffffffull, 0x80000000fffffffeull, 0x8000000000001ffeull, 0x800000000000007full},
     "Local"},
    {"5/15 * * * *",
     WH_CRON_STANDARD,
     {0x1ull, 0x4000800100020ull, 0x8000000000ffffffull, 0x80000000fffffffeull, 0x8000000000001ffeull, 0x800000000000007full},
     "Local"},
    {"0/15 * * Jul *",
     WH_CRON_STANDARD,
     {0x1ull, 0x200040008001ull, 0x8000000000ffffffull, 0x80000000fffffffeull, 0x80ull, 0x800000000000007full},
     "Local"},
    {"0/15 * * Jun *",
     WH_CRON_STANDARD,
     {0x1ull, 0x200040008001ull, 0x8000000000ffffffull, 0x80000000fffffffeull, 0x40ull, 0x800000000000007full},
     "Local"},
    {"30 08 ? Jul Sun",
     WH_CRON_STANDARD,
     {0x1ull, 0x40000000ull, 0x100ull, 0x80000000fffffffeull, 0x80ull, 0x1ull},
     "Local"},
    {"30 08 15 Jul ?",
     WH_CRON_STANDARD,
     {0x1ull, 0x40000000ull, 0x100ull, 0x8000ull, 0x80ull, 0x800000000000007full},
     "Local"},
    {"@hourly",
     WH_CRON_STANDARD,
     {0x1ull, 0x1ull, 0x8000000000ffffffull, 0x80000000fffffffeull, 0x8000000000001ffeull, 0x800000000000007full},
     "Local"},
    {"@daily",
     WH_CRON_STANDARD,
     {0x1ull, 0x1ull, 0x1ull, 0x80000000fffffffeull, 0x8000000000001ffeull, 0x800000000000007full},
     "Local"},
    {"@weekly",
     WH_CRON_STANDARD,
     {0x1ull, 0x1ull, 0x1ull, 0x80000000fffffffeull, 0x8000000000001ffeull, 0x1ull},
     "Local"},
    {"@monthly",
     WH_CRON_STANDARD,
     {0x1ull, 0x1ull, 0x1ull, 0x2ull, 0x8000000000001ffeull, 0x800000000000007full},
     "Local"},
    {"* * 1,15 * Sun",
     WH_CRON_STANDARD,
     {0x1ull, 0x8fffffffffffffffull, 0x8000000000ffffffull, 0x8002ull, 0x8000000000001ffeull, 0x1ull},
     "Local"},
    {"* * */10 * Sun",
     WH_CRON_STANDARD,
     {0x1ull, 0x8fffffffffffffffull, 0x8000000000ffffffull, 0x80200802ull, 0x8000000000001ffeull, 0x1ull},
     "Local"},
    {"* * * * Mon",
     WH_CRON_STANDARD,
     {0x1ull, 0x8fffffffffffffffull, 0x8000000000ffffffull, 0x80000000fffffffeull, 0x8000000000001ffeull, 0x2ull},
     "Local"},
    {"* * 1,15 * *",
     WH_CRON_STANDARD,
     {0x1ull, 0x8fffffffffffffffull, 0x8000000000ffffffull, 0x8002ull, 0x8000000000001ffeull, 0x800000000000007full},
     "Local"},
    {"* * */2 * Sun",
     WH_CRON_STANDARD,
     {0x1ull, 0x8fffffffffffffffull, 0x8000000000ffffffull, 0xaaaaaaaaull, 0x8000000000001ffeull, 0x1ull},
     "Local"},
    {"14 14 * * *",
     WH_CRON_STANDARD,
     {0x1ull, 0x4000ull, 0x4000ull, 0x80000000fffffffeull, 0x8000000000001ffeull, 0x800000000000007full},
     "Local"},
    {"14 14 * * ?",
     WH_CRON_STANDARD,
     {0x1ull, 0x4000ull, 0x4000ull, 0x80000000fffffffeull, 0x8000000000001ffeull, 0x800000000000007full},
     "Local"},
    {"0 0/15 * * * *",
     SECOND_PARSER,
     {0x1ull, 0x200040008001ull, 0x8000000000ffffffull, 0x80000000fffffffeull, 0x8000000000001ffeull, 0x800000000000007full},
     "Local"},
    {"0 20-35/15 * * * *",
     SECOND_PARSER,
     {0x1ull, 0x800100000ull, 0x8000000000ffffffull, 0x80000000fffffffeull, 0x8000000000001ffeull, 0x800000000000007full},
     "Local"},
    {"0 */15 * * * *",
     SECOND_PARSER,
     {0x1ull, 0x200040008001ull, 0x8000000000ffffffull, 0x80000000fffffffeull, 0x8000000000001ffeull, 0x800000000000007full},
     "Local"},
    {"15/35 20-35/15 * * * *",
     SECOND_PARSER,
     {0x4000000008000ull, 0x800100000ull, 0x8000000000ffffffull, 0x80000000fffffffeull, 0x8000000000001ffeull, 0x800000000000007full},
     "Local"},
    {"15/35 20-35/15 1/2 * * *",
     SECOND_PARSER,
     {0x4000000008000ull, 0x800100000ull, 0xaaaaaaull, 0x80000000fffffffeull, 0x8000000000001ffeull, 0x800000000000007full},
     "Local"},
    {"15/35 20-35/15 10-12 * * *",
     SECOND_PARSER,
     {0x4000000008000ull, 0x800100000ull, 0x1c00ull, 0x80000000fffffffeull, 0x8000000000001ffeull, 0x800000000000007full},
     "Local"},
    {"15/35 20-35/15 1/2 */2 * *",
     SECOND_PARSER,
     {0x4000000008000ull, 0x800100000ull, 0xaaaaaaull, 0xaaaaaaaaull, 0x8000000000001ffeull, 0x800000000000007full},
     "Local"},
    {"15/35 20-35/15 * 9-20 * *",
     SECOND_PARSER,
     {0x4000000008000ull, 0x800100000ull, 0x8000000000ffffffull, 0x1ffe00ull, 0x8000000000001ffeull, 0x800000000000007full},
     "Local"},
    {"15/35 20-35/15 * 9-20 Jul *",
     SECOND_PARSER,
     {0x4000000008000ull, 0x800100000ull, 0x8000000000ffffffull, 0x1ffe00ull, 0x80ull, 0x800000000000007full},
     "Local"},
    {"0 0 0 9 Apr-Oct ?",
     SECOND_PARSER,
     {0x1ull, 0x1ull, 0x1ull, 0x200ull, 0x7f0ull, 0x800000000000007full},
     "Local"},
    {"0 0 0 */5 Apr,Aug,Oct Mon",
     SECOND_PARSER,
     {0x1ull, 0x1ull, 0x1ull, 0x84210842ull, 0x510ull, 0x2ull},
     "Local"},
    {"0 0 0 */5 Oct Mon",
     SECOND_PARSER,
     {0x1ull, 0x1ull, 0x1ull, 0x84210842ull, 0x400ull, 0x2ull},
     "Local"},
    {"0 0 0 * Feb Mon",
     SECOND_PARSER,
     {0x1ull, 0x1ull, 0x1ull, 0x80000000fffffffeull, 0x4ull, 0x2ull},
     "Local"},
    {"0 0 0 * Feb Mon/2",
     SECOND_PARSER,
     {0x1ull, 0x1ull, 0x1ull, 0x80000000fffffffeull, 0x4ull, 0x2aull},
     "Local"},
    {"0 * * * * *",
     SECOND_PARSER,
     {0x1ull, 0x8fffffffffffffffull, 0x8000000000ffffffull, 0x80000000fffffffeull, 0x8000000000001ffeull, 0x800000000000007full},
     "Local"},
    {"0 0 0 29 Feb ?",
     SECOND_PARSER,
     {0x1ull, 0x1ull, 0x1ull, 0x20000000ull, 0x4ull, 0x800000000000007full},
     "Local"},
    {"TZ=America/New_York 0 30 2 11 Mar ?",
     SECOND_PARSER,
     {0x1ull, 0x40000000ull, 0x4ull, 0x800ull, 0x8ull, 0x800000000000007full},
     "America/New_York"},
    {"TZ=America/New_York 0 0 * * * ?",
     SECOND_PARSER,
     {0x1ull, 0x1ull, 0x8000000000ffffffull, 0x80000000fffffffeull, 0x8000000000001ffeull, 0x800000000000007full},
     "America/New_York"},
    {"CRON_TZ=America/New_York 0 0 * * * ?",
     SECOND_PARSER,
     {0x1ull, 0x1ull, 0x8000000000ffffffull, 0x80000000fffffffeull, 0x8000000000001ffeull, 0x800000000000007full},
     "America/New_York"},
    {"TZ=America/New_York 0 0 1 * * ?",
     SECOND_PARSER,
     {0x1ull, 0x1ull, 0x2ull, 0x80000000fffffffeull, 0x8000000000001ffeull, 0x800000000000007full},
     "America/New_York"},
    {"TZ=America/New_York 0 0 2 * * ?",
     SECOND_PARSER,
     {0x1ull, 0x1ull, 0x4ull, 0x80000000fffffffeull, 0x8000000000001ffeull, 0x800000000000007full},
     "America/New_York"},
    {"TZ=America/New_York 0 30 2 04 Nov ?",
     SECOND_PARSER,
     {0x1ull, 0x40000000ull, 0x4ull, 0x10ull, 0x800ull, 0x800000000000007full},
     "America/New_York"},
    {"TZ=America/New_York 0 30 1 04 Nov ?",
     SECOND_PARSER,
     {0x1ull, 0x40000000ull, 0x2ull, 0x10ull, 0x800ull, 0x800000000000007full},
     "America/New_York"},
    {"TZ=America/New_York 0 0 3 * * ?",
     SECOND_PARSER,
     {0x1ull, 0x1ull, 0x8ull, 0x80000000fffffffeull, 0x8000000000001ffeull, 0x800000000000007full},
     "America/New_York"},
    {"0 0 * * * ?",
     SECOND_PARSER,
     {0x1ull, 0x1ull, 0x8000000000ffffffull, 0x80000000fffffffeull, 0x8000000000001ffeull, 0x800000000000007full},
     "Local"},
    {"0 0 1 * * ?",
     SECOND_PARSER,
     {0x1ull, 0x1ull, 0x2ull, 0x80000000fffffffeull, 0x8000000000001ffeull, 0x800000000000007full},
     "Local"},
    {"0 0 2 * * ?",
     SECOND_PARSER,
     {0x1ull, 0x1ull, 0x4ull, 0x80000000fffffffeull, 0x8000000000001ffeull, 0x800000000000007full},
     "Local"},
    {"0 0 3 * * ?",
     SECOND_PARSER,
     {0x1ull, 0x1ull, 0x8ull, 0x80000000fffffffeull, 0x8000000000001ffeull, 0x800000000000007full},
     "Local"},
    {"0 0 0 30 Feb ?",
     SECOND_PARSER,
     {0x1ull, 0x1ull, 0x1ull, 0x40000000ull, 0x4ull, 0x800000000000007full},
     "Local"},
    {"0 0 0 31 Apr ?",
     SECOND_PARSER,
     {0x1ull, 0x1ull, 0x1ull, 0x80000000ull, 0x10ull, 0x800000000000007full},
     "Local"},
    {"0 0 3 3 * ?",
     SECOND_PARSER,
     {0x1ull, 0x1ull, 0x8ull, 0x8ull, 0x8000000000001ffeull, 0x800000000000007full},
     "Local"},
    {"TZ=America/Sao_Paulo 0 0 9 10 * ?",
     SECOND_PARSER,
     {0x1ull, 0x1ull, 0x200ull, 0x400ull, 0x8000000000001ffeull, 0x800000000000007full},
     "America/Sao_Paulo"},
    {"TZ=America/Sao_Paulo 0 0 9 22 * ?",
     SECOND_PARSER,
     {0x1ull, 0x1ull, 0x200ull, 0x400000ull, 0x8000000000001ffeull, 0x800000000000007full},
     "America/Sao_Paulo"},
};

/* Whole answers, as robfig's parser words them (its tables match substrings): the error
 * cases of parser_test.go and spec_test.go, then one case per branch of its code. */
static const struct {
    const char *spec;
    unsigned options;
    enum wh_err rc;
    const char *message;
} messages[] = {
    {"* 5 j * * *", SECOND_PARSER, WH_ERR_INVALID,
     "failed to parse int from j: strconv.Atoi: parsing \"j\": invalid syntax"},
    {"@every Xm", SECOND_PARSER, WH_ERR_INVALID,
     "failed to parse duration @every Xm: time: invalid duration \"Xm\""},
    {"@unrecognized", SECOND_PARSER, WH_ERR_INVALID,
     "unrecognized descriptor: @unrecognized"},
    {"* * * *", SECOND_PARSER, WH_ERR_INVALID,
     "expected 5 to 6 fields, found 4: [* * * *]"},
    {"", SECOND_PARSER, WH_ERR_INVALID,
     "empty spec string"},
    {"5 j * * *", WH_CRON_STANDARD, WH_ERR_INVALID,
     "failed to parse int from j: strconv.Atoi: parsing \"j\": invalid syntax"},
    {"* * * *", WH_CRON_STANDARD, WH_ERR_INVALID,
     "expected exactly 5 fields, found 4: [* * * *]"},
    {"@every 1m", WH_CRON_MINUTE | WH_CRON_HOUR, WH_ERR_INVALID,
     "parser does not accept descriptors: @every 1m"},
    {"xyz", WH_CRON_STANDARD, WH_ERR_INVALID,
     "expected exactly 5 fields, found 1: [xyz]"},
    {"60 0 * * *", WH_CRON_STANDARD, WH_ERR_INVALID,
     "end of range (60) above maximum (59): 60"},
    {"0 60 * * *", WH_CRON_STANDARD, WH_ERR_INVALID,
     "end of range (60) above maximum (23): 60"},
    {"0 0 * * XYZ", WH_CRON_STANDARD, WH_ERR_INVALID,
     "failed to parse int from XYZ: strconv.Atoi: parsing \"XYZ\": invalid syntax"},
    {"TZ=America/New_York 15/0 * * * *", WH_CRON_STANDARD, WH_ERR_INVALID,
     "step of range should be a positive number: 15/0"},
    {"TZ=UTC", WH_CRON_STANDARD, WH_ERR_INTERNAL,
     "runtime error: slice bounds out of range [:-1]"},
    {"CRON_TZ=Asia/Tokyo", WH_CRON_STANDARD, WH_ERR_INTERNAL,
     "runtime error: slice bounds out of range [:-1]"},
    {"TZ=Nowhere/Land * * * * *", WH_CRON_STANDARD, WH_ERR_INVALID,
     "provided bad location Nowhere/Land: unknown time zone Nowhere/Land"},
    {"TZ=../x * * * * *", WH_CRON_STANDARD, WH_ERR_INVALID,
     "provided bad location ../x: time: invalid location name"},
    {"TZ=America * * * * *", WH_CRON_STANDARD, WH_ERR_INVALID,
     "provided bad location America: is a directory"},
    {"TZ=zone.tab * * * * *", WH_CRON_STANDARD, WH_ERR_INVALID,
     "provided bad location zone.tab: malformed time zone information"},
    {"5--5 * * * *", WH_CRON_STANDARD, WH_ERR_INVALID,
     "too many hyphens: 5--5"},
    {"jan-x * * * *", WH_CRON_STANDARD, WH_ERR_INVALID,
     "failed to parse int from jan: strconv.Atoi: parsing \"jan\": invalid syntax"},
    {"2-x * * * *", WH_CRON_STANDARD, WH_ERR_INVALID,
     "failed to parse int from x: strconv.Atoi: parsing \"x\": invalid syntax"},
    {"*/-12 * * * *", WH_CRON_STANDARD, WH_ERR_INVALID,
     "negative number (-12) not allowed: -12"},
    {"*//2 * * * *", WH_CRON_STANDARD, WH_ERR_INVALID,
     "too many slashes: *//2"},
    {"* * 0 * *", WH_CRON_STANDARD, WH_ERR_INVALID,
     "beginning of range (0) below minimum (1): 0"},
    {"* * * 13 *", WH_CRON_STANDARD, WH_ERR_INVALID,
     "end of range (13) above maximum (12): 13"},
    {"* * 5-3 * *", WH_CRON_STANDARD, WH_ERR_INVALID,
     "beginning of range (5) beyond end of range (3): 5-3"},
    {"*/0 * * * *", WH_CRON_STANDARD, WH_ERR_INVALID,
     "step of range should be a positive number: */0"},
    {"99999999999999999999x * * * *", WH_CRON_STANDARD, WH_ERR_INVALID,
     "failed to parse int from 99999999999999999999x: strconv.Atoi: parsing \"99999999999999999999x\": value out of range"},
    {"9223372036854775808 * * * *", WH_CRON_STANDARD, WH_ERR_INVALID,
     "failed to parse int from 9223372036854775808: strconv.Atoi: parsing \"9223372036854775808\": value out of range"},
    {"-0 * * * *", WH_CRON_STANDARD, WH_ERR_INVALID,
     "failed to parse int from : strconv.Atoi: parsing \"\": invalid syntax"},
    {"+5 * * * *", WH_CRON_STANDARD, WH_OK, NULL},
    {"@every 1d", WH_CRON_STANDARD, WH_ERR_INVALID,
     "failed to parse duration @every 1d: time: unknown unit \"d\" in duration \"1d\""},
    {"@every 1", WH_CRON_STANDARD, WH_ERR_INVALID,
     "failed to parse duration @every 1: time: missing unit in duration \"1\""},
    {"@every .s", WH_CRON_STANDARD, WH_ERR_INVALID,
     "failed to parse duration @every .s: time: invalid duration \".s\""},
    {"@every 1\xc3\xa9" "", WH_CRON_STANDARD, WH_ERR_INVALID,
     "failed to parse duration @every 1\xc3\xa9" ": time: unknown unit \"\\xc3\\xa9\" in duration \"1\\xc3\\xa9\""},
    {"@daily ", WH_CRON_STANDARD, WH_ERR_INVALID,
     "unrecognized descriptor: @daily "},
    {"a b c d e f", WH_CRON_STANDARD, WH_ERR_INVALID,
     "expected exactly 5 fields, found 6: [a b c d e f]"},
    {"* * * * * *", WH_CRON_STANDARD, WH_ERR_INVALID,
     "expected exactly 5 fields, found 6: [* * * * * *]"},
    {" TZ=UTC * * * * *", WH_CRON_STANDARD, WH_ERR_INVALID,
     "expected exactly 5 fields, found 6: [TZ=UTC * * * * *]"},
    {"TZ=UTC  @every 90s", WH_CRON_STANDARD, WH_OK, NULL},
};

/* parser_test.go TestRange: getRange with nameless bounds; an error matches robfig's
 * substring. */
TEST(cron_range)
{
    static const struct {
        const char *expr;
        uint64_t min, max, expected;
        const char *err;
    } ranges[] = {
        {"5", 0, 7, 1 << 5, ""},
        {"0", 0, 7, 1 << 0, ""},
        {"7", 0, 7, 1 << 7, ""},
        {"5-5", 0, 7, 1 << 5, ""},
        {"5-6", 0, 7, 1 << 5 | 1 << 6, ""},
        {"5-7", 0, 7, 1 << 5 | 1 << 6 | 1 << 7, ""},
        {"5-6/2", 0, 7, 1 << 5, ""},
        {"5-7/2", 0, 7, 1 << 5 | 1 << 7, ""},
        {"5-7/1", 0, 7, 1 << 5 | 1 << 6 | 1 << 7, ""},
        {"*", 1, 3, 1 << 1 | 1 << 2 | 1 << 3 | STAR, ""},
        {"*/2", 1, 3, 1 << 1 | 1 << 3, ""},
        {"5--5", 0, 0, 0, "too many hyphens"},
        {"jan-x", 0, 0, 0, "failed to parse int from"},
        {"2-x", 1, 5, 0, "failed to parse int from"},
        {"*/-12", 0, 0, 0, "negative number"},
        {"*//2", 0, 0, 0, "too many slashes"},
        {"1", 3, 5, 0, "below minimum"},
        {"6", 3, 5, 0, "above maximum"},
        {"5-3", 3, 5, 0, "beyond end of range"},
        {"*/0", 0, 0, 0, "should be a positive number"},
    };
    for (size_t i = 0; i < sizeof(ranges) / sizeof(ranges[0]); i++) {
        uint64_t bits = 0;
        char *msg = NULL;
        enum wh_err rc = wh_cron_range(ranges[i].expr, ranges[i].min, ranges[i].max, &bits, &msg);
        if (*ranges[i].err) {
            CHECK(rc == WH_ERR_INVALID && msg && strstr(msg, ranges[i].err));
        } else {
            CHECK_EQ_INT(rc, WH_OK);
        }
        if (bits != ranges[i].expected)
            fprintf(stderr, "range %s: %llx\n", ranges[i].expr, (unsigned long long)bits);
        CHECK(bits == ranges[i].expected);
        free(msg);
    }
}

/* TestField */
TEST(cron_field)
{
    static const struct {
        const char *expr;
        uint64_t min, max, expected;
    } fields[] = {
        {"5", 1, 7, 1 << 5},
        {"5,6", 1, 7, 1 << 5 | 1 << 6},
        {"5,6,7", 1, 7, 1 << 5 | 1 << 6 | 1 << 7},
        {"1,5-7/2,3", 1, 7, 1 << 1 | 1 << 5 | 1 << 7 | 1 << 3},
    };
    for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
        uint64_t bits = 0;
        char *msg = NULL;
        CHECK_EQ_INT(wh_cron_field(fields[i].expr, fields[i].min, fields[i].max, &bits, &msg),
                     WH_OK);
        CHECK(bits == fields[i].expected);
        free(msg);
    }
}

/* TestAll: the star of each field's bounds, through the parser (all() is what "*" gives). */
TEST(cron_all)
{
    struct wh_cron_schedule s;
    char *msg = NULL;
    CHECK_EQ_INT(wh_cron_parse("* * * * * *", 11, SECOND_PARSER, &s, &msg), WH_OK);
    CHECK(s.second == ALL_SECONDS);
    CHECK(s.minute == ALL_SECONDS); /* 0-59: 60 ones */
    CHECK(s.hour == ALL_HOURS);     /* 0-23 */
    CHECK(s.dom == ALL_DOM);        /* 1-31 */
    CHECK(s.month == ALL_MONTHS);   /* 1-12 */
    CHECK(s.dow == ALL_DOW);        /* 0-6 */
    wh_cron_schedule_fini(&s);
}

/* TestBits */
TEST(cron_bits)
{
    CHECK(wh_cron_bits(0, 0, 1) == 0x1);
    CHECK(wh_cron_bits(1, 1, 1) == 0x2);
    CHECK(wh_cron_bits(1, 5, 2) == 0x2a);
    CHECK(wh_cron_bits(1, 4, 2) == 0xa);
    /* Go's shifts past 63 give 0: a whole word, not undefined behaviour */
    CHECK(wh_cron_bits(0, 63, 1) == ~0ull);
}

static void check_schedule(const char *spec, unsigned options, const uint64_t bits[6],
                           const char *location)
{
    struct wh_cron_schedule s;
    char *msg = NULL;
    enum wh_err rc = wh_cron_parse(spec, strlen(spec), options, &s, &msg);
    if (rc) {
        fprintf(stderr, "%s: %s\n", spec, msg);
        CHECK_EQ_INT(rc, WH_OK);
        free(msg);
        return;
    }
    const uint64_t got[6] = {s.second, s.minute, s.hour, s.dom, s.month, s.dow};
    for (int i = 0; i < 6; i++) {
        if (got[i] != bits[i])
            fprintf(stderr, "%s: field %d: %llx, want %llx\n", spec, i, (unsigned long long)got[i],
                    (unsigned long long)bits[i]);
        CHECK(got[i] == bits[i]);
    }
    CHECK(!s.constant_delay);
    CHECK_EQ_STR(s.location, location);
    wh_cron_schedule_fini(&s);
}

static void check_every(const char *spec, unsigned options, int64_t delay_ns)
{
    struct wh_cron_schedule s;
    char *msg = NULL;
    CHECK_EQ_INT(wh_cron_parse(spec, strlen(spec), options, &s, &msg), WH_OK);
    CHECK(s.constant_delay);
    CHECK_EQ_INT(s.delay_ns, delay_ns);
    wh_cron_schedule_fini(&s);
    free(msg);
}

/* TestParseScheduleErrors and TestStandardSpecSchedule's errors, TestErrors, TestSlash0NoHang,
 * TestNoDescriptorParser: every error as a whole message (robfig asks for substrings, which
 * these contain), and the branches robfig's tables do not reach. */
TEST(cron_messages)
{
    for (size_t i = 0; i < sizeof(messages) / sizeof(messages[0]); i++) {
        struct wh_cron_schedule s;
        char *msg = NULL;
        enum wh_err rc = wh_cron_parse(messages[i].spec, strlen(messages[i].spec),
                                       messages[i].options, &s, &msg);
        CHECK_EQ_INT(rc, messages[i].rc);
        if (messages[i].message)
            CHECK_EQ_STR(msg, messages[i].message);
        else
            CHECK(msg == NULL);
        if (rc == WH_OK)
            wh_cron_schedule_fini(&s);
        free(msg);
    }
}

/* TestParseSchedule */
TEST(cron_parse_schedule)
{
    const uint64_t every5min[6] = {1 << 0, 1 << 5, ALL_HOURS, ALL_DOM, ALL_MONTHS, ALL_DOW};
    const uint64_t midnight[6] = {1, 1, 1, ALL_DOM, ALL_MONTHS, ALL_DOW};
    const uint64_t annual[6] = {1, 1, 1, 1 << 1, 1 << 1, ALL_DOW};
    check_schedule("0 5 * * * *", SECOND_PARSER, every5min, "Local");
    check_schedule("5 * * * *", WH_CRON_STANDARD, every5min, "Local");
    check_schedule("CRON_TZ=UTC  0 5 * * * *", SECOND_PARSER, every5min, "UTC");
    check_schedule("CRON_TZ=UTC  5 * * * *", WH_CRON_STANDARD, every5min, "UTC");
    check_schedule("CRON_TZ=Asia/Tokyo 0 5 * * * *", SECOND_PARSER, every5min, "Asia/Tokyo");
    check_every("@every 5m", SECOND_PARSER, 5 * 60 * 1000000000ll);
    check_schedule("@midnight", SECOND_PARSER, midnight, "Local");
    check_schedule("TZ=UTC  @midnight", SECOND_PARSER, midnight, "UTC");
    check_schedule("TZ=Asia/Tokyo @midnight", SECOND_PARSER, midnight, "Asia/Tokyo");
    check_schedule("@yearly", SECOND_PARSER, annual, "Local");
    check_schedule("@annually", SECOND_PARSER, annual, "Local");
    const uint64_t minute5[6] = {ALL_SECONDS, 1 << 5, ALL_HOURS, ALL_DOM, ALL_MONTHS, ALL_DOW};
    check_schedule("* 5 * * * *", SECOND_PARSER, minute5, "Local");
}

/* TestOptionalSecondSchedule */
TEST(cron_optional_second)
{
    const unsigned opts = WH_CRON_SECOND_OPTIONAL | WH_CRON_MINUTE | WH_CRON_HOUR | WH_CRON_DOM |
                          WH_CRON_MONTH | WH_CRON_DOW | WH_CRON_DESCRIPTOR;
    const uint64_t every5min[6] = {1 << 0, 1 << 5, ALL_HOURS, ALL_DOM, ALL_MONTHS, ALL_DOW};
    const uint64_t every5min5s[6] = {1 << 5, 1 << 5, ALL_HOURS, ALL_DOM, ALL_MONTHS, ALL_DOW};
    check_schedule("0 5 * * * *", opts, every5min, "Local");
    check_schedule("5 5 * * * *", opts, every5min5s, "Local");
    check_schedule("5 * * * *", opts, every5min, "Local");
}

/* TestNormalizeFields and TestNormalizeFields_Errors */
TEST(cron_normalize_fields)
{
    static const struct {
        const char *input[6];
        size_t n;
        unsigned options;
        const char *expected[6];
    } tests[] = {
        /* AllFields_NoOptional */
        {{"0", "5", "*", "*", "*", "*"},
         6,
         WH_CRON_SECOND | WH_CRON_MINUTE | WH_CRON_HOUR | WH_CRON_DOM | WH_CRON_MONTH |
             WH_CRON_DOW | WH_CRON_DESCRIPTOR,
         {"0", "5", "*", "*", "*", "*"}},
        /* AllFields_SecondOptional_Provided */
        {{"0", "5", "*", "*", "*", "*"},
         6,
         WH_CRON_SECOND_OPTIONAL | WH_CRON_MINUTE | WH_CRON_HOUR | WH_CRON_DOM | WH_CRON_MONTH |
             WH_CRON_DOW | WH_CRON_DESCRIPTOR,
         {"0", "5", "*", "*", "*", "*"}},
        /* AllFields_SecondOptional_NotProvided */
        {{"5", "*", "*", "*", "*"},
         5,
         WH_CRON_SECOND_OPTIONAL | WH_CRON_MINUTE | WH_CRON_HOUR | WH_CRON_DOM | WH_CRON_MONTH |
             WH_CRON_DOW | WH_CRON_DESCRIPTOR,
         {"0", "5", "*", "*", "*", "*"}},
        /* SubsetFields_NoOptional */
        {{"5", "15", "*"},
         3,
         WH_CRON_HOUR | WH_CRON_DOM | WH_CRON_MONTH,
         {"0", "0", "5", "15", "*", "*"}},
        /* SubsetFields_DowOptional_Provided */
        {{"5", "15", "*", "4"},
         4,
         WH_CRON_HOUR | WH_CRON_DOM | WH_CRON_MONTH | WH_CRON_DOW_OPTIONAL,
         {"0", "0", "5", "15", "*", "4"}},
        /* SubsetFields_DowOptional_NotProvided */
        {{"5", "15", "*"},
         3,
         WH_CRON_HOUR | WH_CRON_DOM | WH_CRON_MONTH | WH_CRON_DOW_OPTIONAL,
         {"0", "0", "5", "15", "*", "*"}},
        /* SubsetFields_SecondOptional_NotProvided */
        {{"5", "15", "*"},
         3,
         WH_CRON_SECOND_OPTIONAL | WH_CRON_HOUR | WH_CRON_DOM | WH_CRON_MONTH,
         {"0", "0", "5", "15", "*", "*"}},
    };
    for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
        const char *out[6] = {0};
        char *msg = NULL;
        CHECK_EQ_INT(wh_cron_normalize_fields(tests[i].input, tests[i].n, tests[i].options, out,
                                              &msg),
                     WH_OK);
        for (int k = 0; k < 6; k++)
            CHECK_EQ_STR(out[k], tests[i].expected[k]);
        free(msg);
    }
    static const struct {
        const char *input[6];
        size_t n;
        unsigned options;
        const char *message;
    } errors[] = {
        /* TwoOptionals */
        {{"0", "5", "*", "*", "*", "*"},
         6,
         WH_CRON_SECOND_OPTIONAL | WH_CRON_MINUTE | WH_CRON_HOUR | WH_CRON_DOM | WH_CRON_MONTH |
             WH_CRON_DOW_OPTIONAL,
         "multiple optionals may not be configured"},
        /* TooManyFields */
        {{"0", "5", "*", "*"},
         4,
         WH_CRON_SECOND_OPTIONAL | WH_CRON_MINUTE | WH_CRON_HOUR,
         "expected 2 to 3 fields, found 4: [0 5 * *]"},
        /* NoFields */
        {{NULL}, 0, WH_CRON_SECOND_OPTIONAL | WH_CRON_MINUTE | WH_CRON_HOUR,
         "expected 2 to 3 fields, found 0: []"},
        /* TooFewFields */
        {{"*"}, 1, WH_CRON_SECOND_OPTIONAL | WH_CRON_MINUTE | WH_CRON_HOUR,
         "expected 2 to 3 fields, found 1: [*]"},
    };
    for (size_t i = 0; i < sizeof(errors) / sizeof(errors[0]); i++) {
        const char *out[6] = {0};
        char *msg = NULL;
        CHECK_EQ_INT(wh_cron_normalize_fields(errors[i].input, errors[i].n, errors[i].options,
                                              out, &msg),
                     WH_ERR_INVALID);
        CHECK_EQ_STR(msg, errors[i].message);
        free(msg);
    }
}

/* TestStandardSpecSchedule's schedules */
TEST(cron_standard_spec)
{
    const uint64_t at5[6] = {1, 1 << 5, ALL_HOURS, ALL_DOM, ALL_MONTHS, ALL_DOW};
    check_schedule("5 * * * *", WH_CRON_STANDARD, at5, "Local");
    check_every("@every 5m", WH_CRON_STANDARD, 5 * 60 * 1000000000ll);
}

/* spec_test.go: every spec its activation tables use parses to robfig's schedule (the
 * activation times themselves, Schedule.Next, are not part of the parser). */
TEST(cron_spec_test_specs)
{
    for (size_t i = 0; i < sizeof(spec_test_specs) / sizeof(spec_test_specs[0]); i++)
        check_schedule(spec_test_specs[i].spec, spec_test_specs[i].options,
                       spec_test_specs[i].bits, spec_test_specs[i].location);
}

/* Every(): at least a second, whole seconds; a negative duration is a second too. */
TEST(cron_every_rounding)
{
    check_every("@every 0.5s", WH_CRON_STANDARD, 1000000000ll);
    check_every("@every 1.7s", WH_CRON_STANDARD, 1000000000ll);
    check_every("@every -3s", WH_CRON_STANDARD, 1000000000ll);
    check_every("@every 1h30m", WH_CRON_STANDARD, 5400ll * 1000000000ll);
    check_every("TZ=UTC  @every 90s", WH_CRON_STANDARD, 90ll * 1000000000ll);
}

/* strings.Fields and strings.TrimSpace split on Unicode white space; the zone ends at the first
 * ASCII space only. */
TEST(cron_unicode_space)
{
    const uint64_t at5[6] = {1, 1 << 5, ALL_HOURS, ALL_DOM, ALL_MONTHS, ALL_DOW};
    check_schedule("5\xc2\xa0*\t*\xe3\x80\x80* \xe2\x80\x80*", WH_CRON_STANDARD, at5, "Local");
    check_schedule("TZ=UTC \xc2\x85 5 * * * *\xe2\x80\xa8", WH_CRON_STANDARD, at5, "UTC");
    struct wh_cron_schedule s;
    char *msg = NULL;
    /* U+200B is not white space: one field */
    CHECK_EQ_INT(wh_cron_parse("5\xe2\x80\x8b* * * *", 11, WH_CRON_STANDARD, &s, &msg),
                 WH_ERR_INVALID);
    CHECK_EQ_STR(msg, "expected exactly 5 fields, found 4: [5\xe2\x80\x8b* * * *]");
    free(msg);
    /* a tab does not end the zone's name */
    CHECK_EQ_INT(wh_cron_parse("TZ=UTC\t* * * * * *", 18, WH_CRON_STANDARD, &s, &msg),
                 WH_ERR_INVALID);
    CHECK_EQ_STR(msg, "provided bad location UTC\t*: unknown time zone UTC\t*");
    free(msg);
}

/* time.ParseDuration's own table (time_test.go's parseDurationTests and parseDurationErrorTests
 * that @every can meet). */
TEST(gotime_parse_duration)
{
    static const struct {
        const char *in;
        int64_t want;
    } ok[] = {
        {"0", 0},
        {"5s", 5000000000ll},
        {"30s", 30000000000ll},
        {"1478s", 1478000000000ll},
        {"-5s", -5000000000ll},
        {"+5s", 5000000000ll},
        {"-0", 0},
        {"+0", 0},
        {"5.0s", 5000000000ll},
        {"5.6s", 5600000000ll},
        {"5.s", 5000000000ll},
        {".5s", 500000000ll},
        {"1.0s", 1000000000ll},
        {"1.00s", 1000000000ll},
        {"1.004s", 1004000000ll},
        {"1.0040s", 1004000000ll},
        {"100.00100s", 100001000000ll},
        {"10ns", 10},
        {"11us", 11000},
        {"12\xc2\xb5s", 12000},
        {"12\xce\xbcs", 12000},
        {"13ms", 13000000},
        {"14s", 14000000000ll},
        {"15m", 900000000000ll},
        {"16h", 57600000000000ll},
        {"3h30m", 12600000000000ll},
        {"10.5s4m", 250500000000ll},
        {"-2m3.4s", -123400000000ll},
        {"1h2m3s4ms5us6ns", 3723004005006ll},
        {"39h9m14.425s", 140954425000000ll},
        {"52763797000ns", 52763797000ll},
        {"0.3333333333333333333h", 1200000000000ll},
        {"9007199254740993ns", 9007199254740993ll},
        {"9223372036854775807ns", INT64_MAX},
        {"9223372036854775.807us", INT64_MAX},
        {"9223372036s854ms775us807ns", INT64_MAX},
        {"-9223372036854775808ns", INT64_MIN},
        {"-9223372036854775.808us", INT64_MIN},
        {"-9223372036s854ms775us808ns", INT64_MIN},
        {"-2562047h47m16.854775808s", INT64_MIN},
        {"0.100000000000000000000h", 360000000000ll},
        {"0.830103483285477580700h", 2988372539827ll},
    };
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        int64_t ns = 1;
        char *msg = NULL;
        CHECK_EQ_INT(wh_gotime_parse_duration(ok[i].in, strlen(ok[i].in), &ns, &msg), WH_OK);
        if (ns != ok[i].want)
            fprintf(stderr, "%s: %lld\n", ok[i].in, (long long)ns);
        CHECK(ns == ok[i].want);
        free(msg);
    }
    static const struct {
        const char *in, *message;
    } bad[] = {
        {"", "time: invalid duration \"\""},
        {"3", "time: missing unit in duration \"3\""},
        {"-", "time: invalid duration \"-\""},
        {"s", "time: invalid duration \"s\""},
        {".", "time: invalid duration \".\""},
        {"-.", "time: invalid duration \"-.\""},
        {".s", "time: invalid duration \".s\""},
        {"+.s", "time: invalid duration \"+.s\""},
        {"1d", "time: unknown unit \"d\" in duration \"1d\""},
        {"\x85\x85", "time: invalid duration \"\\x85\\x85\""},
        {"\xff" "ff", "time: invalid duration \"\\xffff\""},
        {"hello \xff" "ff world", "time: invalid duration \"hello \\xffff world\""},
        {"\xef\xbf\xbd", "time: invalid duration \"\\xef\\xbf\\xbd\""},
        {"\xef\xbf\xbd hello \xef\xbf\xbd world",
         "time: invalid duration \"\\xef\\xbf\\xbd hello \\xef\\xbf\\xbd world\""},
        {"9223372036854775810ns", "time: invalid duration \"9223372036854775810ns\""},
        {"9223372036854775808ns", "time: invalid duration \"9223372036854775808ns\""},
        {"-9223372036854775809ns", "time: invalid duration \"-9223372036854775809ns\""},
        {"9223372036854776us", "time: invalid duration \"9223372036854776us\""},
        {"3000000h", "time: invalid duration \"3000000h\""},
        {"9223372036854775.808us", "time: invalid duration \"9223372036854775.808us\""},
        {"9223372036854ms775us808ns", "time: invalid duration \"9223372036854ms775us808ns\""},
        {"1\"s", "time: unknown unit \"\\\"s\" in duration \"1\\\"s\""},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        int64_t ns = 0;
        char *msg = NULL;
        CHECK_EQ_INT(wh_gotime_parse_duration(bad[i].in, strlen(bad[i].in), &ns, &msg),
                     WH_ERR_INVALID);
        CHECK_EQ_STR(msg, bad[i].message);
        free(msg);
    }
}

/* time.LoadLocation against the system's zone database. */
TEST(gozone_load)
{
    static const struct {
        const char *name, *message; /* NULL: loads */
    } cases[] = {
        {"", NULL},
        {"UTC", NULL},
        {"Local", NULL},
        {"Asia/Shanghai", NULL},
        {"America/New_York", NULL},
        {"Etc/GMT+5", NULL},
        {"US/Eastern", NULL},
        {"local", "unknown time zone local"},
        {"utc", "unknown time zone utc"},
        {"Nowhere/Land", "unknown time zone Nowhere/Land"},
        {"../etc/passwd", "time: invalid location name"},
        {"a..b", "time: invalid location name"},
        {"/etc/localtime", "time: invalid location name"},
        {"\\x", "time: invalid location name"},
        {"America", "is a directory"},
        {"Asia/Shanghai/x", "not a directory"},
        {"zone.tab", "malformed time zone information"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *msg = NULL;
        enum wh_err rc = wh_gozone_load(cases[i].name, strlen(cases[i].name), &msg);
        if (cases[i].message) {
            CHECK_EQ_INT(rc, WH_ERR_INVALID);
            CHECK_EQ_STR(msg, cases[i].message);
        } else {
            if (rc)
                fprintf(stderr, "%s: %s\n", cases[i].name, msg);
            CHECK_EQ_INT(rc, WH_OK);
        }
        free(msg);
    }
    char *msg = NULL;
    char long_name[300];
    memset(long_name, 'a', sizeof(long_name));
    CHECK_EQ_INT(wh_gozone_load(long_name, sizeof(long_name), &msg), WH_ERR_INVALID);
    CHECK_EQ_STR(msg, "file name too long");
    free(msg);
    CHECK_EQ_INT(wh_gozone_load("UTC\0x", 5, &msg), WH_ERR_INVALID);
    CHECK_EQ_STR(msg, "invalid argument");
    free(msg);
}
