/* /mutate-apps-kruise-io-sidecarset (spec sidecarset.md 6 and 11.11): vectors 020-021, then
 * every default of 6.1 in v1beta1 and v1alpha1, the no-patch rule and the error answers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "handlers/sidecarset/defaults.h"
#include "handlers/sidecarset/hash.h"
#include "test/support/admission_run.h"
#include "test/support/vector.h"
#include "test/unit/test.h"
#include "util/buf.h"
#include "util/json.h"
#include "util/str.h"

#define EP "/mutate-apps-kruise-io-sidecarset"

static bool run_vector(const char *file)
{
    char path[256];
    struct wh_vec v;
    struct wh_errbuf eb = {{0}};
    struct wh_buf diff;
    bool skipped = false, ok;
    snprintf(path, sizeof(path), "test/vectors/sidecarset/%s", file);
    if (wh_vec_load(path, &v, &eb)) {
        fprintf(stderr, "%s: %s\n", path, eb.msg);
        return false;
    }
    wh_buf_init(&diff, 1 << 20);
    ok = wh_vec_run_local(&v, &skipped, &diff) && !skipped;
    if (!ok)
        fprintf(stderr, "vector %s: %s\n%s\n", path, skipped ? "skipped" : "FAILED",
                diff.data ? diff.data : "");
    wh_buf_fini(&diff);
    wh_vec_fini(&v);
    return ok;
}

TEST(sidecarset_mutate_vectors)
{
    CHECK(run_vector("020-sidecarset-mutating-defaults-and-hash.json"));
    CHECK(run_vector("021-sidecarset-mutating-no-patch-when-defaulted.json"));
}

/* A request for object (steals it) in version ("v1beta1"/"v1alpha1") and operation. */
static json_t *request(const char *version, const char *op, json_t *object)
{
    return json_pack("{s:s,s:{s:s,s:s,s:s},s:{s:s,s:s,s:s},s:s,s:s,s:s,s:o,s:o}", "uid", "u-1",
                     "kind", "group", "apps.kruise.io", "version", version, "kind", "SidecarSet",
                     "resource", "group", "apps.kruise.io", "version", version, "resource",
                     "sidecarsets", "operation", op, "namespace", "", "name", "ss", "object",
                     object, "options", json_pack("{s:s}", "kind", "CreateOptions"));
}

/* Runs the mutating webhook on a v1beta1 CREATE of obj (a JSON literal); returns the patched
 * object (new ref) or NULL when no patch came back. */
static json_t *mutate(const char *version, const char *obj_text, struct wh_admrun *r)
{
    json_t *req = request(version, "CREATE", wh_test_json(obj_text));
    CHECK(wh_admrun(EP, NULL, NULL, req, r));
    json_decref(req);
    return r->object;
}

static const json_t *container0(const json_t *obj, const char *list)
{
    return json_array_get(wh_json_path(obj, "spec", list, NULL), 0);
}

