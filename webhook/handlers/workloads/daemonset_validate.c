/* /validate-apps-kruise-io-daemonset (vdaemonset.kb.io): Advanced DaemonSet validation,
 * v1alpha1 and v1beta1 (upstream pkg/webhook/daemonset/validating). Upstream answers a CREATE
 * that fails validation with 500 (its validating function returns the errors as an error) and
 * one that passes with the message "allowed to be admitted"; an UPDATE that fails with 422.
 * No DELETE branch: Advanced DaemonSets have no deletion protection upstream. */
#include "handlers/workloads/workloads.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gocompat/goequal.h"
#include "gocompat/strconv.h"
#include "handlers/workloads/workload_int.h"
#include "k8s/kruise.h"
#include "k8s/validation.h"
#include "util/json.h"
#include "util/str.h"

#define KIND "DaemonSet"
#define RU "spec.updateStrategy.rollingUpdate"

struct check {
    const struct wh_handler_ctx *ctx;
    struct wh_field_errors errs;
    bool alpha;
};

static bool present(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return v && !json_is_null(v);
}

/* validation.IsValidPercent. */
static bool valid_percent(const char *s)
{
    size_t n = strlen(s), i = 0;
    while (i < n && s[i] >= '0' && s[i] <= '9')
        i++;
    return i > 0 && i == n - 1 && s[i] == '%';
}

/* the DaemonSet validation's getIntOrPercentValue: a valid percent's number, else IntValue() */
static int64_t int_or_percent(const json_t *v)
{
    if (!json_is_string(v))
        return json_integer_value(v);
    const char *s = json_string_value(v);
    if (valid_percent(s)) {
        char digits[64];
        snprintf(digits, sizeof(digits), "%.*s", (int)(strlen(s) - 1), s);
        return wh_go_atoi_or_zero(digits);
    }
    return wh_go_atoi_or_zero(s);
}

static void rolling_update(struct check *c, const json_t *ru)
{
    const json_t *mu = json_object_get(ru, "maxUnavailable");
    const json_t *ms = json_object_get(ru, "maxSurge");
    bool unavailable = mu && !json_is_null(mu) && int_or_percent(mu) != 0;
    bool surge = ms && !json_is_null(ms) && int_or_percent(ms) != 0;
    if (unavailable) {
        wh_validate_positive_int_or_percent(&c->errs, mu, RU ".maxUnavailable");
        wh_validate_not_more_than_100_percent(&c->errs, mu, RU ".maxUnavailable");
    }
    if (surge) {
        wh_validate_positive_int_or_percent(&c->errs, ms, RU ".maxSurge");
        wh_validate_not_more_than_100_percent(&c->errs, ms, RU ".maxSurge");
    }
    if (unavailable && surge) {
        char *g = wh_gosyntax_intstr(ms);
        wh_ferr_invalid_raw(&c->errs, RU ".maxSurge", g,
                            "may not be set when maxUnavailable is non-zero");
        free(g);
    } else if (!unavailable && !surge) {
        wh_ferr_required(&c->errs, RU ".maxUnavailable", "cannot be 0 when maxSurge is 0");
    }
    const char *type = wh_json_str_or_empty(ru, "rollingUpdateType");
    if (!*type || strcmp(type, "Standard") == 0) {
    } else if (strcmp(type, "InPlaceIfPossible") == 0) {
        if (surge)
            wh_ferr_required(&c->errs, RU ".maxSurge", "must be 0 for InPlaceIfPossible type");
    } else if (c->alpha && strcmp(type, "Surging") == 0) {
        if (unavailable)
            wh_ferr_required(&c->errs, RU ".maxUnavailable", "must be 0 for Surging type");
    } else {
        static const char *const alpha[] = {"Standard", "Surging", "InPlaceIfPossible"};
        static const char *const beta[] = {"Standard", "InPlaceIfPossible"};
        /* upstream's path names the field "type" under a second "rollingUpdate" */
        if (c->alpha)
            wh_ferr_not_supported(&c->errs, RU ".rollingUpdate.type", type, alpha, 3);
        else
            wh_ferr_not_supported(&c->errs, RU ".rollingUpdate.type", type, beta, 2);
    }
    const json_t *part = json_object_get(ru, "partition");
    if (part && !json_is_null(part)) {
        if (json_is_string(part))
            wh_validate_positive_int_or_percent(&c->errs, part, RU ".rollingUpdate.partition");
        else
            wh_validate_nonnegative(&c->errs, json_integer_value(part),
                                    RU ".rollingUpdate.partition");
        wh_validate_not_more_than_100_percent(&c->errs, part, RU ".rollingUpdate.partition");
    }
}

