/* Advanced StatefulSet, apps.kruise.io (conversion.md section 5): the same shape in both
 * versions; v1beta1 adds spec and status fields that have no v1alpha1 home, so a v1beta1
 * object loses them going down (nothing carries them in annotations). */
#include "conversion/rows_int.h"

#define RU "spec.updateStrategy.rollingUpdate"

static const struct wh_conv_row rows[] = {
    /* spec */
    COPY("spec", T_STRUCT("V.StatefulSetSpec")),
    COPY("spec.replicas", T_I32),
    COPY("spec.selector", T_STRUCT("v1.LabelSelector")),
    COPY("spec.template", T_STRUCT("v1.PodTemplateSpec")),
    COPY("spec.volumeClaimTemplates", T_LIST("[]v1.PersistentVolumeClaim")),
    COPY("spec.serviceName", T_STR),
    COPY("spec.podManagementPolicy", T_ENUM("v1.PodManagementPolicyType", "OrderedReady|Parallel")),
    COPY("spec.revisionHistoryLimit", T_I32),
    COPY("spec.updateStrategy", T_STRUCT("V.StatefulSetUpdateStrategy")),
    COPY("spec.updateStrategy.type",
         T_ENUM("v1.StatefulSetUpdateStrategyType", "RollingUpdate|OnDelete")),
    COPY(RU, T_STRUCT("V.RollingUpdateStatefulSetStrategy")),
    COPY(RU ".partition", T_I32),
    COPY(RU ".maxUnavailable", T_INTSTR),
    COPY(RU ".podUpdatePolicy",
         T_ENUM("V.PodUpdateStrategyType", "ReCreate|InPlaceIfPossible|InPlaceOnly")),
    COPY(RU ".paused", T_BOOL),
    COPY(RU ".unorderedUpdate", T_STRUCT("V.UnorderedUpdateStrategy")),
    COPY(RU ".unorderedUpdate.priorityStrategy", T_STRUCT("pub.UpdatePriorityStrategy")),
    WH_ROWS_PRIORITY(INSIDE, RU ".unorderedUpdate.priorityStrategy",
                     RU ".unorderedUpdate.priorityStrategy"),
    /* copied whole, pre-download settings included (unlike CloneSet) */
    COPY(RU ".inPlaceUpdateStrategy", T_STRUCT("pub.InPlaceUpdateStrategy")),
    WH_ROWS_INPLACE(INSIDE, RU ".inPlaceUpdateStrategy", RU ".inPlaceUpdateStrategy"),
    COPY(RU ".minReadySeconds", T_I32),

    /* v1beta1 only (5.2): lost going down */
    BETA_ONLY("spec.volumeClaimUpdateStrategy", T_STRUCT("V.VolumeClaimUpdateStrategy")),
    INSIDE_BETA(NULL, "spec.volumeClaimUpdateStrategy.type",
                T_ENUM("V.VolumeClaimUpdateStrategyType", "OnDelete|OnPodRollingUpdate")),
    BETA_ONLY("spec.reserveOrdinals", T_INTSTRS),
    BETA_ONLY("spec.lifecycle", T_STRUCT("pub.Lifecycle")),
    WH_ROWS_LIFECYCLE(INSIDE_BETA, "spec.lifecycle", "spec.lifecycle"),
    BETA_ONLY("spec.scaleStrategy", T_STRUCT("V.StatefulSetScaleStrategy")),
    INSIDE_BETA(NULL, "spec.scaleStrategy.maxUnavailable", T_INTSTR),
    BETA_ONLY("spec.persistentVolumeClaimRetentionPolicy",
              T_STRUCT("V.StatefulSetPersistentVolumeClaimRetentionPolicy")),
    INSIDE_BETA(NULL, "spec.persistentVolumeClaimRetentionPolicy.whenDeleted",
                T_ENUM("V.PersistentVolumeClaimRetentionPolicyType", "Retain|Delete")),
    INSIDE_BETA(NULL, "spec.persistentVolumeClaimRetentionPolicy.whenScaled",
                T_ENUM("V.PersistentVolumeClaimRetentionPolicyType", "Retain|Delete")),
    BETA_ONLY("spec.ordinals", T_STRUCT("V.StatefulSetOrdinals")),
    INSIDE_BETA(NULL, "spec.ordinals.start", T_I32),

    /* status */
    COPY("status", T_STRUCT("V.StatefulSetStatus")),
    COPY("status.observedGeneration", T_I64),
    COPY("status.replicas", T_I32),
    COPY("status.readyReplicas", T_I32),
    COPY("status.availableReplicas", T_I32),
    COPY("status.currentReplicas", T_I32),
    COPY("status.updatedReplicas", T_I32),
    COPY("status.currentRevision", T_STR),
    COPY("status.updateRevision", T_STR),
    COPY("status.collisionCount", T_I32),
    COPY("status.conditions", T_LIST("[]v1.StatefulSetCondition")),
    WH_ROWS_CONDITION(INSIDE, "status.conditions", "status.conditions",
                      "v1.StatefulSetConditionType"),
    COPY("status.labelSelector", T_STR),
    BETA_ONLY("status.updatedReadyReplicas", T_I32),
    BETA_ONLY("status.updatedAvailableReplicas", T_I32),
    BETA_ONLY("status.volumeClaims", T_LIST("[]V.VolumeClaimStatus")),
    INSIDE_BETA(NULL, "status.volumeClaims[].volumeClaimName", T_STR),
    INSIDE_BETA(NULL, "status.volumeClaims[].compatibleReplicas", T_I32),
    INSIDE_BETA(NULL, "status.volumeClaims[].compatibleReadyReplicas", T_I32),
};

const struct wh_conv_kind wh_conv_statefulset = {"apps.kruise.io", "StatefulSet", WH_ROWS(rows)};
