#include "handlers/sidecarset/warnings.h"

#include <stdlib.h>
#include <string.h>

#include "handlers/sidecarset/match.h"
#include "handlers/warnings.h"
#include "k8s/kruise.h"
#include "k8s/selector.h"
#include "kube/cluster.h"
#include "util/json.h"
#include "util/str.h"

/* Other SidecarSets asked about, and Pods read for each: a bounded cost per request. */
#define MAX_OTHERS_ASKED 2
#define PODS_PER_QUESTION 20

/* Whether the namespace named ns (cached) is one a namespace selector selects; a nil selector
 * selects every namespace. */
static bool ns_selected(struct wh_cache *namespaces, const struct wh_selector *sel, const char *ns)
{
    if (!sel)
        return true;
    struct wh_object *o = namespaces ? wh_cache_get(namespaces, NULL, ns) : NULL;
    bool yes = o && wh_selector_matches(
                        sel, wh_json_path(wh_object_json(o), "metadata", "labels", NULL));
    wh_object_unref(o);
    return yes;
}

static void warn_no_namespace(const struct wh_handler_ctx *ctx, const json_t *spec,
                              struct wh_cache *namespaces, struct wh_admission_response *resp)
{
    const json_t *nsel = json_object_get(spec, "namespaceSelector");
    if (!namespaces || !json_is_object(nsel))
        return;
    struct wh_selector *sel = wh_selector_new(nsel);
    if (wh_selector_state(sel) != WH_SELECTOR_INVALID) {
        struct wh_objlist l;
        wh_objlist_init(&l);
        wh_cache_list(namespaces, NULL, &l);
        bool any = false;
        for (size_t i = 0; i < l.n && !any; i++)
            any = wh_selector_matches(
                sel, wh_json_path(wh_object_json(l.items[i]), "metadata", "labels", NULL));
        wh_objlist_fini(&l);
        if (!any)
            wh_warn(ctx, resp,
                    "spec.namespaceSelector matches no namespace that exists: nothing is "
                    "injected until one does");
    }
    wh_selector_free(sel);
}

/* The first container name (containers, then initContainers) spec injects that other also
 * injects, or NULL. Returns: borrowed from spec. */
static const char *shared_container(const json_t *spec, const json_t *other)
{
    static const char *const lists[] = {"containers", "initContainers"};
    for (int a = 0; a < 2; a++) {
        size_t i;
        const json_t *c;
        json_array_foreach(wh_json_arr(spec, lists[a]), i, c)
        {
            const char *name = wh_json_str(c, "name");
            for (int b = 0; name && b < 2; b++) {
                size_t k;
                const json_t *oc;
                json_array_foreach(wh_json_arr(other, lists[b]), k, oc)
                {
                    if (wh_str_eq(wh_json_str(oc, "name"), name))
                        return name;
                }
            }
        }
    }
    return NULL;
}

struct both {
    struct wh_cache *namespaces;
    const struct wh_selector *ns_a, *ns_b;
    char found[512]; /* namespace/name of a Pod both select */
};

static enum wh_err pod_in_both(void *arg, json_t *pod)
{
    struct both *b = arg;
    const char *ns = wh_json_meta_str(pod, "namespace");
    if (b->found[0] || !ns || !ns_selected(b->namespaces, b->ns_a, ns) ||
        !ns_selected(b->namespaces, b->ns_b, ns))
        return WH_OK;
    snprintf(b->found, sizeof(b->found), "%s/%s", ns,
             wh_json_str_or_empty(wh_json_obj(pod, "metadata"), "name"));
    return WH_OK;
}

/* Some existing Pod both SidecarSets select: its namespace/name in b->found. */
static void find_shared_pod(const struct wh_handler_ctx *ctx, const json_t *sel_a,
                            const json_t *sel_b, struct both *b)
{
    char *qa = wh_selector_query(sel_a), *qb = wh_selector_query(sel_b);
    if (qa && qb) {
        /* both selectors' requirements at once: the Pods each of them selects */
        char *q = wh_str_printf("%s%s%s", qa, qa[0] && qb[0] ? "," : "", qb);
        struct wh_errbuf eb = {{0}};
        /* a list that fails leaves found empty: no warning */
        if (wh_cluster_list_page_live(ctx->cluster, "", "v1", "pods", NULL, q, PODS_PER_QUESTION,
                                      pod_in_both, b, &eb) != WH_OK)
            b->found[0] = '\0';
        free(q);
    }
    free(qa);
    free(qb);
}

static void warn_shared_containers(const struct wh_handler_ctx *ctx, const json_t *ss,
                                   struct wh_cache *namespaces, struct wh_admission_response *resp)
{
    struct wh_cache *c = wh_cluster_cache(ctx->cluster, WH_RES_SIDECARSET);
    if (!c)
        return;
    const char *name = wh_json_meta_str(ss, "name");
    const json_t *spec = wh_json_obj(ss, "spec");
    const char *base = wh_json_annotation(ss, WH_KRUISE_ANN_SIDECARSET_BASE);
    const json_t *nsel = json_object_get(spec, "namespaceSelector");
    struct wh_selector *own_ns = json_is_object(nsel) ? wh_selector_new(nsel) : NULL;
    struct wh_objlist l;
    wh_objlist_init(&l);
    wh_cache_list(c, NULL, &l);
    int asked = 0;
    for (size_t i = 0; i < l.n && asked < MAX_OTHERS_ASKED; i++) {
        const struct wh_sidecarset_view *v = wh_sidecarset_view_of(l.items[i]);
        const json_t *other = wh_object_json(l.items[i]);
        /* itself, and the pairs a canary displaces its base in, inject one container only */
        if (!v || wh_str_eq(v->name, name) || wh_str_eq(v->name, base) ||
            wh_str_eq(v->canary_base, name))
            continue;
        const char *container = shared_container(spec, wh_json_obj(other, "spec"));
        if (!container)
            continue;
        asked++;
        struct both b = {.namespaces = namespaces, .ns_a = own_ns, .ns_b = v->ns_selector};
        find_shared_pod(ctx, json_object_get(spec, "selector"),
                        wh_json_path(other, "spec", "selector", NULL), &b);
        if (b.found[0])
            wh_warn(ctx, resp, "container %s is injected by SidecarSet %s too, into Pods both "
                               "select (%s)",
                    container, v->name, b.found);
    }
    wh_objlist_fini(&l);
    wh_selector_free(own_ns);
}

void wh_sidecarset_warn(const struct wh_handler_ctx *ctx, const json_t *ss,
                        struct wh_admission_response *resp)
{
    if (!wh_warnings_on(ctx) || !ctx->cluster)
        return;
    struct wh_cache *namespaces = wh_cluster_cache(ctx->cluster, WH_RES_NAMESPACE);
    warn_no_namespace(ctx, wh_json_obj(ss, "spec"), namespaces, resp);
    warn_shared_containers(ctx, ss, namespaces, resp);
}
