/* Whether a Pod counts as available, and whether an update can change that (spec pub.md 5.2,
 * 5.3 steps 2-3; upstream pubcontrol IsPodReady, IsPodStateConsistent, IsPodUnavailableChanged,
 * CanResizeInplace).
 *
 * The API server sends both Pods of an UPDATE encoded from its typed structs, so comparing
 * their JSON is comparing what reflect.DeepEqual compares upstream.
 *
 * Not reproduced from IsPodStateConsistent: the container hashes of the
 * apps.kruise.io/runtime-containers-meta annotation (kubelet's HashContainer over a spew dump,
 * and the env-from-metadata hash) and the vertical-update completion check behind the alpha gate
 * InPlaceWorkloadVerticalScaling. A Pod those would call consistent early is judged by its
 * images and recorded statuses instead; a Pod they would call inconsistent only for a hash is
 * judged consistent, which protects it (the budget is checked) rather than letting it go. */
#include "handlers/pub/pub_int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gocompat/gotime.h"
#include "k8s/imageref.h"
#include "k8s/kruise.h"
#include "k8s/pod.h"
#include "k8s/quantity.h"
#include "util/json.h"
#include "util/jsoneq.h"
#include "util/mem.h"
#include "util/str.h"

bool wh_pub_has_unavailable_label(const json_t *pod)
{
    const char *key;
    json_t *v;
    json_object_foreach(wh_json_path(pod, "metadata", "labels", NULL), key, v)
    {
        if (wh_str_has_prefix(key, WH_KRUISE_LABEL_UNAVAILABLE_POD_PREFIX))
            return true;
    }
    return false;
}

bool wh_pub_pod_ready(const json_t *pod)
{
    return wh_pod_running_and_ready(pod) && !wh_pub_has_unavailable_label(pod);
}

/* --- decoding the state annotations as Go's json.Unmarshal would accept them ----------------- */

static bool is_str(const json_t *v)
{
    return !v || json_is_null(v) || json_is_string(v);
}

static bool is_bool(const json_t *v)
{
    return !v || json_is_null(v) || json_is_boolean(v);
}

static bool is_obj(const json_t *v)
{
    return !v || json_is_null(v) || json_is_object(v);
}

static bool is_time(const json_t *v)
{
    struct wh_gotime t;
    struct wh_errbuf eb;
    return !v || json_is_null(v) ||
           (json_is_string(v) && wh_gotime_parse(json_string_value(v), json_string_length(v),
                                                 WH_GOTIME_RFC3339, &t, &eb) == WH_OK);
}

/* A list whose items all satisfy ok. */
static bool is_list(const json_t *v, bool (*ok)(const json_t *))
{
    if (!v || json_is_null(v))
        return true;
    if (!json_is_array(v))
        return false;
    size_t i;
    const json_t *e;
    json_array_foreach(v, i, e) if (!ok(e)) return false;
    return true;
}

/* A map whose values all satisfy ok. */
static bool is_map(const json_t *v, bool (*ok)(const json_t *))
{
    if (!v || json_is_null(v))
        return true;
    if (!json_is_object(v))
        return false;
    const char *k;
    json_t *e;
    json_object_foreach((json_t *)(uintptr_t)v, k, e) if (!ok(e)) return false;
    return true;
}

static bool is_container_status(const json_t *v)
{
    return is_obj(v) && is_str(json_object_get(v, "imageID"));
}

static bool is_batch(const json_t *v)
{
    return is_obj(v) && is_time(json_object_get(v, "timestamp")) &&
           is_list(json_object_get(v, "containers"), is_str);
}

/* appspub.InPlaceUpdateState, the fields whose types can make Unmarshal fail. */
static bool is_inplace_state(const json_t *s)
{
    if (!is_obj(s))
        return false;
    const json_t *pre = json_object_get(s, "preCheckBeforeNext");
    return is_str(json_object_get(s, "revision")) &&
           is_time(json_object_get(s, "updateTimestamp")) &&
           is_map(json_object_get(s, "lastContainerStatuses"), is_container_status) &&
           is_bool(json_object_get(s, "updateEnvFromMetadata")) &&
           is_bool(json_object_get(s, "updateResources")) &&
           is_bool(json_object_get(s, "updateImages")) &&
           is_map(json_object_get(s, "nextContainerImages"), is_str) &&
           is_map(json_object_get(s, "nextContainerRefMetadata"), is_obj) &&
           is_map(json_object_get(s, "nextContainerResources"), is_obj) && is_obj(pre) &&
           is_list(json_object_get(s, "containerBatchesRecord"), is_batch) &&
           is_list(json_object_get(pre, "containersRequiredReady"), is_str);
}

static bool is_uint(const json_t *v)
{
    return !v || json_is_null(v) || (json_is_integer(v) && json_integer_value(v) >= 0);
}

