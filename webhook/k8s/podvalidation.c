#include "k8s/podvalidation.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "k8s/quantity.h"
#include "k8s/validation.h"
#include "util/json.h"
#include "util/mem.h"
#include "util/str.h"

#define FILE_MODE_MSG "must be a number between 0 and 0777 (octal), both inclusive"
#define NONNEG_MSG "must be greater than or equal to 0"
#define MORE_THAN_ONE "may not specify more than 1 volume type"
#define P(...) wh_fpath(p, sizeof(p), __VA_ARGS__)

/* A volume that passed validation: mounts and devices may refer to it. */
struct vol {
    const char *name;
    const char *source; /* the member naming its source: "persistentVolumeClaim", ... */
};

struct vols {
    struct vol *items;
    size_t n;
};

static const struct vol *find_vol(const struct vols *v, const char *name)
{
    for (size_t i = 0; i < v->n; i++)
        if (strcmp(v->items[i].name, name) == 0)
            return &v->items[i];
    return NULL;
}

static void invalid_msgs(struct wh_field_errors *l, const char *path, const char *value,
                         const struct wh_vmsgs *m)
{
    for (size_t i = 0; i < m->n; i++)
        wh_ferr_invalid_str(l, path, value, m->m[i]);
}

/* --- paths ----------------------------------------------------------------------------------- */

static bool has_backsteps(const char *path)
{
    const char *s = path;
    for (;;) {
        const char *slash = strpbrk(s, "/");
        size_t n = slash ? (size_t)(slash - s) : strlen(s);
        if (n == 2 && s[0] == '.' && s[1] == '.')
            return true;
        if (!slash)
            return false;
        s = slash + 1;
    }
}

static void no_backsteps(struct wh_field_errors *l, const char *value, const char *path)
{
    if (has_backsteps(value))
        wh_ferr_invalid_str(l, path, value, "must not contain '..'");
}

static void local_descending_path(struct wh_field_errors *l, const char *value, const char *path)
{
    if (value[0] == '/')
        wh_ferr_invalid_str(l, path, value, "must be a relative path");
    no_backsteps(l, value, path);
}

static void local_non_reserved_path(struct wh_field_errors *l, const char *value, const char *path)
{
    local_descending_path(l, value, path);
    if (strncmp(value, "..", 2) == 0 && strncmp(value, "../", 3) != 0)
        wh_ferr_invalid_str(l, path, value, "must not start with '..'");
}

static void file_mode(struct wh_field_errors *l, const json_t *o, const char *key, const char *path)
{
    const json_t *m = json_object_get(o, key);
    if (json_is_integer(m) && (json_integer_value(m) > 0777 || json_integer_value(m) < 0))
        wh_ferr_invalid_int(l, path, json_integer_value(m), FILE_MODE_MSG);
}

/* --- field selectors ------------------------------------------------------------------------- */

static const char *const env_field_paths[] = {
    "metadata.name",           "metadata.namespace", "metadata.uid",   "spec.nodeName",
    "spec.serviceAccountName", "status.hostIP",      "status.hostIPs", "status.podIP",
    "status.podIPs",
};
static const char *const volume_field_paths[] = {
    "metadata.annotations", "metadata.labels", "metadata.name",
    "metadata.namespace",   "metadata.uid",
};

/* fieldpath.SplitMaybeSubscriptedPath: "metadata.labels['key']" -> path + subscript. */
static bool split_subscripted(const char *fp, char *path, size_t psz, char *sub, size_t ssz)
{
    size_t n = strlen(fp);
    const char *open = strstr(fp, "['");
    if (!open || n < 4 || fp[n - 1] != ']' || fp[n - 2] != '\'' || open + 2 > fp + n - 2)
        return false;
    snprintf(path, psz, "%.*s", (int)(open - fp), fp);
    snprintf(sub, ssz, "%.*s", (int)(fp + n - 2 - (open + 2)), open + 2);
    return true;
}

static void object_field_selector(struct wh_field_errors *l, const json_t *fs,
                                  const char *const *valid, size_t nvalid, const char *path)
{
    char p[512], fpath[512], sub[512];
    const char *av = wh_json_str_or_empty(fs, "apiVersion"),
               *fp = wh_json_str_or_empty(fs, "fieldPath");
    if (!*av) {
        wh_ferr_required(l, P("%s.apiVersion", path), "");
        return;
    }
    if (!*fp) {
        wh_ferr_required(l, P("%s.fieldPath", path), "");
        return;
    }
    /* podshelper.ConvertDownwardAPIFieldLabel */
    if (strcmp(av, "v1") != 0) {
        char msg[600];
        snprintf(msg, sizeof(msg), "error converting fieldPath: unsupported pod version: %s", av);
        wh_ferr_invalid_str(l, P("%s.fieldPath", path), fp, msg);
        return;
    }
    if (split_subscripted(fp, fpath, sizeof(fpath), sub, sizeof(sub))) {
        if (strcmp(fpath, "metadata.annotations") != 0 && strcmp(fpath, "metadata.labels") != 0) {
            char msg[600];
            snprintf(msg, sizeof(msg),
                     "error converting fieldPath: field label does not support subscript: %s", fp);
            wh_ferr_invalid_str(l, P("%s.fieldPath", path), fp, msg);
            return;
        }
        struct wh_vmsgs m = {0};
        if (strcmp(fpath, "metadata.annotations") == 0) {
            for (char *c = sub; *c; c++)
                *c = (char)(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c);
        }
        wh_is_qualified_name(sub, &m);
        invalid_msgs(l, path, sub, &m);
        return;
    }
    bool known = false;
    static const char *const convertible[] = {
        "metadata.annotations", "metadata.labels", "metadata.name",      "metadata.namespace",
        "metadata.uid",         "spec.nodeName",   "spec.restartPolicy", "spec.serviceAccountName",
        "spec.schedulerName",   "status.phase",    "status.hostIP",      "status.hostIPs",
        "status.podIP",         "status.podIPs"};
    for (size_t i = 0; i < sizeof(convertible) / sizeof(convertible[0]); i++)
        known |= strcmp(convertible[i], fp) == 0;
    if (!known) {
        char msg[600];
        snprintf(msg, sizeof(msg), "error converting fieldPath: field label not supported: %s", fp);
        wh_ferr_invalid_str(l, P("%s.fieldPath", path), fp, msg);
        return;
    }
    for (size_t i = 0; i < nvalid; i++)
        if (strcmp(valid[i], fp) == 0)
            return;
    wh_ferr_not_supported(l, P("%s.fieldPath", path), fp, valid, nvalid);
}

static void resource_field_selector(struct wh_field_errors *l, const json_t *fs, bool volume,
                                    const char *path)
{
    static const char *const valid[] = {
        "limits.cpu",   "limits.ephemeral-storage",   "limits.memory",
        "requests.cpu", "requests.ephemeral-storage", "requests.memory"};
    char p[512];
    const char *res = wh_json_str_or_empty(fs, "resource");
    if (volume && !*wh_json_str_or_empty(fs, "containerName")) {
        wh_ferr_required(l, P("%s.containerName", path), "");
    } else if (!*res) {
        wh_ferr_required(l, P("%s.resource", path), "");
    } else {
        bool ok = strncmp(res, "requests.hugepages-", 19) == 0 ||
                  strncmp(res, "limits.hugepages-", 17) == 0;
        for (size_t i = 0; i < sizeof(valid) / sizeof(valid[0]); i++)
            ok |= strcmp(valid[i], res) == 0;
        if (!ok)
            wh_ferr_not_supported(l, P("%s.resource", path), res, valid,
                                  sizeof(valid) / sizeof(valid[0]));
    }
    const char *div = wh_json_str(fs, "divisor");
    if (div && strcmp(div, "0") != 0) {
        bool cpu = strcmp(res, "limits.cpu") == 0 || strcmp(res, "requests.cpu") == 0;
        bool mem = strcmp(res, "limits.memory") == 0 || strcmp(res, "requests.memory") == 0;
        bool eph = strcmp(res, "limits.ephemeral-storage") == 0 ||
                   strcmp(res, "requests.ephemeral-storage") == 0;
        static const char *const mem_divs[] = {"1",   "1k",  "1M",  "1G",  "1T",  "1P", "1E",
                                               "1Ki", "1Mi", "1Gi", "1Ti", "1Pi", "1Ei"};
        bool in_mem = false;
        for (size_t i = 0; i < sizeof(mem_divs) / sizeof(mem_divs[0]); i++)
            in_mem |= strcmp(mem_divs[i], div) == 0;
        if (cpu && strcmp(div, "1m") != 0 && strcmp(div, "1") != 0)
            wh_ferr_invalid_str(l, P("%s.divisor", path), res,
                                "only divisor's values 1m and 1 are supported with the cpu "
                                "resource");
        if (mem && !in_mem)
            wh_ferr_invalid_str(l, P("%s.divisor", path), res,
                                "only divisor's values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, "
                                "1Ti, 1Pi, 1Ei are supported with the memory resource");
        if (eph && !in_mem)
            wh_ferr_invalid_str(l, P("%s.divisor", path), res,
                                "only divisor's values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, "
                                "1Ti, 1Pi, 1Ei are supported with the local ephemeral storage "
                                "resource");
    }
}

