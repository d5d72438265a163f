/* Review-level conversion: what controller-runtime's conversion handler does around kruise's
 * ConvertTo/ConvertFrom (decode with the scheme, allocate the destination, check group and
 * version, convert), in the same order so that the first error is the one upstream reports. */
#include "conversion/convert.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "conversion/convert_int.h"
#include "k8s/scheme.h"
#include "k8s/typemeta.h"
#include "k8s/ref.h"
#include "util/arena.h"
#include "util/cow.h"
#include "util/json.h"
#include "util/mem.h"
#include "util/str.h"

/* Upstream quotes its scheme's name, a source location that depends on the build; the spec
 * says not to rely on it. */

const struct wh_conv_kind *const wh_conv_kinds[] = {
    &wh_conv_statefulset,
    &wh_conv_cloneset,
    &wh_conv_sidecarset,
    &wh_conv_workloadspread,
    &wh_conv_daemonset,
    &wh_conv_broadcastjob,
    &wh_conv_advancedcronjob,
    &wh_conv_imagepulljob,
    &wh_conv_imagelistpulljob,
    &wh_conv_nodeimage,
    &wh_conv_crr,
    &wh_conv_resourcedistribution,
    &wh_conv_persistentpodstate,
    &wh_conv_uniteddeployment,
    &wh_conv_pub,
};
#define NKINDS (sizeof(wh_conv_kinds) / sizeof(wh_conv_kinds[0]))
const size_t wh_conv_nkinds = NKINDS;

size_t wh_convert_kinds(size_t i, const char **group, const char **kind)
{
    if (i < NKINDS && group)
        *group = wh_conv_kinds[i]->group;
    if (i < NKINDS && kind)
        *kind = wh_conv_kinds[i]->kind;
    return NKINDS;
}

static struct wh_conv_plan *plans[NKINDS];
static pthread_once_t plans_once = PTHREAD_ONCE_INIT;

static void compile_all(void)
{
    /* The plans are kept for the life of the process, whichever request compiles them. */
    wh_arena_pause();
    for (size_t i = 0; i < NKINDS; i++)
        plans[i] = wh_conv_compile(wh_conv_kinds[i]);
    wh_arena_resume();
}

/* A group/version/kind as slices of the strings it was parsed from (borrowed): no allocation
 * on the success path. */
struct gvk {
    const char *group;
    size_t glen;
    const char *version;
    size_t vlen;
    const char *kind;
};

/* schema.ParseGroupVersion (k8s/ref.h) into g's slices. */
static bool parse_gv(const char *s, struct gvk *g)
{
    struct wh_gv gv;
    if (!wh_ref_parse_gv(s, &gv))
        return false;
    g->group = gv.group;
    g->glen = gv.group_len;
    g->version = gv.version;
    g->vlen = gv.version_len;
    return true;
}

static bool slice_eq(const char *a, size_t alen, const char *b)
{
    return strlen(b) == alen && memcmp(a, b, alen) == 0;
}

static bool slices_eq(const char *a, size_t alen, const char *b, size_t blen)
{
    return alen == blen && memcmp(a, b, alen) == 0;
}

/* GroupVersion.String(). Returns: new string. */
static char *gv_string(const struct gvk *g)
{
    if (!g->glen)
        return wh_xstrndup(g->version, g->vlen);
    return wh_str_printf("%.*s/%.*s", (int)g->glen, g->group, (int)g->vlen, g->version);
}

/* Every converted group has both versions. */
static const char *const versions[] = {"v1alpha1", "v1beta1"};
#define NVERSIONS (sizeof(versions) / sizeof(versions[0]))

static bool converted_group(const char *group, size_t glen)
{
    for (size_t i = 0; i < NKINDS; i++)
        if (slice_eq(group, glen, wh_conv_kinds[i]->group))
            return true;
    return false;
}

static bool converted_version(const char *version, size_t vlen)
{
    for (size_t i = 0; i < NVERSIONS; i++)
        if (slice_eq(version, vlen, versions[i]))
            return true;
    return false;
}

static bool is_kruise_version(const struct gvk *g)
{
    return converted_group(g->group, g->glen) && converted_version(g->version, g->vlen);
}

