/* A Pod's volumes (ValidateVolumes and validateVolumeSource with every source's own checks) and
 * the persistent volume claim templates an ephemeral volume carries, as k8s v1.32.10 words
 * them. The order of the checks is Go's, source by source. */
#include "k8s/podvalidation.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "k8s/podvalidation_int.h"
#include "util/json.h"
#include "util/mem.h"
#include "util/str.h"

#define P(...) wh_fpath(p, sizeof(p), __VA_ARGS__)
#define MORE_THAN_ONE "may not specify more than 1 volume type"

/* --- paths ----------------------------------------------------------------------------------- */

bool wh_pv_has_backsteps(const char *path)
{
    const char *s = path;
    for (;;) {
        const char *slash = strchr(s, '/');
        size_t n = slash ? (size_t)(slash - s) : strlen(s);
        if (n == 2 && s[0] == '.' && s[1] == '.')
            return true;
        if (!slash)
            return false;
        s = slash + 1;
    }
}

void wh_pv_no_backsteps(struct wh_field_errors *l, const char *value, const char *path)
{
    if (wh_pv_has_backsteps(value))
        wh_ferr_invalid_str(l, path, value, "must not contain '..'");
}

void wh_pv_local_descending_path(struct wh_field_errors *l, const char *value, const char *path)
{
    if (value[0] == '/')
        wh_ferr_invalid_str(l, path, value, "must be a relative path");
    wh_pv_no_backsteps(l, value, path);
}

void wh_pv_local_non_reserved_path(struct wh_field_errors *l, const char *value, const char *path)
{
    wh_pv_local_descending_path(l, value, path);
    if (strncmp(value, "..", 2) == 0 && strncmp(value, "../", 3) != 0)
        wh_ferr_invalid_str(l, path, value, "must not start with '..'");
}

void wh_pv_pull_policy(struct wh_field_errors *l, const char *policy, const char *path)
{
    static const char *const pulls[] = {"Always", "IfNotPresent", "Never"};
    if (!*policy)
        wh_ferr_required(l, path, "");
    else if (strcmp(policy, "Always") && strcmp(policy, "IfNotPresent") && strcmp(policy, "Never"))
        wh_ferr_not_supported(l, path, policy, pulls, 3);
}

/* A file mode pointer: 0..0777. */
static void file_mode(struct wh_field_errors *l, const json_t *o, const char *key, const char *path)
{
    const json_t *m = json_object_get(o, key);
    if (json_is_integer(m) && (json_integer_value(m) > 0777 || json_integer_value(m) < 0))
        wh_ferr_invalid_int(l, path, json_integer_value(m), WH_PV_FILE_MODE_MSG);
}

static void required_str(struct wh_field_errors *l, const json_t *o, const char *key,
                         const char *src_path)
{
    char p[WH_PV_PATH];
    if (!*wh_json_str_or_empty(o, key))
        wh_ferr_required(l, P("%s.%s", src_path, key), "");
}

/* --- field selectors (shared with the containers' env) ---------------------------------------- */

static const char *const volume_field_paths[] = {
    "metadata.annotations", "metadata.labels", "metadata.name",
    "metadata.namespace",   "metadata.uid",
};

/* fieldpath.SplitMaybeSubscriptedPath: "metadata.labels['key']" -> the path and the key. */
static bool split_subscripted(const char *fp, char **path, char **sub)
{
    size_t n = strlen(fp);
    if (n < 2 || strcmp(fp + n - 2, "']") != 0)
        return false;
    const char *open = strstr(fp, "['");
    if (!open || open + 2 > fp + n - 2 || open == fp)
        return false;
    *path = wh_str_printf("%.*s", (int)(open - fp), fp);
    *sub = wh_str_printf("%.*s", (int)(fp + n - 2 - (open + 2)), open + 2);
    return true;
}

/* podshelper.ConvertDownwardAPIFieldLabel's labels without a subscript. */
static bool convertible_field_label(const char *fp)
{
    static const char *const labels[] = {
        "metadata.annotations", "metadata.labels", "metadata.name",      "metadata.namespace",
        "metadata.uid",         "spec.nodeName",   "spec.restartPolicy", "spec.serviceAccountName",
        "spec.schedulerName",   "status.phase",    "status.hostIP",      "status.hostIPs",
        "status.podIP",         "status.podIPs"};
    for (size_t i = 0; i < sizeof(labels) / sizeof(labels[0]); i++)
        if (strcmp(labels[i], fp) == 0)
            return true;
    return false;
}

void wh_pv_object_field_selector(struct wh_field_errors *l, const json_t *fs,
                                 const char *const *valid, size_t nvalid, const char *path);
void wh_pv_object_field_selector(struct wh_field_errors *l, const json_t *fs,
                                 const char *const *valid, size_t nvalid, const char *path)
{
    char p[WH_PV_PATH];
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
    char *spath = NULL, *sub = NULL, *msg = NULL;
    const char *internal = fp;
    if (strcmp(av, "v1") != 0) {
        msg = wh_str_printf("error converting fieldPath: unsupported pod version: %s", av);
    } else if (split_subscripted(fp, &spath, &sub)) {
        if (strcmp(spath, "metadata.annotations") && strcmp(spath, "metadata.labels"))
            msg = wh_str_printf(
                "error converting fieldPath: field label does not support subscript: %s", fp);
        free(spath);
        free(sub);
        spath = sub = NULL;
    } else if (strcmp(fp, "spec.host") == 0) {
        internal = "spec.nodeName"; /* kept for old v1 clients */
    } else if (!convertible_field_label(fp)) {
        msg = wh_str_printf("error converting fieldPath: field label not supported: %s", fp);
    }
    if (msg) {
        wh_ferr_invalid_str(l, P("%s.fieldPath", path), fp, msg);
        free(msg);
        return;
    }
    if (split_subscripted(internal, &spath, &sub)) {
        if (strcmp(spath, "metadata.annotations") == 0) {
            for (char *c = sub; *c; c++)
                *c = (char)(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c);
            wh_pv_check(l, path, sub, wh_is_qualified_name);
        } else if (strcmp(spath, "metadata.labels") == 0) {
            wh_pv_check(l, path, sub, wh_is_qualified_name);
        } else {
            wh_ferr_invalid_str(l, path, spath, "does not support subscript");
        }
        free(spath);
        free(sub);
        return;
    }
    for (size_t i = 0; i < nvalid; i++)
        if (strcmp(valid[i], internal) == 0)
            return;
    wh_ferr_not_supported(l, P("%s.fieldPath", path), internal, valid, nvalid);
}

void wh_pv_resource_field_selector(struct wh_field_errors *l, const json_t *fs, bool volume,
                                   const char *path);
