#include "handlers/sidecarset/inject.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "gocompat/gotime.h"
#include "handlers/sidecarset/hash.h"
#include "handlers/sidecarset/match.h"
#include "handlers/sidecarset/resources.h"
#include "k8s/kruise.h"
#include "util/buf.h"
#include "gocompat/goenc.h"
#include "util/json.h"
#include "util/mem.h"
#include "util/str.h"
#include "util/time.h"

/* --- small helpers --------------------------------------------------------------------------- */

static const char *str_member(const json_t *o, const char *key)
{
    const char *s = wh_json_str(o, key);
    return s ? s : "";
}

static const json_t *pod_annotations(const json_t *pod)
{
    return wh_json_path(pod, "metadata", "annotations", NULL);
}

/* The first entry of list (an array of objects) whose "name" is name, or NULL. */
static const json_t *find_named(const json_t *list, const char *name, bool last)
{
    const json_t *found = NULL;
    size_t i;
    json_t *e;
    json_array_foreach(list, i, e)
    {
        if (wh_str_eq(wh_json_str(e, "name"), name)) {
            found = e;
            if (!last)
                break;
        }
    }
    return found;
}

static bool has_named(const json_t *list, const char *name)
{
    return find_named(list, name, false) != NULL;
}

/* A growable set of borrowed strings, sorted on demand. */
struct strset {
    const char **v;
    size_t n, cap;
};

static void strset_add(struct strset *s, const char *x)
{
    for (size_t i = 0; i < s->n; i++) {
        if (strcmp(s->v[i], x) == 0)
            return;
    }
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 8;
        s->v = wh_xrealloc(s->v, s->cap * sizeof(*s->v));
    }
    s->v[s->n++] = x;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void strset_sort(struct strset *s)
{
    if (s->n > 1)
        qsort(s->v, s->n, sizeof(*s->v), cmp_str);
}

static void strset_fini(struct strset *s)
{
    free(s->v);
    memset(s, 0, sizeof(*s));
}

/* --- patchPodMetadata (4.7) ---------------------------------------------------------------- */

static enum wh_err set_pod_annotation(struct wh_pod_review *pm, const char *key, const char *value)
{
    const char *cur = wh_json_annotation(wh_pod_review_pod(pm), key);
    if (wh_str_eq(cur, value))
        return WH_OK;
    json_t *ann = wh_pod_review_own(pm, "metadata", "annotations", NULL);
    json_object_set_new(ann, key, json_string(value));
    return WH_OK;
}

static enum wh_err patch_metadata(struct wh_pod_review *pm, const json_t *ss, struct wh_errbuf *eb)
{
    const json_t *patches = wh_json_path(ss, "spec", "patchPodMetadata", NULL);
    size_t i;
    json_t *p;
    json_array_foreach(patches, i, p)
    {
        const char *policy = str_member(p, "patchPolicy");
        const json_t *anns = json_object_get(p, "annotations");
        const char *key;
        json_t *v;
        json_object_foreach((json_t *)(uintptr_t)anns, key, v)
        {
            if (!json_is_string(v))
                continue;
            const char *value = json_string_value(v);
            const char *cur = wh_json_annotation(wh_pod_review_pod(pm), key);
            enum wh_err rc = WH_OK;
            if (strcmp(policy, "Retain") == 0 || policy[0] == '\0') {
                if (!json_object_get(pod_annotations(wh_pod_review_pod(pm)), key))
                    rc = set_pod_annotation(pm, key, value);
            } else if (strcmp(policy, "Overwrite") == 0) {
                rc = set_pod_annotation(pm, key, value);
            } else if (strcmp(policy, "MergePatchJson") == 0) {
                if (cur && cur[0]) {
                    char *merged = NULL;
                    rc = wh_goenc_merge_patch(cur, strlen(cur), value, json_string_length(v),
                                              &merged, eb);
                    if (!rc)
                        rc = set_pod_annotation(pm, key, merged);
                    free(merged);
                } else {
                    rc = set_pod_annotation(pm, key, value);
                }
            }
            if (rc)
                return rc;
        }
    }
    return WH_OK;
}

/* --- the pod's existing bookkeeping annotations -------------------------------------------- */

/* One entry of the new form, as Go decodes SidecarSetUpgradeSpec (field names matched
 * case-insensitively, unknown members ignored). Returns a normalised entry or NULL. */
static json_t *decode_upgrade_spec(const json_t *v)
{
    if (json_is_null(v))
        v = NULL;
    else if (!json_is_object(v))
        return NULL;
    json_t *ts = json_null(), *hash = json_string(""), *name = json_string("");
    json_t *list = json_null(), *cr = json_string("");
    bool ok = true;
    const char *k;
    json_t *m;
    json_object_foreach((json_t *)(uintptr_t)v, k, m)
    {
        if (strcasecmp(k, "updateTimestamp") == 0) {
            if (json_is_null(m))
                continue;
            struct wh_gotime t;
            if (!json_is_string(m) || wh_gotime_parse(json_string_value(m), json_string_length(m),
                                                      WH_GOTIME_RFC3339, &t, NULL)) {
                ok = false;
                break;
            }
            char buf[WH_GOTIME_MAX];
            wh_gotime_format(t, WH_GOTIME_RFC3339, buf, sizeof(buf));
            json_decref(ts);
            ts = wh_gotime_is_zero(t) ? json_null() : json_string(buf); /* metav1.Time */
        } else if (strcasecmp(k, "hash") == 0 || strcasecmp(k, "sidecarSetName") == 0 ||
                   strcasecmp(k, "controllerRevision") == 0) {
            json_t **dst = strcasecmp(k, "hash") == 0             ? &hash
                           : strcasecmp(k, "sidecarSetName") == 0 ? &name
                                                                  : &cr;
            if (json_is_null(m))
                continue;
            if (!json_is_string(m)) {
                ok = false;
                break;
            }
            json_decref(*dst);
            *dst = json_string(json_string_value(m));
        } else if (strcasecmp(k, "sidecarList") == 0) {
            if (json_is_null(m)) {
                json_decref(list);
                list = json_null();
                continue;
            }
            if (!json_is_array(m)) {
                ok = false;
                break;
            }
            json_t *l = json_array();
            size_t i;
            json_t *e;
            json_array_foreach(m, i, e)
            {
                if (json_is_string(e)) {
                    json_array_append_new(l, json_string(json_string_value(e)));
                } else if (json_is_null(e)) {
                    json_array_append_new(l, json_string(""));
                } else {
                    ok = false;
                    break;
                }
            }
            json_decref(list);
            list = l;
            if (!ok)
                break;
        }
    }
    json_t *out = NULL;
    if (ok) {
        out = json_object();
        json_object_set(out, "updateTimestamp", ts);
        json_object_set(out, "hash", hash);
        json_object_set(out, "sidecarSetName", name);
        json_object_set(out, "sidecarList", list);
        if (json_string_length(cr))
            json_object_set(out, "controllerRevision", cr);
    }
    json_decref(ts);
    json_decref(hash);
    json_decref(name);
    json_decref(list);
    json_decref(cr);
    return out;
}