enum wh_err wh_convert_check_target(const char *api_version, struct wh_errbuf *eb)
{
    struct gvk g;
    if (!parse_gv(api_version, &g) || !g.glen || !g.vlen)
        return wh_errbuf_set(eb, WH_ERR_INVALID,
                             "%s: want GROUP/VERSION, such as apps.kruise.io/v1beta1", api_version);
    char list[256] = "";
    size_t used = 0;
    if (!converted_group(g.group, g.glen)) {
        for (size_t i = 0; i < NKINDS; i++) {
            bool seen = false;
            for (size_t k = 0; k < i && !seen; k++)
                seen = strcmp(wh_conv_kinds[k]->group, wh_conv_kinds[i]->group) == 0;
            if (!seen && used < sizeof(list))
                used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s", used ? ", " : "",
                                         wh_conv_kinds[i]->group);
        }
        return wh_errbuf_set(eb, WH_ERR_INVALID,
                             "%s: group %.*s is not converted (converted groups: %s)", api_version,
                             (int)g.glen, g.group, list);
    }
    if (!converted_version(g.version, g.vlen)) {
        for (size_t i = 0; i < NVERSIONS && used < sizeof(list); i++)
            used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s", i ? ", " : "",
                                     versions[i]);
        return wh_errbuf_set(eb, WH_ERR_INVALID,
                             "%s: group %.*s has no version %.*s (its versions: %s)", api_version,
                             (int)g.glen, g.group, (int)g.vlen, g.version, list);
    }
    return WH_OK;
}

/* Is (group, version, kind) in the scheme? *conv: the convertible kind's plan, if it is one. */
static bool registered(const struct gvk *g, const struct wh_conv_plan **conv)
{
    *conv = NULL;
    if (!wh_scheme_registered(g->group, g->glen, g->version, g->vlen, g->kind))
        return false;
    if (is_kruise_version(g)) {
        for (size_t i = 0; i < NKINDS; i++) {
            const struct wh_conv_kind *k = wh_conv_kinds[i];
            if (slice_eq(g->group, g->glen, k->group) && strcmp(k->kind, g->kind) == 0)
                *conv = plans[i];
        }
    }
    return true;
}

static char *not_registered(const struct gvk *g)
{
    char *gv = gv_string(g);
    char *qk = wh_conv_quote(g->kind);
    char *qv = wh_conv_quote(gv);
    char *msg = wh_str_printf("no kind %s is registered for version %s in scheme \"%s\"", qk, qv,
                              WH_SCHEME_NAME);
    free(gv);
    free(qk);
    free(qv);
    return msg;
}

/* %T of a registered type: Go packages are named after their version. Returns: new string. */
static char *go_type(const struct gvk *g)
{
    return wh_str_printf("*%.*s.%s", (int)g->vlen, g->version, g->kind);
}


static char *missing(const char *what, const json_t *object)
{
    char *raw = wh_json_dumps(object);
    char *msg = wh_str_printf("Object '%s' is missing in '%s'", what, raw);
    free(raw);
    return msg;
}

