#ifndef WH_TEST_SUPPORT_BENCH_PODSTEPS_H
#define WH_TEST_SUPPORT_BENCH_PODSTEPS_H

/* Benchmarks of /mutate-pod's last three steps through wh_dispatch, on the shared pod-create
 * review's Pod made the Pod web-0 of Advanced StatefulSet web, asking for the enhanced
 * liveness probe, with a livenessProbe:
 *  - with the default gates, against a PersistentPodState that recorded web-0 (the step that
 *    has no gate does its work; the other two look at their gates only);
 *  - with EnhancedLivenessProbe and EnablePodProbeMarkerOnServerless on and a PodProbeMarker
 *    that selects the Pod, so that all three write their part of the patch.
 * Prints ns/op per case; aborts unless each answer carries what its steps write.
 * Thread rule: single thread only. */

void wh_bench_podsteps(void);

#endif
