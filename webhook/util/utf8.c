#include "util/utf8.h"

uint32_t wh_utf8_decode(const unsigned char *p, size_t n, size_t *size)
{
    unsigned char c = p[0];
    *size = 1;
    if (c < 0x80)
        return c;
    size_t need;
    uint32_t r, min;
    if (c >= 0xc2 && c <= 0xdf) {
        need = 2;
        r = c & 0x1f;
        min = 0x80;
    } else if (c >= 0xe0 && c <= 0xef) {
        need = 3;
        r = c & 0x0f;
        min = 0x800;
    } else if (c >= 0xf0 && c <= 0xf4) {
        need = 4;
        r = c & 0x07;
        min = 0x10000;
    } else {
        return 0xfffd;
    }
    if (n < need)
        return 0xfffd;
    for (size_t i = 1; i < need; i++) {
        if ((p[i] & 0xc0) != 0x80)
            return 0xfffd;
        r = (r << 6) | (p[i] & 0x3f);
    }
    if (r < min || r > 0x10ffff || (r >= 0xd800 && r <= 0xdfff))
        return 0xfffd;
    *size = need;
    return r;
}

bool wh_utf8_is_space(uint32_t r)
{
    switch (r) {
    case '\t':
    case '\n':
    case '\v':
    case '\f':
    case '\r':
    case ' ':
    case 0x85:
    case 0xa0:
    case 0x1680:
    case 0x2028:
    case 0x2029:
    case 0x202f:
    case 0x205f:
    case 0x3000:
        return true;
    default:
        return r >= 0x2000 && r <= 0x200a;
    }
}

size_t wh_utf8_space_len(const unsigned char *p, size_t n)
{
    size_t size;
    uint32_t r = wh_utf8_decode(p, n, &size);
    return wh_utf8_is_space(r) ? size : 0;
}
