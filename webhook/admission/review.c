#include "admission/review.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/base64.h"
#include "util/json.h"
#include "util/mem.h"
#include "util/str.h"

/* kind {group, version, kind} and resource {group, version, resource}. */
static enum wh_err need_triple(const json_t *req, const char *key, const char *third,
                               const char **a, const char **b, const char **c, struct wh_errbuf *eb)
{
    json_t *o = json_object_get(req, key);
    if (!o || json_is_null(o))
        return wh_errbuf_set(eb, WH_ERR_INVALID, "request.%s: required", key);
    if (!json_is_object(o))
        return wh_errbuf_set(eb, WH_ERR_INVALID, "request.%s: must be an object, not %s", key,
                             wh_json_type_name(o));
    char where[64];
    snprintf(where, sizeof(where), "request.%s.", key);
    enum wh_err rc = wh_json_need_str(o, "group", where, false, a, eb);
    if (!rc)
        rc = wh_json_need_str(o, "version", where, true, b, eb);
    if (!rc)
        rc = wh_json_need_str(o, third, where, true, c, eb);
    return rc;
}

static const json_t *optional_obj(const json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return json_is_null(v) ? NULL : v;
}

enum wh_err wh_admission_decode(const json_t *review, struct wh_admission_request *req,
                                struct wh_errbuf *eb)
{
    enum wh_err rc = WH_OK;
    memset(req, 0, sizeof(*req));
    if (!json_is_object(review))
        return wh_errbuf_set(eb, WH_ERR_INVALID, "body: must be an AdmissionReview object");
    rc = wh_json_need_str(review, "apiVersion", "", true, &req->api_version, eb);
    if (rc)
        return rc;
    if (strcmp(req->api_version, "admission.k8s.io/v1") == 0)
        req->version = WH_REVIEW_V1;
    else if (strcmp(req->api_version, "admission.k8s.io/v1beta1") == 0)
        req->version = WH_REVIEW_V1BETA1;
    else
        return wh_errbuf_set(eb, WH_ERR_INVALID,
                             "apiVersion: unsupported \"%s\" (want admission.k8s.io/v1 or v1beta1)",
                             req->api_version);
    const char *kind = NULL;
    rc = wh_json_need_str(review, "kind", "", true, &kind, eb);
    if (rc)
        return rc;
    if (strcmp(kind, "AdmissionReview") != 0)
        return wh_errbuf_set(eb, WH_ERR_INVALID, "kind: must be AdmissionReview, not \"%s\"", kind);

    const json_t *r = json_object_get(review, "request");
    if (!r || json_is_null(r))
        return wh_errbuf_set(eb, WH_ERR_INVALID, "request: required");
    if (!json_is_object(r))
        return wh_errbuf_set(eb, WH_ERR_INVALID, "request: must be an object, not %s",
                             wh_json_type_name(r));
    req->raw = r;
    rc = wh_json_need_str(r, "uid", "request.", true, &req->uid, eb);
    /* Echoed whole: a uid may hold "\u0000", which C strings would cut. */
    req->uid_len = rc ? 0 : json_string_length(json_object_get(r, "uid"));
    if (!rc && req->uid_len == 0)
        rc = wh_errbuf_set(eb, WH_ERR_INVALID, "request.uid: must not be empty");
    if (!rc)
        rc = need_triple(r, "kind", "kind", &req->kind.group, &req->kind.version, &req->kind.kind,
                         eb);
    if (!rc)
        rc = need_triple(r, "resource", "resource", &req->resource.group, &req->resource.version,
                         &req->resource.resource, eb);
    if (!rc)
        rc = wh_json_need_str(r, "operation", "request.", true, &req->operation, eb);
    if (rc)
        return rc;
    static const char *const ops[] = {"CREATE", "UPDATE", "DELETE", "CONNECT"};
    bool known = false;
    for (size_t i = 0; i < 4; i++)
        known |= strcmp(req->operation, ops[i]) == 0;
    if (!known)
        return wh_errbuf_set(eb, WH_ERR_INVALID,
                             "request.operation: unsupported \"%s\" (want CREATE, UPDATE, DELETE "
                             "or CONNECT)",
                             req->operation);
    rc = wh_json_need_str(r, "subResource", "request.", false, &req->sub_resource, eb);
    if (!rc)
        rc = wh_json_need_str(r, "namespace", "request.", false, &req->namespace_, eb);
    if (!rc)
        rc = wh_json_need_str(r, "name", "request.", false, &req->name, eb);
    if (rc)
        return rc;

