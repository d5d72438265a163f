/* WorkloadSpread, apps.kruise.io (conversion.md section 8): two subset fields renamed, and the
 * subset conditions become metav1.Condition in v1beta1 (reason required, observedGeneration
 * added). */
#include "conversion/rows_int.h"

/* metav1.Condition requires a reason: an empty one becomes "Unknown" going up (8.2). */
static const struct wh_conv_enum empty_reason[] = {
    {"", "Unknown", 1u << WH_CONV_UP},
    {NULL, NULL, 0},
};

/* WorkloadSpreadSubsetStatus, in subsetStatuses and in each versionedSubsetStatuses list; e is
 * the path of an element. */
#define SUBSET_STATUS_ROWS(e)                                                                      \
    COPY(e ".name", T_STR), COPY(e ".replicas", T_I32), COPY(e ".missingReplicas", T_I32),         \
        COPY(e ".creatingPods", T_TIMEMAP), COPY(e ".deletingPods", T_TIMEMAP),                    \
        COPY(e ".conditions", T_LIST2("[]V.WorkloadSpreadSubsetCondition", "[]v1.Condition")),     \
        COPY(e ".conditions[].type", T_ENUM2("V.WorkloadSpreadSubsetConditionType", "string")),    \
        COPY(e ".conditions[].status", T_ENUM("v1.ConditionStatus", "True|False|Unknown")),        \
        COPY(e ".conditions[].lastTransitionTime", T_TIME),                                        \
        ENUM_MAP(e ".conditions[].reason", T_STR, empty_reason),                                   \
        COPY(e ".conditions[].message", T_STR),                                                    \
        BETA_ONLY(e ".conditions[].observedGeneration", T_I64)

static const struct wh_conv_row rows[] = {
    /* spec */
    COPY("spec", T_STRUCT("V.WorkloadSpreadSpec")),
    COPY("spec.targetRef", T_STRUCT("V.TargetReference")),
    COPY("spec.targetRef.apiVersion", T_STR),
    COPY("spec.targetRef.kind", T_STR),
    COPY("spec.targetRef.name", T_STR),
    COPY("spec.targetFilter", T_STRUCT("V.TargetFilter")),
    COPY("spec.targetFilter.selector", T_STRUCT("v1.LabelSelector")),
    COPY("spec.targetFilter.replicasPathList", T_STRS),
    COPY("spec.subsets", T_LIST("[]V.WorkloadSpreadSubset")),
    COPY("spec.subsets[].name", T_STR),
    RENAME("spec.subsets[].requiredNodeSelectorTerm", "spec.subsets[].requiredNodeSelector",
           T_STRUCT("v1.NodeSelectorTerm")),
    RENAME("spec.subsets[].preferredNodeSelectorTerms", "spec.subsets[].preferredNodeSelector",
           T_LIST("[]v1.PreferredSchedulingTerm")),
    COPY("spec.subsets[].tolerations", T_LIST("[]v1.Toleration")),
    COPY("spec.subsets[].maxReplicas", T_INTSTR),
    COPY("spec.subsets[].patch", T_RAW),
    COPY("spec.scheduleStrategy", T_STRUCT("V.WorkloadSpreadScheduleStrategy")),
    COPY("spec.scheduleStrategy.type",
         T_ENUM("V.WorkloadSpreadScheduleStrategyType", "Fixed|Adaptive")),
    COPY("spec.scheduleStrategy.adaptive", T_STRUCT("V.AdaptiveWorkloadSpreadStrategy")),
    COPY("spec.scheduleStrategy.adaptive.disableSimulationSchedule", T_BOOL),
    COPY("spec.scheduleStrategy.adaptive.rescheduleCriticalSeconds", T_I32),

    /* status */
    COPY("status", T_STRUCT("V.WorkloadSpreadStatus")),
    COPY("status.observedGeneration", T_I64),
    COPY("status.subsetStatuses", T_LIST("[]V.WorkloadSpreadSubsetStatus")),
    SUBSET_STATUS_ROWS("status.subsetStatuses[]"),
    COPY("status.versionedSubsetStatuses", T_MAP_LIST("map[string][]V.WorkloadSpreadSubsetStatus")),
    SUBSET_STATUS_ROWS("status.versionedSubsetStatuses.*[]"),
};

const struct wh_conv_kind wh_conv_workloadspread = {"apps.kruise.io", "WorkloadSpread",
                                                    WH_ROWS(rows)};
