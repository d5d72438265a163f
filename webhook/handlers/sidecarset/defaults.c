#include "handlers/sidecarset/defaults.h"

#include <string.h>

#include "k8s/defaults.h"
#include "util/json.h"

/* A string member that Go would see as "" (absent, null or empty). */
static bool str_empty(const json_t *o, const char *key)
{
    const char *s = wh_json_str(o, key);
    return !s || !*s;
}

static void default_str(json_t *o, const char *key, const char *value)
{
    if (str_empty(o, key))
        json_object_set_new(o, key, json_string(value));
}

/* For pointer members: set when absent or null (Go: nil). */
static void default_int_if_nil(json_t *o, const char *key, json_int_t value)
{
    const json_t *v = json_object_get(o, key);
    if (!v || json_is_null(v))
        json_object_set_new(o, key, json_integer(value));
}

/* One SidecarContainer: the SidecarSet's own fields, then the core/v1 container defaults
 * upstream applies to sidecars (not the startup probe). */
static void default_container(json_t *c, bool init)
{
    if (!json_is_object(c))
        return;
    default_str(c, "podInjectPolicy", init ? "AfterAppContainer" : "BeforeAppContainer");
    default_str(wh_json_obj_ensure(c, "upgradeStrategy"), "upgradeType", "ColdUpgrade");
    default_str(wh_json_obj_ensure(c, "shareVolumePolicy"), "type", "disabled");
    size_t i;
    json_t *item;
    json_array_foreach(wh_json_arr(c, "transferEnv"), i, item)
    {
        wh_k8s_default_field_ref(wh_json_path(item, "sourceContainerNameFrom", "fieldRef", NULL));
    }
    wh_k8s_default_container(c, 0);
}

void wh_sidecarset_defaults(json_t *ss)
{
    size_t i;
    json_t *item;
    if (!json_is_object(ss))
        return;
    json_t *spec = wh_json_obj_ensure(ss, "spec");

    json_t *us = wh_json_obj_ensure(spec, "updateStrategy");
    default_str(us, "type", "RollingUpdate");
    default_int_if_nil(us, "maxUnavailable", 1);
    default_int_if_nil(us, "partition", 0);

    json_array_foreach(wh_json_struct_list(spec, "initContainers"), i, item)
    {
        default_container(item, true);
    }
    json_array_foreach(wh_json_struct_list(spec, "containers"), i, item)
    {
        default_container(item, false);
    }
    wh_k8s_default_volumes(wh_json_arr(spec, "volumes"));
    default_int_if_nil(spec, "revisionHistoryLimit", 10);
    json_array_foreach(wh_json_struct_list(spec, "patchPodMetadata"), i, item)
    {
        if (json_is_object(item))
            default_str(item, "patchPolicy", "Retain");
    }
    json_t *rev = wh_json_path(spec, "injectionStrategy", "revision", NULL);
    if (json_is_object(rev))
        default_str(rev, "policy", "Always");
}
