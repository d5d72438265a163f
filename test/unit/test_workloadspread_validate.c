/* /validate-apps-kruise-io-workloadspread (spec workloadspread.md 9), rule by rule with the exact
 * messages, plus the Kubernetes validators it uses (k8s/scheduling, the object metadata update
 * rules, LabelSelectorAsSelector's errors). */
#include "test/unit/test.h"

#include <stdlib.h>

#include "config/config.h"
#include "config/features.h"
#include "handlers/workloadspread/match.h"
#include "handlers/workloadspread/validate.h"
#include "k8s/fielderr.h"
#include "k8s/scheduling.h"
#include "k8s/validation.h"
#include "kube/cluster.h"
#include "util/json.h"
#include "util/mem.h"
#include "util/str.h"

static json_t *jq(const char *s)
{
    char *d = wh_xstrdup(s);
    for (char *p = d; *p; p++)
        if (*p == '\'')
            *p = '"';
    json_t *v = wh_test_json(d);
    free(d);
    return v;
}

struct vfx {
    struct wh_config cfg;
    struct wh_cluster *cl;
    struct wh_handler_ctx ctx;
};

static void vfx_init(struct vfx *f, const char *gates, const char *objects)
{
    memset(f, 0, sizeof(*f));
    wh_features_init(&f->cfg.features);
    struct wh_errbuf eb = {{0}};
    if (wh_features_parse(&f->cfg.features, gates, &eb))
        abort();
    f->cfg.namespace_ = (char *)(uintptr_t) "kruise-system";
    json_t *objs = jq(objects);
    CHECK_EQ_INT(wh_cluster_new_standalone_objects(objs, &f->cl, &eb), WH_OK);
    json_decref(objs);
    CHECK_EQ_INT(wh_ws_caches_setup(f->cl, &f->cfg, &eb), WH_OK);
    CHECK_EQ_INT(wh_cluster_start(f->cl, &eb), WH_OK);
    f->ctx.cfg = &f->cfg;
    f->ctx.cluster = f->cl;
}

/* The answer to op of object (and old) at resource version version: "" when allowed, else
 * "<code> <message>". Returns: new string. */
static char *answer(struct vfx *f, const char *op, const char *version, const char *object,
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
    struct vfx f;
    vfx_init(&f, "WorkloadSpread=false", "[]");
    CHECK_ANSWER(&f, "CREATE", "v1beta1", WSB(CS_REF ONE), NULL,
                 "403 feature-gate WorkloadSpread is not enabled");
    wh_cluster_free(f.cl);
}

TEST(ws_validate_decoding)
{
    struct vfx f;
    vfx_init(&f, "", "[]");
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
    wh_cluster_free(f.cl);
}

TEST(ws_validate_target_ref)
{
    struct vfx f;
    vfx_init(
        &f, "",
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
    wh_cluster_free(f.cl);
    /* a white list that does not decode is an internal error at targetRef */
    vfx_init(
        &f, "",
        "[{'apiVersion':'v1','kind':'ConfigMap','metadata':{'name':'kruise-configuration',"
        "'namespace':'kruise-system'},'data':{'WorkloadSpread_Watch_Custom_Workload_WhiteList':"
        "'{'}}]");
    CHECK_ANSWER(&f, "CREATE", "v1beta1",
                 WSB("'targetRef':{'apiVersion':'mock.kruise.io/v1','kind':'GameServerSet','name':"
                     "'x'}" ONE),
                 NULL, "400 spec.targetRef: Internal error: unexpected end of JSON input");
    wh_cluster_free(f.cl);
}

TEST(ws_validate_subsets)
{
    struct vfx f;
    vfx_init(&f, "", "[]");
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
        {",'subsets':[{'name':'a','maxReplicas':'5'}]",
         "400 spec.subsets[0].maxReplicas: Invalid value: intstr.IntOrString{Type:1, IntVal:0, "
         "StrVal:\"5\"}: maxReplicas is not valid for subset"},
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
    wh_cluster_free(f.cl);
}

TEST(ws_validate_schedule_strategy_and_filter)
{
    struct vfx f;
    vfx_init(&f, "", "[]");
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
    wh_cluster_free(f.cl);
}

#define OTHER_WS(name, ref)                                                                        \
    "{'apiVersion':'apps.kruise.io/v1beta1','kind':'WorkloadSpread','metadata':{'name':'" name     \
    "','namespace':'ns'},'spec':{'targetRef':" ref ",'subsets':[{'name':'a'}]}}"

TEST(ws_validate_conflicts)
{
    struct vfx f;
    vfx_init(
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
    wh_cluster_free(f.cl);
}

#define META_OLD                                                                                   \
    "'metadata':{'name':'ws','namespace':'ns','uid':'u1','resourceVersion':'5','generation':2,"    \
    "'creationTimestamp':'2025-01-01T00:00:00Z'}"

TEST(ws_validate_update)
{
    struct vfx f;
    vfx_init(&f, "", "[]");
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
    wh_cluster_free(f.cl);
}

TEST(ws_validate_aggregation_dedups)
{
    struct vfx f;
    vfx_init(&f, "", "[]");
    /* the same error twice is reported once */
    CHECK_ANSWER(&f, "CREATE", "v1beta1",
                 WSB(CS_REF ",'subsets':[{'name':'a','tolerations':[{'key':'k','operator':"
                            "'Bad'},{'key':'k','operator':'Bad'}]}]"),
                 NULL,
                 "400 [spec.subsets[0].tolerations[0].operator: Unsupported value: \"Bad\": "
                 "supported values: \"Equal\", \"Exists\", "
                 "spec.subsets[0].tolerations[1].operator: Unsupported value: \"Bad\": supported "
                 "values: \"Equal\", \"Exists\"]");
    wh_cluster_free(f.cl);
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
         "p[0].operator: Invalid value: core.Toleration{Key:\"k\", Operator:\"Exists\", "
         "Value:\"v\", Effect:\"\", TolerationSeconds:(*int64)(nil)}: value must be empty when "
         "`operator` is 'Exists'"},
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
