/* Which PUB protects a Pod (spec pub.md section 4): the PUB cache with a compiled view, the
 * workload a new Pod belongs to, and the /mutate-pod step that writes the related-PUB
 * annotations. A namespace without PUBs costs one cache lookup; the workload is resolved only
 * when some PUB of the namespace names a targetRef. */
#include "handlers/pub/pub_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/features.h"
#include "k8s/kruise.h"
#include "k8s/ref.h"
#include "k8s/selector.h"
#include "log/log.h"
#include "util/json.h"
#include "util/mem.h"
#include "util/str.h"

bool wh_pub_gates_on(const struct wh_config *cfg)
{
    return wh_feature_on(&cfg->features, WH_FEATURE_PodUnavailableBudgetDeleteGate) ||
           wh_feature_on(&cfg->features, WH_FEATURE_PodUnavailableBudgetUpdateGate);
}

const char *wh_pub_op_name(enum wh_pub_op op)
{
    switch (op) {
    case WH_PUB_OP_DELETE:
        return "DELETE";
    case WH_PUB_OP_UPDATE:
        return "UPDATE";
    case WH_PUB_OP_EVICT:
        return "EVICT";
    case WH_PUB_OP_RESIZE:
        return "RESIZE";
    }
    return "";
}

enum wh_pub_op wh_pub_op_parse(const char *s, size_t len)
{
    static const enum wh_pub_op all[] = {WH_PUB_OP_DELETE, WH_PUB_OP_UPDATE, WH_PUB_OP_EVICT,
                                         WH_PUB_OP_RESIZE};
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
        const char *name = wh_pub_op_name(all[i]);
        if (strlen(name) == len && memcmp(name, s, len) == 0)
            return all[i];
    }
    return 0;
}

const char *wh_pub_related_name(const json_t *pod)
{
    const char *name = wh_json_annotation(pod, WH_KRUISE_ANN_PUB_RELATED);
    if (name && *name)
        return name;
    name = wh_json_annotation(pod, WH_KRUISE_ANN_PUB_RELATED_OLD);
    return name && *name ? name : NULL;
}

/* --- the PUB cache ------------------------------------------------------------------------ */

/* The view and its strings in one block. */
struct view_block {
    struct wh_pub_view v;
    char strings[];
};

static void *view_new(const json_t *obj)
{
    const json_t *spec = wh_json_obj(obj, "spec");
    const json_t *ref = json_object_get(spec, "targetRef");
    bool has_target = ref && !json_is_null(ref);
    char group[256] = "";
    bool target_ok =
        has_target && wh_ref_group_of(wh_json_str(ref, "apiVersion"), group, sizeof(group));
    const char *name = wh_json_meta_str(obj, "name");
    const char *strs[] = {name ? name : "", group, wh_json_str_or_empty(ref, "kind"),
                          wh_json_str_or_empty(ref, "name")};
    size_t chars = 0;
    for (size_t i = 0; i < 4; i++)
        chars += strlen(strs[i]) + 1;
    struct view_block *b = wh_xcalloc(1, sizeof(*b) + chars);
    const char *placed[4];
    char *p = b->strings;
    for (size_t i = 0; i < 4; i++) {
        size_t n = strlen(strs[i]) + 1;
        memcpy(p, strs[i], n);
        placed[i] = p;
        p += n;
    }
    b->v.name = placed[0];
    b->v.target_group = placed[1];
    b->v.target_kind = placed[2];
    b->v.target_name = placed[3];
    b->v.has_target = has_target;
    b->v.target_ok = target_ok;
    b->v.selector = wh_selector_new(json_object_get(spec, "selector"));
    return b;
}

static void view_free(void *p)
{
    struct view_block *b = p;
    if (b)
        wh_selector_free(b->v.selector);
    free(b);
}

const struct wh_pub_view *wh_pub_view_of(const struct wh_object *o)
{
    const struct view_block *b = wh_object_view(o);
    return b ? &b->v : NULL;
}

