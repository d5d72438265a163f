#ifndef WH_CERTS_INJECT_H
#define WH_CERTS_INJECT_H

/* caBundle injection (spec certs.md §10, §11, CERT-38), as pure functions on JSON objects: given
 * a live MutatingWebhookConfiguration, ValidatingWebhookConfiguration or CRD, compute the
 * object as it should be, or say that it already is. The controller sends the result with a
 * PUT carrying the live resourceVersion, so an object that already matches costs no write.
 *
 * What differs from upstream, on purpose:
 * - Upstream drops every entry whose path it does not serve. Here only entries that point at
 *   this server (our Service, or our URL in URL mode) for a path it knows but has turned off
 *   (a feature gate, such as /validate-service without ResourcesDeletionProtection) are
 *   removed: with failurePolicy Fail they would refuse every such request with "no webhook
 *   is served at this path". Entries for other servers, and for paths this version does not
 *   know (a newer version's, during a rolling update), are left untouched, so a configuration
 *   can be shared. There is no "template" annotation: entries are repaired in place
 *   (caBundle and client config only).
 * - In URL mode an IPv6 host is bracketed in the URL, and an entry that already uses a URL
 *   gets ours (upstream keeps a stale URL).
 * - A CRD is ours when, besides CERT-55 (strategy Webhook, a Kruise type), its conversion
 *   points at our Service (namespace/name) or our URL (scheme, host and port), or names no
 *   target at all; in URL mode also when it calls another URL with a caBundle that trusts a
 *   CA of the target's bundle and that URL is the one this server last wrote there (the
 *   annotation WH_CERTS_CRD_URL_ANNOTATION): ours before the port or host changed. CRDs
 *   served by another installation (its own Service, its own CA, or a URL it wrote after us,
 *   as kruise-manager does in URL mode while it shares our CA) are not touched.
 * - The caBundle may hold several CA certificates (during a CA rotation, the new one and the
 *   old ones): the PEM texts one after the other.
 * Thread rule: thread-safe (no shared state); inputs are only read. */

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "util/err.h"

/* In URL mode, the conversion URL this server last wrote into a CRD, kept in the CRD's
 * annotations beside it (written with the URL): a CRD calling another URL is followed to a new
 * --port or --webhook-host only while it still calls this one. */
#define WH_CERTS_CRD_URL_ANNOTATION "kruise-webhook.io/conversion-url"

/* Whom the entries must reach, and with which trust. Borrowed strings. */
struct wh_certs_inject_target {
    const char *ns;        /* POD_NAMESPACE: the Service's namespace */
    const char *service;   /* SERVICE_NAME */
    const char *host;      /* WEBHOOK_HOST; NULL or "" = service mode */
    int port;              /* the port in URL mode */
    const char *ca_bundle; /* PEM text of every CA to trust */
    size_t ca_bundle_len;
    /* True when this server answers path. */
    bool (*serves)(void *arg, const char *path);
    void *serves_arg;
    /* True when this server has a handler for path, served or turned off by the
     * configuration (serves_arg is the argument). NULL: no entry is ever removed. */
    bool (*knows)(void *arg, const char *path);
};

struct wh_certs_inject_stats {
    int entries;             /* webhook entries seen */
    int served;              /* of which this server answers the path */
    int changed;             /* of which needed a change */
    int retargeted;          /* of the changed, those that called another URL or Service */
    int to_url;              /* of the served, those naming a Service replaced by our URL */
    int removed;             /* entries removed: ours, for a path known but not served */
    char removed_paths[256]; /* their paths, ", "-joined (truncated) */
};

/* The path an admission entry's clientConfig targets: service.path, else the path of url,
 * either without query or fragment. Returns: a new string, or NULL when there is none (a service
 * without path, no target, or a URL without a path). */
char *wh_certs_inject_entry_path(const json_t *client_config);

/* The name the API server checks the serving certificate against when it calls
 * client_config: the host of its url (an IPv6 literal keeps its brackets), else
 * <service.name>.<service.namespace>.svc. Returns: a new string, or NULL when there is none. */
char *wh_certs_inject_called_name(const json_t *client_config);

/* True when two clientConfigs call the same place: url and service both absent or equal
 * (the caBundle aside). */
bool wh_certs_inject_same_target(const json_t *a, const json_t *b);

/* The URL of path in URL mode: "https://<host>:<port><path>", with an IPv6 host in brackets.
 * Returns: a new string. */
char *wh_certs_inject_url(const char *host, int port, const char *path);

/* CERT-52 without the template: for every entry of config.webhooks whose path is served, set
 * clientConfig.caBundle (base64 of the bundle) and the target: service mode keeps a service
 * reference with namespace/name forced to ours (port and path kept) and keeps an entry's URL;
 * URL mode replaces either with our URL for the same path. Entries that point at us for a
 * path known but not served are removed (see above). Returns in *out: NULL when nothing
 * differs, else a new ref, a modified deep copy of config. st (may be NULL) counts.
 * WH_ERR_INVALID (eb) when config has no name, or webhooks is not an array of objects. */
WH_NODISCARD enum wh_err wh_certs_inject_webhooks(const json_t *config,
                                                  const struct wh_certs_inject_target *t,
                                                  json_t **out, struct wh_certs_inject_stats *st,
                                                  struct wh_errbuf *eb);

/* CERT-55 plus "points at us" (see above). */
bool wh_certs_inject_crd_selected(const json_t *crd, const struct wh_certs_inject_target *t);

/* CERT-56/57: for a selected CRD whose conversion clientConfig is not exactly the desired one,
 * a deep copy with spec.conversion.webhook = {clientConfig: desired, conversionReviewVersions:
 * [v1, v1beta1]}; in URL mode also with WH_CERTS_CRD_URL_ANNOTATION set to our URL (a CRD
 * that lacks it is written for it alone). Returns in *out: new ref, or NULL when the CRD is
 * not selected or already right. */
void wh_certs_inject_crd(const json_t *crd, const struct wh_certs_inject_target *t, json_t **out);

/* Checks without changing (external certificates, CERT-38, and replicas that do not write):
 * every served entry's caBundle (resp. the selected CRD's conversion caBundle) must equal the
 * target bundle byte for byte (exact), or trust every CA certificate of it (!exact).
 * kind names the object in messages ("MutatingWebhookConfiguration"). WH_ERR_INVALID with the
 * upstream message when not. */
WH_NODISCARD enum wh_err wh_certs_inject_verify_webhooks(const json_t *config, const char *kind,
                                                         const struct wh_certs_inject_target *t,
                                                         bool exact, struct wh_errbuf *eb);
WH_NODISCARD enum wh_err wh_certs_inject_verify_crd(const json_t *crd,
                                                    const struct wh_certs_inject_target *t,
                                                    bool exact, struct wh_errbuf *eb);

/* True when the PEM text bundle holds every certificate of the PEM text cas (compared as DER;
 * CERTIFICATE blocks that do not parse are ignored). False when cas holds none. */
bool wh_certs_inject_bundle_trusts(const void *bundle, size_t bundle_len, const void *cas,
                                   size_t cas_len);

/* The certificates of cas that exclude does not hold, without duplicates, dropping expired
 * ones (at now) and blocks that do not parse, each re-encoded as one CERTIFICATE block.
 * Returns: a new string in *out ("" when none is left), length in *out_len. */
void wh_certs_inject_other_cas(const void *cas, size_t cas_len, const void *exclude,
                               size_t exclude_len, long long now, char **out, size_t *out_len);

/* Number of parsable CERTIFICATE blocks in a PEM text. */
int wh_certs_inject_count_cas(const void *pem, size_t len);

#endif
