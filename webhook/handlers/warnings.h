#ifndef WH_HANDLERS_WARNINGS_H
#define WH_HANDLERS_WARNINGS_H

/* Admission warnings: what upstream allows silently but the person who applied the object
 * would want to know (kubectl prints each warning of an answer as "Warning: ..."). They are
 * this server's own, upstream sends none: they never change whether a request is allowed, each
 * fits the API server's limits (admission/review.h), and --admission-warnings=false turns
 * every one off. The handlers add theirs at the end of their decision:
 *   - every validating route: an object written at v1alpha1 where the cluster serves v1beta1
 *     (wh_warn_old_version, called by the dispatcher for every validating route);
 *   - SidecarSets: a namespaceSelector no existing namespace matches; a container name that
 *     another SidecarSet injects into Pods that both select;
 *   - PodUnavailableBudgets: a selector or targetRef that covers no Pod;
 *   - WorkloadSpreads: a targetRef naming a workload that does not exist;
 *   - an eviction or deletion a PodUnavailableBudget refuses: when it can succeed.
 * Thread rule: stateless; called on the request's thread. */

#include <stdbool.h>

#include "admission/review.h"
#include "handlers/handler.h"

/* Whether warnings are wanted (--admission-warnings, on by default; off without a config).
 * Work done only for a warning (a live list) is skipped when this is false. */
bool wh_warnings_on(const struct wh_handler_ctx *ctx);

/* Adds one warning to resp when they are wanted (printf-style; cut and counted as
 * wh_admission_warn does). */
void wh_warn(const struct wh_handler_ctx *ctx, struct wh_admission_response *resp,
             const char *fmt, ...) WH_PRINTF(3, 4);

/* The CREATE or UPDATE of an object written at v1alpha1 (request.requestKind, else
 * request.kind), of a kind the server caches and the cluster serves at v1beta1: one warning
 * saying so. */
void wh_warn_old_version(const struct wh_handler_ctx *ctx, const struct wh_admission_request *req,
                         struct wh_admission_response *resp);

#endif