static void key_selector(struct wh_field_errors *l, const json_t *s, const char *path)
{
    char p[512];
    const char *name = wh_json_str_or_empty(s, "name"), *key = wh_json_str_or_empty(s, "key");
    struct wh_vmsgs m = {0};
    wh_name_is_dns_subdomain(name, false, &m);
    invalid_msgs(l, P("%s.name", path), name, &m);
    if (!*key) {
        wh_ferr_required(l, P("%s.key", path), "");
    } else {
        struct wh_vmsgs k = {0};
        wh_is_config_map_key(key, &k);
        invalid_msgs(l, P("%s.key", path), key, &k);
    }
}

/* --- volumes -----------------------------------------------------------------------------------
 */

static void key_to_paths(struct wh_field_errors *l, const json_t *items, const char *path)
{
    size_t i;
    const json_t *kp;
    char p[512], ip[512];
    json_array_foreach(items, i, kp)
    {
        wh_fpath(ip, sizeof(ip), "%s.items[%zu]", path, i);
        if (!*wh_json_str_or_empty(kp, "key"))
            wh_ferr_required(l, P("%s.key", ip), "");
        if (!*wh_json_str_or_empty(kp, "path"))
            wh_ferr_required(l, P("%s.path", ip), "");
        local_non_reserved_path(l, wh_json_str_or_empty(kp, "path"), P("%s.path", ip));
        file_mode(l, kp, "mode", P("%s.mode", ip));
    }
}

static void downward_file(struct wh_field_errors *l, const json_t *file, const char *path)
{
    char p[512];
    if (!*wh_json_str_or_empty(file, "path"))
        wh_ferr_required(l, P("%s.path", path), "");
    local_non_reserved_path(l, wh_json_str_or_empty(file, "path"), P("%s.path", path));
    if (wh_json_present(file, "fieldRef")) {
        object_field_selector(l, json_object_get(file, "fieldRef"), volume_field_paths,
                              sizeof(volume_field_paths) / sizeof(volume_field_paths[0]),
                              P("%s.fieldRef", path));
        if (wh_json_present(file, "resourceFieldRef"))
            wh_ferr_invalid_str(l, path, "resource",
                                "fieldRef and resourceFieldRef can not be specified "
                                "simultaneously");
    } else if (wh_json_present(file, "resourceFieldRef")) {
        resource_field_selector(l, json_object_get(file, "resourceFieldRef"), true,
                                P("%s.resourceFieldRef", path));
    } else {
        wh_ferr_required(l, path, "one of fieldRef and resourceFieldRef is required");
    }
    file_mode(l, file, "mode", P("%s.mode", path));
}

static void projected(struct wh_field_errors *l, const json_t *proj, const char *path)
{
    char p[512], sp[512];
    size_t i, k;
    const json_t *src, *item;
    file_mode(l, proj, "defaultMode", P("%s.defaultMode", path));
    /* duplicate paths across sources */
    const char **seen = NULL;
    size_t nseen = 0, cap = 0;
    json_array_foreach(wh_json_arr(proj, "sources"), i, src)
    {
        int nsrc = 0;
        wh_fpath(sp, sizeof(sp), "%s.sources[%zu]", path, i);
        static const char *const kinds[] = {"secret", "configMap"};
        for (size_t kk = 0; kk < 2; kk++) {
            const json_t *s = wh_json_obj(src, kinds[kk]);
            if (!s)
                continue;
            char kp[600];
            nsrc++;
            wh_fpath(kp, sizeof(kp), "%s.%s", sp, kinds[kk]);
            if (!*wh_json_str_or_empty(s, "name"))
                wh_ferr_required(l, P("%s.name", kp), "");
            key_to_paths(l, wh_json_arr(s, "items"), kp);
            json_array_foreach(wh_json_arr(s, "items"), k, item)
            {
                const char *ip = wh_json_str_or_empty(item, "path");
                bool dup = false;
                if (!*ip)
                    continue;
                for (size_t d = 0; d < nseen && !dup; d++)
                    dup = strcmp(seen[d], ip) == 0;
                if (dup) {
                    wh_ferr_invalid_str(l, path, wh_json_str_or_empty(s, "name"),
                                        "conflicting duplicate paths");
                    continue;
                }
                if (nseen == cap) {
                    cap = cap ? 2 * cap : 8;
                    seen = wh_xrealloc(seen, cap * sizeof(*seen));
                }
                seen[nseen++] = ip;
            }
        }
        const json_t *dapi = wh_json_obj(src, "downwardAPI");
        if (dapi) {
            char dp[600];
            nsrc++;
            wh_fpath(dp, sizeof(dp), "%s.downwardAPI", sp);
            json_array_foreach(wh_json_arr(dapi, "items"), k, item)
            {
                downward_file(l, item, dp);
            }
        }
        const json_t *tok = wh_json_obj(src, "serviceAccountToken");
        if (tok) {
            nsrc++;
            json_int_t exp = json_integer_value(json_object_get(tok, "expirationSeconds"));
            if (exp < 600)
                wh_ferr_invalid_int(l, P("%s.serviceAccountToken.expirationSeconds", sp), exp,
                                    "may not specify a duration less than 10 minutes");
            if (exp > (1LL << 32))
                wh_ferr_invalid_int(l, P("%s.serviceAccountToken.expirationSeconds", sp), exp,
                                    "may not specify a duration larger than 2^32 seconds");
            if (!*wh_json_str_or_empty(tok, "path"))
                wh_ferr_required(l, P("%s.path", path), "");
            else
                local_non_reserved_path(l, wh_json_str_or_empty(tok, "path"), P("%s.path", path));
        }
        if (wh_json_obj(src, "clusterTrustBundle")) {
            nsrc++;
            const json_t *ctb = wh_json_obj(src, "clusterTrustBundle");
            if (!*wh_json_str_or_empty(ctb, "path"))
                wh_ferr_required(l, P("%s.clusterTrustBundle.path", sp), "");
        }
        if (nsrc > 1)
            wh_ferr_forbidden(l, sp, "may not specify more than 1 volume type per source");
    }
    free(seen);
}

static const char *const host_path_types[] = {
    "",     "BlockDevice",  "CharDevice", "Directory", "DirectoryOrCreate",
    "File", "FileOrCreate", "Socket"};

