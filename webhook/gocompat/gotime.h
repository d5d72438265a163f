#ifndef WH_GOCOMPAT_GOTIME_H
#define WH_GOCOMPAT_GOTIME_H

/* Go's time parsing and printing as the Kubernetes API machinery uses them, in one place:
 *  - metav1.Time reads its text with time.Parse(time.RFC3339, s) and prints it in UTC with
 *    whole seconds ("2025-03-01T08:30:00Z", the fraction cut off), the zero time as null;
 *  - metav1.MicroTime reads and prints "2006-01-02T15:04:05.000000Z07:00": exactly six fraction
 *    digits;
 *  - time.ParseDuration, which robfig/cron's "@every" reads its interval with.
 * Parsing follows Go's general layout parser (what time.Parse falls back to): a ',' works as
 * the decimal point, the hour may have one digit, offsets up to +24:60 are accepted, and a
 * failure carries Go's exact *time.ParseError text ("parsing time \"x\" as
 * \"2006-01-02T15:04:05Z07:00\": cannot parse \"x\" as \"2006\"", "parsing time \"...\": month
 * out of range", "...: extra text: ...").
 *
 * This module includes nothing above util/, so the API machinery in kube/ (Lease times) uses it
 * too. Thread rule: thread-safe (no state). */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

enum wh_gotime_layout {
    WH_GOTIME_RFC3339,       /* time.RFC3339: metav1.Time */
    WH_GOTIME_RFC3339_MICRO, /* metav1.RFC3339Micro: metav1.MicroTime */
};

/* An instant: seconds since 1970-01-01T00:00:00Z and nanoseconds within the second. */
struct wh_gotime {
    int64_t sec;
    int32_t nsec;
};

/* Go's zero time, 0001-01-01T00:00:00Z, in seconds since the epoch. */
#define WH_GOTIME_ZERO_SEC (-62135596800LL)

/* Longest text wh_gotime_format writes, with its NUL (a negative five-digit year, micro). */
#define WH_GOTIME_MAX 40

/* Parses s[0..len) as time.Parse(layout, s). Errors: WH_ERR_INVALID with Go's message in eb
 * (cut at the buffer's size when s is very long). */
WH_NODISCARD enum wh_err wh_gotime_parse(const char *s, size_t len, enum wh_gotime_layout layout,
                                         struct wh_gotime *out, struct wh_errbuf *eb);

/* Go's zero time (0001-01-01T00:00:00Z), which metav1 prints as null. */
bool wh_gotime_is_zero(struct wh_gotime t);

/* Prints t in UTC as metav1.Time (layout RFC3339) or MicroTime prints it, without quotes; the
 * caller prints the zero time as null. out holds WH_GOTIME_MAX bytes. Returns the length. */
size_t wh_gotime_format(struct wh_gotime t, enum wh_gotime_layout layout, char *out, size_t outsz);

/* The instant unix_ns nanoseconds after the epoch (a wall clock reading). */
struct wh_gotime wh_gotime_from_ns(int64_t unix_ns);

/* time.ParseDuration(s), s being len bytes: an optional sign, then one or more decimal numbers
 * (with an optional fraction) each followed by a unit (ns, us, \u00b5s, \u03bcs, ms, s, m, h).
 * WH_OK with *ns; WH_ERR_INVALID with Go's message in *message (new string, caller frees):
 * "time: invalid duration \"x\"", "time: missing unit in duration \"1\"", "time: unknown unit
 * \"d\" in duration \"1d\"", the text quoted as the time package quotes it (bytes that are
 * not printable ASCII as \xNN). */
WH_NODISCARD enum wh_err wh_gotime_parse_duration(const char *s, size_t len, int64_t *ns,
                                                  char **message);

#endif
