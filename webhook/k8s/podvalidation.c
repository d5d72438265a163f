/* ValidatePodTemplateSpec and ValidatePodSpec of k8s v1.32.10 with the Pod-level fields:
 * security context and sysctls, DNS, host namespaces, readiness and scheduling gates, names,
 * deadlines, priority, runtime class, overhead, the OS rules and Windows host processes. The
 * volumes are in podvolumes.c, the containers in podcontainers.c, the annotations in
 * podannotations.c, affinity, tolerations and topology spread in scheduling.c. */
#include "k8s/podvalidation.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "k8s/podvalidation_int.h"
#include "k8s/scheduling.h"
#include "util/json.h"
#include "util/mem.h"
#include "util/str.h"

#define P(...) wh_fpath(p, sizeof(p), __VA_ARGS__)

/* --- small readers ------------------------------------------------------------------------ */

const json_t *wh_pv_get(const json_t *o, const char *key)
{
    const json_t *v = json_is_object(o) ? json_object_get(o, key) : NULL;
    return json_is_null(v) ? NULL : v;
}

long long wh_pv_int(const json_t *o, const char *key)
{
    const json_t *v = wh_pv_get(o, key);
    return json_is_integer(v) ? json_integer_value(v) : 0;
}

bool wh_pv_quantity(const json_t *v, struct wh_quantity *q)
{
    char text[96];
    struct wh_errbuf eb;
    if (!v)
        return false;
    if (json_is_null(v)) { /* Quantity.UnmarshalJSON of null: the zero quantity */
        wh_quantity_set_scaled(q, 0, 0, WH_QUANTITY_DECIMAL_SI);
        return true;
    }
    if (json_is_string(v))
        return wh_quantity_parse(json_string_value(v), q, &eb) == WH_OK;
    if (json_is_integer(v))
        snprintf(text, sizeof(text), "%lld", (long long)json_integer_value(v));
    else if (json_is_real(v))
        snprintf(text, sizeof(text), "%.17g", json_real_value(v));
    else
        return false;
    return wh_quantity_parse(text, q, &eb) == WH_OK;
}

void wh_pv_invalid_msgs(struct wh_field_errors *l, const char *path, const char *value,
                        const struct wh_vmsgs *m)
{
    for (size_t i = 0; i < m->n; i++)
        wh_ferr_invalid_str(l, path, value, m->m[i]);
}

void wh_pv_check(struct wh_field_errors *l, const char *path, const char *value,
                 void (*check)(const char *v, struct wh_vmsgs *out))
{
    struct wh_vmsgs m = {0};
    check(value, &m);
    wh_pv_invalid_msgs(l, path, value, &m);
}

const char **wh_pv_keys(const json_t *o, size_t *n)
{
    if (!json_is_object(o)) {
        *n = 0;
        return wh_xcalloc(1, sizeof(const char *));
    }
    return wh_json_sorted_keys(o, n);
}

static void name_check(struct wh_field_errors *l, const char *path, const char *value)
{
    struct wh_vmsgs m = {0};
    wh_name_is_dns_subdomain(value, false, &m);
    wh_pv_invalid_msgs(l, path, value, &m);
}

/* --- the spec as core sees it ---------------------------------------------------------------- */

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void spec_init(struct wh_pv_spec *s, const json_t *spec, const json_t *pod_meta)
{
    memset(s, 0, sizeof(*s));
    s->spec = spec;
    s->sc = wh_pv_get(spec, "securityContext");
    s->host_network = json_is_true(wh_pv_get(spec, "hostNetwork"));
    s->host_pid = json_is_true(wh_pv_get(spec, "hostPID"));
    s->host_ipc = json_is_true(wh_pv_get(spec, "hostIPC"));
    s->share_process_namespace = wh_pv_get(spec, "shareProcessNamespace");
    s->host_users = wh_pv_get(spec, "hostUsers");
    s->host_users_effective = !s->host_users || json_is_true(s->host_users);
    const json_t *grace = wh_pv_get(spec, "terminationGracePeriodSeconds");
    s->has_grace = grace != NULL;
    s->grace = json_integer_value(grace);
    /* Convert_v1_Pod_To_core_Pod (a Pod's, not a template's) reads a negative period as 1 */
    if (pod_meta && s->has_grace && s->grace < 0)
        s->grace = 1;
    s->restart_policy = wh_json_str_or_empty(spec, "restartPolicy");
    s->pod_meta = pod_meta;
    /* gatherPodResourceClaimNames, sorted for the messages that list them */
    const json_t *claims = wh_json_arr(spec, "resourceClaims");
    size_t i;
    const json_t *c;
    s->claim_names = wh_xcalloc(json_array_size(claims) + 1, sizeof(*s->claim_names));
    json_array_foreach(claims, i, c)
    {
        const char *name = wh_json_str_or_empty(c, "name");
        bool seen = false;
        for (size_t k = 0; k < s->nclaims && !seen; k++)
            seen = strcmp(s->claim_names[k], name) == 0;
        if (*name && !seen)
            s->claim_names[s->nclaims++] = name;
    }
    qsort(s->claim_names, s->nclaims, sizeof(*s->claim_names), cmp_str);
}

