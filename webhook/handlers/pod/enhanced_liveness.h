#ifndef WH_HANDLERS_POD_ENHANCED_LIVENESS_H
#define WH_HANDLERS_POD_ENHANCED_LIVENESS_H

/* The enhanced liveness probe step of /mutate-pod (upstream's enhancedlivenessprobe_handler.go,
 * gate EnhancedLivenessProbe, off by default): a new Pod that an OpenKruise workload owns and
 * that asks for it (annotation apps.kruise.io/using-enhanced-liveness: "true") has its
 * containers' livenessProbes taken out and kept, as Go encodes them, in annotation
 * apps.kruise.io/container-probe-context; kruise-daemon runs them instead of the kubelet, so a
 * failing probe leads to a controlled restart rather than the kubelet's. */

#include "handlers/pod/step.h"

extern const struct wh_pod_step wh_pod_enhanced_liveness_step;

#endif
