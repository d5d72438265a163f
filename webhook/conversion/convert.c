/* Review-level conversion: what controller-runtime's conversion handler does around kruise's
 * ConvertTo/ConvertFrom (decode with the scheme, allocate the destination, check group and
 * version, convert), in the same order so that the first error is the one upstream reports. */
#include "conversion/convert.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "conversion/convert_int.h"
#include "util/json.h"
#include "util/mem.h"
#include "util/str.h"

/* Upstream quotes its scheme's name, a source location that depends on the build; the spec
 * says not to rely on it. */
#define SCHEME_NAME "main.go:75"

static const struct wh_conv_kind *const kinds[] = {
    &wh_conv_statefulset,      &wh_conv_cloneset,           &wh_conv_sidecarset,
    &wh_conv_workloadspread,   &wh_conv_daemonset,          &wh_conv_broadcastjob,
    &wh_conv_advancedcronjob,  &wh_conv_imagepulljob,       &wh_conv_imagelistpulljob,
    &wh_conv_nodeimage,        &wh_conv_crr,                &wh_conv_resourcedistribution,
    &wh_conv_persistentpodstate, &wh_conv_uniteddeployment, &wh_conv_pub,
};
#define NKINDS (sizeof(kinds) / sizeof(kinds[0]))

static struct wh_conv_plan *plans[NKINDS];
static pthread_once_t plans_once = PTHREAD_ONCE_INIT;

static void compile_all(void)
{
    for (size_t i = 0; i < NKINDS; i++)
        plans[i] = wh_conv_compile(kinds[i]);
}

/* Kruise kinds registered with only v1alpha1 (never converted, but known to the scheme). */
static const char *const alpha_only_kinds[] = {"EphemeralJob", "NodePodProbe", "PodProbeMarker"};

/* The Kubernetes built-in types kruise-manager's scheme knows (client-go's scheme), for the
 * groups whose kind names kruise reuses or that a caller plausibly names. A kind here, or its
 * "...List", decodes but never converts. */
static const struct {
    const char *gv;
    const char *kinds; /* space-separated, with a space at both ends */
} builtin[] = {
    {"v1", " Binding ComponentStatus ConfigMap Endpoints Event LimitRange Namespace Node "
           "PersistentVolume PersistentVolumeClaim Pod PodTemplate ReplicationController "
           "ResourceQuota Secret Service ServiceAccount "},
    {"apps/v1", " ControllerRevision DaemonSet Deployment ReplicaSet StatefulSet "},
    {"apps/v1beta1", " ControllerRevision Deployment StatefulSet "},
    {"apps/v1beta2", " ControllerRevision DaemonSet Deployment ReplicaSet StatefulSet "},
    {"batch/v1", " CronJob Job "},
    {"batch/v1beta1", " CronJob "},
    {"policy/v1", " Eviction PodDisruptionBudget "},
    {"policy/v1beta1", " Eviction PodDisruptionBudget "},
    {"autoscaling/v1", " HorizontalPodAutoscaler Scale "},
    {"autoscaling/v2", " HorizontalPodAutoscaler "},
};

struct gvk {
    char *group;
    char *version;
    const char *kind;
};

static void gvk_fini(struct gvk *g)
{
    free(g->group);
    free(g->version);
}

/* schema.ParseGroupVersion: "" and "/" are empty; more than one '/' is an error. */
static bool parse_gv(const char *s, struct gvk *g)
{
    g->group = NULL;
    g->version = NULL;
    if (!s || !*s || strcmp(s, "/") == 0) {
        g->group = wh_xstrdup("");
        g->version = wh_xstrdup("");
        return true;
    }
    const char *slash = strchr(s, '/');
    if (slash && strchr(slash + 1, '/'))
        return false;
    if (!slash) {
        g->group = wh_xstrdup("");
        g->version = wh_xstrdup(s);
    } else {
        g->group = wh_xstrndup(s, (size_t)(slash - s));
        g->version = wh_xstrdup(slash + 1);
    }
    return true;
}

/* GroupVersion.String(). Returns: new string. */
static char *gv_string(const struct gvk *g)
{
    if (!*g->group)
        return wh_xstrdup(g->version);
    return wh_str_printf("%s/%s", g->group, g->version);
}

static bool is_kruise_version(const char *group, const char *version)
{
    return (strcmp(group, "apps.kruise.io") == 0 || strcmp(group, "policy.kruise.io") == 0) &&
           (strcmp(version, "v1alpha1") == 0 || strcmp(version, "v1beta1") == 0);
}

static bool has_word(const char *list, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = strstr(list, word); p; p = strstr(p + 1, word))
        if (p[-1] == ' ' && p[n] == ' ')
            return true;
    return false;
}