static json_t *legacy_entry(const char *name, const char *hash)
{
    json_t *e = json_object();
    json_object_set_new(e, "updateTimestamp", json_null());
    json_object_set_new(e, "hash", json_string(hash));
    json_object_set_new(e, "sidecarSetName", json_string(name));
    json_object_set_new(e, "sidecarList", json_null());
    return e;
}

/* Parses the pod's kruise.io/sidecarset-hash(-without-image) as buildSidecars does: the
 * current form, else the legacy {"name":"hash"} form, else a 500 naming both.
 * Returns in *out: new ref, an object name -> normalised entry. */
static enum wh_err parse_hash_annotation(const json_t *pod, const char *ns, const char *key,
                                         json_t **out, struct wh_errbuf *eb)
{
    const char *text = wh_json_annotation(pod, key);
    const char *pod_name = wh_json_meta_str(pod, "name");
    *out = json_object();
    if (!text || !text[0])
        return WH_OK;
    char why[160];
    json_t *doc = NULL;
    if (!wh_goenc_valid(text, strlen(text), why, sizeof(why))) {
        goto fail;
    }
    json_error_t jerr;
    doc = json_loads(text, JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr);
    if (!doc) {
        snprintf(why, sizeof(why), "%s", jerr.text);
        goto fail;
    }
    if (json_is_null(doc)) {
        /* upstream would then write into a nil map and panic; an empty map is the sane
         * reading */
        json_decref(doc);
        return WH_OK;
    }
    if (!json_is_object(doc)) {
        snprintf(why, sizeof(why),
                 "json: cannot unmarshal %s into Go value of type "
                 "map[string]string",
                 wh_json_go_type_name(doc));
        goto fail;
    }
    const char *k;
    json_t *v;
    bool current = true;
    json_object_foreach(doc, k, v)
    {
        json_t *e = decode_upgrade_spec(v);
        if (!e) {
            current = false;
            break;
        }
        json_object_set_new(*out, k, e);
    }
    if (current) {
        json_decref(doc);
        return WH_OK;
    }
    json_object_clear(*out);
    json_object_foreach(doc, k, v)
    {
        if (!json_is_string(v) && !json_is_null(v)) {
            snprintf(why, sizeof(why), "json: cannot unmarshal %s into Go value of type string",
                     wh_json_go_type_name(v));
            goto fail;
        }
        json_object_set_new(*out, k,
                            legacy_entry(k, json_is_string(v) ? json_string_value(v) : ""));
    }
    json_decref(doc);
    return WH_OK;
fail:
    json_decref(doc);
    json_decref(*out);
    *out = NULL;
    return wh_errbuf_set(eb, WH_ERR_INVALID,
                         "pod(%s/%s) invalid annotations[%s] value %s, unmarshal failed: %s", ns,
                         pod_name ? pod_name : "", key, text, why);
}

/* The hot-upgrade work info; anything unparsable is an empty map, non-string values "". */
static json_t *parse_work_info(const json_t *pod)
{
    json_t *out = json_object();
    const char *text = wh_json_annotation(pod, WH_KRUISE_ANN_SIDECARSET_WORKING_HOTUPGRADE);
    if (!text || !wh_goenc_valid(text, strlen(text), NULL, 0))
        return out;
    json_t *doc = json_loads(text, JSON_DECODE_ANY, NULL);
    const char *k;
    json_t *v;
    json_object_foreach(json_is_object(doc) ? doc : NULL, k, v)
    {
        json_object_set_new(out, k, json_string(json_is_string(v) ? json_string_value(v) : ""));
    }
    json_decref(doc);
    return out;
}

/* An entry this request builds, as text: what Go's json.Marshal prints for the
 * SidecarSetUpgradeSpec after its updateTimestamp, written once as it is built (no JSON value
 * is made for it, nor walked again to print it). */
struct built_hash {
    const char *name; /* borrowed from the pick */
    char *tail;       /* ,"hash":...} */
};

/* At most one entry per pick: sized for them when the build starts. */
struct hlist {
    struct built_hash *v;
    size_t n, cap;
};

static void hlist_init(struct hlist *l, size_t cap)
{
    l->v = wh_xcalloc(cap ? cap : 1, sizeof(*l->v));
    l->n = 0;
    l->cap = cap;
}

/* A later entry of a name replaces the earlier one, as in a map. Steals: tail. */
static void hlist_push(struct hlist *l, const char *name, char *tail)
{
    for (size_t i = 0; i < l->n; i++) {
        if (strcmp(l->v[i].name, name) == 0) {
            free(l->v[i].tail);
            l->v[i].tail = tail;
            return;
        }
    }
    WH_ASSERT(l->n < l->cap);
    l->v[l->n++] = (struct built_hash){name, tail};
}

static void hlist_fini(struct hlist *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i].tail);
    free(l->v);
}

