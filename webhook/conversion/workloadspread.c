/* WorkloadSpread, apps.kruise.io (conversion.md section 8): two subset fields renamed, and the
 * subset conditions become metav1.Condition in v1beta1 (reason required, observedGeneration
 * added). */
#include "conversion/rows_int.h"

#include "k8s/kruise.h"

/* metav1.Condition requires a reason: an empty one becomes "Unknown" going up (8.2). */
static const struct wh_conv_enum empty_reason[] = {
    {"", "Unknown", 1u << WH_CONV_UP},
    {NULL, NULL, 0},
};

/* WorkloadSpreadSubsetStatus, in subsetStatuses and in each versionedSubsetStatuses list; e is
 * the path of an element. */
#define SUBSET_STATUS_ROWS(e)                                                                      \
    ENUM_MAP(e ".conditions[].reason", empty_reason),                                              \
        BETA_ONLY(e ".conditions[].observedGeneration")

static const struct wh_conv_row rows[] = {
    RENAME("spec.subsets[].requiredNodeSelectorTerm", "spec.subsets[].requiredNodeSelector"),
    RENAME("spec.subsets[].preferredNodeSelectorTerms", "spec.subsets[].preferredNodeSelector"),
    SUBSET_STATUS_ROWS("status.subsetStatuses[]"),
    SUBSET_STATUS_ROWS("status.versionedSubsetStatuses.*[]"),
};

const struct wh_conv_kind wh_conv_workloadspread = {WH_KRUISE_APPS, "WorkloadSpread",
                                                    WH_ROWS(rows)};
