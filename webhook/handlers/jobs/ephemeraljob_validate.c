/* /validate-apps-kruise-io-v1alpha1-ephemeraljob: upstream's EphemeralJob validation
 * (pkg/webhook/ephemeraljob/validating), which checks the template's ephemeral containers with
 * a copy of Kubernetes' container rules of its own: name, image, termination message policy,
 * ports, env, envFrom, pull policy and security context (PodValidationOptions{}, hostUsers
 * true), surrounding white space in the image, names unique among them, only the fields
 * allowed in an ephemeral container, no subPath. The object is decoded as v1alpha1 whatever
 * the request's version; errors are answered 400. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "handlers/jobs/jobs_int.h"
#include "handlers/kruise_object.h"
#include "k8s/kruise.h"
#include "k8s/podvalidation.h"
#include "k8s/validation.h"
#include "util/json.h"
#include "util/mem.h"
#include "util/str.h"
#include "util/utf8.h"

#define KIND "EphemeralJob"
#define NOT_IN_EPHEMERAL "cannot be set for an Ephemeral Container"

static const json_t *set(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return v && !json_is_null(v) ? v : NULL;
}

/* validateContainerPorts (upstream's copy). */
static void ports(struct wh_field_errors *l, const json_t *list, const char *path)
{
    static const char *const protocols[] = {"SCTP", "TCP", "UDP"}; /* sets.String.List(): sorted */
    const char **names = wh_xcalloc(json_array_size(list) + 1, sizeof(*names));
    size_t nnames = 0, i;
    const json_t *port;
    json_array_foreach(list, i, port)
    {
        char p[256];
        const char *name = wh_json_str_or_empty(port, "name");
        if (*name) {
            struct wh_vmsgs m = {0};
            wh_is_valid_port_name(name, &m);
            bool dup = false;
            for (size_t k = 0; k < nnames && !dup; k++)
                dup = strcmp(names[k], name) == 0;
            for (size_t k = 0; k < m.n; k++)
                wh_ferr_invalid_str(l, wh_fpath(p, sizeof(p), "%s[%zu].name", path, i), name,
                                    m.m[k]);
            if (!m.n && dup)
                wh_ferr_duplicate(l, wh_fpath(p, sizeof(p), "%s[%zu].name", path, i), name);
            else if (!m.n)
                names[nnames++] = name;
        }
        long long cp = json_integer_value(json_object_get(port, "containerPort"));
        if (cp == 0)
            wh_ferr_required(l, wh_fpath(p, sizeof(p), "%s[%zu].containerPort", path, i), "");
        else if (cp < 1 || cp > 65535)
            wh_ferr_invalid_int(l, wh_fpath(p, sizeof(p), "%s[%zu].containerPort", path, i), cp,
                                "must be between 1 and 65535, inclusive");
        long long hp = json_integer_value(json_object_get(port, "hostPort"));
        if (hp != 0 && (hp < 1 || hp > 65535))
            wh_ferr_invalid_int(l, wh_fpath(p, sizeof(p), "%s[%zu].hostPort", path, i), hp,
                                "must be between 1 and 65535, inclusive");
        const char *proto = wh_json_str_or_empty(port, "protocol");
        bool known = false;
        for (size_t k = 0; k < 3; k++)
            known |= strcmp(proto, protocols[k]) == 0;
        if (!*proto)
            wh_ferr_required(l, wh_fpath(p, sizeof(p), "%s[%zu].protocol", path, i), "");
        else if (!known)
            wh_ferr_not_supported(l, wh_fpath(p, sizeof(p), "%s[%zu].protocol", path, i), proto,
                                  protocols, 3);
    }
    free(names);
}

/* Kubernetes' ValidateEnv, ValidateEnvFrom and ValidateSecurityContext, as k8s/podvalidation.h
 * runs them on a container: the container's env, envFrom and securityContext are validated in
 * a Pod of their own, and of its errors those under that field are kept, at path. (Those three
 * rules are not exported one by one; nothing else in that Pod is checked against them.) */
struct core_rules {
    struct wh_field_errors env, env_from, security;
};

static bool under(const char *text, const char *prefix)
{
    size_t n = strlen(prefix);
    return strncmp(text, prefix, n) == 0 && (text[n] == '[' || text[n] == '.' || text[n] == ':');
}

