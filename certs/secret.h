#ifndef WH_CERTS_SECRET_H
#define WH_CERTS_SECRET_H

/* The Secret shapes of the certificate store (spec certs.md §5, §6), as plain JSON: what the
 * Secret writer sends (CERT-31, CERT-33, CERT-34) and how a fetched Secret becomes a bundle
 * (CERT-32; cert-manager's key names for external mode, CERT-36). No API calls here: the
 * Kubernetes half sends and fetches these objects.
 * Thread rule: thread-safe (no shared state); inputs are only read. */

#include <jansson.h>

#include "certs/bundle.h"
#include "util/err.h"

enum wh_certs_secret_keys {
    WH_CERTS_SECRET_GENERATED, /* ca-key.pem, ca-cert.pem, cert.pem, key.pem (CERT-32) */
    WH_CERTS_SECRET_EXTERNAL,  /* ca.key, ca.crt, tls.crt, tls.key (CERT-36) */
};

/* The data map of CERT-31: the six keys ca-key.pem, ca-cert.pem, key.pem, tls.key, cert.pem,
 * tls.crt, base64-encoded, tls.* carrying the same bytes as cert.pem/key.pem.
 * Returns: new ref. */
json_t *wh_certs_secret_data(const struct wh_certs_bundle *b);

/* The whole object to CREATE (resource_version NULL, CERT-33) or UPDATE with PUT
 * (resource_version from the GET, CERT-34): apiVersion v1, kind Secret, metadata with only
 * namespace, name (and resourceVersion), and the data map; no type, labels or annotations.
 * Returns: new ref. */
json_t *wh_certs_secret_object(const char *ns, const char *name, const char *resource_version,
                               const struct wh_certs_bundle *b);

/* Reads a fetched Secret object: the four keys of `keys` from .data (base64; absent keys and
 * a missing or empty data map give empty items, CERT-35), every other key ignored
 * (tls.crt/tls.key in generated mode, CERT-32). WH_ERR_PARSE when a value is not a base64
 * string, WH_ERR_TOO_BIG when one exceeds WH_CERTS_PEM_MAX. Returns: a new bundle in *out. */
WH_NODISCARD enum wh_err wh_certs_secret_read(const json_t *secret, enum wh_certs_secret_keys keys,
                                              struct wh_certs_bundle **out, struct wh_errbuf *eb);

#endif
