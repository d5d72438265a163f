#include "handlers/workloadspread/patch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gocompat/goenc.h"
#include "util/buf.h"
#include "util/cow.h"
#include "util/json.h"
#include "util/mem.h"
#include "util/str.h"

char *wh_ws_annotation_value(const char *ws_name, const char *subset_name, const char *uid)
{
    struct wh_buf b;
    wh_buf_init(&b, 4096);
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
    /* names are Kubernetes names (at most 253 bytes): the cap is never reached */
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

/* Appends every element of from (borrowed) to the array member key of obj (private). Nothing
 * when from is empty, so no empty list appears (Go's append of nothing keeps a nil slice). */
static void append_all(json_t *obj, const char *key, const json_t *from)
{
    if (json_array_size(from) == 0)
        return;
    json_t *to = wh_cow_array(obj, key, true);
    size_t i;
    json_t *v;
    json_array_foreach(from, i, v) json_array_append(to, v);
}

/* 6.4: the subset's term ANDed into each of the Pod's terms (terms are ORed), or the only one. */
static void add_required(json_t *node_affinity, const json_t *term)
{
    json_t *required =
        wh_cow_object(node_affinity, "requiredDuringSchedulingIgnoredDuringExecution", true);
    const json_t *terms = json_object_get(required, "nodeSelectorTerms");
    if (json_array_size(terms) == 0) {
        json_object_set_new(required, "nodeSelectorTerms", json_pack("[O]", term));
        return;
    }
    json_t *own = wh_cow_array(required, "nodeSelectorTerms", true);
    for (size_t i = 0; i < json_array_size(own); i++) {
        json_t *t = wh_cow_elem(own, i);
        if (!json_is_object(t))
            continue;
        append_all(t, "matchExpressions", json_object_get(term, "matchExpressions"));
        append_all(t, "matchFields", json_object_get(term, "matchFields"));
    }
}

enum wh_err wh_ws_patch_pod(struct wh_pod_review *pr, const char *ws_name, const json_t *subset,
                            const char *uid, struct wh_errbuf *eb)
{
    (void)eb;
    json_t *spec = wh_pod_review_own(pr, "spec", NULL);
    append_all(spec, "tolerations", json_object_get(subset, "tolerations"));
    json_t *node_affinity =
        wh_cow_object(wh_cow_object(spec, "affinity", true), "nodeAffinity", true);
    append_all(node_affinity, "preferredDuringSchedulingIgnoredDuringExecution",
               member(subset, "preferredNodeSelector", "preferredNodeSelectorTerms"));
    const json_t *term = member(subset, "requiredNodeSelector", "requiredNodeSelectorTerm");
    if (term)
        add_required(node_affinity, term);

    char *value = wh_ws_annotation_value(ws_name, wh_json_str_or_empty(subset, "name"), uid);
    json_object_set_new(wh_pod_review_own(pr, "metadata", "annotations", NULL),
                        WH_WS_MATCHED_ANNOTATION, json_string(value));
    free(value);
    return WH_OK;
}
