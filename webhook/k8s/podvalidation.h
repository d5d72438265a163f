#ifndef WH_K8S_PODVALIDATION_H
#define WH_K8S_PODVALIDATION_H

/* Kubernetes' validation of Pod templates and Pod specs (k8s.io/kubernetes v1.32.10,
 * pkg/apis/core/validation: ValidatePodTemplateSpec, ValidatePodSpec and everything they call),
 * with upstream's field paths and messages, as OpenKruise's webhooks run it: on the core form
 * of a v1 object, with webhookutil.DefaultPodValidationOptions (AllowInvalidPodDeletionCost,
 * AllowIndivisibleHugePagesValues, AllowInvalidLabelValueInSelector and
 * AllowInvalidTopologySpreadConstraintLabelSelector set, every other option unset, ResourceIsPod
 * false). The one home of these rules: workloads, SidecarSet and WorkloadSpread call it.
 *
 * Input. Every value is v1 JSON as Go decodes it: best the request's own JSON once it
 * type-checks (wh_gotype_check), which keeps the text a quantity was written with; the output of
 * wh_gotype_decode works too, but holds quantities canonical. Absent and null are Go's nil, []
 * and {} are set but empty (Go tells them apart in places: validateFieldAllowList, a Windows
 * Pod's supplementalGroups). Where upstream defaults before validating
 * (convertor.ConvertPodTemplateSpec and ConvertPod run kruise's SetDefaultPodSpec), the caller
 * defaults its copy first with wh_k8s_default_pod_spec_for_validation (k8s/defaults.h), a
 * template without spec given "spec": {} first (Go defaults the zero PodSpec). Members of the
 * wrong JSON type are read as their zero value (the decoder has refused them already).
 * What Convert_v1_PodTemplateSpec_To_core_PodTemplateSpec changes is applied here, not asked of
 * the caller: hostNetwork, hostPID, hostIPC, shareProcessNamespace and hostUsers move into the
 * Pod's security context, which always exists in core; serviceAccount stands in for an empty
 * serviceAccountName; the init-container annotations (pod.{alpha,beta}.kubernetes.io/
 * init-containers and init-container-statuses) are dropped before anything reads annotations.
 *
 * Output. Errors are appended to l in Go's order, except where Go ranges over a map (labels,
 * annotations, resource lists, nodeSelector, flexVolume options, the hosts' sysctl sets): map
 * keys are visited in byte order here, Go's order is random. A value Go prints with %#v is
 * printed as Go prints it, a non-nil pointer inside as (*T)(0xc000010000): Go prints the
 * address, which differs per run. A resource.Quantity printed with %#v (an integer resource's
 * fraction: "must be an integer") shows what ParseQuantity made of its text and RoundUp to
 * milli precision, as Go holds it; text that wh_k8s_default_pod_spec rounded already shows its
 * cached form, which Go's in-memory rounding would not have.
 *
 * Process settings, as kruise-manager's defaults: --allow-privileged=true (so neither
 * "disallowed by cluster policy" rule fires), Kubernetes feature gates at their v1.32 defaults
 * (VolumeAttributesClass off: an ephemeral volume claim's volumeAttributesClassName is not
 * checked).
 *
 * Not here because the options or the conversion make them unreachable: pod-level resources
 * (PodLevelResourcesEnabled unset), the relaxed environment variable and DNS search rules, the
 * zero sleep action, the pod-deletion-cost annotation, hugepage divisibility, the ResourceIsPod
 * rules (an image volume's reference, hostPort == containerPort), init containers' resize
 * policy when sidecars may resize (AllowSidecarResizePolicy unset: always refused),
 * the SELinuxChangePolicy restriction (AllowOnlyRecursiveSELinuxChangePolicy unset). A volume
 * without a source ("must specify a volume type") cannot follow defaulting, which gives it an
 * emptyDir; it is checked all the same for callers that do not default.
 *
 * Thread rule: thread-safe (no shared state); inputs are only read. */

#include <jansson.h>

#include "k8s/fielderr.h"

