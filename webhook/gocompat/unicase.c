#include "gocompat/unicase.h"

#include <stdint.h>

/* go_lower_spans: {first, last, stride} of the runes unicode.ToLower changes (ASCII's too),
 * written by scripts/golower.sh */
#include "gocompat/golower.inc"

/* The rune at s (n > 0 bytes), as Go's range over a string decodes it: *len bytes taken, and
 * false for a byte that does not start a valid UTF-8 sequence (Go reads it as U+FFFD, width 1). */
static bool decode_rune(const unsigned char *s, size_t n, uint32_t *r, size_t *len)
{
    unsigned char c = s[0];
    size_t need = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 0;
    *len = 1;
    if (c < 0x80) {
        *r = c;
        return true;
    }
    if (need == 0 || c > 0xF4 || n < need)
        return false;
    uint32_t v = c & (0xFF >> (need + 1));
    for (size_t i = 1; i < need; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return false;
        v = (v << 6) | (s[i] & 0x3F);
    }
    static const uint32_t min[] = {0, 0, 0x80, 0x800, 0x10000};
    if (v < min[need] || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return false;
    *r = v;
    *len = need;
    return true;
}

static bool rune_lowers(uint32_t r)
{
    size_t lo = 0, hi = sizeof(go_lower_spans) / sizeof(go_lower_spans[0]);
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const uint32_t *s = go_lower_spans[mid];
        if (r < s[0])
            hi = mid;
        else if (r > s[1])
            lo = mid + 1;
        else
            return (r - s[0]) % s[2] == 0;
    }
    return false;
}

bool wh_go_lower_changes(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        uint32_t r;
        size_t len;
        if (!decode_rune(p + i, n - i, &r, &len))
            return true;
        if (rune_lowers(r))
            return true;
        i += len;
    }
    return false;
}

size_t wh_go_lower_ascii(const char *s, size_t n, char *out)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        uint32_t r;
        size_t len;
        if (!decode_rune(p + i, n - i, &r, &len))
            return (size_t)-1;
        if (r >= 'A' && r <= 'Z')
            r += 'a' - 'A';
        else if (r == 0x130)
            r = 'i';
        else if (r == 0x212A)
            r = 'k';
        if (r >= 0x80)
            return (size_t)-1;
        out[o++] = (char)r;
        i += len;
    }
    return o;
}
