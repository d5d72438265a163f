#ifndef WH_K8S_KRUISE_H
#define WH_K8S_KRUISE_H

/* OpenKruise's API names, in one place: its API groups and versions, and the annotations,
 * labels, environment variables and ConfigMap keys that its controllers, kruise-daemon and its
 * webhook read and write (upstream openkruise/kruise 07169cfa; the Go constant each comes from
 * is named beside it). Everything that needs one of these names includes this header. The
 * Kubernetes resources (group, versions, plural, kind) the server reads are kube/resource.c's
 * catalogue; the CRDs' own columns and short names are tools/manifests.c's.
 * Header only: macros, so that they concatenate with other literals. */

/* --- API groups and versions ------------------------------------------------------------------ */

#define WH_KRUISE_APPS "apps.kruise.io"
#define WH_KRUISE_POLICY "policy.kruise.io"
#define WH_KRUISE_APPS_V1ALPHA1 WH_KRUISE_APPS "/v1alpha1"
#define WH_KRUISE_APPS_V1BETA1 WH_KRUISE_APPS "/v1beta1"
#define WH_KRUISE_POLICY_V1ALPHA1 WH_KRUISE_POLICY "/v1alpha1"
#define WH_KRUISE_POLICY_V1BETA1 WH_KRUISE_POLICY "/v1beta1"

/* --- the ConfigMap of settings in kruise's namespace (pkg/util/configuration) ---------------- */

#define WH_KRUISE_CONFIGMAP "kruise-configuration" /* KruiseConfigurationName */
/* SidecarSetPatchPodMetadataWhiteListKey */
#define WH_KRUISE_CONFIG_SIDECARSET_WHITELIST "SidecarSet_PatchPodMetadata_WhiteList"
/* WSWatchCustomWorkloadWhiteList */
#define WH_KRUISE_CONFIG_WS_WHITELIST "WorkloadSpread_Watch_Custom_Workload_WhiteList"
/* PPSWatchCustomWorkloadWhiteList */
#define WH_KRUISE_CONFIG_PPS_WHITELIST "PPS_Watch_Custom_Workload_WhiteList"
/* the Go-type model's package of these settings (configuration.SidecarSetPatchMetadataWhiteList,
 * .WSCustomWorkloadWhiteList, .CustomWorkloadWhiteList), for wh_gotype_unmarshal */
#define WH_KRUISE_CONFIG_TYPES "kruise.io/configuration"

/* --- Pods ------------------------------------------------------------------------------------- */

/* the readiness gate and condition of Kruise's in-place updates (KruisePodReadyConditionType) */
#define WH_KRUISE_POD_READY "KruisePodReady"
/* the condition of an in-place update's readiness (apis/apps/pub: InPlaceUpdateReady) */
#define WH_KRUISE_POD_INPLACE_UPDATE_READY "InPlaceUpdateReady"
/* in-place update (apis/apps/pub: InPlaceUpdateStateKey, InPlaceUpdateGraceKey) */
#define WH_KRUISE_ANN_INPLACE_UPDATE_STATE "apps.kruise.io/inplace-update-state"
#define WH_KRUISE_ANN_INPLACE_UPDATE_GRACE "apps.kruise.io/inplace-update-grace"
#define WH_KRUISE_ANN_INPLACE_UPDATE_STATE_OLD "inplace-update-state" /* InPlaceUpdateStateKeyOld */
#define WH_KRUISE_ANN_INPLACE_UPDATE_GRACE_OLD "inplace-update-grace" /* InPlaceUpdateGraceKeyOld */
/* kruise-daemon's record of the containers it runs (apis/apps/pub: RuntimeContainerMetaKey) */
#define WH_KRUISE_ANN_RUNTIME_CONTAINERS_META "apps.kruise.io/runtime-containers-meta"
/* container launch priority (appspub.ContainerLaunchPriorityKey, ...EnvName, ...BarrierEnvName) */
#define WH_KRUISE_ANN_CONTAINER_LAUNCH_PRIORITY "apps.kruise.io/container-launch-priority"
#define WH_KRUISE_ENV_CONTAINER_PRIORITY "KRUISE_CONTAINER_PRIORITY"
#define WH_KRUISE_ENV_CONTAINER_BARRIER "KRUISE_CONTAINER_BARRIER"

