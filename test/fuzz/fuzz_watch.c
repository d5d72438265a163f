/* Fuzz target for the watch-stream splitter (webhook/kube/watch.c). The first input byte seeds
 * how the rest is cut into chunks. Property: the events delivered, and the final result, are
 * the same whether the stream arrives in one piece or in arbitrary chunks; every delivered
 * event has a known type and an object. A small event cap exercises WH_ERR_TOO_BIG. */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube/watch.h"
#include "util/buf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_EVENT 1024

static enum wh_err record(void *arg, const char *type, json_t *object)
{
    struct wh_buf *log = arg;
    if (!json_is_object(object) || !type[0])
        abort();
    char *s = json_dumps(object, JSON_COMPACT | JSON_SORT_KEYS);
    if (!s)
        abort();
    /* The log is only for comparison; past its cap both runs stop the same way. */
    enum wh_err rc = wh_buf_printf(log, "%s %s\n", type, s);
    free(s);
    return rc;
}

static enum wh_err run(const char *p, size_t n, uint32_t seed, bool chunked, struct wh_buf *log)
{
    struct wh_watch_splitter sp;
    enum wh_err rc = WH_OK;
    wh_watch_init(&sp, MAX_EVENT);
    size_t off = 0;
    while (off < n && !rc) {
        size_t len = n - off;
        if (chunked) {
            seed = seed * 1103515245u + 12345u;
            len = 1 + (seed >> 16) % 64;
            if (len > n - off)
                len = n - off;
        }
        rc = wh_watch_feed(&sp, p + off, len, record, log, NULL);
        off += len;
    }
    if (!rc)
        rc = wh_watch_finish(&sp, record, log, NULL);
    wh_watch_fini(&sp);
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    uint32_t seed = data[0];
    const char *p = (const char *)data + 1;
    size_t n = size - 1;
    struct wh_buf a, b;
    wh_buf_init(&a, 1u << 20);
    wh_buf_init(&b, 1u << 20);
    enum wh_err ra = run(p, n, seed, false, &a);
    enum wh_err rb = run(p, n, seed, true, &b);
    if (ra != rb || a.len != b.len || (a.len && memcmp(a.data, b.data, a.len) != 0)) {
        fprintf(stderr, "chunking changed the result: %d vs %d\n", (int)ra, (int)rb);
        abort();
    }
    wh_buf_fini(&a);
    wh_buf_fini(&b);
    return 0;
}
