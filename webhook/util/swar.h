#ifndef WH_UTIL_SWAR_H
#define WH_UTIL_SWAR_H

/* Byte tests on 8 bytes at once (SWAR), for the JSON reader and writer, which scan strings for
 * the few bytes that end a plain run. Each test marks a byte by setting its high bit. The lowest
 * mark is always exact, higher ones may be false (a borrow only carries upwards, and only out of
 * a byte that is marked itself): only the first marked byte may be used. Thread rule: pure
 * functions. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define WH_SWAR_ONES 0x0101010101010101ULL
#define WH_SWAR_HIGHS 0x8080808080808080ULL

static inline uint64_t wh_swar_load(const void *p)
{
    uint64_t w;
    memcpy(&w, p, 8);
    return w;
}

/* Bytes equal to c. */
static inline uint64_t wh_swar_eq(uint64_t w, unsigned char c)
{
    uint64_t x = w ^ (WH_SWAR_ONES * c);
    return (x - WH_SWAR_ONES) & ~x & WH_SWAR_HIGHS;
}

/* ASCII bytes below c (c <= 0x80). */
static inline uint64_t wh_swar_below(uint64_t w, unsigned char c)
{
    return (w - WH_SWAR_ONES * c) & ~w & WH_SWAR_HIGHS;
}

/* Bytes of 0x80 and above. */
static inline uint64_t wh_swar_high(uint64_t w)
{
    return w & WH_SWAR_HIGHS;
}

/* Sets *at to the index of the first marked byte of a non-zero mark; false where the byte
 * order does not allow it (the caller then looks byte by byte). */
static inline bool wh_swar_first(uint64_t mark, size_t *at)
{
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    *at = (size_t)(__builtin_ctzll(mark) >> 3);
    return true;
#else
    (void)mark;
    *at = 0;
    return false;
#endif
}

#endif
