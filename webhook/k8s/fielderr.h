#ifndef WH_K8S_FIELDERR_H
#define WH_K8S_FIELDERR_H

/* Kubernetes field errors (k8s.io/apimachinery/pkg/util/validation/field) rendered exactly as
 * upstream prints them: "<path>: <type>[: <value>][: <detail>]", with the value printed as Go's
 * ErrorBody does (strings quoted with strconv.Quote, integers plain, nil as "null", other values
 * pre-rendered by the caller in Go's %#v form), and the list aggregated as
 * ErrorList.ToAggregate().Error(): duplicates dropped, one error as its text, several as
 * "[e1, e2, ...]".
 * Thread rule: a list belongs to one thread. */

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

struct wh_field_errors {
    char **items; /* rendered errors, in the order added */
    size_t n;
    size_t _cap;
};

void wh_ferrs_init(struct wh_field_errors *l);
void wh_ferrs_fini(struct wh_field_errors *l);

/* "<path>: Required value[: detail]" (detail may be NULL or ""). */
void wh_ferr_required(struct wh_field_errors *l, const char *path, const char *detail);
/* "<path>: Forbidden[: detail]". */
void wh_ferr_forbidden(struct wh_field_errors *l, const char *path, const char *detail);
/* "<path>: Internal error: detail". */
void wh_ferr_internal(struct wh_field_errors *l, const char *path, const char *detail);
/* "<path>: Too long: may not be more than N bytes". */
void wh_ferr_too_long(struct wh_field_errors *l, const char *path, int max);
/* "<path>: Invalid value: \"value\"[: detail]" (value quoted as Go's %q). */
void wh_ferr_invalid_str(struct wh_field_errors *l, const char *path, const char *value,
                         const char *detail);
/* "<path>: Invalid value: 12[: detail]". */
void wh_ferr_invalid_int(struct wh_field_errors *l, const char *path, long long value,
                         const char *detail);
/* "<path>: Invalid value: <rendered>[: detail]": rendered is printed as given (%#v output, or
 * "\"null\"" for a nil pointer). */
void wh_ferr_invalid_raw(struct wh_field_errors *l, const char *path, const char *rendered,
                         const char *detail);
/* "<path>: Unsupported value: \"value\": supported values: \"a\", \"b\"". */
void wh_ferr_not_supported(struct wh_field_errors *l, const char *path, const char *value,
                           const char *const *valid, size_t nvalid);
/* The same with the value printed as given: a Go value with a String method (core.ResourceName)
 * prints through it, unquoted. */
void wh_ferr_not_supported_raw(struct wh_field_errors *l, const char *path, const char *rendered,
                               const char *const *valid, size_t nvalid);
/* "<path>: Not found: \"value\"". */
void wh_ferr_not_found(struct wh_field_errors *l, const char *path, const char *value);
/* "<path>: Duplicate value: \"value\"". */
void wh_ferr_duplicate(struct wh_field_errors *l, const char *path, const char *value);
/* "<path>: Duplicate value: rendered" (a Stringer's text, unquoted). */
void wh_ferr_duplicate_raw(struct wh_field_errors *l, const char *path, const char *rendered);

/* The address Go's %#v prints for a non-nil pointer inside a value, in the messages that show
 * one: Go prints where the pointer points, which differs in every process (the differential
 * run's comparison and the vector harness read any address there as one word); this plausible
 * heap address stands for any. The one definition: every Go-syntax printer uses it. */
#define WH_GO_ADDRESS "0xc000010000"
/* The same address as %d prints a pointer (a decimal integer). */
#define WH_GO_ADDRESS_DECIMAL "824633786368"

/* Appends a pre-rendered error text. */
void wh_ferr_add_text(struct wh_field_errors *l, const char *text);

/* The aggregate message, or NULL when the list is empty. Returns: new string. */
char *wh_ferrs_aggregate(const struct wh_field_errors *l);

/* strconv.Quote(s): a new string (caller frees) with quotes, Go escapes (\a \b \f \n \r \t \v
 * \\ \", \xNN for invalid bytes and other control bytes, \u00NN/\uNNNN for non-printable
 * runes). */
char *wh_go_quote(const char *s);
/* The same of the n bytes at s, which may hold NUL bytes (\x00). */
char *wh_go_quoten(const char *s, size_t n);

/* strconv.IsPrint(r) (unicode.IsPrint alike): letters, marks, numbers, punctuation, symbols and
 * the ASCII space, from Go's own tables (goisprint.inc). */
bool wh_go_is_print(uint32_t r);
/* The rune at s (non-empty) as ranging over a Go string reads it: an invalid byte is U+FFFD of
 * length 1. Returns: its length in bytes. */
size_t wh_go_rune(const char *s, uint32_t *r);

/* Path building: snprintf into out (truncating); returns out. */
char *wh_fpath(char *out, size_t outsz, const char *fmt, ...) WH_PRINTF(3, 4);

#endif
