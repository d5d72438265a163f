/* ResourceDistribution, apps.kruise.io, cluster-scoped (conversion.md section 16): two renames. */
#include "conversion/rows_int.h"

static const struct wh_conv_row rows[] = {
    RENAME("spec.targets.namespaceLabelSelector", "spec.targets.namespaceSelector"),
    RENAME("status.conditions[].failedNamespace", "status.conditions[].failedNamespaces"),
};

const struct wh_conv_kind wh_conv_resourcedistribution = {"apps.kruise.io", "ResourceDistribution",
                                                          WH_ROWS(rows)};