TEST(sidecarset_mutate_strategy_defaults)
{
    struct wh_admrun r;
    const json_t *o =
        mutate("v1beta1",
               "{\"apiVersion\":\"apps.kruise.io/v1beta1\",\"kind\":\"SidecarSet\","
               "\"metadata\":{\"name\":\"ss\"},\"spec\":{\"containers\":[{\"name\":"
               "\"c\",\"image\":\"x:1\"}],\"patchPodMetadata\":[{\"annotations\":"
               "{\"a\":\"b\"}},{\"annotations\":{\"c\":\"d\"},\"patchPolicy\":"
               "\"Overwrite\"}],\"injectionStrategy\":{\"revision\":{\"customVersion\":"
               "\"v1\"}}}}",
               &r);
    CHECK(r.allowed);
    CHECK(o != NULL);
    json_t *want =
        wh_test_json("{\"type\":\"RollingUpdate\",\"maxUnavailable\":1,\"partition\":0}");
    CHECK_EQ_JSON(wh_json_path(o, "spec", "updateStrategy", NULL), want);
    json_decref(want);
    CHECK_EQ_INT(json_integer_value(wh_json_path(o, "spec", "revisionHistoryLimit", NULL)), 10);
    const json_t *ppm = wh_json_path(o, "spec", "patchPodMetadata", NULL);
    CHECK_EQ_STR(wh_json_str(json_array_get(ppm, 0), "patchPolicy"), "Retain");
    CHECK_EQ_STR(wh_json_str(json_array_get(ppm, 1), "patchPolicy"), "Overwrite");
    CHECK_EQ_STR(wh_json_path_str(o, "spec", "injectionStrategy", "revision", "policy", NULL),
                 "Always");
    /* Go's serialisation side effects */
    CHECK(json_is_null(wh_json_path(o, "metadata", "creationTimestamp", NULL)));
    want = wh_test_json("{\"matchedPods\":0,\"updatedPods\":0,\"readyPods\":0}");
    CHECK_EQ_JSON(json_object_get(o, "status"), want);
    json_decref(want);
    wh_admrun_fini(&r);

    /* set values are kept: NotUpdate, string partition and maxUnavailable, limit 0 */
    o = mutate(
        "v1beta1",
        "{\"metadata\":{\"name\":\"ss\"},\"spec\":{\"updateStrategy\":{\"type\":\"NotUpdate\","
        "\"partition\":\"10%\",\"maxUnavailable\":\"50%\"},\"revisionHistoryLimit\":0,"
        "\"injectionStrategy\":{\"paused\":true,\"revision\":{\"revisionName\":\"r\","
        "\"policy\":\"Partial\"}}}}",
        &r);
    want =
        wh_test_json("{\"type\":\"NotUpdate\",\"partition\":\"10%\",\"maxUnavailable\":\"50%\"}");
    CHECK_EQ_JSON(wh_json_path(o, "spec", "updateStrategy", NULL), want);
    json_decref(want);
    CHECK_EQ_INT(json_integer_value(wh_json_path(o, "spec", "revisionHistoryLimit", NULL)), 0);
    CHECK_EQ_STR(wh_json_path_str(o, "spec", "injectionStrategy", "revision", "policy", NULL),
                 "Partial");
    CHECK(json_is_true(wh_json_path(o, "spec", "injectionStrategy", "paused", NULL)));
    wh_admrun_fini(&r);
}

TEST(sidecarset_mutate_container_defaults)
{
    struct wh_admrun r;
    const json_t *o = mutate(
        "v1beta1",
        "{\"metadata\":{\"name\":\"ss\"},\"spec\":{"
        "\"initContainers\":[{\"name\":\"i\",\"image\":\"busybox\"}],"
        "\"containers\":[{\"name\":\"c\",\"image\":\"nginx:latest\","
        "\"ports\":[{\"containerPort\":80},{\"containerPort\":53,\"protocol\":\"UDP\"}],"
        "\"env\":[{\"name\":\"P\",\"valueFrom\":{\"fieldRef\":{\"fieldPath\":\"metadata.name\"}}}],"
        "\"transferEnv\":[{\"sourceContainerNameFrom\":{\"fieldRef\":{\"fieldPath\":"
        "\"metadata.labels['app']\"}},\"envName\":\"X\"}],"
        "\"resources\":{\"limits\":{\"cpu\":\"100u\",\"memory\":\"1Gi\"},\"requests\":{\"cpu\":\"0."
        "5\"}},"
        "\"livenessProbe\":{\"httpGet\":{\"port\":8080}},"
        "\"readinessProbe\":{\"tcpSocket\":{\"port\":80},\"periodSeconds\":3},"
        "\"startupProbe\":{\"httpGet\":{\"port\":8080}},"
        "\"lifecycle\":{\"postStart\":{\"httpGet\":{\"port\":1}},\"preStop\":{\"httpGet\":"
        "{\"port\":2,\"path\":\"/q\",\"scheme\":\"HTTPS\"}}},"
        "\"terminationMessagePath\":\"/tmp/t\"}]}}",
        &r);
    CHECK(o != NULL);
    const json_t *i = container0(o, "initContainers");
    CHECK_EQ_STR(wh_json_str(i, "podInjectPolicy"), "AfterAppContainer");
    CHECK_EQ_STR(wh_json_str(i, "imagePullPolicy"), "Always");
    CHECK_EQ_STR(wh_json_path_str(i, "upgradeStrategy", "upgradeType", NULL), "ColdUpgrade");
    CHECK_EQ_STR(wh_json_path_str(i, "shareVolumePolicy", "type", NULL), "disabled");
    CHECK(json_object_get(i, "shareVolumeDevicePolicy") == NULL);
    const json_t *c = container0(o, "containers");
    CHECK_EQ_STR(wh_json_str(c, "podInjectPolicy"), "BeforeAppContainer");
    CHECK_EQ_STR(wh_json_str(c, "imagePullPolicy"), "Always");
    CHECK_EQ_STR(wh_json_str(c, "terminationMessagePath"), "/tmp/t");
    CHECK_EQ_STR(wh_json_str(c, "terminationMessagePolicy"), "File");
    CHECK_EQ_STR(wh_json_str(json_array_get(json_object_get(c, "ports"), 0), "protocol"), "TCP");
    CHECK_EQ_STR(wh_json_str(json_array_get(json_object_get(c, "ports"), 1), "protocol"), "UDP");
    CHECK_EQ_STR(wh_json_path_str(json_array_get(json_object_get(c, "env"), 0), "valueFrom",
                                  "fieldRef", "apiVersion", NULL),
                 "v1");
    CHECK_EQ_STR(wh_json_path_str(json_array_get(json_object_get(c, "transferEnv"), 0),
                                  "sourceContainerNameFrom", "fieldRef", "apiVersion", NULL),
                 "v1");
    json_t *want = wh_test_json("{\"limits\":{\"cpu\":\"1m\",\"memory\":\"1Gi\"},"
                                "\"requests\":{\"cpu\":\"500m\"}}");
    CHECK_EQ_JSON(json_object_get(c, "resources"), want);
    json_decref(want);
    want = wh_test_json("{\"httpGet\":{\"path\":\"/\",\"port\":8080,\"scheme\":\"HTTP\"},"
                        "\"timeoutSeconds\":1,\"periodSeconds\":10,\"successThreshold\":1,"
                        "\"failureThreshold\":3}");
    CHECK_EQ_JSON(json_object_get(c, "livenessProbe"), want);
    json_decref(want);
    want = wh_test_json("{\"tcpSocket\":{\"port\":80},\"timeoutSeconds\":1,\"periodSeconds\":3,"
                        "\"successThreshold\":1,\"failureThreshold\":3}");
    CHECK_EQ_JSON(json_object_get(c, "readinessProbe"), want);
    json_decref(want);
    /* startup probes are not defaulted upstream */
    want = wh_test_json("{\"httpGet\":{\"port\":8080}}");
    CHECK_EQ_JSON(json_object_get(c, "startupProbe"), want);
    json_decref(want);
    want = wh_test_json("{\"postStart\":{\"httpGet\":{\"path\":\"/\",\"port\":1,\"scheme\":"
                        "\"HTTP\"}},\"preStop\":{\"httpGet\":{\"path\":\"/q\",\"port\":2,"
                        "\"scheme\":\"HTTPS\"}}}");
    CHECK_EQ_JSON(json_object_get(c, "lifecycle"), want);
    json_decref(want);
    wh_admrun_fini(&r);
}

