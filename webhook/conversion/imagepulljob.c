/* ImagePullJob, apps.kruise.io (conversion.md section 12): identical schemas (the job template
 * fields are inlined into spec). */
#include "conversion/rows_int.h"

#include "k8s/kruise.h"

const struct wh_conv_kind wh_conv_imagepulljob = {WH_KRUISE_APPS, "ImagePullJob", NULL, 0};
