/* /validate-apps-kruise-io-sidecarset (spec sidecarset.md 8): vectors 022-027, then each rule of
 * sections 8.3-8.7 with its exact message, for v1beta1 and v1alpha1 objects. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test/support/admission_run.h"
#include "test/support/vector.h"
#include "test/unit/test.h"
#include "util/buf.h"
#include "util/json.h"
#include "util/str.h"

#define EP "/validate-apps-kruise-io-sidecarset"

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

TEST(sidecarset_validate_vectors)
{
    CHECK(run_vector("022-validate-missing-selector.json"));
    CHECK(run_vector("023-validate-container-name-conflict.json"));
    CHECK(run_vector("024-validate-patch-metadata-without-whitelist.json"));
    CHECK(run_vector("025-validate-allowed-disjoint-selectors.json"));
    CHECK(run_vector("026-validate-injection-revision-not-found.json"));
    CHECK(run_vector("027-validate-update-cannot-add-container.json"));
}

/* A valid, defaulted v1beta1 SidecarSet; cases merge their changes into it
 * (json_object_update_recursive: objects merge, everything else replaces). */
#define BASE                                                                                       \
    "{\"apiVersion\":\"apps.kruise.io/v1beta1\",\"kind\":\"SidecarSet\",\"metadata\":{\"name\":"   \
    "\"ss\"},\"spec\":{\"selector\":{\"matchLabels\":{\"app\":\"web\"}},\"containers\":[{"         \
    "\"name\":\"sidecar\",\"image\":\"sidecar:1\",\"imagePullPolicy\":\"IfNotPresent\","           \
    "\"terminationMessagePolicy\":\"File\",\"terminationMessagePath\":\"/dev/termination-log\","   \
    "\"podInjectPolicy\":\"BeforeAppContainer\",\"shareVolumePolicy\":{\"type\":\"disabled\"},"    \
    "\"upgradeStrategy\":{\"upgradeType\":\"ColdUpgrade\"}}],\"updateStrategy\":{\"type\":"        \
    "\"RollingUpdate\",\"partition\":0,\"maxUnavailable\":1},\"revisionHistoryLimit\":10}}"

/* One sidecar container with defaults, named n, plus extra members (a JSON fragment). */
#define SIDECAR(n, extra)                                                                          \
    "{\"name\":\"" n "\",\"image\":\"sidecar:1\",\"imagePullPolicy\":\"IfNotPresent\","            \
    "\"terminationMessagePolicy\":\"File\",\"podInjectPolicy\":\"BeforeAppContainer\","            \
    "\"shareVolumePolicy\":{\"type\":\"disabled\"},\"upgradeStrategy\":{\"upgradeType\":"          \
    "\"ColdUpgrade\"}" extra "}"

struct vcase {
    const char *name;
    const char *version; /* NULL: v1beta1 */
    const char *op;      /* NULL: CREATE */
    const char *patch;   /* merged into BASE; NULL: BASE as is */
    const char *old;     /* UPDATE: merged into BASE for oldObject (NULL: BASE) */
    const char *cluster; /* JSON array, or NULL */
    const char *gates;
    bool allowed;
    const char *message;     /* exact, or NULL */
    const char *contains[4]; /* substrings */
};

static json_t *merged(const char *patch)
{
    json_t *o = wh_test_json(BASE);
    if (patch) {
        json_t *p = wh_test_json(patch);
        json_object_update_recursive(o, p);
        json_decref(p);
    }
    return o;
}

static void run_case(const struct vcase *c)
{
    const char *version = c->version ? c->version : "v1beta1";
    const char *op = c->op ? c->op : "CREATE";
    json_t *obj = merged(c->patch);
    if (c->version && strcmp(c->version, "v1alpha1") == 0)
        json_object_set_new(obj, "apiVersion", json_string("apps.kruise.io/v1alpha1"));
    json_t *old = strcmp(op, "UPDATE") == 0 ? merged(c->old) : json_null();
    json_t *req =
        json_pack("{s:s,s:{s:s,s:s,s:s},s:{s:s,s:s,s:s},s:s,s:s,s:s,s:o,s:o,s:{s:s}}", "uid", "u",
                  "kind", "group", "apps.kruise.io", "version", version, "kind", "SidecarSet",
                  "resource", "group", "apps.kruise.io", "version", version, "resource",
                  "sidecarsets", "operation", op, "namespace", "", "name", "ss", "object", obj,
                  "oldObject", old, "options", "kind", "CreateOptions");
    json_t *cluster = c->cluster ? wh_test_json(c->cluster) : NULL;
    struct wh_admrun r;
    bool ran = wh_admrun(EP, c->gates, cluster, req, &r);
    CHECK(ran);
    bool ok = ran && r.allowed == c->allowed && (c->allowed || r.code == 500) &&
              (!c->message || strcmp(r.message, c->message) == 0);
    for (int i = 0; i < 4 && c->contains[i]; i++)
        ok &= strstr(r.message, c->contains[i]) != NULL;
    if (!ok)
        fprintf(stderr, "case %s: allowed=%d code=%d message:\n  %s\n", c->name, r.allowed, r.code,
                r.message);
    CHECK(ok);
    wh_admrun_fini(&r);
    json_decref(req);
    json_decref(cluster);
}

static void run_cases(const struct vcase *cases, size_t n)
{
    for (size_t i = 0; i < n; i++)
        run_case(&cases[i]);
}

#define QNAME_ERR                                                                                  \
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end "  \
    "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for " \
    "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"

