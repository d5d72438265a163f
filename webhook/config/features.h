#ifndef WH_CONFIG_FEATURES_H
#define WH_CONFIG_FEATURES_H

/* Feature gates with upstream OpenKruise's names and defaults (pkg/features/kruise_features.go),
 * parsed from "Name=true,Other=false" as kruise-manager's --feature-gates flag is.
 * Thread rule: immutable after wh_features_parse; read from any thread. */

#include <stdbool.h>

#include "util/err.h"

#define WH_FEATURE_LIST(X)                                                                         \
    X(PodWebhook, true, BETA)                                                                      \
    X(KruiseDaemon, true, BETA)                                                                    \
    X(DaemonWatchingPod, true, BETA)                                                               \
    X(CloneSetShortHash, false, ALPHA)                                                             \
    X(KruisePodReadinessGate, false, ALPHA)                                                        \
    X(PreDownloadImageForInPlaceUpdate, false, ALPHA)                                              \
    X(CloneSetPartitionRollback, false, ALPHA)                                                     \
    X(ResourcesDeletionProtection, false, BETA)                                                    \
    X(WorkloadSpread, true, BETA)                                                                  \
    X(PodUnavailableBudgetDeleteGate, true, BETA)                                                  \
    X(PodUnavailableBudgetUpdateGate, false, ALPHA)                                                \
    X(TemplateNoDefaults, false, ALPHA)                                                            \
    X(InPlaceUpdateEnvFromMetadata, true, BETA)                                                    \
    X(StatefulSetAutoDeletePVC, true, BETA)                                                        \
    X(SidecarSetPatchPodMetadataDefaultsAllowed, false, ALPHA)                                     \
    X(SidecarTerminator, false, ALPHA)                                                             \
    X(PodProbeMarkerGate, true, BETA)                                                              \
    X(PreDownloadImageForDaemonSetUpdate, false, ALPHA)                                            \
    X(CloneSetEventHandlerOptimization, false, ALPHA)                                              \
    X(PreparingUpdateAsUpdate, false, ALPHA)                                                       \
    X(ImagePullJobGate, false, ALPHA)                                                              \
    X(ResourceDistributionGate, false, BETA)                                                       \
    X(DeletionProtectionForCRDCascadingGate, false, ALPHA)                                         \
    X(EnhancedLivenessProbe, false, ALPHA)                                                         \
    X(RecreatePodWhenChangeVCTInCloneSetGate, false, ALPHA)                                        \
    X(StatefulSetStartOrdinal, false, ALPHA)                                                       \
    X(PodIndexLabel, true, BETA)                                                                   \
    X(EnableExternalCerts, false, ALPHA)                                                           \
    X(StatefulSetAutoResizePVCGate, false, ALPHA)                                                  \
    X(ForceDeleteTimeoutExpectationGate, false, ALPHA)                                             \
    X(InPlaceWorkloadVerticalScaling, false, ALPHA)                                                \
    X(EnablePodProbeMarkerOnServerless, false, ALPHA)                                              \
    X(EnableSortSidecarContainerByName, false, ALPHA)                                              \
    X(InPlacePodVerticalScaling, false, ALPHA)                                                     \
    X(DefaultHostNetworkHostPortsInPodTemplates, false, ALPHA)                                     \
    X(DaemonSetPruneIneligibleNodes, false, ALPHA)

enum wh_feature {
#define X(name, def, stage) WH_FEATURE_##name,
    WH_FEATURE_LIST(X)
#undef X
        WH_FEATURE_COUNT
};

struct wh_features {
    bool on[WH_FEATURE_COUNT];
    bool set[WH_FEATURE_COUNT]; /* named explicitly in the flag */
};

/* Fills f with the defaults. */
void wh_features_init(struct wh_features *f);

/* Applies "Name=true,Other=false" (also AllAlpha= and AllBeta=, which switch every alpha / beta
 * gate not named explicitly) on top of f, then upstream's implications (features.
 * SetDefaultFeatureGates): PodWebhook off forces off the gates of the Pod webhook's features
 * (KruisePodReadinessGate, both PodUnavailableBudget gates, WorkloadSpread,
 * SidecarSetPatchPodMetadataDefaultsAllowed, EnhancedLivenessProbe,
 * EnablePodProbeMarkerOnServerless); KruiseDaemon off forces off those that need kruise-daemon
 * (PreDownloadImageForInPlaceUpdate, DaemonWatchingPod, InPlaceUpdateEnvFromMetadata,
 * PreDownloadImageForDaemonSetUpdate, PodProbeMarkerGate, SidecarTerminator, ImagePullJobGate,
 * EnhancedLivenessProbe); either image pre-download gate forces ImagePullJobGate on;
 * ResourcesDeletionProtection off forces DeletionProtectionForCRDCascadingGate off. Unknown
 * names and bad values are errors naming them. */
WH_NODISCARD enum wh_err wh_features_parse(struct wh_features *f, const char *spec,
                                           struct wh_errbuf *eb);

bool wh_feature_on(const struct wh_features *f, enum wh_feature gate);

#endif
