/* handlers/pod: the frame that the Pod features plug into -- step order and operation masks,
 * first denial wins, errors and their codes, dry-run detection, evictions decoded as
 * Evictions with the named Pod read once, the copy-on-write editor, generic explain notes --
 * and the two small steps of its own (readiness gate, container launch priority). */
#include "test/unit/test.h"

#include <stdlib.h>

#include "config/config.h"
#include "config/features.h"
#include "handlers/pod/launch_priority.h"
#include "handlers/pod/pipeline.h"
#include "handlers/pod/readiness_gate.h"
#include "handlers/registry.h"
#include "kube/cluster.h"
#include "util/json.h"
#include "util/str.h"

/* --- recording steps ------------------------------------------------------------------------ */

static char trail[512];            /* "name(op,dry)" of every step run, in order */
static const json_t *evicted_seen; /* the evicted Pod as the first step got it */

static void record(const struct wh_pod_review *pr, const char *name)
{
    size_t n = strlen(trail);
    snprintf(trail + n, sizeof(trail) - n, "%s%s(%u,%d)", n ? " " : "", name, pr->op, pr->dry_run);
}

static enum wh_err mutate_a(struct wh_pod_review *pr, struct wh_errbuf *eb)
{
    (void)eb;
    record(pr, "a");
    json_object_set_new(wh_pod_review_own(pr, "metadata", "labels", NULL), "a", json_string("1"));
    wh_pod_review_explain(pr, "thing", true, "labelled %s", "a");
    return WH_OK;
}

/* Sees a's edit; fails when the pod carries label fail-b. */
static enum wh_err mutate_b(struct wh_pod_review *pr, struct wh_errbuf *eb)
{
    record(pr, "b");
    const json_t *labels = wh_json_path(wh_pod_review_pod(pr), "metadata", "labels", NULL);
    CHECK_EQ_STR(wh_json_str(labels, "a"), "1");
    if (json_object_get(labels, "fail-b"))
        return wh_errbuf_set(eb, WH_ERR_INVALID, "b failed");
    return WH_OK;
}

static enum wh_err validate_c(struct wh_pod_review *pr, struct wh_errbuf *eb)
{
    (void)eb;
    record(pr, "c");
    const json_t *pod = pr->op == WH_POD_DELETE ? wh_pod_review_old(pr) : wh_pod_review_pod(pr);
    if (pr->op == WH_POD_EVICT) {
        enum wh_err rc = wh_pod_review_evicted(pr, &pod, eb);
        if (rc)
            return rc;
    }
    if (wh_str_eq(wh_json_meta_str(pod, "name"), "deny-c"))
        wh_admission_deny(pr->resp, 403, "c says no");
    return WH_OK;
}

static enum wh_err validate_d(struct wh_pod_review *pr, struct wh_errbuf *eb)
{
    record(pr, "d");
    if (pr->op == WH_POD_EVICT) {
        const json_t *pod = NULL;
        enum wh_err rc = wh_pod_review_evicted(pr, &pod, eb);
        if (rc)
            return rc;
        CHECK(!evicted_seen || pod == evicted_seen); /* read once, shared */
    }
    const json_t *old = wh_pod_review_old(pr);
    if (json_object_get(wh_json_path(old, "metadata", "labels", NULL), "err-d"))
        return wh_errbuf_set(eb, WH_ERR_INVALID, "d could not decide");
    return WH_OK;
}

static bool never(const struct wh_config *cfg)
{
    (void)cfg;
    return false;
}

static const struct wh_pod_step step_a = {
    .name = "a", .mutate_ops = WH_POD_CREATE, .mutate = mutate_a};
static const struct wh_pod_step step_b = {
    .name = "b", .mutate_ops = WH_POD_CREATE | WH_POD_UPDATE, .mutate = mutate_b};
static const struct wh_pod_step step_off = {
    .name = "off", .mutate_ops = WH_POD_CREATE, .enabled = never, .mutate = mutate_a};
static const struct wh_pod_step step_c = {.name = "c",
                                          .validate_ops =
                                              WH_POD_DELETE | WH_POD_EVICT | WH_POD_UPDATE,
                                          .validate = validate_c};
