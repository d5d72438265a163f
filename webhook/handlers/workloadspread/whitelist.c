#include "handlers/workloadspread/whitelist.h"

#include <stdlib.h>
#include <string.h>

#include "gocompat/gotype.h"
#include "k8s/kruise.h"
#include "kube/cache.h"
#include "util/json.h"
#include "util/mem.h"

static void gvk_of(const json_t *v, struct wh_ws_gvk *gvk)
{
    gvk->group = wh_json_str_or_empty(v, "Group");
    gvk->version = wh_json_str_or_empty(v, "Version");
    gvk->kind = wh_json_str_or_empty(v, "Kind");
}

enum wh_err wh_ws_whitelist_parse(const char *text, struct wh_ws_whitelist *out,
                                  struct wh_errbuf *eb)
{
    memset(out, 0, sizeof(*out));
    const struct wh_gotype *t =
        wh_gotype_lookup(WH_KRUISE_CONFIG_TYPES, "WSCustomWorkloadWhiteList");
    enum wh_err rc = wh_gotype_unmarshal(text, strlen(text), t, &out->_root, eb);
    if (rc)
        return rc;
    const json_t *list = wh_json_arr(out->_root, "workloads");
    out->n = json_array_size(list);
    out->items = wh_xcalloc(out->n ? out->n : 1, sizeof(*out->items));
    for (size_t i = 0; i < out->n; i++) {
        const json_t *e = json_array_get(list, i);
        struct wh_ws_custom_workload *w = &out->items[i];
        gvk_of(e, &w->gvk);
        w->replicas_path = wh_json_str_or_empty(e, "replicasPath");
        const json_t *subs = wh_json_arr(e, "subResources");
        w->nsubs = json_array_size(subs);
        w->subs = wh_xcalloc(w->nsubs ? w->nsubs : 1, sizeof(*w->subs));
        for (size_t k = 0; k < w->nsubs; k++)
            gvk_of(json_array_get(subs, k), &w->subs[k]);
    }
    return WH_OK;
}

enum wh_err wh_ws_whitelist_load(struct wh_cluster *cl, const char *kruise_ns,
                                 struct wh_ws_whitelist *out, struct wh_errbuf *eb)
{
    memset(out, 0, sizeof(*out));
    struct wh_object *cm;
    const char *text = wh_cluster_configmap_value(cl, kruise_ns, WH_KRUISE_CONFIGMAP,
                                                  WH_KRUISE_CONFIG_WS_WHITELIST, &cm);
    enum wh_err rc = text ? wh_ws_whitelist_parse(text, out, eb) : WH_OK;
    wh_object_unref(cm);
    return rc;
}

void wh_ws_whitelist_fini(struct wh_ws_whitelist *wl)
{
    for (size_t i = 0; i < wl->n; i++)
        free(wl->items[i].subs);
    free(wl->items);
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
