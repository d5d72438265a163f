#ifndef WH_HANDLERS_PERSISTENTPODSTATE_PERSISTENTPODSTATE_H
#define WH_HANDLERS_PERSISTENTPODSTATE_PERSISTENTPODSTATE_H

/* PersistentPodState: where the Pods of a StatefulSet (or of a white-listed custom workload)
 * ran, recorded by kruise-manager's controller in status.podStates, so that a Pod created
 * again with the same name goes back to its zone or node.
 *  - /mutate-pod (step "persistentpodstate", no gate: upstream always runs it,
 *    pkg/webhook/pod/mutating/persistent_pod_state.go): a new Pod whose controller owner a
 *    PersistentPodState of its namespace targets, and whose name that PersistentPodState has a
 *    record for, gets the recorded values of spec.requiredPersistentTopology's keys as its
 *    nodeSelector, one preferred node affinity term per spec.preferredPersistentTopology term,
 *    and annotation kruise.io/injected-persistent-pod-state naming the PersistentPodState;
 *  - /validate-apps-kruise-io-persistentpodstate (pkg/webhook/persistentpodstate): the objects
 *    themselves, v1beta1 as they are and v1alpha1 converted up first: a target reference that
 *    is complete, a StatefulSet or white-listed, immutable, and no other PersistentPodState of
 *    the namespace targeting the same workload; a topology, required or preferred.
 * Both read the white list PPS_Watch_Custom_Workload_WhiteList of ConfigMap
 * kruise-configuration in the kruise namespace, and the PersistentPodState cache.
 * Thread rule: the setup runs once on the main thread before the caches start; everything
 * else is thread-safe. */

#include "handlers/handler.h"
#include "handlers/pod/step.h"

extern const struct wh_pod_step wh_pps_pod_step;
extern const struct wh_route wh_pps_validate_route;

#endif
