#ifndef WH_UTIL_UTF8_H
#define WH_UTIL_UTF8_H

/* UTF-8 as Go reads it (unicode/utf8.DecodeRune, unicode.IsSpace), for the places that must
 * split or print byte strings exactly as Go does: invalid or overlong sequences, surrogates and
 * values above U+10FFFF are U+FFFD of one byte.
 * Thread rule: thread-safe (no state). */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* utf8.DecodeRune of p (n > 0 bytes): the rune, its length in *size. */
uint32_t wh_utf8_decode(const unsigned char *p, size_t n, size_t *size);

/* unicode.IsSpace: '\t', '\n', '\v', '\f', '\r', ' ', U+0085, U+00A0 and the Unicode
 * category Zs/Zl/Zp spaces (U+1680, U+2000-U+200A, U+2028, U+2029, U+202F, U+205F, U+3000). */
bool wh_utf8_is_space(uint32_t r);

/* The length of the white space rune at p (n > 0 bytes), 0 when p starts with another rune:
 * how Go's strings.Fields and strings.TrimSpace see the bytes. */
size_t wh_utf8_space_len(const unsigned char *p, size_t n);

#endif
