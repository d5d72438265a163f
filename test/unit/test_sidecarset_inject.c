/* SidecarSet injection at /mutate-pod (spec sidecarset.md 4): the public vectors in process,
 * then one test per rule. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test/support/vector.h"
#include "test/unit/test.h"
#include "util/buf.h"
#include "util/mem.h"
#include "util/str.h"

/* The vectors of this feature: 001-019, 028, 029 (020-027 are the SidecarSet webhooks'). */
static bool mine(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    int n = (base[0] - '0') * 100 + (base[1] - '0') * 10 + (base[2] - '0');
    return (n >= 1 && n <= 19) || n == 28 || n == 29;
}

TEST(sidecarset_inject_vectors)
{
    size_t n = 0;
    char **paths = wh_vec_list_dir("test/vectors/sidecarset", &n);
    int ran = 0;
    for (size_t i = 0; i < n; i++) {
        if (!mine(paths[i])) {
            free(paths[i]);
            continue;
        }
        struct wh_vec v;
        struct wh_errbuf eb = {{0}};
        CHECK(wh_vec_load(paths[i], &v, &eb) == WH_OK);
        struct wh_buf diff;
        wh_buf_init(&diff, 1 << 20);
        bool skipped = false;
        bool ok = wh_vec_run_local(&v, &skipped, &diff);
        if (!ok || skipped)
            fprintf(stderr, "vector %s: %s\n%s\n", paths[i], skipped ? "skipped" : "FAILED",
                    diff.data ? diff.data : "");
        CHECK(ok && !skipped);
        ran++;
        wh_buf_fini(&diff);
        wh_vec_fini(&v);
        free(paths[i]);
    }
    free(paths);
    CHECK_EQ_INT(ran, 21);
}

/* --- running the step directly ------------------------------------------------------------- */

#include "config/config.h"
#include "gocompat/regex.h"
#include "handlers/pod/pipeline.h"
#include "handlers/registry.h"
#include "kube/cluster.h"
#include "util/json.h"

#define NOW 1704067200 /* 2024-01-01T00:00:00Z */

/* JSON written with single quotes (and ` for a literal '), so tests stay readable.
 * Returns: new ref. */
static json_t *J(const char *text)
{
    char *s = wh_xstrdup(text);
    for (char *p = s; *p; p++) {
        if (*p == '\'')
            *p = '"';
        else if (*p == '`')
            *p = '\'';
    }
    json_t *v = wh_test_json(s);
    free(s);
    return v;
}

struct inj {
    json_t *pod; /* the Pod after the step, NULL when it was not changed */
    bool allowed;
    int code;
    char msg[512];
};

static void inj_fini(struct inj *r)
{
    json_decref(r->pod);
    memset(r, 0, sizeof(*r));
}

/* Runs /mutate-pod's handler times times on pod with the cluster objects (a JSON array),
 * operation op, feature gates (NULL = defaults) and extra request members (NULL = none); out
 * is the last answer. */
static void run_times(const char *cluster, const char *pod, const char *op, const char *gates,
                      const char *extra, int times, struct inj *out)
{
    memset(out, 0, sizeof(*out));
    struct wh_config cfg;
    struct wh_errbuf eb = {{0}};
    char flag[512];
    snprintf(flag, sizeof(flag), "--feature-gates=%s", gates ? gates : "");
    char *argv[] = {"kruise-webhook", flag, NULL};
    if (wh_config_load(&cfg, gates ? 2 : 1, argv, &eb)) {
        fprintf(stderr, "config: %s\n", eb.msg);
        CHECK(false);
        return;
    }
    json_t *objs = J(cluster ? cluster : "[]");
    struct wh_cluster *cl = NULL;
    CHECK(wh_cluster_new_standalone_objects(objs, &cl, &eb) == WH_OK);
    CHECK(wh_routes_setup(&cfg, cl, &eb) == WH_OK);
    CHECK(wh_cluster_start(cl, &eb) == WH_OK);
    json_decref(objs);

    json_t *p = J(pod);
    const char *ns = wh_json_meta_str(p, "namespace");
    json_t *req =
        json_pack("{s:s,s:{s:s,s:s,s:s},s:{s:s,s:s,s:s},s:s,s:s,s:s,s:s,s:O,s:O,s:{s:s,s:s}}",
                  "uid", "u-1", "kind", "group", "", "version", "v1", "kind", "Pod", "resource",
                  "group", "", "version", "v1", "resource", "pods", "subResource", "", "operation",
                  op, "namespace", ns ? ns : "default", "name", "", "object", p, "oldObject",
                  strcmp(op, "UPDATE") == 0 ? p : json_null(), "options", "apiVersion",
                  "meta.k8s.io/v1", "kind", "CreateOptions");
    if (extra) {
        json_t *x = J(extra);
        json_object_update(req, x);
        json_decref(x);
    }
    json_t *review = json_pack("{s:s,s:s,s:o}", "apiVersion", "admission.k8s.io/v1", "kind",
                               "AdmissionReview", "request", req);
    struct wh_admission_request r;
    CHECK(wh_admission_decode(review, &r, &eb) == WH_OK);
    for (int k = 0; k < times; k++) {
        struct wh_admission_response resp;
        wh_admission_response_init(&resp);
        struct wh_handler_ctx ctx = {.cfg = &cfg, .cluster = cl};
        struct wh_pod_run_opts opts = {.now = NOW};
        enum wh_err rc = wh_pod_mutate_run(&ctx, &r, &resp, &opts, &eb);
        json_decref(out->pod);
        memset(out, 0, sizeof(*out));
        if (rc) {
            out->allowed = false;
            out->code = 500;
            snprintf(out->msg, sizeof(out->msg), "%s", eb.msg);
        } else {
            out->allowed = resp.allowed;
            out->code = resp.code;
            snprintf(out->msg, sizeof(out->msg), "%s", resp.message ? resp.message : "");
            if (resp.mutated && !json_equal(resp.mutated, r.object))
                out->pod = json_incref(resp.mutated);
        }
        wh_admission_response_fini(&resp);
    }
    /* copy-on-write editing never touches the request or the frozen cached objects */
    json_t *again = J(pod);
    CHECK(json_equal(p, again));
    json_decref(again);
    struct wh_cache *ssc = wh_cluster_cache(cl, WH_RES_SIDECARSET);
    struct wh_objlist l;
    wh_objlist_init(&l);
    wh_cache_list(ssc, NULL, &l);
    for (size_t i = 0; i < l.n; i++) {
        json_t *fresh = json_loads(wh_object_text(l.items[i], NULL), 0, NULL);
        CHECK(json_equal(fresh, wh_object_json(l.items[i])));
        json_decref(fresh);
    }
    wh_objlist_fini(&l);
    json_decref(review);
    json_decref(p);
    wh_cluster_free(cl);
    wh_config_fini(&cfg);
}

static void run(const char *cluster, const char *pod, const char *op, const char *gates,
                const char *extra, struct inj *out)
{
    run_times(cluster, pod, op, gates, extra, 1, out);
}

/* A SidecarSet as stored (defaulted). spec_extra is spliced into spec, meta_extra into
 * metadata. */
static char *sidecarset(const char *name, const char *spec_extra, const char *meta_extra)
{
    return wh_str_printf("{'apiVersion':'apps.kruise.io/v1beta1','kind':'SidecarSet','metadata':"
                         "{'name':'%s','annotations':{'kruise.io/sidecarset-hash':'H-%s',"
                         "'kruise.io/sidecarset-hash-without-image':'W-%s'}%s%s},'spec':{%s%s"
                         "'updateStrategy':{'type':'RollingUpdate','maxUnavailable':1,"
                         "'partition':0},'revisionHistoryLimit':10}}",
                         name, name, name, meta_extra ? "," : "", meta_extra ? meta_extra : "",
                         spec_extra ? spec_extra : "", spec_extra ? "," : "");
}

#define LOG_AGENT                                                                                  \
    "{'name':'log-agent','image':'log-agent:1.0','resources':{},'imagePullPolicy':"                \
    "'IfNotPresent','podInjectPolicy':'BeforeAppContainer','upgradeStrategy':{'upgradeType':"      \
    "'ColdUpgrade'},'shareVolumePolicy':{'type':'disabled'}}"

#define WEB_POD                                                                                    \
    "{'apiVersion':'v1','kind':'Pod','metadata':{'name':'web-0','namespace':'default',"            \
    "'labels':{'app':'web'}},'spec':{'containers':[{'name':'nginx','image':'nginx',"               \
    "'resources':{}}]}}"

static char *cluster_of(const char *a, const char *b)
{
    return wh_str_printf("[%s%s%s]", a ? a : "", a && b ? "," : "", b ? b : "");
}

static const json_t *container_at(const json_t *pod, const char *list, size_t i)
{
    return json_array_get(wh_json_path(pod, "spec", list, NULL), i);
}

static const char *name_at(const json_t *pod, const char *list, size_t i)
{
    return wh_json_str(container_at(pod, list, i), "name");
}

