/* ImagePullJob, apps.kruise.io (conversion.md section 12): identical schemas (the job template
 * fields are inlined into spec). */
#include "conversion/rows_int.h"

static const struct wh_conv_row rows[] = {
    COPY("spec", T_STRUCT("V.ImagePullJobSpec")),
    COPY("spec.image", T_STR),
    WH_ROWS_PULL_TEMPLATE(INSIDE, "spec", "spec"),

    COPY("status", T_STRUCT("V.ImagePullJobStatus")),
    COPY("status.startTime", T_TIME),
    COPY("status.completionTime", T_TIME),
    COPY("status.desired", T_I32),
    COPY("status.active", T_I32),
    COPY("status.succeeded", T_I32),
    COPY("status.failed", T_I32),
    COPY("status.message", T_STR),
    COPY("status.failedNodes", T_STRS),
};

const struct wh_conv_kind wh_conv_imagepulljob = {"apps.kruise.io", "ImagePullJob", WH_ROWS(rows)};
