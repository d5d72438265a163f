#include "handlers/workloadspread/match.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/features.h"
#include "handlers/workloadspread/whitelist.h"
#include "handlers/workloadspread/workload.h"
#include "k8s/ref.h"
#include "k8s/selector.h"
#include "log/log.h"
#include "util/json.h"
#include "util/mem.h"
#include "util/str.h"

/* Owner references followed at most: Pod -> ReplicaSet -> Deployment is two; a chain this deep
 * is a loop, which upstream would follow forever. */
#define MAX_CHAIN 8

/* --- the view -------------------------------------------------------------------------------- */

static void *view_new(const json_t *obj)
{
    const char *name = wh_json_str_or_empty(json_object_get(obj, "metadata"), "name");
    const json_t *spec = json_object_get(obj, "spec");
    const json_t *ref = json_object_get(spec, "targetRef");
    const json_t *filter = json_object_get(spec, "targetFilter");
    const char *av = wh_json_str_or_empty(ref, "apiVersion");
    const char *kind = wh_json_str_or_empty(ref, "kind");
    const char *target = wh_json_str_or_empty(ref, "name");
    struct wh_gv gv;
    bool gv_ok = wh_ref_parse_gv(av, &gv);
    size_t glen = gv_ok ? gv.group_len : 0;
    size_t sz = sizeof(struct wh_ws_view) + strlen(name) + glen + strlen(kind) + strlen(target) + 4;
    struct wh_ws_view *v = wh_xcalloc(1, sz);
    char *pool = (char *)(v + 1);
    v->name = pool;
    pool += snprintf(pool, strlen(name) + 1, "%s", name) + 1;
    v->target_group = pool;
    pool += snprintf(pool, glen + 1, "%.*s", (int)glen, gv_ok ? gv.group : "") + 1;
    v->target_kind = pool;
    pool += snprintf(pool, strlen(kind) + 1, "%s", kind) + 1;
    v->target_name = pool;
    snprintf(pool, strlen(target) + 1, "%s", target);
    v->usable = json_is_object(ref) &&
                !wh_json_present(json_object_get(obj, "metadata"), "deletionTimestamp");
    v->target_gv_ok = gv_ok;
    v->filtered = json_is_object(filter);
    if (v->filtered)
        v->filter = wh_selector_new(json_object_get(filter, "selector"));
    return v;
}

static void view_free(void *p)
{
    struct wh_ws_view *v = p;
    if (v)
        wh_selector_free(v->filter);
    free(v);
}

static void index_namespace(const json_t *obj, const void *view, wh_index_emit_fn emit, void *ctx)
{
    (void)view;
    const char *ns = wh_json_meta_str(obj, "namespace");
    if (ns)
        emit(ctx, ns);
}

static bool enabled(const struct wh_config *cfg)
{
    return wh_feature_on(&cfg->features, WH_FEATURE_WorkloadSpread);
}

enum wh_err wh_ws_caches_setup(struct wh_cluster *cl, const struct wh_config *cfg,
                               struct wh_errbuf *eb)
{
    (void)eb;
    if (!enabled(cfg))
        return WH_OK;
    struct wh_cache *ws = wh_cluster_declare(cl, WH_RES_WORKLOADSPREAD, NULL);
    /* the Pod step and the object webhook both declare it: the same view again is harmless */
    wh_cache_set_view(ws, view_new, view_free);
    wh_cache_add_index(ws, WH_WS_INDEX_NAMESPACE, index_namespace);
    static const enum wh_resource_id workloads[] = {
        WH_RES_DEPLOYMENT,           WH_RES_REPLICASET, WH_RES_STATEFULSET,
        WH_RES_ADVANCED_STATEFULSET, WH_RES_CLONESET,   WH_RES_JOB,
    };
    for (size_t i = 0; i < sizeof(workloads) / sizeof(workloads[0]); i++)
        (void)wh_cluster_declare(cl, workloads[i], NULL);
    (void)wh_cluster_declare(cl, WH_RES_CONFIGMAP, cfg->namespace_);
    return WH_OK;
}

const struct wh_ws_view *wh_ws_view_of(const struct wh_object *o)
{
    return wh_object_view(o);
}

/* --- the owner chain ------------------------------------------------------------------------ */

