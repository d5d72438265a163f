/* ImageListPullJob, apps.kruise.io (conversion.md section 13): identical schemas; the list of
 * failed image statuses is rebuilt without its null entries in both directions. */
#include "conversion/rows_int.h"

#include "k8s/kruise.h"

static const struct wh_conv_row rows[] = {
    NO_NULLS("status.failedImageStatuses"),
};

const struct wh_conv_kind wh_conv_imagelistpulljob = {WH_KRUISE_APPS, "ImageListPullJob",
                                                      WH_ROWS(rows)};
