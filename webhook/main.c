/* kruise-webhook: argv, configuration, start order, signals and graceful stop.
 *
 * Thread map (every thread the process runs; no others):
 *   main            configuration, start-up, waits for SIGTERM/SIGINT, graceful stop
 *   MHD HTTPS pool  --threads workers (default: one per CPU); webhook handlers run here
 *   MHD health      one thread for /healthz and /readyz on --health-addr
 *   MHD metrics     one thread for /metrics on --metrics-addr (none when shared or disabled)
 *   tls reload      re-reads the cert dir every --cert-reload-interval (server/tls.c)
 */
#include <curl/curl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "certs/cli.h"
#include "config/config.h"
#include "handlers/registry.h"
#include "log/log.h"
#include "metrics/metrics.h"
#include "server/health.h"
#include "server/http.h"
#include "server/tls.h"
#include "util/mem.h"

static bool tls_ready(void *arg, char *why, size_t whysz)
{
    (void)arg;
    if (wh_tls_loaded())
        return true;
    snprintf(why, whysz, "no serving certificate loaded yet");
    return false;
}

/* SIGTERM/SIGINT are blocked in every thread and taken synchronously by main with sigwait, so
 * no handler runs in the middle of a request. */
static void block_signals(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGTERM);
    sigaddset(set, SIGINT);
    pthread_sigmask(SIG_BLOCK, set, NULL);
    signal(SIGPIPE, SIG_IGN); /* a client that hangs up must not kill the server */
}

static int serve(int argc, char **argv)
{
    int status = 1;
    struct wh_config cfg;
    struct wh_errbuf eb = {{0}};
    struct wh_http *http = NULL;
    bool tls_started = false;

    if (wh_config_load(&cfg, argc, argv, &eb)) {
        fprintf(stderr, "kruise-webhook: %s\n", eb.msg);
        wh_config_fini(&cfg);
        return 2;
    }
    if (cfg.show_help) {
        wh_config_usage(stdout, "kruise-webhook");
        status = 0;
        goto out;
    }
    if (cfg.show_version) {
        printf("kruise-webhook %s\n", WH_VERSION);
        status = 0;
        goto out;
    }
    if (cfg.check_config) {
        printf("configuration ok\n");
        status = 0;
        goto out;
    }
    wh_log_setup(cfg.log_level, cfg.log_format);

    sigset_t sigs;
    block_signals(&sigs);

    if (wh_tls_init(cfg.cert_dir))
        goto out;
    tls_started = true;
    bool changed = false;
    if (wh_tls_reload(&changed, &eb))
        wh_log(WH_LOG_WARN, "no serving certificate yet (%s); not ready until one appears",
               eb.msg);
    if (wh_tls_watch_start(cfg.cert_reload_interval_ms)) {
        wh_log(WH_LOG_ERROR, "cannot start the certificate reload thread");
        goto out;
    }
    wh_health_add("certificates", tls_ready, NULL);

    struct wh_handler_ctx ctx = {.cfg = &cfg, .cluster = NULL};
    if (wh_http_start(&cfg, &ctx, &http, &eb)) {
        wh_log(WH_LOG_ERROR, "%s", eb.msg);
        goto out;
    }
    wh_log(WH_LOG_INFO, "listening https=%d health=%d metrics=%d threads=%lld",
           wh_http_port(http), wh_http_health_port(http), wh_http_metrics_port(http),
           cfg.threads);

    int sig = 0;
    sigwait(&sigs, &sig);
    wh_log(WH_LOG_INFO, "received %s: draining (grace %lld ms)",
           sig == SIGTERM ? "SIGTERM" : "SIGINT", cfg.shutdown_grace_ms);
    wh_health_shutting_down();
    wh_http_stop(http, cfg.shutdown_grace_ms);
    http = NULL;
    wh_log(WH_LOG_INFO, "stopped");
    status = 0;
out:
    wh_http_stop(http, 0);
    if (tls_started) {
        wh_tls_watch_stop();
        wh_tls_fini();
    }
    wh_metrics_reset();
    wh_config_fini(&cfg);
    return status;
}

int main(int argc, char **argv)
{
    wh_mem_init();
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        fprintf(stderr, "kruise-webhook: curl_global_init failed\n");
        return 1;
    }
    int status;
    if (argc > 1 && strcmp(argv[1], "certs") == 0)
        status = wh_certs_cli_main(argc - 1, argv + 1);
    else
        status = serve(argc, argv);
    curl_global_cleanup();
    return status;
}
