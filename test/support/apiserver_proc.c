/* realpath and mkdtemp (X/Open). */
#define _XOPEN_SOURCE 700

#include "test/support/apiserver_proc.h"

#include <curl/curl.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kube/client.h"
#include "kube/cluster.h"
#include "util/base64.h"
#include "util/buf.h"
#include "util/json.h"
#include "util/mem.h"
#include "util/str.h"
#include "util/time.h"

#define START_TIMEOUT_MS 20000
#define STOP_GRACE_MS 5000
#define CONTROL_BODY_CAP (256u * 1024u * 1024u)
#define MAX_ARGS 48

struct wh_apiserver {
    pid_t pid;
    int port;
    char url[64];
    char *dir;
};

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;

static void curl_init_once(void)
{
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
        abort();
}

void wh_test_curl_init(void)
{
    pthread_once(&curl_once, curl_init_once);
}

static const char *env_or(const char *name, const char *def)
{
    const char *v = getenv(name);
    return v && *v ? v : def;
}

const char *wh_apiserver_tls_file(const char *name)
{
    static _Thread_local char buf[PATH_MAX];
    char dir[PATH_MAX];
    if (!realpath(env_or("WH_TEST_TLS", "test/data/tls"), dir))
        snprintf(dir, sizeof(dir), "%s", env_or("WH_TEST_TLS", "test/data/tls"));
    int n = snprintf(buf, sizeof(buf), "%s/%s", dir, name);
    if (n < 0 || (size_t)n >= sizeof(buf))
        abort();
    return buf;
}

const char *wh_apiserver_url(const struct wh_apiserver *s)
{
    return s->url;
}

int wh_apiserver_port(const struct wh_apiserver *s)
{
    return s->port;
}

const char *wh_apiserver_dir(const struct wh_apiserver *s)
{
    return s->dir;
}

/* The last bytes of a file, for error messages. */
static void tail_of(const char *path, char *out, size_t outsz)
{
    out[0] = '\0';
    FILE *f = fopen(path, "rb");
    if (!f)
        return;
    long want = (long)outsz - 1;
    if (fseek(f, -want, SEEK_END) != 0)
        rewind(f);
    size_t n = fread(out, 1, outsz - 1, f);
    out[n] = '\0';
    fclose(f);
}

/* Looks for "listening on https://HOST:PORT" in the child's stdout file. */
static bool find_port(const char *path, int *port)
{
    char buf[4096];
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *p = strstr(buf, "listening on ");
    if (!p || !strchr(p, '\n'))
        return false;
    const char *colon = strchr(p + strlen("listening on https://"), ':');
    if (!colon)
        return false;
    char num[16];
    size_t k = 0;
    for (const char *q = colon + 1; *q >= '0' && *q <= '9' && k + 1 < sizeof(num); q++)
        num[k++] = *q;
    num[k] = '\0';
    long long v = 0;
    if (wh_str_to_ll(num, 1, 65535, &v))
        return false;
    *port = (int)v;
    return true;
}

static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    for (e = readdir(d); e; e = readdir(d)) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char *p = wh_str_printf("%s/%s", dir, e->d_name);
        unlink(p);
        free(p);
    }
    closedir(d);
    rmdir(dir);
}

enum wh_err wh_apiserver_start(const struct wh_apiserver_opts *opts, struct wh_apiserver **out,
                               struct wh_errbuf *eb)
{
    enum wh_err rc = WH_OK;
    struct wh_apiserver *s = wh_xcalloc(1, sizeof(*s));
    char tmpl[] = "/tmp/wh-apiserver-XXXXXX";
    char *out_path = NULL, *log_path = NULL;
    char script[PATH_MAX];
    char cert[PATH_MAX], key[PATH_MAX], ca[PATH_MAX];
    const char *argv[MAX_ARGS];
    int argc = 0;

    *out = NULL;
    s->pid = -1;
    wh_test_curl_init();
    if (!mkdtemp(tmpl)) {
        rc = wh_errbuf_set(eb, WH_ERR_IO, "mkdtemp: %s", strerror(errno));
        goto out;
    }
    s->dir = wh_xstrdup(tmpl);
    out_path = wh_str_printf("%s/stdout", s->dir);
    log_path = wh_str_printf("%s/apiserver.log", s->dir);
    if (!realpath(env_or("WH_APISERVER", "test/apiserver/apiserver.py"), script)) {
        rc = wh_errbuf_set(eb, WH_ERR_IO, "%s: %s",
                           env_or("WH_APISERVER", "test/apiserver/apiserver.py"), strerror(errno));
        goto out;
    }
    snprintf(cert, sizeof(cert), "%s", wh_apiserver_tls_file("server.pem"));
    snprintf(key, sizeof(key), "%s", wh_apiserver_tls_file("server-key.pem"));
    snprintf(ca, sizeof(ca), "%s", wh_apiserver_tls_file("ca.pem"));

