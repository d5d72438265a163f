#include "handlers/sidecarset/mutate.h"

#include <stdio.h>
#include <string.h>

#include "gocompat/gotype.h"
#include "handlers/sidecarset/defaults.h"
#include "handlers/sidecarset/hash.h"
#include "k8s/kruise.h"
#include "util/json.h"
#include "util/jsoneq.h"

/* Upstream's defaulting dereferences sourceContainerNameFrom.fieldRef without a nil check; the
 * panic is recovered by controller-runtime and answered as a 500 (spec 11.12). */
static bool defaulting_panics(const json_t *spec)
{
    static const char *const lists[] = {"initContainers", "containers"};
    for (size_t l = 0; l < 2; l++) {
        size_t i, j;
        const json_t *c, *te;
        json_array_foreach(wh_json_arr(spec, lists[l]), i, c)
        {
            json_array_foreach(wh_json_arr(c, "transferEnv"), j, te)
            {
                const json_t *from = wh_json_obj(te, "sourceContainerNameFrom");
                if (from && !wh_json_obj(from, "fieldRef"))
                    return true;
            }
        }
    }
    return false;
}

static enum wh_err admit(const struct wh_handler_ctx *ctx, const struct wh_admission_request *req,
                         struct wh_admission_response *resp, struct wh_errbuf *eb)
{
    enum wh_err rc = WH_OK;
    const struct wh_gotype *type = NULL;
    json_t *decoded = NULL, *defaulted = NULL, *encoded = NULL;
    struct wh_errbuf derr = {{0}};
    (void)ctx;

    if (strcmp(req->resource.version, "v1beta1") == 0 ||
        strcmp(req->resource.version, "v1alpha1") == 0) {
        char api[64];
        snprintf(api, sizeof(api), WH_KRUISE_APPS "/%s", req->resource.version);
        type = wh_gotype_lookup(api, "SidecarSet");
    } else {
        wh_admission_deny(resp, 400, "unsupported version: %s", req->resource.version);
        return WH_OK;
    }
    if (!req->object) {
        wh_admission_deny(resp, 400, "there is no content to decode");
        return WH_OK;
    }
    if (wh_gotype_normalize(req->object, type, &decoded, &derr)) {
        wh_admission_deny(resp, 400, "%s", derr.msg);
        return WH_OK;
    }
    if (strcmp(req->operation, "CREATE") != 0 && strcmp(req->operation, "UPDATE") != 0) {
        wh_admission_allow(resp, NULL);
        goto out;
    }
    if (defaulting_panics(wh_json_obj(decoded, "spec"))) {
        rc = wh_errbuf_set(eb, WH_ERR_INTERNAL,
                           "panic: runtime error: invalid memory address or nil pointer "
                           "dereference [recovered]");
        goto out;
    }

    /* Defaults and hash work on the value Go holds after decoding rather than on its encoding:
     * Go keeps an empty "containers": [] as an empty slice, which the hash prints as [], while
     * the omitempty encoding drops it; and a null element of a list is a zero struct, which the
     * defaults then fill (the request object itself kept the null: found by the differential
     * run). The decoding above already rejected wrongly typed values. */
    rc = wh_gotype_decode(req->object, type, &defaulted, eb);
    if (rc)
        goto out;
    wh_sidecarset_defaults(defaulted);
    wh_sidecarset_hash_annotate(defaulted, false);
    /* the defaults only add well-typed values, so the second encoding cannot fail */
    rc = wh_gotype_normalize(defaulted, type, &encoded, eb);
    if (rc)
        goto out;
    if (wh_json_equal(decoded, encoded, WH_JSON_EQ_EXACT)) {
        wh_admission_allow(resp, NULL);
        goto out;
    }
    wh_admission_set_mutated_new(resp, encoded);
    encoded = NULL;
    wh_admission_allow(resp, NULL);
out:
    json_decref(decoded);
    json_decref(defaulted);
    json_decref(encoded);
    return rc;
}

const struct wh_route wh_sidecarset_mutate_route = {
    .path = "/mutate-apps-kruise-io-sidecarset",
    .kind = WH_ROUTE_MUTATE,
    .admit = admit,
    .entries = {{.name = "msidecarset.kb.io",
                 .group = WH_KRUISE_APPS,
                 .versions = {"v1alpha1", "v1beta1"},
                 .resource = "sidecarsets",
                 .operations = WH_WEBHOOK_CREATE | WH_WEBHOOK_UPDATE}},
};
