/* /validate-policy-kruise-io-podunavailablebudget (spec pub.md 7): every rule and message,
 * v1alpha1 through the conversion, updates, conflicts between PUBs and the gates; and the
 * Kubernetes semantics PUB relies on: image references, QoS classes, quantity sums, the group
 * of an apiVersion. */
#include "test/unit/test.h"

#include <stdlib.h>

#include "config/config.h"
#include "config/features.h"
#include "handlers/pub/pub.h"
#include "k8s/imageref.h"
#include "k8s/ref.h"
#include "k8s/pod.h"
#include "k8s/quantity.h"
#include "kube/cluster.h"
#include "util/json.h"
#include "util/str.h"

struct vfx {
    struct wh_config cfg;
    struct wh_cluster *cl;
    struct wh_handler_ctx ctx;
};

/* Existing PUBs (JSON array text) in namespace ns. */
static void vfx_init(struct vfx *f, const char *gates, const char *existing)
{
    memset(f, 0, sizeof(*f));
    wh_features_init(&f->cfg.features);
    struct wh_errbuf eb = {{0}};
    json_t *objs = wh_test_json(existing);
    if (wh_features_parse(&f->cfg.features, gates, &eb) ||
        wh_cluster_new_standalone_objects(objs, &f->cl, &eb) ||
        wh_pub_validate_setup(f->cl, &f->cfg, &eb) || wh_cluster_start(f->cl, &eb))
        abort();
    json_decref(objs);
    f->ctx.cfg = &f->cfg;
    f->ctx.cluster = f->cl;
}

struct verdict {
    bool allowed;
    int code;
    char msg[2048];
};

/* object and old are JSON text (old may be NULL); version v1alpha1 or v1beta1. */
static struct verdict review(struct vfx *f, const char *op, const char *version, const char *object,
                             const char *old)
{
    json_t *req = json_pack("{s:s,s:{s:s,s:s,s:s},s:{s:s,s:s,s:s},s:s,s:s,s:s,s:s}", "uid", "u",
                            "kind", "group", "policy.kruise.io", "version", version, "kind",
                            "PodUnavailableBudget", "resource", "group", "policy.kruise.io",
                            "version", version, "resource", "podunavailablebudgets", "subResource",
                            "", "operation", op, "namespace", "ns", "name", "p");
    json_object_set_new(req, "object", object ? wh_test_json(object) : json_null());
    json_object_set_new(req, "oldObject", old ? wh_test_json(old) : json_null());
    json_t *rv = json_pack("{s:s,s:s,s:o}", "apiVersion", "admission.k8s.io/v1", "kind",
                           "AdmissionReview", "request", req);
    struct wh_admission_request r;
    struct wh_admission_response resp;
    struct wh_errbuf eb = {{0}};
    if (wh_admission_decode(rv, &r, &eb))
        abort();
    wh_admission_response_init(&resp);
    struct verdict v;
    memset(&v, 0, sizeof(v));
    if (wh_pub_validate_admit(&f->ctx, &r, &resp, &eb))
        abort();
    v.allowed = resp.allowed;
    v.code = resp.code;
    snprintf(v.msg, sizeof(v.msg), "%s", resp.message ? resp.message : "");
    wh_admission_response_fini(&resp);
    json_decref(rv);
    return v;
}

#define META "\"metadata\":{\"name\":\"p\",\"namespace\":\"ns\"}"
#define BETA_PUB(spec)                                                                             \
    "{\"apiVersion\":\"policy.kruise.io/v1beta1\",\"kind\":\"PodUnavailableBudget\"," META         \
    ",\"spec\":" spec "}"
#define SEL "\"selector\":{\"matchLabels\":{\"app\":\"web\"}}"

/* The message of a v1beta1 CREATE of spec (empty when allowed). */
static const char *create_msg(struct vfx *f, const char *object)
{
    static struct verdict v;
    v = review(f, "CREATE", "v1beta1", object, NULL);
    CHECK(v.allowed == (v.msg[0] == '\0'));
    CHECK(v.allowed || v.code == 400);
    return v.msg;
}

