#ifndef WH_CONVERSION_CONVERT_INT_H
#define WH_CONVERSION_CONVERT_INT_H

/* Internals of the conversion module, shared by convert.c (review level), table.c (the mapping
 * engine) and the per-kind files; nothing outside webhook/conversion/ and its unit test includes
 * this header.
 *
 * Every kind is described by one table of rows, written once for both directions. A row names
 * a field by its path in v1alpha1 ("alpha") and/or v1beta1 ("beta") and a rule; the Go types
 * are the model's (gocompat/gotype.h), which the engine asks for the type at each path. The
 * engine compiles the table (once, at first use): every path must exist in the model's type
 * of its version, "[]" exactly after list fields and "*" after map fields. Then:
 *   - the source object is type-checked against the model's type of its version, as deeply as
 *     Go's decoder would (error texts are encoding/json's);
 *   - a list of edits per direction is applied. Converting copies the source object shallowly
 *     (unchanged subtrees are shared, never deep-copied) and applies the edits; every edit reads
 *     the source object (immutable) and writes the destination, so rows never see each other's
 *     half-done work, only their writes.
 * Fields that no row mentions are copied as they are (the API server prunes what the target
 * version does not define), so a row exists for every field whose meaning or place differs
 * between versions.
 *
 * Paths: member names joined by '.'; "name[]" steps into every element of a list, "*" into
 * every value of a map ("status.versionedSubsetStatuses.*[].conditions[].reason").
 *
 * Thread rule: tables and compiled plans are immutable after the one-time compilation
 * (pthread_once); conversions share nothing else. */

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "gocompat/gotype.h"
#include "util/err.h"

enum wh_conv_dir { WH_CONV_UP, WH_CONV_DOWN };    /* alpha -> beta, beta -> alpha */
enum wh_conv_ver { WH_CONV_ALPHA, WH_CONV_BETA }; /* v1alpha1, v1beta1 */

enum wh_conv_rule {
    WH_CONV_COPY = 0,   /* a rename: the value moves from one path to the other */
    WH_CONV_ALPHA_ONLY, /* no place in v1beta1: dropped both ways */
    WH_CONV_BETA_ONLY,  /* no place in v1alpha1: dropped both ways */
    WH_CONV_INVERT,     /* bool negated both ways (absent = false, so absent becomes true) */
    WH_CONV_ENUM,       /* string values translated by .map */
    WH_CONV_NO_NULLS,   /* list copied without its null elements */
    WH_CONV_META_TRUE,  /* beta bool <- label/annotation .key == "true"; down writes "true"
                           back when .write_back */
    WH_CONV_META_MOVE,  /* beta string <-> label/annotation .key; up removes it from metadata */
    WH_CONV_REJECT,     /* beta only; converting down fails with .key as message when set */
    WH_CONV_CUSTOM,     /* .fn does the work (the odd cases) */
    WH_CONV_DERIVED,    /* no edit of its own: a field or annotation that a CUSTOM row writes or
                           reads, listed so that the table names every place a conversion
                           touches (.examples: texts the annotation may hold, for tests) */
};

enum wh_conv_meta { WH_META_NONE, WH_META_LABEL, WH_META_ANNOTATION };

/* One pair of an enum translation; dirs is a mask of (1 << enum wh_conv_dir). An absent value
 * matches "". */
struct wh_conv_enum {
    const char *alpha;
    const char *beta;
    unsigned dirs;
};
#define WH_CONV_BOTH ((1u << WH_CONV_UP) | (1u << WH_CONV_DOWN))

struct wh_conv_ctx;

/* A CUSTOM rule: reads src (the source object, borrowed, never modified) and edits dst (the
 * destination under construction, through the wh_conv_* editing helpers below). Fails with
 * wh_conv_fail. */
typedef enum wh_err (*wh_conv_fn)(struct wh_conv_ctx *c, enum wh_conv_dir dir, const json_t *src,
                                  json_t *dst);
/* A condition on a rename: when false the field is dropped instead of moved. */
typedef bool (*wh_conv_pred)(enum wh_conv_dir dir, const json_t *src);

struct wh_conv_row {
    const char *alpha; /* path in v1alpha1; NULL: none (see meta/key) */
    const char *beta;  /* path in v1beta1; NULL: none */
    enum wh_conv_rule rule;
    enum wh_conv_meta meta; /* the alpha side is this label/annotation */
    const char *key;        /* label/annotation key, or REJECT's message */
    bool write_back;
    const struct wh_conv_enum *map; /* ENUM, terminated by a {NULL} entry */
    wh_conv_fn fn;                  /* CUSTOM */
    wh_conv_pred when;              /* COPY with two paths: move only when true */
    const char *examples;           /* DERIVED annotations: "A|B|C" */
};

