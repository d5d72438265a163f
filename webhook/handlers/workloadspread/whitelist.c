#include "handlers/workloadspread/whitelist.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gocompat/goenc.h"
#include "k8s/kruise.h"
#include "kube/cache.h"
#include "util/json.h"
#include "util/mem.h"

/* Go's encoding/json picks the field whose name equals the key, else one equal ignoring case. */
static bool key_is(const char *key, const char *field)
{
    return strcasecmp(key, field) == 0;
}

struct dec {
    struct wh_errbuf *eb;
    enum wh_err rc;
};

/* Records Go's UnmarshalTypeError text; the first one wins, as Go keeps the first. */
static void type_error(struct dec *d, const json_t *v, const char *where, const char *type)
{
    if (d->rc)
        return;
    d->rc = wh_errbuf_set(d->eb, WH_ERR_INVALID, "json: cannot unmarshal %s into Go %s of type %s",
                          wh_json_go_type_name(v), where, type);
}

/* A string field: null leaves it empty, another type is an error. */
static const char *str_field(struct dec *d, const json_t *v, const char *strct, const char *path)
{
    if (json_is_string(v))
        return json_string_value(v);
    if (!json_is_null(v)) {
        char where[160];
        snprintf(where, sizeof(where), "struct field %s.%s", strct, path);
        type_error(d, v, where, "string");
    }
    return "";
}

/* The members of schema.GroupVersionKind (inline in CustomWorkload, alone in subResources).
 * Returns true when key was one of them. */
static bool gvk_member(struct dec *d, const char *key, const json_t *v, struct wh_ws_gvk *gvk,
                       const char *strct, const char *prefix)
{
    static const char *const names[] = {"Group", "Version", "Kind"};
    const char **slots[] = {&gvk->group, &gvk->version, &gvk->kind};
    for (size_t i = 0; i < 3; i++) {
        if (!key_is(key, names[i]))
            continue;
        char path[96];
        snprintf(path, sizeof(path), "%s%s", prefix, names[i]);
        *slots[i] = str_field(d, v, strct, path);
        return true;
    }
    return false;
}

static void decode_subs(struct dec *d, const json_t *v, struct wh_ws_custom_workload *w)
{
    if (json_is_null(v))
        return;
    if (!json_is_array(v)) {
        type_error(d, v, "struct field CustomWorkload.workloads.subResources",
                   "[]schema.GroupVersionKind");
        return;
    }
    free(w->subs); /* a repeated key replaces the slice, as Go does */
    w->nsubs = json_array_size(v);
    w->subs = wh_xcalloc(w->nsubs ? w->nsubs : 1, sizeof(*w->subs));
    size_t i;
    const json_t *e;
    json_array_foreach(v, i, e)
    {
        struct wh_ws_gvk *g = &w->subs[i];
        g->group = g->version = g->kind = "";
        if (json_is_null(e))
            continue;
        if (!json_is_object(e)) {
            type_error(d, e, "struct field CustomWorkload.workloads.subResources",
                       "schema.GroupVersionKind");
            continue;
        }
        const char *key;
        const json_t *m;
        json_object_foreach((json_t *)(uintptr_t)e, key, m)(void)
            gvk_member(d, key, m, g, "GroupVersionKind", "workloads.subResources.");
    }
}

static void decode_workload(struct dec *d, const json_t *e, struct wh_ws_custom_workload *w)
{
    w->gvk.group = w->gvk.version = w->gvk.kind = w->replicas_path = "";
    if (json_is_null(e))
        return;
    if (!json_is_object(e)) {
        type_error(d, e, "struct field WSCustomWorkloadWhiteList.workloads",
                   "configuration.CustomWorkload");
        return;
    }
    const char *key;
    const json_t *m;
    json_object_foreach((json_t *)(uintptr_t)e, key, m)
    {
        if (gvk_member(d, key, m, &w->gvk, "CustomWorkload", "workloads."))
            continue;
        if (key_is(key, "replicasPath"))
            w->replicas_path = str_field(d, m, "CustomWorkload", "workloads.replicasPath");
        else if (key_is(key, "subResources"))
            decode_subs(d, m, w);
    }
}

