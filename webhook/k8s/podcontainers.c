/* A Pod's containers, init containers and ephemeral containers (validateContainers,
 * validateInitContainers, validateEphemeralContainers and validateContainerCommon with
 * everything they call: ports, env, mounts, devices, resources, resize policy, security context,
 * probes, lifecycle handlers, host ports), as k8s v1.32.10 words them. */
#include "k8s/podvalidation.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "k8s/podvalidation_int.h"
#include "util/json.h"
#include "util/mem.h"
#include "util/str.h"

#define P(...) wh_fpath(p, sizeof(p), __VA_ARGS__)

/* --- ports, env ----------------------------------------------------------------------------- */

static void ports(struct wh_field_errors *l, const json_t *list, const char *path)
{
    static const char *const protocols[] = {"SCTP", "TCP", "UDP"};
    size_t i, nn = 0;
    const json_t *port;
    char p[WH_PV_PATH], ip[WH_PV_PATH];
    const char **names = wh_xcalloc(json_array_size(list) + 1, sizeof(*names));
    json_array_foreach(list, i, port)
    {
        const char *name = wh_json_str_or_empty(port, "name");
        wh_fpath(ip, sizeof(ip), "%s[%zu]", path, i);
        if (*name) {
            struct wh_vmsgs m = {0};
            bool dup = false;
            wh_is_valid_port_name(name, &m);
            for (size_t k = 0; k < nn && !dup; k++)
                dup = strcmp(names[k], name) == 0;
            if (m.n)
                wh_pv_invalid_msgs(l, P("%s.name", ip), name, &m);
            else if (dup)
                wh_ferr_duplicate(l, P("%s.name", ip), name);
            else
                names[nn++] = name;
        }
        long long cp = wh_pv_int(port, "containerPort");
        if (cp == 0)
            wh_ferr_required(l, P("%s.containerPort", ip), "");
        else if (cp < 1 || cp > 65535)
            wh_ferr_invalid_int(l, P("%s.containerPort", ip), cp,
                                "must be between 1 and 65535, inclusive");
        long long hp = wh_pv_int(port, "hostPort");
        if (hp != 0 && (hp < 1 || hp > 65535))
            wh_ferr_invalid_int(l, P("%s.hostPort", ip), hp,
                                "must be between 1 and 65535, inclusive");
        const char *proto = wh_json_str_or_empty(port, "protocol");
        if (!*proto)
            wh_ferr_required(l, P("%s.protocol", ip), "");
        else if (strcmp(proto, "TCP") && strcmp(proto, "UDP") && strcmp(proto, "SCTP"))
            wh_ferr_not_supported(l, P("%s.protocol", ip), proto, protocols, 3);
    }
    free(names);
}

static const char *const env_field_paths[] = {
    "metadata.name",           "metadata.namespace", "metadata.uid",   "spec.nodeName",
    "spec.serviceAccountName", "status.hostIP",      "status.hostIPs", "status.podIP",
    "status.podIPs",
};

static void key_selector(struct wh_field_errors *l, const json_t *s, const char *path)
{
    char p[WH_PV_PATH];
    const char *name = wh_json_str_or_empty(s, "name"), *key = wh_json_str_or_empty(s, "key");
    struct wh_vmsgs m = {0};
    wh_name_is_dns_subdomain(name, false, &m);
    wh_pv_invalid_msgs(l, P("%s.name", path), name, &m);
    if (!*key)
        wh_ferr_required(l, P("%s.key", path), "");
    else
        wh_pv_check(l, P("%s.key", path), key, wh_is_config_map_key);
}

static void env(struct wh_field_errors *l, const json_t *list, const char *path)
{
    size_t i;
    const json_t *ev;
    char p[WH_PV_PATH], ip[WH_PV_PATH], vp[WH_PV_PATH];
    json_array_foreach(list, i, ev)
    {
        const char *name = wh_json_str_or_empty(ev, "name");
        wh_fpath(ip, sizeof(ip), "%s[%zu]", path, i);
        if (!*name)
            wh_ferr_required(l, P("%s.name", ip), "");
        else
            wh_pv_check(l, P("%s.name", ip), name, wh_is_env_var_name);
        const json_t *from = wh_pv_get(ev, "valueFrom");
        if (!from)
            continue;
        int n = 0;
        const json_t *src;
        wh_fpath(vp, sizeof(vp), "%s.valueFrom", ip);
        if ((src = wh_pv_get(from, "fieldRef"))) {
            n++;
            wh_pv_object_field_selector(l, src, env_field_paths,
                                        sizeof(env_field_paths) / sizeof(env_field_paths[0]),
                                        P("%s.fieldRef", vp));
        }
        if ((src = wh_pv_get(from, "resourceFieldRef"))) {
            n++;
            wh_pv_resource_field_selector(l, src, false, P("%s.resourceFieldRef", vp));
        }
        if ((src = wh_pv_get(from, "configMapKeyRef"))) {
            n++;
            key_selector(l, src, P("%s.configMapKeyRef", vp));
        }
        if ((src = wh_pv_get(from, "secretKeyRef"))) {
            n++;
            key_selector(l, src, P("%s.secretKeyRef", vp));
        }
        if (n == 0)
            wh_ferr_invalid_str(l, vp, "",
                                "must specify one of: `fieldRef`, `resourceFieldRef`, "
                                "`configMapKeyRef` or `secretKeyRef`");
        else if (*wh_json_str_or_empty(ev, "value"))
            wh_ferr_invalid_str(l, vp, "", "may not be specified when `value` is not empty");
        else if (n > 1)
            wh_ferr_invalid_str(l, vp, "", "may not have more than one field specified at a time");
    }
}

static void env_from(struct wh_field_errors *l, const json_t *list, const char *path)
{
    static const char *const refs[] = {"configMapRef", "secretRef"};
    size_t i;
    const json_t *ev;
    char p[WH_PV_PATH], ip[WH_PV_PATH];
    json_array_foreach(list, i, ev)
    {
        const char *prefix = wh_json_str_or_empty(ev, "prefix");
        int n = 0;
        wh_fpath(ip, sizeof(ip), "%s[%zu]", path, i);
        if (*prefix)
            wh_pv_check(l, P("%s.prefix", ip), prefix, wh_is_env_var_name);
        for (size_t k = 0; k < 2; k++) {
            const json_t *r = wh_pv_get(ev, refs[k]);
            if (!r)
                continue;
            n++;
            const char *name = wh_json_str_or_empty(r, "name");
            if (!*name) {
                wh_ferr_required(l, P("%s.%s.name", ip, refs[k]), "");
            } else {
                struct wh_vmsgs m = {0};
                wh_name_is_dns_subdomain(name, true, &m);
                wh_pv_invalid_msgs(l, P("%s.%s.name", ip, refs[k]), name, &m);
            }
        }
        if (n == 0)
            wh_ferr_invalid_str(l, path, "", "must specify one of: `configMapRef` or `secretRef`");
        else if (n > 1)
            wh_ferr_invalid_str(l, path, "",
                                "may not have more than one field specified at a time");
    }
}

/* --- volume mounts and devices ------------------------------------------------------------------
 */

/* GetVolumeMountMap / GetVolumeDeviceMap: name -> path, a later entry replacing an earlier. */
struct name_paths {
    const char **names, **paths;
    size_t n;
};

