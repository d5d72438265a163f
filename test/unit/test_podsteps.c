/* The last three steps of /mutate-pod and what they share with the objects' webhooks: the
 * PersistentPodState step against a standalone cache (a PersistentPodState being deleted, one
 * cached at v1alpha1, the white list and its decoding), the notes each step gives `inject
 * --explain`, the order of the steps, and the Go and Kubernetes pieces they are built on (Go's
 * url.Parse, runtime.DecodeInto's order of errors, IsValidPortNum, IsHTTPHeaderName). The rest
 * of their behaviour is pinned by test/handler-vectors/. */
#include "test/unit/test.h"

#include <stdint.h>
#include <stdlib.h>

#include "config/config.h"
#include "config/features.h"
#include "gocompat/decodeinto.h"
#include "gocompat/gourl.h"
#include "handlers/persistentpodstate/persistentpodstate.h"
#include "handlers/persistentpodstate/pps_int.h"
#include "handlers/pod/enhanced_liveness.h"
#include "handlers/pod/pipeline.h"
#include "handlers/podprobemarker/podprobemarker.h"
#include "k8s/validation.h"
#include "kube/cluster.h"
#include "util/json.h"
#include "util/str.h"
#include "test/support/pod_step_run.h"

#define jq(text) wh_test_jq(text)

#define STS_OWNER                                                                                  \
    "[{'apiVersion':'apps.kruise.io/v1beta1','kind':'StatefulSet','name':'web','uid':'u1',"        \
    "'controller':true}]"
#define POD(name, owners, ann)                                                                     \
    "{'apiVersion':'v1','kind':'Pod','metadata':{'name':'" name "','namespace':'ns',"              \
    "'ownerReferences':" owners ",'annotations':" ann "},'spec':{'containers':[{'name':'main',"    \
    "'image':'nginx','livenessProbe':{'exec':{'command':['true']}}}],'readinessGates':[{"          \
    "'conditionType':'KruisePodReady'}]}}"
/* The ConfigMap with white list text, as JSON without single quotes (jq would turn them into
 * double quotes). Returns: new string. */
static char *whitelist_cm(const char *text)
{
    json_t *cm = json_pack("[{s:s,s:s,s:{s:s,s:s},s:{s:s}}]", "apiVersion", "v1", "kind",
                           "ConfigMap", "metadata", "name", "kruise-configuration", "namespace",
                           "kruise-system", "data", "PPS_Watch_Custom_Workload_WhiteList", text);
    char *out = json_dumps(cm, JSON_COMPACT);
    json_decref(cm);
    return out;
}

static void fx_init(struct wh_step_fx *f, const char *gates, const char *objects,
                    const struct wh_pod_step *step)
{
    json_t *objs = jq(objects);
    wh_step_fx_init(f, gates, objs, step->setup);
    json_decref(objs);
}

/* A Pod CREATE through /mutate-pod with step alone. Returns: the Pod as the step left it
 * (borrowed from r). */
static const json_t *create(struct wh_step_fx *f, struct wh_step_run *r,
                            const struct wh_pod_step *step, const char *pod)
{
    json_t *req =
        json_pack("{s:s,s:{s:s,s:s,s:s},s:{s:s,s:s,s:s},s:s,s:s,s:s,s:s,s:o,s:n,s:{s:s,"
                  "s:s}}",
                  "uid", "uid-1", "kind", "group", "", "version", "v1", "kind", "Pod", "resource",
                  "group", "", "version", "v1", "resource", "pods", "subResource", "", "operation",
                  "CREATE", "namespace", "ns", "name", "", "object", jq(pod), "oldObject",
                  "options", "apiVersion", "meta.k8s.io/v1", "kind", "CreateOptions");
    wh_step_run_start(r, json_pack("{s:s,s:s,s:o}", "apiVersion", "admission.k8s.io/v1", "kind",
                                   "AdmissionReview", "request", req));
    const struct wh_pod_step *steps[] = {step};
    struct wh_pod_run_opts opts = {.explain = wh_step_run_note, .explain_arg = r};
    r->rc = wh_pod_run_mutate(steps, 1, &f->ctx, &r->r, &r->resp, &opts, &r->eb);
    return r->resp.mutated ? r->resp.mutated : r->r.object;
}

/* --- PersistentPodState ---------------------------------------------------------------------- */

