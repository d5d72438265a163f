/* ResourceDistribution, apps.kruise.io, cluster-scoped (conversion.md section 16): two renames. */
#include "conversion/rows_int.h"

#include "k8s/kruise.h"

static const struct wh_conv_row rows[] = {
    RENAME("spec.targets.namespaceLabelSelector", "spec.targets.namespaceSelector"),
    RENAME("status.conditions[].failedNamespace", "status.conditions[].failedNamespaces"),
};

const struct wh_conv_kind wh_conv_resourcedistribution = {WH_KRUISE_APPS, "ResourceDistribution",
                                                          WH_ROWS(rows)};