static void spec_fini(struct wh_pv_spec *s)
{
    wh_pv_vols_fini(&s->vols);
    free(s->claim_names);
}

/* The serviceAccountName core sees: serviceAccount stands in for an empty one. */
static const char *service_account(const json_t *spec)
{
    const char *sa = wh_json_str_or_empty(spec, "serviceAccountName");
    return *sa ? sa : wh_json_str_or_empty(spec, "serviceAccount");
}

/* --- resource claims ----------------------------------------------------------------------------
 */

static void resource_claims(struct wh_field_errors *l, const struct wh_pv_spec *s, const char *path)
{
    char p[WH_PV_PATH], cp[WH_PV_PATH];
    size_t i, n = 0;
    const json_t *c;
    const json_t *claims = wh_json_arr(s->spec, "resourceClaims");
    const char **names = wh_xcalloc(json_array_size(claims) + 1, sizeof(*names));
    json_array_foreach(claims, i, c)
    {
        wh_fpath(cp, sizeof(cp), "%s[%zu]", path, i);
        /* static Pods do not support resource claims (field.NewPath(""): printed "[]") */
        if (s->pod_meta &&
            json_object_get(wh_pv_get(s->pod_meta, "annotations"), "kubernetes.io/config.mirror")) {
            wh_ferr_forbidden(l, "[]", "static pods do not support resource claims");
            continue;
        }
        const char *name = wh_json_str_or_empty(c, "name");
        bool seen = false;
        for (size_t k = 0; k < n && !seen; k++)
            seen = strcmp(names[k], name) == 0;
        if (!*name) {
            wh_ferr_required(l, P("%s.name", cp), "");
        } else if (seen) {
            wh_ferr_duplicate(l, P("%s.name", cp), name);
        } else {
            wh_pv_check(l, P("%s.name", cp), name, wh_is_dns1123_label);
            names[n++] = name;
        }
        const json_t *rcn = wh_pv_get(c, "resourceClaimName"),
                     *rctn = wh_pv_get(c, "resourceClaimTemplateName");
        if (rcn && rctn) {
            char *g = wh_pv_gosyntax_resource_claim(c);
            wh_ferr_invalid_raw(l, cp, g,
                                "at most one of `resourceClaimName` or `resourceClaimTemplateName` "
                                "may be specified");
            free(g);
        }
        if (!rcn && !rctn) {
            char *g = wh_pv_gosyntax_resource_claim(c);
            wh_ferr_invalid_raw(l, cp, g,
                                "must specify one of: `resourceClaimName`, "
                                "`resourceClaimTemplateName`");
            free(g);
        }
        if (rcn)
            name_check(l, P("%s.resourceClaimName", cp),
                       json_is_string(rcn) ? json_string_value(rcn) : "");
        if (rctn)
            name_check(l, P("%s.resourceClaimTemplateName", cp),
                       json_is_string(rctn) ? json_string_value(rctn) : "");
    }
    free(names);
}

/* --- security context ------------------------------------------------------------------------- */

/* ^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$, at most 253 bytes */
static bool sysctl_name_valid(const char *name)
{
    size_t n = strlen(name), seg = 0;
    if (n > 253 || n == 0)
        return false;
    for (size_t i = 0; i <= n; i++) {
        char c = name[i];
        if (i == n || c == '.' || c == '/') {
            if (seg == 0)
                return false;
            char first = name[i - seg], last = name[i - 1];
            bool fa = (first >= 'a' && first <= 'z') || (first >= '0' && first <= '9');
            bool la = (last >= 'a' && last <= 'z') || (last >= '0' && last <= '9');
            if (!fa || !la)
                return false;
            seg = 0;
            continue;
        }
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_'))
            return false;
        seg++;
    }
    return true;
}

