#include "test/unit/test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kube/kubeconfig.h"
#include "test/support/apiserver_proc.h"
#include "util/base64.h"
#include "util/mem.h"
#include "util/str.h"

/* A scratch directory per test, removed (flat, plus one level) at the end. */
static char *scratch_new(void)
{
    char tmpl[] = "/tmp/wh-kubeconfig-XXXXXX";
    if (!mkdtemp(tmpl))
        abort();
    return wh_xstrdup(tmpl);
}

static void put(const char *dir, const char *name, const char *text)
{
    char *p = wh_str_printf("%s/%s", dir, name);
    FILE *f = fopen(p, "wb");
    if (!f)
        abort();
    fputs(text, f);
    fclose(f);
    free(p);
}

static void scratch_free(char *dir)
{
    static const char *const names[] = {"kc.yaml", "ca.pem", "token", "client.pem",
                                        "client-key.pem", "namespace", "ca.crt",
                                        "sub/kc.yaml", "sub/certs/client.pem",
                                        "sub/certs/client-key.pem", "sub/tok", "sub/certs",
                                        "sub"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        char *p = wh_str_printf("%s/%s", dir, names[i]);
        if (unlink(p) != 0)
            rmdir(p);
        free(p);
    }
    rmdir(dir);
    free(dir);
}

static char *b64_of_file(const char *path, char **raw)
{
    size_t len = 0;
    char *data = wh_test_read_file(path, &len);
    char *b = wh_base64_encode(data, len);
    if (raw)
        *raw = data;
    else
        free(data);
    return b;
}

/* Loads YAML text written to <dir>/kc.yaml. */
static enum wh_err load_text(const char *dir, const char *yaml, struct wh_kubeconfig *kc,
                             struct wh_errbuf *eb)
{
    put(dir, "kc.yaml", yaml);
    char *p = wh_str_printf("%s/kc.yaml", dir);
    enum wh_err rc = wh_kubeconfig_load(p, kc, eb);
    free(p);
    return rc;
}

TEST(kubeconfig_token_ca_data_and_namespace)
{
    char *dir = scratch_new();
    char *ca_raw = NULL;
    char *ca = b64_of_file(wh_apiserver_tls_file("ca.pem"), &ca_raw);
    char *yaml = wh_str_printf(
        "apiVersion: v1\n"
        "kind: Config\n"
        "clusters:\n"
        "- name: other\n"
        "  cluster: {server: 'https://other.example:1'}\n"
        "- name: main\n"
        "  cluster:\n"
        "    server: https://10.0.0.1:6443/\n"
        "    certificate-authority-data: %s\n"
        "users:\n"
        "- name: me\n"
        "  user:\n"
        "    token: abc.def\n"
        "contexts:\n"
        "- name: a\n"
        "  context: {cluster: other, user: me}\n"
        "- name: b\n"
        "  context:\n"
        "    cluster: main\n"
        "    user: me\n"
        "    namespace: kruise-system\n"
        "current-context: b\n",
        ca);
    struct wh_kubeconfig kc;
    struct wh_errbuf eb = {{0}};
    CHECK_EQ_INT(load_text(dir, yaml, &kc, &eb), WH_OK);
    CHECK_EQ_STR(eb.msg, "");
    CHECK_EQ_STR(kc.server, "https://10.0.0.1:6443");
    CHECK_EQ_STR(kc.ns, "kruise-system");
    CHECK_EQ_STR(kc.token, "abc.def");
    CHECK(kc.token_file == NULL);
    CHECK(!kc.insecure);
    CHECK(kc.ca_file == NULL);
    CHECK(kc.ca_data && kc.ca_len == strlen(ca_raw) && memcmp(kc.ca_data, ca_raw, kc.ca_len) == 0);
    CHECK(kc.cert_data == NULL && kc.cert_file == NULL && kc.key_data == NULL);
    wh_kubeconfig_fini(&kc);
    free(yaml);
    free(ca);
    free(ca_raw);
    scratch_free(dir);
}

