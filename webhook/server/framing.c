#include "server/framing.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* RFC 9110 5.6.2: tchar. */
static bool is_tchar(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (c != '\0' && strchr("!#$%&'*+-.^_`|~", c) != NULL);
}

#define REWRITTEN                                                                                  \
    "a folded header line (obs-fold, RFC 9112 5.2) or a NUL in a header field value"

struct head {
    unsigned content_length, transfer_encoding;
    const char *first_length;
    bool lengths_differ;
    const char *problem;
    /* In-place layout (libmicrohttpd before 0.9.77): where the previous line's text ends. */
    bool layout;
    const char *line_end;
};

/* Whether the bytes from p to end are a run of `min` to `max` NULs: line ends as
 * libmicrohttpd leaves them in place (CRLF or LF, each byte made NUL). */
static bool line_ends(const char *p, const char *end, long min, long max)
{
    if (end - p < min || end - p > max)
        return false;
    for (; p < end; p++) {
        if (*p != '\0')
            return false;
    }
    return true;
}

static enum MHD_Result check_field(void *cls, enum MHD_ValueKind kind, const char *key,
                                   size_t key_size, const char *value, size_t value_size)
{
    (void)kind;
    struct head *h = cls;
    if (!value)
        value = "";
    if (!key_size)
        h->problem = "a header field with an empty name";
    for (size_t i = 0; i < key_size && !h->problem; i++) {
        if (key[i] == ' ' || key[i] == '\t')
            h->problem = "whitespace between a header field name and its colon (RFC 9112 5.1)";
        else if (!is_tchar((unsigned char)key[i]))
            h->problem = "a header field name that is not a token (RFC 9110 5.1)";
    }
    for (size_t i = 0; i < value_size && !h->problem; i++) {
        unsigned char c = (unsigned char)value[i];
        if ((c < 0x20 && c != '\t') || c == 0x7f)
            h->problem = "a control character in a header field value (RFC 9110 5.5)";
    }
    if (h->layout && !h->problem) {
        /* the previous line's end, then the name, ':' (now NUL), optional whitespace and the
         * value: a field anywhere else was rewritten */
        bool in_place = key > h->line_end && line_ends(h->line_end, key, 1, 2) &&
                        key[key_size] == '\0' && value > key + key_size;
        for (const char *p = key + key_size + 1; in_place && p < value; p++)
            in_place = *p == ' ' || *p == '\t';
        h->line_end = value + value_size;
        if (!in_place)
            h->problem = REWRITTEN;
    }
    if (h->problem)
        return MHD_NO;
    if (strcasecmp(key, MHD_HTTP_HEADER_CONTENT_LENGTH) == 0) {
        if (h->content_length++ && strcmp(h->first_length, value) != 0)
            h->lengths_differ = true;
        else
            h->first_length = value;
    } else if (strcasecmp(key, MHD_HTTP_HEADER_TRANSFER_ENCODING) == 0) {
        h->transfer_encoding++;
    }
    return MHD_YES;
}

/* libmicrohttpd before 0.9.77 (the fold bug; later versions replace obs-fold with spaces).
 * Worked out by whichever worker asks first; the answer is the same for all. */
static bool mhd_parses_in_place(void)
{
    static atomic_int known = -1;
    int k = atomic_load_explicit(&known, memory_order_relaxed);
    if (k < 0) {
        unsigned a = 0, b = 0, c = 0;
        k = sscanf(MHD_get_version(), "%u.%u.%u", &a, &b, &c) == 3 && a == 0 &&
            (b < 9 || (b == 9 && c < 77));
        atomic_store_explicit(&known, k, memory_order_relaxed);
    }
    return k == 1;
}

const char *wh_framing_problem(struct MHD_Connection *conn, const char *method,
                               const char *version)
{
    struct head h = {0};
    const union MHD_ConnectionInfo *size =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE);
    h.layout = mhd_parses_in_place() && size && method && version && version[0];
    if (h.layout)
        h.line_end = version + strlen(version);
    MHD_get_connection_values_n(conn, MHD_HEADER_KIND, check_field, &h);
    /* after the last field, its line end and the empty line: the head ends where
     * libmicrohttpd says it does */
    if (!h.problem && h.layout &&
        !line_ends(h.line_end, method + size->header_size, 2, 4))
        h.problem = REWRITTEN;
    if (h.problem)
        return h.problem;
    if (h.lengths_differ)
        return "conflicting Content-Length headers";
    if (h.transfer_encoding && h.content_length)
        return "both Transfer-Encoding and Content-Length";
    if (h.transfer_encoding > 1)
        return "more than one Transfer-Encoding header";
    if (h.transfer_encoding) {
        const char *te =
            MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_TRANSFER_ENCODING);
        if (!te || strcasecmp(te, "chunked") != 0)
            return "Transfer-Encoding other than chunked";
    }
    return NULL;
}
