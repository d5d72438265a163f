#include "test/support/bench_pub.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "config/features.h"
#include "handlers/registry.h"
#include "kube/client.h"
#include "kube/cluster.h"
#include "server/dispatch.h"
#include "test/support/apiserver_proc.h"
#include "util/json.h"
#include "util/mem.h"
#include "util/time.h"

#define NS "default"
#define PUB "bench-pub"
#define BUDGET 1000000
#define PUBS "/apis/policy.kruise.io/v1beta1/namespaces/" NS "/podunavailablebudgets"
#define MIN_NS 400000000LL
/* Pods whose deletions are written before the budget's records are reset (the controller keeps
 * them short, so the maps stay small in practice). */
#define CYCLE 64
#define ROUND_TRIPS 300

static json_t *pub_object(int allowed)
{
    return json_pack("{s:s,s:s,s:{s:s,s:s},s:{s:{s:{s:s}},s:i},s:{s:i,s:i,s:i,s:i}}", "apiVersion",
                     "policy.kruise.io/v1beta1", "kind", "PodUnavailableBudget", "metadata", "name",
                     PUB, "namespace", NS, "spec", "selector", "matchLabels", "app", "web",
                     "maxUnavailable", allowed, "status", "unavailableAllowed", allowed,
                     "desiredAvailable", 3, "currentAvailable", 3 + allowed, "totalReplicas",
                     3 + allowed);
}

/* A DELETE review of ready Pod name, protected by the PUB when protected. Returns: new string. */
static char *delete_review(const char *name, bool protected_, bool dry)
{
    json_t *pod = json_pack(
        "{s:s,s:s,s:{s:s,s:s,s:{s:s},s:[{s:s,s:s,s:s,s:s,s:b}]},s:{s:[{s:s,s:s,s:{}}]},"
        "s:{s:s,s:[{s:s,s:s}],s:[{s:s,s:s,s:s,s:b}]}}",
        "apiVersion", "v1", "kind", "Pod", "metadata", "name", name, "namespace", NS, "labels",
        "app", "web", "ownerReferences", "apiVersion", "apps/v1", "kind", "StatefulSet", "name",
        "web", "uid", "u-web", "controller", 1, "spec", "containers", "name", "main", "image",
        "nginx:1.25", "resources", "status", "phase", "Running", "conditions", "type", "Ready",
        "status", "True", "containerStatuses", "name", "main", "image", "nginx:1.25", "imageID",
        "docker.io/library/nginx@sha256:"
        "0d17b565c37bcbd895e9d92315a05c1c3c9a29f762b011a10c54a66cd53c9b31",
        "ready", 1);
    if (protected_)
        json_object_set_new(
            json_object_get(pod, "metadata"), "annotations",
            json_pack("{s:s,s:s}", "pub.kruise.io/related-pub", PUB, "kruise.io/related-pub", PUB));
    json_t *options =
        json_pack("{s:s,s:s}", "apiVersion", "meta.k8s.io/v1", "kind", "DeleteOptions");
    if (dry)
        json_object_set_new(options, "dryRun", json_pack("[s]", "All"));
    json_t *r =
        json_pack("{s:s,s:s,s:{s:s,s:{s:s,s:s,s:s},s:{s:s,s:s,s:s},s:s,s:s,s:s,s:s,"
                  "s:n,s:o,s:o,s:b,s:{s:s}}}",
                  "apiVersion", "admission.k8s.io/v1", "kind", "AdmissionReview", "request", "uid",
                  "bench", "kind", "group", "", "version", "v1", "kind", "Pod", "resource", "group",
                  "", "version", "v1", "resource", "pods", "subResource", "", "operation", "DELETE",
                  "namespace", NS, "name", name, "object", "oldObject", pod, "options", options,
                  "dryRun", dry, "userInfo", "username", "bench");
    char *body = wh_json_dumps(r);
    json_decref(r);
    return body;
}

struct bodies {
    char *b[ROUND_TRIPS];
    size_t n;
};

static void bodies_make(struct bodies *bs, size_t n, bool protected_, bool dry)
{
    bs->n = n;
    for (size_t i = 0; i < n; i++) {
        char name[32];
        snprintf(name, sizeof(name), "web-%zu", i);
        bs->b[i] = delete_review(name, protected_, dry);
    }
}

