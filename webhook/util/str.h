#ifndef WH_UTIL_STR_H
#define WH_UTIL_STR_H

/* String helpers: parsing numbers and booleans strictly (no atoi), prefix tests, joining.
 * Thread rule: thread-safe (no shared state). */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

/* Parses the whole of s as a base-10 integer in [min, max]; rejects empty strings, trailing
 * characters and overflow. */
WH_NODISCARD enum wh_err wh_str_to_ll(const char *s, long long min, long long max, long long *out);
/* Go's strconv.ParseInt(s, 10, bits) on the n bytes of s (an optional sign, then decimal
 * digits): NULL with *out on success, else the reason its error gives, "invalid syntax" or
 * "value out of range" (whichever Go meets first, reading left to right). */
const char *wh_str_go_parse_int(const char *s, size_t n, int bits, long long *out);
/* "true"/"false" (also "1"/"0", "yes"/"no", case-insensitive). */
WH_NODISCARD enum wh_err wh_str_to_bool(const char *s, bool *out);
/* Go's strconv.ParseBool: "1", "t", "T", "TRUE", "true", "True" and their false
 * counterparts, nothing else (what OpenKruise's flags and annotations accept). */
WH_NODISCARD enum wh_err wh_str_to_go_bool(const char *s, bool *out);
/* A duration such as "10s", "500ms", "2m", "1h30m", or a bare number of seconds. */
WH_NODISCARD enum wh_err wh_str_to_duration_ms(const char *s, long long *out_ms);

bool wh_str_has_prefix(const char *s, const char *prefix);
bool wh_str_has_suffix(const char *s, const char *suffix);
/* NULL-safe equality. */
bool wh_str_eq(const char *a, const char *b);

/* Returns: a new string (caller frees) made by printf. Aborts on OOM. */
char *wh_str_printf(const char *fmt, ...) WH_PRINTF(1, 2);

/* The length of the well-formed UTF-8 sequence at p (lead byte >= 0x80) and its code point in
 * *cp, or 0 when it is not one (RFC 3629: no overlong forms, no surrogates, nothing above
 * U+10FFFF, not cut off by end). */
size_t wh_str_utf8_seq(const unsigned char *p, const unsigned char *end, uint32_t *cp);

#endif
