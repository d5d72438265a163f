#ifndef WH_CERTS_VERIFY_H
#define WH_CERTS_VERIFY_H

/* Checks on certificates and keys, shaped after what upstream gets from Go's crypto/x509 and
 * crypto/tls (spec certs.md CERT-40): key/certificate pairing, path validation at a chosen
 * instant against a set of trust anchors, host-name match through SANs only, time left.
 * Thread rule: thread-safe (no shared state). */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <openssl/evp.h>
#include <openssl/x509.h>

#include "util/err.h"

/* Why stored material is not usable; WH_CERTS_VALID (0) when it is. */
enum wh_certs_verdict {
    WH_CERTS_VALID = 0,
    WH_CERTS_MISSING,       /* an entry is absent or empty */
    WH_CERTS_GARBAGE,       /* an entry does not parse */
    WH_CERTS_KEY_MISMATCH,  /* the private key is not the certificate's */
    WH_CERTS_NOT_CHAINED,   /* not issued by (or not verifiable against) the CA */
    WH_CERTS_EXPIRED,       /* outside its validity period right now */
    WH_CERTS_EXPIRING,      /* valid now but not at now + renewal margin */
    WH_CERTS_NOT_YET_VALID, /* notBefore lies after now + renewal margin */
    WH_CERTS_WRONG_HOST,    /* no SAN matches the dnsName */
    WH_CERTS_WRONG_USAGE,   /* key usage / extended key usage do not permit serverAuth */
    WH_CERTS_UNSUITABLE_CA, /* CERT-41 only: fine, but not reusable (key type, several certs) */
};

/* Returns: a static lowercase phrase ("expires within the renewal margin", ...). */
const char *wh_certs_verdict_str(enum wh_certs_verdict v);

/* True when key is the private half of cert's public key. */
bool wh_certs_verify_key_matches(X509 *cert, EVP_PKEY *key);

/* Path validation of leaf against anchors (every one a trust anchor, self-signed or not, as
 * in a Go CertPool), at instant `at` (CERT-40: now + renewal margin): issuer name and
 * signature, validity of every certificate at `at`, CA flags of issuers, and the serverAuth
 * purpose (EKU when present, key usage when present). SHA-1 signatures and keys under 80
 * bits of security are rejected as Go does. `now` only refines the verdict (EXPIRED when the
 * failing certificate is already expired now, EXPIRING when it only fails at `at`).
 * No host-name check (see wh_certs_verify_host). why (may be NULL) gets a sentence. */
enum wh_certs_verdict wh_certs_verify_chain(X509 *leaf, STACK_OF(X509) * anchors, time_t now,
                                            time_t at, struct wh_errbuf *why);

/* Go's Certificate.VerifyHostname: an IP literal (CERT-22 forms, see
 * wh_certs_keypair_parse_ip) must equal an IP SAN (IPv4 and IPv4-mapped IPv6 compare equal);
 * any other name must match a DNS SAN case-insensitively, with a wildcard only as the whole
 * left-most label. The subject CN is never used. */
bool wh_certs_verify_host(X509 *cert, const char *dns_name);

/* Converts an ASN.1 time to seconds since the epoch. WH_ERR_PARSE when malformed. */
WH_NODISCARD enum wh_err wh_certs_verify_asn1_time(const ASN1_TIME *t, time_t *out);

/* "expires in 100d (2026-05-01T00:00:00Z)" or "expired 3d ago (...)" for cert at now. */
void wh_certs_verify_describe_expiry(X509 *cert, time_t now, char *buf, size_t bufsz);

/* A duration as "100d", "5h", "12min" or "30s" (rounded down to the largest unit that fits;
 * the sign is dropped). */
void wh_certs_verify_format_secs(int64_t secs, char *buf, size_t bufsz);

/* Seconds from now until cert's notAfter (negative once expired). */
int64_t wh_certs_verify_secs_left(X509 *cert, time_t now);

#endif
