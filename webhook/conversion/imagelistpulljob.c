/* ImageListPullJob, apps.kruise.io (conversion.md section 13): identical schemas; the list of
 * failed image statuses is rebuilt without its null entries in both directions. */
#include "conversion/rows_int.h"

static const struct wh_conv_row rows[] = {
    COPY("spec", T_STRUCT("V.ImageListPullJobSpec")),
    COPY("spec.images", T_STRS),
    WH_ROWS_PULL_TEMPLATE(INSIDE, "spec", "spec"),

    COPY("status", T_STRUCT("V.ImageListPullJobStatus")),
    COPY("status.startTime", T_TIME),
    COPY("status.completionTime", T_TIME),
    COPY("status.desired", T_I32),
    COPY("status.active", T_I32),
    COPY("status.completed", T_I32),
    COPY("status.succeeded", T_I32),
    NO_NULLS("status.failedImageStatuses", T_LIST("[]*V.FailedImageStatus")),
    COPY("status.failedImageStatuses[].imagePullJob", T_STR),
    COPY("status.failedImageStatuses[].name", T_STR),
    COPY("status.failedImageStatuses[].message", T_STR),
};

const struct wh_conv_kind wh_conv_imagelistpulljob = {"apps.kruise.io", "ImageListPullJob",
                                                      WH_ROWS(rows)};
