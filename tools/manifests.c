/* manifests: what the manifests/ tree is generated from and checked against, from the program's
 * own tables (a developer tool; `make crds`, `make manifests`):
 *
 *   manifests crds DIR          writes the CustomResourceDefinitions of every kind /convert
 *                               serves into DIR (one file per CRD, plus kustomization.yaml)
 *   manifests webhooks DEPLOYMENT BASE_DIR CHART_DIR
 *                               writes webhookconfigurations.yaml into BASE_DIR
 *                               (manifests/base) and CHART_DIR (the chart's templates): the
 *                               webhook entries of every route the Deployment's flags serve
 *                               (tools/webhookconfigs.c)
 *   manifests facts [ARGS...]   prints as JSON what the checks compare the manifests with: the
 *                               binary's defaults, the configuration that ARGS and the
 *                               environment give (a Deployment's), the route table and which
 *                               routes that configuration serves, the convertible kinds and
 *                               the CRDs written by `crds`
 *
 * The schemas come from the Go-type model (gocompat/gotype.h) the way controller-gen makes
 * them from Go types, so the API server prunes exactly what upstream's CRDs make it prune:
 * structs are objects with their JSON fields as properties, fields without omitempty are
 * required, int32/int64 carry their format, IntOrString and Quantity are
 * x-kubernetes-int-or-string, times are date-time strings, maps have additionalProperties, and
 * an embedded ObjectMeta is a bare object. What controller-gen takes from kubebuilder markers,
 * which the model does not carry, is the table `markers` below (upstream's markers, by type and
 * field: pod templates kept schemaless, `+optional` fields, defaults and the validations). */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "conversion/convert.h"
#include "gocompat/gotype.h"
#include "handlers/registry.h"
#include "k8s/kruise.h"
#include "kube/resource.h"
#include "tools/webhookconfigs.h"
#include "util/json.h"
#include "util/mem.h"
#include "util/str.h"
#include "util/yaml.h"
#include "util/yaml_emit.h"

/* --- the CRDs' own facts (upstream's config/crd/bases, openkruise/kruise 07169cfa) ------------ */

struct column {
    const char *name, *type, *path;
    int priority;
    const char *only; /* the one version that has this column, NULL: both */
};

struct crd {
    const char *group, *kind, *plural;
    const char *short_names[3];
    bool cluster_scoped;
    bool
        scale; /* the scale subresource (.spec.replicas, .status.replicas, .status.labelSelector) */
    struct column columns[12];
    /* A kind upstream serves at this one version only, which /convert has nothing to do for:
     * the CRD has that version, stores it, and no conversion. NULL: both versions, converted
     * by /convert (every kind it converts has one). */
    const char *only;
};

#define AGE                                                                                        \
    {                                                                                              \
        "AGE", "date", ".metadata.creationTimestamp", 0, NULL                                      \
    }
#define CONTAINERS                                                                                 \
    {                                                                                              \
        "CONTAINERS", "string", ".spec.template.spec.containers[*].name", 1, NULL                  \
    }
#define IMAGES                                                                                     \
    {                                                                                              \
        "IMAGES", "string", ".spec.template.spec.containers[*].image", 1, NULL                     \
    }