#define PPS(name, version, keys, extra_meta)                                                       \
    "{'apiVersion':'apps.kruise.io/" version                                                       \
    "','kind':'PersistentPodState','metadata':{'name':'" name "','namespace':'ns'" extra_meta      \
    "},'spec':{'targetRef':{'apiVersion':"                                                         \
    "'apps.kruise.io/"                                                                             \
    "v1beta1','kind':'StatefulSet','name':'web'},'requiredPersistentTopology':{'" keys             \
    "':['zone']}},'status':{'podStates':{'web-0':{'nodeTopologyLabels':{'zone':'z-" name "'}}}}}"

/* A PersistentPodState being deleted is passed over for the next one in name order: the cache
 * is the only place such an object exists (the API server creates none). */
TEST(pps_skips_a_state_being_deleted)
{
    struct wh_step_fx f;
    fx_init(
        &f, "",
        "[" PPS("a", "v1beta1", "keys",
                ",'deletionTimestamp':'2024-01-01T00:00:00Z','finalizers':['f']") "," PPS("b",
                                                                                          "v1beta1",
                                                                                          "keys",
                                                                                          "") "]",
        &wh_pps_pod_step);
    struct wh_step_run r;
    const json_t *pod = create(&f, &r, &wh_pps_pod_step, POD("web-0", STS_OWNER, "{}"));
    CHECK_EQ_INT(r.rc, WH_OK);
    CHECK_EQ_STR(wh_json_path_str(pod, "spec", "nodeSelector", "zone", NULL), "z-b");
    CHECK_EQ_STR(wh_json_annotation(pod, "kruise.io/injected-persistent-pod-state"), "b");
    CHECK(strstr(r.notes, "[persistentpodstate b 1 the Pod's recorded topology: nodeSelector "
                          "zone=z-b]") != NULL);
    wh_step_run_fini(&r);
    wh_step_fx_fini(&f);
}

/* A cluster whose CRD serves v1alpha1 only caches v1alpha1 objects: they are read as their
 * v1beta1 conversion (nodeTopologyKeys are keys). */
TEST(pps_reads_a_v1alpha1_state_as_v1beta1)
{
    struct wh_step_fx f;
    fx_init(&f, "", "[" PPS("old", "v1alpha1", "nodeTopologyKeys", "") "]", &wh_pps_pod_step);
    struct wh_step_run r;
    const json_t *pod = create(&f, &r, &wh_pps_pod_step, POD("web-0", STS_OWNER, "{}"));
    CHECK_EQ_STR(wh_json_path_str(pod, "spec", "nodeSelector", "zone", NULL), "z-old");
    wh_step_run_fini(&r);
    wh_step_fx_fini(&f);
}

/* Notes only where a PersistentPodState could apply: none for a Pod without an owner, one
 * when the namespace has PersistentPodStates but none targets the owner. */
TEST(pps_explains_only_where_a_state_could_apply)
{
    struct wh_step_fx f;
    fx_init(&f, "", "[" PPS("a", "v1beta1", "keys", "") "]", &wh_pps_pod_step);
    struct wh_step_run r;
    create(&f, &r, &wh_pps_pod_step, POD("web-0", "[]", "{}"));
    CHECK_EQ_STR(r.notes, "");
    wh_step_run_fini(&r);
    create(&f, &r, &wh_pps_pod_step,
           POD("web-0",
               "[{'apiVersion':'apps/v1','kind':'StatefulSet','name':'web','uid':'u','controller':"
               "true}]",
               "{}"));
    CHECK_EQ_STR(r.notes, "[persistentpodstate - 0 no PersistentPodState of namespace ns "
                          "targets StatefulSet web]");
    wh_step_run_fini(&r);
    create(&f, &r, &wh_pps_pod_step, POD("web-9", STS_OWNER, "{}"));
    CHECK_EQ_STR(r.notes, "[persistentpodstate a 0 no record of a Pod named \"web-9\" with node "
                          "topology labels (its first creation)]");
    wh_step_run_fini(&r);
    wh_step_fx_fini(&f);
}

/* configuration.GetPPSWatchCustomWorkloadWhiteList as json.Unmarshal decodes it: field names
 * ignoring case, the last of a repeated key, Go's errors (the first one kept). */