static const struct wh_pod_step step_d = {
    .name = "d", .validate_ops = WH_POD_DELETE | WH_POD_EVICT, .validate = validate_d};

/* --- requests ------------------------------------------------------------------------------ */

struct req {
    json_t *review;
    struct wh_admission_request r;
    struct wh_admission_response resp;
};

/* op, sub, object and oldObject (JSON text or NULL), options (JSON text or NULL), dryRun. */
static void req_init(struct req *q, const char *op, const char *sub, const char *object,
                     const char *old, const char *options, bool dry)
{
    json_t *req = json_pack("{s:s,s:{s:s,s:s,s:s},s:{s:s,s:s,s:s},s:s,s:s,s:s,s:s,s:b}", "uid",
                            "u1", "kind", "group", "", "version", "v1", "kind", "Pod", "resource",
                            "group", "", "version", "v1", "resource", "pods", "subResource", sub,
                            "operation", op, "namespace", "ns", "name", "web-0", "dryRun", dry);
    json_object_set_new(req, "object", object ? wh_test_json(object) : json_null());
    json_object_set_new(req, "oldObject", old ? wh_test_json(old) : json_null());
    if (options)
        json_object_set_new(req, "options", wh_test_json(options));
    q->review = json_pack("{s:s,s:s,s:o}", "apiVersion", "admission.k8s.io/v1", "kind",
                          "AdmissionReview", "request", req);
    struct wh_errbuf eb = {{0}};
    if (wh_admission_decode(q->review, &q->r, &eb))
        fprintf(stderr, "decode: %s\n", eb.msg);
    wh_admission_response_init(&q->resp);
    trail[0] = '\0';
    evicted_seen = NULL;
}

static void req_fini(struct req *q)
{
    wh_admission_response_fini(&q->resp);
    json_decref(q->review);
}

#define POD(name, labels)                                                                          \
    "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"" name "\","                 \
    "\"namespace\":\"ns\",\"labels\":" labels "},"                                                 \
    "\"spec\":{\"containers\":[{\"name\":\"app\",\"image\":\"nginx\"}]}}"
#define CREATE_OPTIONS "{\"kind\":\"CreateOptions\",\"apiVersion\":\"meta.k8s.io/v1\"}"
#define DELETE_OPTIONS "{\"kind\":\"DeleteOptions\",\"apiVersion\":\"meta.k8s.io/v1\"}"

static struct wh_config cfg_gates(const char *gates)
{
    struct wh_config cfg;
    memset(&cfg, 0, sizeof(cfg));
    wh_features_init(&cfg.features);
    struct wh_errbuf eb = {{0}};
    if (wh_features_parse(&cfg.features, gates, &eb))
        abort();
    return cfg;
}

/* --- the frame ----------------------------------------------------------------------------- */

struct note_log {
    char text[512];
};

static void on_note(void *arg, const char *step, const char *subject, bool acted,
                    const char *reason)
{
    struct note_log *n = arg;
    size_t len = strlen(n->text);
    snprintf(n->text + len, sizeof(n->text) - len, "[%s %s %d %s]", step, subject ? subject : "-",
             acted, reason);
}

