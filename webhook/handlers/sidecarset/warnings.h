#ifndef WH_HANDLERS_SIDECARSET_WARNINGS_H
#define WH_HANDLERS_SIDECARSET_WARNINGS_H

/* The warnings of the SidecarSet validating webhook (handlers/warnings.h), for a SidecarSet
 * upstream admits:
 *  - its namespaceSelector (v1alpha1: spec.namespace) matches no namespace that exists (the
 *    Namespace cache): it injects nothing until one does;
 *  - a container it injects has the name of one another SidecarSet injects, and some Pod both
 *    select exists: the next such Pod gets two containers of that name, which the API server
 *    refuses. Upstream's conflict rule looks at the selectors alone and lets such pairs through
 *    when it finds them disjoint (an Exists on a label the other does not name). Pods are not
 *    cached: the API server is asked, one page of at most 20 Pods selected by both, for at most
 *    two other SidecarSets, within the request's deadline.
 * Thread rule: thread-safe (caches are only read). */

#include <jansson.h>

#include "admission/review.h"
#include "handlers/handler.h"

/* ss: the admitted SidecarSet in its v1beta1 form (borrowed). */
void wh_sidecarset_warn(const struct wh_handler_ctx *ctx, const json_t *ss,
                        struct wh_admission_response *resp);

#endif