    static const char *const objs[] = {"object", "oldObject", "options", "userInfo"};
    const json_t **dst[] = {&req->object, &req->old_object, &req->options, &req->user_info};
    for (size_t i = 0; i < 4; i++) {
        const json_t *v = optional_obj(r, objs[i]);
        if (v && !json_is_object(v))
            return wh_errbuf_set(eb, WH_ERR_INVALID, "request.%s: must be an object, not %s",
                                 objs[i], wh_json_type_name(v));
        *dst[i] = v;
    }
    json_t *dry = json_object_get(r, "dryRun");
    if (dry && !json_is_null(dry) && !json_is_boolean(dry))
        return wh_errbuf_set(eb, WH_ERR_INVALID, "request.dryRun: must be a boolean, not %s",
                             wh_json_type_name(dry));
    req->dry_run = json_is_true(dry);
    return WH_OK;
}

void wh_admission_response_init(struct wh_admission_response *resp)
{
    memset(resp, 0, sizeof(*resp));
    resp->allowed = true;
}

void wh_admission_response_fini(struct wh_admission_response *resp)
{
    free(resp->message);
    free(resp->reason);
    json_decref(resp->warnings);
    json_decref(resp->mutated);
    memset(resp, 0, sizeof(*resp));
}

static WH_PRINTF(2, 0) void set_message(struct wh_admission_response *resp, const char *fmt,
                                        va_list ap)
{
    free(resp->message);
    resp->message = NULL;
    resp->message_len = 0;
    if (!fmt)
        return;
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    if (n >= 0) {
        resp->message = wh_xmalloc((size_t)n + 1);
        vsnprintf(resp->message, (size_t)n + 1, fmt, ap2);
        resp->message_len = (size_t)n;
    }
    va_end(ap2);
}

void wh_admission_allow(struct wh_admission_response *resp, const char *fmt, ...)
{
    resp->allowed = true;
    resp->code = 200;
    va_list ap;
    va_start(ap, fmt);
    set_message(resp, fmt, ap);
    va_end(ap);
}

void wh_admission_deny(struct wh_admission_response *resp, int code, const char *fmt, ...)
{
    resp->allowed = false;
    resp->code = code;
    free(resp->reason);
    resp->reason = code == 403 ? wh_xstrdup("Forbidden") : NULL;
    va_list ap;
    va_start(ap, fmt);
    set_message(resp, fmt, ap);
    va_end(ap);
}

void wh_admission_deny_text(struct wh_admission_response *resp, int code, const char *text,
                            size_t len)
{
    wh_admission_deny(resp, code, NULL);
    resp->message = wh_xmalloc(len + 1);
    memcpy(resp->message, text, len);
    resp->message[len] = '\0';
    resp->message_len = len;
}

void wh_admission_answer_errors(struct wh_admission_response *resp, int code,
                                const struct wh_field_errors *errs)
{
    char *msg = wh_ferrs_aggregate(errs);
    if (msg)
        wh_admission_deny(resp, code, "%s", msg);
    else
        wh_admission_allow(resp, NULL);
    free(msg);
}

void wh_admission_set_reason(struct wh_admission_response *resp, const char *reason)
{
    free(resp->reason);
    resp->reason = reason ? wh_xstrdup(reason) : NULL;
}

