/* /mutate-apps-kruise-io-containerrecreaterequest: each rule of upstream's handler in process,
 * on a Pod and Node built here (the vectors in test/handler-vectors/containerrecreaterequest/
 * carry upstream's own answers to the same questions). */
#include <stdlib.h>
#include <string.h>

#include "test/support/admission_run.h"
#include "test/unit/test.h"
#include "util/json.h"

#define EP "/mutate-apps-kruise-io-containerrecreaterequest"

#define POD                                                                                        \
    "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\",\"namespace\":\"ns\","  \
    "\"uid\":\"pod-uid\"},\"spec\":{\"nodeName\":\"n1\",\"terminationGracePeriodSeconds\":30,"    \
    "\"containers\":[{\"name\":\"app\",\"image\":\"nginx\",\"ports\":[{\"containerPort\":80}],"   \
    "\"lifecycle\":{\"preStop\":{\"httpGet\":{\"path\":\"/q\",\"port\":80},\"sleep\":{"           \
    "\"seconds\":1}}}},{\"name\":\"side\",\"image\":\"busybox\"}]},\"status\":{\"phase\":"         \
    "\"Running\",\"containerStatuses\":[{\"name\":\"app\",\"containerID\":\"containerd://a\","    \
    "\"restartCount\":2},{\"name\":\"side\",\"containerID\":\"\",\"restartCount\":0}]}}"
#define NODE(labels)                                                                               \
    "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"n1\"" labels "}}"

struct crr_case {
    const char *version; /* v1alpha1 or v1beta1 */
    const char *op;
    const char *spec;   /* the CRR's spec, JSON */
    const char *old;    /* oldObject's spec on UPDATE */
    const char *labels; /* the CRR's labels (JSON object) or NULL */
    const char *old_labels;
    const char *annotations, *old_annotations;
    const char *pod, *node; /* NULL: POD and a plain node */
    const char *gates;
};

static json_t *crr(const char *version, const char *spec, const char *labels, const char *anns)
{
    json_t *o = json_pack("{s:s,s:s,s:{s:s,s:s},s:o}", "apiVersion",
                          strcmp(version, "v1beta1") == 0 ? "apps.kruise.io/v1beta1"
                                                          : "apps.kruise.io/v1alpha1",
                          "kind", "ContainerRecreateRequest", "metadata", "name", "c", "namespace",
                          "ns", "spec", wh_test_json(spec));
    if (labels)
        json_object_set_new(json_object_get(o, "metadata"), "labels", wh_test_json(labels));
    if (anns)
        json_object_set_new(json_object_get(o, "metadata"), "annotations", wh_test_json(anns));
    return o;
}

static void run(const struct crr_case *c, struct wh_admrun *r)
{
    const char *op = c->op ? c->op : "CREATE";
    json_t *req = json_pack(
        "{s:s,s:{s:s,s:s,s:s},s:{s:s,s:s,s:s},s:s,s:s,s:s,s:o,s:o,s:{s:s}}", "uid", "u", "kind",
        "group", "apps.kruise.io", "version", c->version, "kind", "ContainerRecreateRequest",
        "resource", "group", "apps.kruise.io", "version", c->version, "resource",
        "containerrecreaterequests", "operation", op, "namespace", "ns", "name", "c", "object",
        crr(c->version, c->spec, c->labels, c->annotations), "oldObject",
        c->old ? crr(c->version, c->old, c->old_labels, c->old_annotations) : json_null(),
        "options", "kind", strcmp(op, "UPDATE") == 0 ? "UpdateOptions" : "CreateOptions");
    json_t *cluster = json_array();
    json_array_append_new(cluster, wh_test_json(c->pod ? c->pod : POD));
    json_array_append_new(cluster, wh_test_json(c->node ? c->node : NODE("")));
    CHECK(wh_admrun(EP, c->gates, cluster, req, r));
    json_decref(cluster);
    json_decref(req);
}

/* A refusal with code and the whole message. */
static void refused(const struct crr_case *c, int code, const char *msg)
{
    struct wh_admrun r;
    run(c, &r);
    CHECK(!r.allowed);
    CHECK_EQ_INT(r.code, code);
    CHECK_EQ_STR(r.message, msg);
    CHECK(!r.patched);
    wh_admrun_fini(&r);
}

#define APP "{\"podName\":\"p\",\"containers\":[{\"name\":\"app\"}]}"

