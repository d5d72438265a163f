#ifndef WH_CERTS_ENV_H
#define WH_CERTS_ENV_H

/* The certificate controller's inputs from the process environment (spec certs.md CERT-01),
 * the renewal margin (CERT-03), the serving name (CERT-10) and the writer choice (CERT-12).
 * Empty variables count as unset. Thread rule: wh_certs_env_load calls getenv, so run it
 * before threads start; a loaded struct wh_certs_env is immutable and may be shared. */

#include <stdbool.h>
#include <stdint.h>

#include "certs/keypair.h"
#include "util/err.h"

#define WH_CERTS_DEFAULT_NAMESPACE "kruise-system"
#define WH_CERTS_DEFAULT_SECRET "kruise-webhook-server-certs"
#define WH_CERTS_DEFAULT_SERVICE "kruise-webhook-server"
#define WH_CERTS_DEFAULT_PORT 9876
#define WH_CERTS_DEFAULT_CERT_DIR "/tmp/kruise-webhook-certs"
#define WH_CERTS_DEFAULT_RENEW_BEFORE_SECS ((int64_t)180 * 86400)

enum wh_certs_writer {
    WH_CERTS_WRITER_SECRET,   /* §5: the Secret is the store */
    WH_CERTS_WRITER_FS,       /* §7: the certificate directory is the store */
    WH_CERTS_WRITER_EXTERNAL, /* §6: cert-manager's Secret, used as is */
};

struct wh_certs_env {
    char *pod_namespace;       /* POD_NAMESPACE, default kruise-system */
    char *secret_name;         /* SECRET_NAME */
    char *service_name;        /* SERVICE_NAME */
    char *host;                /* WEBHOOK_HOST; NULL when unset (service mode) */
    int port;                  /* WEBHOOK_PORT */
    char *cert_dir;            /* WEBHOOK_CERT_DIR */
    char *cert_writer;         /* WEBHOOK_CERT_WRITER; NULL when unset */
    int64_t renew_before_secs; /* CERTS_RENEW_BEFORE, parsed once here */
};

/* Reads the variables. WH_ERR_INVALID (with eb) when WEBHOOK_PORT is not an integer in
 * [0, 65535]: upstream exits at start-up on an unparsable port, and so should the caller.
 * An unusable CERTS_RENEW_BEFORE is logged and replaced by the default, as upstream does. */
WH_NODISCARD enum wh_err wh_certs_env_load(struct wh_certs_env *e, struct wh_errbuf *eb);
void wh_certs_env_fini(struct wh_certs_env *e);

struct wh_config; /* config/config.h */

/* The same inputs from the server's merged configuration (flags > environment > --config
 * file > defaults, config/config.h), so a flag such as --webhook-host overrides
 * WEBHOOK_HOST. Empty strings count as unset, as above. WH_ERR_INVALID when the port is out
 * of range or the renewal margin is not shorter than the certificates' validity
 * (wh_certs_env_check_renew_before). Release with wh_certs_env_fini, also after a failure. */
WH_NODISCARD enum wh_err
wh_certs_env_from_config(struct wh_certs_env *e, const struct wh_config *cfg, struct wh_errbuf *eb);

/* The renewal margin must be shorter than the validity of the certificates the server
 * makes (WH_CERTS_VALIDITY_SECS, 10 years): with a longer one every certificate would be due
 * for renewal the moment it was made, and the controller would rotate without end.
 * WH_ERR_INVALID with a message naming the option, both durations and what to use; given is
 * the text as configured (may be NULL), origin where it came from (config/config.h
 * wh_config_origin; NULL names the variable). wh_certs_env_from_config checks it
 * too. */
WH_NODISCARD enum wh_err wh_certs_env_check_renew_before(int64_t renew_before_secs,
                                                         const char *given, const char *origin,
                                                         struct wh_errbuf *eb);

/* The name the server's certificate is for (CERT-10), as the server picks it: WEBHOOK_HOST
 * (URL mode); else, standalone (kube/client.h wh_kube_standalone), "localhost" (`make run`);
 * else the Service. Fills t with borrowed pointers into e (valid while e lives). */
void wh_certs_env_target(const struct wh_certs_env *e, bool standalone, struct wh_certs_target *t);

/* CERT-12: external when the gate is on; fs when WEBHOOK_CERT_WRITER is "fs" or unset in URL
 * mode; secret otherwise. */
enum wh_certs_writer wh_certs_env_writer(const struct wh_certs_env *e, bool external_certs_gate);

/* CERT-03: "<integer><unit>" with unit d (days), m (30 days) or y (365 days). Returns the
 * margin in seconds; anything unusable (NULL, empty, bad integer, unknown unit, result <= 0,
 * or beyond Go's 292-year time.Duration range) yields the 180-day default and sets
 * *defaulted (may be NULL). */
int64_t wh_certs_env_parse_renew_before(const char *s, bool *defaulted);

#endif