TEST(pod_pipeline_mutate_order_ops_and_edits)
{
    struct wh_config cfg = cfg_gates("");
    struct wh_handler_ctx ctx = {.cfg = &cfg};
    const struct wh_pod_step *steps[] = {&step_off, &step_a, &step_b};
    struct req q;
    struct wh_errbuf eb = {{0}};
    struct note_log notes = {""};
    struct wh_pod_run_opts opts = {.explain = on_note, .explain_arg = &notes};
    req_init(&q, "CREATE", "", POD("p", "{}"), NULL, CREATE_OPTIONS, false);
    CHECK_EQ_INT(wh_pod_run_mutate(steps, 3, &ctx, &q.r, &q.resp, &opts, &eb), WH_OK);
    CHECK_EQ_STR(trail, "a(1,0) b(1,0)"); /* off is gated off; a runs before b */
    CHECK(q.resp.allowed);
    CHECK_EQ_STR(wh_json_str(wh_json_path(q.resp.mutated, "metadata", "labels", NULL), "a"), "1");
    /* the request's Pod is untouched: the edit is a private copy */
    CHECK(json_object_get(wh_json_path(q.r.object, "metadata", "labels", NULL), "a") == NULL);
    CHECK_EQ_STR(notes.text, "[a thing 1 labelled a]");
    req_fini(&q);

    /* UPDATE: only b handles it, and a's label is not there for b to see */
    req_init(&q, "UPDATE", "", POD("p", "{\"a\":\"1\"}"), POD("p", "{}"), CREATE_OPTIONS, false);
    CHECK_EQ_INT(wh_pod_run_mutate(steps, 3, &ctx, &q.r, &q.resp, NULL, &eb), WH_OK);
    CHECK_EQ_STR(trail, "b(2,0)");
    req_fini(&q);

    /* a step error ends the run with that error (the dispatcher answers 500, no patch) */
    req_init(&q, "CREATE", "", POD("p", "{\"fail-b\":\"x\"}"), NULL, CREATE_OPTIONS, false);
    CHECK_EQ_INT(wh_pod_run_mutate(steps, 3, &ctx, &q.r, &q.resp, NULL, &eb), WH_ERR_INVALID);
    CHECK_EQ_STR(eb.msg, "b failed");
    req_fini(&q);

    /* another subresource: no step */
    req_init(&q, "CREATE", "binding", POD("p", "{}"), NULL, CREATE_OPTIONS, false);
    CHECK_EQ_INT(wh_pod_run_mutate(steps, 3, &ctx, &q.r, &q.resp, NULL, &eb), WH_OK);
    CHECK_EQ_STR(trail, "");
    CHECK(q.resp.allowed && !q.resp.mutated);
    req_fini(&q);
}

TEST(pod_pipeline_mutate_undecodable_pod_is_400)
{
    struct wh_config cfg = cfg_gates("");
    struct wh_handler_ctx ctx = {.cfg = &cfg};
    const struct wh_pod_step *steps[] = {&step_a};
    struct wh_errbuf eb = {{0}};
    /* (a review whose object is not an object at all is refused whole, as a 400 Status) */
    static const char *const bad[] = {"{\"spec\":[]}", "{\"metadata\":\"x\"}", "{\"status\":true}"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct req q;
        req_init(&q, "CREATE", "", bad[i], NULL, CREATE_OPTIONS, false);
        CHECK_EQ_INT(wh_pod_run_mutate(steps, 1, &ctx, &q.r, &q.resp, NULL, &eb), WH_OK);
        CHECK(!q.resp.allowed);
        CHECK_EQ_INT(q.resp.code, 400);
        CHECK(wh_str_has_prefix(q.resp.message, "json: cannot unmarshal "));
        CHECK_EQ_STR(trail, "");
        req_fini(&q);
    }
}

TEST(pod_pipeline_validate_first_denial_and_errors)
{
    struct wh_config cfg = cfg_gates("");
    struct wh_handler_ctx ctx = {.cfg = &cfg};
    const struct wh_pod_step *steps[] = {&step_c, &step_d};
    struct wh_errbuf eb = {{0}};
    struct req q;
    /* allowed: both run, in order */
    req_init(&q, "DELETE", "", NULL, POD("web-0", "{}"), DELETE_OPTIONS, false);
    CHECK_EQ_INT(wh_pod_run_validate(steps, 2, &ctx, &q.r, &q.resp, &eb), WH_OK);
    CHECK_EQ_STR(trail, "c(4,0) d(4,0)");
    CHECK(q.resp.allowed);
    req_fini(&q);
    /* the first denial is the answer; d never runs */
    req_init(&q, "DELETE", "", NULL, POD("deny-c", "{}"), DELETE_OPTIONS, false);
    CHECK_EQ_INT(wh_pod_run_validate(steps, 2, &ctx, &q.r, &q.resp, &eb), WH_OK);
    CHECK_EQ_STR(trail, "c(4,0)");
    CHECK(!q.resp.allowed);
    CHECK_EQ_INT(q.resp.code, 403);
    CHECK_EQ_STR(q.resp.message, "c says no");
    req_fini(&q);
    /* a step error is a 400 with its message */
    req_init(&q, "DELETE", "", NULL, POD("web-0", "{\"err-d\":\"1\"}"), DELETE_OPTIONS, false);
    CHECK_EQ_INT(wh_pod_run_validate(steps, 2, &ctx, &q.r, &q.resp, &eb), WH_OK);
    CHECK(!q.resp.allowed);
    CHECK_EQ_INT(q.resp.code, 400);
    CHECK_EQ_STR(q.resp.message, "d could not decide");
    req_fini(&q);
    /* a DELETE without the deleted Pod: allowed before any step */
    req_init(&q, "DELETE", "", NULL, NULL, DELETE_OPTIONS, false);
    CHECK_EQ_INT(wh_pod_run_validate(steps, 2, &ctx, &q.r, &q.resp, &eb), WH_OK);
    CHECK_EQ_STR(trail, "");
    CHECK(q.resp.allowed);
    req_fini(&q);
    /* UPDATE: only c */
    req_init(&q, "UPDATE", "", POD("web-0", "{}"), POD("web-0", "{}"), NULL, false);
    CHECK_EQ_INT(wh_pod_run_validate(steps, 2, &ctx, &q.r, &q.resp, &eb), WH_OK);
    CHECK_EQ_STR(trail, "c(2,0)");
    req_fini(&q);
}