TEST(crr_gate_and_request_rules)
{
    refused(&(struct crr_case){"v1beta1", .spec = APP, .gates = "KruiseDaemon=false"}, 403,
            "feature-gate KruiseDaemon is not enabled");
    refused(&(struct crr_case){"v1beta1", .spec = "{\"containers\":[{\"name\":\"app\"}]}"}, 400,
            "podName can not be empty");
    refused(&(struct crr_case){"v1alpha1", .spec = "{\"podName\":\"p\",\"containers\":[]}"}, 400,
            "containers list can not be null");
    refused(&(struct crr_case){"v1beta1", .spec = "{\"podName\":\"p\",\"containers\":[{\"name\":"
                                                  "\"app\"}],\"activeDeadlineSeconds\":2}"},
            400, "activeDeadlineSeconds can not be less than 3s");
    refused(&(struct crr_case){"v1beta1",
                               .spec = "{\"podName\":\"p\",\"containers\":[{\"name\":\"app\"}],"
                                       "\"strategy\":{\"terminationGracePeriodSeconds\":-1}}"},
            400, "terminationGracePeriodSeconds must be non-negative integer");
    refused(&(struct crr_case){"v1alpha1",
                               .spec = "{\"podName\":\"p\",\"containers\":[{\"name\":\"app\"}],"
                                       "\"strategy\":{\"unreadyGracePeriodSeconds\":-5}}"},
            400, "unreadyGracePeriodSeconds must be non-negative integer");
    refused(&(struct crr_case){"v1beta1",
                               .spec = "{\"podName\":\"p\",\"containers\":[{\"name\":\"app\"}],"
                                       "\"strategy\":{\"failurePolicy\":\"Retry\"}}"},
            400, "unknown failurePolicy Retry");
    refused(&(struct crr_case){"v1beta1", .spec = "{\"podName\":7}"}, 400,
            "json: cannot unmarshal number into Go struct field ContainerRecreateRequestSpec."
            "spec.podName of type string");
}

TEST(crr_pod_and_node_rules)
{
    refused(&(struct crr_case){"v1beta1", .spec = "{\"podName\":\"q\",\"containers\":[{\"name\":"
                                                  "\"app\"}]}"},
            400, "no found Pod named q");
    refused(&(struct crr_case){"v1beta1", .spec = APP,
                               .pod = "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{"
                                      "\"name\":\"p\",\"namespace\":\"ns\"},\"spec\":{"
                                      "\"containers\":[]},\"status\":{\"phase\":\"Failed\"}}"},
            400, "not allowed to recreate containers in an inactive Pod");
    refused(&(struct crr_case){"v1beta1", .spec = APP,
                               .pod = "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{"
                                      "\"name\":\"p\",\"namespace\":\"ns\"},\"spec\":{"
                                      "\"containers\":[]},\"status\":{\"phase\":\"Pending\"}}"},
            400, "not allowed to recreate containers in a pending Pod");
    refused(&(struct crr_case){"v1beta1", .spec = APP,
                               .node = "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{"
                                       "\"name\":\"n2\"}}"},
            400, "failed to get Node n1: Node \"n1\" not found");
}

TEST(crr_container_rules)
{
    refused(&(struct crr_case){"v1beta1", .spec = "{\"podName\":\"p\",\"containers\":[{\"name\":"
                                                  "\"app\"},{\"name\":\"app\"}]}"},
            400, "can not recreate app multi times");
    refused(&(struct crr_case){"v1alpha1", .spec = "{\"podName\":\"p\",\"containers\":[{\"name\":"
                                                   "\"app\",\"ports\":[]}]}"},
            400, "preStop, ports, statusContext in container are ready-only fields");
    refused(&(struct crr_case){"v1beta1", .spec = "{\"podName\":\"p\",\"containers\":[{\"name\":"
                                                  "\"nope\"}]}"},
            400, "container nope not found in Pod");
    refused(&(struct crr_case){"v1beta1", .spec = "{\"podName\":\"p\",\"containers\":[{\"name\":"
                                                  "\"side\"}]}"},
            400,
            "no containerID in side containerStatus, maybe the container has not been "
            "initialized");
}