static void bodies_free(struct bodies *bs)
{
    for (size_t i = 0; i < bs->n; i++)
        free(bs->b[i]);
}

/* A fresh budget, no records: what the controller does between bursts. */
static void reset_budget(struct wh_cluster *cl)
{
    json_t *cur = wh_cluster_freshest(cl, WH_RES_PUB, NS, PUB);
    json_t *obj = pub_object(BUDGET);
    json_object_set(json_object_get(obj, "metadata"), "resourceVersion",
                    json_object_get(json_object_get(cur, "metadata"), "resourceVersion"));
    struct wh_errbuf eb = {{0}};
    if (wh_cluster_update(cl, WH_RES_PUB, obj, true, NULL, &eb)) {
        fprintf(stderr, "bench pub: reset: %s\n", eb.msg);
        exit(1);
    }
    json_decref(obj);
    json_decref(cur);
}

/* Dispatches the bodies in turn for at least MIN_NS (at most max_iters when not 0), resetting
 * the budget every `reset` reviews (0: never); every answer must be `allowed`. */
static void run(const char *label, const struct wh_handler_ctx *ctx, const struct bodies *bs,
                bool allowed, size_t reset, long max_iters)
{
    /* WH_BENCH_CASE=text runs only the cases whose label contains it; WH_BENCH_ITERS=n runs
     * exactly n reviews, for instruction counts under callgrind */
    const char *only = getenv("WH_BENCH_CASE");
    if (only && !strstr(label, only))
        return;
    const char *fixed = getenv("WH_BENCH_ITERS");
    if (fixed)
        max_iters = strtol(fixed, NULL, 10);
    const struct wh_route *route = wh_routes_find(ctx->cfg, "/validate-pod");
    long iters = 0;
    int64_t start = wh_time_mono_ns(), now = start;
    while (fixed ? iters < max_iters
                 : (now - start < MIN_NS && (!max_iters || iters < max_iters)) || iters < 5) {
        size_t k = (size_t)iters % bs->n;
        if (reset && k == 0 && iters)
            reset_budget(ctx->cluster);
        struct wh_reply reply;
        wh_dispatch(route, ctx, bs->b[k], strlen(bs->b[k]), &reply);
        if (reply.http_status != 200 || reply.allowed != allowed) {
            fprintf(stderr, "bench %s: unexpected answer %.400s\n", label, reply.body);
            exit(1);
        }
        wh_reply_fini(&reply);
        iters++;
        now = wh_time_mono_ns();
    }
    printf("%-52s %10.0f ns/op\n", label, (double)(now - start) / (double)iters);
}

static void config_of(struct wh_config *cfg, const char *gates)
{
    memset(cfg, 0, sizeof(*cfg));
    wh_features_init(&cfg->features);
    struct wh_errbuf eb = {{0}};
    if (wh_features_parse(&cfg->features, gates, &eb))
        exit(1);
}

static struct wh_cluster *standalone(const struct wh_config *cfg)
{
    json_t *objs = json_pack("[o]", pub_object(BUDGET));
    struct wh_cluster *cl = NULL;
    struct wh_errbuf eb = {{0}};
    if (wh_cluster_new_standalone_objects(objs, &cl, &eb) || wh_routes_setup(cfg, cl, &eb) ||
        wh_cluster_start(cl, &eb)) {
        fprintf(stderr, "bench pub: %s\n", eb.msg);
        exit(1);
    }
    json_decref(objs);
    return cl;
}

static void in_process(void)
{
    struct wh_config on, off;
    config_of(&on, "");
    config_of(&off, "PodUnavailableBudgetDeleteGate=false");
    struct wh_cluster *cl = standalone(&on), *cl_off = standalone(&off);
    struct wh_handler_ctx ctx = {.cfg = &on, .cluster = cl};
    struct wh_handler_ctx ctx_off = {.cfg = &off, .cluster = cl_off};
    struct bodies bs;
    bodies_make(&bs, 1, false, false);
    run("pub: DELETE, Pod no PUB covers", &ctx, &bs, true, 0, 0);
    run("pub: DELETE, PUB step off (the review alone)", &ctx_off, &bs, true, 0, 0);
    bodies_free(&bs);
    bodies_make(&bs, 1, true, true);
    run("pub: DELETE allowed, decision only (dry run)", &ctx, &bs, true, 0, 0);
    bodies_free(&bs);
    bodies_make(&bs, CYCLE, true, false);
    run("pub: DELETE allowed, written to standalone state", &ctx, &bs, true, CYCLE, 0);
    bodies_free(&bs);
    wh_cluster_free(cl);
    wh_cluster_free(cl_off);
}