void wh_pv_resource_field_selector(struct wh_field_errors *l, const json_t *fs, bool volume,
                                   const char *path)
{
    static const char *const valid[] = {
        "limits.cpu",   "limits.ephemeral-storage",   "limits.memory",
        "requests.cpu", "requests.ephemeral-storage", "requests.memory"};
    static const char *const mem_divs[] = {"1",   "1k",  "1M",  "1G",  "1T",  "1P", "1E",
                                           "1Ki", "1Mi", "1Gi", "1Ti", "1Pi", "1Ei"};
    char p[WH_PV_PATH];
    const char *res = wh_json_str_or_empty(fs, "resource");
    if (volume && !*wh_json_str_or_empty(fs, "containerName")) {
        wh_ferr_required(l, P("%s.containerName", path), "");
    } else if (!*res) {
        wh_ferr_required(l, P("%s.resource", path), "");
    } else {
        bool ok = wh_str_has_prefix(res, "limits.hugepages-") ||
                  wh_str_has_prefix(res, "requests.hugepages-");
        for (size_t i = 0; i < sizeof(valid) / sizeof(valid[0]); i++)
            ok |= strcmp(valid[i], res) == 0;
        if (!ok)
            wh_ferr_not_supported(l, P("%s.resource", path), res, valid,
                                  sizeof(valid) / sizeof(valid[0]));
    }
    /* validateContainerResourceDivisor: an unset (zero) divisor is not checked; the others by
     * their canonical text */
    struct wh_quantity q;
    if (!wh_pv_quantity(json_object_get(fs, "divisor"), &q) || wh_quantity_is_zero(&q))
        return;
    char div[WH_QUANTITY_MAX_DIGITS + 8];
    wh_quantity_format(&q, div, sizeof(div));
    bool in_mem = false;
    for (size_t i = 0; i < sizeof(mem_divs) / sizeof(mem_divs[0]); i++)
        in_mem |= strcmp(mem_divs[i], div) == 0;
    P("%s.divisor", path);
    if (!strcmp(res, "limits.cpu") || !strcmp(res, "requests.cpu")) {
        if (strcmp(div, "1m") && strcmp(div, "1"))
            wh_ferr_invalid_str(l, p, res,
                                "only divisor's values 1m and 1 are supported with the cpu "
                                "resource");
    } else if (!strcmp(res, "limits.memory") || !strcmp(res, "requests.memory")) {
        if (!in_mem)
            wh_ferr_invalid_str(l, p, res,
                                "only divisor's values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, "
                                "1Ti, 1Pi, 1Ei are supported with the memory resource");
    } else if (!strcmp(res, "limits.ephemeral-storage") ||
               !strcmp(res, "requests.ephemeral-storage")) {
        if (!in_mem)
            wh_ferr_invalid_str(l, p, res,
                                "only divisor's values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, "
                                "1Ti, 1Pi, 1Ei are supported with the local ephemeral storage "
                                "resource");
    }
    if ((wh_str_has_prefix(res, "requests.hugepages-") ||
         wh_str_has_prefix(res, "limits.hugepages-")) &&
        !in_mem)
        wh_ferr_invalid_str(l, p, res,
                            "only divisor's values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, "
                            "1Ti, 1Pi, 1Ei are supported with the hugepages resource");
}

/* --- volume sources ----------------------------------------------------------------------------
 */

static void key_to_path(struct wh_field_errors *l, const json_t *kp, const char *path)
{
    char p[WH_PV_PATH];
    const char *kpath = wh_json_str_or_empty(kp, "path");
    required_str(l, kp, "key", path);
    required_str(l, kp, "path", path);
    wh_pv_local_non_reserved_path(l, kpath, P("%s.path", path));
    file_mode(l, kp, "mode", P("%s.mode", path));
}

static void key_to_paths(struct wh_field_errors *l, const json_t *items, const char *path)
{
    char ip[WH_PV_PATH];
    size_t i;
    const json_t *kp;
    json_array_foreach(items, i, kp)
    {
        key_to_path(l, kp, wh_fpath(ip, sizeof(ip), "%s.items[%zu]", path, i));
    }
}

static void downward_file(struct wh_field_errors *l, const json_t *file, const char *path)
{
    char p[WH_PV_PATH];
    required_str(l, file, "path", path);
    wh_pv_local_non_reserved_path(l, wh_json_str_or_empty(file, "path"), P("%s.path", path));
    if (wh_pv_get(file, "fieldRef")) {
        wh_pv_object_field_selector(l, json_object_get(file, "fieldRef"), volume_field_paths,
                                    sizeof(volume_field_paths) / sizeof(volume_field_paths[0]),
                                    P("%s.fieldRef", path));
        if (wh_pv_get(file, "resourceFieldRef"))
            wh_ferr_invalid_str(l, path, "resource",
                                "fieldRef and resourceFieldRef can not be specified "
                                "simultaneously");
    } else if (wh_pv_get(file, "resourceFieldRef")) {
        wh_pv_resource_field_selector(l, json_object_get(file, "resourceFieldRef"), true,
                                      P("%s.resourceFieldRef", path));
    } else {
        wh_ferr_required(l, path, "one of fieldRef and resourceFieldRef is required");
    }
    file_mode(l, file, "mode", P("%s.mode", path));
}

/* A set of strings in insertion order (small: linear lookups). */
struct strset {
    const char **s;
    size_t n, cap;
};

static bool strset_has(const struct strset *set, const char *v)
{
    for (size_t i = 0; i < set->n; i++)
        if (strcmp(set->s[i], v) == 0)
            return true;
    return false;
}

static void strset_add(struct strset *set, const char *v)
{
    if (set->n == set->cap) {
        set->cap = set->cap ? 2 * set->cap : 8;
        set->s = wh_xrealloc(set->s, set->cap * sizeof(*set->s));
    }
    set->s[set->n++] = v;
}

/* allPaths of validateProjectionSources. */
static void unique_path(struct wh_field_errors *l, struct strset *all, const char *cur,
                        const char *value, const char *path)
{
    if (!strset_has(all, cur))
        strset_add(all, cur);
    else
        wh_ferr_invalid_str(l, path, value, "conflicting duplicate paths");
}