struct link {
    const json_t *ref; /* borrowed from the Pod or the previous link's object */
    bool gv_ok;
    char group[256];
    const char *api_version, *kind, *name;
    int supported; /* -1: not known yet */
    bool fetched;
    enum wh_err rc;
    struct wh_errbuf why;
    json_t *obj; /* the owner itself, once read */
};

struct chain {
    struct wh_cluster *cl;
    const char *kruise_ns, *ns;
    const json_t *pod;
    struct link links[MAX_CHAIN];
    size_t n;
    bool wl_loaded, wl_ok;
    struct wh_ws_whitelist wl;
};

static void chain_fini(struct chain *c)
{
    for (size_t i = 0; i < c->n; i++)
        json_decref(c->links[i].obj);
    if (c->wl_ok)
        wh_ws_whitelist_fini(&c->wl);
}

static bool supported(struct chain *c, struct link *l)
{
    if (l->supported >= 0)
        return l->supported;
    l->supported = wh_ws_builtin_workload(l->group, l->kind);
    if (!l->supported) {
        if (!c->wl_loaded) {
            struct wh_errbuf eb = {{0}};
            c->wl_loaded = true;
            /* upstream leaves the list uninitialised when the ConfigMap does not decode */
            c->wl_ok = wh_ws_whitelist_load(c->cl, c->kruise_ns, &c->wl, &eb) == WH_OK;
            if (!c->wl_ok)
                WH_LOG_EVERY(60, WH_LOG_WARN, "workloadspread: custom workload white list: %s",
                             eb.msg);
        }
        l->supported = c->wl_ok && wh_ws_whitelist_owner(&c->wl, l->group, l->kind);
    }
    return l->supported;
}

/* Link k of the chain (0: the Pod's controller owner), or NULL at its end. */
static struct link *link_at(struct chain *c, size_t k)
{
    if (k < c->n)
        return &c->links[k];
    WH_ASSERT(k == c->n && k < MAX_CHAIN);
    const json_t *owner = wh_ref_controller(k == 0 ? c->pod : c->links[k - 1].obj);
    if (!owner)
        return NULL;
    struct link *l = &c->links[c->n++];
    memset(l, 0, sizeof(*l));
    l->ref = owner;
    l->api_version = wh_json_str_or_empty(owner, "apiVersion");
    l->kind = wh_json_str_or_empty(owner, "kind");
    l->name = wh_json_str_or_empty(owner, "name");
    struct wh_gv gv;
    l->gv_ok = wh_ref_parse_gv(l->api_version, &gv);
    if (l->gv_ok)
        snprintf(l->group, sizeof(l->group), "%.*s", (int)gv.group_len, gv.group);
    l->supported = -1;
    return l;
}

static void fetch(struct chain *c, struct link *l)
{
    if (l->fetched)
        return;
    l->fetched = true;
    l->rc = wh_ws_workload_get(c->cl, l->api_version, l->kind, c->ns, l->name, &l->obj, &l->why);
}

enum ref_result { REF_EQUAL, REF_OTHER, REF_SKIP, REF_FATAL };

/* isReferenceEqual(targetRef, owner) walked up the chain. why gets the reason of SKIP/FATAL. */
static enum ref_result ref_equal(struct chain *c, const struct wh_ws_view *v, char *why,
                                 size_t whysz)
{
    if (!v->target_gv_ok) {
        snprintf(why, whysz, "spec.targetRef.apiVersion does not parse");
        return REF_SKIP;
    }
    for (size_t k = 0;; k++) {
        if (k == MAX_CHAIN) {
            snprintf(why, whysz, "the owner chain is deeper than %d references", MAX_CHAIN);
            return REF_SKIP;
        }
        struct link *l = link_at(c, k);
        if (!l)
            return REF_OTHER;
        if (!l->gv_ok) {
            snprintf(why, whysz, "unexpected GroupVersion string: %s", l->api_version);
            return REF_SKIP;
        }
        if (strcmp(l->group, v->target_group) == 0 && strcmp(l->kind, v->target_kind) == 0 &&
            strcmp(l->name, v->target_name) == 0)
            return REF_EQUAL;
        if (!supported(c, l))
            return REF_OTHER;
        fetch(c, l);
        if (l->rc) {
            snprintf(why, whysz, "%s", l->why.msg);
            return l->rc == WH_ERR_NOT_FOUND ? REF_FATAL : REF_SKIP;
        }
    }
}

/* --- the match ---------------------------------------------------------------------------- */

