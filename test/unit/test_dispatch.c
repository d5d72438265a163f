#include "test/unit/test.h"

#include <stdlib.h>
#include <string.h>

#include "admission/review.h"
#include "conversion/review.h"
#include "jsonpatch/apply.h"
#include "server/dispatch.h"
#include "util/base64.h"
#include "util/json.h"
#include "util/reqmem.h"

/* Test handlers: the behaviours every real handler builds on. */
static enum wh_err allow_all(const struct wh_handler_ctx *ctx,
                             const struct wh_admission_request *req,
                             struct wh_admission_response *resp, struct wh_errbuf *eb)
{
    (void)ctx;
    (void)req;
    (void)resp;
    (void)eb;
    return WH_OK;
}

static enum wh_err deny_always(const struct wh_handler_ctx *ctx,
                               const struct wh_admission_request *req,
                               struct wh_admission_response *resp, struct wh_errbuf *eb)
{
    (void)ctx;
    (void)eb;
    wh_admission_deny(resp, 403, "%s %s is protected", req->kind.kind, req->name);
    wh_admission_warn(resp, "think twice");
    return WH_OK;
}

static enum wh_err add_label(const struct wh_handler_ctx *ctx,
                             const struct wh_admission_request *req,
                             struct wh_admission_response *resp, struct wh_errbuf *eb)
{
    (void)ctx;
    (void)eb;
    json_t *obj = wh_admission_mutable_object(resp, req);
    json_t *meta = wh_json_obj_ensure(obj, "metadata");
    json_object_set_new(wh_json_obj_ensure(meta, "labels"), "a/b~c", json_string("x"));
    return WH_OK;
}

static enum wh_err touch_nothing(const struct wh_handler_ctx *ctx,
                                 const struct wh_admission_request *req,
                                 struct wh_admission_response *resp, struct wh_errbuf *eb)
{
    (void)ctx;
    (void)eb;
    (void)wh_admission_mutable_object(resp, req); /* a copy, left unchanged: no patch */
    return WH_OK;
}

static enum wh_err fail(const struct wh_handler_ctx *ctx, const struct wh_admission_request *req,
                        struct wh_admission_response *resp, struct wh_errbuf *eb)
{
    (void)ctx;
    (void)req;
    (void)wh_admission_mutable_object(resp, req);
    return wh_errbuf_set(eb, WH_ERR_INTERNAL, "listing sidecarsets failed");
}

static const struct wh_route r_allow = {
    .path = "/t-allow", .kind = WH_ROUTE_VALIDATE, .admit = allow_all};
static const struct wh_route r_deny = {
    .path = "/t-deny", .kind = WH_ROUTE_VALIDATE, .admit = deny_always};
static const struct wh_route r_mutate = {
    .path = "/t-mutate", .kind = WH_ROUTE_MUTATE, .admit = add_label};
static const struct wh_route r_noop = {
    .path = "/t-noop", .kind = WH_ROUTE_MUTATE, .admit = touch_nothing};
static const struct wh_route r_fail = {.path = "/t-fail", .kind = WH_ROUTE_MUTATE, .admit = fail};

static const char *review(const char *version)
{
    static char buf[1024];
    snprintf(buf, sizeof(buf),
             "{\"apiVersion\":\"admission.k8s.io/%s\",\"kind\":\"AdmissionReview\",\"request\":{"
             "\"uid\":\"u-1\",\"kind\":{\"group\":\"\",\"version\":\"v1\",\"kind\":\"Pod\"},"
             "\"resource\":{\"group\":\"\",\"version\":\"v1\",\"resource\":\"pods\"},"
             "\"operation\":\"CREATE\",\"namespace\":\"default\",\"name\":\"p\","
             "\"object\":{\"metadata\":{\"name\":\"p\"}},\"oldObject\":null,\"dryRun\":false,"
             "\"options\":{\"kind\":\"CreateOptions\"}}}",
             version);
    return buf;
}

static json_t *run(const struct wh_route *route, const char *body, int want_status)
{
    struct wh_reply reply;
    wh_dispatch(route, NULL, body, strlen(body), &reply);
    CHECK_EQ_INT(reply.http_status, want_status);
    json_t *answer = wh_test_json(reply.body);
    wh_reply_fini(&reply);
    return answer;
}