/* validateVolumeSource for one volume; the source member names of k8s order. */
static void volume_source(struct wh_field_errors *l, const json_t *v, const char *path,
                          const char **source_out)
{
    static const struct {
        const char *member;
        const char *forbid_path; /* the path upstream names when it is a second source */
    } order[] = {
        {"emptyDir", "emptyDir"},
        {"hostPath", "hostPath"},
        {"gitRepo", "gitRepo"},
        {"gcePersistentDisk", "gcePersistentDisk"},
        {"awsElasticBlockStore", "awsElasticBlockStore"},
        {"secret", "secret"},
        {"nfs", "nfs"},
        {"iscsi", "iscsi"},
        {"glusterfs", "glusterfs"},
        {"flocker", "flocker"},
        {"persistentVolumeClaim", "persistentVolumeClaim"},
        {"rbd", "rbd"},
        {"cinder", "cinder"},
        {"cephfs", "cephFS"},
        {"quobyte", "quobyte"},
        {"downwardAPI", "downwarAPI"}, /* sic: upstream's typo */
        {"fc", "fc"},
        {"flexVolume", "flexVolume"},
        {"configMap", "configMap"},
        {"azureFile", "azureFile"},
        {"vsphereVolume", "vsphereVolume"},
        {"photonPersistentDisk", "photonPersistentDisk"},
        {"portworxVolume", "portworxVolume"},
        {"azureDisk", "azureDisk"},
        {"storageos", "storageos"},
        {"projected", "projected"},
        {"scaleIO", "scaleIO"},
        {"csi", "csi"},
        {"ephemeral", "ephemeral"},
        {"image", "image"},
    };
    char p[512], sp[512];
    int count = 0;
    *source_out = NULL;
    for (size_t k = 0; k < sizeof(order) / sizeof(order[0]); k++) {
        const json_t *s = json_object_get(v, order[k].member);
        if (!s || json_is_null(s))
            continue;
        const char *m = order[k].member;
        if (count > 0 && strcmp(m, "emptyDir") != 0) {
            wh_ferr_forbidden(l, P("%s.%s", path, order[k].forbid_path), MORE_THAN_ONE);
            continue;
        }
        count++;
        if (!*source_out)
            *source_out = m;
        wh_fpath(sp, sizeof(sp), "%s.%s", path, m);
        if (strcmp(m, "emptyDir") == 0) {
            const char *sl = wh_json_str(s, "sizeLimit");
            struct wh_quantity q;
            struct wh_errbuf eb;
            if (sl && wh_quantity_parse(sl, &q, &eb) == WH_OK && wh_quantity_sign(&q) < 0)
                wh_ferr_forbidden(l, P("%s.sizeLimit", sp),
                                  "SizeLimit field must be a valid resource quantity");
        } else if (strcmp(m, "hostPath") == 0) {
            const char *hp = wh_json_str_or_empty(s, "path");
            if (!*hp) {
                wh_ferr_required(l, P("%s.path", sp), "");
                continue;
            }
            no_backsteps(l, hp, P("%s.path", sp));
            const char *t = wh_json_str(s, "type");
            if (t) {
                bool ok = false;
                for (size_t i = 0; i < sizeof(host_path_types) / sizeof(host_path_types[0]); i++)
                    ok |= strcmp(host_path_types[i], t) == 0;
                if (!ok)
                    wh_ferr_not_supported(l, P("%s.type", sp), t, host_path_types,
                                          sizeof(host_path_types) / sizeof(host_path_types[0]));
            }
        } else if (strcmp(m, "gitRepo") == 0) {
            if (!*wh_json_str_or_empty(s, "repository"))
                wh_ferr_required(l, P("%s.repository", sp), "");
            local_descending_path(l, wh_json_str_or_empty(s, "directory"), P("%s.directory", sp));
        } else if (strcmp(m, "gcePersistentDisk") == 0 || strcmp(m, "awsElasticBlockStore") == 0) {
            bool gce = m[0] == 'g';
            /* upstream names the GCE source "persistentDisk" in these paths */
            wh_fpath(sp, sizeof(sp), "%s.%s", path, gce ? "persistentDisk" : m);
            if (!*wh_json_str_or_empty(s, gce ? "pdName" : "volumeID"))
                wh_ferr_required(l, P("%s.%s", sp, gce ? "pdName" : "volumeID"), "");
            json_int_t part = json_integer_value(json_object_get(s, "partition"));
            if (part < 0 || part > 255)
                wh_ferr_invalid_int(l, P("%s.partition", sp), part,
                                    "must be between 1 and 255, inclusive");
        } else if (strcmp(m, "secret") == 0) {
            if (!*wh_json_str_or_empty(s, "secretName"))
                wh_ferr_required(l, P("%s.secretName", sp), "");
            file_mode(l, s, "defaultMode", P("%s.defaultMode", sp));
            key_to_paths(l, wh_json_arr(s, "items"), sp);
        } else if (strcmp(m, "configMap") == 0) {
            if (!*wh_json_str_or_empty(s, "name"))
                wh_ferr_required(l, P("%s.name", sp), "");
            file_mode(l, s, "defaultMode", P("%s.defaultMode", sp));
            key_to_paths(l, wh_json_arr(s, "items"), sp);
        } else if (strcmp(m, "nfs") == 0) {
            if (!*wh_json_str_or_empty(s, "server"))
                wh_ferr_required(l, P("%s.server", sp), "");
            if (!*wh_json_str_or_empty(s, "path"))
                wh_ferr_required(l, P("%s.path", sp), "");
            if (wh_json_str_or_empty(s, "path")[0] != '/')
                wh_ferr_invalid_str(l, P("%s.path", sp), wh_json_str_or_empty(s, "path"),
                                    "must be an absolute path");
        } else if (strcmp(m, "glusterfs") == 0) {
            if (!*wh_json_str_or_empty(s, "endpoints"))
                wh_ferr_required(l, P("%s.endpoints", sp), "");
            if (!*wh_json_str_or_empty(s, "path"))
                wh_ferr_required(l, P("%s.path", sp), "");
        } else if (strcmp(m, "flocker") == 0) {
            const char *dn = wh_json_str_or_empty(s, "datasetName"),
                       *du = wh_json_str_or_empty(s, "datasetUUID");
            if (!*dn && !*du)
                wh_ferr_required(l, sp, "one of datasetName and datasetUUID is required");
            if (*dn && *du)
                wh_ferr_invalid_str(l, sp, "resource",
                                    "datasetName and datasetUUID can not be specified "
                                    "simultaneously");
            if (strchr(dn, '/'))
                wh_ferr_invalid_str(l, P("%s.datasetName", sp), dn, "must not contain '/'");
        } else if (strcmp(m, "persistentVolumeClaim") == 0) {
            if (!*wh_json_str_or_empty(s, "claimName"))
                wh_ferr_required(l, P("%s.claimName", sp), "");
        } else if (strcmp(m, "rbd") == 0) {
            if (json_array_size(wh_json_arr(s, "monitors")) == 0)
                wh_ferr_required(l, P("%s.monitors", sp), "");
            if (!*wh_json_str_or_empty(s, "image"))
                wh_ferr_required(l, P("%s.image", sp), "");
        } else if (strcmp(m, "cinder") == 0) {
            if (!*wh_json_str_or_empty(s, "volumeID"))
                wh_ferr_required(l, P("%s.volumeID", sp), "");
            if (wh_json_obj(s, "secretRef") &&
                !*wh_json_str_or_empty(wh_json_obj(s, "secretRef"), "name"))
                wh_ferr_required(l, P("%s.secretRef.name", sp), "");
        } else if (strcmp(m, "cephfs") == 0) {
            if (json_array_size(wh_json_arr(s, "monitors")) == 0)
                wh_ferr_required(l, P("%s.monitors", sp), "");
        } else if (strcmp(m, "downwardAPI") == 0) {
            size_t i;
            const json_t *item;
            file_mode(l, s, "defaultMode", P("%s.defaultMode", sp));
            json_array_foreach(wh_json_arr(s, "items"), i, item)
            {
                downward_file(l, item, sp);
            }
        } else if (strcmp(m, "fc") == 0) {
            size_t nw = json_array_size(wh_json_arr(s, "targetWWNs"));
            size_t ni = json_array_size(wh_json_arr(s, "wwids"));
            if (nw < 1 && ni < 1)
                wh_ferr_required(l, P("%s.targetWWNs", sp),
                                 "must specify either targetWWNs or wwids, but not both");
            if (nw && ni)
                wh_ferr_invalid_raw(l, P("%s.targetWWNs", sp), "[]string{...}",
                                    "targetWWNs and wwids can not be specified simultaneously");
            if (nw) {
                const json_t *lun = json_object_get(s, "lun");
                if (!json_is_integer(lun))
                    wh_ferr_required(l, P("%s.lun", sp),
                                     "lun is required if targetWWNs is "
                                     "specified");
                else if (json_integer_value(lun) < 0 || json_integer_value(lun) > 255)
                    wh_ferr_invalid_int(l, P("%s.lun", sp), json_integer_value(lun),
                                        "must be between 0 and 255, inclusive");
            }
        } else if (strcmp(m, "flexVolume") == 0) {
            if (!*wh_json_str_or_empty(s, "driver"))
                wh_ferr_required(l, P("%s.driver", sp), "");
        } else if (strcmp(m, "azureFile") == 0) {
            if (!*wh_json_str_or_empty(s, "secretName"))
                wh_ferr_required(l, P("%s.secretName", sp), "");
            if (!*wh_json_str_or_empty(s, "shareName"))
                wh_ferr_required(l, P("%s.shareName", sp), "");
        } else if (strcmp(m, "projected") == 0) {
            projected(l, s, sp);
        } else if (strcmp(m, "csi") == 0) {
            if (!*wh_json_str_or_empty(s, "driver"))
                wh_ferr_required(l, P("%s.driver", sp), "");
            const json_t *ref = wh_json_obj(s, "nodePublishSecretRef");
            if (ref && !*wh_json_str_or_empty(ref, "name"))
                wh_ferr_required(l, P("%s.nodePublishSecretRef.name", sp), "");
        } else if (strcmp(m, "ephemeral") == 0) {
            if (!wh_json_obj(s, "volumeClaimTemplate"))
                wh_ferr_required(l, P("%s.volumeClaimTemplate", sp), "");
        } else if (strcmp(m, "image") == 0) {
            const char *pp = wh_json_str_or_empty(s, "pullPolicy");
            static const char *const pulls[] = {"Always", "IfNotPresent", "Never"};
            if (!*pp)
                wh_ferr_required(l, P("%s.pullPolicy", sp), "");
            else if (strcmp(pp, "Always") && strcmp(pp, "IfNotPresent") && strcmp(pp, "Never"))
                wh_ferr_not_supported(l, P("%s.pullPolicy", sp), pp, pulls, 3);
        }
    }
    if (count == 0)
        wh_ferr_required(l, path, "must specify a volume type");
}

