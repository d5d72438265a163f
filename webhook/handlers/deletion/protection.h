#ifndef WH_HANDLERS_DELETION_PROTECTION_H
#define WH_HANDLERS_DELETION_PROTECTION_H

/* Deletion protection (../shared/spec/deletion-protection.md): the label
 * policy.kruise.io/delete-protection=Always|Cascading on a Namespace, CRD, Deployment,
 * ReplicaSet, StatefulSet, CloneSet, Advanced StatefulSet, UnitedDeployment, Service or Ingress
 * makes its deletion be denied (403), unconditionally (Always) or while it still owns something
 * (Cascading: pods and Bound PVCs of a Namespace, live custom resources of a CRD, replicas of a
 * workload). Cascading checks of Namespaces and CRDs list live from the API server, page by
 * page, only when such an object is being deleted; a failed list denies.
 * Thread rule: every function is thread-safe (the handlers keep no state; metrics are atomic). */

#include <stdbool.h>

#include "handlers/handler.h"

/* The routes, one per path:
 *   /validate-namespace, /validate-customresourcedefinition;
 *   /validate-apps-deployment, -replicaset, -statefulset: one handler judging by request.kind;
 *   /validate-service and /validate-ingress (only Always protects);
 * and the DELETE branch of the CloneSet, Advanced StatefulSet and UnitedDeployment validating
 * handlers (handlers/workloads/), wh_dp_kruise_workload_delete. */
extern const struct wh_route wh_dp_namespace_route;
extern const struct wh_route wh_dp_crd_route;
extern const struct wh_route wh_dp_deployment_route;
extern const struct wh_route wh_dp_replicaset_route;
extern const struct wh_route wh_dp_statefulset_route;
extern const struct wh_route wh_dp_service_route;
extern const struct wh_route wh_dp_ingress_route;

enum wh_dp_workload { WH_DP_CLONESET, WH_DP_ADVANCED_STATEFULSET, WH_DP_UNITEDDEPLOYMENT };

/* The DELETE branch of upstream's CloneSet, Advanced StatefulSet and UnitedDeployment
 * validating handlers, for a request whose resource version is v1alpha1 or v1beta1: no old
 * object is allowed; an old object upstream's decoder refuses is 400; otherwise the workload
 * rule (gate ResourcesDeletionProtection; Always, or Cascading with replicas) decides. */
void wh_dp_kruise_workload_delete(const struct wh_handler_ctx *ctx,
                                  const struct wh_admission_request *req,
                                  enum wh_dp_workload workload, struct wh_admission_response *resp);

/* Route gate of /validate-service and /validate-ingress: upstream registers them only when
 * ResourcesDeletionProtection is on. The other routes are always served. */
bool wh_dp_enabled_service_ingress(const struct wh_config *cfg);

/* Route setup shared by every deletion-protection route: registers the denial counters at zero
 * so that /metrics shows them before the first denial. Declares no cache (the checks read
 * live). Never fails. */
WH_NODISCARD enum wh_err wh_dp_setup(struct wh_cluster *cluster, const struct wh_config *cfg,
                                     struct wh_errbuf *eb);

#endif