/* One name of the map: an entry parsed from the pod (json) or one built here (text). */
struct hash_key {
    const char *name;
    const json_t *parsed;
    const char *tail;
};

static int cmp_hash_key(const void *a, const void *b)
{
    return strcmp(((const struct hash_key *)a)->name, ((const struct hash_key *)b)->name);
}

/* Go's json.Marshal of map[string]SidecarSetUpgradeSpec: names sorted, entries in field order.
 * m holds the entries kept from the pod, built those this request wrote (none named in m);
 * stamp is the built entries' updateTimestamp, as Go prints it. Returns: new string. */
static char *dump_hash_map(const json_t *m, const struct hlist *built, const char *stamp)
{
    size_t n = json_object_size(m) + built->n, k = 0;
    struct hash_key *keys = wh_xmalloc((n ? n : 1) * sizeof(*keys));
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)(uintptr_t)m, key, v)
    {
        keys[k++] = (struct hash_key){key, v, NULL};
    }
    for (size_t i = 0; i < built->n; i++)
        keys[k++] = (struct hash_key){built->v[i].name, NULL, built->v[i].tail};
    qsort(keys, n, sizeof(*keys), cmp_hash_key);
    struct wh_buf b;
    wh_buf_init(&b, SIZE_MAX / 2);
    enum wh_err rc = wh_buf_addc(&b, '{');
    for (size_t i = 0; !rc && i < n; i++) {
        if (i)
            rc = wh_buf_addc(&b, ',');
        if (!rc)
            rc = wh_goenc_append_string(&b, keys[i].name, strlen(keys[i].name));
        if (!rc)
            rc = wh_buf_addc(&b, ':');
        if (!rc && keys[i].parsed)
            rc = wh_goenc_append(&b, keys[i].parsed, false);
        if (!rc && keys[i].tail) {
            rc = wh_buf_adds(&b, "{\"updateTimestamp\":");
            if (!rc)
                rc = wh_buf_adds(&b, stamp);
            if (!rc)
                rc = wh_buf_adds(&b, keys[i].tail);
        }
    }
    if (!rc)
        rc = wh_buf_addc(&b, '}');
    if (rc)
        WH_PANIC("uncapped buffer refused data");
    free(keys);
    return wh_buf_take(&b, NULL);
}

/* --- building the sidecars (4.8) ------------------------------------------------------------ */

struct built {
    json_t *c;          /* the core/v1 container to write (owned) */
    const char *policy; /* podInjectPolicy, borrowed from the SidecarSet */
};

struct blist {
    struct built *v;
    size_t n, cap;
};

static void blist_push(struct blist *l, json_t *c, const char *policy)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 8;
        l->v = wh_xrealloc(l->v, l->cap * sizeof(*l->v));
    }
    l->v[l->n++] = (struct built){c, policy};
}

static void blist_fini(struct blist *l)
{
    for (size_t i = 0; i < l->n; i++)
        json_decref(l->v[i].c);
    free(l->v);
    memset(l, 0, sizeof(*l));
}

static const char *built_name(const struct built *b)
{
    return str_member(b->c, "name");
}

struct build {
    struct wh_pod_review *pm;
    const json_t *pod; /* as step 4.5.2 left it */
    const struct wh_sidecarset_picks *picks;
    char now[32];
    json_t *hash, *hash_wo, *work_info; /* the entries kept from the pod */
    struct hlist built_hash, built_hash_wo;
    struct strset names;
    struct blist containers, inits;
    json_t *volumes, *secrets, *annotations;
    struct strset exclude; /* sidecar names of the selected SidecarSets (resourcesPolicy) */
    bool exclude_ready;
    const struct wh_sidecarset_regexes *regexes; /* of the SidecarSet being built */
};

static bool is_injected_container(const json_t *c)
{
    const json_t *env = json_object_get(c, "env");
    const json_t *e = find_named(env, WH_KRUISE_ENV_SIDECAR_INJECTED, false);
    return e && wh_str_eq(wh_json_str(e, "value"), "true");
}

/* $(NAME) references in a subPathExpr, in order (regexp \$\(([-._a-zA-Z][-._a-zA-Z0-9]*)\)). */
static bool var_first(char c)
{
    return c == '-' || c == '.' || c == '_' || isalpha((unsigned char)c);
}

static bool var_rest(char c)
{
    return var_first(c) || isdigit((unsigned char)c);
}

static void append_subpath_envs(const char *expr, const json_t *container, json_t *envs)
{
    const json_t *cenv = json_object_get(container, "env");
    for (size_t i = 0; expr[i];) {
        if (expr[i] == '$' && expr[i + 1] == '(' && var_first(expr[i + 2])) {
            size_t j = i + 3;
            while (var_rest(expr[j]))
                j++;
            if (expr[j] == ')') {
                char name[256];
                size_t n = j - (i + 2);
                if (n < sizeof(name)) {
                    memcpy(name, expr + i + 2, n);
                    name[n] = '\0';
                    const json_t *e = find_named(cenv, name, false);
                    if (e)
                        json_array_append(envs, (json_t *)(uintptr_t)e);
                }
                i = j + 1;
                continue;
            }
        }
        i++;
    }
}

/* 4.8.1: the mounts of the pod's non-injected containers and the envs their subPathExprs use. */
static void shared_mounts(const json_t *pod, json_t *mounts, json_t *envs)
{
    const json_t *containers = wh_json_path(pod, "spec", "containers", NULL);
    size_t i;
    json_t *c;
    json_array_foreach(containers, i, c)
    {
        if (is_injected_container(c))
            continue;
        size_t j;
        json_t *m;
        json_array_foreach(json_object_get(c, "volumeMounts"), j, m)
        {
            json_array_append(mounts, m);
            const char *expr = wh_json_str(m, "subPathExpr");
            if (expr)
                append_subpath_envs(expr, c, envs);
        }
    }
}

