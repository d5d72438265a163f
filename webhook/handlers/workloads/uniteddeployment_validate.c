/* /validate-apps-kruise-io-uniteddeployment (vuniteddeployment.kb.io): UnitedDeployment
 * validation (upstream pkg/webhook/uniteddeployment/validating) on the v1beta1 form (v1alpha1
 * objects are converted first; another version is 400 "unsupported version"), and deletion
 * protection on DELETE.
 *
 * A statefulSetTemplate is validated as Kubernetes validates a StatefulSet's spec
 * (apps/validation ValidateStatefulSetSpec on the internal form: the UnitedDeployment's selector,
 * one replica, no partition, no kruise defaults in its Pod template, so an empty restartPolicy
 * is refused there); an advancedStatefulSetTemplate's and a deploymentTemplate's Pod templates
 * get kruise's defaults first; a cloneSetTemplate is not looked into. */
#include "handlers/workloads/workloads.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/features.h"
#include "gocompat/goequal.h"
#include "gocompat/strconv.h"
#include "handlers/deletion/protection.h"
#include "handlers/workloads/workload_int.h"
#include "k8s/defaults.h"
#include "k8s/kruise.h"
#include "k8s/podvalidation.h"
#include "k8s/scheduling.h"
#include "k8s/selector.h"
#include "k8s/validation.h"
#include "util/buf.h"
#include "util/json.h"
#include "util/str.h"

#define KIND "UnitedDeployment"
#define CAP (1u << 20)

struct check {
    const struct wh_handler_ctx *ctx;
    struct wh_field_errors errs;
};

static bool present(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return v && !json_is_null(v);
}

static const char *P(char *buf, size_t sz, const char *fmt, ...) WH_PRINTF(3, 4);
static const char *P(char *buf, size_t sz, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sz, fmt, ap);
    va_end(ap);
    return buf;
}

/* --- Go renderings ------------------------------------------------------------------------ */

static void add_quoted(struct wh_buf *b, const char *s)
{
    wl_buf_add_take(b, wh_go_quote(s ? s : ""));
}

static void gosyntax_requirements(struct wh_buf *b, const json_t *arr)
{
    size_t i;
    const json_t *r;
    if (!json_is_array(arr)) {
        wl_buf_add(b, "[]v1.NodeSelectorRequirement(nil)");
        return;
    }
    wl_buf_add(b, "[]v1.NodeSelectorRequirement{");
    json_array_foreach(arr, i, r)
    {
        wl_buf_add(b, i ? ", v1.NodeSelectorRequirement{Key:" : "v1.NodeSelectorRequirement{Key:");
        add_quoted(b, wh_json_str(r, "key"));
        wl_buf_add(b, ", Operator:");
        add_quoted(b, wh_json_str(r, "operator"));
        wl_buf_add(b, ", Values:");
        wl_buf_add_take(b, wh_gosyntax_strings(json_object_get(r, "values")));
        wl_buf_add(b, "}");
    }
    wl_buf_add(b, "}");
}

static void gosyntax_tolerations(struct wh_buf *b, const json_t *arr)
{
    size_t i;
    const json_t *t;
    if (!json_is_array(arr)) {
        wl_buf_add(b, "[]v1.Toleration(nil)");
        return;
    }
    wl_buf_add(b, "[]v1.Toleration{");
    json_array_foreach(arr, i, t)
    {
        wl_buf_add(b, i ? ", v1.Toleration{Key:" : "v1.Toleration{Key:");
        add_quoted(b, wh_json_str(t, "key"));
        wl_buf_add(b, ", Operator:");
        add_quoted(b, wh_json_str(t, "operator"));
        wl_buf_add(b, ", Value:");
        add_quoted(b, wh_json_str(t, "value"));
        wl_buf_add(b, ", Effect:");
        add_quoted(b, wh_json_str(t, "effect"));
        wl_buf_add(b, ", TolerationSeconds:");
        wl_buf_add_take(b, wl_gosyntax_pointer("int64", json_object_get(t, "tolerationSeconds")));
        wl_buf_add(b, "}");
    }
    wl_buf_add(b, "}");
}

/* runtime.RawExtension: the bytes of the request's JSON text of the value */
static void gosyntax_raw(struct wh_buf *b, const json_t *v)
{
    wl_buf_add(b, "runtime.RawExtension{Raw:");
    if (!v || json_is_null(v)) {
        wl_buf_add(b, "[]uint8(nil)");
    } else {
        char *text = wh_json_dumps(v);
        wl_buf_add(b, "[]uint8{");
        for (size_t i = 0; text && text[i]; i++)
            wl_buf_add_take(b, wh_str_printf("%s0x%x", i ? ", " : "", (unsigned char)text[i]));
        wl_buf_add(b, "}");
        free(text);
    }
    wl_buf_add(b, ", Object:runtime.Object(nil)}");
}