TEST(pub_validate_target_and_budget)
{
    struct vfx f;
    vfx_init(&f, "", "[]");
    CHECK_EQ_STR(create_msg(&f, BETA_PUB("{" SEL ",\"maxUnavailable\":1}")), "");
    CHECK_EQ_STR(
        create_msg(&f, BETA_PUB("{\"targetRef\":{\"apiVersion\":\"apps/v1\",\"kind\":"
                                "\"Anything\",\"name\":\"w\"},\"minAvailable\":\"100%\"}")),
        "");
    /* 7.2 target */
    CHECK_EQ_STR(create_msg(&f, BETA_PUB("{\"maxUnavailable\":1}")),
                 "spec.selector, targetRef: Required value: no selector or targetRef defined in "
                 "PodUnavailableBudget");
    CHECK_EQ_STR(create_msg(&f, BETA_PUB("{" SEL ",\"targetRef\":{\"apiVersion\":\"apps/v1\","
                                         "\"kind\":\"Deployment\",\"name\":\"w\"},"
                                         "\"maxUnavailable\":1}")),
                 "spec.selector, targetRef: Required value: selector and targetRef are mutually "
                 "exclusive");
    CHECK_EQ_STR(create_msg(&f, BETA_PUB("{\"targetRef\":{\"apiVersion\":\"apps/v1\",\"kind\":"
                                         "\"Deployment\"},\"maxUnavailable\":1}")),
                 "spec.targetRef: Invalid value: v1beta1.TargetReference{APIVersion:\"apps/v1\", "
                 "Kind:\"Deployment\", Name:\"\"}: empty targetRef is not valid for "
                 "PodUnavailableBudget");
    CHECK_EQ_STR(create_msg(&f, BETA_PUB("{\"targetRef\":{\"apiVersion\":\"a/b/c\",\"kind\":"
                                         "\"D\",\"name\":\"w\"},\"maxUnavailable\":1}")),
                 "spec.targetRef: Invalid value: v1beta1.TargetReference{APIVersion:\"a/b/c\", "
                 "Kind:\"D\", Name:\"w\"}: unexpected GroupVersion string: a/b/c");
    CHECK_EQ_STR(create_msg(&f, BETA_PUB("{\"selector\":{},\"maxUnavailable\":1}")),
                 "spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil)"
                 ", MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is not "
                 "valid for PodUnavailableBudget.");
    CHECK(strstr(create_msg(&f, BETA_PUB("{\"selector\":{\"matchLabels\":{\"a b\":\"x\"}},"
                                         "\"maxUnavailable\":1}")),
                 "spec.selector.matchLabels: Invalid value: \"a b\": name part must consist of") !=
          NULL);
    /* 7.3 budget */
    CHECK_EQ_STR(create_msg(&f, BETA_PUB("{" SEL "}")),
                 "spec.maxUnavailable, minAvailable: Required value: no maxUnavailable or "
                 "minAvailable defined in PodUnavailableBudget");
    CHECK_EQ_STR(create_msg(&f, BETA_PUB("{" SEL ",\"maxUnavailable\":1,\"minAvailable\":1}")),
                 "spec.maxUnavailable, minAvailable: Required value: maxUnavailable and "
                 "minAvailable are mutually exclusive");
    CHECK_EQ_STR(create_msg(&f, BETA_PUB("{" SEL ",\"maxUnavailable\":-1}")),
                 "spec.maxUnavailable: Invalid value: -1: must be greater than or equal to 0");
    CHECK_EQ_STR(create_msg(&f, BETA_PUB("{" SEL ",\"minAvailable\":\"50\"}")),
                 "spec.minAvailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, "
                 "StrVal:\"50\"}: a valid percent string must be a numeric string followed by an "
                 "ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')");
    CHECK_EQ_STR(create_msg(&f, BETA_PUB("{" SEL ",\"maxUnavailable\":\"101%\"}")),
                 "spec.maxUnavailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, "
                 "StrVal:\"101%\"}: must not be greater than 100%");
    CHECK_EQ_STR(create_msg(&f, BETA_PUB("{" SEL ",\"maxUnavailable\":\"0100%\"}")), "");
    CHECK_EQ_STR(create_msg(&f, BETA_PUB("{" SEL ",\"maxUnavailable\":\"99999999999999999999%\"}")),
                 "spec.maxUnavailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, "
                 "StrVal:\"99999999999999999999%\"}: must not be greater than 100%");
    /* several errors: aggregated in Go's form */
    CHECK_EQ_STR(create_msg(&f, BETA_PUB("{}")),
                 "[spec.selector, targetRef: Required value: no selector or targetRef defined in "
                 "PodUnavailableBudget, spec.maxUnavailable, minAvailable: Required value: no "
                 "maxUnavailable or minAvailable defined in PodUnavailableBudget]");
    wh_cluster_free(f.cl);
}

