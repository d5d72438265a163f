#ifndef WH_TEST_SUPPORT_VECTOR_COMPARE_H
#define WH_TEST_SUPPORT_VECTOR_COMPARE_H

/* The semantic comparison of converted objects that conversion vectors ask for
 * (test/vectors/README.md, "Conversion vector"): both sides are normalised (rules 1-4) and an
 * extra member of the actual object is tolerated when the input had it, with the same value,
 * at the same path (rule 5). Used by the unit tests and by the vector harness.
 * Thread rule: thread-safe (no shared state). */

#include <jansson.h>
#include <stdbool.h>

#include "util/buf.h"

/* Normalises v: (1) members whose value is null, then {} or [], are removed, bottom-up;
 * (2) members whose value is 0, false or "" are removed; (3) RFC 3339 timestamps are re-printed
 * in UTC with whole seconds; (4) resource quantities (string values of members of requests,
 * limits, capacity, allocatable, and string values of members named storage) are re-printed
 * in Kubernetes' canonical form. Array elements are normalised but never removed.
 * Returns: new ref. */
json_t *wh_vec_normalise(const json_t *v);

/* Kubernetes' canonical spelling of a resource quantity, as apimachinery's
 * resource.Quantity.String() prints it after ParseQuantity ("1000m" -> "1", "0.5Gi" ->
 * "512Mi", "1500" -> "1500", "2e3" -> "2e3", "0.1n" -> "1n").
 * Returns: new string (caller frees), or NULL when s is not a quantity (or too large for this
 * implementation: mantissas beyond 128 bits). */
char *wh_vec_quantity_canonical(const char *s);

/* Compares a converted object with the expected one (both borrowed). input (borrowed, may be
 * NULL) is the object the conversion started from. Returns true when they match; otherwise
 * appends to diff (if not NULL) one line per differing path (at most ten), each as
 * "<JSON pointer>: expected <value>, actual <value>" (a missing side prints as "(absent)"). */
bool wh_vec_conversion_equal(const json_t *expected, const json_t *actual, const json_t *input,
                             struct wh_buf *diff);

#endif
