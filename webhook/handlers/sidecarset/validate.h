#ifndef WH_HANDLERS_SIDECARSET_VALIDATE_H
#define WH_HANDLERS_SIDECARSET_VALIDATE_H

/* /validate-apps-kruise-io-sidecarset (vsidecarset.kb.io): the SidecarSet validating webhook
 * (spec sidecarset.md 8). The object (and on UPDATE the old object) is decoded in the version
 * of the request; a v1alpha1 object is converted to v1beta1 first (spec 2.2). Then, in
 * upstream's order: ObjectMeta, canary annotations, the spec rules of 8.6, the patchPodMetadata
 * whitelist and entries, the UPDATE container rules; only when all of that passed, the conflicts
 * with the other SidecarSets of the cluster (8.7). Failures are answered allowed=false with code
 * 500 and the aggregated field errors (8.1), as upstream's error path does; success is allowed
 * with status message "allowed to be admitted".
 *
 * Cluster state read (declared by wh_sidecarset_caches_setup, shared with /mutate-pod): the
 * SidecarSets (conflicts, canary base), ControllerRevisions in the kruise namespace (injection
 * revision) and the ConfigMap kruise-configuration there (patchPodMetadata whitelist).
 * Thread rule: thread-safe (caches are only read). */

#include "handlers/handler.h"

extern const struct wh_route wh_sidecarset_validate_route;

#endif
