/* handlers/pub: PodUnavailableBudget's Pod step, rule by rule of spec pub.md -- the gates (2),
 * the related-PUB annotation and the workload of a new Pod (4), which requests are examined
 * (5.1), unavailability-causing updates and resizes (5.2), the check order and the budget
 * (5.3), the order after WorkloadSpread (6) and the quirks (8) -- against standalone state, and
 * the status write under conflicts, deadlines and API errors against the fake API server. */
#include "test/unit/test.h"

#include <stdlib.h>

#include "config/config.h"
#include "config/features.h"
#include "gocompat/gotime.h"
#include "handlers/pod/pipeline.h"
#include "handlers/pub/pub.h"
#include "kube/cluster.h"
#include "metrics/metrics.h"
#include "test/support/apiserver_proc.h"
#include "util/arena.h"
#include "util/deadline.h"
#include "util/json.h"
#include "util/str.h"
#include "util/time.h"

#define NS "ns"
#define DIGEST "sha256:0d17b565c37bcbd895e9d92315a05c1c3c9a29f762b011a10c54a66cd53c9b31"

/* --- objects ------------------------------------------------------------------------------- */

/* A ready Pod of StatefulSet web, protected by PUB pub (both annotations). Returns: new ref. */
static json_t *pod(const char *name)
{
    json_t *p = wh_test_json(
        "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"namespace\":\"" NS "\","
        "\"labels\":{\"app\":\"web\"},\"annotations\":{\"pub.kruise.io/related-pub\":\"pub\","
        "\"kruise.io/related-pub\":\"pub\"},\"ownerReferences\":[{\"apiVersion\":\"apps/v1\","
        "\"kind\":\"StatefulSet\",\"name\":\"web\",\"uid\":\"u-web\",\"controller\":true}]},"
        "\"spec\":{\"containers\":[{\"name\":\"main\",\"image\":\"nginx:1.25\",\"resources\":{}}]},"
        "\"status\":{\"phase\":\"Running\",\"conditions\":[{\"type\":\"Ready\",\"status\":"
        "\"True\"}],\"containerStatuses\":[{\"name\":\"main\",\"image\":\"nginx:1.25\","
        "\"imageID\":\"docker.io/library/nginx@" DIGEST "\",\"ready\":true}]}}");
    json_object_set_new(json_object_get(p, "metadata"), "name", json_string(name));
    return p;
}

/* PUB name with selector app=web and the given status numbers. Returns: new ref. */
static json_t *pub(const char *name, int allowed, int desired)
{
    return json_pack("{s:s,s:s,s:{s:s,s:s},s:{s:{s:{s:s}},s:i},s:{s:i,s:i,s:i,s:i}}", "apiVersion",
                     "policy.kruise.io/v1beta1", "kind", "PodUnavailableBudget", "metadata", "name",
                     name, "namespace", NS, "spec", "selector", "matchLabels", "app", "web",
                     "maxUnavailable", 1, "status", "unavailableAllowed", allowed,
                     "desiredAvailable", desired, "currentAvailable", desired + allowed,
                     "totalReplicas", desired + 1);
}

static void set_path(json_t *obj, const char *a, const char *b, json_t *value)
{
    json_object_set_new(wh_json_obj_ensure(obj, a), b, value);
}

/* --- the fixture: standalone state, the pub step alone or the routes ----------------------- */

struct fx {
    struct wh_config cfg;
    struct wh_cluster *cl;
    struct wh_handler_ctx ctx;
};

/* Steals: objects (an array). */
static void fx_init(struct fx *f, const char *gates, json_t *objects)
{
    memset(f, 0, sizeof(*f));
    wh_features_init(&f->cfg.features);
    struct wh_errbuf eb = {{0}};
    if (wh_features_parse(&f->cfg.features, gates, &eb))
        abort();
    if (wh_cluster_new_standalone_objects(objects, &f->cl, &eb))
        abort();
    json_decref(objects);
    if (wh_pod_routes_setup(f->cl, &f->cfg, &eb) || wh_cluster_start(f->cl, &eb))
        abort();
    f->ctx.cfg = &f->cfg;
    f->ctx.cluster = f->cl;
}

static void fx_fini(struct fx *f)
{
    wh_cluster_free(f->cl);
}

/* Returns: new ref, the stored object (NULL when absent). */
static json_t *stored(struct fx *f, const char *name)
{
    json_t *o = NULL;
    struct wh_errbuf eb = {{0}};
    if (wh_cluster_get_live(f->cl, "policy.kruise.io", "v1beta1", "podunavailablebudgets", NS, name,
                            &o, &eb))
        return NULL;
    return o;
}

static long long allowed_of(const json_t *p)
{
    return json_integer_value(wh_json_path(p, "status", "unavailableAllowed", NULL));
}

struct answer {
    bool allowed;
    int code;
    char msg[512];
    json_t *mutated; /* /mutate-pod: the Pod after the patch (new ref) or NULL */
};

static void answer_fini(struct answer *a)
{
    json_decref(a->mutated);
}

#define DELETE_OPTIONS "{\"apiVersion\":\"meta.k8s.io/v1\",\"kind\":\"DeleteOptions\"}"
#define UPDATE_OPTIONS "{\"apiVersion\":\"meta.k8s.io/v1\",\"kind\":\"UpdateOptions\"}"
#define CREATE_OPTIONS "{\"apiVersion\":\"meta.k8s.io/v1\",\"kind\":\"CreateOptions\"}"
#define DRY_DELETE "{\"kind\":\"DeleteOptions\",\"dryRun\":[\"All\"]}"

/* Sends a review whose request is built by the caller (review: new ref, stolen). */
static struct answer send_review(struct fx *f, json_t *review, bool mutate)
{
    /* As the dispatcher runs it: the whole review in the request arena, so that the status
     * bookkeeping (what it keeps past the request) is checked to make none of it there. */
    wh_arena_begin();
    json_t *in_arena = wh_json_copy(review);
    json_decref(review);
    review = in_arena;
    struct wh_admission_request r;
    struct wh_admission_response resp;
    struct wh_errbuf eb = {{0}};
    struct answer a;
    memset(&a, 0, sizeof(a));
    if (wh_admission_decode(review, &r, &eb))
        abort();
    wh_admission_response_init(&resp);
    enum wh_err rc = mutate ? wh_pod_mutate_admit(&f->ctx, &r, &resp, &eb)
                            : wh_pod_validate_admit(&f->ctx, &r, &resp, &eb);
    a.allowed = rc == WH_OK && resp.allowed;
    a.code = rc ? 500 : resp.code;
    snprintf(a.msg, sizeof(a.msg), "%s", rc ? eb.msg : resp.message ? resp.message : "");
    if (mutate && resp.mutated && !json_equal(resp.mutated, r.object)) {
        wh_arena_pause(); /* the answer outlives the request */
        a.mutated = wh_json_copy(resp.mutated);
        wh_arena_resume();
    }
    wh_admission_response_fini(&resp);
    json_decref(review);
    wh_arena_end();
    return a;
}

/* Sends one review through /validate-pod (or /mutate-pod when op is CREATE without a
 * subresource). Steals: object, old (either may be NULL); options is JSON text or NULL. */
static struct answer send(struct fx *f, const char *op, const char *sub, const char *name,
                          json_t *object, json_t *old, const char *options)
{
    json_t *req =
        json_pack("{s:s,s:{s:s,s:s,s:s},s:{s:s,s:s,s:s},s:s,s:s,s:s,s:s,s:{s:s}}", "uid", "uid-1",
                  "kind", "group", "", "version", "v1", "kind", "Pod", "resource", "group", "",
                  "version", "v1", "resource", "pods", "subResource", sub, "operation", op,
                  "namespace", NS, "name", name, "userInfo", "username", "tester");
    json_object_set_new(req, "object", object ? object : json_null());
    json_object_set_new(req, "oldObject", old ? old : json_null());
    if (options)
        json_object_set_new(req, "options", wh_test_json(options));
    json_t *review = json_pack("{s:s,s:s,s:o}", "apiVersion", "admission.k8s.io/v1", "kind",
                               "AdmissionReview", "request", req);
    return send_review(f, review, strcmp(op, "CREATE") == 0 && !*sub);
}

static struct answer delete_pod(struct fx *f, json_t *p, const char *options)
{
    const char *name = wh_json_meta_str(p, "name");
    char n[128];
    snprintf(n, sizeof(n), "%s", name ? name : "");
    return send(f, "DELETE", "", n, NULL, p, options);
}

/* A DELETE of a Pod whose containers Go cannot decode, with options (JSON text or NULL): 400
 * with the decoder's words. */