static void shared_devices(const json_t *pod, json_t *devices)
{
    const json_t *containers = wh_json_path(pod, "spec", "containers", NULL);
    size_t i;
    json_t *c;
    json_array_foreach(containers, i, c)
    {
        if (is_injected_container(c))
            continue;
        size_t j;
        json_t *d;
        json_array_foreach(json_object_get(c, "volumeDevices"), j, d)
        {
            json_array_append(devices, d);
        }
    }
}

/* validation.IsQualifiedName: [prefix/]name, prefix a DNS-1123 subdomain, name at most 63 of
 * [A-Za-z0-9] with [-_.] inside. */
static bool qualified_name(const char *s)
{
    const char *slash = strchr(s, '/');
    const char *name = s;
    if (slash) {
        size_t plen = (size_t)(slash - s);
        if (plen == 0 || plen > 253)
            return false;
        for (size_t i = 0; i < plen; i++) {
            char c = s[i];
            bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
            if (!alnum && c != '-' && c != '.')
                return false;
            if ((i == 0 || i == plen - 1) && !alnum)
                return false;
            if (c == '.' && (s[i + 1] == '.' || s[i + 1] == '-' || s[i - 1] == '-'))
                return false;
        }
        name = slash + 1;
        if (strchr(name, '/'))
            return false;
    }
    size_t n = strlen(name);
    if (n == 0 || n > 63)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = name[i];
        bool alnum = isalnum((unsigned char)c) != 0;
        if (!alnum && c != '-' && c != '_' && c != '.')
            return false;
        if ((i == 0 || i == n - 1) && !alnum)
            return false;
    }
    return true;
}

/* ExtractContainerNameFromFieldPath: metadata.annotations['k'] or metadata.labels['k'].
 * Returns false for any other form (the transferEnv entry is then skipped). */
static bool source_from_field(const json_t *pod, const char *path, const char **out)
{
    size_t n = strlen(path);
    if (n < 2 || strcmp(path + n - 2, "']") != 0)
        return false;
    const char *open = strstr(path, "['");
    if (!open || open == path || open + 2 > path + n - 2)
        return false;
    size_t plen = (size_t)(open - path);
    char key[512];
    size_t klen = (size_t)(path + n - 2 - (open + 2));
    if (klen >= sizeof(key))
        return false;
    memcpy(key, open + 2, klen);
    key[klen] = '\0';
    bool annotations = plen == 20 && memcmp(path, "metadata.annotations", 20) == 0;
    bool labels = plen == 15 && memcmp(path, "metadata.labels", 15) == 0;
    if (annotations) {
        char lower[512];
        for (size_t i = 0; i <= klen; i++)
            lower[i] = (char)tolower((unsigned char)key[i]);
        if (!qualified_name(lower))
            return false;
        const char *v = wh_json_annotation(pod, key);
        *out = v ? v : "";
        return true;
    }
    if (labels) {
        if (!qualified_name(key))
            return false;
        const char *v = wh_json_label(pod, key);
        *out = v ? v : "";
        return true;
    }
    return false;
}

/* envsInPod["<container>/<env>"]: the last match wins, as map assignment does. */
static const json_t *pod_env(const json_t *pod, const char *container, const char *env)
{
    const json_t *found = NULL;
    size_t i;
    json_t *c;
    json_array_foreach(wh_json_path(pod, "spec", "containers", NULL), i, c)
    {
        if (!wh_str_eq(str_member(c, "name"), container))
            continue;
        const json_t *e = find_named(json_object_get(c, "env"), env, true);
        if (e)
            found = e;
    }
    return found;
}

/* 4.8.2 */
static void transfer_envs(const json_t *sidecar, const json_t *pod, json_t *out)
{
    size_t i;
    json_t *t;
    json_array_foreach(json_object_get(sidecar, "transferEnv"), i, t)
    {
        struct strset names = {0};
        const char *one = wh_json_str(t, "envName");
        if (one && one[0])
            strset_add(&names, one);
        size_t j;
        json_t *e;
        json_array_foreach(json_object_get(t, "envNames"), j, e)
        {
            if (json_is_string(e))
                strset_add(&names, json_string_value(e));
        }
        strset_sort(&names);
        const char *source = str_member(t, "sourceContainerName");
        const json_t *ref = wh_json_path(t, "sourceContainerNameFrom", "fieldRef", NULL);
        bool skip = ref && !source_from_field(pod, str_member(ref, "fieldPath"), &source);
        for (size_t k = 0; !skip && k < names.n; k++) {
            const json_t *env = pod_env(pod, source, names.v[k]);
            if (env)
                json_array_append(out, (json_t *)(uintptr_t)env);
        }
        strset_fini(&names);
    }
}

/* MergeEnvVar(original, additional): appends what original (and earlier appends) lacks. */
static void merge_env(json_t *original, const json_t *additional)
{
    size_t i;
    json_t *e;
    json_array_foreach(additional, i, e)
    {
        if (!has_named(original, str_member(e, "name")))
            json_array_append(original, e);
    }
}

static bool has_path(const json_t *list, const char *key, const char *path)
{
    size_t i;
    json_t *e;
    json_array_foreach(list, i, e)
    {
        if (wh_str_eq(str_member(e, key), path))
            return true;
    }
    return false;
}

/* MergeVolumeMounts / MergeVolumeDevices: own entries, then the shared ones whose path is free;
 * used paths span both mounts and devices. Returns: new array. */
static json_t *merge_paths(const json_t *own, const char *own_key, const json_t *other,
                           const char *other_key, const json_t *shared)
{
    json_t *out = json_array();
    size_t i;
    json_t *e;
    json_array_foreach(own, i, e)
    {
        json_array_append(out, e);
    }
    json_array_foreach(shared, i, e)
    {
        const char *p = str_member(e, own_key);
        if (has_path(out, own_key, p) || has_path(other, other_key, p))
            continue;
        json_array_append(out, e);
    }
    return out;
}

/* Sets c[key] = list, or removes it when empty (a nil slice is omitted). Steals: list. */
static void set_list_new(json_t *c, const char *key, json_t *list)
{
    if (json_array_size(list))
        json_object_set_new(c, key, list);
    else {
        json_object_del(c, key);
        json_decref(list);
    }
}

