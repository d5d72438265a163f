/* NodeImage, apps.kruise.io, cluster-scoped (conversion.md section 14): identical except
 * v1beta1's pullSecrets[].mode, lost going down. (Upstream also prints empty tag lists as []
 * rather than leaving them out; both mean "no tags".) */
#include "conversion/rows_int.h"

#define IMG "spec.images.*"
#define TAG "spec.images.*.tags[]"
#define ST "status.imageStatuses.*.tags[]"

static const struct wh_conv_row rows[] = {
    COPY("spec", T_STRUCT("V.NodeImageSpec")),
    COPY("spec.images", T_MAP("map[string]V.ImageSpec")),
    COPY(IMG ".pullSecrets", T_LIST("[]V.ReferenceObject")),
    COPY(IMG ".pullSecrets[].namespace", T_STR),
    COPY(IMG ".pullSecrets[].name", T_STR),
    BETA_ONLY(IMG ".pullSecrets[].mode", T_STR),
    COPY(IMG ".tags", T_LIST("[]V.ImageTagSpec")),
    COPY(TAG ".tag", T_STR),
    COPY(TAG ".createdAt", T_TIME),
    COPY(TAG ".pullPolicy", T_STRUCT("V.ImageTagPullPolicy")),
    COPY(TAG ".pullPolicy.timeoutSeconds", T_I32),
    COPY(TAG ".pullPolicy.backoffLimit", T_I32),
    COPY(TAG ".pullPolicy.ttlSecondsAfterFinished", T_I32),
    COPY(TAG ".pullPolicy.activeDeadlineSeconds", T_I64),
    COPY(TAG ".ownerReferences", T_LIST("[]v1.ObjectReference")),
    COPY(TAG ".version", T_I64),
    COPY(TAG ".imagePullPolicy", T_ENUM("V.ImagePullPolicy", "Always|IfNotPresent")),
    COPY(IMG ".sandboxConfig", T_STRUCT("V.SandboxConfig")),
    WH_ROWS_SANDBOX(INSIDE, IMG ".sandboxConfig", IMG ".sandboxConfig"),

    COPY("status", T_STRUCT("V.NodeImageStatus")),
    COPY("status.desired", T_I32),
    COPY("status.succeeded", T_I32),
    COPY("status.failed", T_I32),
    COPY("status.pulling", T_I32),
    COPY("status.waiting", T_I32),
    COPY("status.imageStatuses", T_MAP("map[string]V.ImageStatus")),
    COPY("status.imageStatuses.*.tags", T_LIST("[]V.ImageTagStatus")),
    COPY(ST ".tag", T_STR),
    COPY(ST ".phase", T_ENUM("V.ImagePullPhase", "Waiting|Pulling|Succeeded|Failed")),
    COPY(ST ".progress", T_I32),
    COPY(ST ".startTime", T_TIME),
    COPY(ST ".completionTime", T_TIME),
    COPY(ST ".version", T_I64),
    COPY(ST ".imageID", T_STR),
    COPY(ST ".message", T_STR),
    COPY("status.firstSyncStatus", T_STRUCT("V.SyncStatus")),
    COPY("status.firstSyncStatus.syncAt", T_TIME),
    COPY("status.firstSyncStatus.status", T_ENUM("V.SyncStatusPhase", "Succeeded|Failed")),
    COPY("status.firstSyncStatus.message", T_STR),
};

const struct wh_conv_kind wh_conv_nodeimage = {"apps.kruise.io", "NodeImage", WH_ROWS(rows)};
