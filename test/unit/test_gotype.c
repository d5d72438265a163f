/* The Go-type model (gocompat/gotype.h) and Go's time texts (gocompat/gotime.h). Expected
 * messages are written from encoding/json's and time.Parse's rules, not from our output. */
#include <stdlib.h>
#include <string.h>

#include "gocompat/goenc.h"
#include "gocompat/gotime.h"
#include "gocompat/gotype.h"
#include "test/unit/test.h"
#include "util/buf.h"

static const struct wh_gotype *type_of(const char *api, const char *name)
{
    const struct wh_gotype *t = wh_gotype_lookup(api, name);
    if (!t)
        fprintf(stderr, "no type %s %s\n", api, name);
    CHECK(t != NULL);
    return t;
}

/* The message of checking text against api.name, or "(ok)". Returns: a static buffer. */
static const char *check_msg(const char *api, const char *name, const char *text)
{
    static struct wh_errbuf eb;
    json_t *v = wh_test_json(text);
    enum wh_err rc = wh_gotype_check(v, type_of(api, name), &eb);
    json_decref(v);
    return rc ? eb.msg : "(ok)";
}

TEST(gotype_model_compiles_and_names)
{
    const struct wh_gotype *pod = type_of("v1", "Pod");
    CHECK_EQ_STR(wh_gotype_name(pod), "v1.Pod");
    CHECK_EQ_INT(wh_gotype_kind(pod), WH_GK_STRUCT);
    /* TypeMeta's members are promoted, in Go's order */
    CHECK_EQ_STR(wh_gotype_field(pod, 0)->name, "kind");
    CHECK_EQ_STR(wh_gotype_field(pod, 1)->name, "apiVersion");
    const struct wh_gofield *spec = wh_gotype_member(pod, "spec");
    CHECK(spec && (spec->flags & WH_GOF_OMITEMPTY));
    const struct wh_gofield *containers = wh_gotype_member(spec->type, "containers");
    CHECK(containers && !(containers->flags & WH_GOF_OMITEMPTY));
    CHECK_EQ_STR(wh_gotype_name(containers->type), "[]v1.Container");
    CHECK_EQ_INT(containers->patch, WH_GOPATCH_MERGE);
    CHECK_EQ_STR(containers->merge_key, "name");
    CHECK(wh_gotype_member(spec->type, "Containers") == NULL);
    const struct wh_gofield *vols = wh_gotype_member(spec->type, "volumes");
    CHECK_EQ_INT(vols->patch, WH_GOPATCH_MERGE);
    /* a named map, a pointer */
    const struct wh_gotype *res = type_of("v1", "ResourceRequirements");
    CHECK_EQ_STR(wh_gotype_name(wh_gotype_member(res, "limits")->type), "v1.ResourceList");
    CHECK_EQ_INT(wh_gotype_kind(wh_gotype_elem(wh_gotype_member(res, "limits")->type)),
                 WH_GK_QUANTITY);
    CHECK(wh_gotype_member(type_of("v1", "Container"), "securityContext")->flags & WH_GOF_POINTER);
    /* versions: a field of one version only, a struct of one version only */
    const struct wh_gotype *a = type_of("apps.kruise.io/v1alpha1", "SidecarSetSpec");
    const struct wh_gotype *b = type_of("apps.kruise.io/v1beta1", "SidecarSetSpec");
    CHECK(wh_gotype_member(a, "namespace") != NULL);
    CHECK(wh_gotype_member(b, "namespace") == NULL);
    CHECK(wh_gotype_member(b, "customVersion") != NULL);
    CHECK_EQ_STR(wh_gotype_name(a), "v1alpha1.SidecarSetSpec");
    CHECK(wh_gotype_lookup("apps.kruise.io/v1beta1", "RollingUpdateCloneSetStrategy") != NULL);
    CHECK(wh_gotype_lookup("apps.kruise.io/v1alpha1", "RollingUpdateCloneSetStrategy") == NULL);
    CHECK(wh_gotype_lookup("v1", "NoSuchType") == NULL);
    CHECK_EQ_STR(wh_gotype_enum(type_of("apps/v1", "PodManagementPolicyType")),
                 "OrderedReady|Parallel");
    /* SidecarContainer embeds corev1.Container */
    const struct wh_gotype *sc = type_of("apps.kruise.io/v1beta1", "SidecarContainer");
    CHECK_EQ_STR(wh_gotype_field(sc, 0)->name, "name");
    CHECK(wh_gotype_member(sc, "podInjectPolicy") != NULL);
    CHECK(wh_gotype_member(sc, "image") != NULL);
    /* every kind the server decodes is in the model */
    static const char *const kruise[] = {"StatefulSet",
                                         "CloneSet",
                                         "SidecarSet",
                                         "WorkloadSpread",
                                         "DaemonSet",
                                         "BroadcastJob",
                                         "AdvancedCronJob",
                                         "ImagePullJob",
                                         "ImageListPullJob",
                                         "NodeImage",
                                         "ContainerRecreateRequest",
                                         "ResourceDistribution",
                                         "PersistentPodState",
                                         "UnitedDeployment"};
    for (size_t i = 0; i < sizeof(kruise) / sizeof(kruise[0]); i++) {
        type_of("apps.kruise.io/v1alpha1", kruise[i]);
        type_of("apps.kruise.io/v1beta1", kruise[i]);
    }
    type_of("policy.kruise.io/v1alpha1", "PodUnavailableBudget");
    type_of("policy.kruise.io/v1beta1", "PodUnavailableBudget");
    type_of("apps/v1", "Deployment");
    type_of("apps/v1", "ReplicaSet");
    type_of("batch/v1", "Job");
    type_of("policy/v1", "Eviction");
    type_of("meta.k8s.io/v1", "DeleteOptions");
    type_of("meta.k8s.io/v1", "CreateOptions");
    type_of("v1", "PersistentVolumeClaim");
    type_of("v1", "PodTemplateSpec");
}

