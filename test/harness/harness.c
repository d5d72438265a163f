/* The vector harness: every vector under test/vectors/<area>/ through the real binary over
 * HTTPS against an API server.
 *
 *   vector-harness --bin build/kruise-webhook --vectors test/vectors            (fake API server)
 *   vector-harness --bin ... --vectors ... --kubeconfig ~/.kube/config          (a real cluster)
 *   ... [--port N] [-v] [name-substring ...]
 *
 * For each set of feature gates one server is started (standalone certificates for 127.0.0.1,
 * URL mode, pointed at the API server) and reused: per vector the API server is reset, the
 * vector's `cluster` objects are created (status included), the harness waits until the
 * server's caches have seen them, sends the request, and checks the answer with
 * test/support/vector.c (clusterAfter is read back from the API server). One line per failing
 * vector with its diff; the last line is "N passed, N failed, N skipped", skipped being vectors
 * whose endpoint, or whose feature at that endpoint, is not implemented, listed by folder.
 *
 * Against a real cluster, namespaces are shared between vectors (a deleted one may never go
 * away: envtest-like API servers have no namespace controller): the harness creates each one
 * once, sets it to each vector's labels, adopts a namespace it did not create when the vector's
 * labels are already there (never changing it), and deletes its own at the end. A vector's CRD
 * is waited for until it serves. --port fixes the server's port, so that CRDs whose conversion
 * URL names https://127.0.0.1:N/convert are converted by the server under test. */
#include <curl/curl.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "handlers/registry.h"
#include "kube/client.h"
#include "log/log.h"
#include "kube/resource.h"
#include "test/support/apiserver_proc.h"
#include "test/support/vector.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/json.h"
#include "util/jsonparse.h"
#include "util/mem.h"
#include "util/str.h"
#include "util/time.h"

extern char **environ;

struct harness {
    char *bin;
    const char *kubeconfig; /* a real cluster; NULL = the fake API server */
    const char *port;       /* the server's HTTPS port ("0": any) */
    bool verbose;
    json_t *own_namespaces; /* real cluster: names of the namespaces this run created */
    struct wh_apiserver *fake;
    char *kubeconfig_path;
    struct wh_kube_client *client;
    char tmp[256];
    char cert_dir[320];
    char ca_file[400];
};

/* The webhook configurations the server under test injects its caBundle into: empty ones of
 * the harness's own, so that against a real cluster it never touches the real ones. */
#define HARNESS_CONFIGS "kruise-webhook-harness"

static json_t *harness_configs(void)
{
    json_t *items = json_array();
    static const char *const kinds[] = {"MutatingWebhookConfiguration",
                                        "ValidatingWebhookConfiguration"};
    for (size_t i = 0; i < 2; i++)
        json_array_append_new(items, json_pack("{s:s,s:s,s:{s:s},s:[]}", "apiVersion",
                                               "admissionregistration.k8s.io/v1", "kind",
                                               kinds[i], "metadata", "name", HARNESS_CONFIGS,
                                               "webhooks"));
    return items;
}

struct server {
    pid_t pid;
    int port, health_port, metrics_port;
    char log_path[400];
};

/* --- small HTTP helper (libcurl) ------------------------------------------------------- */

static size_t collect(char *p, size_t size, size_t n, void *arg)
{
    return wh_buf_add(arg, p, size * n) ? 0 : size * n;
}

/* GET or POST url; returns the HTTP status (0 when no answer) and the body in out. */
static long http(const char *url, const char *body, const char *ca_file, struct wh_buf *out)
{
    CURL *c = curl_easy_init();
    struct curl_slist *hdrs = curl_slist_append(NULL, "Content-Type: application/json");
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, out);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, 20000L);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    if (ca_file)
        curl_easy_setopt(c, CURLOPT_CAINFO, ca_file);
    if (body) {
        curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
    }
    long code = 0;
    if (curl_easy_perform(c) == CURLE_OK)
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
    curl_slist_free_all(hdrs);
    curl_easy_cleanup(c);
    return code;
}

/* --- the server under test ------------------------------------------------------------- */

/* Runs argv to completion with its standard output discarded. */
static int run_wait(char *const argv[])
{
    pid_t pid;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    int rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0)
        return -1;
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static bool read_ports(struct server *s)
{
    FILE *f = fopen(s->log_path, "r");
    if (!f)
        return false;
    char line[4096];
    bool found = false;
    while (!found && fgets(line, sizeof(line), f)) {
        const char *p = strstr(line, "listening https=");
        if (p)
            found = sscanf(p, "listening https=%d health=%d metrics=%d", &s->port, &s->health_port,
                           &s->metrics_port) == 3;
    }
    fclose(f);
    return found;
}