static void volumes(struct wh_field_errors *l, const json_t *list, struct vols *out)
{
    size_t i;
    const json_t *v;
    char p[512], vp[512];
    out->items = wh_xcalloc(json_array_size(list) + 1, sizeof(*out->items));
    out->n = 0;
    json_array_foreach(list, i, v)
    {
        struct wh_field_errors el;
        const char *source = NULL;
        const char *name = wh_json_str_or_empty(v, "name");
        wh_ferrs_init(&el);
        wh_fpath(vp, sizeof(vp), "spec.volumes[%zu]", i);
        volume_source(&el, v, vp, &source);
        if (!*name) {
            wh_ferr_required(&el, P("%s.name", vp), "");
        } else {
            struct wh_vmsgs m = {0};
            wh_is_dns1123_label(name, &m);
            invalid_msgs(&el, P("%s.name", vp), name, &m);
        }
        if (find_vol(out, name))
            wh_ferr_duplicate(&el, P("%s.name", vp), name);
        if (el.n == 0) {
            out->items[out->n].name = name;
            out->items[out->n].source = source ? source : "";
            out->n++;
        }
        for (size_t k = 0; k < el.n; k++)
            wh_ferr_add_text(l, el.items[k]);
        wh_ferrs_fini(&el);
    }
}

/* --- containers ------------------------------------------------------------------------------ */

static void ports(struct wh_field_errors *l, const json_t *list, const char *path)
{
    static const char *const protocols[] = {"SCTP", "TCP", "UDP"};
    size_t i;
    const json_t *port;
    char p[512], ip[512];
    const char **names = wh_xcalloc(json_array_size(list) + 1, sizeof(*names));
    size_t nn = 0;
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
                invalid_msgs(l, P("%s.name", ip), name, &m);
            else if (dup)
                wh_ferr_duplicate(l, P("%s.name", ip), name);
            else
                names[nn++] = name;
        }
        json_int_t cp = json_integer_value(json_object_get(port, "containerPort"));
        if (cp == 0)
            wh_ferr_required(l, P("%s.containerPort", ip), "");
        else if (cp < 1 || cp > 65535)
            wh_ferr_invalid_int(l, P("%s.containerPort", ip), cp,
                                "must be between 1 and 65535, inclusive");
        json_int_t hp = json_integer_value(json_object_get(port, "hostPort"));
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

