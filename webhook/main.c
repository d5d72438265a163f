/* kruise-webhook: argv, configuration, start order, signals and graceful stop.
 *
 * Thread map (every thread the process runs; no others):
 *   main            configuration, start-up, waits for SIGTERM/SIGINT (SIGHUP: re-read the
 *                   certificates, and standalone --state), graceful stop
 *   MHD HTTPS pool  --threads workers (default: one per CPU the cgroup allows); handlers run here
 *   MHD health      one thread for /healthz and /readyz on --health-addr
 *   MHD metrics     one thread for /metrics on --metrics-addr (none when shared or disabled)
 *   conn reapers    one per listener above: absolute connection deadlines (server/conn.c)
 *   tls reload      re-reads the cert dir every --cert-reload-interval (server/tls.c)
 *   informers       one per cached resource, API mode only (kube/informer.c)
 *   certs           the certificate controller, API mode only (certs/controller.c): Secret,
 *                   cert dir, caBundles, CA rotation, serving report; plus the informer of
 *                   its Secret (one object, by field selector)
 *   leader election with --leader-elect in API mode: keeps the writer's Lease (kube/leader.c)
 *   arena trimmer   from the first request bigger than 1 MiB of JSON: frees the spare memory
 *                   big requests keep a second after the last one (util/arena.c)
 *   log writer      writes the queued log lines to stderr, so that no other thread ever waits
 *                   for stderr (log/log.c)
 */
#include <curl/curl.h>
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/resource.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "certs/cli.h"
#include "certs/controller.h"
#include "certs/env.h"
#include "certs/fs_store.h"
#include "cli/check.h"
#include "cli/convert.h"
#include "cli/explain.h"
#include "cli/inject.h"
#include "config/config.h"
#include "handlers/registry.h"
#include "kube/client.h"
#include "kube/cluster.h"
#include "log/log.h"
#include "metrics/metrics.h"
#include "metrics/process.h"
#include "server/health.h"
#include "server/http.h"
#include "server/tls.h"
#include "util/arena.h"
#include "util/json.h"
#include "util/mem.h"
#include "util/memtune.h"
#include "util/time.h"

static bool tls_ready(void *arg, char *why, size_t whysz)
{
    (void)arg;
    if (wh_tls_loaded())
        return true;
    snprintf(why, whysz, "no serving certificate loaded yet");
    return false;
}

static bool cluster_ready(void *arg, char *why, size_t whysz)
{
    return wh_cluster_synced(arg, why, whysz);
}

/* --state, or no cluster configuration at all: standalone; otherwise the API server from
 * --kubeconfig or the in-cluster service account. */
static enum wh_err open_cluster(const struct wh_config *cfg, struct wh_cluster **out,
                                struct wh_errbuf *eb)
{
    if (wh_kube_standalone(cfg->state, cfg->kubeconfig)) {
        if (!cfg->state[0])
            wh_log(WH_LOG_INFO, "no kubeconfig and not in a cluster: standalone, no objects");
        return wh_cluster_new_standalone(cfg->state, out, eb);
    }
    struct wh_kube_opts ko = wh_kube_opts_of_config(cfg);
    struct wh_kube_client *client = NULL;
    enum wh_err rc = wh_kube_client_new(&ko, &client, eb);
    if (rc)
        return rc;
    wh_log(WH_LOG_INFO, "using the API server at %s", wh_kube_client_server(client));
    return wh_cluster_new_api(client, out, eb);
}

/* Standalone: the certificates live only in the cert dir; make them when absent or invalid
 * (a self-signed CA and a serving certificate for the host, localhost and 127.0.0.1). */
static enum wh_err ensure_local_certs(const struct wh_config *cfg, struct wh_errbuf *eb)
{
    struct wh_certs_env env;
    enum wh_err rc = wh_certs_env_from_config(&env, cfg, eb);
    if (rc) {
        wh_certs_env_fini(&env);
        return rc;
    }
    struct wh_certs_fs_sync_opts o = {
        .dir = cfg->cert_dir,
        .renew_before_secs = env.renew_before_secs,
    };
    wh_certs_env_target(&env, true, &o.target);
    wh_certs_gen_opts_init(&o.gen);
    if (strcmp(cfg->cert_key_type, "ecdsa") == 0)
        o.gen.key_type = WH_CERTS_KEY_ECDSA;
    struct wh_certs_fs_sync_result res = {0};
    rc = wh_certs_fs_sync(&o, &res, eb);
    if (!rc)
        wh_certs_fs_sync_result_fini(&res);
    wh_certs_env_fini(&env);
    return rc;
}