static void name_paths_build(struct name_paths *np, const json_t *list, const char *path_key)
{
    size_t i, k, n = json_array_size(list);
    const json_t *e;
    np->names = wh_xcalloc(n + 1, sizeof(*np->names));
    np->paths = wh_xcalloc(n + 1, sizeof(*np->paths));
    np->n = 0;
    json_array_foreach(list, i, e)
    {
        const char *name = wh_json_str_or_empty(e, "name"),
                   *path = wh_json_str_or_empty(e, path_key);
        for (k = 0; k < np->n && strcmp(np->names[k], name); k++)
            ;
        np->names[k] = name;
        np->paths[k] = path;
        if (k == np->n)
            np->n++;
    }
}

static void name_paths_fini(struct name_paths *np)
{
    free(np->names);
    free(np->paths);
}

static bool has_name(const struct name_paths *np, const char *name)
{
    for (size_t i = 0; i < np->n; i++)
        if (strcmp(np->names[i], name) == 0)
            return true;
    return false;
}

static bool has_path(const struct name_paths *np, const char *path)
{
    for (size_t i = 0; i < np->n; i++)
        if (strcmp(np->paths[i], path) == 0)
            return true;
    return false;
}

static bool privileged(const json_t *c)
{
    return json_is_true(wh_json_path(c, "securityContext", "privileged", NULL));
}

static void volume_mounts(struct wh_field_errors *l, const json_t *c, const struct wh_pv_vols *vols,
                          const struct name_paths *devices, const char *path)
{
    static const char *const propagations[] = {"Bidirectional", "HostToContainer", "None"};
    static const char *const rros[] = {"Disabled", "Enabled", "IfPossible"};
    size_t i, k;
    const json_t *mnt;
    char p[WH_PV_PATH], ip[WH_PV_PATH];
    const json_t *mounts = wh_json_arr(c, "volumeMounts");
    json_array_foreach(mounts, i, mnt)
    {
        const char *name = wh_json_str_or_empty(mnt, "name"),
                   *mp = wh_json_str_or_empty(mnt, "mountPath");
        const json_t *vol = wh_pv_vol_find(vols, name);
        wh_fpath(ip, sizeof(ip), "%s[%zu]", path, i);
        if (!*name)
            wh_ferr_required(l, P("%s.name", ip), "");
        if (!vol)
            wh_ferr_not_found(l, P("%s.name", ip), name);
        if (!*mp)
            wh_ferr_required(l, P("%s.mountPath", ip), "");
        bool dup = false;
        for (k = 0; k < i && !dup; k++)
            dup = strcmp(wh_json_str_or_empty(json_array_get(mounts, k), "mountPath"), mp) == 0;
        if (dup)
            wh_ferr_invalid_str(l, P("%s.mountPath", ip), mp, "must be unique");
        if (has_name(devices, name))
            wh_ferr_invalid_str(l, P("%s.name", ip), name,
                                "must not already exist in volumeDevices");
        if (has_path(devices, mp))
            wh_ferr_invalid_str(l, P("%s.mountPath", ip), mp,
                                "must not already exist as a path in volumeDevices");
        const char *sub = wh_json_str_or_empty(mnt, "subPath"),
                   *expr = wh_json_str_or_empty(mnt, "subPathExpr");
        if (vol && wh_pv_get(vol, "image")) {
            if (*sub)
                wh_ferr_invalid_str(l, P("%s.subPath", ip), sub,
                                    "not allowed in image volume sources");
            if (*expr)
                wh_ferr_invalid_str(l, P("%s.subPathExpr", ip), expr,
                                    "not allowed in image volume sources");
        }
        /* upstream reports these at the list's path, not the item's */
        if (*sub)
            wh_pv_local_descending_path(l, sub, P("%s.subPath", path));
        if (*expr) {
            if (*sub)
                wh_ferr_invalid_str(l, P("%s.subPathExpr", ip), expr,
                                    "subPathExpr and subPath are mutually exclusive");
            wh_pv_local_descending_path(l, expr, P("%s.subPathExpr", path));
        }
        const json_t *propj = wh_pv_get(mnt, "mountPropagation");
        const char *prop = json_is_string(propj) ? json_string_value(propj) : "";
        if (propj) {
            if (strcmp(prop, "Bidirectional") && strcmp(prop, "HostToContainer") &&
                strcmp(prop, "None"))
                wh_ferr_not_supported(l, P("%s.mountPropagation", path), prop, propagations, 3);
            if (strcmp(prop, "Bidirectional") == 0 && !privileged(c))
                wh_ferr_forbidden(l, P("%s.mountPropagation", path),
                                  "Bidirectional mount propagation is available only to "
                                  "privileged containers");
        }
        const json_t *rroj = wh_pv_get(mnt, "recursiveReadOnly");
        if (!rroj)
            continue;
        const char *rro = json_is_string(rroj) ? json_string_value(rroj) : "";
        if (strcmp(rro, "Enabled") == 0 || strcmp(rro, "IfPossible") == 0) {
            if (!wh_json_bool(mnt, "readOnly"))
                wh_ferr_forbidden(l, P("%s.recursiveReadOnly", path),
                                  "may only be specified when readOnly is true");
            if (propj && strcmp(prop, "None") != 0)
                wh_ferr_forbidden(l, P("%s.recursiveReadOnly", path),
                                  "may only be specified when mountPropagation is None or not "
                                  "specified");
        } else if (strcmp(rro, "Disabled") != 0) {
            wh_ferr_not_supported(l, P("%s.recursiveReadOnly", path), rro, rros, 3);
        }
    }
}

static void volume_devices(struct wh_field_errors *l, const json_t *c,
                           const struct wh_pv_vols *vols, const struct name_paths *mounts,
                           const char *path)
{
    size_t i, k;
    const json_t *dev;
    char p[WH_PV_PATH], ip[WH_PV_PATH];
    const json_t *devices = wh_json_arr(c, "volumeDevices");
    size_t n = json_array_size(devices), npaths = 0, nnames = 0;
    const char **paths = wh_xcalloc(n + 1, sizeof(*paths));
    const char **names = wh_xcalloc(n + 1, sizeof(*names));
    json_array_foreach(devices, i, dev)
    {
        const char *name = wh_json_str_or_empty(dev, "name"),
                   *dp = wh_json_str_or_empty(dev, "devicePath");
        const json_t *vol = wh_pv_vol_find(vols, name);
        bool pvc = vol && (wh_pv_get(vol, "persistentVolumeClaim") || wh_pv_get(vol, "ephemeral"));
        bool seen = false;
        wh_fpath(ip, sizeof(ip), "%s[%zu]", path, i);
        if (!*name)
            wh_ferr_required(l, P("%s.name", ip), "");
        for (k = 0; k < nnames && !seen; k++)
            seen = strcmp(names[k], name) == 0;
        if (seen)
            wh_ferr_invalid_str(l, P("%s.name", ip), name, "must be unique");
        if (vol && !pvc)
            wh_ferr_invalid_str(l, P("%s.name", ip), name,
                                "can only use volume source type of PersistentVolumeClaim or "
                                "Ephemeral for block mode");
        if (!vol)
            wh_ferr_not_found(l, P("%s.name", ip), name);
        if (!*dp)
            wh_ferr_required(l, P("%s.devicePath", ip), "");
        seen = false;
        for (k = 0; k < npaths && !seen; k++)
            seen = strcmp(paths[k], dp) == 0;
        if (seen)
            wh_ferr_invalid_str(l, P("%s.devicePath", ip), dp, "must be unique");
        if (*dp && wh_pv_has_backsteps(dp))
            wh_ferr_invalid_str(l, P("%s.devicePath", ip), dp, "can not contain backsteps ('..')");
        else
            paths[npaths++] = dp;
        if (has_name(mounts, name))
            wh_ferr_invalid_str(l, P("%s.name", ip), name,
                                "must not already exist in volumeMounts");
        if (has_path(mounts, dp))
            wh_ferr_invalid_str(l, P("%s.devicePath", ip), dp,
                                "must not already exist as a path in volumeMounts");
        if (*name)
            names[nnames++] = name;
    }
    free(paths);
    free(names);
}