    argv[argc++] = env_or("WH_PYTHON", "python3");
    argv[argc++] = script;
    argv[argc++] = "--port";
    argv[argc++] = "0";
    argv[argc++] = "--cert";
    argv[argc++] = cert;
    argv[argc++] = "--key";
    argv[argc++] = key;
    argv[argc++] = "--log";
    argv[argc++] = log_path;
    if (opts && opts->token) {
        argv[argc++] = "--token";
        argv[argc++] = opts->token;
    }
    if (opts && opts->client_ca) {
        argv[argc++] = "--client-ca";
        argv[argc++] = ca;
    }
    if (opts && opts->kruise_crds)
        argv[argc++] = "--kruise-crds";
    for (size_t i = 0; opts && opts->extra_args && opts->extra_args[i]; i++) {
        if (argc >= MAX_ARGS - 1) {
            rc = wh_errbuf_set(eb, WH_ERR_INVALID, "too many arguments");
            goto out;
        }
        argv[argc++] = opts->extra_args[i];
    }
    argv[argc] = NULL;

    int fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
        rc = wh_errbuf_set(eb, WH_ERR_IO, "%s: %s", out_path, strerror(errno));
        goto out;
    }
    pid_t parent = getpid();
    s->pid = fork();
    if (s->pid < 0) {
        close(fd);
        rc = wh_errbuf_set(eb, WH_ERR_IO, "fork: %s", strerror(errno));
        goto out;
    }
    if (s->pid == 0) {
        /* The child: never outlive the test program, even when it crashes. */
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != parent)
            _exit(127);
        dup2(fd, 1);
        dup2(fd, 2);
        int devnull = open("/dev/null", O_RDONLY);
        if (devnull >= 0)
            dup2(devnull, 0);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        execvp(argv[0], (char *const *)(uintptr_t)argv);
        _exit(127);
    }
    close(fd);

    int64_t deadline = wh_time_mono_ns() + (int64_t)START_TIMEOUT_MS * 1000000;
    for (;;) {
        if (find_port(out_path, &s->port))
            break;
        int status = 0;
        if (waitpid(s->pid, &status, WNOHANG) == s->pid) {
            char tail[200];
            s->pid = -1;
            tail_of(out_path, tail, sizeof(tail));
            rc =
                wh_errbuf_set(eb, WH_ERR_IO, "fake apiserver exited (status %d): %s", status, tail);
            goto out;
        }
        if (wh_time_mono_ns() > deadline) {
            rc = wh_errbuf_set(eb, WH_ERR_TIMEOUT, "fake apiserver did not start in %d ms",
                               START_TIMEOUT_MS);
            goto out;
        }
        wh_time_sleep_ms(20);
    }
    snprintf(s->url, sizeof(s->url), "https://127.0.0.1:%d", s->port);
    *out = s;
    s = NULL;
out:
    free(out_path);
    free(log_path);
    wh_apiserver_stop(s);
    return rc;
}

void wh_apiserver_stop(struct wh_apiserver *s)
{
    if (!s)
        return;
    if (s->pid > 0) {
        kill(s->pid, SIGTERM);
        int64_t deadline = wh_time_mono_ns() + (int64_t)STOP_GRACE_MS * 1000000;
        int status = 0;
        for (;;) {
            pid_t r = waitpid(s->pid, &status, WNOHANG);
            if (r == s->pid || (r < 0 && errno != EINTR))
                break;
            if (wh_time_mono_ns() > deadline) {
                kill(s->pid, SIGKILL);
                waitpid(s->pid, &status, 0);
                break;
            }
            wh_time_sleep_ms(10);
        }
    }
    if (s->dir && !getenv("WH_KEEP_APISERVER_DIR"))
        remove_dir(s->dir);
    free(s->dir);
    free(s);
}

/* --- kubeconfig ------------------------------------------------------------------------------ */

