#include "handlers/object.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gocompat/gotype.h"
#include "k8s/kruise.h"
#include "k8s/typemeta.h"
#include "util/json.h"
#include "util/jsoneq.h"
#include "util/mem.h"

const char *wh_object_api_version(const struct wh_admission_request *req)
{
    if (strcmp(req->resource.version, "v1beta1") == 0)
        return WH_KRUISE_APPS_V1BETA1;
    if (strcmp(req->resource.version, "v1alpha1") == 0)
        return WH_KRUISE_APPS_V1ALPHA1;
    return NULL;
}

enum wh_err wh_object_decode(const json_t *raw, const char *api_version, const char *kind,
                             json_t **out, char **msg)
{
    *msg = NULL;
    if (out)
        *out = NULL;
    if (!raw || json_is_null(raw)) {
        *msg = wh_xstrdup("there is no content to decode");
        return WH_ERR_INVALID;
    }
    const struct wh_gotype *type = wh_gotype_lookup(api_version, kind);
    if (!type)
        WH_PANIC("the Go-type model has no %s %s", api_version, kind);
    struct wh_errbuf eb = {{0}};
    /* every kind decoded here is in kruise-manager's scheme */
    enum wh_err rc = wh_typemeta_decode_into(raw, api_version, kind, true, &eb);
    if (rc) {
        *msg = wh_xstrdup(eb.msg);
        return rc;
    }
    rc = wh_gotype_check_full(raw, type, msg);
    if (rc || !out)
        return rc;
    /* the check above passed, so decoding cannot fail */
    return wh_gotype_decode(raw, type, out, &eb);
}

bool wh_object_decode_or_deny(const json_t *raw, const char *api_version, const char *kind,
                              json_t **out, struct wh_admission_response *resp)
{
    char *msg = NULL;
    if (wh_object_decode(raw, api_version, kind, out, &msg) == WH_OK)
        return true;
    wh_admission_deny(resp, 400, "%s", msg);
    free(msg);
    return false;
}

enum wh_err wh_object_mutate(const struct wh_admission_request *req,
                             struct wh_admission_response *resp, const char *kind,
                             wh_object_default_fn defaults, struct wh_errbuf *eb)
{
    enum wh_err rc = WH_OK;
    json_t *decoded = NULL, *before = NULL, *after = NULL;
    const char *api = wh_object_api_version(req);
    if (!api) {
        wh_admission_deny(resp, 400, "unsupported version: %s", req->resource.version);
        return WH_OK;
    }
    if (!wh_object_decode_or_deny(req->object, api, kind, &decoded, resp))
        return WH_OK;
    const struct wh_gotype *type = wh_gotype_lookup(api, kind);
    /* reflect.DeepEqual of the defaulted object and its copy: the defaults only add or reorder
     * well-typed values, so the two compare as Go's encodings of them */
    rc = wh_gotype_normalize(decoded, type, &before, eb);
    if (rc)
        goto out;
    defaults(decoded, req);
    rc = wh_gotype_normalize(decoded, type, &after, eb);
    if (rc)
        goto out;
    if (!wh_json_equal(before, after, WH_JSON_EQ_EXACT)) {
        wh_admission_set_mutated_new(resp, after);
        after = NULL;
    }
    wh_admission_allow(resp, NULL);
out:
    json_decref(decoded);
    json_decref(before);
    json_decref(after);
    return rc;
}

bool wh_object_gate_off(struct wh_admission_response *resp, bool on, const char *name)
{
    if (on)
        return false;
    wh_admission_deny(resp, 403, "feature-gate %s is not enabled", name);
    wh_admission_set_reason(resp, NULL);
    return true;
}
