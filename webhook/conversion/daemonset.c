/* Advanced DaemonSet, apps.kruise.io (conversion.md section 9). */
#include "conversion/rows_int.h"

#define RU "spec.updateStrategy.rollingUpdate"

/* The deprecated v1alpha1 rolling update type. */
static const struct wh_conv_enum surging[] = {
    {"Surging", "Standard", 1u << WH_CONV_UP},
    {NULL, NULL, 0},
};

static const struct wh_conv_row rows[] = {
    /* spec */
    COPY("spec", T_STRUCT("V.DaemonSetSpec")),
    COPY("spec.selector", T_STRUCT("v1.LabelSelector")),
    COPY("spec.template", T_STRUCT("v1.PodTemplateSpec")),
    COPY("spec.minReadySeconds", T_I32),
    COPY("spec.burstReplicas", T_INTSTR),
    COPY("spec.revisionHistoryLimit", T_I32),
    COPY("spec.lifecycle", T_STRUCT("pub.Lifecycle")),
    WH_ROWS_LIFECYCLE(INSIDE, "spec.lifecycle", "spec.lifecycle"),
    COPY("spec.updateStrategy", T_STRUCT("V.DaemonSetUpdateStrategy")),
    COPY("spec.updateStrategy.type",
         T_ENUM("V.DaemonSetUpdateStrategyType", "RollingUpdate|OnDelete")),
    COPY(RU, T_STRUCT("V.RollingUpdateDaemonSet")),
    ENUM_MAP(RU ".rollingUpdateType",
             T_ENUM("V.RollingUpdateType", "Standard|Surging|InPlaceIfPossible"), surging),
    COPY(RU ".maxUnavailable", T_INTSTR),
    COPY(RU ".maxSurge", T_INTSTR),
    COPY(RU ".selector", T_STRUCT("v1.LabelSelector")),
    COPY(RU ".partition", T_INTSTR),
    COPY(RU ".paused", T_BOOL),
    /* v1beta1 only; partitionedScaling travels in an annotation */
    BETA_ONLY("spec.scaleStrategy", T_STRUCT("V.DaemonSetScaleStrategy")),
    ANNOTATION_TRUE("daemonset.kruise.io/progressive-create-pod",
                    "spec.scaleStrategy.partitionedScaling"),

    /* status */
    COPY("status", T_STRUCT("V.DaemonSetStatus")),
    COPY("status.currentNumberScheduled", T_I32),
    COPY("status.numberMisscheduled", T_I32),
    COPY("status.desiredNumberScheduled", T_I32),
    COPY("status.numberReady", T_I32),
    COPY("status.observedGeneration", T_I64),
    COPY("status.updatedNumberScheduled", T_I32),
    COPY("status.numberAvailable", T_I32),
    COPY("status.numberUnavailable", T_I32),
    COPY("status.collisionCount", T_I32),
    COPY("status.conditions", T_LIST("[]v1.DaemonSetCondition")),
    WH_ROWS_CONDITION(INSIDE, "status.conditions", "status.conditions",
                      "v1.DaemonSetConditionType"),
    RENAME("status.daemonSetHash", "status.updateRevision", T_STR),
};

const struct wh_conv_kind wh_conv_daemonset = {"apps.kruise.io", "DaemonSet", WH_ROWS(rows)};
