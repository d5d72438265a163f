#ifndef WH_K8S_META_H
#define WH_K8S_META_H

/* Object metadata semantics of k8s.io/apimachinery used by several handlers: the controller
 * owner (metav1.GetControllerOf) and the group of an apiVersion (schema.ParseGroupVersion).
 * Thread rule: thread-safe (no shared state); inputs are only read. */

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* Returns: borrowed; the first metadata.ownerReferences entry with controller: true, or NULL. */
const json_t *wh_meta_controller_of(const json_t *obj);

/* schema.ParseGroupVersion(api_version) reduced to its group: "" and "v1" have the core group
 * "", "apps/v1" has "apps"; two or more slashes are an error (false). The group is copied into
 * group (truncated to groupsz). NULL is treated as "". */
bool wh_meta_group_of(const char *api_version, char *group, size_t groupsz);

#endif