TEST(dispatch_allow_echoes_uid_and_version)
{
    json_t *a = run(&r_allow, review("v1"), 200);
    json_t *want =
        wh_test_json("{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\","
                     "\"response\":{\"uid\":\"u-1\",\"allowed\":true,"
                     "\"status\":{\"metadata\":{},\"code\":200}}}");
    CHECK_EQ_JSON(a, want);
    json_decref(a);
    json_decref(want);
    a = run(&r_allow, review("v1beta1"), 200);
    CHECK_EQ_STR(wh_json_str(a, "apiVersion"), "admission.k8s.io/v1beta1");
    json_decref(a);
}

TEST(dispatch_deny_carries_status_and_warnings)
{
    json_t *a = run(&r_deny, review("v1"), 200);
    json_t *r = json_object_get(a, "response");
    CHECK(json_is_false(json_object_get(r, "allowed")));
    CHECK_EQ_INT(json_integer_value(wh_json_path(r, "status", "code", NULL)), 403);
    CHECK_EQ_STR(wh_json_path_str(r, "status", "reason", NULL), "Forbidden");
    CHECK_EQ_STR(wh_json_path_str(r, "status", "message", NULL), "Pod p is protected");
    CHECK_EQ_STR(json_string_value(json_array_get(json_object_get(r, "warnings"), 0)),
                 "think twice");
    CHECK(json_object_get(r, "patch") == NULL);
    json_decref(a);
}

TEST(dispatch_mutation_becomes_an_applicable_patch)
{
    json_t *a = run(&r_mutate, review("v1"), 200);
    json_t *r = json_object_get(a, "response");
    CHECK_EQ_STR(wh_json_str(r, "patchType"), "JSONPatch");
    const char *b64 = wh_json_str(r, "patch");
    CHECK(b64 != NULL);
    unsigned char *raw = NULL;
    size_t len = 0;
    if (b64 && wh_base64_decode(b64, strlen(b64), &raw, &len) == WH_OK) {
        json_t *patch = wh_test_json((const char *)raw);
        json_t *doc = wh_test_json("{\"metadata\":{\"name\":\"p\"}}");
        json_t *out = NULL;
        struct wh_errbuf eb = {{0}};
        CHECK_EQ_INT(wh_patch_apply(doc, patch, &out, &eb), WH_OK);
        json_t *want = wh_test_json("{\"metadata\":{\"name\":\"p\",\"labels\":{\"a/b~c\":\"x\"}}}");
        CHECK_EQ_JSON(out, want);
        json_decref(want);
        json_decref(out);
        json_decref(doc);
        json_decref(patch);
        free(raw);
    }
    json_decref(a);
}

TEST(dispatch_unchanged_copy_sends_no_patch)
{
    json_t *a = run(&r_noop, review("v1"), 200);
    json_t *r = json_object_get(a, "response");
    CHECK(json_is_true(json_object_get(r, "allowed")));
    CHECK(json_object_get(r, "patch") == NULL);
    CHECK(json_object_get(r, "patchType") == NULL);
    json_decref(a);
}

TEST(dispatch_handler_error_is_500_without_patch)
{
    json_t *a = run(&r_fail, review("v1"), 200);
    json_t *r = json_object_get(a, "response");
    CHECK(json_is_false(json_object_get(r, "allowed")));
    CHECK_EQ_INT(json_integer_value(wh_json_path(r, "status", "code", NULL)), 500);
    CHECK_EQ_STR(wh_json_path_str(r, "status", "message", NULL), "listing sidecarsets failed");
    CHECK(json_object_get(r, "patch") == NULL);
    json_decref(a);
}

static void check_400(const char *body, const char *want_in_message)
{
    json_t *a = run(&r_allow, body, 400);
    CHECK_EQ_STR(wh_json_str(a, "kind"), "Status");
    CHECK_EQ_INT(json_integer_value(json_object_get(a, "code")), 400);
    const char *msg = wh_json_str(a, "message");
    CHECK(msg && strstr(msg, want_in_message));
    if (!msg || !strstr(msg, want_in_message))
        fprintf(stderr, "  message: %s\n  wanted: %s\n", msg ? msg : "(null)", want_in_message);
    json_decref(a);
}