TEST(pub_validate_operations_annotations_ignored)
{
    struct vfx f;
    vfx_init(&f, "", "[]");
    /* 7.4 */
    CHECK_EQ_STR(create_msg(&f, BETA_PUB("{" SEL ",\"maxUnavailable\":1,\"protectOperations\":["
                                         "\"DELETE\",\"delete\",\"RESIZE\"]}")),
                 "spec.protectOperations[1]: Unsupported value: \"delete\": supported values: "
                 "\"DELETE\", \"UPDATE\", \"EVICT\", \"RESIZE\"");
    /* the annotation is not checked on v1beta1 objects */
    CHECK_EQ_STR(create_msg(&f, "{\"apiVersion\":\"policy.kruise.io/v1beta1\",\"metadata\":{"
                                "\"name\":\"p\",\"namespace\":\"ns\",\"annotations\":{"
                                "\"kruise.io/pub-protect-operations\":\"anything\"}},\"spec\":{" SEL
                                ",\"maxUnavailable\":1}}"),
                 "");
    /* 7.1 protect-total-replicas */
    CHECK_EQ_STR(create_msg(&f, "{\"metadata\":{\"name\":\"p\",\"namespace\":\"ns\","
                                "\"annotations\":{\"pub.kruise.io/protect-total-replicas\":"
                                "\"x\"}},\"spec\":{" SEL ",\"maxUnavailable\":1}}"),
                 "metadata.annotations[pub.kruise.io/protect-total-replicas]: Invalid value: "
                 "\"x\": must be a valid int32");
    CHECK_EQ_STR(create_msg(&f, "{\"metadata\":{\"name\":\"p\",\"namespace\":\"ns\","
                                "\"annotations\":{\"pub.kruise.io/protect-total-replicas\":"
                                "\"2147483648\"}},\"spec\":{" SEL ",\"maxUnavailable\":1}}"),
                 "metadata.annotations[pub.kruise.io/protect-total-replicas]: Invalid value: "
                 "\"2147483648\": must be a valid int32");
    CHECK_EQ_STR(create_msg(&f, "{\"metadata\":{\"name\":\"p\",\"namespace\":\"ns\","
                                "\"annotations\":{\"pub.kruise.io/protect-total-replicas\":"
                                "\"+5\"}},\"spec\":{" SEL ",\"maxUnavailable\":1,"
                                "\"protectTotalReplicas\":5}}"),
                 "metadata.annotations[pub.kruise.io/protect-total-replicas]: Invalid value: "
                 "\"+5\": must match spec.protectTotalReplicas when both are set");
    CHECK_EQ_STR(create_msg(&f, "{\"metadata\":{\"name\":\"p\",\"namespace\":\"ns\","
                                "\"annotations\":{\"pub.kruise.io/protect-total-replicas\":"
                                "\"5\"}},\"spec\":{" SEL ",\"maxUnavailable\":1,"
                                "\"protectTotalReplicas\":5}}"),
                 "");
    /* 7.5 ignoredPodSelector */
    CHECK_EQ_STR(create_msg(&f, BETA_PUB("{" SEL ",\"maxUnavailable\":1,\"ignoredPodSelector\":{"
                                         "\"matchLabels\":{}}}")),
                 "spec.ignoredPodSelector: Invalid value: v1.LabelSelector{MatchLabels:map[string]"
                 "string{}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty "
                 "ignoredPodSelector is not valid for PodUnavailableBudget");
    CHECK_EQ_STR(create_msg(&f, BETA_PUB("{" SEL ",\"maxUnavailable\":1,\"ignoredPodSelector\":{"
                                         "\"matchLabels\":{\"skip\":\"true\"}}}")),
                 "");
    wh_cluster_free(f.cl);
}

