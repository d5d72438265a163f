/* The workload webhooks (CloneSet, Advanced StatefulSet, Advanced DaemonSet, UnitedDeployment)
 * and the Go behaviours they stand on: strconv's parsing, reflect.DeepEqual and
 * equality.Semantic of decoded values, appscode jsonpatch's CreatePatch order. Upstream's own test tables
 * are vectors in test/handler-vectors/workloads/, run by make vectors. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gocompat/goequal.h"
#include "gocompat/gojsonpatch.h"
#include "gocompat/gotype.h"
#include "gocompat/strconv.h"
#include "test/support/admission_run.h"
#include "test/unit/test.h"
#include "util/json.h"

/* --- gocompat/strconv --------------------------------------------------------------------- */

TEST(go_strconv_parse_int)
{
    int64_t v;
    struct wh_errbuf eb = {{0}};
    CHECK(!wh_go_parse_int("-12", 32, &v, &eb));
    CHECK_EQ_INT(v, -12);
    CHECK(!wh_go_parse_int("+7", 32, &v, &eb));
    CHECK_EQ_INT(v, 7);
    CHECK(wh_go_parse_int("2147483648", 32, &v, &eb));
    CHECK_EQ_STR(eb.msg, "strconv.ParseInt: parsing \"2147483648\": value out of range");
    CHECK_EQ_INT(v, INT32_MAX);
    CHECK(wh_go_parse_int("-2147483649", 32, &v, &eb));
    CHECK_EQ_INT(v, INT32_MIN);
    CHECK(!wh_go_parse_int("-2147483648", 32, &v, &eb));
    CHECK(wh_go_parse_int("1_0", 32, &v, &eb)); /* base 10 allows no underscores */
    CHECK_EQ_STR(eb.msg, "strconv.ParseInt: parsing \"1_0\": invalid syntax");
    CHECK(wh_go_parse_int("", 64, &v, &eb));
    CHECK(wh_go_parse_int("-", 64, &v, &eb));
    CHECK(wh_go_atoi("x\n", &v, &eb));
    CHECK_EQ_STR(eb.msg, "strconv.Atoi: parsing \"x\\n\": invalid syntax");
    CHECK_EQ_INT(wh_go_atoi_or_zero("12a"), 0);
    CHECK_EQ_INT(wh_go_atoi_or_zero("-3"), -3);
}

TEST(go_strconv_parse_float)
{
    double v;
    struct wh_errbuf eb = {{0}};
    const char *good[] = {"1.5", "1e3",  "1_000",     "0x1p3", "0X1.8P1", ".5", "5.",
                          "inf", "+Inf", "-infinity", "NaN",   "1E-2",    "0"};
    const double want[] = {1.5,      1000,     1000,      8,   3,    0.5, 5,
                           INFINITY, INFINITY, -INFINITY, NAN, 0.01, 0};
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        CHECK(!wh_go_parse_float(good[i], &v, &eb));
        if (isnan(want[i]))
            CHECK(isnan(v));
        else
            CHECK(v == want[i]);
    }
    const char *bad[] = {"",    "abc",  "1_", "_1", "0x1",     "+nan", "1e",
                         "1e+", "1..2", " 1", "1 ", "infinit", "0x"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        CHECK(wh_go_parse_float(bad[i], &v, &eb));
        CHECK(strstr(eb.msg, "invalid syntax") != NULL);
    }
    CHECK(wh_go_parse_float("1e400", &v, &eb));
    CHECK_EQ_STR(eb.msg, "strconv.ParseFloat: parsing \"1e400\": value out of range");
    CHECK(isinf(v) && v > 0);
    CHECK_EQ_INT(wh_go_float_to_int(NAN), INT64_MIN);
    CHECK_EQ_INT(wh_go_float_to_int(INFINITY), INT64_MIN);
    CHECK_EQ_INT(wh_go_float_to_int(-2.7), -2);
}

/* --- gocompat/goequal --------------------------------------------------------------------- */

static bool eq(const char *a, const char *b, const char *api, const char *type,
               enum wh_goeq_mode mode)
{
    json_t *ja = wh_test_jq(a), *jb = wh_test_jq(b);
    bool r = wh_go_deep_equal(ja, jb, wh_gotype_lookup(api, type), mode);
    json_decref(ja);
    json_decref(jb);
    return r;
}