enum wh_err wh_convert_object(const char *desired_api_version, const json_t *object, json_t **out,
                              char **message)
{
    enum wh_err rc = WH_ERR_INVALID;
    struct gvk src, dst, typed;
    const struct wh_conv_plan *plan = NULL, *dst_plan = NULL;
    json_t *res = NULL;
    char *t1 = NULL, *t2 = NULL;
    *out = NULL;
    *message = NULL;
    if (pthread_once(&plans_once, compile_all) != 0)
        WH_PANIC("pthread_once failed");

    /* 1. decode: type meta, then the typed object */
    if (json_is_null(object)) {
        *message = wh_xstrdup("Object 'Kind' is missing in ''");
        return WH_ERR_INVALID;
    }
    struct wh_typemeta tm;
    if (wh_typemeta_read(object, &tm, message))
        return WH_ERR_INVALID;
    if (!parse_gv(tm.api, &src)) {
        *message = wh_str_printf("unexpected GroupVersion string: %s", tm.api);
        return WH_ERR_INVALID;
    }
    src.kind = tm.kind ? tm.kind : "";
    if (!*src.kind) {
        *message = missing("Kind", object);
        return WH_ERR_INVALID;
    }
    if (!src.vlen) {
        *message = missing("apiVersion", object);
        return WH_ERR_INVALID;
    }
    if (!registered(&src, &plan)) {
        *message = not_registered(&src);
        return WH_ERR_INVALID;
    }
    enum wh_conv_ver ver =
        slice_eq(src.version, src.vlen, "v1alpha1") ? WH_CONV_ALPHA : WH_CONV_BETA;
    if (plan && wh_conv_check(plan, ver, object, message))
        return WH_ERR_INVALID;

    /* 2. allocate the destination: desiredAPIVersion as given, the decoded kind */
    /* FromAPIVersionAndKind: an unparsable group/version is the empty one */
    if (!parse_gv(desired_api_version, &dst))
        dst = (struct gvk){.group = "", .version = ""};
    dst.kind = src.kind;
    if (!registered(&dst, &dst_plan)) {
        *message = not_registered(&dst);
        return WH_ERR_INVALID;
    }

    /* 3. check: same group and kind, different version, both convertible */
    if (!parse_gv(tm.typed_api, &typed))
        typed = (struct gvk){.group = "", .version = ""};
    typed.kind = tm.typed_kind ? tm.typed_kind : "";
    if (!slices_eq(typed.group, typed.glen, dst.group, dst.glen) ||
        strcmp(typed.kind, dst.kind) != 0) {
        t1 = go_type(&src);
        t2 = go_type(&dst);
        *message = wh_str_printf("src %s and dst %s does not belong to same API Group", t1, t2);
        goto out;
    }
    if (slices_eq(typed.version, typed.vlen, dst.version, dst.vlen)) {
        t1 = go_type(&src);
        *message = wh_str_printf("conversion is not allowed between same type %s", t1);
        goto out;
    }
    if (!plan || plan != dst_plan || slices_eq(src.version, src.vlen, dst.version, dst.vlen)) {
        t1 = go_type(&src);
        t2 = go_type(&dst);
        *message = wh_str_printf("%s is not convertible to %s", t1, t2);
        goto out;
    }

    /* 4. convert */
    res = wh_cow_root(object);
    rc =
        wh_conv_apply(plan, ver == WH_CONV_ALPHA ? WH_CONV_UP : WH_CONV_DOWN, object, res, message);
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
    return rc;
}

enum wh_err wh_convert_up(const char *kind, const json_t *object, json_t **out, char **message)
{
    *out = NULL;
    *message = NULL;
    if (pthread_once(&plans_once, compile_all) != 0)
        WH_PANIC("pthread_once failed");
    const struct wh_conv_plan *plan = NULL;
    for (size_t i = 0; i < NKINDS && !plan; i++)
        if (strcmp(wh_conv_kinds[i]->kind, kind) == 0)
            plan = plans[i];
    if (!plan) {
        *message = wh_str_printf("%s does not convert", kind);
        return WH_ERR_INVALID;
    }
    if (!json_is_object(object)) {
        *message = wh_str_printf("json: cannot unmarshal %s into Go value of type v1alpha1.%s",
                                 wh_json_go_type_name(object), kind);
        return WH_ERR_INVALID;
    }
    if (wh_conv_check(plan, WH_CONV_ALPHA, object, message))
        return WH_ERR_INVALID;
    json_t *res = wh_cow_root(object);
    enum wh_err rc = wh_conv_apply(plan, WH_CONV_UP, object, res, message);
    if (rc) {
        json_decref(res);
        return rc;
    }
    char *api = wh_str_printf("%s/v1beta1", wh_conv_plan_kind(plan)->group);
    if (json_object_set_new(res, "apiVersion", json_string(api)) ||
        json_object_set_new(res, "kind", json_string(kind)))
        WH_PANIC("json_object_set_new failed");
    free(api);
    *out = res;
    return WH_OK;
}

enum wh_err wh_convert_objects(const char *desired_api_version, const json_t *objects, json_t **out,
                               char **message)
{
    enum wh_err rc = WH_OK;
    json_t *list = NULL;
    *out = NULL;
    *message = NULL;
    if (!objects || json_is_null(objects))
        return WH_OK;
    if (!json_is_array(objects)) {
        *message =
            wh_str_printf("request.objects: must be an array, not %s", wh_json_type_name(objects));
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
