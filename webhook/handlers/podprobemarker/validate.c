/* /validate-apps-kruise-io-podprobemarker (upstream's pkg/webhook/podprobemarker): the object,
 * decoded as v1alpha1 (the only version), checked rule by rule in upstream's order, several
 * rules ending the check at their first failure as upstream's do. A failure is a 400 with the
 * field errors' aggregate; with gate PodProbeMarkerGate or KruiseDaemon off every request is a
 * 403. */
#include "handlers/podprobemarker/podprobemarker.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config/features.h"
#include "gocompat/decodeinto.h"
#include "gocompat/gourl.h"
#include "k8s/fielderr.h"
#include "k8s/kruise.h"
#include "k8s/validation.h"
#include "util/buf.h"
#include "util/json.h"
#include "util/jsoneq.h"
#include "util/mem.h"
#include "util/str.h"

/* A Go pointer inside a value upstream prints with %#v is its address, which differs on every
 * run; this stands in for it. */
#define GO_POINTER "0xc000010000"

/* --- the values upstream prints (%#v) --------------------------------------------------------- */

static void put_quoted(struct wh_buf *b, const char *label, const char *s)
{
    char *q = wh_go_quote(s ? s : "");
    wh_buf_put(b, "%s%s", label, q);
    free(q);
}

static void put_pointer(struct wh_buf *b, const char *label, const json_t *v, const char *type)
{
    wh_buf_put(b, "%s(%s)(%s)", label, type, v && !json_is_null(v) ? GO_POINTER : "nil");
}

/* A PodContainerProbe; printed only while its markerPolicy is empty. */
static char *gosyntax_probe(const json_t *p)
{
    static const char *const ints[][2] = {{"initialDelaySeconds", "InitialDelaySeconds"},
                                          {"timeoutSeconds", "TimeoutSeconds"},
                                          {"periodSeconds", "PeriodSeconds"},
                                          {"successThreshold", "SuccessThreshold"},
                                          {"failureThreshold", "FailureThreshold"}};
    const json_t *probe = wh_json_obj(p, "probe");
    struct wh_buf b;
    wh_buf_init(&b, 1u << 20);
    put_quoted(&b, "v1alpha1.PodContainerProbe{Name:", wh_json_str(p, "name"));
    put_quoted(&b, ", ContainerName:", wh_json_str(p, "containerName"));
    wh_buf_put(&b, ", Probe:v1alpha1.ContainerProbeSpec{Probe:v1.Probe{ProbeHandler:v1.ProbeHandler{");
    put_pointer(&b, "Exec:", json_object_get(probe, "exec"), "*v1.ExecAction");
    put_pointer(&b, ", HTTPGet:", json_object_get(probe, "httpGet"), "*v1.HTTPGetAction");
    put_pointer(&b, ", TCPSocket:", json_object_get(probe, "tcpSocket"), "*v1.TCPSocketAction");
    put_pointer(&b, ", GRPC:", json_object_get(probe, "grpc"), "*v1.GRPCAction");
    wh_buf_put(&b, "}");
    for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++)
        wh_buf_put(&b, ", %s:%lld", ints[i][1],
            (long long)json_integer_value(json_object_get(probe, ints[i][0])));
    put_pointer(&b, ", TerminationGracePeriodSeconds:",
                json_object_get(probe, "terminationGracePeriodSeconds"), "*int64");
    wh_buf_put(&b, "}}, MarkerPolicy:[]v1alpha1.ProbeMarkerPolicy%s",
        json_is_array(json_object_get(p, "markerPolicy")) ? "{}" : "(nil)");
    put_quoted(&b, ", PodConditionType:", wh_json_str(p, "podConditionType"));
    wh_buf_put(&b, "}");
    return wh_buf_take(&b, NULL);
}

/* A *metav1.LabelSelector as field.Invalid prints it: "null" when nil, else %#v of the value
 * (its String method has a pointer receiver). Returns: new string. */
static char *render_selector(const json_t *sel)
{
    return json_is_object(sel) ? wh_gosyntax_label_selector(sel) : wh_xstrdup("\"null\"");
}

static void invalid_selector(struct wh_field_errors *l, const char *path, const json_t *sel,
                             const char *detail)
{
    char *g = render_selector(sel);
    wh_ferr_invalid_raw(l, path, g, detail);
    free(g);
}

/* --- the rules ------------------------------------------------------------------------------ */

