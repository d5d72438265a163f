/* What the PersistentPodState step and its validation share: the caches they read, the white
 * list of custom workloads, and the object as upstream reads it (pps_int.h). */
#include "handlers/persistentpodstate/pps_int.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conversion/convert.h"
#include "gocompat/gotype.h"
#include "k8s/kruise.h"
#include "k8s/ref.h"
#include "kube/cache.h"
#include "util/json.h"
#include "util/mem.h"
#include "util/str.h"

/* --- the PersistentPodState cache ------------------------------------------------------------ */

/* Names are at most 253 bytes (DNS subdomains), groups and kinds shorter: a longer one, which
 * the API server refuses, is cut and matches nothing it should not. */
#define VIEW_STR 256

struct view {
    struct wh_pps_view v;
    char name[VIEW_STR], group[VIEW_STR], kind[VIEW_STR], target[VIEW_STR];
};

static void *view_new(const json_t *obj)
{
    const json_t *ref = wh_json_path(obj, "spec", "targetRef", NULL);
    struct view *w = wh_xcalloc(1, sizeof(*w));
    w->v.target_ok = wh_ref_group_of(wh_json_str(ref, "apiVersion"), w->group, sizeof(w->group));
    const char *name = wh_json_meta_str(obj, "name");
    snprintf(w->name, sizeof(w->name), "%s", name ? name : "");
    snprintf(w->kind, sizeof(w->kind), "%s", wh_json_str_or_empty(ref, "kind"));
    snprintf(w->target, sizeof(w->target), "%s", wh_json_str_or_empty(ref, "name"));
    w->v.name = w->name;
    w->v.target_group = w->group;
    w->v.target_kind = w->kind;
    w->v.target_name = w->target;
    /* a zero metav1.Time is absent: null and "" decode to it */
    const char *del = wh_json_meta_str(obj, "deletionTimestamp");
    w->v.deleting = del && *del;
    return w;
}

static void view_free(void *p)
{
    free(p);
}

const struct wh_pps_view *wh_pps_view_of(const struct wh_object *o)
{
    const struct view *w = wh_object_view(o);
    return w ? &w->v : NULL;
}

enum wh_err wh_pps_caches_setup(struct wh_cluster *cl, const struct wh_config *cfg,
                                struct wh_errbuf *eb)
{
    (void)eb;
    struct wh_cache *c = wh_cluster_declare(cl, WH_RES_PERSISTENTPODSTATE, NULL);
    wh_cache_set_view(c, view_new, view_free);
    (void)wh_cluster_declare(cl, WH_RES_CONFIGMAP, cfg->namespace_);
    return WH_OK;
}

json_t *wh_pps_beta(const json_t *obj)
{
    const char *av = wh_json_str(obj, "apiVersion");
    if (!av || !wh_str_has_suffix(av, "/v1alpha1"))
        return json_incref((json_t *)(uintptr_t)obj);
    json_t *beta = NULL;
    char *msg = NULL;
    if (wh_convert_up("PersistentPodState", obj, &beta, &msg))
        beta = NULL;
    free(msg);
    return beta;
}

bool wh_pps_refs_equal(const char *api_version_a, const char *kind_a, const char *name_a,
                       const char *api_version_b, const char *kind_b, const char *name_b)
{
    char ga[256], gb[256];
    return wh_ref_group_of(api_version_a, ga, sizeof(ga)) &&
           wh_ref_group_of(api_version_b, gb, sizeof(gb)) && strcmp(ga, gb) == 0 &&
           wh_str_eq(kind_a ? kind_a : "", kind_b ? kind_b : "") &&
           wh_str_eq(name_a ? name_a : "", name_b ? name_b : "");
}

/* --- the white list --------------------------------------------------------------------------- */

/* configuration.CustomWorkloadWhiteList, as json.Unmarshal decodes it (the Go-type model). */
static enum wh_err whitelist_parse(const char *text, struct wh_pps_whitelist *out,
                                   struct wh_errbuf *eb)
{
    const struct wh_gotype *t = wh_gotype_lookup(WH_KRUISE_CONFIG_TYPES, "CustomWorkloadWhiteList");
    enum wh_err rc = wh_gotype_unmarshal(text, strlen(text), t, &out->_root, eb);
    if (rc)
        return rc;
    const json_t *list = wh_json_arr(out->_root, "workloads");
    out->n = json_array_size(list);
    out->items = wh_xcalloc(out->n ? out->n : 1, sizeof(*out->items));
    for (size_t i = 0; i < out->n; i++) {
        out->items[i].group = wh_json_str_or_empty(json_array_get(list, i), "Group");
        out->items[i].kind = wh_json_str_or_empty(json_array_get(list, i), "Kind");
    }
    return WH_OK;
}

enum wh_err wh_pps_whitelist_load(struct wh_cluster *cl, const char *kruise_ns,
                                  struct wh_pps_whitelist *out, struct wh_errbuf *eb)
{
    memset(out, 0, sizeof(*out));
    struct wh_object *cm;
    const char *text = wh_cluster_configmap_value(cl, kruise_ns, WH_KRUISE_CONFIGMAP,
                                                  WH_KRUISE_CONFIG_PPS_WHITELIST, &cm);
    enum wh_err rc = text ? whitelist_parse(text, out, eb) : WH_OK;
    wh_object_unref(cm);
    if (rc)
        wh_pps_whitelist_fini(out);
    return rc;
}

void wh_pps_whitelist_fini(struct wh_pps_whitelist *wl)
{
    free(wl->items);
    json_decref(wl->_root);
    memset(wl, 0, sizeof(*wl));
}

bool wh_pps_whitelist_allows(const struct wh_pps_whitelist *wl, const char *api_version,
                             const char *kind)
{
    char group[256];
    if (!wh_ref_group_of(api_version, group, sizeof(group)))
        return false;
    kind = kind ? kind : "";
    if ((strcmp(group, WH_KRUISE_APPS) == 0 || strcmp(group, "apps") == 0) &&
        strcmp(kind, "StatefulSet") == 0)
        return true;
    for (size_t i = 0; i < wl->n; i++) {
        if (strcmp(wl->items[i].group, group) == 0 && strcmp(wl->items[i].kind, kind) == 0)
            return true;
    }
    return false;
}
