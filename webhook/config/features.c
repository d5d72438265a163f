#include "config/features.h"

#include <stdio.h>
#include <string.h>

#include "util/str.h"

enum stage { ALPHA, BETA };

struct gate {
    const char *name;
    bool def;
    enum stage stage;
};

static const struct gate gates[WH_FEATURE_COUNT] = {
#define X(n, d, s) {#n, d, s},
    WH_FEATURE_LIST(X)
#undef X
};

void wh_features_init(struct wh_features *f)
{
    for (int i = 0; i < WH_FEATURE_COUNT; i++) {
        f->on[i] = gates[i].def;
        f->set[i] = false;
    }
}

bool wh_feature_on(const struct wh_features *f, enum wh_feature gate)
{
    return f->on[gate];
}

/* In upstream's order (SetDefaultFeatureGates): a later rule sees what an earlier one set. */
static void apply_implications(struct wh_features *f)
{
    static const enum wh_feature pod_webhook[] = {
        WH_FEATURE_KruisePodReadinessGate,
        WH_FEATURE_PodUnavailableBudgetDeleteGate,
        WH_FEATURE_PodUnavailableBudgetUpdateGate,
        WH_FEATURE_WorkloadSpread,
        WH_FEATURE_SidecarSetPatchPodMetadataDefaultsAllowed,
        WH_FEATURE_EnhancedLivenessProbe,
        WH_FEATURE_EnablePodProbeMarkerOnServerless,
    };
    static const enum wh_feature daemon[] = {
        WH_FEATURE_PreDownloadImageForInPlaceUpdate,
        WH_FEATURE_DaemonWatchingPod,
        WH_FEATURE_InPlaceUpdateEnvFromMetadata,
        WH_FEATURE_PreDownloadImageForDaemonSetUpdate,
        WH_FEATURE_PodProbeMarkerGate,
        WH_FEATURE_SidecarTerminator,
        WH_FEATURE_ImagePullJobGate,
        WH_FEATURE_EnhancedLivenessProbe,
    };
    if (!f->on[WH_FEATURE_PodWebhook]) {
        for (size_t i = 0; i < sizeof(pod_webhook) / sizeof(pod_webhook[0]); i++)
            f->on[pod_webhook[i]] = false;
    }
    if (!f->on[WH_FEATURE_KruiseDaemon]) {
        for (size_t i = 0; i < sizeof(daemon) / sizeof(daemon[0]); i++)
            f->on[daemon[i]] = false;
    }
    if (f->on[WH_FEATURE_PreDownloadImageForInPlaceUpdate] ||
        f->on[WH_FEATURE_PreDownloadImageForDaemonSetUpdate])
        f->on[WH_FEATURE_ImagePullJobGate] = true;
    if (!f->on[WH_FEATURE_ResourcesDeletionProtection])
        f->on[WH_FEATURE_DeletionProtectionForCRDCascadingGate] = false;
}

enum wh_err wh_features_parse(struct wh_features *f, const char *spec, struct wh_errbuf *eb)
{
    /* All/Beta switches apply after the explicit names, whatever their position. */
    int all_alpha = -1, all_beta = -1;
    const char *p = spec;
    while (*p) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char item[128];
        if (len == 0) {
            p += end ? 1 : 0;
            if (!end)
                break;
            continue;
        }
        if (len >= sizeof(item))
            return wh_errbuf_set(eb, WH_ERR_INVALID, "feature gate entry too long: %.40s...", p);
        memcpy(item, p, len);
        item[len] = '\0';
        char *eq = strchr(item, '=');
        if (!eq)
            return wh_errbuf_set(eb, WH_ERR_INVALID,
                                 "missing bool value for feature gate %s (want Name=true|false)",
                                 item);
        *eq = '\0';
        /* Surrounding spaces are tolerated, as in "A=true, B=false". */
        char *name = item;
        while (*name == ' ')
            name++;
        for (char *q = eq - 1; q >= name && *q == ' '; q--)
            *q = '\0';
        const char *val = eq + 1;
        while (*val == ' ')
            val++;
        char vbuf[16];
        size_t vlen = strcspn(val, " ");
        if (vlen >= sizeof(vbuf))
            vlen = sizeof(vbuf) - 1;
        memcpy(vbuf, val, vlen);
        vbuf[vlen] = '\0';
        bool on = false;
        if (wh_str_to_go_bool(vbuf, &on))
            return wh_errbuf_set(eb, WH_ERR_INVALID,
                                 "invalid value of %s=%s, err: want true or false", name, vbuf);
        if (strcmp(name, "AllAlpha") == 0) {
            all_alpha = on;
        } else if (strcmp(name, "AllBeta") == 0) {
            all_beta = on;
        } else {
            int idx = -1;
            for (int i = 0; i < WH_FEATURE_COUNT; i++) {
                if (strcmp(gates[i].name, name) == 0)
                    idx = i;
            }
            if (idx < 0)
                return wh_errbuf_set(eb, WH_ERR_INVALID, "unrecognized feature gate: %s", name);
            f->on[idx] = on;
            f->set[idx] = true;
        }
        if (!end)
            break;
        p = end + 1;
    }
    for (int i = 0; i < WH_FEATURE_COUNT; i++) {
        if (f->set[i])
            continue;
        if (gates[i].stage == ALPHA && all_alpha >= 0)
            f->on[i] = all_alpha;
        if (gates[i].stage == BETA && all_beta >= 0)
            f->on[i] = all_beta;
    }
    apply_implications(f);
    return WH_OK;
}