/* --- resources
 * ------------------------------------------------------------------------------------ */

static bool is_hugepages(const char *name)
{
    return wh_str_has_prefix(name, "hugepages-");
}

/* helper.IsNativeResource: unprefixed, or in the kubernetes.io/ namespace. */
static bool is_native(const char *name)
{
    return !strchr(name, '/') || strstr(name, "kubernetes.io/");
}

static bool is_extended(const char *name)
{
    if (is_native(name) || wh_str_has_prefix(name, "requests."))
        return false;
    char *quota = wh_str_printf("requests.%s", name);
    struct wh_vmsgs m = {0};
    wh_is_qualified_name(quota, &m);
    free(quota);
    return m.n == 0;
}

static bool in_list(const char *name, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(list[i], name) == 0)
            return true;
    return false;
}

static bool is_integer_resource(const char *name)
{
    static const char *const ints[] = {"pods",
                                       "resourcequotas",
                                       "services",
                                       "replicationcontrollers",
                                       "secrets",
                                       "configmaps",
                                       "persistentvolumeclaims",
                                       "services.nodeports",
                                       "services.loadbalancers"};
    return in_list(name, ints, sizeof(ints) / sizeof(ints[0])) || is_extended(name);
}

/* validateContainerResourceName. A core.ResourceName prints through its String method:
 * unquoted. */
static void container_resource_name(struct wh_field_errors *l, const char *name, const char *path)
{
    static const char *const standard[] = {"cpu",
                                           "memory",
                                           "ephemeral-storage",
                                           "requests.cpu",
                                           "requests.memory",
                                           "requests.ephemeral-storage",
                                           "limits.cpu",
                                           "limits.memory",
                                           "limits.ephemeral-storage",
                                           "pods",
                                           "resourcequotas",
                                           "services",
                                           "replicationcontrollers",
                                           "secrets",
                                           "configmaps",
                                           "persistentvolumeclaims",
                                           "storage",
                                           "requests.storage",
                                           "services.nodeports",
                                           "services.loadbalancers"};
    struct wh_vmsgs m = {0};
    wh_is_qualified_name(name, &m);
    for (size_t i = 0; i < m.n; i++)
        wh_ferr_invalid_raw(l, path, name, m.m[i]);
    bool slash = strchr(name, '/') != NULL;
    /* validateResourceName returns early: a name that is not qualified is not also called
     * non-standard */
    if (!m.n && !slash && !is_hugepages(name) && !wh_str_has_prefix(name, "requests.hugepages-") &&
        !in_list(name, standard, sizeof(standard) / sizeof(standard[0])))
        wh_ferr_invalid_raw(l, path, name, "must be a standard resource type or fully qualified");
    if (!slash) {
        if (strcmp(name, "cpu") && strcmp(name, "memory") && strcmp(name, "ephemeral-storage") &&
            !is_hugepages(name))
            wh_ferr_invalid_raw(l, path, name, "must be a standard resource for containers");
    } else if (!is_native(name) && !is_extended(name)) {
        wh_ferr_invalid_raw(l, path, name, "doesn't follow extended resource name standard");
    }
}

/* ValidateResourceQuantityValue. */
static void quantity_value(struct wh_field_errors *l, const char *name, const json_t *v,
                           const struct wh_quantity *q, bool rounded, const char *path)
{
    if (wh_quantity_sign(q) < 0) {
        char shown[WH_QUANTITY_MAX_DIGITS + 8];
        wh_quantity_format(q, shown, sizeof(shown));
        wh_ferr_invalid_str(l, path, shown, WH_PV_NONNEG_MSG);
    }
    if (is_integer_resource(name) && wh_quantity_scaled_value(q, -3) % 1000 != 0) {
        char *g = wh_pv_gosyntax_quantity(v, rounded);
        wh_ferr_invalid_raw(l, path, g, "must be an integer");
        free(g);
    }
}

/* A container's resource quantity as SetDefaults_ResourceList leaves it: rounded up to milli
 * precision (a no-op on text defaulting has rounded already); as written when the spec was not
 * defaulted. */
static bool rounded_quantity(const json_t *v, const struct wh_pv_spec *s, struct wh_quantity *q)
{
    if (!wh_pv_quantity(v, q))
        return false;
    if (!s->as_written)
        (void)wh_quantity_round_up(q, -3);
    return true;
}

/* validateResourceClaimNames. */
static void claim_names(struct wh_field_errors *l, const json_t *claims, const struct wh_pv_spec *s,
                        const char *path)
{
    char p[WH_PV_PATH];
    size_t i, n = json_array_size(claims), nkeys = 0;
    const json_t *c;
    char **keys = wh_xcalloc(n + 1, sizeof(*keys));
    json_array_foreach(claims, i, c)
    {
        const char *name = wh_json_str_or_empty(c, "name"),
                   *req = wh_json_str_or_empty(c, "request");
        P("%s[%zu]", path, i);
        if (!*name) {
            wh_ferr_required(l, p, "");
            continue;
        }
        bool seen = false;
        for (size_t k = 0; k < nkeys && !seen; k++)
            seen = strcmp(keys[k], name) == 0;
        if (seen) {
            wh_ferr_duplicate(l, p, name);
        } else {
            char *key = *req ? wh_str_printf("%s/%s", name, req) : wh_xstrdup(name);
            if (*req) {
                char rp[WH_PV_PATH];
                wh_pv_check(l, wh_fpath(rp, sizeof(rp), "%s.request", p), req, wh_is_dns1123_label);
            }
            bool exact = false;
            for (size_t k = 0; k < nkeys && !exact; k++)
                exact = strcmp(keys[k], key) == 0;
            if (exact) {
                wh_ferr_duplicate(l, p, key);
            } else if (!*req) {
                /* an earlier "claim/request" of this claim: the key's part before its first
                 * '/' (a claim name with '/' never matches) */
                for (size_t k = 0; k < nkeys; k++) {
                    const char *slash = strchr(keys[k], '/');
                    if (slash && (size_t)(slash - keys[k]) == strlen(name) &&
                        strncmp(keys[k], name, strlen(name)) == 0)
                        wh_ferr_duplicate(l, p, name);
                }
            }
            keys[nkeys++] = key;
        }
        bool known = false;
        for (size_t k = 0; k < s->nclaims && !known; k++)
            known = strcmp(s->claim_names[k], name) == 0;
        if (!known) {
            struct wh_buf d;
            enum wh_err rc;
            wh_buf_init(&d, 1u << 20);
            rc = wh_buf_adds(&d, "must be one of the names in pod.spec.resourceClaims");
            if (!rc && s->nclaims == 0)
                rc = wh_buf_adds(&d, " which is empty");
            for (size_t k = 0; k < s->nclaims && !rc; k++)
                rc = wh_buf_printf(&d, "%s%s", k ? ", " : ": ", s->claim_names[k]);
            char *detail = wh_buf_take(&d, NULL);
            char *q = wh_go_quote(name);
            char *text = wh_str_printf("%s: Not found: %s: %s", p, q, detail);
            wh_ferr_add_text(l, text);
            free(text);
            free(q);
            free(detail);
        }
    }
    for (size_t k = 0; k < nkeys; k++)
        free(keys[k]);
    free(keys);
}