static void delete_undecodable_pod(struct fx *f, const char *options)
{
    json_t *p = pod("web-0");
    set_path(p, "spec", "containers", wh_test_json("{}"));
    struct answer a = delete_pod(f, p, options);
    CHECK_EQ_INT(a.code, 400);
    CHECK_EQ_STR(a.msg,
                 "json: cannot unmarshal object into Go struct field PodSpec.spec.containers "
                 "of type []v1.Container");
}

#define NEGATIVE                                                                                   \
    "podunavailablebudget.policy.kruise.io \"pub\" is forbidden: pub unavailable "                 \
    "allowed is negative"

/* --- 2: gates ------------------------------------------------------------------------------- */

TEST(pub_gates)
{
    struct fx f;
    /* delete gate off: nothing is examined */
    fx_init(&f, "PodUnavailableBudgetDeleteGate=false", json_pack("[o]", pub("pub", 0, 3)));
    struct answer a = delete_pod(&f, pod("web-0"), DELETE_OPTIONS);
    CHECK(a.allowed);
    fx_fini(&f);
    /* default gates: updates are never checked (quirk 8.4) */
    fx_init(&f, "", json_pack("[o]", pub("pub", 0, 3)));
    json_t *newp = pod("web-0");
    json_object_set_new(json_array_get(wh_json_path(newp, "spec", "containers", NULL), 0), "image",
                        json_string("nginx:1.26"));
    a = send(&f, "UPDATE", "", "web-0", newp, pod("web-0"), UPDATE_OPTIONS);
    CHECK(a.allowed);
    /* ... while deletions are */
    a = delete_pod(&f, pod("web-0"), DELETE_OPTIONS);
    CHECK(!a.allowed);
    CHECK_EQ_INT(a.code, 403);
    fx_fini(&f);
    /* the annotation step runs with either gate; PodWebhook off forces both off */
    struct wh_config cfg;
    memset(&cfg, 0, sizeof(cfg));
    wh_features_init(&cfg.features);
    struct wh_errbuf eb = {{0}};
    CHECK(wh_pub_pod_step.enabled(&cfg));
    CHECK_EQ_INT(wh_features_parse(&cfg.features,
                                   "PodUnavailableBudgetDeleteGate=false,"
                                   "PodUnavailableBudgetUpdateGate=true",
                                   &eb),
                 WH_OK);
    CHECK(wh_pub_pod_step.enabled(&cfg));
    CHECK_EQ_INT(wh_features_parse(&cfg.features, "PodWebhook=false", &eb), WH_OK);
    CHECK(!wh_pub_pod_step.enabled(&cfg));
}

/* --- 4: the related-PUB annotation ----------------------------------------------------------- */

static json_t *new_pod(const char *labels, const char *owner_json)
{
    json_t *p = wh_test_json("{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":"
                             "\"p\",\"namespace\":\"" NS "\"},\"spec\":{\"containers\":[{"
                             "\"name\":\"a\",\"image\":\"nginx\"}]}}");
    json_t *meta = json_object_get(p, "metadata");
    json_object_set_new(meta, "labels", wh_test_json(labels));
    if (owner_json)
        json_object_set_new(meta, "ownerReferences", wh_test_json(owner_json));
    return p;
}

static const char *related_of(const struct answer *a)
{
    const char *x = wh_json_annotation(a->mutated, "pub.kruise.io/related-pub");
    const char *y = wh_json_annotation(a->mutated, "kruise.io/related-pub");
    return x && wh_str_eq(x, y) ? x : NULL;
}

static json_t *pub_with_spec(const char *name, const char *spec)
{
    json_t *p = pub(name, 1, 3);
    json_object_set_new(p, "spec", wh_test_json(spec));
    return p;
}

TEST(pub_mutate_selector_annotations)
{
    struct fx f;
    /* a PUB of another namespace: no patch */
    json_t *elsewhere = pub_with_spec("elsewhere", "{\"selector\":{\"matchLabels\":{\"app\":"
                                                   "\"web\"}}}");
    json_object_set_new(json_object_get(elsewhere, "metadata"), "namespace", json_string("other"));
    fx_init(&f, "", json_pack("[o]", elsewhere));
    struct answer a =
        send(&f, "CREATE", "", "", new_pod("{\"app\":\"web\"}", NULL), NULL, CREATE_OPTIONS);
    CHECK(a.allowed && !a.mutated);
    answer_fini(&a);
    fx_fini(&f);

    json_t *objs =
        json_pack("[o,o,o,o]", pub_with_spec("a-empty", "{\"selector\":{}}"),
                  pub_with_spec("b-nil", "{\"maxUnavailable\":1}"),
                  pub_with_spec("c-bad", "{\"selector\":{\"matchExpressions\":[{\"key\":\"app\","
                                         "\"operator\":\"Foo\"}]}}"),
                  pub_with_spec("d-web", "{\"selector\":{\"matchExpressions\":[{\"key\":\"app\","
                                         "\"operator\":\"In\",\"values\":[\"web\",\"api\"]}]}}"));
    fx_init(&f, "", objs);
    /* empty, nil and unparsable selectors match nothing; both keys are (over)written */
    json_t *p = new_pod("{\"app\":\"web\"}", NULL);
    set_path(p, "metadata", "annotations",
             wh_test_json("{\"kruise.io/related-pub\":\"old\",\"keep\":\"1\"}"));
    a = send(&f, "CREATE", "", "", p, NULL, CREATE_OPTIONS);
    CHECK(a.allowed);
    CHECK_EQ_STR(related_of(&a), "d-web");
    CHECK_EQ_STR(wh_json_annotation(a.mutated, "keep"), "1");
    answer_fini(&a);
    /* no match: unchanged, no patch */
    a = send(&f, "CREATE", "", "", new_pod("{\"app\":\"db\"}", NULL), NULL, CREATE_OPTIONS);
    CHECK(a.allowed && !a.mutated);
    answer_fini(&a);
    /* the namespace comes from the request when the Pod names none */
    p = new_pod("{\"app\":\"web\"}", NULL);
    json_object_del(json_object_get(p, "metadata"), "namespace");
    a = send(&f, "CREATE", "", "", p, NULL, CREATE_OPTIONS);
    CHECK_EQ_STR(related_of(&a), "d-web");
    answer_fini(&a);
    /* other operations and subresources are not annotated */
    a = send(&f, "CREATE", "binding", "", new_pod("{\"app\":\"web\"}", NULL), NULL, CREATE_OPTIONS);
    CHECK(a.allowed && !a.mutated);
    answer_fini(&a);
    fx_fini(&f);
}

static json_t *workload(const char *api_version, const char *kind, const char *name,
                        const char *uid, const char *owner_json)
{
    json_t *w = json_pack("{s:s,s:s,s:{s:s,s:s,s:s}}", "apiVersion", api_version, "kind", kind,
                          "metadata", "name", name, "namespace", NS, "uid", uid);
    if (owner_json)
        set_path(w, "metadata", "ownerReferences", wh_test_json(owner_json));
    return w;
}

static json_t *target_pub(const char *name, const char *api_version, const char *kind,
                          const char *target)
{
    json_t *p = pub(name, 1, 3);
    json_object_set_new(p, "spec",
                        json_pack("{s:{s:s,s:s,s:s},s:i}", "targetRef", "apiVersion", api_version,
                                  "kind", kind, "name", target, "maxUnavailable", 1));
    return p;
}

#define OWNER(av, kind, name, uid)                                                                 \
    "[{\"apiVersion\":\"" av "\",\"kind\":\"" kind "\",\"name\":\"" name "\",\"uid\":\"" uid       \
    "\",\"controller\":true}]"

static const char *annotated(struct fx *f, const char *labels, const char *owner)
{
    static char name[64];
    struct answer a = send(f, "CREATE", "", "", new_pod(labels, owner), NULL, CREATE_OPTIONS);
    snprintf(name, sizeof(name), "%s", related_of(&a) ? related_of(&a) : "(none)");
    answer_fini(&a);
    return name;
}

