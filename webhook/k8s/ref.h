#ifndef WH_K8S_REF_H
#define WH_K8S_REF_H

/* References between Kubernetes objects: an apiVersion split into group and version as
 * schema.ParseGroupVersion splits it ("" and "/" are empty, "v1" is version v1 of the core group
 * "", "apps/v1" group apps version v1, two or more '/' do not parse: "unexpected GroupVersion
 * string: <s>"), and an object's controller owner (metav1.GetControllerOf).
 * Thread rule: thread-safe (no state); inputs are only read. */

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* Slices of the parsed string (not NUL-terminated), valid while it lives. */
struct wh_gv {
    const char *group;
    size_t group_len;
    const char *version;
    size_t version_len;
};

/* False when s does not parse; s NULL is "". */
bool wh_ref_parse_gv(const char *s, struct wh_gv *out);

/* The group of api_version copied into group (truncated to groupsz); false when it does not
 * parse. */
bool wh_ref_group_of(const char *api_version, char *group, size_t groupsz);

/* True when gv's group is group (a NUL-terminated string). */
bool wh_ref_gv_group_is(const struct wh_gv *gv, const char *group);

/* Returns: borrowed; the first entry of obj's metadata.ownerReferences whose controller is
 * true, or NULL. */
const json_t *wh_ref_controller(const json_t *obj);

/* True when obj has a controller owner whose apiVersion parses and names group (OpenKruise's
 * util.IsPodOwnedByKruise with group apps.kruise.io). */
bool wh_ref_controller_in_group(const json_t *obj, const char *group);

#endif