static char *gosyntax_subsets(const json_t *subsets)
{
    struct wh_buf b;
    size_t i;
    const json_t *s;
    if (!json_is_array(subsets))
        return wh_str_printf("[]v1beta1.Subset(nil)");
    wh_buf_init(&b, CAP);
    wl_buf_add(&b, "[]v1beta1.Subset{");
    json_array_foreach(subsets, i, s)
    {
        const json_t *term = wh_json_obj(s, "nodeSelectorTerm");
        wl_buf_add(&b, i ? ", v1beta1.Subset{Name:" : "v1beta1.Subset{Name:");
        add_quoted(&b, wh_json_str(s, "name"));
        wl_buf_add(&b, ", NodeSelectorTerm:v1.NodeSelectorTerm{MatchExpressions:");
        gosyntax_requirements(&b, json_object_get(term, "matchExpressions"));
        wl_buf_add(&b, ", MatchFields:");
        gosyntax_requirements(&b, json_object_get(term, "matchFields"));
        wl_buf_add(&b, "}, Tolerations:");
        gosyntax_tolerations(&b, json_object_get(s, "tolerations"));
        static const char *const counts[][2] = {{"replicas", ", Replicas:"},
                                                {"minReplicas", ", MinReplicas:"},
                                                {"maxReplicas", ", MaxReplicas:"}};
        for (size_t k = 0; k < 3; k++) {
            wl_buf_add(&b, counts[k][1]);
            wl_buf_add_take(
                &b, wl_gosyntax_pointer("intstr.IntOrString", json_object_get(s, counts[k][0])));
        }
        wl_buf_add(&b, ", Patch:");
        gosyntax_raw(&b, json_object_get(s, "patch"));
        wl_buf_add(&b, "}");
    }
    wl_buf_add(&b, "}");
    return wh_buf_take(&b, NULL);
}

static char *gosyntax_intstr_ptr(const json_t *v)
{
    return v && !json_is_null(v) ? wh_gosyntax_intstr(v) : wh_str_printf("\"null\"");
}

/* --- a statefulSetTemplate: apps validation of the internal StatefulSetSpec ---------------- */

/* apps/validation's getIntOrPercentValue */
static int64_t int_or_percent(const json_t *v)
{
    if (!json_is_string(v))
        return json_integer_value(v);
    const char *s = json_string_value(v);
    size_t n = strlen(s), i = 0;
    while (i < n && s[i] >= '0' && s[i] <= '9')
        i++;
    if (i > 0 && i == n - 1 && s[i] == '%') {
        char digits[64];
        snprintf(digits, sizeof(digits), "%.*s", (int)i, s);
        return wh_go_atoi_or_zero(digits);
    }
    return wh_go_atoi_or_zero(s);
}

static void sts_template_update_strategy(struct check *c, const json_t *spec, const char *path,
                                         const char *addr)
{
    char p[512];
    const json_t *us = wh_json_obj(spec, "updateStrategy");
    const char *type = wh_json_str_or_empty(us, "type");
    const json_t *ru = json_object_get(us, "rollingUpdate");
    bool has_ru = ru && !json_is_null(ru);
    if (!*type)
        type = "RollingUpdate"; /* the template's normalization */
    if (strcmp(type, "OnDelete") == 0) {
        if (has_ru) {
            char *mu = wl_gosyntax_pointer_at("intstr.IntOrString",
                                              json_object_get(ru, "maxUnavailable"), addr);
            char *g = wh_str_printf("apps.RollingUpdateStatefulSetStrategy{Partition:0, "
                                    "MaxUnavailable:%s}",
                                    mu);
            wh_ferr_invalid_raw(&c->errs, P(p, sizeof(p), "%s.updateStrategy.rollingUpdate", path),
                                g, "only allowed for updateStrategy 'RollingUpdate'");
            free(g);
            free(mu);
        }
    } else if (strcmp(type, "RollingUpdate") == 0) {
        const json_t *mu = json_object_get(ru, "maxUnavailable");
        if (has_ru && mu && !json_is_null(mu)) {
            P(p, sizeof(p), "%s.updateStrategy.rollingUpdate.maxUnavailable", path);
            wh_validate_positive_int_or_percent(&c->errs, mu, p);
            if (int_or_percent(mu) == 0) {
                char *g = wh_gosyntax_intstr(mu);
                wh_ferr_invalid_raw(&c->errs, p, g, "cannot be 0");
                free(g);
            }
            wh_validate_not_more_than_100_percent(&c->errs, mu, p);
        }
    } else {
        char *t = wh_go_quote(type);
        char *r = wl_gosyntax_pointer_at("apps.RollingUpdateStatefulSetStrategy", ru, addr);
        char *g = wh_str_printf("apps.StatefulSetUpdateStrategy{Type:%s, RollingUpdate:%s}", t, r);
        wh_ferr_invalid_raw(&c->errs, P(p, sizeof(p), "%s.updateStrategy", path), g,
                            "must be 'RollingUpdate' or 'OnDelete'");
        free(g);
        free(t);
        free(r);
    }
}

/* ValidateStatefulSetSpec of the template's spec as upstream normalizes it; path is the
 * template's spec path; addr the address the values converted for it are printed at. */