TEST(pub_mutate_target_ref_workloads)
{
    json_t *objs = json_pack(
        "[o,o,o,o,o,o,o,o,o,o,o,o,o]", workload("apps/v1", "Deployment", "dep", "u-dep", NULL),
        workload("apps/v1", "ReplicaSet", "dep-1", "u-rs1",
                 OWNER("apps/v1", "Deployment", "dep", "u-dep")),
        workload("apps/v1", "ReplicaSet", "dep-2", "u-rs2",
                 OWNER("apps/v1", "Deployment", "dep", "u-other")),
        workload("apps/v1", "ReplicaSet", "lonely", "u-rs3", NULL),
        workload("apps/v1", "StatefulSet", "sts", "u-sts", NULL),
        workload("apps.kruise.io/v1beta1", "CloneSet", "cs", "u-cs", NULL),
        workload("apps.kruise.io/v1beta1", "StatefulSet", "asts", "u-asts", NULL),
        workload("v1", "ReplicationController", "rc", "u-rc", NULL),
        target_pub("p-dep", "apps/v1", "Deployment", "dep"),
        target_pub("p-rs", "apps/v1", "ReplicaSet", "dep-2"),
        target_pub("p-cs", "apps.kruise.io/v1alpha1", "CloneSet", "cs"),
        target_pub("p-rc", "v1", "ReplicationController", "rc"),
        pub_with_spec("z-selector", "{\"selector\":{\"matchLabels\":{\"app\":\"web\"}}}"));
    struct fx f;
    fx_init(&f, "", objs);
    /* 4.1: a Deployment's ReplicaSet stands for the Deployment (uids agree) */
    CHECK_EQ_STR(annotated(&f, "{}", OWNER("apps/v1", "ReplicaSet", "dep-1", "x")), "p-dep");
    /* ... not when the Deployment's uid differs: the ReplicaSet itself is the workload */
    CHECK_EQ_STR(annotated(&f, "{}", OWNER("apps/v1", "ReplicaSet", "dep-2", "x")), "p-rs");
    /* the group decides, not the version: a v1beta1 CloneSet owner, a v1alpha1 targetRef */
    CHECK_EQ_STR(annotated(&f, "{}", OWNER("apps.kruise.io/v1beta1", "CloneSet", "cs", "x")),
                 "p-cs");
    /* a kind the caches do not hold is read from the state (ReplicationController) */
    CHECK_EQ_STR(annotated(&f, "{}", OWNER("v1", "ReplicationController", "rc", "x")), "p-rc");
    /* a workload no PUB names: the selector PUB still matches by labels; a targetRef PUB that
     * names another workload never matches by selector */
    CHECK_EQ_STR(annotated(&f, "{\"app\":\"web\"}", OWNER("apps/v1", "StatefulSet", "sts", "x")),
                 "z-selector");
    CHECK_EQ_STR(annotated(&f, "{\"app\":\"db\"}", OWNER("apps/v1", "StatefulSet", "sts", "x")),
                 "(none)");
    /* a missing owner, or a kind of another group: no workload, selectors decide */
    CHECK_EQ_STR(annotated(&f, "{}", OWNER("apps/v1", "Deployment", "gone", "x")), "(none)");
    CHECK_EQ_STR(annotated(&f, "{\"app\":\"web\"}", OWNER("apps/v1", "Deployment", "gone", "x")),
                 "z-selector");
    CHECK_EQ_STR(annotated(&f, "{}", OWNER("extensions/v1beta1", "Deployment", "dep", "x")),
                 "(none)");
    /* a malformed apiVersion is no workload, not an error */
    CHECK_EQ_STR(annotated(&f, "{\"app\":\"web\"}", OWNER("a/b/c", "Deployment", "dep", "x")),
                 "z-selector");
    fx_fini(&f);
}

/* --- 5.1: which requests are examined ----------------------------------------------------------
 */

TEST(pub_examined_requests)
{
    struct fx f;
    fx_init(&f, "PodUnavailableBudgetUpdateGate=true", json_pack("[o]", pub("pub", 0, 3)));
    /* a protected ready Pod with no budget left: denied, with the exact message */
    struct answer a = delete_pod(&f, pod("web-0"), DELETE_OPTIONS);
    CHECK(!a.allowed);
    CHECK_EQ_INT(a.code, 403);
    CHECK_EQ_STR(a.msg, NEGATIVE);
    /* without the related-PUB annotations it is let through, whatever selects it */
    json_t *p = pod("web-0");
    json_object_del(json_object_get(p, "metadata"), "annotations");
    CHECK(delete_pod(&f, p, DELETE_OPTIONS).allowed);
    /* an empty current key falls back to the deprecated one */
    p = pod("web-0");
    set_path(p, "metadata", "annotations",
             wh_test_json("{\"pub.kruise.io/related-pub\":\"\",\"kruise.io/related-pub\":"
                          "\"pub\"}"));
    CHECK(!delete_pod(&f, p, DELETE_OPTIONS).allowed);
    /* DELETE without options: 400 */
    a = delete_pod(&f, pod("web-0"), NULL);
    CHECK(!a.allowed);
    CHECK_EQ_INT(a.code, 400);
    CHECK_EQ_STR(a.msg, "there is no content to decode");
    /* what Go's decoder refuses is a 400 with its words: the options, the deleted Pod */
    a = delete_pod(&f, pod("web-0"), "{\"dryRun\":\"All\"}");
    CHECK_EQ_INT(a.code, 400);
    CHECK_EQ_STR(a.msg, "json: cannot unmarshal string into Go struct field DeleteOptions.dryRun "
                        "of type []string");
    delete_undecodable_pod(&f, DELETE_OPTIONS);
    /* a subresource DELETE, and a CREATE of another subresource: allowed */
    CHECK(send(&f, "DELETE", "status", "web-0", NULL, pod("web-0"), DELETE_OPTIONS).allowed);
    CHECK(send(&f, "CREATE", "binding", "web-0", pod("web-0"), NULL, CREATE_OPTIONS).allowed);
    /* an eviction of a Pod that cannot be read: 400 with the read's error */
    a = send(&f, "CREATE", "eviction", "gone",
             wh_test_json("{\"apiVersion\":\"policy/v1\",\"kind\":\"Eviction\"}"), NULL,
             CREATE_OPTIONS);
    CHECK_EQ_INT(a.code, 400);
    CHECK(strstr(a.msg, "Pod \"gone\" not found") != NULL);
    /* an UPDATE whose new Pod has no annotation is let through before anything else */
    p = pod("web-0");
    json_object_del(json_object_get(p, "metadata"), "annotations");
    CHECK(send(&f, "UPDATE", "", "web-0", p, pod("web-0"), NULL).allowed);
    /* an UPDATE that cannot make the Pod unavailable needs no options either */
    p = pod("web-0");
    set_path(p, "metadata", "labels", wh_test_json("{\"app\":\"web\",\"tier\":\"x\"}"));
    CHECK(send(&f, "UPDATE", "", "web-0", p, pod("web-0"), NULL).allowed);
    /* ... one that can, does */
    p = pod("web-0");
    set_path(p, "metadata", "labels",
             wh_test_json("{\"app\":\"web\",\"unavailable-pod.kruise.io/x\":\"\"}"));
    a = send(&f, "UPDATE", "", "web-0", p, pod("web-0"), NULL);
    CHECK_EQ_INT(a.code, 400);
    CHECK_EQ_STR(a.msg, "there is no content to decode");
    /* the old Pod is the one judged: an old Pod without the annotation is let through */
    json_t *old = pod("web-0");
    json_object_del(json_object_get(old, "metadata"), "annotations");
    p = pod("web-0");
    json_object_set_new(json_array_get(wh_json_path(p, "spec", "containers", NULL), 0), "image",
                        json_string("nginx:1.26"));
    CHECK(send(&f, "UPDATE", "", "web-0", wh_json_copy(p), old, UPDATE_OPTIONS).allowed);
    CHECK(!send(&f, "UPDATE", "", "web-0", p, pod("web-0"), UPDATE_OPTIONS).allowed);
    fx_fini(&f);
}

/* --- 5.2: unavailability-causing updates and resizes ------------------------------------------ */

static json_t *container0(json_t *p)
{
    return json_array_get(wh_json_path(p, "spec", "containers", NULL), 0);
}

static void set_resources(json_t *p, const char *resources)
{
    json_object_set_new(container0(p), "resources", wh_test_json(resources));
}

/* How an UPDATE from old to new is classified: "none" (cannot make the Pod unavailable),
 * "RESIZE" or "UPDATE", read from a PUB that protects only RESIZE (gate
 * InPlacePodVerticalScaling on) and another that protects only UPDATE, both with no budget.
 * Steals: old_pod, new_pod. */
