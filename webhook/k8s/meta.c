#include "k8s/meta.h"

#include <stdio.h>
#include <string.h>

#include "util/json.h"

const json_t *wh_meta_controller_of(const json_t *obj)
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

bool wh_meta_group_of(const char *api_version, char *group, size_t groupsz)
{
    const char *av = api_version ? api_version : "";
    const char *slash = strchr(av, '/');
    if (slash && strchr(slash + 1, '/'))
        return false;
    int len = slash ? (int)(slash - av) : 0;
    snprintf(group, groupsz, "%.*s", len, av);
    return true;
}
