/* PodProbeMarker's step of /mutate-pod (upstream's pod_probe_marker.go, with
 * podprobemarker.GetPodProbeMarkerForPod): the probes a new Pod carries in its annotations for
 * nodes that have no kruise-daemon. */
#include "handlers/podprobemarker/podprobemarker.h"

#include <stdlib.h>
#include <string.h>

#include "config/features.h"
#include "gocompat/goenc.h"
#include "gocompat/gotype.h"
#include "k8s/kruise.h"
#include "k8s/selector.h"
#include "kube/cluster.h"
#include "util/buf.h"
#include "util/json.h"
#include "util/mem.h"
#include "util/str.h"

/* --- the PodProbeMarker cache: a compiled selector per object ----------------------------- */

static void *view_new(const json_t *obj)
{
    /* util.ValidatedLabelSelectorAsSelector: nil selects nothing, {} everything, an unknown
     * operator makes it an error (the marker is skipped) */
    return wh_selector_new(wh_json_path(obj, "spec", "selector", NULL));
}

static void view_free(void *p)
{
    wh_selector_free(p);
}

static enum wh_err setup(struct wh_cluster *cl, const struct wh_config *cfg, struct wh_errbuf *eb)
{
    (void)cfg;
    (void)eb;
    wh_cache_set_view(wh_cluster_declare(cl, WH_RES_PODPROBEMARKER, NULL), view_new, view_free);
    return WH_OK;
}

static bool gate_on(const struct wh_config *cfg)
{
    return wh_feature_on(&cfg->features, WH_FEATURE_EnablePodProbeMarkerOnServerless);
}

/* GetPodProbeMarkerForPod: a Pod that names its PodProbeMarkers (annotation
 * kruise.io/podprobemarker-list, as a Pod created again keeps it) gets those that exist, in the
 * annotation's order, whatever their selectors; any other the namespace's whose selector has a
 * requirement and matches its labels (an empty selector matches no Pod here). */
static void markers_for(struct wh_pod_review *pr, struct wh_cache *c, const json_t *pod,
                        struct wh_objlist *out)
{
    const char *list = wh_json_annotation(pod, WH_KRUISE_ANN_POD_PROBE_MARKER_LIST);
    const char *ns = pr->namespace_ ? pr->namespace_ : "";
    if (list && *list) {
        for (const char *p = list;; p++) {
            const char *end = strchr(p, ',');
            size_t n = end ? (size_t)(end - p) : strlen(p);
            char *name = wh_str_printf("%.*s", (int)n, p);
            struct wh_object *o = *name ? wh_cache_get(c, ns, name) : NULL;
            if (o)
                wh_objlist_push_new(out, o);
            else
                wh_pod_review_explain(pr, name, false,
                                      "named by the Pod's %s, but there is no such "
                                      "PodProbeMarker",
                                      WH_KRUISE_ANN_POD_PROBE_MARKER_LIST);
            free(name);
            if (!end)
                break;
            p = end;
        }
        return;
    }
    struct wh_objlist all;
    wh_objlist_init(&all);
    /* upstream lists with the Pod's namespace: an empty one is every namespace */
    wh_cache_list(c, *ns ? ns : NULL, &all);
    const json_t *labels = wh_json_path(pod, "metadata", "labels", NULL);
    for (size_t i = 0; i < all.n; i++) {
        const struct wh_selector *s = wh_object_view(all.items[i]);
        if (wh_selector_state(s) == WH_SELECTOR_REQUIREMENTS && wh_selector_matches(s, labels))
            wh_objlist_push_new(out, wh_object_ref(all.items[i]));
        else
            wh_pod_review_explain(pr, wh_object_name(all.items[i]), false, "%s",
                                  wh_selector_state(s) == WH_SELECTOR_REQUIREMENTS
                                      ? "spec.selector does not match the Pod's labels"
                                      : "spec.selector is empty, absent or invalid, which selects "
                                        "no Pod");
    }
    wh_objlist_fini(&all);
}

/* Whether name is one of the strings of a JSON array. */
static bool has(const json_t *set, const char *name)
{
    size_t i;
    const json_t *v;
    json_array_foreach(set, i, v)
    {
        if (strcmp(json_string_value(v), name) == 0)
            return true;
    }
    return false;
}

/* The names of the containers a probe may run in: every container, and the init containers
 * that keep running (restartPolicy Always). Returns: new ref, an array of strings. */
static json_t *container_names(const json_t *pod)
{
    json_t *out = json_array();
    size_t i;
    const json_t *c;
    json_array_foreach(wh_json_path(pod, "spec", "containers", NULL), i, c)
        json_array_append_new(out, json_string(wh_json_str_or_empty(c, "name")));
    json_array_foreach(wh_json_path(pod, "spec", "initContainers", NULL), i, c)
    {
        if (wh_str_eq(wh_json_str(c, "restartPolicy"), "Always"))
            json_array_append_new(out, json_string(wh_json_str_or_empty(c, "name")));
    }
    return out;
}

