#ifndef WH_KUBE_CACHE_H
#define WH_KUBE_CACHE_H

/* The store behind one cached resource: objects by namespace/name, by namespace, and by any
 * index a handler declares, with a synced flag and change notifications.
 *
 * Memory: jansson spends about ten times the JSON size on a parsed object, so an object is kept
 * as its compact JSON text (managedFields stripped) plus an optional "view" that the handler
 * that needs the resource compiles once per change (selectors, flags, whatever its hot path
 * reads). The parsed JSON is built on first use and then kept with the object, so memory grows
 * only for objects a handler actually opens.
 *
 * Thread rule: thread-safe. One writer (the informer, or the standalone loader) and any number
 * of readers. Objects are immutable once published and refcounted: a reader takes references
 * under a read lock and uses them after the lock is released, so it never waits for the network
 * and never sees a half-applied update. No lock is held while calling back into user code. */

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kube/resource.h"
#include "util/err.h"

#ifndef JANSSON_THREAD_SAFE_REFCOUNT
#error "frozen JSON values are shared between threads: jansson must have atomic refcounts"
#endif

struct wh_object;
struct wh_cache;

/* --- objects (immutable) -------------------------------------------------------------------- */

/* Returns: borrowed strings valid while o is referenced; namespace is "" when cluster-scoped. */
const char *wh_object_namespace(const struct wh_object *o);
const char *wh_object_name(const struct wh_object *o);
const char *wh_object_resource_version(const struct wh_object *o);
/* Returns: borrowed; the compact JSON text. */
const char *wh_object_text(const struct wh_object *o, size_t *len);
/* Returns: borrowed; the handler's compiled view, or NULL when the cache has none. */
const void *wh_object_view(const struct wh_object *o);
/* Returns: borrowed, FROZEN (never modify it; json_deep_copy first), valid while o is
 * referenced. Parsed on first use and then kept. NULL only if the stored text is corrupt, which
 * is a programming error (panics). */
const json_t *wh_object_json(const struct wh_object *o);

struct wh_object *wh_object_ref(struct wh_object *o);
void wh_object_unref(struct wh_object *o); /* accepts NULL */

/* A list of object references with room for a few inline, so small reads allocate nothing.
 * Owned by its creator; wh_objlist_fini releases every reference. */
struct wh_objlist {
    struct wh_object **items;
    size_t n;
    size_t _cap;
    struct wh_object *_inline[16];
};
void wh_objlist_init(struct wh_objlist *l);
void wh_objlist_fini(struct wh_objlist *l);
/* Steals: o (a reference). */
void wh_objlist_push_new(struct wh_objlist *l, struct wh_object *o);

/* --- declaring what a cache keeps (before any object is stored) ---------------------------- */

/* Builds the view of obj (borrowed, read-only). Returns: a new view, or NULL for none. Runs on the
 * writer thread for every change. */
typedef void *(*wh_view_new_fn)(const json_t *obj);
typedef void (*wh_view_free_fn)(void *view);

/* Emits the index keys of one object by calling emit(ctx, key) for each. */
typedef void (*wh_index_emit_fn)(void *ctx, const char *key);
typedef void (*wh_index_fn)(const json_t *obj, const void *view, wh_index_emit_fn emit, void *ctx);

/* Called on the writer thread after each change has been published (no lock held). o is the
 * new object (NULL for a deletion); old is the previous one (NULL for an addition); both are
 * borrowed. After a relist the callback runs once with both NULL. */
typedef void (*wh_cache_change_fn)(void *arg, const struct wh_object *o,
                                   const struct wh_object *old);

struct wh_cache *wh_cache_new(enum wh_resource_id id);
void wh_cache_free(struct wh_cache *c); /* accepts NULL */

void wh_cache_set_view(struct wh_cache *c, wh_view_new_fn make, wh_view_free_fn release);
/* Up to 4 indexes per cache; name is a static string. Adding the same name and function again
 * does nothing (several features may declare what they share). */
void wh_cache_add_index(struct wh_cache *c, const char *name, wh_index_fn fn);
/* Up to 8 listeners per cache. */
void wh_cache_on_change(struct wh_cache *c, wh_cache_change_fn fn, void *arg);

/* --- the writer side ---------------------------------------------------------------------- */

/* Adds or replaces obj (by metadata.namespace/name). Steals: obj. Returns WH_ERR_INVALID (and
 * frees obj) when it has no metadata.name. */
WH_NODISCARD enum wh_err wh_cache_upsert_new(struct wh_cache *c, json_t *obj);
/* Removes namespace/name (ns NULL or "" for cluster-scoped); no error when absent. */
void wh_cache_delete(struct wh_cache *c, const char *ns, const char *name);
/* Replaces the whole content at once (after a relist). Steals: items (an array). */
void wh_cache_replace_all_new(struct wh_cache *c, json_t *items);
void wh_cache_set_synced(struct wh_cache *c, bool synced);

/* --- the reader side ------------------------------------------------------------------------ */

bool wh_cache_synced(const struct wh_cache *c);
size_t wh_cache_size(const struct wh_cache *c);
/* Bumped by every change; lets a reader memoise work derived from the whole cache. */
uint64_t wh_cache_generation(const struct wh_cache *c);

/* Returns: a new reference, or NULL when absent. ns NULL or "" for cluster-scoped. */
struct wh_object *wh_cache_get(struct wh_cache *c, const char *ns, const char *name);
/* Appends new references to out, sorted by namespace then name. ns NULL = every namespace. */
void wh_cache_list(struct wh_cache *c, const char *ns, struct wh_objlist *out);
/* Appends new references to the objects whose index `index` emitted key, sorted by
 * namespace then name. An unknown index is a programming error. */
void wh_cache_by_index(struct wh_cache *c, const char *index, const char *key,
                       struct wh_objlist *out);

/* What an object missing from a controller-runtime cache is called (upstream reads typed
 * objects through one): the kind and group rather than the resource, "Pod \"x\" not found",
 * "CloneSet.apps.kruise.io \"x\" not found". Returns WH_ERR_NOT_FOUND with that text in eb. */
enum wh_err wh_cache_not_found(struct wh_errbuf *eb, const char *group, const char *kind,
                               const char *name);

#endif