/* Signals whose default action ends the process though nothing here uses them (notifications,
 * timers, user signals): a stray `kill -USR1` must not take admission down, and before this it
 * did, silently (exit 138). They are taken by main with the others, logged and ignored. The
 * ones that mean a crash, a resource limit or a debugger (SIGSEGV, SIGBUS, SIGFPE, SIGILL,
 * SIGABRT, SIGQUIT, SIGTRAP, SIGSYS, SIGXCPU, SIGXFSZ) keep their default, as does SIGKILL. */
static const struct {
    int sig;
    const char *name;
} ignored_signals[] = {
    {SIGUSR1, "SIGUSR1"},     {SIGUSR2, "SIGUSR2"}, {SIGALRM, "SIGALRM"},
    {SIGVTALRM, "SIGVTALRM"}, {SIGPROF, "SIGPROF"}, {SIGIO, "SIGIO"},
#ifdef SIGPWR
    {SIGPWR, "SIGPWR"},
#endif
#ifdef SIGSTKFLT
    {SIGSTKFLT, "SIGSTKFLT"},
#endif
};

/* SIGTERM/SIGINT/SIGHUP and the signals above are blocked in every thread and taken
 * synchronously by main with sigwait, so no handler runs in the middle of a request (and
 * SIGHUP's default action, exit, never happens). The real-time signals too: their default
 * action is to end the process, and nothing here sends them. */
static void block_signals(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGTERM);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGHUP);
    for (size_t i = 0; i < sizeof(ignored_signals) / sizeof(ignored_signals[0]); i++)
        sigaddset(set, ignored_signals[i].sig);
    for (int rt = SIGRTMIN; rt <= SIGRTMAX; rt++)
        sigaddset(set, rt);
    pthread_sigmask(SIG_BLOCK, set, NULL);
    signal(SIGPIPE, SIG_IGN); /* a client that hangs up must not kill the server */
}

static bool is_stop_signal(int sig)
{
    return sig == SIGTERM || sig == SIGINT;
}

/* A signal taken by main that neither stops the server nor is SIGHUP. */
static void ignore_signal(int sig)
{
    const char *name = NULL;
    for (size_t i = 0; i < sizeof(ignored_signals) / sizeof(ignored_signals[0]); i++) {
        if (ignored_signals[i].sig == sig)
            name = ignored_signals[i].name;
    }
    char rt[32];
    if (!name) {
        snprintf(rt, sizeof(rt), "SIGRTMIN+%d", sig - SIGRTMIN);
        name = rt;
    }
    WH_LOG_EVERY(1, WH_LOG_WARN,
                 "received %s: ignored (SIGHUP re-reads the certificates, SIGTERM or SIGINT "
                 "stops the server)",
                 name);
}

/* SIGHUP, as daemons use it: re-read the certificate files now, and in standalone mode the
 * --state files too (an edited state takes effect without a restart; a state that no longer
 * loads is refused and the one in use kept). */
static void on_sighup(const struct wh_config *cfg, struct wh_cluster *cluster)
{
    bool changed = false;
    struct wh_errbuf eb = {{0}};
    if (wh_tls_reload(&changed, &eb))
        wh_log(WH_LOG_WARN, "SIGHUP: serving certificate not reloaded: %s", eb.msg);
    else
        wh_log(WH_LOG_INFO, "SIGHUP: certificates re-read (%s)",
               changed ? "a new one is in service" : "unchanged");
    if (!cluster || !wh_cluster_standalone(cluster) || !cfg->state[0])
        return;
    size_t n = 0;
    bool ok = wh_cluster_reload_standalone(cluster, cfg->state, &n, &eb) == WH_OK;
    wh_metric_add(wh_metrics_counter("kruise_webhook_state_reloads_total",
                                     "Standalone --state re-reads on SIGHUP, by result",
                                     ok ? "result=\"ok\"" : "result=\"error\""),
                  1);
    if (ok)
        wh_log(WH_LOG_INFO, "SIGHUP: state re-read: %zu objects from %s", n, cfg->state);
    else
        wh_log(WH_LOG_WARN, "SIGHUP: state not re-read, the one in use is kept: %s", eb.msg);
}

