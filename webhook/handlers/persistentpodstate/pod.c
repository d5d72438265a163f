/* PersistentPodState's step of /mutate-pod (upstream's persistent_pod_state.go): a Pod created
 * again under a name its workload's PersistentPodState has a record for is sent back to the
 * recorded topology. No feature gate: upstream always runs it. */
#include "handlers/persistentpodstate/persistentpodstate.h"

#include <stdlib.h>
#include <string.h>

#include "handlers/persistentpodstate/pps_int.h"
#include "k8s/kruise.h"
#include "k8s/ref.h"
#include "kube/cache.h"
#include "util/cow.h"
#include "util/json.h"
#include "util/str.h"

/* SelectorPersistentPodState: the first PersistentPodState of the namespace (in name order, as
 * the cache lists) that is not being deleted and targets the owner. *any says whether the
 * namespace has one at all. Returns: new ref to the cached object, or NULL. */
static struct wh_object *select_pps(struct wh_cluster *cl, const char *ns, const json_t *ref,
                                    bool *any)
{
    *any = false;
    struct wh_cache *c = cl ? wh_cluster_cache(cl, WH_RES_PERSISTENTPODSTATE) : NULL;
    if (!c)
        return NULL;
    struct wh_objlist l;
    wh_objlist_init(&l);
    /* upstream lists with the Pod's namespace: an empty one is every namespace */
    wh_cache_list(c, ns && *ns ? ns : NULL, &l);
    *any = l.n > 0;
    struct wh_object *found = NULL;
    char group[256];
    bool ok = wh_ref_group_of(wh_json_str(ref, "apiVersion"), group, sizeof(group));
    const char *kind = wh_json_str_or_empty(ref, "kind"), *name = wh_json_str_or_empty(ref, "name");
    for (size_t i = 0; ok && i < l.n && !found; i++) {
        const struct wh_pps_view *v = wh_pps_view_of(l.items[i]);
        if (v && !v->deleting && v->target_ok && strcmp(v->target_group, group) == 0 &&
            strcmp(v->target_kind, kind) == 0 && strcmp(v->target_name, name) == 0)
            found = wh_object_ref(l.items[i]);
    }
    wh_objlist_fini(&l);
    return found;
}

/* createNodeAffinity: the recorded values of the required keys (a nodeSelector), and one
 * preferred term per preferred topology term, each with an In requirement for every key the
 * record has (a term whose keys the record lacks stays, empty). *node_selector is NULL when no
 * required topology is given. Returns in both: new refs. */
static void node_affinity(const json_t *spec, const json_t *labels, json_t **node_selector,
                          json_t **preferences)
{
    *node_selector = NULL;
    const json_t *req = wh_json_obj(spec, "requiredPersistentTopology");
    size_t i, k;
    const json_t *key;
    if (req) {
        *node_selector = json_object();
        json_array_foreach(wh_json_arr(req, "keys"), i, key)
        {
            const char *value =
                json_is_string(key) ? wh_json_str(labels, json_string_value(key)) : NULL;
            if (value)
                json_object_set_new(*node_selector, json_string_value(key), json_string(value));
        }
    }
    *preferences = json_array();
    const json_t *term;
    json_array_foreach(wh_json_arr(spec, "preferredPersistentTopology"), i, term)
    {
        json_t *exprs = json_array();
        json_array_foreach(wh_json_path(term, "preference", "keys", NULL), k, key)
        {
            const char *value =
                json_is_string(key) ? wh_json_str(labels, json_string_value(key)) : NULL;
            if (value)
                json_array_append_new(exprs,
                                      json_pack("{s:s,s:s,s:[s]}", "key", json_string_value(key),
                                                "operator", "In", "values", value));
        }
        json_t *pref = json_object();
        if (json_array_size(exprs))
            json_object_set_new(pref, "matchExpressions", exprs);
        else
            json_decref(exprs);
        const json_t *w = json_object_get(term, "weight");
        json_array_append_new(*preferences,
                              json_pack("{s:I,s:o}", "weight",
                                        json_is_integer(w) ? json_integer_value(w) : 0,
                                        "preference", pref));
    }
}

static void apply(struct wh_pod_review *pr, const char *pps_name, json_t *node_selector,
                  json_t *preferences)
{
    json_t *ann = wh_pod_review_own(pr, "metadata", "annotations", NULL);
    json_object_set_new(ann, WH_KRUISE_ANN_INJECTED_PERSISTENT_POD_STATE, json_string(pps_name));
    if (json_object_size(node_selector)) {
        json_t *ns = wh_pod_review_own(pr, "spec", "nodeSelector", NULL);
        const char *k;
        json_t *v;
        json_object_foreach((json_t *)(uintptr_t)node_selector, k, v) json_object_set(ns, k, v);
    }
    if (json_array_size(preferences)) {
        json_t *na = wh_pod_review_own(pr, "spec", "affinity", "nodeAffinity", NULL);
        json_t *list = wh_cow_array(na, "preferredDuringSchedulingIgnoredDuringExecution", true);
        json_array_extend(list, preferences);
    }
}