enum sysctl_ns { NS_UNKNOWN, NS_IPC, NS_NET };

/* utilsysctl.GetNamespace. */
static enum sysctl_ns sysctl_namespace(const char *sysctl)
{
    static const char *const ipc[] = {
        "kernel.sem", "kernel.shmall", "kernel.shmmax", "kernel.shmmni", "kernel.shm_rmid_forced",
        "kernel.shm", "kernel.msgmax", "kernel.msgmnb", "kernel.msgmni", "kernel.msg"};
    char *v = wh_xstrdup(sysctl);
    /* NormalizeName: a name whose first separator is '/' has '.' and '/' swapped */
    size_t first = strcspn(v, "./");
    if (v[first] == '/')
        for (char *c = v; *c; c++)
            *c = *c == '.' ? '/' : *c == '/' ? '.' : *c;
    char *star = strchr(v, '*');
    if (star)
        *star = '\0';
    enum sysctl_ns ns = NS_UNKNOWN;
    for (size_t i = 0; i < sizeof(ipc) / sizeof(ipc[0]); i++)
        if (strcmp(ipc[i], v) == 0)
            ns = NS_IPC;
    if (ns == NS_UNKNOWN && wh_str_has_prefix(v, "net."))
        ns = NS_NET;
    if (ns == NS_UNKNOWN && wh_str_has_prefix(v, "fs.mqueue."))
        ns = NS_IPC;
    free(v);
    return ns;
}

static void sysctls(struct wh_field_errors *l, const struct wh_pv_spec *s, const json_t *list,
                    const char *path)
{
    char p[WH_PV_PATH];
    size_t i, k;
    const json_t *sy;
    json_array_foreach(list, i, sy)
    {
        const char *name = wh_json_str_or_empty(sy, "name");
        P("%s[%zu].name", path, i);
        bool dup = false;
        for (k = 0; k < i && !dup; k++)
            dup = strcmp(wh_json_str_or_empty(json_array_get(list, k), "name"), name) == 0;
        if (!*name)
            wh_ferr_required(l, p, "");
        else if (!sysctl_name_valid(name))
            wh_ferr_invalid_str(
                l, p, name,
                "must have at most 253 characters and match regex "
                "^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])"
                "?$");
        else if (dup)
            wh_ferr_duplicate(l, p, name);
        enum sysctl_ns ns = sysctl_namespace(name);
        if (s->host_network && ns == NS_NET)
            wh_ferr_invalid_str(l, p, name, "may not be specified when 'hostNetwork' is true");
        else if (s->host_ipc && ns == NS_IPC)
            wh_ferr_invalid_str(l, p, name, "may not be specified when 'hostIPC' is true");
    }
}

static void one_of(struct wh_field_errors *l, const json_t *o, const char *key,
                   const char *const *valid, size_t n, const char *path)
{
    const json_t *v = wh_pv_get(o, key);
    if (!v)
        return;
    const char *s = json_is_string(v) ? json_string_value(v) : "";
    for (size_t i = 0; i < n; i++)
        if (strcmp(valid[i], s) == 0)
            return;
    wh_ferr_not_supported(l, path, s, valid, n);
}

static void group_id(struct wh_field_errors *l, const json_t *v, const char *path)
{
    if (json_is_integer(v) && (json_integer_value(v) < 0 || json_integer_value(v) > 2147483647))
        wh_ferr_invalid_int(l, path, json_integer_value(v),
                            "must be between 0 and 2147483647, inclusive");
}

/* validatePodSpecSecurityContext: fldPath is path.securityContext; the security context always
 * exists in core (the conversion makes it). */
