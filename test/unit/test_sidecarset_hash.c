/* The SidecarSet hash: the worked example of spec sidecarset.md section 7 byte for byte, the
 * upstream unit-test value, the init-container rule, and the Go encoding details the hash
 * depends on. */
#include <stdlib.h>
#include <string.h>

#include "handlers/sidecarset/defaults.h"
#include "handlers/sidecarset/hash.h"
#include "test/unit/test.h"

#define WORKED_INPUT                                                                               \
    "{\"containers\":[{\"name\":\"log-agent\",\"image\":\"log-agent:1.0\",\"resources\":{},"       \
    "\"volumeMounts\":[{\"name\":\"logs\",\"mountPath\":\"/var/log/app\"}],"                       \
    "\"terminationMessagePath\":\"/dev/termination-log\",\"terminationMessagePolicy\":\"File\","   \
    "\"imagePullPolicy\":\"IfNotPresent\",\"podInjectPolicy\":\"BeforeAppContainer\","             \
    "\"upgradeStrategy\":{\"upgradeType\":\"ColdUpgrade\"},\"shareVolumePolicy\":{\"type\":"       \
    "\"disabled\"}}]}"

static json_t *worked_example(void)
{
    return wh_test_json(
        "{\"apiVersion\":\"apps.kruise.io/v1beta1\",\"kind\":\"SidecarSet\","
        "\"metadata\":{\"name\":\"log-sidecarset\",\"labels\":{\"team\":\"infra\"}},"
        "\"spec\":{\"selector\":{\"matchLabels\":{\"app\":\"web\"}},"
        "\"containers\":[{\"name\":\"log-agent\",\"image\":\"log-agent:1.0\","
        "\"volumeMounts\":[{\"name\":\"logs\",\"mountPath\":\"/var/log/app\"}]}],"
        "\"volumes\":[{\"name\":\"logs\"}]}}");
}

TEST(sidecarset_hash_worked_example)
{
    json_t *ss = worked_example();
    wh_sidecarset_defaults(ss);
    char *in = wh_sidecarset_hash_input(ss, false);
    CHECK_EQ_STR(in, WORKED_INPUT);
    char *h = wh_sidecarset_hash(ss, false);
    CHECK_EQ_STR(h, "c444c599fz274268z8df4ff4c2fd28z4dd79vvcv254ffv75695244x495948w94");
    char *h2 = wh_sidecarset_hash(ss, true);
    CHECK_EQ_STR(h2, "d2xwz968cwbd65z7w6zxvw8c4d52vv784w4z4548x4424767b7z2d5cvb844872c");
    char *in2 = wh_sidecarset_hash_input(ss, true);
    CHECK(strstr(in2, "\"image\"") == NULL);
    free(in);
    free(in2);
    free(h);
    free(h2);
    json_decref(ss);
}

TEST(sidecarset_hash_annotate)
{
    json_t *ss = worked_example();
    wh_sidecarset_defaults(ss);
    wh_sidecarset_hash_annotate(ss, false);
    CHECK_EQ_STR(json_string_value(json_object_get(
                     json_object_get(json_object_get(ss, "metadata"), "annotations"),
                     "kruise.io/sidecarset-hash")),
                 "c444c599fz274268z8df4ff4c2fd28z4dd79vvcv254ffv75695244x495948w94");
    /* only_missing keeps existing non-empty values and fills empty ones */
    json_t *ann = json_object_get(json_object_get(ss, "metadata"), "annotations");
    json_object_set_new(ann, "kruise.io/sidecarset-hash", json_string("keep"));
    json_object_set_new(ann, "kruise.io/sidecarset-hash-without-image", json_string(""));
    wh_sidecarset_hash_annotate(ss, true);
    CHECK_EQ_STR(json_string_value(json_object_get(ann, "kruise.io/sidecarset-hash")), "keep");
    CHECK_EQ_STR(json_string_value(json_object_get(ann, "kruise.io/sidecarset-hash-without-image")),
                 "d2xwz968cwbd65z7w6zxvw8c4d52vv784w4z4548x4424767b7z2d5cvb844872c");
    wh_sidecarset_hash_annotate(ss, false);
    CHECK_EQ_STR(json_string_value(json_object_get(ann, "kruise.io/sidecarset-hash")),
                 "c444c599fz274268z8df4ff4c2fd28z4dd79vvcv254ffv75695244x495948w94");
    json_decref(ss);
}

TEST(sidecarset_hash_upstream_unit_value)
{
    /* upstream hash_test.go: a container with empty strategies, not defaulted */
    json_t *ss = wh_test_json("{\"spec\":{\"containers\":[{\"name\":\"container1\","
                              "\"image\":\"test-image\"}]}}");
    char *in = wh_sidecarset_hash_input(ss, false);
    CHECK_EQ_STR(in, "{\"containers\":[{\"name\":\"container1\",\"image\":\"test-image\","
                     "\"resources\":{},\"upgradeStrategy\":{},\"shareVolumePolicy\":{}}]}");
    char *h = wh_sidecarset_hash(ss, false);
    CHECK_EQ_STR(h, "w26c4x8fz245642fdv499b464248f974xddx4x55z5dw55bc6x66464fxz77dc78");
    free(in);
    free(h);
    json_decref(ss);
}

