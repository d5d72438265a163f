/* ResourceDistribution, apps.kruise.io, cluster-scoped (conversion.md section 16): two renames. */
#include "conversion/rows_int.h"

#define NAMESPACES_ROWS(p)                                                                         \
    COPY(p, T_STRUCT("V.ResourceDistributionTargetNamespaces")), COPY(p ".pattern", T_STR),        \
        COPY(p ".list", T_LIST("[]V.ResourceDistributionNamespace")),                              \
        COPY(p ".list[].name", T_STR)

static const struct wh_conv_row rows[] = {
    COPY("spec", T_STRUCT("V.ResourceDistributionSpec")),
    COPY("spec.resource", T_RAW),
    COPY("spec.targets", T_STRUCT("V.ResourceDistributionTargets")),
    COPY("spec.targets.allNamespaces", T_BOOL),
    NAMESPACES_ROWS("spec.targets.excludedNamespaces"),
    NAMESPACES_ROWS("spec.targets.includedNamespaces"),
    RENAME("spec.targets.namespaceLabelSelector", "spec.targets.namespaceSelector",
           T_STRUCT("v1.LabelSelector")),

    COPY("status", T_STRUCT("V.ResourceDistributionStatus")),
    COPY("status.desired", T_I32),
    COPY("status.succeeded", T_I32),
    COPY("status.failed", T_I32),
    COPY("status.observedGeneration", T_I64),
    COPY("status.conditions", T_LIST("[]V.ResourceDistributionCondition")),
    COPY("status.conditions[].type", T_ENUM("V.ResourceDistributionConditionType", NULL)),
    COPY("status.conditions[].status", T_ENUM("V.ResourceDistributionConditionStatus", NULL)),
    COPY("status.conditions[].lastTransitionTime", T_TIME),
    COPY("status.conditions[].reason", T_STR),
    RENAME("status.conditions[].failedNamespace", "status.conditions[].failedNamespaces", T_STRS),
};

const struct wh_conv_kind wh_conv_resourcedistribution = {"apps.kruise.io", "ResourceDistribution",
                                                          WH_ROWS(rows)};
