#ifndef WH_CONVERSION_ROWS_INT_H
#define WH_CONVERSION_ROWS_INT_H

/* Short names for writing the per-kind tables (see convert_int.h for what a row means). Only the
 * per-kind files include this; the names are deliberately plain words so that a table reads as
 * the spec's mapping table does:
 *
 *     COPY("spec.replicas", T_I32),
 *     RENAME("spec.subsets[].requiredNodeSelectorTerm", "spec.subsets[].requiredNodeSelector",
 *            T_STRUCT("v1.NodeSelectorTerm")),
 *     BETA_ONLY("spec.reserveOrdinals", T_INTSTRS),
 */

#include "conversion/convert_int.h"

/* The tables read best one row per line: clang-format would break these macros apart. */
/* clang-format off */

#define WH_ROWS(rows) (rows), (sizeof(rows) / sizeof((rows)[0]))

/* ---- types ---- */
#define T_STR {WH_CK_STRING, WH_CS_ONE, "string", NULL, NULL, NULL}
#define T_ENUM(go, values) {WH_CK_STRING, WH_CS_ONE, go, NULL, values, NULL}
#define T_BOOL {WH_CK_BOOL, WH_CS_ONE, "bool", NULL, NULL, NULL}
#define T_I32 {WH_CK_INT32, WH_CS_ONE, "int32", NULL, NULL, NULL}
#define T_I64 {WH_CK_INT64, WH_CS_ONE, "int64", NULL, NULL, NULL}
#define T_INTSTR {WH_CK_INTSTR, WH_CS_ONE, "intstr.IntOrString", NULL, NULL, NULL}
#define T_TIME {WH_CK_TIME, WH_CS_ONE, "v1.Time", NULL, NULL, NULL}
#define T_RAW {WH_CK_RAW, WH_CS_ONE, "runtime.RawExtension", NULL, NULL, NULL}
#define T_STRUCT(go) {WH_CK_STRUCT, WH_CS_ONE, go, NULL, NULL, NULL}
/* A struct whose v1beta1 Go type is not the v1alpha1 one with the package swapped. */
#define T_STRUCT2(go, go_beta) {WH_CK_STRUCT, WH_CS_ONE, go, NULL, NULL, go_beta}
#define T_LIST(go) {WH_CK_STRUCT, WH_CS_LIST, go, NULL, NULL, NULL}
#define T_LIST2(go, go_beta) {WH_CK_STRUCT, WH_CS_LIST, go, NULL, NULL, go_beta}
/* A named slice type: []elem. */
#define T_LIST_OF(go, elem) {WH_CK_STRUCT, WH_CS_LIST, go, elem, NULL, NULL}
#define T_MAP(go) {WH_CK_STRUCT, WH_CS_MAP, go, NULL, NULL, NULL}
#define T_MAP_LIST(go) {WH_CK_STRUCT, WH_CS_MAP_LIST, go, NULL, NULL, NULL}
#define T_STRS {WH_CK_STRING, WH_CS_LIST, "[]string", NULL, NULL, NULL}
#define T_ENUMS(go, values) {WH_CK_STRING, WH_CS_LIST, go, NULL, values, NULL}
#define T_INTSTRS {WH_CK_INTSTR, WH_CS_LIST, "[]intstr.IntOrString", NULL, NULL, NULL}
#define T_STRMAP {WH_CK_STRING, WH_CS_MAP, "map[string]string", NULL, NULL, NULL}
#define T_I32MAP {WH_CK_INT32, WH_CS_MAP, "map[string]int32", NULL, NULL, NULL}
#define T_TIMEMAP {WH_CK_TIME, WH_CS_MAP, "map[string]v1.Time", NULL, NULL, NULL}
/* A string whose Go type differs by version (e.g. a kruise enum vs metav1's plain string). */
#define T_ENUM2(go, go_beta) {WH_CK_STRING, WH_CS_ONE, go, NULL, NULL, go_beta}
/* Annotation values parsed by a CUSTOM rule: a string in metadata, examples for tests. */
#define T_TEXT(values) {WH_CK_STRING, WH_CS_ONE, "string", NULL, values, NULL}

/* ---- rows ---- (parameters are not called "type": the designator .type would be replaced) */
#define COPY(path, t) {.alpha = (path), .beta = (path), .type = t}
#define RENAME(a, b, t) {.alpha = (a), .beta = (b), .type = t}
#define MOVE_IF(pred, a, b, t) {.alpha = (a), .beta = (b), .type = t, .when = (pred)}
#define ALPHA_ONLY(path, t) {.alpha = (path), .type = t, .rule = WH_CONV_ALPHA_ONLY}
#define BETA_ONLY(path, t) {.beta = (path), .type = t, .rule = WH_CONV_BETA_ONLY}
#define INVERT(a, b) {.alpha = (a), .beta = (b), .type = T_BOOL, .rule = WH_CONV_INVERT}
#define ENUM_MAP(path, t, m)                                                                       \
    {.alpha = (path), .beta = (path), .type = t, .rule = WH_CONV_ENUM, .map = (m)}
