#ifndef WH_GOCOMPAT_UNICASE_H
#define WH_GOCOMPAT_UNICASE_H

/* Go's lower-casing (strings.ToLower, unicode.ToLower) as far as answers depend on it: whether
 * it changes a string, and what it makes of one for a grammar that is ASCII. Upstream asks
 * "strings.ToLower(s) != s" to tell an uppercase image name (docker/distribution's
 * ParseNormalizedNamed); a rune such as 'É' changes, 'é' does not, and a byte that is not UTF-8
 * always does (Go maps it to U+FFFD). Like gotime, this leaf includes only util/, so that k8s/
 * can use it. Thread rule: pure functions. */

#include <stdbool.h>
#include <stddef.h>

/* strings.ToLower(s) != s for the n bytes of s. */
bool wh_go_lower_changes(const char *s, size_t n);

/* strings.ToLower(s) written into out (n bytes of room) when the result is ASCII, as a grammar
 * of ASCII characters needs it: ASCII letters lowered, U+0130 to 'i' and U+212A (the Kelvin
 * sign) to 'k', the only non-ASCII runes Go lowers to ASCII. Returns the length written, or
 * (size_t)-1 when the result would hold a rune that is not ASCII. */
size_t wh_go_lower_ascii(const char *s, size_t n, char *out);

#endif