static const struct crd crds[] = {
    {WH_KRUISE_APPS,
     "AdvancedCronJob",
     "advancedcronjobs",
     {"acj"},
     false,
     false,
     {{"Schedule", "string", ".spec.schedule", 0, NULL},
      {"Type", "string", ".status.type", 0, NULL},
      {"LastScheduleTime", "date", ".status.lastScheduleTime", 0, NULL},
      AGE}, NULL},
    {WH_KRUISE_APPS,
     "BroadcastJob",
     "broadcastjobs",
     {"bcj"},
     false,
     false,
     {{"Desired", "integer", ".status.desired", 0, NULL},
      {"Active", "integer", ".status.active", 0, NULL},
      {"Succeeded", "integer", ".status.succeeded", 0, NULL},
      {"Failed", "integer", ".status.failed", 0, NULL},
      AGE}, NULL},
    {WH_KRUISE_APPS,
     "CloneSet",
     "clonesets",
     {"clone"},
     false,
     true,
     {{"DESIRED", "integer", ".spec.replicas", 0, NULL},
      {"UPDATED", "integer", ".status.updatedReplicas", 0, NULL},
      {"UPDATED_READY", "integer", ".status.updatedReadyReplicas", 0, NULL},
      {"UPDATED_AVAILABLE", "integer", ".status.updatedAvailableReplicas", 0, NULL},
      {"READY", "integer", ".status.readyReplicas", 0, NULL},
      {"TOTAL", "integer", ".status.replicas", 0, NULL},
      AGE,
      CONTAINERS,
      IMAGES,
      {"SELECTOR", "string", ".status.labelSelector", 1, NULL}}, NULL},
    {WH_KRUISE_APPS,
     "ContainerRecreateRequest",
     "containerrecreaterequests",
     {"crr"},
     false,
     false,
     {{"PHASE", "string", ".status.phase", 0, NULL},
      {"POD", "string", ".spec.podName", 0, NULL},
      {"NODE", "string", ".metadata.labels.crr\\.apps\\.kruise\\.io/node-name", 0, NULL},
      AGE}, NULL},
    {WH_KRUISE_APPS,
     "DaemonSet",
     "daemonsets",
     {"daemon", "ads"},
     false,
     false,
     {{"DESIRED", "integer", ".status.desiredNumberScheduled", 0, NULL},
      {"CURRENT", "integer", ".status.currentNumberScheduled", 0, NULL},
      {"READY", "integer", ".status.numberReady", 0, NULL},
      {"UP-TO-DATE", "integer", ".status.updatedNumberScheduled", 0, NULL},
      {"AVAILABLE", "integer", ".status.numberAvailable", 0, NULL},
      AGE,
      CONTAINERS,
      IMAGES}, NULL},
    {WH_KRUISE_APPS,
     "EphemeralJob",
     "ephemeraljobs",
     {"ejob"},
     false,
     false,
     {{"STATUS", "string", ".status.phase", 0, NULL},
      {"MATCH", "integer", ".status.match", 0, NULL},
      {"SUCCEED", "integer", ".status.succeeded", 0, NULL},
      {"FAILED", "integer", ".status.failed", 0, NULL},
      {"RUNNING", "integer", ".status.running", 0, NULL},
      {"WAITING", "integer", ".status.waiting", 0, NULL},
      AGE},
     .only = "v1alpha1"},
    {WH_KRUISE_APPS,
     "ImageListPullJob",
     "imagelistpulljobs",
     {NULL},
     false,
     false,
     {{"TOTAL", "integer", ".status.desired", 0, NULL},
      {"SUCCEEDED", "integer", ".status.succeeded", 0, NULL},
      {"COMPLETED", "integer", ".status.completed", 0, NULL},
      AGE}, NULL},
    {WH_KRUISE_APPS,
     "ImagePullJob",
     "imagepulljobs",
     {NULL},
     false,
     false,
     {{"TOTAL", "integer", ".status.desired", 0, NULL},
      {"ACTIVE", "integer", ".status.active", 0, NULL},
      {"SUCCEED", "integer", ".status.succeeded", 0, NULL},
      {"FAILED", "integer", ".status.failed", 0, NULL},
      AGE,
      {"MESSAGE", "string", ".status.message", 0, "v1alpha1"}}, NULL},
    {WH_KRUISE_APPS,
     "NodeImage",
     "nodeimages",
     {NULL},
     true,
     false,
     {{"DESIRED", "integer", ".status.desired", 0, NULL},
      {"PULLING", "integer", ".status.pulling", 0, NULL},
      {"SUCCEED", "integer", ".status.succeeded", 0, NULL},
      {"FAILED", "integer", ".status.failed", 0, NULL},
      AGE}, NULL},
    {WH_KRUISE_APPS, "PersistentPodState", "persistentpodstates", {NULL}, false, false, {{0}}, NULL},
    /* not converted: its own webhook is served here (/validate-apps-kruise-io-podprobemarker) */
    {WH_KRUISE_APPS, "PodProbeMarker", "podprobemarkers", {NULL}, false, false, {{0}}, "v1alpha1"},
    {WH_KRUISE_APPS,
     "ResourceDistribution",
     "resourcedistributions",
     {"distributor"},
     true,
     false,
     {{"TOTAL", "integer", ".status.desired", 0, NULL},
      {"SUCCEED", "integer", ".status.succeeded", 0, NULL},
      {"FAILED", "integer", ".status.failed", 0, NULL}}, NULL},
    {WH_KRUISE_APPS,
     "SidecarSet",
     "sidecarsets",
     {NULL},
     true,
     false,
     {{"MATCHED", "integer", ".status.matchedPods", 0, NULL},
      {"UPDATED", "integer", ".status.updatedPods", 0, NULL},
      {"READY", "integer", ".status.readyPods", 0, NULL},
      AGE}, NULL},
    {WH_KRUISE_APPS,
     "StatefulSet",
     "statefulsets",
     {"sts", "asts"},
     false,
     true,
     {{"DESIRED", "integer", ".spec.replicas", 0, NULL},
      {"CURRENT", "integer", ".status.replicas", 0, NULL},
      {"UPDATED", "integer", ".status.updatedReplicas", 0, NULL},
      {"READY", "integer", ".status.readyReplicas", 0, NULL},
      AGE,
      CONTAINERS,
      IMAGES}, NULL},
    {WH_KRUISE_APPS,
     "UnitedDeployment",
     "uniteddeployments",
     {"ud"},
     false,
     true,
     {{"DESIRED", "integer", ".spec.replicas", 0, NULL},
      {"CURRENT", "integer", ".status.replicas", 0, NULL},
      {"UPDATED", "integer", ".status.updatedReplicas", 0, NULL},
      {"READY", "integer", ".status.readyReplicas", 0, NULL},
      AGE}, NULL},
    {WH_KRUISE_APPS,
     "WorkloadSpread",
     "workloadspreads",
     {"ws"},
     false,
     false,
     {{"WorkloadName", "string", ".spec.targetRef.name", 0, NULL},
      {"WorkloadKind", "string", ".spec.targetRef.kind", 0, NULL},
      {"Adaptive", "boolean", ".spec.scheduleStrategy.type[?(@ == \"Adaptive\")]", 0, NULL},
      {"Age", "date", ".metadata.creationTimestamp", 0, NULL}}, NULL},
    {WH_KRUISE_POLICY,
     "PodUnavailableBudget",
     "podunavailablebudgets",
     {"pub"},
     false,
     false,
     {{"Allowed", "integer", ".status.unavailableAllowed", 0, NULL},
      {"Current", "integer", ".status.currentAvailable", 0, NULL},
      {"Desired", "integer", ".status.desiredAvailable", 0, NULL},
      {"Total", "integer", ".status.totalReplicas", 0, NULL}}, NULL},
};
#define NCRDS (sizeof(crds) / sizeof(crds[0]))

static const char *const versions[] = {"v1alpha1", "v1beta1"};
#define NVERSIONS 2
#define STORAGE_VERSION "v1beta1" /* the hub: what etcd holds, as upstream */

/* --- upstream's kubebuilder markers ------------------------------------------------------------
 */

enum {
    MK_SCHEMALESS = 1,       /* +kubebuilder:validation:Schemaless + PreserveUnknownFields */
    MK_SCHEMALESS_EMBED = 2, /* the same on an embedded struct: its fields are not described */
    MK_OPTIONAL = 4,         /* +optional on a field without omitempty: not required */
    MK_ITEMS = 8,            /* schema is for the items of the list field (a marker on the
                                element type) */
};

struct marker {
    const char *group;  /* apps.kruise.io or policy.kruise.io (both versions), or the API path
                           of a Kubernetes type ("v1", "meta.k8s.io/v1") */
    const char *type;   /* the struct */
    const char *field;  /* its JSON field; for MK_SCHEMALESS_EMBED the embedded type (core v1) */
    const char *only;   /* the one version it applies to, NULL: both */
    unsigned flags;     /* MK_* */
    const char *schema; /* JSON members merged into the field's schema, or NULL */
};

#define PRESERVE "{\"x-kubernetes-preserve-unknown-fields\": true}"