TEST(pub_validate_versions_operations_gates)
{
    struct vfx f;
    vfx_init(&f, "", "[]");
    /* v1alpha1: converted first, its annotations checked by the conversion */
    static const char alpha_bad_ops[] =
        "{\"apiVersion\":\"policy.kruise.io/v1alpha1\",\"kind\":\"PodUnavailableBudget\","
        "\"metadata\":{\"name\":\"p\",\"namespace\":\"ns\",\"annotations\":{"
        "\"kruise.io/pub-protect-operations\":\"DELETE, NOPE\"}},\"spec\":{" SEL
        ",\"maxUnavailable\":1}}";
    static const char alpha_bad_total[] =
        "{\"apiVersion\":\"policy.kruise.io/v1alpha1\",\"kind\":\"PodUnavailableBudget\","
        "\"metadata\":{\"name\":\"p\",\"namespace\":\"ns\",\"annotations\":{"
        "\"pub.kruise.io/protect-total-replicas\":\"99999999999\"}},\"spec\":{" SEL
        ",\"maxUnavailable\":1}}";
    static const char alpha_ok[] =
        "{\"apiVersion\":\"policy.kruise.io/v1alpha1\",\"kind\":\"PodUnavailableBudget\","
        "\"metadata\":{\"name\":\"p\",\"namespace\":\"ns\",\"annotations\":{"
        "\"kruise.io/pub-protect-operations\":\"DELETE, EVICT\"}},\"spec\":{" SEL
        ",\"maxUnavailable\":1}}";
    struct verdict v = review(&f, "CREATE", "v1alpha1", alpha_bad_ops, NULL);
    CHECK_EQ_INT(v.code, 400);
    CHECK_EQ_STR(v.msg, "failed to convert v1alpha1 PUB to v1beta1: invalid "
                        "kruise.io/pub-protect-operations value \"NOPE\"");
    v = review(&f, "CREATE", "v1alpha1", alpha_bad_total, NULL);
    CHECK_EQ_STR(v.msg, "failed to convert v1alpha1 PUB to v1beta1: failed to parse "
                        "pub.kruise.io/protect-total-replicas: strconv.ParseInt: parsing "
                        "\"99999999999\": value out of range");
    v = review(&f, "UPDATE", "v1alpha1", alpha_ok, alpha_bad_ops);
    CHECK_EQ_STR(v.msg, "failed to convert old v1alpha1 PUB to v1beta1: invalid "
                        "kruise.io/pub-protect-operations value \"NOPE\"");
    v = review(&f, "CREATE", "v1alpha1", alpha_ok, NULL);
    CHECK(v.allowed);
    /* a version the webhook does not know; operations other than CREATE and UPDATE */
    v = review(&f, "CREATE", "v2", alpha_ok, NULL);
    CHECK_EQ_INT(v.code, 400);
    CHECK_EQ_STR(v.msg, "unsupported version: v2");
    CHECK(review(&f, "DELETE", "v1beta1", NULL, BETA_PUB("{}")).allowed);
    /* what Go's decoder refuses, in its words */
    v = review(&f, "CREATE", "v1beta1", BETA_PUB("{" SEL ",\"maxUnavailable\":{}}"), NULL);
    CHECK_EQ_INT(v.code, 400);
    CHECK(wh_str_has_prefix(v.msg, "json: cannot unmarshal object into Go "));
    v = review(
        &f, "CREATE", "v1alpha1",
        "{\"apiVersion\":\"policy.kruise.io/v1alpha1\",\"kind\":\"PodUnavailableBudget\"," META
        ",\"spec\":{" SEL ",\"minAvailable\":[1]}}",
        NULL);
    CHECK_EQ_INT(v.code, 400);
    CHECK(wh_str_has_prefix(v.msg, "json: cannot unmarshal array into Go "));
    /* 7.6: selector and targetRef cannot change (null and absent are the same) */
    v = review(&f, "UPDATE", "v1beta1", BETA_PUB("{" SEL ",\"maxUnavailable\":2}"),
               BETA_PUB("{\"selector\":{\"matchLabels\":{\"app\":\"web\"},\"matchExpressions\":"
                        "null},\"targetRef\":null,\"maxUnavailable\":1}"));
    CHECK(v.allowed);
    v = review(&f, "UPDATE", "v1beta1", BETA_PUB("{" SEL ",\"maxUnavailable\":1}"),
               BETA_PUB("{\"selector\":{\"matchLabels\":{\"app\":\"api\"}},\"maxUnavailable\":1}"));
    CHECK_EQ_STR(v.msg, "spec.selector, targetRef: Required value: selector and targetRef cannot "
                        "be modified");
    wh_cluster_free(f.cl);
    /* 2: both gates off: every request refused */
    vfx_init(&f, "PodUnavailableBudgetDeleteGate=false", "[]");
    v = review(&f, "CREATE", "v1beta1", BETA_PUB("{" SEL ",\"maxUnavailable\":1}"), NULL);
    CHECK_EQ_INT(v.code, 400);
    CHECK_EQ_STR(v.msg, "feature PodUnavailableBudget is invalid, please open via "
                        "feature-gate(PodUnavailableBudgetDeleteGate, "
                        "PodUnavailableBudgetUpdateGate)");
    wh_cluster_free(f.cl);
    vfx_init(&f, "PodUnavailableBudgetDeleteGate=false,PodUnavailableBudgetUpdateGate=true", "[]");
    CHECK(
        review(&f, "CREATE", "v1beta1", BETA_PUB("{" SEL ",\"maxUnavailable\":1}"), NULL).allowed);
    wh_cluster_free(f.cl);
}

/* A PUB "name" in ns with spec. */
#define EXISTING(name, spec)                                                                       \
    "{\"apiVersion\":\"policy.kruise.io/v1beta1\",\"kind\":\"PodUnavailableBudget\",\"metadata\":" \
    "{\"name\":\"" name "\",\"namespace\":\"ns\"},\"spec\":" spec "}"

/* Whether a new PUB with selector sel conflicts with an existing one with selector other. */
static bool selector_conflict(const char *sel, const char *other)
{
    char existing[1024], object[1024];
    snprintf(existing, sizeof(existing),
             "[{\"kind\":\"PodUnavailableBudget\",\"apiVersion\":\"policy.kruise.io/v1beta1\","
             "\"metadata\":{\"name\":\"old\",\"namespace\":\"ns\"},\"spec\":{\"selector\":%s,"
             "\"maxUnavailable\":1}}]",
             other);
    snprintf(object, sizeof(object), BETA_PUB("{\"selector\":%s,\"maxUnavailable\":1}"), sel);
    struct vfx f;
    vfx_init(&f, "", existing);
    struct verdict v = review(&f, "CREATE", "v1beta1", object, NULL);
    wh_cluster_free(f.cl);
    CHECK(v.allowed || strstr(v.msg, "pub.spec.selector is in conflict with other "
                                     "PodUnavailableBudget old") != NULL);
    return !v.allowed;
}