static size_t count(const json_t *pod, const char *list)
{
    return json_array_size(wh_json_path(pod, "spec", list, NULL));
}

TEST(sidecarset_inject_basic_annotations_exact)
{
    char *ss =
        sidecarset("log-sidecarset",
                   "'selector':{'matchLabels':{'app':'web'}},'containers':[" LOG_AGENT "]", NULL);
    char *cl = cluster_of(ss, NULL);
    struct inj r;
    run(cl, WEB_POD, "CREATE", NULL, NULL, &r);
    CHECK(r.allowed);
    CHECK(r.pod != NULL);
    CHECK_EQ_STR(wh_json_annotation(r.pod, "kruise.io/sidecarset-hash"),
                 "{\"log-sidecarset\":{\"updateTimestamp\":\"2024-01-01T00:00:00Z\",\"hash\":"
                 "\"H-log-sidecarset\",\"sidecarSetName\":\"log-sidecarset\",\"sidecarList\":"
                 "[\"log-agent\"]}}");
    CHECK_EQ_STR(wh_json_annotation(r.pod, "kruise.io/sidecarset-hash-without-image"),
                 "{\"log-sidecarset\":{\"updateTimestamp\":\"2024-01-01T00:00:00Z\",\"hash\":"
                 "\"W-log-sidecarset\",\"sidecarSetName\":\"log-sidecarset\",\"sidecarList\":"
                 "[\"log-agent\"]}}");
    CHECK_EQ_STR(wh_json_annotation(r.pod, "kruise.io/sidecarset-injected-list"), "log-sidecarset");
    json_t *want =
        J("{'name':'log-agent','image':'log-agent:1.0','resources':{},"
          "'imagePullPolicy':'IfNotPresent','env':[{'name':'IS_INJECTED','value':'true'}]}");
    CHECK_EQ_JSON(container_at(r.pod, "containers", 0), want);
    json_decref(want);
    CHECK_EQ_STR(name_at(r.pod, "containers", 1), "nginx");
    inj_fini(&r);
    free(cl);
    free(ss);
}

/* A SidecarSet with one container named cname, selector app=web, plus spec_extra. */
static char *simple_set(const char *name, const char *cname, const char *policy,
                        const char *spec_extra, const char *meta_extra)
{
    char *spec =
        wh_str_printf("'selector':{'matchLabels':{'app':'web'}},'containers':[{'name':"
                      "'%s','image':'%s:1','resources':{},'podInjectPolicy':'%s',"
                      "'upgradeStrategy':{'upgradeType':'ColdUpgrade'},"
                      "'shareVolumePolicy':{'type':'disabled'}}]%s%s",
                      cname, cname, policy, spec_extra ? "," : "", spec_extra ? spec_extra : "");
    char *s = sidecarset(name, spec, meta_extra);
    free(spec);
    return s;
}

/* Runs WEB_POD (or pod) against the given cluster text. */
static void run_simple(const char *cluster, const char *pod, struct inj *r)
{
    run(cluster, pod ? pod : WEB_POD, "CREATE", NULL, NULL, r);
}

TEST(sidecarset_inject_candidates_by_namespace_index)
{
    /* indexed under another namespace: never a candidate for default */
    char *other = simple_set("other-ns", "a", "BeforeAppContainer",
                             "'namespaceSelector':{'matchLabels':{'kubernetes.io/metadata.name':"
                             "'shop'}}",
                             NULL);
    /* In on kubernetes.io/metadata.name: filed under each listed namespace */
    char *in =
        simple_set("in-ns", "b", "BeforeAppContainer",
                   "'namespaceSelector':{'matchExpressions':[{'key':"
                   "'kubernetes.io/metadata.name','operator':'In','values':['x','default']}]}",
                   NULL);
    char *ns = wh_xstrdup("{'apiVersion':'v1','kind':'Namespace','metadata':{'name':'default',"
                          "'labels':{'kubernetes.io/metadata.name':'default'}}}");
    char *cl = wh_str_printf("[%s,%s,%s]", other, in, ns);
    struct inj r;
    run_simple(cl, NULL, &r);
    CHECK(r.pod);
    CHECK_EQ_STR(wh_json_annotation(r.pod, "kruise.io/sidecarset-injected-list"), "in-ns");
    CHECK_EQ_STR(name_at(r.pod, "containers", 0), "b");
    inj_fini(&r);
    free(cl);
    free(ns);
    free(other);
    free(in);
}

TEST(sidecarset_inject_namespace_selector)
{
    char *sel = simple_set("ns-sel", "a", "BeforeAppContainer",
                           "'namespaceSelector':{'matchLabels':{'env':'prod'}}", NULL);
    char *all = simple_set("ns-all", "b", "BeforeAppContainer", "'namespaceSelector':{}", NULL);
    char *bad = simple_set("ns-bad", "c", "BeforeAppContainer",
                           "'namespaceSelector':{'matchExpressions':[{'key':'env','operator':"
                           "'Nope'}]}",
                           NULL);
    /* no Namespace object: a namespaceSelector cannot match, even {} */
    char *cl = wh_str_printf("[%s,%s,%s]", sel, all, bad);
    struct inj r;
    run_simple(cl, NULL, &r);
    CHECK(r.pod == NULL);
    CHECK(r.allowed);
    inj_fini(&r);
    free(cl);
    /* Namespace without env=prod: only {} matches; an unknown operator is just no match */
    cl = wh_str_printf("[%s,%s,%s,{'apiVersion':'v1','kind':'Namespace','metadata':{'name':"
                       "'default','labels':{'env':'dev'}}}]",
                       sel, all, bad);
    run_simple(cl, NULL, &r);
    CHECK_EQ_STR(wh_json_annotation(r.pod, "kruise.io/sidecarset-injected-list"), "ns-all");
    inj_fini(&r);
    free(cl);
    cl = wh_str_printf("[%s,%s,{'apiVersion':'v1','kind':'Namespace','metadata':{'name':"
                       "'default','labels':{'env':'prod'}}}]",
                       sel, all);
    run_simple(cl, NULL, &r);
    CHECK_EQ_STR(wh_json_annotation(r.pod, "kruise.io/sidecarset-injected-list"), "ns-all,ns-sel");
    inj_fini(&r);
    free(cl);
    free(sel);
    free(all);
    free(bad);
}

TEST(sidecarset_inject_selector_rules)
{
    char *empty = sidecarset("empty", "'selector':{},'containers':[" LOG_AGENT "]", NULL);
    char *nil = sidecarset("nil", "'containers':[" LOG_AGENT "]", NULL);
    char *cl = wh_str_printf("[%s,%s]", empty, nil);
    struct inj r;
    run_simple(cl, NULL, &r);
    CHECK(r.allowed && r.pod == NULL);
    inj_fini(&r);
    free(cl);
    /* an unknown operator in spec.selector fails the request */
    char *bad = sidecarset("bad",
                           "'selector':{'matchExpressions':[{'key':'app','operator':"
                           "'Bogus'}]},'containers':[" LOG_AGENT "]",
                           NULL);
    cl = wh_str_printf("[%s]", bad);
    run_simple(cl, NULL, &r);
    CHECK(!r.allowed);
    CHECK_EQ_INT(r.code, 500);
    CHECK_EQ_STR(r.msg, "\"Bogus\" is not a valid pod selector operator");
    inj_fini(&r);
    free(cl);
    /* ... but only once the namespace matched */
    char *bad_other = sidecarset("bad2",
                                 "'namespaceSelector':{'matchLabels':{'kubernetes.io/"
                                 "metadata.name':'elsewhere'}},'selector':{'matchExpressions':[{"
                                 "'key':'app','operator':'Bogus'}]},'containers':[" LOG_AGENT "]",
                                 NULL);
    cl = wh_str_printf("[%s]", bad_other);
    run_simple(cl, NULL, &r);
    CHECK(r.allowed && r.pod == NULL);
    inj_fini(&r);
    free(cl);
    free(bad_other);
    free(bad);
    free(empty);
    free(nil);
}

TEST(sidecarset_inject_paused)
{
    char *ss =
        simple_set("p", "a", "BeforeAppContainer", "'injectionStrategy':{'paused':true}", NULL);
    char *cl = cluster_of(ss, NULL);
    struct inj r;
    run_simple(cl, NULL, &r);
    CHECK(r.allowed && r.pod == NULL);
    inj_fini(&r);
    free(cl);
    free(ss);
}

#define REV(name, ssname, version, num, image, extra_meta)                                         \
    "{'apiVersion':'apps/v1','kind':'ControllerRevision','metadata':{'name':'" name "',"           \
    "'namespace':'kruise-system','labels':{'kruise.io/sidecarset-name':'" ssname "',"              \
    "'apps.kruise.io/sidecarset-custom-version':'" version "'}" extra_meta "},'revision':" num     \
    ",'data':{'spec':{'$patch':'replace','volumes':null,'containers':[{'name':'a','image':'" image \
    "','resources':{},'podInjectPolicy':'BeforeAppContainer','upgradeStrategy':{"                  \
    "'upgradeType':'ColdUpgrade'},'shareVolumePolicy':{'type':'disabled'}}],'initContainers':"     \
    "null,'imagePullSecrets':null,'patchPodMetadata':null}}}"