static enum wh_err file_b64(const char *path, char **out, struct wh_errbuf *eb)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return wh_errbuf_set(eb, WH_ERR_IO, "%s: %s", path, strerror(errno));
    struct wh_buf b;
    char chunk[4096];
    size_t n;
    enum wh_err rc = WH_OK;
    wh_buf_init(&b, 1u << 20);
    while (!rc && (n = fread(chunk, 1, sizeof(chunk), f)) > 0)
        rc = wh_buf_add(&b, chunk, n);
    fclose(f);
    if (!rc)
        *out = wh_base64_encode(b.data ? b.data : "", b.len);
    wh_buf_fini(&b);
    return rc;
}

static enum wh_err write_text(const char *path, const char *text, struct wh_errbuf *eb)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return wh_errbuf_set(eb, WH_ERR_IO, "%s: %s", path, strerror(errno));
    size_t n = strlen(text);
    bool ok = fwrite(text, 1, n, f) == n;
    ok = fclose(f) == 0 && ok;
    return ok ? WH_OK : wh_errbuf_set(eb, WH_ERR_IO, "%s: write failed", path);
}

enum wh_err wh_apiserver_write_kubeconfig(const struct wh_apiserver *s, const struct wh_kc_opts *o,
                                          const char *path, char **written, struct wh_errbuf *eb)
{
    enum wh_err rc = WH_OK;
    json_t *root = NULL;
    char *kcpath = path ? wh_xstrdup(path) : wh_str_printf("%s/kubeconfig", s->dir);
    char *b64 = NULL;
    char *tokpath = NULL;

    if (written)
        *written = NULL;
    json_t *cluster = json_object();
    json_object_set_new(cluster, "server", json_string(o->server ? o->server : s->url));
    switch (o->ca) {
    case WH_KC_CA_DATA:
        rc = file_b64(wh_apiserver_tls_file("ca.pem"), &b64, eb);
        if (rc) {
            json_decref(cluster);
            goto out;
        }
        json_object_set_new(cluster, "certificate-authority-data", json_string(b64));
        free(b64);
        b64 = NULL;
        break;
    case WH_KC_CA_FILE:
        json_object_set_new(cluster, "certificate-authority",
                            json_string(wh_apiserver_tls_file("ca.pem")));
        break;
    case WH_KC_CA_INSECURE:
        json_object_set_new(cluster, "insecure-skip-tls-verify", json_true());
        break;
    case WH_KC_CA_NONE:
        break;
    }
    json_t *user = json_object();
    switch (o->auth) {
    case WH_KC_AUTH_NONE:
        break;
    case WH_KC_AUTH_TOKEN:
        json_object_set_new(user, "token", json_string(o->token ? o->token : ""));
        break;
    case WH_KC_AUTH_TOKEN_FILE:
        tokpath = o->token_file ? wh_xstrdup(o->token_file) : wh_str_printf("%s/token", s->dir);
        rc = write_text(tokpath, o->token ? o->token : "", eb);
        if (!rc)
            json_object_set_new(user, "tokenFile", json_string(tokpath));
        break;
    case WH_KC_AUTH_CERT_DATA:
        rc = file_b64(wh_apiserver_tls_file("client.pem"), &b64, eb);
        if (!rc) {
            json_object_set_new(user, "client-certificate-data", json_string(b64));
            free(b64);
            b64 = NULL;
            rc = file_b64(wh_apiserver_tls_file("client-key.pem"), &b64, eb);
        }
        if (!rc)
            json_object_set_new(user, "client-key-data", json_string(b64));
        break;
    case WH_KC_AUTH_CERT_FILE:
        json_object_set_new(user, "client-certificate",
                            json_string(wh_apiserver_tls_file("client.pem")));
        json_object_set_new(user, "client-key",
                            json_string(wh_apiserver_tls_file("client-key.pem")));
        break;
    }
    json_t *ctx = json_pack("{s:s, s:s}", "cluster", "fake", "user", "tester");
    if (o->ns)
        json_object_set_new(ctx, "namespace", json_string(o->ns));
    root = json_pack("{s:s, s:s, s:s, s:[{s:s, s:o}], s:[{s:s, s:o}], s:[{s:s, s:o}]}",
                     "apiVersion", "v1", "kind", "Config", "current-context", "fake", "clusters",
                     "name", "fake", "cluster", cluster, "users", "name", "tester", "user", user,
                     "contexts", "name", "fake", "context", ctx);
    if (rc)
        goto out;
    if (json_dump_file(root, kcpath, JSON_INDENT(2)) != 0) {
        rc = wh_errbuf_set(eb, WH_ERR_IO, "%s: cannot write", kcpath);
        goto out;
    }
    if (written) {
        *written = kcpath;
        kcpath = NULL;
    }
out:
    free(b64);
    free(tokpath);
    free(kcpath);
    json_decref(root);
    return rc;
}