#define NO_NULLS(path, t) {.alpha = (path), .beta = (path), .type = t, .rule = WH_CONV_NO_NULLS}
/* beta bool = (label == "true"); going down the bool is lost (no label written). */
#define LABEL_TRUE(k, b)                                                                           \
    {.beta = (b), .type = T_BOOL, .rule = WH_CONV_META_TRUE, .meta = WH_META_LABEL, .key = (k)}
/* beta bool = (annotation == "true"); going down a true bool writes the annotation "true". */
#define ANNOTATION_TRUE(k, b)                                                                      \
    {.beta = (b), .type = T_BOOL, .rule = WH_CONV_META_TRUE, .meta = WH_META_ANNOTATION,           \
     .key = (k), .write_back = true}
#define LABEL_MOVE(k, b, t)                                                                        \
    {.beta = (b), .type = t, .rule = WH_CONV_META_MOVE, .meta = WH_META_LABEL, .key = (k)}
#define REJECT_DOWN(b, t, message)                                                                 \
    {.beta = (b), .type = t, .rule = WH_CONV_REJECT, .key = (message)}
#define CUSTOM(a, b, t, f)                                                                         \
    {.alpha = (a), .beta = (b), .type = t, .rule = WH_CONV_CUSTOM, .fn = (f)}
/* Written by the CUSTOM row above it (either path may be NULL). */
#define DERIVED(a, b, t) {.alpha = (a), .beta = (b), .type = t, .rule = WH_CONV_TYPE_ONLY}
/* An annotation (the alpha side) that a CUSTOM row reads or writes; t describes its text. */
#define ANNOTATION_DERIVED(k, t)                                                                   \
    {.type = t, .rule = WH_CONV_TYPE_ONLY, .meta = WH_META_ANNOTATION, .key = (k)}
/* A member of a struct whose row copies or moves it whole: INSIDE in both versions,
 * INSIDE_ALPHA / INSIDE_BETA in one (for the row groups below, which take one of the three). */
#define INSIDE(a, b, t) {.alpha = (a), .beta = (b), .type = t, .rule = WH_CONV_TYPE_ONLY}
#define INSIDE_ALPHA(a, b, t) {.alpha = (a), .type = t, .rule = WH_CONV_TYPE_ONLY}
#define INSIDE_BETA(a, b, t) {.beta = (b), .type = t, .rule = WH_CONV_TYPE_ONLY}

/* ---- members of types several kinds share; R is INSIDE, INSIDE_ALPHA or INSIDE_BETA, a and b
 * the struct's path in each version ---- */

/* pub.UpdatePriorityStrategy */
#define WH_ROWS_PRIORITY(R, a, b)                                                                  \
    R(a ".orderPriority", b ".orderPriority", T_LIST("[]pub.UpdatePriorityOrderTerm")),            \
        R(a ".orderPriority[].orderedKey", b ".orderPriority[].orderedKey", T_STR),                \
        R(a ".weightPriority", b ".weightPriority", T_LIST("[]pub.UpdatePriorityWeightTerm")),     \
        R(a ".weightPriority[].weight", b ".weightPriority[].weight", T_I32),                      \
        R(a ".weightPriority[].matchSelector", b ".weightPriority[].matchSelector",                \
          T_STRUCT("v1.LabelSelector"))

/* pub.InPlaceUpdateStrategy */
#define WH_ROWS_INPLACE(R, a, b)                                                                   \
    R(a ".gracePeriodSeconds", b ".gracePeriodSeconds", T_I32),                                    \
        R(a ".imagePreDownloadParallelism", b ".imagePreDownloadParallelism", T_INTSTR),           \
        R(a ".imagePreDownloadTimeoutSeconds", b ".imagePreDownloadTimeoutSeconds", T_I32),        \
        R(a ".imagePreDownloadMinUpdatedReadyPods", b ".imagePreDownloadMinUpdatedReadyPods",      \
          T_I32)

/* pub.LifecycleHook */
#define WH_ROWS_HOOK(R, a, b)                                                                      \
    R(a, b, T_STRUCT("pub.LifecycleHook")), R(a ".labelsHandler", b ".labelsHandler", T_STRMAP),   \
        R(a ".finalizersHandler", b ".finalizersHandler", T_STRS),                                 \
        R(a ".markPodNotReady", b ".markPodNotReady", T_BOOL)

/* pub.Lifecycle */
#define WH_ROWS_LIFECYCLE(R, a, b)                                                                 \
    WH_ROWS_HOOK(R, a ".preDelete", b ".preDelete"),                                               \
        WH_ROWS_HOOK(R, a ".inPlaceUpdate", b ".inPlaceUpdate"),                                   \
        WH_ROWS_HOOK(R, a ".preNormal", b ".preNormal")

/* UpdateScatterStrategy, a named list of {key, value}. */
#define T_SCATTER T_LIST_OF("V.UpdateScatterStrategy", "V.UpdateScatterTerm")
#define WH_ROWS_SCATTER(R, a, b)                                                                   \
    R(a "[].key", b "[].key", T_STR), R(a "[].value", b "[].value", T_STR)

