/* Strategic merge patch (gocompat/smp.h) with the Pod schema: the cases of
 * k8s.io/apimachinery's strategicpatch that a WorkloadSpread subset patch can meet. Expected
 * documents are written from the library's rules, not from our output. */
#include <stdlib.h>
#include <string.h>

#include "gocompat/gotype.h"
#include "gocompat/smp.h"
#include "test/unit/test.h"

/* Single quotes stand for double quotes in these cases. */
#define J(text) wh_test_jq(text)

static const char *const POD =
    "{'metadata':{'name':'p','labels':{'app':'web','tier':'fe'},'finalizers':['a','b']},"
    "'spec':{'containers':[{'name':'app','image':'app:1','env':[{'name':'A','value':'1'},"
    "{'name':'B','value':'2'}]},{'name':'sidecar','image':'sc:1'}],"
    "'tolerations':[{'key':'k1','operator':'Exists'}],"
    "'volumes':[{'name':'data','hostPath':{'path':'/d'}}]}}";

static void check_patch(const char *original, const char *patch, const char *want)
{
    json_t *o = J(original), *p = J(patch), *out = NULL;
    json_t *before_o = json_deep_copy(o), *before_p = json_deep_copy(p);
    struct wh_errbuf eb = {{0}};
    enum wh_err rc = wh_smp_apply(o, p, wh_gotype_lookup("v1", "Pod"), &out, &eb);
    if (want[0] == '!') {
        CHECK(rc == WH_ERR_INVALID);
        CHECK_EQ_STR(eb.msg, want + 1);
    } else {
        if (rc)
            fprintf(stderr, "patch %s failed: %s\n", patch, eb.msg);
        CHECK(rc == WH_OK);
        json_t *w = J(want);
        CHECK_EQ_JSON(out, w);
        json_decref(w);
    }
    /* the inputs are left as they were */
    CHECK(json_equal(o, before_o));
    CHECK(json_equal(p, before_p));
    json_decref(out);
    json_decref(o);
    json_decref(p);
    json_decref(before_o);
    json_decref(before_p);
}

TEST(smp_merge_by_key_and_maps)
{
    /* containers merge by name; env merges by name inside; maps merge */
    check_patch(POD,
                "{'metadata':{'labels':{'subset':'a','tier':null}},'spec':{'containers':[{"
                "'name':'app','image':'app:2','env':[{'name':'B','value':'3'}]}]}}",
                "{'metadata':{'name':'p','labels':{'app':'web','subset':'a'},'finalizers':['a',"
                "'b']},'spec':{'containers':[{'name':'app','image':'app:2','env':[{'name':'A',"
                "'value':'1'},{'name':'B','value':'3'}]},{'name':'sidecar','image':'sc:1'}],"
                "'tolerations':[{'key':'k1','operator':'Exists'}],'volumes':[{'name':'data',"
                "'hostPath':{'path':'/d'}}]}}");
    /* a new element goes before the server's (mergeSortedSlice) */
    check_patch("{'spec':{'containers':[{'name':'a'},{'name':'b'}]}}",
                "{'spec':{'containers':[{'name':'c','image':'c'}]}}",
                "{'spec':{'containers':[{'name':'c','image':'c'},{'name':'a'},{'name':'b'}]}}");
    /* the patch's elements keep the patch's order; a server element goes before a patch
     * element that followed it on the server */
    check_patch("{'spec':{'containers':[{'name':'a'},{'name':'b'},{'name':'c'}]}}",
                "{'spec':{'containers':[{'name':'c','image':'x'},{'name':'a','image':'y'}]}}",
                "{'spec':{'containers':[{'name':'b'},{'name':'c','image':'x'},{'name':'a',"
                "'image':'y'}]}}");
    /* a list without patchStrategy is replaced */
    check_patch(POD, "{'spec':{'tolerations':[{'key':'k2','operator':'Exists'}]}}",
                "{'metadata':{'name':'p','labels':{'app':'web','tier':'fe'},'finalizers':['a',"
                "'b']},'spec':{'containers':[{'name':'app','image':'app:1','env':[{'name':'A',"
                "'value':'1'},{'name':'B','value':'2'}]},{'name':'sidecar','image':'sc:1'}],"
                "'tolerations':[{'key':'k2','operator':'Exists'}],'volumes':[{'name':'data',"
                "'hostPath':{'path':'/d'}}]}}");
    /* a merged list of scalars is united without duplicates */
    check_patch("{'metadata':{'finalizers':['a','b']}}", "{'metadata':{'finalizers':['c','a']}}",
                "{'metadata':{'finalizers':['c','a','b']}}");
    /* members the original lacks are taken whole, less their nulls and directives */
    check_patch("{'spec':{}}",
                "{'spec':{'affinity':{'nodeAffinity':{'x':null,'requiredDuringScheduling"
                "IgnoredDuringExecution':{'nodeSelectorTerms':[{'matchExpressions':[]}]}}},"
                "'nodeSelector':{'zone':'a','gone':null,'d':{'$patch':'delete'}}}}",
                "{'spec':{'affinity':{'nodeAffinity':{'requiredDuringSchedulingIgnoredDuring"
                "Execution':{'nodeSelectorTerms':[{'matchExpressions':[]}]}}},'nodeSelector':{"
                "'zone':'a'}}}");
    /* null removes; a value of another JSON type replaces */
    check_patch("{'spec':{'hostname':'h','nodeSelector':{'a':'b'}}}",
                "{'spec':{'hostname':null,'nodeSelector':'x'}}", "{'spec':{'nodeSelector':'x'}}");
}