TEST(sidecarset_validate_metadata)
{
    static const struct vcase cases[] = {
        {.name = "valid", .allowed = true, .message = "allowed to be admitted"},
        {.name = "valid v1alpha1",
         .version = "v1alpha1",
         .allowed = true,
         .message = "allowed to be admitted"},
        {.name = "name charset",
         .patch = "{\"metadata\":{\"name\":\"ss_1\"}}",
         .message = "metadata.name: Invalid value: \"ss_1\": sidecarset name must consist of "
                    "alphanumeric characters or '-' (e.g. 'example-com', regex used for "
                    "validation is '^[a-zA-Z0-9\\-]+$')"},
        {.name = "name length",
         .patch = "{\"metadata\":{\"name\":"
                  "\"a234567890123456789012345678901234567890123456789012345678901234\"}}",
         .message = "metadata.name: Invalid value: "
                    "\"a234567890123456789012345678901234567890123456789012345678901234\": must "
                    "be no more than 63 characters"},
        {.name = "name missing",
         .patch = "{\"metadata\":{\"name\":null}}",
         .message = "metadata.name: Required value: name or generateName is required"},
        {.name = "namespace",
         .patch = "{\"metadata\":{\"namespace\":\"default\"}}",
         .message = "metadata.namespace: Forbidden: not allowed on this type"},
        {.name = "label key",
         .patch = "{\"metadata\":{\"labels\":{\"-bad\":\"x\"}}}",
         .message = "metadata.labels: Invalid value: \"-bad\": " QNAME_ERR},
        {.name = "label value",
         .patch = "{\"metadata\":{\"labels\":{\"a\":\"-x\"}}}",
         .message = "metadata.labels: Invalid value: \"-x\": a valid label must be an empty "
                    "string or consist of alphanumeric characters, '-', '_' or '.', and must "
                    "start and end with an alphanumeric character (e.g. 'MyValue',  or "
                    "'my_value',  or '12345', regex used for validation is "
                    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"},
        {.name = "annotation key",
         .patch = "{\"metadata\":{\"annotations\":{\"a/b/c\":\"x\"}}}",
         .contains = {"metadata.annotations: Invalid value: \"a/b/c\": a qualified name must "
                      "consist of"}},
        {.name = "v1alpha1 name",
         .version = "v1alpha1",
         .patch = "{\"metadata\":{\"name\":\"a.b\"}}",
         .contains = {"metadata.name: Invalid value: \"a.b\": sidecarset name must consist"}},
    };
    run_cases(cases, sizeof(cases) / sizeof(cases[0]));
}

#define CANARY_ANN(base)                                                                           \
    "{\"metadata\":{\"annotations\":{\"apps.kruise.io/sidecarset-canary\":\"true\","               \
    "\"apps.kruise.io/sidecarset-base\":\"" base "\"}},\"spec\":{\"updateStrategy\":{\"type\":"    \
    "\"NotUpdate\"}}}"
#define BASE_SS(name, extra_meta)                                                                  \
    "[{\"apiVersion\":\"apps.kruise.io/v1beta1\",\"kind\":\"SidecarSet\",\"metadata\":{\"name\":"  \
    "\"" name "\"" extra_meta "},\"spec\":{\"selector\":{\"matchLabels\":{\"app\":\"web\"}},"      \
    "\"containers\":[" SIDECAR("sidecar", "") "]}}]"

TEST(sidecarset_validate_canary)
{
    static const struct vcase cases[] = {
        {.name = "canary ok, base skipped by conflicts",
         .patch = CANARY_ANN("base"),
         .cluster = BASE_SS("base", ""),
         .allowed = true},
        {.name = "base is itself",
         .patch = CANARY_ANN("ss"),
         .contains = {"metadata: Invalid value: map[string]string{\"apps.kruise.io/"
                      "sidecarset-base\":\"ss\", \"apps.kruise.io/sidecarset-canary\":\"true\"}: "
                      "base sidecarSet cannot be itself",
                      "fetch base sidecarSet[ss] failed: SidecarSet.apps.kruise.io \"ss\" not "
                      "found"}},
        {.name = "base missing",
         .patch = CANARY_ANN("nobase"),
         .message = "metadata: Invalid value: map[string]string{\"apps.kruise.io/sidecarset-base\":"
                    "\"nobase\", \"apps.kruise.io/sidecarset-canary\":\"true\"}: fetch base "
                    "sidecarSet[nobase] failed: SidecarSet.apps.kruise.io \"nobase\" not found"},
        {.name = "base is canary",
         .patch = CANARY_ANN("base"),
         .cluster = BASE_SS("base", ",\"annotations\":{\"apps.kruise.io/sidecarset-canary\":"
                                    "\"true\",\"apps.kruise.io/sidecarset-base\":\"x\"}"),
         .contains = {": base sidecarSet cannot be canary"}},
        {.name = "rolling update",
         .patch = "{\"metadata\":{\"annotations\":{\"apps.kruise.io/sidecarset-canary\":\"true\","
                  "\"apps.kruise.io/sidecarset-base\":\"base\"}}}",
         .cluster = BASE_SS("base", ""),
         .contains = {": RollingUpdate is not supported for canary sidecarSet"}},
        {.name = "base immutable",
         .op = "UPDATE",
         .patch = CANARY_ANN("base"),
         .old = CANARY_ANN("other"),
         .cluster = BASE_SS("base", ""),
         .contains = {": annotations[apps.kruise.io/sidecarset-base] is immutable"}},
        {.name = "not canary without base",
         .patch =
             "{\"metadata\":{\"annotations\":{\"apps.kruise.io/sidecarset-canary\":\"true\"}}}",
         .allowed = true},
    };
    run_cases(cases, sizeof(cases) / sizeof(cases[0]));
}

TEST(sidecarset_validate_selectors)
{
    static const struct vcase cases[] = {
        {.name = "selector nil",
         .patch = "{\"spec\":{\"selector\":null}}",
         .message = "spec.selector: Required value: no selector defined for SidecarSet"},
        {.name = "selector empty",
         .patch = "{\"spec\":{\"selector\":{\"matchLabels\":null}}}",
         .message = "spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]"
                    "string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty "
                    "selector is not valid for sidecarset."},
        {.name = "bad operator",
         .patch = "{\"spec\":{\"selector\":{\"matchLabels\":null,\"matchExpressions\":[{\"key\":"
                  "\"a\",\"operator\":\"Foo\",\"values\":[\"x\"]}]}}}",
         .message = "[spec.selector.matchExpressions[0].operator: Invalid value: \"Foo\": not a "
                    "valid selector operator, spec.selector.selector: Invalid value: "
                    "v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1."
                    "LabelSelectorRequirement{v1.LabelSelectorRequirement{Key:\"a\", "
                    "Operator:\"Foo\", Values:[]string{\"x\"}}}}]"},
        {.name = "In without values",
         .patch = "{\"spec\":{\"selector\":{\"matchExpressions\":[{\"key\":\"a\",\"operator\":"
                  "\"In\"}]}}}",
         .contains = {"spec.selector.matchExpressions[0].values: Required value: must be "
                      "specified when `operator` is 'In' or 'NotIn'",
                      "spec.selector.selector: Invalid value: v1.LabelSelector{"}},
        {.name = "Exists with values",
         .patch = "{\"spec\":{\"selector\":{\"matchExpressions\":[{\"key\":\"a\",\"operator\":"
                  "\"Exists\",\"values\":[\"x\"]}]}}}",
         .contains = {"spec.selector.matchExpressions[0].values: Forbidden: may not be specified "
                      "when `operator` is 'Exists' or 'DoesNotExist'"}},
        {.name = "bad key and value",
         .patch = "{\"spec\":{\"selector\":{\"matchLabels\":{\"app\":\"-x\"}}}}",
         .contains = {"spec.selector.matchLabels: Invalid value: \"-x\": a valid label",
                      "spec.selector.selector: Invalid value"}},
        {.name = "namespaceSelector empty",
         .patch = "{\"spec\":{\"namespaceSelector\":{}}}",
         .contains = {"spec.namespaceSelector: Invalid value: v1.LabelSelector{MatchLabels:map["
                      "string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: "
                      "empty selector is not valid for sidecarset."}},
        {.name = "namespaceSelector ok",
         .patch = "{\"spec\":{\"namespaceSelector\":{\"matchLabels\":{\"team\":\"a\"}}}}",
         .allowed = true},
        {.name = "v1alpha1 namespace becomes a valid namespaceSelector",
         .version = "v1alpha1",
         .patch = "{\"spec\":{\"namespace\":\"default\"}}",
         .allowed = true},
        {.name = "v1alpha1 selector nil",
         .version = "v1alpha1",
         .patch = "{\"spec\":{\"selector\":null}}",
         .message = "spec.selector: Required value: no selector defined for SidecarSet"},
    };
    run_cases(cases, sizeof(cases) / sizeof(cases[0]));
}

#define REVISION_CR(name, version)                                                                 \
    "{\"apiVersion\":\"apps/v1\",\"kind\":\"ControllerRevision\",\"metadata\":{\"name\":\"" name   \
    "\",\"namespace\":\"kruise-system\",\"labels\":{\"kruise.io/sidecarset-name\":\"ss\","         \
    "\"apps.kruise.io/sidecarset-custom-version\":\"" version "\"}},\"revision\":1,\"data\":{"     \
    "\"spec\":{\"$patch\":\"replace\",\"containers\":[" SIDECAR("sidecar", "") "]}}}"

TEST(sidecarset_validate_injection_revision)
{
    static const struct vcase cases[] = {
        {.name = "both empty",
         .patch = "{\"spec\":{\"injectionStrategy\":{\"revision\":{\"policy\":\"Always\"}}}}",
         .message = "revision: Invalid value: v1beta1.SidecarSetInjectRevision{CustomVersion:(*"
                    "string)(nil), RevisionName:(*string)(nil), Policy:\"Always\"}: revisionName "
                    "and customVersion cannot be empty simultaneously"},
        {.name = "revisionName missing",
         .patch = "{\"spec\":{\"injectionStrategy\":{\"revision\":{\"revisionName\":\"r1\","
                  "\"policy\":\"Always\"}}}}",
         .message = "revision: Invalid value: \"null\": Cannot find specific ControllerRevision, "
                    "err: ControllerRevision.apps \"r1\" not found"},
        {.name = "customVersion missing",
         .patch = "{\"spec\":{\"injectionStrategy\":{\"revision\":{\"customVersion\":\"v2\"}}}}",
         .cluster = "[" REVISION_CR("ss-1", "v1") "]",
         .message = "revision: Invalid value: \"null\": Cannot find specific ControllerRevision, "
                    "err: ControllerRevision.apps \"ss\" not found"},
        {.name = "customVersion found",
         .patch = "{\"spec\":{\"injectionStrategy\":{\"revision\":{\"customVersion\":\"v1\","
                  "\"policy\":\"Partial\"}}}}",
         .cluster = "[" REVISION_CR("ss-1", "v1") "]",
         .allowed = true},
        {.name = "revisionName found",
         .patch = "{\"spec\":{\"injectionStrategy\":{\"revision\":{\"revisionName\":\"ss-1\"}}}}",
         .cluster = "[" REVISION_CR("ss-1", "v1") "]",
         .allowed = true},
        {.name = "bad policy",
         .patch = "{\"spec\":{\"injectionStrategy\":{\"revision\":{\"revisionName\":\"ss-1\","
                  "\"policy\":\"Sometimes\"}}}}",
         .cluster = "[" REVISION_CR("ss-1", "v1") "]",
         .contains = {"revision.policy: Invalid value: v1beta1.SidecarSetInjectRevision{",
                      ": Invalid policy Sometimes, supported: [Always, Partial]"}},
        {.name = "v1alpha1 revision missing",
         .version = "v1alpha1",
         .patch = "{\"spec\":{\"injectionStrategy\":{\"revision\":{\"customVersion\":\"v9\"}}}}",
         .contains = {"Cannot find specific ControllerRevision, err: ControllerRevision.apps "
                      "\"ss\" not found"}},
    };
    run_cases(cases, sizeof(cases) / sizeof(cases[0]));
}

TEST(sidecarset_validate_update_strategy)
{
    static const struct vcase cases[] = {
        {.name = "partition and selector",
         .patch = "{\"spec\":{\"updateStrategy\":{\"partition\":\"10%\",\"selector\":{"
                  "\"matchLabels\":{\"a\":\"b\"}}}}}",
         .contains = {"updateStrategy: Invalid value: \"&{Type:RollingUpdate Paused:false "
                      "Selector:",
                      "\": Partition and Selector cannot be used together"}},
        {.name = "partition 0 with selector is fine",
         .patch = "{\"spec\":{\"updateStrategy\":{\"selector\":{\"matchLabels\":{\"a\":\"b\"}}}}}",
         .allowed = true},
        {.name = "selector validated",
         .patch = "{\"spec\":{\"updateStrategy\":{\"selector\":{}}}}",
         .contains = {"spec.updateStrategy.selector: Invalid value: v1.LabelSelector{"}},
        {.name = "partition not a percent",
         .patch = "{\"spec\":{\"updateStrategy\":{\"partition\":\"abc\"}}}",
         .message = "spec.updateStrategy.partition: Invalid value: intstr.IntOrString{Type:1, "
                    "IntVal:0, StrVal:\"abc\"}: a valid percent string must be a numeric string "
                    "followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation "
                    "is '[0-9]+%')"},
        {.name = "maxUnavailable negative",
         .patch = "{\"spec\":{\"updateStrategy\":{\"maxUnavailable\":-1}}}",
         .message = "spec.updateStrategy.maxUnavailable: Invalid value: -1: must be greater than "
                    "or equal to 0"},
        {.name = "NotUpdate is not checked",
         .patch = "{\"spec\":{\"updateStrategy\":{\"type\":\"NotUpdate\",\"maxUnavailable\":-1}}}",
         .allowed = true},
        {.name = "priority both",
         .patch = "{\"spec\":{\"updateStrategy\":{\"priorityStrategy\":{\"orderPriority\":[{"
                  "\"orderedKey\":\"k\"}],\"weightPriority\":[{\"weight\":1,\"matchSelector\":{"
                  "\"matchLabels\":{\"a\":\"b\"}}}]}}}}",
         .message = "spec.updateStrategy.priorityStrategy: Required value: only one of "
                    "weightPriority and orderPriority can be used"},
        {.name = "priority weight",
         .patch = "{\"spec\":{\"updateStrategy\":{\"priorityStrategy\":{\"weightPriority\":[{"
                  "\"weight\":101,\"matchSelector\":{\"matchLabels\":{\"a\":\"b\"}}}]}}}}",
         .message = "spec.updateStrategy.priorityStrategy: Required value: weight must be valid "
                    "number in the range 1-100"},
        {.name = "priority selector",
         .patch = "{\"spec\":{\"updateStrategy\":{\"priorityStrategy\":{\"weightPriority\":[{"
                  "\"weight\":10,\"matchSelector\":{}}]}}}}",
         .message = "spec.updateStrategy.priorityStrategy: Required value: selector can not be "
                    "empty"},
        {.name = "priority order key",
         .patch = "{\"spec\":{\"updateStrategy\":{\"priorityStrategy\":{\"orderPriority\":[{"
                  "\"orderedKey\":\"\"}]}}}}",
         .message = "spec.updateStrategy.priorityStrategy: Required value: order key can not be "
                    "empty"},
        {.name = "scatter key",
         .patch = "{\"spec\":{\"updateStrategy\":{\"scatterStrategy\":[{\"key\":\"\",\"value\":"
                  "\"v\"}]}}}",
         .message = "spec.updateStrategy.scatterStrategy: Required value: key should not be empty"},
        {.name = "scatter duplicate",
         .patch = "{\"spec\":{\"updateStrategy\":{\"scatterStrategy\":[{\"key\":\"key-1\","
                  "\"value\":\"value-1\"},{\"key\":\"key-1\",\"value\":\"value-1\"}]}}}",
         .message = "spec.updateStrategy.scatterStrategy: Required value: duplicated key=key-1 "
                    "value=value-1"},
        {.name = "native init container with RollingUpdate",
         .patch = "{\"spec\":{\"initContainers\":[" SIDECAR("init", ",\"restartPolicy\":"
                                                                    "\"Always\"") "]}}",
         .message = "spec.updateStrategy: Required value: The initContainer in-place upgrade is "
                    "not currently supported."},
        {.name = "native init container with NotUpdate",
         .patch =
             "{\"spec\":{\"updateStrategy\":{\"type\":\"NotUpdate\"},\"initContainers\":[" SIDECAR(
                 "init", ",\"restartPolicy\":\"Always\"") "]}}",
         .allowed = true},
    };
    run_cases(cases, sizeof(cases) / sizeof(cases[0]));
}

#define POLICY(extra) ",\"resourcesPolicy\":{\"targetContainersMode\":\"sum\"" extra "}"
#define EXPR_OK ",\"resourcesExpr\":{\"limits\":{\"cpu\":\"cpu*50%\"}}"

TEST(sidecarset_validate_containers)
{
    static const struct vcase cases[] = {
        {.name = "no containers",
         .patch = "{\"spec\":{\"containers\":[]}}",
         .message = "spec: Required value: no initContainer or container defined for SidecarSet"},
        {.name = "only init containers",
         .patch = "{\"spec\":{\"containers\":[],\"initContainers\":[" SIDECAR("init", "") "]}}",
         .allowed = true},
        {.name = "podInjectPolicy",
         .patch =
             "{\"spec\":{\"containers\":[" SIDECAR("c", ",\"podInjectPolicy\":\"Middle\"") "]}}",
         .message = "spec.container.podInjectPolicy: Invalid value: \"Middle\": unsupported pod "
                    "inject policy"},
        {.name = "shareVolumePolicy",
         .patch = "{\"spec\":{\"containers\":[" SIDECAR(
             "c", ",\"shareVolumePolicy\":{\"type\":\"sometimes\"}") "]}}",
         .message = "spec.container.shareVolumePolicy: Invalid value: v1beta1.ShareVolumePolicy{"
                    "Type:\"sometimes\"}: unsupported share volume policy"},
        {.name = "transferEnv apiVersion",
         .patch = "{\"spec\":{\"containers\":[" SIDECAR(
             "c", ",\"transferEnv\":[{\"sourceContainerNameFrom\":{\"fieldRef\":{\"fieldPath\":"
                  "\"metadata.labels['a']\"}},\"envName\":\"E\"}]") "]}}",
         .message = "spec[0].transferEnv.fieldRef.apiVersion: Required value"},
        {.name = "transferEnv fieldPath",
         .patch = "{\"spec\":{\"containers\":[" SIDECAR(
             "c", ",\"transferEnv\":[{\"sourceContainerNameFrom\":{\"fieldRef\":{\"apiVersion\":"
                  "\"v1\",\"fieldPath\":\"\"}},\"envName\":\"E\"}]") "]}}",
         .message = "spec[0].transferEnv.fieldRef.fieldPath: Required value"},
        {.name = "transferEnv metadata.name",
         .patch = "{\"spec\":{\"containers\":[" SIDECAR(
             "c", ",\"transferEnv\":[{\"sourceContainerNameFrom\":{\"fieldRef\":{\"apiVersion\":"
                  "\"v1\",\"fieldPath\":\"metadata.name\"}},\"envName\":\"E\"}]") "]}}",
         .message = "spec[0].transferEnv.fieldRef.fieldPath: Invalid value: \"metadata.name\": "
                    "error converting fieldPath: field label not supported: metadata.name"},
        {.name = "transferEnv spec subscript",
         .patch = "{\"spec\":{\"containers\":[" SIDECAR(
             "c", ",\"transferEnv\":[{\"sourceContainerNameFrom\":{\"fieldRef\":{\"apiVersion\":"
                  "\"v1\",\"fieldPath\":\"spec.x['a']\"}},\"envName\":\"E\"}]") "]}}",
         .message = "spec[0].transferEnv.fieldRef.fieldPath: Invalid value: \"spec.x['a']\": "
                    "error converting fieldPath: field path not supported: spec.x"},
        {.name = "transferEnv version",
         .patch = "{\"spec\":{\"containers\":[" SIDECAR(
             "c", ",\"transferEnv\":[{\"sourceContainerNameFrom\":{\"fieldRef\":{\"apiVersion\":"
                  "\"v2\",\"fieldPath\":\"metadata.labels['a']\"}},\"envName\":\"E\"}]") "]}}",
         .message = "spec[0].transferEnv.fieldRef.fieldPath: Invalid value: "
                    "\"metadata.labels['a']\": error converting fieldPath: unsupported pod "
                    "version: v2"},
        {.name = "transferEnv label key",
         .patch = "{\"spec\":{\"containers\":[" SIDECAR(
             "c", ",\"transferEnv\":[{\"sourceContainerNameFrom\":{\"fieldRef\":{\"apiVersion\":"
                  "\"v1\",\"fieldPath\":\"metadata.labels['-a']\"}},\"envName\":\"E\"}]") "]}}",
         .message = "spec[0].transferEnv.fieldRef: Invalid value: \"-a\": " QNAME_ERR},
        {.name = "transferEnv annotation ok",
         .patch = "{\"spec\":{\"containers\":[" SIDECAR(
             "c", ",\"transferEnv\":[{\"sourceContainerNameFrom\":{\"fieldRef\":{\"apiVersion\":"
                  "\"v1\",\"fieldPath\":\"metadata.annotations['Example.com/Src']\"}},"
                  "\"envName\":\"E\"}]") "]}}",
         .allowed = true},
        {.name = "resourcesPolicy ok",
         .patch = "{\"spec\":{\"containers\":[" SIDECAR(
             "c", POLICY(",\"targetContainersNameRegex\":\"^app.*\"" EXPR_OK)) "]}}",
         .allowed = true},
        {.name = "resourcesPolicy with resources",
         .patch = "{\"spec\":{\"containers\":[" SIDECAR(
             "c", ",\"resources\":{\"limits\":{\"cpu\":\"1\"}}" POLICY(
                      ",\"targetContainersNameRegex\":\"x\"" EXPR_OK)) "]}}",
         .message = "spec[0].resourcesPolicy: Invalid value: v1beta1.ResourcesPolicy{"
                    "TargetContainersMode:\"sum\", TargetContainersNameRegex:\"x\", ResourcesExpr:"
                    "v1beta1.ResourcesExpr{Limits:(*v1beta1.ResourceExprLimits)(0xc000010000), "
                    "Requests:(*v1beta1.ResourceExprRequests)(nil)}}: resourcesPolicy and "
                    "resources cannot be configured together"},
        {.name = "resourcesPolicy empty regex",
         .patch = "{\"spec\":{\"containers\":[" SIDECAR("c", POLICY(EXPR_OK)) "]}}",
         .message = "spec[0].resourcesPolicy.targetContainersNameRegex: Required value: invalid "
                    "empty regex"},
        {.name = "resourcesPolicy bad regex",
         .patch = "{\"spec\":{\"containers\":[" SIDECAR(
             "c", POLICY(",\"targetContainersNameRegex\":\"[a\"" EXPR_OK)) "]}}",
         .message = "spec[0].resourcesPolicy.targetContainersNameRegex: Invalid value: \"[a\": "
                    "invalid regex pattern: error parsing regexp: missing closing ]: `[a`"},
        {.name = "resourcesPolicy no expressions",
         .patch = "{\"spec\":{\"containers\":[" SIDECAR(
             "c", POLICY(",\"targetContainersNameRegex\":\"x\"")) "]}}",
         .message = "spec[0].resourcesPolicy.resourcesExpr: Invalid value: v1beta1.ResourcesExpr{"
                    "Limits:(*v1beta1.ResourceExprLimits)(nil), Requests:(*v1beta1."
                    "ResourceExprRequests)(nil)}: at least one of limits or requests must be "
                    "configured"},
        {.name = "resourcesPolicy bad expression",
         .patch = "{\"spec\":{\"containers\":[" SIDECAR(
             "c", POLICY(",\"targetContainersNameRegex\":\"x\",\"resourcesExpr\":{\"requests\":{"
                         "\"memory\":\"(memory\"}}")) "]}}",
         .contains = {"spec[0].resourcesPolicy.resourcesExpr.requests.memory: Invalid value: "
                      "\"(memory\": invalid expression: "}},
        {.name = "resourcesPolicy on a plain init container",
         .patch = "{\"spec\":{\"initContainers\":[" SIDECAR(
             "i", POLICY(",\"targetContainersNameRegex\":\"x\"" EXPR_OK)) "]}}",
         .message = "spec[0].resourcesPolicy: Invalid value: v1beta1.ResourcesPolicy{"
                    "TargetContainersMode:\"sum\", TargetContainersNameRegex:\"x\", ResourcesExpr:"
                    "v1beta1.ResourcesExpr{Limits:(*v1beta1.ResourceExprLimits)(0xc000010000), "
                    "Requests:(*v1beta1.ResourceExprRequests)(nil)}}: resourcesPolicy is only "
                    "supported for containers with RestartPolicy Always"},
        {.name = "v1alpha1 podInjectPolicy",
         .version = "v1alpha1",
         .patch = "{\"spec\":{\"containers\":[" SIDECAR("c", ",\"podInjectPolicy\":\"\"") "]}}",
         .message = "spec.container.podInjectPolicy: Invalid value: \"\": unsupported pod inject "
                    "policy"},
    };
    run_cases(cases, sizeof(cases) / sizeof(cases[0]));
}

TEST(sidecarset_validate_pod_rules)
{
    static const struct vcase cases[] = {
        {.name = "missing image",
         .patch = "{\"spec\":{\"containers\":[" SIDECAR("c", ",\"image\":\"\"") "]}}",
         .message = "spec.containers[0].image: Required value"},
        {.name = "container name",
         .patch = "{\"spec\":{\"containers\":[" SIDECAR("C_1", "") "]}}",
         .message = "spec.containers[0].name: Invalid value: \"C_1\": a lowercase RFC 1123 label "
                    "must consist of lower case alphanumeric characters or '-', and must start "
                    "and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex "
                    "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"},
        {.name = "duplicate names",
         .patch = "{\"spec\":{\"containers\":[" SIDECAR("c", "") "," SIDECAR("c", "") "]}}",
         .message = "spec.containers[1].name: Duplicate value: \"c\""},
        {.name = "init and container names clash",
         .patch = "{\"spec\":{\"initContainers\":[" SIDECAR("sidecar", "") "]}}",
         .message = "spec.initContainers[0].name: Duplicate value: \"sidecar\""},
        {.name = "unknown volume",
         .patch = "{\"spec\":{\"containers\":[" SIDECAR(
             "c", ",\"volumeMounts\":[{\"name\":\"logs\",\"mountPath\":\"/l\"}]") "]}}",
         .message = "spec.containers[0].volumeMounts[0].name: Not found: \"logs\""},
        {.name = "volume without source",
         .patch = "{\"spec\":{\"volumes\":[{\"name\":\"v\"}]}}",
         .message = "spec.volumes[0]: Required value: must specify a volume type"},
        {.name = "two sources",
         .patch = "{\"spec\":{\"volumes\":[{\"name\":\"v\",\"emptyDir\":{},\"hostPath\":{"
                  "\"path\":\"/x\"}}]}}",
         .message = "spec.volumes[0].hostPath: Forbidden: may not specify more than 1 volume type"},
        {.name = "hostPath path",
         .patch = "{\"spec\":{\"volumes\":[{\"name\":\"v\",\"hostPath\":{\"path\":\"\"}}]}}",
         .message = "spec.volumes[0].hostPath.path: Required value"},
        {.name = "duplicate volume",
         .patch = "{\"spec\":{\"volumes\":[{\"name\":\"v\",\"emptyDir\":{}},{\"name\":\"v\","
                  "\"emptyDir\":{}}]}}",
         .message = "spec.volumes[1].name: Duplicate value: \"v\""},
        {.name = "mount of a volume with errors is not found",
         .patch =
             "{\"spec\":{\"volumes\":[{\"name\":\"v\",\"secret\":{}}],\"containers\":[" SIDECAR(
                 "c", ",\"volumeMounts\":[{\"name\":\"v\",\"mountPath\":\"/v\"}]") "]}}",
         .message = "[spec.volumes[0].secret.secretName: Required value, "
                    "spec.containers[0].volumeMounts[0].name: Not found: \"v\"]"},
        {.name = "mountPath clash",
         .patch =
             "{\"spec\":{\"volumes\":[{\"name\":\"v\",\"emptyDir\":{}}],\"containers\":[" SIDECAR(
                 "c", ",\"volumeMounts\":[{\"name\":\"v\",\"mountPath\":\"/v\"},{"
                      "\"name\":\"v\",\"mountPath\":\"/v\"}]") "]}}",
         .message = "spec.containers[0].volumeMounts[1].mountPath: Invalid value: \"/v\": must be "
                    "unique"},
        {.name = "device needs a PVC",
         .patch =
             "{\"spec\":{\"volumes\":[{\"name\":\"v\",\"emptyDir\":{}}],\"containers\":[" SIDECAR(
                 "c", ",\"volumeDevices\":[{\"name\":\"v\",\"devicePath\":\"/dev/x\"}]") "]}}",
         .message = "spec.containers[0].volumeDevices[0].name: Invalid value: \"v\": can only use "
                    "volume source type of PersistentVolumeClaim or Ephemeral for block mode"},
        {.name = "pull policy",
         .patch =
             "{\"spec\":{\"containers\":[" SIDECAR("c", ",\"imagePullPolicy\":\"Sometimes\"") "]}}",
         .message = "spec.containers[0].imagePullPolicy: Unsupported value: \"Sometimes\": "
                    "supported values: \"Always\", \"IfNotPresent\", \"Never\""},
        {.name = "pull policy missing",
         .patch = "{\"spec\":{\"containers\":[" SIDECAR("c", ",\"imagePullPolicy\":\"\"") "]}}",
         .message = "spec.containers[0].imagePullPolicy: Required value"},
        {.name = "restartPolicy on a container",
         .patch = "{\"spec\":{\"containers\":[" SIDECAR("c", ",\"restartPolicy\":\"Always\"") "]}}",
         .message = "spec.containers[0].restartPolicy: Forbidden: may not be set for non-init "
                    "containers"},
        {.name = "probe on a plain init container",
         .patch = "{\"spec\":{\"initContainers\":[" SIDECAR(
             "i", ",\"livenessProbe\":{\"exec\":{\"command\":[\"x\"]}}") "]}}",
         .message = "spec.initContainers[0].livenessProbe: Forbidden: may not be set for init "
                    "containers without restartPolicy=Always"},
        {.name = "liveness successThreshold",
         .patch = "{\"spec\":{\"containers\":[" SIDECAR(
             "c",
             ",\"livenessProbe\":{\"exec\":{\"command\":[\"x\"]},\"successThreshold\":2}") "]}}",
         .message = "spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must "
                    "be 1"},
        {.name = "probe handler",
         .patch = "{\"spec\":{\"containers\":[" SIDECAR("c", ",\"readinessProbe\":{"
                                                             "\"periodSeconds\":3}") "]}}",
         .message = "spec.containers[0].readinessProbe: Required value: must specify a handler "
                    "type"},
        {.name = "requests over limits",
         .patch = "{\"spec\":{\"containers\":[" SIDECAR(
             "c",
             ",\"resources\":{\"limits\":{\"cpu\":\"1\"},\"requests\":{\"cpu\":\"1500m\"}}") "]}}",
         .message = "spec.containers[0].resources.requests: Invalid value: \"1500m\": must be "
                    "less than or equal to cpu limit of 1"},
        {.name = "negative quantity",
         .patch = "{\"spec\":{\"containers\":[" SIDECAR(
             "c", ",\"resources\":{\"requests\":{\"memory\":\"-1Mi\"}}") "]}}",
         .message = "spec.containers[0].resources.requests[memory]: Invalid value: \"-1Mi\": must "
                    "be greater than or equal to 0"},
        {.name = "port",
         .patch = "{\"spec\":{\"containers\":[" SIDECAR(
             "c", ",\"ports\":[{\"containerPort\":70000,\"protocol\":\"TCP\"}]") "]}}",
         .message = "spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be "
                    "between 1 and 65535, inclusive"},
        {.name = "env name",
         .patch = "{\"spec\":{\"containers\":[" SIDECAR("c", ",\"env\":[{\"name\":\"1A\"}]") "]}}",
         .contains = {"spec.containers[0].env[0].name: Invalid value: \"1A\": a valid environment "
                      "variable name must consist of"}},
        {.name = "image whitespace",
         .patch = "{\"spec\":{\"containers\":[" SIDECAR("c", ",\"image\":\" x\"") "]}}",
         .message = "spec.containers[0].image: Invalid value: \" x\": must not have leading or "
                    "trailing whitespace"},
        {.name = "terminationMessagePolicy",
         .patch = "{\"spec\":{\"containers\":[" SIDECAR("c", ",\"terminationMessagePolicy\":"
                                                             "\"Never\"") "]}}",
         .message = "spec.containers[0].terminationMessagePolicy: Unsupported value: \"Never\": "
                    "supported values: \"File\", \"FallbackToLogsOnError\""},
        {.name = "only init containers get a placeholder container",
         .patch = "{\"spec\":{\"containers\":null,\"initContainers\":[" SIDECAR("test", "") "]}}",
         .message = "spec.initContainers[0].name: Duplicate value: \"test\""},
    };
    run_cases(cases, sizeof(cases) / sizeof(cases[0]));
}

#define WHITELIST(rules)                                                                           \
    "[{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"kruise-"              \
    "configuration\",\"namespace\":\"kruise-system\"},\"data\":{\"SidecarSet_PatchPodMetadata_"    \
    "WhiteList\":\"" rules "\"}}]"
#define PPM(entries) "{\"spec\":{\"patchPodMetadata\":[" entries "]}}"
#define ENTRY(key, policy) "{\"annotations\":{\"" key "\":\"v\"},\"patchPolicy\":\"" policy "\"}"

TEST(sidecarset_validate_patch_pod_metadata)
{
    static const struct vcase cases[] = {
        {.name = "no whitelist",
         .patch = PPM(ENTRY("a.io/x", "Retain")),
         .message = "spec.patchPodMetadata: Required value: SidecarSet patch metadata whitelist "
                    "not found"},
        {.name = "no whitelist, gate on",
         .patch = PPM(ENTRY("a.io/x", "Retain")),
         .gates = "SidecarSetPatchPodMetadataDefaultsAllowed=true",
         .allowed = true},
        {.name = "whitelist allows",
         .patch = PPM(ENTRY("a.io/x", "Retain")),
         .cluster = WHITELIST("{\\\"rules\\\":[{\\\"allowedAnnotationKeyExprs\\\":[\\\"^a\\\\\\\\"
                              ".io/.*\\\"]}]}"),
         .allowed = true},
        {.name = "key not allowed",
         .patch = PPM(ENTRY("b.io/x", "Retain")),
         .cluster = WHITELIST("{\\\"rules\\\":[{\\\"allowedAnnotationKeyExprs\\\":[\\\"^a\\\"]}]}"),
         .message = "spec.patchPodMetadata: Required value: sidecarSet patch metadata "
                    "annotation(b.io/x) is not allowed"},
        {.name = "rule selector does not match",
         .patch = PPM(ENTRY("a.io/x", "Retain")),
         .cluster = WHITELIST("{\\\"rules\\\":[{\\\"selector\\\":{\\\"matchLabels\\\":{\\\"team"
                              "\\\":\\\"x\\\"}},\\\"allowedAnnotationKeyExprs\\\":[\\\"a\\\"]}]}"),
         .message = "spec.patchPodMetadata: Required value: sidecarSet patch metadata annotation "
                    "is not allowed"},
        {.name = "rule selector matches labels",
         .patch =
             "{\"metadata\":{\"labels\":{\"team\":\"x\"}},\"spec\":{\"patchPodMetadata\":[" ENTRY(
                 "a.io/x", "Retain") "]}}",
         .cluster = WHITELIST("{\\\"rules\\\":[{\\\"selector\\\":{\\\"matchLabels\\\":{\\\"team"
                              "\\\":\\\"x\\\"}},\\\"allowedAnnotationKeyExprs\\\":[\\\"a\\\"]}]}"),
         .allowed = true},
        {.name = "e2e key name is ignored",
         .patch = PPM(ENTRY("a.io/x", "Retain")),
         .cluster = WHITELIST("{\\\"rules\\\":[{\\\"annotationKeyExprs\\\":[\\\"a\\\"]}]}"),
         .message = "spec.patchPodMetadata: Required value: sidecarSet patch metadata annotation "
                    "is not allowed"},
        {.name = "bad JSON",
         .patch = PPM(ENTRY("a.io/x", "Retain")),
         .cluster = WHITELIST("{rules"),
         .message = "spec.patchPodMetadata: Required value: invalid character 'r' looking for "
                    "beginning of object key string"},
        {.name = "bad regex",
         .patch = PPM(ENTRY("a.io/x", "Retain")),
         .cluster = WHITELIST("{\\\"rules\\\":[{\\\"allowedAnnotationKeyExprs\\\":[\\\"(a\\\"]}]}"),
         .message = "spec.patchPodMetadata: Required value: error parsing regexp: missing closing "
                    "): `(a`"},
        {.name = "no annotations",
         .patch = PPM("{\"patchPolicy\":\"Retain\"}"),
         .gates = "SidecarSetPatchPodMetadataDefaultsAllowed=true",
         .message = "spec.patchPodMetadata: Required value: no annotations defined for SidecarSet"},
        {.name = "no patchPolicy",
         .patch = PPM(ENTRY("a.io/x", "")),
         .gates = "SidecarSetPatchPodMetadataDefaultsAllowed=true",
         .message = "spec.patchPodMetadata: Required value: no patchPolicy defined for "
                    "patchPodMetadata"},
        {.name = "bad annotation key",
         .patch = PPM(ENTRY("a/b/c", "Retain")),
         .gates = "SidecarSetPatchPodMetadataDefaultsAllowed=true",
         .contains = {"patchPodMetadata.annotations: Invalid value: \"a/b/c\": a qualified name "
                      "must consist of"}},
        {.name = "key twice",
         .patch = PPM(ENTRY("a.io/x", "Retain") "," ENTRY("a.io/x", "Overwrite")),
         .gates = "SidecarSetPatchPodMetadataDefaultsAllowed=true",
         .message = "spec.patchPodMetadata: Required value: patch annotation[a.io/x] already "
                    "exist"},
        {.name = "unknown policy is accepted",
         .patch = PPM(ENTRY("a.io/x", "Whatever")),
         .gates = "SidecarSetPatchPodMetadataDefaultsAllowed=true",
         .allowed = true},
    };
    run_cases(cases, sizeof(cases) / sizeof(cases[0]));
}

TEST(sidecarset_validate_update)
{
    static const struct vcase cases[] = {
        {.name = "unchanged", .op = "UPDATE", .allowed = true},
        {.name = "image change",
         .op = "UPDATE",
         .patch =
             "{\"spec\":{\"containers\":[" SIDECAR("sidecar", ",\"image\":\"sidecar:2\"") "]}}",
         .allowed = true},
        {.name = "upgradeType immutable",
         .op = "UPDATE",
         .patch = "{\"spec\":{\"containers\":[" SIDECAR(
             "sidecar", ",\"upgradeStrategy\":{\"upgradeType\":\"HotUpgrade\"}") "]}}",
         .message = "spec.containers.upgradeStrategy.upgradeType: Invalid value: \"sidecar\": "
                    "container sidecar upgradeType is immutable"},
        {.name = "old upgradeType empty",
         .op = "UPDATE",
         .patch = "{\"spec\":{\"containers\":[" SIDECAR(
             "sidecar", ",\"upgradeStrategy\":{\"upgradeType\":\"HotUpgrade\"}") "]}}",
         .old = "{\"spec\":{\"containers\":[" SIDECAR("sidecar", ",\"upgradeStrategy\":{}") "]}}",
         .allowed = true},
        {.name = "container added",
         .op = "UPDATE",
         .patch = "{\"spec\":{\"containers\":[" SIDECAR("sidecar", "") "," SIDECAR("new", "") "]}}",
         .message = "spec.containers.name: Invalid value: \"new\": container new is not found"},
        {.name = "container removed",
         .op = "UPDATE",
         .patch = "{\"spec\":{\"containers\":[" SIDECAR("b", "") "]}}",
         .old = "{\"spec\":{\"containers\":[" SIDECAR("a", "") "," SIDECAR("b", "") "]}}",
         .allowed = true},
        {.name = "init container added is fine",
         .op = "UPDATE",
         .patch = "{\"spec\":{\"initContainers\":[" SIDECAR("i", "") "]}}",
         .allowed = true},
        {.name = "v1alpha1 container added",
         .version = "v1alpha1",
         .op = "UPDATE",
         .patch = "{\"spec\":{\"containers\":[" SIDECAR("x", "") "]}}",
         .message = "spec.containers.name: Invalid value: \"x\": container x is not found"},
    };
    run_cases(cases, sizeof(cases) / sizeof(cases[0]));
}

/* An existing SidecarSet "other" with a selector, a namespace selector (or null), containers,
 * init containers, volumes and patchPodMetadata given as JSON fragments. */
#define OTHER(sel, nsel, conts, inits, vols, ppm)                                                  \
    "[{\"apiVersion\":\"apps.kruise.io/v1beta1\",\"kind\":\"SidecarSet\",\"metadata\":{\"name\":"  \
    "\"other\"},\"spec\":{\"selector\":" sel ",\"namespaceSelector\":" nsel                        \
    ",\"containers\":[" conts "],\"initContainers\":[" inits "],\"volumes\":[" vols                \
    "],\"patchPodMetadata\":[" ppm "]}}]"
#define WEB "{\"matchLabels\":{\"app\":\"web\"}}"
#define GATE "SidecarSetPatchPodMetadataDefaultsAllowed=true"

TEST(sidecarset_validate_conflicts)
{
    static const struct vcase cases[] = {
        {.name = "container name",
         .cluster = OTHER(WEB, "null", SIDECAR("sidecar", ""), "", "", ""),
         .message = "spec.containers: Invalid value: \"sidecar\": container sidecar already exist "
                    "in other"},
        {.name = "disjoint selectors",
         .cluster = OTHER("{\"matchLabels\":{\"app\":\"db\"}}", "null", SIDECAR("sidecar", ""), "",
                          "", ""),
         .allowed = true},
        {.name = "different keys overlap",
         .cluster = OTHER("{\"matchLabels\":{\"tier\":\"x\"}}", "null", SIDECAR("sidecar", ""), "",
                          "", ""),
         .contains = {"container sidecar already exist in other"}},
        {.name = "In overlaps",
         .cluster = OTHER("{\"matchExpressions\":[{\"key\":\"app\",\"operator\":\"In\",\"values\":"
                          "[\"db\",\"web\"]}]}",
                          "null", SIDECAR("sidecar", ""), "", "", ""),
         .contains = {"already exist in other"}},
        {.name = "NotIn disjoint",
         .cluster = OTHER("{\"matchExpressions\":[{\"key\":\"app\",\"operator\":\"NotIn\","
                          "\"values\":[\"web\"]}]}",
                          "null", SIDECAR("sidecar", ""), "", "", ""),
         .allowed = true},
        {.name = "Exists overlaps",
         .cluster = OTHER("{\"matchExpressions\":[{\"key\":\"app\",\"operator\":\"Exists\"}]}",
                          "null", SIDECAR("sidecar", ""), "", "", ""),
         .contains = {"already exist in other"}},
        {.name = "DoesNotExist disjoint",
         .cluster = OTHER("{\"matchExpressions\":[{\"key\":\"app\",\"operator\":"
                          "\"DoesNotExist\"}]}",
                          "null", SIDECAR("sidecar", ""), "", "", ""),
         .allowed = true},
        {.name = "disjoint namespaces",
         .patch = "{\"spec\":{\"namespaceSelector\":{\"matchLabels\":{\"team\":\"a\"}}}}",
         .cluster =
             OTHER(WEB, "{\"matchLabels\":{\"team\":\"b\"}}", SIDECAR("sidecar", ""), "", "", ""),
         .allowed = true},
        {.name = "one namespace selector nil overlaps",
         .cluster =
             OTHER(WEB, "{\"matchLabels\":{\"team\":\"b\"}}", SIDECAR("sidecar", ""), "", "", ""),
         .contains = {"already exist in other"}},
        {.name = "v1alpha1 namespace vs namespaceSelector",
         .version = "v1alpha1",
         .patch = "{\"spec\":{\"namespace\":\"ns-a\"}}",
         .cluster = OTHER(WEB, "{\"matchLabels\":{\"kubernetes.io/metadata.name\":\"ns-b\"}}",
                          SIDECAR("sidecar", ""), "", "", ""),
         .allowed = true},
        {.name = "init container name",
         .patch = "{\"spec\":{\"initContainers\":[" SIDECAR("init", "") "]}}",
         .cluster = OTHER(WEB, "null", SIDECAR("x", ""), SIDECAR("init", ""), "", ""),
         .message = "spec.containers: Invalid value: \"init\": container init already exist in "
                    "other"},
        {.name = "init vs container is no conflict",
         .patch = "{\"spec\":{\"initContainers\":[" SIDECAR("x", "") "]}}",
         .cluster = OTHER(WEB, "null", SIDECAR("x", ""), "", "", ""),
         .allowed = true},
        {.name = "same volume",
         .patch = "{\"spec\":{\"volumes\":[{\"name\":\"v\",\"emptyDir\":{}}]}}",
         .cluster =
             OTHER(WEB, "null", SIDECAR("x", ""), "", "{\"name\":\"v\",\"emptyDir\":{}}", ""),
         .allowed = true},
        {.name = "different volume",
         .patch = "{\"spec\":{\"volumes\":[{\"name\":\"v\",\"emptyDir\":{}}]}}",
         .cluster = OTHER(WEB, "null", SIDECAR("x", ""), "",
                          "{\"name\":\"v\",\"hostPath\":{\"path\":\"/x\"}}", ""),
         .message = "spec.volumes: Invalid value: \"v\": volume v is in conflict with sidecarset "
                    "other"},
        {.name = "annotation overwrite",
         .gates = GATE,
         .patch = PPM(ENTRY("a.io/x", "Overwrite")),
         .cluster = OTHER(WEB, "null", SIDECAR("x", ""), "", "", ENTRY("a.io/x", "MergePatchJson")),
         .message = "spec.patchPodMetadata: Invalid value: \"a.io/x\": annotation a.io/x is in "
                    "conflict with sidecarset other"},
        {.name = "other overwrites",
         .gates = GATE,
         .patch = PPM(ENTRY("a.io/x", "MergePatchJson")),
         .cluster = OTHER(WEB, "null", SIDECAR("x", ""), "", "", ENTRY("a.io/x", "Overwrite")),
         .contains = {"annotation a.io/x is in conflict with sidecarset other"}},
        {.name = "merge and merge",
         .gates = GATE,
         .patch = PPM(ENTRY("a.io/x", "MergePatchJson")),
         .cluster = OTHER(WEB, "null", SIDECAR("x", ""), "", "", ENTRY("a.io/x", "MergePatchJson")),
         .allowed = true},
        {.name = "retain never conflicts",
         .gates = GATE,
         .patch = PPM(ENTRY("a.io/x", "Retain")),
         .cluster = OTHER(WEB, "null", SIDECAR("x", ""), "", "", ENTRY("a.io/x", "Overwrite")),
         .allowed = true},
        {.name = "self is skipped on update",
         .op = "UPDATE",
         .cluster = "[{\"apiVersion\":\"apps.kruise.io/v1beta1\",\"kind\":\"SidecarSet\","
                    "\"metadata\":{\"name\":\"ss\"},\"spec\":{\"selector\":" WEB
                    ",\"containers\":[" SIDECAR("sidecar", "") "]}}]",
         .allowed = true},
        {.name = "conflicts only when everything else passed",
         .patch = "{\"metadata\":{\"namespace\":\"x\"}}",
         .cluster = OTHER(WEB, "null", SIDECAR("sidecar", ""), "", "", ""),
         .message = "metadata.namespace: Forbidden: not allowed on this type"},
    };
    run_cases(cases, sizeof(cases) / sizeof(cases[0]));
}

TEST(sidecarset_validate_decoding)
{
    struct wh_admrun r;
    /* a wrongly typed field fails decoding: 400 */
    json_t *req = wh_test_json(
        "{\"uid\":\"u\",\"kind\":{\"group\":\"apps.kruise.io\",\"version\":\"v1beta1\",\"kind\":"
        "\"SidecarSet\"},\"resource\":{\"group\":\"apps.kruise.io\",\"version\":\"v1beta1\","
        "\"resource\":\"sidecarsets\"},\"operation\":\"CREATE\",\"object\":{\"metadata\":{"
        "\"name\":\"ss\"},\"spec\":{\"containers\":\"x\"}}}");
    CHECK(wh_admrun(EP, NULL, NULL, req, &r));
    CHECK(!r.allowed);
    CHECK_EQ_INT(r.code, 400);
    CHECK(strstr(r.message, "cannot unmarshal string") != NULL);
    wh_admrun_fini(&r);
    /* UPDATE without oldObject */
    json_object_set_new(req, "operation", json_string("UPDATE"));
    json_object_set_new(json_object_get(req, "object"), "spec", json_object());
    CHECK(wh_admrun(EP, NULL, NULL, req, &r));
    CHECK_EQ_INT(r.code, 400);
    CHECK_EQ_STR(r.message, "there is no content to decode");
    wh_admrun_fini(&r);
    /* another version: upstream decodes nothing and validates an empty SidecarSet */
    json_object_set_new(req, "operation", json_string("CREATE"));
    json_object_set_new(json_object_get(req, "resource"), "version", json_string("v2"));
    CHECK(wh_admrun(EP, NULL, NULL, req, &r));
    CHECK_EQ_INT(r.code, 500);
    CHECK_EQ_STR(r.message,
                 "[metadata.name: Required value: name or generateName is required, "
                 "spec.selector: Required value: no selector defined for SidecarSet, spec: "
                 "Required value: no initContainer or container defined for SidecarSet]");
    wh_admrun_fini(&r);
    json_decref(req);
}