TEST(kubeconfig_relative_paths_resolve_against_its_directory)
{
    char *dir = scratch_new();
    char *sub = wh_str_printf("%s/sub", dir);
    char *certs = wh_str_printf("%s/sub/certs", dir);
    CHECK_EQ_INT(mkdir(sub, 0700), 0);
    CHECK_EQ_INT(mkdir(certs, 0700), 0);
    put(dir, "ca.pem", "CA");
    put(dir, "sub/certs/client.pem", "CERT");
    put(dir, "sub/certs/client-key.pem", "KEY");
    put(dir, "sub/tok", "tok\n");
    put(dir, "sub/kc.yaml",
        "clusters:\n"
        "- name: c\n"
        "  cluster:\n"
        "    server: https://k.example\n"
        "    certificate-authority: ../ca.pem\n"
        "users:\n"
        "- name: u\n"
        "  user:\n"
        "    tokenFile: tok\n"
        "    client-certificate: certs/client.pem\n"
        "    client-key: certs/client-key.pem\n"
        "contexts:\n"
        "- {name: x, context: {cluster: c, user: u}}\n"
        "current-context: x\n");
    char *path = wh_str_printf("%s/kc.yaml", sub);
    struct wh_kubeconfig kc;
    struct wh_errbuf eb = {{0}};
    CHECK_EQ_INT(wh_kubeconfig_load(path, &kc, &eb), WH_OK);
    char *want_ca = wh_str_printf("%s/../ca.pem", sub);
    char *want_cert = wh_str_printf("%s/certs/client.pem", sub);
    char *want_key = wh_str_printf("%s/certs/client-key.pem", sub);
    char *want_tok = wh_str_printf("%s/tok", sub);
    CHECK_EQ_STR(kc.ca_file, want_ca);
    CHECK_EQ_STR(kc.cert_file, want_cert);
    CHECK_EQ_STR(kc.key_file, want_key);
    CHECK_EQ_STR(kc.token_file, want_tok);
    CHECK(kc.token == NULL);
    CHECK_EQ_STR(kc.ns, "");
    wh_kubeconfig_fini(&kc);

    /* A file that is not there is reported with its resolved path and the field. */
    put(dir, "sub/kc.yaml",
        "clusters: [{name: c, cluster: {server: 'https://k', certificate-authority: nope.pem}}]\n"
        "users: [{name: u, user: {}}]\n"
        "contexts: [{name: x, context: {cluster: c, user: u}}]\n"
        "current-context: x\n");
    CHECK_EQ_INT(wh_kubeconfig_load(path, &kc, &eb), WH_ERR_IO);
    CHECK(strstr(eb.msg, "certificate-authority") != NULL);
    CHECK(strstr(eb.msg, "sub/nope.pem") != NULL);
    CHECK(wh_str_has_prefix(eb.msg, path));
    free(want_ca);
    free(want_cert);
    free(want_key);
    free(want_tok);
    free(path);
    free(sub);
    free(certs);
    scratch_free(dir);
}

TEST(kubeconfig_client_certificate_data_overrides_files)
{
    char *dir = scratch_new();
    char *cert_raw = NULL, *key_raw = NULL;
    char *cert = b64_of_file(wh_apiserver_tls_file("client.pem"), &cert_raw);
    char *key = b64_of_file(wh_apiserver_tls_file("client-key.pem"), &key_raw);
    char *yaml = wh_str_printf("clusters: [{name: c, cluster: {server: 'http://k:8080'}}]\n"
                               "users:\n"
                               "- name: u\n"
                               "  user:\n"
                               "    client-certificate: /nonexistent/cert.pem\n"
                               "    client-certificate-data: %s\n"
                               "    client-key-data: %s\n"
                               "contexts: [{name: x, context: {cluster: c, user: u}}]\n"
                               "current-context: x\n",
                               cert, key);
    struct wh_kubeconfig kc;
    struct wh_errbuf eb = {{0}};
    CHECK_EQ_INT(load_text(dir, yaml, &kc, &eb), WH_OK);
    CHECK_EQ_STR(kc.server, "http://k:8080");
    CHECK(kc.cert_file == NULL && kc.key_file == NULL);
    CHECK(kc.cert_len == strlen(cert_raw) && memcmp(kc.cert_data, cert_raw, kc.cert_len) == 0);
    CHECK(kc.key_len == strlen(key_raw) && memcmp(kc.key_data, key_raw, kc.key_len) == 0);
    wh_kubeconfig_fini(&kc);
    free(yaml);
    free(cert);
    free(key);
    free(cert_raw);
    free(key_raw);
    scratch_free(dir);
}

