/* SidecarSet, apps.kruise.io, cluster-scoped (conversion.md section 7). v1alpha1's
 * spec.namespace becomes a namespaceSelector going up (and is never reconstructed), and the
 * custom-version label moves into v1beta1's spec.customVersion and back. */
#include "conversion/rows_int.h"

/* 7.1: a non-empty namespace wins over any namespaceSelector. */
static enum wh_err namespace_to_selector(struct wh_conv_ctx *c, enum wh_conv_dir dir,
                                         const json_t *src, json_t *dst)
{
    (void)c;
    wh_conv_del(dst, "spec", "namespace", NULL);
    const char *ns = wh_conv_get_str(src, "spec", "namespace", NULL);
    if (dir == WH_CONV_DOWN || !ns || !*ns)
        return WH_OK;
    json_t *labels = json_object();
    json_object_set_new(labels, "kubernetes.io/metadata.name", json_string(ns));
    json_t *sel = json_object();
    json_object_set_new(sel, "matchLabels", labels);
    wh_conv_set_new(dst, sel, "spec", "namespaceSelector", NULL);
    return WH_OK;
}

/* SidecarContainer: corev1.Container inlined, plus the kruise fields. */
#define SIDECAR_ROWS(p)                                                                            \
    INSIDE(p "[].name", p "[].name", T_STR), INSIDE(p "[].image", p "[].image", T_STR),            \
        INSIDE(p "[].podInjectPolicy", p "[].podInjectPolicy",                                     \
               T_ENUM("V.PodInjectPolicyType", "BeforeAppContainer|AfterAppContainer")),           \
        INSIDE(p "[].upgradeStrategy", p "[].upgradeStrategy",                                     \
               T_STRUCT("V.SidecarContainerUpgradeStrategy")),                                     \
        INSIDE(p "[].upgradeStrategy.upgradeType", p "[].upgradeStrategy.upgradeType",             \
               T_ENUM("V.SidecarContainerUpgradeType", "ColdUpgrade|HotUpgrade")),                 \
        INSIDE(p "[].upgradeStrategy.hotUpgradeEmptyImage",                                        \
               p "[].upgradeStrategy.hotUpgradeEmptyImage", T_STR),                                \
        INSIDE(p "[].shareVolumePolicy", p "[].shareVolumePolicy",                                 \
               T_STRUCT("V.ShareVolumePolicy")),                                                   \
        INSIDE(p "[].shareVolumePolicy.type", p "[].shareVolumePolicy.type",                       \
               T_ENUM("V.ShareVolumePolicyType", "enabled|disabled")),                             \
        INSIDE(p "[].shareVolumeDevicePolicy", p "[].shareVolumeDevicePolicy",                     \
               T_STRUCT("V.ShareVolumePolicy")),                                                   \
        INSIDE(p "[].shareVolumeDevicePolicy.type", p "[].shareVolumeDevicePolicy.type",           \
               T_ENUM("V.ShareVolumePolicyType", "enabled|disabled")),                             \
        INSIDE(p "[].transferEnv", p "[].transferEnv", T_LIST("[]V.TransferEnvVar")),              \
        INSIDE(p "[].transferEnv[].sourceContainerName", p "[].transferEnv[].sourceContainerName", \
               T_STR),                                                                             \
        INSIDE(p "[].transferEnv[].sourceContainerNameFrom",                                       \
               p "[].transferEnv[].sourceContainerNameFrom",                                       \
               T_STRUCT("V.SourceContainerNameSource")),                                           \
        INSIDE(p "[].transferEnv[].sourceContainerNameFrom.fieldRef",                              \
               p "[].transferEnv[].sourceContainerNameFrom.fieldRef",                              \
               T_STRUCT("v1.ObjectFieldSelector")),                                                \
        INSIDE(p "[].transferEnv[].envName", p "[].transferEnv[].envName", T_STR),                 \
        INSIDE(p "[].transferEnv[].envNames", p "[].transferEnv[].envNames", T_STRS),              \
        INSIDE(p "[].resourcesPolicy", p "[].resourcesPolicy", T_STRUCT("V.ResourcesPolicy")),     \
        INSIDE(p "[].resourcesPolicy.targetContainersMode",                                        \
               p "[].resourcesPolicy.targetContainersMode",                                        \
               T_ENUM("V.TargetContainersModeType", "sum|max")),                                   \
        INSIDE(p "[].resourcesPolicy.targetContainersNameRegex",                                   \
               p "[].resourcesPolicy.targetContainersNameRegex", T_STR),                           \
        INSIDE(p "[].resourcesPolicy.resourcesExpr", p "[].resourcesPolicy.resourcesExpr",         \
               T_STRUCT("V.ResourcesExpr")),                                                       \
        INSIDE(p "[].resourcesPolicy.resourcesExpr.limits",                                        \
               p "[].resourcesPolicy.resourcesExpr.limits", T_STRUCT("V.ResourceExprLimits")),     \
        INSIDE(p "[].resourcesPolicy.resourcesExpr.limits.cpu",                                    \
               p "[].resourcesPolicy.resourcesExpr.limits.cpu", T_STR),                            \
        INSIDE(p "[].resourcesPolicy.resourcesExpr.limits.memory",                                 \
               p "[].resourcesPolicy.resourcesExpr.limits.memory", T_STR),                         \
        INSIDE(p "[].resourcesPolicy.resourcesExpr.requests",                                      \
               p "[].resourcesPolicy.resourcesExpr.requests", T_STRUCT("V.ResourceExprRequests")), \
        INSIDE(p "[].resourcesPolicy.resourcesExpr.requests.cpu",                                  \
               p "[].resourcesPolicy.resourcesExpr.requests.cpu", T_STR),                          \
        INSIDE(p "[].resourcesPolicy.resourcesExpr.requests.memory",                               \
               p "[].resourcesPolicy.resourcesExpr.requests.memory", T_STR)