#define EXPR(key, op, values)                                                                      \
    "{\"matchExpressions\":[{\"key\":\"" key "\",\"operator\":\"" op "\",\"values\":" values "}]}"

TEST(pub_validate_conflicts)
{
    struct vfx f;
    vfx_init(
        &f, "",
        "[" EXISTING(
            "a-ref",
            "{\"targetRef\":{\"apiVersion\":\"apps/v1beta2\",\"kind\":"
            "\"Deployment\",\"name\":\"web\"},\"maxUnavailable\":1}") "," EXISTING("p",
                                                                                   "{\"targetRef\":"
                                                                                   "{\"apiVersion\""
                                                                                   ":\"apps/"
                                                                                   "v1\",\"kind\":"
                                                                                   "\"StatefulSet\""
                                                                                   ","
                                                                                   "\"name\":"
                                                                                   "\"web\"},"
                                                                                   "\"maxUnavailabl"
                                                                                   "e\":1}") "]");
    /* 7.7: the same group, kind and name, whatever the version; the PUB itself is skipped */
    struct verdict v = review(&f, "CREATE", "v1beta1",
                              BETA_PUB("{\"targetRef\":{\"apiVersion\":\"apps/v1\",\"kind\":"
                                       "\"Deployment\",\"name\":\"web\"},\"maxUnavailable\":1}"),
                              NULL);
    CHECK_EQ_STR(v.msg, "spec.targetReference: Invalid value: v1beta1.TargetReference{"
                        "APIVersion:\"apps/v1\", Kind:\"Deployment\", Name:\"web\"}: "
                        "pub.spec.targetReference is in conflict with other PodUnavailableBudget "
                        "a-ref");
    CHECK(review(&f, "CREATE", "v1beta1",
                 BETA_PUB("{\"targetRef\":{\"apiVersion\":\"apps/v1\",\"kind\":\"StatefulSet\","
                          "\"name\":\"web\"},\"maxUnavailable\":1}"),
                 NULL)
              .allowed);
    wh_cluster_free(f.cl);
    /* loose overlap: the same keys, every key's requirements overlapping */
    const char *web = "{\"matchLabels\":{\"app\":\"web\"}}";
    CHECK(selector_conflict(web, web));
    CHECK(selector_conflict(web, EXPR("app", "In", "[\"web\",\"api\"]")));
    CHECK(!selector_conflict(web, EXPR("app", "In", "[\"api\"]")));
    CHECK(!selector_conflict(web, "{\"matchLabels\":{\"app\":\"web\",\"tier\":\"fe\"}}"));
    CHECK(selector_conflict(web, EXPR("app", "Exists", "[]")));
    CHECK(selector_conflict(web, EXPR("app", "NotIn", "[\"api\"]")));
    CHECK(!selector_conflict(web, EXPR("app", "NotIn", "[\"web\"]")));
    CHECK(!selector_conflict(web, EXPR("app", "DoesNotExist", "[]")));
    CHECK(selector_conflict(EXPR("app", "NotIn", "[\"a\"]"), EXPR("app", "NotIn", "[\"b\"]")));
    CHECK(selector_conflict(EXPR("app", "NotIn", "[\"a\"]"), EXPR("app", "DoesNotExist", "[]")));
    CHECK(selector_conflict(EXPR("app", "DoesNotExist", "[]"), EXPR("app", "DoesNotExist", "[]")));
    CHECK(!selector_conflict(EXPR("app", "Exists", "[]"), EXPR("app", "DoesNotExist", "[]")));
    /* matchLabels overrides an expression on the same key */
    CHECK(!selector_conflict("{\"matchLabels\":{\"app\":\"api\"},\"matchExpressions\":[{\"key\":"
                             "\"app\",\"operator\":\"In\",\"values\":[\"web\"]}]}",
                             web));
}

/* --- the Kubernetes semantics underneath --------------------------------------------------- */

