#ifndef WH_CERTS_KEYPAIR_H
#define WH_CERTS_KEYPAIR_H

/* Generation of the webhook CA and of the serving certificate it signs (spec certs.md §4,
 * CERT-20..22), with OpenSSL 3 EVP APIs.
 *
 * Choices beyond upstream (each one keeps every upstream check passing):
 * - notBefore: the CA's notBefore is backdated by backdate_secs (default 1 hour) to absorb
 *   clock skew between us, other replicas and the API server; the serving certificate copies
 *   the CA's notBefore exactly as CERT-22 says. notAfter = now + validity for both.
 * - SANs: see wh_certs_keypair_new_serving. upstream_sans=true gives exactly upstream's list
 *   (except that IPv6 literals become IP SANs, the spec's recommendation).
 * - serials: random in [1, 2^63 - 2] for both certificates, which lies inside both upstream
 *   ranges (CA [1, 2^63-1], serving [0, 2^63-1)) and avoids the non-positive serial 0.
 * - ECDSA P-256 on request; its key usages drop keyEncipherment, which RFC 5480 does not
 *   allow for EC keys (CA: digitalSignature, keyCertSign; serving: digitalSignature).
 *
 * Thread rule: thread-safe (no shared state; OpenSSL 3 initialises itself). */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <openssl/evp.h>
#include <openssl/x509.h>

#include "util/err.h"

enum wh_certs_key_type {
    WH_CERTS_KEY_RSA = 0, /* RSA 2048, e = 65537 (CERT-20), signed with sha256WithRSAEncryption */
    WH_CERTS_KEY_ECDSA,   /* ECDSA P-256, signed with ecdsa-with-SHA256 */
};

#define WH_CERTS_CA_CN "webhook-cert-ca"
#define WH_CERTS_VALIDITY_SECS ((int64_t)3650 * 24 * 3600)
#define WH_CERTS_BACKDATE_SECS ((int64_t)3600)

struct wh_certs_gen_opts {
    enum wh_certs_key_type key_type;
    int64_t validity_secs; /* notAfter - now; > 0 */
    int64_t backdate_secs; /* now - CA notBefore; >= 0 */
    time_t now;            /* 0: the wall clock (tests pass a fixed instant) */
    bool upstream_sans;    /* only upstream's SANs (for byte-level comparisons with upstream) */
    /* A serving certificate whose DNS and IP SANs the new one carries too (after its own), up
     * to WH_CERTS_MAX_SANS in all: another server that shares the Secret (kruise-manager
     * while its webhooks move over, docs/migrating.md) keeps a certificate valid for its
     * name. Borrowed; NULL: none. */
    X509 *also_names_of;
};

#define WH_CERTS_MAX_SANS 16

/* Fills the defaults: RSA, 3650 days, 1 hour backdating, wall clock, extended SANs. */
void wh_certs_gen_opts_init(struct wh_certs_gen_opts *o);

/* Whom the serving certificate is for (CERT-10). host non-empty: URL mode, dnsName = host
 * verbatim. Otherwise service mode: dnsName = "<service>.<namespace>.svc". Borrowed strings. */
struct wh_certs_target {
    const char *host;
    const char *service;
    const char *namespace;
};

/* Returns: the dnsName of t as a new string (caller frees), or NULL when t names nothing
 * (no host, and service or namespace empty). */
char *wh_certs_target_dns_name(const struct wh_certs_target *t);

/* A certificate and its private key (owned: wh_certs_keypair_fini releases both). */
struct wh_certs_keypair {
    X509 *cert;
    EVP_PKEY *key;
};

void wh_certs_keypair_fini(struct wh_certs_keypair *kp);

/* A fresh private key of the given type. Returns: new key in *out (EVP_PKEY_free). */
WH_NODISCARD enum wh_err wh_certs_keypair_new_key(enum wh_certs_key_type type, EVP_PKEY **out);

/* A new self-signed CA (CERT-21): subject and issuer CN=webhook-cert-ca, BasicConstraints
 * CA:TRUE (critical), KeyUsage digitalSignature+keyEncipherment+keyCertSign (critical; EC:
 * see above), SAN DNS:webhook-cert-ca, SubjectKeyIdentifier = SHA-1 of the public key, no
 * AKI, no EKU. On error *out is left empty. */
WH_NODISCARD enum wh_err wh_certs_keypair_new_ca(const struct wh_certs_gen_opts *o,
                                                 struct wh_certs_keypair *out,
                                                 struct wh_errbuf *eb);

/* A new serving key and certificate signed by ca (CERT-22): subject CN=<dnsName>, issuer =
 * the CA's subject, notBefore = the CA's notBefore, KeyUsage digitalSignature+
 * keyEncipherment (critical; EC: see above), EKU serverAuth, AKI = the CA's SKI when it has
 * one, no BasicConstraints, no SKI. SANs, in this order, without duplicates:
 * - always DNS:localhost (the readiness check, CERT-72);
 * - dnsName an IP literal (v4, v6, "[v6]", IPv4-mapped v6 stored as 4 bytes): IP:<address>;
 *   otherwise DNS:<dnsName>;
 * - unless o->upstream_sans: service mode adds DNS:<svc>, DNS:<svc>.<ns> and
 *   DNS:<svc>.<ns>.svc.cluster.local; host "localhost" adds IP:127.0.0.1 and IP:::1;
 * - the DNS and IP SANs of o->also_names_of (names that cannot be DNS SANs are skipped).
 * The key type follows o->key_type; the signature follows the CA key (sha256).
 * WH_ERR_INVALID when t names nothing or a name holds characters that cannot go into a
 * DNS SAN (controls, spaces, non-ASCII, ',' '/' ...). On error *out is left empty. */
WH_NODISCARD enum wh_err wh_certs_keypair_new_serving(const struct wh_certs_gen_opts *o,
                                                      const struct wh_certs_target *t,
                                                      X509 *ca_cert, EVP_PKEY *ca_key,
                                                      struct wh_certs_keypair *out,
                                                      struct wh_errbuf *eb);

/* Parses an IP literal as Go's net.ParseIP does for SANs: IPv4 dotted quad -> 4 bytes,
 * IPv4-mapped IPv6 -> 4 bytes, other IPv6 -> 16 bytes; "[...]" brackets are accepted.
 * Returns the address length (4 or 16) into out, or 0 when s is not an IP literal. */
size_t wh_certs_keypair_parse_ip(const char *s, unsigned char out[16]);

#endif