TEST(kubeconfig_insecure_and_anonymous)
{
    char *dir = scratch_new();
    struct wh_kubeconfig kc;
    struct wh_errbuf eb = {{0}};
    CHECK_EQ_INT(load_text(dir,
                           "clusters: [{name: c, cluster: {server: 'https://k', "
                           "insecure-skip-tls-verify: true}}]\n"
                           "contexts: [{name: x, context: {cluster: c}}]\n"
                           "current-context: x\n",
                           &kc, &eb),
                 WH_OK);
    CHECK(kc.insecure);
    CHECK(kc.token == NULL && kc.token_file == NULL && kc.cert_data == NULL);
    wh_kubeconfig_fini(&kc);
    scratch_free(dir);
}

struct bad_case {
    const char *yaml;
    enum wh_err rc;
    const char *msg; /* a part of the message */
};

TEST(kubeconfig_errors_name_the_file_and_the_problem)
{
    static const struct bad_case cases[] = {
        {"clusters: [{name: c, cluster: {server: 'https://k'}}]\n"
         "contexts: [{name: x, context: {cluster: c}}]\n",
         WH_ERR_INVALID, "current-context is not set"},
        {"clusters: [{name: c, cluster: {server: 'https://k'}}]\n"
         "contexts: [{name: x, context: {cluster: c}}]\ncurrent-context: nope\n",
         WH_ERR_INVALID, "context \"nope\" not found"},
        {"clusters: [{name: c, cluster: {server: 'https://k'}}]\n"
         "contexts: [{name: x, context: {cluster: d}}]\ncurrent-context: x\n",
         WH_ERR_INVALID, "cluster \"d\" not found"},
        {"clusters: [{name: c, cluster: {server: 'https://k'}}]\n"
         "contexts: [{name: x, context: {cluster: c, user: ghost}}]\ncurrent-context: x\n",
         WH_ERR_INVALID, "user \"ghost\" not found"},
        {"clusters: [{name: c, cluster: {}}]\n"
         "contexts: [{name: x, context: {cluster: c}}]\ncurrent-context: x\n",
         WH_ERR_INVALID, "server is not set"},
        {"clusters: [{name: c, cluster: {server: 'ftp://k'}}]\n"
         "contexts: [{name: x, context: {cluster: c}}]\ncurrent-context: x\n",
         WH_ERR_INVALID, "not an http(s) URL"},
        {"clusters: [{name: c, cluster: {server: 'https://k', insecure-skip-tls-verify: true,"
         " certificate-authority-data: Q0E=}}]\n"
         "contexts: [{name: x, context: {cluster: c}}]\ncurrent-context: x\n",
         WH_ERR_INVALID, "insecure-skip-tls-verify is not allowed"},
        {"clusters: [{name: c, cluster: {server: 'https://k', certificate-authority-data: "
         "'***'}}]\n"
         "contexts: [{name: x, context: {cluster: c}}]\ncurrent-context: x\n",
         WH_ERR_INVALID, "certificate-authority-data: not valid base64"},
        {"clusters: [{name: c, cluster: {server: 'https://k'}}]\n"
         "users: [{name: u, user: {client-certificate-data: Q0VSVA==}}]\n"
         "contexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n",
         WH_ERR_INVALID, "client-certificate without client-key"},
        {"clusters: [{name: c, cluster: {server: 'https://k'}}]\n"
         "users: [{name: u, user: {exec: {command: aws}}}]\n"
         "contexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n",
         WH_ERR_INVALID, "not supported"},
        {"clusters: [{name: c, cluster: {server: 'https://k'}}]\n"
         "users: [{name: u, user: {tokenFile: /nonexistent/token}}]\n"
         "contexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n",
         WH_ERR_IO, "tokenFile: /nonexistent/token"},
        {"clusters: [{name: c, cluster: {server: 'https://k'}}]\n"
         "users: [{name: u, user: {token: \"a\\nb\"}}]\n"
         "contexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n",
         WH_ERR_INVALID, "control character"},
        {"clusters: [{name: c, cluster: {server: 'https://k'}}]\n"
         "contexts: [{name: x, context: {cluster: c}\ncurrent-context: x\n",
         WH_ERR_PARSE, "kc.yaml:"},
        {"clusters: [{name: c, cluster: {server: 'https://k'}}]\n"
         "contexts: [{name: x, context: {cluster: c}}]\ncurrent-context: yes\n",
         WH_ERR_INVALID, "current-context: not a string"},
        {"- just\n- a list\n", WH_ERR_INVALID, "expected a mapping"},
        {"a: 1\n---\nb: 2\n", WH_ERR_INVALID, "expected one YAML document"},
    };
    char *dir = scratch_new();
    char *path = wh_str_printf("%s/kc.yaml", dir);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct wh_kubeconfig kc;
        struct wh_errbuf eb = {{0}};
        enum wh_err rc = load_text(dir, cases[i].yaml, &kc, &eb);
        CHECK_EQ_INT(rc, cases[i].rc);
        if (!strstr(eb.msg, cases[i].msg) || !wh_str_has_prefix(eb.msg, path)) {
            fprintf(stderr, "case %zu: message \"%s\" lacks \"%s\" or the path\n", i, eb.msg,
                    cases[i].msg);
            CHECK(false);
        }
        CHECK(kc.server == NULL); /* nothing is left behind on error */
        wh_kubeconfig_fini(&kc);
    }
    /* A missing file. */
    struct wh_kubeconfig kc;
    struct wh_errbuf eb = {{0}};
    char *missing = wh_str_printf("%s/missing.yaml", dir);
    CHECK_EQ_INT(wh_kubeconfig_load(missing, &kc, &eb), WH_ERR_IO);
    CHECK(strstr(eb.msg, missing) != NULL);
    free(missing);
    free(path);
    scratch_free(dir);
}

