#ifndef WH_HANDLERS_POD_READINESS_GATE_H
#define WH_HANDLERS_POD_READINESS_GATE_H

/* The readiness gate step of /mutate-pod (upstream's pod_readiness.go, in its pod webhook): a
 * Pod whose controller owner's group is apps.kruise.io, or every Pod with gate
 * KruisePodReadinessGate, gets spec.readinessGates {"conditionType": "KruisePodReady"} unless
 * it has it, so Kruise's in-place updates can hold the Pod unready. */

#include "handlers/pod/step.h"

extern const struct wh_pod_step wh_pod_readiness_gate_step;

#endif