TEST(pub_image_references)
{
    struct wh_imageref r;
    CHECK(wh_imageref_parse("nginx", &r) && r.name_len == 5 && !r.tag && !r.digest);
    CHECK(wh_imageref_parse("localhost:5000/a/b:v1.2-x_y", &r));
    CHECK(r.name_len == strlen("localhost:5000/a/b") && r.tag && r.tag_len == 8);
    CHECK(wh_imageref_parse("docker.io/library/nginx:1.25@sha256:"
                            "0d17b565c37bcbd895e9d92315a05c1c3c9a29f762b011a10c54a66cd53c9b31",
                            &r) &&
          r.tag && r.digest);
    static const char *const bad[] = {
        "",
        "Nginx",
        "nginx:",
        ":tag",
        "a//b",
        "-a",
        "a-",
        "a..b",
        "a___b",
        "a/b:c/d",
        "nginx@sha256:abc",
        "nginx@md5:0d17b565c37bcbd895e9d92315a05c1c",
        "nginx@sha256:0D17B565C37BCBD895E9D92315A05C1C3C9A29F762B011A10C54A66CD53C9B31",
        "host:port/a"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        if (wh_imageref_parse(bad[i], &r))
            fprintf(stderr, "parsed: %s\n", bad[i]);
        CHECK(!wh_imageref_parse(bad[i], &r));
    }
    CHECK(wh_imageref_parse("a.b-c__d--e/f", &r));
    CHECK(
        wh_imageref_is_digest("busybox@sha512:"
                              "0d17b565c37bcbd895e9d92315a05c1c3c9a29f762b011a10c54a66cd53c9b31"
                              "0d17b565c37bcbd895e9d92315a05c1c3c9a29f762b011a10c54a66cd53c9b31"));
    CHECK(!wh_imageref_is_digest("busybox:1"));
    CHECK(wh_imageref_equal("a/b:1", "a/b:1"));
    CHECK(!wh_imageref_equal("a/b:1", "a/b:2"));
    CHECK(!wh_imageref_equal("b:1", "docker.io/library/b:1"));
    CHECK(!wh_imageref_equal("a/b:1",
                             "a/b@sha256:"
                             "0d17b565c37bcbd895e9d92315a05c1c3c9a29f762b011a10c54a66cd53c9b31"));
}

static enum wh_pod_qos qos(const char *containers, const char *init)
{
    char buf[2048];
    snprintf(buf, sizeof(buf), "{\"spec\":{\"containers\":%s,\"initContainers\":%s}}", containers,
             init);
    json_t *p = wh_test_json(buf);
    enum wh_pod_qos q = wh_pod_qos(p);
    json_decref(p);
    return q;
}

TEST(pub_pod_qos_and_quantities)
{
    CHECK_EQ_INT(qos("[{}]", "[]"), WH_POD_QOS_BEST_EFFORT);
    /* zero values and other resources do not count */
    CHECK_EQ_INT(
        qos("[{\"resources\":{\"requests\":{\"cpu\":\"0\",\"nvidia.com/gpu\":\"1\"}}}]", "[]"),
        WH_POD_QOS_BEST_EFFORT);
    CHECK_EQ_INT(qos("[{\"resources\":{\"requests\":{\"cpu\":\"1\"}}}]", "[]"),
                 WH_POD_QOS_BURSTABLE);
    /* limits alone are not requests (the API server's defaulting adds those) */
    const char *l = "{\"resources\":{\"limits\":{\"cpu\":\"1\",\"memory\":\"1Gi\"}}}";
    char two[512];
    snprintf(two, sizeof(two), "[%s]", l);
    CHECK_EQ_INT(qos(two, "[]"), WH_POD_QOS_BURSTABLE);
    const char *g = "{\"resources\":{\"limits\":{\"cpu\":\"1\",\"memory\":\"1Gi\"},"
                    "\"requests\":{\"cpu\":\"1\",\"memory\":\"1Gi\"}}}";
    snprintf(two, sizeof(two), "[%s,%s]", g, g);
    CHECK_EQ_INT(qos(two, "[]"), WH_POD_QOS_GUARANTEED);
    /* summed requests against summed limits, init containers included */
    CHECK_EQ_INT(qos("[{\"resources\":{\"requests\":{\"cpu\":\"300m\",\"memory\":\"1Gi\"},"
                     "\"limits\":{\"cpu\":\"0.5\",\"memory\":\"1Gi\"}}},{\"resources\":{"
                     "\"requests\":{\"cpu\":\"700m\",\"memory\":\"1Gi\"},\"limits\":{\"cpu\":"
                     "\"500m\",\"memory\":\"1Gi\"}}}]",
                     "[]"),
                 WH_POD_QOS_GUARANTEED);
    CHECK_EQ_INT(qos(two, "[{\"resources\":{\"requests\":{\"cpu\":\"1\"}}}]"),
                 WH_POD_QOS_BURSTABLE);
    /* sums of quantities of different scales and formats */
    struct wh_quantity a, b;
    struct wh_errbuf eb = {{0}};
    char out[64];
    CHECK_EQ_INT(wh_quantity_parse("1Gi", &a, &eb), WH_OK);
    CHECK_EQ_INT(wh_quantity_parse("512Mi", &b, &eb), WH_OK);
    CHECK(wh_quantity_add(&a, &b));
    CHECK_EQ_INT(wh_quantity_parse("1536Mi", &b, &eb), WH_OK);
    CHECK_EQ_INT(wh_quantity_cmp(&a, &b), 0);
    CHECK_EQ_INT(wh_quantity_parse("999m", &a, &eb), WH_OK);
    CHECK_EQ_INT(wh_quantity_parse("1n", &b, &eb), WH_OK);
    CHECK(wh_quantity_add(&a, &b));
    wh_quantity_format(&a, out, sizeof(out));
    CHECK_EQ_STR(out, "999000001n");
    /* the group of an apiVersion */
    char group[64];
    CHECK(wh_ref_group_of("apps/v1", group, sizeof(group)) && strcmp(group, "apps") == 0);
    CHECK(wh_ref_group_of("v1", group, sizeof(group)) && group[0] == '\0');
    CHECK(wh_ref_group_of(NULL, group, sizeof(group)) && group[0] == '\0');
    CHECK(!wh_ref_group_of("a/b/c", group, sizeof(group)));
    bool b1 = false;
    CHECK(wh_str_to_go_bool("T", &b1) == WH_OK && b1);
    CHECK(wh_str_to_go_bool("yes", &b1) != WH_OK);
}

