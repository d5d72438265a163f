#ifndef WH_HANDLERS_WORKLOADS_WORKLOADS_H
#define WH_HANDLERS_WORKLOADS_WORKLOADS_H

/* The workload webhooks of OpenKruise (upstream pkg/webhook/{cloneset,statefulset,daemonset,
 * uniteddeployment}), v1alpha1 and v1beta1:
 *  - defaulting: /mutate-apps-kruise-io-cloneset, -statefulset, -daemonset, -uniteddeployment
 *    (apis/apps/defaults, the Pod templates' included; patched as upstream's
 *    PatchResponseFromRaw, so the stored object is Go's encoding of the defaulted one);
 *  - validation: /validate-apps-kruise-io-cloneset, -statefulset, -daemonset,
 *    -uniteddeployment (and the Helm chart's -v1alpha1-cloneset, -v1alpha1-uniteddeployment):
 *    CREATE and UPDATE with upstream's field paths and messages; DELETE is deletion protection
 *    (handlers/deletion/protection.h) where upstream's handler has that branch.
 * Thread rule: thread-safe; nothing shared is written (the CloneSet v1alpha1 podsToDelete check
 * reads Pods live, within the request's deadline). */

#include "handlers/handler.h"

extern const struct wh_route wh_cloneset_mutate_route;
extern const struct wh_route wh_statefulset_mutate_route;
extern const struct wh_route wh_daemonset_mutate_route;
extern const struct wh_route wh_uniteddeployment_mutate_route;
extern const struct wh_route wh_cloneset_validate_route;
extern const struct wh_route wh_cloneset_validate_alias_route;
extern const struct wh_route wh_statefulset_validate_route;
extern const struct wh_route wh_daemonset_validate_route;
extern const struct wh_route wh_uniteddeployment_validate_route;
extern const struct wh_route wh_uniteddeployment_validate_alias_route;

#endif