void wh_pv_resource_requirements(struct wh_field_errors *l, const json_t *limits,
                                 const json_t *requests, const json_t *claims,
                                 const struct wh_pv_spec *s, const char *path)
{
    char lp[WH_PV_PATH], rp[WH_PV_PATH], p[WH_PV_PATH];
    bool lim_cpu_mem = false, req_cpu_mem = false, huge = false;
    size_t n, i;
    wh_fpath(lp, sizeof(lp), "%s.limits", path);
    wh_fpath(rp, sizeof(rp), "%s.requests", path);
    const char **keys = wh_pv_keys(limits, &n);
    for (i = 0; i < n; i++) {
        const char *name = keys[i];
        const json_t *v = json_object_get(limits, name);
        char *kp = wh_str_printf("%s[%s]", lp, name);
        struct wh_quantity q;
        container_resource_name(l, name, kp);
        if (rounded_quantity(v, s, &q))
            quantity_value(l, name, v, &q, !s->as_written, kp);
        huge |= is_hugepages(name);
        lim_cpu_mem |= !strcmp(name, "cpu") || !strcmp(name, "memory");
        free(kp);
    }
    free(keys);
    keys = wh_pv_keys(requests, &n);
    for (i = 0; i < n; i++) {
        const char *name = keys[i];
        const json_t *v = json_object_get(requests, name);
        char *kp = wh_str_printf("%s[%s]", rp, name);
        struct wh_quantity q, lq;
        bool have = rounded_quantity(v, s, &q);
        container_resource_name(l, name, kp);
        if (have)
            quantity_value(l, name, v, &q, !s->as_written, kp);
        bool overcommit = is_native(name) && !is_hugepages(name);
        const json_t *lv = json_object_get(limits, name);
        if (lv && have && rounded_quantity(lv, s, &lq)) {
            char shown[WH_QUANTITY_MAX_DIGITS + 8], lshown[WH_QUANTITY_MAX_DIGITS + 8];
            wh_quantity_format(&q, shown, sizeof(shown));
            wh_quantity_format(&lq, lshown, sizeof(lshown));
            int c = wh_quantity_cmp(&q, &lq);
            char *detail = NULL;
            if (c != 0 && !overcommit)
                detail = wh_str_printf("must be equal to %s limit of %s", name, lshown);
            else if (c > 0)
                detail =
                    wh_str_printf("must be less than or equal to %s limit of %s", name, lshown);
            if (detail)
                wh_ferr_invalid_str(l, rp, shown, detail);
            free(detail);
        } else if (!lv && !overcommit) {
            wh_ferr_required(l, lp, "Limit must be set for non overcommitable resources");
        }
        huge |= is_hugepages(name);
        req_cpu_mem |= !strcmp(name, "cpu") || !strcmp(name, "memory");
        free(kp);
    }
    free(keys);
    if (!lim_cpu_mem && !req_cpu_mem && huge)
        wh_ferr_forbidden(l, path, "HugePages require cpu or memory");
    claim_names(l, claims, s, P("%s.claims", path));
}

static void resize_policy(struct wh_field_errors *l, const json_t *list, const char *restart,
                          const char *path)
{
    static const char *const names[] = {"cpu", "memory"};
    static const char *const policies[] = {"NotRequired", "RestartContainer"};
    size_t i, k;
    const json_t *rp;
    char p[WH_PV_PATH];
    json_array_foreach(list, i, rp)
    {
        const char *name = wh_json_str_or_empty(rp, "resourceName"),
                   *pol = wh_json_str_or_empty(rp, "restartPolicy");
        bool dup = false;
        for (k = 0; k < i && !dup; k++)
            dup = strcmp(wh_json_str_or_empty(json_array_get(list, k), "resourceName"), name) == 0;
        /* the resource name (core.ResourceName) prints unquoted, through its String method */
        if (dup)
            wh_ferr_duplicate_raw(l, P("%s[%zu]", path, i), name);
        if (!*name)
            wh_ferr_required(l, path, "");
        else if (strcmp(name, "cpu") && strcmp(name, "memory"))
            wh_ferr_not_supported_raw(l, path, name, names, 2);
        if (!*pol)
            wh_ferr_required(l, path, "");
        else if (strcmp(pol, "NotRequired") && strcmp(pol, "RestartContainer"))
            wh_ferr_not_supported(l, path, pol, policies, 2);
        if (strcmp(restart, "Never") == 0 && strcmp(pol, "NotRequired") != 0)
            wh_ferr_invalid_str(l, path, pol,
                                "must be 'NotRequired' when `restartPolicy` is 'Never'");
    }
}

/* --- security contexts --------------------------------------------------------------------------
 */

/* unicode.IsSpace of the rune at s; *len its length in bytes. */
static bool go_space_at(const unsigned char *s, size_t *len)
{
    *len = 1;
    if (strchr(" \t\n\v\f\r", s[0]) && s[0])
        return true;
    if (s[0] == 0xC2 && (s[1] == 0x85 || s[1] == 0xA0)) {
        *len = 2;
        return true;
    }
    if (s[0] == 0xE1 && s[1] == 0x9A && s[2] == 0x80) { /* U+1680 */
        *len = 3;
        return true;
    }
    if (s[0] == 0xE2 && s[1] == 0x80 &&
        ((s[2] >= 0x80 && s[2] <= 0x8A) || s[2] == 0xA8 || s[2] == 0xA9 || s[2] == 0xAF)) {
        *len = 3; /* U+2000..U+200A, U+2028, U+2029, U+202F */
        return true;
    }
    if ((s[0] == 0xE2 && s[1] == 0x81 && s[2] == 0x9F) || /* U+205F */
        (s[0] == 0xE3 && s[1] == 0x80 && s[2] == 0x80)) { /* U+3000 */
        *len = 3;
        return true;
    }
    return false;
}

/* Whether s has Unicode white space at either end (len(s) != len(strings.TrimSpace(s))). */
static bool padded(const char *s)
{
    size_t n = strlen(s), sl;
    if (!n)
        return false;
    if (go_space_at((const unsigned char *)s, &sl))
        return true;
    for (size_t i = n; i > 0; i--) {
        if (((unsigned char)s[i - 1] & 0xC0) == 0x80 && n - i < 3)
            continue;
        return go_space_at((const unsigned char *)s + i - 1, &sl) && i - 1 + sl == n;
    }
    return false;
}

