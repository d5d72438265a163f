#ifndef WH_GOCOMPAT_GOTYPE_H
#define WH_GOCOMPAT_GOTYPE_H

/* The Go-type model: every Kubernetes and OpenKruise Go type the server decodes, and what Go's
 * encoding/json (as the API machinery uses it) does with them. It is the one place that knows
 * Go's JSON types; conversion, the SidecarSet handlers, deletion protection and /mutate-pod ask
 * it rather than keeping tables of their own.
 *
 * The types are written in the .gotypes files of webhook/gocompat/types/ (generated from the Go
 * sources by scripts/gotypes-from-go.py), compiled once at first use. The format, one declaration
 * or field per line, '#' starting a comment:
 *
 *     package core v1                          alias, then the API path of each version
 *     struct Container                         a struct; its fields follow, indented:
 *       name          string                   JSON name, Go type, flags
 *       ports         []ContainerPort  omitempty patch=merge key=containerPort
 *       ...           meta.TypeMeta            an embedded struct: its fields are promoted
 *     type PodPhase string  enum=Pending|Running   a named type, with its constants' values
 *
 * Go types: string bool int32 int64 []byte, *T (a pointer field), []T, map[K]V, a named type
 * of the same package (T), of another (alias.T) or of the other version of a versioned package
 * (alias@v1beta1.T). Kinds with JSON methods of their own: quantity (resource.Quantity),
 * intorstring (intstr.IntOrString), time (metav1.Time), microtime (metav1.MicroTime), raw
 * (runtime.RawExtension and other opaque JSON). A package with two API paths is versioned: its
 * declarations exist in both versions, except declarations and fields marked @v1alpha1 or
 * @v1beta1. Flags: omitempty, patch=<patchStrategy>, key=<patchMergeKey> (the strategic merge
 * patch tags of k8s.io/api).
 *
 * Thread rule: the model is immutable once compiled (pthread_once); every function here is
 * thread-safe. Types and fields live until the process exits. */

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "util/err.h"

enum wh_gokind {
    WH_GK_STRING,
    WH_GK_BOOL,
    WH_GK_INT32,
    WH_GK_INT64,
    WH_GK_BYTES,     /* []byte: a base64 string */
    WH_GK_QUANTITY,  /* resource.Quantity */
    WH_GK_INTSTR,    /* intstr.IntOrString */
    WH_GK_TIME,      /* metav1.Time */
    WH_GK_MICROTIME, /* metav1.MicroTime */
    WH_GK_RAW,       /* any JSON, kept as it is */
    WH_GK_STRUCT,
    WH_GK_SLICE,
    WH_GK_MAP, /* string keys */
};

struct wh_gotype;

#define WH_GOF_OMITEMPTY 1u /* ,omitempty */
#define WH_GOF_POINTER 2u   /* *T: null and absent are nil */

/* patchStrategy, without its retainKeys part (which only says how clients write patches). */
enum wh_gopatch { WH_GOPATCH_NONE, WH_GOPATCH_MERGE, WH_GOPATCH_REPLACE };

/* A field of a struct as the JSON sees it: embedded structs' fields are promoted into the
 * struct's list at the embedding's place (Go's field order), as encoding/json does. */
struct wh_gofield {
    const char *name; /* JSON name */
    const struct wh_gotype *type;
    unsigned flags; /* WH_GOF_* */
    enum wh_gopatch patch;
    const char *merge_key; /* patchMergeKey, or NULL */
};

/* The type name in API path api ("v1", "apps/v1", "apps.kruise.io/v1beta1", "meta.k8s.io/v1")
 * of the model. Returns: NULL when there is no such type. */
const struct wh_gotype *wh_gotype_lookup(const char *api, const char *name);

enum wh_gokind wh_gotype_kind(const struct wh_gotype *t);
/* The type as Go prints it in errors: "v1.PodSpec", "[]v1.Container", "map[string]string". */
const char *wh_gotype_name(const struct wh_gotype *t);
/* Element type of a slice or map; NULL for other kinds. */
const struct wh_gotype *wh_gotype_elem(const struct wh_gotype *t);
/* Values of the typed constants of a named string type, "A|B|C"; NULL when it has none. */
const char *wh_gotype_enum(const struct wh_gotype *t);
/* Fields of a struct (0 for other kinds), in Go's order. */
size_t wh_gotype_nfields(const struct wh_gotype *t);
const struct wh_gofield *wh_gotype_field(const struct wh_gotype *t, size_t i);
/* The field with JSON name name (exactly; Kubernetes decodes case-sensitively), or NULL. */
const struct wh_gofield *wh_gotype_member(const struct wh_gotype *t, const char *name);

