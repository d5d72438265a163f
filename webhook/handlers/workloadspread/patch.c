#include "handlers/workloadspread/patch.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gocompat/goenc.h"
#include "gocompat/gotype.h"
#include "gocompat/smp.h"
#include "jsonpatch/apply.h"
#include "jsonpatch/diff.h"
#include "k8s/kruise.h"
#include "util/buf.h"
#include "util/cow.h"
#include "util/json.h"
#include "util/mem.h"
#include "util/str.h"

char *wh_ws_annotation_value(const char *ws_name, const char *subset_name, const char *uid)
{
    struct wh_buf b;
    /* Go escapes a byte into at most six ("\u00XX"): the cap is never reached */
    size_t n = strlen(ws_name) + strlen(subset_name) + (uid ? strlen(uid) : 0);
    wh_buf_init(&b, n * 6 + 64);
    enum wh_err rc = wh_buf_adds(&b, "{\"name\":");
    if (!rc)
        rc = wh_goenc_append_string(&b, ws_name, strlen(ws_name));
    if (!rc)
        rc = wh_buf_adds(&b, ",\"subset\":");
    if (!rc)
        rc = wh_goenc_append_string(&b, subset_name, strlen(subset_name));
    if (!rc && uid && uid[0]) {
        rc = wh_buf_adds(&b, ",\"uid\":");
        if (!rc)
            rc = wh_goenc_append_string(&b, uid, strlen(uid));
    }
    if (!rc)
        rc = wh_buf_addc(&b, '}');
    WH_ASSERT(rc == WH_OK);
    return wh_buf_take(&b, NULL);
}