/* Messages written from encoding/json's rules for the model's types. */
static const struct {
    const char *api, *name, *text, *want;
} decode_cases[] = {
    {"v1", "Pod", "{\"spec\":{\"containers\":{}}}",
     "json: cannot unmarshal object into Go struct field PodSpec.spec.containers of "
     "type []v1.Container"},
    {"v1", "Pod", "{\"spec\":{\"containers\":[\"app\"]}}",
     "json: cannot unmarshal string into Go struct field PodSpec.spec.containers of "
     "type v1.Container"},
    {"v1", "Pod", "{\"spec\":{\"containers\":null}}", "(ok)"},
    {"v1", "Pod", "\"x\"", "json: cannot unmarshal string into Go value of type v1.Pod"},
    {"v1", "Pod", "{\"spec\":{\"containers\":[{\"ports\":[{\"containerPort\":1.5}]}]}}",
     "json: cannot unmarshal number 1.5 into Go struct field "
     "ContainerPort.spec.containers.ports.containerPort of type int32"},
    /* a promoted field is reported with the struct that embeds it */
    {"v1", "Pod", "{\"spec\":{\"ephemeralContainers\":[{\"image\":7}]}}",
     "json: cannot unmarshal number into Go struct field "
     "EphemeralContainer.spec.ephemeralContainers.image of type string"},
    {"v1", "Pod", "{\"kind\":1}",
     "json: cannot unmarshal number into Go struct field Pod.kind of type string"},
    /* named types print with their package; map values with the map's field */
    {"v1", "Pod", "{\"spec\":{\"restartPolicy\":true}}",
     "json: cannot unmarshal bool into Go struct field PodSpec.spec.restartPolicy of "
     "type v1.RestartPolicy"},
    {"v1", "Pod", "{\"metadata\":{\"labels\":{\"a\":[]}}}",
     "json: cannot unmarshal array into Go struct field ObjectMeta.metadata.labels of "
     "type string"},
    /* the first mismatch in document order stays; decoding goes on */
    {"v1", "Pod", "{\"spec\":{\"hostname\":1,\"priority\":\"x\"},\"metadata\":{\"name\":2}}",
     "json: cannot unmarshal number into Go struct field PodSpec.spec.hostname of "
     "type string"},
    /* an error of a type's own JSON method ends decoding and wins */
    {"v1", "Pod",
     "{\"spec\":{\"hostname\":1,\"containers\":[{\"livenessProbe\":{\"httpGet\":"
     "{\"port\":true}}}]}}",
     "json: cannot unmarshal bool into Go struct field "
     "HTTPGetAction.spec.containers.livenessProbe.httpGet.port of type int32"},
    {"v1", "Pod", "{\"spec\":{\"hostname\":1},\"metadata\":{\"creationTimestamp\":\"2025\"}}",
     "parsing time \"2025\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"\" as "
     "\"-\""},
    {"v1", "Pod", "{\"metadata\":{\"creationTimestamp\":5}}",
     "json: cannot unmarshal number into Go struct field "
     "ObjectMeta.metadata.creationTimestamp of type string"},
    {"v1", "Pod", "{\"spec\":{\"containers\":[{\"resources\":{\"limits\":{\"cpu\":\"1ki\"}}}]}}",
     "unable to parse quantity's suffix"},
    {"v1", "Pod", "{\"spec\":{\"containers\":[{\"resources\":{\"limits\":{\"cpu\":true}}}]}}",
     "quantities must match the regular expression "
     "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"},
    {"v1", "Pod",
     "{\"spec\":{\"containers\":[{\"resources\":{\"limits\":{\"cpu\":0.5,"
     "\"memory\":\" 1Gi \"}}}]}}",
     "(ok)"},
    /* unknown and differently cased members are ignored; null is never an error */
    {"v1", "Pod",
     "{\"Spec\":5,\"spec\":{\"nodeName\":null,\"affinity\":null,\"x\":[1]},"
     "\"metadata\":{\"creationTimestamp\":null}}",
     "(ok)"},
    {"apiextensions.k8s.io/v1", "CustomResourceDefinition",
     "{\"spec\":{\"conversion\":{\"webhook\":{\"clientConfig\":{\"caBundle\":"
     "\"Zm9v=\"}}}}}",
     "illegal base64 data at input byte 4"},
    {"apiextensions.k8s.io/v1", "CustomResourceDefinition",
     "{\"spec\":{\"conversion\":{\"webhook\":{\"clientConfig\":{\"caBundle\":"
     "\"Zm9vYg==\\n\"}}}}}",
     "(ok)"},
    {"apiextensions.k8s.io/v1", "CustomResourceDefinition",
     "{\"spec\":{\"conversion\":{\"webhook\":{\"clientConfig\":{\"caBundle\":5}}}}}",
     "json: cannot unmarshal number into Go struct field "
     "WebhookClientConfig.spec.conversion.webhook.clientConfig.caBundle of type "
     "[]uint8"},
    /* a MicroTime has six fraction digits */
    {"meta.k8s.io/v1", "MicroTime", "\"2025-01-01T00:00:00Z\"",
     "parsing time \"2025-01-01T00:00:00Z\" as \"2006-01-02T15:04:05.000000Z07:00\": "
     "cannot parse \"Z\" as \".000000\""},
    {"meta.k8s.io/v1", "MicroTime", "\"2025-01-01T00:00:00.123456+01:00\"", "(ok)"},
};