/* What the Pod gets, for --explain: "nodeSelector k=v; preferred k In [v] (weight 10)". */
static void explain_injected(struct wh_pod_review *pr, const char *pps_name,
                             const json_t *node_selector, const json_t *preferences)
{
    char text[768] = "";
    size_t len = 0;
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)(uintptr_t)node_selector, k, v) len +=
        (size_t)snprintf(text + len, len < sizeof(text) ? sizeof(text) - len : 0, "%s%s=%s",
                         len ? ", " : "nodeSelector ", k, json_string_value(v));
    size_t i;
    const json_t *p;
    json_array_foreach(preferences, i, p)
    {
        if (len >= sizeof(text))
            break;
        const json_t *exprs = wh_json_path(p, "preference", "matchExpressions", NULL);
        len += (size_t)snprintf(text + len, sizeof(text) - len, "%spreferred (weight %lld)",
                                len ? "; " : "",
                                (long long)json_integer_value(json_object_get(p, "weight")));
        size_t e;
        const json_t *x;
        json_array_foreach(exprs, e, x)
        {
            if (len >= sizeof(text))
                break;
            len += (size_t)snprintf(
                text + len, sizeof(text) - len, " %s=%s", wh_json_str_or_empty(x, "key"),
                json_string_value(json_array_get(json_object_get(x, "values"), 0)));
        }
        if (!json_array_size(exprs) && len < sizeof(text))
            len += (size_t)snprintf(text + len, sizeof(text) - len, " with no requirement");
    }
    wh_pod_review_explain(pr, pps_name, true, "the Pod's recorded topology: %s", text);
}

static enum wh_err mutate(struct wh_pod_review *pr, struct wh_errbuf *eb)
{
    struct wh_cluster *cl = pr->ctx ? pr->ctx->cluster : NULL;
    const char *kruise_ns = pr->ctx && pr->ctx->cfg ? pr->ctx->cfg->namespace_ : "";
    const json_t *pod = wh_pod_review_pod(pr);
    /* upstream reads the white list first, for every Pod: a list it cannot decode fails them
     * all (500) */
    struct wh_pps_whitelist wl;
    enum wh_err rc = wh_pps_whitelist_load(cl, kruise_ns, &wl, eb);
    if (rc)
        return rc;
    struct wh_object *o = NULL;
    json_t *beta = NULL, *node_selector = NULL, *preferences = NULL;
    /* Pods without an owner a PersistentPodState may target are not explained: most Pods */
    const json_t *ref = wh_ref_controller(pod);
    const char *kind = wh_json_str_or_empty(ref, "kind");
    if (!ref || !wh_pps_whitelist_allows(&wl, wh_json_str(ref, "apiVersion"), kind))
        goto out;
    bool any = false;
    o = select_pps(cl, pr->namespace_, ref, &any);
    if (!o) {
        if (any)
            wh_pod_review_explain(
                pr, NULL, false, "no PersistentPodState of namespace %s targets %s %s",
                pr->namespace_ ? pr->namespace_ : "", kind, wh_json_str_or_empty(ref, "name"));
        goto out;
    }
    const char *pps_name = wh_object_name(o);
    beta = wh_pps_beta(wh_object_json(o));
    const json_t *states = wh_json_path(beta, "status", "podStates", NULL);
    const char *pod_name = wh_json_meta_str(pod, "name");
    const json_t *state = wh_json_obj(states, pod_name ? pod_name : "");
    const json_t *labels = wh_json_obj(state, "nodeTopologyLabels");
    if (!json_object_size(states)) {
        wh_pod_review_explain(pr, pps_name, false, "no Pod recorded yet");
        goto out;
    }
    if (!json_object_size(labels)) {
        wh_pod_review_explain(pr, pps_name, false,
                              "no record of a Pod named \"%s\" with node topology labels (its "
                              "first creation)",
                              pod_name ? pod_name : "");
        goto out;
    }
    node_affinity(wh_json_obj(beta, "spec"), labels, &node_selector, &preferences);
    if (!json_object_size(node_selector) && !json_array_size(preferences)) {
        wh_pod_review_explain(pr, pps_name, false,
                              "the record of \"%s\" has none of the topology keys the "
                              "PersistentPodState names",
                              pod_name ? pod_name : "");
        goto out;
    }
    apply(pr, pps_name, node_selector, preferences);
    explain_injected(pr, pps_name, node_selector, preferences);
out:
    json_decref(node_selector);
    json_decref(preferences);
    json_decref(beta);
    wh_object_unref(o);
    wh_pps_whitelist_fini(&wl);
    return WH_OK;
}

const struct wh_pod_step wh_pps_pod_step = {
    .name = "persistentpodstate",
    .mutate_ops = WH_POD_CREATE,
    .setup = wh_pps_caches_setup,
    .mutate = mutate,
};