static void env(struct wh_field_errors *l, const json_t *list, const char *path)
{
    size_t i;
    const json_t *ev;
    char p[512], ip[512], vp[600];
    json_array_foreach(list, i, ev)
    {
        const char *name = wh_json_str_or_empty(ev, "name");
        wh_fpath(ip, sizeof(ip), "%s[%zu]", path, i);
        if (!*name) {
            wh_ferr_required(l, P("%s.name", ip), "");
        } else {
            struct wh_vmsgs m = {0};
            wh_is_env_var_name(name, &m);
            invalid_msgs(l, P("%s.name", ip), name, &m);
        }
        const json_t *from = wh_json_obj(ev, "valueFrom");
        if (!from)
            continue;
        int n = 0;
        wh_fpath(vp, sizeof(vp), "%s.valueFrom", ip);
        if (wh_json_present(from, "fieldRef")) {
            n++;
            object_field_selector(l, json_object_get(from, "fieldRef"), env_field_paths,
                                  sizeof(env_field_paths) / sizeof(env_field_paths[0]),
                                  P("%s.fieldRef", vp));
        }
        if (wh_json_present(from, "resourceFieldRef")) {
            n++;
            resource_field_selector(l, json_object_get(from, "resourceFieldRef"), false,
                                    P("%s.resourceFieldRef", vp));
        }
        if (wh_json_present(from, "configMapKeyRef")) {
            n++;
            key_selector(l, json_object_get(from, "configMapKeyRef"), P("%s.configMapKeyRef", vp));
        }
        if (wh_json_present(from, "secretKeyRef")) {
            n++;
            key_selector(l, json_object_get(from, "secretKeyRef"), P("%s.secretKeyRef", vp));
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
    size_t i;
    const json_t *ev;
    char p[512], ip[512];
    json_array_foreach(list, i, ev)
    {
        const char *prefix = wh_json_str_or_empty(ev, "prefix");
        int n = 0;
        wh_fpath(ip, sizeof(ip), "%s[%zu]", path, i);
        if (*prefix) {
            struct wh_vmsgs m = {0};
            wh_is_env_var_name(prefix, &m);
            invalid_msgs(l, P("%s.prefix", ip), prefix, &m);
        }
        static const char *const refs[] = {"configMapRef", "secretRef"};
        for (size_t k = 0; k < 2; k++) {
            const json_t *r = wh_json_obj(ev, refs[k]);
            if (!r)
                continue;
            n++;
            const char *name = wh_json_str_or_empty(r, "name");
            if (!*name) {
                wh_ferr_required(l, P("%s.%s.name", ip, refs[k]), "");
            } else {
                struct wh_vmsgs m = {0};
                wh_name_is_dns_subdomain(name, true, &m);
                invalid_msgs(l, P("%s.%s.name", ip, refs[k]), name, &m);
            }
        }
        if (n == 0)
            wh_ferr_invalid_str(l, path, "", "must specify one of: `configMapRef` or `secretRef`");
        else if (n > 1)
            wh_ferr_invalid_str(l, path, "",
                                "may not have more than one field specified at a time");
    }
}

static bool privileged(const json_t *c)
{
    return json_is_true(wh_json_path(c, "securityContext", "privileged", NULL));
}

static void volume_mounts(struct wh_field_errors *l, const json_t *c, const struct vols *vols,
                          const char *path)
{
    static const char *const propagations[] = {"Bidirectional", "HostToContainer", "None"};
    static const char *const rros[] = {"Disabled", "Enabled", "IfPossible"};
    size_t i, k;
    const json_t *mnt, *dev;
    char p[512], ip[512];
    const json_t *mounts = wh_json_arr(c, "volumeMounts");
    const json_t *devices = wh_json_arr(c, "volumeDevices");
    json_array_foreach(mounts, i, mnt)
    {
        const char *name = wh_json_str_or_empty(mnt, "name"),
                   *mp = wh_json_str_or_empty(mnt, "mountPath");
        wh_fpath(ip, sizeof(ip), "%s[%zu]", path, i);
        if (!*name)
            wh_ferr_required(l, P("%s.name", ip), "");
        const struct vol *v = find_vol(vols, name);
        if (!v)
            wh_ferr_not_found(l, P("%s.name", ip), name);
        if (!*mp)
            wh_ferr_required(l, P("%s.mountPath", ip), "");
        bool dup = false;
        for (k = 0; k < i && !dup; k++)
            dup = strcmp(wh_json_str_or_empty(json_array_get(mounts, k), "mountPath"), mp) == 0;
        if (dup)
            wh_ferr_invalid_str(l, P("%s.mountPath", ip), mp, "must be unique");
        bool name_dev = false, path_dev = false;
        json_array_foreach(devices, k, dev)
        {
            name_dev |= strcmp(wh_json_str_or_empty(dev, "name"), name) == 0;
            path_dev |= strcmp(wh_json_str_or_empty(dev, "devicePath"), mp) == 0;
        }
        if (name_dev)
            wh_ferr_invalid_str(l, P("%s.name", ip), name,
                                "must not already exist in volumeDevices");
        if (path_dev)
            wh_ferr_invalid_str(l, P("%s.mountPath", ip), mp,
                                "must not already exist as a path in volumeDevices");
        const char *sub = wh_json_str_or_empty(mnt, "subPath"),
                   *expr = wh_json_str_or_empty(mnt, "subPathExpr");
        if (v && strcmp(v->source, "image") == 0) {
            if (*sub)
                wh_ferr_invalid_str(l, P("%s.subPath", ip), sub,
                                    "not allowed in image volume sources");
            if (*expr)
                wh_ferr_invalid_str(l, P("%s.subPathExpr", ip), expr,
                                    "not allowed in image volume sources");
        }
        /* upstream reports subPath problems at the list path, not the item's */
        if (*sub)
            local_descending_path(l, sub, P("%s.subPath", path));
        if (*expr) {
            if (*sub)
                wh_ferr_invalid_str(l, P("%s.subPathExpr", ip), expr,
                                    "subPathExpr and subPath are mutually exclusive");
            local_descending_path(l, expr, P("%s.subPathExpr", path));
        }
        const char *prop = wh_json_str(mnt, "mountPropagation");
        if (prop) {
            if (strcmp(prop, "Bidirectional") && strcmp(prop, "HostToContainer") &&
                strcmp(prop, "None"))
                wh_ferr_not_supported(l, P("%s.mountPropagation", path), prop, propagations, 3);
            if (strcmp(prop, "Bidirectional") == 0 && !privileged(c))
                wh_ferr_forbidden(l, P("%s.mountPropagation", path),
                                  "Bidirectional mount propagation is available only to "
                                  "privileged containers");
        }
        const char *rro = wh_json_str(mnt, "recursiveReadOnly");
        if (rro && strcmp(rro, "Disabled") != 0) {
            if (strcmp(rro, "Enabled") == 0 || strcmp(rro, "IfPossible") == 0) {
                if (!wh_json_bool(mnt, "readOnly"))
                    wh_ferr_forbidden(l, P("%s.recursiveReadOnly", path),
                                      "may only be specified when readOnly is true");
                if (prop && strcmp(prop, "None") != 0)
                    wh_ferr_forbidden(l, P("%s.recursiveReadOnly", path),
                                      "may only be specified when mountPropagation is None or "
                                      "not specified");
            } else {
                wh_ferr_not_supported(l, P("%s.recursiveReadOnly", path), rro, rros, 3);
            }
        }
    }
}

static void volume_devices(struct wh_field_errors *l, const json_t *c, const struct vols *vols,
                           const char *path)
{
    size_t i, k;
    const json_t *dev, *mnt;
    char p[512], ip[512];
    const json_t *devices = wh_json_arr(c, "volumeDevices");
    const json_t *mounts = wh_json_arr(c, "volumeMounts");
    const char **paths = wh_xcalloc(json_array_size(devices) + 1, sizeof(*paths));
    size_t npaths = 0;
    json_array_foreach(devices, i, dev)
    {
        const char *name = wh_json_str_or_empty(dev, "name"),
                   *dp = wh_json_str_or_empty(dev, "devicePath");
        const struct vol *v = find_vol(vols, name);
        wh_fpath(ip, sizeof(ip), "%s[%zu]", path, i);
        if (!*name)
            wh_ferr_required(l, P("%s.name", ip), "");
        bool dup_name = false;
        for (k = 0; k < i && !dup_name; k++) {
            const char *other = wh_json_str_or_empty(json_array_get(devices, k), "name");
            dup_name = *other && strcmp(other, name) == 0;
        }
        if (dup_name)
            wh_ferr_invalid_str(l, P("%s.name", ip), name, "must be unique");
        if (v && strcmp(v->source, "persistentVolumeClaim") != 0 &&
            strcmp(v->source, "ephemeral") != 0)
            wh_ferr_invalid_str(l, P("%s.name", ip), name,
                                "can only use volume source type of PersistentVolumeClaim or "
                                "Ephemeral for block mode");
        if (!v)
            wh_ferr_not_found(l, P("%s.name", ip), name);
        if (!*dp)
            wh_ferr_required(l, P("%s.devicePath", ip), "");
        bool dup_path = false;
        for (k = 0; k < npaths && !dup_path; k++)
            dup_path = strcmp(paths[k], dp) == 0;
        if (dup_path)
            wh_ferr_invalid_str(l, P("%s.devicePath", ip), dp, "must be unique");
        if (*dp && has_backsteps(dp))
            wh_ferr_invalid_str(l, P("%s.devicePath", ip), dp, "can not contain backsteps ('..')");
        else
            paths[npaths++] = dp;
        bool name_mnt = false, path_mnt = false;
        json_array_foreach(mounts, k, mnt)
        {
            name_mnt |= strcmp(wh_json_str_or_empty(mnt, "name"), name) == 0;
            path_mnt |= strcmp(wh_json_str_or_empty(mnt, "mountPath"), dp) == 0;
        }
        if (name_mnt)
            wh_ferr_invalid_str(l, P("%s.name", ip), name,
                                "must not already exist in volumeMounts");
        if (path_mnt)
            wh_ferr_invalid_str(l, P("%s.devicePath", ip), dp,
                                "must not already exist as a path in volumeMounts");
    }
    free(paths);
}

static void pull_policy(struct wh_field_errors *l, const char *policy, const char *path)
{
    static const char *const pulls[] = {"Always", "IfNotPresent", "Never"};
    if (!*policy)
        wh_ferr_required(l, path, "");
    else if (strcmp(policy, "Always") && strcmp(policy, "IfNotPresent") && strcmp(policy, "Never"))
        wh_ferr_not_supported(l, path, policy, pulls, 3);
}

/* helper.IsNativeResource: no domain, or "kubernetes.io/" anywhere in the name. */
static bool is_native(const char *name)
{
    return !strchr(name, '/') || strstr(name, "kubernetes.io/") != NULL;
}

/* helper.IsIntegerResourceName: the object counts of quotas, and extended resources (a domain
 * other than kubernetes.io, not "requests.", "requests.<name>" a qualified name). */
static bool is_integer_resource(const char *name)
{
    static const char *const counts[] = {"pods",    "resourcequotas", "services",
                                         "replicationcontrollers", "secrets",
                                         "configmaps", "persistentvolumeclaims",
                                         "services.nodeports", "services.loadbalancers"};
    for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
        if (strcmp(name, counts[i]) == 0)
            return true;
    if (is_native(name) || strncmp(name, "requests.", 9) == 0)
        return false;
    char *quota = wh_str_printf("requests.%s", name);
    struct wh_vmsgs m = {0};
    wh_is_qualified_name(quota, &m);
    free(quota);
    return m.n == 0;
}

static bool is_hugepages(const char *name)
{
    return strncmp(name, "hugepages-", 10) == 0;
}

static void resource_name(struct wh_field_errors *l, const char *name, const char *path)
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
                                           "services",
                                           "replicationcontrollers",
                                           "resourcequotas",
                                           "secrets",
                                           "configmaps",
                                           "persistentvolumeclaims",
                                           "storage",
                                           "requests.storage",
                                           "services.nodeports",
                                           "services.loadbalancers"};
    struct wh_vmsgs m = {0};
    wh_is_qualified_name(name, &m);
    invalid_msgs(l, path, name, &m);
    if (!strchr(name, '/')) {
        bool std = is_hugepages(name) || strncmp(name, "requests.hugepages-", 19) == 0;
        for (size_t i = 0; i < sizeof(standard) / sizeof(standard[0]); i++)
            std |= strcmp(standard[i], name) == 0;
        if (!std)
            wh_ferr_invalid_str(l, path, name,
                                "must be a standard resource type or fully qualified");
        bool container_std = strcmp(name, "cpu") == 0 || strcmp(name, "memory") == 0 ||
                             strcmp(name, "ephemeral-storage") == 0 || is_hugepages(name);
        if (!container_std)
            wh_ferr_invalid_str(l, path, name, "must be a standard resource for containers");
    } else if (!is_native(name)) {
        /* extended resources: not in the kubernetes.io domain and not requests.-prefixed */
        if (strncmp(name, "requests.", 9) == 0)
            wh_ferr_invalid_str(l, path, name, "doesn't follow extended resource name standard");
    }
}