/* The round trip: every review writes the PUB's status through the API server. */
static void round_trip(const char *label, const char *kubeconfig)
{
    struct wh_errbuf eb = {{0}};
    struct wh_kube_client *c = NULL;
    struct wh_cluster *cl = NULL;
    struct wh_config cfg;
    config_of(&cfg, "");
    struct wh_kube_opts o = {.kubeconfig = kubeconfig, .timeout_ms = 20000, .max_retries = 2};
    if (wh_kube_client_new(&o, &c, &eb)) {
        fprintf(stderr, "bench pub: %s\n", eb.msg);
        exit(1);
    }
    /* a fresh PUB (the CRD must be installed) */
    struct wh_kube_status st = {0};
    if (wh_kube_delete(c, PUBS "/" PUB, NULL, &st) && st.code != 404)
        fprintf(stderr, "bench pub: delete: %s\n", st.message);
    json_t *obj = pub_object(BUDGET), *stored = NULL;
    json_t *status = json_incref(json_object_get(obj, "status"));
    for (int i = 0; i < 100 && wh_kube_create(c, PUBS, obj, &stored, &st); i++)
        wh_time_sleep_ms(100); /* the old one is still going away */
    if (stored) {
        json_object_set_new(stored, "status", status);
        status = NULL;
        json_t *out = NULL;
        if (wh_kube_update(c, PUBS "/" PUB "/status", stored, &out, &st))
            fprintf(stderr, "bench pub: status: %s\n", st.message);
        json_decref(out);
    }
    json_decref(status);
    json_decref(stored);
    json_decref(obj);
    if (wh_cluster_new_api(c, &cl, &eb) || wh_routes_setup(&cfg, cl, &eb) ||
        wh_cluster_start(cl, &eb)) {
        fprintf(stderr, "bench pub: %s\n", eb.msg);
        exit(1);
    }
    char why[256];
    for (int i = 0; i < 2000 && !wh_cluster_synced(cl, why, sizeof(why)); i++)
        wh_time_sleep_ms(10);
    struct wh_handler_ctx ctx = {.cfg = &cfg, .cluster = cl};
    struct bodies bs;
    bodies_make(&bs, ROUND_TRIPS, true, false);
    run(label, &ctx, &bs, true, 0, ROUND_TRIPS);
    bodies_free(&bs);
    if (wh_kube_delete(wh_cluster_client(cl), PUBS "/" PUB, NULL, &st))
        fprintf(stderr, "bench pub: delete: %s\n", st.message);
    wh_cluster_free(cl);
}

void wh_bench_pub(void)
{
    in_process();
    const char *kc = getenv("WH_BENCH_KUBECONFIG");
    if (kc && *kc) {
        round_trip("pub: DELETE allowed, round trip ($WH_BENCH_KUBECONFIG)", kc);
        return;
    }
    struct wh_apiserver *fake = NULL;
    struct wh_errbuf eb = {{0}};
    char *path = NULL;
    struct wh_apiserver_opts ao = {.kruise_crds = true};
    struct wh_kc_opts ko = {WH_KC_AUTH_NONE, WH_KC_CA_DATA, NULL, NULL, NULL, NULL};
    wh_test_curl_init();
    if (wh_apiserver_start(&ao, &fake, &eb) ||
        wh_apiserver_write_kubeconfig(fake, &ko, NULL, &path, &eb)) {
        printf("pub: round trip skipped: no fake API server: %s\n", eb.msg);
        wh_apiserver_stop(fake);
        return;
    }
    round_trip("pub: DELETE allowed, round trip (fake API server)", path);
    free(path);
    wh_apiserver_stop(fake);
}