static void core_rules(struct core_rules *out, const json_t *c, const char *path)
{
    static const char *const members[] = {"env", "envFrom", "securityContext"};
    struct wh_field_errors *lists[] = {&out->env, &out->env_from, &out->security};
    json_t *container = json_pack("{s:s,s:s,s:s,s:s}", "name", "c", "image", "i", "imagePullPolicy",
                                  "Always", "terminationMessagePolicy", "File");
    for (size_t i = 0; i < 3; i++) {
        wh_ferrs_init(lists[i]);
        const json_t *v = json_object_get(c, members[i]);
        if (v)
            json_object_set_new(container, members[i], wh_json_copy(v));
    }
    json_t *spec = json_pack("{s:[o],s:s,s:s}", "containers", container, "restartPolicy", "Always",
                             "dnsPolicy", "ClusterFirst");
    struct wh_field_errors all;
    wh_ferrs_init(&all);
    wh_validate_pod_spec_at(&all, spec, NULL, "spec");
    for (size_t e = 0; e < all.n; e++) {
        for (size_t i = 0; i < 3; i++) {
            char prefix[64];
            snprintf(prefix, sizeof(prefix), "spec.containers[0].%s", members[i]);
            if (!under(all.items[e], prefix))
                continue;
            const char *rest = all.items[e] + strlen("spec.containers[0]");
            char *text = wh_str_printf("%s%s", path, rest);
            wh_ferr_add_text(lists[i], text);
            free(text);
        }
    }
    wh_ferrs_fini(&all);
    json_decref(spec);
}

static void take_all(struct wh_field_errors *l, struct wh_field_errors *from)
{
    for (size_t i = 0; i < from->n; i++)
        wh_ferr_add_text(l, from->items[i]);
    wh_ferrs_fini(from);
}

/* validatePullPolicy (upstream's copy). */
static void pull_policy(struct wh_field_errors *l, const char *policy, const char *path)
{
    static const char *const valid[] = {"Always", "IfNotPresent", "Never"};
    for (size_t i = 0; i < 3; i++)
        if (strcmp(policy, valid[i]) == 0)
            return;
    if (!*policy)
        wh_ferr_required(l, path, "");
    else
        wh_ferr_not_supported(l, path, policy, valid, 3);
}

/* validateContainerCommon (upstream's copy). */
static void container_common(struct wh_field_errors *l, const json_t *c, const char *path)
{
    char p[256];
    const char *name = wh_json_str_or_empty(c, "name");
    wh_fpath(p, sizeof(p), "%s.name", path);
    if (!*name) {
        wh_ferr_required(l, p, "");
    } else {
        struct wh_vmsgs m = {0};
        wh_is_dns1123_label(name, &m);
        for (size_t k = 0; k < m.n; k++)
            wh_ferr_invalid_str(l, p, name, m.m[k]);
    }
    if (!*wh_json_str_or_empty(c, "image"))
        wh_ferr_required(l, wh_fpath(p, sizeof(p), "%s.image", path), "");
    const char *tmp = wh_json_str_or_empty(c, "terminationMessagePolicy");
    static const char *const policies[] = {"File", "FallbackToLogsOnError"};
    wh_fpath(p, sizeof(p), "%s.terminationMessagePolicy", path);
    if (!*tmp)
        wh_ferr_required(l, p, "");
    else if (strcmp(tmp, policies[0]) != 0 && strcmp(tmp, policies[1]) != 0)
        wh_ferr_not_supported(l, p, tmp, policies, 2);
    ports(l, wh_json_arr(c, "ports"), wh_fpath(p, sizeof(p), "%s.ports", path));
    struct core_rules core;
    core_rules(&core, c, path);
    take_all(l, &core.env);
    take_all(l, &core.env_from);
    pull_policy(l, wh_json_str_or_empty(c, "imagePullPolicy"),
                wh_fpath(p, sizeof(p), "%s.imagePullPolicy", path));
    take_all(l, &core.security);
}

/* validateContainerOnlyForPod: strings.TrimSpace would change the image. */
static void image_spaces(struct wh_field_errors *l, const json_t *c, const char *path)
{
    const char *image = wh_json_str_or_empty(c, "image");
    size_t n = strlen(image);
    if (!n)
        return;
    const unsigned char *u = (const unsigned char *)image;
    bool padded = wh_utf8_space_len(u, n) > 0;
    for (size_t back = 1; back <= 3 && back <= n && !padded; back++) {
        size_t size;
        uint32_t r = wh_utf8_decode(u + n - back, back, &size);
        padded = size == back && wh_utf8_is_space(r);
    }
    if (padded) {
        char p[256];
        wh_ferr_invalid_str(l, wh_fpath(p, sizeof(p), "%s.image", path), image,
                            "must not have leading or trailing whitespace");
    }
}