static const struct marker markers[] = {
    /* Pod templates, claims, patches and the like: kept as given, as upstream keeps them. */
    {WH_KRUISE_APPS, "CronJobTemplate", "jobTemplate", NULL, MK_SCHEMALESS, NULL},
    {WH_KRUISE_APPS, "BroadcastJobSpec", "template", NULL, MK_SCHEMALESS, NULL},
    {WH_KRUISE_APPS, "EphemeralContainerTemplateSpec", "ephemeralContainers", "v1alpha1",
     MK_SCHEMALESS, NULL},
    {WH_KRUISE_APPS, "CloneSetSpec", "template", NULL, MK_SCHEMALESS, NULL},
    {WH_KRUISE_APPS, "CloneSetSpec", "volumeClaimTemplates", NULL, MK_SCHEMALESS, NULL},
    {WH_KRUISE_APPS, "DaemonSetSpec", "template", NULL, MK_SCHEMALESS, NULL},
    {WH_KRUISE_APPS, "SidecarSetSpec", "volumes", NULL, MK_SCHEMALESS, NULL},
    {WH_KRUISE_APPS, "SidecarContainer", "Container", NULL, MK_SCHEMALESS_EMBED, NULL},
    {WH_KRUISE_APPS, "StatefulSetSpec", "template", NULL, MK_SCHEMALESS, NULL},
    {WH_KRUISE_APPS, "StatefulSetSpec", "volumeClaimTemplates", NULL, MK_SCHEMALESS, NULL},
    {WH_KRUISE_APPS, "StatefulSetTemplateSpec", "metadata", NULL, MK_SCHEMALESS, NULL},
    {WH_KRUISE_APPS, "StatefulSetTemplateSpec", "spec", NULL, MK_SCHEMALESS, NULL},
    {WH_KRUISE_APPS, "AdvancedStatefulSetTemplateSpec", "metadata", NULL, MK_SCHEMALESS, NULL},
    {WH_KRUISE_APPS, "CloneSetTemplateSpec", "metadata", NULL, MK_SCHEMALESS, NULL},
    {WH_KRUISE_APPS, "DeploymentTemplateSpec", "metadata", NULL, MK_SCHEMALESS, NULL},
    {WH_KRUISE_APPS, "DeploymentTemplateSpec", "spec", NULL, MK_SCHEMALESS, NULL},
    {WH_KRUISE_APPS, "Subset", "patch", NULL, MK_SCHEMALESS, NULL},
    {WH_KRUISE_APPS, "WorkloadSpreadSubset", "patch", NULL, MK_SCHEMALESS, NULL},
    /* +kubebuilder:validation:EmbeddedResource */
    {WH_KRUISE_APPS, "ResourceDistributionSpec", "resource", NULL, 0,
     "{\"x-kubernetes-embedded-resource\": true}"},
    /* +optional on fields without omitempty */
    {WH_KRUISE_APPS, "BroadcastJobSpec", "completionPolicy", NULL, MK_OPTIONAL, NULL},
    {WH_KRUISE_APPS, "BroadcastJobStatus", "active", NULL, MK_OPTIONAL, NULL},
    {WH_KRUISE_APPS, "BroadcastJobStatus", "succeeded", NULL, MK_OPTIONAL, NULL},
    {WH_KRUISE_APPS, "BroadcastJobStatus", "failed", NULL, MK_OPTIONAL, NULL},
    {WH_KRUISE_APPS, "BroadcastJobStatus", "desired", NULL, MK_OPTIONAL, NULL},
    {WH_KRUISE_APPS, "BroadcastJobStatus", "phase", NULL, MK_OPTIONAL, NULL},
    {WH_KRUISE_APPS, "EphemeralJobStatus", "phase", "v1alpha1", MK_OPTIONAL, NULL},
    {WH_KRUISE_APPS, "EphemeralJobStatus", "match", "v1alpha1", MK_OPTIONAL, NULL},
    {WH_KRUISE_APPS, "EphemeralJobStatus", "running", "v1alpha1", MK_OPTIONAL, NULL},
    {WH_KRUISE_APPS, "EphemeralJobStatus", "succeeded", "v1alpha1", MK_OPTIONAL, NULL},
    {WH_KRUISE_APPS, "EphemeralJobStatus", "waiting", "v1alpha1", MK_OPTIONAL, NULL},
    {WH_KRUISE_APPS, "EphemeralJobStatus", "failed", "v1alpha1", MK_OPTIONAL, NULL},
    {WH_KRUISE_APPS, "ImageListPullJobStatus", "active", NULL, MK_OPTIONAL, NULL},
    {WH_KRUISE_APPS, "ImageListPullJobStatus", "completed", NULL, MK_OPTIONAL, NULL},
    {WH_KRUISE_APPS, "ImageListPullJobStatus", "succeeded", NULL, MK_OPTIONAL, NULL},
    {WH_KRUISE_APPS, "ImagePullJobStatus", "active", NULL, MK_OPTIONAL, NULL},
    {WH_KRUISE_APPS, "ImagePullJobStatus", "succeeded", NULL, MK_OPTIONAL, NULL},
    {WH_KRUISE_APPS, "ImagePullJobStatus", "failed", NULL, MK_OPTIONAL, NULL},
    {WH_KRUISE_APPS, "NodeImageStatus", "succeeded", NULL, MK_OPTIONAL, NULL},
    {WH_KRUISE_APPS, "NodeImageStatus", "failed", NULL, MK_OPTIONAL, NULL},
    {WH_KRUISE_APPS, "NodeImageStatus", "pulling", NULL, MK_OPTIONAL, NULL},
    {WH_KRUISE_APPS, "NodeImageStatus", "waiting", NULL, MK_OPTIONAL, NULL},
    {WH_KRUISE_APPS, "StatefulSetOrdinals", "start", "v1beta1", MK_OPTIONAL, NULL},
    {WH_KRUISE_POLICY, "PodUnavailableBudgetStatus", "observedGeneration", "v1alpha1", MK_OPTIONAL,
     NULL},
    /* k8s.io/api's own defaults (+default) on the core types the CRDs describe */
    {"v1", "ContainerPort", "protocol", NULL, 0, "{\"default\": \"TCP\"}"},
    {"v1", "LocalObjectReference", "name", NULL, 0, "{\"default\": \"\"}"},
    {"v1", "GRPCAction", "service", NULL, MK_OPTIONAL, "{\"default\": \"\"}"},
    {"meta.k8s.io/v1", "Condition", "type", NULL, 0,
     "{\"maxLength\": 316, \"pattern\": \"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\\\.[a-z0-9]([-a-z0-9]*"
     "[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$\"}"},
    {"meta.k8s.io/v1", "Condition", "status", NULL, 0,
     "{\"enum\": [\"True\", \"False\", \"Unknown\"]}"},
    {"meta.k8s.io/v1", "Condition", "observedGeneration", NULL, 0, "{\"minimum\": 0}"},
    {"meta.k8s.io/v1", "Condition", "reason", NULL, 0,
     "{\"maxLength\": 1024, \"minLength\": 1, \"pattern\": "
     "\"^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$\"}"},
    {"meta.k8s.io/v1", "Condition", "message", NULL, 0, "{\"maxLength\": 32768}"},
    /* defaults and validations */
    {WH_KRUISE_APPS, "AdvancedCronJobSpec", "schedule", NULL, 0, "{\"minLength\": 0}"},
    {WH_KRUISE_APPS, "AdvancedCronJobSpec", "concurrencyPolicy", NULL, 0,
     "{\"enum\": [\"Allow\", \"Forbid\", \"Replace\"]}"},
    {WH_KRUISE_APPS, "ResourcesPolicy", "targetContainersMode", NULL, 0,
     "{\"enum\": [\"sum\", \"max\"]}"},
    {WH_KRUISE_APPS, "ResourcesPolicy", "targetContainersNameRegex", NULL, 0,
     "{\"default\": \".*\"}"},
    {WH_KRUISE_APPS, "SidecarSetInjectRevision", "policy", NULL, 0,
     "{\"default\": \"Always\", \"enum\": [\"Always\", \"Partial\"]}"},
    {WH_KRUISE_APPS, "UnitedDeploymentScheduleStrategy", "type", NULL, 0,
     "{\"enum\": [\"Adaptive\", \"Fixed\", \"\"]}"},
    {WH_KRUISE_APPS, "UnitedDeploymentUpdateStrategy", "type", NULL, 0,
     "{\"enum\": [\"Manual\", \"\"]}"},
    {WH_KRUISE_APPS, "WorkloadSpreadScheduleStrategy", "type", NULL, 0,
     "{\"enum\": [\"Adaptive\", \"Fixed\", \"\"]}"},
    {WH_KRUISE_APPS, "CloneSetScaleStrategy", "enablePVCReuse", "v1beta1", 0,
     "{\"default\": false}"},
    {WH_KRUISE_APPS, "ContainerRecreateRequestSpec", "activeDeadlineSeconds", "v1beta1", 0,
     "{\"minimum\": 0}"},
    {WH_KRUISE_APPS, "ContainerRecreateRequestSpec", "ttlSecondsAfterFinished", "v1beta1", 0,
     "{\"minimum\": 0}"},
    {WH_KRUISE_APPS, "ContainerRecreateRequestStrategy", "failurePolicy", "v1beta1", 0,
     "{\"enum\": [\"Fail\", \"Ignore\"]}"},
    {WH_KRUISE_APPS, "ContainerRecreateRequestStrategy", "terminationGracePeriodSeconds", "v1beta1",
     0, "{\"minimum\": 0}"},
    {WH_KRUISE_APPS, "ContainerRecreateRequestStrategy", "unreadyGracePeriodSeconds", "v1beta1", 0,
     "{\"minimum\": 0}"},
    {WH_KRUISE_APPS, "ContainerRecreateRequestStrategy", "minStartedSeconds", "v1beta1", 0,
     "{\"minimum\": 0}"},
    {WH_KRUISE_APPS, "ContainerRecreateRequestStatus", "phase", "v1beta1", 0,
     "{\"enum\": [\"Pending\", \"Recreating\", \"Succeeded\", \"Failed\", \"Completed\"]}"},
    {WH_KRUISE_APPS, "ContainerRecreateRequestContainerRecreateState", "phase", "v1beta1", 0,
     "{\"enum\": [\"Pending\", \"Recreating\", \"Succeeded\", \"Failed\", \"Completed\"]}"},
    {WH_KRUISE_APPS, "PersistentPodStateSpec", "persistentPodStateRetentionPolicy", "v1beta1", 0,
     "{\"enum\": [\"WhenScaled\", \"WhenDeleted\"]}"},
    {WH_KRUISE_APPS, "PreferredTopologyTerm", "weight", "v1beta1", 0, "{\"minimum\": 0}"},
    {WH_KRUISE_POLICY, "PodUnavailableBudgetSpec", "protectTotalReplicas", "v1beta1", 0,
     "{\"minimum\": 1}"},
    {WH_KRUISE_POLICY, "PodUnavailableBudgetSpec", "protectOperations", "v1beta1", MK_ITEMS,
     "{\"enum\": [\"DELETE\", \"UPDATE\", \"EVICT\", \"RESIZE\"]}"},
};
#define NMARKERS (sizeof(markers) / sizeof(markers[0]))

