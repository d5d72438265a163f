/* Label selector compilation and matching (k8s/selector.h; spec sidecarset.md 2.5). */
#include <stdlib.h>
#include <string.h>

#include "k8s/selector.h"
#include "test/unit/test.h"

static bool sel_match(const char *sel, const char *labels)
{
    json_t *s = sel ? wh_test_json(sel) : NULL;
    json_t *l = labels ? wh_test_json(labels) : NULL;
    struct wh_selector *c = wh_selector_new(s);
    bool m = wh_selector_matches(c, l);
    wh_selector_free(c);
    json_decref(s);
    json_decref(l);
    return m;
}

TEST(selector_nil_and_empty)
{
    struct wh_selector *s = wh_selector_new(NULL);
    CHECK_EQ_INT(wh_selector_state(s), WH_SELECTOR_NOTHING);
    CHECK(!wh_selector_matches(s, NULL));
    wh_selector_free(s);
    json_t *null = json_null();
    s = wh_selector_new(null);
    CHECK_EQ_INT(wh_selector_state(s), WH_SELECTOR_NOTHING);
    wh_selector_free(s);
    json_decref(null);
    json_t *empty = wh_test_json("{}");
    s = wh_selector_new(empty);
    CHECK_EQ_INT(wh_selector_state(s), WH_SELECTOR_EVERYTHING);
    CHECK(wh_selector_matches(s, NULL));
    wh_selector_free(s);
    json_decref(empty);
    json_t *lists = wh_test_json("{\"matchLabels\":{},\"matchExpressions\":[]}");
    s = wh_selector_new(lists);
    CHECK_EQ_INT(wh_selector_state(s), WH_SELECTOR_EVERYTHING);
    wh_selector_free(s);
    json_decref(lists);
}

TEST(selector_match_labels)
{
    CHECK(sel_match("{\"matchLabels\":{\"app\":\"web\"}}", "{\"app\":\"web\",\"x\":\"y\"}"));
    CHECK(!sel_match("{\"matchLabels\":{\"app\":\"web\"}}", "{\"app\":\"db\"}"));
    CHECK(!sel_match("{\"matchLabels\":{\"app\":\"web\"}}", "{}"));
    CHECK(!sel_match("{\"matchLabels\":{\"app\":\"web\"}}", NULL));
    CHECK(!sel_match("{\"matchLabels\":{\"app\":\"web\",\"env\":\"prod\"}}", "{\"app\":\"web\"}"));
    CHECK(sel_match("{\"matchLabels\":{\"app\":\"\"}}", "{\"app\":\"\"}"));
}

/* Few labels are searched key by key, many through the hash: the same answers either way, and a
 * key is never found by a prefix of it. */
TEST(selector_few_and_many_labels)
{
    const char *sel = "{\"matchLabels\":{\"app\":\"web\"},\"matchExpressions\":[{\"key\":"
                      "\"tier\",\"operator\":\"DoesNotExist\"}]}";
    const char *few = "{\"app2\":\"web\",\"ap\":\"web\",\"app\":\"web\",\"tiers\":\"x\"}";
    const char *many =
        "{\"l1\":\"1\",\"l2\":\"2\",\"l3\":\"3\",\"l4\":\"4\",\"l5\":\"5\","
        "\"l6\":\"6\",\"l7\":\"7\",\"app2\":\"web\",\"app\":\"web\",\"tiers\":\"x\"}";
    CHECK(sel_match(sel, few));
    CHECK(sel_match(sel, many));
    CHECK(!sel_match(sel, "{\"app2\":\"web\",\"ap\":\"web\"}"));
    CHECK(!sel_match(sel, "{\"app\":\"web\",\"tier\":\"\"}"));
    CHECK(!sel_match(sel, "{\"l1\":\"1\",\"l2\":\"2\",\"l3\":\"3\",\"l4\":\"4\",\"l5\":"
                          "\"5\",\"l6\":\"6\",\"l7\":\"7\",\"l8\":\"8\",\"app\":\"web\",\"tier\":"
                          "\"x\"}"));
}

TEST(selector_expressions)
{
    const char *in =
        "{\"matchExpressions\":[{\"key\":\"env\",\"operator\":\"In\",\"values\":[\"a\",\"b\"]}]}";
    CHECK(sel_match(in, "{\"env\":\"b\"}"));
    CHECK(!sel_match(in, "{\"env\":\"c\"}"));
    CHECK(!sel_match(in, "{}"));
    const char *in_empty =
        "{\"matchExpressions\":[{\"key\":\"env\",\"operator\":\"In\",\"values\":[]}]}";
    CHECK(!sel_match(in_empty, "{\"env\":\"b\"}"));
    const char *notin =
        "{\"matchExpressions\":[{\"key\":\"env\",\"operator\":\"NotIn\",\"values\":[\"a\"]}]}";
    CHECK(sel_match(notin, "{}"));
    CHECK(sel_match(notin, "{\"env\":\"b\"}"));
    CHECK(!sel_match(notin, "{\"env\":\"a\"}"));
    const char *exists = "{\"matchExpressions\":[{\"key\":\"env\",\"operator\":\"Exists\"}]}";
    CHECK(sel_match(exists, "{\"env\":\"\"}"));
    CHECK(!sel_match(exists, "{\"app\":\"x\"}"));
    const char *dne = "{\"matchExpressions\":[{\"key\":\"env\",\"operator\":\"DoesNotExist\"}]}";
    CHECK(sel_match(dne, "{\"app\":\"x\"}"));
    CHECK(!sel_match(dne, "{\"env\":\"x\"}"));
    /* every requirement must hold */
    const char *both = "{\"matchLabels\":{\"app\":\"web\"},\"matchExpressions\":[{\"key\":\"tier\","
                       "\"operator\":\"NotIn\",\"values\":[\"db\"]}]}";
    CHECK(sel_match(both, "{\"app\":\"web\",\"tier\":\"fe\"}"));
    CHECK(!sel_match(both, "{\"app\":\"web\",\"tier\":\"db\"}"));
}

