/* Advanced StatefulSet, apps.kruise.io (conversion.md section 5): the same shape in both
 * versions; v1beta1 adds spec and status fields that have no v1alpha1 home, so a v1beta1
 * object loses them going down (nothing carries them in annotations). */
#include "conversion/rows_int.h"

#include "k8s/kruise.h"

#define RU "spec.updateStrategy.rollingUpdate"

static const struct wh_conv_row rows[] = {
    /* v1beta1 only (5.2): lost going down */
    BETA_ONLY("spec.volumeClaimUpdateStrategy"),
    BETA_ONLY("spec.reserveOrdinals"),
    BETA_ONLY("spec.lifecycle"),
    BETA_ONLY("spec.scaleStrategy"),
    BETA_ONLY("spec.persistentVolumeClaimRetentionPolicy"),
    BETA_ONLY("spec.ordinals"),
    BETA_ONLY("status.updatedReadyReplicas"),
    BETA_ONLY("status.updatedAvailableReplicas"),
    BETA_ONLY("status.volumeClaims"),
};

const struct wh_conv_kind wh_conv_statefulset = {WH_KRUISE_APPS, "StatefulSet", WH_ROWS(rows)};
