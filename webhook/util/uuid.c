#include "util/uuid.h"

#include <errno.h>
#include <stdint.h>
#include <sys/random.h>

#include "util/err.h"

void wh_uuid_v4(char out[WH_UUID_LEN + 1])
{
    unsigned char b[16];
    size_t got = 0;
    while (got < sizeof(b)) {
        ssize_t n = getrandom(b + got, sizeof(b) - got, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            WH_PANIC("getrandom failed: errno %d", errno);
        got += (size_t)n;
    }
    b[6] = (unsigned char)((b[6] & 0x0f) | 0x40); /* version 4 */
    b[8] = (unsigned char)((b[8] & 0x3f) | 0x80); /* variant RFC 4122 */
    static const char hex[] = "0123456789abcdef";
    size_t o = 0;
    for (size_t i = 0; i < sizeof(b); i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10)
            out[o++] = '-';
        out[o++] = hex[b[i] >> 4];
        out[o++] = hex[b[i] & 0x0f];
    }
    out[o] = '\0';
}
