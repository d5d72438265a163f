#ifndef WH_CERTS_BUNDLE_H
#define WH_CERTS_BUNDLE_H

/* The certificate material as stored (spec certs.md §5, §7, §8): four PEM texts, the CA key
 * and certificate and the serving key and certificate. A bundle is what the Secret writer
 * and the file-system store read and write; this module generates one (§4, reusing a CA when
 * CERT-41 allows), judges one (CERT-40) and describes one (for `certs inspect`).
 *
 * Ownership: a bundle owns copies of its texts (key texts are wiped when freed); getters
 * return borrowed pointers valid until the item is set again or the bundle is freed.
 * Thread rule: a bundle is single thread only while it is being filled; once built it is
 * not modified by anything here, so a finished bundle may be read from several threads. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <jansson.h>

#include "certs/keypair.h"
#include "certs/verify.h"
#include "util/err.h"

enum wh_certs_item {
    WH_CERTS_CA_KEY = 0, /* ca-key.pem */
    WH_CERTS_CA_CERT,    /* ca-cert.pem: also the caBundle (CERT-23) */
    WH_CERTS_CERT,       /* cert.pem, also written as tls.crt */
    WH_CERTS_KEY,        /* key.pem, also written as tls.key */
};
#define WH_CERTS_N_ITEMS 4

/* CERT-41: a reused CA must stay valid for at least this long. */
#define WH_CERTS_CA_REUSE_MIN_SECS ((int64_t)365 * 86400)

struct wh_certs_bundle;

/* Returns: a new, empty bundle (never NULL). */
struct wh_certs_bundle *wh_certs_bundle_new(void);
/* Accepts NULL. */
void wh_certs_bundle_free(struct wh_certs_bundle *b);
/* Returns: a new deep copy. */
struct wh_certs_bundle *wh_certs_bundle_dup(const struct wh_certs_bundle *b);

/* Returns: the static storage name of an item ("ca-key.pem", "ca-cert.pem", "cert.pem",
 * "key.pem"), which is also its Secret data key (CERT-31/32). */
const char *wh_certs_bundle_item_name(enum wh_certs_item i);

/* Returns: the item's bytes (borrowed, NUL-terminated for convenience), length in *len (may be
 * NULL); NULL and 0 when absent. Empty and absent are the same thing for every check here. */
const char *wh_certs_bundle_get(const struct wh_certs_bundle *b, enum wh_certs_item i, size_t *len);
/* Copies len bytes into the item (data NULL or len 0 clears it). WH_ERR_TOO_BIG above
 * WH_CERTS_PEM_MAX (the item is then cleared). */
WH_NODISCARD enum wh_err wh_certs_bundle_set(struct wh_certs_bundle *b, enum wh_certs_item i,
                                             const void *data, size_t len);
/* True when all four items are byte-identical. */
bool wh_certs_bundle_equal(const struct wh_certs_bundle *a, const struct wh_certs_bundle *b);

/* notAfter of the first certificate of item i (WH_CERTS_CA_CERT or WH_CERTS_CERT), for the
 * certificate-expiry metric. WH_ERR_NOT_FOUND when absent, WH_ERR_PARSE when unparsable. */
WH_NODISCARD enum wh_err wh_certs_bundle_not_after(const struct wh_certs_bundle *b,
                                                   enum wh_certs_item i, time_t *out);

/* Generates a new serving key and certificate for t, signed by a CA that is either reused
 * from reuse_ca_from (when not NULL and wh_certs_bundle_ca_reusable says so for o->key_type
 * at o->now) or freshly generated. Reused CA material is re-encoded, as upstream does.
 * *ca_reused (may be NULL) says which. Both certificates are read back through the strict
 * parser (certs/der.h) before they are handed out: WH_ERR_INTERNAL if one is not DER.
 * Returns: a new bundle in *out. */
WH_NODISCARD enum wh_err wh_certs_bundle_generate(const struct wh_certs_gen_opts *o,
                                                  const struct wh_certs_target *t,
                                                  const struct wh_certs_bundle *reuse_ca_from,
                                                  struct wh_certs_bundle **out, bool *ca_reused,
                                                  struct wh_errbuf *eb);

/* CERT-40: the stored set is usable for dns_name until now + margin_secs: key, cert and CA
 * present; the first CERTIFICATE of cert.pem and the first key of key.pem parse and match;
 * ca-cert.pem holds a parsable certificate; the leaf verifies against every certificate of
 * ca-cert.pem as trust anchor at now + margin_secs (chain, validity, serverAuth usage); a SAN
 * matches dns_name (skipped when dns_name is NULL). ca-key.pem is not looked at.
 * why (may be NULL) names the entry and the problem. */
enum wh_certs_verdict wh_certs_bundle_validate(const struct wh_certs_bundle *b,
                                               const char *dns_name, time_t now,
                                               int64_t margin_secs, struct wh_errbuf *why);

/* CERT-41: the CA may sign a new serving certificate: ca-key.pem and ca-cert.pem present, the
 * first certificate verifies against ca-cert.pem at now + 1 year (no name check), the key
 * matches it, the key is of key_type (upstream: RSA only), and ca-cert.pem holds exactly one
 * certificate (every CERTIFICATE block parsing). */
enum wh_certs_verdict wh_certs_bundle_ca_reusable(const struct wh_certs_bundle *b,
                                                  enum wh_certs_key_type key_type, time_t now,
                                                  struct wh_errbuf *why);

/* Describes the bundle for operators: {"ca": <cert>, "serving": <cert>, "ca_key": <key>,
 * "serving_key": <key>, "pair_matches", "ca_pair_matches", "chains", "host",
 * "valid_for_host", "verdict", "reason", "ca_reusable", "renew_before_secs"}, where <cert>
 * is {"subject", "issuer", "serial", "serial_hex", "not_before", "not_after", "secs_left",
 * "is_ca", "key", "key_usage": [...], "ext_key_usage": [...], "sans": ["DNS:..", "IP:.."],
 * "sha256"} or {"error": "..."} and <key> is {"key": "RSA 2048"} or {"error": ".."}.
 * dns_name may be NULL (no host check; "host" and "valid_for_host" are then omitted).
 * Returns: new ref (never NULL). */
json_t *wh_certs_bundle_inspect(const struct wh_certs_bundle *b, const char *dns_name, time_t now,
                                int64_t margin_secs);

/* Describes one certificate as above. Returns: new ref. */
json_t *wh_certs_bundle_describe_cert(X509 *cert, time_t now);

#endif