bool wh_ws_pod_active(const json_t *pod)
{
    const char *phase = wh_json_path_str(pod, "status", "phase", NULL);
    return !wh_str_eq(phase, "Succeeded") && !wh_str_eq(phase, "Failed") &&
           !wh_json_present(json_object_get(pod, "metadata"), "deletionTimestamp");
}

enum wh_err wh_ws_match_pod(struct wh_cluster *cl, const char *kruise_ns, const json_t *pod,
                            const char *ns, const struct wh_pod_review *pr, struct wh_object **ws,
                            struct wh_errbuf *eb)
{
    *ws = NULL;
    struct wh_cache *cache = cl ? wh_cluster_cache(cl, WH_RES_WORKLOADSPREAD) : NULL;
    if (!cache)
        return WH_OK;
    struct wh_objlist l;
    wh_objlist_init(&l);
    wh_cache_by_index(cache, WH_WS_INDEX_NAMESPACE, ns, &l);
    struct chain c = {.cl = cl, .kruise_ns = kruise_ns, .ns = ns, .pod = pod};
    enum wh_err rc = WH_OK;
    if (l.n == 0) /* the common case, and nothing worth a note */
        goto out;
    if (!wh_ws_pod_active(pod)) {
        wh_pod_review_explain(pr, NULL, false, "the Pod is not active (finished or deleted)");
        goto out;
    }
    struct link *owner = link_at(&c, 0);
    if (!owner) {
        wh_pod_review_explain(pr, NULL, false, "the Pod has no controller owner");
        goto out;
    }
    if (!owner->gv_ok || !supported(&c, owner)) {
        wh_pod_review_explain(pr, NULL, false,
                              "the Pod's controller owner %s %s/%s is not a workload kind "
                              "WorkloadSpread handles",
                              owner->api_version, owner->kind, owner->name);
        goto out;
    }
    for (size_t i = 0; i < l.n && !*ws; i++) {
        const struct wh_ws_view *v = wh_ws_view_of(l.items[i]);
        const char *name = wh_object_name(l.items[i]);
        if (!v || !v->usable) {
            wh_pod_review_explain(pr, name, false, "skipped: no spec.targetRef, or being deleted");
            continue;
        }
        char why[300] = "";
        enum ref_result r = ref_equal(&c, v, why, sizeof(why));
        if (r == REF_FATAL) {
            wh_pod_review_explain(pr, name, false, "the owner chain is broken: %s", why);
            rc = wh_errbuf_set(eb, WH_ERR_NOT_FOUND, "%s", why);
            goto out;
        }
        if (r == REF_SKIP) {
            WH_LOG_EVERY(10, WH_LOG_WARN,
                         "workloadspread %s/%s: cannot compare its targetRef with the owner of "
                         "Pod %s: %s",
                         ns, name, wh_json_meta_str(pod, "name"), why);
            wh_pod_review_explain(pr, name, false, "skipped: %s", why);
            continue;
        }
        if (r == REF_OTHER) {
            wh_pod_review_explain(pr, name, false,
                                  "skipped: targetRef %s %s is not the Pod's workload",
                                  v->target_kind, v->target_name);
            continue;
        }
        if (v->filtered && wh_selector_error(v->filter)) {
            WH_LOG_EVERY(10, WH_LOG_WARN, "workloadspread %s/%s: spec.targetFilter.selector: %s",
                         ns, name, wh_selector_error(v->filter));
            wh_pod_review_explain(pr, name, false, "skipped: spec.targetFilter.selector: %s",
                                  wh_selector_error(v->filter));
            continue;
        }
        if (v->filtered &&
            !wh_selector_matches(v->filter, wh_json_path(pod, "metadata", "labels", NULL))) {
            wh_pod_review_explain(pr, name, false,
                                  wh_selector_state(v->filter) == WH_SELECTOR_NOTHING
                                      ? "skipped: spec.targetFilter has no selector, which "
                                        "selects no Pod"
                                      : "skipped: spec.targetFilter.selector does not select "
                                        "the Pod's labels");
            continue;
        }
        *ws = wh_object_ref(l.items[i]);
    }
    if (!*ws)
        wh_pod_review_explain(pr, NULL, false, "no WorkloadSpread of namespace %s handles the Pod",
                              ns);
out:
    chain_fini(&c);
    wh_objlist_fini(&l);
    return rc;
}
