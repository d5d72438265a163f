#include "test/unit/test.h"

#include <stdlib.h>

#include "kube/watch.h"
#include "util/buf.h"
#include "util/mem.h"
#include "util/str.h"

/* Collects events as "TYPE:name" lines, for comparison. */
struct seen {
    struct wh_buf log;
    int count;
    int fail_at; /* return WH_ERR_INVALID on this event (1-based); 0 = never */
};

static enum wh_err collect(void *arg, const char *type, json_t *object)
{
    struct seen *s = arg;
    s->count++;
    if (s->fail_at && s->count == s->fail_at)
        return WH_ERR_INVALID;
    const char *name = json_string_value(json_object_get(
        json_object_get(object, "metadata"), "name"));
    if (wh_buf_printf(&s->log, "%s:%s;", type, name ? name : "-"))
        abort();
    return WH_OK;
}

static void seen_init(struct seen *s)
{
    wh_buf_init(&s->log, 1 << 20);
    if (wh_buf_adds(&s->log, "")) /* so that log.data is a string from the start */
        abort();
    s->count = 0;
    s->fail_at = 0;
}

#define EV(type, name) "{\"type\":\"" type "\",\"object\":{\"metadata\":{\"name\":\"" name "\"}}}"

static const char stream3[] = EV("ADDED", "a") "\n" EV("MODIFIED", "b") "\n" EV("DELETED", "c")
    "\n";

TEST(kube_watch_many_events_in_one_chunk)
{
    struct wh_watch_splitter sp;
    struct seen s;
    seen_init(&s);
    wh_watch_init(&sp, 0);
    CHECK_EQ_INT(wh_watch_feed(&sp, stream3, sizeof(stream3) - 1, collect, &s, NULL), WH_OK);
    CHECK_EQ_INT(wh_watch_finish(&sp, collect, &s, NULL), WH_OK);
    CHECK_EQ_STR(s.log.data, "ADDED:a;MODIFIED:b;DELETED:c;");
    wh_watch_fini(&sp);
    wh_buf_fini(&s.log);
}

TEST(kube_watch_event_spanning_chunks_byte_by_byte)
{
    struct wh_watch_splitter sp;
    struct seen s;
    seen_init(&s);
    wh_watch_init(&sp, 0);
    for (size_t i = 0; i < sizeof(stream3) - 1; i++) {
        CHECK_EQ_INT(wh_watch_feed(&sp, stream3 + i, 1, collect, &s, NULL), WH_OK);
        /* Nothing is delivered before its newline arrives. */
        if (i == 10)
            CHECK_EQ_INT(s.count, 0);
    }
    CHECK_EQ_STR(s.log.data, "ADDED:a;MODIFIED:b;DELETED:c;");
    wh_watch_fini(&sp);
    wh_buf_fini(&s.log);
}

TEST(kube_watch_random_chunking_keeps_order)
{
    struct wh_buf stream;
    wh_buf_init(&stream, 1 << 20);
    for (int i = 0; i < 200; i++) {
        if (wh_buf_printf(&stream,
                          "{\"type\":\"%s\",\"object\":{\"metadata\":{\"name\":\"o%d\"},"
                          "\"data\":\"%*s\"}}\n",
                          i % 7 == 0 ? "BOOKMARK" : "ADDED", i, i * 3, ""))
            abort();
    }
    unsigned seed = 12345;
    for (int round = 0; round < 20; round++) {
        struct wh_watch_splitter sp;
        struct seen s;
        seen_init(&s);
        wh_watch_init(&sp, 0);
        size_t off = 0;
        while (off < stream.len) {
            seed = seed * 1103515245u + 12345u;
            size_t n = 1 + (seed >> 16) % 700;
            if (n > stream.len - off)
                n = stream.len - off;
            CHECK_EQ_INT(wh_watch_feed(&sp, stream.data + off, n, collect, &s, NULL), WH_OK);
            off += n;
        }
        CHECK_EQ_INT(wh_watch_finish(&sp, collect, &s, NULL), WH_OK);
        CHECK_EQ_INT(s.count, 200);
        CHECK(wh_str_has_prefix(s.log.data, "BOOKMARK:o0;ADDED:o1;ADDED:o2;"));
        CHECK(wh_str_has_suffix(s.log.data, "ADDED:o198;ADDED:o199;"));
        wh_watch_fini(&sp);
        wh_buf_fini(&s.log);
    }
    wh_buf_fini(&stream);
}

TEST(kube_watch_final_event_without_newline)
{
    static const char tail[] = EV("ADDED", "a") "\n" EV("BOOKMARK", "b");
    struct wh_watch_splitter sp;
    struct seen s;
    seen_init(&s);
    wh_watch_init(&sp, 0);
    CHECK_EQ_INT(wh_watch_feed(&sp, tail, sizeof(tail) - 1, collect, &s, NULL), WH_OK);
    CHECK_EQ_STR(s.log.data, "ADDED:a;");
    CHECK_EQ_INT(wh_watch_finish(&sp, collect, &s, NULL), WH_OK);
    CHECK_EQ_STR(s.log.data, "ADDED:a;BOOKMARK:b;");
    /* finish twice delivers nothing more */
    CHECK_EQ_INT(wh_watch_finish(&sp, collect, &s, NULL), WH_OK);
    CHECK_EQ_INT(s.count, 2);
    wh_watch_fini(&sp);
    wh_buf_fini(&s.log);
}