/* ValidateSignerName. */
static void signer_name(struct wh_field_errors *l, const char *signer, const char *path)
{
    if (!*signer) {
        wh_ferr_required(l, path, "");
        return;
    }
    const char *slash = strchr(signer, '/');
    if (!slash || strchr(slash + 1, '/')) {
        wh_ferr_invalid_str(l, path, signer,
                            "must be a fully qualified domain and path of the form "
                            "'example.com/signer-name'");
        return;
    }
    char *domain = wh_str_printf("%.*s", (int)(slash - signer), signer);
    const char *rest = slash + 1;
    if (strlen(domain) > 253)
        wh_ferr_too_long(l, path, 253);
    size_t ndomain_labels = 1;
    for (const char *c = domain; *c; c++)
        ndomain_labels += *c == '.';
    /* the first label that fails is reported, then no other */
    for (int part = 0; part < 2; part++) {
        const char *seg = part ? rest : domain;
        const char *start = seg;
        for (;;) {
            const char *dot = strchr(start, '.');
            char *lbl =
                wh_str_printf("%.*s", (int)(dot ? (size_t)(dot - start) : strlen(start)), start);
            struct wh_vmsgs m = {0};
            if (part)
                wh_is_dns1123_subdomain(lbl, &m);
            else
                wh_is_dns1123_label(lbl, &m);
            for (size_t i = 0; i < m.n; i++) {
                char *q = wh_go_quote(lbl);
                char *d = wh_str_printf("validating label %s: %s", q, m.m[i]);
                wh_ferr_invalid_str(l, path, seg, d);
                free(d);
                free(q);
            }
            free(lbl);
            if (m.n || !dot)
                break;
            start = dot + 1;
        }
        if (!part && ndomain_labels < 2)
            wh_ferr_invalid_str(l, path, domain,
                                "should be a domain with at least two segments separated by dots");
    }
    if (strlen(signer) > 253 + 253 + 63 + 1 + 1)
        wh_ferr_too_long(l, path, 253 + 253 + 63 + 1 + 1);
    free(domain);
}

/* The messages of ValidateClusterTrustBundleName(signer)(name, false), signer being what
 * extractSignerNameFromClusterTrustBundleName reads in the name (its part before the last ':',
 * with ':' as '/'), or "" when it has no ':'. */
static void cluster_trust_bundle_name(struct wh_field_errors *l, const char *name, const char *path)
{
    const char *colon = strrchr(name, ':');
    char *msg = NULL;
    struct wh_vmsgs m = {0};
    char *signer = colon ? wh_str_printf("%.*s", (int)(colon - name), name) : wh_xstrdup("");
    for (char *c = signer; *c; c++)
        *c = *c == ':' ? '/' : *c;
    if (!*signer) {
        if (strchr(name, ':'))
            msg = wh_xstrdup("ClusterTrustBundle without signer name must not have \":\" in its "
                             "name");
        else
            wh_name_is_dns_subdomain(name, false, &m);
    } else {
        char *prefix = wh_str_printf("%s:", signer);
        for (char *c = prefix; *c; c++)
            *c = *c == '/' ? ':' : *c;
        if (!wh_str_has_prefix(name, prefix))
            msg = wh_str_printf("ClusterTrustBundle for signerName %s must be named with prefix %s",
                                signer, prefix);
        else
            wh_name_is_dns_subdomain(name + strlen(prefix), false, &m);
        free(prefix);
    }
    free(signer);
    if (msg) {
        char *d = wh_str_printf("not a valid clustertrustbundlename: %s", msg);
        wh_ferr_invalid_str(l, path, name, d);
        free(d);
        free(msg);
    }
    for (size_t i = 0; i < m.n; i++) {
        char *d = wh_str_printf("not a valid clustertrustbundlename: %s", m.m[i]);
        wh_ferr_invalid_str(l, path, name, d);
        free(d);
    }
}

static void cluster_trust_bundle(struct wh_field_errors *l, const json_t *ctb, const char *path,
                                 struct strset *all, const char *projected_path)
{
    char p[WH_PV_PATH];
    const json_t *name = wh_pv_get(ctb, "name"), *signer = wh_pv_get(ctb, "signerName");
    if (name && signer) {
        char *g = wh_pv_gosyntax_cluster_trust_bundle(ctb);
        wh_ferr_invalid_raw(l, path, g, "only one of name and signerName may be used");
        free(g);
    } else if (name) {
        const char *n = json_is_string(name) ? json_string_value(name) : "";
        if (!*n)
            wh_ferr_required(l, P("%s.name", path), "must be a valid object name");
        cluster_trust_bundle_name(l, n, P("%s.name", path));
        const json_t *sel = wh_pv_get(ctb, "labelSelector");
        if (sel) {
            char *g = wh_gosyntax_label_selector(sel);
            wh_ferr_invalid_raw(l, P("%s.labelSelector", path), g,
                                "labelSelector must be unset if name is specified");
            free(g);
        }
    } else if (signer) {
        const char *sn = json_is_string(signer) ? json_string_value(signer) : "";
        if (!*sn)
            wh_ferr_required(l, P("%s.signerName", path), "must be a valid signer name");
        signer_name(l, sn, P("%s.signerName", path));
        wh_validate_label_selector_opts(l, wh_pv_get(ctb, "labelSelector"), false,
                                        P("%s.labelSelector", path));
    } else {
        wh_ferr_required(l, path, "either name or signerName must be specified");
    }
    const char *cpath = wh_json_str_or_empty(ctb, "path");
    required_str(l, ctb, "path", path);
    wh_pv_local_non_reserved_path(l, cpath, P("%s.path", path));
    unique_path(l, all, cpath, cpath, projected_path);
}

static void projected(struct wh_field_errors *l, const json_t *proj, const char *path)
{
    char p[WH_PV_PATH], sp[WH_PV_PATH], kp[WH_PV_PATH];
    size_t i, k;
    const json_t *src, *item;
    struct strset all = {0};
    file_mode(l, proj, "defaultMode", P("%s.defaultMode", path));
    json_array_foreach(wh_json_arr(proj, "sources"), i, src)
    {
        int nsrc = 0;
        wh_fpath(sp, sizeof(sp), "%s.sources[%zu]", path, i);
        static const char *const kinds[] = {"secret", "configMap"};
        for (size_t kk = 0; kk < 2; kk++) {
            const json_t *s = wh_pv_get(src, kinds[kk]);
            if (!s)
                continue;
            nsrc++;
            wh_fpath(kp, sizeof(kp), "%s.%s", sp, kinds[kk]);
            required_str(l, s, "name", kp);
            json_array_foreach(wh_json_arr(s, "items"), k, item)
            {
                key_to_path(l, item, P("%s.items[%zu]", kp, k));
                const char *ip = wh_json_str_or_empty(item, "path");
                if (*ip)
                    unique_path(l, &all, ip, wh_json_str_or_empty(s, "name"), path);
            }
        }
        const json_t *dapi = wh_pv_get(src, "downwardAPI");
        if (dapi) {
            nsrc++;
            wh_fpath(kp, sizeof(kp), "%s.downwardAPI", sp);
            json_array_foreach(wh_json_arr(dapi, "items"), k, item)
            {
                downward_file(l, item, kp);
                const char *ip = wh_json_str_or_empty(item, "path");
                if (*ip)
                    unique_path(l, &all, ip, ip, path);
            }
        }
        const json_t *tok = wh_pv_get(src, "serviceAccountToken");
        if (tok) {
            nsrc++;
            long long exp = wh_pv_int(tok, "expirationSeconds");
            if (exp < 600)
                wh_ferr_invalid_int(l, P("%s.serviceAccountToken.expirationSeconds", sp), exp,
                                    "may not specify a duration less than 10 minutes");
            if (exp > (1LL << 32))
                wh_ferr_invalid_int(l, P("%s.serviceAccountToken.expirationSeconds", sp), exp,
                                    "may not specify a duration larger than 2^32 seconds");
            const char *tp = wh_json_str_or_empty(tok, "path");
            if (!*tp)
                wh_ferr_required(l, P("%s.path", path), "");
            else
                wh_pv_local_non_reserved_path(l, tp, P("%s.path", path));
        }
        const json_t *ctb = wh_pv_get(src, "clusterTrustBundle");
        if (ctb) {
            nsrc++;
            cluster_trust_bundle(l, ctb, P("%s.clusterTrustBundle", sp), &all, path);
        }
        if (nsrc > 1)
            wh_ferr_forbidden(l, sp, "may not specify more than 1 volume type per source");
    }
    free(all.s);
}