static void pod_security_context(struct wh_field_errors *l, const struct wh_pv_spec *s,
                                 const char *path)
{
    static const char *const fsg[] = {"Always", "OnRootMismatch"};
    static const char *const sgp[] = {"Merge", "Strict"};
    static const char *const selinux[] = {"MountOption", "Recursive"};
    char p[WH_PV_PATH], sp[WH_PV_PATH];
    const json_t *sc = s->sc;
    wh_fpath(sp, sizeof(sp), "%s.securityContext", path);
    group_id(l, wh_pv_get(sc, "fsGroup"), P("%s.fsGroup", sp));
    group_id(l, wh_pv_get(sc, "runAsUser"), P("%s.runAsUser", sp));
    group_id(l, wh_pv_get(sc, "runAsGroup"), P("%s.runAsGroup", sp));
    size_t i;
    const json_t *g;
    json_array_foreach(wh_json_arr(sc, "supplementalGroups"), i, g)
    {
        group_id(l, g, P("%s.supplementalGroups[%zu]", sp, i));
    }
    if (json_is_true(s->share_process_namespace) && s->host_pid)
        wh_ferr_invalid_raw(l, P("%s.shareProcessNamespace", sp), "true",
                            "ShareProcessNamespace and HostPID cannot both be enabled");
    const json_t *sy = wh_json_arr(sc, "sysctls");
    if (json_array_size(sy))
        sysctls(l, s, sy, P("%s.sysctls", sp));
    one_of(l, sc, "fsGroupChangePolicy", fsg, 2, P("%s.fsGroupChangePolicy", sp));
    wh_pv_seccomp_profile(l, wh_pv_get(sc, "seccompProfile"), P("%s.seccompProfile", sp));
    wh_pv_windows_options(l, wh_pv_get(sc, "windowsOptions"), P("%s.windowsOptions", sp));
    wh_pv_apparmor_profile(l, wh_pv_get(sc, "appArmorProfile"), P("%s.appArmorProfile", sp));
    one_of(l, sc, "supplementalGroupsPolicy", sgp, 2, P("%s.supplementalGroupsPolicy", sp));
    one_of(l, sc, "seLinuxChangePolicy", selinux, 2, P("%s.seLinuxChangePolicy", sp));
}

/* --- DNS and host namespaces ---------------------------------------------------------------------
 */

/* An Invalid whose value is a []string. */
static void invalid_strings(struct wh_field_errors *l, const char *path, const json_t *arr,
                            const char *detail)
{
    char *g = wh_pv_gosyntax_strings(arr);
    wh_ferr_invalid_raw(l, path, g, detail);
    free(g);
}

static void dns_config(struct wh_field_errors *l, const json_t *spec, const char *path)
{
    char p[WH_PV_PATH];
    const json_t *dc = wh_pv_get(spec, "dnsConfig");
    const json_t *ns = wh_json_arr(dc, "nameservers"), *searches = wh_json_arr(dc, "searches");
    if (strcmp(wh_json_str_or_empty(spec, "dnsPolicy"), "None") == 0) {
        if (!dc) {
            wh_ferr_required(l, path, "must provide `dnsConfig` when `dnsPolicy` is None");
            return;
        }
        if (json_array_size(ns) == 0) {
            wh_ferr_required(l, P("%s.nameservers", path),
                             "must provide at least one DNS nameserver when `dnsPolicy` is None");
            return;
        }
    }
    if (!dc)
        return;
    size_t i, total = 0;
    const json_t *v;
    if (json_array_size(ns) > 3)
        invalid_strings(l, P("%s.nameservers", path), ns, "must not have more than 3 nameservers");
    json_array_foreach(ns, i, v)
    {
        wh_validate_ip(l, json_is_string(v) ? json_string_value(v) : "",
                       P("%s.nameservers[%zu]", path, i));
    }
    if (json_array_size(searches) > 32)
        invalid_strings(l, P("%s.searches", path), searches,
                        "must not have more than 32 search paths");
    json_array_foreach(searches, i, v)
    {
        total += (i ? 1 : 0) + strlen(json_is_string(v) ? json_string_value(v) : "");
    }
    if (total > 2048)
        invalid_strings(l, P("%s.searches", path), searches,
                        "must not have more than 2048 characters (including spaces) in the "
                        "search list");
    json_array_foreach(searches, i, v)
    {
        char *search = wh_xstrdup(json_is_string(v) ? json_string_value(v) : "");
        size_t n = strlen(search);
        if (n && search[n - 1] == '.')
            search[n - 1] = '\0';
        wh_pv_check(l, P("%s.searches[%zu]", path, i), search, wh_is_dns1123_subdomain);
        free(search);
    }
    json_array_foreach(wh_json_arr(dc, "options"), i, v)
    {
        if (!*wh_json_str_or_empty(v, "name"))
            wh_ferr_required(l, P("%s.options[%zu]", path, i), "must not be empty");
    }
}