/* Is (group, version, kind) in the scheme? *conv: the convertible kind's plan, if it is one. */
static bool registered(const struct gvk *g, const struct wh_conv_plan **conv)
{
    *conv = NULL;
    if (!*g->kind)
        return false;
    if (is_kruise_version(g->group, g->version)) {
        bool alpha = strcmp(g->version, "v1alpha1") == 0;
        size_t klen = strlen(g->kind);
        bool list = klen > 4 && strcmp(g->kind + klen - 4, "List") == 0;
        for (size_t i = 0; i < NKINDS; i++) {
            const struct wh_conv_kind *k = kinds[i];
            if (strcmp(k->group, g->group) != 0)
                continue;
            if (strcmp(k->kind, g->kind) == 0) {
                *conv = plans[i];
                return true;
            }
            if (list && strlen(k->kind) == klen - 4 && strncmp(k->kind, g->kind, klen - 4) == 0)
                return true;
        }
        if (!alpha || strcmp(g->group, "apps.kruise.io") != 0)
            return false;
        for (size_t i = 0; i < sizeof(alpha_only_kinds) / sizeof(alpha_only_kinds[0]); i++) {
            size_t n = strlen(alpha_only_kinds[i]);
            if (strncmp(g->kind, alpha_only_kinds[i], n) == 0 &&
                (g->kind[n] == '\0' || strcmp(g->kind + n, "List") == 0))
                return true;
        }
        return false;
    }
    char *gv = gv_string(g);
    bool found = false;
    for (size_t i = 0; !found && i < sizeof(builtin) / sizeof(builtin[0]); i++) {
        if (strcmp(builtin[i].gv, gv) != 0)
            continue;
        size_t klen = strlen(g->kind);
        if (has_word(builtin[i].kinds, g->kind)) {
            found = true;
        } else if (klen > 4 && strcmp(g->kind + klen - 4, "List") == 0) {
            char *base = wh_xstrndup(g->kind, klen - 4);
            found = has_word(builtin[i].kinds, base);
            free(base);
        }
    }
    free(gv);
    return found;
}

static char *not_registered(const struct gvk *g)
{
    char *gv = gv_string(g);
    char *qk = wh_conv_quote(g->kind);
    char *qv = wh_conv_quote(gv);
    char *msg = wh_str_printf("no kind %s is registered for version %s in scheme \"%s\"", qk, qv,
                              SCHEME_NAME);
    free(gv);
    free(qk);
    free(qv);
    return msg;
}

/* %T of a registered type: Go packages are named after their version. */
static char *go_type(const struct gvk *g)
{
    return wh_str_printf("*%s.%s", g->version, g->kind);
}

static bool ascii_ieq(const char *a, const char *b)
{
    for (; *a && *b; a++, b++) {
        char x = *a >= 'A' && *a <= 'Z' ? (char)(*a + 32) : *a;
        char y = *b >= 'A' && *b <= 'Z' ? (char)(*b + 32) : *b;
        if (x != y)
            return false;
    }
    return *a == *b;
}

/* The type meta as upstream reads it twice: once with encoding/json into a two-field struct
 * (keys matched case-insensitively, last wins) to pick the Go type, and once case-sensitively
 * as part of the typed object (what the group/version check compares). */
struct typemeta {
    const char *api, *kind;             /* the first reading */
    const char *typed_api, *typed_kind; /* the second */
};

static enum wh_err read_typemeta(const json_t *obj, struct typemeta *tm, char **message)
{
    memset(tm, 0, sizeof(*tm));
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)(uintptr_t)obj, key, v)
    {
        bool is_api = ascii_ieq(key, "apiVersion"), is_kind = ascii_ieq(key, "kind");
        if (!is_api && !is_kind)
            continue;
        if (json_is_null(v))
            continue;
        if (!json_is_string(v)) {
            *message = wh_str_printf("couldn't get version/kind; json parse error: json: cannot "
                                     "unmarshal %s into Go struct field .%s of type string",
                                     json_is_number(v)    ? "number"
                                     : json_is_boolean(v) ? "bool"
                                                          : wh_json_type_name(v),
                                     is_api ? "apiVersion" : "kind");
            return WH_ERR_INVALID;
        }
        if (is_api)
            tm->api = json_string_value(v);
        else
            tm->kind = json_string_value(v);
    }
    tm->typed_api = json_string_value(json_object_get(obj, "apiVersion"));
    tm->typed_kind = json_string_value(json_object_get(obj, "kind"));
    return WH_OK;
}

static enum wh_err decode_fail(const json_t *object, char **message)
{
    if (json_is_null(object)) {
        *message = wh_xstrdup("Object 'Kind' is missing in ''");
        return WH_ERR_INVALID;
    }
    const char *what = json_is_number(object)    ? "number"
                       : json_is_boolean(object) ? "bool"
                                                 : wh_json_type_name(object);
    *message = wh_str_printf(
        "couldn't get version/kind; json parse error: json: cannot unmarshal %s into Go value of "
        "type struct { APIVersion string \"json:\\\"apiVersion,omitempty\\\"\"; Kind string "
        "\"json:\\\"kind,omitempty\\\"\" }",
        what);
    return WH_ERR_INVALID;
}

static char *missing(const char *what, const json_t *object)
{
    char *raw = wh_json_dumps(object);
    char *msg = wh_str_printf("Object '%s' is missing in '%s'", what, raw);
    free(raw);
    return msg;
}