enum wh_err wh_pub_caches_setup(struct wh_cluster *cl, const struct wh_config *cfg,
                                struct wh_errbuf *eb)
{
    (void)cfg;
    (void)eb;
    struct wh_cache *pubs = wh_cluster_declare(cl, WH_RES_PUB, NULL);
    wh_cache_set_view(pubs, view_new, view_free);
    static const enum wh_resource_id workloads[] = {WH_RES_DEPLOYMENT, WH_RES_REPLICASET,
                                                    WH_RES_STATEFULSET, WH_RES_CLONESET,
                                                    WH_RES_ADVANCED_STATEFULSET};
    for (size_t i = 0; i < sizeof(workloads) / sizeof(workloads[0]); i++)
        (void)wh_cluster_declare(cl, workloads[i], NULL);
    return WH_OK;
}

/* --- the workload of a Pod (controllerfinder.GetScaleAndSelectorForRef) ------------------- */

struct workload {
    bool found;
    char group[256];
    char kind[256];
    char name[256];
};

static void set_workload(struct workload *w, const char *group, const char *kind, const char *name)
{
    w->found = true;
    snprintf(w->group, sizeof(w->group), "%s", group);
    snprintf(w->kind, sizeof(w->kind), "%s", kind);
    snprintf(w->name, sizeof(w->name), "%s", name);
}

/* Returns: a new reference to the cached object id ns/name, or NULL. */
static struct wh_object *cached(struct wh_cluster *cl, enum wh_resource_id id, const char *ns,
                                const char *name)
{
    struct wh_cache *c = wh_cluster_cache(cl, id);
    return c ? wh_cache_get(c, ns, name) : NULL;
}

/* A kind the caches do not hold: read it live (the scale subresource, the PersistentPodState
 * white list and "any object" finders of upstream all end with the owner itself when it
 * exists). WH_ERR_NOT_FOUND when it does not. */
static enum wh_err live_exists(struct wh_cluster *cl, const char *api_version, const char *kind,
                               const char *ns, const char *name, struct wh_errbuf *eb)
{
    json_t *obj = NULL;
    enum wh_err rc = wh_cluster_get_live_kind(cl, api_version, kind, ns, name, &obj, eb);
    json_decref(obj);
    return rc;
}


static void resolve_workload(struct wh_pod_review *pr, const json_t *pod, const char *ns,
                             struct workload *w)
{
    memset(w, 0, sizeof(*w));
    const json_t *ref = wh_ref_controller(pod);
    struct wh_cluster *cl = pr->ctx ? pr->ctx->cluster : NULL;
    if (!ref || !cl)
        return;
    const char *av = wh_json_str_or_empty(ref, "apiVersion");
    const char *kind = wh_json_str_or_empty(ref, "kind");
    const char *name = wh_json_str_or_empty(ref, "name");
    char group[256];
    if (!wh_ref_group_of(av, group, sizeof(group))) {
        wh_log_req(WH_LOG_WARN, pr->req->uid, NULL,
                   "pub: cannot resolve the workload of pod %s/%s: unexpected GroupVersion "
                   "string: %s",
                   ns, wh_json_meta_str(pod, "name") ? wh_json_meta_str(pod, "name") : "", av);
        return;
    }
    enum wh_resource_id id = wh_resource_by_kind(group, kind);
    struct wh_object *o = NULL;
    switch (id) {
    case WH_RES_DEPLOYMENT:
    case WH_RES_STATEFULSET:
    case WH_RES_CLONESET:
    case WH_RES_ADVANCED_STATEFULSET:
        o = cached(cl, id, ns, name);
        if (o)
            set_workload(w, group, kind, name);
        break;
    case WH_RES_REPLICASET: {
        o = cached(cl, id, ns, name);
        if (!o)
            break;
        /* a Deployment's ReplicaSet stands for its Deployment, when that exists with the uid
         * the ReplicaSet names; else the ReplicaSet itself is the workload */
        const json_t *owner = wh_ref_controller(wh_object_json(o));
        char og[256];
        if (owner && wh_str_eq(wh_json_str(owner, "kind"), "Deployment") &&
            wh_ref_group_of(wh_json_str(owner, "apiVersion"), og, sizeof(og)) &&
            strcmp(og, "apps") == 0) {
            const char *dname = wh_json_str_or_empty(owner, "name");
            const char *uid = wh_json_str_or_empty(owner, "uid");
            struct wh_object *d = cached(cl, WH_RES_DEPLOYMENT, ns, dname);
            if (d && (!*uid || wh_str_eq(wh_json_meta_str(wh_object_json(d), "uid"), uid)))
                set_workload(w, "apps", "Deployment", dname);
            wh_object_unref(d);
        }
        if (!w->found)
            set_workload(w, group, kind, name);
        break;
    }
    default: {
        struct wh_errbuf eb = {{0}};
        enum wh_err rc = live_exists(cl, av, kind, ns, name, &eb);
        if (rc == WH_OK)
            set_workload(w, group, kind, name);
        else if (rc != WH_ERR_NOT_FOUND)
            wh_log_req(WH_LOG_WARN, pr->req->uid, NULL,
                       "pub: cannot resolve the workload %s %s/%s: %s", kind, ns, name, eb.msg);
        break;
    }
    }
    wh_object_unref(o);
}