TEST(gotype_check_messages)
{
    for (size_t i = 0; i < sizeof(decode_cases) / sizeof(decode_cases[0]); i++)
        CHECK_EQ_STR(check_msg(decode_cases[i].api, decode_cases[i].name, decode_cases[i].text),
                     decode_cases[i].want);
}

/* wh_gotype_check_where (--check-config's file:line:field): the same message as
 * wh_gotype_check for every case above, and the place of the value it is about, list indices
 * and map keys included (Go's message names struct fields only). */
TEST(gotype_check_where_names_the_place)
{
    for (size_t i = 0; i < sizeof(decode_cases) / sizeof(decode_cases[0]); i++) {
        json_t *v = wh_test_json(decode_cases[i].text), *path = NULL;
        char *msg = NULL;
        enum wh_err rc = wh_gotype_check_where(
            v, type_of(decode_cases[i].api, decode_cases[i].name), &msg, &path);
        CHECK_EQ_STR(msg ? msg : "(ok)", decode_cases[i].want);
        CHECK(rc == (msg ? WH_ERR_INVALID : WH_OK) && (path != NULL) == (msg != NULL));
        free(msg);
        json_decref(path);
        json_decref(v);
    }
    static const struct {
        const char *text, *path;
    } places[] = {
        {"{\"spec\":{\"containers\":[{\"name\":\"a\"},{\"image\":7}]}}",
         "[\"spec\",\"containers\",1,\"image\"]"},
        {"{\"metadata\":{\"labels\":{\"ok\":\"x\",\"a/b\":[]}}}",
         "[\"metadata\",\"labels\",\"a/b\"]"},
        {"{\"spec\":{\"hostname\":1,\"containers\":[{\"livenessProbe\":{\"httpGet\":"
         "{\"port\":true}}}]}}",
         "[\"spec\",\"containers\",0,\"livenessProbe\",\"httpGet\",\"port\"]"},
        {"{\"spec\":{\"hostname\":1,\"priority\":\"x\"}}", "[\"spec\",\"hostname\"]"},
        {"\"x\"", "[]"},
    };
    for (size_t i = 0; i < sizeof(places) / sizeof(places[0]); i++) {
        json_t *v = wh_test_json(places[i].text), *path = NULL, *want = wh_test_json(places[i].path);
        char *msg = NULL;
        CHECK_EQ_INT(wh_gotype_check_where(v, type_of("v1", "Pod"), &msg, &path), WH_ERR_INVALID);
        CHECK_EQ_JSON(path, want);
        free(msg);
        json_decref(path);
        json_decref(want);
        json_decref(v);
    }
}