static const char *classify(json_t *old_pod, json_t *new_pod)
{
    json_t *p = pub("pub", 0, 3);
    set_path(p, "spec", "protectOperations", wh_test_json("[\"RESIZE\"]"));
    struct fx f;
    fx_init(&f, "PodUnavailableBudgetUpdateGate=true,InPlacePodVerticalScaling=true",
            json_pack("[o]", p));
    bool resize_denied = !send(&f, "UPDATE", "", "web-0", wh_json_copy(new_pod),
                               wh_json_copy(old_pod), UPDATE_OPTIONS)
                              .allowed;
    fx_fini(&f);
    p = pub("pub", 0, 3);
    set_path(p, "spec", "protectOperations", wh_test_json("[\"UPDATE\"]"));
    fx_init(&f, "PodUnavailableBudgetUpdateGate=true,InPlacePodVerticalScaling=true",
            json_pack("[o]", p));
    bool update_denied = !send(&f, "UPDATE", "", "web-0", new_pod, old_pod, UPDATE_OPTIONS).allowed;
    fx_fini(&f);
    CHECK(!(resize_denied && update_denied));
    return resize_denied ? "RESIZE" : update_denied ? "UPDATE" : "none";
}

#define BURSTABLE "{\"requests\":{\"cpu\":\"500m\"},\"limits\":{\"cpu\":\"1\"}}"

/* A cpu request raised on a copy of old carrying kubernetes.io/config.source: source. */
static const char *resize_with_source(const json_t *old, const char *source)
{
    json_t *o = wh_json_copy(old);
    json_object_set_new(json_object_get(json_object_get(o, "metadata"), "annotations"),
                        "kubernetes.io/config.source", json_string(source));
    json_t *p = wh_json_copy(o);
    set_resources(p, "{\"requests\":{\"cpu\":\"800m\"},\"limits\":{\"cpu\":\"1\"}}");
    return classify(o, p);
}

TEST(pub_update_classification)
{
    /* 5.2 step 3: label and annotation changes cannot; adding an unavailable label can */
    json_t *p = pod("web-0");
    set_path(p, "metadata", "labels", wh_test_json("{\"app\":\"web\",\"tier\":\"x\"}"));
    set_path(p, "metadata", "annotations",
             wh_test_json("{\"pub.kruise.io/related-pub\":\"pub\",\"note\":\"x\"}"));
    CHECK_EQ_STR(classify(pod("web-0"), p), "none");
    p = pod("web-0");
    set_path(p, "metadata", "labels",
             wh_test_json("{\"app\":\"web\",\"unavailable-pod.kruise.io/drain\":\"true\"}"));
    CHECK_EQ_STR(classify(pod("web-0"), p), "UPDATE");
    /* status changes cannot */
    p = pod("web-0");
    set_path(p, "status", "phase", json_string("Pending"));
    CHECK_EQ_STR(classify(pod("web-0"), p), "none");
    /* an image: UPDATE */
    p = pod("web-0");
    json_object_set_new(container0(p), "image", json_string("nginx:1.26"));
    CHECK_EQ_STR(classify(pod("web-0"), p), "UPDATE");
    /* 5.2 step 4: a cpu request within Burstable, no resizePolicy: RESIZE */
    json_t *old = pod("web-0");
    set_resources(old, BURSTABLE);
    p = pod("web-0");
    set_resources(p, "{\"requests\":{\"cpu\":\"800m\"},\"limits\":{\"cpu\":\"1\"}}");
    CHECK_EQ_STR(classify(wh_json_copy(old), p), "RESIZE");
    /* the same value written another way is no change at all to the quantity */
    p = pod("web-0");
    set_resources(p, "{\"requests\":{\"cpu\":\"0.5\"},\"limits\":{\"cpu\":\"1000m\"}}");
    CHECK_EQ_STR(classify(wh_json_copy(old), p), "RESIZE");
    /* a resizePolicy that restarts the container for cpu: UPDATE; NotRequired: RESIZE */
    p = pod("web-0");
    set_resources(p, "{\"requests\":{\"cpu\":\"800m\"},\"limits\":{\"cpu\":\"1\"}}");
    json_object_set_new(container0(p), "resizePolicy",
                        wh_test_json("[{\"resourceName\":\"cpu\",\"restartPolicy\":"
                                     "\"RestartContainer\"}]"));
    json_t *old2 = wh_json_copy(old);
    json_object_set(container0(old2), "resizePolicy",
                    json_object_get(container0(p), "resizePolicy"));
    CHECK_EQ_STR(classify(old2, p), "UPDATE");
    p = pod("web-0");
    set_resources(p, "{\"requests\":{\"cpu\":\"800m\"},\"limits\":{\"cpu\":\"1\"}}");
    json_object_set_new(container0(p), "resizePolicy",
                        wh_test_json("[{\"resourceName\":\"memory\",\"restartPolicy\":"
                                     "\"RestartContainer\"},{\"resourceName\":\"cpu\","
                                     "\"restartPolicy\":\"NotRequired\"}]"));
    old2 = wh_json_copy(old);
    json_object_set(container0(old2), "resizePolicy",
                    json_object_get(container0(p), "resizePolicy"));
    CHECK_EQ_STR(classify(old2, p), "RESIZE");
    /* another resource than cpu and memory: UPDATE */
    p = pod("web-0");
    set_resources(p, "{\"requests\":{\"cpu\":\"500m\",\"ephemeral-storage\":\"1Gi\"},"
                     "\"limits\":{\"cpu\":\"1\"}}");
    CHECK_EQ_STR(classify(wh_json_copy(old), p), "UPDATE");
    /* a QoS change (Burstable -> Guaranteed): UPDATE */
    json_t *g_old = pod("web-0");
    set_resources(g_old, "{\"requests\":{\"cpu\":\"1\",\"memory\":\"1Gi\"},\"limits\":{\"cpu\":"
                         "\"2\",\"memory\":\"1Gi\"}}");
    p = pod("web-0");
    set_resources(p, "{\"requests\":{\"cpu\":\"2\",\"memory\":\"1Gi\"},\"limits\":{\"cpu\":\"2\","
                     "\"memory\":\"1Gi\"}}");
    CHECK_EQ_STR(classify(g_old, p), "UPDATE");
    /* resources and something else: UPDATE */
    p = pod("web-0");
    set_resources(p, "{\"requests\":{\"cpu\":\"800m\"},\"limits\":{\"cpu\":\"1\"}}");
    json_object_set_new(container0(p), "image", json_string("nginx:1.26"));
    CHECK_EQ_STR(classify(wh_json_copy(old), p), "UPDATE");
    /* init containers are not blanked: their resources count as a spec change */
    json_t *i_old = wh_json_copy(old);
    set_path(i_old, "spec", "initContainers",
             wh_test_json("[{\"name\":\"init\",\"image\":\"x\"}]"));
    p = wh_json_copy(i_old);
    json_object_set_new(json_array_get(wh_json_path(p, "spec", "initContainers", NULL), 0),
                        "resources", wh_test_json("{\"requests\":{\"cpu\":\"1m\"}}"));
    CHECK_EQ_STR(classify(i_old, p), "UPDATE");
    /* a static Pod: UPDATE; a config source of "api" is not static */
    CHECK_EQ_STR(resize_with_source(old, "file"), "UPDATE");
    CHECK_EQ_STR(resize_with_source(old, "api"), "RESIZE");
    json_decref(old);
}

/* --- 5.3: the check, step by step ----------------------------------------------------------------
 */

/* DELETE of p against one PUB (steals both); true when allowed, false when denied for the
 * budget. */
static bool delete_against(json_t *the_pub, json_t *p, const char *gates)
{
    struct fx f;
    fx_init(&f, gates, json_pack("[o]", the_pub));
    struct answer a = delete_pod(&f, p, DELETE_OPTIONS);
    CHECK(a.allowed || strcmp(a.msg, NEGATIVE) == 0);
    fx_fini(&f);
    return a.allowed;
}