void wh_pv_seccomp_profile(struct wh_field_errors *l, const json_t *sp, const char *path)
{
    static const char *const types[] = {"Localhost", "RuntimeDefault", "Unconfined"};
    char p[WH_PV_PATH];
    if (!sp)
        return;
    const char *type = wh_json_str_or_empty(sp, "type");
    if (!*type)
        wh_ferr_required(l, P("%s.type", path), "type is required when seccompProfile is set");
    else if (!in_list(type, types, 3))
        wh_ferr_not_supported(l, P("%s.type", path), type, types, 3);
    const json_t *lp = wh_pv_get(sp, "localhostProfile");
    if (strcmp(type, "Localhost") == 0) {
        if (!lp)
            wh_ferr_required(l, P("%s.localhostProfile", path),
                             "must be set when seccomp type is Localhost");
        else
            wh_pv_local_descending_path(l, json_is_string(lp) ? json_string_value(lp) : "",
                                        P("%s.localhostProfile", path));
    } else if (lp) {
        char *g = wh_pv_gosyntax_seccomp_profile(sp);
        wh_ferr_invalid_raw(l, P("%s.localhostProfile", path), g,
                            "can only be set when seccomp type is Localhost");
        free(g);
    }
}

void wh_pv_apparmor_profile(struct wh_field_errors *l, const json_t *prof, const char *path)
{
    static const char *const types[] = {"Localhost", "RuntimeDefault", "Unconfined"};
    char p[WH_PV_PATH];
    if (!prof)
        return;
    const char *type = wh_json_str_or_empty(prof, "type");
    const json_t *lpj = wh_pv_get(prof, "localhostProfile");
    const char *lp = json_is_string(lpj) ? json_string_value(lpj) : "";
    if (strcmp(type, "Localhost") == 0) {
        if (!lpj) {
            wh_ferr_required(l, P("%s.localhostProfile", path),
                             "must be set when AppArmor type is Localhost");
            return;
        }
        size_t n = strlen(lp);
        if (padded(lp))
            wh_ferr_invalid_str(l, P("%s.localhostProfile", path), lp,
                                "must not be padded with whitespace");
        else if (!n)
            wh_ferr_required(l, P("%s.localhostProfile", path),
                             "must be set when AppArmor type is Localhost");
        if (n > 4095)
            wh_ferr_too_long(l, P("%s.localhostProfile", path), 4095);
    } else if (strcmp(type, "RuntimeDefault") == 0 || strcmp(type, "Unconfined") == 0) {
        if (lpj)
            wh_ferr_invalid_str(l, P("%s.localhostProfile", path), lp,
                                "can only be set when AppArmor type is Localhost");
    } else if (!*type) {
        wh_ferr_required(l, P("%s.type", path), "type is required when appArmorProfile is set");
    } else {
        wh_ferr_not_supported(l, P("%s.type", path), type, types, 3);
    }
}

/* ^[^\\/:\*\?"<>|\.][^\\/:\*\?"<>|]{0,14}$ in runes (an invalid byte is one rune). */
static bool netbios_domain(const char *s)
{
    size_t runes = 0;
    for (const unsigned char *c = (const unsigned char *)s; *c;) {
        size_t n = 1;
        if (*c >= 0xC2) {
            size_t want = *c >= 0xF0 ? 4 : *c >= 0xE0 ? 3 : 2;
            n = want;
            for (size_t i = 1; i < want; i++)
                if ((c[i] & 0xC0) != 0x80) {
                    n = 1;
                    break;
                }
        }
        if (n == 1 && strchr("\\/:*?\"<>|", *c))
            return false;
        if (runes == 0 && *c == '.')
            return false;
        runes++;
        c += n;
    }
    return runes >= 1 && runes <= 15;
}

/* ^label(\.label)*$ with labels [a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])? */
static bool dns_domain(const char *s)
{
    const char *start = s;
    for (;;) {
        const char *dot = strchr(start, '.');
        size_t n = dot ? (size_t)(dot - start) : strlen(start);
        if (n < 1 || n > 63)
            return false;
        for (size_t i = 0; i < n; i++) {
            char c = start[i];
            bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
            if (!alnum && (c != '-' || i == 0 || i == n - 1))
                return false;
        }
        if (!dot)
            return true;
        start = dot + 1;
    }
}

void wh_pv_windows_options(struct wh_field_errors *l, const json_t *wo, const char *path)
{
    char p[WH_PV_PATH];
    const json_t *v;
    if (!wo)
        return;
    if ((v = wh_pv_get(wo, "gmsaCredentialSpecName"))) {
        const char *s = json_is_string(v) ? json_string_value(v) : "";
        wh_pv_check(l, P("%s.gmsaCredentialSpecName", path), s, wh_is_dns1123_subdomain);
    }
    if ((v = wh_pv_get(wo, "gmsaCredentialSpec"))) {
        const char *s = json_is_string(v) ? json_string_value(v) : "";
        size_t n = strlen(s);
        if (n == 0)
            wh_ferr_invalid_str(l, P("%s.gmsaCredentialSpec", path), s,
                                "gmsaCredentialSpec cannot be an empty string");
        else if (n > 64 * 1024)
            wh_ferr_invalid_str(l, P("%s.gmsaCredentialSpec", path), s,
                                "gmsaCredentialSpec size must be under 64 KiB");
    }
    if (!(v = wh_pv_get(wo, "runAsUserName")))
        return;
    const char *name = json_is_string(v) ? json_string_value(v) : "";
    P("%s.runAsUserName", path);
    bool ctrl = false;
    size_t backslashes = 0;
    for (const unsigned char *c = (const unsigned char *)name; *c; c++) {
        ctrl |= *c < 0x20 || *c == 0x7f;
        backslashes += *c == '\\';
    }
    if (!*name) {
        wh_ferr_invalid_str(l, p, name, "runAsUserName cannot be an empty string");
        return;
    }
    if (ctrl) {
        wh_ferr_invalid_str(l, p, name, "runAsUserName cannot contain control characters");
        return;
    }
    if (backslashes > 1) {
        wh_ferr_invalid_str(l, p, name, "runAsUserName cannot contain more than one backslash");
        return;
    }
    const char *bs = strchr(name, '\\');
    char *domain = bs ? wh_str_printf("%.*s", (int)(bs - name), name) : wh_xstrdup("");
    const char *user = bs ? bs + 1 : name;
    if (strlen(domain) >= 256)
        wh_ferr_invalid_str(l, p, name,
                            "runAsUserName's Domain length must be under 256 characters");
    if (bs && !netbios_domain(domain) && !dns_domain(domain))
        wh_ferr_invalid_str(l, p, name,
                            "runAsUserName's Domain doesn't match the NetBios nor the DNS format");
    size_t ul = strlen(user);
    if (ul == 0)
        wh_ferr_invalid_str(l, p, name, "runAsUserName's User cannot be empty");
    else if (ul > 104)
        wh_ferr_invalid_str(l, p, name,
                            "runAsUserName's User length must not be longer than 104 characters");
    bool dots_spaces = ul > 0;
    for (const char *c = user; *c && dots_spaces; c++)
        dots_spaces = *c == '.' || *c == ' ';
    if (dots_spaces)
        wh_ferr_invalid_str(l, p, name,
                            "runAsUserName's User cannot contain only periods or spaces");
    if (strpbrk(user, "\"/\\:;|=,+*?<>@[]"))
        wh_ferr_invalid_str(l, p, name,
                            "runAsUserName's User cannot contain the following characters: "
                            "\"/\\:;|=,+*?<>@[]");
    free(domain);
}

