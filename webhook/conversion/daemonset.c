/* Advanced DaemonSet, apps.kruise.io (conversion.md section 9). */
#include "conversion/rows_int.h"

#include "k8s/kruise.h"

#define RU "spec.updateStrategy.rollingUpdate"

/* The deprecated v1alpha1 rolling update type. */
static const struct wh_conv_enum surging[] = {
    {"Surging", "Standard", 1u << WH_CONV_UP},
    {NULL, NULL, 0},
};

static const struct wh_conv_row rows[] = {
    ENUM_MAP(RU ".rollingUpdateType", surging),
    /* v1beta1 only; partitionedScaling travels in an annotation */
    BETA_ONLY("spec.scaleStrategy"),
    ANNOTATION_TRUE(WH_KRUISE_ANN_DAEMONSET_PROGRESSIVE_CREATE_POD,
                    "spec.scaleStrategy.partitionedScaling"),
    RENAME("status.daemonSetHash", "status.updateRevision"),
};

const struct wh_conv_kind wh_conv_daemonset = {WH_KRUISE_APPS, "DaemonSet", WH_ROWS(rows)};