/* Each connection is a descriptor: the connection caps need the hard limit, not the
 * traditional soft 1024. Below the caps, accept(2) fails before the server can make room. */
static void raise_fd_limit(const struct wh_config *cfg)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return;
    if (rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
            wh_log(WH_LOG_WARN, "cannot raise the open-file limit: %s", strerror(errno));
        getrlimit(RLIMIT_NOFILE, &rl);
    }
    /* The plain listeners' 2 x 64 and room for files, the API client and eviction. */
    rlim_t need = (rlim_t)cfg->max_connections + 256;
    if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < need)
        wh_log(WH_LOG_WARN,
               "the open-file limit (%llu) is below --max-connections + 256: connections may be "
               "refused before the server can make room",
               (unsigned long long)rl.rlim_cur);
}

/* Endpoints drop a stopping Pod some time after it is told to stop (the endpoints controller,
 * then kube-proxy and the API server's resolver): a listener closed at once would refuse the
 * requests still sent here meanwhile. So the server keeps answering for delay_ms. A second
 * SIGTERM or SIGINT ends the wait (an operator's second ^C); SIGHUP re-reads the certificates. */
static void shutdown_delay(const sigset_t *sigs, const struct wh_config *cfg,
                           struct wh_cluster *cluster)
{
    long long delay_ms = cfg->shutdown_delay_ms;
    int64_t end = wh_time_mono_ns() + (int64_t)delay_ms * 1000000;
    for (int64_t left = end - wh_time_mono_ns(); left > 0; left = end - wh_time_mono_ns()) {
        struct timespec ts = {(time_t)(left / 1000000000), (long)(left % 1000000000)};
        int sig = sigtimedwait(sigs, NULL, &ts);
        if (sig == SIGHUP) {
            on_sighup(cfg, cluster);
        } else if (is_stop_signal(sig)) {
            wh_log(WH_LOG_INFO, "received %s again: draining now",
                   sig == SIGTERM ? "SIGTERM" : "SIGINT");
            return;
        } else if (sig > 0) {
            ignore_signal(sig);
        }
    }
}

/* --- hooks: certs/ sits below the server and the handlers; they meet here --------------------- */

static bool route_served(const struct wh_config *cfg, const char *path)
{
    return wh_routes_find(cfg, path) != NULL;
}

static bool certs_serves(void *arg, const char *path)
{
    return route_served(arg, path);
}

static bool certs_knows(void *arg, const char *path)
{
    (void)arg;
    return wh_routes_known(path);
}

/* The HTTPS port once the listener is up, for the certificate controller's self-call. */
static atomic_int https_port;

static int certs_https_port(void *arg)
{
    (void)arg;
    return atomic_load(&https_port);
}

static bool certs_serving_serial(void *arg, char *buf, size_t bufsz)
{
    (void)arg;
    time_t not_after = 0;
    return wh_tls_current_info(buf, bufsz, &not_after);
}

/* Where a listener is, for the start-up line: "on 127.0.0.1:9876", "on [::1]:8000", "on *:8080"
 * (every interface), or "off" when port is 0. host: --bind-address, or the host of host:port. */
static void listener_at(char *buf, size_t bufsz, const char *host, int port)
{
    bool v6 = strchr(host, ':') != NULL;
    if (port == 0)
        snprintf(buf, bufsz, "off");
    else
        snprintf(buf, bufsz, "on %s%s%s:%d", v6 ? "[" : "", host[0] ? host : "*", v6 ? "]" : "",
                 port);
}

/* The host of --health-addr or --metrics-addr ("" for every interface, or when disabled). */
static void addr_host(const char *addr, char *host, size_t hostsz)
{
    int port = 0;
    if (wh_config_addr_disabled(addr) || wh_config_parse_addr(addr, host, hostsz, &port))
        host[0] = '\0';
}