TEST(go_deep_equal)
{
    const enum wh_goeq_mode R = WH_GOEQ_REFLECT, S = WH_GOEQ_SEMANTIC;
    /* nil and empty slices: reflect tells them apart, Semantic does not */
    CHECK(!eq("{'containers':[]}", "{}", "v1", "PodSpec", R));
    CHECK(eq("{'containers':[]}", "{}", "v1", "PodSpec", S));
    CHECK(eq("{'containers':null}", "{}", "v1", "PodSpec", R));
    /* members Go does not know are not compared */
    CHECK(eq("{'nope':1,'dnsPolicy':'x'}", "{'dnsPolicy':'x'}", "v1", "PodSpec", R));
    /* a nil pointer is not a pointer to a zero value */
    CHECK(!eq("{'securityContext':{}}", "{}", "v1", "PodSpec", S));
    /* zero values and absent members read the same */
    CHECK(eq("{'hostNetwork':false,'priority':null}", "{}", "v1", "PodSpec", R));
    /* quantities: the representation for reflect, the value for Semantic */
    const char *q1 = "{'limits':{'cpu':'1'}}", *q2 = "{'limits':{'cpu':'1000m'}}";
    CHECK(!eq(q1, q2, "v1", "ResourceRequirements", R));
    CHECK(eq(q1, q2, "v1", "ResourceRequirements", S));
    CHECK(eq("{'limits':{'cpu':' 1'}}", q1, "v1", "ResourceRequirements", R));
    /* IntOrString: 1 and "1" differ */
    CHECK(!eq("{'maxUnavailable':1}", "{'maxUnavailable':'1'}", "apps/v1",
              "RollingUpdateStatefulSetStrategy", S));
    /* except: the named fields are left out */
    json_t *a = wh_test_jq("{'replicas':1,'serviceName':'a'}"),
           *b = wh_test_jq("{'replicas':2,'serviceName':'a'}");
    const char *skip[] = {"replicas", NULL};
    CHECK(wh_go_deep_equal_except(a, b, wh_gotype_lookup("apps/v1", "StatefulSetSpec"), S, skip));
    CHECK(!wh_go_deep_equal(a, b, wh_gotype_lookup("apps/v1", "StatefulSetSpec"), S));
    json_decref(a);
    json_decref(b);
}

/* --- gocompat/gojsonpatch ----------------------------------------------------------------- */

static bool collect(const char *op, const char *path, void *arg)
{
    json_array_append_new(arg, json_pack("[s,s]", op, path));
    return true;
}

static json_t *ops(const char *from, const char *to)
{
    json_t *a = wh_test_jq(from), *b = wh_test_jq(to), *out = json_array();
    CHECK(wh_gojsonpatch_each(a, b, collect, out));
    json_decref(a);
    json_decref(b);
    return out;
}

TEST(go_jsonpatch_order)
{
    json_t *got = ops("{'a':[1,2,3],'b':1,'c':{'x':1},'d':'s'}",
                      "{'a':[9],'b':1.0,'c':{'y':2},'e':null,'d':1}");
    json_t *want = wh_test_jq("[['remove','/a/2'],['remove','/a/1'],['replace','/a/0'],"
                              "['add','/c/y'],['remove','/c/x'],['add','/e'],['replace','/d']]");
    CHECK_EQ_JSON(got, want);
    json_decref(got);
    json_decref(want);
    /* appscode's: null to a value is an add; a "simple" array is walked by edit distance */
    got = ops("{'containers':null,'env':[{'name':'A','value':'1'}]}",
              "{'containers':[{'name':'c'}],'env':[{'name':'B','value':'1'},{'name':'A','value':'1'}]}");
    want = wh_test_jq("[['add','/containers'],['add','/env/0']]");
    CHECK_EQ_JSON(got, want);
    json_decref(got);
    json_decref(want);
    got = ops("{'k/~':[{}]}", "{'k/~':[{},{'z':1}]}");
    want = wh_test_jq("[['add','/k~1~0/1']]");
    CHECK_EQ_JSON(got, want);
    json_decref(got);
    json_decref(want);
}

/* --- the handlers ------------------------------------------------------------------------- */

static json_t *request(const char *kind, const char *resource, const char *version, const char *op,
                       json_t *object, json_t *old)
{
    json_t *req =
        json_pack("{s:s,s:{s:s,s:s,s:s},s:{s:s,s:s,s:s},s:s,s:s,s:s,s:{s:s}}", "uid", "u", "kind",
                  "group", "apps.kruise.io", "version", version, "kind", kind, "resource", "group",
                  "apps.kruise.io", "version", version, "resource", resource, "operation", op,
                  "namespace", "default", "name", "w", "options", "kind", "CreateOptions");
    if (object)
        json_object_set_new(req, "object", object);
    if (old)
        json_object_set_new(req, "oldObject", old);
    return req;
}