TEST(dispatch_malformed_reviews_are_400_naming_the_problem)
{
    check_400("{\"apiVersion\": ", "malformed JSON at line 1, column 16");
    check_400("", "malformed JSON");
    check_400("[]", "body: must be an AdmissionReview object");
    check_400("{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\"}",
              "request: required");
    check_400("{\"kind\":\"AdmissionReview\",\"request\":{}}", "apiVersion: required");
    check_400(
        "{\"apiVersion\":\"admission.k8s.io/v2\",\"kind\":\"AdmissionReview\",\"request\":{}}",
        "unsupported \"admission.k8s.io/v2\"");
    check_400(
        "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":{}}",
        "request.uid: required");
    check_400("{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":"
              "{\"uid\":5}}",
              "request.uid: must be a string, not number");
    check_400("{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":"
              "{\"uid\":\"u\",\"kind\":{\"version\":\"v1\",\"kind\":\"Pod\"},\"resource\":"
              "{\"version\":\"v1\",\"resource\":\"pods\"}}}",
              "request.operation: required");
    check_400("{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":"
              "{\"uid\":\"u\",\"kind\":{\"version\":\"v1\"},\"resource\":"
              "{\"version\":\"v1\",\"resource\":\"pods\"},\"operation\":\"CREATE\"}}",
              "request.kind.kind: required");
    check_400("{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":"
              "{\"uid\":\"u\",\"kind\":{\"version\":\"v1\",\"kind\":\"Pod\"},\"resource\":"
              "{\"version\":\"v1\",\"resource\":\"pods\"},\"operation\":\"PATCH\"}}",
              "request.operation: unsupported \"PATCH\"");
    check_400("{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":"
              "{\"uid\":\"u\",\"kind\":{\"version\":\"v1\",\"kind\":\"Pod\"},\"resource\":"
              "{\"version\":\"v1\",\"resource\":\"pods\"},\"operation\":\"CREATE\",\"object\":[]}}",
              "request.object: must be an object, not array");
}

static enum wh_err upper_kind(const char *desired, const json_t *objects, json_t **out,
                              char **message)
{
    (void)message;
    json_t *arr = json_array();
    size_t i;
    json_t *o;
    json_array_foreach(objects, i, o)
    {
        json_t *c = json_deep_copy(o);
        json_object_set_new(c, "apiVersion", json_string(desired));
        json_array_append_new(arr, c);
    }
    *out = arr;
    return WH_OK;
}

static enum wh_err refuse(const char *desired, const json_t *objects, json_t **out, char **message)
{
    (void)desired;
    (void)objects;
    *out = NULL;
    *message = strdup("conversion is not allowed between same type *v1beta1.StatefulSet");
    return WH_ERR_INVALID;
}

TEST(dispatch_conversion_review_codec)
{
    static const struct wh_route conv = {
        .path = "/convert", .kind = WH_ROUTE_CONVERT, .convert = upper_kind};
    static const struct wh_route bad = {
        .path = "/convert", .kind = WH_ROUTE_CONVERT, .convert = refuse};
    const char *body = "{\"apiVersion\":\"apiextensions.k8s.io/v1\",\"kind\":\"ConversionReview\","
                       "\"request\":{\"uid\":\"c-1\",\"desiredAPIVersion\":\"x/v2\",\"objects\":"
                       "[{\"apiVersion\":\"x/v1\",\"n\":1},{\"apiVersion\":\"x/v1\",\"n\":2}]}}";
    json_t *a = run(&conv, body, 200);
    json_t *want = wh_test_json(
        "{\"apiVersion\":\"apiextensions.k8s.io/v1\",\"kind\":\"ConversionReview\",\"response\":"
        "{\"uid\":\"c-1\",\"convertedObjects\":[{\"apiVersion\":\"x/v2\",\"n\":1},"
        "{\"apiVersion\":\"x/v2\",\"n\":2}],\"result\":{\"metadata\":{},\"status\":\"Success\"}}}");
    CHECK_EQ_JSON(a, want);
    json_decref(a);
    json_decref(want);
    a = run(&bad, body, 200);
    want = wh_test_json(
        "{\"apiVersion\":\"apiextensions.k8s.io/v1\",\"kind\":\"ConversionReview\",\"response\":"
        "{\"uid\":\"c-1\",\"convertedObjects\":null,\"result\":{\"metadata\":{},\"status\":"
        "\"Failure\",\"message\":\"conversion is not allowed between same type "
        "*v1beta1.StatefulSet\"}}}");
    CHECK_EQ_JSON(a, want);
    json_decref(a);
    json_decref(want);
    a = run(&conv, "{\"apiVersion\":\"apiextensions.k8s.io/v1\",\"kind\":\"ConversionReview\"}",
            400);
    CHECK(strstr(wh_json_str(a, "message"), "request: required") != NULL);
    json_decref(a);
    a = run(&conv,
            "{\"apiVersion\":\"apiextensions.k8s.io/v1beta1\",\"kind\":\"ConversionReview\","
            "\"request\":{\"uid\":\"c\",\"desiredAPIVersion\":\"x/v2\",\"objects\":{}}}",
            400);
    CHECK(strstr(wh_json_str(a, "message"), "request.objects: must be an array") != NULL);
    json_decref(a);
}

