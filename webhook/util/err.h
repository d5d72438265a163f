#ifndef WH_UTIL_ERR_H
#define WH_UTIL_ERR_H

/* One status type for the whole program. Fallible functions return enum wh_err, are marked
 * WH_NODISCARD, and hand results back through out-parameters; optional detail goes into a
 * caller-owned struct wh_errbuf. Thread rule: everything here is thread-safe. */

#include <stddef.h>

#define WH_NODISCARD __attribute__((warn_unused_result))
#define WH_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#define WH_NORETURN _Noreturn

enum wh_err {
    WH_OK = 0,
    WH_ERR_INVALID,    /* bad argument, bad value, bad request */
    WH_ERR_PARSE,      /* malformed JSON, YAML, PEM, ... */
    WH_ERR_TOO_BIG,    /* over a configured cap */
    WH_ERR_IO,         /* file or socket */
    WH_ERR_TLS,        /* certificate, key, handshake */
    WH_ERR_KUBE,       /* the API server answered with an error Status */
    WH_ERR_CONFLICT,   /* 409: stale resourceVersion or already exists */
    WH_ERR_GONE,       /* 410: resourceVersion too old, relist */
    WH_ERR_TIMEOUT,
    WH_ERR_NOT_FOUND,
    WH_ERR_NOT_SYNCED, /* a cache has not finished its first list */
    WH_ERR_NOMEM,      /* only for OOM reported by a library we cannot make abort */
    WH_ERR_INTERNAL,   /* a failure that is nobody's input: answered as 500 */
};

/* Returns: a static string naming rc ("invalid argument", ...). */
const char *wh_strerror(enum wh_err rc);

/* Detail for an error, written by the callee, owned by the caller. */
struct wh_errbuf {
    char msg[256];
};

/* Writes a message into eb (if eb is not NULL), truncating if needed; returns rc so that
 * `return wh_errbuf_set(eb, WH_ERR_INVALID, "...")` reads naturally. */
enum wh_err wh_errbuf_set(struct wh_errbuf *eb, enum wh_err rc, const char *fmt, ...)
    WH_PRINTF(3, 4);

/* Programming errors: always compiled in, log file:line, abort. */
WH_NORETURN void wh_panic_at(const char *file, int line, const char *fmt, ...) WH_PRINTF(3, 4);
#define WH_PANIC(...) wh_panic_at(__FILE__, __LINE__, __VA_ARGS__)
#define WH_ASSERT(cond)                                                                            \
    do {                                                                                           \
        if (!(cond))                                                                               \
            wh_panic_at(__FILE__, __LINE__, "assertion failed: %s", #cond);                        \
    } while (0)

#endif
