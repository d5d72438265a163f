/* handlers/imagejob/template: the rules ImagePullJob and ImageListPullJob share, one by one,
 * with upstream's messages; and the ImagePullJob webhooks in process (their defaults, the
 * finalizer of a v1alpha1 creation, the gates). Upstream's own answers to the same questions are
 * the vectors of test/handler-vectors/imagepulljob/. */
#include <stdlib.h>
#include <string.h>

#include "handlers/imagejob/template.h"
#include "test/support/admission_run.h"
#include "test/unit/test.h"
#include "util/json.h"

/* The first failing rule of a spec (JSON text) as the validating handlers check it, or NULL. */
static char *spec_error(const char *text)
{
    json_t *spec = wh_test_json(text);
    char *err = wh_imagejob_check_selectors(spec);
    if (!err)
        err = wh_imagejob_check_image(json_object_get(spec, "image"));
    if (!err)
        err = wh_imagejob_check_parallelism_completion(spec, true);
    json_decref(spec);
    return err;
}

static void says(const char *spec, const char *want)
{
    char *err = spec_error(spec);
    if (want) {
        CHECK(err != NULL);
        CHECK_EQ_STR(err ? err : "", want);
    } else {
        CHECK(err == NULL);
    }
    free(err);
}

#define OK_TAIL "\"image\":\"nginx\",\"completionPolicy\":{\"type\":\"Always\"}"

TEST(imagejob_selector_rules)
{
    says("{\"selector\":{\"names\":[\"a\"],\"matchLabels\":{\"k\":\"v\"}}," OK_TAIL "}",
         "can not set both names and labelSelector in this spec.selector");
    says("{\"selector\":{\"names\":[\"a\",\"b\",\"a\"]}," OK_TAIL "}",
         "duplicated name in selector names");
    says("{\"selector\":{\"names\":[\"a\",\"b\"]}," OK_TAIL "}", NULL);
    says("{\"selector\":{\"names\":[]},\"podSelector\":{}," OK_TAIL "}",
         "can not set both selector and podSelector");
    says("{\"selector\":{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"In\"}]}," OK_TAIL "}",
         "invalid selector: values: Invalid value: []string(nil): for 'in', 'notin' operators, "
         "values set can't be empty");
    says("{\"podSelector\":{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"Exists\","
         "\"values\":[\"x\"]}]}," OK_TAIL "}",
         "invalid podSelector: values: Invalid value: []string{\"x\"}: values set must be empty "
         "for exists and does not exist");
}

TEST(imagejob_image_rules)
{
    says("{\"image\":\"Nginx:1\"}",
         "invalid image Nginx:1: invalid reference format: repository name must be lowercase");
    says("{\"image\":\"nginx::1\"}", "invalid image nginx::1: invalid reference format");
    says("{\"image\":\"nginx@sha256:abc\"}", "invalid image nginx@sha256:abc: invalid reference "
                                              "format");
    says("{\"image\":\"registry:5000/team/app:v1@sha256:"
         "0000000000000000000000000000000000000000000000000000000000000000\","
         "\"completionPolicy\":{\"type\":\"Never\"}}",
         NULL);
}

TEST(imagejob_parallelism_and_completion_rules)
{
    says("{\"parallelism\":-1," OK_TAIL "}", "parallelism must be non-negative");
    says("{\"parallelism\":\"-1\"," OK_TAIL "}", "parallelism must be non-negative");
    says("{\"parallelism\":\"50%\"," OK_TAIL "}", "parallelism does not support percentage value");
    says("{\"parallelism\":\"x1\"," OK_TAIL "}",
         "parallelism must be a valid integer: strconv.ParseInt: parsing \"x1\": invalid syntax");
    says("{\"parallelism\":\"2147483648\"," OK_TAIL "}",
         "parallelism must be a valid integer: strconv.ParseInt: parsing \"2147483648\": value "
         "out of range");
    says("{\"parallelism\":\"+7\"," OK_TAIL "}", NULL);
    says("{\"image\":\"nginx\",\"completionPolicy\":{\"type\":\"Always\","
         "\"activeDeadlineSeconds\":599}}",
         "completionPolicy.activeDeadlineSeconds must be greater than "
         "pullPolicy.timeoutSeconds(default 600)");
    says("{\"image\":\"nginx\",\"pullPolicy\":{\"timeoutSeconds\":10},\"completionPolicy\":{"
         "\"type\":\"Always\",\"activeDeadlineSeconds\":10}}",
         NULL);
    says("{\"image\":\"nginx\",\"completionPolicy\":{\"type\":\"Never\","
         "\"ttlSecondsAfterFinished\":1}}",
         "activeDeadlineSeconds and ttlSecondsAfterFinished can only work with Always "
         "CompletionPolicyType");
    says("{\"image\":\"nginx\",\"completionPolicy\":{}}", "unknown type of completionPolicy: ");
}

static void mutate(const char *version, const char *op, const char *gates, struct wh_admrun *r)
{
    json_t *obj = wh_test_json("{\"apiVersion\":\"apps.kruise.io/v1beta1\",\"kind\":"
                               "\"ImagePullJob\",\"metadata\":{\"name\":\"j\",\"namespace\":"
                               "\"ns\"},\"spec\":{\"image\":\"nginx\"}}");
    json_object_set_new(obj, "apiVersion",
                        json_sprintf("apps.kruise.io/%s", version));
    json_t *req = json_pack("{s:s,s:{s:s,s:s,s:s},s:{s:s,s:s,s:s},s:s,s:s,s:s,s:o,s:O,s:{s:s}}",
                            "uid", "u", "kind", "group", "apps.kruise.io", "version", version,
                            "kind", "ImagePullJob", "resource", "group", "apps.kruise.io",
                            "version", version, "resource", "imagepulljobs", "operation", op,
                            "namespace", "ns", "name", "j", "object", obj, "oldObject",
                            strcmp(op, "UPDATE") == 0 ? obj : json_null(), "options", "kind",
                            "CreateOptions");
    CHECK(wh_admrun("/mutate-apps-kruise-io-imagepulljob", gates, NULL, req, r));
    json_decref(req);
}