TEST(admission_lossy_messages_stay_valid_json)
{
    struct wh_admission_response resp;
    wh_admission_response_init(&resp);
    wh_admission_deny(&resp, 403, "%s", "bad \xff byte and cut \xe2\x82");
    struct wh_admission_request req = {
        .api_version = "admission.k8s.io/v1", .uid = "u", .uid_len = 1};
    struct wh_buf out;
    wh_buf_init(&out, 1 << 20);
    CHECK_EQ_INT(wh_admission_write(&out, &req, &resp, NULL, 0), WH_OK);
    json_t *a = wh_test_json(out.data);
    CHECK_EQ_STR(wh_json_path_str(a, "response", "status", "message", NULL),
                 "bad ? byte and cut ??");
    json_decref(a);
    wh_buf_fini(&out);
    wh_admission_response_fini(&resp);
}

/* A message that echoes a Go string holding NUL bytes keeps them (JSON's \u0000), and the bytes
 * after them. */
TEST(admission_message_text_keeps_nul_bytes)
{
    struct wh_admission_response resp;
    wh_admission_response_init(&resp);
    wh_admission_deny_text(&resp, 400, "image a\0b \xff", 11);
    CHECK_EQ_INT(resp.message_len, 11);
    struct wh_admission_request req = {
        .api_version = "admission.k8s.io/v1", .uid = "u", .uid_len = 1};
    struct wh_buf out;
    wh_buf_init(&out, 1 << 20);
    CHECK_EQ_INT(wh_admission_write(&out, &req, &resp, NULL, 0), WH_OK);
    CHECK(strstr(out.data, "\"message\":\"image a\\u0000b ?\"") != NULL);
    wh_buf_fini(&out);
    wh_admission_response_fini(&resp);
}

/* The answer as an object, member by member in the order the vectors were recorded with. */
static json_t *answer_object(const struct wh_admission_request *req,
                             const struct wh_admission_response *resp, const char *patch64)
{
    json_t *status = json_pack("{s:{},s:i}", "metadata", "code", resp->code ? resp->code : 200);
    if (resp->message)
        json_object_set_new(status, "message", wh_json_string_lossy(resp->message));
    if (resp->reason)
        json_object_set_new(status, "reason", json_string(resp->reason));
    json_t *r = json_pack("{s:s%,s:b,s:o}", "uid", req->uid, req->uid_len, "allowed", resp->allowed,
                          "status", status);
    if (resp->warnings && json_array_size(resp->warnings))
        json_object_set(r, "warnings", resp->warnings);
    if (patch64)
        json_object_set_new(r, "patch", json_string(patch64));
    if (patch64)
        json_object_set_new(r, "patchType", json_string("JSONPatch"));
    return json_pack("{s:s,s:s,s:o}", "apiVersion", req->api_version, "kind", "AdmissionReview",
                     "response", r);
}

TEST(admission_write_is_the_answer_object_byte_for_byte)
{
    static const char uid[] = "u-\0-\"quoted\"-\xc3\xa9";
    struct wh_admission_request req = {
        .api_version = "admission.k8s.io/v1beta1", .uid = uid, .uid_len = sizeof(uid) - 1};
    const char *patch = "[{\"op\":\"add\",\"path\":\"/a\",\"value\":1}]";
    for (int variant = 0; variant < 4; variant++) {
        struct wh_admission_response resp;
        wh_admission_response_init(&resp);
        if (variant == 1)
            wh_admission_deny(&resp, 403, "no \"%s\"\n\x01", "way");
        if (variant == 2) {
            wh_admission_deny(&resp, 500, "failed");
            wh_admission_set_reason(&resp, "InternalError");
            wh_admission_warn(&resp, "careful \t%d", 1);
            wh_admission_warn(&resp, "twice");
        }
        if (variant == 3)
            wh_admission_allow(&resp, "allowed with a message");
        bool with_patch = variant == 0 || variant == 3;
        char *patch64 = with_patch ? wh_base64_encode(patch, strlen(patch)) : NULL;
        json_t *want = answer_object(&req, &resp, patch64);
        char *want_text = wh_json_dumps(want);
        struct wh_buf out;
        wh_buf_init(&out, 1 << 20);
        CHECK_EQ_INT(
            wh_admission_write(&out, &req, &resp, with_patch ? patch : NULL, strlen(patch)), WH_OK);
        CHECK_EQ_STR(out.data, want_text);
        wh_buf_fini(&out);
        free(want_text);
        free(patch64);
        json_decref(want);
        wh_admission_response_fini(&resp);
    }
}