/* Decoding v into t as the API machinery's decoder (sigs.k8s.io/json: case-sensitive, unknown
 * members ignored) would, without building anything: WH_OK, or WH_ERR_INVALID with the error Go
 * reports, word for word: "json: cannot unmarshal string into Go struct field
 * StatefulSetSpec.spec.replicas of type int32", "... number 1.5 ...", "... into Go value of
 * type v1.Pod" (v itself), a time's "parsing time ..." or a quantity's parse error. Go's
 * precedence: the first plain type mismatch in document order is kept while decoding goes on;
 * an error of a type with its own JSON method (Time, MicroTime, IntOrString, Quantity) ends the
 * decoding and wins. JSON null is never an error. Allocates nothing unless it fails; messages
 * longer than the errbuf (deep paths, long time texts) are cut. */
WH_NODISCARD enum wh_err wh_gotype_check(const json_t *v, const struct wh_gotype *t,
                                         struct wh_errbuf *eb);
/* The same with the whole message: *msg is a new string (caller frees) on failure, else NULL. */
WH_NODISCARD enum wh_err wh_gotype_check_full(const json_t *v, const struct wh_gotype *t,
                                              char **msg);

/* The same, and where: *path (new ref) is the JSON array of member names and list indices
 * from v to the value the error is about ([] for v itself), for messages that point into a
 * file (util/yaml marks); Go's own message names struct fields only. Both NULL without an
 * error; *msg is a new string (caller frees) otherwise. */
WH_NODISCARD enum wh_err wh_gotype_check_where(const json_t *v, const struct wh_gotype *t,
                                               char **msg, json_t **path);

/* What v (borrowed) becomes when Go decodes it into t and encodes it again: unknown members
 * dropped, omitempty members with an empty value ("", 0, false, null, [], {}) dropped,
 * missing non-omitempty members added with Go's zero encoding ("" 0 false; null for nil
 * slices, maps, pointers and zero times; the zero struct for struct values, which are never
 * omitted), struct members in Go's order, map members by key, quantities as the API machinery
 * prints them, times in UTC (whole seconds; MicroTime with six digits). A null or absent v gives
 * t's zero value. Returns in *out: new ref. Errors: those of wh_gotype_check. */
WH_NODISCARD enum wh_err wh_gotype_normalize(const json_t *v, const struct wh_gotype *t,
                                             json_t **out, struct wh_errbuf *eb);
/* The value Go holds after decoding v into t, for handlers that reason about it (and print it,
 * as %#v shows []T{} and []T(nil) apart): as wh_gotype_normalize, except that an empty list or
 * map v gives stays ([] and {}), since Go decodes it into an empty, not a nil, value. */
WH_NODISCARD enum wh_err wh_gotype_decode(const json_t *v, const struct wh_gotype *t, json_t **out,
                                          struct wh_errbuf *eb);

/* json.Unmarshal of text (len bytes) into t with Go's own encoding/json, which upstream uses
 * for what is not an API object (the settings of the kruise-configuration ConfigMap, package
 * kruise.io/configuration of the model). Unlike the API machinery's decoder above, a member
 * name matches a field exactly or else as encoding/json folds case ("GROUP" and "group" are
 * Group's; the long s folds to "s", the Kelvin sign to "k"), and of the members that pick the
 * same field the last one counts (Go would merge two objects given for one struct or map field;
 * the model takes the last). Returns in *out: new ref, the value wh_gotype_decode gives
 * for it, fields by their own names. Errors: WH_ERR_INVALID with Go's message: the syntax
 * error ("invalid character 'x' looking for beginning of value", "unexpected end of JSON
 * input"), or the type error as wh_gotype_check words it. */
WH_NODISCARD enum wh_err wh_gotype_unmarshal(const char *text, size_t len,
                                             const struct wh_gotype *t, json_t **out,
                                             struct wh_errbuf *eb);

#endif
