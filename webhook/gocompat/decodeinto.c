#include "gocompat/decodeinto.h"

#include "gocompat/gotype.h"
#include "k8s/typemeta.h"

enum wh_err wh_decode_into(const json_t *raw, const char *api, const char *kind, json_t **out,
                           struct wh_errbuf *eb)
{
    *out = NULL;
    if (!raw || json_is_null(raw))
        return wh_errbuf_set(eb, WH_ERR_INVALID, "there is no content to decode");
    struct wh_typemeta_named named;
    enum wh_err rc = wh_typemeta_resolve(raw, api, kind, true, &named, eb);
    if (rc)
        return rc;
    if (named.other) {
        /* a type the model does not describe decodes without field errors here */
        const struct wh_gotype *t = wh_gotype_lookup(named.api, named.kind);
        rc = t ? wh_gotype_check(raw, t, eb) : WH_OK;
        return rc ? rc : wh_errbuf_set(eb, WH_ERR_INVALID, "%s", named.mismatch);
    }
    return wh_gotype_decode(raw, wh_gotype_lookup(api, kind), out, eb);
}
