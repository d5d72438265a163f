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

#include "handlers/pod/step.h"

/* The step (handlers/pod/step.h). Errors (answered 500): those of wh_sidecarset_match, a
 * failing MergePatchJson, an unparsable kruise.io/sidecarset-hash annotation, a failing
 * resourcesPolicy, an UPDATE without a decodable oldObject. */
extern const struct wh_pod_step wh_sidecarset_pod_step;

#endif