TEST(crr_injects_pod_facts)
{
    struct wh_admrun r;
    run(&(struct crr_case){"v1beta1", .spec = APP, .node = NODE(",\"labels\":{\"type\":"
                                                                "\"virtual-kubelet\"}")},
        &r);
    CHECK(r.allowed);
    CHECK(r.object != NULL);
    const json_t *labels = wh_json_path(r.object, "metadata", "labels", NULL);
    CHECK_EQ_STR(wh_json_str(labels, "crr.apps.kruise.io/active"), "true");
    CHECK_EQ_STR(wh_json_str(labels, "crr.apps.kruise.io/node-name"), "n1");
    CHECK_EQ_STR(wh_json_str(labels, "crr.apps.kruise.io/pod-uid"), "pod-uid");
    CHECK_EQ_STR(wh_json_str(labels, "type"), "virtual-kubelet");
    const json_t *spec = json_object_get(r.object, "spec");
    CHECK_EQ_STR(wh_json_path_str(spec, "strategy", "failurePolicy", NULL), "Fail");
    CHECK_EQ_INT(json_integer_value(wh_json_path(spec, "strategy",
                                                 "terminationGracePeriodSeconds", NULL)),
                 30);
    const json_t *c = json_array_get(json_object_get(spec, "containers"), 0);
    /* the hook's exec/httpGet/tcpSocket only, and the ports because it is an httpGet */
    CHECK(wh_json_path(c, "preStop", "httpGet", NULL) != NULL);
    CHECK(wh_json_path(c, "preStop", "sleep", NULL) == NULL);
    CHECK_EQ_INT(json_array_size(json_object_get(c, "ports")), 1);
    CHECK_EQ_STR(wh_json_path_str(c, "statusContext", "containerID", NULL), "containerd://a");
    CHECK_EQ_INT(json_integer_value(wh_json_path(c, "statusContext", "restartCount", NULL)), 2);
    wh_admrun_fini(&r);

    /* a plain Node adds no type label; the strategy's own grace period and policy stay */
    run(&(struct crr_case){"v1alpha1",
                           .spec = "{\"podName\":\"p\",\"containers\":[{\"name\":\"app\"}],"
                                   "\"strategy\":{\"failurePolicy\":\"Ignore\","
                                   "\"terminationGracePeriodSeconds\":5}}"},
        &r);
    CHECK(r.allowed);
    CHECK(wh_json_path(r.object, "metadata", "labels", "type", NULL) == NULL);
    CHECK_EQ_STR(wh_json_path_str(r.object, "spec", "strategy", "failurePolicy", NULL), "Ignore");
    CHECK_EQ_INT(json_integer_value(wh_json_path(r.object, "spec", "strategy",
                                                 "terminationGracePeriodSeconds", NULL)),
                 5);
    wh_admrun_fini(&r);
}

TEST(crr_update_rules)
{
    refused(&(struct crr_case){"v1beta1", "UPDATE", .spec = APP,
                               .old = "{\"podName\":\"other\",\"containers\":[{\"name\":\"app\"}]}"},
            403, "spec of ContainerRecreateRequest is immutable");
    refused(&(struct crr_case){"v1alpha1", "UPDATE", .spec = APP, .old = APP,
                               .labels = "{\"crr.apps.kruise.io/pod-uid\":\"x\"}"},
            403, "not allowed to update immutable label crr.apps.kruise.io/pod-uid");
    refused(&(struct crr_case){"v1beta1", "UPDATE", .spec = APP, .old = APP,
                               .old_labels = "{\"crr.apps.kruise.io/node-name\":\"n1\"}"},
            403, "not allowed to update immutable label crr.apps.kruise.io/node-name");
    /* the unready-acquired annotation: fixed once set, in v1alpha1 only */
    const char *was = "{\"crr.apps.kruise.io/unready-acquired\":\"1\"}";
    refused(&(struct crr_case){"v1alpha1", "UPDATE", .spec = APP, .old = APP,
                               .old_annotations = was},
            403,
            "not allowed to update immutable annotation crr.apps.kruise.io/unready-acquired");
    struct wh_admrun r;
    run(&(struct crr_case){"v1beta1", "UPDATE", .spec = APP, .old = APP, .old_annotations = was},
        &r);
    CHECK(r.allowed);
    CHECK(!r.patched);
    wh_admrun_fini(&r);
    run(&(struct crr_case){"v1alpha1", "UPDATE", .spec = APP, .old = APP, .annotations = was},
        &r);
    CHECK(r.allowed);
    CHECK(!r.patched);
    wh_admrun_fini(&r);
}
