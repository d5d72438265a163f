#ifndef WH_HANDLERS_REGISTRY_H
#define WH_HANDLERS_REGISTRY_H

/* The webhook paths this server answers: the one list of every route (handlers/handler.h), in
 * registry.c. The paths are upstream OpenKruise's, so existing webhook configurations keep
 * working. A handler that is not implemented is not in the list (the path answers 404).
 * Thread rule: the list is immutable. */

#include <stdbool.h>
#include <stddef.h>

#include "handlers/handler.h"

/* Returns: the static list of every route the server knows, in a stable order. */
const struct wh_route *const *wh_routes_all(size_t *count);

/* Returns: the route for path among those enabled by cfg, or NULL. */
const struct wh_route *wh_routes_find(const struct wh_config *cfg, const char *path);

/* True when cfg serves route (its gate, if it has one, is on). */
bool wh_route_served(const struct wh_route *route, const struct wh_config *cfg);

/* True when some route answers path with some configuration (feature gates aside). */
bool wh_routes_known(const char *path);

/* True when route implements spec area (a folder of test/vectors: "sidecarset", ...). */
bool wh_route_covers(const struct wh_route *route, const char *area);

/* True when some route answers path with some configuration and covers area: the vectors of
 * that area on that path are implemented. */
bool wh_routes_implement(const char *path, const char *area);

/* Runs the setup of every route enabled by cfg. */
WH_NODISCARD enum wh_err wh_routes_setup(const struct wh_config *cfg, struct wh_cluster *cluster,
                                         struct wh_errbuf *eb);

#endif