/* --- hostile bodies (issue 17) ------------------------------------------------------------ */

static char *empties(size_t body_len, size_t *len)
{
    char *b = malloc(body_len + 4);
    size_t n = 0;
    b[n++] = '[';
    while (n + 3 < body_len) {
        memcpy(b + n, "{},", 3);
        n += 3;
    }
    memcpy(b + n, "{}]", 3);
    n += 3;
    b[n] = '\0';
    *len = n;
    return b;
}

TEST(dispatch_amplifying_body_is_413_and_memory_goes_back)
{
    size_t len = 0;
    char *body = empties(3u << 20, &len);
    struct wh_reply reply;
    wh_dispatch(&r_allow, NULL, body, len, &reply);
    CHECK_EQ_INT(reply.http_status, 413);
    CHECK(strstr(reply.body, "memory budget") != NULL);
    CHECK_EQ_INT(wh_reqmem_in_use(), 0);
    wh_reply_fini(&reply);
    /* With the pool taken by others: 503, and again nothing kept. */
    wh_reqmem_set_limit(8u << 20);
    CHECK(wh_reqmem_take(7u << 20));
    wh_dispatch(&r_allow, NULL, body, len, &reply);
    CHECK_EQ_INT(reply.http_status, 503);
    wh_reply_fini(&reply);
    wh_reqmem_give(7u << 20);
    CHECK_EQ_INT(wh_reqmem_in_use(), 0);
    wh_reqmem_set_limit(0);
    /* An ordinary review right after is answered. */
    json_t *a = run(&r_allow, review("v1"), 200);
    json_decref(a);
    free(body);
}

TEST(dispatch_uid_with_nul_is_echoed_whole)
{
    static const char uid[] = "a\0b\0";
    char body[1024];
    snprintf(body, sizeof(body), "%s", review("v1"));
    char *u = strstr(body, "\"u-1\"");
    CHECK(u != NULL);
    if (!u)
        return;
    char rest[1024];
    snprintf(rest, sizeof(rest), "%s", u + 5);
    snprintf(u, sizeof(body) - (size_t)(u - body), "\"a\\u0000b\\u0000\"%s", rest);
    struct wh_reply reply;
    wh_dispatch(&r_allow, NULL, body, strlen(body), &reply);
    CHECK_EQ_INT(reply.http_status, 200);
    json_error_t jerr;
    json_t *a = json_loads(reply.body, JSON_ALLOW_NUL, &jerr);
    wh_reply_fini(&reply);
    json_t *got = json_object_get(json_object_get(a, "response"), "uid");
    CHECK(json_is_string(got) && json_string_length(got) == sizeof(uid) - 1 &&
          memcmp(json_string_value(got), uid, sizeof(uid) - 1) == 0);
    json_decref(a);
}

/* --- valid objects of many small items (issue 22) ----------------------------------------- */

enum shape { SHAPE_ENV, SHAPE_LABELS, SHAPE_PORTS, SHAPE_ANNOTATIONS };