static void update_strategy(struct check *c, const json_t *us)
{
    const char *type = wh_json_str_or_empty(us, "type");
    if (strcmp(type, "OnDelete") == 0)
        return;
    if (strcmp(type, "RollingUpdate") == 0) {
        const json_t *ru = json_object_get(us, "rollingUpdate");
        if (!ru || json_is_null(ru))
            wh_ferr_required(&c->errs, "spec.updateStrategy.rollingUpdate", "");
        else
            rolling_update(c, ru);
        return;
    }
    static const char *const valid[] = {"RollingUpdate", "OnDelete"};
    char *t = wh_go_quote(type);
    char *ru = wl_gosyntax_pointer(c->alpha ? "v1alpha1.RollingUpdateDaemonSet"
                                            : "v1beta1.RollingUpdateDaemonSet",
                                   json_object_get(us, "rollingUpdate"));
    char *g = wh_str_printf("%s.DaemonSetUpdateStrategy{Type:%s, RollingUpdate:%s}",
                            c->alpha ? "v1alpha1" : "v1beta1", t, ru);
    wh_ferr_not_supported_raw(&c->errs, "spec.updateStrategy", g, valid, 2);
    free(g);
    free(t);
    free(ru);
}

static void validate_spec(struct check *c, json_t *spec)
{
    const json_t *sel = json_object_get(spec, "selector");
    wh_validate_label_selector(&c->errs, sel, "spec.selector");
    json_t *tmpl = wh_json_obj_ensure(spec, "template");
    if (wh_label_selector_convertible(sel))
        wl_selector_matches_labels(&c->errs, sel,
                                   wh_json_obj(wh_json_obj(tmpl, "metadata"), "labels"), true,
                                   "spec.template.metadata.labels");
    if (sel && !json_is_null(sel) &&
        json_object_size(wh_json_obj(sel, "matchLabels")) +
                json_array_size(wh_json_arr(sel, "matchExpressions")) ==
            0) {
        char *g = wh_gosyntax_label_selector(sel);
        wh_ferr_invalid_raw(&c->errs, "spec.selector", g,
                            "empty selector is invalid for daemonset");
        free(g);
    }
    wl_validate_template(&c->errs, tmpl, NULL, c->ctx->cfg, "spec.template");
    const json_t *pod_spec = wh_json_obj(tmpl, "spec");
    const char *restart = wh_json_str_or_empty(pod_spec, "restartPolicy");
    if (strcmp(restart, "Always")) {
        static const char *const always[] = {"Always"};
        wh_ferr_not_supported(&c->errs, "spec.template.spec.restartPolicy", restart, always, 1);
    }
    if (present(pod_spec, "activeDeadlineSeconds"))
        wh_ferr_forbidden(&c->errs, "spec.template.spec.activeDeadlineSeconds",
                          "activeDeadlineSeconds in DaemonSet is not Supported");
    wh_validate_nonnegative(&c->errs, json_integer_value(json_object_get(spec, "minReadySeconds")),
                            "spec.minReadySeconds");
    update_strategy(c, wh_json_obj(spec, "updateStrategy"));
    if (present(spec, "revisionHistoryLimit"))
        wh_validate_nonnegative(&c->errs,
                                json_integer_value(json_object_get(spec, "revisionHistoryLimit")),
                                "spec.revisionHistoryLimit");
    const json_t *lc = json_object_get(spec, "lifecycle");
    if (lc && !json_is_null(lc) && present(lc, "inPlaceUpdate"))
        wh_ferr_forbidden(&c->errs, "spec.lifecycle.inPlaceUpdate",
                          "inPlaceUpdate hook has not supported yet");
}

