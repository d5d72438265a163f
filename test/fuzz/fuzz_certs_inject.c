/* Fuzz target for caBundle injection (certs/inject.c): the webhook configurations and CRDs it
 * rewrites come from the API server and anyone may have edited them. The input is one JSON
 * object, tried as a webhook configuration and as a CRD, in service and in URL mode. Nothing
 * may crash or leak; injecting twice changes nothing the second time; what was injected
 * verifies. */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "certs/inject.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool serves_some(void *arg, const char *path)
{
    (void)arg;
    return strcmp(path, "/validate-namespace") == 0 || strncmp(path, "/mutate-", 8) == 0;
}

static void die(const char *what)
{
    fprintf(stderr, "%s\n", what);
    abort();
}

static void run(const json_t *obj, const struct wh_certs_inject_target *t)
{
    json_t *once = NULL, *twice = NULL;
    struct wh_errbuf eb = {{0}};
    if (wh_certs_inject_webhooks(obj, t, &once, NULL, &eb) == WH_OK) {
        const json_t *done = once ? once : obj;
        if (wh_certs_inject_webhooks(done, t, &twice, NULL, &eb) != WH_OK || twice)
            die("injection is not idempotent");
        if (wh_certs_inject_verify_webhooks(done, "K", t, true, &eb) != WH_OK)
            die("injected configuration does not verify");
    }
    json_decref(once);
    once = NULL;
    wh_certs_inject_crd(obj, t, &once);
    if (once) {
        wh_certs_inject_crd(once, t, &twice);
        if (twice)
            die("CRD injection is not idempotent");
        if (wh_certs_inject_verify_crd(once, t, true, &eb) != WH_OK)
            die("injected CRD does not verify");
    }
    (void)wh_certs_inject_verify_crd(obj, t, false, &eb);
    json_decref(once);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char pem[] = "-----BEGIN CERTIFICATE-----\nMA==\n-----END CERTIFICATE-----\n";
    json_error_t jerr;
    json_t *obj = json_loadb((const char *)data, size, JSON_DECODE_ANY, &jerr);
    if (!obj)
        return 0;
    struct wh_certs_inject_target t = {
        .ns = "kruise-system",
        .service = "svc",
        .port = 9876,
        .ca_bundle = pem,
        .ca_bundle_len = sizeof(pem) - 1,
        .serves = serves_some,
    };
    run(obj, &t);
    t.host = "fd00::5";
    run(obj, &t);
    json_decref(obj);
    return 0;
}
