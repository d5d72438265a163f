/* Fuzz target for the objects the server reads from the API server outside the caches: the
 * certificate Secret (generated and external key sets) and the leader-election Lease. The
 * input is one JSON value. Nothing may crash or leak; a Secret that reads must give back a
 * bundle whose Secret form reads to the same bundle. */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "certs/bundle.h"
#include "certs/secret.h"
#include "kube/lease.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_error_t jerr;
    json_t *obj = json_loadb((const char *)data, size, JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr);
    if (!obj)
        return 0;
    static const enum wh_certs_secret_keys sets[] = {WH_CERTS_SECRET_GENERATED,
                                                     WH_CERTS_SECRET_EXTERNAL};
    for (size_t i = 0; i < 2; i++) {
        struct wh_certs_bundle *b = NULL, *back = NULL;
        struct wh_errbuf eb;
        if (wh_certs_secret_read(obj, sets[i], &b, &eb) != WH_OK)
            continue;
        if (i == 0) {
            json_t *again = wh_certs_secret_object("ns", "name", "1", b);
            if (wh_certs_secret_read(again, sets[i], &back, &eb) != WH_OK ||
                !wh_certs_bundle_equal(b, back)) {
                fprintf(stderr, "a Secret read back differs\n");
                abort();
            }
            wh_certs_bundle_free(back);
            json_decref(again);
        }
        wh_certs_bundle_free(b);
    }
    struct wh_lease_record rec;
    wh_lease_parse(obj, &rec);
    if (!memchr(rec.holder, 0, sizeof(rec.holder)))
        abort();
    json_t *lease = wh_lease_object("ns", "name", &rec, NULL, NULL);
    json_decref(lease);
    json_decref(obj);
    return 0;
}
