#ifndef WH_HANDLERS_SIDECARSET_MUTATE_H
#define WH_HANDLERS_SIDECARSET_MUTATE_H

/* /mutate-apps-kruise-io-sidecarset (msidecarset.kb.io): the SidecarSet defaulting webhook
 * (spec sidecarset.md 6). The object is decoded in the version of the request
 * (resource.version v1beta1 or v1alpha1; anything else is 400 "unsupported version: <v>"); on
 * CREATE and UPDATE the defaults of 6.1 are applied and both hash annotations recomputed. When
 * the decoded object is unchanged by that, the answer is allowed without a patch; otherwise the
 * patch turns the raw request object into Go's serialisation of the defaulted one, with the
 * side effects upstream has (creationTimestamp: null, injectionStrategy: {}, zero status
 * counters, unknown fields dropped; spec 11.11).
 * Thread rule: thread-safe (reads nothing shared). */

#include "handlers/handler.h"

extern const struct wh_route wh_sidecarset_mutate_route;

#endif