TEST(selector_unknown_operator)
{
    json_t *j = wh_test_json("{\"matchLabels\":{\"a\":\"b\"},\"matchExpressions\":[{\"key\":\"k\","
                             "\"operator\":\"Exists\"},{\"key\":\"k\",\"operator\":\"Bogus\"},"
                             "{\"key\":\"k\",\"operator\":\"Other\"}]}");
    struct wh_selector *s = wh_selector_new(j);
    CHECK_EQ_INT(wh_selector_state(s), WH_SELECTOR_INVALID);
    CHECK_EQ_STR(wh_selector_error(s), "\"Bogus\" is not a valid pod selector operator");
    json_t *labels = wh_test_json("{\"a\":\"b\",\"k\":\"v\"}");
    CHECK(!wh_selector_matches(s, labels));
    json_decref(labels);
    wh_selector_free(s);
    json_decref(j);
    /* operators are case-sensitive, as in Go */
    CHECK(!sel_match(
        "{\"matchExpressions\":[{\"key\":\"k\",\"operator\":\"in\",\"values\":[\"v\"]}]}",
        "{\"k\":\"v\"}"));
}

TEST(selector_key_values)
{
    json_t *j = wh_test_json("{\"matchExpressions\":[{\"key\":\"kubernetes.io/metadata.name\","
                             "\"operator\":\"NotIn\",\"values\":[\"x\"]},{\"key\":"
                             "\"kubernetes.io/metadata.name\",\"operator\":\"In\",\"values\":"
                             "[\"a\",\"b\"]}]}");
    struct wh_selector *s = wh_selector_new(j);
    const char *const *vals = NULL;
    size_t n = 0;
    CHECK(wh_selector_key_values(s, "kubernetes.io/metadata.name", &vals, &n));
    CHECK_EQ_INT(n, 2);
    if (n == 2) {
        CHECK_EQ_STR(vals[0], "a");
        CHECK_EQ_STR(vals[1], "b");
    }
    CHECK(!wh_selector_key_values(s, "other", &vals, &n));
    wh_selector_free(s);
    json_decref(j);
    /* matchLabels wins over an In expression */
    j = wh_test_json(
        "{\"matchLabels\":{\"kubernetes.io/metadata.name\":\"c\"},\"matchExpressions\":"
        "[{\"key\":\"kubernetes.io/metadata.name\",\"operator\":\"In\",\"values\":[\"a\"]}]}");
    s = wh_selector_new(j);
    CHECK(wh_selector_key_values(s, "kubernetes.io/metadata.name", &vals, &n));
    CHECK(n == 1 && strcmp(vals[0], "c") == 0);
    CHECK(wh_selector_size(s) > 0);
    wh_selector_free(s);
    json_decref(j);
}

/* A selector as ?labelSelector= (for the live lists of the warnings), or NULL. */
static char *query_of(const char *sel)
{
    json_t *s = wh_test_json(sel);
    char *q = wh_selector_query(s);
    json_decref(s);
    return q;
}

TEST(selector_query_writes_the_api_servers_syntax)
{
    char *q = query_of("{\"matchLabels\":{\"app\":\"web\"},\"matchExpressions\":["
                       "{\"key\":\"tier\",\"operator\":\"In\",\"values\":[\"a\",\"b\"]},"
                       "{\"key\":\"zone\",\"operator\":\"NotIn\",\"values\":[\"c\"]},"
                       "{\"key\":\"canary\",\"operator\":\"Exists\"},"
                       "{\"key\":\"old\",\"operator\":\"DoesNotExist\"}]}");
    CHECK_EQ_STR(q, "app=web,tier in (a,b),zone notin (c),canary,!old");
    free(q);
    q = query_of("{}");
    CHECK_EQ_STR(q, ""); /* everything */
    free(q);
    /* selects nothing, or cannot be written: no query */
    CHECK(query_of("null") == NULL);
    CHECK(query_of("{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"In\",\"values\":[]}]}") ==
          NULL);
    CHECK(query_of("{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"Gt\",\"values\":[\"1\"]}]}") ==
          NULL);
    CHECK(query_of("{\"matchLabels\":{\"a\":1}}") == NULL);
    CHECK(query_of("{\"matchLabels\":\"app=web\"}") == NULL);
}