static const char *const sidecar_only_fields[] = {
    "podInjectPolicy",         "upgradeStrategy", "shareVolumePolicy",
    "shareVolumeDevicePolicy", "transferEnv",     "resourcesPolicy",
};

/* The core/v1 Container part of a SidecarContainer: a new object whose members are shared with
 * the (frozen) SidecarSet; members that change are replaced, never edited (pod_mutate.h's
 * copy-on-write rule). Returns: new ref. */
static json_t *core_copy(const json_t *sidecar)
{
    json_t *c = json_object();
    const char *k;
    size_t klen;
    json_t *v;
    json_object_keylen_foreach((json_t *)(uintptr_t)sidecar, k, klen, v)
    {
        bool extra = false;
        for (size_t i = 0; !extra && i < sizeof(sidecar_only_fields) / sizeof(*sidecar_only_fields);
             i++)
            extra = k[0] == sidecar_only_fields[i][0] && strcmp(k, sidecar_only_fields[i]) == 0;
        if (!extra)
            json_object_setn_nocheck(c, k, klen, v);
    }
    if (!json_object_get(c, "resources")) /* Go always writes resources */
        json_object_set_new(c, "resources", json_object());
    return c;
}

static json_t *version_env(const char *env, const char *prefix, const char *container)
{
    char path[512];
    snprintf(path, sizeof(path), "metadata.annotations['%s%s']", prefix, container);
    return json_pack("{s:s,s:{s:{s:s}}}", "name", env, "valueFrom", "fieldRef", "fieldPath", path);
}

static void put_annotation(struct build *b, const char *prefix, const char *name, const char *v)
{
    char key[512];
    snprintf(key, sizeof(key), "%s%s", prefix, name);
    json_object_set_new(b->annotations, key, json_string(v));
}

/* 4.11: X becomes X-1 (working) and X-2 (the empty image), in that order. Steals: c. */
static void hot_upgrade_pair(struct build *b, struct blist *out, json_t *c, const json_t *sidecar,
                             const char *policy)
{
    const char *name = str_member(sidecar, "name");
    const char *empty = wh_json_path_str(sidecar, "upgradeStrategy", "hotUpgradeEmptyImage", NULL);
    json_t *pair[2] = {c, json_copy(c)}; /* X-2 gets its own env array below */
    for (int k = 0; k < 2; k++) {
        char cname[320];
        snprintf(cname, sizeof(cname), "%s-%d", name, k + 1);
        json_t *copy = pair[k];
        json_object_set_new(copy, "name", json_string(cname));
        if (k == 1) {
            if (empty && empty[0])
                json_object_set_new(copy, "image", json_string(empty));
            else
                json_object_del(copy, "image");
        }
        const json_t *old_env = json_object_get(copy, "env");
        json_t *env =
            json_is_array(old_env) ? json_copy((json_t *)(uintptr_t)old_env) : json_array();
        json_object_set_new(copy, "env", env);
        json_array_append_new(env, version_env(WH_KRUISE_ENV_SIDECARSET_VERSION,
                                               WH_KRUISE_ANN_SIDECARSET_VERSION_PREFIX, cname));
        json_array_append_new(env, version_env(WH_KRUISE_ENV_SIDECARSET_VERSION_ALT,
                                               WH_KRUISE_ANN_SIDECARSET_VERSION_ALT_PREFIX, cname));
        blist_push(out, copy, policy);
        put_annotation(b, WH_KRUISE_ANN_SIDECARSET_VERSION_PREFIX, cname, k == 0 ? "1" : "0");
        put_annotation(b, WH_KRUISE_ANN_SIDECARSET_VERSION_ALT_PREFIX, cname, k == 0 ? "0" : "1");
        if (k == 0)
            json_object_set_new(b->work_info, name, json_string(cname));
    }
    char *wi = wh_goenc_dumps_sorted(b->work_info);
    json_object_set_new(b->annotations, WH_KRUISE_ANN_SIDECARSET_WORKING_HOTUPGRADE,
                        json_string(wi));
    free(wi);
}

static void ensure_exclude(struct build *b)
{
    if (b->exclude_ready)
        return;
    for (size_t i = 0; i < b->picks->n; i++) {
        const json_t *spec = json_object_get(b->picks->items[i].ss, "spec");
        for (int pass = 0; pass < 2; pass++) {
            size_t j;
            json_t *c;
            json_array_foreach(json_object_get(spec, pass ? "containers" : "initContainers"), j, c)
            {
                strset_add(&b->exclude, str_member(c, "name"));
            }
        }
    }
    b->exclude_ready = true;
}

/* One sidecar (4.8 steps 3.2-3.9 / 5.2-5.9). */
static enum wh_err build_one(struct build *b, const json_t *ss, const json_t *sidecar, bool init,
                             struct wh_errbuf *eb)
{
    enum wh_err rc = WH_OK;
    const json_t *pod = b->pod;
    json_t *c = core_copy(sidecar);
    json_t *mounts = json_array(), *senvs = json_array(), *transfer = json_array();
    json_t *devices = json_array();
    const char *policy = str_member(sidecar, "podInjectPolicy");

    const json_t *rpolicy = json_object_get(sidecar, "resourcesPolicy");
    if (json_is_object(rpolicy)) {
        json_t *res = NULL;
        ensure_exclude(b);
        rc =
            wh_sidecarset_resources(rpolicy, b->regexes, pod, b->exclude.v, b->exclude.n, &res, eb);
        if (rc)
            goto out;
        json_object_set_new(c, "resources", res);
    }
    if (wh_str_eq(wh_json_path_str(sidecar, "shareVolumePolicy", "type", NULL), "enabled"))
        shared_mounts(pod, mounts, senvs);
    transfer_envs(sidecar, pod, transfer);
    merge_env(transfer, senvs);