/* The markers resolved against the model: the struct type of each version. */
static const struct wh_gotype *marker_types[NMARKERS][NVERSIONS];

static void die(const char *fmt, ...) WH_PRINTF(1, 2);

static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "manifests: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

/* A marker that names nothing in the model is stale: the generator stops rather than drop it. */
static void resolve_markers(void)
{
    for (size_t i = 0; i < NMARKERS; i++) {
        const struct marker *m = &markers[i];
        for (size_t v = 0; v < NVERSIONS; v++) {
            if (m->only && strcmp(m->only, versions[v]) != 0)
                continue;
            char api[64];
            if (wh_str_has_suffix(m->group, "kruise.io"))
                snprintf(api, sizeof(api), "%s/%s", m->group, versions[v]);
            else
                snprintf(api, sizeof(api), "%s", m->group);
            const struct wh_gotype *t = wh_gotype_lookup(api, m->type);
            if (!t)
                die("marker: no type %s in %s", m->type, api);
            if ((m->flags & MK_SCHEMALESS_EMBED) ? !wh_gotype_lookup("v1", m->field)
                                                 : !wh_gotype_member(t, m->field))
                die("marker: %s has no field or embedded type %s (%s)", m->type, m->field, api);
            marker_types[i][v] = t;
        }
    }
}