static char *normalized(const char *api, const char *name, const char *text)
{
    json_t *v = wh_test_json(text), *out = NULL;
    struct wh_errbuf eb;
    char *s = NULL;
    if (wh_gotype_normalize(v, type_of(api, name), &out, &eb) == WH_OK) {
        struct wh_buf b;
        wh_buf_init(&b, 1 << 20);
        CHECK(wh_goenc_append(&b, out, false) == WH_OK);
        s = b.data;
    } else {
        s = strdup(eb.msg);
    }
    json_decref(out);
    json_decref(v);
    return s;
}

#define CHECK_NORM(api, name, text, want)                                                          \
    do {                                                                                           \
        char *n_ = normalized(api, name, text);                                                    \
        CHECK_EQ_STR(n_, want);                                                                    \
        free(n_);                                                                                  \
    } while (0)

TEST(gotype_normalize)
{
    /* non-omitempty slices print null; unknown members dropped */
    CHECK_NORM("v1", "Volume",
               "{\"name\":\"v\",\"x\":1,\"projected\":{\"defaultMode\":420},"
               "\"hostPath\":null}",
               "{\"name\":\"v\",\"projected\":{\"sources\":null,\"defaultMode\":420}}");
    CHECK_NORM("apps.kruise.io/v1beta1", "SidecarSet",
               "{\"metadata\":{\"creationTimestamp\":\"2024-05-01T12:00:00+02:00\","
               "\"labels\":{}}}",
               "{\"metadata\":{\"creationTimestamp\":\"2024-05-01T10:00:00Z\"},"
               "\"spec\":{\"updateStrategy\":{},\"injectionStrategy\":{}},\"status\":{"
               "\"matchedPods\":0,\"updatedPods\":0,\"readyPods\":0}}");
    /* struct values are never omitted; quantities canonical; map keys sorted; fields in Go's
     * order; a zero time is null */
    CHECK_NORM("v1", "Container",
               "{\"resources\":{\"requests\":{\"memory\":\"0.5Gi\",\"cpu\":\"1000m\"}},"
               "\"image\":\"i\",\"name\":\"c\"}",
               "{\"name\":\"c\",\"image\":\"i\",\"resources\":{\"requests\":{\"cpu\":\"1\","
               "\"memory\":\"512Mi\"}}}");
    CHECK_NORM("v1", "PodTemplateSpec", "{}",
               "{\"metadata\":{\"creationTimestamp\":null},\"spec\":{\"containers\":null}}");
    CHECK_NORM("v1", "PodTemplateSpec",
               "{\"metadata\":{\"creationTimestamp\":\"0001-01-01T00:00:00Z\"}}",
               "{\"metadata\":{\"creationTimestamp\":null},\"spec\":{\"containers\":null}}");
    /* RawExtension is a struct: printed as null when unset, as it came otherwise */
    CHECK_NORM("apps.kruise.io/v1beta1", "WorkloadSpreadSubset", "{\"name\":\"a\"}",
               "{\"name\":\"a\",\"patch\":null}");
    CHECK_NORM("apps.kruise.io/v1beta1", "WorkloadSpreadSubset",
               "{\"name\":\"a\",\"patch\":{\"b\":1,\"a\":[]}}",
               "{\"name\":\"a\",\"patch\":{\"b\":1,\"a\":[]}}");
    /* int-or-string keeps its JSON type; a MicroTime keeps six digits */
    CHECK_NORM("v1", "TCPSocketAction", "{\"port\":\"http\"}", "{\"port\":\"http\"}");
    CHECK_NORM("v1", "TCPSocketAction", "{}", "{\"port\":0}");
    CHECK_NORM("meta.k8s.io/v1", "MicroTime", "\"2025-01-01T01:00:00.1234567+01:00\"",
               "parsing time \"2025-01-01T01:00:00.1234567+01:00\" as "
               "\"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"7+01:00\" as \"Z07:00\"");
    CHECK_NORM("meta.k8s.io/v1", "MicroTime", "\"2025-01-01T01:00:00.123456+01:00\"",
               "\"2025-01-01T00:00:00.123456Z\"");
    /* a []byte comes out as canonical base64 */
    CHECK_NORM("apiextensions.k8s.io/v1", "WebhookClientConfig", "{\"caBundle\":\"Zm9v\\nYg==\"}",
               "{\"caBundle\":\"Zm9vYg==\"}");
    /* Go's decoder ignores non-zero padding bits */
    CHECK_NORM("apiextensions.k8s.io/v1", "WebhookClientConfig", "{\"caBundle\":\"Zh==\"}",
               "{\"caBundle\":\"Zh==\"}");
    /* a wrong type is the check's error */
    CHECK_NORM("v1", "Container", "{\"name\":5}",
               "json: cannot unmarshal number into Go struct field Container.name of type string");
}