/* --- audit additions: rules of spec pub.md 7 no test pinned before ------------------------- */

#define ALPHA_WITH_TOTAL(value)                                                                    \
    "{\"apiVersion\":\"policy.kruise.io/v1alpha1\",\"kind\":\"PodUnavailableBudget\","             \
    "\"metadata\":{\"name\":\"p\",\"namespace\":\"ns\",\"annotations\":{"                          \
    "\"pub.kruise.io/protect-total-replicas\":\"" value "\"}},\"spec\":{" SEL                      \
    ",\"maxUnavailable\":1}}"

TEST(pub_validate_alpha_total_replicas)
{
    struct vfx f;
    vfx_init(&f, "", "[]");
    /* 7: the conversion's ParseInt error for text that is no number */
    struct verdict v = review(&f, "CREATE", "v1alpha1", ALPHA_WITH_TOTAL("ten"), NULL);
    CHECK_EQ_INT(v.code, 400);
    CHECK_EQ_STR(v.msg, "failed to convert v1alpha1 PUB to v1beta1: failed to parse "
                        "pub.kruise.io/protect-total-replicas: strconv.ParseInt: parsing "
                        "\"ten\": invalid syntax");
    /* 7.1 on the converted object: the annotation stays and must read as the decimal text of
     * the spec.protectTotalReplicas the conversion derived from it */
    CHECK(review(&f, "CREATE", "v1alpha1", ALPHA_WITH_TOTAL("7"), NULL).allowed);
    v = review(&f, "CREATE", "v1alpha1", ALPHA_WITH_TOTAL("07"), NULL);
    CHECK_EQ_INT(v.code, 400);
    CHECK_EQ_STR(v.msg, "metadata.annotations[pub.kruise.io/protect-total-replicas]: Invalid "
                        "value: \"07\": must match spec.protectTotalReplicas when both are set");
    /* an empty annotation is not converted (the conversion skips it) but is present: 7.1 */
    v = review(&f, "CREATE", "v1alpha1", ALPHA_WITH_TOTAL(""), NULL);
    CHECK_EQ_INT(v.code, 400);
    CHECK_EQ_STR(v.msg, "metadata.annotations[pub.kruise.io/protect-total-replicas]: Invalid "
                        "value: \"\": must be a valid int32");
    /* v1beta1: the annotation alone, a valid int32, with no spec field to match */
    CHECK_EQ_STR(create_msg(&f, "{\"metadata\":{\"name\":\"p\",\"namespace\":\"ns\","
                                "\"annotations\":{\"pub.kruise.io/protect-total-replicas\":"
                                "\"-3\"}},\"spec\":{" SEL ",\"maxUnavailable\":1}}"),
                 "");
    CHECK_EQ_STR(create_msg(&f, "{\"metadata\":{\"name\":\"p\",\"namespace\":\"ns\","
                                "\"annotations\":{\"pub.kruise.io/protect-total-replicas\":"
                                "\" 3\"}},\"spec\":{" SEL ",\"maxUnavailable\":1}}"),
                 "metadata.annotations[pub.kruise.io/protect-total-replicas]: Invalid value: "
                 "\" 3\": must be a valid int32");
    wh_cluster_free(f.cl);
}

