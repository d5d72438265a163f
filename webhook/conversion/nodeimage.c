/* NodeImage, apps.kruise.io, cluster-scoped (conversion.md section 14): identical except
 * v1beta1's pullSecrets[].mode, lost going down. (Upstream also prints empty tag lists as []
 * rather than leaving them out; both mean "no tags".) */
#include "conversion/rows_int.h"

#include "k8s/kruise.h"

#define IMG "spec.images.*"
#define TAG "spec.images.*.tags[]"
#define ST "status.imageStatuses.*.tags[]"

static const struct wh_conv_row rows[] = {
    BETA_ONLY(IMG ".pullSecrets[].mode"),
};

const struct wh_conv_kind wh_conv_nodeimage = {WH_KRUISE_APPS, "NodeImage", WH_ROWS(rows)};
