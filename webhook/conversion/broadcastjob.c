/* BroadcastJob, apps.kruise.io (conversion.md section 10): identical schemas, every field
 * copied. */
#include "conversion/rows_int.h"

static const struct wh_conv_row rows[] = {
    COPY("spec", T_STRUCT("V.BroadcastJobSpec")),
    WH_ROWS_BROADCASTJOB_SPEC(INSIDE, "spec", "spec"),

    COPY("status", T_STRUCT("V.BroadcastJobStatus")),
    COPY("status.conditions", T_LIST("[]V.JobCondition")),
    WH_ROWS_CONDITION(INSIDE, "status.conditions", "status.conditions", "V.JobConditionType"),
    COPY("status.conditions[].lastProbeTime", T_TIME),
    COPY("status.startTime", T_TIME),
    COPY("status.completionTime", T_TIME),
    COPY("status.active", T_I32),
    COPY("status.succeeded", T_I32),
    COPY("status.failed", T_I32),
    COPY("status.desired", T_I32),
    COPY("status.phase", T_ENUM("V.BroadcastJobPhase", "running|completed|failed|paused")),
};

const struct wh_conv_kind wh_conv_broadcastjob = {"apps.kruise.io", "BroadcastJob", WH_ROWS(rows)};
