#include "test/unit/test.h"

#include <stdlib.h>
#include <unistd.h>

#include "config/config.h"
#include "config/features.h"

static enum wh_err load(struct wh_config *cfg, struct wh_errbuf *eb, char **argv)
{
    int argc = 0;
    while (argv[argc])
        argc++;
    return wh_config_load(cfg, argc, argv, eb);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

TEST(config_defaults)
{
    unsetenv("WEBHOOK_PORT");
    unsetenv("POD_NAMESPACE");
    struct wh_config cfg;
    struct wh_errbuf eb = {{0}};
    char *argv[] = {"kruise-webhook", NULL};
    CHECK_EQ_INT(load(&cfg, &eb, argv), WH_OK);
    CHECK_EQ_INT(cfg.port, 9876);
    CHECK_EQ_STR(cfg.cert_dir, "/tmp/kruise-webhook-certs");
    CHECK_EQ_STR(cfg.namespace_, "kruise-system");
    CHECK_EQ_STR(cfg.secret_name, "kruise-webhook-server-certs");
    CHECK_EQ_STR(cfg.service_name, "kruise-webhook-server");
    CHECK_EQ_INT(cfg.max_body_bytes, 3 << 20);
    CHECK_EQ_STR(cfg.health_addr, ":8000");
    CHECK_EQ_STR(cfg.metrics_addr, ":8080");
    CHECK_EQ_INT(cfg.shutdown_delay_ms, 5000);
    CHECK_EQ_INT(cfg.shutdown_grace_ms, 10000);
    CHECK(cfg.threads >= 1);
    CHECK_EQ_INT(cfg.log_format, WH_LOG_JSON);
    CHECK(wh_feature_on(&cfg.features, WH_FEATURE_PodWebhook));
    CHECK(!wh_feature_on(&cfg.features, WH_FEATURE_ResourcesDeletionProtection));
    wh_config_fini(&cfg);
}

TEST(config_env_then_flags_override)
{
    setenv("WEBHOOK_PORT", "9443", 1);
    setenv("POD_NAMESPACE", "", 1); /* empty counts as unset */
    struct wh_config cfg;
    struct wh_errbuf eb = {{0}};
    char *argv1[] = {"kruise-webhook", NULL};
    CHECK_EQ_INT(load(&cfg, &eb, argv1), WH_OK);
    CHECK_EQ_INT(cfg.port, 9443);
    CHECK_EQ_STR(cfg.namespace_, "kruise-system");
    wh_config_fini(&cfg);
    char *argv2[] = {"kruise-webhook", "--port=1234", "--max-body-bytes", "64Ki",
                     "--log-format", "text", "--check-config", NULL};
    CHECK_EQ_INT(load(&cfg, &eb, argv2), WH_OK);
    CHECK_EQ_INT(cfg.port, 1234);
    CHECK_EQ_INT(cfg.max_body_bytes, 65536);
    CHECK_EQ_INT(cfg.log_format, WH_LOG_TEXT);
    CHECK(cfg.check_config);
    wh_config_fini(&cfg);
    unsetenv("WEBHOOK_PORT");
    unsetenv("POD_NAMESPACE");
}

TEST(config_bad_values_name_the_flag)
{
    struct wh_config cfg;
    struct wh_errbuf eb = {{0}};
    char *a1[] = {"kruise-webhook", "--port", "70000", NULL};
    CHECK_EQ_INT(load(&cfg, &eb, a1), WH_ERR_INVALID);
    CHECK(strstr(eb.msg, "--port") != NULL);
    wh_config_fini(&cfg);
    char *a2[] = {"kruise-webhook", "--nope", NULL};
    CHECK_EQ_INT(load(&cfg, &eb, a2), WH_ERR_INVALID);
    CHECK(strstr(eb.msg, "--nope") != NULL);
    wh_config_fini(&cfg);
    char *a3[] = {"kruise-webhook", "--health-addr", "localhost", NULL};
    CHECK_EQ_INT(load(&cfg, &eb, a3), WH_ERR_INVALID);
    CHECK(strstr(eb.msg, "--health-addr") != NULL);
    wh_config_fini(&cfg);
    char *a4[] = {"kruise-webhook", "--feature-gates=NoSuchGate=true", NULL};
    CHECK_EQ_INT(load(&cfg, &eb, a4), WH_ERR_INVALID);
    CHECK(strstr(eb.msg, "NoSuchGate") != NULL);
    wh_config_fini(&cfg);
    setenv("WEBHOOK_PORT", "abc", 1);
    char *a5[] = {"kruise-webhook", NULL};
    CHECK_EQ_INT(load(&cfg, &eb, a5), WH_ERR_INVALID);
    CHECK(strstr(eb.msg, "WEBHOOK_PORT") != NULL);
    wh_config_fini(&cfg);
    unsetenv("WEBHOOK_PORT");
    char *a7[] = {"kruise-webhook", "--cert-key-type", "dsa", NULL};
    CHECK_EQ_INT(load(&cfg, &eb, a7), WH_ERR_INVALID);
    CHECK(strstr(eb.msg, "--cert-key-type") != NULL);
    wh_config_fini(&cfg);
    char *a6[] = {"kruise-webhook", "--port", NULL};
    CHECK_EQ_INT(load(&cfg, &eb, a6), WH_ERR_INVALID);
    wh_config_fini(&cfg);
}

TEST(config_file_values_and_positions)
{
    char path[] = "/tmp/wh-config-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    write_file(path, "# a comment\nport: 7777\nfeature-gates:\n  ResourcesDeletionProtection: true\n"
                     "log-level: debug\n");
    struct wh_config cfg;
    struct wh_errbuf eb = {{0}};
    char *argv[] = {"kruise-webhook", "--config", path, "--log-level=warn", NULL};
    CHECK_EQ_INT(load(&cfg, &eb, argv), WH_OK);
    CHECK_EQ_INT(cfg.port, 7777);
    CHECK(wh_feature_on(&cfg.features, WH_FEATURE_ResourcesDeletionProtection));
    CHECK_EQ_INT(cfg.log_level, WH_LOG_WARN); /* the flag beats the file */
    wh_config_fini(&cfg);

