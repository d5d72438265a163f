/* handlers/imagejob/template: the rules ImagePullJob and ImageListPullJob share, one by one,
 * with upstream's messages; and the ImagePullJob webhooks in process (their defaults, the
 * finalizer of a v1alpha1 creation, the gates). Upstream's own answers to the same questions are
 * the vectors of test/handler-vectors/imagepulljob/. */
#include <stdlib.h>
#include <string.h>

#include "handlers/imagejob/template.h"
#include "test/support/admission_run.h"
#include "test/unit/test.h"
#include "util/buf.h"
#include "util/json.h"
#include "util/str.h"

/* The first failing rule's message of a spec as the validating handlers check it, or NULL. */
static char *spec_error_of(const json_t *spec, size_t *len)
{
    struct wh_buf why;
    wh_buf_init(&why, WH_IMAGEJOB_MESSAGE_CAP);
    bool failed = wh_imagejob_check_selectors(spec, &why) ||
                  wh_imagejob_check_image(json_object_get(spec, "image"), &why) ||
                  wh_imagejob_check_parallelism_completion(spec, true, &why);
    char *err = failed ? wh_buf_take(&why, len) : NULL;
    wh_buf_fini(&why);
    return err;
}

/* The same of a spec given as JSON text. */
static char *spec_error(const char *text)
{
    json_t *spec = wh_test_json(text);
    char *err = spec_error_of(spec, NULL);
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

/* A Go string member holding NUL bytes (wh_test_json refuses them), n bytes of s. */
static void set_bytes(json_t *o, const char *key, const char *s, size_t n)
{
    json_object_set_new(o, key, json_stringn(s, n));
}

/* Go prints a string whole, NUL bytes and all: with %s (an image, a completion type) and
 * strconv.Quote's \x00 (a parallelism that is no integer). A type that only starts with Always
 * or Never is neither. */
TEST(imagejob_messages_keep_nul_bytes)
{
    static const struct {
        const char *member, *value;
        size_t value_len;
        const char *want;
        size_t want_len;
    } cases[] = {
#define BYTES(literal) literal, sizeof(literal) - 1
        {"image", BYTES("a\0b"), BYTES("invalid image a\0b: invalid reference format")},
        {"type", BYTES("Never\0x"), BYTES("unknown type of completionPolicy: Never\0x")},
        {"type", BYTES("\0"), BYTES("unknown type of completionPolicy: \0")},
        {"parallelism", BYTES("5\0"),
         BYTES("parallelism must be a valid integer: strconv.ParseInt: parsing \"5\\x00\": "
               "invalid syntax")},
#undef BYTES
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        json_t *spec = wh_test_json("{\"image\":\"nginx\",\"completionPolicy\":{\"type\":"
                                    "\"Never\"}}");
        json_t *at = strcmp(cases[i].member, "type") == 0
                         ? json_object_get(spec, "completionPolicy")
                         : spec;
        set_bytes(at, cases[i].member, cases[i].value, cases[i].value_len);
        size_t len = 0;
        char *err = spec_error_of(spec, &len);
        CHECK(err != NULL);
        CHECK_EQ_INT(len, cases[i].want_len);
        CHECK(err && len == cases[i].want_len && memcmp(err, cases[i].want, len) == 0);
        free(err);
        json_decref(spec);
    }
}

/* LabelSelectorAsSelector's error echoes the key whole, however long. */
TEST(imagejob_selector_error_is_whole)
{
    char key[2001];
    memset(key, 'k', 1999);
    key[1999] = '!';
    key[2000] = '\0';
    json_t *spec = wh_test_json("{\"image\":\"nginx\",\"completionPolicy\":{\"type\":\"Never\"},"
                                "\"selector\":{\"matchLabels\":{}}}");
    json_object_set_new(wh_json_path(spec, "selector", "matchLabels", NULL), key,
                        json_string("v"));
    char *err = spec_error_of(spec, NULL);
    CHECK(err != NULL);
    CHECK(err && strstr(err, key) != NULL);
    CHECK(err && wh_str_has_suffix(err, "regex used for validation is "
                                        "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"));
    free(err);
    json_decref(spec);
}

static void mutate_spec(const char *version, const char *op, const char *gates, const char *spec,
                        struct wh_admrun *r)
{
    json_t *obj = wh_test_json("{\"apiVersion\":\"apps.kruise.io/v1beta1\",\"kind\":"
                               "\"ImagePullJob\",\"metadata\":{\"name\":\"j\",\"namespace\":"
                               "\"ns\"}}");
    json_object_set_new(obj, "spec", wh_test_json(spec));
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

static void mutate(const char *version, const char *op, const char *gates, struct wh_admrun *r)
{
    mutate_spec(version, op, gates, "{\"image\":\"nginx\"}", r);
}

/* v1beta1's hand-written DeepCopy shares spec.pullPolicy with the copy upstream compares the
 * defaulted job with: defaults written into a pullPolicy that is there are no change, and come
 * with the patch only when something else changed. v1alpha1's copy is deep. */
TEST(imagepulljob_v1beta1_defaults_inside_pull_policy_unseen)
{
    static const char *const spec = "{\"image\":\"nginx\",\"completionPolicy\":{\"type\":"
                                    "\"Always\"},\"imagePullPolicy\":\"Always\",\"pullPolicy\":{}}";
    struct wh_admrun r;
    mutate_spec("v1beta1", "UPDATE", NULL, spec, &r);
    CHECK(r.allowed && !r.patched);
    wh_admrun_fini(&r);

    mutate_spec("v1alpha1", "UPDATE", NULL, spec, &r);
    CHECK(r.allowed && r.patched);
    CHECK_EQ_INT(json_integer_value(wh_json_path(r.object, "spec", "pullPolicy", "backoffLimit",
                                                 NULL)),
                 3);
    wh_admrun_fini(&r);

    mutate_spec("v1beta1", "UPDATE", NULL,
                "{\"image\":\"nginx\",\"imagePullPolicy\":\"Always\",\"pullPolicy\":{}}", &r);
    CHECK(r.allowed && r.patched);
    CHECK_EQ_INT(json_integer_value(wh_json_path(r.object, "spec", "pullPolicy",
                                                 "timeoutSeconds", NULL)),
                 600);
    wh_admrun_fini(&r);
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