TEST(pub_check_pod_conditions)
{
    /* 1: pub.kruise.io/no-protect, as Go's ParseBool reads it */
    static const char *const yes[] = {"true", "1", "t", "T", "TRUE", "True"};
    static const char *const no[] = {"yes", "on", "false", "", " true"};
    for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
        json_t *p = pod("web-0");
        json_object_set_new(json_object_get(json_object_get(p, "metadata"), "annotations"),
                            "pub.kruise.io/no-protect", json_string(yes[i]));
        CHECK(delete_against(pub("pub", 0, 3), p, ""));
    }
    for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
        json_t *p = pod("web-0");
        json_object_set_new(json_object_get(json_object_get(p, "metadata"), "annotations"),
                            "pub.kruise.io/no-protect", json_string(no[i]));
        CHECK(!delete_against(pub("pub", 0, 3), p, ""));
    }
    /* 2: not ready -- phase, the Ready condition, deletion under way, an unavailable label */
    json_t *p = pod("web-0");
    set_path(p, "status", "phase", json_string("Pending"));
    CHECK(delete_against(pub("pub", 0, 3), p, ""));
    p = pod("web-0");
    set_path(p, "status", "conditions",
             wh_test_json("[{\"type\":\"Ready\",\"status\":\"False\"}]"));
    CHECK(delete_against(pub("pub", 0, 3), p, ""));
    p = pod("web-0");
    set_path(p, "status", "conditions",
             wh_test_json("[{\"type\":\"ContainersReady\",\"status\":"
                          "\"True\"}]"));
    CHECK(delete_against(pub("pub", 0, 3), p, ""));
    p = pod("web-0");
    set_path(p, "metadata", "deletionTimestamp", json_string("2025-01-01T00:00:00Z"));
    CHECK(delete_against(pub("pub", 0, 3), p, ""));
    p = pod("web-0");
    set_path(p, "metadata", "labels",
             wh_test_json("{\"app\":\"web\",\"unavailable-pod.kruise.io/x\":\"false\"}"));
    CHECK(delete_against(pub("pub", 0, 3), p, ""));
    /* 3: inconsistent (an in-place update under way) */
    p = pod("web-0");
    json_object_set_new(json_object_get(json_object_get(p, "metadata"), "annotations"),
                        "apps.kruise.io/inplace-update-grace", json_string("{}"));
    CHECK(delete_against(pub("pub", 0, 3), p, ""));
}

TEST(pub_check_pub_conditions)
{
    /* 4: the PUB does not exist */
    json_t *p = pod("web-0");
    set_path(p, "metadata", "annotations",
             wh_test_json("{\"pub.kruise.io/related-pub\":\"gone\"}"));
    CHECK(delete_against(pub("pub", 0, 3), p, ""));
    /* 5: ignoredPodSelector that matches; empty ones are ignored */
    json_t *q = pub("pub", 0, 3);
    set_path(q, "spec", "ignoredPodSelector", wh_test_json("{\"matchLabels\":{\"app\":\"web\"}}"));
    CHECK(delete_against(q, pod("web-0"), ""));
    q = pub("pub", 0, 3);
    set_path(q, "spec", "ignoredPodSelector", wh_test_json("{\"matchLabels\":{\"app\":\"x\"}}"));
    CHECK(!delete_against(q, pod("web-0"), ""));
    q = pub("pub", 0, 3);
    set_path(q, "spec", "ignoredPodSelector", wh_test_json("{}"));
    CHECK(!delete_against(q, pod("web-0"), ""));
    /* ... one that cannot be built is a 400 */
    q = pub("pub", 0, 3);
    set_path(q, "spec", "ignoredPodSelector",
             wh_test_json("{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"Near\"}]}"));
    struct fx f;
    fx_init(&f, "", json_pack("[o]", q));
    struct answer a = delete_pod(&f, pod("web-0"), DELETE_OPTIONS);
    CHECK_EQ_INT(a.code, 400);
    CHECK_EQ_STR(a.msg, "\"Near\" is not a valid pod selector operator");
    fx_fini(&f);
    /* 6: desiredAvailable 0 protects nothing, even with no budget (quirk 8.5) */
    CHECK(delete_against(pub("pub", 0, 0), pod("web-0"), ""));
    /* 8: already recorded in disruptedPods or unavailablePods */
    q = pub("pub", 0, 3);
    set_path(q, "status", "disruptedPods", wh_test_json("{\"web-0\":\"2025-01-01T00:00:00Z\"}"));
    CHECK(delete_against(q, pod("web-0"), ""));
    q = pub("pub", 0, 3);
    set_path(q, "status", "unavailablePods", wh_test_json("{\"web-0\":\"2025-01-01T00:00:00Z\"}"));
    CHECK(delete_against(q, pod("web-0"), ""));
    q = pub("pub", 0, 3);
    set_path(q, "status", "unavailablePods", wh_test_json("{\"web-1\":\"2025-01-01T00:00:00Z\"}"));
    CHECK(!delete_against(q, pod("web-0"), ""));
}

/* A PUB with no budget protecting ops (JSON list, or NULL) and annotation ann (or NULL). */
static json_t *ops_pub(const char *ops, const char *ann)
{
    json_t *q = pub("pub", 0, 3);
    if (ops)
        set_path(q, "spec", "protectOperations", wh_test_json(ops));
    if (ann)
        set_path(q, "metadata", "annotations",
                 json_pack("{s:s}", "kruise.io/pub-protect-operations", ann));
    return q;
}

TEST(pub_protected_operations)
{
    /* 7: spec.protectOperations */
    CHECK(!delete_against(ops_pub("[\"DELETE\"]", NULL), pod("web-0"), ""));
    CHECK(delete_against(ops_pub("[\"UPDATE\",\"EVICT\"]", NULL), pod("web-0"), ""));
    /* ... takes precedence over the annotation */
    CHECK(delete_against(ops_pub("[\"EVICT\"]", "DELETE"), pod("web-0"), ""));
    /* the annotation when the list is empty: split on commas, empty items dropped, nothing
     * trimmed, unknown items protect nothing (quirk 8.7) */
    CHECK(!delete_against(ops_pub("[]", "EVICT,,DELETE"), pod("web-0"), ""));
    CHECK(delete_against(ops_pub(NULL, "EVICT, DELETE"), pod("web-0"), ""));
    CHECK(delete_against(ops_pub(NULL, "delete"), pod("web-0"), ""));
    /* an annotation of commas only: the default set */
    CHECK(!delete_against(ops_pub(NULL, ",,"), pod("web-0"), ""));
    CHECK(!delete_against(ops_pub(NULL, NULL), pod("web-0"), ""));
}

/* --- 5.3 step 9: spending the budget -----------------------------------------------------------
 */

static const json_t *status_map(const json_t *p, const char *map)
{
    return wh_json_path(p, "status", map, NULL);
}

TEST(pub_budget_spent_and_recorded)
{
    struct fx f;
    fx_init(&f, "PodUnavailableBudgetUpdateGate=true", json_pack("[o]", pub("pub", 3, 3)));
    /* DELETE: one unit, the Pod in disruptedPods with an RFC 3339 time */
    CHECK(delete_pod(&f, pod("web-0"), DELETE_OPTIONS).allowed);
    json_t *after = stored(&f, "pub");
    CHECK_EQ_INT(allowed_of(after), 2);
    const char *when =
        json_string_value(json_object_get(status_map(after, "disruptedPods"), "web-0"));
    struct wh_gotime t;
    struct wh_errbuf teb;
    CHECK(when && wh_gotime_parse(when, strlen(when), WH_GOTIME_RFC3339, &t, &teb) == WH_OK &&
          strlen(when) == 20);
    json_decref(after);
    /* the same Pod again: already accounted for, nothing spent */
    CHECK(delete_pod(&f, pod("web-0"), DELETE_OPTIONS).allowed);
    after = stored(&f, "pub");
    CHECK_EQ_INT(allowed_of(after), 2);
    json_decref(after);
    /* an in-place UPDATE waits in unavailablePods */
    json_t *p = pod("web-1");
    json_object_set_new(container0(p), "image", json_string("nginx:1.26"));
    CHECK(send(&f, "UPDATE", "", "web-1", p, pod("web-1"), UPDATE_OPTIONS).allowed);
    /* a resize is recorded in disruptedPods (quirk 8.3), protected through UPDATE while
     * InPlacePodVerticalScaling is off */
    json_t *old = pod("web-2");
    set_resources(old, BURSTABLE);
    p = pod("web-2");
    set_resources(p, "{\"requests\":{\"cpu\":\"800m\"},\"limits\":{\"cpu\":\"1\"}}");
    CHECK(send(&f, "UPDATE", "", "web-2", p, old, UPDATE_OPTIONS).allowed);
    after = stored(&f, "pub");
    CHECK_EQ_INT(allowed_of(after), 0);
    CHECK(json_object_get(status_map(after, "unavailablePods"), "web-1") != NULL);
    CHECK(json_object_get(status_map(after, "disruptedPods"), "web-1") == NULL);
    CHECK(json_object_get(status_map(after, "disruptedPods"), "web-2") != NULL);
    json_decref(after);
    /* nothing left: denied, unchanged */
    struct answer a = delete_pod(&f, pod("web-3"), DELETE_OPTIONS);
    CHECK(!a.allowed);
    CHECK_EQ_STR(a.msg, NEGATIVE);
    after = stored(&f, "pub");
    CHECK_EQ_INT(allowed_of(after), 0);
    CHECK(json_object_get(status_map(after, "disruptedPods"), "web-3") == NULL);
    json_decref(after);
    fx_fini(&f);
}