/* --- SidecarSet (pkg/control/sidecarcontrol, apis/apps/v1alpha1) ----------------------------- */

#define WH_KRUISE_ANN_SIDECARSET_INJECTED_LIST "kruise.io/sidecarset-injected-list"
#define WH_KRUISE_ANN_SIDECARSET_HASH "kruise.io/sidecarset-hash"
#define WH_KRUISE_ANN_SIDECARSET_HASH_WITHOUT_IMAGE "kruise.io/sidecarset-hash-without-image"
#define WH_KRUISE_ANN_SIDECARSET_INPLACE_UPDATE_STATE "kruise.io/sidecarset-inplace-update-state"
#define WH_KRUISE_ANN_SIDECARSET_WORKING_HOTUPGRADE                                                \
    "kruise.io/sidecarset-working-hotupgrade-container"
/* hot upgrade: the prefixes of the per-container version annotations, and their envs */
#define WH_KRUISE_ANN_SIDECARSET_VERSION_PREFIX "version.sidecarset.kruise.io/"
#define WH_KRUISE_ANN_SIDECARSET_VERSION_ALT_PREFIX "versionalt.sidecarset.kruise.io/"
#define WH_KRUISE_ENV_SIDECARSET_VERSION "SIDECARSET_VERSION"
#define WH_KRUISE_ENV_SIDECARSET_VERSION_ALT "SIDECARSET_VERSION_ALT"
/* the env every injected sidecar carries (SidecarEnvKey) */
#define WH_KRUISE_ENV_SIDECAR_INJECTED "IS_INJECTED"
/* canary SidecarSets (SidecarSetCanaryAnnotation, SidecarSetBaseAnnotation) */
#define WH_KRUISE_ANN_SIDECARSET_CANARY "apps.kruise.io/sidecarset-canary"
#define WH_KRUISE_ANN_SIDECARSET_BASE "apps.kruise.io/sidecarset-base"
/* on the SidecarSet's ControllerRevisions (SidecarSetKindName, SidecarSetCustomVersionLabel) */
#define WH_KRUISE_LABEL_SIDECARSET_NAME "kruise.io/sidecarset-name"
#define WH_KRUISE_LABEL_SIDECARSET_CUSTOM_VERSION "apps.kruise.io/sidecarset-custom-version"

/* --- WorkloadSpread (pkg/util/workloadspread: MatchedWorkloadSpreadSubsetAnnotations) -------- */

#define WH_KRUISE_ANN_MATCHED_WORKLOADSPREAD "apps.kruise.io/matched-workloadspread"

/* --- PersistentPodState (pkg/webhook/pod/mutating: InjectedPersistentPodStateKey) ------------ */

#define WH_KRUISE_ANN_INJECTED_PERSISTENT_POD_STATE "kruise.io/injected-persistent-pod-state"

/* --- the enhanced liveness probe (apis/apps/v1alpha1: AnnotationUsingEnhancedLiveness,
 * AnnotationNativeContainerProbeContext) --------------------------------------------------- */

#define WH_KRUISE_ANN_USING_ENHANCED_LIVENESS "apps.kruise.io/using-enhanced-liveness"
#define WH_KRUISE_ANN_CONTAINER_PROBE_CONTEXT "apps.kruise.io/container-probe-context"

/* --- PodProbeMarker (apis/apps/v1alpha1: PodProbeMarkerAnnotationKey,
 * PodProbeMarkerListAnnotationKey) ---------------------------------------------------------- */

#define WH_KRUISE_ANN_POD_PROBE "kruise.io/podprobe"
#define WH_KRUISE_ANN_POD_PROBE_MARKER_LIST "kruise.io/podprobemarker-list"

