/* What the workload handlers add to kruise_object's decoding (handlers/kruise_object.h: the
 * version, the Go type, Decoder.Decode): the request's JSON pruned to what Go decodes, Go's value
 * of a checked object, the v1alpha1 objects some kinds convert to v1beta1 after decoding, and
 * the answers every workload handler shares. */
#include "handlers/workloads/workload_int.h"

#include <stdlib.h>

#include "conversion/convert.h"

json_t *wl_prune(const json_t *raw, const struct wh_gotype *t)
{
    switch (wh_gotype_kind(t)) {
    case WH_GK_STRUCT: {
        if (!json_is_object(raw))
            return json_incref((json_t *)(uintptr_t)raw);
        json_t *out = json_object();
        const char *k;
        json_t *v;
        json_object_foreach((json_t *)(uintptr_t)raw, k, v)
        {
            const struct wh_gofield *f = wh_gotype_member(t, k);
            if (f)
                json_object_set_new(out, k, wl_prune(v, f->type));
        }
        return out;
    }
    case WH_GK_SLICE: {
        if (!json_is_array(raw))
            return json_incref((json_t *)(uintptr_t)raw);
        json_t *out = json_array();
        size_t i;
        json_t *v;
        json_array_foreach(raw, i, v)
        {
            json_array_append_new(out, wl_prune(v, wh_gotype_elem(t)));
        }
        return out;
    }
    case WH_GK_MAP: {
        if (!json_is_object(raw))
            return json_incref((json_t *)(uintptr_t)raw);
        json_t *out = json_object();
        const char *k;
        json_t *v;
        json_object_foreach((json_t *)(uintptr_t)raw, k, v)
        {
            json_object_set_new(out, k, wl_prune(v, wh_gotype_elem(t)));
        }
        return out;
    }
    default:
        /* scalars and the kinds with JSON methods of their own are kept whole */
        return json_incref((json_t *)(uintptr_t)raw);
    }
}

json_t *wl_decoded(const json_t *raw, const char *kind, enum wh_kobj_version v)
{
    json_t *out = NULL;
    struct wh_errbuf eb;
    /* the value passed wl_decodable: decoding it again cannot fail */
    if (wh_gotype_decode(raw, wh_kobj_type(kind, v), &out, &eb))
        WH_PANIC("a checked %s no longer decodes: %s", kind, eb.msg);
    return out;
}

json_t *wl_decoded_up(const json_t *alpha, const char *kind, char **msg)
{
    json_t *beta = NULL, *out = NULL;
    *msg = NULL;
    if (wh_convert_up(kind, alpha, &beta, msg))
        return NULL;
    out = wl_decoded(beta, kind, WH_KOBJ_V1BETA1);
    json_decref(beta);
    return out;
}

void wl_deny_decode(struct wh_admission_response *resp, char *msg)
{
    wh_admission_deny(resp, 400, "%s", msg ? msg : "");
    free(msg);
}

bool wl_answer_errors(struct wh_admission_response *resp, const struct wh_field_errors *l)
{
    char *agg = wh_ferrs_aggregate(l);
    if (!agg) {
        wh_admission_allow(resp, NULL);
        return false;
    }
    wh_admission_deny(resp, 422, "%s", agg);
    free(agg);
    return true;
}

enum wh_err wl_nil_dereference(struct wh_errbuf *eb)
{
    return wh_errbuf_set(eb, WH_ERR_INTERNAL,
                         "panic: runtime error: invalid memory address or nil pointer "
                         "dereference [recovered]");
}