static const struct wh_conv_row rows[] = {
    /* spec */
    COPY("spec", T_STRUCT("V.SidecarSetSpec")),
    COPY("spec.selector", T_STRUCT("v1.LabelSelector")),
    CUSTOM("spec.namespace", NULL, T_STR, namespace_to_selector),
    COPY("spec.namespaceSelector", T_STRUCT("v1.LabelSelector")),
    LABEL_MOVE("apps.kruise.io/sidecarset-custom-version", "spec.customVersion", T_STR),
    COPY("spec.initContainers", T_LIST("[]V.SidecarContainer")),
    SIDECAR_ROWS("spec.initContainers"),
    COPY("spec.containers", T_LIST("[]V.SidecarContainer")),
    SIDECAR_ROWS("spec.containers"),
    COPY("spec.volumes", T_LIST("[]v1.Volume")),
    COPY("spec.imagePullSecrets", T_LIST("[]v1.LocalObjectReference")),
    COPY("spec.revisionHistoryLimit", T_I32),
    COPY("spec.updateStrategy", T_STRUCT("V.SidecarSetUpdateStrategy")),
    COPY("spec.updateStrategy.type",
         T_ENUM("V.SidecarSetUpdateStrategyType", "NotUpdate|RollingUpdate")),
    COPY("spec.updateStrategy.paused", T_BOOL),
    COPY("spec.updateStrategy.selector", T_STRUCT("v1.LabelSelector")),
    COPY("spec.updateStrategy.partition", T_INTSTR),
    COPY("spec.updateStrategy.maxUnavailable", T_INTSTR),
    COPY("spec.updateStrategy.priorityStrategy", T_STRUCT("pub.UpdatePriorityStrategy")),
    WH_ROWS_PRIORITY(INSIDE, "spec.updateStrategy.priorityStrategy",
                     "spec.updateStrategy.priorityStrategy"),
    COPY("spec.updateStrategy.scatterStrategy", T_SCATTER),
    WH_ROWS_SCATTER(INSIDE, "spec.updateStrategy.scatterStrategy",
                    "spec.updateStrategy.scatterStrategy"),
    COPY("spec.injectionStrategy", T_STRUCT("V.SidecarSetInjectionStrategy")),
    COPY("spec.injectionStrategy.paused", T_BOOL),
    COPY("spec.injectionStrategy.revision", T_STRUCT("V.SidecarSetInjectRevision")),
    /* unrelated to spec.customVersion */
    COPY("spec.injectionStrategy.revision.customVersion", T_STR),
    COPY("spec.injectionStrategy.revision.revisionName", T_STR),
    COPY("spec.injectionStrategy.revision.policy",
         T_ENUM("V.SidecarSetInjectRevisionPolicy", "Always|Partial")),
    COPY("spec.patchPodMetadata", T_LIST("[]V.SidecarSetPatchPodMetadata")),
    COPY("spec.patchPodMetadata[].annotations", T_STRMAP),
    COPY("spec.patchPodMetadata[].patchPolicy",
         T_ENUM("V.SidecarSetPatchPolicyType", "Retain|Overwrite|MergePatchJson")),

    /* status */
    COPY("status", T_STRUCT("V.SidecarSetStatus")),
    COPY("status.observedGeneration", T_I64),
    COPY("status.matchedPods", T_I32),
    COPY("status.updatedPods", T_I32),
    COPY("status.readyPods", T_I32),
    COPY("status.updatedReadyPods", T_I32),
    COPY("status.latestRevision", T_STR),
    COPY("status.collisionCount", T_I32),
};

const struct wh_conv_kind wh_conv_sidecarset = {"apps.kruise.io", "SidecarSet", WH_ROWS(rows)};