static bool admit(const char *path, const char *gates, json_t *req, struct wh_admrun *r)
{
    bool ok = wh_admrun(path, gates, NULL, req, r);
    json_decref(req);
    return ok;
}

#define TMPL                                                                                       \
    "'template':{'metadata':{'labels':{'app':'a'}},'spec':{'containers':[{'name':'c','image':'"    \
    "nginx'}]}}"

TEST(workloads_cloneset_defaults)
{
    struct wh_admrun r;
    /* v1alpha1: ReCreate and the three IntOrStrings */
    CHECK(admit("/mutate-apps-kruise-io-cloneset", NULL,
                request("CloneSet", "clonesets", "v1alpha1", "CREATE",
                        wh_test_jq("{'metadata':{'name':'w'},'spec':{" TMPL "}}"), NULL),
                &r));
    CHECK(r.allowed && r.object);
    json_t *want =
        wh_test_jq("{'type':'ReCreate','partition':0,'maxUnavailable':'20%','maxSurge':0}");
    CHECK_EQ_JSON(wh_json_path(r.object, "spec", "updateStrategy", NULL), want);
    json_decref(want);
    CHECK_EQ_STR(wh_json_path_str(r.object, "spec", "template", "spec", "dnsPolicy", NULL),
                 "ClusterFirst");
    /* containers pull Always "for in-place update", whatever the tag */
    CHECK_EQ_STR(json_string_value(json_object_get(
                     json_array_get(
                         wh_json_path(r.object, "spec", "template", "spec", "containers", NULL), 0),
                     "imagePullPolicy")),
                 "Always");
    wh_admrun_fini(&r);

    /* v1beta1: RollingUpdate with its rollingUpdate; InPlaceOnly gets inPlaceUpdateStrategy */
    CHECK(admit("/mutate-apps-kruise-io-cloneset", NULL,
                request("CloneSet", "clonesets", "v1beta1", "CREATE",
                        wh_test_jq("{'metadata':{'name':'w'},'spec':{'updateStrategy':{"
                                   "'rollingUpdate':{'podUpdatePolicy':'InPlaceOnly'}}}}"),
                        NULL),
                &r));
    want = wh_test_jq("{'type':'RollingUpdate','rollingUpdate':{'podUpdatePolicy':'InPlaceOnly',"
                      "'inPlaceUpdateStrategy':{},'partition':0,'maxUnavailable':'20%',"
                      "'maxSurge':0}}");
    CHECK_EQ_JSON(wh_json_path(r.object, "spec", "updateStrategy", NULL), want);
    json_decref(want);
    CHECK_EQ_INT(json_integer_value(wh_json_path(r.object, "spec", "replicas", NULL)), 1);
    wh_admrun_fini(&r);

    /* UPDATE with the template unchanged: the template keeps what it has */
    const char *obj = "{'metadata':{'name':'w'},'spec':{'replicas':2," TMPL "}}";
    CHECK(admit(
        "/mutate-apps-kruise-io-cloneset", NULL,
        request("CloneSet", "clonesets", "v1beta1", "UPDATE", wh_test_jq(obj), wh_test_jq(obj)),
        &r));
    CHECK(r.object && !wh_json_path(r.object, "spec", "template", "spec", "dnsPolicy", NULL));
    wh_admrun_fini(&r);
    /* ... and with gate TemplateNoDefaults on CREATE too */
    CHECK(admit("/mutate-apps-kruise-io-cloneset", "TemplateNoDefaults=true",
                request("CloneSet", "clonesets", "v1beta1", "CREATE", wh_test_jq(obj), NULL), &r));
    CHECK(r.object && !wh_json_path(r.object, "spec", "template", "spec", "dnsPolicy", NULL));
    wh_admrun_fini(&r);

    /* a defaulted object comes back without a patch; another version is refused */
    CHECK(
        admit("/mutate-apps-kruise-io-cloneset", NULL,
              request("CloneSet", "clonesets", "v1alpha1", "UPDATE",
                      wh_test_jq("{'spec':{'replicas':1,'revisionHistoryLimit':10,'updateStrategy':"
                                 "{'type':'ReCreate','partition':0,'maxUnavailable':'20%',"
                                 "'maxSurge':0},'nope':1}}"),
                      wh_test_jq("{}")),
              &r));
    CHECK(r.allowed && !r.patched);
    wh_admrun_fini(&r);
    CHECK(admit("/mutate-apps-kruise-io-cloneset", NULL,
                request("CloneSet", "clonesets", "v2", "CREATE", wh_test_jq("{}"), NULL), &r));
    CHECK(!r.allowed && r.code == 400);
    CHECK_EQ_STR(r.message, "unsupported version: v2");
    wh_admrun_fini(&r);
}