static const char *time_msg(const char *s, enum wh_gotime_layout l, struct wh_gotime *t)
{
    static struct wh_errbuf eb;
    return wh_gotime_parse(s, strlen(s), l, t, &eb) ? eb.msg : "(ok)";
}

static void check_time(const char *s, const char *formatted)
{
    struct wh_gotime t;
    char buf[WH_GOTIME_MAX];
    CHECK_EQ_STR(time_msg(s, WH_GOTIME_RFC3339, &t), "(ok)");
    wh_gotime_format(t, WH_GOTIME_RFC3339, buf, sizeof(buf));
    CHECK_EQ_STR(buf, formatted);
}

#define L3339 "\" as \"2006-01-02T15:04:05Z07:00\": "

/* time.Parse(time.RFC3339, s)'s errors. */
static const char *const time_errors[][2] = {
    {"not a time", "parsing time \"not a time" L3339 "cannot parse \"not a time\" as \"2006\""},
    {"2025-13-01T00:00:00Z", "parsing time \"2025-13-01T00:00:00Z\": month out of range"},
    {"2025-02-29T00:00:00Z", "parsing time \"2025-02-29T00:00:00Z\": day out of range"},
    {"2025-01-01T24:00:00Z", "parsing time \"2025-01-01T24:00:00Z\": hour out of range"},
    {"2025-01-01T00:60:00Z", "parsing time \"2025-01-01T00:60:00Z\": minute out of range"},
    {"2025-01-01t00:00:00Z",
     "parsing time \"2025-01-01t00:00:00Z" L3339 "cannot parse \"t00:00:00Z\" as "
     "\"T\""},
    {"2025-01-01T00:00:00z",
     "parsing time \"2025-01-01T00:00:00z" L3339 "cannot parse \"z\" as \"Z07:00\""},
    {"2025-01-01T00:00:00.Z", "parsing time \"2025-01-01T00:00:00.Z" L3339 "cannot parse \".Z\" as "
                              "\"Z07:00\""},
    {"2025-01-01T00:00:00+25:00",
     "parsing time \"2025-01-01T00:00:00+25:00\": time zone offset hour out of range"},
    {"2025-01-01T00:00:00Zjunk", "parsing time \"2025-01-01T00:00:00Zjunk\": extra text: \"junk\""},
    {"", "parsing time \"\""
         " as \"2006-01-02T15:04:05Z07:00\": cannot parse \"\" as "
         "\"2006\""},
    {"2025-01-01T00:00:00\"\xc3\xa9", "parsing time \"2025-01-01T00:00:00\\\"\\xc3\\xa9" L3339
                                      "cannot parse \"\\\"\\xc3\\xa9\" as \"Z07:00\""},
};

/* Go's value of a metav1.Time keeps the nanoseconds time.Parse read, its encoding whole
 * seconds: wh_gotype_decode keeps the fraction (trailing zeros dropped, in UTC), normalize
 * does not, and the decoded text normalizes to the encoding. */