TEST(pod_pipeline_dry_run_sources)
{
    struct wh_config cfg = cfg_gates("");
    struct wh_handler_ctx ctx = {.cfg = &cfg};
    const struct wh_pod_step *steps[] = {&step_d};
    struct wh_errbuf eb = {{0}};
    struct {
        const char *op, *sub, *object, *options;
        bool dry;
        const char *want;
    } cases[] = {
        {"DELETE", "", NULL, DELETE_OPTIONS, false, "d(4,0)"},
        {"DELETE", "", NULL, DELETE_OPTIONS, true, "d(4,1)"},
        {"DELETE", "", NULL, "{\"dryRun\":[\"All\"]}", false, "d(4,1)"},
        {"DELETE", "", NULL, "{\"dryRun\":[]}", false, "d(4,0)"},
        {"CREATE", "eviction", "{\"kind\":\"Eviction\",\"deleteOptions\":{\"dryRun\":[\"All\"]}}",
         NULL, false, "d(8,1)"},
        {"CREATE", "eviction", "{\"kind\":\"Eviction\"}", NULL, false, "d(8,0)"},
    };
    json_t *objs = wh_test_json("[" POD("web-0", "{}") "]");
    struct wh_cluster *cl = NULL;
    CHECK_EQ_INT(wh_cluster_new_standalone_objects(objs, &cl, &eb), WH_OK);
    json_decref(objs);
    CHECK_EQ_INT(wh_cluster_start(cl, &eb), WH_OK);
    ctx.cluster = cl;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct req q;
        req_init(&q, cases[i].op, cases[i].sub, cases[i].object, POD("web-0", "{}"),
                 cases[i].options, cases[i].dry);
        CHECK_EQ_INT(wh_pod_run_validate(steps, 1, &ctx, &q.r, &q.resp, &eb), WH_OK);
        CHECK_EQ_STR(trail, cases[i].want);
        req_fini(&q);
    }
    /* the offline command is a dry run whatever the request says */
    ctx.offline = true;
    struct req q;
    req_init(&q, "DELETE", "", NULL, POD("web-0", "{}"), DELETE_OPTIONS, false);
    CHECK_EQ_INT(wh_pod_run_validate(steps, 1, &ctx, &q.r, &q.resp, &eb), WH_OK);
    CHECK_EQ_STR(trail, "d(4,1)");
    req_fini(&q);
    wh_cluster_free(cl);
}

/* validate_d checks that the Pod it gets is the one validate_c got */
static enum wh_err validate_first(struct wh_pod_review *pr, struct wh_errbuf *eb)
{
    enum wh_err rc = wh_pod_review_evicted(pr, &evicted_seen, eb);
    CHECK(wh_pod_review_pod(pr) == NULL); /* the object is an Eviction, not a Pod */
    CHECK(pr->eviction != NULL);
    return rc;
}