TEST(sidecarset_mutate_image_pull_policy)
{
    static const struct {
        const char *image, *policy;
    } cases[] = {
        {"busybox", "Always"},
        {"busybox:latest", "Always"},
        {"busybox:1.36", "IfNotPresent"},
        {"registry.example.com:5000/team/app", "Always"},
        {"registry.example.com:5000/team/app:v2", "IfNotPresent"},
        {"localhost/app", "Always"},
        {"busybox@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
         "IfNotPresent"},
        {"busybox:latest@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
         "Always"},
        {"Busybox", "IfNotPresent"}, /* not a valid reference: upstream ignores the error */
        {"", "IfNotPresent"},
    };
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        char obj[512];
        struct wh_admrun r;
        snprintf(obj, sizeof(obj),
                 "{\"metadata\":{\"name\":\"ss\"},\"spec\":{\"containers\":[{\"name\":\"c\","
                 "\"image\":\"%s\"}]}}",
                 cases[k].image);
        const json_t *o = mutate("v1beta1", obj, &r);
        const char *got = wh_json_str(container0(o, "containers"), "imagePullPolicy");
        if (!got || strcmp(got, cases[k].policy) != 0)
            fprintf(stderr, "image %s\n", cases[k].image);
        CHECK_EQ_STR(got, cases[k].policy);
        wh_admrun_fini(&r);
    }
}

