#ifndef WH_CONFIG_CONFIG_H
#define WH_CONFIG_CONFIG_H

/* Configuration: one table of options walked by generic code (redis config.c). Each option has a
 * flag (--name), an environment variable (upstream's name where upstream has one, WEBHOOK_<NAME>
 * otherwise), the same key in a YAML --config file, and a default; --config, --check-config,
 * --help and --version are command-line only. Precedence: flag > environment > config file >
 * default.
 * Thread rule: immutable after wh_config_load returns; read from any thread. */

#include <stdbool.h>
#include <stdio.h>

#include "config/features.h"
#include "log/log.h"
#include "util/err.h"

#define WH_VERSION "0.1.0"

struct wh_config {
    long long port;
    char *cert_dir;
    char *host;          /* WEBHOOK_HOST: URL mode when set */
    char *namespace_;    /* POD_NAMESPACE: the kruise namespace */
    char *secret_name;   /* SECRET_NAME */
    char *service_name;  /* SERVICE_NAME */
    char *renew_before;  /* CERTS_RENEW_BEFORE, parsed by the certificate controller */
    char *cert_writer;   /* WEBHOOK_CERT_WRITER */
    char *cert_key_type; /* "rsa" (RSA 2048, upstream's) or "ecdsa" (P-256) */
    /* the certificate controller (certs/controller.h) */
    char *mutating_config_name;        /* MutatingWebhookConfiguration to inject caBundle into */
    char *validating_config_name;      /* ValidatingWebhookConfiguration to inject caBundle into */
    long long webhook_init_timeout_ms; /* start-up waits this long for the first sync; 0: no wait */
    long long certs_resync_ms;         /* periodic sync of certificates and caBundles */
    long long ca_publish_delay_ms; /* new CA published this long before it signs what we serve */
    bool leader_elect;             /* only the Lease holder writes the Secret and caBundles */
    char *leader_election_id;      /* the Lease name; "" = <secret-name>-writer */
    long long leader_lease_duration_ms;
    long long leader_renew_deadline_ms;
    long long leader_retry_period_ms;
    char *feature_gates;
    struct wh_features features;
    char *kubeconfig;
    char *state;
    enum wh_log_level log_level;
    enum wh_log_format log_format;
    long long max_body_bytes;
    long long threads;
    char *bind_address;
    char *health_addr;             /* "" or "0" disables */
    char *metrics_addr;            /* "" or "0" disables */
    long long shutdown_delay_ms;   /* SIGTERM: still accepting this long, /readyz 503 */
    long long shutdown_grace_ms;   /* then: in-flight requests finish within this */
    long long request_deadline_ms; /* an admission request's API calls end by then */
    bool admission_warnings;       /* AdmissionResponse.warnings (handlers/warnings.h) */
    long long connection_timeout_ms;
    long long connection_memory_limit;
    long long max_connections;         /* HTTPS connections open at once */
    long long max_connections_per_ip;  /* ... from one client address */
    long long request_read_timeout_ms; /* headers and body of one request, absolute */
    long long max_request_memory;      /* util/reqmem's pool */
    long long body_bytes_per_thread;   /* server/pace.h: large bodies a worker reads at once */
    long long cert_reload_interval_ms;
    long long kube_qps;
    long long kube_burst;
    long long kube_timeout_ms;
    char *config_file;
    bool check_config;
    bool show_help;
    bool show_version;
    char **_origins; /* per option, where its value came from: read with wh_config_origin */
};

/* Loads defaults, then the --config file, then the environment, then argv (argv[0] is the
 * program or subcommand name). On error returns WH_ERR_INVALID with a message naming the flag,
 * variable or file:line:col. cfg must be released with wh_config_fini. */
WH_NODISCARD enum wh_err wh_config_load(struct wh_config *cfg, int argc, char **argv,
                                        struct wh_errbuf *eb);
void wh_config_fini(struct wh_config *cfg);

/* Where the value of option name (the flag's name without "--") came from, as errors name it:
 * "flag --port", "environment variable WEBHOOK_PORT", "config.yaml:3:1: port" (the --config
 * file, line and column of its key) or "--port (default)". Returns: borrowed, valid while cfg
 * lives; "--<name> (default)" too for a cfg that wh_config_load did not fill. */
const char *wh_config_origin(const struct wh_config *cfg, const char *name);

/* The environment variable of option name, or NULL (a command-line-only option, or none such).
 * Returns: static. */
const char *wh_config_env_name(const char *name);

/* For commands that take the server's options among arguments of their own (explain): whether
 * arg ("--name" or "--name=value") names one of the options, and in *takes_next whether the
 * next argument is its value (an option other than a switch, given without "="). */
bool wh_config_is_flag(const char *arg, bool *takes_next);

/* Prints every option: flag, environment variable, default and help. */
void wh_config_usage(FILE *out, const char *prog);

/* Splits "host:port" / ":port" / "[v6]:port"; host is "" for all interfaces. Returns
 * WH_ERR_INVALID for anything else. host must hold at least 256 bytes. */
WH_NODISCARD enum wh_err wh_config_parse_addr(const char *addr, char *host, size_t hostsz,
                                              int *port);
/* True when addr disables a listener ("" or "0"). */
bool wh_config_addr_disabled(const char *addr);

#endif
