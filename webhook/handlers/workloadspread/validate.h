#ifndef WH_HANDLERS_WORKLOADSPREAD_VALIDATE_H
#define WH_HANDLERS_WORKLOADSPREAD_VALIDATE_H

/* /validate-apps-kruise-io-workloadspread (spec workloadspread.md 9): WorkloadSpread CREATE and
 * UPDATE, v1alpha1 requests converted to v1beta1 first, every rule with upstream's message at
 * its v1beta1 path -- targetRef (kinds, groups, the custom white list), subsets (names, node
 * selector terms, preferred terms, tolerations, the patch against the target's pod template,
 * maxReplicas types, values and percent sums), scheduleStrategy, targetFilter, conflicts with the
 * other WorkloadSpreads of the namespace, and on UPDATE the object metadata rules and the
 * immutable targetRef. Errors are aggregated as Kubernetes does and answered 400; gate
 * WorkloadSpread off answers 403. Reads the WorkloadSpread, workload and ConfigMap caches.
 * Thread rule: thread-safe. */

#include "handlers/handler.h"

extern const struct wh_route wh_ws_validate_route;

/* Its handler. */
WH_NODISCARD enum wh_err wh_ws_validate_admit(const struct wh_handler_ctx *ctx,
                                              const struct wh_admission_request *req,
                                              struct wh_admission_response *resp,
                                              struct wh_errbuf *eb);

#endif