TEST(sidecarset_hash_init_containers)
{
    /* init containers count only when one of them is a native sidecar, and then all of them */
    json_t *plain =
        wh_test_json("{\"spec\":{\"initContainers\":[{\"name\":\"i\",\"image\":\"x\"}]}}");
    char *in = wh_sidecarset_hash_input(plain, false);
    CHECK_EQ_STR(in, "{\"containers\":null}");
    free(in);
    json_t *native = wh_test_json(
        "{\"spec\":{\"containers\":[],\"initContainers\":[{\"name\":\"a\",\"image\":\"x\"},"
        "{\"name\":\"b\",\"image\":\"y\",\"restartPolicy\":\"Always\"}]}}");
    in = wh_sidecarset_hash_input(native, false);
    CHECK_EQ_STR(in, "{\"containers\":[],\"initContainers\":[{\"name\":\"a\",\"image\":\"x\","
                     "\"resources\":{},\"upgradeStrategy\":{},\"shareVolumePolicy\":{}},"
                     "{\"name\":\"b\",\"image\":\"y\",\"resources\":{},\"restartPolicy\":"
                     "\"Always\",\"upgradeStrategy\":{},\"shareVolumePolicy\":{}}]}");
    free(in);
    /* without image blanks init containers too */
    in = wh_sidecarset_hash_input(native, true);
    CHECK(strstr(in, "\"image\"") == NULL);
    free(in);
    char *a = wh_sidecarset_hash(plain, false);
    json_t *plain2 = wh_test_json("{\"spec\":{\"initContainers\":[{\"name\":\"other\"}]}}");
    char *b = wh_sidecarset_hash(plain2, false);
    CHECK_EQ_STR(a, b);
    CHECK_EQ_INT(strlen(a), 64);
    free(a);
    free(b);
    json_decref(plain);
    json_decref(plain2);
    json_decref(native);
}

TEST(sidecarset_hash_go_encoding)
{
    /* field order of Go's structs, unknown fields dropped, quantities canonical, HTML escapes,
     * non-omitempty pointers printed as null, struct values never omitted */
    json_t *ss = wh_test_json(
        "{\"spec\":{\"containers\":[{\"tty\":true,\"unknown\":1,\"name\":\"c\","
        "\"env\":[{\"value\":\"<a&b>\",\"name\":\"E\"},{\"name\":\"F\",\"valueFrom\":"
        "{\"resourceFieldRef\":{\"resource\":\"limits.cpu\"}}}],"
        "\"resources\":{\"requests\":{\"memory\":\"1024Mi\",\"cpu\":\"0.5\"},\"limits\":{\"cpu\":1}"
        "},"
        "\"livenessProbe\":{\"periodSeconds\":5,\"grpc\":{\"port\":8080}},"
        "\"ports\":[{\"protocol\":\"TCP\",\"containerPort\":80}],"
        "\"transferEnv\":[{\"envNames\":[\"A\"],\"sourceContainerName\":\"app\"}],"
        "\"resourcesPolicy\":{\"targetContainersNameRegex\":\"x\"},"
        "\"shareVolumeDevicePolicy\":{},\"podInjectPolicy\":\"AfterAppContainer\"}]}}");
    char *in = wh_sidecarset_hash_input(ss, false);
    CHECK_EQ_STR(in,
                 "{\"containers\":[{\"name\":\"c\",\"ports\":[{\"containerPort\":80,\"protocol\":"
                 "\"TCP\"}],\"env\":[{\"name\":\"E\",\"value\":\"\\u003ca\\u0026b\\u003e\"},"
                 "{\"name\":\"F\",\"valueFrom\":{\"resourceFieldRef\":{\"resource\":"
                 "\"limits.cpu\",\"divisor\":\"0\"}}}],\"resources\":{\"limits\":{\"cpu\":\"1\"},"
                 "\"requests\":{\"cpu\":\"500m\",\"memory\":\"1Gi\"}},\"livenessProbe\":{\"grpc\":"
                 "{\"port\":8080,\"service\":null},\"periodSeconds\":5},\"tty\":true,"
                 "\"podInjectPolicy\":\"AfterAppContainer\",\"upgradeStrategy\":{},"
                 "\"shareVolumePolicy\":{},\"shareVolumeDevicePolicy\":{},\"transferEnv\":"
                 "[{\"sourceContainerName\":\"app\",\"envNames\":[\"A\"]}],\"resourcesPolicy\":"
                 "{\"targetContainersMode\":\"\",\"targetContainersNameRegex\":\"x\","
                 "\"resourcesExpr\":{}}}]}");
    free(in);
    json_decref(ss);
}