static void sts_template_spec(struct check *c, const json_t *spec, const json_t *selector,
                              const char *path, const char *addr)
{
    char p[512];
    const char *pmp = wh_json_str_or_empty(spec, "podManagementPolicy");
    if (*pmp && strcmp(pmp, "OrderedReady") && strcmp(pmp, "Parallel"))
        wh_ferr_invalid_str(&c->errs, P(p, sizeof(p), "%s.podManagementPolicy", path), pmp,
                            "must be 'OrderedReady' or 'Parallel'");
    sts_template_update_strategy(c, spec, path, addr);
    const json_t *ret = json_object_get(spec, "persistentVolumeClaimRetentionPolicy");
    if (ret && !json_is_null(ret)) {
        static const char *const valid[] = {"Retain", "Delete"};
        static const char *const which[] = {"whenDeleted", "whenScaled"};
        for (size_t i = 0; i < 2; i++) {
            const char *v = wh_json_str_or_empty(ret, which[i]);
            if (strcmp(v, "Retain") && strcmp(v, "Delete"))
                wh_ferr_not_supported(
                    &c->errs,
                    P(p, sizeof(p), "%s.persistentVolumeClaimRetentionPolicy.%s", path, which[i]),
                    v, valid, 2);
        }
    }
    wh_validate_nonnegative(&c->errs, json_integer_value(json_object_get(spec, "minReadySeconds")),
                            P(p, sizeof(p), "%s.minReadySeconds", path));
    const json_t *ord = json_object_get(spec, "ordinals");
    if (ord && !json_is_null(ord))
        wh_validate_nonnegative(&c->errs, json_integer_value(json_object_get(ord, "start")),
                                P(p, sizeof(p), "%s.ordinals.start", path));
    if (!wl_validate_selector(&c->errs, selector, "statefulset",
                              P(p, sizeof(p), "%s.selector", path)))
        goto policies;
    const json_t *tmpl = wh_json_obj(spec, "template");
    wl_selector_matches_labels(&c->errs, selector,
                               wh_json_obj(wh_json_obj(tmpl, "metadata"), "labels"), false,
                               P(p, sizeof(p), "%s.template.metadata.labels", path));
    wh_validate_pod_template_meta(&c->errs, tmpl, P(p, sizeof(p), "%s.template", path));
policies:;
    const json_t *pod_spec = wh_json_obj(wh_json_obj(spec, "template"), "spec");
    const char *restart = wh_json_str_or_empty(pod_spec, "restartPolicy");
    if (strcmp(restart, "Always")) {
        static const char *const always[] = {"Always"};
        wh_ferr_not_supported(&c->errs, P(p, sizeof(p), "%s.template.spec.restartPolicy", path),
                              restart, always, 1);
    }
    if (present(pod_spec, "activeDeadlineSeconds"))
        wh_ferr_forbidden(&c->errs, P(p, sizeof(p), "%s.template.spec.activeDeadlineSeconds", path),
                          "activeDeadlineSeconds in StatefulSet is not Supported");
}

static void statefulset_template(struct check *c, const json_t *sts, const json_t *selector,
                                 const char *path)
{
    char p[512];
    const json_t *spec = wh_json_obj(sts, "spec");
    if (present(spec, "replicas"))
        wh_ferr_invalid_int(&c->errs, P(p, sizeof(p), "%s.spec.replicas", path),
                            json_integer_value(json_object_get(spec, "replicas")),
                            "replicas in statefulSetTemplate will not be used");
    const json_t *us = wh_json_obj(spec, "updateStrategy");
    const json_t *ru = json_object_get(us, "rollingUpdate");
    if (strcmp(wh_json_str_or_empty(us, "type"), "RollingUpdate") == 0 && ru && !json_is_null(ru) &&
        present(ru, "partition"))
        wh_ferr_invalid_int(&c->errs,
                            P(p, sizeof(p), "%s.spec.updateStrategy.rollingUpdate.partition", path),
                            json_integer_value(json_object_get(ru, "partition")),
                            "partition in statefulSetTemplate will not be used");
    sts_template_spec(c, spec, selector, P(p, sizeof(p), "%s.spec", path), WH_GO_ADDRESS);
}

/* --- the templates ------------------------------------------------------------------------ */

static void template_labels(struct check *c, const json_t *sel, const json_t *t, const char *path)
{
    wl_selector_matches_labels(&c->errs, sel, wh_json_obj(wh_json_obj(t, "metadata"), "labels"),
                               true, path);
}

/* A copy of the subset's Pod template with kruise's defaults, as upstream's conversion makes
 * one. Returns: new ref. */
static json_t *defaulted_pod_template(struct check *c, const json_t *workload)
{
    json_t *t = wh_json_copy(wh_json_path(workload, "spec", "template", NULL));
    if (!json_is_object(t)) {
        json_decref(t);
        t = json_object();
    }
    wh_k8s_default_pod_spec_for_validation(wh_json_obj_ensure(t, "spec"),
                            wh_feature_on(&c->ctx->cfg->features,
                                          WH_FEATURE_DefaultHostNetworkHostPortsInPodTemplates));
    return t;
}

