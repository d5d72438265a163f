#ifndef WH_HANDLERS_POD_STEPS_H
#define WH_HANDLERS_POD_STEPS_H

/* The small /mutate-pod steps that belong to no feature folder (upstream keeps them in its pod
 * webhook too):
 *  - readiness gate (pod_readiness.go): a Pod whose controller owner's group is apps.kruise.io,
 *    or every Pod with gate KruisePodReadinessGate, gets spec.readinessGates
 *    {"conditionType": "KruisePodReady"} unless it has it, so Kruise's in-place updates can
 *    hold the Pod unready;
 *  - container launch priority (container_launch_priority_initialization.go): a Pod with several
 *    containers and annotation apps.kruise.io/container-launch-priority: Ordered, or with
 *    differing KRUISE_CONTAINER_PRIORITY env values, gets a KRUISE_CONTAINER_BARRIER env per
 *    container that kruise-daemon uses to start them in order. */

#include "handlers/pod/pipeline.h"

extern const struct wh_pod_step wh_pod_readiness_gate_step;
extern const struct wh_pod_step wh_pod_launch_priority_step;

#endif