/* validatePodHostNetworkDeps (ResourceIsPod unset: a host port 0 is allowed). */
static void host_network_deps(struct wh_field_errors *l, const struct wh_pv_spec *s,
                              const char *path)
{
    char p[WH_PV_PATH];
    size_t i, k;
    const json_t *c, *port;
    if (!s->host_network)
        return;
    json_array_foreach(wh_json_arr(s->spec, "containers"), i, c)
    {
        json_array_foreach(wh_json_arr(c, "ports"), k, port)
        {
            long long hp = wh_pv_int(port, "hostPort"), cp = wh_pv_int(port, "containerPort");
            if (hp != 0 && hp != cp)
                wh_ferr_invalid_int(l, P("%s.containers[%zu].ports[%zu].hostPort", path, i, k), hp,
                                    "must match `containerPort` when `hostNetwork` is true");
        }
    }
}

struct host_process {
    const json_t *pod; /* the Pod's windowsOptions.hostProcess, or NULL */
    size_t containers, host_process;
    struct wh_field_errors *l;
};

static bool host_process_container(const json_t *c, const char *cpath, void *arg)
{
    struct host_process *h = arg;
    const json_t *hp =
        wh_pv_get(wh_pv_get(wh_pv_get(c, "securityContext"), "windowsOptions"), "hostProcess");
    h->containers++;
    if (h->pod && hp && json_is_true(h->pod) != json_is_true(hp)) {
        char p[WH_PV_PATH];
        char *d = wh_str_printf("pod hostProcess value must be identical if both are specified, "
                                "was %s",
                                json_is_true(h->pod) ? "true" : "false");
        wh_ferr_invalid_raw(
            h->l, wh_fpath(p, sizeof(p), "%s.securityContext.windowsOptions.hostProcess", cpath),
            json_is_true(hp) ? "true" : "false", d);
        free(d);
    }
    if ((hp && json_is_true(hp)) || (!hp && h->pod && json_is_true(h->pod)))
        h->host_process++;
    return true;
}

static void windows_host_process(struct wh_field_errors *l, const struct wh_pv_spec *s,
                                 const char *path)
{
    char p[WH_PV_PATH];
    struct host_process h = {wh_pv_get(wh_pv_get(s->sc, "windowsOptions"), "hostProcess"), 0, 0, l};
    wh_pv_visit_containers(s->spec, path, host_process_container, &h);
    if (h.host_process == 0)
        return;
    if (h.host_process != h.containers)
        wh_ferr_invalid_str(
            l, path, "",
            "If pod contains any hostProcess containers then all containers must be "
            "HostProcess containers");
    if (!s->host_network)
        wh_ferr_invalid_raw(l, P("%s.hostNetwork", path), "false",
                            "hostNetwork must be true if pod contains any hostProcess containers");
    /* "hostProcess containers are disallowed by cluster policy": privileged is allowed */
}

static void host_users(struct wh_field_errors *l, const struct wh_pv_spec *s, const char *path)
{
    char p[WH_PV_PATH];
    if (!s->host_users || json_is_true(s->host_users))
        return;
    if (s->host_network)
        wh_ferr_forbidden(l, P("%s.hostNetwork", path), "when `pod.Spec.HostUsers` is false");
    if (s->host_pid)
        wh_ferr_forbidden(l, P("%s.HostPID", path), "when `pod.Spec.HostUsers` is false");
    if (s->host_ipc)
        wh_ferr_forbidden(l, P("%s.HostIPC", path), "when `pod.Spec.HostUsers` is false");
}

/* --- the OS rules
 * --------------------------------------------------------------------------------- */

static bool linux_container(const json_t *c, const char *cpath, void *arg)
{
    struct wh_field_errors *l = arg;
    char p[WH_PV_PATH];
    if (wh_pv_get(wh_pv_get(c, "securityContext"), "windowsOptions"))
        wh_ferr_forbidden(l, wh_fpath(p, sizeof(p), "%s.securityContext.windowsOptions", cpath),
                          "windows options cannot be set for a linux pod");
    return true;
}

static bool windows_container(const json_t *c, const char *cpath, void *arg)
{
    static const char *const fields[] = {"appArmorProfile",
                                         "seLinuxOptions",
                                         "seccompProfile",
                                         "capabilities",
                                         "readOnlyRootFilesystem",
                                         "privileged",
                                         "allowPrivilegeEscalation",
                                         "procMount",
                                         "runAsUser",
                                         "runAsGroup"};
    struct wh_field_errors *l = arg;
    char p[WH_PV_PATH];
    const json_t *sc = wh_pv_get(c, "securityContext");
    if (!sc)
        return true;
    for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
        if (wh_pv_get(sc, fields[i]))
            wh_ferr_forbidden(l, wh_fpath(p, sizeof(p), "%s.securityContext.%s", cpath, fields[i]),
                              "cannot be set for a windows pod");
    return true;
}