static void id_range(struct wh_field_errors *l, const json_t *o, const char *key, const char *path)
{
    const json_t *v = wh_pv_get(o, key);
    if (json_is_integer(v) && (json_integer_value(v) < 0 || json_integer_value(v) > 2147483647))
        wh_ferr_invalid_int(l, path, json_integer_value(v),
                            "must be between 0 and 2147483647, inclusive");
}

/* ValidateSecurityContext. */
static void security_context(struct wh_field_errors *l, const json_t *sc, bool host_users,
                             const char *path)
{
    static const char *const procs[] = {"Default", "Unmasked"};
    char p[WH_PV_PATH];
    if (!sc)
        return;
    /* privileged: allowed (kruise-manager's --allow-privileged defaults to true) */
    id_range(l, sc, "runAsUser", P("%s.runAsUser", path));
    id_range(l, sc, "runAsGroup", P("%s.runAsGroup", path));
    const json_t *pmj = wh_pv_get(sc, "procMount");
    if (pmj) {
        const char *pm = json_is_string(pmj) ? json_string_value(pmj) : "";
        if (strcmp(pm, "Default") && strcmp(pm, "Unmasked"))
            wh_ferr_not_supported(l, P("%s.procMount", path), pm, procs, 2);
        if (host_users && strcmp(pm, "Unmasked") == 0)
            wh_ferr_invalid_str(l, P("%s.procMount", path), pm,
                                "`hostUsers` must be false to use `Unmasked`");
    }
    wh_pv_seccomp_profile(l, wh_pv_get(sc, "seccompProfile"), P("%s.seccompProfile", path));
    if (json_is_false(wh_pv_get(sc, "allowPrivilegeEscalation"))) {
        if (json_is_true(wh_pv_get(sc, "privileged"))) {
            char *g = wh_pv_gosyntax_security_context(sc);
            wh_ferr_invalid_raw(l, path, g,
                                "cannot set `allowPrivilegeEscalation` to false and `privileged` "
                                "to true");
            free(g);
        }
        size_t i;
        const json_t *cap;
        json_array_foreach(wh_json_path(sc, "capabilities", "add", NULL), i, cap)
        {
            if (json_is_string(cap) && strcmp(json_string_value(cap), "CAP_SYS_ADMIN") == 0) {
                char *g = wh_pv_gosyntax_security_context(sc);
                wh_ferr_invalid_raw(l, path, g,
                                    "cannot set `allowPrivilegeEscalation` to false and "
                                    "`capabilities.Add` CAP_SYS_ADMIN");
                free(g);
            }
        }
    }
    wh_pv_windows_options(l, wh_pv_get(sc, "windowsOptions"), P("%s.windowsOptions", path));
    wh_pv_apparmor_profile(l, wh_pv_get(sc, "appArmorProfile"), P("%s.appArmorProfile", path));
}

/* --- probes and lifecycle handlers -------------------------------------------------------------
 */

static void port_num_or_name(struct wh_field_errors *l, const json_t *port, const char *path)
{
    if (json_is_string(port)) {
        wh_pv_check(l, path, json_string_value(port), wh_is_valid_port_name);
        return;
    }
    /* an integer, or an absent IntOrString (the integer 0) */
    long long v = json_is_integer(port) ? json_integer_value(port) : 0;
    if (v < 1 || v > 65535)
        wh_ferr_invalid_int(l, path, v, "must be between 1 and 65535, inclusive");
}

enum handler_kind { PROBE_HANDLER, LIFECYCLE_HANDLER };

/* validateHandler of a commonHandler: a probe has no sleep, a lifecycle handler no grpc. */
static void handler(struct wh_field_errors *l, const json_t *h, enum handler_kind kind,
                    const struct wh_pv_spec *s, const char *path)
{
    static const char *const kinds[] = {"exec", "httpGet", "tcpSocket", "grpc", "sleep"};
    static const char *const schemes[] = {"HTTP", "HTTPS"};
    char p[WH_PV_PATH], hp[WH_PV_PATH];
    int n = 0;
    for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
        if ((kind == PROBE_HANDLER && k == 4) || (kind == LIFECYCLE_HANDLER && k == 3))
            continue;
        const json_t *a = wh_pv_get(h, kinds[k]);
        if (!a)
            continue;
        wh_fpath(hp, sizeof(hp), "%s.%s", path, kinds[k]);
        if (n > 0) {
            wh_ferr_forbidden(l, hp, "may not specify more than 1 handler type");
            continue;
        }
        n++;
        if (k == 0) {
            if (json_array_size(wh_json_arr(a, "command")) == 0)
                wh_ferr_required(l, P("%s.command", hp), "");
        } else if (k == 1) {
            size_t i;
            const json_t *hdr;
            if (!*wh_json_str_or_empty(a, "path"))
                wh_ferr_required(l, P("%s.path", hp), "");
            port_num_or_name(l, json_object_get(a, "port"), P("%s.port", hp));
            const char *sch = wh_json_str_or_empty(a, "scheme");
            if (strcmp(sch, "HTTP") && strcmp(sch, "HTTPS"))
                wh_ferr_not_supported(l, P("%s.scheme", hp), sch, schemes, 2);
            json_array_foreach(wh_json_arr(a, "httpHeaders"), i, hdr)
            {
                const char *name = wh_json_str_or_empty(hdr, "name");
                bool ok = *name != 0;
                for (const char *c = name; *c && ok; c++)
                    ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                         (*c >= '0' && *c <= '9') || *c == '-';
                if (!ok)
                    wh_ferr_invalid_str(l, P("%s.httpHeaders", hp), name,
                                        "a valid HTTP header must consist of alphanumeric "
                                        "characters or '-' (e.g. 'X-Header-Name', regex used "
                                        "for validation is '[-A-Za-z0-9]+')");
            }
        } else if (k == 2) {
            port_num_or_name(l, json_object_get(a, "port"), P("%s.port", hp));
        } else if (k == 3) {
            const json_t *port = json_object_get(a, "port");
            long long v = json_is_integer(port) ? json_integer_value(port) : 0;
            if (v < 1 || v > 65535)
                wh_ferr_invalid_int(l, P("%s.port", hp), v,
                                    "must be between 1 and 65535, inclusive");
        } else if (s->has_grace) {
            long long sec = wh_pv_int(a, "seconds"), grace = s->grace;
            if (sec <= 0 || sec > grace) {
                char *d = wh_str_printf("must be greater than 0 and less than "
                                        "terminationGracePeriodSeconds (%lld). Enable "
                                        "AllowPodLifecycleSleepActionZeroValue feature gate for "
                                        "zero sleep.",
                                        grace);
                wh_ferr_invalid_int(l, hp, sec, d);
                free(d);
            }
        }
    }
    if (n == 0)
        wh_ferr_required(l, path, "must specify a handler type");
}

enum probe_kind { LIVENESS, READINESS, STARTUP };

