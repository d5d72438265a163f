/* UnitedDeployment, apps.kruise.io (conversion.md section 18). The spec is the same in both
 * versions (the subset templates use the same workload spec types in both); the status keeps
 * per-subset replicas and partitions in two v1alpha1 maps but in the v1beta1 subsetStatuses
 * entries. */
#include "conversion/rows_int.h"

#include <stdint.h>
#include <string.h>

#include "k8s/kruise.h"
#include "util/cow.h"

#define TPL "spec.template"
#define SUB "spec.topology.subsets[]"

/* The v1beta1 entry of subsetStatuses (a writable list) named name, appended when missing.
 * Returns: borrowed, writable. */
static json_t *subset_status(json_t *list, const char *name)
{
    size_t i;
    json_t *e;
    json_array_foreach(list, i, e)
    {
        const char *n = json_string_value(json_object_get(e, "name"));
        if (json_is_object(e) && strcmp(n ? n : "", name) == 0)
            return wh_cow_elem(list, i);
    }
    e = json_object();
    json_object_set_new(e, "name", json_string(name));
    json_array_append_new(list, e);
    return e;
}

static void fold(json_t *dst, const json_t *map, const char *member)
{
    if (!json_is_object(map) || json_object_size(map) == 0)
        return;
    json_t *list = wh_conv_ensure_list(dst, "status", "subsetStatuses", NULL);
    const char *name;
    json_t *n;
    json_object_foreach((json_t *)(uintptr_t)map, name, n)
    {
        if (!json_is_null(n))
            json_object_set(subset_status(list, name), member, n);
    }
}

/* 18.2: subsetReplicas / updateStatus (alpha) <-> subsetStatuses[] / updatedRevision (beta). */
static enum wh_err status_maps(struct wh_conv_ctx *c, enum wh_conv_dir dir, const json_t *src,
                               json_t *dst)
{
    (void)c;
    if (dir == WH_CONV_UP) {
        wh_conv_del(dst, "status", "subsetReplicas", NULL);
        wh_conv_del(dst, "status", "updateStatus", NULL);
        const char *rev = wh_conv_get_str(src, "status", "updateStatus", "updatedRevision", NULL);
        if (rev && *rev)
            wh_conv_set_new(dst, json_string(rev), "status", "updatedRevision", NULL);
        else
            wh_conv_del(dst, "status", "updatedRevision", NULL);
        fold(dst, wh_conv_get(src, "status", "subsetReplicas", NULL), "replicas");
        fold(dst, wh_conv_get(src, "status", "updateStatus", "currentPartitions", NULL),
             "partition");
        return WH_OK;
    }
    wh_conv_del(dst, "status", "updatedRevision", NULL);
    const char *rev = wh_conv_get_str(src, "status", "updatedRevision", NULL);
    const json_t *list = wh_conv_get(src, "status", "subsetStatuses", NULL);
    if (!json_is_array(list) || json_array_size(list) == 0) {
        wh_conv_del(dst, "status", "subsetReplicas", NULL);
        if (rev && *rev) {
            json_t *us = json_object();
            json_object_set_new(us, "updatedRevision", json_string(rev));
            wh_conv_set_new(dst, us, "status", "updateStatus", NULL);
        } else {
            wh_conv_del(dst, "status", "updateStatus", NULL);
        }
        return WH_OK;
    }
    json_t *replicas = json_object(), *partitions = json_object();
    size_t i;
    json_t *e;
    json_array_foreach(list, i, e)
    {
        const char *name = json_string_value(json_object_get(e, "name"));
        if (!name || !*name)
            continue;
        const json_t *r = json_object_get(e, "replicas"), *p = json_object_get(e, "partition");
        json_object_set_new(replicas, name, json_integer(json_integer_value(r)));
        json_object_set_new(partitions, name, json_integer(json_integer_value(p)));
    }
    if (json_object_size(replicas))
        wh_conv_set_new(dst, replicas, "status", "subsetReplicas", NULL);
    else {
        json_decref(replicas);
        wh_conv_del(dst, "status", "subsetReplicas", NULL);
    }
    json_t *us = json_object();
    if (rev && *rev)
        json_object_set_new(us, "updatedRevision", json_string(rev));
    if (json_object_size(partitions))
        json_object_set_new(us, "currentPartitions", partitions);
    else
        json_decref(partitions);
    wh_conv_set_new(dst, us, "status", "updateStatus", NULL);
    return WH_OK;
}

static const struct wh_conv_row rows[] = {
    /* status (18.2) */
    CUSTOM("status.subsetReplicas", NULL, status_maps),
    DERIVED("status.updateStatus", NULL),
    DERIVED(NULL, "status.subsetStatuses"),
    DERIVED(NULL, "status.updatedRevision"),
};

const struct wh_conv_kind wh_conv_uniteddeployment = {WH_KRUISE_APPS, "UnitedDeployment",
                                                      WH_ROWS(rows)};