TEST(kube_watch_blank_lines_and_crlf_are_skipped)
{
    static const char text[] = "\n\r\n  \n" EV("ADDED", "a") "\r\n\n" EV("ERROR", "e") "\n \n";
    struct wh_watch_splitter sp;
    struct seen s;
    seen_init(&s);
    wh_watch_init(&sp, 0);
    CHECK_EQ_INT(wh_watch_feed(&sp, text, sizeof(text) - 1, collect, &s, NULL), WH_OK);
    CHECK_EQ_INT(wh_watch_finish(&sp, collect, &s, NULL), WH_OK);
    CHECK_EQ_STR(s.log.data, "ADDED:a;ERROR:e;");
    wh_watch_fini(&sp);
    wh_buf_fini(&s.log);
}

TEST(kube_watch_event_over_cap_is_too_big)
{
    static const char ev[] = EV("ADDED", "a") "\n";
    struct wh_errbuf eb = {{0}};
    size_t evlen = sizeof(ev) - 2; /* without the newline */

    /* Whole line in one chunk (parsed in place). */
    struct wh_watch_splitter sp;
    struct seen s;
    seen_init(&s);
    wh_watch_init(&sp, evlen - 1);
    CHECK_EQ_INT(wh_watch_feed(&sp, ev, sizeof(ev) - 1, collect, &s, &eb), WH_ERR_TOO_BIG);
    CHECK(strstr(eb.msg, "longer than") != NULL);
    CHECK_EQ_INT(s.count, 0);
    wh_watch_fini(&sp);

    /* The same line arriving in pieces (buffered). */
    wh_watch_init(&sp, evlen - 1);
    enum wh_err rc = WH_OK;
    for (size_t i = 0; i < sizeof(ev) - 1 && !rc; i += 5)
        rc = wh_watch_feed(&sp, ev + i, sizeof(ev) - 1 - i < 5 ? sizeof(ev) - 1 - i : 5, collect,
                           &s, NULL);
    CHECK_EQ_INT(rc, WH_ERR_TOO_BIG);
    wh_watch_fini(&sp);

    /* Without a newline at all: caught while buffering, not only at the end. */
    wh_watch_init(&sp, 100);
    char big[300];
    memset(big, 'x', sizeof(big));
    CHECK_EQ_INT(wh_watch_feed(&sp, big, sizeof(big), collect, &s, NULL), WH_ERR_TOO_BIG);
    wh_watch_fini(&sp);

    /* Exactly at the cap is fine. */
    wh_watch_init(&sp, evlen);
    CHECK_EQ_INT(wh_watch_feed(&sp, ev, 10, collect, &s, NULL), WH_OK);
    CHECK_EQ_INT(wh_watch_feed(&sp, ev + 10, sizeof(ev) - 11, collect, &s, NULL), WH_OK);
    CHECK_EQ_INT(s.count, 1);
    wh_watch_fini(&sp);
    wh_buf_fini(&s.log);
}

TEST(kube_watch_malformed_lines_are_parse_errors)
{
    static const char *const bad[] = {
        "{\"type\":\"ADDED\",\"object\":{}\n",         /* truncated JSON */
        "[1,2]\n",                                      /* not an object */
        "{\"object\":{}}\n",                            /* no type */
        "{\"type\":\"RENAMED\",\"object\":{}}\n",       /* unknown type */
        "{\"type\":\"ADDED\"}\n",                       /* no object */
        "{\"type\":\"ADDED\",\"object\":\"x\"}\n",      /* object not an object */
        "{\"type\":7,\"object\":{}}\n",                 /* type not a string */
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct wh_watch_splitter sp;
        struct seen s;
        struct wh_errbuf eb = {{0}};
        seen_init(&s);
        wh_watch_init(&sp, 0);
        CHECK_EQ_INT(wh_watch_feed(&sp, bad[i], strlen(bad[i]), collect, &s, &eb), WH_ERR_PARSE);
        CHECK(eb.msg[0] != '\0');
        CHECK_EQ_INT(s.count, 0);
        wh_watch_fini(&sp);
        wh_buf_fini(&s.log);
    }
    /* A bad final line without newline is reported by finish. */
    struct wh_watch_splitter sp;
    struct seen s;
    seen_init(&s);
    wh_watch_init(&sp, 0);
    CHECK_EQ_INT(wh_watch_feed(&sp, "{\"type\":", 8, collect, &s, NULL), WH_OK);
    CHECK_EQ_INT(wh_watch_finish(&sp, collect, &s, NULL), WH_ERR_PARSE);
    wh_watch_fini(&sp);
    wh_buf_fini(&s.log);
}

TEST(kube_watch_callback_error_stops_the_stream)
{
    struct wh_watch_splitter sp;
    struct seen s;
    seen_init(&s);
    s.fail_at = 2;
    wh_watch_init(&sp, 0);
    CHECK_EQ_INT(wh_watch_feed(&sp, stream3, sizeof(stream3) - 1, collect, &s, NULL),
                 WH_ERR_INVALID);
    CHECK_EQ_INT(s.count, 2); /* the third event was not delivered */
    CHECK_EQ_STR(s.log.data, "ADDED:a;");
    wh_watch_fini(&sp);
    wh_buf_fini(&s.log);
}
