/* Fuzz target for the PEM and certificate loading path of certs/ (what reads the Secret, the
 * certificate directory and cert-manager's material). The input is up to four texts separated
 * by NUL bytes: ca-key.pem, ca-cert.pem, cert.pem, key.pem. Nothing may crash or leak; a set
 * judged valid must really pair and chain; a parsed certificate must survive re-encoding. */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/x509.h>

#include "certs/bundle.h"
#include "certs/pem.h"
#include "certs/verify.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A fixed clock (2027-01-15) keeps runs reproducible. */
#define FUZZ_NOW ((time_t)1800000000)

static void check_roundtrip(X509 *x)
{
    char *pem = NULL;
    size_t len = 0;
    X509 *back = NULL;
    if (wh_certs_pem_encode_cert(x, &pem, &len) != WH_OK)
        return; /* OpenSSL may refuse to re-encode odd input; that is not a crash */
    if (wh_certs_pem_first_cert(pem, len, &back) != WH_OK || X509_cmp(x, back) != 0) {
        fprintf(stderr, "certificate does not survive PEM re-encoding\n");
        abort();
    }
    X509_free(back);
    free(pem);
}

static void poke_part(const uint8_t *p, size_t n)
{
    X509 *x = NULL;
    EVP_PKEY *k = NULL;
    STACK_OF(X509) *sk = NULL;
    if (wh_certs_pem_first_cert(p, n, &x) == WH_OK) {
        check_roundtrip(x);
        json_decref(wh_certs_bundle_describe_cert(x, FUZZ_NOW));
        wh_certs_verify_host(x, "localhost");
        wh_certs_verify_host(x, "10.0.0.5");
        wh_certs_verify_secs_left(x, FUZZ_NOW);
    }
    if (wh_certs_pem_first_key(p, n, &k) == WH_OK && x)
        wh_certs_verify_key_matches(x, k);
    if (wh_certs_pem_certs(p, n, true, &sk) == WH_OK)
        sk_X509_pop_free(sk, X509_free);
    sk = NULL;
    if (wh_certs_pem_certs(p, n, false, &sk) == WH_OK) {
        if (x)
            wh_certs_verify_chain(x, sk, FUZZ_NOW, FUZZ_NOW, NULL);
        sk_X509_pop_free(sk, X509_free);
    }
    X509_free(x);
    EVP_PKEY_free(k);
}

/* A set judged valid must hold a key pair that matches: the check cannot be fooled. */
static void recheck_valid(const struct wh_certs_bundle *b)
{
    size_t cl = 0, kl = 0;
    const char *cert = wh_certs_bundle_get(b, WH_CERTS_CERT, &cl);
    const char *key = wh_certs_bundle_get(b, WH_CERTS_KEY, &kl);
    X509 *x = NULL;
    EVP_PKEY *k = NULL;
    if (wh_certs_pem_first_cert(cert, cl, &x) != WH_OK ||
        wh_certs_pem_first_key(key, kl, &k) != WH_OK || !wh_certs_verify_key_matches(x, k)) {
        fprintf(stderr, "set judged valid without a matching pair\n");
        abort();
    }
    X509_free(x);
    EVP_PKEY_free(k);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* One kind of check per input, picked by the input's length. With OpenSSL 3 nearly all
     * of an execution is spent setting up key decoders (OSSL_DECODER_CTX_new_for_pkey runs
     * for every key and every certificate parsed), so running every check on every input
     * (each parsing all four texts again, for five host names and both key types) ran 271
     * exec/s. The fuzzer still reaches each check, on inputs of other lengths. */
    static const enum wh_certs_item order[WH_CERTS_N_ITEMS] = {WH_CERTS_CA_KEY, WH_CERTS_CA_CERT,
                                                               WH_CERTS_CERT, WH_CERTS_KEY};
    static const char *const hosts[] = {"localhost", "kruise-webhook-server.kruise-system.svc",
                                        "10.0.0.5", "fd00::5", NULL};
    unsigned op = (unsigned)(size % 4);
    struct wh_certs_bundle *b = wh_certs_bundle_new();
    size_t start = 0;
    int part = 0;
    for (size_t i = 0; i <= size && part < WH_CERTS_N_ITEMS; i++) {
        if (i < size && data[i] != 0)
            continue;
        if (op == 0)
            poke_part(data + start, i - start);
        if (wh_certs_bundle_set(b, order[part], data + start, i - start) != WH_OK)
            break;
        part++;
        start = i + 1;
    }
    const char *host = hosts[(size / 4) % (sizeof(hosts) / sizeof(hosts[0]))];
    struct wh_errbuf why;
    if (op == 1 && wh_certs_bundle_validate(b, host, FUZZ_NOW, 180 * 86400, &why) == WH_CERTS_VALID)
        recheck_valid(b);
    if (op == 2)
        wh_certs_bundle_ca_reusable(b, size & 4 ? WH_CERTS_KEY_RSA : WH_CERTS_KEY_ECDSA, FUZZ_NOW,
                                    NULL);
    if (op == 3)
        json_decref(wh_certs_bundle_inspect(b, host ? host : "localhost", FUZZ_NOW, 180 * 86400));
    wh_certs_bundle_free(b);
    return 0;
}