static const struct marker *marker_for(const struct wh_gotype *t, const char *field)
{
    for (size_t i = 0; i < NMARKERS; i++) {
        for (size_t v = 0; v < NVERSIONS; v++) {
            if (marker_types[i][v] == t && !(markers[i].flags & MK_SCHEMALESS_EMBED) &&
                strcmp(markers[i].field, field) == 0)
                return &markers[i];
        }
    }
    return NULL;
}

/* The core v1 type that t embeds schemaless (MK_SCHEMALESS_EMBED), or NULL. */
static const struct wh_gotype *embedded_schemaless(const struct wh_gotype *t)
{
    for (size_t i = 0; i < NMARKERS; i++) {
        for (size_t v = 0; v < NVERSIONS; v++) {
            if (marker_types[i][v] == t && (markers[i].flags & MK_SCHEMALESS_EMBED))
                return wh_gotype_lookup("v1", markers[i].field);
        }
    }
    return NULL;
}

/* --- schemas -----------------------------------------------------------------------------------
 */

/* What k8s.io/apimachinery's Quantity declares as its OpenAPI pattern. */
#define QUANTITY_PATTERN                                                                           \
    "^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+("   \
    "\\.[0-9]*)?)|(\\.[0-9]+))))?$"

static json_t *parse_json(const char *text)
{
    json_error_t err;
    json_t *v = json_loads(text, 0, &err);
    if (!v)
        die("bad JSON in a table: %s: %s", text, err.text);
    return v;
}

static json_t *int_or_string(void)
{
    return parse_json("{\"anyOf\": [{\"type\": \"integer\"}, {\"type\": \"string\"}], "
                      "\"x-kubernetes-int-or-string\": true}");
}

static json_t *schema_of(const struct wh_gotype *t, int depth);

static int cmp_str(const void *a, const void *b)
{
    return strcmp(json_string_value(*(json_t *const *)a), json_string_value(*(json_t *const *)b));
}

/* controller-gen sorts `required`. */
static void sort_strings(json_t *arr)
{
    size_t n = json_array_size(arr);
    json_t **items = wh_xcalloc(n ? n : 1, sizeof(*items));
    for (size_t i = 0; i < n; i++)
        items[i] = json_incref(json_array_get(arr, i));
    qsort(items, n, sizeof(*items), cmp_str);
    json_array_clear(arr);
    for (size_t i = 0; i < n; i++)
        json_array_append_new(arr, items[i]);
    free(items);
}

static json_t *struct_schema(const struct wh_gotype *t, int depth)
{
    static const struct wh_gotype *object_meta;
    if (!object_meta)
        object_meta = wh_gotype_lookup("meta.k8s.io/v1", "ObjectMeta");
    json_t *s = json_object();
    json_object_set_new(s, "type", json_string("object"));
    if (t == object_meta)
        return s; /* controller-gen describes no ObjectMeta (the API server owns metadata) */

    /* An embedded struct kept schemaless: its promoted fields are not described, unknown
     * fields are kept. */
    const struct wh_gotype *hidden = embedded_schemaless(t);
    if (hidden)
        json_object_set_new(s, "x-kubernetes-preserve-unknown-fields", json_true());
    json_t *props = json_object(), *required = json_array();
    for (size_t i = 0; i < wh_gotype_nfields(t); i++) {
        const struct wh_gofield *f = wh_gotype_field(t, i);
        if (hidden && wh_gotype_member(hidden, f->name))
            continue;
        const struct marker *m = marker_for(t, f->name);
        unsigned flags = m ? m->flags : 0;
        json_t *fs = (flags & MK_SCHEMALESS) ? parse_json(PRESERVE) : schema_of(f->type, depth + 1);
        if (m && m->schema) {
            json_t *extra = parse_json(m->schema);
            json_object_update((flags & MK_ITEMS) ? json_object_get(fs, "items") : fs, extra);
            json_decref(extra);
        }
        json_object_set_new(props, f->name, fs);
        if (!(f->flags & WH_GOF_OMITEMPTY) && !(flags & MK_OPTIONAL))
            json_array_append_new(required, json_string(f->name));
    }
    json_object_set_new(s, "properties", props);
    if (json_array_size(required)) {
        sort_strings(required);
        json_object_set_new(s, "required", required);
    } else {
        json_decref(required);
    }
    return s;
}

static json_t *schema_of(const struct wh_gotype *t, int depth)
{
    if (depth > 48)
        die("type %s nests too deeply (a recursive type?)", wh_gotype_name(t));
    switch (wh_gotype_kind(t)) {
    case WH_GK_STRING:
        return parse_json("{\"type\": \"string\"}");
    case WH_GK_BOOL:
        return parse_json("{\"type\": \"boolean\"}");
    case WH_GK_INT32:
        return parse_json("{\"type\": \"integer\", \"format\": \"int32\"}");
    case WH_GK_INT64:
        return parse_json("{\"type\": \"integer\", \"format\": \"int64\"}");
    case WH_GK_BYTES:
        return parse_json("{\"type\": \"string\", \"format\": \"byte\"}");
    case WH_GK_QUANTITY: {
        json_t *s = int_or_string();
        json_object_set_new(s, "pattern", json_string(QUANTITY_PATTERN));
        return s;
    }
    case WH_GK_INTSTR:
        return int_or_string();
    case WH_GK_TIME:
    case WH_GK_MICROTIME:
        return parse_json("{\"type\": \"string\", \"format\": \"date-time\"}");
    case WH_GK_RAW:
        return parse_json("{\"type\": \"object\", \"x-kubernetes-preserve-unknown-fields\": true}");
    case WH_GK_SLICE: {
        json_t *s = parse_json("{\"type\": \"array\"}");
        json_object_set_new(s, "items", schema_of(wh_gotype_elem(t), depth + 1));
        return s;
    }
    case WH_GK_MAP: {
        json_t *s = parse_json("{\"type\": \"object\"}");
        json_object_set_new(s, "additionalProperties", schema_of(wh_gotype_elem(t), depth + 1));
        return s;
    }
    case WH_GK_STRUCT:
        return struct_schema(t, depth);
    }
    die("type %s of an unknown kind", wh_gotype_name(t));
    return NULL;
}

/* --- the CRD objects ----------------------------------------------------------------------------
 */

