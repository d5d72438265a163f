/* AdvancedCronJob, apps.kruise.io (conversion.md section 11): identical except v1beta1's
 * imageListPullJobTemplate, which v1alpha1 cannot hold: converting it down fails. */
#include "conversion/rows_int.h"

#define BJT "spec.template.broadcastJobTemplate"

static const struct wh_conv_row rows[] = {
    COPY("spec", T_STRUCT("V.AdvancedCronJobSpec")),
    COPY("spec.schedule", T_STR),
    COPY("spec.timeZone", T_STR),
    COPY("spec.startingDeadlineSeconds", T_I64),
    COPY("spec.concurrencyPolicy", T_ENUM("V.ConcurrencyPolicy", "Allow|Forbid|Replace")),
    COPY("spec.paused", T_BOOL),
    COPY("spec.successfulJobsHistoryLimit", T_I32),
    COPY("spec.failedJobsHistoryLimit", T_I32),
    COPY("spec.template", T_STRUCT("V.CronJobTemplate")),
    COPY("spec.template.jobTemplate", T_STRUCT("v1.JobTemplateSpec")),
    COPY(BJT, T_STRUCT("V.BroadcastJobTemplateSpec")),
    COPY(BJT ".metadata", T_STRUCT("v1.ObjectMeta")),
    COPY(BJT ".spec", T_STRUCT("V.BroadcastJobSpec")),
    WH_ROWS_BROADCASTJOB_SPEC(INSIDE, BJT ".spec", BJT ".spec"),
    REJECT_DOWN("spec.template.imageListPullJobTemplate",
                T_STRUCT("V.ImageListPullJobTemplateSpec"),
                "imageListPullJobTemplate is not supported in v1alpha1"),

    COPY("status", T_STRUCT("V.AdvancedCronJobStatus")),
    /* ImageListPullJob is a v1beta1 value, copied as any string */
    COPY("status.type", T_ENUM("V.TemplateKind", "Job|BroadcastJob|ImageListPullJob")),
    COPY("status.active", T_LIST("[]v1.ObjectReference")),
    COPY("status.lastScheduleTime", T_TIME),
};

const struct wh_conv_kind wh_conv_advancedcronjob = {"apps.kruise.io", "AdvancedCronJob",
                                                     WH_ROWS(rows)};
