#ifndef WH_CERTS_PEM_H
#define WH_CERTS_PEM_H

/* PEM encoding and decoding of certificates and private keys, with the block selection rules
 * upstream inherits from Go (spec certs.md CERT-23, CERT-40, CERT-41):
 * - certificates are read from blocks of type CERTIFICATE only; other blocks are skipped;
 * - a certificate parses only when its DER is strict (certs/der.h), as Go's
 *   x509.ParseCertificate requires: one that only OpenSSL reads is "does not parse" here;
 * - a private key is the first block whose type is "PRIVATE KEY" or ends in " PRIVATE KEY",
 *   and its DER may be PKCS#1 (RSA), PKCS#8 or SEC1 (EC) whatever the block type says;
 * - keys are written as "RSA PRIVATE KEY" (PKCS#1) for RSA, "EC PRIVATE KEY" (SEC1, named
 *   curve) for EC; certificates as one "CERTIFICATE" block.
 * Inputs are bytes with a length (not NUL-terminated strings) and are capped at
 * WH_CERTS_PEM_MAX. Garbage never crashes: it yields WH_ERR_PARSE or WH_ERR_NOT_FOUND.
 * OpenSSL objects handed out are owned by the caller (X509_free, EVP_PKEY_free,
 * sk_X509_pop_free(.., X509_free)). Thread rule: thread-safe (no shared state). */

#include <stdbool.h>
#include <stddef.h>

#include <openssl/evp.h>
#include <openssl/x509.h>

#include "util/err.h"

/* Largest PEM input accepted, per file or Secret key (a bundle is a few KiB). */
#define WH_CERTS_PEM_MAX (1024 * 1024)

/* The first CERTIFICATE block of pem, parsed (Go's tls.X509KeyPair: later blocks are not
 * tried when the first one is bad). WH_ERR_NOT_FOUND: no CERTIFICATE block; WH_ERR_PARSE:
 * it does not parse. */
WH_NODISCARD enum wh_err wh_certs_pem_first_cert(const void *pem, size_t len, X509 **out);
/* The same; why (may be NULL) says what is wrong on failure ("not DER, ...: BOOLEAN at byte
 * 447: ..."). */
WH_NODISCARD enum wh_err wh_certs_pem_first_cert_why(const void *pem, size_t len, X509 **out,
                                                     struct wh_errbuf *why);

/* Every CERTIFICATE block of pem. strict=false: blocks that fail to parse are skipped (Go's
 * CertPool.AppendCertsFromPEM, the trust anchors of CERT-40); strict=true: any such block is
 * WH_ERR_PARSE (client-go's ParseCertsPEM, CERT-41). WH_ERR_NOT_FOUND when none is left.
 * Returns: a new stack in *out. */
WH_NODISCARD enum wh_err wh_certs_pem_certs(const void *pem, size_t len, bool strict,
                                            STACK_OF(X509) * *out);

/* The first private-key block of pem (see above), parsed. WH_ERR_NOT_FOUND: no such block;
 * WH_ERR_PARSE: its DER is none of PKCS#1, PKCS#8, SEC1. */
WH_NODISCARD enum wh_err wh_certs_pem_first_key(const void *pem, size_t len, EVP_PKEY **out);

/* Returns: in *out a new NUL-terminated PEM text (caller frees; key text should be wiped with
 * OPENSSL_cleanse first), its length in *len. WH_ERR_INVALID for a key type other than RSA
 * or EC. */
WH_NODISCARD enum wh_err wh_certs_pem_encode_cert(X509 *cert, char **out, size_t *len);
WH_NODISCARD enum wh_err wh_certs_pem_encode_key(EVP_PKEY *key, char **out, size_t *len);

/* Reads a whole file (following symlinks) into a new NUL-terminated buffer (caller frees).
 * WH_ERR_NOT_FOUND when it does not exist (or is a broken symlink), WH_ERR_TOO_BIG above
 * cap bytes, WH_ERR_IO otherwise; eb says which file and why. */
WH_NODISCARD enum wh_err wh_certs_pem_read_file(const char *path, size_t cap, char **out,
                                                size_t *len, struct wh_errbuf *eb);

#endif