static void print_log_tail(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, n > 3000 ? n - 3000 : 0, SEEK_SET);
    char buf[3001];
    size_t got = fread(buf, 1, sizeof(buf) - 1, f);
    buf[got] = '\0';
    fprintf(stderr, "--- server log (end) ---\n%s\n", buf);
    fclose(f);
}

static enum wh_err server_start(struct harness *h, const char *gates, struct server *s)
{
    memset(s, 0, sizeof(*s));
    static int serial;
    snprintf(s->log_path, sizeof(s->log_path), "%s/server-%d.log", h->tmp, ++serial);
    char gate_flag[2048];
    snprintf(gate_flag, sizeof(gate_flag), "--feature-gates=%s", gates);
    char *argv[] = {h->bin,
                    "--kubeconfig",
                    h->kubeconfig_path,
                    gate_flag,
                    "--bind-address",
                    "127.0.0.1",
                    "--port",
                    (char *)(uintptr_t)h->port,
                    "--webhook-host",
                    "127.0.0.1",
                    "--cert-writer",
                    "fs",
                    "--cert-dir",
                    h->cert_dir,
                    /* A Service name no CRD points at: against a real cluster, OpenKruise's CRDs
                     * (which name kruise-webhook-service) must not be re-pointed at us. */
                    "--service-name",
                    HARNESS_CONFIGS,
                    "--mutating-webhook-configuration-name",
                    HARNESS_CONFIGS,
                    "--validating-webhook-configuration-name",
                    HARNESS_CONFIGS,
                    "--health-addr",
                    "127.0.0.1:0",
                    "--metrics-addr",
                    "127.0.0.1:0",
                    "--log-format",
                    "text",
                    "--shutdown-delay",
                    "0",
                    "--log-level",
                    h->verbose ? "debug" : "info",
                    NULL};
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, s->log_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    int rc = posix_spawn(&s->pid, h->bin, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) {
        fprintf(stderr, "harness: cannot start %s: %s\n", h->bin, strerror(rc));
        return WH_ERR_IO;
    }
    /* Ports from the log, then /readyz: every cache has listed. */
    int64_t deadline = wh_time_mono_ns() + 30LL * 1000000000;
    while (!read_ports(s) && wh_time_mono_ns() < deadline) {
        if (waitpid(s->pid, NULL, WNOHANG) == s->pid) {
            s->pid = 0;
            break;
        }
        wh_time_sleep_ms(10);
    }
    char url[128];
    snprintf(url, sizeof(url), "http://127.0.0.1:%d/readyz", s->health_port);
    while (s->pid && s->health_port && wh_time_mono_ns() < deadline) {
        struct wh_buf b;
        wh_buf_init(&b, 4096);
        long code = http(url, NULL, NULL, &b);
        wh_buf_fini(&b);
        if (code == 200)
            return WH_OK;
        wh_time_sleep_ms(20);
    }
    fprintf(stderr, "harness: the server with gates \"%s\" did not become ready\n", gates);
    print_log_tail(s->log_path);
    return WH_ERR_TIMEOUT;
}

/* SIGTERM and wait: a non-zero exit (a crash, a sanitizer report) is a failure. */
static bool server_stop(struct server *s)
{
    if (!s->pid)
        return false;
    kill(s->pid, SIGTERM);
    int status = 0;
    waitpid(s->pid, &status, 0);
    s->pid = 0;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return true;
    fprintf(stderr, "harness: the server exited with status %d\n",
            WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
    print_log_tail(s->log_path);
    return false;
}

/* --- cluster state ---------------------------------------------------------------------- */

/* The plural of a kind: the catalogue, else the API server's discovery of that group/version. */
static enum wh_err resource_for(struct harness *h, const char *api_version, const char *kind,
                                char *group, size_t gsz, const char **version, char *plural,
                                size_t psz, bool *namespaced)
{
    const char *slash = strchr(api_version, '/');
    snprintf(group, gsz, "%.*s", slash ? (int)(slash - api_version) : 0, api_version);
    *version = slash ? slash + 1 : api_version;
    enum wh_resource_id id = wh_resource_by_kind(group, kind);
    if (id < WH_RES_COUNT) {
        snprintf(plural, psz, "%s", wh_resource_get(id)->resource);
        *namespaced = wh_resource_get(id)->namespaced;
        return WH_OK;
    }
    char path[512];
    snprintf(path, sizeof(path), group[0] ? "/apis/%s" : "/api/%s", api_version);
    json_t *list = NULL;
    struct wh_kube_status st = {0};
    enum wh_err rc = wh_kube_get(h->client, path, &list, &st);
    if (rc)
        return rc;
    rc = WH_ERR_NOT_FOUND;
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(list, "resources"), i, r)
    {
        if (wh_str_eq(wh_json_str(r, "kind"), kind) && !strchr(wh_json_str(r, "name"), '/')) {
            snprintf(plural, psz, "%s", wh_json_str(r, "name"));
            *namespaced = wh_json_bool(r, "namespaced");
            rc = WH_OK;
            break;
        }
    }
    json_decref(list);
    return rc;
}