TEST(workloads_statefulset_defaults)
{
    struct wh_admrun r;
    /* v1alpha1 goes through v1beta1 and back; the status is reset */
    CHECK(admit("/mutate-apps-kruise-io-statefulset", NULL,
                request("StatefulSet", "statefulsets", "v1alpha1", "CREATE",
                        wh_test_jq("{'apiVersion':'apps.kruise.io/v1alpha1','kind':'StatefulSet',"
                                   "'spec':{" TMPL "},'status':{'replicas':3}}"),
                        NULL),
                &r));
    CHECK(r.object);
    json_t *want =
        wh_test_jq("{'type':'RollingUpdate','rollingUpdate':{'partition':0,"
                   "'maxUnavailable':1,'podUpdatePolicy':'ReCreate','minReadySeconds':0}}");
    CHECK_EQ_JSON(wh_json_path(r.object, "spec", "updateStrategy", NULL), want);
    json_decref(want);
    CHECK_EQ_INT(json_integer_value(wh_json_path(r.object, "status", "replicas", NULL)), 0);
    /* v1alpha1 has no persistentVolumeClaimRetentionPolicy: lost on the way back */
    CHECK(!wh_json_path(r.object, "spec", "persistentVolumeClaimRetentionPolicy", NULL));
    CHECK_EQ_STR(wh_json_str(r.object, "apiVersion"), "apps.kruise.io/v1alpha1");
    wh_admrun_fini(&r);
    /* v1beta1 keeps it (gate StatefulSetAutoDeletePVC, on) */
    CHECK(admit("/mutate-apps-kruise-io-statefulset", NULL,
                request("StatefulSet", "statefulsets", "v1beta1", "CREATE", wh_test_jq("{}"), NULL),
                &r));
    want = wh_test_jq("{'whenDeleted':'Retain','whenScaled':'Retain'}");
    CHECK_EQ_JSON(wh_json_path(r.object, "spec", "persistentVolumeClaimRetentionPolicy", NULL),
                  want);
    json_decref(want);
    wh_admrun_fini(&r);
    /* another version: upstream defaults an empty object in its place */
    CHECK(admit("/mutate-apps-kruise-io-statefulset", NULL,
                request("StatefulSet", "statefulsets", "v9", "CREATE",
                        wh_test_jq("{'metadata':{'name':'gone'}}"), NULL),
                &r));
    CHECK(r.allowed && r.object);
    CHECK(!wh_json_path_str(r.object, "metadata", "name", NULL));
    CHECK_EQ_STR(wh_json_path_str(r.object, "spec", "podManagementPolicy", NULL), "OrderedReady");
    wh_admrun_fini(&r);
}

TEST(workloads_daemonset_uniteddeployment_defaults)
{
    struct wh_admrun r;
    /* v1alpha1's deprecated Surging becomes Standard with surge 1 */
    CHECK(admit("/mutate-apps-kruise-io-daemonset", NULL,
                request("DaemonSet", "daemonsets", "v1alpha1", "CREATE",
                        wh_test_jq("{'spec':{'updateStrategy':{'rollingUpdate':{"
                                   "'rollingUpdateType':'Surging'}}}}"),
                        NULL),
                &r));
    json_t *want = wh_test_jq("{'type':'RollingUpdate','rollingUpdate':{'rollingUpdateType':"
                              "'Standard','maxSurge':1,'maxUnavailable':0}}");
    CHECK_EQ_JSON(wh_json_path(r.object, "spec", "updateStrategy", NULL), want);
    json_decref(want);
    CHECK_EQ_INT(json_integer_value(wh_json_path(r.object, "spec", "burstReplicas", NULL)), 250);
    wh_admrun_fini(&r);
    /* subsets with capacities and no replicas get minReplicas 0 */
    CHECK(admit("/mutate-apps-kruise-io-uniteddeployment", NULL,
                request("UnitedDeployment", "uniteddeployments", "v1beta1", "CREATE",
                        wh_test_jq("{'spec':{'topology':{'subsets':[{'name':'a','maxReplicas':2},"
                                   "{'name':'b'}]}}}"),
                        NULL),
                &r));
    const json_t *subsets = wh_json_path(r.object, "spec", "topology", "subsets", NULL);
    CHECK_EQ_INT(json_integer_value(json_object_get(json_array_get(subsets, 1), "minReplicas")), 0);
    CHECK_EQ_STR(wh_json_path_str(r.object, "spec", "updateStrategy", "type", NULL), "Manual");
    wh_admrun_fini(&r);
}