    write_file(path, "port: 7777\n\n  bogus-key: 1\n");
    CHECK(load(&cfg, &eb, argv) != WH_OK); /* indentation error from libyaml */
    CHECK(strstr(eb.msg, path) != NULL);
    wh_config_fini(&cfg);
    write_file(path, "port: 7777\nbogus-key: 1\n");
    CHECK_EQ_INT(load(&cfg, &eb, argv), WH_ERR_INVALID);
    char want[512];
    snprintf(want, sizeof(want), "%s:2:1: unknown option \"bogus-key\"", path);
    CHECK_EQ_STR(eb.msg, want);
    wh_config_fini(&cfg);
    write_file(path, "port: [1, 2]\n");
    CHECK_EQ_INT(load(&cfg, &eb, argv), WH_ERR_INVALID);
    snprintf(want, sizeof(want), "%s:1:7: port: want a single value", path);
    CHECK_EQ_STR(eb.msg, want);
    wh_config_fini(&cfg);
    write_file(path, "threads: lots\n");
    CHECK_EQ_INT(load(&cfg, &eb, argv), WH_ERR_INVALID);
    snprintf(want, sizeof(want), "%s:1:1: threads: invalid value", path);
    CHECK(strncmp(eb.msg, want, strlen(want)) == 0);
    wh_config_fini(&cfg);
    unlink(path);
}

/* Issue 29: an error names where the value came from, the variable or the file's line as
 * well as a flag (a typo in WEBHOOK_FEATURE_GATES was reported as --feature-gates), and
 * wh_config_origin says it for any option. */