TEST(sidecarset_inject_revision_name)
{
    char *ss = simple_set("rs", "a", "BeforeAppContainer",
                          "'injectionStrategy':{'revision':{'revisionName':'rs-1','policy':"
                          "'Always'}}",
                          NULL);
    char *cl = wh_str_printf("[%s," REV("rs-1", "rs", "v1", "1", "old:1",
                                        ",'annotations':{'kruise.io/sidecarset-hash':'REVH'}") "]",
                             ss);
    struct inj r;
    run_simple(cl, NULL, &r);
    CHECK(r.pod);
    CHECK_EQ_STR(wh_json_str(container_at(r.pod, "containers", 0), "image"), "old:1");
    const char *h = wh_json_annotation(r.pod, "kruise.io/sidecarset-hash");
    /* the revision's hash annotation, and the revision named in the entry */
    CHECK(h && strstr(h, "\"hash\":\"REVH\"") && strstr(h, "\"controllerRevision\":\"rs-1\"}"));
    const char *w = wh_json_annotation(r.pod, "kruise.io/sidecarset-hash-without-image");
    /* missing from the revision: recomputed (64 characters), never a controllerRevision */
    CHECK(w && !strstr(w, "controllerRevision") && !strstr(w, "W-rs"));
    inj_fini(&r);
    free(cl);
    /* not found: 500 with the client's words */
    cl = wh_str_printf("[%s]", ss);
    run_simple(cl, NULL, &r);
    CHECK(!r.allowed);
    CHECK_EQ_INT(r.code, 500);
    CHECK_EQ_STR(r.msg, "ControllerRevision.apps \"rs-1\" not found");
    inj_fini(&r);
    free(cl);
    free(ss);
}

TEST(sidecarset_inject_revision_custom_version_latest)
{
    char *ss = simple_set("cv", "a", "BeforeAppContainer",
                          "'injectionStrategy':{'revision':{'customVersion':'v1'}}", NULL);
    char *cl =
        wh_str_printf("[%s," REV("cv-a", "cv", "v1", "3", "three:1", "") "," REV(
                          "cv-b", "cv", "v1", "2", "two:1",
                          "") "," REV("cv-c", "cv", "v2", "9", "nine:1",
                                      "") "," REV("other-z", "other", "v1", "10", "ten:1", "") "]",
                      ss);
    struct inj r;
    run_simple(cl, NULL, &r);
    CHECK(r.pod);
    CHECK_EQ_STR(wh_json_str(container_at(r.pod, "containers", 0), "image"), "three:1");
    inj_fini(&r);
    free(cl);
    cl = wh_str_printf("[%s," REV("cv-c", "cv", "v2", "9", "nine:1", "") "]", ss);
    run_simple(cl, NULL, &r);
    CHECK_EQ_STR(r.msg, "ControllerRevision.apps \"cv\" not found");
    inj_fini(&r);
    free(cl);
    free(ss);
}