TEST(pub_budget_dry_run_and_full_records)
{
    struct fx f;
    fx_init(&f, "", json_pack("[o,o]", pub("pub", 1, 3), pod("web-1")));
    /* a dry run (DeleteOptions, or an Eviction's deleteOptions) is answered, never written */
    CHECK(delete_pod(&f, pod("web-0"), DRY_DELETE).allowed);
    CHECK(send(&f, "CREATE", "eviction", "web-1",
               wh_test_json("{\"apiVersion\":\"policy/v1\",\"kind\":\"Eviction\","
                            "\"deleteOptions\":{\"dryRun\":[\"All\"]}}"),
               NULL, CREATE_OPTIONS)
              .allowed);
    json_t *after = stored(&f, "pub");
    CHECK_EQ_INT(allowed_of(after), 1);
    CHECK(status_map(after, "disruptedPods") == NULL);
    json_decref(after);
    fx_fini(&f);
    /* a dry run is still denied when nothing is left (quirk 8.2) */
    fx_init(&f, "", json_pack("[o]", pub("pub", 0, 3)));
    struct answer a = delete_pod(&f, pod("web-0"), DRY_DELETE);
    CHECK(!a.allowed);
    CHECK_EQ_STR(a.msg, NEGATIVE);
    fx_fini(&f);
    /* more than 2000 Pods recorded: refused whatever the budget */
    json_t *q = pub("pub", 5, 3);
    json_t *map = json_object();
    for (int i = 0; i < 2001; i++) {
        char k[32];
        snprintf(k, sizeof(k), "old-%d", i);
        json_object_set_new(map, k, json_string("2025-01-01T00:00:00Z"));
    }
    set_path(q, "status", "disruptedPods", map);
    fx_init(&f, "", json_pack("[o]", q));
    a = delete_pod(&f, pod("web-0"), DELETE_OPTIONS);
    CHECK(!a.allowed);
    CHECK_EQ_INT(a.code, 403);
    CHECK_EQ_STR(a.msg, "podunavailablebudget.policy.kruise.io \"pub\" is forbidden: "
                        "DisruptedPods and UnavailablePods map too big - too many unavailable not "
                        "confirmed by PUB controller");
    fx_fini(&f);
}

/* --- 5.3 step 3: consistency --------------------------------------------------------------------
 */

static bool consistent_delete(json_t *p)
{
    /* with no budget, only an inconsistent (or otherwise exempt) Pod is let through */
    return !delete_against(pub("pub", 0, 3), p, "");
}

static void annotate(json_t *p, const char *key, const char *value)
{
    json_object_set_new(json_object_get(json_object_get(p, "metadata"), "annotations"), key,
                        json_string(value));
}

TEST(pub_pod_consistency)
{
    CHECK(consistent_delete(pod("web-0")));
    /* digest images: the status imageID (a scheme stripped) must name the same repo and digest */
    json_t *p = pod("web-0");
    json_object_set_new(container0(p), "image", json_string("docker.io/library/nginx@" DIGEST));
    CHECK(consistent_delete(wh_json_copy(p)));
    json_object_set_new(json_array_get(wh_json_path(p, "status", "containerStatuses", NULL), 0),
                        "imageID",
                        json_string("docker-pullable://docker.io/library/nginx@" DIGEST));
    CHECK(consistent_delete(wh_json_copy(p)));
    /* the name as written counts: nginx is not docker.io/library/nginx upstream */
    json_object_set_new(container0(p), "image", json_string("nginx@" DIGEST));
    CHECK(!consistent_delete(wh_json_copy(p)));
    json_object_set_new(
        container0(p), "image",
        json_string("docker.io/library/nginx@sha256:"
                    "1111111111111111111111111111111111111111111111111111111111111111"));
    CHECK(!consistent_delete(wh_json_copy(p)));
    json_array_clear(wh_json_path(p, "status", "containerStatuses", NULL));
    CHECK(!consistent_delete(p));
    /* in-place update state: grace, unparsable, next batches, an unchanged image id */
    p = pod("web-0");
    annotate(p, "inplace-update-grace", "");
    CHECK(!consistent_delete(p));
    p = pod("web-0");
    annotate(p, "apps.kruise.io/inplace-update-state", "not json");
    CHECK(!consistent_delete(p));
    p = pod("web-0");
    annotate(p, "apps.kruise.io/inplace-update-state", "{\"lastContainerStatuses\":[]}");
    CHECK(!consistent_delete(p));
    p = pod("web-0");
    annotate(p, "apps.kruise.io/inplace-update-state",
             "{\"nextContainerImages\":{\"side\":\"x:2\"}}");
    CHECK(!consistent_delete(p));
    p = pod("web-0");
    annotate(p, "inplace-update-state",
             "{\"revision\":\"r2\",\"updateTimestamp\":\"2025-01-01T00:00:00Z\","
             "\"lastContainerStatuses\":{\"main\":{\"imageID\":\"docker.io/library/nginx@" DIGEST
             "\"}}}");
    CHECK(consistent_delete(wh_json_copy(p))); /* same id, spec image = status image */
    json_object_set_new(container0(p), "image", json_string("nginx:1.26"));
    CHECK(!consistent_delete(wh_json_copy(p))); /* same id, image not switched yet */
    json_object_set_new(json_array_get(wh_json_path(p, "status", "containerStatuses", NULL), 0),
                        "imageID", json_string("docker.io/library/nginx@sha256:new"));
    CHECK(consistent_delete(wh_json_copy(p))); /* the id changed: done */
    json_array_clear(wh_json_path(p, "status", "containerStatuses", NULL));
    CHECK(!consistent_delete(p)); /* a recorded container is missing from the status */
    /* an untagged spec image is compared as :latest */
    p = pod("web-0");
    json_object_set_new(container0(p), "image", json_string("nginx"));
    json_object_set_new(json_array_get(wh_json_path(p, "status", "containerStatuses", NULL), 0),
                        "image", json_string("nginx:latest"));
    annotate(p, "apps.kruise.io/inplace-update-state",
             "{\"lastContainerStatuses\":{\"main\":{\"imageID\":\"docker.io/library/nginx@" DIGEST
             "\"}}}");
    CHECK(consistent_delete(p));
    /* env from metadata waits for kruise-daemon's report; a report must parse */
    p = pod("web-0");
    annotate(p, "apps.kruise.io/inplace-update-state", "{\"updateEnvFromMetadata\":true}");
    CHECK(!consistent_delete(wh_json_copy(p)));
    annotate(p, "apps.kruise.io/runtime-containers-meta", "{\"containers\":[]}");
    CHECK(consistent_delete(wh_json_copy(p)));
    annotate(p, "apps.kruise.io/runtime-containers-meta", "{\"containers\":{}}");
    CHECK(!consistent_delete(p));
    /* a SidecarSet's in-place upgrade of an injected sidecar not finished */
    p = pod("web-0");
    json_object_set_new(container0(p), "env",
                        wh_test_json("[{\"name\":\"IS_INJECTED\",\"value\":\"true\"}]"));
    annotate(p, "kruise.io/sidecarset-injected-list", "mesh,log");
    annotate(p, "kruise.io/sidecarset-inplace-update-state",
             "{\"mesh\":{\"lastContainerStatuses\":{\"main\":{\"imageID\":\"docker.io/library/"
             "nginx@" DIGEST "\"}}}}");
    CHECK(consistent_delete(wh_json_copy(p))); /* spec image = status image */
    json_object_set_new(container0(p), "image", json_string("nginx:1.26"));
    CHECK(!consistent_delete(wh_json_copy(p)));
    annotate(p, "kruise.io/sidecarset-injected-list", "log");
    CHECK(consistent_delete(wh_json_copy(p))); /* mesh is not injected: its record is not read */
    annotate(p, "kruise.io/sidecarset-injected-list", "mesh");
    annotate(p, "kruise.io/sidecarset-inplace-update-state", "[]");
    CHECK(!consistent_delete(p));
}

/* --- the status write against an API server ------------------------------------------------------
 */

#define PUB_PATH "/apis/policy.kruise.io/v1beta1/namespaces/" NS "/podunavailablebudgets/pub"

struct api_fx {
    struct fx f;
    struct wh_apiserver *srv;
};