static void resources(struct wh_field_errors *l, const json_t *res, const char *path)
{
    char p[512], lp[512], rp[512];
    const char *key;
    const json_t *v;
    const json_t *limits = wh_json_obj(res, "limits"), *requests = wh_json_obj(res, "requests");
    wh_fpath(lp, sizeof(lp), "%s.limits", path);
    wh_fpath(rp, sizeof(rp), "%s.requests", path);
    /* Go visits the maps in random order; sorted here */
    for (int pass = 0; pass < 2; pass++) {
        const json_t *list = pass ? requests : limits;
        size_t n = json_object_size(list), k = 0;
        const char **keys = wh_xcalloc(n + 1, sizeof(*keys));
        json_object_foreach((json_t *)(uintptr_t)list, key, v) keys[k++] = key;
        for (size_t a = 1; a < n; a++)
            for (size_t b = a; b > 0 && strcmp(keys[b - 1], keys[b]) > 0; b--) {
                const char *t = keys[b];
                keys[b] = keys[b - 1];
                keys[b - 1] = t;
            }
        for (k = 0; k < n; k++) {
            const char *name = keys[k];
            const char *text = json_string_value(json_object_get(list, name));
            struct wh_quantity q;
            struct wh_errbuf eb;
            char shown[WH_QUANTITY_MAX_DIGITS + 8];
            wh_fpath(p, sizeof(p), "%s[%s]", pass ? rp : lp, name);
            resource_name(l, name, p);
            if (!text || wh_quantity_parse(text, &q, &eb))
                continue;
            wh_quantity_format(&q, shown, sizeof(shown));
            if (wh_quantity_sign(&q) < 0)
                wh_ferr_invalid_str(l, p, shown, NONNEG_MSG);
            /* ValidateResourceQuantityValue: found by the differential run */
            if (is_integer_resource(name) && wh_quantity_scaled_value(&q, -3) % 1000 != 0) {
                char gosyntax[320];
                wh_quantity_gosyntax(&q, gosyntax, sizeof(gosyntax));
                wh_ferr_invalid_raw(l, p, gosyntax, "must be an integer");
            }
            if (!pass)
                continue;
            const char *lim_text = json_string_value(json_object_get(limits, name));
            bool overcommit = is_native(name) && !is_hugepages(name);
            struct wh_quantity lq;
            if (lim_text && wh_quantity_parse(lim_text, &lq, &eb) == WH_OK) {
                char lim_shown[WH_QUANTITY_MAX_DIGITS + 8], detail[600];
                wh_quantity_format(&lq, lim_shown, sizeof(lim_shown));
                int c = wh_quantity_cmp(&q, &lq);
                if (c != 0 && !overcommit) {
                    snprintf(detail, sizeof(detail), "must be equal to %s limit of %s", name,
                             lim_shown);
                    wh_ferr_invalid_str(l, rp, shown, detail);
                } else if (c > 0) {
                    snprintf(detail, sizeof(detail), "must be less than or equal to %s limit of %s",
                             name, lim_shown);
                    wh_ferr_invalid_str(l, rp, shown, detail);
                }
            } else if (!overcommit) {
                wh_ferr_required(l, lp, "Limit must be set for non overcommitable resources");
            }
        }
        free(keys);
    }
    bool cpu_mem = json_object_get(limits, "cpu") || json_object_get(limits, "memory") ||
                   json_object_get(requests, "cpu") || json_object_get(requests, "memory");
    bool huge = false;
    json_object_foreach((json_t *)(uintptr_t)limits, key, v) huge |= is_hugepages(key);
    json_object_foreach((json_t *)(uintptr_t)requests, key, v) huge |= is_hugepages(key);
    if (huge && !cpu_mem)
        wh_ferr_forbidden(l, path, "HugePages require cpu or memory");
}

/* %#v of a []core.ContainerResizePolicy. Returns: new string. */
static char *resize_policies_gosyntax(const json_t *list)
{
    static const char *const fields[][2] = {{"resourceName", "ResourceName"},
                                            {"restartPolicy", "RestartPolicy"}};
    char *out = wh_xstrdup("[]core.ContainerResizePolicy{");
    size_t i;
    const json_t *e;
    json_array_foreach(list, i, e)
    {
        char *one = wh_gosyntax_string_struct("core.ContainerResizePolicy", e, fields, 2);
        char *next = wh_str_printf("%s%s%s", out, i ? ", " : "", one);
        free(one);
        free(out);
        out = next;
    }
    char *done = wh_str_printf("%s}", out);
    free(out);
    return done;
}

static void resize_policy(struct wh_field_errors *l, const json_t *list, const char *path)
{
    static const char *const names[] = {"cpu", "memory"};
    static const char *const policies[] = {"NotRequired", "RestartContainer"};
    size_t i, k;
    const json_t *rp;
    char p[512];
    json_array_foreach(list, i, rp)
    {
        const char *name = wh_json_str_or_empty(rp, "resourceName"),
                   *pol = wh_json_str_or_empty(rp, "restartPolicy");
        bool dup = false;
        for (k = 0; k < i && !dup; k++)
            dup = strcmp(wh_json_str_or_empty(json_array_get(list, k), "resourceName"), name) == 0;
        if (dup)
            wh_ferr_duplicate(l, P("%s[%zu]", path, i), name);
        if (!*name)
            wh_ferr_required(l, path, "");
        else if (strcmp(name, "cpu") && strcmp(name, "memory"))
            wh_ferr_not_supported(l, path, name, names, 2);
        if (!*pol)
            wh_ferr_required(l, path, "");
        else if (strcmp(pol, "NotRequired") && strcmp(pol, "RestartContainer"))
            wh_ferr_not_supported(l, path, pol, policies, 2);
    }
}

static void profile(struct wh_field_errors *l, const json_t *prof, const char *path, bool apparmor)
{
    static const char *const types[] = {"Localhost", "RuntimeDefault", "Unconfined"};
    char p[512];
    const char *what = apparmor ? "AppArmor" : "seccomp";
    if (!prof)
        return;
    const char *type = wh_json_str_or_empty(prof, "type");
    const json_t *lp = json_object_get(prof, "localhostProfile");
    bool has_lp = lp && !json_is_null(lp);
    char detail[128];
    if (!*type) {
        wh_ferr_required(l, P("%s.type", path),
                         apparmor ? "type is required when appArmorProfile is set"
                                  : "type is required when seccompProfile is set");
        if (apparmor)
            return;
    } else if (strcmp(type, "Localhost") && strcmp(type, "RuntimeDefault") &&
               strcmp(type, "Unconfined")) {
        wh_ferr_not_supported(l, P("%s.type", path), type, types, 3);
        if (apparmor)
            return;
    }
    if (strcmp(type, "Localhost") == 0) {
        snprintf(detail, sizeof(detail), "must be set when %s type is Localhost", what);
        if (!has_lp || (apparmor && json_string_length(lp) == 0))
            wh_ferr_required(l, P("%s.localhostProfile", path), detail);
        else if (!apparmor)
            local_descending_path(l, wh_json_str_or_empty(prof, "localhostProfile"),
                                  P("%s.localhostProfile", path));
    } else if (has_lp) {
        snprintf(detail, sizeof(detail), "can only be set when %s type is Localhost", what);
        if (apparmor) {
            wh_ferr_invalid_str(l, P("%s.localhostProfile", path),
                                wh_json_str_or_empty(prof, "localhostProfile"), detail);
        } else {
            /* %#v of the core.SeccompProfile: Type, then the pointer LocalhostProfile */
            static const char *const fields[][2] = {{"type", "Type"}};
            char *head = wh_gosyntax_string_struct("core.SeccompProfile", prof, fields, 1);
            char *shown = wh_str_printf("%.*s, LocalhostProfile:(*string)(%s)}",
                                        (int)strlen(head) - 1, head, WH_GOSYNTAX_ADDRESS);
            wh_ferr_invalid_raw(l, P("%s.localhostProfile", path), shown, detail);
            free(head);
            free(shown);
        }
    }
}

