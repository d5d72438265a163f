/* WorkloadSpread (spec workloadspread.md), rule by rule: the annotation (3.3), which Pods are
 * handled (4.1-4.3), the subset choice and its bookkeeping (5.1-5.6), the Pod patch (6), the
 * deletion bookkeeping (8), each through the Pod step against standalone state (whose status
 * writes go through the same write-back as the API server's) or through the pure functions; the
 * object webhook (9) with its exact messages, and the Kubernetes validators it uses
 * (k8s/scheduling, the object metadata update rules, LabelSelectorAsSelector's errors). */
#include "test/unit/test.h"

#include <limits.h>
#include <stdlib.h>

#include "config/config.h"
#include "cli/inject.h"
#include "config/features.h"
#include "handlers/pod/pipeline.h"
#include "handlers/workloadspread/match.h"
#include "handlers/workloadspread/patch.h"
#include "handlers/workloadspread/pod.h"
#include "handlers/workloadspread/subset.h"
#include "handlers/workloadspread/validate.h"
#include "handlers/workloadspread/whitelist.h"
#include "handlers/workloadspread/workload.h"
#include "k8s/fielderr.h"
#include "k8s/kruise.h"
#include "k8s/scheduling.h"
#include "k8s/validation.h"
#include "kube/cluster.h"
#include "metrics/metrics.h"
#include "util/json.h"
#include "util/mem.h"
#include "util/str.h"
#include "util/deadline.h"
#include "util/time.h"
#include "util/uuid.h"
#include "test/support/apiserver_proc.h"
#include "test/support/pod_step_run.h"
#include "kube/client.h"

#define NS "ns"
#define NOW 1735689600 /* 2025-01-01T00:00:00Z */
#define NOW_TEXT "2025-01-01T00:00:00Z"

/* JSON written with single quotes (test.h). */
#define jq(text) wh_test_jq(text)

/* --- objects ---------------------------------------------------------------------------------- */

#define OWNER(av, kind, name)                                                                      \
    "{'apiVersion':'" av "','kind':'" kind "','name':'" name "','uid':'u1','controller':true}"
#define CS_OWNER OWNER("apps.kruise.io/v1alpha1", "CloneSet", "cs-demo")
#define CLONESET(name, replicas)                                                                   \
    "{'apiVersion':'apps.kruise.io/v1alpha1','kind':'CloneSet','metadata':{'name':'" name          \
    "','namespace':'ns'},'spec':{'replicas':" replicas "}}"
#define TARGET_CS "{'apiVersion':'apps.kruise.io/v1alpha1','kind':'CloneSet','name':'cs-demo'}"
/* a WorkloadSpread ws-demo with its spec members after targetRef, and its status */
#define WS(target, rest, status)                                                                   \
    "{'apiVersion':'apps.kruise.io/v1beta1','kind':'WorkloadSpread','metadata':{'name':'ws-demo'," \
    "'namespace':'ns'},'spec':{'targetRef':" target rest "},'status':" status "}"
#define SUBSETS_A2_B                                                                               \
    ",'subsets':[{'name':'a','maxReplicas':2,'tolerations':[{'key':'zone','operator':'Equal',"     \
    "'value':'a','effect':'NoSchedule'}],'requiredNodeSelector':{'matchExpressions':[{'key':"      \
    "'zone','operator':'In','values':['a']}]}},{'name':'b','requiredNodeSelector':{"               \
    "'matchExpressions':[{'key':'zone','operator':'In','values':['b']}]}}]"
#define STATUS_A(missing)                                                                          \
    "{'versionedSubsetStatuses':{'versionIgnored':[{'name':'a','replicas':0,'missingReplicas'"     \
    ":" missing "},{'name':'b','replicas':0,'missingReplicas':-1}]}}"
#define POD_OWNED(name, owner, labels)                                                             \
    "{'apiVersion':'v1','kind':'Pod','metadata':{'name':'" name                                    \
    "','namespace':'ns','labels':" labels ",'ownerReferences':[" owner                             \
    "]},'spec':{'containers':[{'name':'main','image':"                                             \
    "'nginx'}]}}"
#define CS_POD(name) POD_OWNED(name, CS_OWNER, "{'app':'demo'}")
#define CREATE_OPTIONS "{'apiVersion':'meta.k8s.io/v1','kind':'CreateOptions'}"
#define DELETE_OPTIONS "{'apiVersion':'meta.k8s.io/v1','kind':'DeleteOptions'}"

/* --- the fixture: standalone state, the WorkloadSpread caches, the Pod step ----------------- */

static void fx_init(struct wh_step_fx *f, const char *gates, const char *objects)
{
    json_t *objs = jq(objects);
    wh_step_fx_init(f, gates, objs, wh_ws_caches_setup);
    json_decref(objs);
}

/* Runs op on resource/sub (pods: the Pod webhooks' resource) through /mutate-pod (mutate) or
 * /validate-pod with the WorkloadSpread step alone. object, old and options are single-quoted
 * JSON or NULL. */
static void run_on(struct wh_step_fx *f, struct wh_step_run *r, bool mutate, const char *resource,
                   const char *op, const char *sub, const char *object, const char *old,
                   const char *options, bool dry)
{
    json_t *req =
        json_pack("{s:s,s:{s:s,s:s,s:s},s:{s:s,s:s,s:s},s:s,s:s,s:s,s:s,s:b}", "uid", "uid-1",
                  "kind", "group", "", "version", "v1", "kind", "Pod", "resource", "group", "",
                  "version", "v1", "resource", resource, "subResource", sub, "operation", op,
                  "namespace", NS, "name", "", "dryRun", dry);
    json_object_set_new(req, "object", object ? jq(object) : json_null());
    json_object_set_new(req, "oldObject", old ? jq(old) : json_null());
    if (options)
        json_object_set_new(req, "options", jq(options));
    const char *name = wh_json_meta_str(json_object_get(req, sub[0] ? "object" : "object"), "name");
    if (!name)
        name = wh_json_meta_str(json_object_get(req, "oldObject"), "name");
    json_object_set_new(req, "name", json_string(name ? name : ""));
    wh_step_run_start(r, json_pack("{s:s,s:s,s:o}", "apiVersion", "admission.k8s.io/v1", "kind",
                                   "AdmissionReview", "request", req));
    const struct wh_pod_step *steps[] = {&wh_workloadspread_pod_step};
    if (mutate) {
        struct wh_pod_run_opts opts = {.now = NOW, .explain = wh_step_run_note, .explain_arg = r};
        r->rc = wh_pod_run_mutate(steps, 1, &f->ctx, &r->r, &r->resp, &opts, &r->eb);
    } else {
        r->rc = wh_pod_run_validate(steps, 1, &f->ctx, &r->r, &r->resp, &r->eb);
    }
}

/* Runs op on pods: /mutate-pod for a CREATE, /validate-pod for a DELETE or a subresource. */
static void run(struct wh_step_fx *f, struct wh_step_run *r, const char *op, const char *sub,
                const char *object, const char *old, const char *options, bool dry)
{
    run_on(f, r, strcmp(op, "CREATE") == 0 && !sub[0], "pods", op, sub, object, old, options, dry);
}

/* CREATE of pod on /mutate-pod, with CreateOptions. */
static void create(struct wh_step_fx *f, struct wh_step_run *r, const char *pod)
{
    run(f, r, "CREATE", "", pod, NULL, CREATE_OPTIONS, false);
}

/* The WorkloadSpread as the cluster has it now. Returns: new ref. */
static json_t *ws_now(struct wh_step_fx *f, const char *name)
{
    return wh_cluster_freshest(f->cl, WH_RES_WORKLOADSPREAD, NS, name);
}

/* status.versionedSubsetStatuses[version][i] of WorkloadSpread name. Returns: borrowed from
 * *hold (a new ref the caller releases). */
static const json_t *entry(struct wh_step_fx *f, const char *name, const char *version, size_t i,
                           json_t **hold)
{
    *hold = ws_now(f, name);
    return json_array_get(wh_json_path(*hold, "status", "versionedSubsetStatuses", version, NULL),
                          i);
}

static long long missing(struct wh_step_fx *f, const char *version, size_t i)
{
    json_t *hold = NULL;
    long long m = json_integer_value(
        json_object_get(entry(f, "ws-demo", version, i, &hold), "missingReplicas"));
    json_decref(hold);
    return m;
}

static const char *annotation(const struct wh_step_run *r)
{
    return wh_json_annotation(r->resp.mutated, WH_KRUISE_ANN_MATCHED_WORKLOADSPREAD);
}

/* Creates pod against objects in a fresh fixture: returns the patched Pod (new ref, NULL when
 * unpatched), the explain notes in notes (notessz bytes; may be NULL). */
static json_t *create_in(const char *objects, const char *pod, char *notes, size_t notessz)
{
    struct wh_step_fx f;
    fx_init(&f, "", objects);
    struct wh_step_run r;
    create(&f, &r, pod);
    CHECK_EQ_INT(r.rc, WH_OK);
    json_t *out = r.resp.mutated ? wh_json_copy(r.resp.mutated) : NULL;
    if (notes)
        snprintf(notes, notessz, "%s", r.notes);
    wh_step_run_fini(&r);
    wh_step_fx_fini(&f);
    return out;
}

/* Creates pod: it must be admitted with the annotation want (NULL: none); when version is set,
 * entry i of that status list must then have missingReplicas want_missing. */
static void expect_create(struct wh_step_fx *f, const char *pod, const char *want,
                          const char *version, size_t i, long long want_missing)
{
    struct wh_step_run r;
    create(f, &r, pod);
    CHECK_EQ_INT(r.rc, WH_OK);
    CHECK(r.resp.allowed);
    if (want)
        CHECK_EQ_STR(annotation(&r), want);
    else
        CHECK(annotation(&r) == NULL);
    if (version)
        CHECK_EQ_INT(missing(f, version, i), want_missing);
    wh_step_run_fini(&r);
}

#define GOT(ws, subset) "{\"name\":\"" ws "\",\"subset\":\"" subset "\"}"

static double metric(const char *name, const char *labels)
{
    return wh_metric_value(wh_metrics_counter(name, "", labels));
}

/* --- 3.3 the annotation --------------------------------------------------------------------- */

TEST(ws_annotation_value_is_go_marshalled)
{
    char *v = wh_ws_annotation_value("ws-demo", "subset-a", NULL);
    CHECK_EQ_STR(v, "{\"name\":\"ws-demo\",\"subset\":\"subset-a\"}");
    free(v);
    v = wh_ws_annotation_value("ws", "a", "");
    CHECK_EQ_STR(v, "{\"name\":\"ws\",\"subset\":\"a\"}"); /* uid omitempty */
    free(v);
    v = wh_ws_annotation_value("ws", "a<b>", "0f8fad5b-d9cb-469f-a165-70867728950e");
    CHECK_EQ_STR(v, "{\"name\":\"ws\",\"subset\":\"a\\u003cb\\u003e\",\"uid\":"
                    "\"0f8fad5b-d9cb-469f-a165-70867728950e\"}");
    free(v);
}

TEST(ws_annotation_parse_as_go_decodes)
{
    char n[64], s[64];
    CHECK(wh_ws_annotation_parse("{\"name\":\"ws\",\"subset\":\"a\"}", n, sizeof(n), s, sizeof(s)));
    CHECK_EQ_STR(n, "ws");
    CHECK_EQ_STR(s, "a");
    /* member names match case-insensitively; unknown members and null values are ignored */
    CHECK(wh_ws_annotation_parse("{\"Name\":\"ws2\",\"SUBSET\":\"b\",\"x\":1,\"uid\":null}", n,
                                 sizeof(n), s, sizeof(s)));
    CHECK_EQ_STR(n, "ws2");
    CHECK_EQ_STR(s, "b");
    /* not an object, null, broken JSON, a member of another type: no annotation */
    static const char *const bad[] = {
        "null", "\"ws\"", "[1]", "{\"name\":", "{\"name\":5}", "{\"uid\":true}", ""};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        CHECK(!wh_ws_annotation_parse(bad[i], n, sizeof(n), s, sizeof(s)));
    CHECK(!wh_ws_annotation_parse(NULL, n, sizeof(n), s, sizeof(s)));
}

TEST(ws_uuid_is_rfc4122_v4)
{
    char a[WH_UUID_LEN + 1], b[WH_UUID_LEN + 1];
    wh_uuid_v4(a);
    wh_uuid_v4(b);
    CHECK_EQ_INT(strlen(a), 36);
    CHECK(a[8] == '-' && a[13] == '-' && a[18] == '-' && a[23] == '-');
    CHECK(a[14] == '4');
    CHECK(strchr("89ab", a[19]) != NULL);
    for (size_t i = 0; i < 36; i++)
        CHECK(a[i] == '-' || strchr("0123456789abcdef", a[i]) != NULL);
    CHECK(strcmp(a, b) != 0);
}

/* --- 4.1 which Pods are handled -------------------------------------------------------------- */

#define BASIC CLONESET("cs-demo", "5") "," WS(TARGET_CS, SUBSETS_A2_B, STATUS_A("2"))

TEST(ws_mutate_handles_an_owned_pod)
{
    struct wh_step_fx f;
    fx_init(&f, "", "[" BASIC "]");
    expect_create(&f, CS_POD("cs-demo-1"), GOT("ws-demo", "a"), "versionIgnored", 0, 1);
    /* 4.1 item 4: only the CreateOptions say whether a creation is a dry run; request.dryRun
     * alone neither skips the Pod nor keeps its bookkeeping from being written */
    struct wh_step_run r;
    run(&f, &r, "CREATE", "", CS_POD("cs-demo-2"), NULL, CREATE_OPTIONS, true);
    CHECK_EQ_STR(annotation(&r), GOT("ws-demo", "a"));
    CHECK(strstr(r.notes, "creatingPods recorded (missingReplicas 1 -> 0)") != NULL);
    wh_step_run_fini(&r);
    CHECK_EQ_INT(missing(&f, "versionIgnored", 0), 0);
    wh_step_fx_fini(&f);
}