TEST(imagepulljob_defaults_and_finalizer)
{
    struct wh_admrun r;
    mutate("v1beta1", "CREATE", NULL, &r);
    CHECK(r.allowed && r.object);
    const json_t *spec = json_object_get(r.object, "spec");
    CHECK_EQ_STR(wh_json_path_str(spec, "completionPolicy", "type", NULL), "Always");
    CHECK_EQ_INT(json_integer_value(wh_json_path(spec, "pullPolicy", "timeoutSeconds", NULL)),
                 600);
    CHECK_EQ_INT(json_integer_value(wh_json_path(spec, "pullPolicy", "backoffLimit", NULL)), 3);
    CHECK_EQ_STR(wh_json_str(spec, "imagePullPolicy"), "IfNotPresent");
    CHECK(wh_json_path(r.object, "metadata", "finalizers", NULL) == NULL);
    wh_admrun_fini(&r);

    mutate("v1alpha1", "CREATE", NULL, &r);
    const json_t *fin = wh_json_path(r.object, "metadata", "finalizers", NULL);
    CHECK_EQ_INT(json_array_size(fin), 1);
    CHECK_EQ_STR(json_string_value(json_array_get(fin, 0)), "apps.kruise.io/deletion-protection");
    wh_admrun_fini(&r);

    mutate("v1alpha1", "UPDATE", NULL, &r);
    CHECK(wh_json_path(r.object, "metadata", "finalizers", NULL) == NULL);
    wh_admrun_fini(&r);

    mutate("v2", "CREATE", NULL, &r);
    CHECK(!r.allowed);
    CHECK_EQ_INT(r.code, 400);
    CHECK_EQ_STR(r.message, "unsupported version: v2");
    wh_admrun_fini(&r);
}

/* The ImageListPullJob validation of spec (JSON text) in v1beta1: the answer's message, "" when
 * allowed. */
static void list_says(const char *spec, const char *want)
{
    json_t *obj = json_pack("{s:s,s:s,s:{s:s,s:s},s:o}", "apiVersion", "apps.kruise.io/v1beta1",
                            "kind", "ImageListPullJob", "metadata", "name", "l", "namespace",
                            "ns", "spec", wh_test_json(spec));
    json_t *req = json_pack("{s:s,s:{s:s,s:s,s:s},s:{s:s,s:s,s:s},s:s,s:s,s:s,s:o,s:n,s:{s:s}}",
                            "uid", "u", "kind", "group", "apps.kruise.io", "version", "v1beta1",
                            "kind", "ImageListPullJob", "resource", "group", "apps.kruise.io",
                            "version", "v1beta1", "resource", "imagelistpulljobs", "operation",
                            "CREATE", "namespace", "ns", "name", "l", "object", obj, "oldObject",
                            "options", "kind", "CreateOptions");
    struct wh_admrun r;
    /* the gate is off by default, as upstream's */
    CHECK(wh_admrun("/validate-apps-kruise-io-imagelistpulljob", "ImagePullJobGate=true", NULL, req,
                    &r));
    CHECK_EQ_INT(r.allowed, !*want);
    CHECK_EQ_STR(r.allowed ? "" : r.message, want);
    if (!r.allowed)
        CHECK_EQ_INT(r.code, 400);
    wh_admrun_fini(&r);
    json_decref(req);
}

#define ALWAYS ",\"completionPolicy\":{\"type\":\"Always\"}"

TEST(imagelistpulljob_rules)
{
    list_says("{\"images\":[]" ALWAYS "}", "image can not be empty");
    list_says("{\"images\":[\"a\",\"b\",\"a\"]" ALWAYS "}", "images cannot have duplicate values");
    list_says("{\"images\":[\"a\",\"B\"]" ALWAYS "}",
              "invalid image B: invalid reference format: repository name must be lowercase");
    list_says("{\"images\":[\"a\",null]" ALWAYS "}", "invalid image : invalid reference format");
    /* no deadline-against-timeout rule for image lists */
    list_says("{\"images\":[\"a\"],\"completionPolicy\":{\"type\":\"Always\","
              "\"activeDeadlineSeconds\":1}}",
              "");
    list_says("{\"images\":[\"a\"],\"completionPolicy\":{\"type\":\"Never\","
              "\"activeDeadlineSeconds\":1}}",
              "activeDeadlineSeconds and ttlSecondsAfterFinished can only work with Always "
              "CompletionPolicyType");
    json_t *many = json_array();
    for (int i = 0; i < 256; i++)
        json_array_append_new(many, json_sprintf("img%d", i));
    char *text = json_dumps(many, JSON_COMPACT);
    char spec[8192];
    snprintf(spec, sizeof(spec), "{\"images\":%s" ALWAYS "}", text);
    list_says(spec, "the maximum number of images cannot > 255");
    json_array_remove(many, 255);
    free(text);
    text = json_dumps(many, JSON_COMPACT);
    snprintf(spec, sizeof(spec), "{\"images\":%s" ALWAYS "}", text);
    list_says(spec, "");
    free(text);
    json_decref(many);
}