static void probe(struct wh_field_errors *l, const json_t *pr, enum probe_kind kind,
                  const struct wh_pv_spec *s, const char *path)
{
    static const char *const fields[] = {"initialDelaySeconds", "timeoutSeconds", "periodSeconds",
                                         "successThreshold", "failureThreshold"};
    char p[WH_PV_PATH];
    if (!pr)
        return;
    handler(l, pr, PROBE_HANDLER, s, path);
    for (size_t k = 0; k < sizeof(fields) / sizeof(fields[0]); k++)
        wh_validate_nonnegative(l, wh_pv_int(pr, fields[k]), P("%s.%s", path, fields[k]));
    const json_t *tg = wh_pv_get(pr, "terminationGracePeriodSeconds");
    if (tg && json_integer_value(tg) <= 0)
        wh_ferr_invalid_int(l, P("%s.terminationGracePeriodSeconds", path), json_integer_value(tg),
                            "must be greater than 0");
    if (kind != READINESS && wh_pv_int(pr, "successThreshold") != 1)
        wh_ferr_invalid_int(l, P("%s.successThreshold", path), wh_pv_int(pr, "successThreshold"),
                            "must be 1");
    if (kind == READINESS && tg)
        wh_ferr_invalid_int(l, P("%s.terminationGracePeriodSeconds", path), json_integer_value(tg),
                            "must not be set for readinessProbes");
}

static void lifecycle_and_probes(struct wh_field_errors *l, const json_t *c,
                                 const struct wh_pv_spec *s, const char *path)
{
    char p[WH_PV_PATH];
    const json_t *lc = wh_pv_get(c, "lifecycle"), *h;
    if (lc) {
        if ((h = wh_pv_get(lc, "postStart")))
            handler(l, h, LIFECYCLE_HANDLER, s, P("%s.lifecycle.postStart", path));
        if ((h = wh_pv_get(lc, "preStop")))
            handler(l, h, LIFECYCLE_HANDLER, s, P("%s.lifecycle.preStop", path));
    }
    probe(l, wh_pv_get(c, "livenessProbe"), LIVENESS, s, P("%s.livenessProbe", path));
    probe(l, wh_pv_get(c, "readinessProbe"), READINESS, s, P("%s.readinessProbe", path));
    probe(l, wh_pv_get(c, "startupProbe"), STARTUP, s, P("%s.startupProbe", path));
}

/* --- containers ----------------------------------------------------------------------------------
 */

static void container_common(struct wh_field_errors *l, const json_t *c, const struct wh_pv_spec *s,
                             const char *path)
{
    static const char *const tmps[] = {"File", "FallbackToLogsOnError"};
    char p[WH_PV_PATH];
    const char *name = wh_json_str_or_empty(c, "name");
    if (!*name)
        wh_ferr_required(l, P("%s.name", path), "");
    else
        wh_pv_check(l, P("%s.name", path), name, wh_is_dns1123_label);
    if (!*wh_json_str_or_empty(c, "image"))
        wh_ferr_required(l, P("%s.image", path), "");
    const char *tmp = wh_json_str_or_empty(c, "terminationMessagePolicy");
    if (!*tmp)
        wh_ferr_required(l, P("%s.terminationMessagePolicy", path), "");
    else if (strcmp(tmp, "File") && strcmp(tmp, "FallbackToLogsOnError"))
        wh_ferr_not_supported(l, P("%s.terminationMessagePolicy", path), tmp, tmps, 2);
    struct name_paths mounts, devices;
    name_paths_build(&mounts, wh_json_arr(c, "volumeMounts"), "mountPath");
    name_paths_build(&devices, wh_json_arr(c, "volumeDevices"), "devicePath");
    ports(l, wh_json_arr(c, "ports"), P("%s.ports", path));
    env(l, wh_json_arr(c, "env"), P("%s.env", path));
    env_from(l, wh_json_arr(c, "envFrom"), P("%s.envFrom", path));
    volume_mounts(l, c, &s->vols, &devices, P("%s.volumeMounts", path));
    volume_devices(l, c, &s->vols, &mounts, P("%s.volumeDevices", path));
    wh_pv_pull_policy(l, wh_json_str_or_empty(c, "imagePullPolicy"), P("%s.imagePullPolicy", path));
    const json_t *res = wh_pv_get(c, "resources");
    wh_pv_resource_requirements(l, wh_pv_get(res, "limits"), wh_pv_get(res, "requests"),
                                wh_json_arr(res, "claims"), s, P("%s.resources", path));
    resize_policy(l, wh_json_arr(c, "resizePolicy"), s->restart_policy, P("%s.resizePolicy", path));
    security_context(l, wh_pv_get(c, "securityContext"), s->host_users_effective,
                     P("%s.securityContext", path));
    name_paths_fini(&mounts);
    name_paths_fini(&devices);
}

/* checkHostPortConflicts over cs[0..n), reported under path[index[i]]. */
static void host_port_conflicts(struct wh_field_errors *l, const json_t *const *cs, size_t n,
                                const size_t *index, const char *path)
{
    char p[WH_PV_PATH];
    struct {
        char **s;
        size_t n, cap;
    } seen = {0};
    for (size_t ci = 0; ci < n; ci++) {
        size_t pi;
        const json_t *port;
        json_array_foreach(wh_json_arr(cs[ci], "ports"), pi, port)
        {
            long long hp = wh_pv_int(port, "hostPort");
            if (hp == 0)
                continue;
            char *key = wh_str_printf("%s/%s/%lld", wh_json_str_or_empty(port, "protocol"),
                                      wh_json_str_or_empty(port, "hostIP"), hp);
            bool dup = false;
            for (size_t k = 0; k < seen.n && !dup; k++)
                dup = strcmp(seen.s[k], key) == 0;
            if (dup) {
                wh_ferr_duplicate(l, P("%s[%zu].ports[%zu].hostPort", path, index[ci], pi), key);
                free(key);
                continue;
            }
            if (seen.n == seen.cap) {
                seen.cap = seen.cap ? 2 * seen.cap : 8;
                seen.s = wh_xrealloc(seen.s, seen.cap * sizeof(*seen.s));
            }
            seen.s[seen.n++] = key;
        }
    }
    for (size_t k = 0; k < seen.n; k++)
        free(seen.s[k]);
    free(seen.s);
}

void wh_pv_containers(struct wh_field_errors *l, const struct wh_pv_spec *s, const char *path)
{
    size_t i, k;
    const json_t *c;
    char p[WH_PV_PATH], cp[WH_PV_PATH];
    const json_t *list = wh_json_arr(s->spec, "containers");
    size_t n = json_array_size(list);
    if (n == 0) {
        wh_ferr_required(l, path, "");
        return;
    }
    const json_t **all = wh_xcalloc(n, sizeof(*all));
    size_t *idx = wh_xcalloc(n, sizeof(*idx));
    json_array_foreach(list, i, c)
    {
        wh_fpath(cp, sizeof(cp), "%s[%zu]", path, i);
        container_common(l, c, s, cp);
        const char *name = wh_json_str_or_empty(c, "name");
        bool dup = false;
        for (k = 0; k < i && !dup; k++)
            dup = strcmp(wh_json_str_or_empty(json_array_get(list, k), "name"), name) == 0;
        if (dup)
            wh_ferr_duplicate(l, P("%s.name", cp), name);
        lifecycle_and_probes(l, c, s, cp);
        if (wh_pv_get(c, "restartPolicy"))
            wh_ferr_forbidden(l, P("%s.restartPolicy", cp),
                              "may not be set for non-init containers");
        all[i] = c;
        idx[i] = i;
    }
    host_port_conflicts(l, all, n, idx, path);
    free(all);
    free(idx);
}