static void subset_templates(struct check *c, const json_t *tmpl, const json_t *selector)
{
    static const char *const kinds[] = {"statefulSetTemplate", "advancedStatefulSetTemplate",
                                        "cloneSetTemplate", "deploymentTemplate"};
    size_t count = 0;
    for (size_t i = 0; i < 4; i++)
        count += present(tmpl, kinds[i]);
    if (count < 1) {
        wh_ferr_required(&c->errs, "spec.template",
                         "should provide one of statefulSetTemplate, advancedStatefulSetTemplate, "
                         "cloneSetTemplate, or deploymentTemplate");
    } else if (count > 1) {
        struct wh_buf b;
        static const char *const types[] = {"StatefulSetTemplateSpec",
                                            "AdvancedStatefulSetTemplateSpec",
                                            "CloneSetTemplateSpec", "DeploymentTemplateSpec"};
        static const char *const fields[] = {"StatefulSetTemplate", "AdvancedStatefulSetTemplate",
                                             "CloneSetTemplate", "DeploymentTemplate"};
        wh_buf_init(&b, CAP);
        wl_buf_add(&b, "v1beta1.SubsetTemplate{");
        for (size_t i = 0; i < 4; i++) {
            char type[64];
            snprintf(type, sizeof(type), "v1beta1.%s", types[i]);
            wl_buf_add_take(&b, wh_str_printf("%s%s:", i ? ", " : "", fields[i]));
            wl_buf_add_take(&b, wl_gosyntax_pointer(type, json_object_get(tmpl, kinds[i])));
        }
        wl_buf_add(&b, "}");
        char *g = wh_buf_take(&b, NULL);
        wh_ferr_invalid_raw(&c->errs, "spec.template", g,
                            "should provide only one of statefulSetTemplate, "
                            "advancedStatefulSetTemplate, cloneSetTemplate, or deploymentTemplate");
        free(g);
    }
    const json_t *sts = json_object_get(tmpl, "statefulSetTemplate");
    const json_t *asts = json_object_get(tmpl, "advancedStatefulSetTemplate");
    const json_t *dep = json_object_get(tmpl, "deploymentTemplate");
    if (sts && !json_is_null(sts)) {
        template_labels(c, selector, sts, "spec.template.statefulSetTemplate.metadata.labels");
        statefulset_template(c, sts, selector, "spec.template.statefulSetTemplate");
    } else if (asts && !json_is_null(asts)) {
        /* upstream names the statefulSetTemplate's labels here */
        template_labels(c, selector, asts, "spec.template.statefulSetTemplate.metadata.labels");
        const json_t *spec = wh_json_obj(asts, "spec");
        if (present(spec, "replicas"))
            wh_ferr_invalid_int(&c->errs, "spec.template.advancedStatefulSetTemplate.spec.replicas",
                                json_integer_value(json_object_get(spec, "replicas")),
                                "replicas in advancedStatefulSetTemplate will not be used");
        const json_t *us = wh_json_obj(spec, "updateStrategy");
        const json_t *ru = json_object_get(us, "rollingUpdate");
        if (strcmp(wh_json_str_or_empty(us, "type"), "RollingUpdate") == 0 && ru &&
            !json_is_null(ru) && present(ru, "partition"))
            wh_ferr_invalid_int(&c->errs,
                                "spec.template.advancedStatefulSetTemplate.spec.updateStrategy."
                                "rollingUpdate.partition",
                                json_integer_value(json_object_get(ru, "partition")),
                                "partition in advancedStatefulSetTemplate will not be used");
        json_t *pt = defaulted_pod_template(c, asts);
        const char *path = "spec.template.advancedStatefulSetTemplate.spec.template";
        wl_selector_matches_labels(
            &c->errs, selector, wh_json_obj(wh_json_obj(pt, "metadata"), "labels"), false,
            "spec.template.advancedStatefulSetTemplate.spec.template.metadata.labels");
        wh_validate_pod_template_meta(&c->errs, pt, path);
        json_decref(pt);
    } else if (dep && !json_is_null(dep)) {
        template_labels(c, selector, dep, "spec.template.deploymentTemplate.metadata.labels");
        const json_t *spec = wh_json_obj(dep, "spec");
        if (present(spec, "replicas"))
            wh_ferr_invalid_int(&c->errs, "spec.template.deploymentTemplate.spec.replicas",
                                json_integer_value(json_object_get(spec, "replicas")),
                                "replicas in deploymentTemplate will not be used");
        json_t *pt = defaulted_pod_template(c, dep);
        const char *path = "spec.template.deploymentTemplate.spec.template";
        wl_selector_matches_labels(
            &c->errs, selector, wh_json_obj(wh_json_obj(pt, "metadata"), "labels"), false,
            "spec.template.deploymentTemplate.spec.template.metadata.labels");
        wh_validate_pod_template_spec(&c->errs, pt, path);
        const json_t *ps = wh_json_obj(pt, "spec");
        const char *restart = wh_json_str_or_empty(ps, "restartPolicy");
        if (strcmp(restart, "Always")) {
            static const char *const always[] = {"Always"};
            wh_ferr_not_supported(
                &c->errs, "spec.template.deploymentTemplate.spec.template.spec.restartPolicy",
                restart, always, 1);
        }
        if (present(ps, "activeDeadlineSeconds"))
            wh_ferr_forbidden(
                &c->errs,
                "spec.template.deploymentTemplate.spec.template.spec.activeDeadlineSeconds",
                "activeDeadlineSeconds in ReplicaSet is not Supported");
        json_decref(pt);
    }
}

/* --- subsets ------------------------------------------------------------------------------ */

