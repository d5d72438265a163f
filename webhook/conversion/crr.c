/* ContainerRecreateRequest, apps.kruise.io (conversion.md section 15). Two v1alpha1
 * annotations hold what v1beta1 keeps in its status: the container status snapshot (JSON
 * text) and the time the pod was forced not-ready (a PreRecreateGrace condition). */
#include "conversion/rows_int.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "gocompat/gotime.h"
#include "k8s/kruise.h"
#include "util/buf.h"
#include "util/mem.h"

#define GRACE "PreRecreateGrace"
#define GRACE_MESSAGE "Pod has been forced to not-ready for unreadyGracePeriodSeconds drain"

/* One element of the annotation as Go's json.Unmarshal reads it into
 * ContainerRecreateRequestSyncContainerStatus: keys matched case-insensitively, unknown keys
 * ignored, null leaves the zero value, any other type mismatch fails the whole annotation.
 * Returns: new ref (the v1beta1 snapshot entry), or NULL on a mismatch. */
static json_t *read_sync_status(const json_t *e)
{
    const char *name = "", *id = "";
    bool ready = false;
    json_int_t restarts = 0;
    if (!json_is_null(e)) {
        if (!json_is_object(e))
            return NULL;
        const char *key;
        json_t *v;
        json_object_foreach((json_t *)(uintptr_t)e, key, v)
        {
            if (json_is_null(v))
                continue;
            if (strcasecmp(key, "name") == 0 || strcasecmp(key, "containerID") == 0) {
                if (!json_is_string(v))
                    return NULL;
                *(strcasecmp(key, "name") == 0 ? &name : &id) = json_string_value(v);
            } else if (strcasecmp(key, "ready") == 0) {
                if (!json_is_boolean(v))
                    return NULL;
                ready = json_is_true(v);
            } else if (strcasecmp(key, "restartCount") == 0) {
                if (!json_is_integer(v) || json_integer_value(v) < INT32_MIN ||
                    json_integer_value(v) > INT32_MAX)
                    return NULL;
                restarts = json_integer_value(v);
            }
        }
    }
    json_t *out = json_object();
    json_object_set_new(out, "name", json_string(name));
    json_object_set_new(out, "ready", json_boolean(ready));
    json_object_set_new(out, "restartCount", json_integer(restarts));
    if (*id)
        json_object_set_new(out, "containerID", json_string(id));
    return out;
}

/* Returns: new ref, the snapshot list parsed from the annotation text; NULL when it does not
 * parse (upstream logs and ignores it). */
static json_t *parse_sync_statuses(const char *text)
{
    json_error_t err;
    json_t *doc = json_loads(text, JSON_DECODE_ANY, &err);
    json_t *out = NULL;
    if (!doc)
        return NULL;
    if (json_is_null(doc)) {
        out = json_array();
        goto done;
    }
    if (!json_is_array(doc))
        goto done;
    out = json_array();
    size_t i;
    json_t *e;
    json_array_foreach(doc, i, e)
    {
        json_t *s = read_sync_status(e);
        if (!s) {
            json_decref(out);
            out = NULL;
            goto done;
        }
        json_array_append_new(out, s);
    }
done:
    json_decref(doc);
    return out;
}

/* A string as Go's encoding/json writes it (HTML-safe escaping, \b and \f short forms). */
static enum wh_err go_json_string(struct wh_buf *b, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    enum wh_err rc = wh_buf_addc(b, '"');
    for (const unsigned char *p = (const unsigned char *)s; !rc && *p; p++) {
        unsigned char ch = *p;
        if (ch == '"' || ch == '\\') {
            char esc[2] = {'\\', (char)ch};
            rc = wh_buf_add(b, esc, 2);
        } else if (ch == '\b' || ch == '\f' || ch == '\n' || ch == '\r' || ch == '\t') {
            char esc[2] = {'\\', ch == '\b'   ? 'b'
                                 : ch == '\f' ? 'f'
                                 : ch == '\n' ? 'n'
                                 : ch == '\r' ? 'r'
                                              : 't'};
            rc = wh_buf_add(b, esc, 2);
        } else if (ch < 0x20 || ch == '<' || ch == '>' || ch == '&') {
            char esc[6] = {'\\', 'u', '0', '0', hex[ch >> 4], hex[ch & 15]};
            rc = wh_buf_add(b, esc, 6);
        } else if (ch == 0xe2 && p[1] == 0x80 && (p[2] == 0xa8 || p[2] == 0xa9)) {
            rc = wh_buf_adds(b, p[2] == 0xa8 ? "\\u2028" : "\\u2029");
            p += 2;
        } else {
            rc = wh_buf_addc(b, (char)ch);
        }
    }
    if (!rc)
        rc = wh_buf_addc(b, '"');
    return rc;
}

/* The snapshot as the compact JSON text upstream writes into the annotation.
 * Returns: new string, NULL if it would not fit the cap. */