TEST(smp_directives)
{
    /* $patch: delete removes the element of that key; replace replaces the list */
    check_patch("{'spec':{'containers':[{'name':'a'},{'name':'b'}]}}",
                "{'spec':{'containers':[{'name':'a','$patch':'delete'}]}}",
                "{'spec':{'containers':[{'name':'b'}]}}");
    check_patch("{'spec':{'containers':[{'name':'a','image':'x'},{'name':'b'}]}}",
                "{'spec':{'containers':[{'name':'z'},{'$patch':'replace'}]}}",
                "{'spec':{'containers':[{'name':'z'}]}}");
    /* in a map: replace takes the patch's map, delete empties it */
    check_patch("{'metadata':{'labels':{'a':'1','b':'2'}}}",
                "{'metadata':{'labels':{'$patch':'replace','c':'3'}}}",
                "{'metadata':{'labels':{'c':'3'}}}");
    check_patch("{'metadata':{'labels':{'a':'1'}},'spec':{}}", "{'metadata':{'$patch':'delete'}}",
                "{'metadata':{},'spec':{}}");
    /* $deleteFromPrimitiveList removes values from a list of scalars */
    check_patch("{'metadata':{'finalizers':['a','b','c']}}",
                "{'metadata':{'$deleteFromPrimitiveList/finalizers':['b','x']}}",
                "{'metadata':{'finalizers':['a','c']}}");
    /* $retainKeys clears what the list does not name (a volume changes its source) */
    check_patch("{'spec':{'volumes':[{'name':'v','hostPath':{'path':'/d'}}]}}",
                "{'spec':{'volumes':[{'name':'v','emptyDir':{},'$retainKeys':['emptyDir',"
                "'name']}]}}",
                "{'spec':{'volumes':[{'name':'v','emptyDir':{}}]}}");
    /* $setElementOrder orders the merged list */
    check_patch("{'spec':{'containers':[{'name':'a'},{'name':'b'},{'name':'c'}]}}",
                "{'spec':{'$setElementOrder/containers':[{'name':'c'},{'name':'b'},{'name':'a'}],"
                "'containers':[{'name':'b','image':'x'}]}}",
                "{'spec':{'containers':[{'name':'c'},{'name':'b','image':'x'},{'name':'a'}]}}");
    /* a directive at the top */
    check_patch("{'metadata':{'name':'p'}}", "{'$patch':'replace','spec':{}}", "{'spec':{}}");
}

TEST(smp_errors)
{
    check_patch("{'spec':{'containers':[{'name':'a'}]}}", "{'spec':{'containers':[{'image':'x'}]}}",
                "!map: map[image:x] does not contain declared merge key: name");
    check_patch("{'spec':{'containers':[{'name':'a'}]}}",
                "{'spec':{'containers':[{'name':'a','$patch':'merge'}]}}",
                "!merging lists cannot yet be specified in the patch");
    check_patch("{'spec':{'containers':[{'name':'a'}]}}",
                "{'spec':{'containers':[{'name':'a','$patch':'nope','n':1.5}]}}",
                "!unknown patch type: nope in map: map[$patch:nope n:1.5 name:a]");
    check_patch("{'spec':{'x':{'a':1}}}", "{'spec':{'x':{'b':2}}}",
                "!unable to find api field in struct PodSpec for the json field \"x\"");
    check_patch("{'metadata':{'labels':{'a':{'b':1}}}}", "{'metadata':{'labels':{'a':{'c':1}}}}",
                "!merging an object in json but data type is not struct, instead is: map");
    check_patch("{'spec':{'containers':[{'name':'a'}]}}", "{'spec':{'containers':['a']}}",
                "!list element types are not identical: [[map[name:a]] [a]]");
    check_patch("{'metadata':{}}", "{'metadata':{'$retainKeys':'name'}}",
                "!invalid patch format of retainKeys");
    check_patch("{'metadata':{'labels':{}}}", "{'metadata':{'$retainKeys':['name'],'labels':{}}}",
                "!invalid patch format of retainKeys");
    check_patch("[]", "{}", "!invalid JSON document");
    /* a JSON field of another name matches case-insensitively, as encoding/json does */
    check_patch("{'spec':{'Containers':[{'name':'a'}]}}", "{'spec':{'Containers':[{'name':'b'}]}}",
                "{'spec':{'Containers':[{'name':'b'},{'name':'a'}]}}");
}