/* uniteddeployment.ParseSubsetReplicas: WH_OK with *out, or the error text in buf. */
static bool subset_replicas(int64_t ud_replicas, const json_t *v, int64_t *out, char *buf,
                            size_t bufsz)
{
    *out = 0;
    if (!json_is_string(v)) {
        int64_t n = json_integer_value(v);
        if (n < 0) {
            snprintf(buf, bufsz, "subset replicas (%lld) should not be less than 0", (long long)n);
            return false;
        }
        *out = n;
        return true;
    }
    const char *s = json_string_value(v);
    if (ud_replicas < 0) {
        snprintf(buf, bufsz,
                 "subsetReplicas (%s) should not be string when unitedDeployment replicas is empty",
                 s);
        return false;
    }
    size_t n = strlen(s);
    if (!n || s[n - 1] != '%') {
        snprintf(
            buf, bufsz,
            "subset replicas (%s) only support integer value or percentage value with a suffix "
            "'%%'",
            s);
        return false;
    }
    char digits[128];
    snprintf(digits, sizeof(digits), "%.*s", (int)(n - 1), s);
    int64_t pct;
    struct wh_errbuf eb = {{0}};
    if (wh_go_parse_int(digits, 32, &pct, &eb)) {
        snprintf(buf, bufsz, "subset replicas (%s) should be correct percentage integer: %s", s,
                 eb.msg);
        return false;
    }
    if (pct > 100 || pct < 0) {
        snprintf(buf, bufsz, "subset replicas (%s) should be in range [0, 100]", s);
        return false;
    }
    *out = (int32_t)wh_go_float_to_int(floor((double)ud_replicas * (double)pct / 100 + 0.5));
    return true;
}

static void subsets_replicas(struct check *c, const json_t *expected, const json_t *subsets)
{
    char p[256], err[512];
    int64_t sum = 0, sum_min = 0, sum_max = 0, count = 0, count_max = 0;
    bool has_replicas = false, has_capacity = false;
    int64_t want = expected && !json_is_null(expected) ? (int32_t)json_integer_value(expected) : -1;
    size_t n = json_array_size(subsets);
    for (size_t i = 0; i < n; i++) {
        const json_t *s = json_array_get(subsets, i);
        const json_t *r = json_object_get(s, "replicas"), *mn = json_object_get(s, "minReplicas"),
                     *mx = json_object_get(s, "maxReplicas");
        int64_t replicas = 0, min = 0, max = 1000000, v;
        if (r && !json_is_null(r)) {
            count++;
            has_replicas = true;
            if (!subset_replicas(want, r, &v, err, sizeof(err))) {
                char *g = wh_gosyntax_intstr(r);
                wh_ferr_invalid_raw(
                    &c->errs, P(p, sizeof(p), "spec.topology.subsets[%zu].replicas", i), g, err);
                free(g);
            }
            replicas = v;
        }
        sum += replicas;
        if (mn && !json_is_null(mn)) {
            has_capacity = true;
            if (!subset_replicas(want, mn, &v, err, sizeof(err))) {
                char *g = wh_gosyntax_intstr(mn);
                wh_ferr_invalid_raw(
                    &c->errs, P(p, sizeof(p), "spec.topology.subsets[%zu].minReplicas", i), g, err);
                free(g);
            }
            min = v;
        }
        sum_min += min;
        if (mx && !json_is_null(mx)) {
            count_max++;
            has_capacity = true;
            if (!subset_replicas(want, mx, &v, err, sizeof(err))) {
                char *g = wh_gosyntax_intstr(mx);
                wh_ferr_invalid_raw(
                    &c->errs, P(p, sizeof(p), "spec.topology.subsets[%zu].maxReplicas", i), g, err);
                free(g);
            }
            max = v;
        }
        sum_max += max;
        if (min > max) {
            char detail[128];
            snprintf(detail, sizeof(detail),
                     "subset[%zu].minReplicas must be less than or equal to maxReplicas", i);
            char *g = gosyntax_intstr_ptr(mn);
            wh_ferr_invalid_raw(
                &c->errs, P(p, sizeof(p), "spec.topology.subsets[%zu].minReplicas", i), g, detail);
            free(g);
        }
    }
    const char *path = "spec.topology.subsets";
    if (has_replicas && has_capacity) {
        char *g = gosyntax_subsets(subsets);
        wh_ferr_invalid_raw(
            &c->errs, path, g,
            "subset.Replicas and subset.MinReplicas/subset.MaxReplicas are mutually "
            "exclusive in a UnitedDeployment");
        free(g);
        return;
    }
    char detail[400];
    if (has_capacity) {
        if (want == -1)
            wh_ferr_invalid_int(&c->errs, path, -1,
                                "spec.replicas must be not empty if you set "
                                "subset.minReplicas/maxReplicas");
        if (count_max >= (int64_t)n)
            wh_ferr_invalid_int(&c->errs, path, count_max,
                                "at least one subset.maxReplicas must be empty");
        if (sum_min > sum_max)
            wh_ferr_invalid_int(
                &c->errs, path, sum_min,
                "sum of indicated subset.minReplicas should not be greater than sum of "
                "indicated subset.maxReplicas");
    } else if (want != -1) {
        /* upstream prints the pointer to spec.replicas with %d: an address */
        if (sum > want) {
            snprintf(detail, sizeof(detail),
                     "sum of indicated subset replicas %lld should not be greater than "
                     "UnitedDeployment replicas " WH_GO_ADDRESS_DECIMAL,
                     (long long)sum);
            wh_ferr_invalid_int(&c->errs, path, sum, detail);
        }
        if (count > 0 && count == (int64_t)n && sum != want) {
            snprintf(
                detail, sizeof(detail),
                "if replicas of all subsets are provided, the sum of indicated subset replicas "
                "%lld should equal UnitedDeployment replicas " WH_GO_ADDRESS_DECIMAL,
                (long long)sum);
            wh_ferr_invalid_int(&c->errs, path, sum, detail);
        }
    } else if (count != (int64_t)n) {
        wh_ferr_invalid_int(&c->errs, path, sum,
                            "if UnitedDeployment replicas is not provided, replicas of all subsets "
                            "should be provided");
    }
}