TEST(sidecarset_mutate_volume_defaults)
{
    struct wh_admrun r;
    const json_t *o = mutate(
        "v1beta1",
        "{\"metadata\":{\"name\":\"ss\"},\"spec\":{\"volumes\":["
        "{\"name\":\"a\"},"
        "{\"name\":\"b\",\"hostPath\":{\"path\":\"/x\"}},"
        "{\"name\":\"c\",\"secret\":{\"secretName\":\"s\"}},"
        "{\"name\":\"d\",\"configMap\":{\"name\":\"m\",\"defaultMode\":256}},"
        "{\"name\":\"e\",\"downwardAPI\":{\"items\":[{\"path\":\"p\",\"fieldRef\":{\"fieldPath\":"
        "\"metadata.name\"}}]}},"
        "{\"name\":\"f\",\"projected\":{\"sources\":[{\"serviceAccountToken\":{\"path\":\"t\"}},"
        "{\"downwardAPI\":{\"items\":[{\"path\":\"q\",\"fieldRef\":{\"fieldPath\":\"metadata.uid\"}"
        "}]}}]}}"
        "]}}",
        &r);
    json_t *want = wh_test_json(
        "[{\"name\":\"a\",\"emptyDir\":{}},"
        "{\"name\":\"b\",\"hostPath\":{\"path\":\"/x\",\"type\":\"\"}},"
        "{\"name\":\"c\",\"secret\":{\"secretName\":\"s\",\"defaultMode\":420}},"
        "{\"name\":\"d\",\"configMap\":{\"name\":\"m\",\"defaultMode\":256}},"
        "{\"name\":\"e\",\"downwardAPI\":{\"items\":[{\"path\":\"p\",\"fieldRef\":{\"apiVersion\":"
        "\"v1\",\"fieldPath\":\"metadata.name\"}}],\"defaultMode\":420}},"
        "{\"name\":\"f\",\"projected\":{\"sources\":[{\"serviceAccountToken\":{\"path\":\"t\","
        "\"expirationSeconds\":3600}},{\"downwardAPI\":{\"items\":[{\"path\":\"q\",\"fieldRef\":"
        "{\"apiVersion\":\"v1\",\"fieldPath\":\"metadata.uid\"}}]}}],\"defaultMode\":420}}]");
    CHECK_EQ_JSON(wh_json_path(o, "spec", "volumes", NULL), want);
    json_decref(want);
    wh_admrun_fini(&r);
}

TEST(sidecarset_mutate_v1alpha1)
{
    /* decoded as v1alpha1: spec.namespace kept, the v1beta1-only customVersion dropped */
    struct wh_admrun r;
    const json_t *o =
        mutate("v1alpha1",
               "{\"apiVersion\":\"apps.kruise.io/v1alpha1\",\"kind\":\"SidecarSet\","
               "\"metadata\":{\"name\":\"ss\",\"labels\":{\"apps.kruise.io/"
               "sidecarset-custom-version\":\"v1\"}},\"spec\":{\"namespace\":\"ns1\","
               "\"customVersion\":\"x\",\"selector\":{\"matchLabels\":{\"a\":\"b\"}},"
               "\"containers\":[{\"name\":\"log-agent\",\"image\":\"log-agent:1.0\","
               "\"volumeMounts\":[{\"name\":\"logs\",\"mountPath\":\"/var/log/app\"}]}]}}",
               &r);
    CHECK(r.allowed);
    CHECK_EQ_STR(wh_json_path_str(o, "spec", "namespace", NULL), "ns1");
    CHECK(wh_json_path(o, "spec", "customVersion", NULL) == NULL);
    CHECK_EQ_STR(
        wh_json_path_str(o, "metadata", "labels", "apps.kruise.io/sidecarset-custom-version", NULL),
        "v1");
    /* the same containers as the worked example: the same hash in both versions */
    CHECK_EQ_STR(wh_json_path_str(o, "metadata", "annotations", "kruise.io/sidecarset-hash", NULL),
                 "c444c599fz274268z8df4ff4c2fd28z4dd79vvcv254ffv75695244x495948w94");
    CHECK_EQ_STR(wh_json_str(container0(o, "containers"), "podInjectPolicy"), "BeforeAppContainer");
    wh_admrun_fini(&r);
}