/* Steals: objects. */
static bool api_start(struct api_fx *a, json_t *objects)
{
    struct wh_errbuf eb = {{0}};
    memset(a, 0, sizeof(*a));
    wh_features_init(&a->f.cfg.features);
    struct wh_apiserver_opts ao = {.kruise_crds = true};
    enum wh_err rc = wh_apiserver_cluster_new(&ao, objects, 0, &a->srv, &a->f.cl, &eb);
    json_decref(objects);
    if (!rc)
        rc = wh_pod_routes_setup(a->f.cl, &a->f.cfg, &eb);
    if (!rc)
        rc = wh_apiserver_cluster_start(a->f.cl, &eb);
    a->f.ctx.cfg = &a->f.cfg;
    a->f.ctx.cluster = a->f.cl;
    if (rc)
        fprintf(stderr, "api fixture: %s\n", eb.msg);
    return rc == WH_OK;
}

static void api_stop(struct api_fx *a)
{
    wh_cluster_free(a->f.cl);
    wh_apiserver_stop(a->srv);
}

/* Sets the stored PUB's unavailableAllowed behind the server's back (another replica). */
static void other_replica_sets(struct api_fx *a, int allowed, const char *recorded)
{
    json_t *o = stored(&a->f, "pub");
    json_t *st = wh_json_obj_ensure(o, "status");
    json_object_set_new(st, "unavailableAllowed", json_integer(allowed));
    if (recorded)
        set_path(o, "status", "disruptedPods",
                 json_pack("{s:s}", recorded, "2025-01-01T00:00:00Z"));
    json_t *stored_obj = NULL;
    struct wh_kube_status kst = {0};
    if (wh_kube_update(wh_cluster_client(a->f.cl), PUB_PATH "/status", o, &stored_obj, &kst))
        fprintf(stderr, "update: %s\n", kst.message);
    json_decref(o);
    json_decref(stored_obj);
}

static double metric(const char *name, const char *labels)
{
    return wh_metric_value(wh_metrics_counter(name, "", labels));
}

TEST(pub_write_decided_again_after_conflict)
{
    struct api_fx a;
    if (!api_start(&a, json_pack("[o]", pub("pub", 2, 3)))) {
        CHECK(false);
        api_stop(&a);
        return;
    }
    /* this process writes once, then another replica spends the rest: our base is stale */
    CHECK(delete_pod(&a.f, pod("web-0"), DELETE_OPTIONS).allowed);
    other_replica_sets(&a, 0, NULL);
    /* the decision is taken again on the PUB as it is now: denied */
    struct answer ans = delete_pod(&a.f, pod("web-1"), DELETE_OPTIONS);
    CHECK(!ans.allowed);
    CHECK_EQ_STR(ans.msg, NEGATIVE);
    json_t *after = stored(&a.f, "pub");
    CHECK_EQ_INT(allowed_of(after), 0);
    CHECK(json_object_get(status_map(after, "disruptedPods"), "web-1") == NULL);
    json_decref(after);
    /* a Pod another replica recorded meanwhile is not counted twice */
    other_replica_sets(&a, 1, "web-2");
    ans = delete_pod(&a.f, pod("web-2"), DELETE_OPTIONS);
    if (!ans.allowed)
        fprintf(stderr, "web-2: %d %s\n", ans.code, ans.msg);
    CHECK(ans.allowed);
    after = stored(&a.f, "pub");
    CHECK_EQ_INT(allowed_of(after), 1);
    json_decref(after);
    api_stop(&a);
}

TEST(pub_write_deadline_and_errors)
{
    struct api_fx a;
    if (!api_start(&a, json_pack("[o]", pub("pub", 5, 3)))) {
        CHECK(false);
        api_stop(&a);
        return;
    }
    /* every write conflicts: retried until the request's deadline, then denied saying so */
    wh_apiserver_post(a.srv, "fail?code=409&count=-1&methods=PUT&path_prefix=" PUB_PATH);
    double before =
        metric("kruise_webhook_pub_decisions_total", "operation=\"DELETE\",outcome=\"deadline\"");
    int64_t saved = wh_deadline_set(wh_time_mono_ns() + 400 * 1000000LL);
    int64_t t0 = wh_time_mono_ns();
    struct answer ans = delete_pod(&a.f, pod("web-0"), DELETE_OPTIONS);
    int64_t took_ms = (wh_time_mono_ns() - t0) / 1000000;
    wh_deadline_set(saved);
    CHECK(!ans.allowed);
    CHECK_EQ_INT(ans.code, 403);
    CHECK(wh_str_has_prefix(ans.msg, "podunavailablebudget.policy.kruise.io \"pub\" is forbidden: "
                                     "the disruption could not be recorded in its status before "
                                     "the request's deadline"));
    CHECK(took_ms < 5000); /* it stopped at the deadline, not after some fixed count */
    CHECK_EQ_INT(
        metric("kruise_webhook_pub_decisions_total", "operation=\"DELETE\",outcome=\"deadline\"") -
            before,
        1);
    CHECK(metric("kruise_webhook_pub_conflict_retries_total", "outcome=\"deadline\"") >= 2);
    wh_apiserver_post(a.srv, "fail?clear=true");
    /* another API error: denied with the API server's own text */
    wh_apiserver_post(a.srv, "fail?code=403&count=1&methods=PUT&path_prefix=" PUB_PATH);
    ans = delete_pod(&a.f, pod("web-1"), DELETE_OPTIONS);
    CHECK(!ans.allowed);
    CHECK_EQ_INT(ans.code, 403);
    CHECK(!wh_str_has_prefix(ans.msg, "podunavailablebudget.policy.kruise.io"));
    CHECK(ans.msg[0] != '\0');
    /* the PUB is gone while we write: allowed */
    wh_apiserver_post(a.srv, "fail?code=404&count=1&methods=PUT&path_prefix=" PUB_PATH);
    CHECK(delete_pod(&a.f, pod("web-2"), DELETE_OPTIONS).allowed);
    json_t *after = stored(&a.f, "pub");
    CHECK_EQ_INT(allowed_of(after), 5);
    json_decref(after);
    /* and then it works */
    CHECK(delete_pod(&a.f, pod("web-3"), DELETE_OPTIONS).allowed);
    after = stored(&a.f, "pub");
    CHECK_EQ_INT(allowed_of(after), 4);
    json_decref(after);
    api_stop(&a);
}

/* Reads of single objects (the PUB, Pods) and writes the fake API server logged since the last
 * call (the caches' lists and watches are not counted). */
struct calls {
    int reads, writes;
};

static struct calls calls_since(struct api_fx *a)
{
    json_t *all = NULL;
    if (wh_apiserver_control(a->srv, "DELETE", "requests", NULL, &all, NULL))
        abort();
    struct calls c = {0, 0};
    size_t i;
    json_t *r;
    json_array_foreach(all, i, r)
    {
        const char *m = wh_json_str_or_empty(r, "method");
        const char *path = wh_json_str_or_empty(r, "path");
        if (strcmp(m, "GET") == 0)
            c.reads += wh_str_has_prefix(path, PUB_PATH) ||
                       wh_str_has_prefix(path, "/api/v1/namespaces/" NS "/pods/");
        else
            c.writes++;
    }
    json_decref(all);
    return c;
}

TEST(pub_hot_path_api_calls)
{
    struct api_fx a;
    if (!api_start(&a, json_pack("[o]", pub("pub", 1, 3)))) {
        CHECK(false);
        api_stop(&a);
        return;
    }
    (void)calls_since(&a);
    /* a Pod no PUB covers: no API call at all */
    json_t *p = pod("web-0");
    json_object_del(json_object_get(p, "metadata"), "annotations");
    CHECK(delete_pod(&a.f, p, DELETE_OPTIONS).allowed);
    struct calls c = calls_since(&a);
    CHECK_EQ_INT(c.reads + c.writes, 0);
    /* an allowed DELETE: one status write, no read */
    CHECK(delete_pod(&a.f, pod("web-1"), DELETE_OPTIONS).allowed);
    c = calls_since(&a);
    CHECK_EQ_INT(c.reads, 0);
    CHECK_EQ_INT(c.writes, 1);
    /* denied: the copy this process wrote last says the budget is spent, and one live read
     * confirms it before the denial (a stale copy never denies), nothing is written */
    CHECK(!delete_pod(&a.f, pod("web-2"), DELETE_OPTIONS).allowed);
    c = calls_since(&a);
    CHECK_EQ_INT(c.reads, 1);
    CHECK_EQ_INT(c.writes, 0);
    api_stop(&a);
}

