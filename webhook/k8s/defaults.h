#ifndef WH_K8S_DEFAULTS_H
#define WH_K8S_DEFAULTS_H

/* Kubernetes' defaulting of Pod specs and their parts as OpenKruise applies it
 * (apis/apps/defaults: SetDefaultPodSpec, SetDefaultPodVolumes, and the core/v1 SetDefaults_*
 * functions they call), on JSON in place. Existing non-empty values are never changed. The
 * one home of these defaults: SidecarSet defaulting, WorkloadSpread's patch check and the
 * workloads' template defaulting use them.
 * Thread rule: thread-safe (no shared state); the values passed are modified and must not be
 * shared. */

#include <jansson.h>
#include <stdbool.h>

/* The three shapes of a default, on a Go struct held as the JSON object o: a string field Go
 * reads as "" (absent, null or empty) becomes value; a pointer field Go reads as nil (absent or
 * null) becomes the integer value, or value (stolen; any JSON) for _new. */
void wh_k8s_default_string(json_t *o, const char *key, const char *value);
void wh_k8s_default_int_ptr(json_t *o, const char *key, json_int_t value);
void wh_k8s_default_ptr_new(json_t *o, const char *key, json_t *value);

/* SetDefaults_ObjectFieldSelector: fieldRef.apiVersion "v1". Anything but an object: nothing. */
void wh_k8s_default_field_ref(json_t *field_ref);

/* What a container's defaulting covers; OR-able. */
enum {
    /* the startup probe too (SetDefaultPodSpec does; SidecarSet defaulting does not) */
    WH_K8S_DEFAULT_STARTUP_PROBE = 1u,
    /* an empty imagePullPolicy is Always whatever the image (SetDefaultPodSpec does this to
     * containers, not init containers, "for in-place update") */
    WH_K8S_DEFAULT_PULL_ALWAYS = 2u,
    /* resources keep the text they were written with (for a copy that is only validated: Go's
     * rounding to milli precision happens in memory, and k8s/podvalidation.h applies it) */
    WH_K8S_DEFAULT_KEEP_QUANTITIES = 4u,
};

/* SetDefaults_Container (imagePullPolicy by the image's tag, terminationMessagePath and
 * Policy) and the container defaults kruise adds around it: port protocol TCP, env fieldRef
 * apiVersion, resources rounded up to milli precision, probes (timeout 1, period 10, success
 * 1, failure 3; httpGet path "/" and scheme HTTP), lifecycle handlers' httpGet. */
void wh_k8s_default_container(json_t *container, unsigned flags);

/* SetDefaultPodVolumes: a volume without a source becomes emptyDir, defaultMode 420,
 * hostPath.type "", fieldRef apiVersion v1, projected token expirationSeconds 3600. Anything
 * but an array is left alone. */
void wh_k8s_default_volumes(json_t *volumes);

/* SetDefaultPodSpec: SetDefaults_PodSpec (dnsPolicy ClusterFirst, restartPolicy Always,
 * securityContext {}, terminationGracePeriodSeconds 30, schedulerName default-scheduler), the
 * host ports of a hostNetwork Pod when host_network_ports (gate
 * DefaultHostNetworkHostPortsInPodTemplates), volumes, init containers and containers (the
 * latter with WH_K8S_DEFAULT_PULL_ALWAYS and the startup probe), ephemeral containers (their
 * ports, env, resources, probes and handlers; not SetDefaults_Container) and the overhead
 * rounded to milli precision. Anything but an object is left alone. */
void wh_k8s_default_pod_spec(json_t *spec, bool host_network_ports);

/* What kruise's workload defaulting gives each entry of a volumeClaimTemplates list:
 * SetDefaults_PersistentVolumeClaim (status.phase Pending) and the resource lists
 * spec.resources.limits, spec.resources.requests and status.capacity rounded up to milli
 * precision (SetDefaults_ResourceList). SetDefaults_PersistentVolumeClaimSpec is not applied
 * (kruise does not call it: a template's volumeMode stays unset). Anything but an object is left
 * alone. */
void wh_k8s_default_pvc_template(json_t *pvc);

/* The same for a copy that is only validated, as upstream's validating webhooks default before
 * validating (convertor.ConvertPodTemplateSpec, ConvertPod): every default but the rounding of
 * resources and overhead, whose text is kept (WH_K8S_DEFAULT_KEEP_QUANTITIES). The validation
 * rounds as Go rounds in memory, and prints a quantity with %#v from the text the user wrote,
 * which Go shows; the rounded text would show another. */
void wh_k8s_default_pod_spec_for_validation(json_t *spec, bool host_network_ports);

#endif
