#ifndef WH_HANDLERS_SIDECARSET_DEFAULTS_H
#define WH_HANDLERS_SIDECARSET_DEFAULTS_H

/* SidecarSet defaulting as upstream's SetDefaultsSidecarSet / SetDefaultsSidecarSetV1beta1
 * (apis/apps/defaults; spec sidecarset.md 6.1), identical for v1alpha1 and v1beta1: update
 * strategy, revisionHistoryLimit, patchPodMetadata policy, injection revision policy, volumes,
 * and per sidecar the SidecarSet fields plus the core/v1 container defaults upstream applies.
 * Existing non-empty values are never changed.
 * Thread rule: thread-safe (no shared state); the object passed is modified in place and must
 * not be shared. */

#include <jansson.h>

/* Defaults a whole SidecarSet object (apiVersion/kind/metadata/spec/status), in place. */
void wh_sidecarset_defaults(json_t *sidecarset);

#endif
