#ifndef WH_HANDLERS_PODPROBEMARKER_PODPROBEMARKER_H
#define WH_HANDLERS_PODPROBEMARKER_PODPROBEMARKER_H

/* PodProbeMarker: probes kruise-daemon runs in a Pod's containers, whose results it writes as
 * Pod conditions (podConditionType) and marks (markerPolicy labels and annotations).
 *  - /mutate-pod (step "podprobemarker", gate EnablePodProbeMarkerOnServerless, off by
 *    default; upstream's pkg/webhook/pod/mutating/pod_probe_marker.go): on serverless nodes no
 *    kruise-daemon lists the probes, so a new Pod carries them itself: the probes with a
 *    podConditionType, of the PodProbeMarkers of its namespace whose selector matches it (or of
 *    those its kruise.io/podprobemarker-list annotation names), for its containers and
 *    restartable init containers, one per condition and per container/probe name, go into
 *    annotation kruise.io/podprobe (without their markerPolicy) and the PodProbeMarkers' names
 *    into kruise.io/podprobemarker-list;
 *  - /validate-apps-kruise-io-podprobemarker (pkg/webhook/podprobemarker, v1alpha1 only): the
 *    objects: a selector, unique probes of named containers, handlers, marker policies; 403
 *    while gate PodProbeMarkerGate or KruiseDaemon is off.
 * Thread rule: the setup runs once on the main thread before the caches start; everything
 * else is thread-safe. */

#include "handlers/handler.h"
#include "handlers/pod/step.h"

extern const struct wh_pod_step wh_ppm_pod_step;
extern const struct wh_route wh_ppm_validate_route;

#endif