static enum wh_err fetch_api(void *arg, const char *api_version, const char *kind, const char *ns,
                             const char *name, json_t **out)
{
    struct harness *h = arg;
    char group[128], plural[128], path[512];
    const char *version = NULL;
    bool namespaced = false;
    enum wh_err rc = resource_for(h, api_version ? api_version : "", kind ? kind : "", group,
                                  sizeof(group), &version, plural, sizeof(plural), &namespaced);
    if (!rc)
        rc = wh_kube_path(path, sizeof(path), group, version, plural, namespaced ? ns : NULL, name,
                          NULL);
    if (rc)
        return rc;
    struct wh_kube_status st = {0};
    return wh_kube_get(h->client, path, out, &st);
}

/* Fake API server: reset, bulk-load the vector's objects (status included), force a bookmark.
 * Returns the resourceVersion the caches must reach. */
static enum wh_err setup_fake(struct harness *h, const struct wh_vec *v, long long *target,
                              struct wh_buf *diff)
{
    struct wh_errbuf eb = {{0}};
    enum wh_err rc = wh_apiserver_control(h->fake, "POST", "reset", NULL, NULL, &eb);
    if (!rc && v->cluster && json_array_size(v->cluster)) {
        char *body = wh_json_dumps(v->cluster);
        rc = wh_apiserver_control(h->fake, "POST", "objects", body, NULL, &eb);
        free(body);
    }
    json_t *bm = NULL;
    if (!rc)
        rc = wh_apiserver_control(h->fake, "POST", "bookmark", NULL, &bm, &eb);
    if (rc) {
        if (wh_buf_printf(diff, "cluster setup failed: %s\n", eb.msg))
            (void)0;
        json_decref(bm);
        return rc;
    }
    *target = strtoll(wh_json_str(bm, "resourceVersion") ? wh_json_str(bm, "resourceVersion") : "0",
                      NULL, 10);
    json_decref(bm);
    return WH_OK;
}

/* True when every label of want is in have with the same value. */
static bool labels_within(const json_t *want, const json_t *have)
{
    const char *k;
    const json_t *v;
    json_object_foreach((json_t *)(uintptr_t)want, k, v)
    {
        if (!json_equal((json_t *)(uintptr_t)v, json_object_get(have, k)))
            return false;
    }
    return true;
}

/* A real cluster's namespace for a vector (see the top of the file). *done: nothing more to
 * create. */
/* Notes that the server's cache of resource (its metrics label: plural[.group]) must reach
 * the resourceVersion of stored before the request is sent. */
static void need_rv(json_t *targets, const char *resource, const json_t *stored)
{
    const char *rv = wh_json_meta_str(stored, "resourceVersion");
    long long n = rv ? strtoll(rv, NULL, 10) : 0;
    if (n > json_integer_value(json_object_get(targets, resource)))
        json_object_set_new(targets, resource, json_integer(n));
}