static void os_rules(struct wh_field_errors *l, const struct wh_pv_spec *s, const char *path)
{
    static const char *const oses[] = {"linux", "windows"};
    char p[WH_PV_PATH];
    const json_t *os = wh_pv_get(s->spec, "os");
    if (!os)
        return;
    const char *name = wh_json_str_or_empty(os, "name");
    if (!*name) {
        wh_ferr_required(l, P("%s.os.name", path), "cannot be empty");
        return;
    }
    if (strcmp(name, "linux") && strcmp(name, "windows")) {
        wh_ferr_not_supported(l, P("%s.os", path), name, oses, 2);
        return;
    }
    const json_t *sc = s->sc;
    if (strcmp(name, "linux") == 0) {
        if (wh_pv_get(sc, "windowsOptions"))
            wh_ferr_forbidden(l, P("%s.securityContext.windowsOptions", path),
                              "windows options cannot be set for a linux pod");
        wh_pv_visit_containers(s->spec, path, linux_container, l);
        return;
    }
    /* validateWindows: the Pod's security context (with the host fields core keeps in it) */
    static const struct {
        const char *key, *at; /* at: the path under spec upstream names */
        bool sc_member;
    } pod_fields[] = {
        {"appArmorProfile", "securityContext.appArmorProfile", true},
        {"seLinuxOptions", "securityContext.seLinuxOptions", true},
        {"hostUsers", "hostUsers", false},
        {"hostPID", "hostPID", false},
        {"hostIPC", "hostIPC", false},
        {"seccompProfile", "securityContext.seccompProfile", true},
        {"fsGroup", "securityContext.fsGroup", true},
        {"fsGroupChangePolicy", "securityContext.fsGroupChangePolicy", true},
        {"sysctls", "securityContext.sysctls", true},
        {"shareProcessNamespace", "shareProcessNamespace", false},
        {"runAsUser", "securityContext.runAsUser", true},
        {"runAsGroup", "securityContext.runAsGroup", true},
        {"supplementalGroups", "securityContext.supplementalGroups", true},
        {"supplementalGroupsPolicy", "securityContext.supplementalGroupsPolicy", true},
        {"seLinuxChangePolicy", "securityContext.seLinuxChangePolicy", true},
    };
    for (size_t i = 0; i < sizeof(pod_fields) / sizeof(pod_fields[0]); i++) {
        const char *k = pod_fields[i].key;
        bool set;
        if (!strcmp(k, "hostPID"))
            set = s->host_pid;
        else if (!strcmp(k, "hostIPC"))
            set = s->host_ipc;
        else if (!strcmp(k, "hostUsers"))
            set = s->host_users != NULL;
        else if (!strcmp(k, "shareProcessNamespace"))
            set = s->share_process_namespace != NULL;
        else if (!strcmp(k, "sysctls"))
            set = json_array_size(wh_json_arr(sc, k)) > 0;
        else
            set = wh_pv_get(sc, k) != NULL;
        if (set)
            wh_ferr_forbidden(l, P("%s.%s", path, pod_fields[i].at),
                              "cannot be set for a windows pod");
    }
    wh_pv_visit_containers(s->spec, path, windows_container, l);
}

/* --- ValidatePodSpec
 * ------------------------------------------------------------------------------ */