static bool adaptive(const json_t *spec)
{
    const char *type = wh_json_path_str(spec, "topology", "scheduleStrategy", "type", NULL);
    return type && strcmp(type, "Adaptive") == 0;
}

static void subsets(struct check *c, const json_t *spec, json_t *names)
{
    char p[256];
    size_t i;
    const json_t *s;
    json_array_foreach(wh_json_arr(wh_json_obj(spec, "topology"), "subsets"), i, s)
    {
        const char *name = wh_json_str_or_empty(s, "name");
        if (!*name)
            wh_ferr_required(&c->errs, P(p, sizeof(p), "spec.topology.subsets[%zu].name", i), "");
        if (json_object_get(names, name)) {
            char detail[400];
            snprintf(detail, sizeof(detail), "duplicated subset name %s", name);
            wh_ferr_invalid_str(&c->errs, P(p, sizeof(p), "spec.topology.subsets[%zu].name", i),
                                name, detail);
        }
        json_object_set_new(names, name, json_true());
        struct wh_vmsgs m = {0};
        wh_name_is_dns_label(name, false, &m);
        if (m.n) {
            char detail[2048] = "invalid subset name ";
            for (size_t k = 0; k < m.n; k++)
                snprintf(detail + strlen(detail), sizeof(detail) - strlen(detail), "%s%s",
                         k ? ", " : "", m.m[k]);
            wh_ferr_invalid_str(&c->errs, P(p, sizeof(p), "spec.topology.subsets[%zu].name", i),
                                name, detail);
        }
        wh_validate_node_selector_term(
            &c->errs, wh_json_obj(s, "nodeSelectorTerm"), true,
            P(p, sizeof(p), "spec.topology.subsets[%zu].nodeSelectorTerm", i));
        const json_t *tols = json_object_get(s, "tolerations");
        if (tols && !json_is_null(tols))
            wh_validate_tolerations(&c->errs, tols,
                                    P(p, sizeof(p), "spec.topology.subsets[%zu].tolerations", i));
        if (present(s, "replicas") && adaptive(spec))
            wh_ferr_forbidden(
                &c->errs, P(p, sizeof(p), "spec.topology.subsets[%zu].replicas", i),
                "specify replicas use minReplicas/maxReplicas to enable adaptive strategy");
    }
}

static void update_strategy(struct check *c, const json_t *spec, const json_t *names)
{
    const json_t *us = wh_json_obj(spec, "updateStrategy");
    const char *type = wh_json_str_or_empty(us, "type");
    if (*type && strcmp(type, "Manual")) {
        static const char *const valid[] = {"Manual", ""};
        wh_ferr_not_supported(&c->errs, "spec.updateStrategy.type", type, valid, 2);
        return;
    }
    const json_t *mu = json_object_get(us, "manualUpdate");
    if (!mu || json_is_null(mu))
        return;
    const json_t *parts = wh_json_obj(mu, "partitions");
    size_t n;
    const char **keys = wh_json_sorted_keys(parts, &n);
    for (size_t i = 0; i < n; i++) {
        if (json_object_get(names, keys[i]))
            continue;
        char detail[400];
        snprintf(detail, sizeof(detail), "subset %s does not exist", keys[i]);
        char *g = wl_gosyntax_int32_map(parts);
        wh_ferr_invalid_raw(&c->errs, "spec.updateStrategy.manualUpdate.partitions", g, detail);
        free(g);
    }
    free((void *)keys);
}

static void validate(struct check *c, json_t *ud)
{
    wh_validate_kube_object_meta(&c->errs, wh_json_obj(ud, "metadata"), true,
                                 wh_name_is_dns_subdomain, "metadata");
    const json_t *spec = wh_json_obj(ud, "spec");
    if (present(spec, "replicas"))
        wh_validate_nonnegative(&c->errs, json_integer_value(json_object_get(spec, "replicas")),
                                "spec.replicas");
    const json_t *sel = json_object_get(spec, "selector");
    bool convertible;
    if (!sel || json_is_null(sel)) {
        wh_ferr_required(&c->errs, "spec.selector", "");
        convertible = true;
    } else {
        wh_validate_label_selector(&c->errs, sel, "spec.selector");
        if (json_object_size(wh_json_obj(sel, "matchLabels")) +
                json_array_size(wh_json_arr(sel, "matchExpressions")) ==
            0) {
            char *g = wh_gosyntax_label_selector(sel);
            wh_ferr_invalid_raw(&c->errs, "spec.selector", g,
                                "empty selector is invalid for statefulset");
            free(g);
        }
        convertible = wh_label_selector_convertible(sel);
    }
    const json_t *ss = wh_json_path(spec, "topology", "scheduleStrategy", NULL);
    const json_t *tmpl = wh_json_obj(spec, "template");
    if (adaptive(spec) &&
        json_is_true(wh_json_path(ss, "adaptive", "reserveUnschedulablePods", NULL)) &&
        (present(tmpl, "advancedStatefulSetTemplate") || present(tmpl, "statefulSetTemplate"))) {
        char *t = wh_go_quote(wh_json_str_or_empty(ss, "type"));
        char *a = wl_gosyntax_pointer("v1beta1.AdaptiveUnitedDeploymentStrategy",
                                      json_object_get(ss, "adaptive"));
        char *g =
            wh_str_printf("v1beta1.UnitedDeploymentScheduleStrategy{Type:%s, Adaptive:%s}", t, a);
        wh_ferr_invalid_raw(&c->errs, "spec.topology.scheduleStrategy", g,
                            "only stateless workloads (Deployment and CloneSet) are supported by "
                            "reserved rescheduling");
        free(g);
        free(t);
        free(a);
    }
    if (!convertible) {
        char *g = wh_gosyntax_label_selector(sel);
        wh_ferr_invalid_raw(&c->errs, "spec.selector", g, "");
        free(g);
    } else {
        subset_templates(c, tmpl, sel);
    }
    subsets_replicas(c, json_object_get(spec, "replicas"),
                     wh_json_arr(wh_json_obj(spec, "topology"), "subsets"));
    json_t *names = json_object();
    subsets(c, spec, names);
    update_strategy(c, spec, names);
    json_decref(names);
}

