#ifndef WH_GOCOMPAT_STRCONV_H
#define WH_GOCOMPAT_STRCONV_H

/* Go's strconv number parsing, for the OpenKruise rules whose answers show what it accepts and
 * what it says when it refuses: ParseInt in base 10, Atoi and ParseFloat(s, 64), with Go's
 * error texts ("strconv.ParseInt: parsing \"x\": invalid syntax", "...: value out of range"),
 * and Go's float-to-int conversion as amd64 performs it.
 * Thread rule: thread-safe (no state). */

#include <stdint.h>

#include "util/err.h"

/* strconv.ParseInt(s, 10, bits) (bits 32 or 64): an optional sign and decimal digits, nothing
 * else. Out of range: WH_ERR_INVALID with "value out of range" and *out clamped, as Go returns
 * it. Errors: WH_ERR_INVALID with Go's message in eb (eb may be NULL). */
WH_NODISCARD enum wh_err wh_go_parse_int(const char *s, int bits, int64_t *out,
                                         struct wh_errbuf *eb);

/* strconv.Atoi(s): ParseInt(s, 10, 64) with Atoi's name in its messages. */
WH_NODISCARD enum wh_err wh_go_atoi(const char *s, int64_t *out, struct wh_errbuf *eb);

/* The same with the whole message in *message (new string, caller frees), however long s is
 * (robfig/cron quotes it in its errors). */
WH_NODISCARD enum wh_err wh_go_atoi_message(const char *s, int64_t *out, char **message);

/* strconv.ParseFloat(s, 64): Go's float literal grammar (sign, decimal or 0x hexadecimal with
 * a p exponent, underscores between digits, "inf", "infinity" and "nan" in any case). Out of
 * range: WH_ERR_INVALID with "value out of range" and *out the infinity Go returns. */
WH_NODISCARD enum wh_err wh_go_parse_float(const char *s, double *out, struct wh_errbuf *eb);

/* Go's int(v) for a float64 on amd64: NaN, infinities and values out of range give the
 * smallest int64 (what CVTTSD2SI returns); others are truncated toward zero. */
int64_t wh_go_float_to_int(double v);

/* intstr.IntOrString.IntValue of a string: strconv.Atoi with its error ignored (0). */
int64_t wh_go_atoi_or_zero(const char *s);

#endif
