#include "kube/token.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log/log.h"
#include "util/buf.h"
#include "util/mem.h"

#define DEFAULT_PERIOD_NS (60LL * 1000 * 1000 * 1000)

static void lock(struct wh_token_source *ts)
{
    if (pthread_mutex_lock(&ts->_mu) != 0)
        WH_PANIC("pthread_mutex_lock failed");
}

static void unlock(struct wh_token_source *ts)
{
    pthread_mutex_unlock(&ts->_mu);
}

void wh_token_init(struct wh_token_source *ts, const char *fixed, const char *file,
                   int64_t period_ns)
{
    if (pthread_mutex_init(&ts->_mu, NULL) != 0)
        WH_PANIC("pthread_mutex_init failed");
    ts->_fixed = fixed && *fixed ? wh_xstrdup(fixed) : NULL;
    ts->_file = file && *file ? wh_xstrdup(file) : NULL;
    ts->_cached = NULL;
    ts->_read_ns = 0;
    ts->_period_ns = period_ns > 0 ? period_ns : DEFAULT_PERIOD_NS;
    ts->_have_read = false;
}

void wh_token_fini(struct wh_token_source *ts)
{
    free(ts->_fixed);
    free(ts->_file);
    free(ts->_cached);
    pthread_mutex_destroy(&ts->_mu);
}

bool wh_token_has_file(const struct wh_token_source *ts)
{
    return ts->_file != NULL;
}

enum wh_err wh_token_read_file(const char *path, char **out, struct wh_errbuf *eb)
{
    enum wh_err rc = WH_OK;
    struct wh_buf b;
    char chunk[4096];
    FILE *f = NULL;

    *out = NULL;
    wh_buf_init(&b, WH_TOKEN_MAX_FILE);
    f = fopen(path, "rb");
    if (!f) {
        rc = wh_errbuf_set(eb, WH_ERR_IO, "%s: %s", path, strerror(errno));
        goto out;
    }
    for (;;) {
        size_t n = fread(chunk, 1, sizeof(chunk), f);
        if (n == 0)
            break;
        rc = wh_buf_add(&b, chunk, n);
        if (rc) {
            wh_errbuf_set(eb, rc, "%s: larger than %u bytes", path, WH_TOKEN_MAX_FILE);
            goto out;
        }
    }
    if (ferror(f)) {
        rc = wh_errbuf_set(eb, WH_ERR_IO, "%s: read error", path);
        goto out;
    }
    size_t start = 0, end = b.len;
    while (start < end && strchr(" \t\r\n", b.data[start]))
        start++;
    while (end > start && strchr(" \t\r\n", b.data[end - 1]))
        end--;
    if (start == end) {
        rc = wh_errbuf_set(eb, WH_ERR_INVALID, "%s: empty token", path);
        goto out;
    }
    /* The token goes into a header line: no control characters. */
    for (size_t i = start; i < end; i++) {
        unsigned char ch = (unsigned char)b.data[i];
        if (ch < 0x20 || ch == 0x7f) {
            rc = wh_errbuf_set(eb, WH_ERR_INVALID, "%s: control character in the token", path);
            goto out;
        }
    }
    *out = wh_xstrndup(b.data + start, end - start);
out:
    if (f)
        fclose(f);
    wh_buf_fini(&b);
    return rc;
}

enum wh_err wh_token_load(struct wh_token_source *ts, int64_t now_ns, struct wh_errbuf *eb)
{
    enum wh_err rc = WH_OK;
    char *tok = NULL;

    if (!ts->_file)
        return WH_OK;
    rc = wh_token_read_file(ts->_file, &tok, eb);
    lock(ts);
    ts->_read_ns = now_ns;
    ts->_have_read = true;
    if (!rc) {
        free(ts->_cached);
        ts->_cached = tok;
        tok = NULL;
    }
    unlock(ts);
    if (rc && ts->_fixed) {
        wh_log(WH_LOG_WARN, "kube: cannot read token file (%s); using the fixed token",
               eb ? eb->msg : ts->_file);
        rc = WH_OK;
    }
    free(tok);
    return rc;
}

char *wh_token_get(struct wh_token_source *ts, int64_t now_ns, bool force)
{
    char *fresh = NULL;
    char *ret = NULL;

    if (ts->_file) {
        lock(ts);
        bool stale = force || !ts->_have_read || now_ns - ts->_read_ns >= ts->_period_ns;
        if (stale) {
            /* Claim the re-read, so that concurrent callers keep using the old token meanwhile
             * instead of all reading the file. */
            ts->_read_ns = now_ns;
            ts->_have_read = true;
        }
        unlock(ts);
        if (stale) {
            struct wh_errbuf eb = {{0}};
            if (wh_token_read_file(ts->_file, &fresh, &eb))
                WH_LOG_EVERY(60, WH_LOG_WARN, "kube: re-reading the token: %s", eb.msg);
        }
    }
    lock(ts);
    if (fresh) {
        free(ts->_cached);
        ts->_cached = fresh;
    }
    if (ts->_cached)
        ret = wh_xstrdup(ts->_cached);
    else if (ts->_fixed)
        ret = wh_xstrdup(ts->_fixed);
    unlock(ts);
    return ret;
}