void wh_admission_vwarn(struct wh_admission_response *resp, const char *fmt, va_list ap)
{
    if (json_array_size(resp->warnings) >= WH_ADMISSION_WARNINGS_MAX)
        return;
    char buf[1024];
    vsnprintf(buf, sizeof(buf), fmt, ap);
    size_t len = strlen(buf);
    if (len > WH_ADMISSION_WARNING_MAX) {
        /* on a character boundary: never just before a UTF-8 continuation byte */
        size_t cut = WH_ADMISSION_WARNING_MAX - 3;
        while (cut > 0 && ((unsigned char)buf[cut] & 0xC0) == 0x80)
            cut--;
        memcpy(buf + cut, "...", 4);
    }
    if (!resp->warnings)
        resp->warnings = json_array();
    json_array_append_new(resp->warnings, wh_json_string_lossy(buf));
}

void wh_admission_warn(struct wh_admission_response *resp, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    wh_admission_vwarn(resp, fmt, ap);
    va_end(ap);
}

json_t *wh_admission_mutable_object(struct wh_admission_response *resp,
                                    const struct wh_admission_request *req)
{
    if (!resp->mutated)
        resp->mutated = req->object ? wh_json_copy(req->object) : json_object();
    return resp->mutated;
}

void wh_admission_set_mutated_new(struct wh_admission_response *resp, json_t *obj)
{
    json_decref(resp->mutated);
    resp->mutated = obj;
}

/* Appends "key": and the string value v (NULL: nothing) as wh_json_write would print it. */
static enum wh_err write_member(struct wh_buf *out, const char *key, const json_t *v)
{
    if (!v)
        return WH_OK;
    enum wh_err rc = wh_buf_addc(out, ',');
    if (!rc)
        rc = wh_json_write_string(out, key, strlen(key));
    if (!rc)
        rc = wh_buf_addc(out, ':');
    return rc ? rc : wh_json_write(out, v);
}

enum wh_err wh_admission_write(struct wh_buf *out, const struct wh_admission_request *req,
                               const struct wh_admission_response *resp, const char *patch,
                               size_t patch_len)
{
    /* The member order and spelling are those of the object this answer used to be built as
     * (and every vector expects): apiVersion, kind, response {uid, allowed, status {metadata,
     * code, message, reason}, warnings, patch, patchType}. */
    json_t *message = resp->message ? wh_json_stringn_lossy(resp->message, resp->message_len) : NULL;
    json_t *reason = resp->reason ? json_string(resp->reason) : NULL;
    enum wh_err rc = wh_buf_adds(out, "{\"apiVersion\":");
    if (!rc)
        rc = wh_json_write_string(out, req->api_version, strlen(req->api_version));
    if (!rc)
        rc = wh_buf_adds(out, ",\"kind\":\"AdmissionReview\",\"response\":{\"uid\":");
    if (!rc)
        rc = wh_json_write_string(out, req->uid, req->uid_len);
    if (!rc)
        rc = wh_buf_printf(out, ",\"allowed\":%s,\"status\":{\"metadata\":{},\"code\":%d",
                           resp->allowed ? "true" : "false", resp->code ? resp->code : 200);
    if (!rc)
        rc = write_member(out, "message", message);
    if (!rc)
        rc = write_member(out, "reason", reason);
    if (!rc)
        rc = wh_buf_addc(out, '}');
    if (!rc && resp->warnings && json_array_size(resp->warnings))
        rc = write_member(out, "warnings", resp->warnings);
    if (!rc && patch) {
        rc = wh_buf_adds(out, ",\"patch\":\"");
        if (!rc)
            rc = wh_base64_encode_append(out, patch, patch_len);
        if (!rc)
            rc = wh_buf_adds(out, "\",\"patchType\":\"JSONPatch\"");
    }
    if (!rc)
        rc = wh_buf_adds(out, "}}");
    json_decref(message);
    json_decref(reason);
    return rc;
}