/* %#v of a core.SecurityContext: its fields are all pointers. Returns: new string. */
static char *security_context_gosyntax(const json_t *sc)
{
    static const char *const fields[][3] = {
        {"capabilities", "Capabilities", "core.Capabilities"},
        {"privileged", "Privileged", "bool"},
        {"seLinuxOptions", "SELinuxOptions", "core.SELinuxOptions"},
        {"windowsOptions", "WindowsOptions", "core.WindowsSecurityContextOptions"},
        {"runAsUser", "RunAsUser", "int64"},
        {"runAsGroup", "RunAsGroup", "int64"},
        {"runAsNonRoot", "RunAsNonRoot", "bool"},
        {"readOnlyRootFilesystem", "ReadOnlyRootFilesystem", "bool"},
        {"allowPrivilegeEscalation", "AllowPrivilegeEscalation", "bool"},
        {"procMount", "ProcMount", "core.ProcMountType"},
        {"seccompProfile", "SeccompProfile", "core.SeccompProfile"},
        {"appArmorProfile", "AppArmorProfile", "core.AppArmorProfile"},
    };
    return wh_gosyntax_pointer_struct("core.SecurityContext", sc, fields,
                                      sizeof(fields) / sizeof(fields[0]));
}

static void security_context(struct wh_field_errors *l, const json_t *sc, const char *path)
{
    char p[512];
    static const char *const procs[] = {"Default", "Unmasked"};
    if (!sc)
        return;
    static const char *const ids[] = {"runAsUser", "runAsGroup"};
    for (int k = 0; k < 2; k++) {
        const json_t *id = json_object_get(sc, ids[k]);
        if (json_is_integer(id) &&
            (json_integer_value(id) < 0 || json_integer_value(id) > 2147483647))
            wh_ferr_invalid_int(l, P("%s.%s", path, ids[k]), json_integer_value(id),
                                "must be between 0 and 2147483647, inclusive");
    }
    const char *pm = wh_json_str(sc, "procMount");
    if (pm) {
        if (strcmp(pm, "Default") && strcmp(pm, "Unmasked"))
            wh_ferr_not_supported(l, P("%s.procMount", path), pm, procs, 2);
        if (strcmp(pm, "Unmasked") == 0)
            wh_ferr_forbidden(l, P("%s.procMount", path),
                              "`hostUsers` must be false to use "
                              "`Unmasked`");
    }
    profile(l, wh_json_obj(sc, "seccompProfile"), P("%s.seccompProfile", path), false);
    const json_t *ape = json_object_get(sc, "allowPrivilegeEscalation");
    if (json_is_false(ape)) {
        char *shown = security_context_gosyntax(sc);
        if (json_is_true(json_object_get(sc, "privileged")))
            wh_ferr_invalid_raw(l, path, shown,
                                "cannot set `allowPrivilegeEscalation` to false and "
                                "`privileged` to true");
        size_t i;
        const json_t *cap;
        json_array_foreach(wh_json_path(sc, "capabilities", "add", NULL), i, cap)
        {
            if (json_is_string(cap) && strcmp(json_string_value(cap), "CAP_SYS_ADMIN") == 0)
                wh_ferr_invalid_raw(l, path, shown,
                                    "cannot set `allowPrivilegeEscalation` to false and "
                                    "`capabilities.Add` CAP_SYS_ADMIN");
        }
        free(shown);
    }
    profile(l, wh_json_obj(sc, "appArmorProfile"), P("%s.appArmorProfile", path), true);
}

/* --- probes and lifecycle handlers ---------------------------------------------------------- */

static void port_num_or_name(struct wh_field_errors *l, const json_t *port, const char *path)
{
    if (json_is_integer(port)) {
        json_int_t v = json_integer_value(port);
        if (v < 1 || v > 65535)
            wh_ferr_invalid_int(l, path, v, "must be between 1 and 65535, inclusive");
    } else if (json_is_string(port)) {
        struct wh_vmsgs m = {0};
        wh_is_valid_port_name(json_string_value(port), &m);
        invalid_msgs(l, path, json_string_value(port), &m);
    } else {
        /* an IntOrString that is absent is the integer 0 */
        wh_ferr_invalid_int(l, path, 0, "must be between 1 and 65535, inclusive");
    }
}

/* validateHandler; sleep only exists on lifecycle handlers, grpc only on probes. */
static void handler(struct wh_field_errors *l, const json_t *h, const char *path)
{
    static const char *const kinds[] = {"exec", "httpGet", "tcpSocket", "grpc", "sleep"};
    static const char *const schemes[] = {"HTTP", "HTTPS"};
    char p[512];
    int n = 0;
    for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
        const json_t *a = json_object_get(h, kinds[k]);
        if (!a || json_is_null(a))
            continue;
        char hp[600];
        wh_fpath(hp, sizeof(hp), "%s.%s", path, kinds[k]);
        if (n > 0) {
            wh_ferr_forbidden(l, hp, "may not specify more than 1 handler type");
            continue;
        }
        n++;
        switch (k) {
        case 0:
            if (json_array_size(wh_json_arr(a, "command")) == 0)
                wh_ferr_required(l, P("%s.command", hp), "");
            break;
        case 1: {
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
            break;
        }
        case 2:
            port_num_or_name(l, json_object_get(a, "port"), P("%s.port", hp));
            break;
        case 3:
            port_num_or_name(l, json_object_get(a, "port"), P("%s.port", hp));
            break;
        default: {
            json_int_t sec = json_integer_value(json_object_get(a, "seconds"));
            if (sec <= 0 || sec > 30)
                wh_ferr_invalid_int(l, P("%s.seconds", hp), sec,
                                    "must be greater than 0 and less than "
                                    "terminationGracePeriodSeconds (30)");
            break;
        }
        }
    }
    if (n == 0)
        wh_ferr_required(l, path, "must specify a handler type");
}

enum probe_kind { LIVENESS, READINESS, STARTUP };

static void probe(struct wh_field_errors *l, const json_t *pr, enum probe_kind kind,
                  const char *path)
{
    static const char *const fields[] = {"initialDelaySeconds", "timeoutSeconds", "periodSeconds",
                                         "successThreshold", "failureThreshold"};
    char p[512];
    if (!pr)
        return;
    handler(l, pr, path);
    for (size_t k = 0; k < sizeof(fields) / sizeof(fields[0]); k++)
        wh_validate_nonnegative(l, json_integer_value(json_object_get(pr, fields[k])),
                                P("%s.%s", path, fields[k]));
    const json_t *tg = json_object_get(pr, "terminationGracePeriodSeconds");
    if (json_is_integer(tg) && json_integer_value(tg) <= 0)
        wh_ferr_invalid_int(l, P("%s.terminationGracePeriodSeconds", path), json_integer_value(tg),
                            "must be greater than 0");
    json_int_t st = json_integer_value(json_object_get(pr, "successThreshold"));
    if (kind != READINESS && st != 1)
        wh_ferr_invalid_int(l, P("%s.successThreshold", path), st, "must be 1");
    if (kind == READINESS && json_is_integer(tg))
        wh_ferr_invalid_int(l, P("%s.terminationGracePeriodSeconds", path), json_integer_value(tg),
                            "must not be set for readinessProbes");
}

static void lifecycle_and_probes(struct wh_field_errors *l, const json_t *c, const char *path)
{
    char p[512];
    const json_t *lc = wh_json_obj(c, "lifecycle");
    if (lc) {
        if (wh_json_obj(lc, "postStart"))
            handler(l, wh_json_obj(lc, "postStart"), P("%s.lifecycle.postStart", path));
        if (wh_json_obj(lc, "preStop"))
            handler(l, wh_json_obj(lc, "preStop"), P("%s.lifecycle.preStop", path));
    }
    probe(l, wh_json_obj(c, "livenessProbe"), LIVENESS, P("%s.livenessProbe", path));
    probe(l, wh_json_obj(c, "readinessProbe"), READINESS, P("%s.readinessProbe", path));
    probe(l, wh_json_obj(c, "startupProbe"), STARTUP, P("%s.startupProbe", path));
}

/* --- containers ------------------------------------------------------------------------------ */