static char *format_sync_statuses(const json_t *list)
{
    struct wh_buf b;
    wh_buf_init(&b, 64u << 20);
    enum wh_err rc = wh_buf_addc(&b, '[');
    size_t i;
    json_t *e;
    json_array_foreach(list, i, e)
    {
        const char *name = json_string_value(json_object_get(e, "name"));
        const char *id = json_string_value(json_object_get(e, "containerID"));
        if (!rc && i)
            rc = wh_buf_addc(&b, ',');
        if (!rc)
            rc = wh_buf_adds(&b, "{\"name\":");
        if (!rc)
            rc = go_json_string(&b, name ? name : "");
        if (!rc)
            rc = wh_buf_printf(&b, ",\"ready\":%s,\"restartCount\":%" JSON_INTEGER_FORMAT,
                               json_is_true(json_object_get(e, "ready")) ? "true" : "false",
                               json_integer_value(json_object_get(e, "restartCount")));
        if (!rc && id && *id) {
            rc = wh_buf_adds(&b, ",\"containerID\":");
            if (!rc)
                rc = go_json_string(&b, id);
        }
        if (!rc)
            rc = wh_buf_addc(&b, '}');
    }
    if (!rc)
        rc = wh_buf_addc(&b, ']');
    if (rc) {
        wh_buf_fini(&b);
        return NULL;
    }
    return wh_buf_take(&b, NULL);
}

/* sync-container-statuses annotation <-> status.containerStatusSnapshot (15.2). */
static enum wh_err snapshot(struct wh_conv_ctx *c, enum wh_conv_dir dir, const json_t *src,
                            json_t *dst)
{
    (void)c;
    wh_conv_del(dst, "status", "containerStatusSnapshot", NULL);
    if (dir == WH_CONV_UP) {
        const char *raw =
            wh_conv_meta_get(src, WH_META_ANNOTATION, WH_KRUISE_ANN_CRR_SYNC_CONTAINER_STATUSES);
        if (!raw || !*raw)
            return WH_OK;
        json_t *list = parse_sync_statuses(raw);
        if (list && json_array_size(list))
            wh_conv_set_new(dst, list, "status", "containerStatusSnapshot", NULL);
        else
            json_decref(list);
        return WH_OK;
    }
    const json_t *list = wh_conv_get(src, "status", "containerStatusSnapshot", NULL);
    if (!json_is_array(list))
        return WH_OK;
    char *text = format_sync_statuses(list);
    if (text)
        wh_conv_meta_set(dst, WH_META_ANNOTATION, WH_KRUISE_ANN_CRR_SYNC_CONTAINER_STATUSES, text);
    free(text);
    return WH_OK;
}

/* unready-acquired annotation <-> the PreRecreateGrace condition (15.2). */
static enum wh_err grace(struct wh_conv_ctx *c, enum wh_conv_dir dir, const json_t *src,
                         json_t *dst)
{
    (void)c;
    wh_conv_del(dst, "status", "conditions", NULL);
    char when[WH_GOTIME_MAX];
    struct wh_gotime t;
    if (dir == WH_CONV_UP) {
        const char *raw =
            wh_conv_meta_get(src, WH_META_ANNOTATION, WH_KRUISE_ANN_CRR_UNREADY_ACQUIRED);
        if (!raw || !*raw || wh_gotime_parse(raw, strlen(raw), WH_GOTIME_RFC3339, &t, NULL))
            return WH_OK;
        wh_gotime_format(t, WH_GOTIME_RFC3339, when, sizeof(when));
        json_t *cond = json_object();
        json_object_set_new(cond, "type", json_string(GRACE));
        json_object_set_new(cond, "status", json_string("True"));
        json_object_set_new(cond, "lastTransitionTime",
                            wh_gotime_is_zero(t) ? json_null() : json_string(when));
        json_object_set_new(cond, "reason", json_string(GRACE));
        json_object_set_new(cond, "message", json_string(GRACE_MESSAGE));
        json_t *list = json_array();
        json_array_append_new(list, cond);
        wh_conv_set_new(dst, list, "status", "conditions", NULL);
        return WH_OK;
    }
    const json_t *conds = wh_conv_get(src, "status", "conditions", NULL);
    size_t i;
    json_t *e;
    json_array_foreach(conds, i, e)
    {
        const char *type = json_string_value(json_object_get(e, "type"));
        const char *status = json_string_value(json_object_get(e, "status"));
        if (!type || !status || strcmp(type, GRACE) != 0 || strcmp(status, "True") != 0)
            continue;
        /* an unset time is Go's zero time, which time.Format prints */
        const json_t *ltt = json_object_get(e, "lastTransitionTime");
        if (!json_is_string(ltt) || wh_gotime_parse(json_string_value(ltt), json_string_length(ltt),
                                                    WH_GOTIME_RFC3339, &t, NULL))
            t = (struct wh_gotime){WH_GOTIME_ZERO_SEC, 0};
        wh_gotime_format(t, WH_GOTIME_RFC3339, when, sizeof(when));
        wh_conv_meta_set(dst, WH_META_ANNOTATION, WH_KRUISE_ANN_CRR_UNREADY_ACQUIRED, when);
        break;
    }
    return WH_OK;
}

#define CONTAINER "spec.containers[]"

static const struct wh_conv_row rows[] = {
    /* v1beta1 status <-> v1alpha1 annotations */
    CUSTOM(NULL, "status.containerStatusSnapshot", snapshot),
    ANNOTATION_DERIVED(WH_KRUISE_ANN_CRR_SYNC_CONTAINER_STATUSES,
                       "[{\"name\":\"app\",\"ready\":true,\"restartCount\":2}]|{not json"),
    CUSTOM(NULL, "status.conditions", grace),
    ANNOTATION_DERIVED(WH_KRUISE_ANN_CRR_UNREADY_ACQUIRED,
                       "2025-03-01T16:00:00+08:00|2025-03-01 16:00:00"),
};

const struct wh_conv_kind wh_conv_crr = {WH_KRUISE_APPS, "ContainerRecreateRequest", WH_ROWS(rows)};