static bool is_runtime_container(const json_t *c)
{
    const json_t *h = json_object_get(c, "hashes");
    const json_t *rc = json_object_get(c, "restartCount");
    return is_obj(c) && is_str(json_object_get(c, "name")) &&
           is_str(json_object_get(c, "containerID")) &&
           (!rc || json_is_null(rc) || json_is_integer(rc)) && is_obj(h) &&
           is_uint(json_object_get(h, "plainHash")) &&
           is_uint(json_object_get(h, "extractedEnvFromMetadataHash"));
}

/* appspub.RuntimeContainerMetaSet. */
static bool is_runtime_meta(const json_t *m)
{
    return is_obj(m) && is_list(json_object_get(m, "containers"), is_runtime_container);
}

/* Parses an annotation's JSON text; NULL when it is not JSON. Returns: new ref. */
static json_t *parse_annotation(const char *text)
{
    json_error_t err;
    return json_loads(text, JSON_DECODE_ANY | JSON_ALLOW_NUL, &err);
}

/* --- images ------------------------------------------------------------------------------- */

/* Returns: borrowed; the last status of container name (Go builds a map, the last one wins). */
static const json_t *container_status(const json_t *pod, const char *name)
{
    const json_t *found = NULL;
    size_t i;
    const json_t *cs;
    json_array_foreach(wh_json_path(pod, "status", "containerStatuses", NULL), i, cs)
    {
        if (wh_str_eq(wh_json_str(cs, "name"), name))
            found = cs;
    }
    return found;
}

/* util.IsPodContainerDigestEqual for one container with a digest image. */
static bool digest_matches_status(const json_t *pod, const char *name, const char *image)
{
    const json_t *cs = container_status(pod, name);
    if (!cs)
        return false;
    const char *id = wh_json_str_or_empty(cs, "imageID");
    /* "docker-pullable://busybox@sha256:..." -> what follows the first "://" (up to a second) */
    const char *sep = strstr(id, "://");
    if (!sep)
        return wh_imageref_equal(image, id);
    const char *start = sep + 3, *end = strstr(start, "://");
    char *cut = wh_xstrndup(start, end ? (size_t)(end - start) : strlen(start));
    bool eq = wh_imageref_equal(image, cut);
    free(cut);
    return eq;
}

