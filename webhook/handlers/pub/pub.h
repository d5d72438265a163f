#ifndef WH_HANDLERS_PUB_PUB_H
#define WH_HANDLERS_PUB_PUB_H

/* PodUnavailableBudget (spec pub.md): a budget of Pods that may be unavailable at once, kept in
 * the PUB's status and spent by this webhook.
 *  - /mutate-pod (step "pub"): a new Pod gets the related-PUB annotations of the PUB that
 *    protects it (section 4);
 *  - /validate-pod (step "pub"): DELETE, eviction and (gate PodUnavailableBudgetUpdateGate)
 *    UPDATE of a protected Pod spend one unit of status.unavailableAllowed and record the Pod,
 *    or are denied when nothing is left (section 5); the status is written through the
 *    write-back (kube/cluster.h), exactly once across replicas, retried on conflicts until the
 *    request's deadline; dry runs decide and never write;
 *  - /validate-policy-kruise-io-podunavailablebudget: the PUB objects themselves (section 7).
 * Gates: PodUnavailableBudgetDeleteGate (on), PodUnavailableBudgetUpdateGate (off).
 * Metrics: kruise_webhook_pub_decisions_total{operation,outcome},
 * kruise_webhook_pub_conflict_retries_total{outcome}, and upstream's pod_unavailable_budget.
 * Thread rule: the setup runs once on the main thread before the caches start; everything
 * else is thread-safe. */

#include "handlers/handler.h"
#include "handlers/pod/step.h"

extern const struct wh_pod_step wh_pub_pod_step;

/* The object webhook, its handler and its setup. */
extern const struct wh_route wh_pub_validate_route;

WH_NODISCARD enum wh_err wh_pub_validate_admit(const struct wh_handler_ctx *ctx,
                                               const struct wh_admission_request *req,
                                               struct wh_admission_response *resp,
                                               struct wh_errbuf *eb);

/* Its route setup: declares the PUB cache (conflicts are checked against it) when a PUB gate is
 * on; with both gates off every request is refused and nothing is cached. */
WH_NODISCARD enum wh_err wh_pub_validate_setup(struct wh_cluster *cl, const struct wh_config *cfg,
                                               struct wh_errbuf *eb);

#endif
