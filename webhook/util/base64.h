#ifndef WH_UTIL_BASE64_H
#define WH_UTIL_BASE64_H

/* Standard base64 (RFC 4648 section 4, with padding), as Kubernetes uses for []byte fields
 * (patches, caBundle, Secret data, kubeconfig *-data). Thread rule: thread-safe. */

#include <stddef.h>

#include "util/buf.h"
#include "util/err.h"

/* Returns: a new NUL-terminated string (caller frees). */
char *wh_base64_encode(const void *data, size_t len);

/* Appends the encoding of data to out (an answer's patch goes straight into the answer).
 * WH_ERR_TOO_BIG at out's cap, out unchanged. */
WH_NODISCARD enum wh_err wh_base64_encode_append(struct wh_buf *out, const void *data, size_t len);

/* Decodes s (whitespace is ignored, padding optional) into a new buffer (caller frees),
 * NUL-terminated for convenience; *out_len excludes the NUL. */
WH_NODISCARD enum wh_err wh_base64_decode(const char *s, size_t slen, unsigned char **out,
                                          size_t *out_len);

#endif
