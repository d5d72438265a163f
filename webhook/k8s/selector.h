#ifndef WH_K8S_SELECTOR_H
#define WH_K8S_SELECTOR_H

/* Kubernetes label selectors (metav1.LabelSelector), compiled once into one small block so that
 * matching allocates nothing: matchLabels pairs and matchExpressions requirements (In, NotIn,
 * Exists, DoesNotExist), as upstream OpenKruise's util.ValidatedLabelSelectorAsSelector builds
 * them (no key/value syntax validation; that is the validating webhooks' job).
 *
 * Semantics: every requirement must hold. A matchLabels pair k=v needs label k with value v;
 * In needs the key with a value in the list (an empty list matches nothing); NotIn holds when
 * the key is absent or its value is not in the list; Exists / DoesNotExist test the key only.
 * A nil selector selects nothing, an empty one ({}) everything: callers that treat {} as
 * "nothing" (SidecarSet pod selection) test wh_selector_state first.
 *
 * Thread rule: immutable after wh_selector_new; match from any thread. */

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* The label every Namespace carries with its own name (set by the API server). */
#define WH_NAMESPACE_NAME_LABEL "kubernetes.io/metadata.name"

struct wh_selector;

enum wh_selector_state {
    WH_SELECTOR_NOTHING,      /* nil (absent, null, or not an object): matches nothing */
    WH_SELECTOR_EVERYTHING,   /* no matchLabels and no matchExpressions: matches everything */
    WH_SELECTOR_REQUIREMENTS, /* at least one requirement */
    WH_SELECTOR_INVALID,      /* an unknown operator: matching it is an error (wh_selector_error) */
};

/* Compiles sel (borrowed; NULL or JSON null is the nil selector). Never fails: a selector with
 * an unknown operator compiles to WH_SELECTOR_INVALID and keeps upstream's message. Members of
 * the wrong JSON type are treated as absent (the API server's schema rules them out).
 * Returns: a new selector, free with wh_selector_free. */
struct wh_selector *wh_selector_new(const json_t *sel);
void wh_selector_free(struct wh_selector *s); /* accepts NULL */

enum wh_selector_state wh_selector_state(const struct wh_selector *s);

/* Returns: borrowed; for WH_SELECTOR_INVALID the upstream error text
 * ("\"Foo\" is not a valid pod selector operator"), else NULL. */
const char *wh_selector_error(const struct wh_selector *s);

/* Whether labels (a JSON object of strings, borrowed; NULL = no labels) satisfy s. An invalid
 * selector matches nothing (check wh_selector_error first where that is an error). */
bool wh_selector_matches(const struct wh_selector *s, const json_t *labels);

/* The value a matchLabels pair or the first In requirement gives key: matchLabels[key] if set,
 * else the values of the first matchExpressions entry {key, In, values}. Used by indexes that
 * file objects under the namespaces they name (kubernetes.io/metadata.name).
 * Returns in *vals / *n: borrowed strings valid while s lives; false when neither exists. */
bool wh_selector_key_values(const struct wh_selector *s, const char *key, const char *const **vals,
                            size_t *n);

/* sel (a metav1.LabelSelector, borrowed) as the API server's ?labelSelector= takes it
 * (LabelSelectorAsSelector's String()): "app=web,tier in (a,b),zone notin (c),canary,!old".
 * Returns: a new string (free it); "" for {} (everything); NULL when sel selects nothing (nil,
 * an In or NotIn without values) or cannot be written (an unknown operator, a member of the
 * wrong type). */
char *wh_selector_query(const json_t *sel);

/* Bytes the compiled block takes (for memory accounting and tests). */
size_t wh_selector_size(const struct wh_selector *s);

#endif