TEST(config_errors_name_where_the_value_came_from)
{
    struct wh_config cfg;
    struct wh_errbuf eb = {{0}};
    char *none[] = {"kruise-webhook", NULL};
    setenv("WEBHOOK_FEATURE_GATES", "PodWebhok=false", 1);
    CHECK_EQ_INT(load(&cfg, &eb, none), WH_ERR_INVALID);
    CHECK_EQ_STR(eb.msg,
                 "environment variable WEBHOOK_FEATURE_GATES: unrecognized feature gate: PodWebhok");
    wh_config_fini(&cfg);
    unsetenv("WEBHOOK_FEATURE_GATES");
    char *flag[] = {"kruise-webhook", "--feature-gates", "PodWebhok=false", NULL};
    CHECK_EQ_INT(load(&cfg, &eb, flag), WH_ERR_INVALID);
    CHECK_EQ_STR(eb.msg, "flag --feature-gates: unrecognized feature gate: PodWebhok");
    wh_config_fini(&cfg);

    char path[] = "/tmp/wh-config-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    /* checked after loading, and still named by the file's line */
    static const struct {
        const char *text, *error;
    } in_file[] = {
        {"port: 9443\nfeature-gates:\n  PodWebhok: false\n",
         "2:1: feature-gates: unrecognized feature gate: PodWebhok"},
        {"port: 9443\ncert-key-type: dsa\n",
         "2:1: cert-key-type: invalid value \"dsa\" (want rsa or ecdsa)"},
    };
    char *file[] = {"kruise-webhook", "--config", path, NULL};
    char want[512];
    for (size_t i = 0; i < sizeof(in_file) / sizeof(in_file[0]); i++) {
        write_file(path, in_file[i].text);
        CHECK_EQ_INT(load(&cfg, &eb, file), WH_ERR_INVALID);
        snprintf(want, sizeof(want), "%s:%s", path, in_file[i].error);
        CHECK_EQ_STR(eb.msg, want);
        wh_config_fini(&cfg);
    }

    write_file(path, "port: 9443\n");
    setenv("WEBHOOK_METRICS_ADDR", "127.0.0.1:9090", 1);
    char *mixed[] = {"kruise-webhook", "--config", path, "--health-addr=:8001", NULL};
    CHECK_EQ_INT(load(&cfg, &eb, mixed), WH_OK);
    snprintf(want, sizeof(want), "%s:1:1: port", path);
    CHECK_EQ_STR(wh_config_origin(&cfg, "port"), want);
    CHECK_EQ_STR(wh_config_origin(&cfg, "metrics-addr"), "environment variable WEBHOOK_METRICS_ADDR");
    CHECK_EQ_STR(wh_config_origin(&cfg, "health-addr"), "flag --health-addr");
    CHECK_EQ_STR(wh_config_origin(&cfg, "cert-dir"), "--cert-dir (default)");
    CHECK_EQ_STR(wh_config_env_name("port"), "WEBHOOK_PORT");
    CHECK(wh_config_env_name("config") == NULL);
    wh_config_fini(&cfg);
    unsetenv("WEBHOOK_METRICS_ADDR");
    unlink(path);
}

TEST(config_addr_parsing)
{
    char host[256];
    int port = -1;
    CHECK_EQ_INT(wh_config_parse_addr(":8000", host, sizeof(host), &port), WH_OK);
    CHECK_EQ_STR(host, "");
    CHECK_EQ_INT(port, 8000);
    CHECK_EQ_INT(wh_config_parse_addr("127.0.0.1:0", host, sizeof(host), &port), WH_OK);
    CHECK_EQ_STR(host, "127.0.0.1");
    CHECK_EQ_INT(wh_config_parse_addr("[::1]:9", host, sizeof(host), &port), WH_OK);
    CHECK_EQ_STR(host, "::1");
    CHECK_EQ_INT(wh_config_parse_addr("::1:9", host, sizeof(host), &port), WH_ERR_INVALID);
    CHECK_EQ_INT(wh_config_parse_addr("host", host, sizeof(host), &port), WH_ERR_INVALID);
    CHECK_EQ_INT(wh_config_parse_addr(":99999", host, sizeof(host), &port), WH_ERR_INVALID);
    CHECK(wh_config_addr_disabled("0"));
    CHECK(wh_config_addr_disabled(""));
}