static enum wh_err setup_namespace(struct harness *h, const json_t *o, bool *done, json_t *targets,
                                   struct wh_buf *diff)
{
    const char *name = wh_json_meta_str(o, "name");
    char path[300];
    json_t *live = NULL;
    struct wh_kube_status st = {0};
    *done = false;
    snprintf(path, sizeof(path), "/api/v1/namespaces/%s", name ? name : "");
    enum wh_err rc = wh_kube_get(h->client, path, &live, &st);
    if (rc == WH_ERR_NOT_FOUND) {
        json_array_append_new(h->own_namespaces, json_string(name));
        return WH_OK; /* created by the caller, deleted at the end of the run */
    }
    *done = true;
    const json_t *want = wh_json_path(o, "metadata", "labels", NULL);
    bool ours = false;
    size_t i;
    json_t *n;
    json_array_foreach(h->own_namespaces, i, n)
    {
        ours |= wh_str_eq(json_string_value(n), name);
    }
    if (!rc && wh_json_path(live, "metadata", "deletionTimestamp", NULL))
        rc = WH_ERR_CONFLICT;
    else if (!rc && ours) {
        json_t *meta = wh_json_obj(live, "metadata");
        const json_t *ann = wh_json_path(o, "metadata", "annotations", NULL);
        json_t *labels = want ? json_deep_copy(want) : json_object();
        json_object_set_new(labels, "kubernetes.io/metadata.name", json_string(name));
        json_object_set_new(meta, "labels", labels);
        json_object_set_new(meta, "annotations", ann ? json_deep_copy(ann) : json_object());
        json_t *stored = NULL;
        rc = wh_kube_update(h->client, path, live, &stored, &st);
        need_rv(targets, "namespaces", stored);
        json_decref(stored);
    } else if (!rc && !labels_within(want, wh_json_path(live, "metadata", "labels", NULL))) {
        rc = WH_ERR_CONFLICT;
        snprintf(st.message, sizeof(st.message), "exists with other labels (not changed)");
    }
    if (rc && wh_buf_printf(diff, "namespace %s: %s\n", name,
                            st.message[0] ? st.message : "being deleted"))
        (void)0;
    json_decref(live);
    return rc;
}

/* Waits until a new CRD serves (Established), as objects of its kind come next. */
static void wait_established(struct harness *h, const json_t *crd)
{
    char path[400];
    snprintf(path, sizeof(path), "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/%s",
             wh_json_meta_str(crd, "name"));
    for (int i = 0; i < 200; i++) {
        json_t *live = NULL;
        struct wh_kube_status st = {0};
        bool ok = false;
        if (wh_kube_get(h->client, path, &live, &st) == WH_OK) {
            size_t k;
            json_t *c;
            json_array_foreach(wh_json_path(live, "status", "conditions", NULL), k, c)
            {
                ok |= wh_str_eq(wh_json_str(c, "type"), "Established") &&
                      wh_str_eq(wh_json_str(c, "status"), "True");
            }
        }
        json_decref(live);
        if (ok)
            return;
        wh_time_sleep_ms(50);
    }
}

/* A real cluster: create each object (then its status), remembering them for cleanup. */
static enum wh_err setup_real(struct harness *h, const struct wh_vec *v, json_t *created,
                              json_t *targets, struct wh_buf *diff)
{
    size_t i;
    json_t *o;
    json_array_foreach((json_t *)(uintptr_t)v->cluster, i, o)
    {
        char group[128], plural[128], path[512];
        const char *version = NULL;
        bool namespaced = false;
        const char *ns = wh_json_meta_str(o, "namespace");
        bool is_ns = wh_str_eq(wh_json_str(o, "kind"), "Namespace") &&
                     wh_str_eq(wh_json_str(o, "apiVersion"), "v1");
        bool done = false;
        if (is_ns && setup_namespace(h, o, &done, targets, diff))
            return WH_ERR_CONFLICT;
        if (done)
            continue;
        enum wh_err rc = WH_ERR_NOT_FOUND;
        /* A kind of a CRD created just before appears in discovery a moment later. */
        for (int tries = 0; rc == WH_ERR_NOT_FOUND && tries < 100; tries++) {
            if (tries)
                wh_time_sleep_ms(50);
            rc = resource_for(h, wh_json_str(o, "apiVersion"), wh_json_str(o, "kind"), group,
                              sizeof(group), &version, plural, sizeof(plural), &namespaced);
        }
        if (!rc)
            rc = wh_kube_path(path, sizeof(path), group, version, plural,
                              namespaced ? (ns ? ns : "default") : NULL, NULL, NULL);
        json_t *stored = NULL;
        struct wh_kube_status st = {0};
        if (!rc)
            rc = wh_kube_create(h->client, path, o, &stored, &st);
        if (!rc && json_object_get(o, "status")) {
            json_t *with_status = json_deep_copy(stored);
            json_object_set(with_status, "status", json_object_get(o, "status"));
            char spath[600];
            snprintf(spath, sizeof(spath), "%s/%s/status", path, wh_json_meta_str(o, "name"));
            json_decref(stored);
            stored = NULL;
            rc = wh_kube_update(h->client, spath, with_status, &stored, &st);
            json_decref(with_status);
        }
        if (rc) {
            if (wh_buf_printf(diff, "creating %s %s failed: %s\n", wh_json_str(o, "kind"),
                              wh_json_meta_str(o, "name"),
                              st.message[0] ? st.message : wh_strerror(rc)))
                (void)0;
            json_decref(stored);
            return rc;
        }
        if (wh_str_eq(wh_json_str(o, "kind"), "CustomResourceDefinition"))
            wait_established(h, o);
        char resource[300];
        snprintf(resource, sizeof(resource), "%s%s%s", plural, group[0] ? "." : "", group);
        need_rv(targets, resource, stored);
        if (is_ns) {
            json_decref(stored); /* the run's, deleted at its end */
            continue;
        }
        json_object_set_new(stored, "_path", json_string(path));
        json_array_append_new(created, stored);
    }
    return WH_OK;
}

