#include "kube/watch.h"

#include <string.h>

#include "util/jsonparse.h"

void wh_watch_init(struct wh_watch_splitter *s, size_t max_event)
{
    s->_max = max_event ? max_event : WH_WATCH_MAX_EVENT;
    wh_buf_init(&s->_line, s->_max);
}

void wh_watch_fini(struct wh_watch_splitter *s)
{
    wh_buf_fini(&s->_line);
}

static bool is_blank(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (p[i] != ' ' && p[i] != '\t' && p[i] != '\r' && p[i] != '\n')
            return false;
    }
    return true;
}

static bool known_type(const char *t)
{
    static const char *const types[] = {"ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR"};
    for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
        if (strcmp(t, types[i]) == 0)
            return true;
    }
    return false;
}

enum wh_err wh_watch_parse_line(const char *line, size_t len, wh_watch_event_fn fn, void *arg,
                                struct wh_errbuf *eb)
{
    enum wh_err rc = WH_OK;
    struct wh_jsonparse_error jerr;
    json_t *ev = NULL;

    if (is_blank(line, len))
        return WH_OK;
    ev = wh_json_parse(line, len, &jerr);
    if (!ev) {
        rc = wh_errbuf_set(eb, WH_ERR_PARSE, "watch event: bad JSON at column %d: %s",
                           jerr.column, jerr.text);
        goto out;
    }
    json_t *type = json_is_object(ev) ? json_object_get(ev, "type") : NULL;
    json_t *obj = json_is_object(ev) ? json_object_get(ev, "object") : NULL;
    if (!json_is_string(type) || !known_type(json_string_value(type))) {
        rc = wh_errbuf_set(eb, WH_ERR_PARSE, "watch event: type missing or unknown");
        goto out;
    }
    if (!json_is_object(obj)) {
        rc = wh_errbuf_set(eb, WH_ERR_PARSE, "watch event %s: object missing",
                           json_string_value(type));
        goto out;
    }
    rc = fn(arg, json_string_value(type), obj);
out:
    json_decref(ev);
    return rc;
}

enum wh_err wh_watch_feed(struct wh_watch_splitter *s, const char *data, size_t len,
                          wh_watch_event_fn fn, void *arg, struct wh_errbuf *eb)
{
    enum wh_err rc = WH_OK;
    while (len > 0) {
        const char *nl = memchr(data, '\n', len);
        size_t seg = nl ? (size_t)(nl - data) : len;
        if (!nl) {
            rc = wh_buf_add(&s->_line, data, seg);
            if (rc)
                return wh_errbuf_set(eb, rc, "watch event longer than %zu bytes", s->_max);
            return WH_OK;
        }
        if (s->_line.len == 0) {
            /* The whole line is in this chunk: parse it in place, without a copy. */
            if (seg > s->_max)
                return wh_errbuf_set(eb, WH_ERR_TOO_BIG, "watch event longer than %zu bytes",
                                     s->_max);
            rc = wh_watch_parse_line(data, seg, fn, arg, eb);
        } else {
            rc = wh_buf_add(&s->_line, data, seg);
            if (rc)
                return wh_errbuf_set(eb, rc, "watch event longer than %zu bytes", s->_max);
            rc = wh_watch_parse_line(s->_line.data, s->_line.len, fn, arg, eb);
            wh_buf_reset(&s->_line);
        }
        if (rc)
            return rc;
        data += seg + 1;
        len -= seg + 1;
    }
    return WH_OK;
}

enum wh_err wh_watch_finish(struct wh_watch_splitter *s, wh_watch_event_fn fn, void *arg,
                            struct wh_errbuf *eb)
{
    enum wh_err rc = WH_OK;
    if (s->_line.len > 0)
        rc = wh_watch_parse_line(s->_line.data, s->_line.len, fn, arg, eb);
    wh_buf_reset(&s->_line);
    return rc;
}
