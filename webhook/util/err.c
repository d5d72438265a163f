#include "util/err.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

const char *wh_strerror(enum wh_err rc)
{
    switch (rc) {
    case WH_OK:
        return "ok";
    case WH_ERR_INVALID:
        return "invalid argument";
    case WH_ERR_PARSE:
        return "parse error";
    case WH_ERR_TOO_BIG:
        return "too big";
    case WH_ERR_IO:
        return "i/o error";
    case WH_ERR_TLS:
        return "tls error";
    case WH_ERR_KUBE:
        return "kubernetes api error";
    case WH_ERR_CONFLICT:
        return "conflict";
    case WH_ERR_GONE:
        return "resource version gone";
    case WH_ERR_TIMEOUT:
        return "timed out";
    case WH_ERR_NOT_FOUND:
        return "not found";
    case WH_ERR_NOT_SYNCED:
        return "cache not synced";
    case WH_ERR_NOMEM:
        return "out of memory";
    case WH_ERR_INTERNAL:
        return "internal error";
    }
    return "unknown error";
}

enum wh_err wh_errbuf_set(struct wh_errbuf *eb, enum wh_err rc, const char *fmt, ...)
{
    if (eb) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(eb->msg, sizeof(eb->msg), fmt, ap);
        va_end(ap);
    }
    return rc;
}

void wh_panic_at(const char *file, int line, const char *fmt, ...)
{
    char msg[512];
    int n = snprintf(msg, sizeof(msg), "kruise-webhook: panic at %s:%d: ", file, line);
    if (n < 0 || (size_t)n >= sizeof(msg))
        n = 0;
    va_list ap;
    va_start(ap, fmt);
    int m = vsnprintf(msg + n, sizeof(msg) - (size_t)n - 1, fmt, ap);
    va_end(ap);
    size_t len = (size_t)n + (m < 0 ? 0 : (size_t)m);
    if (len > sizeof(msg) - 2)
        len = sizeof(msg) - 2;
    msg[len++] = '\n';
    /* One write(2): the line must not interleave with other threads' log lines. */
    ssize_t unused = write(STDERR_FILENO, msg, len);
    (void)unused;
    abort();
}