    /* the SidecarSet volumes this sidecar mounts (a later definition of a name wins) */
    const json_t *volumes = wh_json_path(ss, "spec", "volumes", NULL);
    static const char *const refs[2] = {"volumeMounts", "volumeDevices"};
    for (int r = 0; r < 2; r++) {
        size_t i;
        json_t *m;
        json_array_foreach(json_object_get(sidecar, refs[r]), i, m)
        {
            const json_t *vol = find_named(volumes, str_member(m, "name"), true);
            if (vol)
                json_array_append(b->volumes, (json_t *)(uintptr_t)vol);
        }
    }
    const json_t *own_mounts = json_object_get(c, "volumeMounts");
    const json_t *own_devices = json_object_get(c, "volumeDevices");
    json_t *merged_mounts = merge_paths(own_mounts, "mountPath", own_devices, "devicePath", mounts);
    set_list_new(c, "volumeMounts", merged_mounts);

    const json_t *own_env = json_object_get(c, "env");
    json_t *env = json_is_array(own_env) ? json_copy((json_t *)(uintptr_t)own_env) : json_array();
    json_array_append_new(
        env, json_pack("{s:s,s:s}", "name", WH_KRUISE_ENV_SIDECAR_INJECTED, "value", "true"));
    merge_env(env, transfer);
    json_object_set_new(c, "env", env);

    if (wh_str_eq(wh_json_path_str(sidecar, "shareVolumeDevicePolicy", "type", NULL), "enabled"))
        shared_devices(pod, devices);
    own_devices = json_object_get(c, "volumeDevices");
    json_t *merged_devices = merge_paths(own_devices, "devicePath",
                                         json_object_get(c, "volumeMounts"), "mountPath", devices);
    set_list_new(c, "volumeDevices", merged_devices);

    bool hot =
        wh_str_eq(wh_json_path_str(sidecar, "upgradeStrategy", "upgradeType", NULL), "HotUpgrade");
    if (init)
        hot = hot && wh_str_eq(wh_json_str(sidecar, "restartPolicy"), "Always");
    if (hot)
        hot_upgrade_pair(b, init ? &b->inits : &b->containers, c, sidecar, policy);
    else
        blist_push(init ? &b->inits : &b->containers, c, policy);
    c = NULL;
out:
    json_decref(c);
    json_decref(mounts);
    json_decref(senvs);
    json_decref(transfer);
    json_decref(devices);
    return rc;
}

/* The SidecarSetUpgradeSpec of a SidecarSet after its updateTimestamp, as Go prints it:
 * hash, sidecarSetName, sidecarList (sorted), controllerRevision when set. Returns: new
 * string. */
/* ,"key":"s" as Go prints it; lead is the text before the string (,"key":). */
static enum wh_err append_member(struct wh_buf *t, const char *lead, const char *s)
{
    enum wh_err rc = wh_buf_adds(t, lead);
    return rc ? rc : wh_goenc_append_string(t, s, strlen(s));
}

static char *hash_entry_tail(const char *name, const char *hash, const struct strset *list,
                             const char *revision)
{
    struct wh_buf t;
    wh_buf_init(&t, SIZE_MAX / 2);
    enum wh_err rc = append_member(&t, ",\"hash\":", hash ? hash : "");
    if (!rc)
        rc = append_member(&t, ",\"sidecarSetName\":", name);
    if (!rc)
        rc = wh_buf_adds(&t, ",\"sidecarList\":[");
    for (size_t k = 0; !rc && k < list->n; k++)
        rc = append_member(&t, k ? "," : "", list->v[k]);
    if (!rc)
        rc = wh_buf_addc(&t, ']');
    if (!rc && revision && revision[0])
        rc = append_member(&t, ",\"controllerRevision\":", revision);
    if (!rc)
        rc = wh_buf_addc(&t, '}');
    if (rc)
        WH_PANIC("uncapped buffer refused data");
    return wh_buf_take(&t, NULL);
}

static enum wh_err build_set(struct build *b, const struct wh_sidecarset_pick *p,
                             struct wh_errbuf *eb)
{
    const json_t *spec = json_object_get(p->ss, "spec");
    struct strset list = {0};
    bool injecting = false;
    enum wh_err rc = WH_OK;
    strset_add(&b->names, p->name);
    b->regexes = p->regexes;

    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(spec, "initContainers"), i, c)
    {
        if (wh_str_eq(wh_json_str(c, "restartPolicy"), "Always"))
            strset_add(&list, str_member(c, "name"));
        rc = build_one(b, p->ss, c, true, eb);
        if (rc)
            goto out;
        injecting = true;
    }
    json_array_foreach(json_object_get(spec, "imagePullSecrets"), i, c)
    {
        json_array_append(b->secrets, c);
    }
    json_array_foreach(json_object_get(spec, "containers"), i, c)
    {
        strset_add(&list, str_member(c, "name"));
        rc = build_one(b, p->ss, c, false, eb);
        if (rc)
            goto out;
        injecting = true;
    }
    if (injecting) {
        strset_sort(&list);
        const char *rev = wh_json_path_str(p->ss, "status", "latestRevision", NULL);
        /* this SidecarSet's entries replace what the pod had under its name */
        json_object_del(b->hash, p->name);
        json_object_del(b->hash_wo, p->name);
        hlist_push(&b->built_hash, p->name,
                   hash_entry_tail(p->name, wh_json_annotation(p->ss, WH_KRUISE_ANN_SIDECARSET_HASH),
                                   &list, rev));
        hlist_push(&b->built_hash_wo, p->name,
                   hash_entry_tail(p->name,
                                   wh_json_annotation(p->ss,
                                                      WH_KRUISE_ANN_SIDECARSET_HASH_WITHOUT_IMAGE),
                                   &list, NULL));
    }
out:
    strset_fini(&list);
    return rc;
}

/* --- merging into the pod (4.9) ------------------------------------------------------------- */

static int cmp_built(const void *a, const void *b)
{
    return strcmp(built_name(a), built_name(b));
}