static void invalid_msgs(struct wh_field_errors *l, const char *path, const char *value,
                         const struct wh_vmsgs *m)
{
    for (size_t i = 0; i < m->n; i++)
        wh_ferr_invalid_str(l, path, value, m->m[i]);
}

/* ValidatePortNumOrName: a number in 1..65535 or an IANA service name. */
static void port_num_or_name(struct wh_field_errors *l, const json_t *port, const char *path)
{
    struct wh_vmsgs m = {0};
    if (json_is_string(port)) {
        wh_is_valid_port_name(json_string_value(port), &m);
        invalid_msgs(l, path, json_string_value(port), &m);
        return;
    }
    long long v = json_integer_value(port);
    wh_is_valid_port_num(v, &m);
    for (size_t i = 0; i < m.n; i++)
        wh_ferr_invalid_int(l, path, v, m.m[i]);
}

static void http_get(struct wh_field_errors *l, const json_t *a, const char *path)
{
    static const char *const schemes[] = {"HTTP", "HTTPS"};
    char p[512];
    const char *url = wh_json_str_or_empty(a, "path");
    const char *host = wh_json_str_or_empty(a, "host");
    if (!*url)
        wh_ferr_required(l, wh_fpath(p, sizeof(p), "%s.path", path), "");
    if (*host)
        wh_ferr_invalid_str(l, wh_fpath(p, sizeof(p), "%s.host", path), host,
                            "host field in probes is not allowed");
    struct wh_errbuf eb = {{0}};
    if (wh_gourl_parse(url, &eb))
        wh_ferr_invalid_str(l, wh_fpath(p, sizeof(p), "%s.path", path), url,
                            "must be a valid URL path");
    port_num_or_name(l, json_object_get(a, "port"), wh_fpath(p, sizeof(p), "%s.port", path));
    const char *scheme = wh_json_str_or_empty(a, "scheme");
    if (strcmp(scheme, "HTTP") != 0 && strcmp(scheme, "HTTPS") != 0)
        wh_ferr_not_supported(l, wh_fpath(p, sizeof(p), "%s.scheme", path), scheme, schemes, 2);
    size_t i;
    const json_t *h;
    json_array_foreach(wh_json_arr(a, "httpHeaders"), i, h)
    {
        struct wh_vmsgs m = {0};
        const char *name = wh_json_str_or_empty(h, "name");
        wh_is_http_header_name(name, &m);
        invalid_msgs(l, wh_fpath(p, sizeof(p), "%s.httpHeaders", path), name, &m);
    }
}

/* validateHandler over the three handlers upstream's copy knows (a grpc one counts as none). */
static void handler(struct wh_field_errors *l, const json_t *probe, const char *path)
{
    static const char *const kinds[] = {"exec", "httpGet", "tcpSocket"};
    char hp[512], p[600];
    int n = 0;
    for (size_t k = 0; k < 3; k++) {
        const json_t *a = wh_json_obj(probe, kinds[k]);
        if (!a)
            continue;
        wh_fpath(hp, sizeof(hp), "%s.%s", path, kinds[k]);
        if (n++ > 0) {
            wh_ferr_forbidden(l, hp, "may not specify more than 1 handler type");
            continue;
        }
        if (k == 0 && json_array_size(wh_json_arr(a, "command")) == 0)
            wh_ferr_required(l, wh_fpath(p, sizeof(p), "%s.command", hp), "");
        if (k == 1)
            http_get(l, a, hp);
        if (k == 2) {
            const char *host = wh_json_str_or_empty(a, "host");
            if (*host)
                wh_ferr_invalid_str(l, wh_fpath(p, sizeof(p), "%s.host", hp), host,
                                    "host field in probes is not allowed");
            port_num_or_name(l, json_object_get(a, "port"), wh_fpath(p, sizeof(p), "%s.port", hp));
        }
    }
    if (n == 0)
        wh_ferr_required(l, path, "must specify a handler type");
}

static void probe_numbers(struct wh_field_errors *l, const json_t *probe)
{
    static const char *const fields[] = {"initialDelaySeconds", "timeoutSeconds", "periodSeconds",
                                         "successThreshold", "failureThreshold"};
    char p[128];
    for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
        wh_validate_nonnegative(l, json_integer_value(json_object_get(probe, fields[i])),
                                wh_fpath(p, sizeof(p), "spec.probe.%s", fields[i]));
}

/* validatePodProbeMarkerName: the name of the fake metadata that carries a marker policy's
 * labels and annotations ("fake-name", which always passes). */
