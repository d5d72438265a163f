#ifndef WH_HANDLERS_POD_LAUNCH_PRIORITY_H
#define WH_HANDLERS_POD_LAUNCH_PRIORITY_H

/* The container launch priority step of /mutate-pod (upstream's
 * container_launch_priority_initialization.go, in its pod webhook): a Pod with several
 * containers and annotation apps.kruise.io/container-launch-priority: Ordered, or with
 * differing KRUISE_CONTAINER_PRIORITY env values, gets a KRUISE_CONTAINER_BARRIER env per
 * container that kruise-daemon uses to start them in order. */

#include "handlers/pod/step.h"

extern const struct wh_pod_step wh_pod_launch_priority_step;

#endif
