/* BroadcastJob, apps.kruise.io (conversion.md section 10): identical schemas, every field
 * copied. */
#include "conversion/rows_int.h"

const struct wh_conv_kind wh_conv_broadcastjob = {"apps.kruise.io", "BroadcastJob", NULL, 0};