static void marker_name(const char *name, bool prefix, struct wh_vmsgs *out)
{
    (void)prefix;
    bool ok = *name != '\0';
    for (const char *c = name; *c && ok; c++)
        ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
             *c == '-';
    if (!ok)
        wh_vmsg_add(out, "podProbeMarker name must consist of alphanumeric characters or '-' "
                         "(e.g. 'example-com', regex used for validation is '^[a-zA-Z0-9\\-]+$')");
    if (strlen(name) > 63)
        wh_vmsg_add(out, "must be no more than 63 characters");
}

/* validateProbeMarkerPolicy. */
static void marker_policy(struct wh_field_errors *l, const json_t *policy)
{
    const char *state = wh_json_str_or_empty(policy, "state");
    if (strcmp(state, "Succeeded") != 0 && strcmp(state, "Failed") != 0) {
        wh_ferr_required(l, "spec.markerPolicy.state",
                         "marker policy state must be 'True' or "
                         "'False'");
        return;
    }
    const json_t *labels = wh_json_obj(policy, "labels");
    const json_t *anns = wh_json_obj(policy, "annotations");
    if (!json_object_size(labels) && !json_object_size(anns)) {
        wh_ferr_required(l, "spec.markerPolicy",
                         "marker policy annotations or labels can't be both empty");
        return;
    }
    json_t *meta = json_pack("{s:s}", "name", "fake-name");
    if (labels)
        json_object_set(meta, "labels", (json_t *)(uintptr_t)labels);
    if (anns)
        json_object_set(meta, "annotations", (json_t *)(uintptr_t)anns);
    wh_validate_object_meta(l, meta, false, marker_name, "spec.markerPolicy");
    json_decref(meta);
}

static bool in(const json_t *set, const char *s)
{
    size_t i;
    const json_t *v;
    json_array_foreach(set, i, v)
    {
        if (strcmp(json_string_value(v), s) == 0)
            return true;
    }
    return false;
}

/* One probe's rules; false when upstream stops the whole check there. */
static bool probe_rules(struct wh_field_errors *l, const json_t *p, json_t *names,
                        json_t *conditions)
{
    static const char *const native[] = {
        "PodScheduled",    "Initialized",       "Ready",
        "ContainersReady", WH_KRUISE_POD_READY, WH_KRUISE_POD_INPLACE_UPDATE_READY};
    const char *name = wh_json_str_or_empty(p, "name");
    if (strchr(name, '#')) {
        wh_ferr_invalid_str(l, "spec.probes", name, "probe name can't contains '#'.");
        return false;
    }
    if (!*name) {
        wh_ferr_invalid_str(l, "spec.probes", name, "probe name can't be empty in PodProbeMarker.");
        return false;
    }
    const char *container = wh_json_str_or_empty(p, "containerName");
    if (!*container) {
        wh_ferr_invalid_str(l, "spec.probes", container,
                            "probe containerName can't be empty in PodProbeMarker.");
        return false;
    }
    for (size_t i = 0; i < sizeof(native) / sizeof(native[0]); i++) {
        if (strcmp(name, native[i]) == 0) {
            char *detail = wh_str_printf("probe name can't be %s", name);
            wh_ferr_invalid_str(l, "spec.probes", name, detail);
            free(detail);
            return false;
        }
    }
    if (in(names, name)) {
        wh_ferr_invalid_str(l, "spec.probes", name, "probe name must be unique in PodProbeMarker.");
        return false;
    }
    json_array_append_new(names, json_string(name));
    const json_t *probe = wh_json_obj(p, "probe");
    handler(l, probe, "spec.probe");
    probe_numbers(l, probe);
    const char *cond = wh_json_str_or_empty(p, "podConditionType");
    const json_t *policies = wh_json_arr(p, "markerPolicy");
    if (!*cond && !json_array_size(policies)) {
        char *g = gosyntax_probe(p);
        wh_ferr_invalid_raw(l, "spec.probes", g,
                            "podConditionType and markerPolicy cannot be empty at the same time");
        free(g);
        return false;
    }
    if (*cond && in(conditions, cond)) {
        char *detail = wh_str_printf("podConditionType %s must be unique in podProbeMarker", cond);
        wh_ferr_invalid_str(l, "spec.probes", cond, detail);
        free(detail);
        return false;
    }
    if (*cond) {
        json_array_append_new(conditions, json_string(cond));
        wh_validate_label_name(l, cond, "spec");
    }
    json_t *states = json_array();
    size_t i;
    const json_t *policy;
    bool go_on = true;
    json_array_foreach(policies, i, policy)
    {
        const char *state = wh_json_str_or_empty(policy, "state");
        if (in(states, state)) {
            wh_ferr_invalid_str(l, "spec.markerPolicy", state,
                                "marker policy state must be unique.");
            go_on = false;
            break;
        }
        json_array_append_new(states, json_string(state));
        marker_policy(l, policy);
    }
    json_decref(states);
    return go_on;
}