/* A container SidecarSet injected: env IS_INJECTED (its first entry) is "true". */
static bool injected(const json_t *c)
{
    size_t i;
    const json_t *e;
    json_array_foreach(wh_json_arr(c, "env"), i, e)
    {
        if (wh_str_eq(wh_json_str(e, "name"), WH_KRUISE_ENV_SIDECAR_INJECTED))
            return wh_str_eq(wh_json_str(e, "value"), "true");
    }
    return false;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The recorded container statuses of the SidecarSets named in list (comma separated), taken
 * in name order so that a later set overrides, as upstream merges them. Returns: new ref. */
static json_t *recorded_sidecar_statuses(const json_t *states, const char *list)
{
    size_t nsets = 0;
    char **sets = NULL;
    for (const char *p = list;;) {
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        sets = wh_xrealloc(sets, (nsets + 1) * sizeof(*sets));
        sets[nsets++] = wh_xstrndup(p, n);
        if (!comma)
            break;
        p = comma + 1;
    }
    qsort(sets, nsets, sizeof(*sets), cmp_str);
    json_t *last = json_object();
    for (size_t s = 0; s < nsets; s++) {
        const json_t *st = wh_json_obj(wh_json_obj(states, sets[s]), "lastContainerStatuses");
        if (st)
            (void)json_object_update(last, (json_t *)(uintptr_t)st);
        free(sets[s]);
    }
    free(sets);
    return last;
}

/* sidecarcontrol.IsSidecarContainerUpdateCompleted over the injected sidecar containers: a
 * sidecar upgraded in place whose image id has not changed yet is still upgrading. */
static bool sidecars_updated(const json_t *pod)
{
    const char *list = wh_json_annotation(pod, WH_KRUISE_ANN_SIDECARSET_INJECTED_LIST);
    const json_t *containers = wh_json_path(pod, "spec", "containers", NULL);
    bool any = false;
    size_t i;
    const json_t *c;
    json_array_foreach(containers, i, c) any |= injected(c);
    if (!list || !*list || !any)
        return true;
    const char *text = wh_json_annotation(pod, WH_KRUISE_ANN_SIDECARSET_INPLACE_UPDATE_STATE);
    if (!text)
        return true; /* injected, never upgraded in place */
    json_t *states = parse_annotation(text);
    bool ok = states && is_map(states, is_inplace_state);
    json_t *last = ok ? recorded_sidecar_statuses(states, list) : NULL;
    json_array_foreach(ok ? wh_json_path(pod, "status", "containerStatuses", NULL) : NULL, i, c)
    {
        const char *name = wh_json_str_or_empty(c, "name");
        const json_t *spec = NULL;
        bool sidecar = false;
        size_t k;
        const json_t *sc;
        json_array_foreach(containers, k, sc)
        {
            if (wh_str_eq(wh_json_str(sc, "name"), name)) {
                spec = sc;
                sidecar |= injected(sc);
            }
        }
        const json_t *old = json_object_get(last, name);
        if (sidecar && old &&
            wh_str_eq(wh_json_str_or_empty(old, "imageID"), wh_json_str_or_empty(c, "imageID")) &&
            !wh_str_eq(wh_json_str_or_empty(spec, "image"), wh_json_str_or_empty(c, "image")))
            ok = false;
    }
    json_decref(last);
    json_decref(states);
    return ok;
}

/* inplaceupdate.DefaultCheckInPlaceUpdateCompleted, less the hash checks (see the top). */
static bool inplace_update_completed(const json_t *pod)
{
    if (wh_json_annotation(pod, WH_KRUISE_ANN_INPLACE_UPDATE_GRACE) ||
        wh_json_annotation(pod, WH_KRUISE_ANN_INPLACE_UPDATE_GRACE_OLD))
        return false;
    const char *text = wh_json_annotation(pod, WH_KRUISE_ANN_INPLACE_UPDATE_STATE);
    if (!text)
        text = wh_json_annotation(pod, WH_KRUISE_ANN_INPLACE_UPDATE_STATE_OLD);
    if (!text)
        return true;
    json_t *state = parse_annotation(text);
    bool ok = state && is_inplace_state(state) &&
              !json_object_size(wh_json_obj(state, "nextContainerImages")) &&
              !json_object_size(wh_json_obj(state, "nextContainerRefMetadata")) &&
              !json_object_size(wh_json_obj(state, "nextContainerResources"));
    const char *meta_text = wh_json_annotation(pod, WH_KRUISE_ANN_RUNTIME_CONTAINERS_META);
    json_t *meta = meta_text ? parse_annotation(meta_text) : NULL;
    if (ok && meta_text)
        ok = meta && is_runtime_meta(meta);
    if (ok && wh_json_bool(state, "updateEnvFromMetadata") && !meta_text)
        ok = false; /* waiting for kruise-daemon to report the containers */
    const json_t *recorded = wh_json_obj(state, "lastContainerStatuses");
    json_t *last = !ok ? NULL : recorded ? wh_json_copy(recorded) : json_object();
    size_t i;
    const json_t *cs;
    json_array_foreach(ok ? wh_json_path(pod, "status", "containerStatuses", NULL) : NULL, i, cs)
    {
        const char *name = wh_json_str_or_empty(cs, "name");
        const json_t *old = json_object_get(last, name);
        if (!old)
            continue;
        if (wh_str_eq(wh_json_str_or_empty(old, "imageID"), wh_json_str_or_empty(cs, "imageID"))) {
            /* the spec image as the kubelet reports it: an untagged image is :latest */
            const char *image = "";
            size_t k;
            const json_t *c;
            json_array_foreach(wh_json_path(pod, "spec", "containers", NULL), k, c)
            {
                if (wh_str_eq(wh_json_str(c, "name"), name))
                    image = wh_json_str_or_empty(c, "image");
            }
            char *want = strchr(image, ':') ? wh_xstrdup(image) : wh_str_printf("%s:latest", image);
            bool same = wh_str_eq(want, wh_json_str_or_empty(cs, "image"));
            free(want);
            if (!same) {
                ok = false;
                break;
            }
        }
        json_object_del(last, name);
    }
    if (ok && json_object_size(last))
        ok = false; /* recorded containers missing from the status */
    json_decref(last);
    json_decref(meta);
    json_decref(state);
    return ok;
}

bool wh_pub_pod_consistent(const json_t *pod)
{
    bool all_digest = true;
    size_t i;
    const json_t *c;
    json_array_foreach(wh_json_path(pod, "spec", "containers", NULL), i, c)
    {
        const char *image = wh_json_str_or_empty(c, "image");
        if (!wh_imageref_is_digest(image)) {
            all_digest = false;
            continue;
        }
        if (!digest_matches_status(pod, wh_json_str_or_empty(c, "name"), image))
            return false;
    }
    if (all_digest)
        return true;
    return sidecars_updated(pod) && inplace_update_completed(pod);
}

/* --- updates -------------------------------------------------------------------------------- */

static bool label_added(const json_t *old_pod, const json_t *new_pod)
{
    return !wh_pub_has_unavailable_label(old_pod) && wh_pub_has_unavailable_label(new_pod);
}

/* JSON equality, an absent value equal only to an absent one. */
static bool same(const json_t *a, const json_t *b)
{
    return wh_json_equal(a, b, WH_JSON_EQ_EXACT);
}

bool wh_pub_unavailable_changed(const json_t *old_pod, const json_t *new_pod)
{
    return !same(json_object_get(old_pod, "spec"), json_object_get(new_pod, "spec")) ||
           label_added(old_pod, new_pod);
}

/* Two objects equal but for the member skip (NULL: none) and, when containers is set, their
 * "containers" lists compared the same way without each container's "resources". */
static bool equal_except(const json_t *a, const json_t *b, const char *skip, bool containers)
{
    if (!json_is_object(a) || !json_is_object(b))
        return same(a, b);
    const char *key;
    json_t *va;
    json_object_foreach((json_t *)(uintptr_t)a, key, va)
    {
        if (skip && strcmp(key, skip) == 0)
            continue;
        const json_t *vb = json_object_get(b, key);
        if (containers && strcmp(key, "containers") == 0 && json_is_array(va) &&
            json_is_array(vb)) {
            if (json_array_size(va) != json_array_size(vb))
                return false;
            for (size_t i = 0; i < json_array_size(va); i++)
                if (!equal_except(json_array_get(va, i), json_array_get(vb, i), "resources", false))
                    return false;
        } else if (!same(va, vb)) {
            return false;
        }
    }
    json_object_foreach((json_t *)(uintptr_t)b, key, va)
    {
        if ((!skip || strcmp(key, skip) != 0) && !json_object_get(a, key))
            return false;
    }
    return true;
}

/* A resource's value in a list changed: added, removed, or a different quantity. */
static bool resource_changed(const json_t *a, const json_t *b, const char *name)
{
    const char *x = wh_json_str(a, name), *y = wh_json_str(b, name);
    if (!x || !y)
        return !x != !y;
    struct wh_quantity qx, qy;
    struct wh_errbuf eb;
    if (wh_quantity_parse(x, &qx, &eb) || wh_quantity_parse(y, &qy, &eb))
        return strcmp(x, y) != 0;
    return wh_quantity_cmp(&qx, &qy) != 0;
}

/* The restart policy of the container's resizePolicy for resource name (the last entry wins),
 * or NULL. */
static const char *resize_policy(const json_t *c, const char *name)
{
    const char *policy = NULL;
    size_t i;
    const json_t *p;
    json_array_foreach(wh_json_arr(c, "resizePolicy"), i, p)
    {
        if (wh_str_eq(wh_json_str(p, "resourceName"), name))
            policy = wh_json_str_or_empty(p, "restartPolicy");
    }
    return policy;
}

/* canInplaceUpdateResources: every changed resource is cpu or memory and needs no restart. */
static bool resources_resizable(const json_t *old_pod, const json_t *new_pod)
{
    const json_t *olds = wh_json_path(old_pod, "spec", "containers", NULL);
    const json_t *news = wh_json_path(new_pod, "spec", "containers", NULL);
    if (json_array_size(olds) != json_array_size(news))
        return false;
    size_t i;
    const json_t *nc;
    json_array_foreach(news, i, nc)
    {
        const json_t *oc = NULL;
        size_t k;
        const json_t *c;
        json_array_foreach(olds, k, c)
        {
            if (wh_str_eq(wh_json_str(c, "name"), wh_json_str(nc, "name")))
                oc = c;
        }
        if (!oc)
            return false;
        const json_t *lists[4] = {
            wh_json_path(oc, "resources", "requests", NULL),
            wh_json_path(nc, "resources", "requests", NULL),
            wh_json_path(oc, "resources", "limits", NULL),
            wh_json_path(nc, "resources", "limits", NULL),
        };
        for (size_t l = 0; l < 4; l++) {
            const char *name;
            json_t *v;
            json_object_foreach((json_t *)(uintptr_t)lists[l], name, v)
            {
                if (!resource_changed(lists[0], lists[1], name) &&
                    !resource_changed(lists[2], lists[3], name))
                    continue;
                if (strcmp(name, "cpu") != 0 && strcmp(name, "memory") != 0)
                    return false;
                const char *policy = resize_policy(nc, name);
                if (policy && *policy && strcmp(policy, "NotRequired") != 0)
                    return false;
            }
        }
    }
    return true;
}

bool wh_pub_can_resize(const json_t *old_pod, const json_t *new_pod)
{
    if (label_added(old_pod, new_pod))
        return false;
    if (!equal_except(json_object_get(old_pod, "spec"), json_object_get(new_pod, "spec"), NULL,
                      true))
        return false;
    if (wh_pod_is_static(new_pod) || wh_pod_is_static(old_pod))
        return false;
    if (wh_pod_qos(old_pod) != wh_pod_qos(new_pod))
        return false;
    return resources_resizable(old_pod, new_pod);
}