/* A stable sort by name: qsort is not stable, so ties keep their order through the index. */
static void sort_built(struct blist *l)
{
    struct keyed {
        struct built b;
        size_t at;
    };
    if (l->n < 2)
        return;
    struct keyed *k = wh_xmalloc(l->n * sizeof(*k));
    for (size_t i = 0; i < l->n; i++)
        k[i] = (struct keyed){l->v[i], i};
    /* insertion sort keeps stability and lists are short */
    for (size_t i = 1; i < l->n; i++) {
        struct keyed x = k[i];
        size_t j = i;
        while (j > 0 && cmp_built(&k[j - 1].b, &x.b) > 0) {
            k[j] = k[j - 1];
            j--;
        }
        k[j] = x;
    }
    for (size_t i = 0; i < l->n; i++)
        l->v[i] = k[i].b;
    free(k);
}

/* The index of the last entry of list named name, or -1 (a map from names keeps the last). */
static long last_index_named(const json_t *list, const char *name)
{
    long at = -1;
    size_t i;
    json_t *e;
    json_array_foreach(list, i, e)
    {
        if (wh_str_eq(wh_json_str(e, "name"), name))
            at = (long)i;
    }
    return at;
}

/* mergeSidecarContainers: same-name entries replaced in place, the rest before or after. */
static void place(json_t *spec, const char *key, struct blist *l)
{
    if (!l->n)
        return;
    const json_t *orig = json_object_get(spec, key);
    json_t *target = json_is_array(orig) ? json_copy((json_t *)(uintptr_t)orig) : json_array();
    json_t *before = json_array(), *after = json_array();
    for (size_t i = 0; i < l->n; i++) {
        long at = last_index_named(target, built_name(&l->v[i]));
        if (at >= 0)
            json_array_set(target, (size_t)at, l->v[i].c);
        else if (strcmp(l->v[i].policy, "BeforeAppContainer") == 0)
            json_array_append(before, l->v[i].c);
        else
            json_array_append(after, l->v[i].c);
    }
    json_array_extend(before, target);
    json_array_extend(before, after);
    json_object_set_new(spec, key, before);
    json_decref(target);
    json_decref(after);
}

static void merge_volumes(json_t *spec, const json_t *built)
{
    if (!json_array_size(built))
        return;
    const json_t *orig = json_object_get(spec, "volumes");
    json_t *out = json_is_array(orig) ? json_copy((json_t *)(uintptr_t)orig) : json_array();
    size_t before = json_array_size(out), i;
    json_t *v;
    json_array_foreach(built, i, v)
    {
        if (!has_named(out, str_member(v, "name")))
            json_array_append(out, v);
    }
    if (json_array_size(out) != before)
        json_object_set_new(spec, "volumes", out);
    else
        json_decref(out);
}

static void merge_secrets(json_t *spec, const json_t *built)
{
    const json_t *orig = json_object_get(spec, "imagePullSecrets");
    json_t *out = json_array();
    for (int pass = 0; pass < 2; pass++) {
        size_t i;
        json_t *s;
        json_array_foreach(pass ? built : orig, i, s)
        {
            if (!has_named(out, str_member(s, "name")))
                json_array_append(out, s);
        }
    }
    /* Compared by content: a Pod's duplicate secret makes room for a sidecar's (upstream keeps
     * the first of each name, the Pod's duplicates included, then the sidecars'). */
    if (json_array_size(out) && !json_equal(out, orig))
        json_object_set_new(spec, "imagePullSecrets", out);
    else
        json_decref(out);
}

static char *join_names(struct strset *names)
{
    strset_sort(names);
    struct wh_buf b;
    wh_buf_init(&b, SIZE_MAX / 2);
    enum wh_err rc = WH_OK;
    for (size_t i = 0; !rc && i < names->n; i++) {
        if (i)
            rc = wh_buf_addc(&b, ',');
        if (!rc)
            rc = wh_buf_adds(&b, names->v[i]);
    }
    if (rc)
        WH_PANIC("uncapped buffer refused data");
    return wh_buf_take(&b, NULL);
}

static void write_pod(struct build *b)
{
    json_t *spec = wh_pod_review_own(b->pm, "spec", NULL);
    sort_built(&b->inits);
    place(spec, "initContainers", &b->inits);
    const struct wh_config *cfg = b->pm->ctx ? b->pm->ctx->cfg : NULL;
    if (cfg && wh_feature_on(&cfg->features, WH_FEATURE_EnableSortSidecarContainerByName))
        sort_built(&b->containers);
    place(spec, "containers", &b->containers);
    merge_volumes(spec, b->volumes);
    merge_secrets(spec, b->secrets);
    json_t *ann = wh_pod_review_own(b->pm, "metadata", "annotations", NULL);
    json_object_update(ann, b->annotations);
}

/* --- the step ------------------------------------------------------------------------------ */

static bool pod_active(const json_t *pod)
{
    const char *phase = wh_json_path_str(pod, "status", "phase", NULL);
    const json_t *del = wh_json_path(pod, "metadata", "deletionTimestamp", NULL);
    return !wh_str_eq(phase, "Succeeded") && !wh_str_eq(phase, "Failed") &&
           (!del || json_is_null(del));
}

static void note(struct wh_pod_review *pm, const char *msg)
{
    wh_pod_review_explain(pm, NULL, false, "%s", msg);
}

/* The updateTimestamp of entries built in second sec, as metav1.Time prints it. Every request
 * of one second writes the same text, so each thread keeps the last (formatting it took 4 000
 * instructions, 1% of a /mutate-pod). */
static void format_now(int64_t sec, char *out, size_t outsz)
{
    static _Thread_local int64_t last_sec;
    static _Thread_local char last[WH_GOTIME_MAX];
    static _Thread_local size_t last_len;
    if (!last_len || last_sec != sec) {
        last_len = wh_gotime_format((struct wh_gotime){sec, 0}, WH_GOTIME_RFC3339, last,
                                    sizeof(last));
        last_sec = sec;
    }
    size_t n = last_len < outsz ? last_len : outsz - 1;
    memcpy(out, last, n);
    out[n] = '\0';
}