/* A condition with type, status, lastTransitionTime, reason and message (apps/v1 and most kruise
 * conditions); type_go is the Go type of its "type". */
#define WH_ROWS_CONDITION(R, a, b, type_go)                                                        \
    R(a "[].type", b "[].type", T_ENUM(type_go, NULL)),                                            \
        R(a "[].status", b "[].status", T_ENUM("v1.ConditionStatus", "True|False|Unknown")),       \
        R(a "[].lastTransitionTime", b "[].lastTransitionTime", T_TIME),                           \
        R(a "[].reason", b "[].reason", T_STR), R(a "[].message", b "[].message", T_STR)

/* sandbox config of image pulls: labels and annotations */
#define WH_ROWS_SANDBOX(R, a, b)                                                                   \
    R(a ".labels", b ".labels", T_STRMAP), R(a ".annotations", b ".annotations", T_STRMAP)

/* BroadcastJobSpec (BroadcastJob, and AdvancedCronJob's broadcastJobTemplate) */
#define WH_ROWS_BROADCASTJOB_SPEC(R, a, b)                                                         \
    R(a ".parallelism", b ".parallelism", T_INTSTR),                                               \
        R(a ".template", b ".template", T_STRUCT("v1.PodTemplateSpec")),                           \
        R(a ".completionPolicy", b ".completionPolicy", T_STRUCT("V.CompletionPolicy")),           \
        R(a ".completionPolicy.type", b ".completionPolicy.type",                                  \
          T_ENUM("V.CompletionPolicyType", "Always|Never")),                                       \
        R(a ".completionPolicy.activeDeadlineSeconds",                                             \
          b ".completionPolicy.activeDeadlineSeconds", T_I64),                                     \
        R(a ".completionPolicy.ttlSecondsAfterFinished",                                           \
          b ".completionPolicy.ttlSecondsAfterFinished", T_I32),                                   \
        R(a ".paused", b ".paused", T_BOOL),                                                       \
        R(a ".failurePolicy", b ".failurePolicy", T_STRUCT("V.FailurePolicy")),                    \
        R(a ".failurePolicy.type", b ".failurePolicy.type",                                        \
          T_ENUM("V.FailurePolicyType", "Continue|FailFast|Pause")),                               \
        R(a ".failurePolicy.restartLimit", b ".failurePolicy.restartLimit", T_I32)

/* ImagePullJobTemplate, inlined into ImagePullJob's and ImageListPullJob's spec */
#define WH_ROWS_PULL_TEMPLATE(R, a, b)                                                             \
    R(a ".pullSecrets", b ".pullSecrets", T_STRS),                                                 \
        R(a ".selector", b ".selector", T_STRUCT("V.ImagePullJobNodeSelector")),                   \
        R(a ".selector.names", b ".selector.names", T_STRS),                                       \
        R(a ".selector.matchLabels", b ".selector.matchLabels", T_STRMAP),                         \
        R(a ".selector.matchExpressions", b ".selector.matchExpressions",                          \
          T_LIST("[]v1.LabelSelectorRequirement")),                                                \
        R(a ".podSelector", b ".podSelector", T_STRUCT("V.ImagePullJobPodSelector")),              \
        R(a ".podSelector.matchLabels", b ".podSelector.matchLabels", T_STRMAP),                   \
        R(a ".podSelector.matchExpressions", b ".podSelector.matchExpressions",                    \
          T_LIST("[]v1.LabelSelectorRequirement")),                                                \
        R(a ".parallelism", b ".parallelism", T_INTSTR),                                           \
        R(a ".pullPolicy", b ".pullPolicy", T_STRUCT("V.PullPolicy")),                             \
        R(a ".pullPolicy.timeoutSeconds", b ".pullPolicy.timeoutSeconds", T_I32),                  \
        R(a ".pullPolicy.backoffLimit", b ".pullPolicy.backoffLimit", T_I32),                      \
        R(a ".completionPolicy", b ".completionPolicy", T_STRUCT("V.CompletionPolicy")),           \
        R(a ".completionPolicy.type", b ".completionPolicy.type",                                  \
          T_ENUM("V.CompletionPolicyType", "Always|Never")),                                       \
        R(a ".completionPolicy.activeDeadlineSeconds",                                             \
          b ".completionPolicy.activeDeadlineSeconds", T_I64),                                     \
        R(a ".completionPolicy.ttlSecondsAfterFinished",                                           \
          b ".completionPolicy.ttlSecondsAfterFinished", T_I32),                                   \
        R(a ".sandboxConfig", b ".sandboxConfig", T_STRUCT("V.SandboxConfig")),                    \
        WH_ROWS_SANDBOX(R, a ".sandboxConfig", b ".sandboxConfig"),                                \
        R(a ".imagePullPolicy", b ".imagePullPolicy",                                              \
          T_ENUM("V.ImagePullPolicy", "Always|IfNotPresent"))

/* clang-format on */

#endif