static bool starts_iqn_eui_naa(const char *s)
{
    return wh_str_has_prefix(s, "iqn") || wh_str_has_prefix(s, "eui") ||
           wh_str_has_prefix(s, "naa");
}

static bool is_ascii_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static bool all_digits(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return false;
    return true;
}

/* iqn\.\d{4}-\d{2}\.([[:alnum:]-.]+)(:[^,;*&$|\s]+)$, unanchored at the start. */
static bool iqn_match_at(const char *s)
{
    if (strncmp(s, "iqn.", 4) != 0 || !all_digits(s + 4, 4) || s[8] != '-' ||
        !all_digits(s + 9, 2) || s[11] != '.')
        return false;
    const char *c = s + 12;
    size_t n = 0;
    while (is_ascii_alnum(*c) || *c == '-' || *c == '.') {
        c++;
        n++;
    }
    if (n == 0 || *c != ':' || !c[1])
        return false;
    for (c++; *c; c++)
        if (strchr(",;*&$| \t\n\f\r", *c))
            return false;
    return true;
}

static bool iqn_match(const char *s)
{
    for (const char *c = s; *c; c++)
        if (iqn_match_at(c))
            return true;
    return false;
}

/* The byte length of the UTF-8 sequence at s as Go's regexp reads one rune (an invalid byte is
 * one rune). */
static size_t rune_len(const unsigned char *s)
{
    size_t n = s[0] < 0x80 ? 1 : s[0] >= 0xF0 ? 4 : s[0] >= 0xE0 ? 3 : s[0] >= 0xC2 ? 2 : 0;
    if (n == 0)
        return 1;
    for (size_t i = 1; i < n; i++)
        if ((s[i] & 0xC0) != 0x80)
            return 1;
    return n;
}

/* ^<prefix>.[[:alnum:]]{n}$ */
static bool prefixed_alnum(const char *s, const char *prefix, size_t n)
{
    size_t pl = strlen(prefix);
    if (strncmp(s, prefix, pl) != 0 || !s[pl] || s[pl] == '\n')
        return false;
    const char *c = s + pl + rune_len((const unsigned char *)s + pl);
    if (strlen(c) != n)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!is_ascii_alnum(c[i]))
            return false;
    return true;
}

static bool iscsi_name_ok(const char *s)
{
    if (wh_str_has_prefix(s, "iqn"))
        return iqn_match(s);
    if (wh_str_has_prefix(s, "eui"))
        return prefixed_alnum(s, "eui", 16);
    return prefixed_alnum(s, "naa", 32);
}

static void iscsi(struct wh_field_errors *l, const json_t *s, const char *path)
{
    char p[WH_PV_PATH];
    required_str(l, s, "targetPortal", path);
    const char *iqn = wh_json_str_or_empty(s, "iqn");
    if (!*iqn) {
        wh_ferr_required(l, P("%s.iqn", path), "");
    } else if (!starts_iqn_eui_naa(iqn)) {
        wh_ferr_invalid_str(l, P("%s.iqn", path), iqn,
                            "must be valid format starting with iqn, eui, or naa");
    } else if (!iscsi_name_ok(iqn)) {
        wh_ferr_invalid_str(l, P("%s.iqn", path), iqn, "must be valid format");
    }
    long long lun = wh_pv_int(s, "lun");
    if (lun < 0 || lun > 255)
        wh_ferr_invalid_int(l, P("%s.lun", path), lun, "must be between 0 and 255, inclusive");
    if ((wh_json_bool(s, "chapAuthDiscovery") || wh_json_bool(s, "chapAuthSession")) &&
        !wh_pv_get(s, "secretRef"))
        wh_ferr_required(l, P("%s.secretRef", path), "");
    const json_t *ini = wh_pv_get(s, "initiatorName");
    if (ini) {
        const char *in = json_is_string(ini) ? json_string_value(ini) : "";
        if (!starts_iqn_eui_naa(in))
            wh_ferr_invalid_str(l, P("%s.initiatorname", path), in,
                                "must be valid format starting with iqn, eui, or naa");
        else if (!iscsi_name_ok(in))
            wh_ferr_invalid_str(l, P("%s.initiatorname", path), in, "must be valid format");
    }
}

/* net.SplitHostPort's verdict on one "host:port". */
static bool split_host_port_ok(const char *hp)
{
    const char *last = strrchr(hp, ':');
    size_t j = 0, k = 0;
    if (!last)
        return false;
    size_t i = (size_t)(last - hp), n = strlen(hp);
    if (hp[0] == '[') {
        const char *close = strchr(hp, ']');
        if (!close)
            return false;
        size_t end = (size_t)(close - hp);
        if (end + 1 == n || end + 1 != i)
            return false;
        j = 1;
        k = end + 1;
    } else {
        for (size_t c = 0; c < i; c++)
            if (hp[c] == ':')
                return false;
    }
    return !strchr(hp + j, '[') && !strchr(hp + k, ']');
}

