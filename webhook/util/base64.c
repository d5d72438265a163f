#include "util/base64.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/mem.h"

static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* Two output characters per 12 input bits: half the lookups and stores of one per 6 bits (a
 * patch is base64-encoded into every /mutate-pod answer). Built once, read-only after. */
static char pairs[4096][2];
static pthread_once_t pairs_once = PTHREAD_ONCE_INIT;

static void make_pairs(void)
{
    for (int i = 0; i < 4096; i++) {
        pairs[i][0] = alphabet[i >> 6];
        pairs[i][1] = alphabet[i & 63];
    }
}

/* Writes the 4 * ((len + 2) / 3) characters of the encoding of in[0, len) to out. */
static void encode(char *out, const unsigned char *in, size_t len)
{
    pthread_once(&pairs_once, make_pairs);
    size_t o = 0, i = 0;
    for (; i + 2 < len; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];
        memcpy(out + o, pairs[v >> 12], 2);
        memcpy(out + o + 2, pairs[v & 4095], 2);
        o += 4;
    }
    if (i < len) {
        uint32_t v = (uint32_t)in[i] << 16;
        if (i + 1 < len)
            v |= (uint32_t)in[i + 1] << 8;
        out[o++] = alphabet[v >> 18 & 63];
        out[o++] = alphabet[v >> 12 & 63];
        out[o++] = i + 1 < len ? alphabet[v >> 6 & 63] : '=';
        out[o++] = '=';
    }
}

char *wh_base64_encode(const void *data, size_t len)
{
    size_t out_len = 4 * ((len + 2) / 3);
    char *out = wh_xmalloc(out_len + 1);
    encode(out, data, len);
    out[out_len] = '\0';
    return out;
}

enum wh_err wh_base64_encode_append(struct wh_buf *out, const void *data, size_t len)
{
    if (len > SIZE_MAX / 4 - 2)
        return WH_ERR_TOO_BIG;
    size_t out_len = 4 * ((len + 2) / 3);
    enum wh_err rc = wh_buf_reserve(out, out_len);
    if (rc)
        return rc;
    encode(out->data + out->len, data, len);
    out->len += out_len;
    out->data[out->len] = '\0';
    return WH_OK;
}

static int decode_char(unsigned char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+')
        return 62;
    if (c == '/')
        return 63;
    return -1;
}

enum wh_err wh_base64_decode(const char *s, size_t slen, unsigned char **out, size_t *out_len)
{
    unsigned char *buf = wh_xmalloc(slen / 4 * 3 + 4);
    size_t o = 0;
    uint32_t acc = 0;
    int bits = 0, pad = 0;
    for (size_t i = 0; i < slen; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == ' ' || c == '\n' || c == '\r' || c == '\t')
            continue;
        if (c == '=') {
            pad++;
            continue;
        }
        int v = decode_char(c);
        if (v < 0 || pad)
            goto bad;
        acc = acc << 6 | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            buf[o++] = (unsigned char)(acc >> bits & 0xff);
        }
    }
    /* Leftover bits must be padding zeros, and at most two '=' may follow. */
    if (bits >= 6 || pad > 2 || (acc & ((1u << bits) - 1)) != 0)
        goto bad;
    buf[o] = '\0';
    *out = buf;
    *out_len = o;
    return WH_OK;
bad:
    free(buf);
    return WH_ERR_PARSE;
}
