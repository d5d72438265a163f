/* /mutate- and /validate-apps-kruise-io-nodeimage in process: each validation rule with its
 * message, the defaults and the sort of the tags (upstream's answers to the same questions are
 * the vectors of test/handler-vectors/nodeimage/). */
#include <stdlib.h>
#include <string.h>

#include "test/support/admission_run.h"
#include "test/unit/test.h"
#include "util/json.h"

static void run(const char *ep, const char *spec, struct wh_admrun *r)
{
    json_t *obj = json_pack("{s:s,s:s,s:{s:s},s:o}", "apiVersion", "apps.kruise.io/v1beta1",
                            "kind", "NodeImage", "metadata", "name", "n", "spec",
                            wh_test_json(spec));
    json_t *req = json_pack("{s:s,s:{s:s,s:s,s:s},s:{s:s,s:s,s:s},s:s,s:s,s:o,s:n,s:{s:s}}",
                            "uid", "u", "kind", "group", "apps.kruise.io", "version", "v1beta1",
                            "kind", "NodeImage", "resource", "group", "apps.kruise.io", "version",
                            "v1beta1", "resource", "nodeimages", "operation", "CREATE", "name",
                            "n", "object", obj, "oldObject", "options", "kind", "CreateOptions");
    CHECK(wh_admrun(ep, NULL, NULL, req, r));
    json_decref(req);
}

static void says(const char *spec, const char *want)
{
    struct wh_admrun r;
    run("/validate-apps-kruise-io-nodeimage", spec, &r);
    CHECK_EQ_INT(r.allowed, !want);
    if (want) {
        CHECK_EQ_INT(r.code, 400);
        CHECK_EQ_STR(r.message, want);
    }
    wh_admrun_fini(&r);
}

#define OKTAG(t)                                                                                   \
    "{\"tag\":\"" t "\",\"createdAt\":\"2026-01-01T00:00:00Z\",\"pullPolicy\":{"                  \
    "\"ttlSecondsAfterFinished\":1}}"

TEST(nodeimage_validation_rules)
{
    says("{\"images\":{\"a\":{\"tags\":[" OKTAG("1") "," OKTAG("2") "]}}}", NULL);
    says("{\"images\":{\"\":{}}}", "image name can not be empty");
    says("{\"images\":{\"a\":{\"tags\":[" OKTAG("1") ",{}]}}}", "tag for image a can not be empty");
    says("{\"images\":{\"a\":{\"tags\":[" OKTAG("1") "," OKTAG("2") "," OKTAG("1") "]}}}",
         "duplicated tag 1 for image a");
    says("{\"images\":{\"a\":{\"tags\":[{\"tag\":\"1\"}]}}}",
         "createAt field for a/1 can not be empty");
    says("{\"images\":{\"a\":{\"tags\":[{\"tag\":\"1\",\"createdAt\":\"2026-01-01T00:00:00Z\","
         "\"version\":-1}]}}}",
         "version for a/1 can not be less than 0");
    says("{\"images\":{\"a\":{\"tags\":[{\"tag\":\"1\",\"createdAt\":\"2026-01-01T00:00:00Z\"}]}}}",
         "pullPolicy field for a/1 must set");
    says("{\"images\":{\"a\":{\"tags\":[{\"tag\":\"1\",\"createdAt\":\"2026-01-01T00:00:00Z\","
         "\"pullPolicy\":{}}]}}}",
         "pullPolicy.ttlSecondsAfterFinished for a/1 must set");
    char spec[16384];
    size_t o = (size_t)snprintf(spec, sizeof(spec), "{\"images\":{");
    for (int i = 0; i < 257; i++)
        o += (size_t)snprintf(spec + o, sizeof(spec) - o, "%s\"i%d\":{}", i ? "," : "", i);
    snprintf(spec + o, sizeof(spec) - o, "}}");
    says(spec, "spec images length 257 can not be more than 256");
}

TEST(nodeimage_defaults_and_sorted_tags)
{
    struct wh_admrun r;
    run("/mutate-apps-kruise-io-nodeimage",
        "{\"images\":{\"a\":{\"tags\":[{\"tag\":\"b\"},{\"tag\":\"a\",\"createdAt\":"
        "\"2020-01-01T00:00:00Z\",\"pullPolicy\":{\"timeoutSeconds\":5}}]}}}",
        &r);
    CHECK(r.allowed && r.object);
    const json_t *tags = wh_json_path(r.object, "spec", "images", "a", "tags", NULL);
    CHECK_EQ_INT(json_array_size(tags), 2);
    const json_t *first = json_array_get(tags, 0), *second = json_array_get(tags, 1);
    CHECK_EQ_STR(wh_json_str(first, "tag"), "a");
    CHECK_EQ_STR(wh_json_str(first, "createdAt"), "2020-01-01T00:00:00Z");
    CHECK_EQ_INT(json_integer_value(wh_json_path(first, "pullPolicy", "timeoutSeconds", NULL)), 5);
    CHECK_EQ_INT(json_integer_value(wh_json_path(first, "pullPolicy", "backoffLimit", NULL)), 3);
    CHECK_EQ_STR(wh_json_str(second, "tag"), "b");
    /* the time of the request, in RFC 3339 UTC as metav1.Time writes it */
    const char *at = wh_json_str(second, "createdAt");
    CHECK(at && strlen(at) == 20 && at[19] == 'Z');
    CHECK_EQ_INT(json_integer_value(wh_json_path(second, "pullPolicy", "timeoutSeconds", NULL)),
                 600);
    wh_admrun_fini(&r);
}
