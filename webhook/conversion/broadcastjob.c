/* BroadcastJob, apps.kruise.io (conversion.md section 10): identical schemas, every field
 * copied. */
#include "conversion/rows_int.h"

#include "k8s/kruise.h"

const struct wh_conv_kind wh_conv_broadcastjob = {WH_KRUISE_APPS, "BroadcastJob", NULL, 0};