/* --- PodUnavailableBudget (apis/policy, pkg/control/pubcontrol) ------------------------------ */

#define WH_KRUISE_ANN_PUB_RELATED "pub.kruise.io/related-pub"
#define WH_KRUISE_ANN_PUB_RELATED_OLD "kruise.io/related-pub" /* the deprecated name */
#define WH_KRUISE_ANN_PUB_NO_PROTECT "pub.kruise.io/no-protect"
#define WH_KRUISE_ANN_PUB_OPERATIONS "kruise.io/pub-protect-operations"
#define WH_KRUISE_ANN_PUB_TOTAL_REPLICAS "pub.kruise.io/protect-total-replicas"
/* a Pod with a label of this prefix (any value) is unavailable (PubUnavailablePodLabelPrefix) */
#define WH_KRUISE_LABEL_UNAVAILABLE_POD_PREFIX "unavailable-pod.kruise.io/"

/* --- deletion protection (apis/policy/v1alpha1: DeletionProtectionKey) ----------------------- */

#define WH_KRUISE_LABEL_DELETE_PROTECTION "policy.kruise.io/delete-protection"
#define WH_KRUISE_DELETE_PROTECTION_ALWAYS "Always"
#define WH_KRUISE_DELETE_PROTECTION_CASCADING "Cascading"

/* --- what /convert moves between a v1alpha1 object's metadata and its v1beta1 spec ----------- */

#define WH_KRUISE_ANN_IMAGE_PREDOWNLOAD_PARALLELISM "apps.kruise.io/image-predownload-parallelism"
#define WH_KRUISE_ANN_IMAGE_PREDOWNLOAD_TIMEOUT "apps.kruise.io/image-predownload-timeout-seconds"
#define WH_KRUISE_ANN_IMAGE_PREDOWNLOAD_MIN_READY                                                  \
    "apps.kruise.io/image-predownload-min-updated-ready-pods"
#define WH_KRUISE_LABEL_CLONESET_SCALING_EXCLUDE_PREPARING_DELETE                                  \
    "apps.kruise.io/cloneset-scaling-exclude-preparing-delete"
#define WH_KRUISE_ANN_DAEMONSET_PROGRESSIVE_CREATE_POD "daemonset.kruise.io/progressive-create-pod"
#define WH_KRUISE_ANN_CRR_SYNC_CONTAINER_STATUSES "crr.apps.kruise.io/sync-container-statuses"
#define WH_KRUISE_ANN_CRR_UNREADY_ACQUIRED "crr.apps.kruise.io/unready-acquired"

/* --- image pulling (apis/apps/defaults: ProtectionFinalizer) --------------------------------- */

/* the finalizer the ImagePullJob defaulting adds on creation (v1alpha1) */
#define WH_KRUISE_FINALIZER_PROTECTION "apps.kruise.io/deletion-protection"

/* --- ContainerRecreateRequest (apis/apps/v1alpha1, pkg/util) --------------------------------- */

#define WH_KRUISE_LABEL_CRR_POD_UID "crr.apps.kruise.io/pod-uid"     /* ...PodUIDKey */
#define WH_KRUISE_LABEL_CRR_NODE_NAME "crr.apps.kruise.io/node-name" /* ...NodeNameKey */
#define WH_KRUISE_LABEL_CRR_ACTIVE "crr.apps.kruise.io/active"       /* ...ActiveKey */
/* on Nodes run by a virtual kubelet, and copied onto their CRRs (VirtualKubeletLabelKey, ...Value) */
#define WH_KRUISE_LABEL_VIRTUAL_KUBELET "type"
#define WH_KRUISE_VIRTUAL_KUBELET "virtual-kubelet"
/* the Pod condition of containers stopped by the sidecar terminator (SidecarTerminated) */
#define WH_KRUISE_POD_SIDECAR_TERMINATED "SidecarTerminated"

#endif