TEST(kubeconfig_in_cluster_from_a_service_account_dir)
{
    char *dir = scratch_new();
    put(dir, "token", "sa-token\n");
    put(dir, "ca.crt", "CA");
    put(dir, "namespace", "kruise-system\n");
    setenv("WH_SERVICEACCOUNT_DIR", dir, 1);
    unsetenv("KUBERNETES_SERVICE_HOST");
    unsetenv("KUBERNETES_SERVICE_PORT");

    struct wh_kubeconfig kc;
    struct wh_errbuf eb = {{0}};
    CHECK(!wh_kubeconfig_in_cluster_present());
    CHECK_EQ_INT(wh_kubeconfig_in_cluster(&kc, &eb), WH_ERR_INVALID);
    CHECK(strstr(eb.msg, "KUBERNETES_SERVICE_HOST") != NULL);

    setenv("KUBERNETES_SERVICE_HOST", "10.96.0.1", 1);
    setenv("KUBERNETES_SERVICE_PORT", "443", 1);
    CHECK(wh_kubeconfig_in_cluster_present());
    CHECK_EQ_INT(wh_kubeconfig_in_cluster(&kc, &eb), WH_OK);
    CHECK_EQ_STR(kc.server, "https://10.96.0.1:443");
    CHECK_EQ_STR(kc.ns, "kruise-system");
    char *want_tok = wh_str_printf("%s/token", dir);
    char *want_ca = wh_str_printf("%s/ca.crt", dir);
    CHECK_EQ_STR(kc.token_file, want_tok);
    CHECK_EQ_STR(kc.ca_file, want_ca);
    CHECK_EQ_STR(kc.origin, "in-cluster");
    wh_kubeconfig_fini(&kc);

    /* IPv6 service address, no ca.crt, no namespace file. */
    setenv("KUBERNETES_SERVICE_HOST", "fd00::1", 1);
    unlink(want_ca);
    char *nsfile = wh_str_printf("%s/namespace", dir);
    unlink(nsfile);
    CHECK_EQ_INT(wh_kubeconfig_in_cluster(&kc, &eb), WH_OK);
    CHECK_EQ_STR(kc.server, "https://[fd00::1]:443");
    CHECK(kc.ca_file == NULL);
    CHECK_EQ_STR(kc.ns, "");
    wh_kubeconfig_fini(&kc);

    setenv("KUBERNETES_SERVICE_PORT", "https", 1);
    CHECK_EQ_INT(wh_kubeconfig_in_cluster(&kc, &eb), WH_ERR_INVALID);
    wh_kubeconfig_fini(&kc);

    /* No token file: not in a cluster. */
    setenv("KUBERNETES_SERVICE_PORT", "443", 1);
    unlink(want_tok);
    CHECK(!wh_kubeconfig_in_cluster_present());

    unsetenv("KUBERNETES_SERVICE_HOST");
    unsetenv("KUBERNETES_SERVICE_PORT");
    unsetenv("WH_SERVICEACCOUNT_DIR");
    CHECK_EQ_STR(wh_kubeconfig_sa_dir(), WH_SERVICEACCOUNT_DIR_DEFAULT);
    free(nsfile);
    free(want_tok);
    free(want_ca);
    scratch_free(dir);
}