TEST(pod_pipeline_eviction_reads_the_pod_once)
{
    struct wh_config cfg = cfg_gates("");
    struct wh_errbuf eb = {{0}};
    json_t *objs = wh_test_json("[{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{"
                                "\"name\":\"web-0\",\"namespace\":\"ns\"}}]");
    struct wh_cluster *cl = NULL;
    CHECK_EQ_INT(wh_cluster_new_standalone_objects(objs, &cl, &eb), WH_OK);
    json_decref(objs);
    CHECK_EQ_INT(wh_cluster_start(cl, &eb), WH_OK);
    struct wh_handler_ctx ctx = {.cfg = &cfg, .cluster = cl};
    static const struct wh_pod_step first = {
        .name = "first", .validate_ops = WH_POD_EVICT, .validate = validate_first};
    const struct wh_pod_step *steps[] = {&first, &step_d};
    struct req q;
    req_init(&q, "CREATE", "eviction", "{\"apiVersion\":\"policy/v1\",\"kind\":\"Eviction\"}", NULL,
             NULL, false);
    CHECK_EQ_INT(wh_pod_run_validate(steps, 2, &ctx, &q.r, &q.resp, &eb), WH_OK);
    CHECK_EQ_STR(trail, "d(8,0)");
    CHECK(q.resp.allowed);
    req_fini(&q);
    /* a Pod that does not exist: the read error is a 400 with the API server's words */
    req_init(&q, "CREATE", "eviction", "{\"kind\":\"Eviction\"}", NULL, NULL, false);
    json_object_set_new(json_object_get(q.review, "request"), "name", json_string("gone"));
    CHECK_EQ_INT(wh_admission_decode(q.review, &q.r, &eb), WH_OK);
    CHECK_EQ_INT(wh_pod_run_validate(steps, 2, &ctx, &q.r, &q.resp, &eb), WH_OK);
    CHECK(!q.resp.allowed);
    CHECK_EQ_INT(q.resp.code, 400);
    CHECK(strstr(q.resp.message, "\"gone\" not found") != NULL);
    req_fini(&q);
    wh_cluster_free(cl);
}

/* --- the frame's own steps -------------------------------------------------------------------- */

static json_t *mutate_with(const struct wh_pod_step *step, const char *gates, const char *pod,
                           int *code, char *msg, size_t msgsz)
{
    struct wh_config cfg = cfg_gates(gates);
    struct wh_handler_ctx ctx = {.cfg = &cfg};
    const struct wh_pod_step *steps[] = {step};
    struct req q;
    struct wh_errbuf eb = {{0}};
    req_init(&q, "CREATE", "", pod, NULL, CREATE_OPTIONS, false);
    enum wh_err rc = wh_pod_run_mutate(steps, 1, &ctx, &q.r, &q.resp, NULL, &eb);
    *code = rc ? 500 : q.resp.code;
    snprintf(msg, msgsz, "%s", rc ? eb.msg : "");
    json_t *out = q.resp.mutated && !json_equal(q.resp.mutated, q.r.object)
                      ? wh_json_copy(q.resp.mutated)
                      : NULL;
    req_fini(&q);
    return out;
}