static enum wh_err inject(struct wh_pod_review *pm, const struct wh_sidecarset_picks *picks,
                          const char *ns, struct wh_errbuf *eb)
{
    enum wh_err rc = WH_OK;
    struct build b;
    memset(&b, 0, sizeof(b));
    char *hash_text = NULL, *hash_wo_text = NULL, *list_text = NULL;
    b.pm = pm;
    b.picks = picks;
    b.volumes = json_array();
    b.secrets = json_array();
    b.annotations = json_object();
    hlist_init(&b.built_hash, picks->n);
    hlist_init(&b.built_hash_wo, picks->n);
    format_now((int64_t)(pm->now ? pm->now : time(NULL)), b.now, sizeof(b.now));

    for (size_t i = 0; i < picks->n; i++) {
        rc = patch_metadata(pm, picks->items[i].ss, eb);
        if (rc)
            goto out;
    }
    b.pod = wh_pod_review_pod(pm);
    rc = parse_hash_annotation(b.pod, ns, WH_KRUISE_ANN_SIDECARSET_HASH, &b.hash, eb);
    if (!rc)
        rc = parse_hash_annotation(b.pod, ns, WH_KRUISE_ANN_SIDECARSET_HASH_WITHOUT_IMAGE,
                                   &b.hash_wo, eb);
    if (rc)
        goto out;
    b.work_info = parse_work_info(b.pod);
    const char *list = wh_json_annotation(b.pod, WH_KRUISE_ANN_SIDECARSET_INJECTED_LIST);
    char *list_copy = list && list[0] ? wh_xstrdup(list) : NULL;
    /* strings.Split keeps empty fields: "a,,b" names "" too */
    for (char *p = list_copy; p;) {
        char *comma = strchr(p, ',');
        if (comma)
            *comma = '\0';
        strset_add(&b.names, p);
        p = comma ? comma + 1 : NULL;
    }
    for (size_t i = 0; !rc && i < picks->n; i++)
        rc = build_set(&b, &picks->items[i], eb);
    if (!rc && (b.containers.n || b.inits.n)) {
        char stamp[48];
        snprintf(stamp, sizeof(stamp), "\"%s\"", b.now); /* RFC 3339: nothing to escape */
        hash_text = dump_hash_map(b.hash, &b.built_hash, stamp);
        hash_wo_text = dump_hash_map(b.hash_wo, &b.built_hash_wo, stamp);
        list_text = join_names(&b.names);
        /* Go's encoding and names split from JSON strings: valid UTF-8, not checked again */
        json_object_set_new(b.annotations, WH_KRUISE_ANN_SIDECARSET_HASH,
                            json_string_nocheck(hash_text));
        json_object_set_new(b.annotations, WH_KRUISE_ANN_SIDECARSET_HASH_WITHOUT_IMAGE,
                            json_string_nocheck(hash_wo_text));
        json_object_set_new(b.annotations, WH_KRUISE_ANN_SIDECARSET_INJECTED_LIST,
                            json_string_nocheck(list_text));
        write_pod(&b);
    }
    free(list_copy);
out:
    free(hash_text);
    free(hash_wo_text);
    free(list_text);
    json_decref(b.hash);
    json_decref(b.hash_wo);
    hlist_fini(&b.built_hash);
    hlist_fini(&b.built_hash_wo);
    json_decref(b.work_info);
    json_decref(b.volumes);
    json_decref(b.secrets);
    json_decref(b.annotations);
    blist_fini(&b.containers);
    blist_fini(&b.inits);
    strset_fini(&b.names);
    strset_fini(&b.exclude);
    return rc;
}

static enum wh_err step_mutate(struct wh_pod_review *pm, struct wh_errbuf *eb)
{
    const struct wh_admission_request *req = pm->req;
    bool create = strcmp(req->operation, "CREATE") == 0;
    bool update = strcmp(req->operation, "UPDATE") == 0;
    if (req->sub_resource[0] || (!create && !update) ||
        strcmp(req->resource.resource, "pods") != 0) {
        note(pm, "the SidecarSet step only handles pods CREATE and UPDATE without subresource");
        return WH_OK;
    }
    const json_t *pod = wh_pod_review_pod(pm);
    if (!pod_active(pod)) {
        note(pm, "the pod is not active (Succeeded, Failed or being deleted): nothing is "
                 "injected");
        return WH_OK;
    }
    if (update && !req->old_object)
        return wh_errbuf_set(eb, WH_ERR_INVALID, "there is no content to decode");
    if (update && !json_is_object(req->old_object))
        return wh_errbuf_set(eb, WH_ERR_INVALID,
                             "json: cannot unmarshal %s into Go value of type v1.Pod",
                             wh_json_go_type_name(req->old_object));
    const char *ns = pm->namespace_ && pm->namespace_[0] ? pm->namespace_ : "default";
    const struct wh_config *cfg = pm->ctx ? pm->ctx->cfg : NULL;
    struct wh_sidecarset_match_in in = {
        .cluster = pm->ctx ? pm->ctx->cluster : NULL,
        .kruise_ns = cfg && cfg->namespace_ ? cfg->namespace_ : "kruise-system",
        .pod = pod,
        .ns = ns,
        .create = create,
        .review = pm,
    };
    struct wh_sidecarset_picks picks;
    wh_sidecarset_picks_init(&picks);
    enum wh_err rc = wh_sidecarset_match(&in, &picks, eb);
    if (!rc && create && picks.n)
        rc = inject(pm, &picks, pm->namespace_ ? pm->namespace_ : "", eb);
    else if (!rc && update && picks.n)
        note(pm, "an UPDATE never changes the pod (upstream's availability hook says no)");
    wh_sidecarset_picks_fini(&picks);
    return rc;
}

const struct wh_pod_step wh_sidecarset_pod_step = {
    .name = "sidecarset",
    .mutate_ops = WH_POD_CREATE | WH_POD_UPDATE,
    .setup = wh_sidecarset_caches_setup,
    .mutate = step_mutate,
};
