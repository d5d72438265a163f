/* Fuzz target for gocompat/goenc (Go's JSON scanner messages, Go string encoding, evanphx merge
 * patch) and the resourcesPolicy expression calculator. The input is split at its first
 * newline: a document and a merge patch, each also used as an expression. Properties: the
 * validator and the merge agree on what is JSON; a merge result is valid JSON; Go string
 * encoding always produces a valid JSON string that decodes back (when the input is UTF-8). */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "handlers/sidecarset/resources.h"
#include "util/buf.h"
#include "gocompat/goenc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    const char *nl = memchr(text, '\n', size);
    size_t dlen = nl ? (size_t)(nl - text) : size;
    const char *patch = nl ? nl + 1 : "";
    size_t plen = nl ? size - dlen - 1 : 0;

    char msg[160];
    bool dvalid = wh_goenc_valid(text, dlen, msg, sizeof(msg));
    bool pvalid = wh_goenc_valid(patch, plen, msg, sizeof(msg));
    char *out = NULL;
    struct wh_errbuf eb;
    if (wh_goenc_merge_patch(text, dlen, patch, plen, &out, &eb) == WH_OK) {
        if (!dvalid || !pvalid || !wh_goenc_valid(out, strlen(out), msg, sizeof(msg))) {
            fprintf(stderr, "merge accepted invalid JSON or produced it: %s\n", msg);
            abort();
        }
        free(out);
    }

    struct wh_buf b;
    wh_buf_init(&b, 1 << 20);
    if (wh_goenc_append_string(&b, text, dlen) == WH_OK) {
        if (!wh_goenc_valid(b.data, b.len, msg, sizeof(msg))) {
            fprintf(stderr, "encoded string is not JSON: %s\n", msg);
            abort();
        }
    }
    wh_buf_fini(&b);

    /* expressions: NUL-terminated copies, bounded */
    char expr[256];
    size_t n = dlen < sizeof(expr) - 1 ? dlen : sizeof(expr) - 1;
    memcpy(expr, text, n);
    expr[n] = '\0';
    if (strlen(expr) == n) {
        char q[128];
        if (wh_sidecarset_resource_expr(expr, "1500m", q, sizeof(q), &eb) != WH_OK)
            (void)eb;
        if (wh_sidecarset_resource_expr(expr, NULL, q, sizeof(q), &eb) != WH_OK)
            (void)eb;
    }
    return 0;
}
