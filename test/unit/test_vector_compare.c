/* Tests of test/support/vector_compare: Kubernetes quantity canonicalisation, the
 * normalisation rules, and that the comparison fails (with a readable diff) when it should. */
#include "test/unit/test.h"

#include <stdlib.h>
#include <string.h>

#include "test/support/vector_compare.h"
#include "util/buf.h"

TEST(vec_quantity_canonical)
{
    /* expectations from apimachinery's resource.Quantity: ParseQuantity then String() */
    static const struct {
        const char *in, *want;
    } cases[] = {
        {"1000m", "1"},
        {"0.5Gi", "512Mi"},
        {"1073741824", "1073741824"},
        {"10Gi", "10Gi"},
        {"1500m", "1500m"},
        {"1.5", "1500m"},
        {"1000", "1k"},
        {"1024", "1024"},
        {"1Ki", "1Ki"},
        {"2048Ki", "2Mi"},
        {"1536Ki", "1536Ki"},
        {"1.5Ki", "1536"},
        {"0.5Ki", "512"},
        {"1000Mi", "1000Mi"},
        {"1e3", "1e3"},
        {"1E3", "1e3"},
        {"12e6", "12e6"},
        {"1.5e3", "1500"},
        {"100M", "100M"},
        {"0.1", "100m"},
        {"0.0001", "100u"},
        {"1n", "1n"},
        {"0.1n", "1n"},
        {"0.0000000015", "2n"},
        {"-1.5Gi", "-1536Mi"},
        {"0", "0"},
        {"0Mi", "0"},
        {"+5", "5"},
        {"-0.0", "0"},
        {"2Ti", "2Ti"},
        {"1024Ei", "9223372036854775807"},
        {"1M", "1M"},
        {"1200m", "1200m"},
        {"12000m", "12"},
        {"1.G", "1G"},
        {".5", "500m"},
        {"0.5e3", "500"},
        {"1e-3", "1e-3"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *got = wh_vec_quantity_canonical(cases[i].in);
        if (!got || strcmp(got, cases[i].want) != 0)
            fprintf(stderr, "quantity %s: want %s, got %s\n", cases[i].in, cases[i].want,
                    got ? got : "(null)");
        CHECK_EQ_STR(got, cases[i].want);
        free(got);
    }
    static const char *const bad[] = {"",   "abc", "cpu*50%",           "1x",  "1Ki2", "--1",
                                      "e3", "1e",  "max(cpu*10%, 50m)", "1 Gi"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char *got = wh_vec_quantity_canonical(bad[i]);
        CHECK(got == NULL);
        free(got);
    }
}

TEST(vec_normalise_rules)
{
    json_t *in = wh_test_json(
        "{\"a\":null,\"b\":{},\"c\":[],\"d\":0,\"e\":false,\"f\":\"\",\"g\":{\"h\":null,\"i\":[]},"
        "\"keep\":{\"t\":\"2025-03-01T23:59:59.999-01:00\",\"n\":1,\"list\":[0,null,{},\"\"]},"
        "\"resources\":{\"requests\":{\"cpu\":\"1000m\",\"memory\":\"0.5Gi\",\"n\":2},"
        "\"limits\":{\"x\":\"cpu*50%\"}},\"storage\":\"1024Mi\",\"requests\":\"1000m\"}");
    json_t *want =
        wh_test_json("{\"keep\":{\"t\":\"2025-03-02T00:59:59Z\",\"n\":1,\"list\":[0,null,{},\"\"]},"
                     "\"resources\":{\"requests\":{\"cpu\":\"1\",\"memory\":\"512Mi\",\"n\":\"2\"},"
                     "\"limits\":{\"x\":\"cpu*50%\"}},\"storage\":\"1Gi\",\"requests\":\"1000m\"}");
    json_t *got = wh_vec_normalise(in);
    CHECK_EQ_JSON(got, want);
    json_decref(got);
    json_decref(want);
    json_decref(in);
}

static bool eq(const char *e, const char *a, const char *in, char **diff)
{
    json_t *je = wh_test_json(e), *ja = wh_test_json(a), *ji = in ? wh_test_json(in) : NULL;
    struct wh_buf b;
    wh_buf_init(&b, 1 << 16);
    bool r = wh_vec_conversion_equal(je, ja, ji, &b);
    *diff = wh_buf_take(&b, NULL);
    json_decref(je);
    json_decref(ja);
    json_decref(ji);
    return r;
}

TEST(vec_compare_matches)
{
    char *d;
    /* zero values, nulls, empties and spelling do not matter */
    CHECK(eq("{\"spec\":{\"replicas\":0,\"x\":null,\"t\":\"2025-03-01T08:00:00Z\"}}",
             "{\"spec\":{\"t\":\"2025-03-01T16:00:00.7+08:00\",\"y\":{}}}", NULL, &d));
    CHECK_EQ_STR(d, "");
    free(d);
    /* an extra member that the input had, with the same value, is tolerated at any depth */
    CHECK(eq("{\"spec\":{\"a\":1}}", "{\"spec\":{\"a\":1,\"fooBar\":\"x\"},\"Replicas\":9}",
             "{\"spec\":{\"fooBar\":\"x\"},\"Replicas\":9}", &d));
    free(d);
    CHECK(
        eq("{\"l\":[{\"a\":1}]}", "{\"l\":[{\"a\":1,\"u\":true}]}", "{\"l\":[{\"u\":true}]}", &d));
    free(d);
}

TEST(vec_compare_fails)
{
    char *d;
    /* a different value */
    CHECK(!eq("{\"spec\":{\"replicas\":3}}", "{\"spec\":{\"replicas\":4}}", NULL, &d));
    CHECK_EQ_STR(d, "/spec/replicas: expected 3, actual 4\n");
    free(d);
    /* a missing member */
    CHECK(!eq("{\"a\":{\"b\":\"x\"}}", "{\"a\":{}}", NULL, &d));
    CHECK_EQ_STR(d, "/a: expected {\"b\":\"x\"}, actual (absent)\n");
    free(d);
    /* an extra member the input did not have */
    CHECK(!eq("{\"a\":1}", "{\"a\":1,\"moved\":2}", "{\"a\":1}", &d));
    CHECK_EQ_STR(d, "/moved: expected (absent), actual 2\n");
    free(d);
    /* a member left behind with a different value than the input's (README rule 5) */
    CHECK(!eq("{\"a\":1}", "{\"a\":1,\"old\":\"y\"}", "{\"old\":\"x\"}", &d));
    free(d);
    /* array length and order matter; pointer escaping in the diff */
    CHECK(!eq("{\"l\":[1,2]}", "{\"l\":[2,1]}", NULL, &d));
    CHECK_EQ_STR(d, "/l/0: expected 1, actual 2\n/l/1: expected 2, actual 1\n");
    free(d);
    CHECK(!eq("{\"l\":[1,2]}", "{\"l\":[1]}", NULL, &d));
    free(d);
    CHECK(!eq("{\"m\":{\"a/b~c\":\"x\"}}", "{\"m\":{\"a/b~c\":\"y\"}}", NULL, &d));
    CHECK_EQ_STR(d, "/m/a~1b~0c: expected \"x\", actual \"y\"\n");
    free(d);
    /* types matter: a number is not its string */
    CHECK(!eq("{\"p\":1}", "{\"p\":\"1\"}", NULL, &d));
    free(d);
    /* a canonical quantity is not another quantity */
    CHECK(!eq("{\"requests\":{\"cpu\":\"1\"}}", "{\"requests\":{\"cpu\":\"1001m\"}}", NULL, &d));
    free(d);
    /* at most ten differences are listed */
    CHECK(!eq("{\"a\":1,\"b\":1,\"c\":1,\"d\":1,\"e\":1,\"f\":1,\"g\":1,\"h\":1,\"i\":1,\"j\":1,"
              "\"k\":1,\"l\":1}",
              "{\"a\":2,\"b\":2,\"c\":2,\"d\":2,\"e\":2,\"f\":2,\"g\":2,\"h\":2,\"i\":2,\"j\":2,"
              "\"k\":2,\"l\":2}",
              NULL, &d));
    CHECK(strstr(d, "... and 2 more\n") != NULL);
    free(d);
}