/* Deletes what setup_real created, and waits until it is gone: the next vector may create an
 * object of the same name. With no kubelet and no controllers, nothing else would finish a
 * deletion: a Pod bound to a node is deleted with grace period 0, and finalizers (a vector's
 * own, or one the server under test added, as ImagePullJob's protection) are removed first. */
static void cleanup_real(struct harness *h, json_t *created)
{
    json_t *now = json_pack("{s:s,s:s,s:i}", "apiVersion", "v1", "kind", "DeleteOptions",
                            "gracePeriodSeconds", 0);
    json_t *no_finalizers = json_pack("{s:{s:n}}", "metadata", "finalizers");
    for (size_t i = json_array_size(created); i-- > 0;) {
        json_t *o = json_array_get(created, i);
        char path[700];
        snprintf(path, sizeof(path), "%s/%s", wh_json_str(o, "_path"), wh_json_meta_str(o, "name"));
        struct wh_kube_status st = {0};
        json_t *live = NULL;
        if (wh_kube_get(h->client, path, &live, &st) == WH_OK &&
            json_array_size(wh_json_path(live, "metadata", "finalizers", NULL)) &&
            wh_kube_patch(h->client, path, WH_PATCH_MERGE, no_finalizers, NULL, &st))
            fprintf(stderr, "harness: removing the finalizers of %s failed: %s\n", path,
                    st.message);
        json_decref(live);
        if (wh_kube_delete(h->client, path, now, &st) && st.code != 404) {
            fprintf(stderr, "harness: cleanup of %s failed: %s\n", path, st.message);
            continue;
        }
        for (int tries = 0; tries < 100; tries++) {
            live = NULL;
            enum wh_err rc = wh_kube_get(h->client, path, &live, &st);
            json_decref(live);
            if (rc == WH_ERR_NOT_FOUND)
                break;
            wh_time_sleep_ms(50);
        }
    }
    json_decref(now);
    json_decref(no_finalizers);
}

/* Waits until every informer of the server reports a resourceVersion >= target or, with
 * targets ({resource: resourceVersion}, a real cluster, where no bookmark can be forced),
 * until those informers do. An informer that was between two watches when the bookmark went
 * out never got it: the bookmark is sent again every 200 ms while waiting (fake API server). */
static bool wait_synced(struct harness *h, const struct server *s, long long target,
                        const json_t *targets)
{
    char url[128];
    snprintf(url, sizeof(url), "http://127.0.0.1:%d/metrics", s->metrics_port);
    int64_t start = wh_time_mono_ns(), deadline = start + 10LL * 1000000000;
    int64_t next_bookmark = start + 200000000;
    while (wh_time_mono_ns() < deadline) {
        if (h->fake && wh_time_mono_ns() > next_bookmark) {
            struct wh_errbuf eb = {{0}};
            if (wh_apiserver_control(h->fake, "POST", "bookmark", NULL, NULL, &eb))
                fprintf(stderr, "harness: bookmark: %s\n", eb.msg);
            next_bookmark = wh_time_mono_ns() + 200000000;
        }
        struct wh_buf b;
        wh_buf_init(&b, 16 << 20);
        bool behind = http(url, NULL, NULL, &b) != 200;
        const char *p = b.data;
        static const char name[] = "kruise_webhook_informer_resource_version{resource=\"";
        while (!behind && p && (p = strstr(p, name)) != NULL) {
            const char *label = p + sizeof(name) - 1, *sp = strchr(p, ' ');
            const char *q = strchr(label, '"');
            long long want = target;
            if (targets) {
                char res[300];
                snprintf(res, sizeof(res), "%.*s", q ? (int)(q - label) : 0, label);
                want = json_integer_value(json_object_get(targets, res));
            }
            behind = !sp || !q || strtod(sp + 1, NULL) < (double)want;
            p = sp;
        }
        wh_buf_fini(&b);
        if (!behind)
            return true;
        wh_time_sleep_ms(2);
    }
    return false;
}