/* validateFieldAllowList of EphemeralContainerCommon (core's field order): a field outside the
 * allowed ones is refused when Go's value is not its zero value (a slice or map given as [] or
 * {} is not; a pointer to anything is not). */
static void allowed_fields(struct wh_field_errors *l, const json_t *c, const char *path)
{
    static const char *const refused[] = {"ports",         "resources",     "resizePolicy",
                                          "restartPolicy", "livenessProbe", "readinessProbe",
                                          "startupProbe",  "lifecycle"};
    for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
        const json_t *v = set(c, refused[i]);
        bool zero = !v;
        if (v && strcmp(refused[i], "resources") == 0)
            zero = !set(v, "limits") && !set(v, "requests") && !set(v, "claims");
        if (zero)
            continue;
        char p[256];
        wh_ferr_forbidden(l, wh_fpath(p, sizeof(p), "%s.%s", path, refused[i]), NOT_IN_EPHEMERAL);
    }
}

static void ephemeral_containers(struct wh_field_errors *l, const json_t *list)
{
    size_t n = json_array_size(list), i;
    const json_t *c;
    const char **names = wh_xcalloc(n + 1, sizeof(*names));
    json_array_foreach(list, i, c)
    {
        char path[64], p[256];
        snprintf(path, sizeof(path), "ephemeralContainers[%zu]", i);
        container_common(l, c, path);
        image_spaces(l, c, path);
        const char *name = wh_json_str_or_empty(c, "name");
        bool dup = false;
        for (size_t k = 0; k < i && !dup; k++)
            dup = strcmp(names[k], name) == 0;
        names[i] = name;
        if (dup)
            wh_ferr_duplicate(l, wh_fpath(p, sizeof(p), "%s.name", path), name);
        allowed_fields(l, c, path);
        size_t m;
        const json_t *vm;
        json_array_foreach(wh_json_arr(c, "volumeMounts"), m, vm)
        {
            if (*wh_json_str_or_empty(vm, "subPath"))
                wh_ferr_forbidden(l, wh_fpath(p, sizeof(p), "%s.volumeMounts[%zu].subPath", path, m),
                                  NOT_IN_EPHEMERAL);
            if (*wh_json_str_or_empty(vm, "subPathExpr"))
                wh_ferr_forbidden(
                    l, wh_fpath(p, sizeof(p), "%s.volumeMounts[%zu].subPathExpr", path, m),
                    NOT_IN_EPHEMERAL);
        }
    }
    free(names);
}

static enum wh_err admit(const struct wh_handler_ctx *ctx, const struct wh_admission_request *req,
                         struct wh_admission_response *resp, struct wh_errbuf *eb)
{
    json_t *obj = NULL;
    char *msg = NULL;
    (void)ctx;
    (void)eb;
    /* the handler decodes into the v1alpha1 type, whatever the request's version */
    if (wh_kobj_decode(req->object, KIND, WH_KOBJ_V1ALPHA1, false, &obj, &msg)) {
        wh_admission_deny(resp, 400, "%s", msg ? msg : "");
        free(msg);
        return WH_OK;
    }
    struct wh_field_errors errs;
    wh_ferrs_init(&errs);
    ephemeral_containers(&errs, wh_json_arr(wh_json_path(obj, "spec", "template", NULL),
                                            "ephemeralContainers"));
    wh_jobs_answer(resp, &errs, 400, "allowed");
    wh_ferrs_fini(&errs);
    json_decref(obj);
    return WH_OK;
}

const struct wh_route wh_ephemeraljob_validate_route = {
    .path = "/validate-apps-kruise-io-v1alpha1-ephemeraljob",
    .kind = WH_ROUTE_VALIDATE,
    .admit = admit,
    .entries = {{.name = "vephemeraljobs.kb.io",
                 .group = WH_KRUISE_APPS,
                 .versions = {"v1alpha1"},
                 .resource = "ephemeraljobs",
                 .operations = WH_WEBHOOK_CREATE | WH_WEBHOOK_UPDATE}},
};
