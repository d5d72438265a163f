/* Fuzz target for the parsers behind the SidecarSet webhooks: resource quantities, Go regexp
 * syntax, and the typed JSON encoding, defaulting, hashing and validation of SidecarSets. The
 * first byte picks the parser; the rest is its input. Nothing may crash or leak; a quantity's
 * printed form must parse back to the same value; a normalised object must normalise to itself.
 */
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "handlers/sidecarset/defaults.h"
#include "handlers/sidecarset/hash.h"
#include "k8s/fielderr.h"
#include "gocompat/gotype.h"
#include "k8s/podvalidation.h"
#include "k8s/quantity.h"
#include "k8s/validation.h"
#include "util/json.h"
#include "util/mem.h"
#include "gocompat/regex.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_quantity(const char *s)
{
    struct wh_quantity q, back;
    struct wh_errbuf eb;
    char out[WH_QUANTITY_MAX_DIGITS + 8];
    if (wh_quantity_parse(s, &q, &eb))
        return;
    wh_quantity_format(&q, out, sizeof(out));
    /* beyond the E suffix (10^18) Go prints no suffix at all, so the text does not read back;
     * that is upstream's behaviour and checked only below it */
    bool in_range = (int64_t)q.ndigits + q.scale <= 18;
    if (in_range && (wh_quantity_parse(out, &back, &eb) || wh_quantity_cmp(&q, &back) != 0)) {
        fprintf(stderr, "quantity %s prints as %s, which does not read back\n", s, out);
        abort();
    }
    (void)wh_quantity_round_up(&q, -3);
    (void)wh_quantity_scaled_value(&q, -3);
}

/* (fuzz_regex has the engine's own target; this keeps the corpus's regex inputs running) */
static void fuzz_regex(const char *s)
{
    static const char key[] = "sidecar.example.com/owner";
    struct wh_regex *r;
    struct wh_regex_error err;
    if (wh_regex_compile(s, strlen(s), &r, &err))
        return;
    (void)wh_regex_match(r, key, sizeof(key) - 1);
    wh_regex_free(r);
}

static void fuzz_object(const char *s, size_t n)
{
    json_error_t jerr;
    json_t *obj = json_loadb(s, n, 0, &jerr), *norm = NULL, *again = NULL;
    struct wh_errbuf eb;
    if (!json_is_object(obj))
        goto out;
    const struct wh_gotype *t = wh_gotype_lookup("apps.kruise.io/v1beta1", "SidecarSet");
    if (wh_gotype_normalize(obj, t, &norm, &eb) == WH_OK) {
        if (wh_gotype_normalize(norm, t, &again, &eb) || !json_equal(norm, again)) {
            fprintf(stderr, "normalisation is not idempotent\n");
            abort();
        }
        struct wh_field_errors l;
        wh_ferrs_init(&l);
        wh_validate_object_meta(&l, json_object_get(norm, "metadata"), false,
                                wh_name_is_dns_subdomain, "metadata");
        wh_validate_label_selector(&l, json_object_get(json_object_get(norm, "spec"), "selector"),
                                   "spec.selector");
        json_t *spec = json_pack(
            "{s:O?,s:O?,s:O?,s:s,s:s,s:i}", "containers",
            json_object_get(json_object_get(norm, "spec"), "containers"), "initContainers",
            json_object_get(json_object_get(norm, "spec"), "initContainers"), "volumes",
            json_object_get(json_object_get(norm, "spec"), "volumes"), "restartPolicy", "Always",
            "dnsPolicy", "ClusterFirst", "terminationGracePeriodSeconds", 30);
        wh_validate_pod_spec(&l, spec);
        json_decref(spec);
        free(wh_ferrs_aggregate(&l));
        wh_ferrs_fini(&l);
    }
    wh_sidecarset_defaults(obj);
    wh_sidecarset_hash_annotate(obj, false);
    (void)json_object_size(obj);
out:
    json_decref(obj);
    json_decref(norm);
    json_decref(again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int init;
    if (!init) {
        wh_json_init();
        init = 1;
    }
    if (size < 1 || size > 65536)
        return 0;
    char *s = wh_xstrndup((const char *)data + 1, size - 1);
    switch (data[0] % 3) {
    case 0:
        fuzz_quantity(s);
        break;
    case 1:
        fuzz_regex(s);
        break;
    default:
        fuzz_object(s, strlen(s));
        break;
    }
    free(s);
    return 0;
}