TEST(features_parse_and_implications)
{
    struct wh_features f;
    struct wh_errbuf eb = {{0}};
    wh_features_init(&f);
    CHECK_EQ_INT(wh_features_parse(&f, "DeletionProtectionForCRDCascadingGate=true", &eb), WH_OK);
    /* ResourcesDeletionProtection is off by default, so the CRD gate is forced off. */
    CHECK(!wh_feature_on(&f, WH_FEATURE_DeletionProtectionForCRDCascadingGate));
    wh_features_init(&f);
    CHECK_EQ_INT(wh_features_parse(&f,
                                   "ResourcesDeletionProtection=true, "
                                   "DeletionProtectionForCRDCascadingGate=True",
                                   &eb),
                 WH_OK);
    CHECK(wh_feature_on(&f, WH_FEATURE_DeletionProtectionForCRDCascadingGate));
    wh_features_init(&f);
    CHECK_EQ_INT(wh_features_parse(&f, "PodWebhook=false", &eb), WH_OK);
    CHECK(!wh_feature_on(&f, WH_FEATURE_PodUnavailableBudgetDeleteGate));
    /* kruise-daemon's features: ImagePullJobGate off without KruiseDaemon, on with a
     * pre-download feature (which creates ImagePullJobs) */
    wh_features_init(&f);
    CHECK_EQ_INT(wh_features_parse(&f, "KruiseDaemon=false,ImagePullJobGate=true", &eb), WH_OK);
    CHECK(!wh_feature_on(&f, WH_FEATURE_ImagePullJobGate));
    CHECK(!wh_feature_on(&f, WH_FEATURE_PodProbeMarkerGate));
    wh_features_init(&f);
    CHECK_EQ_INT(wh_features_parse(&f, "PreDownloadImageForDaemonSetUpdate=true", &eb), WH_OK);
    CHECK(wh_feature_on(&f, WH_FEATURE_ImagePullJobGate));
    wh_features_init(&f);
    CHECK_EQ_INT(wh_features_parse(&f,
                                   "KruiseDaemon=false,PreDownloadImageForInPlaceUpdate=true",
                                   &eb),
                 WH_OK);
    CHECK(!wh_feature_on(&f, WH_FEATURE_ImagePullJobGate));
    wh_features_init(&f);
    CHECK_EQ_INT(wh_features_parse(&f, "AllAlpha=true,EnableExternalCerts=false", &eb), WH_OK);
    CHECK(wh_feature_on(&f, WH_FEATURE_EnableSortSidecarContainerByName));
    CHECK(!wh_feature_on(&f, WH_FEATURE_EnableExternalCerts));
    CHECK(!wh_feature_on(&f, WH_FEATURE_ResourcesDeletionProtection)); /* beta */
    wh_features_init(&f);
    CHECK_EQ_INT(wh_features_parse(&f, "AllBeta=false", &eb), WH_OK);
    CHECK(!wh_feature_on(&f, WH_FEATURE_PodWebhook));
    wh_features_init(&f);
    CHECK_EQ_INT(wh_features_parse(&f, "PodWebhook=yes", &eb), WH_ERR_INVALID);
    CHECK(strstr(eb.msg, "PodWebhook") != NULL);
    CHECK_EQ_INT(wh_features_parse(&f, "PodWebhook", &eb), WH_ERR_INVALID);
    CHECK_EQ_INT(wh_features_parse(&f, "", &eb), WH_OK);
}

/* The gates carry the strings upstream's flag takes (the Go constant's name is not always its
 * value: EnhancedLivenessProbeGate is "EnhancedLivenessProbe"), and the gates of the Pod
 * webhook's steps follow PodWebhook and KruiseDaemon as SetDefaultFeatureGates makes them. */