bool wh_ws_annotation_parse(const char *value, char *ws_name, size_t ws_name_sz, char *subset,
                            size_t subset_sz)
{
    ws_name[0] = subset[0] = '\0';
    if (!value || !wh_goenc_valid(value, strlen(value), NULL, 0))
        return false;
    json_t *v = json_loads(value, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
    bool ok = json_is_object(v);
    const char *key;
    json_t *m;
    json_object_foreach(ok ? v : NULL, key, m)
    {
        char *slot = NULL;
        size_t sz = 0;
        if (strcasecmp(key, "name") == 0) {
            slot = ws_name;
            sz = ws_name_sz;
        } else if (strcasecmp(key, "subset") == 0) {
            slot = subset;
            sz = subset_sz;
        } else if (strcasecmp(key, "uid") != 0) {
            continue;
        }
        if (json_is_null(m))
            continue;
        if (!json_is_string(m)) {
            ok = false; /* a type error fails the whole decoding */
            break;
        }
        if (slot)
            snprintf(slot, sz, "%s", json_string_value(m));
    }
    json_decref(v);
    return ok;
}

/* A subset member under its v1beta1 name, else its v1alpha1 one. Returns: borrowed or NULL. */
static const json_t *member(const json_t *subset, const char *beta, const char *alpha)
{
    const json_t *v = json_object_get(subset, beta);
    if (!v || json_is_null(v))
        v = json_object_get(subset, alpha);
    return json_is_null(v) ? NULL : v;
}

/* v (borrowed) as Go encodes the core/v1 type it is decoded into: the values a subset adds carry
 * no empty optional fields, as upstream's (typed) Pod does. Returns: new ref; v itself when it
 * does not decode (the API server's schema makes that rare; the Pod's own check reports it). */
static json_t *as_go(const json_t *v, const char *type)
{
    json_t *out = NULL;
    struct wh_errbuf eb = {{0}};
    if (wh_gotype_normalize(v, wh_gotype_lookup("v1", type), &out, &eb))
        return json_incref((json_t *)(uintptr_t)v);
    return out;
}

/* Appends every element of from (borrowed) as Go type type to the array member key of obj
 * (private). Nothing when from is empty, so no empty list appears (Go's append of nothing keeps
 * a nil slice). */
static void append_all(json_t *obj, const char *key, const json_t *from, const char *type)
{
    if (json_array_size(from) == 0)
        return;
    json_t *to = wh_cow_array(obj, key, true);
    size_t i;
    json_t *v;
    json_array_foreach(from, i, v) json_array_append_new(to, as_go(v, type));
}

/* 6.4: the subset's term ANDed into each of the Pod's terms (terms are ORed), or the only one. */
static void add_required(json_t *node_affinity, const json_t *term)
{
    json_t *required =
        wh_cow_object(node_affinity, "requiredDuringSchedulingIgnoredDuringExecution", true);
    const json_t *terms = json_object_get(required, "nodeSelectorTerms");
    if (json_array_size(terms) == 0) {
        json_object_set_new(required, "nodeSelectorTerms",
                            json_pack("[o]", as_go(term, "NodeSelectorTerm")));
        return;
    }
    json_t *own = wh_cow_array(required, "nodeSelectorTerms", true);
    for (size_t i = 0; i < json_array_size(own); i++) {
        json_t *t = wh_cow_elem(own, i);
        if (!json_is_object(t))
            continue;
        append_all(t, "matchExpressions", json_object_get(term, "matchExpressions"),
                   "NodeSelectorRequirement");
        append_all(t, "matchFields", json_object_get(term, "matchFields"),
                   "NodeSelectorRequirement");
    }
}

/* 6.5: the subset's patch as strategicpatch.StrategicMergePatch(pod, patch, &v1.Pod{}) applies
 * it; the result must decode as a Pod. A changed priorityClassName drops spec.priority: the
 * API server computed it from the old class, and its priority admission runs again after the
 * webhooks to set the new one. */
static enum wh_err apply_patch(struct wh_pod_review *pr, const json_t *patch, struct wh_errbuf *eb)
{
    const struct wh_gotype *pod_type = wh_gotype_lookup("v1", "Pod");
    json_t *root = wh_pod_review_own(pr, NULL);
    json_t *patched = NULL, *base = NULL;
    char *why = NULL;
    /* Upstream merges the patch into json.Marshal of the decoded Pod, and the API server
     * applies the difference to the Pod as it sent it: an element written as {} has its name ""
     * there, the merge key the patch's list needs (found by the differential run). So the
     * merge runs on the encoding and its difference is applied to the Pod; where that
     * difference does not apply to the Pod as sent (upstream's answer would not either), the
     * merged encoding stands for the Pod. */
    enum wh_err rc = wh_gotype_normalize(root, pod_type, &base, eb);
    if (!rc)
        rc = wh_smp_apply(base, patch, pod_type, &patched, eb);
    if (!rc) {
        json_t *delta = wh_patch_diff(base, patched), *applied = NULL;
        struct wh_errbuf ignored;
        if (wh_patch_apply(root, delta, &applied, &ignored) == WH_OK) {
            json_decref(patched);
            patched = applied;
        }
        json_decref(delta);
    }
    json_decref(base);
    if (rc)
        return rc;
    /* upstream decodes the patched Pod with encoding/json itself */
    if (wh_gotype_check_std(patched, pod_type, &why)) {
        rc = wh_errbuf_set(eb, WH_ERR_INVALID, "%s", why ? why : "the patched Pod does not decode");
        free(why);
        json_decref(patched);
        return rc;
    }
    const char *before = wh_json_path_str(root, "spec", "priorityClassName", NULL);
    const char *after = wh_json_path_str(patched, "spec", "priorityClassName", NULL);
    bool drop_priority = !wh_str_eq(before ? before : "", after ? after : "");
    /* the Pod being edited is replaced in place: the review owns its root */
    json_object_clear(root);
    if (json_object_update(root, patched))
        WH_PANIC("json_object_update failed");
    json_decref(patched);
    if (drop_priority)
        json_object_del(wh_pod_review_own(pr, "spec", NULL), "priority");
    return WH_OK;
}

enum wh_err wh_ws_patch_pod(struct wh_pod_review *pr, const char *ws_name, const json_t *subset,
                            const char *uid, struct wh_errbuf *eb)
{
    json_t *spec = wh_pod_review_own(pr, "spec", NULL);
    append_all(spec, "tolerations", json_object_get(subset, "tolerations"), "Toleration");
    json_t *node_affinity =
        wh_cow_object(wh_cow_object(spec, "affinity", true), "nodeAffinity", true);
    append_all(node_affinity, "preferredDuringSchedulingIgnoredDuringExecution",
               member(subset, "preferredNodeSelector", "preferredNodeSelectorTerms"),
               "PreferredSchedulingTerm");
    const json_t *term = member(subset, "requiredNodeSelector", "requiredNodeSelectorTerm");
    if (term)
        add_required(node_affinity, term);
    const json_t *patch = json_object_get(subset, "patch");
    if (patch && !json_is_null(patch)) {
        enum wh_err rc = apply_patch(pr, patch, eb);
        if (rc)
            return rc;
    }

    char *value = wh_ws_annotation_value(ws_name, wh_json_str_or_empty(subset, "name"), uid);
    json_object_set_new(wh_pod_review_own(pr, "metadata", "annotations", NULL),
                        WH_KRUISE_ANN_MATCHED_WORKLOADSPREAD, json_string(value));
    free(value);
    return WH_OK;
}
