#include "server/dispatch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "admission/review.h"
#include "conversion/review.h"
#include "handlers/warnings.h"
#include "jsonpatch/diff.h"
#include "log/log.h"
#include "metrics/metrics.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/deadline.h"
#include "util/jsonparse.h"
#include "util/json.h"
#include "util/mem.h"
#include "util/time.h"
#include "util/reqmem.h"

static const char *reason_for(int code)
{
    switch (code) {
    case 400:
        return "BadRequest";
    case 404:
        return "NotFound";
    case 405:
        return "MethodNotAllowed";
    case 413:
        return "RequestEntityTooLarge";
    case 415:
        return "UnsupportedMediaType";
    case 503:
        return "ServiceUnavailable";
    default:
        return "InternalError";
    }
}

char *wh_dispatch_status_body(int code, const char *message, size_t *len)
{
    json_t *st = json_object();
    json_object_set_new(st, "kind", json_string("Status"));
    json_object_set_new(st, "apiVersion", json_string("v1"));
    json_object_set_new(st, "metadata", json_object());
    json_object_set_new(st, "status", json_string("Failure"));
    json_object_set_new(st, "message", wh_json_string_lossy(message));
    json_object_set_new(st, "reason", json_string(reason_for(code)));
    json_object_set_new(st, "code", json_integer(code));
    char *s = wh_json_dumps(st);
    json_decref(st);
    if (len)
        *len = strlen(s);
    return s;
}

static void reply_error(struct wh_reply *reply, int code, const char *message)
{
    reply->http_status = code;
    reply->body = wh_dispatch_status_body(code, message, &reply->len);
}

/* Answers are bounded by what the request holds (a patch cannot add more than the mutated
 * object, which the request's memory budget bounds); this cap only turns a bug into a clean
 * abort instead of an unbounded allocation. */
#define ANSWER_CAP ((size_t)1 << 32)

/* An answer waits in memory after it is written: libmicrohttpd sends it at its next pass over
 * the connection, after the other connections' requests of the pass are answered, so under a
 * load of 32 connections 32 answers wait at once (a /convert of 100 StatefulSets: 32 times
 * 179 KB). Each is kept at its length (wh_buf_take_fitted), not at the doubling that wrote it
 * (256 KiB there). */

/* spans (may be NULL): the request's, so that what the answer repeats of it is copied.
 * expect: the answer's likely length (a converted object is about as long as its input), so
 * that it is written into one allocation. */
static void reply_json(struct wh_reply *reply, json_t *answer, const struct wh_json_spans *spans,
                       size_t expect)
{
    struct wh_buf out;
    wh_buf_init(&out, ANSWER_CAP);
    if ((expect && wh_buf_reserve(&out, expect)) || wh_json_write_spans(&out, answer, spans))
        WH_PANIC("an answer does not serialise");
    reply->http_status = 200;
    reply->body = wh_buf_take_fitted(&out, &reply->len);
}

struct wh_metric *wh_dispatch_errors_metric(const char *path)
{
    char labels[256];
    wh_metrics_labels(labels, sizeof(labels), "webhook", path, NULL);
    return wh_metrics_counter("kruise_webhook_errors_total",
                              "Admission requests whose handler failed (answered allowed=false "
                              "with status 500: an API call failed or timed out, an object "
                              "could not be read).",
                              labels);
}

