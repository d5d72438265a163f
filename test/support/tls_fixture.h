#ifndef WH_TEST_SUPPORT_TLS_FIXTURE_H
#define WH_TEST_SUPPORT_TLS_FIXTURE_H

/* A throwaway CA and serving certificate for tests that need TLS: made with our own certs/
 * code for the host "localhost" (SANs DNS:localhost, IP:127.0.0.1, IP:::1), written into a
 * fresh temporary directory in the server's layout (ca-cert.pem, tls.crt, tls.key, ...).
 * Thread rule: single thread only. */

#include <stdbool.h>

#include "certs/bundle.h"
#include "util/err.h"

struct wh_tls_fixture {
    char dir[256];       /* the certificate directory (atomic layout) */
    char ca_file[300];   /* dir/ca-cert.pem: the CA to trust */
    char cert_file[300]; /* dir/tls.crt */
    char key_file[300];  /* dir/tls.key */
    struct wh_certs_bundle *bundle;
};

/* Generates the material (ECDSA P-256, fast; RSA 2048 when rsa) into a new directory under
 * $TMPDIR or /tmp. On failure everything is cleaned up and eb says why. */
WH_NODISCARD enum wh_err wh_tls_fixture_init(struct wh_tls_fixture *f, bool rsa,
                                             struct wh_errbuf *eb);
/* Removes the directory and frees the bundle. Accepts a zeroed fixture. */
void wh_tls_fixture_fini(struct wh_tls_fixture *f);

/* Helpers for tests that manage their own directories: a new empty temporary directory
 * (path written into buf; false on failure), and recursive removal (symlinks are removed,
 * never followed). */
bool wh_tls_fixture_tmpdir(char *buf, size_t size);

/* A copy of b whose CA certificate encodes basicConstraints cA as the BOOLEAN byte 0x01, as
 * this project's generator did before issue 10: OpenSSL reads it, Go's crypto/x509 (the API
 * server) does not. Only that byte differs. Returns: new bundle (never NULL; aborts when b's
 * CA has no such extension). */
struct wh_certs_bundle *wh_tls_fixture_non_der_ca(const struct wh_certs_bundle *b);
void wh_tls_fixture_rmtree(const char *path);

#endif