static void container_common(struct wh_field_errors *l, const json_t *c, const struct vols *vols,
                             const char *path)
{
    static const char *const tmps[] = {"File", "FallbackToLogsOnError"};
    char p[512];
    const char *name = wh_json_str_or_empty(c, "name");
    if (!*name) {
        wh_ferr_required(l, P("%s.name", path), "");
    } else {
        struct wh_vmsgs m = {0};
        wh_is_dns1123_label(name, &m);
        invalid_msgs(l, P("%s.name", path), name, &m);
    }
    if (!*wh_json_str_or_empty(c, "image"))
        wh_ferr_required(l, P("%s.image", path), "");
    const char *tmp = wh_json_str_or_empty(c, "terminationMessagePolicy");
    if (!*tmp)
        wh_ferr_required(l, P("%s.terminationMessagePolicy", path), "");
    else if (strcmp(tmp, "File") && strcmp(tmp, "FallbackToLogsOnError"))
        wh_ferr_not_supported(l, P("%s.terminationMessagePolicy", path), tmp, tmps, 2);
    ports(l, wh_json_arr(c, "ports"), P("%s.ports", path));
    env(l, wh_json_arr(c, "env"), P("%s.env", path));
    env_from(l, wh_json_arr(c, "envFrom"), P("%s.envFrom", path));
    volume_mounts(l, c, vols, P("%s.volumeMounts", path));
    volume_devices(l, c, vols, P("%s.volumeDevices", path));
    pull_policy(l, wh_json_str_or_empty(c, "imagePullPolicy"), P("%s.imagePullPolicy", path));
    resources(l, wh_json_obj(c, "resources"), P("%s.resources", path));
    resize_policy(l, wh_json_arr(c, "resizePolicy"), P("%s.resizePolicy", path));
    security_context(l, wh_json_obj(c, "securityContext"), P("%s.securityContext", path));
}

/* AccumulateUniqueHostPorts over a list of containers. */
static void host_port_conflicts(struct wh_field_errors *l, const json_t *const *cs, size_t n,
                                const size_t *index, const char *path)
{
    char p[512];
    char(*seen)[128] = NULL;
    size_t nseen = 0, cap = 0;
    for (size_t ci = 0; ci < n; ci++) {
        size_t pi;
        const json_t *port;
        json_array_foreach(wh_json_arr(cs[ci], "ports"), pi, port)
        {
            json_int_t hp = json_integer_value(json_object_get(port, "hostPort"));
            char key[128];
            bool dup = false;
            if (hp == 0)
                continue;
            snprintf(key, sizeof(key), "%s/%s/%lld", wh_json_str_or_empty(port, "protocol"),
                     wh_json_str_or_empty(port, "hostIP"), (long long)hp);
            for (size_t k = 0; k < nseen && !dup; k++)
                dup = strcmp(seen[k], key) == 0;
            if (dup) {
                wh_ferr_duplicate(l, P("%s[%zu].ports[%zu].hostPort", path, index[ci], pi), key);
                continue;
            }
            if (nseen == cap) {
                cap = cap ? 2 * cap : 8;
                seen = wh_xrealloc(seen, cap * sizeof(*seen));
            }
            memcpy(seen[nseen++], key, sizeof(key));
        }
    }
    free(seen);
}

static void containers(struct wh_field_errors *l, const json_t *list, const struct vols *vols)
{
    size_t i;
    const json_t *c;
    char p[512], cp[512];
    size_t n = json_array_size(list);
    if (n == 0) {
        wh_ferr_required(l, "spec.containers", "");
        return;
    }
    const json_t **all = wh_xcalloc(n, sizeof(*all));
    size_t *idx = wh_xcalloc(n, sizeof(*idx));
    json_array_foreach(list, i, c)
    {
        wh_fpath(cp, sizeof(cp), "spec.containers[%zu]", i);
        container_common(l, c, vols, cp);
        const char *name = wh_json_str_or_empty(c, "name");
        bool dup = false;
        for (size_t k = 0; k < i && !dup; k++)
            dup = strcmp(wh_json_str_or_empty(json_array_get(list, k), "name"), name) == 0;
        if (dup)
            wh_ferr_duplicate(l, P("%s.name", cp), name);
        lifecycle_and_probes(l, c, cp);
        if (wh_json_present(c, "restartPolicy"))
            wh_ferr_forbidden(l, P("%s.restartPolicy", cp),
                              "may not be set for non-init containers");
        all[i] = c;
        idx[i] = i;
    }
    host_port_conflicts(l, all, n, idx, "spec.containers");
    free(all);
    free(idx);
}

static void init_containers(struct wh_field_errors *l, const json_t *list, const json_t *regular,
                            const struct vols *vols)
{
    static const char *const always[] = {"Always"};
    size_t i, k;
    const json_t *c;
    char p[512], cp[512];
    size_t nreg = json_array_size(regular);
    const char **names = wh_xcalloc(nreg + json_array_size(list) + 1, sizeof(*names));
    size_t nn = 0;
    json_array_foreach(regular, k, c) names[nn++] = wh_json_str_or_empty(c, "name");
    json_array_foreach(list, i, c)
    {
        wh_fpath(cp, sizeof(cp), "spec.initContainers[%zu]", i);
        container_common(l, c, vols, cp);
        bool restart_always = false;
        const char *rp = wh_json_str(c, "restartPolicy");
        if (rp) {
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
        /* upstream checks each init container alone, so the path always says [0] */
        size_t idx = 0;
        host_port_conflicts(l, &c, 1, &idx, "spec.initContainers");
        if (restart_always) {
            lifecycle_and_probes(l, c, cp);
        } else {
            static const char *const fields[] = {"lifecycle", "livenessProbe", "readinessProbe",
                                                 "startupProbe"};
            for (k = 0; k < 4; k++)
                if (wh_json_present(c, fields[k]))
                    wh_ferr_forbidden(l, P("%s.%s", cp, fields[k]),
                                      "may not be set for init containers without "
                                      "restartPolicy=Always");
        }
        /* kruise's PodValidationOptions leave AllowSidecarResizePolicy false: no init
         * container, sidecar or not, may have one (found by the differential run) */
        const json_t *resize = wh_json_arr(c, "resizePolicy");
        if (json_array_size(resize) > 0) {
            char *shown = resize_policies_gosyntax(resize);
            wh_ferr_invalid_raw(l, P("%s.resizePolicy", cp), shown,
                                "must not be set for init containers");
            free(shown);
        }
    }
    free(names);
}

static void only_for_pod(struct wh_field_errors *l, const json_t *list, const char *path)
{
    size_t i;
    const json_t *c;
    char p[512];
    json_array_foreach(list, i, c)
    {
        const char *image = wh_json_str_or_empty(c, "image");
        size_t n = strlen(image);
        bool padded = n && (strchr(" \t\n\r\v\f", image[0]) || strchr(" \t\n\r\v\f", image[n - 1]));
        if (padded)
            wh_ferr_invalid_str(l, P("%s[%zu].image", path, i), image,
                                "must not have leading or trailing whitespace");
    }
}

void wh_validate_pod_spec(struct wh_field_errors *l, const json_t *spec)
{
    static const char *const restart[] = {"Always", "OnFailure", "Never"};
    static const char *const dns[] = {"ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"};
    struct vols vols;
    if (!wh_json_present(spec, "terminationGracePeriodSeconds"))
        wh_ferr_required(l, "spec.terminationGracePeriodSeconds", "");
    volumes(l, wh_json_arr(spec, "volumes"), &vols);
    containers(l, wh_json_arr(spec, "containers"), &vols);
    init_containers(l, wh_json_arr(spec, "initContainers"), wh_json_arr(spec, "containers"), &vols);
    const char *rp = wh_json_str_or_empty(spec, "restartPolicy");
    if (!*rp)
        wh_ferr_required(l, "spec.restartPolicy", "");
    else if (strcmp(rp, "Always") && strcmp(rp, "OnFailure") && strcmp(rp, "Never"))
        wh_ferr_not_supported(l, "spec.restartPolicy", rp, restart, 3);
    const char *dp = wh_json_str_or_empty(spec, "dnsPolicy");
    if (!*dp)
        wh_ferr_required(l, "spec.dnsPolicy", "");
    else if (strcmp(dp, "ClusterFirstWithHostNet") && strcmp(dp, "ClusterFirst") &&
             strcmp(dp, "Default") && strcmp(dp, "None"))
        wh_ferr_not_supported(l, "spec.dnsPolicy", dp, dns, 4);
    const char *sa = wh_json_str_or_empty(spec, "serviceAccountName");
    if (*sa) {
        struct wh_vmsgs m = {0};
        wh_name_is_dns_subdomain(sa, false, &m);
        invalid_msgs(l, "spec.serviceAccountName", sa, &m);
    }
    only_for_pod(l, wh_json_arr(spec, "containers"), "spec.containers");
    only_for_pod(l, wh_json_arr(spec, "initContainers"), "spec.initContainers");
    free(vols.items);
}
