/* PersistentPodState, apps.kruise.io (conversion.md section 17): NodeTopologyTerm's
 * nodeTopologyKeys is called keys in v1beta1. */
#include "conversion/rows_int.h"

#include "k8s/kruise.h"

static const struct wh_conv_row rows[] = {
    RENAME("spec.requiredPersistentTopology.nodeTopologyKeys",
           "spec.requiredPersistentTopology.keys"),
    RENAME("spec.preferredPersistentTopology[].preference.nodeTopologyKeys",
           "spec.preferredPersistentTopology[].preference.keys"),
};

const struct wh_conv_kind wh_conv_persistentpodstate = {WH_KRUISE_APPS, "PersistentPodState",
                                                        WH_ROWS(rows)};