TEST(gotype_decoded_time_keeps_the_fraction)
{
    static const char *const in[] = {"2026-01-01T00:00:00.500Z",
                                     "2026-01-01T01:00:00.000000001+01:00",
                                     "2026-01-01T00:00:00Z"};
    static const char *const want[] = {"2026-01-01T00:00:00.5Z",
                                       "2026-01-01T00:00:00.000000001Z", "2026-01-01T00:00:00Z"};
    const struct wh_gotype *meta = type_of("meta.k8s.io/v1", "ObjectMeta");
    for (size_t i = 0; i < 3; i++) {
        json_t *v = json_pack("{s:s}", "creationTimestamp", in[i]), *dec = NULL, *enc = NULL;
        struct wh_errbuf eb;
        CHECK(wh_gotype_decode(v, meta, &dec, &eb) == WH_OK);
        CHECK_EQ_STR(json_string_value(json_object_get(dec, "creationTimestamp")), want[i]);
        CHECK(wh_gotype_normalize(dec, meta, &enc, &eb) == WH_OK);
        CHECK_EQ_STR(json_string_value(json_object_get(enc, "creationTimestamp")),
                     "2026-01-01T00:00:00Z");
        json_decref(enc);
        json_decref(dec);
        json_decref(v);
    }
}

TEST(gotime_parse_and_format)
{
    struct wh_gotime t;
    check_time("2025-03-01T16:30:00.250+08:00", "2025-03-01T08:30:00Z");
    check_time("2025-03-01T16:30:00,999999999999-00:30", "2025-03-01T17:00:00Z");
    check_time("2024-02-29T00:00:00Z", "2024-02-29T00:00:00Z");
    check_time("2025-03-01T1:02:03Z", "2025-03-01T01:02:03Z"); /* Go reads "15" loosely */
    check_time("0000-01-01T00:00:00+01:00", "-0001-12-31T23:00:00Z");
    check_time("1970-01-01T00:00:00+24:60", "1969-12-30T23:00:00Z");
    CHECK_EQ_STR(time_msg("1970-01-01T00:00:00Z", WH_GOTIME_RFC3339, &t), "(ok)");
    CHECK(t.sec == 0 && t.nsec == 0);
    CHECK_EQ_STR(time_msg("2024-02-30T00:00:00", WH_GOTIME_RFC3339, &t),
                 "parsing time \"2024-02-30T00:00:00" L3339 "cannot parse \"\" as \"Z07:00\"");
    for (size_t i = 0; i < sizeof(time_errors) / sizeof(time_errors[0]); i++)
        CHECK_EQ_STR(time_msg(time_errors[i][0], WH_GOTIME_RFC3339, &t), time_errors[i][1]);
    CHECK_EQ_STR(time_msg("2025-01-01T00:00:00.-12345Z", WH_GOTIME_RFC3339_MICRO, &t),
                 "parsing time \"2025-01-01T00:00:00.-12345Z\": fractional second out of range");
    /* zero time and MicroTime printing */
    CHECK_EQ_STR(time_msg("0001-01-01T00:00:00Z", WH_GOTIME_RFC3339, &t), "(ok)");
    CHECK(wh_gotime_is_zero(t));
    CHECK_EQ_STR(time_msg("0001-01-01T00:00:00.5Z", WH_GOTIME_RFC3339, &t), "(ok)");
    CHECK(!wh_gotime_is_zero(t));
    char buf[WH_GOTIME_MAX];
    wh_gotime_format(wh_gotime_from_ns(1700000000123456789LL), WH_GOTIME_RFC3339_MICRO, buf,
                     sizeof(buf));
    CHECK_EQ_STR(buf, "2023-11-14T22:13:20.123456Z");
    wh_gotime_format(wh_gotime_from_ns(-1), WH_GOTIME_RFC3339_MICRO, buf, sizeof(buf));
    CHECK_EQ_STR(buf, "1969-12-31T23:59:59.999999Z");
}

/* ---- every field of every type reachable from the kinds the server decodes ---------------- */

struct walk {
    const struct wh_gotype *seen[2048];
    size_t nseen;
    size_t checked;
    const struct wh_gotype *root;
    /* the path from the root: a field name, or NULL for a step into a list or map */
    const char *steps[64];
    bool into_map[64];
    size_t nsteps;
};

static bool seen_before(struct walk *w, const struct wh_gotype *t)
{
    for (size_t i = 0; i < w->nseen; i++)
        if (w->seen[i] == t)
            return true;
    CHECK(w->nseen < sizeof(w->seen) / sizeof(w->seen[0]));
    w->seen[w->nseen++] = t;
    return false;
}