static char *lower(const char *s)
{
    char *out = wh_xstrdup(s);
    for (char *p = out; *p; p++) {
        if (*p >= 'A' && *p <= 'Z')
            *p = (char)(*p - 'A' + 'a');
    }
    return out;
}

static json_t *crd_version(const struct crd *c, const char *version)
{
    char api[64];
    snprintf(api, sizeof(api), "%s/%s", c->group, version);
    const struct wh_gotype *root = wh_gotype_lookup(api, c->kind);
    if (!root)
        die("the model has no %s in %s", c->kind, api);
    json_t *schema = struct_schema(root, 0);
    /* The object itself: metadata is the API server's, nothing is required at the top. */
    json_object_del(schema, "required");

    json_t *v = json_object();
    json_object_set_new(v, "name", json_string(version));
    json_object_set_new(v, "served", json_true());
    json_object_set_new(v, "storage",
                        json_boolean(c->only || strcmp(version, STORAGE_VERSION) == 0));
    json_object_set_new(v, "schema", json_pack("{s:o}", "openAPIV3Schema", schema));
    json_t *sub = json_pack("{s:{}}", "status");
    if (c->scale)
        json_object_set_new(sub, "scale",
                            json_pack("{s:s,s:s,s:s}", "labelSelectorPath", ".status.labelSelector",
                                      "specReplicasPath", ".spec.replicas", "statusReplicasPath",
                                      ".status.replicas"));
    json_object_set_new(v, "subresources", sub);
    json_t *cols = json_array();
    for (const struct column *col = c->columns; col->name; col++) {
        if (col->only && strcmp(col->only, version) != 0)
            continue;
        json_t *o =
            json_pack("{s:s,s:s,s:s}", "name", col->name, "type", col->type, "jsonPath", col->path);
        if (col->priority)
            json_object_set_new(o, "priority", json_integer(col->priority));
        json_array_append_new(cols, o);
    }
    if (json_array_size(cols))
        json_object_set_new(v, "additionalPrinterColumns", cols);
    else
        json_decref(cols);
    return v;
}

/* Returns: new ref, the CRD of c; its conversion goes to /convert of the Service the binary
 * names by default (cfg: the defaults). */
static json_t *crd_object(const struct crd *c, const struct wh_config *cfg)
{
    char name[128];
    snprintf(name, sizeof(name), "%s.%s", c->plural, c->group);
    char *singular = lower(c->kind);
    char list_kind[96];
    snprintf(list_kind, sizeof(list_kind), "%sList", c->kind);
    json_t *names = json_pack("{s:s,s:s,s:s,s:s}", "kind", c->kind, "listKind", list_kind, "plural",
                              c->plural, "singular", singular);
    free(singular);
    if (c->short_names[0]) {
        json_t *sn = json_array();
        for (size_t i = 0; i < 3 && c->short_names[i]; i++)
            json_array_append_new(sn, json_string(c->short_names[i]));
        json_object_set_new(names, "shortNames", sn);
    }
    json_t *vers = json_array();
    for (size_t i = 0; i < NVERSIONS; i++) {
        if (!c->only || strcmp(c->only, versions[i]) == 0)
            json_array_append_new(vers, crd_version(c, versions[i]));
    }
    json_t *crd = json_pack("{s:s,s:s,s:{s:s},s:{s:s,s:o,s:s,s:o}}", "apiVersion",
                            "apiextensions.k8s.io/v1", "kind", "CustomResourceDefinition",
                            "metadata", "name", name, "spec", "group", c->group, "names", names,
                            "scope", c->cluster_scoped ? "Cluster" : "Namespaced", "versions",
                            vers);
    if (!c->only)
        json_object_set_new(
            json_object_get(crd, "spec"), "conversion",
            json_pack("{s:s,s:{s:[s,s],s:{s:{s:s,s:s,s:s,s:i}}}}", "strategy", "Webhook",
                      "webhook", "conversionReviewVersions", "v1", "v1beta1", "clientConfig",
                      "service", "name", cfg->service_name, "namespace", cfg->namespace_, "path",
                      "/convert", "port", 443));
    return crd;
}

static const char crd_header[] =
    "# Generated by `make crds` (tools/manifests.c) from the Go-type model of this server\n"
    "# (webhook/gocompat/types/*.gotypes) and upstream's kubebuilder markers; do not edit.\n"
    "# Served at v1alpha1 and v1beta1, stored as v1beta1; objects written or read at the other\n"
    "# version go through this server's /convert, and the API server prunes what a version\n"
    "# does not define, as with upstream's CRDs. The server fills in the caBundle.\n";

static const char crd_one_version_header[] =
    "# Generated by `make crds` (tools/manifests.c) from the Go-type model of this server\n"
    "# (webhook/gocompat/types/*.gotypes) and upstream's kubebuilder markers; do not edit.\n"
    "# Served and stored at its one version, as upstream's CRD: nothing to convert.\n";

static const char kustomization_header[] =
    "# Generated by `make crds` (tools/manifests.c); do not edit. The CRDs of every kind this\n"
    "# server converts or validates, for clusters without OpenKruise (whose own CRDs carry the\n"
    "# same names):\n"
    "# manifests/with-crds/ installs them with the server.\n";

static int write_file(const char *dir, const char *name, const char *header, const char *body)
{
    char *path = wh_str_printf("%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "manifests: %s: %s\n", path, strerror(errno));
        free(path);
        return 1;
    }
    bool ok = fputs(header, f) >= 0 && fputs(body, f) >= 0;
    ok = fclose(f) == 0 && ok;
    if (!ok)
        fprintf(stderr, "manifests: %s: write failed\n", path);
    free(path);
    return ok ? 0 : 1;
}

static int emit(const char *dir, const char *name, const char *header, const json_t *obj)
{
    char *yaml = NULL;
    struct wh_errbuf eb = {{0}};
    if (wh_yaml_emit(obj, &yaml, NULL, &eb)) {
        fprintf(stderr, "manifests: %s: %s\n", name, eb.msg);
        return 1;
    }
    int rc = write_file(dir, name, header, yaml);
    free(yaml);
    return rc;
}

/* Every kind /convert serves has a CRD of both versions here, and the CRDs of one version are
 * kinds it does not serve: the table follows the conversion's list. */