TEST(pod_readiness_gate_step)
{
    int code;
    char msg[256];
#define KRUISE_OWNED                                                                               \
    "{\"metadata\":{\"name\":\"p\",\"ownerReferences\":[{\"apiVersion\":\"apps.kruise.io/"         \
    "v1alpha1\",\"kind\":\"CloneSet\",\"name\":\"cs\",\"uid\":\"1\",\"controller\":true}]},"       \
    "\"spec\":{\"containers\":[{\"name\":\"a\"}]}}"
    json_t *out =
        mutate_with(&wh_pod_readiness_gate_step, "", KRUISE_OWNED, &code, msg, sizeof(msg));
    json_t *want = wh_test_json("[{\"conditionType\":\"KruisePodReady\"}]");
    CHECK(out && json_equal(wh_json_path(out, "spec", "readinessGates", NULL), want));
    json_decref(out);
    /* a Deployment's Pod: nothing, unless the gate asks for every Pod */
    const char *deploy = "{\"metadata\":{\"name\":\"p\",\"ownerReferences\":[{\"apiVersion\":"
                         "\"apps/v1\",\"kind\":\"ReplicaSet\",\"name\":\"rs\",\"uid\":\"1\","
                         "\"controller\":true}]},\"spec\":{\"containers\":[{\"name\":\"a\"}]}}";
    CHECK(mutate_with(&wh_pod_readiness_gate_step, "", deploy, &code, msg, sizeof(msg)) == NULL);
    out = mutate_with(&wh_pod_readiness_gate_step, "KruisePodReadinessGate=true", deploy, &code,
                      msg, sizeof(msg));
    CHECK(out && json_equal(wh_json_path(out, "spec", "readinessGates", NULL), want));
    json_decref(out);
    /* present already: no change; other gates are kept */
    CHECK(mutate_with(&wh_pod_readiness_gate_step, "KruisePodReadinessGate=true",
                      "{\"spec\":{\"readinessGates\":[{\"conditionType\":\"KruisePodReady\"}]}}",
                      &code, msg, sizeof(msg)) == NULL);
    out = mutate_with(&wh_pod_readiness_gate_step, "KruisePodReadinessGate=true",
                      "{\"spec\":{\"readinessGates\":[{\"conditionType\":\"x\"}]}}", &code, msg,
                      sizeof(msg));
    CHECK_EQ_INT(json_array_size(wh_json_path(out, "spec", "readinessGates", NULL)), 2);
    json_decref(out);
    json_decref(want);
}

TEST(pod_launch_priority_step)
{
    int code;
    char msg[256];
    /* Ordered: 0, -1, -2 in declaration order */
    json_t *out = mutate_with(
        &wh_pod_launch_priority_step, "",
        "{\"metadata\":{\"name\":\"p\",\"annotations\":{\"apps.kruise.io/container-launch-"
        "priority\":\"Ordered\"}},\"spec\":{\"containers\":[{\"name\":\"a\"},{\"name\":\"b\"},"
        "{\"name\":\"c\"}]}}",
        &code, msg, sizeof(msg));
    json_t *want = wh_test_json(
        "[{\"name\":\"KRUISE_CONTAINER_BARRIER\",\"valueFrom\":{\"configMapKeyRef\":{\"name\":"
        "\"p-barrier\",\"key\":\"p_-1\"}}}]");
    CHECK(out &&
          json_equal(wh_json_path(json_array_get(wh_json_path(out, "spec", "containers", NULL), 1),
                                  "env", NULL),
                     want));
    json_decref(want);
    json_decref(out);
    /* priorities from KRUISE_CONTAINER_PRIORITY, existing env kept; a generated name */
    out = mutate_with(&wh_pod_launch_priority_step, "",
                      "{\"metadata\":{\"generateName\":\"web-\"},\"spec\":{\"containers\":["
                      "{\"name\":\"a\",\"env\":[{\"name\":\"KRUISE_CONTAINER_PRIORITY\","
                      "\"value\":\"10\"}]},{\"name\":\"b\"}]}}",
                      &code, msg, sizeof(msg));
    const char *name = wh_json_meta_str(out, "name");
    CHECK(name && strlen(name) == 9 && wh_str_has_prefix(name, "web-"));
    for (const char *p = name ? name + 4 : ""; *p; p++)
        CHECK(strchr("bcdfghjklmnpqrstvwxz2456789", *p) != NULL);
    const json_t *env0 =
        wh_json_path(json_array_get(wh_json_path(out, "spec", "containers", NULL), 0), "env", NULL);
    CHECK_EQ_INT(json_array_size(env0), 2);
    CHECK_EQ_STR(
        wh_json_path_str(json_array_get(env0, 1), "valueFrom", "configMapKeyRef", "key", NULL),
        "p_10");
    json_decref(out);
    /* all equal, or one container: nothing */
    CHECK(mutate_with(&wh_pod_launch_priority_step, "",
                      "{\"spec\":{\"containers\":[{\"name\":\"a\",\"env\":[{\"name\":"
                      "\"KRUISE_CONTAINER_PRIORITY\",\"value\":\"1\"}]},{\"name\":\"b\",\"env\":"
                      "[{\"name\":\"KRUISE_CONTAINER_PRIORITY\",\"value\":\"1\"}]}]}}",
                      &code, msg, sizeof(msg)) == NULL);
    CHECK(mutate_with(&wh_pod_launch_priority_step, "",
                      "{\"metadata\":{\"annotations\":{\"apps.kruise.io/container-launch-"
                      "priority\":\"Ordered\"}},\"spec\":{\"containers\":[{\"name\":\"a\"}]}}",
                      &code, msg, sizeof(msg)) == NULL);
    /* a value Atoi refuses: 500 with Go's words */
    CHECK(mutate_with(&wh_pod_launch_priority_step, "",
                      "{\"spec\":{\"containers\":[{\"name\":\"a\",\"env\":[{\"name\":"
                      "\"KRUISE_CONTAINER_PRIORITY\",\"value\":\"x1\"}]},{\"name\":\"b\"}]}}",
                      &code, msg, sizeof(msg)) == NULL);
    CHECK_EQ_INT(code, 500);
    CHECK_EQ_STR(msg, "strconv.Atoi: parsing \"x1\": invalid syntax");
    mutate_with(&wh_pod_launch_priority_step, "",
                "{\"spec\":{\"containers\":[{\"name\":\"a\",\"env\":[{\"name\":"
                "\"KRUISE_CONTAINER_PRIORITY\",\"value\":\"99999999999999999999\"}]},"
                "{\"name\":\"b\"}]}}",
                &code, msg, sizeof(msg));
    CHECK_EQ_STR(msg, "strconv.Atoi: parsing \"99999999999999999999\": value out of range");
}