TEST(pps_whitelist_decodes_as_go)
{
    static const struct {
        const char *text, *err;
        const char *allowed; /* "apiVersion kind" the list allows, or NULL */
    } cases[] = {
        {"{\"workloads\":[{\"GROUP\":\"g.io\",\"kind\":\"K\"}]}", NULL, "g.io/v9 K"},
        {"{\"workloads\":[{\"Group\":\"a\",\"Kind\":\"A\"}],\"Workloads\":[{\"Group\":\"b\","
         "\"Kind\":\"B\"}]}",
         NULL, "b/v1 B"},
        {"null", NULL, "apps/v1 StatefulSet"},
        {"{\"workloads\":{}}",
         "json: cannot unmarshal object into Go struct field CustomWorkloadWhiteList.workloads of "
         "type []schema.GroupVersionKind",
         NULL},
        {"{\"workloads\":[\"x\",{\"Kind\":1}]}",
         "json: cannot unmarshal string into Go struct field CustomWorkloadWhiteList.workloads of "
         "type schema.GroupVersionKind",
         NULL},
        {"{\"workloads\":[{\"Kind\":true}]}",
         "json: cannot unmarshal bool into Go struct field GroupVersionKind.workloads.Kind of type "
         "string",
         NULL},
        {"[]",
         "json: cannot unmarshal array into Go value of type configuration.CustomWorkloadWhiteList",
         NULL},
        {"{\"workloads\":", "unexpected end of JSON input", NULL},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *objs = whitelist_cm(cases[i].text);
        struct wh_step_fx f;
        fx_init(&f, "", objs, &wh_pps_pod_step);
        free(objs);
        struct wh_pps_whitelist wl;
        struct wh_errbuf eb = {{0}};
        enum wh_err rc = wh_pps_whitelist_load(f.cl, "kruise-system", &wl, &eb);
        if (cases[i].err) {
            CHECK_EQ_INT(rc, WH_ERR_INVALID);
            CHECK_EQ_STR(eb.msg, cases[i].err);
        } else {
            CHECK_EQ_INT(rc, WH_OK);
            char av[64], kind[64];
            CHECK_EQ_INT(sscanf(cases[i].allowed, "%63s %63s", av, kind), 2);
            CHECK(wh_pps_whitelist_allows(&wl, av, kind));
            CHECK(!wh_pps_whitelist_allows(&wl, "other.io/v1", kind));
        }
        wh_pps_whitelist_fini(&wl);
        wh_step_fx_fini(&f);
    }
}

/* A white list Go cannot decode fails the creation of every Pod, with or without an owner,
 * as upstream's handler reads it first (500 with Go's message). */
TEST(pps_broken_whitelist_fails_every_pod)
{
    struct wh_step_fx f;
    char *objs = whitelist_cm("{\"workloads\":1}");
    fx_init(&f, "", objs, &wh_pps_pod_step);
    free(objs);
    struct wh_step_run r;
    create(&f, &r, &wh_pps_pod_step, POD("web-0", "[]", "{}"));
    CHECK_EQ_INT(r.rc, WH_ERR_INVALID);
    CHECK(strstr(r.eb.msg, "cannot unmarshal number into Go struct field "
                           "CustomWorkloadWhiteList.workloads") != NULL);
    wh_step_run_fini(&r);
    wh_step_fx_fini(&f);
}

TEST(pps_references_equal_by_group)
{
    CHECK(wh_pps_refs_equal("apps.kruise.io/v1alpha1", "StatefulSet", "a", "apps.kruise.io/v1beta1",
                            "StatefulSet", "a"));
    CHECK(!wh_pps_refs_equal("apps/v1", "StatefulSet", "a", "apps.kruise.io/v1beta1", "StatefulSet",
                             "a"));
    CHECK(!wh_pps_refs_equal("a/b/c", "StatefulSet", "a", "a/b/c", "StatefulSet", "a"));
    CHECK(!wh_pps_refs_equal("apps/v1", "StatefulSet", "a", "apps/v1", "StatefulSet", "b"));
    /* "v1" and "" are both the core group */
    CHECK(wh_pps_refs_equal("v1", "X", "a", "", "X", "a"));
}

/* --- the enhanced liveness probe and PodProbeMarker: notes -------------------------------- */

TEST(enhanced_liveness_explains_pods_that_ask)
{
    struct wh_step_fx f;
    fx_init(&f, "EnhancedLivenessProbe=true", "[]", &wh_pod_enhanced_liveness_step);
    struct wh_step_run r;
    create(&f, &r, &wh_pod_enhanced_liveness_step, POD("p", STS_OWNER, "{}"));
    CHECK_EQ_STR(r.notes, "");
    wh_step_run_fini(&r);
    create(&f, &r, &wh_pod_enhanced_liveness_step,
           POD("p", "[]", "{'apps.kruise.io/using-enhanced-liveness':'true'}"));
    CHECK_EQ_STR(r.notes, "[enhancedlivenessprobe - 0 the Pod's controller owner is not an "
                          "OpenKruise workload]");
    wh_step_run_fini(&r);
    const json_t *pod =
        create(&f, &r, &wh_pod_enhanced_liveness_step,
               POD("p", STS_OWNER, "{'apps.kruise.io/using-enhanced-liveness':'true'}"));
    CHECK_EQ_STR(r.notes, "[enhancedlivenessprobe - 1 the livenessProbes of 1 container(s) moved "
                          "to annotation apps.kruise.io/container-probe-context, for "
                          "kruise-daemon]");
    CHECK_EQ_STR(wh_json_annotation(pod, "apps.kruise.io/container-probe-context"),
                 "[{\"name\":\"main\",\"livenessProbe\":{\"exec\":{\"command\":[\"true\"]}}}]");
    wh_step_run_fini(&r);
    wh_step_fx_fini(&f);
}