/* --- control ------------------------------------------------------------------------------- */

static size_t on_body(char *p, size_t size, size_t n, void *ud)
{
    struct wh_buf *b = ud;
    return wh_buf_add(b, p, size * n) ? 0 : size * n;
}

enum wh_err wh_apiserver_control(const struct wh_apiserver *s, const char *method, const char *what,
                                 const char *body, json_t **out, struct wh_errbuf *eb)
{
    enum wh_err rc = WH_OK;
    struct wh_buf b;
    struct curl_slist *hdr = NULL;
    char *url = wh_str_printf("%s/_control/%s", s->url, what);
    char ca[PATH_MAX];
    long code = 0;
    CURL *h = curl_easy_init();

    if (out)
        *out = NULL;
    wh_buf_init(&b, CONTROL_BODY_CAP);
    snprintf(ca, sizeof(ca), "%s", wh_apiserver_tls_file("ca.pem"));
    if (!h) {
        rc = wh_errbuf_set(eb, WH_ERR_NOMEM, "curl_easy_init");
        goto out;
    }
    hdr = curl_slist_append(NULL, "Content-Type: application/json");
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_CAINFO, ca);
    curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdr);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, 30000L);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &b);
    if (body)
        curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
    CURLcode cr = curl_easy_perform(h);
    if (cr != CURLE_OK) {
        rc =
            wh_errbuf_set(eb, WH_ERR_IO, "control %s %s: %s", method, what, curl_easy_strerror(cr));
        goto out;
    }
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
    if (code >= 300) {
        rc = wh_errbuf_set(eb, WH_ERR_KUBE, "control %s %s: HTTP %ld: %.150s", method, what, code,
                           b.data ? b.data : "");
        goto out;
    }
    if (out) {
        *out = json_loadb(b.data ? b.data : "", b.len, 0, NULL);
        if (!*out)
            rc = wh_errbuf_set(eb, WH_ERR_PARSE, "control %s %s: answer is not JSON", method, what);
    }
out:
    if (h)
        curl_easy_cleanup(h);
    curl_slist_free_all(hdr);
    wh_buf_fini(&b);
    free(url);
    return rc;
}

void wh_apiserver_post(const struct wh_apiserver *s, const char *what)
{
    struct wh_errbuf eb = {{0}};
    if (wh_apiserver_control(s, "POST", what, NULL, NULL, &eb)) {
        fprintf(stderr, "fake apiserver control failed: %s\n", eb.msg);
        abort();
    }
}

enum wh_err wh_apiserver_cluster_new(const struct wh_apiserver_opts *opts, const json_t *objects,
                                     int max_retries, struct wh_apiserver **srv,
                                     struct wh_cluster **cl, struct wh_errbuf *eb)
{
    char *kc = NULL;
    struct wh_kube_client *c = NULL;
    *srv = NULL;
    *cl = NULL;
    wh_test_curl_init();
    enum wh_err rc = wh_apiserver_start(opts, srv, eb);
    if (!rc && objects) {
        char *body = wh_json_dumps(objects);
        rc = wh_apiserver_control(*srv, "POST", "objects", body, NULL, eb);
        free(body);
    }
    struct wh_kc_opts ko = {WH_KC_AUTH_NONE, WH_KC_CA_DATA, NULL, NULL, NULL, NULL};
    if (!rc)
        rc = wh_apiserver_write_kubeconfig(*srv, &ko, NULL, &kc, eb);
    struct wh_kube_opts o = {.kubeconfig = kc, .timeout_ms = 20000, .max_retries = max_retries};
    if (!rc)
        rc = wh_kube_client_new(&o, &c, eb);
    free(kc);
    if (!rc)
        rc = wh_cluster_new_api(c, cl, eb);
    return rc;
}

enum wh_err wh_apiserver_cluster_start(struct wh_cluster *cl, struct wh_errbuf *eb)
{
    enum wh_err rc = wh_cluster_start(cl, eb);
    char why[256];
    for (int i = 0; !rc && !wh_cluster_synced(cl, why, sizeof(why)); i++) {
        if (i == 1000)
            return wh_errbuf_set(eb, WH_ERR_TIMEOUT, "caches not synced: %s", why);
        wh_time_sleep_ms(10);
    }
    return rc;
}