static void quobyte(struct wh_field_errors *l, const json_t *s, const char *path)
{
    char p[WH_PV_PATH];
    const char *reg = wh_json_str_or_empty(s, "registry");
    if (!*reg) {
        wh_ferr_required(l, P("%s.registry", path),
                         "must be a host:port pair or multiple pairs separated by commas");
    } else if (strlen(wh_json_str_or_empty(s, "tenant")) >= 65) {
        wh_ferr_required(l, P("%s.tenant", path),
                         "must be a UUID and may not exceed a length of 64 characters");
    } else {
        const char *start = reg;
        for (;;) {
            const char *comma = strchr(start, ',');
            char *pair = wh_str_printf(
                "%.*s", (int)(comma ? (size_t)(comma - start) : strlen(start)), start);
            if (!split_host_port_ok(pair))
                wh_ferr_invalid_str(l, P("%s.registry", path), reg,
                                    "must be a host:port pair or multiple pairs separated by "
                                    "commas");
            free(pair);
            if (!comma)
                break;
            start = comma + 1;
        }
    }
    required_str(l, s, "volume", path);
}

static void flex_volume(struct wh_field_errors *l, const json_t *s, const char *path)
{
    required_str(l, s, "driver", path);
    size_t n;
    const char **keys = wh_pv_keys(wh_pv_get(s, "options"), &n);
    for (size_t i = 0; i < n; i++) {
        const char *k = keys[i];
        const char *slash = strchr(k, '/');
        char *ns = wh_str_printf(".%.*s", (int)(slash ? (size_t)(slash - k) : strlen(k)), k);
        for (char *c = ns; *c; c++)
            *c = (char)(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c);
        if (wh_str_has_suffix(ns, ".kubernetes.io") || wh_str_has_suffix(ns, ".k8s.io")) {
            char *kp = wh_str_printf("%s.options[%s]", path, k);
            wh_ferr_invalid_str(l, kp, k, "kubernetes.io and k8s.io namespaces are reserved");
            free(kp);
        }
        free(ns);
    }
    free(keys);
}

static void azure_disk(struct wh_field_errors *l, const json_t *s, const char *path)
{
    static const char *const caching[] = {"None", "ReadOnly", "ReadWrite"};
    static const char *const kinds[] = {"Dedicated", "Managed", "Shared"};
    static const char *const managed[] = {
        "/subscriptions/{sub-id}/resourcegroups/{group-name}/providers/microsoft.compute/disks/"
        "{disk-id}"};
    static const char *const blob[] = {
        "https://{account-name}.blob.core.windows.net/{container-name}/{disk-name}.vhd"};
    char p[WH_PV_PATH];
    required_str(l, s, "diskName", path);
    required_str(l, s, "diskURI", path);
    const char *uri = wh_json_str_or_empty(s, "diskURI");
    const json_t *cm = wh_pv_get(s, "cachingMode"), *kind = wh_pv_get(s, "kind");
    if (cm) {
        const char *v = json_is_string(cm) ? json_string_value(cm) : "";
        if (strcmp(v, "None") && strcmp(v, "ReadOnly") && strcmp(v, "ReadWrite"))
            wh_ferr_not_supported(l, P("%s.cachingMode", path), v, caching, 3);
    }
    if (!kind)
        return;
    const char *k = json_is_string(kind) ? json_string_value(kind) : "";
    if (strcmp(k, "Dedicated") && strcmp(k, "Managed") && strcmp(k, "Shared"))
        wh_ferr_not_supported(l, P("%s.kind", path), k, kinds, 3);
    if (strcmp(k, "Managed") == 0 && !wh_str_has_prefix(uri, "/subscriptions/"))
        wh_ferr_not_supported(l, P("%s.diskURI", path), uri, managed, 1);
    if (strcmp(k, "Managed") != 0 && !wh_str_has_prefix(uri, "https://"))
        wh_ferr_not_supported(l, P("%s.diskURI", path), uri, blob, 1);
}

static void storageos(struct wh_field_errors *l, const json_t *s, const char *path)
{
    char p[WH_PV_PATH];
    const char *vn = wh_json_str_or_empty(s, "volumeName"),
               *vns = wh_json_str_or_empty(s, "volumeNamespace");
    if (!*vn)
        wh_ferr_required(l, P("%s.volumeName", path), "");
    else
        wh_pv_check(l, P("%s.volumeName", path), vn, wh_is_dns1123_label);
    if (*vns)
        wh_pv_check(l, P("%s.volumeNamespace", path), vns, wh_is_dns1123_label);
    const json_t *ref = wh_pv_get(s, "secretRef");
    if (ref && !*wh_json_str_or_empty(ref, "name"))
        wh_ferr_required(l, P("%s.secretRef.name", path), "");
}

static void csi_driver_name(struct wh_field_errors *l, const char *driver, const char *path)
{
    if (!*driver)
        wh_ferr_required(l, path, "");
    if (strlen(driver) > 63)
        wh_ferr_too_long(l, path, 63);
    char *lower = wh_xstrdup(driver);
    for (char *c = lower; *c; c++)
        *c = (char)(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c);
    struct wh_vmsgs m = {0};
    wh_is_dns1123_subdomain(lower, &m);
    wh_pv_invalid_msgs(l, path, driver, &m);
    free(lower);
}

static void csi(struct wh_field_errors *l, const json_t *s, const char *path)
{
    char p[WH_PV_PATH];
    csi_driver_name(l, wh_json_str_or_empty(s, "driver"), P("%s.driver", path));
    const json_t *ref = wh_pv_get(s, "nodePublishSecretRef");
    if (!ref)
        return;
    const char *name = wh_json_str_or_empty(ref, "name");
    if (!*name) {
        wh_ferr_required(l, P("%s.nodePublishSecretRef.name", path), "");
    } else {
        struct wh_vmsgs m = {0};
        wh_name_is_dns_subdomain(name, false, &m);
        wh_pv_invalid_msgs(l, P("%s.name", path), name, &m); /* sic: .name */
    }
}