static void free_items(struct wh_ws_whitelist *wl)
{
    for (size_t i = 0; i < wl->n; i++)
        free(wl->items[i].subs);
    free(wl->items);
    wl->items = NULL;
    wl->n = 0;
}

enum wh_err wh_ws_whitelist_parse(const char *text, struct wh_ws_whitelist *out,
                                  struct wh_errbuf *eb)
{
    memset(out, 0, sizeof(*out));
    char msg[256];
    if (!wh_goenc_valid(text, strlen(text), msg, sizeof(msg)))
        return wh_errbuf_set(eb, WH_ERR_INVALID, "%s", msg);
    json_t *root = json_loads(text, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
    if (!root)
        return wh_errbuf_set(eb, WH_ERR_INVALID, "unexpected end of JSON input");
    out->_root = root;
    struct dec d = {eb, WH_OK};
    if (!json_is_object(root) && !json_is_null(root)) {
        d.rc = wh_errbuf_set(eb, WH_ERR_INVALID,
                             "json: cannot unmarshal %s into Go value of type "
                             "configuration.WSCustomWorkloadWhiteList",
                             wh_json_go_type_name(root));
        goto out;
    }
    const char *key;
    const json_t *v;
    json_object_foreach(root, key, v)
    {
        if (!key_is(key, "workloads") || json_is_null(v))
            continue;
        if (!json_is_array(v)) {
            type_error(&d, v, "struct field WSCustomWorkloadWhiteList.workloads",
                       "[]configuration.CustomWorkload");
            continue;
        }
        /* a repeated key replaces the slice, as Go does */
        free_items(out);
        out->n = json_array_size(v);
        out->items = wh_xcalloc(out->n ? out->n : 1, sizeof(*out->items));
        size_t i;
        const json_t *e;
        json_array_foreach(v, i, e) decode_workload(&d, e, &out->items[i]);
    }
out:
    if (d.rc)
        wh_ws_whitelist_fini(out);
    return d.rc;
}

enum wh_err wh_ws_whitelist_load(struct wh_cluster *cl, const char *kruise_ns,
                                 struct wh_ws_whitelist *out, struct wh_errbuf *eb)
{
    memset(out, 0, sizeof(*out));
    struct wh_cache *c = cl ? wh_cluster_cache(cl, WH_RES_CONFIGMAP) : NULL;
    struct wh_object *cm = c ? wh_cache_get(c, kruise_ns, WH_KRUISE_CONFIGMAP) : NULL;
    if (!cm)
        return WH_OK;
    const char *text =
        wh_json_path_str(wh_object_json(cm), "data", WH_KRUISE_CONFIG_WS_WHITELIST, NULL);
    enum wh_err rc = text ? wh_ws_whitelist_parse(text, out, eb) : WH_OK;
    wh_object_unref(cm);
    return rc;
}

void wh_ws_whitelist_fini(struct wh_ws_whitelist *wl)
{
    free_items(wl);
    json_decref(wl->_root);
    memset(wl, 0, sizeof(*wl));
}

static bool gk_is(const struct wh_ws_gvk *g, const char *group, const char *kind)
{
    return strcmp(g->group, group) == 0 && strcmp(g->kind, kind) == 0;
}

bool wh_ws_whitelist_owner(const struct wh_ws_whitelist *wl, const char *group, const char *kind)
{
    for (size_t i = 0; i < wl->n; i++) {
        if (gk_is(&wl->items[i].gvk, group, kind))
            return true;
        for (size_t k = 0; k < wl->items[i].nsubs; k++) {
            if (gk_is(&wl->items[i].subs[k], group, kind))
                return true;
        }
    }
    return false;
}

const struct wh_ws_custom_workload *wh_ws_whitelist_workload(const struct wh_ws_whitelist *wl,
                                                             const char *group, const char *kind)
{
    for (size_t i = 0; i < wl->n; i++) {
        if (gk_is(&wl->items[i].gvk, group, kind))
            return &wl->items[i];
    }
    return NULL;
}
