#ifndef WH_HANDLERS_SIDECARSET_RESOURCES_H
#define WH_HANDLERS_SIDECARSET_RESOURCES_H

/* A sidecar's resourcesPolicy, applied at Pod creation as upstream OpenKruise does
 * (pkg/webhook/pod/mutating/sidecarset_resources.go, pkg/util/calculator; spec sidecarset.md
 * 4.12): target containers by name regex (native sidecars among the init containers, then the
 * containers, minus every sidecar name of the selected SidecarSets), their limits and requests
 * aggregated by sum or max, then each expression evaluated with one bound variable.
 * Thread rule: thread-safe (no shared state); inputs are only read. */

#include <jansson.h>
#include <stddef.h>

#include "util/err.h"

/* The targetContainersNameRegex patterns of one SidecarSet spec (its containers' and init
 * containers' resourcesPolicy), each compiled once: the SidecarSet cache's view and the
 * ControllerRevision cache's view keep them (match.h), so that a Pod compiles nothing. A
 * pattern Go refuses is kept with its error, which a Pod it applies to is answered with, as
 * upstream answers it. Immutable once built: any thread may read it. */
struct wh_sidecarset_regexes;
/* Returns: new, or NULL when spec (borrowed) has no resourcesPolicy. */
struct wh_sidecarset_regexes *wh_sidecarset_regexes_new(const json_t *spec);
void wh_sidecarset_regexes_free(struct wh_sidecarset_regexes *rs); /* accepts NULL */
/* Bytes held (patterns and programs). */
size_t wh_sidecarset_regexes_memory(const struct wh_sidecarset_regexes *rs);

/* Computes the resources of a sidecar whose resourcesPolicy is policy (borrowed) for pod
 * (borrowed, the Pod as it is before injection). compiled: the patterns of the SidecarSet the
 * sidecar belongs to (borrowed; NULL, or without this pattern: it is compiled for this call).
 * exclude: the names (borrowed) of every container and init container of the selected
 * SidecarSets.
 * Returns in *out: new ref, {"limits": {...}, "requests": {...}} with only the computed entries
 * (an empty object when none). Errors: WH_ERR_INVALID with upstream's message ("failed to get
 * target containers: invalid regex pattern ...", "no containers match the regex pattern \"x\"",
 * "failed to evaluate CPU limits expression: ..."). */
WH_NODISCARD enum wh_err wh_sidecarset_resources(const json_t *policy,
                                                 const struct wh_sidecarset_regexes *compiled,
                                                 const json_t *pod, const char *const *exclude,
                                                 size_t nexclude, json_t **out,
                                                 struct wh_errbuf *eb);

/* The validating webhook's check of one expression: parsed with its field's variable (var_name
 * "cpu" or "memory") bound to the number 1, as upstream's validation does. On failure eb holds
 * the calculator's own message (the caller adds "invalid expression: "). */
WH_NODISCARD enum wh_err wh_sidecarset_resource_expr_check(const char *expr, const char *var_name,
                                                           struct wh_errbuf *eb);

/* Evaluates one expression as evaluateResourceExpression does: the variable (named memory when
 * the text contains the word memory, else cpu) holds aggregate (a quantity text, or NULL for the
 * zero quantity); a plain number result becomes milli-cores for cpu and units for memory.
 * Writes the canonical quantity into out. Errors: WH_ERR_INVALID ("failed to parse expression
 * \"x\": ..."). */
WH_NODISCARD enum wh_err wh_sidecarset_resource_expr(const char *expr, const char *aggregate,
                                                     char *out, size_t outsz,
                                                     struct wh_errbuf *eb);

#endif
