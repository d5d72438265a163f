#include "handlers/kruise_object.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config/features.h"
#include "conversion/convert.h"
#include "gocompat/goequal.h"
#include "gocompat/gotype.h"
#include "k8s/kruise.h"
#include "k8s/typemeta.h"
#include "util/json.h"
#include "util/mem.h"
#include "util/str.h"

enum wh_kobj_version wh_kobj_version_of(const struct wh_admission_request *req)
{
    if (strcmp(req->resource.version, "v1alpha1") == 0)
        return WH_KOBJ_V1ALPHA1;
    if (strcmp(req->resource.version, "v1beta1") == 0)
        return WH_KOBJ_V1BETA1;
    return WH_KOBJ_OTHER;
}

static const char *api_of(enum wh_kobj_version v)
{
    return v == WH_KOBJ_V1ALPHA1 ? WH_KRUISE_APPS_V1ALPHA1 : WH_KRUISE_APPS_V1BETA1;
}

const struct wh_gotype *wh_kobj_type(const char *kind, enum wh_kobj_version v)
{
    const struct wh_gotype *t = wh_gotype_lookup(api_of(v), kind);
    if (!t)
        WH_PANIC("the Go-type model has no %s %s", api_of(v), kind);
    return t;
}

enum wh_err wh_kobj_decode(const json_t *raw, const char *kind, enum wh_kobj_version v, bool up,
                           json_t **out, char **msg)
{
    struct wh_errbuf eb = {{0}};
    *out = NULL;
    *msg = NULL;
    if (v == WH_KOBJ_OTHER) {
        *out = json_object();
        return WH_OK;
    }
    if (!raw || json_is_null(raw)) {
        *msg = wh_xstrdup("there is no content to decode");
        return WH_ERR_INVALID;
    }
    /* runtime.DecodeInto: an object naming another registered type is decoded into that type
     * first, so its field errors come before the mismatch (gocompat/decodeinto.h) */
    struct wh_typemeta_named named;
    if (wh_typemeta_resolve(raw, api_of(v), kind, true, &named, &eb)) {
        *msg = wh_xstrdup(eb.msg);
        return WH_ERR_INVALID;
    }
    enum wh_err rc;
    if (named.other) {
        const struct wh_gotype *t = wh_gotype_lookup(named.api, named.kind);
        rc = t ? wh_gotype_check_full(raw, t, msg) : WH_OK;
        if (!rc) {
            *msg = wh_xstrdup(named.mismatch);
            rc = WH_ERR_INVALID;
        }
        return rc;
    }
    rc = wh_gotype_check_full(raw, wh_kobj_type(kind, v), msg);
    if (rc)
        return rc;
    if (!up || v != WH_KOBJ_V1ALPHA1) {
        *out = json_incref((json_t *)(uintptr_t)raw);
        return WH_OK;
    }
    char *why = NULL;
    rc = wh_convert_up(kind, raw, out, &why);
    if (rc)
        *msg = wh_str_printf("failed to convert v1alpha1->v1beta1: %s", why ? why : "");
    free(why);
    return rc;
}

void wh_kobj_keep_type_meta(json_t *obj, const json_t *raw)
{
    static const char *const keys[] = {"apiVersion", "kind"};
    for (size_t i = 0; i < 2; i++) {
        const json_t *v = json_object_get(raw, keys[i]);
        if (json_is_string(v))
            json_object_set_new(obj, keys[i], json_string(json_string_value(v)));
        else
            json_object_del(obj, keys[i]);
    }
}

/* Answers 400 with msg (freed). */
static void deny_decode(struct wh_admission_response *resp, char *msg)
{
    wh_admission_deny(resp, 400, "%s", msg ? msg : "");
    free(msg);
}

/* The object Go defaults, as JSON in the version the defaults see, in the form m->go_value
 * picks, or NULL after answering 400. */
static json_t *decoded_for_defaults(const struct wh_kobj_mutator *m, const json_t *raw,
                                    enum wh_kobj_version v, struct wh_admission_response *resp)
{
    char *msg = NULL;
    if (v == WH_KOBJ_OTHER)
        return json_object(); /* upstream decodes nothing and defaults an empty object */
    json_t *obj = NULL;
    if (m->go_value) {
        if (!wh_kobj_decode_or_deny(raw, m->kind, v, &obj, resp))
            return NULL;
    } else {
        json_t *checked = NULL;
        if (wh_kobj_decode(raw, m->kind, v, false, &checked, &msg)) {
            deny_decode(resp, msg);
            return NULL;
        }
        /* without the members Go's decoding drops, values otherwise as given; it shares
         * subtrees with the request and is only read: the defaults edit a deep copy of it */
        json_t *pruned = wh_gotype_prune_unknown(checked, wh_kobj_type(m->kind, v));
        obj = pruned ? pruned : json_incref(checked);
        json_decref(checked);
    }
    if (m->via_v1beta1 && v == WH_KOBJ_V1ALPHA1) {
        json_t *beta = NULL;
        enum wh_err rc = wh_convert_up(m->kind, obj, &beta, &msg);
        json_decref(obj);
        if (rc) {
            wh_admission_deny(resp, 400, "failed to convert v1alpha1->v1beta1: %s", msg ? msg : "");
            free(msg);
            return NULL;
        }
        obj = beta;
    }
    return obj;
}