/* The checks of one volume source, the first one set; sp is its path, vp the volume's. */
static void one_source(struct wh_field_errors *l, const char *m, const json_t *s, const char *name,
                       const json_t *pod_meta, const char *vp, const char *sp)
{
    char p[WH_PV_PATH];
    if (strcmp(m, "emptyDir") == 0) {
        struct wh_quantity q;
        if (wh_pv_quantity(json_object_get(s, "sizeLimit"), &q) && wh_quantity_sign(&q) < 0)
            wh_ferr_forbidden(l, P("%s.sizeLimit", sp),
                              "SizeLimit field must be a valid resource quantity");
    } else if (strcmp(m, "hostPath") == 0) {
        const char *hp = wh_json_str_or_empty(s, "path");
        static const char *const types[] = {
            "",     "BlockDevice",  "CharDevice", "Directory", "DirectoryOrCreate",
            "File", "FileOrCreate", "Socket"};
        if (!*hp) {
            wh_ferr_required(l, P("%s.path", sp), "");
            return;
        }
        wh_pv_no_backsteps(l, hp, P("%s.path", sp));
        const json_t *t = wh_pv_get(s, "type");
        if (t) {
            const char *ts = json_is_string(t) ? json_string_value(t) : "";
            bool ok = false;
            for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
                ok |= strcmp(types[i], ts) == 0;
            if (!ok)
                wh_ferr_not_supported(l, P("%s.type", sp), ts, types,
                                      sizeof(types) / sizeof(types[0]));
        }
    } else if (strcmp(m, "gitRepo") == 0) {
        required_str(l, s, "repository", sp);
        wh_pv_local_descending_path(l, wh_json_str_or_empty(s, "directory"), P("%s.directory", sp));
    } else if (strcmp(m, "gcePersistentDisk") == 0 || strcmp(m, "awsElasticBlockStore") == 0) {
        required_str(l, s, m[0] == 'g' ? "pdName" : "volumeID", sp);
        long long part = wh_pv_int(s, "partition");
        if (part < 0 || part > 255)
            wh_ferr_invalid_int(l, P("%s.partition", sp), part,
                                "must be between 1 and 255, inclusive");
    } else if (strcmp(m, "secret") == 0) {
        required_str(l, s, "secretName", sp);
        file_mode(l, s, "defaultMode", P("%s.defaultMode", sp));
        key_to_paths(l, wh_json_arr(s, "items"), sp);
    } else if (strcmp(m, "nfs") == 0) {
        const char *np = wh_json_str_or_empty(s, "path");
        required_str(l, s, "server", sp);
        required_str(l, s, "path", sp);
        if (np[0] != '/')
            wh_ferr_invalid_str(l, P("%s.path", sp), np, "must be an absolute path");
    } else if (strcmp(m, "iscsi") == 0) {
        iscsi(l, s, sp);
    } else if (strcmp(m, "glusterfs") == 0) {
        required_str(l, s, "endpoints", sp);
        required_str(l, s, "path", sp);
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
        required_str(l, s, "claimName", sp);
    } else if (strcmp(m, "rbd") == 0) {
        if (json_array_size(wh_json_arr(s, "monitors")) == 0)
            wh_ferr_required(l, P("%s.monitors", sp), "");
        required_str(l, s, "image", sp);
    } else if (strcmp(m, "cinder") == 0) {
        required_str(l, s, "volumeID", sp);
        const json_t *ref = wh_pv_get(s, "secretRef");
        if (ref && !*wh_json_str_or_empty(ref, "name"))
            wh_ferr_required(l, P("%s.secretRef.name", sp), "");
    } else if (strcmp(m, "cephfs") == 0) {
        if (json_array_size(wh_json_arr(s, "monitors")) == 0)
            wh_ferr_required(l, P("%s.monitors", sp), "");
    } else if (strcmp(m, "quobyte") == 0) {
        quobyte(l, s, sp);
    } else if (strcmp(m, "downwardAPI") == 0) {
        size_t i;
        const json_t *item;
        file_mode(l, s, "defaultMode", P("%s.defaultMode", sp));
        json_array_foreach(wh_json_arr(s, "items"), i, item)
        {
            downward_file(l, item, sp); /* every item reports at the source's path */
        }
    } else if (strcmp(m, "fc") == 0) {
        const json_t *wwns = wh_json_arr(s, "targetWWNs");
        size_t nw = json_array_size(wwns), ni = json_array_size(wh_json_arr(s, "wwids"));
        if (nw < 1 && ni < 1)
            wh_ferr_required(l, P("%s.targetWWNs", sp),
                             "must specify either targetWWNs or wwids, but not both");
        if (nw && ni) {
            char *g = wh_pv_gosyntax_strings(wwns);
            wh_ferr_invalid_raw(l, P("%s.targetWWNs", sp), g,
                                "targetWWNs and wwids can not be specified simultaneously");
            free(g);
        }
        if (nw) {
            const json_t *lun = wh_pv_get(s, "lun");
            if (!lun)
                wh_ferr_required(l, P("%s.lun", sp), "lun is required if targetWWNs is specified");
            else if (json_integer_value(lun) < 0 || json_integer_value(lun) > 255)
                wh_ferr_invalid_int(l, P("%s.lun", sp), json_integer_value(lun),
                                    "must be between 0 and 255, inclusive");
        }
    } else if (strcmp(m, "flexVolume") == 0) {
        flex_volume(l, s, sp);
    } else if (strcmp(m, "configMap") == 0) {
        required_str(l, s, "name", sp);
        file_mode(l, s, "defaultMode", P("%s.defaultMode", sp));
        key_to_paths(l, wh_json_arr(s, "items"), sp);
    } else if (strcmp(m, "azureFile") == 0) {
        required_str(l, s, "secretName", sp);
        required_str(l, s, "shareName", sp);
    } else if (strcmp(m, "vsphereVolume") == 0) {
        required_str(l, s, "volumePath", sp);
    } else if (strcmp(m, "photonPersistentDisk") == 0) {
        required_str(l, s, "pdID", sp);
    } else if (strcmp(m, "portworxVolume") == 0) {
        required_str(l, s, "volumeID", sp);
    } else if (strcmp(m, "azureDisk") == 0) {
        azure_disk(l, s, sp);
    } else if (strcmp(m, "storageos") == 0) {
        storageos(l, s, sp);
    } else if (strcmp(m, "projected") == 0) {
        projected(l, s, sp);
    } else if (strcmp(m, "scaleIO") == 0) {
        required_str(l, s, "gateway", sp);
        required_str(l, s, "system", sp);
        required_str(l, s, "volumeName", sp);
    } else if (strcmp(m, "csi") == 0) {
        csi(l, s, sp);
    } else if (strcmp(m, "ephemeral") == 0) {
        const json_t *vct = wh_pv_get(s, "volumeClaimTemplate");
        if (!vct)
            wh_ferr_required(l, P("%s.volumeClaimTemplate", sp), "");
        else
            wh_validate_pvc_template(l, vct, P("%s.volumeClaimTemplate", sp));
        const char *pod = wh_json_str_or_empty(pod_meta, "name");
        if (*pod && *name) {
            char *pvc = wh_str_printf("%s-%s", pod, name);
            char *q = wh_go_quote(pvc);
            struct wh_vmsgs msgs = {0};
            wh_name_is_dns_subdomain(pvc, false, &msgs);
            for (size_t i = 0; i < msgs.n; i++) {
                char *d = wh_str_printf("PVC name %s: %s", q, msgs.m[i]);
                wh_ferr_invalid_str(l, P("%s.name", vp), name, d);
                free(d);
            }
            free(q);
            free(pvc);
        }
    } else if (strcmp(m, "image") == 0) {
        wh_pv_pull_policy(l, wh_json_str_or_empty(s, "pullPolicy"), P("%s.pullPolicy", sp));
    }
}