enum wh_err wh_convert_object(const char *desired_api_version, const json_t *object,
                              json_t **out, char **message)
{
    enum wh_err rc = WH_OK;
    struct gvk src = {0}, dst = {0}, typed = {0};
    const struct wh_conv_plan *plan = NULL, *dst_plan = NULL;
    json_t *res = NULL;
    char *t1 = NULL, *t2 = NULL;
    *out = NULL;
    *message = NULL;
    if (pthread_once(&plans_once, compile_all) != 0)
        WH_PANIC("pthread_once failed");

    /* 1. decode: type meta, then the typed object */
    if (!json_is_object(object))
        return decode_fail(object, message);
    struct typemeta tm;
    rc = read_typemeta(object, &tm, message);
    if (rc)
        return rc;
    if (!parse_gv(tm.api, &src)) {
        *message = wh_str_printf("unexpected GroupVersion string: %s", tm.api);
        return WH_ERR_INVALID;
    }
    src.kind = tm.kind ? tm.kind : "";
    if (!*src.kind) {
        *message = missing("Kind", object);
        rc = WH_ERR_INVALID;
        goto out;
    }
    if (!*src.version) {
        *message = missing("apiVersion", object);
        rc = WH_ERR_INVALID;
        goto out;
    }
    if (!registered(&src, &plan)) {
        *message = not_registered(&src);
        rc = WH_ERR_INVALID;
        goto out;
    }
    enum wh_conv_ver ver = strcmp(src.version, "v1alpha1") == 0 ? WH_CONV_ALPHA : WH_CONV_BETA;
    if (plan) {
        rc = wh_conv_check(plan, ver, object, message);
        if (rc)
            goto out;
    }

    /* 2. allocate the destination: desiredAPIVersion as given, the decoded kind */
    if (!parse_gv(desired_api_version, &dst)) {
        dst.group = wh_xstrdup("");
        dst.version = wh_xstrdup("");
    }
    dst.kind = src.kind;
    if (!registered(&dst, &dst_plan)) {
        *message = not_registered(&dst);
        rc = WH_ERR_INVALID;
        goto out;
    }

    /* 3. check: same group and kind, different version, both convertible */
    if (!parse_gv(tm.typed_api, &typed)) {
        typed.group = wh_xstrdup("");
        typed.version = wh_xstrdup("");
    }
    typed.kind = tm.typed_kind ? tm.typed_kind : "";
    t1 = go_type(&src);
    t2 = go_type(&dst);
    if (strcmp(typed.group, dst.group) != 0 || strcmp(typed.kind, dst.kind) != 0) {
        *message = wh_str_printf("src %s and dst %s does not belong to same API Group", t1, t2);
        rc = WH_ERR_INVALID;
        goto out;
    }
    if (strcmp(typed.version, dst.version) == 0) {
        *message = wh_str_printf("conversion is not allowed between same type %s", t1);
        rc = WH_ERR_INVALID;
        goto out;
    }
    if (!plan || plan != dst_plan || strcmp(src.version, dst.version) == 0) {
        *message = wh_str_printf("%s is not convertible to %s", t1, t2);
        rc = WH_ERR_INVALID;
        goto out;
    }

    /* 4. convert */
    res = json_copy((json_t *)(uintptr_t)object);
    if (!res)
        WH_PANIC("json_copy failed");
    rc = wh_conv_apply(plan, ver == WH_CONV_ALPHA ? WH_CONV_UP : WH_CONV_DOWN, object, res,
                       message);
    if (rc)
        goto out;
    if (json_object_set_new(res, "apiVersion", json_string(desired_api_version)) ||
        json_object_set_new(res, "kind", json_string(src.kind)))
        WH_PANIC("json_object_set_new failed");
    *out = res;
    res = NULL;
out:
    json_decref(res);
    free(t1);
    free(t2);
    gvk_fini(&src);
    gvk_fini(&dst);
    gvk_fini(&typed);
    return rc;
}

enum wh_err wh_convert_objects(const char *desired_api_version, const json_t *objects,
                               json_t **out, char **message)
{
    enum wh_err rc = WH_OK;
    json_t *list = NULL;
    *out = NULL;
    *message = NULL;
    if (!objects || json_is_null(objects))
        return WH_OK;
    if (!json_is_array(objects)) {
        *message = wh_str_printf("request.objects: must be an array, not %s",
                                 wh_json_type_name(objects));
        return WH_ERR_INVALID;
    }
    if (json_array_size(objects) == 0)
        return WH_OK;
    list = json_array();
    size_t i;
    json_t *obj;
    json_array_foreach(objects, i, obj)
    {
        json_t *conv = NULL;
        rc = wh_convert_object(desired_api_version, obj, &conv, message);
        if (rc)
            goto out;
        if (json_array_append_new(list, conv))
            WH_PANIC("json_array_append_new failed");
    }
    *out = list;
    list = NULL;
out:
    json_decref(list);
    return rc;
}