/* --- one vector --------------------------------------------------------------------------- */

static bool run_vector(struct harness *h, const struct server *s, const struct wh_vec *v,
                       struct wh_buf *diff)
{
    json_t *created = json_array();
    long long target = 0;
    bool ok = false;
    json_t *review = NULL, *answer = NULL;
    if (h->fake) {
        if (setup_fake(h, v, &target, diff))
            goto out;
        if (!wait_synced(h, s, target, NULL)) {
            if (wh_buf_printf(diff, "the server's caches did not reach resourceVersion %lld\n",
                              target))
                (void)0;
            goto out;
        }
    } else if (v->cluster) {
        json_t *targets = json_object();
        bool ok_setup = setup_real(h, v, created, targets, diff) == WH_OK;
        bool ok_sync = ok_setup && wait_synced(h, s, 0, targets);
        json_decref(targets);
        if (ok_setup && !ok_sync && wh_buf_adds(diff, "the server's caches did not catch up\n"))
            (void)0;
        if (!ok_sync)
            goto out;
    }
    review = wh_vec_review(v);
    char *body = wh_json_dumps(review);
    char url[512];
    snprintf(url, sizeof(url), "https://127.0.0.1:%d%s", s->port, v->endpoint);
    struct wh_buf resp;
    wh_buf_init(&resp, 64 << 20);
    long code = http(url, body, h->ca_file, &resp);
    free(body);
    if (code != 200) {
        if (wh_buf_printf(diff, "HTTP %ld: %.300s\n", code, resp.data ? resp.data : "(no answer)"))
            (void)0;
        wh_buf_fini(&resp);
        goto out;
    }
    answer = wh_json_parse(resp.data ? resp.data : "", resp.len, NULL);
    wh_buf_fini(&resp);
    if (!answer) {
        if (wh_buf_adds(diff, "the answer is not JSON\n"))
            (void)0;
        goto out;
    }
    ok = wh_vec_check(v, answer, fetch_api, h, diff);
out:
    if (!h->fake)
        cleanup_real(h, created);
    json_decref(created);
    json_decref(review);
    json_decref(answer);
    return ok;
}

/* A real cluster: the harness's empty webhook configurations exist only while it runs. */
static void create_harness_configs(struct harness *h)
{
    static const char *const paths[] = {
        "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations",
        "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations"};
    json_t *items = harness_configs();
    for (size_t i = 0; i < 2; i++) {
        struct wh_kube_status st = {0};
        enum wh_err rc = wh_kube_create(h->client, paths[i], json_array_get(items, i), NULL, &st);
        if (rc && rc != WH_ERR_CONFLICT)
            fprintf(stderr, "harness: cannot create %s: %s\n", paths[i], st.message);
    }
    json_decref(items);
}

static void delete_harness_configs(struct harness *h)
{
    static const char *const paths[] = {
        "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/" HARNESS_CONFIGS,
        "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/" HARNESS_CONFIGS};
    for (size_t i = 0; i < 2; i++) {
        struct wh_kube_status st = {0};
        if (wh_kube_delete(h->client, paths[i], NULL, &st) && st.code != 404)
            fprintf(stderr, "harness: cannot delete %s: %s\n", paths[i], st.message);
    }
}

/* --- main --------------------------------------------------------------------------------- */

struct loaded {
    struct wh_vec v;
    char *gates;
    bool skip;
};

/* Implemented: some route serves the endpoint and covers the vector's area (/mutate-pod
 * exists for SidecarSets before it does anything for WorkloadSpreads). */
static bool implemented(const struct wh_vec *v)
{
    return wh_routes_implement(v->endpoint, v->area);
}

static int cmp_loaded(const void *a, const void *b)
{
    const struct loaded *x = a, *y = b;
    int r = strcmp(x->gates, y->gates);
    return r ? r : strcmp(x->v.path, y->v.path);
}