TEST(features_upstream_names_and_pod_step_implications)
{
    struct wh_features f;
    struct wh_errbuf eb = {{0}};
    wh_features_init(&f);
    CHECK_EQ_INT(wh_features_parse(&f,
                                   "EnhancedLivenessProbe=true,EnablePodProbeMarkerOnServerless=true,"
                                   "ForceDeleteTimeoutExpectationGate=true",
                                   &eb),
                 WH_OK);
    CHECK(wh_feature_on(&f, WH_FEATURE_EnhancedLivenessProbe));
    CHECK(wh_feature_on(&f, WH_FEATURE_EnablePodProbeMarkerOnServerless));
    CHECK(wh_feature_on(&f, WH_FEATURE_ForceDeleteTimeoutExpectationGate));
    wh_features_init(&f);
    CHECK_EQ_INT(wh_features_parse(&f, "EnhancedLivenessProbeGate=true", &eb), WH_ERR_INVALID);
    CHECK(strstr(eb.msg, "unrecognized feature gate: EnhancedLivenessProbeGate") != NULL);
    wh_features_init(&f);
    CHECK_EQ_INT(wh_features_parse(&f,
                                   "PodWebhook=false,EnhancedLivenessProbe=true,"
                                   "EnablePodProbeMarkerOnServerless=true",
                                   &eb),
                 WH_OK);
    CHECK(!wh_feature_on(&f, WH_FEATURE_EnhancedLivenessProbe));
    CHECK(!wh_feature_on(&f, WH_FEATURE_EnablePodProbeMarkerOnServerless));
    CHECK(!wh_feature_on(&f, WH_FEATURE_KruisePodReadinessGate));
    wh_features_init(&f);
    CHECK_EQ_INT(wh_features_parse(&f, "KruiseDaemon=false,EnhancedLivenessProbe=true", &eb),
                 WH_OK);
    CHECK(!wh_feature_on(&f, WH_FEATURE_EnhancedLivenessProbe));
    CHECK(!wh_feature_on(&f, WH_FEATURE_PodProbeMarkerGate));
    CHECK(wh_feature_on(&f, WH_FEATURE_EnablePodProbeMarkerOnServerless) == false);
    wh_features_init(&f);
    CHECK_EQ_INT(wh_features_parse(&f, "PreDownloadImageForDaemonSetUpdate=true", &eb), WH_OK);
    CHECK(wh_feature_on(&f, WH_FEATURE_ImagePullJobGate));
}

/* Issue 11: every option has an environment variable, upstream's name where upstream has one
 * and WEBHOOK_<FLAG> (a leading "webhook-" dropped) otherwise, except the command-line ones,
 * which --help names. Read from --help, so that what users see is what is checked. */