TEST(workloads_cloneset_validation)
{
    struct wh_admrun r;
    /* upstream dereferences spec.replicas: its panic is a 500 */
    CHECK(admit("/validate-apps-kruise-io-cloneset", NULL,
                request("CloneSet", "clonesets", "v1beta1", "CREATE", wh_test_jq("{}"), NULL), &r));
    CHECK(!r.allowed && r.code == 500);
    CHECK(strstr(r.message, "nil pointer dereference") != NULL);
    wh_admrun_fini(&r);
    /* the selector may not change, and InPlaceOnly v1alpha1 may only change images */
    const char *old = "{'metadata':{'name':'w','namespace':'default','resourceVersion':'1'},'spec':"
                      "{'replicas':1,'selector':{'matchLabels':{'app':'a'}}," TMPL
                      ",'updateStrategy':{'type':'InPlaceOnly','partition':0,'maxUnavailable':1}}}";
    json_t *o = wh_test_jq(old);
    json_object_set_new(json_object_get(json_object_get(o, "spec"), "selector"), "matchLabels",
                        wh_test_jq("{'app':'a','x':'y'}"));
    json_t *c0 = json_array_get(wh_json_path(o, "spec", "template", "spec", "containers", NULL), 0);
    json_object_set_new(c0, "workingDir", json_string("/w"));
    CHECK(admit("/validate-apps-kruise-io-cloneset", NULL,
                request("CloneSet", "clonesets", "v1alpha1", "UPDATE", o, wh_test_jq(old)), &r));
    CHECK(!r.allowed && r.code == 422);
    CHECK(strstr(r.message, "spec: Forbidden: updates to cloneset spec for fields other than") !=
          NULL);
    CHECK(strstr(r.message, "only allowed to update images in spec for InPlaceOnly, but found add "
                            "/containers/0/workingDir") != NULL);
    wh_admrun_fini(&r);
}

TEST(workloads_daemonset_answers)
{
    struct wh_admrun r;
    const char *ok = "{'metadata':{'name':'d','namespace':'default'},'spec':{'selector':"
                     "{'matchLabels':{'app':'a'}}," TMPL ",'updateStrategy':{'type':'OnDelete'}}}";
    CHECK(admit("/validate-apps-kruise-io-daemonset", NULL,
                request("DaemonSet", "daemonsets", "v1beta1", "CREATE", wh_test_jq(ok), NULL), &r));
    CHECK(r.allowed);
    CHECK_EQ_STR(r.message, "allowed to be admitted");
    wh_admrun_fini(&r);
    /* a CREATE that fails validation is upstream's 500, an UPDATE's 422 */
    json_t *bad = wh_test_jq(ok);
    json_object_set_new(wh_json_path(bad, "spec", "updateStrategy", NULL), "type",
                        json_string("X"));
    CHECK(admit("/validate-apps-kruise-io-daemonset", NULL,
                request("DaemonSet", "daemonsets", "v1alpha1", "CREATE", json_incref(bad), NULL),
                &r));
    CHECK(!r.allowed && r.code == 500);
    CHECK_EQ_STR(r.message,
                 "spec.updateStrategy: Unsupported value: v1alpha1.DaemonSetUpdateStrategy"
                 "{Type:\"X\", RollingUpdate:(*v1alpha1.RollingUpdateDaemonSet)(nil)}: "
                 "supported values: \"RollingUpdate\", \"OnDelete\"");
    wh_admrun_fini(&r);
    CHECK(admit("/validate-apps-kruise-io-daemonset", NULL,
                request("DaemonSet", "daemonsets", "v1alpha1", "UPDATE", bad, wh_test_jq(ok)), &r));
    CHECK(!r.allowed && r.code == 422);
    wh_admrun_fini(&r);
}