TEST(sidecarset_inject_revision_partial)
{
    const char *rev = REV("pp-1", "pp", "v1", "1", "old:1", "");
    struct {
        const char *strategy;
        const char *want_image; /* NULL: a 500 */
        const char *msg;
    } cases[] = {
        /* update selector not matching the pod: always the history revision */
        {"'updateStrategy':{'type':'RollingUpdate','selector':{'matchLabels':{'canary':'x'}}}",
         "old:1", NULL},
        /* matching selector, integer partition: the current one */
        {"'updateStrategy':{'type':'RollingUpdate','partition':3}", "a:1", NULL},
        {"'updateStrategy':{'type':'RollingUpdate','partition':'100%'}", "old:1", NULL},
        {"'updateStrategy':{'type':'RollingUpdate','paused':true,'partition':0}", "old:1", NULL},
        {"'updateStrategy':{'type':'RollingUpdate','partition':'50'}", NULL,
         "invalid type: string is not a percentage"},
        {"'updateStrategy':{'type':'RollingUpdate','partition':'x%'}", NULL,
         "strconv.ParseFloat: parsing \"x\": invalid syntax"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *spec = wh_str_printf("'selector':{'matchLabels':{'app':'web'}},'containers':[{'name':"
                                   "'a','image':'a:1','resources':{},'podInjectPolicy':"
                                   "'BeforeAppContainer'}],'injectionStrategy':{'revision':{"
                                   "'revisionName':'pp-1','policy':'Partial'}},%s",
                                   cases[i].strategy);
        char *ss = wh_str_printf("{'apiVersion':'apps.kruise.io/v1beta1','kind':'SidecarSet',"
                                 "'metadata':{'name':'pp'},'spec':{%s}}",
                                 spec);
        char *cl = wh_str_printf("[%s,%s]", ss, rev);
        struct inj r;
        run_simple(cl, NULL, &r);
        if (cases[i].want_image) {
            CHECK(r.pod);
            CHECK_EQ_STR(wh_json_str(container_at(r.pod, "containers", 0), "image"),
                         cases[i].want_image);
        } else {
            CHECK(!r.allowed);
            CHECK_EQ_STR(r.msg, cases[i].msg);
        }
        inj_fini(&r);
        free(cl);
        free(ss);
        free(spec);
    }
}

TEST(sidecarset_inject_canary_displaces_base)
{
    char *base = simple_set("base", "envoy", "BeforeAppContainer", NULL, NULL);
    char *canary = simple_set("canary", "envoy", "BeforeAppContainer", NULL,
                              "'annotations':{'apps.kruise.io/sidecarset-canary':'true',"
                              "'apps.kruise.io/sidecarset-base':'base'}");
    /* the annotations member above replaces the hash annotations: fine for this test */
    char *cl = wh_str_printf("[%s,%s]", base, canary);
    struct inj r;
    run_simple(cl, NULL, &r);
    CHECK_EQ_STR(wh_json_annotation(r.pod, "kruise.io/sidecarset-injected-list"), "canary");
    CHECK_EQ_INT(count(r.pod, "containers"), 2);
    inj_fini(&r);
    free(cl);
    /* canary=false: both inject */
    char *notcanary = simple_set("canary", "envoy2", "BeforeAppContainer", NULL,
                                 "'annotations':{'apps.kruise.io/sidecarset-canary':'false',"
                                 "'apps.kruise.io/sidecarset-base':'base'}");
    cl = wh_str_printf("[%s,%s]", base, notcanary);
    run_simple(cl, NULL, &r);
    CHECK_EQ_STR(wh_json_annotation(r.pod, "kruise.io/sidecarset-injected-list"), "base,canary");
    inj_fini(&r);
    free(cl);
    free(notcanary);
    free(base);
    free(canary);
}

#define SC(name, policy, extra)                                                                    \
    "{'name':'" name "','image':'" name ":1','resources':{},'podInjectPolicy':'" policy "'" extra  \
    "}"

TEST(sidecarset_inject_placement)
{
    char *ss = sidecarset(
        "place",
        "'selector':{'matchLabels':{'app':'web'}},"
        "'initContainers':[" SC("init-b", "AfterAppContainer", "") "," SC(
            "init-a", "BeforeAppContainer",
            "") "," SC("native", "AfterAppContainer",
                       ",'restartPolicy':'Always'") "],"
                                                    "'containers':[" SC("after", "AfterAppContainer", "") "," SC(
                                                        "before", "BeforeAppContainer",
                                                        "") "," SC("empty", "",
                                                                   "") "," SC("odd", "Sideways",
                                                                              "") "," SC("nginx",
                                                                                         "BeforeApp"
                                                                                         "Containe"
                                                                                         "r",
                                                                                         "") "]",
        NULL);
    char *cl = cluster_of(ss, NULL);
    struct inj r;
    run(cl,
        "{'metadata':{'name':'p','namespace':'default','labels':{'app':'web'}},'spec':{"
        "'initContainers':[{'name':'own-init'},{'name':'init-b','image':'mine'}],"
        "'containers':[{'name':'first'},{'name':'nginx','image':'mine'},{'name':'last'}]}}",
        "CREATE", NULL, NULL, &r);
    CHECK(r.pod);
    /* init containers sorted by name; init-b replaced in place; init-a in front */
    CHECK_EQ_INT(count(r.pod, "initContainers"), 4);
    CHECK_EQ_STR(name_at(r.pod, "initContainers", 0), "init-a");
    CHECK_EQ_STR(name_at(r.pod, "initContainers", 1), "own-init");
    CHECK_EQ_STR(name_at(r.pod, "initContainers", 2), "init-b");
    CHECK_EQ_STR(wh_json_str(container_at(r.pod, "initContainers", 2), "image"), "init-b:1");
    CHECK_EQ_STR(name_at(r.pod, "initContainers", 3), "native");
    /* containers in SidecarSet order; empty or unknown policies go after */
    const char *want[] = {"before", "first", "nginx", "last", "after", "empty", "odd"};
    CHECK_EQ_INT(count(r.pod, "containers"), 7);
    for (size_t i = 0; i < 7; i++)
        CHECK_EQ_STR(name_at(r.pod, "containers", i), want[i]);
    CHECK_EQ_STR(wh_json_str(container_at(r.pod, "containers", 2), "image"), "nginx:1");
    /* sidecar-only fields never reach the pod */
    CHECK(!json_object_get(container_at(r.pod, "containers", 0), "podInjectPolicy"));
    /* sidecarList: containers plus native init containers, sorted */
    const char *h = wh_json_annotation(r.pod, "kruise.io/sidecarset-hash");
    CHECK(h && strstr(h, "\"sidecarList\":[\"after\",\"before\",\"empty\",\"native\",\"nginx\","
                         "\"odd\"]"));
    inj_fini(&r);
    /* EnableSortSidecarContainerByName sorts the containers first */
    run(cl, WEB_POD, "CREATE", "EnableSortSidecarContainerByName=true", NULL, &r);
    const char *sorted[] = {"before", "nginx", "after", "empty", "odd"};
    CHECK_EQ_INT(count(r.pod, "containers"), 5);
    for (size_t i = 0; i < 5; i++)
        CHECK_EQ_STR(name_at(r.pod, "containers", i), sorted[i]);
    inj_fini(&r);
    free(cl);
    free(ss);
}

TEST(sidecarset_inject_two_sets_order_and_init_sort)
{
    char *a = sidecarset("a-set",
                         "'selector':{'matchLabels':{'app':'web'}},'initContainers':[" SC(
                             "z-init", "AfterAppContainer",
                             "") "],'containers':[" SC("a1", "AfterAppContainer", "") "]",
                         NULL);
    char *b = sidecarset("b-set",
                         "'selector':{'matchLabels':{'app':'web'}},'initContainers':[" SC(
                             "m-init", "AfterAppContainer",
                             "") "],'containers':[" SC("b1", "AfterAppContainer", "") "]",
                         NULL);
    char *cl = wh_str_printf("[%s,%s]", b, a);
    struct inj r;
    run_simple(cl, NULL, &r);
    CHECK_EQ_STR(name_at(r.pod, "initContainers", 0), "m-init");
    CHECK_EQ_STR(name_at(r.pod, "initContainers", 1), "z-init");
    /* candidate order is by name: a-set's containers first */
    CHECK_EQ_STR(name_at(r.pod, "containers", 1), "a1");
    CHECK_EQ_STR(name_at(r.pod, "containers", 2), "b1");
    CHECK_EQ_STR(wh_json_annotation(r.pod, "kruise.io/sidecarset-injected-list"), "a-set,b-set");
    inj_fini(&r);
    free(cl);
    free(a);
    free(b);
}

TEST(sidecarset_inject_volumes_and_devices)
{
    char *a =
        sidecarset("a-vol",
                   "'selector':{'matchLabels':{'app':'web'}},'containers':[" SC(
                       "c", "BeforeAppContainer",
                       ",'volumeMounts':[{'name':'v1','mountPath':"
                       "'/v1'},{'name':'missing','mountPath':'/m'}],'volumeDevices':[{'name':"
                       "'blk','devicePath':'/dev/x'}]") "],"
                                                        "'volumes':[{'name':'v1','emptyDir':{}},{'"
                                                        "name':'v1','hostPath':{'path':"
                                                        "'/"
                                                        "later'}},{'name':'blk','"
                                                        "persistentVolumeClaim':{'claimName':'c'}},"
                                                        "{'name':'unused','emptyDir':{}}]",
                   NULL);
    char *b = sidecarset(
        "b-vol",
        "'selector':{'matchLabels':{'app':'web'}},'containers':[" SC(
            "d", "BeforeAppContainer",
            ",'volumeMounts':[{'name':'v1','mountPath':"
            "'/v1'},{'name':'pod-vol','mountPath':'/p'}]") "],"
                                                           "'volumes':[{'name':'v1','emptyDir':{'"
                                                           "medium':'Memory'}},{'name':"
                                                           "'pod-vol','emptyDir':{}}]",
        NULL);
    char *cl = wh_str_printf("[%s,%s]", a, b);
    struct inj r;
    run_simple(cl,
               "{'metadata':{'name':'p','namespace':'default','labels':{'app':'web'}},'spec':{"
               "'volumes':[{'name':'pod-vol','configMap':{'name':'x'}},{'name':'pod-vol',"
               "'secret':{'secretName':'dup-kept'}}],'containers':[{'name':'app'}]}}",
               &r);
    json_t *want = J("[{'name':'pod-vol','configMap':{'name':'x'}},{'name':'pod-vol','secret':"
                     "{'secretName':'dup-kept'}},{'name':'v1','hostPath':{'path':'/later'}},"
                     "{'name':'blk','persistentVolumeClaim':{'claimName':'c'}}]");
    CHECK_EQ_JSON(wh_json_path(r.pod, "spec", "volumes", NULL), want);
    json_decref(want);
    inj_fini(&r);
    free(cl);
    free(a);
    free(b);
}

TEST(sidecarset_inject_shared_mounts_and_devices)
{
    char *ss =
        sidecarset("share",
                   "'selector':{'matchLabels':{'app':'web'}},'containers':[" SC(
                       "s", "AfterAppContainer",
                       ",'shareVolumePolicy':{'type':'enabled'},"
                       "'shareVolumeDevicePolicy':{'type':'enabled'},'volumeMounts':[{'name':"
                       "'own','mountPath':'/own'}],'volumeDevices':[{'name':'owndev',"
                       "'devicePath':'/taken'}]") "]",
                   NULL);
    char *cl = cluster_of(ss, NULL);
    struct inj r;
    run_simple(cl,
               "{'metadata':{'name':'p','namespace':'default','labels':{'app':'web'}},'spec':{"
               "'initContainers':[{'name':'i','volumeMounts':[{'name':'ivol','mountPath':'/i'}]}],"
               "'containers':[{'name':'old-sidecar','env':[{'name':'IS_INJECTED','value':'true'}],"
               "'volumeMounts':[{'name':'sc','mountPath':'/sc'}]},{'name':'app','env':[{'name':"
               "'A','value':'1'},{'name':'A','value':'2'},{'name':'B','valueFrom':{'fieldRef':{"
               "'fieldPath':'metadata.name'}}}],'volumeMounts':[{'name':'x','mountPath':'/own'},"
               "{'name':'y','mountPath':'/taken'},{'name':'z','mountPath':'/z','subPathExpr':"
               "'$(A)/$(B)/$(C)/$(1bad)'}],'volumeDevices':[{'name':'d1','devicePath':'/own'},"
               "{'name':'d2','devicePath':'/dev/d2'}]}]}}",
               &r);
    const json_t *s = NULL;
    for (size_t i = 0; i < count(r.pod, "containers"); i++) {
        if (wh_str_eq(name_at(r.pod, "containers", i), "s"))
            s = container_at(r.pod, "containers", i);
    }
    CHECK(s != NULL);
    json_t *mounts = J("[{'name':'own','mountPath':'/own'},{'name':'z','mountPath':'/z',"
                       "'subPathExpr':'$(A)/$(B)/$(C)/$(1bad)'}]");
    CHECK_EQ_JSON(json_object_get(s, "volumeMounts"), mounts);
    json_t *devices = J("[{'name':'owndev','devicePath':'/taken'},{'name':'d2','devicePath':"
                        "'/dev/d2'}]");
    CHECK_EQ_JSON(json_object_get(s, "volumeDevices"), devices);
    json_t *env = J("[{'name':'IS_INJECTED','value':'true'},{'name':'A','value':'1'},{'name':'B',"
                    "'valueFrom':{'fieldRef':{'fieldPath':'metadata.name'}}}]");
    CHECK_EQ_JSON(json_object_get(s, "env"), env);
    json_decref(mounts);
    json_decref(devices);
    json_decref(env);
    inj_fini(&r);
    free(cl);
    free(ss);
}

TEST(sidecarset_inject_transfer_env)
{
    char *ss =
        sidecarset("tr",
                   "'selector':{'matchLabels':{'app':'web'}},'containers':[" SC(
                       "s", "BeforeAppContainer",
                       ",'env':[{'name':'OWN','value':'mine'},"
                       "{'name':'IS_INJECTED','value':'already'}],'transferEnv':["
                       "{'sourceContainerName':'app','envNames':['Z','A','OWN','A']},"
                       "{'sourceContainerNameFrom':{'fieldRef':{'apiVersion':'v1',"
                       "'fieldPath':'metadata.annotations[`src`]'}},'envName':'X'},"
                       "{'sourceContainerNameFrom':{'fieldRef':{'fieldPath':'metadata."
                       "labels[`src`]'}},'envName':'L'},"
                       "{'sourceContainerNameFrom':{'fieldRef':{'fieldPath':'metadata.name'}},"
                       "'envName':'A'},"
                       "{'sourceContainerName':'nope','envName':'A'}]") "]",
                   NULL);
    char *cl = cluster_of(ss, NULL);
    struct inj r;
    run_simple(cl,
               "{'metadata':{'name':'p','namespace':'default','labels':{'app':'web','src':'lab'},"
               "'annotations':{'src':'other'}},'spec':{'containers':[{'name':'app','env':[{'name':"
               "'Z','value':'z'},{'name':'A','value':'a1'},{'name':'A','value':'a2'},{'name':"
               "'OWN','value':'theirs'}]},{'name':'other','env':[{'name':'X','valueFrom':{"
               "'secretKeyRef':{'name':'s','key':'k'}}}]},{'name':'lab','env':[{'name':'L',"
               "'value':'l'}]}]}}",
               &r);
    CHECK(r.pod);
    json_t *env = J("[{'name':'OWN','value':'mine'},{'name':'IS_INJECTED','value':'already'},"
                    "{'name':'IS_INJECTED','value':'true'},{'name':'A','value':'a2'},{'name':'Z',"
                    "'value':'z'},{'name':'X','valueFrom':{'secretKeyRef':{'name':'s','key':'k'}}},"
                    "{'name':'L','value':'l'}]");
    CHECK_EQ_JSON(json_object_get(container_at(r.pod, "containers", 0), "env"), env);
    json_decref(env);
    inj_fini(&r);
    free(cl);
    free(ss);
}

TEST(sidecarset_inject_image_pull_secrets)
{
    char *a = simple_set("a-sec", "a", "BeforeAppContainer",
                         "'imagePullSecrets':[{'name':'s1'},{'name':'s0'}]", NULL);
    char *b = simple_set("b-sec", "b", "BeforeAppContainer",
                         "'imagePullSecrets':[{'name':'s1'},"
                         "{'name':'s9'}]",
                         NULL);
    char *cl = wh_str_printf("[%s,%s]", a, b);
    struct inj r;
    run_simple(cl,
               "{'metadata':{'name':'p','namespace':'default','labels':{'app':'web'}},'spec':{"
               "'imagePullSecrets':[{'name':'s0'},{'name':'p'},{'name':'p'}],'containers':[{"
               "'name':'app'}]}}",
               &r);
    json_t *want = J("[{'name':'s0'},{'name':'p'},{'name':'s1'},{'name':'s9'}]");
    CHECK_EQ_JSON(wh_json_path(r.pod, "spec", "imagePullSecrets", NULL), want);
    json_decref(want);
    inj_fini(&r);
    free(cl);
    free(a);
    free(b);
}

TEST(sidecarset_inject_patch_pod_metadata)
{
    char *a = simple_set("a-meta", "a", "BeforeAppContainer",
                         "'patchPodMetadata':[{'annotations':{'r/keep':'new','r/empty':'new',"
                         "'r/add':'added'},'patchPolicy':'Retain'},{'annotations':{'o/k':'over',"
                         "'o/same':'same'},'patchPolicy':'Overwrite'},{'annotations':{'m/k':"
                         "'{\\\"b\\\":2,\\\"a\\\":null}','m/new':'{ \\\"x\\\" : 1 }','m/scalar':"
                         "'{\\\"s\\\":{\\\"n\\\":null,\\\"k\\\":1}}'},'patchPolicy':"
                         "'MergePatchJson'},{'annotations':{'u/k':'v'},'patchPolicy':'Unknown'},"
                         "{'annotations':{'d/k':'dflt'}}]",
                         NULL);
    char *cl = cluster_of(a, NULL);
    struct inj r;
    run_simple(cl,
               "{'metadata':{'name':'p','namespace':'default','labels':{'app':'web'},"
               "'annotations':{'r/keep':'old','r/empty':'','o/k':'was','o/same':'same','m/k':"
               "'{\\\"z\\\": {\\\"q\\\":1, \\\"p\\\":2}, \\\"a\\\": 1}','m/scalar':'5'}},"
               "'spec':{'containers':[{'name':'app'}]}}",
               &r);
    CHECK(r.pod);
    const json_t *ann = wh_json_path(r.pod, "metadata", "annotations", NULL);
    CHECK_EQ_STR(wh_json_str(ann, "r/keep"), "old");
    CHECK_EQ_STR(wh_json_str(ann, "r/empty"), "");
    CHECK_EQ_STR(wh_json_str(ann, "r/add"), "added");
    CHECK_EQ_STR(wh_json_str(ann, "o/k"), "over");
    /* merged: top level sorted, untouched nested values keep their order */
    CHECK_EQ_STR(wh_json_str(ann, "m/k"), "{\"b\":2,\"z\":{\"q\":1,\"p\":2}}");
    CHECK_EQ_STR(wh_json_str(ann, "m/new"), "{ \"x\" : 1 }");
    CHECK_EQ_STR(wh_json_str(ann, "m/scalar"), "{\"s\":{\"k\":1}}");
    CHECK(!wh_json_str(ann, "u/k"));
    CHECK_EQ_STR(wh_json_str(ann, "d/k"), "dflt");
    inj_fini(&r);
    free(cl);
    free(a);
}

TEST(sidecarset_inject_patch_pod_metadata_only)
{
    /* nothing to inject: only the patched annotations change, no bookkeeping annotations */
    char *a = sidecarset("meta-only",
                         "'selector':{'matchLabels':{'app':'web'}},"
                         "'patchPodMetadata':[{'annotations':{'k':'v'},'patchPolicy':'Retain'}]",
                         NULL);
    char *cl = cluster_of(a, NULL);
    struct inj r;
    run_simple(cl, NULL, &r);
    CHECK(r.pod);
    const json_t *ann = wh_json_path(r.pod, "metadata", "annotations", NULL);
    CHECK_EQ_INT(json_object_size(ann), 1);
    CHECK_EQ_STR(wh_json_str(ann, "k"), "v");
    inj_fini(&r);
    /* and when the pod already has it: no change at all */
    run_simple(cl,
               "{'metadata':{'name':'p','namespace':'default','labels':{'app':'web'},"
               "'annotations':{'k':'x'}},'spec':{'containers':[{'name':'app'}]}}",
               &r);
    CHECK(r.allowed && r.pod == NULL);
    inj_fini(&r);
    free(cl);
    free(a);
}

TEST(sidecarset_inject_merge_patch_errors)
{
    char *a = simple_set("mp", "a", "BeforeAppContainer",
                         "'patchPodMetadata':[{'annotations':{'k':'{\\\"a\\\":1}'},'patchPolicy':"
                         "'MergePatchJson'}]",
                         NULL);
    char *cl = cluster_of(a, NULL);
    struct inj r;
    run_simple(cl,
               "{'metadata':{'name':'p','namespace':'default','labels':{'app':'web'},"
               "'annotations':{'k':'not json'}},'spec':{'containers':[{'name':'app'}]}}",
               &r);
    CHECK(!r.allowed);
    CHECK_EQ_INT(r.code, 500);
    CHECK_EQ_STR(r.msg, "Invalid JSON Document");
    inj_fini(&r);
    free(cl);
    free(a);
    a = simple_set("mp", "a", "BeforeAppContainer",
                   "'patchPodMetadata':[{'annotations':{'k':'{bad'},'patchPolicy':"
                   "'MergePatchJson'}]",
                   NULL);
    cl = cluster_of(a, NULL);
    run_simple(cl,
               "{'metadata':{'name':'p','namespace':'default','labels':{'app':'web'},"
               "'annotations':{'k':'{}'}},'spec':{'containers':[{'name':'app'}]}}",
               &r);
    CHECK_EQ_STR(r.msg, "Invalid JSON Patch");
    inj_fini(&r);
    free(cl);
    free(a);
}

TEST(sidecarset_inject_hot_upgrade)
{
    char *a =
        sidecarset(
            "hot",
            "'selector':{'matchLabels':{'app':'web'}},'initContainers':[" SC(
                "nat", "AfterAppContainer",
                ",'restartPolicy':'Always','upgradeStrategy':"
                "{'upgradeType':'HotUpgrade','hotUpgradeEmptyImage':'empty:1'}") "," SC("plain",
                                                                                        "AfterAppCo"
                                                                                        "ntainer",
                                                                                        ",'"
                                                                                        "upgradeStr"
                                                                                        "ategy':{'"
                                                                                        "upgradeTyp"
                                                                                        "e':"
                                                                                        "'HotUpgrad"
                                                                                        "e','"
                                                                                        "hotUpgrade"
                                                                                        "EmptyImage"
                                                                                        "':'empty:"
                                                                                        "1'}") "],'"
                                                                                               "con"
                                                                                               "tai"
                                                                                               "ner"
                                                                                               "s':"
                                                                                               "[" SC("envoy",
                                                                                                      "BeforeAppContainer",
                                                                                                      ",'env':[{'name':'E','value':'1'}],"
                                                                                                      "'upgradeStrategy':{'upgradeType':'HotUpgrade'}") "]",
            NULL);
    char *cl = cluster_of(a, NULL);
    struct inj r;
    run_simple(cl,
               "{'metadata':{'name':'p','namespace':'default','labels':{'app':'web'},"
               "'annotations':{'kruise.io/sidecarset-working-hotupgrade-container':"
               "'{\\\"zz\\\":\\\"zz-2\\\",\\\"n\\\":5}'}},'spec':{'containers':[{'name':'app'}]}}",
               &r);
    CHECK(r.pod);
    CHECK_EQ_INT(count(r.pod, "initContainers"), 3);
    CHECK_EQ_STR(name_at(r.pod, "initContainers", 0), "nat-1");
    CHECK_EQ_STR(name_at(r.pod, "initContainers", 1), "nat-2");
    CHECK_EQ_STR(name_at(r.pod, "initContainers", 2), "plain");
    CHECK_EQ_STR(wh_json_str(container_at(r.pod, "initContainers", 1), "image"), "empty:1");
    CHECK_EQ_STR(name_at(r.pod, "containers", 0), "envoy-1");
    CHECK_EQ_STR(name_at(r.pod, "containers", 1), "envoy-2");
    CHECK(!json_object_get(container_at(r.pod, "containers", 1), "image"));
    json_t *env = J("[{'name':'E','value':'1'},{'name':'IS_INJECTED','value':'true'},{'name':"
                    "'SIDECARSET_VERSION','valueFrom':{'fieldRef':{'fieldPath':'metadata."
                    "annotations[`version.sidecarset.kruise.io/envoy-2`]'}}},{'name':"
                    "'SIDECARSET_VERSION_ALT','valueFrom':{'fieldRef':{'fieldPath':'metadata."
                    "annotations[`versionalt.sidecarset.kruise.io/envoy-2`]'}}}]");
    CHECK_EQ_JSON(json_object_get(container_at(r.pod, "containers", 1), "env"), env);
    json_decref(env);
    const json_t *ann = wh_json_path(r.pod, "metadata", "annotations", NULL);
    CHECK_EQ_STR(wh_json_str(ann, "kruise.io/sidecarset-working-hotupgrade-container"),
                 "{\"envoy\":\"envoy-1\",\"n\":\"\",\"nat\":\"nat-1\",\"zz\":\"zz-2\"}");
    CHECK_EQ_STR(wh_json_str(ann, "version.sidecarset.kruise.io/envoy-1"), "1");
    CHECK_EQ_STR(wh_json_str(ann, "versionalt.sidecarset.kruise.io/envoy-1"), "0");
    CHECK_EQ_STR(wh_json_str(ann, "version.sidecarset.kruise.io/nat-2"), "0");
    CHECK_EQ_STR(wh_json_str(ann, "versionalt.sidecarset.kruise.io/nat-2"), "1");
    const char *h = wh_json_str(ann, "kruise.io/sidecarset-hash");
    CHECK(h && strstr(h, "\"sidecarList\":[\"envoy\",\"nat\"]"));
    inj_fini(&r);
    free(cl);
    free(a);
}

#define RP(mode, regex, exprs)                                                                     \
    ",'resourcesPolicy':{'targetContainersMode':'" mode "','targetContainersNameRegex':'" regex    \
    "','resourcesExpr':" exprs "}"

static void resources_case(const char *policy, const char *pod, const char *want_resources,
                           const char *want_msg)
{
    char *spec = wh_str_printf("'selector':{'matchLabels':{'app':'web'}},'containers':[{'name':"
                               "'side','image':'s:1','resources':{'limits':{'cpu':'9'}},"
                               "'podInjectPolicy':'BeforeAppContainer'%s},{'name':'other-side',"
                               "'image':'o:1'}]",
                               policy);
    char *ss = sidecarset("res", spec, NULL);
    char *cl = cluster_of(ss, NULL);
    struct inj r;
    run_simple(cl, pod, &r);
    if (want_resources) {
        CHECK(r.pod);
        json_t *want = J(want_resources);
        CHECK_EQ_JSON(json_object_get(container_at(r.pod, "containers", 0), "resources"), want);
        json_decref(want);
    } else {
        CHECK(!r.allowed);
        CHECK_EQ_INT(r.code, 500);
        CHECK_EQ_STR(r.msg, want_msg);
    }
    inj_fini(&r);
    free(cl);
    free(ss);
    free(spec);
}

#define RES_POD                                                                                    \
    "{'metadata':{'name':'p','namespace':'default','labels':{'app':'web'}},'spec':{"               \
    "'initContainers':[{'name':'native-1','restartPolicy':'Always','resources':{'limits':{"        \
    "'cpu':'1','memory':'1Gi'},'requests':{'cpu':'500m'}}},{'name':'plain-1','resources':{"        \
    "'limits':{'cpu':'100'}}}],'containers':[{'name':'app-1','resources':{'limits':{'cpu':"        \
    "'200m','memory':'512Mi'},'requests':{'cpu':'100m','memory':'256Mi'}}},{'name':"               \
    "'other-side','resources':{'limits':{'cpu':'50'}}},{'name':'app-2','resources':{"              \
    "'requests':{'memory':'1Gi'}}}]}}"

TEST(sidecarset_inject_resources_policy)
{
    /* sum over native-1, app-1, app-2 (other-side is a sidecar name): app-2 has no limits, so
     * limits are unlimited and left unset; requests sum what is there */
    resources_case(RP("sum", "-",
                      "{'limits':{'cpu':'cpu*2','memory':'memory'},'requests':{"
                      "'cpu':'cpu/2','memory':'memory*50%'}}"),
                   RES_POD, "{'requests':{'cpu':'300m','memory':'640Mi'}}", NULL);
    /* max keeps the largest; with every target limited, limits are computed */
    resources_case(RP("max", "^app-1$|native",
                      "{'limits':{'cpu':'max(cpu, 1.5)','memory':"
                      "'memory + 100Mi'},'requests':{'cpu':'0.25',"
                      "'memory':'memory - 0'}}"),
                   RES_POD,
                   "{'limits':{'cpu':'1500m','memory':'1124Mi'},'requests':{'cpu':'250m',"
                   "'memory':'256Mi'}}",
                   NULL);
    /* an unknown mode aggregates nothing: variables are zero and limits unset */
    resources_case(RP("avg", ".*",
                      "{'limits':{'cpu':'1'},'requests':{'cpu':'cpu+1','memory':"
                      "'2*1Gi'}}"),
                   RES_POD, "{'requests':{'cpu':'1','memory':'2Gi'}}", NULL);
    resources_case(RP("sum", "^nothing$", "{'requests':{'cpu':'1'}}"), RES_POD, NULL,
                   "no containers match the regex pattern \"^nothing$\"");
    resources_case(RP("sum", "app", "{'requests':{'cpu':'cpu-1'}}"), RES_POD, NULL,
                   "failed to evaluate CPU requests expression: failed to parse expression "
                   "\"cpu-1\": calculation result is negative: -900m");
    resources_case(RP("sum", "app", "{'requests':{'memory':'memory*memory'}}"), RES_POD, NULL,
                   "failed to evaluate memory requests expression: failed to parse expression "
                   "\"memory*memory\": multiplication of two quantities");
    resources_case(RP("sum", "app", "{'requests':{'cpu':'cpu +'}}"), RES_POD, NULL,
                   "failed to evaluate CPU requests expression: failed to parse expression "
                   "\"cpu +\": parse error: syntax error at line 1, col 6");
    resources_case(RP("sum", "(", "{'requests':{'cpu':'1'}}"), RES_POD, NULL,
                   "failed to get target containers: invalid regex pattern \"(\": error parsing "
                   "regexp: missing closing ): `(`");
    /* RE2 syntax: Perl classes and non-capturing groups */
    resources_case(RP("sum", "^(?:app)-\\\\d$", "{'requests':{'cpu':'cpu'}}"), RES_POD,
                   "{'requests':{'cpu':'100m'}}", NULL);
    /* issue 22: Go refuses it (1000 x 1000 copies), so the Pod is refused with Go's message at
     * once, as upstream refuses it; C's regcomp spent 2 s and 2.8 GB on it, for every Pod */
    resources_case(RP("sum", "([a-z]{1,1000}){1,1000}", "{'requests':{'cpu':'1'}}"), RES_POD, NULL,
                   "failed to get target containers: invalid regex pattern "
                   "\"([a-z]{1,1000}){1,1000}\": error parsing regexp: invalid repeat count: "
                   "`{1,1000}`");
    /* Go's Unicode classes, exact: app-1 and app-2 end in a digit (\pN), native-1 too */
    resources_case(RP("sum", "^\\\\pL+-\\\\pN$", "{'requests':{'cpu':'cpu'}}"), RES_POD,
                   "{'requests':{'cpu':'600m'}}", NULL);
}

/* The patterns are compiled with the SidecarSet (its cache view), and with the
 * ControllerRevision of a history revision: injecting into Pods compiles nothing. */
TEST(sidecarset_inject_regex_compiled_once_per_revision)
{
    char *ss = sidecarset(
        "res",
        "'selector':{'matchLabels':{'app':'web'}},'containers':[{'name':'side','image':'s:1',"
        "'resources':{},'podInjectPolicy':'BeforeAppContainer'" RP(
            "sum", "^app-", "{'requests':{'cpu':'cpu'}}") "}]",
        NULL);
    char *cl = cluster_of(ss, NULL);
    struct inj r;
    unsigned long c0 = wh_regex_compilations();
    run_times(cl, RES_POD, "CREATE", NULL, NULL, 1, &r);
    unsigned long c1 = wh_regex_compilations();
    CHECK(r.pod);
    inj_fini(&r);
    run_times(cl, RES_POD, "CREATE", NULL, NULL, 25, &r);
    unsigned long c2 = wh_regex_compilations();
    CHECK(r.pod);
    json_t *want = J("{'requests':{'cpu':'100m'}}");
    CHECK_EQ_JSON(json_object_get(container_at(r.pod, "containers", 0), "resources"), want);
    json_decref(want);
    inj_fini(&r);
    CHECK_EQ_INT(c1 - c0, 1);       /* the SidecarSet's view */
    CHECK_EQ_INT(c2 - c1, c1 - c0); /* 25 Pods cost what one does */
    free(cl);
    free(ss);

    /* a history revision whose sidecar has another pattern: its ControllerRevision's view */
    ss = simple_set("rv", "a", "BeforeAppContainer",
                    "'injectionStrategy':{'revision':{'revisionName':'rv-1','policy':'Always'}}",
                    NULL);
    cl = wh_str_printf(
        "[%s,{'apiVersion':'apps/v1','kind':'ControllerRevision','metadata':{'name':'rv-1',"
        "'namespace':'kruise-system','labels':{'kruise.io/sidecarset-name':'rv'}},'revision':1,"
        "'data':{'spec':{'containers':[{'name':'a','image':'old:1','resources':{},"
        "'podInjectPolicy':'BeforeAppContainer'" RP("sum", "^app-2$",
                                                    "{'requests':{'memory':'memory'}}") "}]}}}]",
        ss);
    c0 = wh_regex_compilations();
    run_times(cl, RES_POD, "CREATE", NULL, NULL, 1, &r);
    c1 = wh_regex_compilations();
    CHECK(r.pod);
    inj_fini(&r);
    run_times(cl, RES_POD, "CREATE", NULL, NULL, 25, &r);
    c2 = wh_regex_compilations();
    CHECK(r.pod);
    CHECK_EQ_STR(wh_json_str(container_at(r.pod, "containers", 0), "image"), "old:1");
    want = J("{'requests':{'memory':'1Gi'}}");
    CHECK_EQ_JSON(json_object_get(container_at(r.pod, "containers", 0), "resources"), want);
    json_decref(want);
    inj_fini(&r);
    CHECK_EQ_INT(c1 - c0, 1); /* the ControllerRevision's view */
    CHECK_EQ_INT(c2 - c1, c1 - c0);
    free(cl);
    free(ss);
}

static char *pod_with_annotations(const char *annotations)
{
    return wh_str_printf("{'metadata':{'name':'p','namespace':'default','labels':{'app':'web'},"
                         "'annotations':%s},'spec':{'containers':[{'name':'app'}]}}",
                         annotations);
}

TEST(sidecarset_inject_existing_bookkeeping_annotations)
{
    char *a = simple_set("a-set", "a", "BeforeAppContainer", NULL, NULL);
    char *cl = cluster_of(a, NULL);
    struct inj r;
    /* the current form: other entries kept (re-serialised as Go does), ours replaced */
    char *pod = pod_with_annotations(
        "{'kruise.io/sidecarset-hash':'{\\\"z-set\\\":{\\\"sidecarSetName\\\":\\\"z-set\\\","
        "\\\"hash\\\":\\\"zh\\\",\\\"updateTimestamp\\\":\\\"2023-06-01T08:00:00.5+08:00\\\","
        "\\\"extra\\\":1,\\\"sidecarList\\\":[\\\"z<1>\\\"],\\\"controllerRevision\\\":\\\"r\\\"},"
        "\\\"a-set\\\":{\\\"hash\\\":\\\"old\\\"}}',"
        "'kruise.io/sidecarset-hash-without-image':'{\\\"legacy\\\":\\\"lh\\\"}',"
        "'kruise.io/sidecarset-injected-list':'z-set,,b'}");
    run_simple(cl, pod, &r);
    CHECK(r.pod);
    CHECK_EQ_STR(wh_json_annotation(r.pod, "kruise.io/sidecarset-hash"),
                 "{\"a-set\":{\"updateTimestamp\":\"2024-01-01T00:00:00Z\",\"hash\":\"H-a-set\","
                 "\"sidecarSetName\":\"a-set\",\"sidecarList\":[\"a\"]},\"z-set\":{"
                 "\"updateTimestamp\":\"2023-06-01T00:00:00Z\",\"hash\":\"zh\",\"sidecarSetName\":"
                 "\"z-set\",\"sidecarList\":[\"z\\u003c1\\u003e\"],\"controllerRevision\":\"r\"}}");
    CHECK_EQ_STR(wh_json_annotation(r.pod, "kruise.io/sidecarset-hash-without-image"),
                 "{\"a-set\":{\"updateTimestamp\":\"2024-01-01T00:00:00Z\",\"hash\":\"W-a-set\","
                 "\"sidecarSetName\":\"a-set\",\"sidecarList\":[\"a\"]},\"legacy\":{"
                 "\"updateTimestamp\":null,\"hash\":\"lh\",\"sidecarSetName\":\"legacy\","
                 "\"sidecarList\":null}}");
    CHECK_EQ_STR(wh_json_annotation(r.pod, "kruise.io/sidecarset-injected-list"), ",a-set,b,z-set");
    inj_fini(&r);
    free(pod);
    /* neither form: 500 naming the annotation */
    pod = pod_with_annotations("{'kruise.io/sidecarset-hash':'{\\\"x\\\":[1]}'}");
    run_simple(cl, pod, &r);
    CHECK(!r.allowed);
    CHECK_EQ_STR(r.msg, "pod(default/p) invalid annotations[kruise.io/sidecarset-hash] value "
                        "{\"x\":[1]}, unmarshal failed: json: cannot unmarshal array into Go "
                        "value of type string");
    inj_fini(&r);
    free(pod);
    pod = pod_with_annotations("{'kruise.io/sidecarset-hash-without-image':'{nope'}");
    run_simple(cl, pod, &r);
    CHECK_EQ_STR(r.msg, "pod(default/p) invalid annotations[kruise.io/sidecarset-hash-without-"
                        "image] value {nope, unmarshal failed: invalid character 'n' looking for "
                        "beginning of object key string");
    inj_fini(&r);
    free(pod);
    free(cl);
    free(a);
}

TEST(sidecarset_inject_update_never_mutates)
{
    char *a = simple_set("a-set", "a", "BeforeAppContainer", NULL, NULL);
    char *cl = cluster_of(a, NULL);
    struct inj r;
    run(cl, WEB_POD, "UPDATE", NULL, NULL, &r);
    CHECK(r.allowed && r.pod == NULL);
    inj_fini(&r);
    /* without a decodable oldObject the request fails */
    run(cl, WEB_POD, "UPDATE", NULL, "{'oldObject':null}", &r);
    CHECK(!r.allowed);
    CHECK_EQ_STR(r.msg, "there is no content to decode");
    inj_fini(&r);
    free(cl);
    free(a);
    /* lookup errors still fail an UPDATE */
    char *bad = sidecarset("bad",
                           "'selector':{'matchExpressions':[{'key':'app','operator':"
                           "'Bogus'}]},'containers':[" LOG_AGENT "]",
                           NULL);
    cl = cluster_of(bad, NULL);
    run(cl, WEB_POD, "UPDATE", NULL, NULL, &r);
    CHECK(!r.allowed);
    inj_fini(&r);
    free(cl);
    free(bad);
}

TEST(sidecarset_inject_skipped_requests)
{
    char *a = simple_set("a-set", "a", "BeforeAppContainer", NULL, NULL);
    char *cl = cluster_of(a, NULL);
    struct inj r;
    run(cl, WEB_POD, "CREATE", NULL, "{'subResource':'status'}", &r);
    CHECK(r.allowed && r.pod == NULL);
    inj_fini(&r);
    run(cl, WEB_POD, "DELETE", NULL, "{'options':{'kind':'DeleteOptions'}}", &r);
    CHECK(r.allowed && r.pod == NULL);
    inj_fini(&r);
    run(cl,
        "{'metadata':{'name':'p','namespace':'default','labels':{'app':'web'}},'spec':{"
        "'containers':[{'name':'app'}]},'status':{'phase':'Succeeded'}}",
        "CREATE", NULL, NULL, &r);
    CHECK(r.allowed && r.pod == NULL);
    inj_fini(&r);
    run(cl,
        "{'metadata':{'name':'p','namespace':'default','labels':{'app':'web'}},'spec':{"
        "'containers':[{'name':'app'}]},'status':{'phase':'Failed'}}",
        "CREATE", NULL, NULL, &r);
    CHECK(r.allowed && r.pod == NULL);
    inj_fini(&r);
    /* dry-run is injected like a real create */
    run(cl, WEB_POD, "CREATE", NULL, "{'dryRun':true}", &r);
    CHECK(r.pod != NULL);
    inj_fini(&r);
    free(cl);
    free(a);
}

TEST(sidecarset_inject_options_and_undecodable_pods)
{
    char *a = simple_set("a-set", "a", "BeforeAppContainer", NULL, NULL);
    char *cl = cluster_of(a, NULL);
    struct inj r;
    /* WorkloadSpread (on by default) decodes options first */
    run(cl, WEB_POD, "CREATE", NULL, "{'options':null}", &r);
    CHECK(!r.allowed);
    CHECK_EQ_INT(r.code, 500);
    CHECK_EQ_STR(r.msg, "there is no content to decode");
    inj_fini(&r);
    run(cl, WEB_POD, "CREATE", "WorkloadSpread=false", "{'options':null}", &r);
    CHECK(r.pod != NULL);
    inj_fini(&r);
    /* an object that is not a Pod: 400 */
    run(cl, WEB_POD, "CREATE", NULL, "{'object':{'metadata':'x'}}", &r);
    CHECK(!r.allowed);
    CHECK_EQ_INT(r.code, 400);
    inj_fini(&r);
    /* type-confused Pods are refused with the decoder's message, as upstream refuses them */
    static const char *const confused[][2] = {
        {"{'object':{'metadata':{'labels':{'app':'web'}},'spec':{'containers':{'name':'app'}}}}",
         "json: cannot unmarshal object into Go struct field PodSpec.spec.containers of type "
         "[]v1.Container"},
        {"{'object':{'metadata':{'labels':{'app':'web'}},'spec':{'containers':['app']}}}",
         "json: cannot unmarshal string into Go struct field PodSpec.spec.containers of type "
         "v1.Container"},
        {"{'object':{'metadata':{'labels':{'app':'web'}},'spec':{'containers':[{'name':'app',"
         "'resources':{'limits':{'cpu':'lots'}}}]}}}",
         "quantities must match the regular expression "
         "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"},
        {"{'object':{'metadata':{'labels':{'app':'web'},'creationTimestamp':'now'},'spec':{}}}",
         "parsing time \"now\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"now\" as "
         "\"2006\""},
    };
    for (size_t i = 0; i < sizeof(confused) / sizeof(confused[0]); i++) {
        run(cl, WEB_POD, "CREATE", NULL, confused[i][0], &r);
        CHECK(!r.allowed);
        CHECK_EQ_INT(r.code, 400);
        CHECK_EQ_STR(r.msg, confused[i][1]);
        CHECK(r.pod == NULL);
        inj_fini(&r);
    }
    /* null is a nil list to Go's decoder, not an error */
    run(cl, WEB_POD, "CREATE", NULL,
        "{'object':{'metadata':{'labels':{'app':'web'}},"
        "'spec':{'containers':null}}}",
        &r);
    CHECK(r.allowed);
    inj_fini(&r);
    free(cl);
    free(a);
}

TEST(sidecarset_inject_namespace_from_request)
{
    char *a = simple_set("shop-only", "a", "BeforeAppContainer",
                         "'namespaceSelector':{'matchLabels':{'kubernetes.io/metadata.name':"
                         "'shop'}}",
                         NULL);
    char *cl = wh_str_printf("[%s,{'apiVersion':'v1','kind':'Namespace','metadata':{'name':"
                             "'shop','labels':{'kubernetes.io/metadata.name':'shop'}}}]",
                             a);
    struct inj r;
    run(cl,
        "{'metadata':{'name':'p','labels':{'app':'web'}},'spec':{'containers':[{'name':'app'}]}}",
        "CREATE", NULL, "{'namespace':'shop'}", &r);
    CHECK(r.pod);
    /* the namespace is used, not written */
    CHECK(!wh_json_meta_str(r.pod, "namespace"));
    inj_fini(&r);
    free(cl);
    free(a);
}

TEST(sidecarset_inject_v1alpha1_namespace)
{
    const char *cl = "[{'apiVersion':'apps.kruise.io/v1alpha1','kind':'SidecarSet','metadata':{"
                     "'name':'alpha'},'spec':{'namespace':'shop','selector':{'matchLabels':{"
                     "'app':'web'}},'containers':[{'name':'a','image':'a:1'}]}},{'apiVersion':"
                     "'v1','kind':'Namespace','metadata':{'name':'shop','labels':{"
                     "'kubernetes.io/metadata.name':'shop'}}}]";
    struct inj r;
    run(cl, WEB_POD, "CREATE", NULL, NULL, &r);
    CHECK(r.allowed && r.pod == NULL);
    inj_fini(&r);
    run(cl,
        "{'metadata':{'name':'p','namespace':'shop','labels':{'app':'web'}},'spec':{"
        "'containers':[{'name':'app'}]}}",
        "CREATE", NULL, NULL, &r);
    CHECK(r.pod);
    /* resources is always written; an empty podInjectPolicy places after the app */
    json_t *want = J("{'name':'a','image':'a:1','resources':{},'env':[{'name':'IS_INJECTED',"
                     "'value':'true'}]}");
    CHECK_EQ_JSON(container_at(r.pod, "containers", 1), want);
    json_decref(want);
    /* no hash annotations on the SidecarSet: empty hashes */
    const char *h = wh_json_annotation(r.pod, "kruise.io/sidecarset-hash");
    CHECK(h && strstr(h, "\"hash\":\"\""));
    inj_fini(&r);
}

#include "handlers/sidecarset/resources.h"

static void check_expr(const char *expr, const char *agg, const char *want)
{
    char out[128] = "";
    struct wh_errbuf eb = {{0}};
    enum wh_err rc = wh_sidecarset_resource_expr(expr, agg, out, sizeof(out), &eb);
    if (want[0] == '!') {
        CHECK(rc != WH_OK);
        CHECK_EQ_STR(eb.msg, want + 1);
    } else {
        if (rc)
            fprintf(stderr, "%s: %s\n", expr, eb.msg);
        CHECK(rc == WH_OK);
        CHECK_EQ_STR(out, want);
    }
}

TEST(sidecarset_resources_calculator)
{
    check_expr("cpu*50%", "600m", "300m");
    check_expr("cpu", "2", "2");
    check_expr("cpu", NULL, "0");
    check_expr("0.5", "2", "500m");
    check_expr("1e3", NULL, "1k");
    check_expr("memory", "1Gi", "1Gi");
    check_expr("memory / 3", "1Gi", "357913941333m");
    check_expr("memory * 0.5", "1Gi", "512Mi");
    check_expr("1.5", "1Gi", "1500m");                   /* cpu: a number is milli-cores */
    check_expr("memory - memory + 1.5", "1Gi", "1500m"); /* a number added keeps milli */
    check_expr("2 + 3 * 4 - -1", NULL, "15");
    check_expr("(2 + 3) * 4", NULL, "20");
    check_expr("min(cpu, 100m) + max(50m, 1)", "200m", "1100m");
    check_expr("MAX(cpu, 1)", "200m", "1");
    check_expr("cpu + 1Gi", "1", "1073741825");
    check_expr("memory + 1", "100Mi", "104857601");
    /* a cpu expression mentioning memory binds memory, so cpu is undefined */
    check_expr("cpu + memory", "1",
               "!failed to parse expression \"cpu + memory\": undefined "
               "variable: cpu");
    check_expr("cpu / 0", "1", "!failed to parse expression \"cpu / 0\": division by zero");
    check_expr("2 / cpu", "1", "!failed to parse expression \"2 / cpu\": division by quantity");
    check_expr("max(1)", NULL,
               "!failed to parse expression \"max(1)\": max function requires "
               "exactly 2 arguments, got 1");
    check_expr("avg(1, 2)", NULL,
               "!failed to parse expression \"avg(1, 2)\": unknown function: "
               "avg");
    check_expr("1 - 2", NULL,
               "!failed to parse expression \"1 - 2\": calculation result is "
               "negative: -1");
    check_expr("0 - 1500000", NULL,
               "!failed to parse expression \"0 - 1500000\": calculation "
               "result is negative: -1.5e+06");
    check_expr("(1", NULL,
               "!failed to parse expression \"(1\": parse error: syntax error at "
               "line 1, col 3");
    check_expr("1 $ 2", NULL,
               "!failed to parse expression \"1 $ 2\": parse error: syntax error "
               "at line 1, col 4");
    check_expr("-215e21531", NULL,
               "!failed to parse expression \"-215e21531\": calculation "
               "result is negative: -Inf");
    check_expr("5Q", NULL, "0"); /* an unknown unit: a number token that parses as 0 */
}