TEST(config_every_option_has_an_environment_variable)
{
    static const char *const upstream[][2] = {
        {"namespace", "POD_NAMESPACE"},   {"secret-name", "SECRET_NAME"},
        {"service-name", "SERVICE_NAME"}, {"certs-renew-before", "CERTS_RENEW_BEFORE"},
        {"kubeconfig", "KUBECONFIG"},
    };
    static const char *const cli[] = {"config", "check-config", "help", "version"};
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    wh_config_usage(f, "kruise-webhook");
    fclose(f);
    int flags = 0;
    for (char *line = text; line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        if (strncmp(line, "  --", 4) == 0) {
            flags++;
            char name[64] = "", env[64] = "";
            sscanf(line + 4, "%63[a-z-]", name);
            const char *b = strrchr(line, '[');
            if (b && b > line && b[-1] == ' ')
                sscanf(b + 1, "%63[A-Z_]", env);
            bool is_cli = false;
            for (size_t i = 0; i < sizeof(cli) / sizeof(cli[0]); i++)
                is_cli |= strcmp(name, cli[i]) == 0;
            char want[128] = "";
            if (!is_cli) {
                const char *n = strncmp(name, "webhook-", 8) == 0 ? name + 8 : name;
                size_t k = (size_t)snprintf(want, sizeof(want), "WEBHOOK_");
                for (; *n && k + 1 < sizeof(want); n++)
                    want[k++] = *n == '-' ? '_' : (char)(*n - 'a' + 'A');
                want[k] = '\0';
                for (size_t i = 0; i < sizeof(upstream) / sizeof(upstream[0]); i++)
                    if (strcmp(name, upstream[i][0]) == 0)
                        snprintf(want, sizeof(want), "%s", upstream[i][1]);
            }
            if (strcmp(env, want) != 0)
                fprintf(stderr, "--%s: environment variable \"%s\", want \"%s\"\n", name, env,
                        want);
            CHECK(strcmp(env, want) == 0);
        }
        line = nl ? nl + 1 : NULL;
    }
    CHECK(flags > 30);
    free(text);
    text = NULL;
    f = open_memstream(&text, &len);
    wh_config_usage(f, "kruise-webhook");
    fclose(f);
    CHECK(strstr(text, "\nCommand-line only (no environment variable, not in --config files): "
                       "--config, --check-config, --help, --version.\n") != NULL);
    free(text);

    /* They are read, and a bad value names the variable. */
    setenv("WEBHOOK_BIND_ADDRESS", "127.0.0.1", 1);
    setenv("WEBHOOK_HEALTH_ADDR", "127.0.0.1:8000", 1);
    setenv("WEBHOOK_LEADER_ELECT", "true", 1);
    setenv("WEBHOOK_INITIALIZE_TIMEOUT", "5s", 1);
    struct wh_config cfg;
    struct wh_errbuf eb = {{0}};
    char *argv[] = {"kruise-webhook", NULL};
    CHECK_EQ_INT(load(&cfg, &eb, argv), WH_OK);
    CHECK_EQ_STR(cfg.bind_address, "127.0.0.1");
    CHECK_EQ_STR(cfg.health_addr, "127.0.0.1:8000");
    CHECK(cfg.leader_elect);
    CHECK_EQ_INT(cfg.webhook_init_timeout_ms, 5000);
    wh_config_fini(&cfg);
    char *flag[] = {"kruise-webhook", "--bind-address", "0.0.0.0", NULL};
    CHECK_EQ_INT(load(&cfg, &eb, flag), WH_OK);
    CHECK_EQ_STR(cfg.bind_address, "0.0.0.0"); /* the flag wins */
    wh_config_fini(&cfg);
    setenv("WEBHOOK_THREADS", "lots", 1);
    CHECK_EQ_INT(load(&cfg, &eb, argv), WH_ERR_INVALID);
    CHECK_EQ_STR(eb.msg, "environment variable WEBHOOK_THREADS: invalid value \"lots\" (want an "
                         "integer in 0..1024)");
    wh_config_fini(&cfg);
    unsetenv("WEBHOOK_THREADS");
    unsetenv("WEBHOOK_BIND_ADDRESS");
    unsetenv("WEBHOOK_HEALTH_ADDR");
    unsetenv("WEBHOOK_LEADER_ELECT");
    unsetenv("WEBHOOK_INITIALIZE_TIMEOUT");
}

/* explain takes the server's options among its own arguments. */
TEST(config_is_flag_names_the_servers_options)
{
    bool next = true;
    CHECK(wh_config_is_flag("--feature-gates", &next) && next);
    CHECK(wh_config_is_flag("--feature-gates=A=true", &next) && !next);
    CHECK(wh_config_is_flag("--admission-warnings", &next) && !next); /* a switch */
    CHECK(wh_config_is_flag("--kubeconfig=/x", &next) && !next);
    CHECK(wh_config_is_flag("--namespace", &next) && next); /* the kruise namespace */
    CHECK(!wh_config_is_flag("--no-such-option", &next) && !next);
    CHECK(!wh_config_is_flag("-n", &next));
    CHECK(!wh_config_is_flag("--", &next));
    CHECK(!wh_config_is_flag("pod", &next));
}