/* --- updates ------------------------------------------------------------------------------ */

static void statefulset_template_update(struct check *c, const json_t *sts, const json_t *old,
                                        const json_t *selector)
{
    const json_t *spec = wh_json_obj(sts, "spec"), *old_spec = wh_json_obj(old, "spec");
    /* converted again: errors that print its pointers are not those of the first pass */
    sts_template_spec(c, spec, selector, "spec.template.statefulSetTemplate.spec", WL_GO_ADDRESS_2);
    /* the fields the update may change, and the two the normalization makes the same */
    static const char *const skip[] = {"replicas",
                                       "template",
                                       "updateStrategy",
                                       "minReadySeconds",
                                       "ordinals",
                                       "persistentVolumeClaimRetentionPolicy",
                                       "selector",
                                       "podManagementPolicy",
                                       NULL};
    const char *pa = wh_json_str_or_empty(spec, "podManagementPolicy");
    const char *pb = wh_json_str_or_empty(old_spec, "podManagementPolicy");
    if (!*pa)
        pa = "OrderedReady";
    if (!*pb)
        pb = "OrderedReady";
    if (strcmp(pa, pb) ||
        !wh_go_deep_equal_except(spec, old_spec, wh_gotype_lookup("apps/v1", "StatefulSetSpec"),
                                 WH_GOEQ_SEMANTIC, skip))
        wh_ferr_forbidden(&c->errs, "spec.template.statefulSetTemplate.spec",
                          "updates to statefulsetTemplate spec for fields other than 'template', "
                          "'updateStrategy', 'persistentVolumeClaimRetentionPolicy', "
                          "'minReadySeconds' and 'ordinals' are forbidden");
    if (present(spec, "replicas"))
        wh_validate_nonnegative(&c->errs, json_integer_value(json_object_get(spec, "replicas")),
                                "spec.template.statefulSetTemplate.spec.replicas");
}

static void template_update(struct check *c, const json_t *t, const json_t *old,
                            const json_t *selector)
{
    const json_t *sts = json_object_get(t, "statefulSetTemplate"),
                 *osts = json_object_get(old, "statefulSetTemplate");
    const json_t *asts = json_object_get(t, "advancedStatefulSetTemplate"),
                 *oasts = json_object_get(old, "advancedStatefulSetTemplate");
    const json_t *dep = json_object_get(t, "deploymentTemplate"),
                 *odep = json_object_get(old, "deploymentTemplate");
    if (sts && !json_is_null(sts) && osts && !json_is_null(osts)) {
        statefulset_template_update(c, sts, osts, selector);
    } else if (asts && !json_is_null(asts) && oasts && !json_is_null(oasts)) {
        static const char *const skip[] = {"replicas", "template", "updateStrategy", NULL};
        const struct wh_gofield *f = wh_gotype_member(wh_kobj_type("StatefulSet", WH_KOBJ_V1BETA1), "spec");
        if (!wh_go_deep_equal_except(json_object_get(asts, "spec"), json_object_get(oasts, "spec"),
                                     f->type, WH_GOEQ_SEMANTIC, skip))
            wh_ferr_forbidden(&c->errs, "spec.template.advancedStatefulSetTemplate.spec",
                              "updates to advancedStatefulsetTemplate spec for fields other than "
                              "'template', and 'updateStrategy' are forbidden");
        const json_t *r = json_object_get(wh_json_obj(asts, "spec"), "replicas");
        if (r && !json_is_null(r))
            wh_validate_nonnegative(&c->errs, json_integer_value(r),
                                    "spec.template.advancedStatefulSetTemplate.spec.replicas");
    } else if (dep && !json_is_null(dep) && odep && !json_is_null(odep)) {
        const json_t *r = json_object_get(wh_json_obj(dep, "spec"), "replicas");
        if (r && !json_is_null(r))
            wh_validate_nonnegative(&c->errs, json_integer_value(r),
                                    "spec.template.deploymentTemplate.spec.replicas");
    }
}