static void dispatch_admission(const struct wh_route *route, const struct wh_handler_ctx *ctx,
                               const json_t *review, struct wh_reply *reply)
{
    struct wh_admission_request req;
    struct wh_errbuf eb = {{0}};
    if (wh_admission_decode(review, &req, &eb)) {
        reply_error(reply, 400, eb.msg);
        return;
    }
    snprintf(reply->uid, sizeof(reply->uid), "%s", req.uid);

    struct wh_admission_response resp;
    wh_admission_response_init(&resp);
    struct wh_handler_ctx rctx = ctx ? *ctx : (struct wh_handler_ctx){0};
    int64_t deadline = 0;
    if (rctx.cfg && rctx.cfg->request_deadline_ms > 0)
        deadline = wh_time_mono_ns() + rctx.cfg->request_deadline_ms * 1000000;
    int64_t outer = wh_deadline_set(deadline);
    enum wh_err rc = route->admit(&rctx, &req, &resp, &eb);
    wh_deadline_set(outer);
    if (!rc && route->kind == WH_ROUTE_VALIDATE)
        wh_warn_old_version(&rctx, &req, &resp);
    if (rc) {
        /* upstream answers a failing sub-step with admission.Errored(500, err) */
        json_decref(resp.mutated);
        resp.mutated = NULL;
        wh_admission_deny(&resp, 500, "%s", eb.msg[0] ? eb.msg : wh_strerror(rc));
        wh_log_limited(WH_LOG_HANDLER_FAILED, WH_LOG_WARN, req.uid, route->path,
                       "handler failed: %s", resp.message);
        /* Answered (HTTP 200, as controller-runtime counts it) but not decided: the error
         * rate alert needs these apart from policy denials. Rare, so found on use. */
        wh_metric_add(wh_dispatch_errors_metric(route->path), 1);
    }
    /* The patch is written as text and base64-encoded straight into the answer: no value is
     * built for an operation, and nothing is serialised twice. */
    struct wh_buf patch;
    wh_buf_init(&patch, ANSWER_CAP);
    size_t ops = 0;
    if (resp.mutated && resp.allowed && route->kind == WH_ROUTE_MUTATE) {
        const json_t *original = req.object;
        json_t *empty = original ? NULL : json_object();
        rc = wh_buf_reserve(&patch, 4096);
        if (!rc)
            rc = wh_patch_diff_write(&patch, original ? original : empty, resp.mutated, &ops);
        json_decref(empty);
        if (rc)
            WH_PANIC("a JSON Patch over %zu bytes", (size_t)ANSWER_CAP);
    }
    reply->allowed = resp.allowed;
    reply->patched = ops > 0;
    if (!resp.allowed)
        wh_log_limited(WH_LOG_DENIED, WH_LOG_INFO, req.uid, route->path,
                       "denied %s %s %s/%s: %d %s", req.operation, req.kind.kind, req.namespace_,
                       req.name, resp.code, resp.message ? resp.message : "");
    struct wh_buf out;
    wh_buf_init(&out, ANSWER_CAP);
    rc = wh_buf_reserve(&out, 512 + patch.len / 3 * 4);
    if (!rc)
        rc = wh_admission_write(&out, &req, &resp, ops ? patch.data : NULL, patch.len);
    if (rc)
        WH_PANIC("an AdmissionReview answer over %zu bytes", (size_t)ANSWER_CAP);
    reply->http_status = 200;
    reply->body = wh_buf_take_fitted(&out, &reply->len);
    wh_buf_fini(&patch);
    wh_admission_response_fini(&resp);
}

/* A body that did not parse: 400 naming the place, or 413/503 when its memory ran out. */
static void reply_unparsed(struct wh_reply *reply, const struct wh_jsonparse_error *jerr,
                           size_t len)
{
    if (jerr->out_of_memory) {
        char msg[200];
        bool own = wh_arena_failure() == WH_ERR_TOO_BIG;
        snprintf(msg, sizeof(msg),
                 own ? "decoding this %zu-byte body needs more than its memory budget of %zu "
                       "bytes"
                     : "the server is short of request memory (%zu-byte body, budget %zu "
                       "bytes); retry",
                 len, wh_reqmem_parse_budget(len));
        reply_error(reply, own ? 413 : 503, msg);
        return;
    }
    char msg[320];
    snprintf(msg, sizeof(msg), "malformed JSON at line %d, column %d: %s", jerr->line,
             jerr->column, jerr->text);
    reply_error(reply, 400, msg);
}

/* The objects of a review, converted one at a time: each is parsed from its text, converted
 * alone and written into the answer, and what that allocated goes back before the next (the
 * values are not released one by one: the rewind drops them all), so that a request holds one
 * object's values, not a hundred. The answer is the one converting them all at once gives,
 * byte for byte: the envelope is written as it always is, with the objects' text where its
 * empty list was. false when an object does not parse or does not convert: the whole review's
 * answer (convert_whole) then says which error comes first. */
static bool convert_each(const struct wh_route *route, const struct wh_conversion_request *req,
                         const char *body, size_t body_len,
                         const struct wh_json_deferred *objects, struct wh_buf *out)
{
    json_t *envelope = wh_conversion_encode_new(req, json_array(), NULL);
    struct wh_buf head;
    wh_buf_init(&head, ANSWER_CAP);
    if (wh_json_write(&head, envelope))
        WH_PANIC("an answer does not serialise");
    /* The uid, before it, is a JSON string: no quote in it is bare. */
    static const char list[] = "\"convertedObjects\":[";
    const char *at = strstr(head.data, list);
    WH_ASSERT(at && at[sizeof(list) - 1] == ']');
    size_t split = (size_t)(at - head.data) + sizeof(list) - 1;
    if (wh_buf_reserve(out, body_len + 1024) || wh_buf_add(out, head.data, split))
        WH_PANIC("an answer does not serialise");
    bool ok = true;
    for (size_t i = 0; i < objects->n && ok; i++) {
        struct wh_arena_mark mark = wh_arena_mark();
        struct wh_jsonparse_error jerr;
        struct wh_json_spans *spans = NULL;
        wh_arena_limit(wh_reqmem_parse_budget(body_len));
        json_t *obj = wh_json_parse_spans(body + objects->items[i].off, objects->items[i].len,
                                          &jerr, &spans);
        wh_arena_limit(0);
        ok = obj != NULL;
        json_t *one = ok ? json_array() : NULL;
        json_t *converted = NULL;
        char *message = NULL;
        if (ok && json_array_append(one, obj))
            WH_PANIC("json_array_append failed");
        ok = ok && route->convert(req->desired_api_version, one, &converted, &message) == WH_OK;
        free(message);
        if (ok && ((i && wh_buf_addc(out, ',')) ||
                   wh_json_write_spans(out, json_array_get(converted, 0), spans)))
            WH_PANIC("an answer does not serialise");
        wh_json_spans_free(spans);
        wh_arena_rewind(mark);
    }
    if (ok && wh_buf_add(out, head.data + split, head.len - split))
        WH_PANIC("an answer does not serialise");
    wh_buf_fini(&head);
    return ok;
}

