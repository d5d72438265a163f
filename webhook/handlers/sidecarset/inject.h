#ifndef WH_HANDLERS_SIDECARSET_INJECT_H
#define WH_HANDLERS_SIDECARSET_INJECT_H

/* The SidecarSet step of /mutate-pod (spec sidecarset.md 4): on Pod CREATE, the SidecarSets
 * chosen by sidecarset/match.h patch the Pod's annotations (patchPodMetadata: Retain,
 * Overwrite, MergePatchJson), then their init containers and containers are built (shared
 * volume mounts and devices, transferEnv, IS_INJECTED, resourcesPolicy, hot-upgrade pairs)
 * and merged into the Pod with their volumes and image pull secrets, and the bookkeeping
 * annotations are written (kruise.io/sidecarset-hash, -hash-without-image, -injected-list,
 * the hot-upgrade ones). On UPDATE SidecarSets are matched (so lookup errors still fail the
 * request) and nothing changes. The Pod is copied only when something is written.
 * Thread rule: thread-safe; reads the caches, writes only the request's Pod copy. */

#include <jansson.h>

#include "util/err.h"

struct wh_pod_mutation;

#define WH_SIDECARSET_INJECTED_LIST_ANNOTATION "kruise.io/sidecarset-injected-list"
#define WH_SIDECARSET_WORKING_HOTUPGRADE_ANNOTATION "kruise.io/sidecarset-working-hotupgrade-container"
#define WH_SIDECARSET_INJECTED_ENV "IS_INJECTED"

/* Runs the step on pm (a /mutate-pod request). Errors (answered 500 by the handler): those of
 * wh_sidecarset_match, a failing MergePatchJson, an unparsable kruise.io/sidecarset-hash
 * annotation, a failing resourcesPolicy, an UPDATE without a decodable oldObject. */
WH_NODISCARD enum wh_err wh_sidecarset_inject_step(struct wh_pod_mutation *pm,
                                                   struct wh_errbuf *eb);

#endif
