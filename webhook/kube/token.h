#ifndef WH_KUBE_TOKEN_H
#define WH_KUBE_TOKEN_H

/* The bearer token of the API client: a fixed token, a token file, or both (the file wins
 * whenever it is readable, as in client-go). Service-account tokens are bound and rotate, so
 * the file is read again once its copy is older than the period, and at once when the caller
 * says the API server rejected the token (401). A failed re-read keeps the last good token.
 * Internal to webhook/kube/ (and its tests); the clock is passed in so tests need no sleep.
 * Thread rule: thread-safe; no lock is held while the file is read. */

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "util/err.h"

/* The largest token file accepted (service-account JWTs are a few KiB). */
#define WH_TOKEN_MAX_FILE (64u * 1024u)

struct wh_token_source {
    pthread_mutex_t _mu;
    char *_fixed;  /* NULL when none */
    char *_file;   /* NULL when none */
    char *_cached; /* the last token read from _file */
    int64_t _read_ns;
    int64_t _period_ns;
    bool _have_read;
};

/* fixed and file may be NULL (no authentication when both are). period_ns <= 0: 60 s. */
void wh_token_init(struct wh_token_source *ts, const char *fixed, const char *file,
                   int64_t period_ns);
void wh_token_fini(struct wh_token_source *ts);

/* The first read of the file, so that a missing file is reported when the client is made.
 * Errors (naming the file): WH_ERR_IO, WH_ERR_TOO_BIG, WH_ERR_INVALID (empty) — but only when
 * there is no fixed token to fall back to. */
WH_NODISCARD enum wh_err wh_token_load(struct wh_token_source *ts, int64_t now_ns,
                                       struct wh_errbuf *eb);

/* The token to send, re-reading the file when its copy is older than the period or when
 * force is set. Returns: a new string (caller frees), or NULL when there is no token. */
char *wh_token_get(struct wh_token_source *ts, int64_t now_ns, bool force);

/* True when a token file is configured (a 401 may then be cured by re-reading it). */
bool wh_token_has_file(const struct wh_token_source *ts);

/* Reads a whole token file and trims surrounding whitespace. Returns: *out a new string. */
WH_NODISCARD enum wh_err wh_token_read_file(const char *path, char **out, struct wh_errbuf *eb);

#endif