static void topology_update(struct check *c, const json_t *spec, const json_t *old_spec)
{
    char p[256];
    const json_t *subs = wh_json_arr(wh_json_obj(spec, "topology"), "subsets");
    const json_t *old_subs = wh_json_arr(wh_json_obj(old_spec, "topology"), "subsets");
    const struct wh_gotype *term = wh_gotype_lookup("v1", "NodeSelectorTerm");
    const struct wh_gofield *tf =
        wh_gotype_member(wh_gotype_lookup(WH_KRUISE_APPS_V1BETA1, "Subset"), "tolerations");
    /* upstream compares the tolerations twice, in two loops */
    for (int pass = 0; pass < 2; pass++) {
        size_t i;
        const json_t *s;
        json_array_foreach(subs, i, s)
        {
            const json_t *o = NULL, *os;
            size_t k;
            json_array_foreach(old_subs, k, os)
            {
                if (strcmp(wh_json_str_or_empty(os, "name"), wh_json_str_or_empty(s, "name")) == 0)
                    o = os;
            }
            if (!o)
                continue;
            if (!pass &&
                !wh_go_deep_equal(json_object_get(o, "nodeSelectorTerm"),
                                  json_object_get(s, "nodeSelectorTerm"), term, WH_GOEQ_SEMANTIC))
                wh_ferr_forbidden(&c->errs,
                                  P(p, sizeof(p), "spec.topology.subsets[%zu].nodeSelectorTerm", i),
                                  "may not be changed in an update");
            if (!wh_go_deep_equal(json_object_get(o, "tolerations"),
                                  json_object_get(s, "tolerations"), tf->type, WH_GOEQ_SEMANTIC))
                wh_ferr_forbidden(&c->errs,
                                  P(p, sizeof(p), "spec.topology.subsets[%zu].tolerations", i),
                                  "may not be changed in an update");
        }
    }
}

static void validate_update(struct check *c, const json_t *ud, const json_t *old)
{
    wh_validate_object_meta_update(&c->errs, wh_json_obj(ud, "metadata"),
                                   wh_json_obj(old, "metadata"), "metadata");
    const json_t *spec = wh_json_obj(ud, "spec"), *old_spec = wh_json_obj(old, "spec");
    template_update(c, wh_json_obj(spec, "template"), wh_json_obj(old_spec, "template"),
                    json_object_get(spec, "selector"));
    topology_update(c, spec, old_spec);
    if (present(spec, "replicas"))
        wh_validate_nonnegative(&c->errs, json_integer_value(json_object_get(spec, "replicas")),
                                "spec.replicas");
}

/* --- the handler -------------------------------------------------------------------------- */

/* upstream's decodeObject/decodeOldObject: NULL after answering 400 */
static json_t *decode(const json_t *raw, enum wh_kobj_version v, struct wh_admission_response *resp,
                      const char *version)
{
    char *msg = NULL;
    if (v == WH_KOBJ_OTHER) {
        wh_admission_deny(resp, 400, "unsupported version: %s", version);
        return NULL;
    }
    json_t *obj = NULL;
    if (!wh_kobj_decode_or_deny(raw, KIND, v, &obj, resp))
        return NULL;
    if (v == WH_KOBJ_V1BETA1)
        return obj;
    json_t *beta = wl_decoded_up(obj, KIND, &msg);
    json_decref(obj);
    if (!beta) {
        wh_admission_deny(resp, 400, "failed to convert v1alpha1->v1beta1: %s", msg ? msg : "");
        free(msg);
    }
    return beta;
}

static enum wh_err admit(const struct wh_handler_ctx *ctx, const struct wh_admission_request *req,
                         struct wh_admission_response *resp, struct wh_errbuf *eb)
{
    (void)eb;
    enum wh_kobj_version v = wh_kobj_version_of(req);
    json_t *ud = NULL, *old = NULL;
    struct check c = {.ctx = ctx};
    wh_ferrs_init(&c.errs);
    bool create = strcmp(req->operation, "CREATE") == 0;
    if (!create && strcmp(req->operation, "UPDATE") != 0) {
        if (strcmp(req->operation, "DELETE") != 0 || !req->old_object)
            wh_admission_allow(resp, NULL);
        else if (v == WH_KOBJ_OTHER)
            wh_admission_deny(resp, 400, "unsupported version: %s", req->resource.version);
        else
            wh_dp_kruise_workload_delete(ctx, req, WH_DP_UNITEDDEPLOYMENT, resp);
        goto out;
    }
    ud = decode(req->object, v, resp, req->resource.version);
    if (!ud)
        goto out;
    if (!create) {
        old = decode(req->old_object, v, resp, req->resource.version);
        if (!old)
            goto out;
    }
    validate(&c, ud);
    if (!create)
        validate_update(&c, ud, old);
    wl_answer_errors(resp, &c.errs);
out:
    wh_ferrs_fini(&c.errs);
    json_decref(ud);
    json_decref(old);
    return WH_OK;
}

const struct wh_route wh_uniteddeployment_validate_route = {
    .path = "/validate-apps-kruise-io-uniteddeployment",
    .kind = WH_ROUTE_VALIDATE,
    .admit = admit,
    .setup = wh_dp_setup,
    .entries = {{.name = "vuniteddeployment.kb.io",
                 .group = WH_KRUISE_APPS,
                 .versions = {"v1alpha1", "v1beta1"},
                 .resource = "uniteddeployments",
                 .operations = WH_WEBHOOK_CREATE | WH_WEBHOOK_UPDATE | WH_WEBHOOK_DELETE}},
};

/* The Helm chart's older name of the path (served, never registered by ours). */
const struct wh_route wh_uniteddeployment_validate_alias_route = {
    .path = "/validate-apps-kruise-io-v1alpha1-uniteddeployment",
    .kind = WH_ROUTE_VALIDATE,
    .admit = admit,
    .setup = wh_dp_setup,
    .alias_of = "/validate-apps-kruise-io-uniteddeployment",
};
