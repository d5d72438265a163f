/* /mutate-apps-kruise-io-daemonset (mdaemonset.kb.io): Advanced DaemonSet defaults, v1alpha1
 * and v1beta1 (apis/apps/defaults: SetDefaultsDaemonSet, SetDefaultsDaemonSetV1beta1). They
 * leave the Pod template alone. */
#include "handlers/workloads/workloads.h"

#include <string.h>

#include "handlers/kruise_object.h"
#include "handlers/workloads/workload_int.h"
#include "k8s/defaults.h"
#include "k8s/kruise.h"
#include "util/json.h"

static void defaults(json_t *ds, const struct wh_kobj_defaulting *how)
{
    json_t *spec = wh_json_obj_ensure(ds, "spec");
    wh_k8s_default_int_ptr(spec, "burstReplicas", 250);
    json_t *us = wh_json_obj_ensure(spec, "updateStrategy");
    wh_k8s_default_string(us, "type", "RollingUpdate");
    if (strcmp(wh_json_str_or_empty(us, "type"), "RollingUpdate") == 0) {
        json_t *ru = wh_json_obj_ensure(us, "rollingUpdate");
        const char *type = wh_json_str_or_empty(ru, "rollingUpdateType");
        /* v1alpha1 still reads the deprecated Surging type, and turns it into Standard */
        bool surging = how->v == WH_KOBJ_V1ALPHA1 && strcmp(type, "Surging") == 0;
        if (surging) {
            wh_k8s_default_int_ptr(ru, "maxSurge", 1);
            wh_k8s_default_int_ptr(ru, "maxUnavailable", 0);
        }
        if (!*type || surging)
            json_object_set_new(ru, "rollingUpdateType", json_string("Standard"));
        const json_t *mu = json_object_get(ru, "maxUnavailable");
        const json_t *ms = json_object_get(ru, "maxSurge");
        if ((!mu || json_is_null(mu)) && (!ms || json_is_null(ms))) {
            json_object_set_new(ru, "maxUnavailable", json_integer(1));
            json_object_set_new(ru, "maxSurge", json_integer(0));
        }
    }
    wh_k8s_default_int_ptr(spec, "revisionHistoryLimit", 10);
}

static const struct wh_kobj_mutator daemonset = {
    .kind = "DaemonSet",
    .defaults = defaults,
};

static enum wh_err admit(const struct wh_handler_ctx *ctx, const struct wh_admission_request *req,
                         struct wh_admission_response *resp, struct wh_errbuf *eb)
{
    return wh_kobj_mutate(&daemonset, ctx, req, resp, eb);
}

const struct wh_route wh_daemonset_mutate_route = {
    .path = "/mutate-apps-kruise-io-daemonset",
    .kind = WH_ROUTE_MUTATE,
    .admit = admit,
    .entries = {{.name = "mdaemonset.kb.io",
                 .group = WH_KRUISE_APPS,
                 .versions = {"v1alpha1", "v1beta1"},
                 .resource = "daemonsets",
                 .operations = WH_WEBHOOK_CREATE | WH_WEBHOOK_UPDATE}},
};