void wh_pv_init_containers(struct wh_field_errors *l, const struct wh_pv_spec *s, const char *path)
{
    static const char *const always[] = {"Always"};
    size_t i, k;
    const json_t *c;
    char p[WH_PV_PATH], cp[WH_PV_PATH];
    const json_t *list = wh_json_arr(s->spec, "initContainers"),
                 *regular = wh_json_arr(s->spec, "containers");
    const char **names =
        wh_xcalloc(json_array_size(regular) + json_array_size(list) + 1, sizeof(*names));
    size_t nn = 0;
    json_array_foreach(regular, k, c) names[nn++] = wh_json_str_or_empty(c, "name");
    json_array_foreach(list, i, c)
    {
        wh_fpath(cp, sizeof(cp), "%s[%zu]", path, i);
        container_common(l, c, s, cp);
        bool restart_always = false;
        const json_t *rpj = wh_pv_get(c, "restartPolicy");
        if (rpj) {
            const char *rp = json_is_string(rpj) ? json_string_value(rpj) : "";
            if (strcmp(rp, "Always") != 0)
                wh_ferr_not_supported(l, P("%s.restartPolicy", cp), rp, always, 1);
            restart_always = strcmp(rp, "Always") == 0;
        }
        const char *name = wh_json_str_or_empty(c, "name");
        bool dup = false;
        for (k = 0; k < nn && !dup; k++)
            dup = strcmp(names[k], name) == 0;
        if (dup)
            wh_ferr_duplicate(l, P("%s.name", cp), name);
        else if (*name)
            names[nn++] = name;
        /* each init container alone (they run one by one), so the path always says [0] */
        size_t zero = 0;
        host_port_conflicts(l, &c, 1, &zero, path);
        if (restart_always) {
            lifecycle_and_probes(l, c, s, cp);
        } else {
            static const char *const fields[] = {"lifecycle", "livenessProbe", "readinessProbe",
                                                 "startupProbe"};
            for (k = 0; k < 4; k++)
                if (wh_pv_get(c, fields[k]))
                    wh_ferr_forbidden(l, P("%s.%s", cp, fields[k]),
                                      "may not be set for init containers without "
                                      "restartPolicy=Always");
        }
        const json_t *rsz = wh_json_arr(c, "resizePolicy");
        if (json_array_size(rsz) > 0) {
            char *g = wh_pv_gosyntax_resize_policies(rsz);
            wh_ferr_invalid_raw(l, P("%s.resizePolicy", cp), g,
                                "must not be set for init containers");
            free(g);
        }
    }
    free(names);
}

static void container_only_for_pod(struct wh_field_errors *l, const json_t *c, const char *path)
{
    char p[WH_PV_PATH];
    const char *image = wh_json_str_or_empty(c, "image");
    if (padded(image))
        wh_ferr_invalid_str(l, P("%s.image", path), image,
                            "must not have leading or trailing whitespace");
}

void wh_validate_containers_only_for_pod(struct wh_field_errors *l, const json_t *spec_v1,
                                         const char *path)
{
    char cp[WH_PV_PATH];
    size_t i;
    const json_t *c;
    json_array_foreach(wh_json_arr(spec_v1, "containers"), i, c)
    {
        container_only_for_pod(l, c, wh_fpath(cp, sizeof(cp), "%s.containers[%zu]", path, i));
    }
    json_array_foreach(wh_json_arr(spec_v1, "initContainers"), i, c)
    {
        container_only_for_pod(l, c, wh_fpath(cp, sizeof(cp), "%s.initContainers[%zu]", path, i));
    }
}

void wh_pv_ephemeral_containers(struct wh_field_errors *l, const struct wh_pv_spec *s,
                                const char *path)
{
    /* validateFieldAllowList over EphemeralContainerCommon: the fields not allowed, in Go's
     * order, by their JSON names (Go's names with the first letter lowered are the same) */
    static const char *const forbidden[] = {"ports",         "resources",     "resizePolicy",
                                            "restartPolicy", "livenessProbe", "readinessProbe",
                                            "startupProbe",  "lifecycle"};
    const json_t *list = wh_json_arr(s->spec, "ephemeralContainers");
    const json_t *regular = wh_json_arr(s->spec, "containers"),
                 *inits = wh_json_arr(s->spec, "initContainers");
    size_t i, k, nother = json_array_size(regular) + json_array_size(inits), nall;
    const json_t *c;
    char p[WH_PV_PATH], cp[WH_PV_PATH];
    if (json_array_size(list) == 0)
        return;
    const char **all = wh_xcalloc(nother + json_array_size(list) + 1, sizeof(*all));
    nall = 0;
    json_array_foreach(regular, k, c) all[nall++] = wh_json_str_or_empty(c, "name");
    json_array_foreach(inits, k, c) all[nall++] = wh_json_str_or_empty(c, "name");
    json_array_foreach(list, i, c)
    {
        wh_fpath(cp, sizeof(cp), "%s[%zu]", path, i);
        container_common(l, c, s, cp);
        container_only_for_pod(l, c, cp);
        const char *name = wh_json_str_or_empty(c, "name");
        bool dup = false;
        for (k = 0; k < nall && !dup; k++)
            dup = strcmp(all[k], name) == 0;
        if (dup)
            wh_ferr_duplicate(l, P("%s.name", cp), name);
        else
            all[nall++] = name;
        const char *target = wh_json_str_or_empty(c, "targetContainerName");
        bool found = false;
        for (k = 0; k < nother && !found; k++)
            found = strcmp(all[k], target) == 0;
        if (*target && !found)
            wh_ferr_not_found(l, P("%s.targetContainerName", cp), target);
        for (k = 0; k < sizeof(forbidden) / sizeof(forbidden[0]); k++) {
            const json_t *v = wh_pv_get(c, forbidden[k]);
            bool set = v != NULL;
            if (set && strcmp(forbidden[k], "resources") == 0)
                set = wh_pv_get(v, "limits") || wh_pv_get(v, "requests") || wh_pv_get(v, "claims");
            if (set)
                wh_ferr_forbidden(l, P("%s.%s", cp, forbidden[k]),
                                  "cannot be set for an Ephemeral Container");
        }
        const json_t *vm;
        json_array_foreach(wh_json_arr(c, "volumeMounts"), k, vm)
        {
            if (*wh_json_str_or_empty(vm, "subPath"))
                wh_ferr_forbidden(l, P("%s.volumeMounts[%zu].subPath", cp, k),
                                  "cannot be set for an Ephemeral Container");
            if (*wh_json_str_or_empty(vm, "subPathExpr"))
                wh_ferr_forbidden(l, P("%s.volumeMounts[%zu].subPathExpr", cp, k),
                                  "cannot be set for an Ephemeral Container");
        }
    }
    free(all);
}

void wh_pv_visit_containers(const json_t *spec, const char *spec_path, wh_pv_visit_fn fn, void *arg)
{
    static const char *const lists[] = {"initContainers", "containers", "ephemeralContainers"};
    char cp[WH_PV_PATH];
    for (size_t k = 0; k < 3; k++) {
        size_t i;
        const json_t *c;
        json_array_foreach(wh_json_arr(spec, lists[k]), i, c)
        {
            if (!fn(c, wh_fpath(cp, sizeof(cp), "%s.%s[%zu]", spec_path, lists[k], i), arg))
                return;
        }
    }
}