TEST(ws_mutate_skips_what_it_does_not_handle)
{
    struct wh_step_fx f;
    fx_init(&f, "",
            "[" BASIC ",{'apiVersion':'apps/v1','kind':'DaemonSet','metadata':{'name':'ds',"
            "'namespace':'ns'}}]");
    struct {
        const char *pod, *options;
        const char *note;
    } cases[] = {
        /* 4.1 item 4: a dry run (any dryRun value) */
        {CS_POD("cs-demo-1"), "{'dryRun':['All']}", "a dry run: WorkloadSpread is skipped"},
        /* item 6: not active */
        {"{'apiVersion':'v1','kind':'Pod','metadata':{'name':'p','namespace':'ns','ownerReferences'"
         ":"
         "[" CS_OWNER "]},'status':{'phase':'Succeeded'}}",
         CREATE_OPTIONS, "the Pod is not active"},
        {"{'apiVersion':'v1','kind':'Pod','metadata':{'name':'p','namespace':'ns','"
         "deletionTimestamp':"
         "'2025-01-01T00:00:00Z','ownerReferences':[" CS_OWNER "]}}",
         CREATE_OPTIONS, "the Pod is not active"},
        /* item 7: no controller owner (an owner that is not the controller does not count) */
        {"{'apiVersion':'v1','kind':'Pod','metadata':{'name':'p','namespace':'ns','labels':{'app':"
         "'demo'}}}",
         CREATE_OPTIONS, "the Pod has no controller owner"},
        {"{'apiVersion':'v1','kind':'Pod','metadata':{'name':'p','namespace':'ns','ownerReferences'"
         ":"
         "[{'apiVersion':'apps.kruise.io/"
         "v1alpha1','kind':'CloneSet','name':'cs-demo','uid':'u'}]}}",
         CREATE_OPTIONS, "the Pod has no controller owner"},
        /* an owner kind outside the list, or in the wrong group, or unparsable */
        {POD_OWNED("p", OWNER("apps/v1", "DaemonSet", "ds"), "{}"), CREATE_OPTIONS,
         "is not a workload kind WorkloadSpread handles"},
        {POD_OWNED("p", OWNER("extensions/v1beta1", "ReplicaSet", "rs"), "{}"), CREATE_OPTIONS,
         "is not a workload kind WorkloadSpread handles"},
        {POD_OWNED("p", OWNER("a/b/c", "CloneSet", "cs-demo"), "{}"), CREATE_OPTIONS,
         "is not a workload kind WorkloadSpread handles"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct wh_step_run r;
        run(&f, &r, "CREATE", "", cases[i].pod, NULL, cases[i].options, false);
        CHECK_EQ_INT(r.rc, WH_OK);
        CHECK(r.resp.allowed && !r.resp.mutated);
        if (!strstr(r.notes, cases[i].note))
            fprintf(stderr, "case %zu: notes %s\n", i, r.notes);
        CHECK(strstr(r.notes, cases[i].note) != NULL);
        wh_step_run_fini(&r);
    }
    CHECK_EQ_INT(missing(&f, "versionIgnored", 0), 2); /* nothing recorded */
    wh_step_fx_fini(&f);
}

TEST(ws_mutate_options_are_decoded_first)
{
    struct wh_step_fx f;
    fx_init(&f, "", "[" BASIC "]");
    struct wh_step_run r;
    run(&f, &r, "CREATE", "", CS_POD("cs-demo-1"), NULL, NULL, false);
    CHECK_EQ_INT(r.rc, WH_ERR_INVALID);
    CHECK_EQ_STR(r.eb.msg, "there is no content to decode");
    wh_step_run_fini(&r);
    wh_step_fx_fini(&f);
}

TEST(ws_mutate_gate_off_does_nothing)
{
    struct wh_step_fx f;
    fx_init(&f, "WorkloadSpread=false", "[" BASIC "]");
    /* no cache declared, and the pipeline skips the step */
    CHECK(wh_cluster_cache(f.cl, WH_RES_WORKLOADSPREAD) == NULL);
    struct wh_step_run r;
    create(&f, &r, CS_POD("cs-demo-1"));
    CHECK(r.resp.allowed && !r.resp.mutated);
    CHECK_EQ_STR(r.notes, "");
    wh_step_run_fini(&r);
    wh_step_fx_fini(&f);
    /* PodWebhook off forces it off */
    fx_init(&f, "PodWebhook=false", "[]");
    CHECK(!wh_feature_on(&f.cfg.features, WH_FEATURE_WorkloadSpread));
    wh_step_fx_fini(&f);
}

TEST(ws_mutate_uses_request_namespace_when_pod_has_none)
{
    struct wh_step_fx f;
    fx_init(&f, "", "[" BASIC "]");
    expect_create(&f,
                  "{'apiVersion':'v1','kind':'Pod','metadata':{'name':'cs-demo-1',"
                  "'ownerReferences':[" CS_OWNER "]}}",
                  GOT("ws-demo", "a"), NULL, 0, 0);
    wh_step_fx_fini(&f);
}

/* --- 4.2 finding the WorkloadSpread ------------------------------------------------------------
 */

TEST(ws_mutate_only_pod_creations_without_subresource)
{
    struct wh_step_fx f;
    fx_init(&f, "", "[" BASIC "]");
    /* 4.1 items 2-3: another subresource, another resource, another operation: WorkloadSpread
     * does nothing, not even decode the options (there are none here) */
    struct {
        const char *resource, *op, *sub;
    } cases[] = {
        {"pods", "CREATE", "status"},
        {"deployments", "CREATE", ""},
        {"pods", "UPDATE", ""},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct wh_step_run r;
        run_on(&f, &r, true, cases[i].resource, cases[i].op, cases[i].sub, CS_POD("cs-demo-1"),
               NULL, NULL, false);
        CHECK_EQ_INT(r.rc, WH_OK);
        CHECK(r.resp.allowed && !r.resp.mutated);
        CHECK_EQ_STR(r.notes, "");
        wh_step_run_fini(&r);
    }
    CHECK_EQ_INT(missing(&f, "versionIgnored", 0), 2);
    wh_step_fx_fini(&f);
}

TEST(ws_mutate_every_supported_owner_kind)
{
    /* 4.1 item 7: Deployment and ReplicaSet (apps), StatefulSet (apps, apps.kruise.io), Job
     * (batch) own Pods WorkloadSpread handles, besides CloneSet; every owner exists, since the
     * walk reads each one compared with another WorkloadSpread's target */
#define ONLY_WS(name, ref)                                                                         \
    "{'apiVersion':'apps.kruise.io/v1beta1','kind':'WorkloadSpread','metadata':{'name':'" name     \
    "','namespace':'ns'},'spec':{'targetRef':" ref ",'subsets':[{'name':'only'}]}}"
#define WL(av, kind, name)                                                                         \
    "{'apiVersion':'" av "','kind':'" kind "','metadata':{'name':'" name "','namespace':'ns'}}"
    static const char objects[] =
        "[" WL("batch/v1", "Job", "j") "," WL("apps/v1", "Deployment", "d") "," WL("apps/v1", "ReplicaSet", "rs") "," WL(
            "apps.kruise.io/v1beta1", "StatefulSet",
            "as") "," WL("apps/v1", "StatefulSet",
                         "s") "," ONLY_WS("ws-as",
                                          "{'apiVersion':'apps.kruise.io/"
                                          "v1beta1','kind':'StatefulSet','name':'"
                                          "as'}") "," ONLY_WS("ws-d",
                                                              "{'apiVersion':'"
                                                              "apps/"
                                                              "v1','kind':'"
                                                              "Deployment','name':"
                                                              "'d'}") "," ONLY_WS("ws-j",
                                                                                  "{'apiVersion':'"
                                                                                  "batch/"
                                                                                  "v1','kind':'Job'"
                                                                                  ",'name':'"
                                                                                  "j'}") "," ONLY_WS("ws-rs",
                                                                                                     "{'"
                                                                                                     "apiVer"
                                                                                                     "sion':"
                                                                                                     "'apps/"
                                                                                                     "v1','"
                                                                                                     "kind':"
                                                                                                     "'Repli"
                                                                                                     "caSet'"
                                                                                                     ",'"
                                                                                                     "name':"
                                                                                                     "'rs'}") "," ONLY_WS("ws-s",
                                                                                                                          "{'apiVersion':'apps/v1','kind':'StatefulSet','name':'s'}") "]";
    struct wh_step_fx f;
    fx_init(&f, "", objects);
    struct {
        const char *owner, *ws;
    } cases[] = {
        {OWNER("batch/v1", "Job", "j"), "ws-j"},
        {OWNER("apps/v1", "Deployment", "d"), "ws-d"},
        {OWNER("apps/v1", "ReplicaSet", "rs"), "ws-rs"},
        {OWNER("apps.kruise.io/v1beta1", "StatefulSet", "as"), "ws-as"},
        {OWNER("apps/v1", "StatefulSet", "s"), "ws-s"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *pod = wh_str_printf(POD_OWNED("p-0", "%s", "{}"), cases[i].owner);
        char *want = wh_str_printf("{\"name\":\"%s\",\"subset\":\"only\"}", cases[i].ws);
        expect_create(&f, pod, want, NULL, 0, 0);
        free(want);
        free(pod);
    }
    wh_step_fx_fini(&f);
#undef WL
#undef ONLY_WS
}

#define DEPLOYMENT                                                                                 \
    "{'apiVersion':'apps/v1','kind':'Deployment','metadata':{'name':'web','namespace':'ns'},"      \
    "'spec':{'replicas':4}}"
#define REPLICASET(name)                                                                           \
    "{'apiVersion':'apps/v1','kind':'ReplicaSet','metadata':{'name':'" name "','namespace':'ns',"  \
    "'ownerReferences':[" OWNER("apps/v1", "Deployment", "web") "]}}"
#define TARGET_DEP "{'apiVersion':'apps/v1','kind':'Deployment','name':'web'}"
#define RS_POD(name, hash)                                                                         \
    POD_OWNED(name, OWNER("apps/v1", "ReplicaSet", "web-" hash), "{'pod-template-hash':'" hash "'}")

TEST(ws_match_walks_owner_chain)
{
    struct wh_step_fx f;
    fx_init(&f, "",
            "[" DEPLOYMENT "," REPLICASET("web-6d4") "," WS(TARGET_DEP, SUBSETS_A2_B, "{}") "]");
    struct wh_step_run r;
    /* Pod -> ReplicaSet web-6d4 (read from the cache) -> Deployment web == targetRef */
    create(&f, &r, RS_POD("web-6d4-x", "6d4"));
    CHECK_EQ_INT(r.rc, WH_OK);
    CHECK_EQ_STR(annotation(&r), "{\"name\":\"ws-demo\",\"subset\":\"a\"}");
    CHECK_EQ_INT(missing(&f, "6d4", 0), 1); /* the Deployment revision's own list */
    wh_step_run_fini(&r);
    /* a ReplicaSet that is missing fails the request with its NotFound text, in the words of
     * upstream's cache, which names the kind (shown by the differential run against upstream) */
    create(&f, &r, RS_POD("web-9zz-x", "9zz"));
    CHECK_EQ_INT(r.rc, WH_ERR_NOT_FOUND);
    CHECK_EQ_STR(r.eb.msg, "ReplicaSet.apps \"web-9zz\" not found");
    wh_step_run_fini(&r);
    wh_step_fx_fini(&f);
}

TEST(ws_match_notfound_fails_even_for_an_unrelated_workloadspread)
{
    struct wh_step_fx f;
    /* the Pod's CloneSet cs-other is compared with targetRef cs-demo: cs-other must be read */
    fx_init(&f, "", "[" BASIC "]");
    struct wh_step_run r;
    run(&f, &r, "CREATE", "",
        POD_OWNED("cs-other-1", OWNER("apps.kruise.io/v1alpha1", "CloneSet", "cs-other"), "{}"),
        NULL, CREATE_OPTIONS, false);
    CHECK_EQ_INT(r.rc, WH_ERR_NOT_FOUND);
    CHECK_EQ_STR(r.eb.msg, "CloneSet.apps.kruise.io \"cs-other\" not found");
    wh_step_run_fini(&r);
    wh_step_fx_fini(&f);
    /* when it exists and has no controller owner, the WorkloadSpread is not the Pod's */
    fx_init(&f, "", "[" BASIC "," CLONESET("cs-other", "1") "]");
    run(&f, &r, "CREATE", "",
        POD_OWNED("cs-other-1", OWNER("apps.kruise.io/v1alpha1", "CloneSet", "cs-other"), "{}"),
        NULL, CREATE_OPTIONS, false);
    CHECK_EQ_INT(r.rc, WH_OK);
    CHECK(!r.resp.mutated);
    CHECK(strstr(r.notes, "targetRef CloneSet cs-demo is not the Pod's workload") != NULL);
    wh_step_run_fini(&r);
    wh_step_fx_fini(&f);
}

TEST(ws_match_versions_are_ignored_and_unusable_ones_skipped)
{
    struct wh_step_fx f;
    /* the target names v1beta1, the owner v1alpha1: same group, kind and name */
    fx_init(&f, "",
            "[" CLONESET("cs-demo", "5") "," WS(
                "{'apiVersion':'apps.kruise.io/v1beta1','kind':'CloneSet','name':'cs-demo'}",
                SUBSETS_A2_B, STATUS_A("2")) "]");
    expect_create(&f, CS_POD("cs-demo-1"), GOT("ws-demo", "a"), NULL, 0, 0);
    struct wh_step_run r;
    wh_step_fx_fini(&f);
    /* no targetRef; being deleted; an apiVersion that does not parse: skipped */
    static const char *const unusable[] = {
        "[" CLONESET("cs-demo", "5") ",{'apiVersion':'apps.kruise.io/v1beta1','kind':"
                                     "'WorkloadSpread','metadata':{'name':'ws-demo','namespace':'"
                                     "ns'},'spec':{'subsets':[{"
                                     "'name':'a'}]}}]",
        "[" CLONESET("cs-demo", "5") ",{'apiVersion':'apps.kruise.io/v1beta1','kind':"
                                     "'WorkloadSpread','metadata':{'name':'ws-demo','namespace':'"
                                     "ns','deletionTimestamp':"
                                     "'2025-01-01T00:00:00Z'},'spec':{'targetRef':" TARGET_CS
                                     ",'subsets':[{'name':'a'}]}}]",
        "[" CLONESET("cs-demo", "5") "," WS(
            "{'apiVersion':'a/b/c','kind':'CloneSet','name':'cs-demo'}", SUBSETS_A2_B, "{}") "]",
    };
    for (size_t i = 0; i < 3; i++) {
        fx_init(&f, "", unusable[i]);
        create(&f, &r, CS_POD("cs-demo-1"));
        CHECK_EQ_INT(r.rc, WH_OK);
        CHECK(!r.resp.mutated);
        CHECK(strstr(r.notes, "[workloadspread ws-demo 0 skipped") != NULL);
        wh_step_run_fini(&r);
        wh_step_fx_fini(&f);
    }
}

TEST(ws_match_target_filter)
{
    struct {
        const char *filter;
        bool selected;
        const char *note;
    } cases[] = {
        {"", true, NULL},
        /* a targetFilter without selector selects no Pod (only replicasPathList) */
        {",'targetFilter':{'replicasPathList':['spec.replicas']}", false, "has no selector"},
        {",'targetFilter':{'selector':{}}", true, NULL},
        {",'targetFilter':{'selector':{'matchLabels':{'app':'demo'}}}", true, NULL},
        {",'targetFilter':{'selector':{'matchLabels':{'app':'other'}}}", false,
         "does not select the Pod's labels"},
        {",'targetFilter':{'selector':{'matchExpressions':[{'key':'app','operator':'Foo'}]}}",
         false, "\"Foo\" is not a valid pod selector operator"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *full = wh_str_printf(
            "[" CLONESET("cs-demo", "5") ",{'apiVersion':'apps.kruise.io/v1beta1','kind':"
                                         "'WorkloadSpread','metadata':{'name':'ws-demo','namespace'"
                                         ":'ns'},'spec':{'targetRef':" TARGET_CS
                                         ",'subsets':[{'name':'only'}]%s}}]",
            cases[i].filter);
        char notes[4096];
        json_t *pod = create_in(full, CS_POD("cs-demo-1"), notes, sizeof(notes));
        CHECK_EQ_INT(wh_json_annotation(pod, WH_KRUISE_ANN_MATCHED_WORKLOADSPREAD) != NULL,
                     cases[i].selected);
        if (cases[i].note)
            CHECK(strstr(notes, cases[i].note) != NULL);
        json_decref(pod);
        free(full);
    }
}

TEST(ws_match_first_of_several_in_name_order)
{
    struct wh_step_fx f;
    fx_init(
        &f, "",
        "[" CLONESET("cs-demo", "5") ","
                                     "{'apiVersion':'apps.kruise.io/"
                                     "v1beta1','kind':'WorkloadSpread','metadata':{'name':"
                                     "'ws-1','namespace':'ns'},'spec':{'targetRef':" TARGET_CS
                                     ",'subsets':[{'name':'x'}]}},"
                                     "{'apiVersion':'apps.kruise.io/"
                                     "v1beta1','kind':'WorkloadSpread','metadata':{'name':"
                                     "'ws-2','namespace':'ns'},'spec':{'targetRef':" TARGET_CS
                                     ",'subsets':[{'name':'y'}]}},"
                                     "{'apiVersion':'apps.kruise.io/"
                                     "v1beta1','kind':'WorkloadSpread','metadata':{'name':"
                                     "'ws-0','namespace':'other'},'spec':{'targetRef':" TARGET_CS
                                     ",'subsets':[{'name':"
                                     "'z'}]}}]");
    struct wh_step_run r;
    create(&f, &r, CS_POD("cs-demo-1"));
    CHECK_EQ_STR(annotation(&r), "{\"name\":\"ws-1\",\"subset\":\"x\"}");
    wh_step_run_fini(&r);
    wh_step_fx_fini(&f);
}

/* --- 4.3 the custom workload white list ------------------------------------------------------ */

#define WHITELIST(json)                                                                            \
    "{'apiVersion':'v1','kind':'ConfigMap','metadata':{'name':'kruise-configuration','namespace':" \
    "'kruise-system'},'data':{'WorkloadSpread_Watch_Custom_Workload_WhiteList':'" json "'}}"

TEST(ws_whitelist_decodes_as_go)
{
    struct wh_ws_whitelist wl;
    struct wh_errbuf eb = {{0}};
    CHECK_EQ_INT(wh_ws_whitelist_parse(
                     "{\"workloads\":[{\"group\":\"mock.kruise.io\",\"VERSION\":\"v1\",\"Kind\":"
                     "\"GameServerSet\",\"ReplicasPath\":\"spec.replicas\",\"subResources\":[{"
                     "\"Group\":\"mock.kruise.io\",\"Kind\":\"GameServer\"}]}],\"other\":1}",
                     &wl, &eb),
                 WH_OK);
    CHECK_EQ_INT(wl.n, 1);
    CHECK_EQ_STR(wl.items[0].replicas_path, "spec.replicas");
    CHECK(wh_ws_whitelist_owner(&wl, "mock.kruise.io", "GameServerSet"));
    CHECK(wh_ws_whitelist_owner(&wl, "mock.kruise.io", "GameServer"));
    CHECK(!wh_ws_whitelist_owner(&wl, "mock.kruise.io", "Other"));
    CHECK(wh_ws_whitelist_workload(&wl, "mock.kruise.io", "GameServerSet") != NULL);
    CHECK(wh_ws_whitelist_workload(&wl, "mock.kruise.io", "GameServer") == NULL);
    wh_ws_whitelist_fini(&wl);
    struct {
        const char *text, *err;
    } bad[] = {
        {"{", "unexpected end of JSON input"},
        {"[]", "json: cannot unmarshal array into Go value of type "
               "configuration.WSCustomWorkloadWhiteList"},
        {"{\"workloads\":{}}", "json: cannot unmarshal object into Go struct field "
                               "WSCustomWorkloadWhiteList.workloads of type "
                               "[]configuration.CustomWorkload"},
        {"{\"workloads\":[{\"Kind\":5}]}", "json: cannot unmarshal number into Go struct field "
                                           "CustomWorkload.workloads.Kind of type string"},
        {"{\"workloads\":[{\"subResources\":[{\"Group\":true}]}]}",
         "json: cannot unmarshal bool into Go struct field "
         "GroupVersionKind.workloads.subResources.Group of type string"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        CHECK_EQ_INT(wh_ws_whitelist_parse(bad[i].text, &wl, &eb), WH_ERR_INVALID);
        CHECK_EQ_STR(eb.msg, bad[i].err);
        CHECK_EQ_INT(wl.n, 0);
    }
    /* null and an empty object are an empty list */
    CHECK_EQ_INT(wh_ws_whitelist_parse("null", &wl, &eb), WH_OK);
    CHECK_EQ_INT(wl.n, 0);
    wh_ws_whitelist_fini(&wl);
}

#define GAMESERVERSET(replicas)                                                                    \
    "{'apiVersion':'mock.kruise.io/v1','kind':'GameServerSet','metadata':{'name':'gss',"           \
    "'namespace':'ns'},'spec':{'replicas':" replicas "}}"
#define GSS_WL                                                                                     \
    "{\\\"workloads\\\":[{\\\"Group\\\":\\\"mock.kruise.io\\\",\\\"Version\\\":\\\"v1\\\","        \
    "\\\"Kind\\\":\\\"GameServerSet\\\",\\\"replicasPath\\\":\\\"spec.replicas\\\"}]}"

TEST(ws_custom_workload_owner_and_replicas)
{
    struct wh_step_fx f;
    /* a Pod owned by a white-listed kind; percents scale against its replicasPath */
    fx_init(&f, "",
            "[" WHITELIST(GSS_WL) "," GAMESERVERSET("10") "," WS(
                "{'apiVersion':'mock.kruise.io/v1','kind':'GameServerSet','name':'gss'}",
                ",'subsets':[{'name':'a','maxReplicas':'30%'},{'name':'b','maxReplicas':'70%'}]",
                "{}") "]");
    /* ceil(30% of 10) = 3, one taken */
    expect_create(&f, POD_OWNED("gss-1", OWNER("mock.kruise.io/v1", "GameServerSet", "gss"), "{}"),
                  GOT("ws-demo", "a"), "versionIgnored", 0, 2);
    CHECK_EQ_INT(missing(&f, "versionIgnored", 1), 7);
    struct wh_step_run r;
    wh_step_fx_fini(&f);
    /* without the white list the same Pod is not handled */
    fx_init(&f, "",
            "[" GAMESERVERSET("10") "," WS("{'apiVersion':'mock.kruise.io/v1','kind':"
                                           "'GameServerSet','name':'gss'}",
                                           ",'subsets':[{'name':'a'}]", "{}") "]");
    run(&f, &r, "CREATE", "",
        POD_OWNED("gss-1", OWNER("mock.kruise.io/v1", "GameServerSet", "gss"), "{}"), NULL,
        CREATE_OPTIONS, false);
    CHECK(!r.resp.mutated);
    wh_step_run_fini(&r);
    wh_step_fx_fini(&f);
}

/* --- 5.1 and 5.2 --------------------------------------------------------------------------------
 */

TEST(ws_single_unlimited_subset_writes_nothing)
{
    struct wh_step_fx f;
    fx_init(
        &f, "",
        "[" CLONESET("cs-demo", "5") "," WS(TARGET_CS, ",'subsets':[{'name':'only'}]", "{}") "]");
    json_t *before = ws_now(&f, "ws-demo");
    struct wh_step_run r;
    /* a Pod without a name: still no uid, since nothing is recorded */
    run(&f, &r, "CREATE", "",
        "{'apiVersion':'v1','kind':'Pod','metadata':{'generateName':'cs-demo-','namespace':'ns',"
        "'ownerReferences':[" CS_OWNER "]}}",
        NULL, CREATE_OPTIONS, false);
    CHECK_EQ_STR(annotation(&r), "{\"name\":\"ws-demo\",\"subset\":\"only\"}");
    /* nodeAffinity {} is added even with no selector */
    CHECK(json_is_object(wh_json_path(r.resp.mutated, "spec", "affinity", "nodeAffinity", NULL)));
    json_t *after = ws_now(&f, "ws-demo");
    CHECK_EQ_STR(wh_json_meta_str(after, "resourceVersion"),
                 wh_json_meta_str(before, "resourceVersion"));
    json_decref(before);
    json_decref(after);
    wh_step_run_fini(&r);
    wh_step_fx_fini(&f);
}

TEST(ws_statefulset_ordinals)
{
    CHECK_EQ_INT(wh_ws_ordinal("web-12"), 12);
    CHECK_EQ_INT(wh_ws_ordinal("web-1-2"), 2);
    CHECK_EQ_INT(wh_ws_ordinal("web--5"), 5);
    CHECK_EQ_INT(wh_ws_ordinal("web"), -1);
    CHECK_EQ_INT(wh_ws_ordinal("web-"), -1);
    CHECK_EQ_INT(wh_ws_ordinal("web-1a"), -1);
    CHECK_EQ_INT(wh_ws_ordinal(""), -1);
    CHECK_EQ_INT(wh_ws_ordinal("web-2147483647"), 2147483647);
    CHECK_EQ_INT(wh_ws_ordinal("web-2147483648"), -1); /* beyond int32 */
    json_t *ws = jq("{'spec':{'targetRef':{'kind':'StatefulSet'},'subsets':[{'name':'a',"
                    "'maxReplicas':2},{'name':'b','maxReplicas':3},{'name':'c'}]}}");
    static const char *const want[] = {"a", "a", "b", "b", "b", "c", "c"};
    for (int i = 0; i < 7; i++) {
        char name[32];
        snprintf(name, sizeof(name), "web-%d", i);
        CHECK_EQ_STR(wh_ws_statefulset_subset(ws, name), want[i]);
    }
    CHECK_EQ_STR(wh_ws_statefulset_subset(ws, "web"), "a"); /* ordinal -1 */
    /* a subset marked Schedulable=False in status.subsetStatuses is skipped */
    json_object_set_new(ws, "status",
                        jq("{'subsetStatuses':[{'name':'a','conditions':[{'type':'Schedulable',"
                           "'status':'False'}]}]}"));
    static const char *const want2[] = {"b", "b", "b", "c"};
    for (int i = 0; i < 4; i++) {
        char name[32];
        snprintf(name, sizeof(name), "web-%d", i);
        CHECK_EQ_STR(wh_ws_statefulset_subset(ws, name), want2[i]);
    }
    json_decref(ws);
    /* a string maxReplicas counts as strconv.Atoi reads it (IntValue): "2" is 2, "50%" is 0 */
    ws = jq("{'spec':{'subsets':[{'name':'a','maxReplicas':'2'},{'name':'b','maxReplicas':"
            "'50%'},{'name':'c'}]}}");
    CHECK_EQ_STR(wh_ws_statefulset_subset(ws, "web-1"), "a");
    CHECK_EQ_STR(wh_ws_statefulset_subset(ws, "web-2"), "c");
    json_decref(ws);
    /* all bounded and past the last: none */
    ws = jq("{'spec':{'subsets':[{'name':'a','maxReplicas':1}]}}");
    CHECK(wh_ws_statefulset_subset(ws, "web-1") == NULL);
    json_decref(ws);
}

TEST(ws_statefulset_target_writes_no_status)
{
    struct wh_step_fx f;
    fx_init(&f, "",
            "[{'apiVersion':'apps/v1','kind':'StatefulSet','metadata':{'name':'web','namespace':"
            "'ns'}}," WS("{'apiVersion':'apps/v1','kind':'StatefulSet','name':'web'}", SUBSETS_A2_B,
                         STATUS_A("2")) "]");
    expect_create(&f, POD_OWNED("web-3", OWNER("apps/v1", "StatefulSet", "web"), "{}"),
                  GOT("ws-demo", "b"), "versionIgnored", 0, 2);
    wh_step_fx_fini(&f);
}

/* --- 5.3-5.5 the status-based choice ------------------------------------------------------------
 */

TEST(ws_create_takes_first_subset_with_room)
{
    struct wh_step_fx f;
    fx_init(&f, "", "[" BASIC "]");
    struct wh_step_run r;
    double before = metric("kruise_webhook_workloadspread_pods_total",
                           "operation=\"create\",outcome=\"subset_chosen\"");
    create(&f, &r, CS_POD("cs-demo-1"));
    CHECK_EQ_STR(annotation(&r), "{\"name\":\"ws-demo\",\"subset\":\"a\"}");
    CHECK(strstr(r.notes, "a chosen: missingReplicas 2 > 0; creatingPods recorded "
                          "(missingReplicas 2 -> 1)") != NULL);
    wh_step_run_fini(&r);
    create(&f, &r, CS_POD("cs-demo-2"));
    CHECK_EQ_STR(annotation(&r), "{\"name\":\"ws-demo\",\"subset\":\"a\"}");
    wh_step_run_fini(&r);
    json_t *hold = NULL;
    const json_t *a = entry(&f, "ws-demo", "versionIgnored", 0, &hold);
    CHECK_EQ_INT(json_integer_value(json_object_get(a, "missingReplicas")), 0);
    CHECK_EQ_STR(wh_json_str(wh_json_obj(a, "creatingPods"), "cs-demo-1"), NOW_TEXT);
    CHECK(wh_json_str(wh_json_obj(a, "creatingPods"), "cs-demo-2") != NULL);
    json_decref(hold);
    /* a is full: the next goes to b, which is unlimited, and nothing is written */
    json_t *full = ws_now(&f, "ws-demo");
    create(&f, &r, CS_POD("cs-demo-3"));
    CHECK_EQ_STR(annotation(&r), "{\"name\":\"ws-demo\",\"subset\":\"b\"}");
    CHECK(strstr(r.notes, "b chosen: the first subset with room, without maxReplicas") != NULL);
    json_t *now = ws_now(&f, "ws-demo");
    CHECK_EQ_STR(wh_json_meta_str(now, "resourceVersion"),
                 wh_json_meta_str(full, "resourceVersion"));
    json_decref(now);
    json_decref(full);
    wh_step_run_fini(&r);
    CHECK_EQ_INT(metric("kruise_webhook_workloadspread_pods_total",
                        "operation=\"create\",outcome=\"subset_chosen\"") -
                     before,
                 3);
    wh_step_fx_fini(&f);
}

TEST(ws_create_no_room_no_patch_no_write)
{
    struct wh_step_fx f;
    fx_init(&f, "",
            "[" CLONESET("cs-demo", "5") "," WS(
                TARGET_CS, ",'subsets':[{'name':'a','maxReplicas':1},{'name':'b','maxReplicas':1}]",
                "{'versionedSubsetStatuses':{'versionIgnored':[{'name':'a','missingReplicas':0},"
                "{'name':'b','missingReplicas':0}]}}") "]");
    json_t *before = ws_now(&f, "ws-demo");
    struct wh_step_run r;
    create(&f, &r, CS_POD("cs-demo-1"));
    CHECK_EQ_INT(r.rc, WH_OK);
    CHECK(r.resp.allowed && !r.resp.mutated); /* admitted unpatched, never denied (10) */
    CHECK(strstr(r.notes, "no subset has room") != NULL);
    json_t *after = ws_now(&f, "ws-demo");
    CHECK_EQ_JSON(after, before);
    json_decref(before);
    json_decref(after);
    wh_step_run_fini(&r);
    wh_step_fx_fini(&f);
}

TEST(ws_create_retried_pod_keeps_its_subset)
{
    struct wh_step_fx f;
    fx_init(&f, "",
            "[" CLONESET("cs-demo", "5") "," WS(
                TARGET_CS, ",'subsets':[{'name':'a','maxReplicas':3},{'name':'b','maxReplicas':3}]",
                "{'versionedSubsetStatuses':{'versionIgnored':[{'name':'a','missingReplicas':2},"
                "{'name':'b','missingReplicas':1,'deletingPods':{'cs-demo-1':'" NOW_TEXT
                "'}}]}}") "]");
    json_t *before = ws_now(&f, "ws-demo");
    struct wh_step_run r;
    create(&f, &r, CS_POD("cs-demo-1"));
    CHECK_EQ_STR(annotation(&r), "{\"name\":\"ws-demo\",\"subset\":\"b\"}");
    json_t *after = ws_now(&f, "ws-demo");
    CHECK_EQ_JSON(after, before);
    json_decref(before);
    json_decref(after);
    wh_step_run_fini(&r);
    wh_step_fx_fini(&f);
}

TEST(ws_create_skips_unschedulable_and_follows_list_order)
{
    struct wh_step_fx f;
    /* the status list orders b before a; a is Schedulable=False elsewhere, which is ignored:
     * only the list's own conditions count */
    fx_init(&f, "",
            "[" CLONESET("cs-demo", "5") "," WS(
                TARGET_CS,
                ",'subsets':[{'name':'a','maxReplicas':3},{'name':'b','maxReplicas':3},{'name':"
                "'c','maxReplicas':3}]",
                "{'versionedSubsetStatuses':{'versionIgnored':[{'name':'b','missingReplicas':3,"
                "'conditions':[{'type':'Schedulable','status':'False'}]},{'name':'c',"
                "'missingReplicas':3},{'name':'a','missingReplicas':3}]}}") "]");
    expect_create(&f, CS_POD("cs-demo-1"), GOT("ws-demo", "c"), "versionIgnored", 1, 2);
    wh_step_fx_fini(&f);
}

TEST(ws_create_nameless_pod_gets_a_uid)
{
    struct wh_step_fx f;
    fx_init(&f, "", "[" BASIC "]");
    struct wh_step_run r;
    run(&f, &r, "CREATE", "",
        "{'apiVersion':'v1','kind':'Pod','metadata':{'generateName':'cs-demo-','namespace':'ns',"
        "'ownerReferences':[" CS_OWNER "]}}",
        NULL, CREATE_OPTIONS, false);
    char n[64], s[64];
    const char *v = annotation(&r);
    CHECK(wh_ws_annotation_parse(v, n, sizeof(n), s, sizeof(s)));
    const char *uid = v ? strstr(v, "\"uid\":\"") : NULL;
    CHECK(uid != NULL);
    char key[WH_UUID_LEN + 1] = "";
    if (uid)
        snprintf(key, sizeof(key), "%s", uid + 7);
    CHECK_EQ_INT(strlen(key), WH_UUID_LEN);
    json_t *hold = NULL;
    const json_t *a = entry(&f, "ws-demo", "versionIgnored", 0, &hold);
    CHECK_EQ_INT(json_object_size(wh_json_obj(a, "creatingPods")), 1);
    CHECK(json_object_get(wh_json_obj(a, "creatingPods"), key) != NULL);
    json_decref(hold);
    wh_step_run_fini(&r);
    wh_step_fx_fini(&f);
}

TEST(ws_decide_again_on_a_newer_object)
{
    /* the decision is a function of the object given: after a conflict the write-back gives
     * it the newer object, on which a's last place is taken, and b gets the Pod */
    struct wh_ws_pod_in in = {.name = "p1", .version = "versionIgnored", .timestamp = NOW_TEXT};
    json_t *v1 = jq(WS(TARGET_CS,
                       ",'subsets':[{'name':'a','maxReplicas':1},{'name':'b',"
                       "'maxReplicas':1}]",
                       "{'versionedSubsetStatuses':{'versionIgnored':[{'name':'a',"
                       "'missingReplicas':1},{'name':'b','missingReplicas':1}]}}"));
    struct wh_ws_decision d;
    json_t *desired = NULL;
    struct wh_errbuf eb = {{0}};
    CHECK_EQ_INT(wh_ws_decide_create(v1, &in, &d, &desired, &eb), WH_OK);
    CHECK_EQ_STR(d.subset, "a");
    CHECK_EQ_INT(d.outcome, WH_WS_COUNTED);
    /* another writer took it meanwhile: the object now says so */
    in.name = "p2";
    json_t *v2 = desired;
    desired = NULL;
    CHECK_EQ_INT(wh_ws_decide_create(v2, &in, &d, &desired, &eb), WH_OK);
    CHECK_EQ_STR(d.subset, "b");
    CHECK_EQ_INT(d.missing_now, 0);
    json_decref(desired);
    in.name = "p3";
    json_t *v3 = NULL;
    CHECK_EQ_INT(wh_ws_decide_create(v2, &in, &d, &v3, &eb), WH_OK);
    /* the input objects are never modified (they are frozen cache copies) */
    CHECK_EQ_INT(
        json_integer_value(json_object_get(
            json_array_get(
                wh_json_path(v1, "status", "versionedSubsetStatuses", "versionIgnored", NULL), 0),
            "missingReplicas")),
        1);
    json_decref(v3);
    json_decref(v2);
    json_decref(v1);
}

/* --- 5.4 versioned lists and 5.6 maxReplicas ---------------------------------------------------
 */

TEST(ws_pod_version_keys)
{
    struct {
        const char *pod, *want;
    } cases[] = {
        {POD_OWNED("p", OWNER("apps/v1", "ReplicaSet", "rs"), "{'pod-template-hash':'6d4'}"),
         "6d4"},
        {POD_OWNED("p", OWNER("apps/v1", "ReplicaSet", "rs"),
                   "{'controller-revision-hash':'web-7c8f'}"),
         "7c8f"},
        {POD_OWNED("p", OWNER("apps/v1", "Deployment", "d"), "{'controller-revision-hash':'x'}"),
         "x"},
        {POD_OWNED("p", OWNER("apps/v1", "ReplicaSet", "rs"), "{}"), "versionIgnored"},
        /* the owner kind is compared lower-cased */
        {POD_OWNED("p", OWNER("apps/v1", "replicaset", "rs"), "{'pod-template-hash':'6d4'}"),
         "6d4"},
        /* other owners never use versions, whatever their labels */
        {POD_OWNED("p", CS_OWNER, "{'pod-template-hash':'6d4'}"), "versionIgnored"},
        {"{'metadata':{'labels':{'pod-template-hash':'6d4'}}}", "versionIgnored"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        json_t *pod = jq(cases[i].pod);
        CHECK_EQ_STR(wh_ws_pod_version(pod), cases[i].want);
        json_decref(pod);
    }
}

TEST(ws_fresh_list_is_built_and_written_only_when_used)
{
    struct wh_step_fx f;
    fx_init(&f, "",
            "[" DEPLOYMENT "," REPLICASET("web-6d4") "," WS(
                TARGET_DEP,
                ",'subsets':[{'name':'a','maxReplicas':1},{'name':'b','maxReplicas':0}]",
                "{'subsetStatuses':[{'name':'a','missingReplicas':0}],'versionedSubsetStatuses':"
                "{'old':[{'name':'a','missingReplicas':0}]}}") "]");
    struct wh_step_run r;
    /* a new revision starts from a full budget, whatever subsetStatuses and other versions say */
    create(&f, &r, RS_POD("web-6d4-a", "6d4"));
    CHECK_EQ_STR(annotation(&r), "{\"name\":\"ws-demo\",\"subset\":\"a\"}");
    json_t *hold = NULL;
    const json_t *a = entry(&f, "ws-demo", "6d4", 0, &hold);
    json_t *want_a = jq("{'name':'a','replicas':0,'missingReplicas':0,'creatingPods':{"
                        "'web-6d4-a':'" NOW_TEXT "'}}");
    json_t *want_b = jq("{'name':'b','replicas':0,'missingReplicas':0}");
    CHECK_EQ_JSON(a, want_a);
    CHECK_EQ_JSON(
        json_array_get(wh_json_path(hold, "status", "versionedSubsetStatuses", "6d4", NULL), 1),
        want_b);
    json_decref(want_a);
    json_decref(want_b);
    /* the other lists are kept as they were */
    CHECK_EQ_INT(
        json_array_size(wh_json_path(hold, "status", "versionedSubsetStatuses", "old", NULL)), 1);
    json_decref(hold);
    wh_step_run_fini(&r);
    wh_step_fx_fini(&f);
    /* a fresh list that gives no subset is not written */
    fx_init(&f, "",
            "[" DEPLOYMENT "," REPLICASET("web-6d4") "," WS(
                TARGET_DEP, ",'subsets':[{'name':'a','maxReplicas':0}]", "{}") "]");
    create(&f, &r, RS_POD("web-6d4-a", "6d4"));
    CHECK(!r.resp.mutated);
    json_t *ws = ws_now(&f, "ws-demo");
    CHECK(wh_json_path(ws, "status", "versionedSubsetStatuses", NULL) == NULL);
    json_decref(ws);
    wh_step_run_fini(&r);
    wh_step_fx_fini(&f);
}

TEST(ws_scaled_max_rounds_up)
{
    struct {
        const char *max;
        long long total, want;
        bool ok;
    } cases[] = {
        {"\"30%\"", 5, 2, true},
        {"\"70%\"", 5, 4, true},
        {"\"20%\"", 5, 1, true},
        {"\"1%\"", 5, 1, true},
        {"\"0%\"", 5, 0, true},
        {"\"25%\"", 4, 1, true},
        {"\"75%\"", 4, 3, true},
        {"\"-5%\"", 5, 0, true},
        {"\"-50%\"", 5, -2, true},
        {"3", 100, 3, true},
        {"-1", 5, -1, true},
        {"\"0.2%\"", 5, 0, false},
        {"\"5\"", 5, 0, false},
        {"\"%\"", 5, 0, false},
        {"\" 5%\"", 5, 0, false},
        {"true", 5, 0, false},
        /* strconv.Atoi: a sign, any number of digits; nothing else, nothing out of range */
        {"\"+5%\"", 100, 5, true},
        {"\"000000000000000000000000000000000000000000000000000000000000000030%\"", 5, 2, true},
        {"\"\\t5%\"", 5, 0, false},
        {"\"-%\"", 5, 0, false},
        {"\"5%%\"", 5, 0, false},
        {"\"5 %\"", 5, 0, false},
        {"\"99999999999999999999%\"", 5, 0, false},
        /* ceil(p * total / 100) beyond int64 converts as Go's int() does on amd64 */
        {"\"9223372036854775807%\"", 100, LLONG_MIN, true},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        json_t *v = wh_test_json(cases[i].max);
        long long got = 99;
        CHECK_EQ_INT(wh_ws_scaled_max(v, cases[i].total, &got), cases[i].ok);
        CHECK_EQ_INT(got, cases[i].want);
        json_decref(v);
    }
}

TEST(ws_percent_rounding_in_the_fresh_list)
{
    struct wh_step_fx f;
    /* total 5: 30% -> 2 (one taken), 70% -> 4; a bad string counts as 0 */
    fx_init(&f, "",
            "[" CLONESET("cs-demo", "5") "," WS(TARGET_CS,
                                                ",'subsets':[{'name':'a','maxReplicas':'30%'},{"
                                                "'name':'b','maxReplicas':'70%'},{'name':'c',"
                                                "'maxReplicas':'x'}]",
                                                "{}") "]");
    struct wh_step_run r;
    create(&f, &r, CS_POD("cs-demo-1"));
    CHECK_EQ_STR(annotation(&r), "{\"name\":\"ws-demo\",\"subset\":\"a\"}");
    CHECK_EQ_INT(missing(&f, "versionIgnored", 0), 1);
    CHECK_EQ_INT(missing(&f, "versionIgnored", 1), 4);
    CHECK_EQ_INT(missing(&f, "versionIgnored", 2), 0);
    wh_step_run_fini(&r);
    wh_step_fx_fini(&f);
    /* the workload does not exist: every percentage is 0 and no subset has room */
    fx_init(&f, "",
            "[" WS(TARGET_CS,
                   ",'subsets':[{'name':'a','maxReplicas':'50%'},{'name':'b',"
                   "'maxReplicas':'50%'}]",
                   "{}") "]");
    create(&f, &r, CS_POD("cs-demo-1"));
    CHECK_EQ_INT(r.rc, WH_OK); /* the owner is the target itself: nothing to read */
    CHECK(!r.resp.mutated);
    CHECK(strstr(r.notes, "no subset has room") != NULL);
    wh_step_run_fini(&r);
    wh_step_fx_fini(&f);
}

TEST(ws_total_replicas_sources)
{
    struct wh_errbuf eb = {{0}};
    struct {
        const char *objects, *ws;
        long long want;
        enum wh_err rc;
        const char *err;
    } cases[] = {
        /* replicasPathList: summed; arrays indexed by number */
        {"[{'apiVersion':'apps.kruise.io/v1alpha1','kind':'CloneSet','metadata':{'name':'cs-demo',"
         "'namespace':'ns'},'spec':{'replicas':5,'list':[{'r':2},{'r':3}]}}]",
         "{'metadata':{'namespace':'ns'},'spec':{'targetRef':" TARGET_CS ",'targetFilter':{"
         "'replicasPathList':['spec.replicas','spec.list.1.r']},'subsets':[{'maxReplicas':'50%'}]}"
         "}",
         8, WH_OK, NULL},
        {"[" CLONESET("cs-demo", "5") "]",
         "{'metadata':{'namespace':'ns'},'spec':{'targetRef':" TARGET_CS ",'targetFilter':{"
         "'replicasPathList':['spec.nope']},'subsets':[{'maxReplicas':'50%'}]}}",
         0, WH_ERR_INVALID, "path \"nope\" not exists"},
        {"[" CLONESET("cs-demo", "5") "]",
         "{'metadata':{'namespace':'ns'},'spec':{'targetRef':" TARGET_CS ",'targetFilter':{"
         "'replicasPathList':['metadata.name']},'subsets':[{'maxReplicas':'50%'}]}}",
         0, WH_ERR_INVALID, "object type error"},
        /* by kind: a Job's parallelism */
        {"[{'apiVersion':'batch/v1','kind':'Job','metadata':{'name':'j','namespace':'ns'},'spec':{"
         "'parallelism':7,'completions':20}}]",
         "{'metadata':{'namespace':'ns'},'spec':{'targetRef':{'apiVersion':'batch/v1','kind':"
         "'Job','name':'j'},'subsets':[{'maxReplicas':'50%'}]}}",
         7, WH_OK, NULL},
        /* no percent subset: 0 without reading anything */
        {"[]",
         "{'metadata':{'namespace':'ns'},'spec':{'targetRef':" TARGET_CS ",'subsets':[{"
         "'maxReplicas':3}]}}",
         0, WH_OK, NULL},
        /* the workload does not exist: 0 */
        {"[]",
         "{'metadata':{'namespace':'ns'},'spec':{'targetRef':" TARGET_CS ",'subsets':[{"
         "'maxReplicas':'5%'}]}}",
         0, WH_OK, NULL},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct wh_step_fx f;
        fx_init(&f, "", cases[i].objects);
        json_t *ws = jq(cases[i].ws);
        long long total = -1;
        CHECK_EQ_INT(wh_ws_total_replicas(f.cl, "kruise-system", ws, &total, &eb), cases[i].rc);
        CHECK_EQ_INT(total, cases[i].want);
        if (cases[i].err)
            CHECK_EQ_STR(eb.msg, cases[i].err);
        json_decref(ws);
        wh_step_fx_fini(&f);
    }
}

TEST(ws_path_int_errors)
{
    json_t *o = jq("{'a':{'b':[{'c':1},{'c':2.5}],'s':'x','n':null}}");
    struct {
        const char *path;
        long long want;
        const char *err;
    } cases[] = {
        {"a.b.0.c", 1, NULL},
        {"", 0, NULL},
        {"a.b.1.c", 0, "object type error"},
        {"a.b.2.c", 0, "index 2 out of range"},
        {"a.b.-1.c", 0, "index -1 out of range"},
        {"a.b.x.c", 0, "strconv.Atoi: parsing \"x\": invalid syntax"},
        {"a.s.t", 0, "object is not deep enough"},
        {"a.n", 0, "object type error"},
        {"a.z", 0, "path \"z\" not exists"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        long long v = -1;
        struct wh_errbuf eb = {{0}};
        CHECK_EQ_INT(wh_ws_path_int(o, cases[i].path, &v, &eb),
                     cases[i].err ? WH_ERR_INVALID : WH_OK);
        CHECK_EQ_INT(v, cases[i].want);
        if (cases[i].err)
            CHECK_EQ_STR(eb.msg, cases[i].err);
    }
    json_decref(o);
}

/* --- 6 the patch
 * ---------------------------------------------------------------------------------- */

/* Creates pod (from a CloneSet) against a WorkloadSpread whose first subset is subset, and
 * returns the patched Pod (new ref). */
static json_t *patched(const char *subset, const char *pod)
{
    char *objs =
        wh_str_printf("[" CLONESET("cs-demo", "5") ",{'apiVersion':'apps.kruise.io/v1beta1','kind':"
                                                   "'WorkloadSpread','metadata':{'name':'ws-demo','"
                                                   "namespace':'ns'},'spec':{'targetRef':" TARGET_CS
                                                   ",'subsets':[%s,{'name':'rest'}]}}]",
                      subset);
    json_t *out = create_in(objs, pod, NULL, 0);
    free(objs);
    return out;
}

#define PLAIN_POD(spec)                                                                            \
    "{'apiVersion':'v1','kind':'Pod','metadata':{'name':'cs-demo-1','namespace':'ns',"             \
    "'ownerReferences':[" CS_OWNER "]},'spec':" spec "}"

TEST(ws_patch_tolerations_and_affinity)
{
    json_t *p = patched("{'name':'a','maxReplicas':3,'tolerations':[{'key':'t','operator':"
                        "'Exists'}],'preferredNodeSelector':[{'weight':5,'preference':{"
                        "'matchExpressions':[{'key':'k','operator':'In','values':['v']}]}}]}",
                        PLAIN_POD("{'tolerations':[{'key':'gpu','operator':'Exists'}],"
                                  "'affinity':{'nodeAffinity':{"
                                  "'preferredDuringSchedulingIgnoredDuringExecution':[{'weight':1,"
                                  "'preference':{}}]}}}"));
    json_t *want = jq("{'tolerations':[{'key':'gpu','operator':'Exists'},{'key':'t','operator':"
                      "'Exists'}],'affinity':{'nodeAffinity':{"
                      "'preferredDuringSchedulingIgnoredDuringExecution':[{'weight':1,"
                      "'preference':{}},{'weight':5,'preference':{'matchExpressions':[{'key':"
                      "'k','operator':'In','values':['v']}]}}]}}}");
    CHECK_EQ_JSON(json_object_get(p, "spec"), want);
    CHECK_EQ_STR(wh_json_annotation(p, WH_KRUISE_ANN_MATCHED_WORKLOADSPREAD),
                 "{\"name\":\"ws-demo\",\"subset\":\"a\"}");
    json_decref(want);
    json_decref(p);
}

TEST(ws_patch_required_term_anded_into_each)
{
    const char *subset = "{'name':'a','maxReplicas':3,'requiredNodeSelector':{"
                         "'matchExpressions':[{'key':'zone','operator':'In','values':['a']}],"
                         "'matchFields':[{'key':'metadata.name','operator':'NotIn','values':['n']}"
                         "]}}";
    /* two terms: the subset's requirements are appended to each */
    json_t *p = patched(
        subset,
        PLAIN_POD("{'affinity':{'nodeAffinity':{'requiredDuringSchedulingIgnoredDuringExecution':"
                  "{'nodeSelectorTerms':[{'matchExpressions':[{'key':'arch','operator':'In',"
                  "'values':['amd64']}]},{'matchFields':[{'key':'metadata.name','operator':'In',"
                  "'values':['x']}]}]}}}}"));
    json_t *want =
        jq("{'nodeSelectorTerms':[{'matchExpressions':[{'key':'arch','operator':'In','values':["
           "'amd64']},{'key':'zone','operator':'In','values':['a']}],'matchFields':[{'key':"
           "'metadata.name','operator':'NotIn','values':['n']}]},{'matchFields':[{'key':"
           "'metadata.name','operator':'In','values':['x']},{'key':'metadata.name','operator':"
           "'NotIn','values':['n']}],'matchExpressions':[{'key':'zone','operator':'In','values':["
           "'a']}]}]}");
    CHECK_EQ_JSON(wh_json_path(p, "spec", "affinity", "nodeAffinity",
                               "requiredDuringSchedulingIgnoredDuringExecution", NULL),
                  want);
    json_decref(want);
    json_decref(p);
    /* none (or an empty list): the subset's term is the only one */
    p = patched(subset,
                PLAIN_POD("{'affinity':{'nodeAffinity':{"
                          "'requiredDuringSchedulingIgnoredDuringExecution':{'nodeSelectorTerms':"
                          "[]}}}}"));
    want = jq("{'nodeSelectorTerms':[{'matchExpressions':[{'key':'zone','operator':'In','values':"
              "['a']}],'matchFields':[{'key':'metadata.name','operator':'NotIn','values':['n']}]}"
              "]}");
    CHECK_EQ_JSON(wh_json_path(p, "spec", "affinity", "nodeAffinity",
                               "requiredDuringSchedulingIgnoredDuringExecution", NULL),
                  want);
    json_decref(want);
    json_decref(p);
}

TEST(ws_patch_reads_v1alpha1_subsets)
{
    json_t *p = patched("{'name':'a','maxReplicas':3,'requiredNodeSelectorTerm':{"
                        "'matchExpressions':[{'key':'zone','operator':'In','values':['a']}]},"
                        "'preferredNodeSelectorTerms':[{'weight':5,'preference':{}}]}",
                        PLAIN_POD("{}"));
    json_t *want = jq("{'nodeAffinity':{'requiredDuringSchedulingIgnoredDuringExecution':{"
                      "'nodeSelectorTerms':[{'matchExpressions':[{'key':'zone','operator':'In',"
                      "'values':['a']}]}]},'preferredDuringSchedulingIgnoredDuringExecution':[{"
                      "'weight':5,'preference':{}}]}}");
    CHECK_EQ_JSON(wh_json_path(p, "spec", "affinity", NULL), want);
    json_decref(want);
    json_decref(p);
}

TEST(ws_patch_status_only_subset_is_not_patched)
{
    /* the status names a subset the spec no longer has: the write happens, the Pod is unpatched */
    struct wh_step_fx f;
    fx_init(&f, "",
            "[" CLONESET("cs-demo", "5") "," WS(TARGET_CS,
                                                ",'subsets':[{'name':'a','maxReplicas':1}"
                                                ",{'name':'b'}]",
                                                "{'versionedSubsetStatuses':{'versionIgnored':[{"
                                                "'name':'gone','missingReplicas':1}]}}") "]");
    struct wh_step_run r;
    create(&f, &r, CS_POD("cs-demo-1"));
    CHECK(!r.resp.mutated);
    CHECK(strstr(r.notes, "subset gone is no longer in spec.subsets") != NULL);
    CHECK_EQ_INT(missing(&f, "versionIgnored", 0), 0);
    wh_step_run_fini(&r);
    wh_step_fx_fini(&f);
}

/* --- 8 deletion and eviction --------------------------------------------------------------------
 */

#define ANNOTATED_POD(name, value, extra)                                                          \
    "{'apiVersion':'v1','kind':'Pod','metadata':{'name':'" name "','namespace':'ns',"              \
    "'annotations':{'apps.kruise.io/matched-workloadspread':'" value                               \
    "'},'ownerReferences':[" CS_OWNER "]" extra "}}"
#define ANN_A "{\\\"name\\\":\\\"ws-demo\\\",\\\"subset\\\":\\\"a\\\"}"
#define BASIC_A0 CLONESET("cs-demo", "5") "," WS(TARGET_CS, SUBSETS_A2_B, STATUS_A("0"))

TEST(ws_delete_records_deleting_pods)
{
    struct wh_step_fx f;
    fx_init(&f, "", "[" BASIC_A0 "]");
    double before = metric("kruise_webhook_workloadspread_pods_total",
                           "operation=\"delete\",outcome=\"recorded\"");
    struct wh_step_run r;
    run(&f, &r, "DELETE", "", NULL, ANNOTATED_POD("cs-demo-1", ANN_A, ""), DELETE_OPTIONS, false);
    CHECK_EQ_INT(r.rc, WH_OK);
    CHECK(r.resp.allowed);
    json_t *hold = NULL;
    const json_t *a = entry(&f, "ws-demo", "versionIgnored", 0, &hold);
    CHECK_EQ_INT(json_integer_value(json_object_get(a, "missingReplicas")), 1);
    const char *at = wh_json_str(wh_json_obj(a, "deletingPods"), "cs-demo-1");
    CHECK(at && strlen(at) == strlen(NOW_TEXT) && at[19] == 'Z');
    json_decref(hold);
    wh_step_run_fini(&r);
    CHECK_EQ_INT(metric("kruise_webhook_workloadspread_pods_total",
                        "operation=\"delete\",outcome=\"recorded\"") -
                     before,
                 1);
    /* the same Pod again (a retried DELETE): already recorded, nothing changes */
    json_t *once = ws_now(&f, "ws-demo");
    run(&f, &r, "DELETE", "", NULL, ANNOTATED_POD("cs-demo-1", ANN_A, ""), DELETE_OPTIONS, false);
    json_t *twice = ws_now(&f, "ws-demo");
    CHECK_EQ_JSON(twice, once);
    json_decref(once);
    json_decref(twice);
    wh_step_run_fini(&r);
    wh_step_fx_fini(&f);
}

TEST(ws_delete_leaves_what_it_does_not_count)
{
    struct {
        const char *objects, *pod;
    } cases[] = {
        /* no annotation, an empty one, one that does not decode, one naming another type */
        {"[" BASIC_A0 "]", "{'apiVersion':'v1','kind':'Pod','metadata':{'name':'p','namespace':"
                           "'ns','ownerReferences':[" CS_OWNER "]}}"},
        {"[" BASIC_A0 "]", ANNOTATED_POD("p", "", "")},
        {"[" BASIC_A0 "]", ANNOTATED_POD("p", "{", "")},
        {"[" BASIC_A0 "]", ANNOTATED_POD("p", "null", "")},
        {"[" BASIC_A0 "]", ANNOTATED_POD("p", "{\\\"name\\\":1}", "")},
        /* not active; no controller owner */
        {"[" BASIC_A0 "]", ANNOTATED_POD("p", ANN_A, ",'deletionTimestamp':'" NOW_TEXT "'")},
        {"[" BASIC_A0 "]",
         "{'apiVersion':'v1','kind':'Pod','metadata':{'name':'p','namespace':'ns','annotations':{"
         "'apps.kruise.io/matched-workloadspread':'" ANN_A "'}}}"},
        /* the WorkloadSpread is gone */
        {"[" CLONESET("cs-demo", "5") "]", ANNOTATED_POD("p", ANN_A, "")},
        /* the subset is not in the status list, or is unlimited */
        {"[" BASIC_A0 "]",
         ANNOTATED_POD("p", "{\\\"name\\\":\\\"ws-demo\\\",\\\"subset\\\":\\\"zz\\\"}", "")},
        {"[" BASIC_A0 "]",
         ANNOTATED_POD("p", "{\\\"name\\\":\\\"ws-demo\\\",\\\"subset\\\":\\\"b\\\"}", "")},
        /* one unlimited subset, or a StatefulSet target: no status is kept */
        {"[" CLONESET("cs-demo", "5") "," WS(TARGET_CS, ",'subsets':[{'name':'a'}]", "{}") "]",
         ANNOTATED_POD("p", ANN_A, "")},
        {"[" WS("{'apiVersion':'apps/v1','kind':'StatefulSet','name':'web'}", SUBSETS_A2_B,
                STATUS_A("0")) "]",
         ANNOTATED_POD("p", ANN_A, "")},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct wh_step_fx f;
        fx_init(&f, "", cases[i].objects);
        json_t *before = ws_now(&f, "ws-demo");
        struct wh_step_run r;
        run(&f, &r, "DELETE", "", NULL, cases[i].pod, DELETE_OPTIONS, false);
        CHECK_EQ_INT(r.rc, WH_OK);
        CHECK(r.resp.allowed);
        json_t *after = ws_now(&f, "ws-demo");
        if (before || after)
            CHECK_EQ_JSON(after, before);
        json_decref(before);
        json_decref(after);
        wh_step_run_fini(&r);
        wh_step_fx_fini(&f);
    }
}

TEST(ws_delete_dry_runs_and_bad_options)
{
    struct wh_step_fx f;
    fx_init(&f, "", "[" BASIC_A0 "]");
    struct wh_step_run r;
    /* options.dryRun, request.dryRun: nothing written */
    run(&f, &r, "DELETE", "", NULL, ANNOTATED_POD("p", ANN_A, ""), "{'dryRun':['All']}", false);
    CHECK(r.resp.allowed);
    wh_step_run_fini(&r);
    run(&f, &r, "DELETE", "", NULL, ANNOTATED_POD("p", ANN_A, ""), DELETE_OPTIONS, true);
    CHECK(r.resp.allowed);
    wh_step_run_fini(&r);
    CHECK_EQ_INT(missing(&f, "versionIgnored", 0), 0);
    /* no options: 400 with the decoder's message */
    run(&f, &r, "DELETE", "", NULL, ANNOTATED_POD("p", ANN_A, ""), NULL, false);
    CHECK(!r.resp.allowed);
    CHECK_EQ_INT(r.resp.code, 400);
    CHECK_EQ_STR(r.resp.message, "there is no content to decode");
    wh_step_run_fini(&r);
    /* a CREATE of a subresource other than eviction is not looked at (8.1) */
    run(&f, &r, "CREATE", "binding",
        "{'apiVersion':'v1','kind':'Binding','metadata':{'name':'p','namespace':'ns'},'target':{"
        "'kind':'Node','name':'n'}}",
        NULL, NULL, false);
    CHECK(r.resp.allowed);
    wh_step_run_fini(&r);
    /* a DELETE of a subresource is not looked at */
    run(&f, &r, "DELETE", "status", NULL, ANNOTATED_POD("p", ANN_A, ""), DELETE_OPTIONS, false);
    CHECK(r.resp.allowed);
    wh_step_run_fini(&r);
    CHECK_EQ_INT(missing(&f, "versionIgnored", 0), 0);
    wh_step_fx_fini(&f);
    /* gate WorkloadSpread off (2): the DeleteOptions the step decodes first are not looked at */
    fx_init(&f, "WorkloadSpread=false", "[" BASIC_A0 "]");
    run(&f, &r, "DELETE", "", NULL, ANNOTATED_POD("p", ANN_A, ""), NULL, false);
    CHECK_EQ_INT(r.rc, WH_OK);
    CHECK(r.resp.allowed);
    wh_step_run_fini(&r);
    wh_step_fx_fini(&f);
}

TEST(ws_deletion_recorded_even_when_pub_denies_it)
{
    /* 8: WorkloadSpread runs first on /validate-pod and its bookkeeping stays when the
     * PodUnavailableBudget after it denies the deletion */
    struct wh_step_fx f;
    memset(&f, 0, sizeof(f));
    wh_features_init(&f.cfg.features);
    f.cfg.namespace_ = (char *)(uintptr_t) "kruise-system";
    struct wh_errbuf eb = {{0}};
    json_t *objs = jq("[" BASIC_A0 ",{'apiVersion':'policy.kruise.io/v1beta1','kind':"
                      "'PodUnavailableBudget','metadata':{'name':'pub','namespace':'ns'},'spec':{"
                      "'selector':{'matchLabels':{'app':'demo'}},'maxUnavailable':1},'status':{"
                      "'unavailableAllowed':0,'desiredAvailable':3,'currentAvailable':3,"
                      "'totalReplicas':4}}]");
    CHECK_EQ_INT(wh_cluster_new_standalone_objects(objs, &f.cl, &eb), WH_OK);
    json_decref(objs);
    CHECK_EQ_INT(wh_pod_routes_setup(f.cl, &f.cfg, &eb), WH_OK);
    CHECK_EQ_INT(wh_cluster_start(f.cl, &eb), WH_OK);
    f.ctx.cfg = &f.cfg;
    f.ctx.cluster = f.cl;
    json_t *req =
        jq("{'uid':'u','kind':{'group':'','version':'v1','kind':'Pod'},'resource':{'group':'',"
           "'version':'v1','resource':'pods'},'subResource':'','operation':'DELETE','namespace':"
           "'ns','name':'cs-demo-1','object':null,'options':" DELETE_OPTIONS ",'oldObject':{"
           "'apiVersion':'v1','kind':'Pod','metadata':{'name':'cs-demo-1','namespace':'ns',"
           "'labels':{'app':'demo'},'annotations':{'apps.kruise.io/matched-workloadspread':'" ANN_A
           "','kruise.io/related-pub':'pub'},'ownerReferences':[" CS_OWNER "]},'spec':{"
           "'containers':[{'name':'main','image':'nginx'}]},'status':{'phase':'Running',"
           "'conditions':[{'type':'Ready','status':'True'}]}}}");
    json_t *review = json_pack("{s:s,s:s,s:o}", "apiVersion", "admission.k8s.io/v1", "kind",
                               "AdmissionReview", "request", req);
    struct wh_admission_request r;
    struct wh_admission_response resp;
    CHECK_EQ_INT(wh_admission_decode(review, &r, &eb), WH_OK);
    wh_admission_response_init(&resp);
    CHECK_EQ_INT(wh_pod_validate_admit(&f.ctx, &r, &resp, &eb), WH_OK);
    CHECK(!resp.allowed);
    CHECK(resp.message && strstr(resp.message, "pub unavailable allowed is negative") != NULL);
    wh_admission_response_fini(&resp);
    json_decref(review);
    json_t *hold = NULL;
    const json_t *a = entry(&f, "ws-demo", "versionIgnored", 0, &hold);
    CHECK_EQ_INT(json_integer_value(json_object_get(a, "missingReplicas")), 1);
    CHECK(json_object_get(wh_json_obj(a, "deletingPods"), "cs-demo-1") != NULL);
    json_decref(hold);
    wh_step_fx_fini(&f);
}

TEST(ws_eviction_records_the_pod_read_from_the_cluster)
{
    struct wh_step_fx f;
    fx_init(&f, "", "[" BASIC_A0 "," ANNOTATED_POD("cs-demo-1", ANN_A, "") "]");
    struct wh_step_run r;
#define EVICTION(extra)                                                                            \
    "{'apiVersion':'policy/"                                                                       \
    "v1','kind':'Eviction','metadata':{'name':'cs-demo-1','namespace':'ns'}" extra "}"
    /* dry runs write nothing: deleteOptions.dryRun, and (spec 8 note) request.dryRun or the
     * request's CreateOptions.dryRun */
    struct {
        const char *eviction, *options;
        bool dry;
    } dry[] = {
        {EVICTION(",'deleteOptions':{'dryRun':['All']}"), CREATE_OPTIONS, false},
        {EVICTION(""), CREATE_OPTIONS, true},
        {EVICTION(""), "{'dryRun':['All']}", false},
    };
    for (size_t i = 0; i < sizeof(dry) / sizeof(dry[0]); i++) {
        run(&f, &r, "CREATE", "eviction", dry[i].eviction, NULL, dry[i].options, dry[i].dry);
        CHECK(r.resp.allowed);
        wh_step_run_fini(&r);
    }
    CHECK_EQ_INT(missing(&f, "versionIgnored", 0), 0);
    run(&f, &r, "CREATE", "eviction", EVICTION(""), NULL, CREATE_OPTIONS, false);
    CHECK(r.resp.allowed);
    wh_step_run_fini(&r);
    CHECK_EQ_INT(missing(&f, "versionIgnored", 0), 1);
    /* the evicted Pod cannot be read: 400 with the reason */
    run(&f, &r, "CREATE", "eviction",
        "{'apiVersion':'policy/v1','kind':'Eviction','metadata':{'name':'gone','namespace':'ns'}}",
        NULL, CREATE_OPTIONS, false);
    CHECK(!r.resp.allowed);
    CHECK_EQ_INT(r.resp.code, 400);
    CHECK_EQ_STR(r.resp.message, "Pod \"gone\" not found");
    wh_step_run_fini(&r);
    wh_step_fx_fini(&f);
#undef EVICTION
}

/* --- inject --explain ---------------------------------------------------------------------------
 */

TEST(ws_offline_computes_and_writes_nothing)
{
    struct wh_step_fx f;
    fx_init(&f, "", "[" BASIC "]");
    f.ctx.offline = true;
    json_t *before = ws_now(&f, "ws-demo");
    struct wh_step_run r;
    create(&f, &r, CS_POD("cs-demo-1"));
    CHECK_EQ_STR(annotation(&r), "{\"name\":\"ws-demo\",\"subset\":\"a\"}");
    CHECK(strstr(r.notes, "[workloadspread ws-demo 1 a chosen: missingReplicas 2 > 0; "
                          "creatingPods would record (missingReplicas 2 -> 1)]") != NULL);
    json_t *after = ws_now(&f, "ws-demo");
    CHECK_EQ_JSON(after, before);
    json_decref(before);
    json_decref(after);
    wh_step_run_fini(&r);
    wh_step_fx_fini(&f);
}

/* `kruise-webhook inject --explain` with WorkloadSpreads in the state: which subset each Pod
 * would get and why, the patched Pods on stdout, and the state untouched (it is read only). */
TEST(ws_inject_explain)
{
#define WS_DATA "test/data/inject/workloadspread/"
    struct wh_test_cli c =
        wh_test_cli_run(wh_inject_run, "inject", "-f", WS_DATA "pods.yaml", "--state",
                        WS_DATA "state", "--explain", "--timestamp=2025-01-01T00:00:00Z", NULL);
    CHECK_EQ_INT(c.status, 0);
    char *want_out = wh_test_read_file(WS_DATA "expected/pods.yaml", NULL);
    char *want_err = wh_test_read_file(WS_DATA "expected/explain.txt", NULL);
    CHECK_EQ_STR(c.out, want_out);
    CHECK_EQ_STR(c.err, want_err);
    /* the lines that matter, spelled out */
    CHECK(strstr(c.err, "  note: workloadspread ws-demo: subset-a chosen: missingReplicas 1 > 0; "
                        "creatingPods would record (missingReplicas 1 -> 0)\n") != NULL);
    CHECK(strstr(c.err, "  note: workloadspread ws-filtered: skipped: spec.targetFilter has no "
                        "selector, which selects no Pod\n") != NULL);
    free(want_out);
    free(want_err);
    wh_test_cli_fini(&c);
#undef WS_DATA
}

/* --- 9 the object webhook ------------------------------------------------------------------- */

/* The answer to op of object (and old) at resource version version: "" when allowed, else
 * "<code> <message>". Returns: new string. */
static char *answer(struct wh_step_fx *f, const char *op, const char *version, const char *object,
                    const char *old)
{
    json_t *req = json_pack("{s:s,s:{s:s,s:s,s:s},s:{s:s,s:s,s:s},s:s,s:s,s:s,s:s}", "uid", "u",
                            "kind", "group", "apps.kruise.io", "version", version, "kind",
                            "WorkloadSpread", "resource", "group", "apps.kruise.io", "version",
                            version, "resource", "workloadspreads", "subResource", "", "operation",
                            op, "namespace", "ns", "name", "ws");
    json_object_set_new(req, "object", object ? jq(object) : json_null());
    json_object_set_new(req, "oldObject", old ? jq(old) : json_null());
    json_t *review = json_pack("{s:s,s:s,s:o}", "apiVersion", "admission.k8s.io/v1", "kind",
                               "AdmissionReview", "request", req);
    struct wh_admission_request r;
    struct wh_admission_response resp;
    struct wh_errbuf eb = {{0}};
    CHECK_EQ_INT(wh_admission_decode(review, &r, &eb), WH_OK);
    wh_admission_response_init(&resp);
    CHECK_EQ_INT(wh_ws_validate_admit(&f->ctx, &r, &resp, &eb), WH_OK);
    char *out = resp.allowed ? wh_xstrdup("")
                             : wh_str_printf("%d %s", resp.code, resp.message ? resp.message : "");
    wh_admission_response_fini(&resp);
    json_decref(review);
    return out;
}

#define CHECK_ANSWER(f, op, version, obj, old, want)                                               \
    do {                                                                                           \
        char *got_ = answer(f, op, version, obj, old);                                             \
        CHECK_EQ_STR(got_, want);                                                                  \
        free(got_);                                                                                \
    } while (0)

/* A v1beta1 WorkloadSpread ws in namespace ns with the given spec members. */
#define WSB(spec)                                                                                  \
    "{'apiVersion':'apps.kruise.io/v1beta1','kind':'WorkloadSpread','metadata':{'name':'ws',"      \
    "'namespace':'ns'},'spec':{" spec "}}"
#define CS_REF "'targetRef':{'apiVersion':'apps.kruise.io/v1alpha1','kind':'CloneSet','name':'cs'}"
#define ONE ",'subsets':[{'name':'a'}]"

TEST(ws_validate_gate_off_is_403)
{
    struct wh_step_fx f;
    fx_init(&f, "WorkloadSpread=false", "[]");
    CHECK_ANSWER(&f, "CREATE", "v1beta1", WSB(CS_REF ONE), NULL,
                 "403 feature-gate WorkloadSpread is not enabled");
    wh_step_fx_fini(&f);
}

TEST(ws_validate_decoding)
{
    struct wh_step_fx f;
    fx_init(&f, "", "[]");
    CHECK_ANSWER(&f, "CREATE", "v1beta1", WSB(CS_REF ONE), NULL, "");
    /* v1alpha1: decoded as v1alpha1 (Go's type errors), converted, checked at v1beta1 paths */
    CHECK_ANSWER(
        &f, "CREATE", "v1alpha1",
        "{'apiVersion':'apps.kruise.io/v1alpha1','kind':'WorkloadSpread','metadata':{'name':'ws',"
        "'namespace':'ns'},'spec':{" CS_REF ",'subsets':[{'name':'a','requiredNodeSelectorTerm':{"
        "'matchExpressions':[{'key':'zone','operator':'In'}]}}]}}",
        NULL,
        "400 spec.subsets[0].requiredNodeSelector.matchExpressions[0].values: Required value: must "
        "be specified when `operator` is 'In' or 'NotIn'");
    CHECK_ANSWER(&f, "CREATE", "v1alpha1",
                 "{'apiVersion':'apps.kruise.io/v1alpha1','kind':'WorkloadSpread','metadata':{"
                 "'name':'ws','namespace':'ns'},'spec':{" CS_REF ",'subsets':{}}}",
                 NULL,
                 "400 json: cannot unmarshal object into Go struct field "
                 "WorkloadSpreadSpec.spec.subsets of type []v1alpha1.WorkloadSpreadSubset");
    /* operations other than CREATE and UPDATE are allowed */
    CHECK_ANSWER(&f, "DELETE", "v1beta1", WSB(""), NULL, "");
    wh_step_fx_fini(&f);
}

TEST(ws_validate_target_ref)
{
    struct wh_step_fx f;
    fx_init(&f, "",
            "[{'apiVersion':'v1','kind':'ConfigMap','metadata':{'name':'kruise-configuration',"
            "'namespace':'kruise-system'},'data':{'WorkloadSpread_Watch_Custom_Workload_WhiteList':"
            "'{\\\"workloads\\\":[{\\\"Group\\\":\\\"mock.kruise.io\\\",\\\"Kind\\\":"
            "\\\"GameServerSet\\\"}]}'}}]");
    struct {
        const char *ref, *want;
    } cases[] = {
        {"", "400 spec.targetRef: Required value: no targetRef defined in WorkloadSpread"},
        {"'targetRef':{'apiVersion':'apps/v1','kind':'Deployment'}",
         "400 spec.targetRef: Invalid value: v1beta1.TargetReference{APIVersion:\"apps/v1\", "
         "Kind:\"Deployment\", Name:\"\"}: empty TargetReference is not valid for WorkloadSpread."},
        {"'targetRef':{'apiVersion':'apps/v1','kind':'CloneSet','name':'x'}",
         "400 spec.targetRef: Invalid value: v1beta1.TargetReference{APIVersion:\"apps/v1\", "
         "Kind:\"CloneSet\", Name:\"x\"}: TargetReference is not valid for CloneSet."},
        {"'targetRef':{'apiVersion':'extensions/v1beta1','kind':'Deployment','name':'x'}",
         "400 spec.targetRef: Invalid value: v1beta1.TargetReference{APIVersion:"
         "\"extensions/v1beta1\", Kind:\"Deployment\", Name:\"x\"}: TargetReference is not valid "
         "for Deployment."},
        {"'targetRef':{'apiVersion':'a/b/c','kind':'Job','name':'x'}",
         "400 spec.targetRef: Invalid value: v1beta1.TargetReference{APIVersion:\"a/b/c\", "
         "Kind:\"Job\", Name:\"x\"}: TargetReference is not valid for Job."},
        {"'targetRef':{'apiVersion':'apps.kruise.io/v1beta1','kind':'StatefulSet','name':'x'}", ""},
        {"'targetRef':{'apiVersion':'apps/v1','kind':'ReplicaSet','name':'x'}", ""},
        {"'targetRef':{'apiVersion':'batch/v1','kind':'Job','name':'x'}", ""},
        {"'targetRef':{'apiVersion':'mock.kruise.io/v1','kind':'GameServerSet','name':'x'}", ""},
        {"'targetRef':{'apiVersion':'mock.kruise.io/v1','kind':'GameServer','name':'x'}",
         "400 spec.targetRef: Invalid value: v1beta1.TargetReference{APIVersion:"
         "\"mock.kruise.io/v1\", Kind:\"GameServer\", Name:\"x\"}: TargetReference's GroupKind "
         "is not permitted."},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *obj = wh_str_printf(WSB("%s%s"), cases[i].ref,
                                  cases[i].ref[0] ? ONE : "'subsets':[{'name':'a'}]");
        CHECK_ANSWER(&f, "CREATE", "v1beta1", obj, NULL, cases[i].want);
        free(obj);
    }
    wh_step_fx_fini(&f);
    /* a white list that does not decode is an internal error at targetRef */
    fx_init(&f, "",
            "[{'apiVersion':'v1','kind':'ConfigMap','metadata':{'name':'kruise-configuration',"
            "'namespace':'kruise-system'},'data':{'WorkloadSpread_Watch_Custom_Workload_WhiteList':"
            "'{'}}]");
    CHECK_ANSWER(&f, "CREATE", "v1beta1",
                 WSB("'targetRef':{'apiVersion':'mock.kruise.io/v1','kind':'GameServerSet','name':"
                     "'x'}" ONE),
                 NULL, "400 spec.targetRef: Internal error: unexpected end of JSON input");
    wh_step_fx_fini(&f);
}

TEST(ws_validate_subsets)
{
    struct wh_step_fx f;
    fx_init(&f, "", "[]");
    struct {
        const char *subsets, *want;
    } cases[] = {
        {"", "400 spec.subsets: Required value: subsets number must >= 1 in WorkloadSpread"},
        {",'subsets':[]", "400 spec.subsets: Required value: subsets number must >= 1 in "
                          "WorkloadSpread"},
        {",'subsets':[{'name':''},{'name':'a'},{'name':'a'}]",
         "400 [spec.subsets[0].name: Invalid value: \"\", spec.subsets[2].name: Invalid value: "
         "\"a\": duplicated subset name a]"},
        {",'subsets':[{'name':'a','preferredNodeSelector':[{'weight':0,'preference':{}}]}]",
         "400 spec.subsets[0].preferredNodeSelector[0].weight: Invalid value: 0: must be in the "
         "range 1-100"},
        {",'subsets':[{'name':'a','tolerations':[{'operator':'Equal','value':'x'}]}]",
         "400 spec.subsets[0].tolerations[0].operator: Invalid value: \"Equal\": operator must "
         "be Exists when `key` is empty, which means \"match all values and all keys\""},
        {",'subsets':[{'name':'a','maxReplicas':2},{'name':'b','maxReplicas':'50%'},{'name':"
         "'c'}]",
         "400 spec.subsets[1].maxReplicas: Invalid value: intstr.IntOrString{Type:1, IntVal:0, "
         "StrVal:\"50%\"}: the maxReplicas type of all subsets must be the same"},
        {",'subsets':[{'name':'a','maxReplicas':-1}]",
         "400 spec.subsets[0].maxReplicas: Invalid value: intstr.IntOrString{Type:0, IntVal:-1, "
         "StrVal:\"\"}: maxReplicas is not valid for subset"},
        {",'subsets':[{'name':'a','maxReplicas':'0.2%'}]",
         "400 spec.subsets[0].maxReplicas: Invalid value: intstr.IntOrString{Type:1, IntVal:0, "
         "StrVal:\"0.2%\"}: maxReplicas is not valid for subset"},
        /* upstream's validation reads maxReplicas with the legacy GetValueFromIntOrPercent:
         * every '%' dropped, any string is a percent ("5" is 5%), so the sum rule speaks */
        {",'subsets':[{'name':'a','maxReplicas':'5'}]",
         "400 spec.subsets[0].maxReplicas: Invalid value: intstr.IntOrString{Type:1, IntVal:0, "
         "StrVal:\"5\"}: maxReplicas sum of all subsets must equal 100% when type is specified "
         "as percent"},
        {",'subsets':[{'name':'a','maxReplicas':'5%0%%'},{'name':'b','maxReplicas':'50%'}]", ""},
        {",'subsets':[{'name':'a','maxReplicas':'5.5%'}]",
         "400 spec.subsets[0].maxReplicas: Invalid value: intstr.IntOrString{Type:1, IntVal:0, "
         "StrVal:\"5.5%\"}: maxReplicas is not valid for subset"},
        {",'subsets':[{'name':'a','maxReplicas':'-1%'}]",
         "400 spec.subsets[0].maxReplicas: Invalid value: intstr.IntOrString{Type:1, IntVal:0, "
         "StrVal:\"-1%\"}: maxReplicas is not valid for subset"},
        {",'subsets':[{'name':'a','maxReplicas':'60%'},{'name':'b','maxReplicas':'50%'},{'name':"
         "'','maxReplicas':1}]",
         "400 spec.subsets[1].maxReplicas: Invalid value: intstr.IntOrString{Type:1, IntVal:0, "
         "StrVal:\"50%\"}: the sum of all subset's maxReplicas exceeds 100% is no permitted"},
        {",'subsets':[{'name':'a','maxReplicas':'40%'},{'name':'b','maxReplicas':'40%'}]",
         "400 spec.subsets[0].maxReplicas: Invalid value: intstr.IntOrString{Type:1, IntVal:0, "
         "StrVal:\"40%\"}: maxReplicas sum of all subsets must equal 100% when type is specified "
         "as percent"},
        /* strconv.Atoi takes any number of leading zeros; a percent past int64 once scaled is
         * negative, as Go converts it */
        {",'subsets':[{'name':'a','maxReplicas':'000000000000000000000000000000000000000050%'},{"
         "'name':'b','maxReplicas':'50%'}]",
         ""},
        {",'subsets':[{'name':'a','maxReplicas':'9223372036854775807%'}]",
         "400 spec.subsets[0].maxReplicas: Invalid value: intstr.IntOrString{Type:1, IntVal:0, "
         "StrVal:\"9223372036854775807%\"}: maxReplicas is not valid for subset"},
        /* below 100% with an unlimited last subset, or exactly 100%: fine */
        {",'subsets':[{'name':'a','maxReplicas':'40%'},{'name':'b'}]", ""},
        {",'subsets':[{'name':'a','maxReplicas':'40%'},{'name':'b','maxReplicas':'60%'}]", ""},
        /* the first subset without maxReplicas renders as null */
        {",'subsets':[{'name':'a'},{'name':'b','maxReplicas':'40%'}]",
         "400 spec.subsets[0].maxReplicas: Invalid value: \"null\": maxReplicas sum of all "
         "subsets must equal 100% when type is specified as percent"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *obj = wh_str_printf(WSB(CS_REF "%s"), cases[i].subsets);
        CHECK_ANSWER(&f, "CREATE", "v1beta1", obj, NULL, cases[i].want);
        free(obj);
    }
    /* StatefulSet targets take integers only */
    CHECK_ANSWER(&f, "CREATE", "v1beta1",
                 WSB("'targetRef':{'apiVersion':'apps/v1','kind':'StatefulSet','name':'s'},"
                     "'subsets':[{'name':'a','maxReplicas':'50%'},{'name':'b'}]"),
                 NULL,
                 "400 spec.subsets[0].maxReplicas: Invalid value: intstr.IntOrString{Type:1, "
                 "IntVal:0, StrVal:\"50%\"}: the maxReplicas type must be Int for StatefulSet");
    wh_step_fx_fini(&f);
}

TEST(ws_validate_schedule_strategy_and_filter)
{
    struct wh_step_fx f;
    fx_init(&f, "", "[]");
    struct {
        const char *rest, *want;
    } cases[] = {
        {ONE ",'scheduleStrategy':{'type':'Fixed'}", ""},
        {ONE ",'scheduleStrategy':{'type':'Smart'}",
         "400 spec.scheduleStrategy.type: Invalid value: \"Smart\": ScheduleStrategy's type is "
         "not valid"},
        {ONE ",'scheduleStrategy':{'type':'Fixed','adaptive':{'rescheduleCriticalSeconds':10}}",
         "400 spec.scheduleStrategy.type: Invalid value: 10: the scheduleStrategy's type must be "
         "adaptive when using adaptive scheduleStrategy"},
        {",'subsets':[{'name':'a','maxReplicas':1},{'name':'b','maxReplicas':1}],"
         "'scheduleStrategy':{'type':'Adaptive','adaptive':{}}",
         "400 spec.scheduleStrategy.adaptive: Invalid value: \"null\": the last subset's "
         "maxReplicas must be not specified when using adaptive scheduleStrategy"},
        {",'subsets':[{'name':'a','maxReplicas':1},{'name':'b'},{'name':'c'}],"
         "'scheduleStrategy':{'type':'Adaptive','adaptive':{'rescheduleCriticalSeconds':148}}",
         "400 spec.scheduleStrategy.adaptive.rescheduleCriticalSeconds: Invalid value: 148: "
         "rescheduleCriticalSeconds < 0 or rescheduleCriticalSeconds > 147 is not permitted"},
        {",'subsets':[{'name':'a','maxReplicas':1},{'name':'b'}],"
         "'scheduleStrategy':{'type':'Adaptive','adaptive':{'rescheduleCriticalSeconds':295}}",
         ""},
        {ONE ",'scheduleStrategy':{'type':'Adaptive','adaptive':{'rescheduleCriticalSeconds':-1}}",
         "400 spec.scheduleStrategy.adaptive.rescheduleCriticalSeconds: Invalid value: -1: "
         "rescheduleCriticalSeconds < 0 or rescheduleCriticalSeconds > 2147483647 is not "
         "permitted"},
        {ONE ",'targetFilter':{'selector':{'matchExpressions':[{'key':'a','operator':'Foo'}]}}",
         "400 spec.targetFilter: Invalid value: v1beta1.TargetFilter{Selector:"
         "(*v1.LabelSelector)(0xc000010000), ReplicasPathList:[]string(nil)}: \"Foo\" is not a "
         "valid label selector operator"},
        {ONE ",'targetFilter':{'selector':{'matchExpressions':[{'key':'a','operator':'In'}]},"
             "'replicasPathList':['spec.replicas']}",
         "400 spec.targetFilter: Invalid value: v1beta1.TargetFilter{Selector:"
         "(*v1.LabelSelector)(0xc000010000), ReplicasPathList:[]string{\"spec.replicas\"}}: "
         "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be "
         "empty"},
        {ONE ",'targetFilter':{'selector':{'matchLabels':{'a b':'x'}}}",
         "400 spec.targetFilter: Invalid value: v1beta1.TargetFilter{Selector:"
         "(*v1.LabelSelector)(0xc000010000), ReplicasPathList:[]string(nil)}: key: Invalid "
         "value: \"a b\": name part must consist of alphanumeric characters, '-', '_' or '.', "
         "and must start and end with an alphanumeric character (e.g. 'MyName',  or "
         "'my.name',  or '123-abc', regex used for validation is "
         "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"},
        {ONE ",'targetFilter':{'replicasPathList':['x']}", ""},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *obj = wh_str_printf(WSB(CS_REF "%s"), cases[i].rest);
        CHECK_ANSWER(&f, "CREATE", "v1beta1", obj, NULL, cases[i].want);
        free(obj);
    }
    wh_step_fx_fini(&f);
}

#define OTHER_WS(name, ref)                                                                        \
    "{'apiVersion':'apps.kruise.io/v1beta1','kind':'WorkloadSpread','metadata':{'name':'" name     \
    "','namespace':'ns'},'spec':{'targetRef':" ref ",'subsets':[{'name':'a'}]}}"

TEST(ws_validate_conflicts)
{
    struct wh_step_fx f;
    fx_init(
        &f, "",
        "[" OTHER_WS(
            "ws-a",
            "{'apiVersion':'apps.kruise.io/v1beta1','kind':'CloneSet','name':"
            "'cs'}") ","
                     /* another namespace, or another name: no conflict */
                     "{'apiVersion':'apps.kruise.io/"
                     "v1beta1','kind':'WorkloadSpread','metadata':{'name':"
                     "'ws-b','namespace':'other'},'spec':{" CS_REF ",'subsets':[{'name':'a'}]}},"
                     "" OTHER_WS("ws-c",
                                 "{'apiVersion':'apps.kruise.io/v1alpha1','kind':'CloneSet','name':"
                                 "'cs2'}") "]");
    CHECK_ANSWER(&f, "CREATE", "v1beta1", WSB(CS_REF ONE), NULL,
                 "400 spec.targetRef: Invalid value: v1beta1.TargetReference{APIVersion:"
                 "\"apps.kruise.io/v1alpha1\", Kind:\"CloneSet\", Name:\"cs\"}: "
                 "ws.spec.targetRef is in conflict with other WorkloadSpread ws-a");
    /* the same name is the object itself */
    CHECK_ANSWER(&f, "CREATE", "v1beta1",
                 "{'apiVersion':'apps.kruise.io/v1beta1','kind':'WorkloadSpread','metadata':{"
                 "'name':'ws-a','namespace':'ns'},'spec':{" CS_REF ONE "}}",
                 NULL, "");
    wh_step_fx_fini(&f);
}

#define META_OLD                                                                                   \
    "'metadata':{'name':'ws','namespace':'ns','uid':'u1','resourceVersion':'5','generation':2,"    \
    "'creationTimestamp':'2025-01-01T00:00:00Z'}"

TEST(ws_validate_update)
{
    struct wh_step_fx f;
    fx_init(&f, "", "[]");
    const char *old = "{'apiVersion':'apps.kruise.io/v1beta1','kind':'WorkloadSpread'," META_OLD
                      ",'spec':{" CS_REF ONE "}}";
    /* only the version of the target changes: allowed */
    CHECK_ANSWER(&f, "UPDATE", "v1beta1",
                 "{'apiVersion':'apps.kruise.io/v1beta1','kind':'WorkloadSpread'," META_OLD
                 ",'spec':{'targetRef':{'apiVersion':'apps.kruise.io/v1beta1','kind':'CloneSet',"
                 "'name':'cs'}" ONE "}}",
                 old, "");
    CHECK_ANSWER(&f, "UPDATE", "v1beta1",
                 "{'apiVersion':'apps.kruise.io/v1beta1','kind':'WorkloadSpread'," META_OLD
                 ",'spec':{'targetRef':{'apiVersion':'apps.kruise.io/v1alpha1','kind':'CloneSet',"
                 "'name':'cs2'}" ONE "}}",
                 old,
                 "400 spec.targetRef: Invalid value: v1beta1.TargetReference{APIVersion:"
                 "\"apps.kruise.io/v1alpha1\", Kind:\"CloneSet\", Name:\"cs2\"}: change "
                 "TargetReference is not permitted for WorkloadSpread");
    /* the metadata rules */
    CHECK_ANSWER(&f, "UPDATE", "v1beta1",
                 "{'apiVersion':'apps.kruise.io/v1beta1','kind':'WorkloadSpread','metadata':{"
                 "'name':'ws','namespace':'ns','uid':'u2','generation':1,'creationTimestamp':"
                 "'2025-01-02T00:00:00Z'},'spec':{" CS_REF ONE "}}",
                 old,
                 "400 [metadata.resourceVersion: Invalid value: \"\": must be specified for an "
                 "update, metadata.generation: Invalid value: 1: must not be decremented, "
                 "metadata.uid: Invalid value: \"u2\": field is immutable, "
                 "metadata.creationTimestamp: Invalid value: 2025-01-02 00:00:00 +0000 UTC: field "
                 "is immutable]");
    /* spec errors come first, then the update's */
    CHECK_ANSWER(&f, "UPDATE", "v1beta1",
                 "{'apiVersion':'apps.kruise.io/v1beta1','kind':'WorkloadSpread'," META_OLD
                 ",'spec':{'targetRef':{'apiVersion':'apps/v1','kind':'Deployment','name':'d'}}}",
                 old,
                 "400 [spec.subsets: Required value: subsets number must >= 1 in WorkloadSpread, "
                 "spec.targetRef: Invalid value: v1beta1.TargetReference{APIVersion:\"apps/v1\", "
                 "Kind:\"Deployment\", Name:\"d\"}: change TargetReference is not permitted for "
                 "WorkloadSpread]");
    /* a missing oldObject */
    CHECK_ANSWER(&f, "UPDATE", "v1beta1", WSB(CS_REF ONE), NULL,
                 "400 there is no content to decode");
    wh_step_fx_fini(&f);
}

TEST(ws_validate_aggregation_dedups)
{
    struct wh_step_fx f;
    fx_init(&f, "", "[]");
    /* the same error twice is reported once */
    CHECK_ANSWER(&f, "CREATE", "v1beta1",
                 WSB(CS_REF ",'subsets':[{'name':'a','tolerations':[{'key':'k','operator':"
                            "'Bad'},{'key':'k','operator':'Bad'}]}]"),
                 NULL,
                 "400 [spec.subsets[0].tolerations[0].operator: Unsupported value: \"Bad\": "
                 "supported values: \"Equal\", \"Exists\", "
                 "spec.subsets[0].tolerations[1].operator: Unsupported value: \"Bad\": supported "
                 "values: \"Equal\", \"Exists\"]");
    wh_step_fx_fini(&f);
}

/* --- the Kubernetes validators ------------------------------------------------------------------
 */

static char *errors_of(void (*fn)(struct wh_field_errors *, const json_t *, const char *),
                       const char *json)
{
    struct wh_field_errors l;
    wh_ferrs_init(&l);
    json_t *v = jq(json);
    fn(&l, v, "p");
    json_decref(v);
    char *out = wh_ferrs_aggregate(&l);
    wh_ferrs_fini(&l);
    return out ? out : wh_xstrdup("");
}

static void term_strict(struct wh_field_errors *l, const json_t *v, const char *path)
{
    wh_validate_node_selector_term(l, v, false, path);
}

TEST(k8s_node_selector_term_validation)
{
    struct {
        const char *term, *want;
    } cases[] = {
        {"{'matchExpressions':[{'key':'k','operator':'Exists','values':['a']}]}",
         "p.matchExpressions[0].values: Forbidden: may not be specified when `operator` is "
         "'Exists' or 'DoesNotExist'"},
        {"{'matchExpressions':[{'key':'k','operator':'Gt','values':[]}]}",
         "p.matchExpressions[0].values: Required value: must be specified single value when "
         "`operator` is 'Lt' or 'Gt'"},
        {"{'matchExpressions':[{'key':'k','operator':'Eq'}]}",
         "p.matchExpressions[0].operator: Invalid value: \"Eq\": not a valid selector operator"},
        {"{'matchExpressions':[{'key':'k','operator':'In','values':['a b']}]}",
         "p.matchExpressions[0].values[0]: Invalid value: \"a b\": a valid label must be an "
         "empty string or consist of alphanumeric characters, '-', '_' or '.', and must start "
         "and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', "
         "regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"},
        {"{'matchFields':[{'key':'metadata.name','operator':'In','values':['a','b']}]}",
         "p.matchFields[0].values: Required value: must be only one value when `operator` is "
         "'In' or 'NotIn' for node field selector"},
        {"{'matchFields':[{'key':'spec.x','operator':'Exists'}]}",
         "[p.matchFields[0].operator: Invalid value: \"Exists\": not a valid selector operator, "
         "p.matchFields[0].key: Invalid value: \"spec.x\": not a valid field selector key]"},
        {"{'matchFields':[{'key':'metadata.name','operator':'In','values':['Bad_Name']}]}",
         "p.matchFields[0].values[0]: Invalid value: \"Bad_Name\": a lowercase RFC 1123 "
         "subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
         "start and end with an alphanumeric character (e.g. 'example.com', regex used for "
         "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"},
        {"{'matchExpressions':[{'key':'zone','operator':'NotIn','values':['a']}]}", ""},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *got = errors_of(term_strict, cases[i].term);
        CHECK_EQ_STR(got, cases[i].want);
        free(got);
    }
}

TEST(k8s_toleration_validation)
{
    struct {
        const char *t, *want;
    } cases[] = {
        {"[{'key':'k','operator':'Exists','value':'v'}]",
         "p[0].operator: Invalid value: \"v\": value must be empty when `operator` is 'Exists'"},
        {"[{'key':'k','value':'v','effect':'NoSchedule','tolerationSeconds':5}]",
         "p[0].effect: Invalid value: \"NoSchedule\": effect must be 'NoExecute' when "
         "`tolerationSeconds` is set"},
        {"[{'key':'k','value':'v','effect':'Never'}]",
         "p[0].effect: Unsupported value: \"Never\": supported values: \"NoSchedule\", "
         "\"PreferNoSchedule\", \"NoExecute\""},
        {"[{'key':'k','value':'a b'}]",
         "p[0].operator: Invalid value: \"a b\": a valid label must be an empty string or "
         "consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
         "alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for "
         "validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"},
        {"[{'operator':'Exists'},{'key':'k','operator':'Equal','value':'v','effect':'NoExecute',"
         "'tolerationSeconds':5}]",
         ""},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *got = errors_of(wh_validate_tolerations, cases[i].t);
        CHECK_EQ_STR(got, cases[i].want);
        free(got);
    }
}

TEST(ws_patch_strategic_merge)
{
    /* labels and annotations merge, containers merge by name */
    json_t *p =
        patched("{'name':'a','maxReplicas':3,'patch':{'metadata':{'labels':{'subset':'a'},"
                "'annotations':{'note':'x'}},'spec':{'containers':[{'name':'main','resources':{"
                "'limits':{'cpu':'2'}}},{'name':'side','image':'busybox'}]}}}",
                "{'apiVersion':'v1','kind':'Pod','metadata':{'name':'cs-demo-1','namespace':'ns',"
                "'labels':{'app':'demo'},'ownerReferences':[" CS_OWNER "]},'spec':{'containers':[{"
                "'name':'main','image':'nginx'}]}}");
    json_t *want = jq("{'app':'demo','subset':'a'}");
    CHECK_EQ_JSON(wh_json_path(p, "metadata", "labels", NULL), want);
    json_decref(want);
    CHECK_EQ_STR(wh_json_annotation(p, "note"), "x");
    CHECK_EQ_STR(wh_json_annotation(p, WH_KRUISE_ANN_MATCHED_WORKLOADSPREAD),
                 "{\"name\":\"ws-demo\",\"subset\":\"a\"}");
    want = jq("[{'name':'main','image':'nginx','resources':{'limits':{'cpu':'2'}}},{'name':"
              "'side','image':'busybox'}]");
    CHECK_EQ_JSON(wh_json_path(p, "spec", "containers", NULL), want);
    json_decref(want);
    json_decref(p);
}

TEST(ws_patch_steps_in_upstream_order)
{
    /* 6: tolerations (step 1) and nodeAffinity (step 2) come before the patch (step 5), which
     * replaces the tolerations list (it has no merge key) and may drop the affinity; the
     * annotation (step 6) comes last and wins over the patch's */
    json_t *p = patched("{'name':'a','maxReplicas':3,'tolerations':[{'key':'t','operator':"
                        "'Exists'}],'patch':{'metadata':{'annotations':{"
                        "'apps.kruise.io/matched-workloadspread':'mine'}},'spec':{'affinity':null,"
                        "'tolerations':[{'key':'p','operator':'Exists'}]}}}",
                        PLAIN_POD("{'containers':[{'name':'main','image':'nginx'}]}"));
    CHECK_EQ_STR(wh_json_annotation(p, WH_KRUISE_ANN_MATCHED_WORKLOADSPREAD), GOT("ws-demo", "a"));
    json_t *spec = jq("{'containers':[{'name':'main','image':'nginx'}],'tolerations':[{'key':'p',"
                      "'operator':'Exists'}]}");
    CHECK_EQ_JSON(json_object_get(p, "spec"), spec);
    json_decref(spec);
    json_decref(p);
}

TEST(ws_patch_priority_class_change_drops_priority)
{
    const char *pod = PLAIN_POD("{'priorityClassName':'low','priority':10,'containers':[{'name':"
                                "'main','image':'nginx'}]}");
    json_t *p = patched("{'name':'a','maxReplicas':3,'patch':{'spec':{'priorityClassName':"
                        "'high'}}}",
                        pod);
    CHECK_EQ_STR(wh_json_path_str(p, "spec", "priorityClassName", NULL), "high");
    CHECK(json_object_get(json_object_get(p, "spec"), "priority") == NULL);
    json_decref(p);
    /* the same class: the priority stays */
    p = patched("{'name':'a','maxReplicas':3,'patch':{'spec':{'priorityClassName':'low'}}}", pod);
    CHECK_EQ_INT(json_integer_value(wh_json_path(p, "spec", "priority", NULL)), 10);
    json_decref(p);
}

TEST(ws_patch_that_does_not_apply_fails_the_request)
{
    struct {
        const char *patch, *err;
    } cases[] = {
        {"{'spec':{'containers':[{'image':'x'}]}}",
         "map: map[image:x] does not contain declared merge key: name"},
        {"{'spec':{'hostNetwork':'yes'}}", "json: cannot unmarshal string into Go struct field "
                                           "PodSpec.spec.hostNetwork of type bool"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *objs = wh_str_printf(
            "[" CLONESET("cs-demo", "5") ",{'apiVersion':'apps.kruise.io/v1beta1','kind':"
                                         "'WorkloadSpread','metadata':{'name':'ws-demo','namespace'"
                                         ":'ns'},'spec':{'targetRef':" TARGET_CS
                                         ",'subsets':[{'name':'only','patch':%s}]}}]",
            cases[i].patch);
        struct wh_step_fx f;
        fx_init(&f, "", objs);
        struct wh_step_run r;
        create(&f, &r, CS_POD("cs-demo-1"));
        CHECK_EQ_INT(r.rc, WH_ERR_INVALID);
        CHECK_EQ_STR(r.eb.msg, cases[i].err);
        wh_step_run_fini(&r);
        wh_step_fx_fini(&f);
        free(objs);
    }
}

TEST(ws_patch_added_values_as_go_encodes_them)
{
    /* empty optional members of what the subset adds are dropped, required ones added */
    json_t *p = patched("{'name':'a','maxReplicas':3,'tolerations':[{'key':'t','operator':"
                        "'Exists','value':'','tolerationSeconds':null}],"
                        "'preferredNodeSelector':[{'preference':{'matchExpressions':[]}}]}",
                        PLAIN_POD("{}"));
    json_t *want = jq("[{'key':'t','operator':'Exists'}]");
    CHECK_EQ_JSON(wh_json_path(p, "spec", "tolerations", NULL), want);
    json_decref(want);
    want = jq("[{'weight':0,'preference':{}}]");
    CHECK_EQ_JSON(wh_json_path(p, "spec", "affinity", "nodeAffinity",
                               "preferredDuringSchedulingIgnoredDuringExecution", NULL),
                  want);
    json_decref(want);
    json_decref(p);
}

#define DEPLOY_WEB                                                                                 \
    "{'apiVersion':'apps/v1','kind':'Deployment','metadata':{'name':'web','namespace':'ns'},"      \
    "'spec':{'replicas':2,'template':{'metadata':{'labels':{'app':'web'}},'spec':{"                \
    "'containers':[{'name':'main','image':'nginx','terminationMessagePolicy':'File',"              \
    "'imagePullPolicy':'Always'}],'restartPolicy':'Always','dnsPolicy':'ClusterFirst',"            \
    "'terminationGracePeriodSeconds':30}}}}"
#define CS_CLAIMS                                                                                  \
    "{'apiVersion':'apps.kruise.io/"                                                               \
    "v1alpha1','kind':'CloneSet','metadata':{'name':'cs','namespace':"                             \
    "'ns'},'spec':{'replicas':2,'template':{'spec':{'containers':[{'name':'main','image':'nginx'," \
    "'terminationMessagePolicy':'File','imagePullPolicy':'Always'}],'restartPolicy':'Always',"     \
    "'dnsPolicy':'ClusterFirst','terminationGracePeriodSeconds':30}},'volumeClaimTemplates':[{"    \
    "'metadata':{'name':'data'}}]}}"
#define DEP_REF "'targetRef':{'apiVersion':'apps/v1','kind':'Deployment','name':'web'}"
#define STS_TEMPLATE                                                                               \
    "'template':{'spec':{'containers':[{'name':'main','image':'nginx','terminationMessagePolicy':" \
    "'File','imagePullPolicy':'Always'}],'restartPolicy':'Always','dnsPolicy':'ClusterFirst',"     \
    "'terminationGracePeriodSeconds':30}}"
/* an apps/v1 StatefulSet sts with a claim, an Advanced StatefulSet asts (no apps/v1 one) */
#define STS_CLAIMS                                                                                 \
    "{'apiVersion':'apps/v1','kind':'StatefulSet','metadata':{'name':'sts','namespace':'ns'},"     \
    "'spec':{'replicas':1," STS_TEMPLATE                                                           \
    ",'volumeClaimTemplates':[{'metadata':{'name':'data'}}]}}"
#define ASTS                                                                                       \
    "{'apiVersion':'apps.kruise.io/v1beta1','kind':'StatefulSet','metadata':{'name':'asts',"       \
    "'namespace':'ns'},'spec':{'replicas':1," STS_TEMPLATE "}}"
#define MOUNT(name)                                                                                \
    "'subsets':[{'name':'a','patch':{'spec':{'containers':[{'name':'main','volumeMounts':[{"       \
    "'name':'" name "','mountPath':'/" name "'}]}]}}}]"

TEST(ws_validate_patch_against_the_template)
{
    struct wh_step_fx f;
    fx_init(&f, "", "[" DEPLOY_WEB "," CS_CLAIMS "," STS_CLAIMS "," ASTS "]");
    struct {
        const char *spec, *want;
    } cases[] = {
        /* a valid patch */
        {DEP_REF ",'subsets':[{'name':'a','patch':{'metadata':{'labels':{'x':'y'}},'spec':{"
                 "'containers':[{'name':'main','env':[{'name':'E','value':'1'}]}]}}}]",
         ""},
        /* the patched template is checked as a Pod spec after kruise's SetDefaultPodSpec
         * (convertor.ConvertPod), so a new container lacks only what has no default; the
         * patch's new element comes first, as mergeSortedSlice orders */
        {DEP_REF ",'subsets':[{'name':'a','patch':{'spec':{'containers':[{'name':'side'}]}}}]",
         "400 spec.subsets[0].patch.containers[0].image: Required value"},
        {DEP_REF ",'subsets':[{'name':'a','patch':{'spec':{'containers':[{'image':'x'}]}}}]",
         "400 [spec.subsets[0].patch: Invalid value: "
         "\"{\\\"spec\\\":{\\\"containers\\\":[{\\\"image\\\":\\\"x\\\"}]}}\": failed to merge "
         "patch: map: map[image:x] does not contain declared merge key: name, "
         "spec.subsets[0].patch: Invalid value: "
         "\"{\\\"spec\\\":{\\\"containers\\\":[{\\\"image\\\":\\\"x\\\"}]}}\": failed to "
         "unmarshal: unexpected end of JSON input, "
         "spec.subsets[0].patch.containers: Required value]"},
        /* a CloneSet's claims are volumes of the template */
        {"'targetRef':{'apiVersion':'apps.kruise.io/v1alpha1','kind':'CloneSet','name':'cs'},"
         "'subsets':[{'name':'a','patch':{'spec':{'containers':[{'name':'main','volumeMounts':[{"
         "'name':'data','mountPath':'/data'}]}]}}}]",
         ""},
        {"'targetRef':{'apiVersion':'apps.kruise.io/v1alpha1','kind':'CloneSet','name':'cs'},"
         "'subsets':[{'name':'a','patch':{'spec':{'containers':[{'name':'main','volumeMounts':[{"
         "'name':'logs','mountPath':'/logs'}]}]}}}]",
         "400 spec.subsets[0].patch.containers[0].volumeMounts[0].name: Not found: \"logs\""},
        /* a StatefulSet target of either group is looked up as an apps/v1 StatefulSet (9.1),
         * its claims volumes of the template */
        {"'targetRef':{'apiVersion':'apps.kruise.io/"
         "v1beta1','kind':'StatefulSet','name':'sts'}," MOUNT("data"),
         ""},
        {"'targetRef':{'apiVersion':'apps.kruise.io/"
         "v1beta1','kind':'StatefulSet','name':'sts'}," MOUNT("logs"),
         "400 spec.subsets[0].patch.containers[0].volumeMounts[0].name: Not found: \"logs\""},
        {"'targetRef':{'apiVersion':'apps/v1','kind':'StatefulSet','name':'sts'}," MOUNT("logs"),
         "400 spec.subsets[0].patch.containers[0].volumeMounts[0].name: Not found: \"logs\""},
        /* so an Advanced StatefulSet alone is not found, and its patch is not checked */
        {"'targetRef':{'apiVersion':'apps.kruise.io/"
         "v1beta1','kind':'StatefulSet','name':'asts'}," MOUNT("logs"),
         ""},
        /* no workload yet: the patch is not checked */
        {"'targetRef':{'apiVersion':'apps/v1','kind':'Deployment','name':'later'},'subsets':[{"
         "'name':'a','patch':{'spec':{'containers':[{'name':'side'}]}}}]",
         ""},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *obj = wh_str_printf(WSB("%s"), cases[i].spec);
        char *got = answer(&f, "CREATE", "v1beta1", obj, NULL);
        if (strcmp(got, cases[i].want) != 0)
            fprintf(stderr, "case %zu: got %s\n", i, got);
        CHECK_EQ_STR(got, cases[i].want);
        free(got);
        free(obj);
    }
    wh_step_fx_fini(&f);
}

TEST(ws_validate_decodes_with_the_model)
{
    struct wh_step_fx f;
    fx_init(&f, "", "[]");
    CHECK_ANSWER(&f, "CREATE", "v1beta1", WSB(CS_REF ",'subsets':[{'name':'a','maxReplicas':1.5}]"),
                 NULL,
                 "400 json: cannot unmarshal number 1.5 into Go struct field "
                 "WorkloadSpreadSubset.spec.subsets.maxReplicas of type int32");
    CHECK_ANSWER(&f, "CREATE", "v1beta1", WSB(CS_REF ",'subsets':'x'"), NULL,
                 "400 json: cannot unmarshal string into Go struct field "
                 "WorkloadSpreadSpec.spec.subsets of type []v1beta1.WorkloadSpreadSubset");
    wh_step_fx_fini(&f);
}

TEST(ws_options_decode_as_go)
{
    struct wh_step_fx f;
    fx_init(&f, "", "[" BASIC_A0 "]");
    struct wh_step_run r;
    run(&f, &r, "CREATE", "", CS_POD("cs-demo-1"), NULL, "{'dryRun':'All'}", false);
    CHECK_EQ_INT(r.rc, WH_ERR_INVALID);
    CHECK_EQ_STR(r.eb.msg, "json: cannot unmarshal string into Go struct field "
                           "CreateOptions.dryRun of type []string");
    wh_step_run_fini(&r);
    run(&f, &r, "DELETE", "", NULL, ANNOTATED_POD("p", ANN_A, ""), "{'gracePeriodSeconds':'5'}",
        false);
    CHECK(!r.resp.allowed);
    CHECK_EQ_INT(r.resp.code, 400);
    CHECK_EQ_STR(r.resp.message, "json: cannot unmarshal string into Go struct field "
                                 "DeleteOptions.gracePeriodSeconds of type int64");
    wh_step_run_fini(&r);
    run(&f, &r, "CREATE", "eviction",
        "{'apiVersion':'policy/v1','kind':'Eviction','metadata':{'name':'p','namespace':'ns'},"
        "'deleteOptions':{'dryRun':true}}",
        NULL, CREATE_OPTIONS, false);
    CHECK_EQ_INT(r.resp.code, 400);
    CHECK_EQ_STR(r.resp.message, "json: cannot unmarshal bool into Go struct field "
                                 "DeleteOptions.deleteOptions.dryRun of type []string");
    wh_step_run_fini(&r);
    CHECK_EQ_INT(missing(&f, "versionIgnored", 0), 0);
    wh_step_fx_fini(&f);
}

/* --- 5.3 against the test API server: failed writes, conflicts until the deadline ---------- */

#define WS_PATH "/apis/apps.kruise.io/v1beta1/namespaces/ns/workloadspreads/ws-demo"
#define WS_STATUS_PATH WS_PATH "/status"

static bool fx_init_api(struct wh_step_fx *f, struct wh_apiserver **srv, const char *objects)
{
    memset(f, 0, sizeof(*f));
    wh_features_init(&f->cfg.features);
    f->cfg.namespace_ = (char *)(uintptr_t) "kruise-system";
    struct wh_errbuf eb = {{0}};
    char *kc = NULL;
    struct wh_kube_client *c = NULL;
    wh_test_curl_init();
    struct wh_apiserver_opts ao = {.kruise_crds = true};
    enum wh_err rc = wh_apiserver_start(&ao, srv, &eb);
    json_t *objs = jq(objects);
    char *body = wh_json_dumps(objs);
    json_decref(objs);
    if (!rc)
        rc = wh_apiserver_control(*srv, "POST", "objects", body, NULL, &eb);
    free(body);
    struct wh_kc_opts ko = {WH_KC_AUTH_NONE, WH_KC_CA_DATA, NULL, NULL, NULL, NULL};
    if (!rc)
        rc = wh_apiserver_write_kubeconfig(*srv, &ko, NULL, &kc, &eb);
    struct wh_kube_opts o = {.kubeconfig = kc, .timeout_ms = 20000, .max_retries = 0};
    if (!rc)
        rc = wh_kube_client_new(&o, &c, &eb);
    free(kc);
    if (!rc)
        rc = wh_cluster_new_api(c, &f->cl, &eb);
    if (!rc)
        rc = wh_ws_caches_setup(f->cl, &f->cfg, &eb);
    if (!rc)
        rc = wh_cluster_start(f->cl, &eb);
    char why[128];
    for (int i = 0; !rc && i < 1000 && !wh_cluster_synced(f->cl, why, sizeof(why)); i++)
        wh_time_sleep_ms(10);
    if (rc || !wh_cluster_synced(f->cl, why, sizeof(why))) {
        fprintf(stderr, "cannot set up the test API server: %s\n", eb.msg);
        return false;
    }
    f->ctx.cfg = &f->cfg;
    f->ctx.cluster = f->cl;
    return true;
}

TEST(ws_status_write_failures_through_the_api)
{
    struct wh_step_fx f;
    struct wh_apiserver *srv = NULL;
    if (!fx_init_api(&f, &srv,
                     "[{'apiVersion':'v1','kind':'Namespace','metadata':{'name':'ns'}}," BASIC
                     "]")) {
        CHECK(false);
        goto out;
    }
    const char *err_labels = "reason=\"error\"", *late_labels = "reason=\"timeout\"";
    double errors = metric("kruise_webhook_workloadspread_status_write_failures_total", err_labels);
    double lates = metric("kruise_webhook_workloadspread_status_write_failures_total", late_labels);
    double conflicts = metric("kruise_webhook_workloadspread_status_conflicts_total", NULL);
    /* the API server refuses the write: 500, and the request fails with it */
    wh_apiserver_post(srv, "fail?code=500&count=1&methods=PUT&path_prefix=" WS_STATUS_PATH);
    struct wh_step_run r;
    create(&f, &r, CS_POD("cs-demo-1"));
    CHECK_EQ_INT(r.rc, WH_ERR_KUBE);
    CHECK(wh_str_has_prefix(r.eb.msg, "WorkloadSpread ns/ws-demo: status write failed: "));
    wh_step_run_fini(&r);
    CHECK_EQ_INT(metric("kruise_webhook_workloadspread_status_write_failures_total", err_labels) -
                     errors,
                 1);
    /* every write conflicts: decided again on a fresh read until the request's deadline */
    wh_apiserver_post(srv, "fail?code=409&count=-1&methods=PUT&path_prefix=" WS_STATUS_PATH);
    int64_t before = wh_deadline_set(wh_time_mono_ns() + 400 * 1000000LL);
    create(&f, &r, CS_POD("cs-demo-1"));
    wh_deadline_set(before);
    CHECK_EQ_INT(r.rc, WH_ERR_TIMEOUT);
    CHECK(wh_str_has_prefix(r.eb.msg, "WorkloadSpread ns/ws-demo: the status write did not finish "
                                      "in time ("));
    wh_step_run_fini(&r);
    CHECK_EQ_INT(metric("kruise_webhook_workloadspread_status_write_failures_total", late_labels) -
                     lates,
                 1);
    CHECK(metric("kruise_webhook_workloadspread_status_conflicts_total", NULL) - conflicts >= 2);
    /* once the API server takes writes again, the Pod is counted */
    wh_apiserver_post(srv, "fail?clear=1");
    create(&f, &r, CS_POD("cs-demo-1"));
    CHECK_EQ_INT(r.rc, WH_OK);
    CHECK_EQ_STR(annotation(&r), GOT("ws-demo", "a"));
    wh_step_run_fini(&r);
    json_t *live = NULL;
    struct wh_errbuf eb = {{0}};
    CHECK_EQ_INT(wh_cluster_get_live(f.cl, "apps.kruise.io", "v1beta1", "workloadspreads", "ns",
                                     "ws-demo", &live, &eb),
                 WH_OK);
    const json_t *a = json_array_get(
        wh_json_path(live, "status", "versionedSubsetStatuses", "versionIgnored", NULL), 0);
    CHECK_EQ_INT(json_integer_value(json_object_get(a, "missingReplicas")), 1);
    CHECK(json_object_get(wh_json_obj(a, "creatingPods"), "cs-demo-1") != NULL);
    json_decref(live);
    /* the WorkloadSpread is gone when, after a conflict, it is read again (5.3 step 1): no
     * subset, nothing written, the Pod admitted unpatched */
    wh_apiserver_post(srv, "fail?code=409&count=1&methods=PUT&path_prefix=" WS_STATUS_PATH);
    wh_apiserver_post(srv, "fail?code=404&count=1&methods=GET&path_prefix=" WS_PATH);
    create(&f, &r, CS_POD("cs-demo-2"));
    CHECK_EQ_INT(r.rc, WH_OK);
    CHECK(r.resp.allowed);
    CHECK(annotation(&r) == NULL);
    CHECK(strstr(r.notes, "the WorkloadSpread no longer exists") != NULL);
    wh_step_run_fini(&r);
    live = NULL;
    CHECK_EQ_INT(wh_cluster_get_live(f.cl, "apps.kruise.io", "v1beta1", "workloadspreads", "ns",
                                     "ws-demo", &live, &eb),
                 WH_OK);
    a = json_array_get(
        wh_json_path(live, "status", "versionedSubsetStatuses", "versionIgnored", NULL), 0);
    CHECK_EQ_INT(json_integer_value(json_object_get(a, "missingReplicas")), 1);
    CHECK(json_object_get(wh_json_obj(a, "creatingPods"), "cs-demo-2") == NULL);
    json_decref(live);
out:
    wh_step_fx_fini(&f);
    wh_apiserver_stop(srv);
}