/* validateVolumeSource for volume v named name. */
static void volume_source(struct wh_field_errors *l, const json_t *v, const char *name,
                          const json_t *pod_meta, const char *path)
{
    char p[WH_PV_PATH], sp[WH_PV_PATH];
    int count = 0;
    /* the sources in Go's order; forbid: the name upstream reports for a second source,
     * inner: the path its checks use */
    static const struct {
        const char *member, *forbid, *inner;
    } order[] = {
        {"emptyDir", "emptyDir", "emptyDir"},
        {"hostPath", "hostPath", "hostPath"},
        {"gitRepo", "gitRepo", "gitRepo"},
        {"gcePersistentDisk", "gcePersistentDisk", "persistentDisk"},
        {"awsElasticBlockStore", "awsElasticBlockStore", "awsElasticBlockStore"},
        {"secret", "secret", "secret"},
        {"nfs", "nfs", "nfs"},
        {"iscsi", "iscsi", "iscsi"},
        {"glusterfs", "glusterfs", "glusterfs"},
        {"flocker", "flocker", "flocker"},
        {"persistentVolumeClaim", "persistentVolumeClaim", "persistentVolumeClaim"},
        {"rbd", "rbd", "rbd"},
        {"cinder", "cinder", "cinder"},
        {"cephfs", "cephFS", "cephfs"},
        {"quobyte", "quobyte", "quobyte"},
        {"downwardAPI", "downwarAPI", "downwardAPI"}, /* sic: upstream's typo */
        {"fc", "fc", "fc"},
        {"flexVolume", "flexVolume", "flexVolume"},
        {"configMap", "configMap", "configMap"},
        {"azureFile", "azureFile", "azureFile"},
        {"vsphereVolume", "vsphereVolume", "vsphereVolume"},
        {"photonPersistentDisk", "photonPersistentDisk", "photonPersistentDisk"},
        {"portworxVolume", "portworxVolume", "portworxVolume"},
        {"azureDisk", "azureDisk", "azureDisk"},
        {"storageos", "storageos", "storageos"},
        {"projected", "projected", "projected"},
        {"scaleIO", "scaleIO", "scaleIO"},
        {"csi", "csi", "csi"},
        {"ephemeral", "ephemeral", "ephemeral"},
        {"image", "image", "image"},
    };
    for (size_t k = 0; k < sizeof(order) / sizeof(order[0]); k++) {
        const json_t *s = wh_pv_get(v, order[k].member);
        if (!s)
            continue;
        if (count > 0) {
            wh_ferr_forbidden(l, P("%s.%s", path, order[k].forbid), MORE_THAN_ONE);
        } else {
            count++;
            one_source(l, order[k].member, s, name, pod_meta, path,
                       wh_fpath(sp, sizeof(sp), "%s.%s", path, order[k].inner));
        }
        /* an iSCSI source's initiator limits the volume's name, first source or not */
        if (strcmp(order[k].member, "iscsi") == 0 && wh_pv_get(s, "initiatorName") &&
            strlen(name) + 1 + strlen(wh_json_str_or_empty(s, "targetPortal")) > 64)
            wh_ferr_invalid_str(l, P("%s.name", path), name,
                                "Total length of <volume name>:<iscsi.targetPortal> must be under "
                                "64 characters if iscsi.initiatorName is specified.");
    }
    if (count == 0)
        wh_ferr_required(l, path, "must specify a volume type");
}

const json_t *wh_pv_vol_find(const struct wh_pv_vols *v, const char *name)
{
    for (size_t i = 0; i < v->n; i++)
        if (strcmp(v->names[i], name) == 0)
            return v->vols[i];
    return NULL;
}

void wh_pv_vols_fini(struct wh_pv_vols *v)
{
    free(v->names);
    free(v->vols);
    memset(v, 0, sizeof(*v));
}

void wh_pv_volumes(struct wh_field_errors *l, const json_t *volumes, const json_t *pod_meta,
                   const char *path, struct wh_pv_vols *out)
{
    char p[WH_PV_PATH], vp[WH_PV_PATH];
    size_t i, n = json_array_size(volumes);
    const json_t *v;
    out->names = wh_xcalloc(n + 1, sizeof(*out->names));
    out->vols = wh_xcalloc(n + 1, sizeof(*out->vols));
    out->n = 0;
    /* the claims ephemeral volumes create (known only with the Pod's name) */
    const char *pod = wh_json_str_or_empty(pod_meta, "name");
    json_array_foreach(volumes, i, v)
    {
        struct wh_field_errors el;
        const char *name = wh_json_str_or_empty(v, "name");
        wh_ferrs_init(&el);
        wh_fpath(vp, sizeof(vp), "%s[%zu]", path, i);
        volume_source(&el, v, name, pod_meta, vp);
        if (!*name)
            wh_ferr_required(&el, P("%s.name", vp), "");
        else
            wh_pv_check(&el, P("%s.name", vp), name, wh_is_dns1123_label);
        if (wh_pv_vol_find(out, name))
            wh_ferr_duplicate(&el, P("%s.name", vp), name);
        if (el.n == 0) {
            out->names[out->n] = name;
            out->vols[out->n] = v;
            out->n++;
        }
        for (size_t k = 0; k < el.n; k++)
            wh_ferr_add_text(l, el.items[k]);
        wh_ferrs_fini(&el);
        const json_t *pvc = wh_pv_get(v, "persistentVolumeClaim");
        if (pvc && *pod) {
            const char *claim = wh_json_str_or_empty(pvc, "claimName");
            size_t k;
            const json_t *o;
            bool created = false;
            json_array_foreach(volumes, k, o)
            {
                char *made = wh_str_printf("%s-%s", pod, wh_json_str_or_empty(o, "name"));
                created |= wh_pv_get(o, "ephemeral") && strcmp(made, claim) == 0;
                free(made);
            }
            if (created)
                wh_ferr_invalid_str(l, P("%s.persistentVolumeClaim.claimName", vp), claim,
                                    "must not reference a PVC that gets created for an ephemeral "
                                    "volume");
        }
    }
}

/* --- persistent volume claims ------------------------------------------------------------------
 */

static void data_source(struct wh_field_errors *l, const json_t *ds, bool ref, const char *path)
{
    char p[WH_PV_PATH];
    const char *kind = wh_json_str_or_empty(ds, "kind");
    const json_t *g = wh_pv_get(ds, "apiGroup");
    const char *group = json_is_string(g) ? json_string_value(g) : "";
    required_str(l, ds, "name", path);
    required_str(l, ds, "kind", path);
    if (!*group && strcmp(kind, "PersistentVolumeClaim") != 0)
        wh_ferr_invalid_str(l, path, kind,
                            "must be 'PersistentVolumeClaim' when referencing the default "
                            "apiGroup");
    if (*group)
        wh_pv_check(l, P("%s.apiGroup", path), group, wh_is_dns1123_subdomain);
    const json_t *ns = ref ? wh_pv_get(ds, "namespace") : NULL;
    if (json_is_string(ns) && *json_string_value(ns))
        wh_pv_check(l, P("%s.namespace", path), json_string_value(ns), wh_is_dns1123_label);
}