/* validatePodProbeMarkerSpec. */
static void spec_rules(struct wh_field_errors *l, const json_t *spec)
{
    const json_t *sel = wh_json_obj(spec, "selector");
    if (!sel) {
        invalid_selector(l, "spec.selector", NULL,
                         "empty Selector is not valid for PodProbeMarker.");
    } else {
        wh_validate_label_selector(l, sel, "spec.selector");
        if (json_object_size(wh_json_obj(sel, "matchLabels")) +
                json_array_size(wh_json_arr(sel, "matchExpressions")) ==
            0)
            invalid_selector(l, "spec.selector", sel,
                             "empty selector is not valid for podProbeMarker.");
        if (!wh_label_selector_convertible(sel))
            invalid_selector(l, "spec.selector.selector", sel, "");
    }
    const json_t *probes = wh_json_arr(spec, "probes");
    if (!json_array_size(probes)) {
        wh_ferr_invalid_raw(l, "spec.probes",
                            probes ? "[]v1alpha1.PodContainerProbe{}"
                                   : "[]v1alpha1.PodContainerProbe(nil)",
                            "empty probes is not valid for PodProbeMarker.");
        return;
    }
    json_t *names = json_array(), *conditions = json_array();
    size_t i;
    const json_t *p;
    json_array_foreach(probes, i, p)
    {
        if (!probe_rules(l, p, names, conditions))
            break;
    }
    json_decref(names);
    json_decref(conditions);
}

static enum wh_err admit(const struct wh_handler_ctx *ctx, const struct wh_admission_request *req,
                         struct wh_admission_response *resp, struct wh_errbuf *eb)
{
    (void)eb;
    json_t *obj = NULL, *old = NULL;
    struct wh_errbuf derr = {{0}};
    if (wh_decode_into(req->object, WH_KRUISE_APPS_V1ALPHA1, "PodProbeMarker", &obj, &derr)) {
        wh_admission_deny(resp, 400, "%s", derr.msg);
        goto out;
    }
    static const enum wh_feature gates[] = {WH_FEATURE_PodProbeMarkerGate, WH_FEATURE_KruiseDaemon};
    static const char *const gate_names[] = {"PodProbeMarkerGate", "KruiseDaemon"};
    for (size_t i = 0; i < 2; i++) {
        if (!wh_feature_on(&ctx->cfg->features, gates[i])) {
            wh_admission_deny(resp, 403, "feature-gate %s is not enabled", gate_names[i]);
            goto out;
        }
    }
    if (strcmp(req->operation, "UPDATE") == 0 &&
        wh_decode_into(req->old_object, WH_KRUISE_APPS_V1ALPHA1, "PodProbeMarker", &old, &derr)) {
        wh_admission_deny(resp, 400, "%s", derr.msg);
        goto out;
    }
    struct wh_field_errors errs;
    wh_ferrs_init(&errs);
    const json_t *spec = wh_json_obj(obj, "spec");
    spec_rules(&errs, spec);
    if (old) {
        /* reflect.DeepEqual of the two *LabelSelectors as decoded: nil and empty differ */
        const json_t *a = wh_json_obj(spec, "selector");
        const json_t *b = wh_json_obj(wh_json_obj(old, "spec"), "selector");
        if (!wh_json_equal(a, b, WH_JSON_EQ_NULL_ABSENT))
            invalid_selector(&errs, "selector", a, "selector must be immutable");
    }
    wh_admission_answer_errors(resp, 400, &errs);
    wh_ferrs_fini(&errs);
out:
    json_decref(obj);
    json_decref(old);
    return WH_OK;
}

/* upstream's kubebuilder marker of pkg/webhook/podprobemarker/validating/webhooks.go */
const struct wh_route wh_ppm_validate_route = {
    .path = "/validate-apps-kruise-io-podprobemarker",
    .kind = WH_ROUTE_VALIDATE,
    .admit = admit,
    .entries = {{.name = "vpodprobemarker.kb.io",
                 .group = WH_KRUISE_APPS,
                 .versions = {"v1alpha1"},
                 .resource = "podprobemarkers",
                 .operations = WH_WEBHOOK_CREATE | WH_WEBHOOK_UPDATE}},
};
