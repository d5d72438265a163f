/* AdvancedCronJob, apps.kruise.io (conversion.md section 11): identical except v1beta1's
 * imageListPullJobTemplate, which v1alpha1 cannot hold: converting it down fails. */
#include "conversion/rows_int.h"

#include "k8s/kruise.h"

#define BJT "spec.template.broadcastJobTemplate"

static const struct wh_conv_row rows[] = {
    REJECT_DOWN("spec.template.imageListPullJobTemplate",
                "imageListPullJobTemplate is not supported in v1alpha1"),
};

const struct wh_conv_kind wh_conv_advancedcronjob = {WH_KRUISE_APPS, "AdvancedCronJob",
                                                     WH_ROWS(rows)};
