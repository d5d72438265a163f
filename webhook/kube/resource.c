#include "kube/resource.h"

#include <string.h>

#include "k8s/kruise.h"
#include "util/err.h"

static const struct wh_resource catalogue[WH_RES_COUNT] = {
    [WH_RES_NAMESPACE] = {"", {"v1"}, "namespaces", "Namespace", false},
    [WH_RES_POD] = {"", {"v1"}, "pods", "Pod", true},
    [WH_RES_CONFIGMAP] = {"", {"v1"}, "configmaps", "ConfigMap", true},
    [WH_RES_SECRET] = {"", {"v1"}, "secrets", "Secret", true},
    [WH_RES_SERVICE] = {"", {"v1"}, "services", "Service", true},
    [WH_RES_PVC] = {"", {"v1"}, "persistentvolumeclaims", "PersistentVolumeClaim", true},
    [WH_RES_CONTROLLERREVISION] = {"apps", {"v1"}, "controllerrevisions", "ControllerRevision",
                                   true},
    [WH_RES_DEPLOYMENT] = {"apps", {"v1"}, "deployments", "Deployment", true},
    [WH_RES_REPLICASET] = {"apps", {"v1"}, "replicasets", "ReplicaSet", true},
    [WH_RES_STATEFULSET] = {"apps", {"v1"}, "statefulsets", "StatefulSet", true},
    [WH_RES_INGRESS] = {"networking.k8s.io", {"v1"}, "ingresses", "Ingress", true},
    [WH_RES_CRD] = {"apiextensions.k8s.io", {"v1"}, "customresourcedefinitions",
                    "CustomResourceDefinition", false},
    [WH_RES_MUTATING_WEBHOOK_CONFIGURATION] = {"admissionregistration.k8s.io",
                                               {"v1"},
                                               "mutatingwebhookconfigurations",
                                               "MutatingWebhookConfiguration",
                                               false},
    [WH_RES_VALIDATING_WEBHOOK_CONFIGURATION] = {"admissionregistration.k8s.io",
                                                 {"v1"},
                                                 "validatingwebhookconfigurations",
                                                 "ValidatingWebhookConfiguration",
                                                 false},
    [WH_RES_LEASE] = {"coordination.k8s.io", {"v1"}, "leases", "Lease", true},
    [WH_RES_SIDECARSET] = {WH_KRUISE_APPS, {"v1beta1", "v1alpha1"}, "sidecarsets", "SidecarSet",
                           false},
    [WH_RES_CLONESET] = {WH_KRUISE_APPS, {"v1beta1", "v1alpha1"}, "clonesets", "CloneSet",
                         true},
    [WH_RES_ADVANCED_STATEFULSET] = {WH_KRUISE_APPS, {"v1beta1", "v1alpha1"}, "statefulsets",
                                     "StatefulSet", true},
    [WH_RES_UNITEDDEPLOYMENT] = {WH_KRUISE_APPS, {"v1beta1", "v1alpha1"}, "uniteddeployments",
                                 "UnitedDeployment", true},
    [WH_RES_WORKLOADSPREAD] = {WH_KRUISE_APPS, {"v1beta1", "v1alpha1"}, "workloadspreads",
                               "WorkloadSpread", true},
    [WH_RES_PUB] = {WH_KRUISE_POLICY, {"v1beta1", "v1alpha1"}, "podunavailablebudgets",
                    "PodUnavailableBudget", true},
    [WH_RES_JOB] = {"batch", {"v1"}, "jobs", "Job", true},
    [WH_RES_PERSISTENTPODSTATE] = {WH_KRUISE_APPS, {"v1beta1", "v1alpha1"}, "persistentpodstates",
                                   "PersistentPodState", true},
    [WH_RES_PODPROBEMARKER] = {WH_KRUISE_APPS, {"v1alpha1"}, "podprobemarkers", "PodProbeMarker",
                               true},
    [WH_RES_BROADCASTJOB] = {WH_KRUISE_APPS, {"v1beta1", "v1alpha1"}, "broadcastjobs",
                             "BroadcastJob", true},
    [WH_RES_ADVANCEDCRONJOB] = {WH_KRUISE_APPS, {"v1beta1", "v1alpha1"}, "advancedcronjobs",
                                "AdvancedCronJob", true},
    [WH_RES_EPHEMERALJOB] = {WH_KRUISE_APPS, {"v1alpha1"}, "ephemeraljobs", "EphemeralJob", true},
    [WH_RES_STORAGECLASS] = {"storage.k8s.io", {"v1"}, "storageclasses", "StorageClass", false},
    [WH_RES_ADVANCED_DAEMONSET] = {WH_KRUISE_APPS, {"v1beta1", "v1alpha1"}, "daemonsets",
                                   "DaemonSet", true},
    [WH_RES_NODE] = {"", {"v1"}, "nodes", "Node", false},
    [WH_RES_IMAGEPULLJOB] = {WH_KRUISE_APPS, {"v1beta1", "v1alpha1"}, "imagepulljobs",
                             "ImagePullJob", true},
    [WH_RES_IMAGELISTPULLJOB] = {WH_KRUISE_APPS, {"v1beta1", "v1alpha1"}, "imagelistpulljobs",
                                 "ImageListPullJob", true},
    [WH_RES_NODEIMAGE] = {WH_KRUISE_APPS, {"v1beta1", "v1alpha1"}, "nodeimages", "NodeImage",
                          false},
    [WH_RES_CRR] = {WH_KRUISE_APPS, {"v1beta1", "v1alpha1"}, "containerrecreaterequests",
                    "ContainerRecreateRequest", true},
    [WH_RES_RESOURCEDISTRIBUTION] = {WH_KRUISE_APPS, {"v1beta1", "v1alpha1"},
                                     "resourcedistributions", "ResourceDistribution", false},
};

const struct wh_resource *wh_resource_get(enum wh_resource_id id)
{
    WH_ASSERT(id < WH_RES_COUNT);
    return &catalogue[id];
}

enum wh_resource_id wh_resource_by_kind(const char *group, const char *kind)
{
    for (int i = 0; i < WH_RES_COUNT; i++) {
        if (strcmp(catalogue[i].group, group) == 0 && strcmp(catalogue[i].kind, kind) == 0)
            return (enum wh_resource_id)i;
    }
    return WH_RES_COUNT;
}
