/* What the workload handlers add to kruise_object's decoding (handlers/kruise_object.h: the
 * version, the Go type, Decoder.Decode): Go's value of a checked object, the v1alpha1 objects
 * some kinds convert to v1beta1 after decoding, and the answers every workload handler shares. */
#include "handlers/workloads/workload_int.h"

#include <stdlib.h>

#include "conversion/convert.h"

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
