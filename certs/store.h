#ifndef WH_CERTS_STORE_H
#define WH_CERTS_STORE_H

/* The certificate Secret in the cluster, through the Kubernetes client (spec certs.md §5, §6):
 * read it (CERT-32, or cert-manager's keys for external certificates, CERT-36) and write it
 * with optimistic concurrency (CERT-33 create, CERT-34 PUT with the read resourceVersion).
 *
 * Beyond upstream, the Secret may carry the state of a CA rotation in two annotations, so that
 * a writer that restarts, or another replica that takes over the writing, goes on with it:
 *   certs.kruise-webhook/previous-ca        PEM of the CA certificates that signed what some
 *                                           replicas may still serve; kept in every caBundle
 *   certs.kruise-webhook/previous-ca-since  RFC 3339 time the new CA was stored
 * Only certificates go there, never keys. Without a rotation in progress the object is exactly
 * upstream's: namespace, name and the six data keys.
 * Thread rule: thread-safe (the client is); a struct wh_certs_stored belongs to its caller. */

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "certs/bundle.h"
#include "certs/secret.h"
#include "kube/client.h"
#include "util/err.h"

#define WH_CERTS_ANN_PREVIOUS_CA "certs.kruise-webhook/previous-ca"
#define WH_CERTS_ANN_PREVIOUS_SINCE "certs.kruise-webhook/previous-ca-since"

struct wh_certs_stored {
    bool exists;
    char *resource_version;         /* of the read object; NULL when !exists */
    struct wh_certs_bundle *bundle; /* never NULL after a successful read; empty when the
                                       Secret is missing or its data unreadable (CERT-35) */
    char *previous_ca;              /* the previous-ca annotation, NULL when none */
    time_t previous_since;          /* 0 when none or unparsable */
    char problem[256];              /* why the data could not be read ("" when it could) */
};

/* Decodes a Secret object (borrowed; NULL = absent: exists false). Data that is not base64
 * gives an empty bundle and a problem text (the writer then overwrites it, CERT-35).
 * Fills *out; release with wh_certs_stored_fini. */
void wh_certs_store_decode(const json_t *obj, enum wh_certs_secret_keys keys,
                           struct wh_certs_stored *out);

/* GET namespace/name and decode it. A missing Secret is not an error (exists = false).
 * Errors: those of the client (WH_ERR_IO, WH_ERR_KUBE, ...), with eb. Returns in *out:
 * filled; release with wh_certs_stored_fini (also after errors). */
WH_NODISCARD enum wh_err wh_certs_store_read(struct wh_kube_client *c, const char *ns,
                                             const char *name, enum wh_certs_secret_keys keys,
                                             struct wh_certs_stored *out, struct wh_errbuf *eb);
void wh_certs_stored_fini(struct wh_certs_stored *s);

/* The Secret to write (CERT-31): the six data keys of b; previous_ca (may be NULL or "") adds
 * the two rotation annotations with since. It is written through the read-modify-write loop
 * (kube/rmw.h): created when absent (CERT-33), else PUT with the read resourceVersion
 * (CERT-34). Returns: new ref. */
json_t *wh_certs_store_object(const char *ns, const char *name, const struct wh_certs_bundle *b,
                              const char *previous_ca, time_t since);

/* The API paths of the Secret and of its collection (for the create). */
WH_NODISCARD enum wh_err wh_certs_store_paths(const char *ns, const char *name, char *path,
                                              size_t pathsz, char *collection, size_t collsz);

/* For `certs inspect --secret`: reads namespace/name with the client made from $KUBECONFIG or
 * the in-cluster service account (CERT-32 keys). Matches wh_certs_secret_reader_fn. */
WH_NODISCARD enum wh_err wh_certs_store_read_for_cli(const char *ns, const char *name,
                                                     struct wh_certs_bundle **out,
                                                     struct wh_errbuf *eb);

#endif