TEST(podprobemarker_explains_each_marker)
{
    struct wh_step_fx f;
    fx_init(&f, "EnablePodProbeMarkerOnServerless=true",
            "[{'apiVersion':'apps.kruise.io/v1alpha1','kind':'PodProbeMarker','metadata':{'name':"
            "'m','namespace':'ns'},'spec':{'selector':{'matchLabels':{'app':'x'}},'probes':[]}},"
            "{'apiVersion':'apps.kruise.io/v1alpha1','kind':'PodProbeMarker','metadata':{'name':"
            "'n','namespace':'ns'},'spec':{'selector':{},'probes':[]}}]",
            &wh_ppm_pod_step);
    struct wh_step_run r;
    create(&f, &r, &wh_ppm_pod_step, POD("p", "[]", "{}"));
    CHECK_EQ_STR(r.notes, "[podprobemarker m 0 spec.selector does not match the Pod's labels]"
                          "[podprobemarker n 0 spec.selector is empty, absent or invalid, which "
                          "selects no Pod]");
    wh_step_run_fini(&r);
    create(&f, &r, &wh_ppm_pod_step, POD("p", "[]", "{'kruise.io/podprobemarker-list':'gone,m'}"));
    CHECK_EQ_STR(r.notes,
                 "[podprobemarker gone 0 named by the Pod's kruise.io/podprobemarker-list, "
                 "but there is no such PodProbeMarker][podprobemarker m 0 no probe with "
                 "a podConditionType for a container of the Pod that another probe has "
                 "not taken]");
    wh_step_run_fini(&r);
    wh_step_fx_fini(&f);
}

/* --- the order ------------------------------------------------------------------------------ */

TEST(pod_mutate_steps_in_upstreams_order)
{
    static const char *const want[] = {"readiness-gate",
                                       "workloadspread",
                                       "sidecarset",
                                       "container-launch-priority",
                                       "pub",
                                       "persistentpodstate",
                                       "enhancedlivenessprobe",
                                       "podprobemarker"};
    size_t n = 0;
    const struct wh_pod_step *const *m = wh_pod_steps(false, &n);
    CHECK_EQ_INT(n, sizeof(want) / sizeof(want[0]));
    for (size_t i = 0; i < n && i < sizeof(want) / sizeof(want[0]); i++)
        CHECK_EQ_STR(m[i]->name, want[i]);
    CHECK(wh_pps_pod_step.enabled == NULL); /* upstream runs it with no gate */
    CHECK(wh_pod_enhanced_liveness_step.enabled && wh_ppm_pod_step.enabled);
}

/* --- Go's url.Parse, runtime.DecodeInto, validation helpers --------------------------------- */