static void check_kinds(void)
{
    size_t n = wh_convert_kinds(0, NULL, NULL), both = 0;
    for (size_t i = 0; i < n; i++) {
        const char *group, *kind;
        wh_convert_kinds(i, &group, &kind);
        bool found = false;
        for (size_t c = 0; c < NCRDS; c++)
            found = found || (!crds[c].only && strcmp(crds[c].group, group) == 0 &&
                              strcmp(crds[c].kind, kind) == 0);
        if (!found)
            die("/convert serves %s %s, which has no CRD of both versions in the table", group,
                kind);
    }
    for (size_t c = 0; c < NCRDS; c++)
        both += !crds[c].only;
    if (both != n)
        die("the CRD table has kinds of both versions that /convert does not serve");
    for (size_t c = 0; c < NCRDS; c++) {
        enum wh_resource_id id = wh_resource_by_kind(crds[c].group, crds[c].kind);
        const struct wh_resource *r = id < WH_RES_COUNT ? wh_resource_get(id) : NULL;
        if (r &&
            (strcmp(r->resource, crds[c].plural) != 0 || r->namespaced == crds[c].cluster_scoped))
            die("the CRD table's %s %s is not kube/resource.c's (%s)", crds[c].group, crds[c].kind,
                r->resource);
    }
}

static int load_defaults(struct wh_config *cfg)
{
    char *argv[] = {"manifests", NULL};
    struct wh_errbuf eb = {{0}};
    if (wh_config_load(cfg, 1, argv, &eb)) {
        fprintf(stderr, "manifests: %s\n", eb.msg);
        wh_config_fini(cfg);
        return 1;
    }
    return 0;
}

static int cmd_crds(const char *dir)
{
    struct wh_config cfg;
    if (load_defaults(&cfg))
        return 1;
    check_kinds();
    resolve_markers();
    int rc = 0;
    json_t *files = json_array();
    for (size_t i = 0; i < NCRDS && rc == 0; i++) {
        char name[160];
        snprintf(name, sizeof(name), "%s_%s.yaml", crds[i].group, crds[i].plural);
        json_t *obj = crd_object(&crds[i], &cfg);
        rc = emit(dir, name, crds[i].only ? crd_one_version_header : crd_header, obj);
        json_decref(obj);
        json_array_append_new(files, json_string(name));
    }
    /* A plain Kustomization (not a Component): kustomize v2.0.3, kubectl 1.20's, reads it. */
    json_t *k = json_pack("{s:s,s:s,s:o}", "apiVersion", "kustomize.config.k8s.io/v1beta1", "kind",
                          "Kustomization", "resources", files);
    if (rc == 0)
        rc = emit(dir, "kustomization.yaml", kustomization_header, k);
    json_decref(k);
    wh_config_fini(&cfg);
    return rc;
}

/* --- facts -------------------------------------------------------------------------------------
 */

static json_t *config_facts(const struct wh_config *cfg)
{
    char host[256];
    int health = 0, metrics = 0;
    if (wh_config_addr_disabled(cfg->health_addr) ||
        wh_config_parse_addr(cfg->health_addr, host, sizeof(host), &health))
        health = 0;
    if (wh_config_addr_disabled(cfg->metrics_addr) ||
        wh_config_parse_addr(cfg->metrics_addr, host, sizeof(host), &metrics))
        metrics = 0;
    return json_pack("{s:s,s:s,s:s,s:s,s:s,s:I,s:i,s:i,s:s,s:I,s:I,s:I,s:b}", "namespace",
                     cfg->namespace_, "service", cfg->service_name, "secret", cfg->secret_name,
                     "mutating", cfg->mutating_config_name, "validating",
                     cfg->validating_config_name, "port", (json_int_t)cfg->port, "health_port",
                     health, "metrics_port", metrics, "cert_dir", cfg->cert_dir,
                     "request_deadline_ms", (json_int_t)cfg->request_deadline_ms,
                     "shutdown_delay_ms", (json_int_t)cfg->shutdown_delay_ms, "shutdown_grace_ms",
                     (json_int_t)cfg->shutdown_grace_ms, "leader_elect", cfg->leader_elect);
}

/* The webhook configuration entry a route's table gives, in the manifests' own shape: name,
 * rules, sideEffects, objectSelector, and the namespaceSelector expressions besides the one
 * every entry has (the namespaces it skips). */
static json_t *entry_facts(const struct wh_route *r, const struct wh_webhook_entry *e)
{
    static const char *const ops[] = {"CREATE", "UPDATE", "DELETE", "CONNECT"};
    json_t *vers = json_array(), *operations = json_array(), *exprs = json_array();
    for (size_t i = 0; i < WH_WEBHOOK_MAX_VERSIONS && e->versions[i]; i++)
        json_array_append_new(vers, json_string(e->versions[i]));
    for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
        if (e->operations & (1u << i))
            json_array_append_new(operations, json_string(ops[i]));
    }
    if (e->skip_control_plane)
        json_array_append_new(
            exprs, json_pack("{s:s,s:s}", "key", "control-plane", "operator", "DoesNotExist"));
    json_t *out = json_pack(
        "{s:s,s:[{s:[s],s:o,s:o,s:[s]}],s:s,s:o}", "name", e->name, "rules", "apiGroups", e->group,
        "apiVersions", vers, "operations", operations, "resources", e->resource, "sideEffects",
        r->side_effects ? "NoneOnDryRun" : "None", "namespaceExpressions", exprs);
    if (e->object_label)
        json_object_set_new(out, "objectSelector",
                            json_pack("{s:[{s:s,s:s}]}", "matchExpressions", "key", e->object_label,
                                      "operator", "Exists"));
    return out;
}

/* A route as the manifests' checks see it: path, kind, whether cfg serves it, the path it is
 * an alias of, and its webhook entries. */
static json_t *route_facts(const struct wh_route *r, const struct wh_config *cfg)
{
    static const char *const kinds[] = {"mutate", "validate", "convert"};
    json_t *entries = json_array();
    for (size_t i = 0; i < WH_ROUTE_MAX_ENTRIES && r->entries[i].name; i++)
        json_array_append_new(entries, entry_facts(r, &r->entries[i]));
    return json_pack("{s:s,s:s,s:b,s:s?,s:o}", "path", r->path, "kind", kinds[r->kind], "served",
                     wh_routes_find(cfg, r->path) != NULL, "alias_of", r->alias_of, "entries",
                     entries);
}