static struct loaded *load_all(const char *root, int argc, char **names, size_t *count)
{
    size_t n = 0, cap = 64;
    struct loaded *all = wh_xcalloc(cap, sizeof(*all));
    DIR *d = opendir(root);
    if (!d) {
        fprintf(stderr, "harness: cannot open %s: %s\n", root, strerror(errno));
        exit(2);
    }
    char **areas = NULL;
    size_t nareas = 0;
    for (struct dirent *de = readdir(d); de; de = readdir(d)) {
        char path[1024];
        snprintf(path, sizeof(path), "%s/%s", root, de->d_name);
        struct stat st;
        if (de->d_name[0] == '.' || stat(path, &st) || !S_ISDIR(st.st_mode))
            continue;
        areas = wh_xrealloc(areas, (nareas + 1) * sizeof(*areas));
        areas[nareas++] = wh_xstrdup(path);
    }
    closedir(d);
    for (size_t a = 0; a < nareas; a++) {
        size_t nfiles = 0;
        char **files = wh_vec_list_dir(areas[a], &nfiles);
        for (size_t f = 0; f < nfiles; f++) {
            bool wanted = argc == 0;
            for (int i = 0; i < argc; i++)
                wanted |= strstr(files[f], names[i]) != NULL;
            struct wh_errbuf eb = {{0}};
            if (wanted) {
                if (n == cap) {
                    cap *= 2;
                    all = wh_xrealloc(all, cap * sizeof(*all));
                }
                if (wh_vec_load(files[f], &all[n].v, &eb)) {
                    fprintf(stderr, "FAIL %s: %s\n", files[f], eb.msg);
                    exit(1);
                }
                all[n].gates = wh_vec_gates(&all[n].v);
                all[n].skip = !implemented(&all[n].v);
                n++;
            }
            free(files[f]);
        }
        free(files);
        free(areas[a]);
    }
    free(areas);
    qsort(all, n, sizeof(*all), cmp_loaded);
    *count = n;
    return all;
}