static void dispatch_conversion(const struct wh_route *route, const json_t *review,
                                const struct wh_json_spans *spans, size_t body_len,
                                struct wh_reply *reply)
{
    struct wh_conversion_request req;
    struct wh_errbuf eb = {{0}};
    if (wh_conversion_decode(review, &req, &eb)) {
        reply_error(reply, 400, eb.msg);
        return;
    }
    snprintf(reply->uid, sizeof(reply->uid), "%s", req.uid);
    json_t *converted = NULL;
    char *message = NULL;
    if (route->convert(req.desired_api_version, req.objects, &converted, &message) && !message)
        message = wh_xstrdup("conversion failed");
    reply->allowed = message == NULL;
    if (message)
        wh_log_limited(WH_LOG_CONVERSION_FAILED, WH_LOG_INFO, req.uid, route->path,
                       "conversion to %s failed: %s", req.desired_api_version, message);
    json_t *answer = wh_conversion_encode_new(&req, message ? NULL : converted, message);
    if (message)
        json_decref(converted);
    reply_json(reply, answer, spans, message ? 0 : body_len + 1024);
    json_decref(answer);
    free(message);
}

/* The whole review parsed at once, its objects converted together: the answer of every review
 * convert_each cannot give (an error anywhere, a failing object, repeated keys, no objects). A
 * converted object is mostly its input: the input's text of what conversion left unchanged is
 * copied into the answer rather than serialised again. */
static void convert_whole(const struct wh_route *route, const char *body, size_t len,
                          struct wh_reply *reply)
{
    struct wh_jsonparse_error jerr;
    struct wh_json_spans *spans = NULL;
    wh_arena_limit(wh_reqmem_parse_budget(len));
    json_t *review = wh_json_parse_spans(body, len, &jerr, &spans);
    wh_arena_limit(0);
    if (review)
        dispatch_conversion(route, review, spans, len, reply);
    else
        reply_unparsed(reply, &jerr, len);
    wh_json_spans_free(spans);
}

/* A ConversionReview: its objects are left as text by the review's parse and converted one at
 * a time when nothing stands in the way; else the whole review is parsed again and answered at
 * once. */
static void dispatch_convert(const struct wh_route *route, const char *body, size_t len,
                             struct wh_reply *reply)
{
    struct wh_arena_mark start = wh_arena_mark();
    struct wh_json_deferred objects = {0};
    struct wh_jsonparse_error jerr;
    wh_arena_limit(wh_reqmem_parse_budget(len));
    json_t *review = wh_json_parse_deferring(body, len, &jerr, "request", "objects", &objects);
    wh_arena_limit(0);
    struct wh_conversion_request req;
    struct wh_errbuf eb = {{0}};
    bool done = false;
    if (review && objects.n > 0 && objects.arrays == 1 &&
        objects.deepest <= WH_JSONPARSE_MAX_DEPTH && !wh_conversion_decode(review, &req, &eb) &&
        req.objects && json_array_size(req.objects) == objects.n) {
        struct wh_buf out;
        wh_buf_init(&out, ANSWER_CAP);
        done = convert_each(route, &req, body, len, &objects, &out);
        if (done) {
            snprintf(reply->uid, sizeof(reply->uid), "%s", req.uid);
            reply->allowed = true;
            reply->http_status = 200;
            reply->body = wh_buf_take_fitted(&out, &reply->len);
        } else {
            wh_buf_fini(&out);
        }
    }
    wh_json_deferred_fini(&objects);
    if (!done) {
        wh_arena_rewind(start);
        convert_whole(route, body, len, reply);
    }
}

void wh_dispatch(const struct wh_route *route, const struct wh_handler_ctx *ctx, const char *body,
                 size_t len, struct wh_reply *reply)
{
    memset(reply, 0, sizeof(*reply));
    /* The whole request lives in this thread's arena and is never freed value by value: the
     * review, the handler's copies and edits, what it looks up. Whatever outlives the request
     * is made with the arena paused (util/arena.h). Only the parse runs under the budget. */
    wh_arena_begin();
    if (route->kind == WH_ROUTE_CONVERT) {
        dispatch_convert(route, body, len, reply);
    } else {
        wh_arena_limit(wh_reqmem_parse_budget(len));
        struct wh_jsonparse_error jerr;
        json_t *review = wh_json_parse(body, len, &jerr);
        wh_arena_limit(0);
        if (review)
            dispatch_admission(route, ctx, review, reply);
        else
            reply_unparsed(reply, &jerr, len);
    }
    wh_arena_end();
}

void wh_reply_fini(struct wh_reply *reply)
{
    free(reply->body);
    reply->body = NULL;
}
