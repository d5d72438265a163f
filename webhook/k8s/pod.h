#ifndef WH_K8S_POD_H
#define WH_K8S_POD_H

/* Pod semantics of Kubernetes (k8s.io/kubernetes v1.32) on JSON Pods: readiness as
 * OpenKruise's util.IsRunningAndReady reads it, static pods (kubelet types.IsStaticPod) and the
 * QoS class (v1qos.ComputePodQOS).
 * Thread rule: thread-safe (no shared state); inputs are only read. */

#include <jansson.h>
#include <stdbool.h>

enum wh_pod_qos { WH_POD_QOS_BEST_EFFORT, WH_POD_QOS_BURSTABLE, WH_POD_QOS_GUARANTEED };

/* status.phase Running, a Ready condition with status True, no metadata.deletionTimestamp. */
bool wh_pod_running_and_ready(const json_t *pod);

/* Annotation kubernetes.io/config.source present with a value other than "api". */
bool wh_pod_is_static(const json_t *pod);

/* ComputePodQOS over containers and init containers: only cpu and memory count and only
 * positive values; Guaranteed when every container limits both, and the summed requests equal
 * the summed limits for every resource; BestEffort when nothing is requested or limited;
 * Burstable otherwise. Quantities that do not parse are ignored (the API server never sends
 * them). */
enum wh_pod_qos wh_pod_qos(const json_t *pod);

#endif
