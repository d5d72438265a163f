/* PersistentPodState, apps.kruise.io (conversion.md section 17): NodeTopologyTerm's
 * nodeTopologyKeys is called keys in v1beta1. */
#include "conversion/rows_int.h"

static const struct wh_conv_row rows[] = {
    COPY("spec", T_STRUCT("V.PersistentPodStateSpec")),
    COPY("spec.targetRef", T_STRUCT("V.TargetReference")),
    COPY("spec.targetRef.apiVersion", T_STR),
    COPY("spec.targetRef.kind", T_STR),
    COPY("spec.targetRef.name", T_STR),
    COPY("spec.persistentPodAnnotations", T_LIST("[]V.PersistentPodAnnotation")),
    COPY("spec.persistentPodAnnotations[].key", T_STR),
    COPY("spec.requiredPersistentTopology", T_STRUCT("V.NodeTopologyTerm")),
    RENAME("spec.requiredPersistentTopology.nodeTopologyKeys",
           "spec.requiredPersistentTopology.keys", T_STRS),
    COPY("spec.preferredPersistentTopology", T_LIST("[]V.PreferredTopologyTerm")),
    COPY("spec.preferredPersistentTopology[].weight", T_I32),
    COPY("spec.preferredPersistentTopology[].preference", T_STRUCT("V.NodeTopologyTerm")),
    RENAME("spec.preferredPersistentTopology[].preference.nodeTopologyKeys",
           "spec.preferredPersistentTopology[].preference.keys", T_STRS),
    COPY("spec.persistentPodStateRetentionPolicy",
         T_ENUM("V.PersistentPodStateRetentionPolicyType", "WhenScaled|WhenDeleted")),

    COPY("status", T_STRUCT("V.PersistentPodStateStatus")),
    COPY("status.observedGeneration", T_I64),
    COPY("status.podStates", T_MAP("map[string]V.PodState")),
    COPY("status.podStates.*.nodeName", T_STR),
    COPY("status.podStates.*.nodeTopologyLabels", T_STRMAP),
    COPY("status.podStates.*.annotations", T_STRMAP),
};

const struct wh_conv_kind wh_conv_persistentpodstate = {"apps.kruise.io", "PersistentPodState",
                                                        WH_ROWS(rows)};
