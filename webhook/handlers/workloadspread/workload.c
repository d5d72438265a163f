#include "handlers/workloadspread/workload.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "handlers/workloadspread/subset.h"
#include "k8s/kruise.h"
#include "k8s/ref.h"
#include "kube/cache.h"
#include "util/json.h"
#include "util/str.h"

/* upstream's workloads list (pkg/util/workloadspread): kind and the groups it may come from */
static const struct {
    const char *group, *kind;
} builtin[] = {
    {"apps", "Deployment"}, {WH_KRUISE_APPS, "CloneSet"}, {"apps", "ReplicaSet"},
    {"batch", "Job"},       {"apps", "StatefulSet"},      {WH_KRUISE_APPS, "StatefulSet"},
};

bool wh_ws_builtin_workload(const char *group, const char *kind)
{
    for (size_t i = 0; i < sizeof(builtin) / sizeof(builtin[0]); i++) {
        if (strcmp(builtin[i].group, group) == 0 && strcmp(builtin[i].kind, kind) == 0)
            return true;
    }
    return false;
}

enum wh_err wh_ws_workload_get(struct wh_cluster *cl, const char *api_version, const char *kind,
                               const char *ns, const char *name, json_t **out, struct wh_errbuf *eb)
{
    *out = NULL;
    struct wh_gv gv;
    if (!wh_ref_parse_gv(api_version, &gv))
        return wh_errbuf_set(eb, WH_ERR_INVALID, "unexpected GroupVersion string: %s", api_version);
    char group[256];
    snprintf(group, sizeof(group), "%.*s", (int)gv.group_len, gv.group);
    enum wh_resource_id id = wh_resource_by_kind(group, kind);
    struct wh_cache *c = id < WH_RES_COUNT ? wh_cluster_cache(cl, id) : NULL;
    if (!c) /* a custom workload: rare, read live */
        return wh_cluster_get_live_kind(cl, api_version, kind, ns, name, out, eb);
    struct wh_object *o = wh_cache_get(c, ns, name);
    if (!o) /* upstream reads typed workloads through its cache */
        return wh_cache_not_found(eb, group, kind, name);
    *out = json_incref((json_t *)(uintptr_t)wh_object_json(o));
    wh_object_unref(o);
    return WH_OK;
}

/* strconv.Atoi: an optional sign and decimal digits, nothing else. */
static enum wh_err atoi_go(const char *s, long long *out, struct wh_errbuf *eb)
{
    const char *p = s + (*s == '+' || *s == '-');
    bool digits = *p != '\0';
    for (const char *q = p; *q; q++)
        digits &= *q >= '0' && *q <= '9';
    if (!digits)
        return wh_errbuf_set(eb, WH_ERR_INVALID, "strconv.Atoi: parsing \"%s\": invalid syntax", s);
    errno = 0;
    char *end = NULL;
    long long v = strtoll(s, &end, 10);
    if (errno == ERANGE)
        return wh_errbuf_set(eb, WH_ERR_INVALID, "strconv.Atoi: parsing \"%s\": value out of range",
                             s);
    *out = v;
    return WH_OK;
}

enum wh_err wh_ws_path_int(const json_t *obj, const char *path, long long *out,
                           struct wh_errbuf *eb)
{
    *out = 0;
    if (!path[0])
        return WH_OK;
    const json_t *cur = obj;
    const char *p = path;
    for (;;) {
        const char *dot = strchr(p, '.');
        size_t n = dot ? (size_t)(dot - p) : strlen(p);
        char seg[256];
        snprintf(seg, sizeof(seg), "%.*s", (int)n, p);
        if (json_is_object(cur)) {
            const json_t *next = json_object_get(cur, seg);
            if (!next)
                return wh_errbuf_set(eb, WH_ERR_INVALID, "path \"%s\" not exists", seg);
            cur = next;
        } else if (json_is_array(cur)) {
            long long idx = 0;
            enum wh_err rc = atoi_go(seg, &idx, eb);
            if (rc)
                return rc;
            if (idx < 0 || (size_t)idx >= json_array_size(cur))
                return wh_errbuf_set(eb, WH_ERR_INVALID, "index %lld out of range", idx);
            cur = json_array_get(cur, (size_t)idx);
        } else {
            return wh_errbuf_set(eb, WH_ERR_INVALID, "object is not deep enough");
        }
        if (!dot)
            break;
        p = dot + 1;
    }
    if (!json_is_integer(cur))
        return wh_errbuf_set(eb, WH_ERR_INVALID, "object type error");
    *out = json_integer_value(cur);
    return WH_OK;
}

