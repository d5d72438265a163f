/* The frame of the four workload defaulting handlers (upstream's *_create_update_handler.go of
 * pkg/webhook/{cloneset,statefulset,daemonset,uniteddeployment}/mutating): what each does around
 * its kind's SetDefaults function.
 *
 * Go decodes the object, keeps a deep copy, defaults the object and compares the two with
 * reflect.DeepEqual: equal, the answer is allowed without a patch; else the patch turns the
 * request's object into json.Marshal of the defaulted one (PatchResponseFromRaw), so the stored
 * object is Go's encoding: unknown members dropped, zero values of non-omitempty fields written.
 * Here the defaults are applied to the request's own JSON (only its known members, so quantity
 * texts are still the request's and a rounding shows as a change, as it does in Go's value),
 * the two are compared as Go compares the decoded values (gocompat/goequal.h), and the patched
 * object is the defaulted one encoded as Go encodes it (wh_gotype_normalize). */
#include "handlers/workloads/workload_int.h"

#include <stdlib.h>
#include <string.h>

#include "config/features.h"
#include "conversion/convert.h"
#include "gocompat/goequal.h"
#include "k8s/defaults.h"
#include "k8s/kruise.h"
#include "util/json.h"
#include "util/mem.h"

void wl_default_templates(json_t *spec, const struct wh_config *cfg)
{
    json_t *pod_spec = wh_json_obj_ensure(wh_json_obj_ensure(spec, "template"), "spec");
    wh_k8s_default_pod_spec(
        pod_spec,
        wh_feature_on(&cfg->features, WH_FEATURE_DefaultHostNetworkHostPortsInPodTemplates));
    size_t i;
    json_t *claim;
    json_array_foreach(wh_json_arr(spec, "volumeClaimTemplates"), i, claim)
    {
        wh_k8s_default_pvc_template(claim);
    }
}

/* The object Go defaults, as JSON in version dv (pruned to its known members), or NULL after
 * answering 400. */
static json_t *decoded_for_defaults(const struct wl_mutator *m, const json_t *raw,
                                    enum wh_kobj_version v, struct wh_admission_response *resp)
{
    char *msg = NULL;
    if (v == WH_KOBJ_OTHER)
        return json_object(); /* upstream decodes nothing and defaults an empty object */
    json_t *checked = NULL;
    if (wh_kobj_decode(raw, m->kind, v, false, &checked, &msg)) {
        wl_deny_decode(resp, msg);
        return NULL;
    }
    /* without the members Go's decoding drops, values otherwise as given (quantity texts
     * included); a deep copy, as the defaults edit it */
    json_t *pruned = wh_gotype_prune_unknown(checked, wh_kobj_type(m->kind, v));
    json_t *obj = wh_json_copy(pruned ? pruned : checked);
    json_decref(pruned);
    json_decref(checked);
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

enum wh_err wl_mutate(const struct wl_mutator *m, const struct wh_handler_ctx *ctx,
                      const struct wh_admission_request *req, struct wh_admission_response *resp,
                      struct wh_errbuf *eb)
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

    defaulted = wh_json_copy(obj);
    m->defaults(defaulted, dv, inject, ctx->cfg);
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
    json_t *mutable_obj = wh_admission_mutable_object(resp, req);
    json_object_clear(mutable_obj);
    json_object_update(mutable_obj, encoded);
    wh_admission_allow(resp, NULL);
out:
    json_decref(obj);
    json_decref(old);
    json_decref(defaulted);
    json_decref(encoded);
    return rc;
}