static void usage(void)
{
    fprintf(stderr, "usage: vector-harness --bin BIN --vectors DIR [--kubeconfig FILE] [--port N] "
                    "[-v] [name-substring ...]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    wh_json_init();
    wh_log_setup(WH_LOG_WARN, WH_LOG_TEXT);
    curl_global_init(CURL_GLOBAL_DEFAULT);
    signal(SIGPIPE, SIG_IGN);
    struct harness h = {0};
    const char *root = NULL;
    char **names = wh_xcalloc((size_t)argc, sizeof(*names));
    int nnames = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--bin") == 0 && i + 1 < argc)
            h.bin = argv[++i];
        else if (strcmp(argv[i], "--vectors") == 0 && i + 1 < argc)
            root = argv[++i];
        else if (strcmp(argv[i], "--kubeconfig") == 0 && i + 1 < argc)
            h.kubeconfig = argv[++i];
        else if (strcmp(argv[i], "--port") == 0 && i + 1 < argc)
            h.port = argv[++i];
        else if (strcmp(argv[i], "--apiserver") == 0 && i + 1 < argc)
            setenv("WH_APISERVER", argv[++i], 1);
        else if (strcmp(argv[i], "-v") == 0)
            h.verbose = true;
        else if (argv[i][0] == '-')
            usage();
        else
            names[nnames++] = argv[i];
    }
    if (!h.bin || !root)
        usage();
    if (!h.port)
        h.port = "0";
    h.own_namespaces = json_array();

    size_t n = 0;
    struct loaded *all = load_all(root, nnames, names, &n);

    snprintf(h.tmp, sizeof(h.tmp), "/tmp/wh-harness-XXXXXX");
    if (!mkdtemp(h.tmp)) {
        perror("harness: mkdtemp");
        return 2;
    }
    snprintf(h.cert_dir, sizeof(h.cert_dir), "%s/certs", h.tmp);
    snprintf(h.ca_file, sizeof(h.ca_file), "%s/ca-cert.pem", h.cert_dir);
    char *gen[] = {h.bin,    "certs",     "generate", "--out", h.cert_dir,
                   "--host", "127.0.0.1", "--ecdsa",  NULL};
    if (run_wait(gen) != 0) {
        fprintf(stderr, "harness: %s certs generate failed\n", h.bin);
        return 2;
    }

    struct wh_errbuf eb = {{0}};
    if (h.kubeconfig) {
        h.kubeconfig_path = wh_xstrdup(h.kubeconfig);
    } else {
        char state[400];
        snprintf(state, sizeof(state), "%s/apiserver-state.json", h.tmp);
        json_t *configs = harness_configs();
        if (json_dump_file(configs, state, 0)) {
            fprintf(stderr, "harness: cannot write %s\n", state);
            return 2;
        }
        json_decref(configs);
        const char *extra[] = {"--bookmark-interval", "0", "--state", state, NULL};
        struct wh_apiserver_opts ao = {
            .token = "harness-token", .kruise_crds = true, .extra_args = extra};
        if (wh_apiserver_start(&ao, &h.fake, &eb)) {
            fprintf(stderr, "harness: the fake API server did not start: %s\n", eb.msg);
            return 2;
        }
        struct wh_kc_opts ko = {
            .auth = WH_KC_AUTH_TOKEN, .ca = WH_KC_CA_DATA, .token = "harness-token"};
        if (wh_apiserver_write_kubeconfig(h.fake, &ko, NULL, &h.kubeconfig_path, &eb)) {
            fprintf(stderr, "harness: %s\n", eb.msg);
            return 2;
        }
    }
    struct wh_kube_opts kopts = {
        .kubeconfig = h.kubeconfig_path, .timeout_ms = 20000, .max_retries = 2};
    if (wh_kube_client_new(&kopts, &h.client, &eb)) {
        fprintf(stderr, "harness: %s\n", eb.msg);
        return 2;
    }

    if (h.kubeconfig)
        create_harness_configs(&h);

    int passed = 0, failed = 0, skipped = 0;
    struct wh_buf skipped_by_area;
    wh_buf_init(&skipped_by_area, 1 << 16);
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && strcmp(all[j].gates, all[i].gates) == 0)
            j++;
        bool any = false;
        for (size_t k = i; k < j; k++)
            any |= !all[k].skip;
        struct server s = {0};
        bool up = any && server_start(&h, all[i].gates, &s) == WH_OK;
        for (size_t k = i; k < j; k++) {
            struct loaded *l = &all[k];
            if (l->skip) {
                skipped++;
                continue;
            }
            struct wh_buf diff;
            wh_buf_init(&diff, 1 << 16);
            int64_t t0 = wh_time_mono_ns();
            bool ok = up && run_vector(&h, &s, &l->v, &diff);
            if (ok) {
                passed++;
                if (h.verbose)
                    printf("ok   %s/%s (%.1f ms)\n", l->v.area, l->v.name,
                           (double)(wh_time_mono_ns() - t0) / 1e6);
            } else {
                failed++;
                printf("FAIL %s/%s [%s]%s\n%s", l->v.area, l->v.name,
                       l->gates[0] ? l->gates : "default gates", up ? "" : ": no server",
                       diff.data ? diff.data : "");
            }
            wh_buf_fini(&diff);
        }
        if (up && !server_stop(&s)) {
            failed++;
            printf("FAIL the server for gates [%s] did not stop cleanly\n", all[i].gates);
        }
        i = j;
    }
    /* Skipped vectors, counted per folder. */
    for (size_t i = 0; i < n; i++) {
        if (!all[i].skip)
            continue;
        bool seen = false;
        for (size_t k = 0; k < i; k++)
            seen |= all[k].skip && strcmp(all[k].v.area, all[i].v.area) == 0;
        if (seen)
            continue;
        int count = 0;
        for (size_t k = i; k < n; k++)
            count += all[k].skip && strcmp(all[k].v.area, all[i].v.area) == 0;
        if (wh_buf_printf(&skipped_by_area, "%s%s %d", skipped_by_area.len ? ", " : "",
                          all[i].v.area, count))
            (void)0;
    }
    if (skipped)
        printf("skipped (not implemented yet): %s\n", skipped_by_area.data);
    printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);

    wh_buf_fini(&skipped_by_area);
    for (size_t i = 0; i < n; i++) {
        wh_vec_fini(&all[i].v);
        free(all[i].gates);
    }
    free(all);
    free(names);
    if (h.kubeconfig) {
        delete_harness_configs(&h);
        size_t k;
        json_t *ns;
        json_array_foreach(h.own_namespaces, k, ns)
        {
            char path[300];
            struct wh_kube_status st = {0};
            snprintf(path, sizeof(path), "/api/v1/namespaces/%s", json_string_value(ns));
            if (wh_kube_delete(h.client, path, NULL, &st) && st.code != 404)
                fprintf(stderr, "harness: cannot delete %s: %s\n", path, st.message);
        }
    }
    json_decref(h.own_namespaces);
    wh_kube_client_free(h.client);
    wh_apiserver_stop(h.fake);
    free(h.kubeconfig_path);
    char *rm[] = {"/bin/rm", "-rf", h.tmp, NULL};
    if (!failed)
        run_wait(rm);
    else
        fprintf(stderr, "harness: logs kept in %s\n", h.tmp);
    wh_arena_release();
    curl_global_cleanup();
    return failed ? 1 : 0;
}
