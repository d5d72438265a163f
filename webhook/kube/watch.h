#ifndef WH_KUBE_WATCH_H
#define WH_KUBE_WATCH_H

/* The watch-stream splitter: turns the bytes of a watch response, as they arrive in chunks of
 * any size, into events. The stream is newline-delimited JSON, one {"type": ..., "object": ...}
 * per line; an event may span chunks, a chunk may hold many events, and the last event may
 * lack its newline. Blank lines are skipped. Internal to webhook/kube/ (and its tests and fuzz
 * target). Thread rule: single thread only (one splitter per watch). */

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "util/buf.h"
#include "util/err.h"

/* The largest event accepted by default. Kubernetes stores objects of at most ~1.5 MiB (etcd's
 * request limit), so this leaves room for JSON escaping and managedFields. */
#define WH_WATCH_MAX_EVENT (8u * 1024u * 1024u)

/* type is "ADDED", "MODIFIED", "DELETED", "BOOKMARK" or "ERROR"; object is borrowed for the call
 * (incref to keep it). A non-OK return stops the splitter and is returned by feed/finish. */
typedef enum wh_err (*wh_watch_event_fn)(void *arg, const char *type, json_t *object);

struct wh_watch_splitter {
    struct wh_buf _line; /* the incomplete last line of what was fed so far */
    size_t _max;
};

/* max_event: the largest line accepted (0 = WH_WATCH_MAX_EVENT). */
void wh_watch_init(struct wh_watch_splitter *s, size_t max_event);
void wh_watch_fini(struct wh_watch_splitter *s);

/* Feeds the next chunk; calls fn for each event it completes, in order. Errors: WH_ERR_TOO_BIG
 * for an event longer than max_event, WH_ERR_PARSE for a line that is not a watch event (bad
 * JSON, type missing or unknown, object missing or not an object), or whatever fn returned.
 * eb (may be NULL) says which. After an error the splitter must only be finalised. */
WH_NODISCARD enum wh_err wh_watch_feed(struct wh_watch_splitter *s, const char *data, size_t len,
                                       wh_watch_event_fn fn, void *arg, struct wh_errbuf *eb);

/* The stream ended: delivers a last event that had no newline. Same errors as feed. */
WH_NODISCARD enum wh_err wh_watch_finish(struct wh_watch_splitter *s, wh_watch_event_fn fn,
                                         void *arg, struct wh_errbuf *eb);

/* Parses one line as a watch event and calls fn with it (exposed for tests). */
WH_NODISCARD enum wh_err wh_watch_parse_line(const char *line, size_t len, wh_watch_event_fn fn,
                                             void *arg, struct wh_errbuf *eb);

#endif