static int cmd_facts(int argc, char **argv)
{
    struct wh_config defaults, cfg;
    if (load_defaults(&defaults))
        return 1;
    struct wh_errbuf eb = {{0}};
    argv[0] = "kruise-webhook";
    if (wh_config_load(&cfg, argc, argv, &eb)) {
        fprintf(stderr, "manifests: the configuration: %s\n", eb.msg);
        wh_config_fini(&cfg);
        wh_config_fini(&defaults);
        return 1;
    }
    json_t *routes = json_array();
    size_t n = 0;
    const struct wh_route *const *all = wh_routes_all(&n);
    for (size_t i = 0; i < n; i++)
        json_array_append_new(routes, route_facts(all[i], &cfg));
    json_t *kinds_json = json_array();
    size_t nk = wh_convert_kinds(0, NULL, NULL);
    for (size_t i = 0; i < nk; i++) {
        const char *group, *kind;
        wh_convert_kinds(i, &group, &kind);
        json_array_append_new(kinds_json, json_pack("{s:s,s:s}", "group", group, "kind", kind));
    }
    json_t *crd_json = json_array();
    for (size_t i = 0; i < NCRDS; i++)
        json_array_append_new(crd_json,
                              json_pack("{s:s,s:s,s:s,s:s,s:s?}", "group", crds[i].group, "kind",
                                        crds[i].kind, "plural", crds[i].plural, "scope",
                                        crds[i].cluster_scoped ? "Cluster" : "Namespaced",
                                        "only", crds[i].only));
    json_t *out =
        json_pack("{s:o,s:o,s:o,s:o,s:o,s:[s,s],s:s}", "defaults", config_facts(&defaults),
                  "config", config_facts(&cfg), "routes", routes, "convert_kinds", kinds_json,
                  "crds", crd_json, "versions", versions[0], versions[1], "version", WH_VERSION);
    char *text = json_dumps(out, JSON_INDENT(2) | JSON_SORT_KEYS);
    puts(text);
    free(text);
    json_decref(out);
    wh_config_fini(&cfg);
    wh_config_fini(&defaults);
    return 0;
}

/* --- the webhook configurations ----------------------------------------------------------- */

/* Loads into cfg the configuration the Deployment in path gives its server: the arguments of
 * its container (the environment it sets repeats the binary's defaults, as make manifests
 * checks). Which routes that configuration serves (feature gates) decides which entries the
 * webhook configurations carry. */
static int load_deployment(struct wh_config *cfg, const char *path)
{
    json_t *docs = NULL;
    struct wh_errbuf eb = {{0}};
    if (wh_yaml_load_file(path, 1u << 20, &docs, &eb)) {
        fprintf(stderr, "manifests: %s\n", eb.msg);
        return 1;
    }
    const json_t *container = NULL, *args = NULL;
    size_t i;
    json_t *doc;
    json_array_foreach(docs, i, doc)
    {
        if (wh_str_eq(wh_json_str(doc, "kind"), "Deployment"))
            container = json_array_get(
                wh_json_path(doc, "spec", "template", "spec", "containers", NULL), 0);
    }
    if (!container) {
        fprintf(stderr, "manifests: %s: no Deployment with a container\n", path);
        json_decref(docs);
        return 1;
    }
    args = wh_json_arr(container, "args");
    size_t n = json_array_size(args);
    char **argv = wh_xcalloc(n + 2, sizeof(*argv));
    argv[0] = wh_xstrdup("kruise-webhook");
    int rc = 0;
    for (i = 0; i < n && rc == 0; i++) {
        const char *arg = json_string_value(json_array_get(args, i));
        if (!arg) {
            fprintf(stderr,
                    "manifests: %s: argument %zu of the Deployment's container is not a "
                    "string\n",
                    path, i);
            rc = 1;
        } else {
            argv[i + 1] = wh_xstrdup(arg);
        }
    }
    if (rc == 0 && wh_config_load(cfg, (int)n + 1, argv, &eb)) {
        fprintf(stderr, "manifests: %s: the Deployment's arguments: %s\n", path, eb.msg);
        wh_config_fini(cfg);
        rc = 1;
    }
    for (i = 0; i <= n; i++)
        free(argv[i]);
    free(argv);
    json_decref(docs);
    return rc;
}

/* Writes webhookconfigurations.yaml into base_dir (manifests/base) and chart_dir (the chart's
 * templates) from the route table (tools/webhookconfigs.h), with the entries of the routes
 * the Deployment in deployment serves. */
static int cmd_webhooks(const char *deployment, const char *base_dir, const char *chart_dir)
{
    struct wh_config cfg;
    if (load_deployment(&cfg, deployment))
        return 1;
    size_t n = 0;
    const struct wh_route *const *routes = wh_routes_all(&n);
    int rc = 0;
    const char *dirs[] = {base_dir, chart_dir};
    const enum wh_webhookconfigs_for targets[] = {WH_WEBHOOKCONFIGS_MANIFESTS,
                                                  WH_WEBHOOKCONFIGS_CHART};
    for (size_t i = 0; i < 2 && rc == 0; i++) {
        char *yaml = NULL;
        struct wh_errbuf eb = {{0}};
        if (wh_webhookconfigs_yaml(routes, n, &cfg, targets[i], &yaml, &eb)) {
            fprintf(stderr, "manifests: the webhook configurations: %s\n", eb.msg);
            rc = 1;
        } else {
            rc = write_file(dirs[i], "webhookconfigurations.yaml", "", yaml);
        }
        free(yaml);
    }
    wh_config_fini(&cfg);
    return rc;
}

int main(int argc, char **argv)
{
    wh_json_init();
    if (argc == 3 && strcmp(argv[1], "crds") == 0)
        return cmd_crds(argv[2]);
    if (argc >= 2 && strcmp(argv[1], "facts") == 0)
        return cmd_facts(argc - 1, argv + 1);
    if (argc == 5 && strcmp(argv[1], "webhooks") == 0)
        return cmd_webhooks(argv[2], argv[3], argv[4]);
    fprintf(stderr,
            "usage: manifests crds DIR | manifests webhooks DEPLOYMENT BASE_DIR CHART_DIR | "
            "manifests facts [SERVER ARGS...]\n");
    return 2;
}
