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

#include "handlers/registry.h"

/* /validate-namespace */
WH_NODISCARD enum wh_err wh_dp_admit_namespace(const struct wh_handler_ctx *ctx,
                                               const struct wh_admission_request *req,
                                               struct wh_admission_response *resp,
                                               struct wh_errbuf *eb);
/* /validate-customresourcedefinition */
WH_NODISCARD enum wh_err wh_dp_admit_crd(const struct wh_handler_ctx *ctx,
                                         const struct wh_admission_request *req,
                                         struct wh_admission_response *resp, struct wh_errbuf *eb);
/* /validate-apps-deployment, -replicaset, -statefulset: one handler judging by request.kind. */
WH_NODISCARD enum wh_err wh_dp_admit_builtin_workload(const struct wh_handler_ctx *ctx,
                                                      const struct wh_admission_request *req,
                                                      struct wh_admission_response *resp,
                                                      struct wh_errbuf *eb);
/* /validate-apps-kruise-io-cloneset, -statefulset, -uniteddeployment: the DELETE branch of
 * upstream's handlers. Their CREATE/UPDATE validation is not implemented yet (no issue covers
 * it): CREATE and UPDATE are allowed, except for upstream's "unsupported version" 400 where
 * upstream answers it before validating. */
WH_NODISCARD enum wh_err wh_dp_admit_cloneset(const struct wh_handler_ctx *ctx,
                                              const struct wh_admission_request *req,
                                              struct wh_admission_response *resp,
                                              struct wh_errbuf *eb);
WH_NODISCARD enum wh_err wh_dp_admit_advanced_statefulset(const struct wh_handler_ctx *ctx,
                                                          const struct wh_admission_request *req,
                                                          struct wh_admission_response *resp,
                                                          struct wh_errbuf *eb);
WH_NODISCARD enum wh_err wh_dp_admit_uniteddeployment(const struct wh_handler_ctx *ctx,
                                                      const struct wh_admission_request *req,
                                                      struct wh_admission_response *resp,
                                                      struct wh_errbuf *eb);
/* /validate-service and /validate-ingress (only Always protects). */
WH_NODISCARD enum wh_err wh_dp_admit_service(const struct wh_handler_ctx *ctx,
                                             const struct wh_admission_request *req,
                                             struct wh_admission_response *resp,
                                             struct wh_errbuf *eb);
WH_NODISCARD enum wh_err wh_dp_admit_ingress(const struct wh_handler_ctx *ctx,
                                             const struct wh_admission_request *req,
                                             struct wh_admission_response *resp,
                                             struct wh_errbuf *eb);

/* Route gate of /validate-service and /validate-ingress: upstream registers them only when
 * ResourcesDeletionProtection is on. The other routes are always served. */
bool wh_dp_enabled_service_ingress(const struct wh_config *cfg);

/* Route setup shared by every deletion-protection route: registers the denial counters at zero
 * so that /metrics shows them before the first denial. Declares no cache (the checks read
 * live). Never fails. */
WH_NODISCARD enum wh_err wh_dp_setup(struct wh_cluster *cluster, const struct wh_config *cfg,
                                     struct wh_errbuf *eb);

#endif