static int serve(int argc, char **argv)
{
    int status = 1;
    struct wh_config cfg;
    struct wh_errbuf eb = {{0}};
    struct wh_http *http = NULL;
    struct wh_cluster *cluster = NULL;
    struct wh_certs_controller *certs = NULL;
    bool tls_started = false;
    bool log_started = false;

    sigset_t sigs;
    block_signals(&sigs);
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
    /* Settings that load but that the server cannot run with: refused at start-up and by
     * --check-config alike. */
    if (wh_certs_env_check_renew_before(wh_certs_env_parse_renew_before(cfg.renew_before, NULL),
                                        cfg.renew_before,
                                        wh_config_origin(&cfg, "certs-renew-before"), &eb)) {
        fprintf(stderr, "kruise-webhook: %s\n", eb.msg);
        status = 2;
        goto out;
    }
    if (cfg.check_config) {
        /* the standalone loader logs what it reads; the check keeps stderr for its findings */
        wh_log_setup(WH_LOG_WARN, cfg.log_format);
        status = wh_check_config_run(&cfg, stdout, stderr);
        goto out;
    }
    wh_log_setup(cfg.log_level, cfg.log_format);
    if (wh_log_start())
        wh_log(WH_LOG_WARN, "cannot start the log writer thread: lines are written as they come");
    log_started = true;
    raise_fd_limit(&cfg);

    if (open_cluster(&cfg, &cluster, &eb)) {
        wh_log(WH_LOG_ERROR, "%s", eb.msg);
        goto out;
    }
    /* External certificates (EnableExternalCerts) are only ever read, never written. */
    if (wh_cluster_standalone(cluster) &&
        !wh_feature_on(&cfg.features, WH_FEATURE_EnableExternalCerts) &&
        ensure_local_certs(&cfg, &eb))
        wh_log(WH_LOG_WARN, "cannot prepare certificates in %s: %s", cfg.cert_dir, eb.msg);
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

    /* API mode: the certificate controller owns the cert dir and the caBundles (its caches
     * are declared before the cluster starts). */
    if (!wh_cluster_standalone(cluster) &&
        wh_certs_controller_new(cluster, &cfg,
                                &(struct wh_certs_hooks){.serves = certs_serves,
                                                         .serves_arg = &cfg,
                                                         .knows = certs_knows,
                                                         .https_port = certs_https_port,
                                                         .serving_serial = certs_serving_serial},
                                &certs, &eb)) {
        wh_log(WH_LOG_ERROR, "%s", eb.msg);
        goto out;
    }
    if (wh_routes_setup(&cfg, cluster, &eb) || wh_cluster_start(cluster, &eb)) {
        wh_log(WH_LOG_ERROR, "%s", eb.msg);
        goto out;
    }
    wh_health_add("caches", cluster_ready, cluster);
    if (certs) {
        if (wh_certs_controller_start(certs, &eb)) {
            wh_log(WH_LOG_ERROR, "%s", eb.msg);
            goto out;
        }
        wh_health_add("webhook-ready", wh_certs_controller_ready, certs);
        /* As upstream: serve only once certificates and caBundles are in place, and give up
         * (the pod restarts) when that takes longer than --webhook-initialize-timeout. */
        bool inited = cfg.webhook_init_timeout_ms == 0;
        for (long long waited = 0; !inited && waited < cfg.webhook_init_timeout_ms;
             waited += 200) {
            inited = wh_certs_controller_wait_initialized(certs, 200);
            /* SIGTERM is blocked until sigwait below: look for it here, or a pod that never
             * initialises could only be killed. */
            struct timespec now = {0, 0};
            int sig = sigtimedwait(&sigs, NULL, &now);
            if (sig == SIGHUP) {
                on_sighup(&cfg, cluster);
            } else if (is_stop_signal(sig)) {
                wh_log(WH_LOG_INFO, "received signal %d before serving: stopping", sig);
                status = 0;
                goto out;
            } else if (sig > 0) {
                ignore_signal(sig);
            }
        }
        if (!inited) {
            char why[256] = "";
            wh_certs_controller_ready(certs, why, sizeof(why));
            wh_log(WH_LOG_ERROR, "failed to start webhook controller for waiting more than %fs (%s)",
                   (double)cfg.webhook_init_timeout_ms / 1000.0, why);
            goto out;
        }
    }

    /* Ready once the API server's way in works: the controller calls this listener through
     * the cluster's configuration (issue 10). Standalone has no cluster to ask. Added before
     * the health listener starts: the list of checks is not locked. */
    if (certs)
        wh_health_add("api-server-call", wh_certs_controller_called, certs);
    struct wh_handler_ctx ctx = {.cfg = &cfg, .cluster = cluster};
    wh_metrics_process_register();
    if (wh_http_start(&cfg, &ctx, &http, &eb)) {
        wh_log(WH_LOG_ERROR, "%s", eb.msg);
        goto out;
    }
    char host[256], https_at[300], health_at[300], metrics_at[300];
    listener_at(https_at, sizeof(https_at), cfg.bind_address, wh_http_port(http));
    addr_host(cfg.health_addr, host, sizeof(host));
    listener_at(health_at, sizeof(health_at), host, wh_http_health_port(http));
    addr_host(cfg.metrics_addr, host, sizeof(host));
    listener_at(metrics_at, sizeof(metrics_at), host, wh_http_metrics_port(http));
    wh_log(WH_LOG_INFO,
           "listening https=%d health=%d metrics=%d threads=%lld (HTTPS %s, /healthz and /readyz "
           "%s, /metrics %s; * is every interface)",
           wh_http_port(http), wh_http_health_port(http), wh_http_metrics_port(http), cfg.threads,
           https_at, health_at, metrics_at);
    if (certs)
        atomic_store(&https_port, wh_http_port(http)); /* the self-call may begin */

    int sig = 0;
    while (sigwait(&sigs, &sig) == 0 && !is_stop_signal(sig)) {
        if (sig == SIGHUP)
            on_sighup(&cfg, cluster);
        else
            ignore_signal(sig);
    }
    wh_log(WH_LOG_INFO,
           "received %s: answering for %lld ms more with /readyz 503, then draining (grace %lld "
           "ms)",
           sig == SIGTERM ? "SIGTERM" : "SIGINT", cfg.shutdown_delay_ms, cfg.shutdown_grace_ms);
    wh_health_shutting_down();
    wh_http_begin_drain(http);
    shutdown_delay(&sigs, &cfg, cluster);
    wh_http_stop(http, cfg.shutdown_grace_ms);
    http = NULL;
    wh_log(WH_LOG_INFO, "stopped");
    status = 0;
out:
    wh_http_stop(http, 0);
    wh_certs_controller_stop(certs);
    if (tls_started) {
        wh_tls_watch_stop();
        wh_tls_fini();
    }
    wh_cluster_free(cluster);
    wh_certs_controller_free(certs); /* after the informers that call it back */
    wh_metrics_reset();
    wh_config_fini(&cfg);
    /* The last lines out, unless stderr does not drain: then they are dropped, not waited for. */
    if (log_started)
        (void)wh_log_stop(1000);
    return status;
}

int main(int argc, char **argv)
{
    wh_memtune();
    wh_json_init();
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        fprintf(stderr, "kruise-webhook: curl_global_init failed\n");
        return 1;
    }
    int status;
    if (argc > 1 && strcmp(argv[1], "certs") == 0)
        status = wh_certs_cli_main(argc - 1, argv + 1,
                                   &(struct wh_certs_cli_hooks){.serves = route_served,
                                                                .knows = wh_routes_known});
    else if (argc > 1 && strcmp(argv[1], "inject") == 0)
        status = wh_inject_main(argc - 1, argv + 1);
    else if (argc > 1 && strcmp(argv[1], "explain") == 0)
        status = wh_explain_main(argc - 1, argv + 1);
    else if (argc > 1 && strcmp(argv[1], "convert") == 0)
        status = wh_convert_main(argc - 1, argv + 1);
    else
        status = serve(argc, argv);
    curl_global_cleanup();
    wh_arena_release();
    return status;
}