/* The type of spec.<member> of the kind in version v. */
static const struct wh_gotype *spec_member_type(const char *kind, enum wh_kobj_version v,
                                                const char *member)
{
    const struct wh_gofield *spec = wh_gotype_member(wh_kobj_type(kind, v), "spec");
    const struct wh_gofield *f = spec ? wh_gotype_member(spec->type, member) : NULL;
    if (!f)
        WH_PANIC("the Go-type model's %s has no spec.%s", kind, member);
    return f->type;
}

static const json_t *spec_member(const json_t *obj, const char *member)
{
    return json_object_get(wh_json_obj(obj, "spec"), member);
}

enum wh_err wh_kobj_mutate(const struct wh_kobj_mutator *m, const struct wh_handler_ctx *ctx,
                           const struct wh_admission_request *req,
                           struct wh_admission_response *resp, struct wh_errbuf *eb)
{
    enum wh_err rc = WH_OK;
    json_t *obj = NULL, *old = NULL, *defaulted = NULL, *encoded = NULL;
    enum wh_kobj_version v = wh_kobj_version_of(req);
    if (v == WH_KOBJ_OTHER && !m->via_v1beta1) {
        wh_admission_deny(resp, 400, "unsupported version: %s", req->resource.version);
        return WH_OK;
    }
    /* the version the defaults see, and the one Go encodes */
    enum wh_kobj_version dv = m->via_v1beta1 ? WH_KOBJ_V1BETA1 : v;
    enum wh_kobj_version ev = (m->via_v1beta1 && v == WH_KOBJ_V1ALPHA1) ? WH_KOBJ_V1ALPHA1 : dv;
    if (v == WH_KOBJ_OTHER && (!req->object || json_is_null(req->object))) {
        /* PatchResponseFromRaw's CreatePatch cannot read an absent object */
        return wh_errbuf_set(eb, WH_ERR_INTERNAL, "invalid JSON Document");
    }
    obj = decoded_for_defaults(m, req->object, v, resp);
    if (!obj)
        goto out;

    bool inject = false;
    if (m->template_member && !wh_feature_on(&ctx->cfg->features, WH_FEATURE_TemplateNoDefaults)) {
        if (strcmp(req->operation, "UPDATE") == 0) {
            old = decoded_for_defaults(m, req->old_object, v, resp);
            if (!old)
                goto out;
            inject = !wh_go_deep_equal(
                spec_member(obj, m->template_member), spec_member(old, m->template_member),
                spec_member_type(m->kind, dv, m->template_member), WH_GOEQ_REFLECT);
        } else {
            inject = true;
        }
    }

    if (m->shared_defaults) {
        if (!m->go_value)
            WH_PANIC("%s: shared_defaults would edit the request's own JSON", m->kind);
        m->shared_defaults(obj, dv); /* Go's value is the frame's own */
    }
    defaulted = wh_json_copy(obj); /* the request's JSON form shares its subtrees: never edited */
    struct wh_kobj_defaulting how = {.v = dv,
                                     .inject = inject,
                                     .create = strcmp(req->operation, "CREATE") == 0,
                                     .cfg = ctx->cfg};
    m->defaults(defaulted, &how);
    if (m->clear_status)
        json_object_set_new(defaulted, "status", json_object());
    if (wh_go_deep_equal(obj, defaulted, wh_kobj_type(m->kind, dv), WH_GOEQ_REFLECT)) {
        wh_admission_allow(resp, NULL);
        goto out;
    }
    if (ev != dv) {
        json_t *alpha = NULL;
        char *msg = NULL;
        if (wh_convert_object(WH_KRUISE_APPS_V1ALPHA1, defaulted, &alpha, &msg)) {
            wh_admission_deny(resp, 400, "failed to convert v1beta1->v1alpha1: %s", msg ? msg : "");
            free(msg);
            goto out;
        }
        json_decref(defaulted);
        defaulted = alpha;
        wh_kobj_keep_type_meta(defaulted, req->object);
    }
    /* the defaults only add values of the right types: the encoding cannot fail */
    rc = wh_gotype_normalize(defaulted, wh_kobj_type(m->kind, ev), &encoded, eb);
    if (rc)
        goto out;
    wh_admission_set_mutated_new(resp, encoded);
    encoded = NULL;
    wh_admission_allow(resp, NULL);
out:
    json_decref(obj);
    json_decref(old);
    json_decref(defaulted);
    json_decref(encoded);
    return rc;
}

bool wh_kobj_version_or_deny(const struct wh_admission_request *req,
                             struct wh_admission_response *resp, enum wh_kobj_version *v)
{
    *v = wh_kobj_version_of(req);
    if (*v != WH_KOBJ_OTHER)
        return true;
    wh_admission_deny(resp, 400, "unsupported version: %s", req->resource.version);
    return false;
}

bool wh_kobj_decode_or_deny(const json_t *raw, const char *kind, enum wh_kobj_version v,
                            json_t **out, struct wh_admission_response *resp)
{
    char *msg = NULL;
    json_t *checked = NULL;
    *out = NULL;
    if (wh_kobj_decode(raw, kind, v, false, &checked, &msg)) {
        deny_decode(resp, msg);
        return false;
    }
    struct wh_errbuf eb = {{0}};
    /* the decoding above checked every member: Go's value of it cannot fail */
    if (wh_gotype_decode(checked, wh_kobj_type(kind, v), out, &eb))
        WH_PANIC("decoding a checked %s failed: %s", kind, eb.msg);
    json_decref(checked);
    return true;
}

bool wh_kobj_gate_off(struct wh_admission_response *resp, bool on, const char *name)
{
    if (on)
        return false;
    wh_admission_deny(resp, 403, "feature-gate %s is not enabled", name);
    wh_admission_set_reason(resp, NULL);
    return true;
}