/* A convertible kind: both versions, hub v1beta1. */
struct wh_conv_kind {
    const char *group;
    const char *kind;
    const struct wh_conv_row *rows;
    size_t nrows;
};

extern const struct wh_conv_kind wh_conv_statefulset, wh_conv_cloneset, wh_conv_sidecarset,
    wh_conv_workloadspread, wh_conv_daemonset, wh_conv_broadcastjob, wh_conv_advancedcronjob,
    wh_conv_imagepulljob, wh_conv_imagelistpulljob, wh_conv_nodeimage, wh_conv_crr,
    wh_conv_resourcedistribution, wh_conv_persistentpodstate, wh_conv_uniteddeployment, wh_conv_pub;

/* Every convertible kind (convert.c). */
extern const struct wh_conv_kind *const wh_conv_kinds[];
extern const size_t wh_conv_nkinds;

/* ---- the engine (table.c) ------------------------------------------------------------------ */

/* A compiled table. Immutable; lives until the process exits. */
struct wh_conv_plan;

/* Compiles k's rows; a malformed table is a programming error and aborts with the row.
 * Returns: a new plan (never freed: plans are process-lifetime). Not thread-safe: call once. */
struct wh_conv_plan *wh_conv_compile(const struct wh_conv_kind *k);

/* Type-checks obj (a JSON object) against version v of the plan's kind, as Go's decoder would
 * (wh_gotype_check): on failure returns WH_ERR_INVALID and sets *msg (caller frees) to Go's
 * message. */
WH_NODISCARD enum wh_err wh_conv_check(const struct wh_conv_plan *p, enum wh_conv_ver v,
                                       const json_t *obj, char **msg);

/* Applies the plan in direction dir: src is the checked source object (borrowed), dst a
 * shallow copy of it (owned by the caller, edited in place; shares subtrees with src). On
 * failure returns WH_ERR_INVALID and sets *msg (caller frees). */
WH_NODISCARD enum wh_err wh_conv_apply(const struct wh_conv_plan *p, enum wh_conv_dir dir,
                                       const json_t *src, json_t *dst, char **msg);

/* The kind a plan was compiled from. */
const struct wh_conv_kind *wh_conv_plan_kind(const struct wh_conv_plan *p);

/* The model's type of the kind in version v. */
const struct wh_gotype *wh_conv_root(const struct wh_conv_plan *p, enum wh_conv_ver v);

/* ---- helpers for CUSTOM rules ------------------------------------------------------------- */

/* Failure of the conversion: the message becomes the review's result.message. Returns
 * WH_ERR_INVALID. */
enum wh_err wh_conv_fail(struct wh_conv_ctx *c, const char *fmt, ...) WH_PRINTF(2, 3);

/* The value at a NULL-terminated list of member names under v.
 * Returns: borrowed; NULL when a step is missing, not an object, or the value is null. */
const json_t *wh_conv_get(const json_t *v, ...);
/* The same for a string value ("" is returned as ""), NULL when absent or not a string. */
const char *wh_conv_get_str(const json_t *v, ...);

/* Sets the member at the NULL-terminated path under dst to val (stolen), creating the objects
 * on the way and un-sharing those that dst shares with the source. */
void wh_conv_set_new(json_t *dst, json_t *val, ...);
/* Removes the member at the path (no-op when absent), un-sharing only what it changes. */
void wh_conv_del(json_t *dst, ...);
/* Returns: borrowed; the object at the path under dst, made writable (un-shared); NULL when
 * absent or not an object. */
json_t *wh_conv_writable(json_t *dst, ...);
/* The same, creating the missing (or non-object) steps. Returns: borrowed, never NULL. */
json_t *wh_conv_ensure(json_t *dst, ...);
/* Returns: borrowed; the list at the path under dst made writable, created empty when missing
 * or not a list (objects on the way created too). */
json_t *wh_conv_ensure_list(json_t *dst, ...);

/* metadata.labels / metadata.annotations of an object. */
const char *wh_conv_meta_get(const json_t *obj, enum wh_conv_meta m, const char *key);
void wh_conv_meta_set(json_t *dst, enum wh_conv_meta m, const char *key, const char *value);
/* Removes the entry; removes the map itself when it becomes empty. */
void wh_conv_meta_del(json_t *dst, enum wh_conv_meta m, const char *key);

/* Base-10 integer with an optional sign, nothing else, within [min, max] (Go's
 * strconv.ParseInt(s, 10, 32/64) without the "0x"/"_" forms, which base 10 rejects too). */
bool wh_conv_parse_int(const char *s, long long min, long long max, long long *out);

/* Go's %q of s: double-quoted, with '"', '\\' and control characters escaped.
 * Returns: new string, caller frees. */
char *wh_conv_quote(const char *s);

#endif