static const char *const changeable_alpha[] = {
    "template",        "updateStrategy",       "lifecycle", "burstReplicas",
    "minReadySeconds", "revisionHistoryLimit", NULL,
};
static const char *const changeable_beta[] = {
    "template",        "updateStrategy",       "lifecycle",     "burstReplicas",
    "minReadySeconds", "revisionHistoryLimit", "scaleStrategy", NULL,
};

static void validate_update(struct check *c, json_t *ds, const json_t *old)
{
    enum wh_kobj_version v = c->alpha ? WH_KOBJ_V1ALPHA1 : WH_KOBJ_V1BETA1;
    wh_validate_object_meta_update(&c->errs, wh_json_obj(ds, "metadata"),
                                   wh_json_obj(old, "metadata"), "metadata");
    const struct wh_gofield *f = wh_gotype_member(wh_kobj_type(KIND, v), "spec");
    if (!wh_go_deep_equal_except(json_object_get(ds, "spec"), json_object_get(old, "spec"), f->type,
                                 WH_GOEQ_SEMANTIC, c->alpha ? changeable_alpha : changeable_beta))
        wh_ferr_forbidden(&c->errs, "spec",
                          c->alpha ? "updates to daemonset spec for fields other than "
                                     "'BurstReplicas', 'template', 'lifecycle',  'updateStrategy', "
                                     "'minReadySeconds', and 'revisionHistoryLimit' are forbidden"
                                   : "updates to daemonset spec for fields other than "
                                     "'BurstReplicas', 'template', 'lifecycle', 'scaleStrategy', "
                                     "'updateStrategy', 'minReadySeconds', and "
                                     "'revisionHistoryLimit' are forbidden");
    validate_spec(c, wh_json_obj_ensure(ds, "spec"));
}

static enum wh_err admit(const struct wh_handler_ctx *ctx, const struct wh_admission_request *req,
                         struct wh_admission_response *resp, struct wh_errbuf *eb)
{
    (void)eb;
    enum wh_err rc = WH_OK;
    enum wh_kobj_version v = wh_kobj_version_of(req);
    json_t *ds = NULL, *old = NULL;
    struct check c = {.ctx = ctx, .alpha = v == WH_KOBJ_V1ALPHA1};
    wh_ferrs_init(&c.errs);
    if (v == WH_KOBJ_OTHER) {
        wh_admission_deny(resp, 400, "unsupported version: %s", req->resource.version);
        goto out;
    }
    bool create = strcmp(req->operation, "CREATE") == 0;
    if (!create && strcmp(req->operation, "UPDATE") != 0) {
        wh_admission_allow(resp, NULL);
        goto out;
    }
    if (!wh_kobj_decode_or_deny(req->object, KIND, v, &ds, resp) ||
        (!create && !wh_kobj_decode_or_deny(req->old_object, KIND, v, &old, resp)))
        goto out;
    if (create) {
        wh_validate_object_meta(&c.errs, wh_json_obj(ds, "metadata"), true,
                                wh_name_is_dns_subdomain, "metadata");
        validate_spec(&c, wh_json_obj_ensure(ds, "spec"));
        char *agg = wh_ferrs_aggregate(&c.errs);
        if (agg) {
            /* upstream's admission.Errored(500, err) */
            wh_admission_deny(resp, 500, "%s", agg);
            free(agg);
        } else {
            wh_admission_allow(resp, "allowed to be admitted");
        }
        goto out;
    }
    validate_update(&c, ds, old);
    wl_answer_errors(resp, &c.errs);
out:
    wh_ferrs_fini(&c.errs);
    json_decref(ds);
    json_decref(old);
    return rc;
}

const struct wh_route wh_daemonset_validate_route = {
    .path = "/validate-apps-kruise-io-daemonset",
    .kind = WH_ROUTE_VALIDATE,
    .admit = admit,
    .entries = {{.name = "vdaemonset.kb.io",
                 .group = WH_KRUISE_APPS,
                 .versions = {"v1alpha1", "v1beta1"},
                 .resource = "daemonsets",
                 .operations = WH_WEBHOOK_CREATE | WH_WEBHOOK_UPDATE}},
};