/* ValidatePodTemplateSpec(template, path): the template's labels (path.labels), annotations
 * (path.annotations, with ValidatePodSpecificAnnotations), ValidatePodSpec of its spec
 * (path.spec, without Pod metadata), the seccomp and AppArmor annotations against the fields,
 * and ephemeral containers forbidden in a template. template_v1 is a v1 PodTemplateSpec
 * (borrowed; NULL or not an object: the empty template). path: "spec.template". */
void wh_validate_pod_template_spec(struct wh_field_errors *l, const json_t *template_v1,
                                   const char *path);

/* The same for a template upstream validates without defaulting it (AdvancedCronJob's Job and
 * BroadcastJob templates: converted to core, no SetDefaultPodSpec): its resource quantities as
 * written, not rounded up to milli precision as SetDefaults_ResourceList leaves them. */
void wh_validate_pod_template_spec_as_written(struct wh_field_errors *l, const json_t *template_v1,
                                              const char *path);

/* The metadata part of the above, which apps validation's ValidatePodTemplateSpecForStatefulSet
 * checks without the spec: labels, annotations and ValidatePodSpecificAnnotations. */
void wh_validate_pod_template_meta(struct wh_field_errors *l, const json_t *template_v1,
                                   const char *path);

/* ValidatePodSpec(spec, podMeta, path): spec_v1 a v1 PodSpec, pod_meta the Pod's v1 ObjectMeta
 * or NULL (Go's nil, as for a template: the ephemeral volumes' claim names and the mirror Pod's
 * resource claims are then not checked). With pod_meta the spec is taken to be a Pod's,
 * converted by Convert_v1_Pod_To_core_Pod, which reads a negative terminationGracePeriodSeconds
 * as 1. Both borrowed. path: "spec", or the spec's path. */
void wh_validate_pod_spec_at(struct wh_field_errors *l, const json_t *spec_v1,
                             const json_t *pod_meta, const char *path);

/* validateContainersOnlyForPod for the containers and init containers of spec_v1, under path
 * ("spec"): an image with surrounding whitespace. ValidatePodCreate adds it; templates do not. */
void wh_validate_containers_only_for_pod(struct wh_field_errors *l, const json_t *spec_v1,
                                         const char *path);

/* ValidatePodSpecificAnnotations(annotations, spec, path): the mirror-Pod annotation needs a
 * nodeName, the tolerations annotation (decoded as encoding/json decodes []core.Toleration)
 * holds valid tolerations, the seccomp and AppArmor annotations hold valid profiles naming
 * existing containers. annotations: a JSON object of strings or NULL, already without the
 * init-container annotations when it comes from a v1 object (wh_validate_pod_template_meta
 * does that itself). */
void wh_validate_pod_specific_annotations(struct wh_field_errors *l, const json_t *annotations,
                                          const json_t *spec_v1, const char *path);

/* ValidatePersistentVolumeClaimSpec(spec, path, opts) with the options of a claim template
 * without an old one (AllowInvalidLabelValueInSelector unset, VolumeAttributesClass off):
 * access modes, selector, resources.requests.storage, storageClassName, volumeMode, dataSource
 * and dataSourceRef. spec: a v1 PersistentVolumeClaimSpec (borrowed). */
void wh_validate_pvc_spec(struct wh_field_errors *l, const json_t *spec, const char *path);

/* ValidatePersistentVolumeClaimTemplate(claim, path): ValidateTemplateObjectMeta (labels,
 * annotations, every other metadata field "cannot be set") and the spec above. claim: a v1
 * PersistentVolumeClaimTemplate ({metadata, spec}, borrowed). */
void wh_validate_pvc_template(struct wh_field_errors *l, const json_t *claim, const char *path);

/* The validation SidecarSet validation runs on its containers: ValidatePodCreate of upstream's
 * fake Pod (name "test", namespace "default"), i.e. ValidatePodSpec at "spec" with that
 * metadata and validateContainersOnlyForPod. spec: the fake Pod's spec in v1 form (volumes,
 * containers, initContainers, restartPolicy, dnsPolicy, terminationGracePeriodSeconds,
 * serviceAccountName), borrowed. */
void wh_validate_pod_spec(struct wh_field_errors *l, const json_t *spec);

#endif