TEST(pod_routes_steps_in_upstream_order)
{
    size_t n = 0;
    const struct wh_pod_step *const *m = wh_pod_steps(false, &n);
    const char *names[8] = {0};
    for (size_t i = 0; i < n && i < 8; i++)
        names[i] = m[i]->name;
    /* upstream: readiness gate, WorkloadSpread, SidecarSet, container launch priority, ... */
    CHECK(n >= 4);
    CHECK_EQ_STR(names[0], "readiness-gate");
    CHECK_EQ_STR(names[1], "workloadspread");
    CHECK_EQ_STR(names[2], "sidecarset");
    CHECK_EQ_STR(names[3], "container-launch-priority");
    const struct wh_pod_step *const *v = wh_pod_steps(true, &n);
    CHECK(n >= 1);
    CHECK_EQ_STR(v[0]->name, "workloadspread");
    /* a step that writes says so */
    CHECK(m[1]->side_effects);
    CHECK(!m[2]->side_effects);
}

/* The routes' facts that follow from their step lists: the vector areas they run (the step
 * names) and their side effects (some step writes). */
TEST(pod_routes_cover_their_steps_areas)
{
    CHECK(wh_route_covers(&wh_pod_mutate_route, "sidecarset"));
    CHECK(wh_route_covers(&wh_pod_mutate_route, "workloadspread"));
    CHECK(wh_route_covers(&wh_pod_mutate_route, "pub"));
    CHECK(!wh_route_covers(&wh_pod_mutate_route, "deletion-protection"));
    CHECK(!wh_route_covers(&wh_pod_validate_route, "sidecarset"));
    CHECK(wh_route_covers(&wh_pod_validate_route, "pub"));
    CHECK(wh_routes_implement("/validate-pod", "workloadspread"));
    CHECK(!wh_routes_implement("/validate-pod", "sidecarset"));
    CHECK(wh_routes_implement("/validate-namespace", "deletion-protection"));
    CHECK(!wh_routes_implement("/validate-nothing", "deletion-protection"));
    for (int validate = 0; validate < 2; validate++) {
        size_t n = 0;
        const struct wh_pod_step *const *steps = wh_pod_steps(validate, &n);
        bool writes = false;
        for (size_t i = 0; i < n; i++) {
            writes |= steps[i]->side_effects;
            CHECK(wh_route_covers(validate ? &wh_pod_validate_route : &wh_pod_mutate_route,
                                  steps[i]->name));
        }
        CHECK(writes == (validate ? wh_pod_validate_route : wh_pod_mutate_route).side_effects);
    }
}