static void spec_validate(struct wh_field_errors *l, struct wh_pv_spec *s, const char *path)
{
    static const char *const restart[] = {"Always", "OnFailure", "Never"};
    static const char *const dns[] = {"ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"};
    static const char *const preempt[] = {"PreemptLowerPriority", "Never"};
    char p[WH_PV_PATH];
    const json_t *spec = s->spec;
    size_t i, k;
    const json_t *v, *h;
    if (!s->has_grace)
        wh_ferr_required(l, P("%s.terminationGracePeriodSeconds", path), "");
    wh_pv_volumes(l, wh_json_arr(spec, "volumes"), s->pod_meta, P("%s.volumes", path), &s->vols);
    resource_claims(l, s, P("%s.resourceClaims", path));
    wh_pv_containers(l, s, P("%s.containers", path));
    wh_pv_init_containers(l, s, P("%s.initContainers", path));
    wh_pv_ephemeral_containers(l, s, P("%s.ephemeralContainers", path));
    host_network_deps(l, s, path);
    const char *rp = s->restart_policy;
    if (!*rp)
        wh_ferr_required(l, P("%s.restartPolicy", path), "");
    else if (strcmp(rp, "Always") && strcmp(rp, "OnFailure") && strcmp(rp, "Never"))
        wh_ferr_not_supported(l, P("%s.restartPolicy", path), rp, restart, 3);
    const char *dp = wh_json_str_or_empty(spec, "dnsPolicy");
    if (!*dp)
        wh_ferr_required(l, P("%s.dnsPolicy", path), "");
    else if (strcmp(dp, "ClusterFirstWithHostNet") && strcmp(dp, "ClusterFirst") &&
             strcmp(dp, "Default") && strcmp(dp, "None"))
        wh_ferr_not_supported(l, P("%s.dnsPolicy", path), dp, dns, 4);
    wh_validate_labels(l, wh_pv_get(spec, "nodeSelector"), P("%s.nodeSelector", path));
    pod_security_context(l, s, path);
    wh_validate_affinity(l, wh_pv_get(spec, "affinity"), P("%s.affinity", path));
    dns_config(l, spec, P("%s.dnsConfig", path));
    json_array_foreach(wh_json_arr(spec, "readinessGates"), i, v)
    {
        wh_pv_check(l, P("%s.readinessGates[%zu].conditionType", path, i),
                    wh_json_str_or_empty(v, "conditionType"), wh_is_qualified_name);
    }
    const json_t *gates = wh_json_arr(spec, "schedulingGates");
    json_array_foreach(gates, i, v)
    {
        const char *name = wh_json_str_or_empty(v, "name");
        bool dup = false;
        P("%s.schedulingGates[%zu]", path, i);
        wh_pv_check(l, p, name, wh_is_qualified_name);
        for (k = 0; k < i && !dup; k++)
            dup = strcmp(wh_json_str_or_empty(json_array_get(gates, k), "name"), name) == 0;
        if (dup)
            wh_ferr_duplicate(l, p, name);
    }
    wh_validate_topology_spread_constraints(l, wh_json_arr(spec, "topologySpreadConstraints"),
                                            P("%s.topologySpreadConstraints", path));
    windows_host_process(l, s, path);
    host_users(l, s, path);
    const char *sa = service_account(spec);
    if (*sa)
        name_check(l, P("%s.serviceAccountName", path), sa);
    const char *node = wh_json_str_or_empty(spec, "nodeName");
    if (*node)
        name_check(l, P("%s.nodeName", path), node);
    const json_t *ads = wh_pv_get(spec, "activeDeadlineSeconds");
    if (ads && (json_integer_value(ads) < 1 || json_integer_value(ads) > 2147483647))
        wh_ferr_invalid_int(l, P("%s.activeDeadlineSeconds", path), json_integer_value(ads),
                            "must be between 1 and 2147483647, inclusive");
    const char *hn = wh_json_str_or_empty(spec, "hostname"),
               *sd = wh_json_str_or_empty(spec, "subdomain");
    if (*hn)
        wh_pv_check(l, P("%s.hostname", path), hn, wh_is_dns1123_label);
    if (*sd)
        wh_pv_check(l, P("%s.subdomain", path), sd, wh_is_dns1123_label);
    const json_t *tols = wh_json_arr(spec, "tolerations");
    if (json_array_size(tols))
        wh_validate_tolerations(l, tols, P("%s.tolerations", path));
    json_array_foreach(wh_json_arr(spec, "hostAliases"), i, v)
    {
        wh_validate_ip(l, wh_json_str_or_empty(v, "ip"), P("%s.hostAliases[%zu].ip", path, i));
        json_array_foreach(wh_json_arr(v, "hostnames"), k, h)
        {
            wh_pv_check(l, P("%s.hostAliases[%zu].hostnames[%zu]", path, i, k),
                        json_is_string(h) ? json_string_value(h) : "", wh_is_dns1123_subdomain);
        }
    }
    const char *pcn = wh_json_str_or_empty(spec, "priorityClassName");
    if (*pcn)
        name_check(l, P("%s.priorityClassName", path), pcn);
    const json_t *rcn = wh_pv_get(spec, "runtimeClassName");
    if (rcn)
        name_check(l, P("%s.runtimeClassName", path),
                   json_is_string(rcn) ? json_string_value(rcn) : "");
    const json_t *pp = wh_pv_get(spec, "preemptionPolicy");
    if (pp) {
        const char *ps = json_is_string(pp) ? json_string_value(pp) : "";
        if (!*ps)
            wh_ferr_required(l, P("%s.preemptionPolicy", path), "");
        else if (strcmp(ps, "PreemptLowerPriority") && strcmp(ps, "Never"))
            wh_ferr_not_supported(l, P("%s.preemptionPolicy", path), ps, preempt, 2);
    }
    const json_t *overhead = wh_pv_get(spec, "overhead");
    if (overhead) {
        /* validateOverhead: the container rules, as limits, with no claims */
        struct wh_pv_spec none;
        memset(&none, 0, sizeof(none));
        none.as_written = s->as_written;
        wh_pv_resource_requirements(l, overhead, NULL, NULL, &none, P("%s.overhead", path));
    }
    os_rules(l, s, path);
}