struct matched {
    json_t *probes;     /* the probes, as Go encodes them, markerPolicy dropped */
    json_t *keys;       /* "<container>/<probe>" taken */
    json_t *conditions; /* podConditionTypes taken */
    json_t *markers;    /* the PodProbeMarkers that gave one, sorted and unique at the end */
};

/* The probes of one PodProbeMarker that the Pod takes. Returns how many. */
static size_t take_probes(struct wh_pod_review *pr, const struct wh_object *o,
                          const json_t *containers, struct matched *m)
{
    const struct wh_gofield *probes_field =
        wh_gotype_member(wh_gotype_lookup(WH_KRUISE_APPS_V1ALPHA1, "PodProbeMarkerSpec"), "probes");
    const char *name = wh_object_name(o);
    json_t *probes = NULL;
    struct wh_errbuf eb = {{0}};
    /* as kruise-manager's cache holds it: an object its Go type refuses is not there */
    if (wh_gotype_normalize(wh_json_path(wh_object_json(o), "spec", "probes", NULL),
                            probes_field->type, &probes, &eb)) {
        wh_pod_review_explain(pr, name, false, "it does not decode: %s", eb.msg);
        return 0;
    }
    size_t taken = 0, i;
    json_t *p;
    json_array_foreach(probes, i, p)
    {
        const char *cond = wh_json_str_or_empty(p, "podConditionType");
        const char *container = wh_json_str_or_empty(p, "containerName");
        char *key = wh_str_printf("%s/%s", container, wh_json_str_or_empty(p, "name"));
        if (*cond && !has(m->conditions, cond) && !has(m->keys, key) &&
            has(containers, container)) {
            json_object_del(p, "markerPolicy");
            json_array_append(m->probes, p);
            json_array_append_new(m->keys, json_string(key));
            json_array_append_new(m->conditions, json_string(cond));
            if (!has(m->markers, name))
                json_array_append_new(m->markers, json_string(name));
            taken++;
        }
        free(key);
    }
    json_decref(probes);
    if (taken)
        wh_pod_review_explain(pr, name, true, "%zu probe(s) for the Pod's containers", taken);
    else
        wh_pod_review_explain(pr, name, false,
                              "no probe with a podConditionType for a container of the Pod that "
                              "another probe has not taken");
    return taken;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(json_string_value(*(json_t *const *)a), json_string_value(*(json_t *const *)b));
}

/* sets.String's List(): sorted, joined with commas. Returns: new string. */
static char *sorted_list(const json_t *names)
{
    size_t n = json_array_size(names);
    json_t **v = wh_xcalloc(n ? n : 1, sizeof(*v));
    for (size_t i = 0; i < n; i++)
        v[i] = json_array_get(names, i);
    qsort(v, n, sizeof(*v), cmp_names);
    struct wh_buf b;
    wh_buf_init(&b, 1u << 20);
    enum wh_err rc = WH_OK;
    for (size_t i = 0; i < n && !rc; i++) {
        if (i)
            rc = wh_buf_addc(&b, ',');
        if (!rc)
            rc = wh_buf_adds(&b, json_string_value(v[i]));
    }
    free(v);
    char *out = wh_buf_take(&b, NULL);
    return out ? out : wh_xstrdup("");
}

static enum wh_err mutate(struct wh_pod_review *pr, struct wh_errbuf *eb)
{
    struct wh_cluster *cl = pr->ctx ? pr->ctx->cluster : NULL;
    struct wh_cache *c = cl ? wh_cluster_cache(cl, WH_RES_PODPROBEMARKER) : NULL;
    if (!c)
        return WH_OK;
    const json_t *pod = wh_pod_review_pod(pr);
    struct wh_objlist ppms;
    wh_objlist_init(&ppms);
    markers_for(pr, c, pod, &ppms);
    json_t *containers = container_names(pod);
    struct matched m = {json_array(), json_array(), json_array(), json_array()};
    size_t taken = 0;
    for (size_t i = 0; i < ppms.n; i++)
        taken += take_probes(pr, ppms.items[i], containers, &m);
    enum wh_err rc = WH_OK;
    if (taken) {
        struct wh_buf b;
        wh_buf_init(&b, 16u << 20);
        rc = wh_goenc_append(&b, m.probes, false);
        if (rc) {
            wh_errbuf_set(eb, rc, "the probes of PodProbeMarkers do not fit the annotation");
        } else {
            char *list = sorted_list(m.markers);
            json_t *ann = wh_pod_review_own(pr, "metadata", "annotations", NULL);
            json_object_set_new(ann, WH_KRUISE_ANN_POD_PROBE, json_stringn(b.data, b.len));
            json_object_set_new(ann, WH_KRUISE_ANN_POD_PROBE_MARKER_LIST, json_string(list));
            free(list);
        }
        wh_buf_fini(&b);
    }
    json_decref(m.probes);
    json_decref(m.keys);
    json_decref(m.conditions);
    json_decref(m.markers);
    json_decref(containers);
    wh_objlist_fini(&ppms);
    return rc;
}

const struct wh_pod_step wh_ppm_pod_step = {
    .name = "podprobemarker",
    .mutate_ops = WH_POD_CREATE,
    .enabled = gate_on,
    .setup = setup,
    .mutate = mutate,
};