/* A Pod holding about `bytes` of one shape of small items; `changed` alters one item. */
static char *pod_of(enum shape shape, size_t bytes, bool changed)
{
    struct wh_buf items;
    wh_buf_init(&items, 64u << 20);
    for (size_t i = 0; items.len < bytes; i++) {
        const char *sep = i ? "," : "";
        const char *v = changed && i == 7 ? "x" : "";
        enum wh_err rc;
        /* As dense as such items come: short names and values. */
        if (shape == SHAPE_ENV)
            rc = wh_buf_printf(&items, "%s{\"name\":\"E%05zu\",\"value\":\"%s%zu\"}", sep, i,
                               v, i);
        else if (shape == SHAPE_PORTS)
            rc = wh_buf_printf(&items, "%s{\"containerPort\":%zu,\"protocol\":\"%s\"}", sep,
                               1 + i % 65535, changed && i == 7 ? "UDP" : "TCP");
        else
            rc = wh_buf_printf(&items, "%s\"%c%06zu\":\"%s%zu\"", sep,
                               shape == SHAPE_LABELS ? 'l' : 'a', i, v, i);
        CHECK_EQ_INT(rc, WH_OK);
    }
    bool meta = shape == SHAPE_LABELS || shape == SHAPE_ANNOTATIONS;
    const char *open = shape == SHAPE_LABELS        ? ",\"labels\":{"
                       : shape == SHAPE_ANNOTATIONS ? ",\"annotations\":{"
                       : shape == SHAPE_ENV         ? ",\"env\":["
                                                    : ",\"ports\":[";
    const char *close = meta ? "}" : "]";
    struct wh_buf pod;
    wh_buf_init(&pod, 64u << 20);
    CHECK_EQ_INT(wh_buf_printf(&pod,
                               "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{"
                               "\"name\":\"p\",\"namespace\":\"default\"%s%s%s},"
                               "\"spec\":{\"containers\":[{"
                               "\"name\":\"app\",\"image\":\"nginx\"%s%s%s}]}}",
                               meta ? open : "", meta ? items.data : "", meta ? close : "",
                               meta ? "" : open, meta ? "" : items.data, meta ? "" : close),
                 WH_OK);
    wh_buf_fini(&items);
    return wh_buf_take(&pod, NULL);
}

static char *update_of(const char *object, const char *old)
{
    struct wh_buf b;
    wh_buf_init(&b, 64u << 20);
    CHECK_EQ_INT(wh_buf_printf(&b,
                               "{\"apiVersion\":\"admission.k8s.io/v1\","
                               "\"kind\":\"AdmissionReview\",\"request\":{\"uid\":\"u-1\","
                               "\"kind\":{\"group\":\"\",\"version\":\"v1\",\"kind\":\"Pod\"},"
                               "\"resource\":{\"group\":\"\",\"version\":"
                               "\"v1\",\"resource\":\"pods\"},\"operation\":\"UPDATE\","
                               "\"namespace\":\"default\",\"name\":\"p\",\"object\":%s,"
                               "\"oldObject\":%s,\"dryRun\":false,\"options\":{\"kind\":"
                               "\"UpdateOptions\"}}}",
                               object, old),
                 WH_OK);
    return wh_buf_take(&b, NULL);
}

/* Every valid Pod under --max-body-bytes is admitted: an UPDATE review of 1 MiB of env
 * entries, labels, ports or annotations, object and oldObject both (and where one item
 * differs between them, so that the lists are parsed twice); the amplifying bodies of
 * dispatch_amplifying_body_is_413_and_memory_goes_back stay refused. */
TEST(dispatch_update_reviews_of_small_items_are_admitted)
{
    static const char *const names[] = {"env", "labels", "ports", "annotations"};
    wh_reqmem_set_limit(40u << 20);
    for (int shape = SHAPE_ENV; shape <= SHAPE_ANNOTATIONS; shape++) {
        for (int changed = 0; changed < 2; changed++) {
            char *pod = pod_of((enum shape)shape, 1u << 20, false);
            char *old = pod_of((enum shape)shape, 1u << 20, changed);
            char *body = update_of(pod, old);
            size_t len = strlen(body);
            CHECK(len > 2u << 20 && len < 3u << 20);
            struct wh_reply reply;
            wh_dispatch(&r_allow, NULL, body, len, &reply);
            CHECK_EQ_INT(reply.http_status, 200);
            if (reply.http_status != 200)
                fprintf(stderr, "  %s%s: %.200s\n", names[shape], changed ? " (changed)" : "",
                        reply.body);
            wh_reply_fini(&reply);
            CHECK_EQ_INT(wh_reqmem_in_use(), 0);
            free(body);
            free(old);
            free(pod);
        }
    }
    /* Amplification: empty objects, empty arrays. */
    size_t len = 0;
    char *body = empties(3u << 20, &len);
    for (size_t i = 1; i + 1 < len; i += 3)
        memcpy(body + i, "[]", 2);
    struct wh_reply reply;
    wh_dispatch(&r_allow, NULL, body, len, &reply);
    CHECK_EQ_INT(reply.http_status, 413);
    wh_reply_fini(&reply);
    free(body);
    wh_reqmem_set_limit(0);
}