static void pod_spec_at(struct wh_field_errors *l, const json_t *spec_v1, const json_t *pod_meta,
                        bool as_written, const char *path)
{
    struct wh_pv_spec s;
    spec_init(&s, spec_v1, pod_meta);
    s.as_written = as_written;
    spec_validate(l, &s, path);
    spec_fini(&s);
}

void wh_validate_pod_spec_at(struct wh_field_errors *l, const json_t *spec_v1,
                             const json_t *pod_meta, const char *path)
{
    pod_spec_at(l, spec_v1, pod_meta, false, path);
}

/* --- the template
 * ---------------------------------------------------------------------------------- */

static bool init_container_annotation(const char *key)
{
    return !strcmp(key, "pod.beta.kubernetes.io/init-containers") ||
           !strcmp(key, "pod.alpha.kubernetes.io/init-containers") ||
           !strcmp(key, "pod.beta.kubernetes.io/init-container-statuses") ||
           !strcmp(key, "pod.alpha.kubernetes.io/init-container-statuses");
}

/* The template's annotations after dropInitContainerAnnotations. Returns: new ref, or NULL for
 * none. */
static json_t *core_annotations(const json_t *template_v1)
{
    const json_t *a = wh_pv_get(wh_pv_get(template_v1, "metadata"), "annotations");
    const char *key;
    json_t *v;
    if (!json_is_object(a))
        return NULL;
    json_t *out = json_object();
    json_object_foreach((json_t *)(uintptr_t)a, key, v)
    {
        if (!init_container_annotation(key))
            json_object_set(out, key, v);
    }
    return out;
}

void wh_validate_pod_template_meta(struct wh_field_errors *l, const json_t *template_v1,
                                   const char *path)
{
    char p[WH_PV_PATH];
    const json_t *meta = wh_pv_get(template_v1, "metadata");
    json_t *annotations = core_annotations(template_v1);
    const json_t *spec = wh_pv_get(template_v1, "spec");
    wh_validate_labels(l, wh_pv_get(meta, "labels"), P("%s.labels", path));
    wh_validate_annotations(l, annotations, P("%s.annotations", path));
    wh_validate_pod_specific_annotations(l, annotations, spec, P("%s.annotations", path));
    json_decref(annotations);
}

static void pod_template_spec(struct wh_field_errors *l, const json_t *template_v1, bool as_written,
                              const char *path)
{
    char p[WH_PV_PATH];
    json_t *empty = json_object();
    const json_t *spec = wh_pv_get(template_v1, "spec");
    if (!json_is_object(spec))
        spec = empty;
    wh_validate_pod_template_meta(l, template_v1, path);
    pod_spec_at(l, spec, NULL, as_written, P("%s.spec", path));
    json_t *annotations = core_annotations(template_v1);
    wh_pv_annotations_match_fields(l, annotations, spec, P("%s.spec", path));
    json_decref(annotations);
    if (json_array_size(wh_json_arr(spec, "ephemeralContainers")))
        wh_ferr_forbidden(l, P("%s.spec.ephemeralContainers", path),
                          "ephemeral containers not allowed in pod template");
    json_decref(empty);
}

void wh_validate_pod_template_spec(struct wh_field_errors *l, const json_t *template_v1,
                                   const char *path)
{
    pod_template_spec(l, template_v1, false, path);
}

void wh_validate_pod_template_spec_as_written(struct wh_field_errors *l, const json_t *template_v1,
                                              const char *path)
{
    pod_template_spec(l, template_v1, true, path);
}

void wh_validate_pod_spec(struct wh_field_errors *l, const json_t *spec)
{
    json_t *meta = json_pack("{s:s,s:s}", "name", "test", "namespace", "default");
    wh_validate_pod_spec_at(l, spec, meta, "spec");
    wh_validate_containers_only_for_pod(l, spec, "spec");
    json_decref(meta);
}
