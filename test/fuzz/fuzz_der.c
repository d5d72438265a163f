/* Fuzz target for the strict DER check (certs/der.c), which reads every certificate that
 * comes from the Secret, the cert dir or a caBundle. Nothing may crash, hang or read out of
 * bounds; and a certificate the check calls DER that OpenSSL also parses must re-encode to
 * the very same bytes (DER has one encoding per value, so a difference is a rule missed). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/x509.h>

#include "certs/der.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct wh_errbuf eb;
    if (wh_certs_der_check(data, size, &eb) != WH_OK)
        return 0;
    if (wh_certs_der_check_cert(data, size, &eb) != WH_OK)
        return 0;
    const unsigned char *p = data;
    X509 *x = d2i_X509(NULL, &p, (long)size);
    if (!x)
        return 0;
    unsigned char *again = NULL;
    int n = i2d_X509(x, &again);
    if (n != (int)size || memcmp(again, data, size) != 0) {
        fprintf(stderr, "DER by our check, but OpenSSL re-encodes it differently\n");
        abort();
    }
    OPENSSL_free(again);
    X509_free(x);
    return 0;
}
