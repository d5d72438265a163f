#ifndef WH_HANDLERS_SIDECARSET_HASH_H
#define WH_HANDLERS_SIDECARSET_HASH_H

/* The SidecarSet hash annotations, computed exactly as upstream OpenKruise does
 * (pkg/control/sidecarcontrol/hash.go; spec sidecarset.md section 7): a JSON object
 * {"containers": spec.containers, "initContainers": spec.initContainers (only when one of them is
 * a native sidecar)} serialised as Go's encoding/json would serialise the typed structs (fields in
 * Go declaration order, omitempty rules, quantities canonical), SHA-256, lowercase hex, then each
 * character mapped through the alphabet "bcdfghjklmnpqrstvwxz2456789" (rand.SafeEncodeString).
 * The same function serves v1alpha1 and v1beta1 objects: the hashed fields are identical.
 * Thread rule: thread-safe (no shared state); inputs are only read. */

#include <jansson.h>
#include <stdbool.h>

/* The hash of sidecarset (a whole SidecarSet object, borrowed; only spec.containers and
 * spec.initContainers are read). without_image: every image blanked first (the
 * -hash-without-image annotation). Values of the wrong JSON type are treated as absent, as they
 * cannot occur in an object the API server accepted.
 * Returns: a new 64-character string (caller frees), never NULL. */
char *wh_sidecarset_hash(const json_t *sidecarset, bool without_image);

/* The exact text that is hashed (for tests and debugging). Returns: new string, never NULL. */
char *wh_sidecarset_hash_input(const json_t *sidecarset, bool without_image);

/* Writes both hash annotations into sidecarset (modified in place; metadata and
 * metadata.annotations are created when missing). only_missing: keep an annotation that already
 * has a non-empty value (the history-revision rule of spec 4.4); false overwrites both, as the
 * mutating webhook does. */
void wh_sidecarset_hash_annotate(json_t *sidecarset, bool only_missing);

#endif