/* int32(v), as Go converts: the low 32 bits. */
static long long to_int32(long long v)
{
    return (long long)(int32_t)(uint32_t)(uint64_t)v;
}

/* The defaulted replica field of a built-in workload: the API server defaults it to 1. */
static long long replicas_field(const json_t *obj, const char *field)
{
    const json_t *v = wh_json_path(obj, "spec", field, NULL);
    if (!v || json_is_null(v))
        return 1;
    return json_is_integer(v) ? to_int32(json_integer_value(v)) : 0;
}

/* GetReplicasFromCustomWorkload: the white list's replicasPath, 0 when anything fails. */
static long long custom_replicas(struct wh_cluster *cl, const char *kruise_ns, const json_t *obj,
                                 const char *group, const char *kind)
{
    struct wh_ws_whitelist wl;
    struct wh_errbuf eb = {{0}};
    long long v = 0;
    if (wh_ws_whitelist_load(cl, kruise_ns, &wl, &eb))
        return 0;
    const struct wh_ws_custom_workload *w = wh_ws_whitelist_workload(&wl, group, kind);
    if (w && wh_ws_path_int(obj, w->replicas_path, &v, &eb))
        v = 0;
    wh_ws_whitelist_fini(&wl);
    return to_int32(v);
}

enum wh_err wh_ws_total_replicas(struct wh_cluster *cl, const char *kruise_ns, const json_t *ws,
                                 long long *total, struct wh_errbuf *eb)
{
    *total = 0;
    const json_t *ref = wh_json_path(ws, "spec", "targetRef", NULL);
    if (!json_is_object(ref) || !wh_ws_has_percent(ws))
        return WH_OK;
    const char *av = wh_json_str_or_empty(ref, "apiVersion");
    const char *kind = wh_json_str_or_empty(ref, "kind");
    json_t *obj = NULL;
    enum wh_err rc = wh_ws_workload_get(cl, av, kind, wh_json_meta_str(ws, "namespace"),
                                        wh_json_str_or_empty(ref, "name"), &obj, eb);
    if (rc == WH_ERR_NOT_FOUND)
        return WH_OK;
    if (rc)
        return rc;
    const json_t *paths = wh_json_path(ws, "spec", "targetFilter", "replicasPathList", NULL);
    struct wh_gv gv;
    char group[256] = "";
    if (wh_ref_parse_gv(av, &gv))
        snprintf(group, sizeof(group), "%.*s", (int)gv.group_len, gv.group);
    if (json_array_size(paths) > 0) {
        /* int32 arithmetic, as upstream sums them */
        uint32_t sum = 0;
        size_t i;
        const json_t *p;
        json_array_foreach(paths, i, p)
        {
            long long v = 0;
            rc = wh_ws_path_int(obj, json_is_string(p) ? json_string_value(p) : "", &v, eb);
            if (rc)
                goto out;
            sum += (uint32_t)(uint64_t)to_int32(v);
        }
        *total = (long long)(int32_t)sum;
    } else if (strcmp(kind, "Job") == 0 && strcmp(group, "batch") == 0) {
        *total = replicas_field(obj, "parallelism");
    } else if (wh_ws_builtin_workload(group, kind)) {
        *total = replicas_field(obj, "replicas");
    } else {
        *total = custom_replicas(cl, kruise_ns, obj, group, kind);
    }
out:
    json_decref(obj);
    return rc;
}
