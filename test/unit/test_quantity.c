/* k8s/quantity: Go's parse, canonical form, cached text and RoundUp. */
#include <stdio.h>
#include <string.h>

#include "k8s/quantity.h"
#include "test/unit/test.h"

static void check_format(const char *in, const char *want, const char *want_rounded)
{
    struct wh_quantity q;
    struct wh_errbuf eb = {{0}};
    char out[WH_QUANTITY_MAX_DIGITS + 8];
    CHECK_EQ_INT(wh_quantity_parse(in, &q, &eb), WH_OK);
    wh_quantity_format(&q, out, sizeof(out));
    CHECK_EQ_STR(out, want);
    (void)wh_quantity_round_up(&q, -3);
    wh_quantity_format(&q, out, sizeof(out));
    CHECK_EQ_STR(out, want_rounded);
}

TEST(quantity_canonical_form)
{
    check_format("0", "0", "0");
    check_format("-0", "0", "0");
    check_format("0.5", "500m", "500m");
    check_format("1000m", "1", "1");
    check_format("100m", "100m", "100m");
    check_format("1.5", "1500m", "1500m");
    check_format("2000", "2k", "2k");
    check_format("1024Mi", "1Gi", "1Gi");
    check_format("1.5Gi", "1536Mi", "1536Mi");
    check_format("0.5Ki", "512", "512");
    check_format("0.6Gi", "644245094400m", "644245094400m");
    check_format("1Ei", "1Ei", "1Ei");
    check_format("0.0000000001", "1n", "1m");
    check_format("12345678901234567890", "12345678901234567890", "12345678901234567890");
    check_format("-100m", "-100m", "-100m");
}

TEST(quantity_cached_text)
{
    /* canonical input is printed as given, even in forms the canonicaliser would not choose */
    check_format("+1", "+1", "+1");
    check_format("1e3", "1e3", "1e3");
    check_format("1E3", "1E3", "1E3");
    check_format("1Gi", "1Gi", "1Gi");
    /* finer than milli: RoundUp drops the cached text and rounds away from zero */
    check_format("100u", "100u", "1m");
    check_format("1500u", "1500u", "2m");
}

TEST(quantity_errors)
{
    static const char *const bad[] = {"", "abc", "1.2.3", "1Zi", "1e", "--1"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct wh_quantity q;
        struct wh_errbuf eb = {{0}};
        CHECK(wh_quantity_parse(bad[i], &q, &eb) != WH_OK);
        CHECK(strstr(eb.msg, "quantit") != NULL || strstr(eb.msg, "numeric") != NULL);
    }
}

TEST(quantity_compare_and_values)
{
    struct wh_quantity a, b;
    struct wh_errbuf eb;
    CHECK_EQ_INT(wh_quantity_parse("1", &a, &eb), WH_OK);
    CHECK_EQ_INT(wh_quantity_parse("1000m", &b, &eb), WH_OK);
    CHECK_EQ_INT(wh_quantity_cmp(&a, &b), 0);
    CHECK_EQ_INT(wh_quantity_parse("1500m", &b, &eb), WH_OK);
    CHECK_EQ_INT(wh_quantity_cmp(&a, &b), -1);
    CHECK_EQ_INT(wh_quantity_scaled_value(&b, -3), 1500);
    CHECK_EQ_INT(wh_quantity_scaled_value(&b, 0), 2);
    CHECK_EQ_INT(wh_quantity_parse("1Ki", &b, &eb), WH_OK);
    CHECK_EQ_INT(wh_quantity_scaled_value(&b, 0), 1024);
    CHECK_EQ_INT(wh_quantity_sign(&b), 1);
}
