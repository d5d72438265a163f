#ifndef WH_HANDLERS_WORKLOADSPREAD_POD_H
#define WH_HANDLERS_WORKLOADSPREAD_POD_H

/* WorkloadSpread's step of the Pod webhooks (spec workloadspread.md 4-8): on /mutate-pod, pick
 * a subset for a new Pod, patch it there and count it in the WorkloadSpread's status; on
 * /validate-pod, record deletions and evictions. Gate WorkloadSpread. */

#include "handlers/pod/step.h"

extern const struct wh_pod_step wh_workloadspread_pod_step;

#endif