/* --- the /mutate-pod step ------------------------------------------------------------------ */

static bool selector_matches(const struct wh_pub_view *v, const json_t *pod)
{
    return wh_selector_state(v->selector) == WH_SELECTOR_REQUIREMENTS &&
           wh_selector_matches(v->selector, wh_json_path(pod, "metadata", "labels", NULL));
}

enum wh_err wh_pub_mutate(struct wh_pod_review *pr, struct wh_errbuf *eb)
{
    (void)eb;
    struct wh_cluster *cl = pr->ctx ? pr->ctx->cluster : NULL;
    struct wh_cache *c = cl ? wh_cluster_cache(cl, WH_RES_PUB) : NULL;
    if (!c)
        return WH_OK;
    const json_t *pod = wh_pod_review_pod(pr);
    const char *ns = pr->namespace_;
    struct wh_objlist l;
    wh_objlist_init(&l);
    wh_cache_list(c, ns, &l);
    struct workload w;
    memset(&w, 0, sizeof(w));
    bool resolved = false;
    const struct wh_pub_view *match = NULL;
    for (size_t i = 0; i < l.n && !match; i++) {
        const struct wh_pub_view *v = wh_pub_view_of(l.items[i]);
        if (!v)
            continue;
        if (v->has_target && !resolved) {
            resolve_workload(pr, pod, ns, &w);
            resolved = true;
        }
        if (v->has_target && w.found) {
            /* a targetRef decides alone once the workload is known (IsReferenceEqual) */
            if (v->target_ok && strcmp(v->target_group, w.group) == 0 &&
                strcmp(v->target_kind, w.kind) == 0 && strcmp(v->target_name, w.name) == 0) {
                match = v;
                wh_pod_review_explain(pr, v->name, true, "spec.targetRef names the workload %s %s",
                                      w.kind, w.name);
            } else {
                wh_pod_review_explain(pr, v->name, false,
                                      "spec.targetRef names %s %s, the Pod belongs to %s %s",
                                      v->target_kind, v->target_name, w.kind, w.name);
            }
        } else if (selector_matches(v, pod)) {
            match = v;
            wh_pod_review_explain(pr, v->name, true, "spec.selector matches the Pod's labels");
        } else {
            bool reqs = wh_selector_state(v->selector) == WH_SELECTOR_REQUIREMENTS;
            wh_pod_review_explain(
                pr, v->name, false, "%s%s",
                v->has_target ? "no workload of the Pod found for spec.targetRef; " : "",
                reqs ? "spec.selector does not match the Pod's labels"
                     : "spec.selector is empty or absent, which selects no Pod");
        }
    }
    if (match) {
        json_t *ann = wh_pod_review_own(pr, "metadata", "annotations", NULL);
        json_object_set_new(ann, WH_KRUISE_ANN_PUB_RELATED, json_string(match->name));
        json_object_set_new(ann, WH_KRUISE_ANN_PUB_RELATED_OLD, json_string(match->name));
    }
    wh_objlist_fini(&l);
    return WH_OK;
}