/* The object that holds leaf at the walk's path. Returns: new ref (steals leaf). */
static json_t *wrap(const struct walk *w, json_t *leaf)
{
    json_t *v = leaf;
    for (size_t i = w->nsteps; i-- > 0;) {
        if (w->steps[i])
            v = json_pack("{s:o}", w->steps[i], v);
        else if (w->into_map[i])
            v = json_pack("{s:o}", "k", v);
        else
            v = json_pack("[o]", v);
    }
    return v;
}

/* A wrong JSON value for a field of type t and what Go calls it; NULL when every JSON value
 * decodes (raw JSON). */
static json_t *wrong_value(const struct wh_gotype *t, const char **what, const char **type)
{
    *type = wh_gotype_name(t);
    switch (wh_gotype_kind(t)) {
    case WH_GK_STRING:
        *what = "number";
        return json_integer(5);
    case WH_GK_BOOL:
        *what = "string";
        return json_string("yes");
    case WH_GK_STRUCT:
    case WH_GK_SLICE:
    case WH_GK_MAP:
        *what = "bool";
        return json_true();
    case WH_GK_INT32:
        *what = "number 2147483648";
        return json_integer(2147483648LL);
    case WH_GK_INT64:
        *what = "number 0.5";
        return json_real(0.5);
    case WH_GK_BYTES:
        *what = "object";
        return json_object();
    case WH_GK_INTSTR:
        *what = "number 1.25";
        *type = "int32";
        return json_real(1.25);
    case WH_GK_TIME:
    case WH_GK_MICROTIME:
        *what = "array";
        *type = "string";
        return json_array();
    default:
        return NULL;
    }
}

static void walk_fields(struct walk *w, const struct wh_gotype *t)
{
    if (seen_before(w, t))
        return;
    const char *dot = strchr(wh_gotype_name(t), '.');
    for (size_t i = 0; i < wh_gotype_nfields(t); i++) {
        const struct wh_gofield *f = wh_gotype_field(t, i);
        w->steps[w->nsteps] = f->name;
        w->nsteps++;
        const char *what, *type;
        json_t *bad = wrong_value(f->type, &what, &type);
        if (bad) {
            char path[512] = "";
            for (size_t s = 0; s < w->nsteps; s++)
                if (w->steps[s])
                    snprintf(path + strlen(path), sizeof(path) - strlen(path), "%s%s",
                             *path ? "." : "", w->steps[s]);
            char want[1024];
            snprintf(want, sizeof(want),
                     "json: cannot unmarshal %s into Go struct field %s.%s of type %s", what,
                     dot + 1, path, type);
            json_t *obj = wrap(w, bad);
            char *msg = NULL;
            CHECK(wh_gotype_check_full(obj, w->root, &msg) == WH_ERR_INVALID);
            CHECK_EQ_STR(msg, want);
            free(msg);
            json_decref(obj);
            w->checked++;
        }
        /* into structs below, through lists and maps */
        const struct wh_gotype *in = f->type;
        while (wh_gotype_kind(in) == WH_GK_SLICE || wh_gotype_kind(in) == WH_GK_MAP) {
            w->into_map[w->nsteps] = wh_gotype_kind(in) == WH_GK_MAP;
            w->steps[w->nsteps++] = NULL;
            in = wh_gotype_elem(in);
        }
        CHECK(w->nsteps < 60);
        if (wh_gotype_kind(in) == WH_GK_STRUCT)
            walk_fields(w, in);
        while (w->nsteps && !w->steps[w->nsteps - 1])
            w->nsteps--;
        w->nsteps--;
    }
}

TEST(gotype_every_field_mismatch)
{
    static const char *const roots[][2] = {
        {"v1", "Pod"},
        {"v1", "PersistentVolumeClaim"},
        {"v1", "Namespace"},
        {"v1", "Service"},
        {"apps/v1", "Deployment"},
        {"apps/v1", "ReplicaSet"},
        {"apps/v1", "StatefulSet"},
        {"batch/v1", "Job"},
        {"policy/v1", "Eviction"},
        {"meta.k8s.io/v1", "DeleteOptions"},
        {"networking.k8s.io/v1", "Ingress"},
        {"networking.k8s.io/v1beta1", "Ingress"},
        {"apiextensions.k8s.io/v1", "CustomResourceDefinition"},
        {"apiextensions.k8s.io/v1beta1", "CustomResourceDefinition"},
        {"apps.kruise.io/v1alpha1", "UnitedDeployment"},
        {"apps.kruise.io/v1beta1", "UnitedDeployment"},
        {"policy.kruise.io/v1beta1", "PodUnavailableBudget"},
    };
    size_t total = 0;
    for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
        static struct walk w;
        memset(&w, 0, sizeof(w));
        w.root = type_of(roots[i][0], roots[i][1]);
        walk_fields(&w, w.root);
        total += w.checked;
    }
    fprintf(stderr, "model fields checked: %zu\n", total);
    CHECK(total > 2000);
}