TEST(sidecarset_mutate_patch_only_when_changed)
{
    /* a wrong hash annotation is rewritten; everything else already defaulted */
    struct wh_admrun r;
    const char *obj =
        "{\"apiVersion\":\"apps.kruise.io/v1beta1\",\"kind\":\"SidecarSet\",\"metadata\":{"
        "\"name\":\"ss\",\"annotations\":{\"kruise.io/sidecarset-hash\":\"stale\","
        "\"kruise.io/"
        "sidecarset-hash-without-image\":"
        "\"d2xwz968cwbd65z7w6zxvw8c4d52vv784w4z4548x4424767b7z2d5cvb844872c\"}},"
        "\"spec\":{\"containers\":[{\"name\":\"log-agent\",\"image\":\"log-agent:1.0\","
        "\"resources\":{},\"volumeMounts\":[{\"name\":\"logs\",\"mountPath\":\"/var/log/app\"}],"
        "\"terminationMessagePath\":\"/dev/termination-log\",\"terminationMessagePolicy\":\"File\","
        "\"imagePullPolicy\":\"IfNotPresent\",\"podInjectPolicy\":\"BeforeAppContainer\","
        "\"upgradeStrategy\":{\"upgradeType\":\"ColdUpgrade\"},\"shareVolumePolicy\":{\"type\":"
        "\"disabled\"}}],\"updateStrategy\":{\"type\":\"RollingUpdate\",\"maxUnavailable\":1,"
        "\"partition\":0},\"revisionHistoryLimit\":10}}";
    const json_t *o = mutate("v1beta1", obj, &r);
    CHECK(r.allowed);
    CHECK(r.patched);
    CHECK_EQ_STR(wh_json_path_str(o, "metadata", "annotations", "kruise.io/sidecarset-hash", NULL),
                 "c444c599fz274268z8df4ff4c2fd28z4dd79vvcv254ffv75695244x495948w94");
    CHECK(json_is_object(wh_json_path(o, "spec", "injectionStrategy", NULL)));
    wh_admrun_fini(&r);

    /* DELETE (or CONNECT) requests are decoded but not defaulted: no patch */
    json_t *req = request("v1beta1", "DELETE", wh_test_json(obj));
    CHECK(wh_admrun(EP, NULL, NULL, req, &r));
    CHECK(r.allowed);
    CHECK(!r.patched);
    wh_admrun_fini(&r);
    json_decref(req);
}

TEST(sidecarset_mutate_errors)
{
    struct wh_admrun r;
    json_t *req = request("v2", "CREATE", wh_test_json("{\"metadata\":{\"name\":\"ss\"}}"));
    CHECK(wh_admrun(EP, NULL, NULL, req, &r));
    CHECK(!r.allowed);
    CHECK_EQ_INT(r.code, 400);
    CHECK_EQ_STR(r.message, "unsupported version: v2");
    wh_admrun_fini(&r);
    json_decref(req);

    /* a value of the wrong type fails decoding: 400 */
    req = request("v1beta1", "CREATE",
                  wh_test_json("{\"metadata\":{\"name\":\"ss\"},\"spec\":{\"revisionHistoryLimit\":"
                               "\"ten\"}}"));
    CHECK(wh_admrun(EP, NULL, NULL, req, &r));
    CHECK(!r.allowed);
    CHECK_EQ_INT(r.code, 400);
    CHECK(strstr(r.message, "cannot unmarshal string") != NULL);
    wh_admrun_fini(&r);
    json_decref(req);

    /* sourceContainerNameFrom without fieldRef: upstream's defaulting panics (spec 11.12) */
    req = request("v1beta1", "CREATE",
                  wh_test_json("{\"metadata\":{\"name\":\"ss\"},\"spec\":{\"containers\":[{"
                               "\"name\":\"c\",\"image\":\"x\",\"transferEnv\":[{"
                               "\"sourceContainerNameFrom\":{},\"envName\":\"E\"}]}]}}"));
    CHECK(wh_admrun(EP, NULL, NULL, req, &r));
    CHECK(!r.allowed);
    CHECK_EQ_INT(r.code, 500);
    CHECK(strstr(r.message, "nil pointer dereference") != NULL);
    wh_admrun_fini(&r);
    json_decref(req);
}

TEST(sidecarset_mutate_hash_keeps_empty_containers)
{
    /* Go hashes an empty containers list as [], not null, although the encoding omits it */
    const char *obj = "{\"metadata\":{\"name\":\"ss\"},\"spec\":{\"containers\":[],"
                      "\"initContainers\":[{\"name\":\"i\",\"image\":\"x:1\",\"restartPolicy\":"
                      "\"Always\"}]}}";
    json_t *local = wh_test_json(obj);
    wh_sidecarset_defaults(local);
    char *in = wh_sidecarset_hash_input(local, false);
    CHECK(wh_str_has_prefix(in, "{\"containers\":[],\"initContainers\":["));
    char *want = wh_sidecarset_hash(local, false);
    struct wh_admrun r;
    const json_t *o = mutate("v1beta1", obj, &r);
    CHECK_EQ_STR(wh_json_path_str(o, "metadata", "annotations", "kruise.io/sidecarset-hash", NULL),
                 want);
    CHECK(json_object_get(json_object_get(o, "spec"), "containers") == NULL);
    wh_admrun_fini(&r);
    free(in);
    free(want);
    json_decref(local);
}