static bool same_group(const json_t *a, const json_t *b)
{
    if (!a || !b)
        return !a && !b;
    return strcmp(json_is_string(a) ? json_string_value(a) : "",
                  json_is_string(b) ? json_string_value(b) : "") == 0;
}

void wh_validate_pvc_spec(struct wh_field_errors *l, const json_t *spec, const char *path)
{
    static const char *const modes[] = {"ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce",
                                        "ReadWriteOncePod"};
    static const char *const vmodes[] = {"Block", "Filesystem"};
    char p[WH_PV_PATH];
    const json_t *am = wh_json_arr(spec, "accessModes");
    if (json_array_size(am) == 0)
        wh_ferr_required(l, P("%s.accessModes", path), "at least 1 access mode is required");
    const json_t *sel = wh_pv_get(spec, "selector");
    if (sel)
        wh_validate_label_selector_opts(l, sel, false, P("%s.selector", path));
    bool rwop = false, other = false;
    size_t i;
    const json_t *mode;
    json_array_foreach(am, i, mode)
    {
        const char *m = json_is_string(mode) ? json_string_value(mode) : "";
        bool known = false;
        for (size_t k = 0; k < 4; k++)
            known |= strcmp(modes[k], m) == 0;
        if (!known)
            wh_ferr_not_supported(l, P("%s.accessModes", path), m, modes, 4);
        if (strcmp(m, "ReadWriteOncePod") == 0)
            rwop = true;
        else if (known)
            other = true;
    }
    if (rwop && other)
        wh_ferr_forbidden(l, P("%s.accessModes", path),
                          "may not use ReadWriteOncePod with other access modes");
    const json_t *storage =
        json_object_get(wh_json_path(spec, "resources", "requests", NULL), "storage");
    P("%s.resources[storage]", path);
    struct wh_quantity q;
    if (!storage) {
        wh_ferr_required(l, p, "");
    } else if (wh_pv_quantity(storage, &q) && wh_quantity_sign(&q) <= 0) {
        char shown[WH_QUANTITY_MAX_DIGITS + 8];
        wh_quantity_format(&q, shown, sizeof(shown));
        wh_ferr_invalid_str(l, p, shown, WH_PV_NOT_POSITIVE_MSG);
    }
    const json_t *sc = wh_pv_get(spec, "storageClassName");
    if (json_is_string(sc) && *json_string_value(sc)) {
        struct wh_vmsgs m = {0};
        wh_name_is_dns_subdomain(json_string_value(sc), false, &m);
        wh_pv_invalid_msgs(l, P("%s.storageClassName", path), json_string_value(sc), &m);
    }
    const json_t *vm = wh_pv_get(spec, "volumeMode");
    if (vm) {
        const char *v = json_is_string(vm) ? json_string_value(vm) : "";
        if (strcmp(v, "Block") && strcmp(v, "Filesystem"))
            wh_ferr_not_supported(l, P("%s.volumeMode", path), v, vmodes, 2);
    }
    const json_t *ds = wh_pv_get(spec, "dataSource"), *dsr = wh_pv_get(spec, "dataSourceRef");
    if (ds)
        data_source(l, ds, false, P("%s.dataSource", path));
    if (dsr)
        data_source(l, dsr, true, P("%s.dataSourceRef", path));
    const json_t *dsr_ns = dsr ? wh_pv_get(dsr, "namespace") : NULL;
    if (json_is_string(dsr_ns) && *json_string_value(dsr_ns)) {
        if (ds) {
            char *g = wh_pv_gosyntax_field_path("dataSource", "");
            wh_ferr_invalid_raw(l, path, g,
                                "may not be specified when dataSourceRef.namespace is specified");
            free(g);
        }
    } else if (ds && dsr) {
        if (!same_group(wh_pv_get(ds, "apiGroup"), wh_pv_get(dsr, "apiGroup")) ||
            strcmp(wh_json_str_or_empty(ds, "kind"), wh_json_str_or_empty(dsr, "kind")) ||
            strcmp(wh_json_str_or_empty(ds, "name"), wh_json_str_or_empty(dsr, "name"))) {
            char *g = wh_pv_gosyntax_field_path("dataSource", "");
            wh_ferr_invalid_raw(l, path, g, "must match dataSourceRef");
            free(g);
        }
    }
}

/* Whether a metadata member holds something other than its Go zero value. */
static bool meta_set(const json_t *meta, const char *key)
{
    const json_t *v = wh_pv_get(meta, key);
    if (!v)
        return false;
    if (json_is_string(v))
        return *json_string_value(v) != 0;
    if (json_is_integer(v))
        return json_integer_value(v) != 0;
    return json_is_array(v) || json_is_object(v) || json_is_true(v);
}

void wh_validate_pvc_template(struct wh_field_errors *l, const json_t *claim, const char *path)
{
    /* ValidateTemplateObjectMeta: annotations, labels, and reflection over every other field of
     * ObjectMeta (Go's names with the first letter lowered) */
    static const char *const fields[][2] = {
        {"name", "name"},
        {"generateName", "generateName"},
        {"namespace", "namespace"},
        {"selfLink", "selfLink"},
        {"uid", "uID"},
        {"resourceVersion", "resourceVersion"},
        {"generation", "generation"},
        {"creationTimestamp", "creationTimestamp"},
        {"deletionTimestamp", "deletionTimestamp"},
        {"deletionGracePeriodSeconds", "deletionGracePeriodSeconds"},
        {"ownerReferences", "ownerReferences"},
        {"finalizers", "finalizers"},
        {"managedFields", "managedFields"},
    };
    char p[WH_PV_PATH];
    const json_t *meta = wh_pv_get(claim, "metadata");
    wh_validate_annotations(l, wh_pv_get(meta, "annotations"), P("%s.metadata.annotations", path));
    wh_validate_labels(l, wh_pv_get(meta, "labels"), P("%s.metadata.labels", path));
    for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
        const json_t *v = wh_pv_get(meta, fields[i][0]);
        bool set = meta_set(meta, fields[i][0]);
        if (strcmp(fields[i][0], "deletionTimestamp") == 0 ||
            strcmp(fields[i][0], "deletionGracePeriodSeconds") == 0)
            set = v != NULL; /* pointers */
        if (set)
            wh_ferr_forbidden(l, P("%s.metadata.%s", path, fields[i][1]), "cannot be set");
    }
    wh_validate_pvc_spec(l, wh_pv_get(claim, "spec"), P("%s.spec", path));
}