/* json.Unmarshal as encoding/json does it: names fold case (and the long s and the Kelvin sign
 * to their ASCII letters), the last member naming a field wins, Go's messages. */
TEST(gotype_unmarshal_folds_names_as_encoding_json)
{
    const struct wh_gotype *t = wh_gotype_lookup("kruise.io/configuration", "CustomWorkload");
    CHECK(t != NULL);
    json_t *v = NULL;
    struct wh_errbuf eb = {{0}};
    const char *text =
        "{\"group\":\"g\",\"VERSION\":\"v1\",\"\xe2\x84\xaaind\":\"K\",\"kind\":\"first\","
        "\"kinD\":\"last\",\"\xc5\xbfubResources\":[{\"GROUP\":\"s\"}],"
        "\"replicaspath\":\"spec.x\",\"unknown\":1}";
    CHECK_EQ_INT(wh_gotype_unmarshal(text, strlen(text), t, &v, &eb), WH_OK);
    CHECK_EQ_STR(json_string_value(json_object_get(v, "Group")), "g");
    CHECK_EQ_STR(json_string_value(json_object_get(v, "Version")), "v1");
    CHECK_EQ_STR(json_string_value(json_object_get(v, "Kind")), "last");
    CHECK_EQ_STR(json_string_value(json_object_get(
                     json_array_get(json_object_get(v, "subResources"), 0), "Group")),
                 "s");
    CHECK_EQ_STR(json_string_value(json_object_get(v, "replicasPath")), "spec.x");
    CHECK(json_object_get(v, "unknown") == NULL);
    json_decref(v);
    /* a name that is not a field's, folded or not, is ignored */
    text = "{\"Kinds\":5,\"K\xc3\xadnd\":5}";
    CHECK_EQ_INT(wh_gotype_unmarshal(text, strlen(text), t, &v, &eb), WH_OK);
    json_decref(v);
    const struct {
        const char *text, *msg;
    } bad[] = {
        {"{\"KIND\":5}",
         "json: cannot unmarshal number into Go struct field CustomWorkload.Kind of "
         "type string"},
        {"{\"subresources\":{}}", "json: cannot unmarshal object into Go struct field "
                                  "CustomWorkload.subResources of type []schema.GroupVersionKind"},
        {"true", "json: cannot unmarshal bool into Go value of type configuration.CustomWorkload"},
        {"{\"Kind\":", "unexpected end of JSON input"},
        {"", "unexpected end of JSON input"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        v = NULL;
        CHECK_EQ_INT(wh_gotype_unmarshal(bad[i].text, strlen(bad[i].text), t, &v, &eb),
                     WH_ERR_INVALID);
        CHECK_EQ_STR(eb.msg, bad[i].msg);
        CHECK(v == NULL);
    }
    /* null leaves the zero value */
    CHECK_EQ_INT(wh_gotype_unmarshal("null", 4, t, &v, &eb), WH_OK);
    CHECK_EQ_STR(json_string_value(json_object_get(v, "Kind")), "");
    json_decref(v);
}

/* A later null is a no-op for a string, but sets a list to nil. */
TEST(gotype_unmarshal_later_null)
{
    const struct wh_gotype *t = wh_gotype_lookup("kruise.io/configuration", "CustomWorkload");
    json_t *v = NULL;
    struct wh_errbuf eb = {{0}};
    const char *text = "{\"Kind\":\"k\",\"kind\":null,\"subResources\":[{}],\"SUBRESOURCES\":null}";
    CHECK_EQ_INT(wh_gotype_unmarshal(text, strlen(text), t, &v, &eb), WH_OK);
    CHECK_EQ_STR(json_string_value(json_object_get(v, "Kind")), "k");
    CHECK(json_object_get(v, "subResources") == NULL);
    json_decref(v);
}