TEST(pub_validate_selector_errors_and_immutable_target)
{
    struct vfx f;
    vfx_init(&f, "", "[]");
    /* 7.2: an operator Kubernetes does not know fails the label-selector validation and the
     * conversion to a selector (an Invalid with no detail), both reported */
    CHECK_EQ_STR(
        create_msg(&f, BETA_PUB("{\"selector\":{\"matchExpressions\":[{\"key\":\"app\","
                                "\"operator\":\"Near\"}]},\"maxUnavailable\":1}")),
        "[spec.selector.matchExpressions[0].operator: Invalid value: \"Near\": not a valid "
        "selector operator, spec.selector: Invalid value: v1.LabelSelector{MatchLabels:"
        "map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement{v1."
        "LabelSelectorRequirement{Key:\"app\", Operator:\"Near\", Values:[]string(nil)}}}]");
    /* the kind of a targetRef is not restricted, its group and version are free */
    CHECK_EQ_STR(create_msg(&f, BETA_PUB("{\"targetRef\":{\"apiVersion\":\"v1\",\"kind\":"
                                         "\"ReplicationController\",\"name\":\"w\"},"
                                         "\"maxUnavailable\":\"0%\"}")),
                 "");
    /* 7.6: a targetRef cannot change either (version included: the objects compare whole) */
    static const char ref_v1[] =
        BETA_PUB("{\"targetRef\":{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\","
                 "\"name\":\"web\"},\"maxUnavailable\":1}");
    struct verdict v =
        review(&f, "UPDATE", "v1beta1",
               BETA_PUB("{\"targetRef\":{\"apiVersion\":\"apps/v1beta2\",\"kind\":\"Deployment\","
                        "\"name\":\"web\"},\"maxUnavailable\":1}"),
               ref_v1);
    CHECK_EQ_STR(v.msg, "spec.selector, targetRef: Required value: selector and targetRef cannot "
                        "be modified");
    /* ... a selector may not replace it */
    v = review(&f, "UPDATE", "v1beta1", BETA_PUB("{" SEL ",\"maxUnavailable\":1}"), ref_v1);
    CHECK_EQ_STR(v.msg, "spec.selector, targetRef: Required value: selector and targetRef cannot "
                        "be modified");
    /* ... while the budget may change */
    CHECK(review(&f, "UPDATE", "v1beta1",
                 BETA_PUB("{\"targetRef\":{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\","
                          "\"name\":\"web\"},\"maxUnavailable\":\"50%\"}"),
                 ref_v1)
              .allowed);
    /* an empty matchLabels is not an absent one (reflect.DeepEqual of the decoded selectors) */
    v = review(&f, "UPDATE", "v1beta1",
               BETA_PUB("{\"selector\":{\"matchLabels\":{\"app\":\"web\"},\"matchExpressions\":"
                        "[]},\"maxUnavailable\":1}"),
               BETA_PUB("{" SEL ",\"maxUnavailable\":1}"));
    CHECK_EQ_STR(v.msg, "spec.selector, targetRef: Required value: selector and targetRef cannot "
                        "be modified");
    /* UPDATE needs the old object (Go's decoder: nothing to decode) */
    v = review(&f, "UPDATE", "v1beta1", BETA_PUB("{" SEL ",\"maxUnavailable\":1}"), NULL);
    CHECK_EQ_INT(v.code, 400);
    CHECK_EQ_STR(v.msg, "there is no content to decode");
    wh_cluster_free(f.cl);
}

TEST(pub_validate_gates_and_version_before_operation)
{
    struct vfx f;
    /* 2: with both gates off even a DELETE is refused (the gates are checked first) */
    vfx_init(&f, "PodUnavailableBudgetDeleteGate=false", "[]");
    struct verdict v = review(&f, "DELETE", "v1beta1", NULL, BETA_PUB("{}"));
    CHECK(!v.allowed);
    CHECK_EQ_INT(v.code, 400);
    wh_cluster_free(f.cl);
    /* 7: the version is dispatched on before the operation */
    vfx_init(&f, "", "[]");
    v = review(&f, "DELETE", "v2", NULL, BETA_PUB("{}"));
    CHECK_EQ_INT(v.code, 400);
    CHECK_EQ_STR(v.msg, "unsupported version: v2");
    CHECK(review(&f, "DELETE", "v1alpha1", NULL, BETA_PUB("{}")).allowed);
    wh_cluster_free(f.cl);
}

TEST(pub_validate_conflicts_namespace)
{
    struct vfx f;
    vfx_init(&f, "",
             "[" EXISTING("other-ns", "{\"selector\":{\"matchLabels\":{\"app\":\"web\"}},"
                                      "\"maxUnavailable\":1}") "]");
    /* the existing PUB is in ns; one in another namespace does not conflict with it */
    json_t *o = wh_test_json(BETA_PUB("{" SEL ",\"maxUnavailable\":1}"));
    json_object_set_new(json_object_get(o, "metadata"), "namespace", json_string("elsewhere"));
    char *text = json_dumps(o, JSON_COMPACT);
    CHECK(review(&f, "CREATE", "v1beta1", text, NULL).allowed);
    free(text);
    /* an object naming no namespace: upstream lists with an empty namespace, which is every
     * namespace */
    json_object_del(json_object_get(o, "metadata"), "namespace");
    text = json_dumps(o, JSON_COMPACT);
    struct verdict v = review(&f, "CREATE", "v1beta1", text, NULL);
    CHECK(strstr(v.msg, "pub.spec.selector is in conflict with other PodUnavailableBudget "
                        "other-ns") != NULL);
    free(text);
    json_decref(o);
    wh_cluster_free(f.cl);
}