TEST(pub_mutate_live_workloads)
{
    /* kinds the caches do not hold are found through discovery and a live read */
    json_t *ud = workload("apps.kruise.io/v1beta1", "UnitedDeployment", "ud", "u-ud", NULL);
    struct api_fx a;
    if (!api_start(&a, json_pack("[o,o]", ud,
                                 target_pub("p-ud", "apps.kruise.io/v1alpha1", "UnitedDeployment",
                                            "ud")))) {
        CHECK(false);
        api_stop(&a);
        return;
    }
    CHECK_EQ_STR(
        annotated(&a.f, "{}", OWNER("apps.kruise.io/v1beta1", "UnitedDeployment", "ud", "x")),
        "p-ud");
    CHECK_EQ_STR(
        annotated(&a.f, "{}", OWNER("apps.kruise.io/v1beta1", "UnitedDeployment", "gone", "x")),
        "(none)");
    /* a kind the API server does not know, and names that are no group: no workload */
    CHECK_EQ_STR(annotated(&a.f, "{}", OWNER("apps.kruise.io/v1beta1", "Nope", "ud", "x")),
                 "(none)");
    CHECK_EQ_STR(annotated(&a.f, "{}", OWNER("x?watch=1/v1", "UnitedDeployment", "ud", "x")),
                 "(none)");
    api_stop(&a);
}

/* --- 6: the order of the steps --------------------------------------------------------------- */

TEST(pub_steps_follow_workloadspread)
{
    size_t n = 0;
    const struct wh_pod_step *const *v = wh_pod_steps(true, &n);
    CHECK_EQ_INT(n, 2);
    CHECK_EQ_STR(v[0]->name, "workloadspread");
    CHECK(v[n - 1] == &wh_pub_pod_step);
    const struct wh_pod_step *const *m = wh_pod_steps(false, &n);
    size_t at = 0;
    while (at < n && m[at] != &wh_pub_pod_step)
        at++;
    CHECK(at > 0 && at < n);
    CHECK_EQ_STR(m[at - 1]->name, "container-launch-priority");
    CHECK(wh_pub_pod_step.side_effects);
    CHECK_EQ_INT(wh_pub_pod_step.validate_ops, WH_POD_DELETE | WH_POD_EVICT | WH_POD_UPDATE);
    CHECK_EQ_INT(wh_pub_pod_step.mutate_ops, WH_POD_CREATE);
}

/* --- audit additions: rules of spec pub.md 4 and 5.1 no test pinned before ------------------- */

/* An AdmissionReview of pods (sub)resource: op with the members of request_json added. */
static json_t *pod_review(const char *op, const char *sub, const char *request_json)
{
    json_t *req = wh_test_json(request_json);
    json_t *base = json_pack("{s:s,s:{s:s,s:s,s:s},s:{s:s,s:s,s:s},s:s,s:s,s:s,s:s}", "uid",
                             "uid-2", "kind", "group", "", "version", "v1", "kind", "Pod",
                             "resource", "group", "", "version", "v1", "resource", "pods",
                             "subResource", sub, "operation", op, "namespace", NS, "name", "web-0");
    (void)json_object_update_missing(req, base);
    json_decref(base);
    return json_pack("{s:s,s:s,s:o}", "apiVersion", "admission.k8s.io/v1", "kind",
                     "AdmissionReview", "request", req);
}

TEST(pub_delete_without_old_object_and_decode_order)
{
    struct fx f;
    fx_init(&f, "WorkloadSpread=false", json_pack("[o]", pub("pub", 0, 3)));
    /* 5.1: a DELETE with no oldObject is allowed at once, options or not */
    struct answer a = send_review(&f, pod_review("DELETE", "", "{}"), false);
    CHECK(a.allowed);
    a = send_review(&f, pod_review("DELETE", "", "{\"oldObject\":null}"), false);
    CHECK(a.allowed);
    /* upstream decodes the deleted Pod before the DeleteOptions: a Pod Go cannot decode is the
     * error even when the options are missing */
    delete_undecodable_pod(&f, NULL);
    /* the options are decoded even for a Pod no PUB protects (upstream decodes them first) */
    json_t *p = pod("web-0");
    json_object_del(json_object_get(p, "metadata"), "annotations");
    a = delete_pod(&f, p, NULL);
    CHECK_EQ_INT(a.code, 400);
    CHECK_EQ_STR(a.msg, "there is no content to decode");
    fx_fini(&f);
}

TEST(pub_top_level_dry_run_never_writes)
{
    struct fx f;
    fx_init(&f, "", json_pack("[o,o]", pub("pub", 1, 3), pod("web-0")));
    /* the departure note of 5.2: request.dryRun alone makes a dry run (no options.dryRun) */
    json_t *rv = pod_review("DELETE", "", "{\"dryRun\":true}");
    json_t *req = json_object_get(rv, "request");
    json_object_set_new(req, "oldObject", pod("web-0"));
    json_object_set_new(req, "options", wh_test_json(DELETE_OPTIONS));
    CHECK(send_review(&f, rv, false).allowed);
    rv = pod_review("CREATE", "eviction", "{\"dryRun\":true}");
    json_object_set_new(json_object_get(rv, "request"), "object",
                        wh_test_json("{\"apiVersion\":\"policy/v1\",\"kind\":\"Eviction\"}"));
    CHECK(send_review(&f, rv, false).allowed);
    json_t *after = stored(&f, "pub");
    CHECK_EQ_INT(allowed_of(after), 1);
    CHECK(status_map(after, "disruptedPods") == NULL);
    json_decref(after);
    /* and the same request not dry: spent and recorded */
    CHECK(delete_pod(&f, pod("web-0"), DELETE_OPTIONS).allowed);
    after = stored(&f, "pub");
    CHECK_EQ_INT(allowed_of(after), 0);
    CHECK(json_object_get(status_map(after, "disruptedPods"), "web-0") != NULL);
    json_decref(after);
    fx_fini(&f);
}

TEST(pub_mutate_dry_run_and_target_precedence)
{
    json_t *both = target_pub("a-both", "apps/v1", "StatefulSet", "other");
    set_path(both, "spec", "selector", wh_test_json("{\"matchLabels\":{\"app\":\"web\"}}"));
    json_t *objs = json_pack("[o,o,o]", workload("apps/v1", "StatefulSet", "sts", "u-sts", NULL),
                             workload("apps/v1", "ReplicaSet", "orphan-rs", "u-ors",
                                      OWNER("apps/v1", "Deployment", "missing", "u-missing")),
                             both);
    struct fx f;
    fx_init(&f, "", objs);
    /* 4: a dry-run creation is annotated all the same */
    json_t *rv = pod_review("CREATE", "",
                            "{\"dryRun\":true,\"options\":{\"kind\":"
                            "\"CreateOptions\",\"dryRun\":[\"All\"]}}");
    json_object_set_new(json_object_get(rv, "request"), "object",
                        new_pod("{\"app\":\"web\"}", NULL));
    struct answer a = send_review(&f, rv, true);
    CHECK_EQ_STR(related_of(&a), "a-both");
    answer_fini(&a);
    /* 4.2: with a workload resolved, a PUB's targetRef decides alone; its selector is not
     * consulted when the targetRef names another workload */
    CHECK_EQ_STR(annotated(&f, "{\"app\":\"web\"}", OWNER("apps/v1", "StatefulSet", "sts", "x")),
                 "(none)");
    /* ... without a workload the selector decides */
    CHECK_EQ_STR(annotated(&f, "{\"app\":\"web\"}", NULL), "a-both");
    CHECK_EQ_STR(annotated(&f, "{\"app\":\"web\"}", OWNER("apps/v1", "StatefulSet", "gone", "x")),
                 "a-both");
    /* 4.1: a ReplicaSet whose Deployment does not exist is itself the workload (a workload is
     * resolved, so the targetRef, naming another, does not match) */
    CHECK_EQ_STR(
        annotated(&f, "{\"app\":\"web\"}", OWNER("apps/v1", "ReplicaSet", "orphan-rs", "x")),
        "(none)");
    fx_fini(&f);
}

TEST(pub_update_of_a_subresource_is_examined)
{
    struct fx f;
    fx_init(&f, "PodUnavailableBudgetUpdateGate=true", json_pack("[o]", pub("pub", 0, 3)));
    /* 5.1: upstream filters the subresource of DELETE and CREATE, never of an UPDATE */
    json_t *p = pod("web-0");
    json_object_set_new(container0(p), "image", json_string("nginx:1.26"));
    struct answer a = send(&f, "UPDATE", "status", "web-0", p, pod("web-0"), UPDATE_OPTIONS);
    CHECK(!a.allowed);
    CHECK_EQ_STR(a.msg, NEGATIVE);
    /* a status-only change cannot make the Pod unavailable */
    p = pod("web-0");
    set_path(p, "status", "phase", json_string("Failed"));
    CHECK(send(&f, "UPDATE", "status", "web-0", p, pod("web-0"), UPDATE_OPTIONS).allowed);
    fx_fini(&f);
}
