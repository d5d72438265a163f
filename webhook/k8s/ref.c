#include "k8s/ref.h"

#include <stdio.h>
#include <string.h>

#include "util/json.h"

bool wh_ref_parse_gv(const char *s, struct wh_gv *out)
{
    out->group = out->version = "";
    out->group_len = out->version_len = 0;
    if (!s || !*s || strcmp(s, "/") == 0)
        return true;
    const char *slash = strchr(s, '/');
    if (!slash) {
        out->version = s;
        out->version_len = strlen(s);
        return true;
    }
    if (strchr(slash + 1, '/'))
        return false;
    out->group = s;
    out->group_len = (size_t)(slash - s);
    out->version = slash + 1;
    out->version_len = strlen(slash + 1);
    return true;
}

bool wh_ref_group_of(const char *api_version, char *group, size_t groupsz)
{
    struct wh_gv gv;
    if (!wh_ref_parse_gv(api_version, &gv))
        return false;
    snprintf(group, groupsz, "%.*s", (int)gv.group_len, gv.group);
    return true;
}

bool wh_ref_gv_group_is(const struct wh_gv *gv, const char *group)
{
    return strlen(group) == gv->group_len && memcmp(gv->group, group, gv->group_len) == 0;
}

const json_t *wh_ref_controller(const json_t *obj)
{
    const json_t *refs = wh_json_path(obj, "metadata", "ownerReferences", NULL);
    size_t i;
    const json_t *ref;
    json_array_foreach(refs, i, ref)
    {
        if (json_is_true(json_object_get(ref, "controller")))
            return ref;
    }
    return NULL;
}

bool wh_ref_controller_in_group(const json_t *obj, const char *group)
{
    const json_t *ref = wh_ref_controller(obj);
    struct wh_gv gv;
    return ref && wh_ref_parse_gv(wh_json_str(ref, "apiVersion"), &gv) &&
           wh_ref_gv_group_is(&gv, group);
}