/* Each case was asked of go1.26's net/url. */
TEST(gourl_parse_as_go)
{
    static const struct {
        const char *s, *err;
    } cases[] = {
        {"", NULL},
        {"/healthz", NULL},
        {"/foo%2fbar?x=%zz", NULL},
        {"mailto:x%zz", NULL},
        {"*", NULL},
        {"//[fe80::1%25en0]:80/x", NULL},
        {"//[::ffff:1.2.3.4]/", NULL},
        {"http://u:p@h:8080/", NULL},
        {"path%notvalid", "parse \"path%notvalid\": invalid URL escape \"%no\""},
        {"/a%4", "parse \"/a%4\": invalid URL escape \"%4\""},
        {"1a:b", "parse \"1a:b\": first path segment in URL cannot contain colon"},
        {":foo", "parse \":foo\": missing protocol scheme"},
        {"/a\x01", "parse \"/a\\x01\": net/url: invalid control character in URL"},
        {"//[::1/x", "parse \"//[::1/x\": missing ']' in host"},
        {"//[1.2.3.4]/", "parse \"//[1.2.3.4]/\": invalid IP-literal"},
        {"//a[::1]/", "parse \"//a[::1]/\": invalid IP-literal"},
        {"//h:8a", "parse \"//h:8a\": invalid port \":8a\" after host"},
        {"http://a:b:c/", "parse \"http://a:b:c/\": invalid port \":b:c\" after host"},
        {"//a b/", "parse \"//a b/\": invalid character \" \" in host name"},
        {"//%41/", "parse \"//%41/\": invalid URL escape \"%41\""},
        {"//u%zz@h/", "parse \"//u%zz@h/\": invalid URL escape \"%zz\""},
        {"//u^@h/", "parse \"//u^@h/\": net/url: invalid userinfo"},
        {"/a#%zz", "parse \"/a#%zz\": invalid URL escape \"%zz\""},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct wh_errbuf eb = {{0}};
        enum wh_err rc = wh_gourl_parse(cases[i].s, &eb);
        if (!cases[i].err) {
            CHECK_EQ_INT(rc, WH_OK);
        } else {
            CHECK_EQ_INT(rc, WH_ERR_INVALID);
            CHECK_EQ_STR(eb.msg, cases[i].err);
        }
    }
    /* an IP literal netip refuses: only that it fails is Go's (its wording names a position) */
    static const char *const bad_literals[] = {"//[12345::]/", "//[1::2::3]/", "//[::1%25]/",
                                               "//[1:2:3:4:5:6:7:8:9]/", "//[::01.2.3.4]/"};
    for (size_t i = 0; i < sizeof(bad_literals) / sizeof(bad_literals[0]); i++) {
        struct wh_errbuf eb = {{0}};
        CHECK_EQ_INT(wh_gourl_parse(bad_literals[i], &eb), WH_ERR_INVALID);
        CHECK(strstr(eb.msg, "invalid host") != NULL);
    }
}

/* runtime.DecodeInto: a registered type the object names other than the target is decoded
 * first, so its field errors come before the mismatch. */
TEST(decode_into_errors_in_go_order)
{
    static const struct {
        const char *raw, *err;
    } cases[] = {
        {NULL, "there is no content to decode"},
        {"{'apiVersion':'apps.kruise.io/v1alpha1','kind':'PersistentPodState','spec':{"
         "'requiredPersistentTopology':'z'}}",
         "json: cannot unmarshal string into Go struct field "
         "PersistentPodStateSpec.spec.requiredPersistentTopology of type "
         "v1alpha1.NodeTopologyTerm"},
        {"{'apiVersion':'apps.kruise.io/v1alpha1','kind':'PersistentPodState'}",
         "unable to decode apps.kruise.io/v1alpha1, Kind=PersistentPodState into "
         "*v1beta1.PersistentPodState"},
        {"{'apiVersion':'apps.kruise.io/v1beta1','kind':'PersistentPodState','spec':{"
         "'requiredPersistentTopology':'z'}}",
         "json: cannot unmarshal string into Go struct field "
         "PersistentPodStateSpec.spec.requiredPersistentTopology of type v1beta1.NodeTopologyTerm"},
        {"{'apiVersion':'x/y/z'}", "unexpected GroupVersion string: x/y/z"},
        {"{'spec':{}}", NULL},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        json_t *raw = cases[i].raw ? jq(cases[i].raw) : NULL, *out = NULL;
        struct wh_errbuf eb = {{0}};
        enum wh_err rc =
            wh_decode_into(raw, "apps.kruise.io/v1beta1", "PersistentPodState", &out, &eb);
        if (cases[i].err) {
            CHECK_EQ_INT(rc, WH_ERR_INVALID);
            CHECK_EQ_STR(eb.msg, cases[i].err);
            CHECK(out == NULL);
        } else {
            CHECK_EQ_INT(rc, WH_OK);
            CHECK(json_is_object(wh_json_obj(out, "status"))); /* Go's zero status */
        }
        json_decref(out);
        json_decref(raw);
    }
}

TEST(validation_port_num_and_header_name)
{
    struct wh_vmsgs m = {0};
    wh_is_valid_port_num(1, &m);
    wh_is_valid_port_num(65535, &m);
    CHECK_EQ_INT(m.n, 0);
    wh_is_valid_port_num(0, &m);
    wh_is_valid_port_num(65536, &m);
    CHECK_EQ_INT(m.n, 2);
    CHECK_EQ_STR(m.m[0], "must be between 1 and 65535, inclusive");
    struct wh_vmsgs h = {0};
    wh_is_http_header_name("X-Probe-1", &h);
    CHECK_EQ_INT(h.n, 0);
    wh_is_http_header_name("", &h);
    wh_is_http_header_name("Bad:Header", &h);
    CHECK_EQ_INT(h.n, 2);
    CHECK(strstr(h.m[1], "regex used for validation is '[-A-Za-z0-9]+'") != NULL);
}
