#include "test/support/bench_sidecarset.h"

#include <jansson.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "handlers/registry.h"
#include "kube/cluster.h"
#include "server/dispatch.h"
#include "test/support/bench_jsonpatch.h"
#include "test/support/bench_loop.h"
#include "util/json.h"
#include "util/mem.h"
#include "util/time.h"

#define POD_CREATE "test/bench/data/pod-create.json"
#define SIDECARSETS_50 "test/bench/data/sidecarsets-50.json"

static _Atomic unsigned long allocs;
static json_malloc_t prev_malloc;
static json_free_t prev_free;

static void *counting_malloc(size_t n)
{
    atomic_fetch_add_explicit(&allocs, 1, memory_order_relaxed);
    return prev_malloc(n);
}

static json_t *load_json(const char *path)
{
    json_error_t jerr;
    json_t *v = json_load_file(path, 0, &jerr);
    if (!v) {
        fprintf(stderr, "bench: %s:%d: %s (run from the repository root)\n", path, jerr.line,
                jerr.text);
        exit(1);
    }
    return v;
}

static struct wh_cluster *cluster_of(const struct wh_route *route, const struct wh_config *cfg,
                                     const json_t *objects, const char *label)
{
    struct wh_cluster *cl = NULL;
    struct wh_errbuf eb = {{0}};
    int64_t t0 = wh_time_mono_ns();
    if (wh_cluster_new_standalone_objects(objects, &cl, &eb) || route->setup(cl, cfg, &eb) ||
        wh_cluster_start(cl, &eb)) {
        fprintf(stderr, "bench: %s\n", eb.msg);
        exit(1);
    }
    printf("%-52s %10.1f ms to load %zu objects\n", label, (double)(wh_time_mono_ns() - t0) / 1e6,
           json_array_size(objects));
    return cl;
}

static void run_case(const char *label, const struct wh_route *route,
                     const struct wh_handler_ctx *ctx, const char *body, size_t len,
                     const char *want_list)
{
    if (!wh_bench_wanted(label))
        return;
    struct wh_reply reply;
    wh_dispatch(route, ctx, body, len, &reply);
    wh_bench_check_patch(label, &reply, want_list);
    wh_reply_fini(&reply);
    long iters = 0;
    atomic_store(&allocs, 0);
    double ns = wh_bench_dispatch_ns(label, route, ctx, body, len, 400000000, &iters);
    /* the warm-up is counted too: 200 requests */
    printf("%-52s %10.0f ns/op %8.0f allocs/op  (%zu-byte review)\n", label, ns,
           (double)atomic_load(&allocs) / (double)(iters + 200), len);
}

/* The same when the answer is a refusal, as for a SidecarSet whose pattern Go refuses. */
static void run_refused(const char *label, const struct wh_route *route,
                        const struct wh_handler_ctx *ctx, const char *body, size_t len)
{
    if (!wh_bench_wanted(label))
        return;
    struct wh_reply reply;
    wh_dispatch(route, ctx, body, len, &reply);
    if (reply.http_status != 200 || reply.allowed) {
        fprintf(stderr, "bench %s: expected a refusal: %.400s\n", label, reply.body);
        exit(1);
    }
    wh_reply_fini(&reply);
    long iters = 0;
    double ns = wh_bench_dispatch_ns(label, route, ctx, body, len, 400000000, &iters);
    printf("%-52s %10.0f ns/op  (refused, %zu-byte review)\n", label, ns, len);
}

/* /mutate-pod with a SidecarSet whose sidecar has a resourcesPolicy (the sum case of the shared
 * vectors): ordinary patterns, and issue 22's, which Go refuses (the Pod is refused with Go's
 * message, as upstream refuses it). */
static void bench_resources_policy(const struct wh_route *route, const struct wh_config *cfg)
{
    static const char *const patterns[] = {".*", "^app[0-9]+$", "(?i)^(app|web)\\d*$",
                                           "([a-z]{1,1000}){1,1000}", "(a{1000}){1000}"};
    json_t *vector = load_json("test/vectors/sidecarset/019-resources-policy-sum.json");
    json_t *review = json_pack("{s:s,s:s,s:O}", "apiVersion", "admission.k8s.io/v1", "kind",
                               "AdmissionReview", "request", json_object_get(vector, "request"));
    char *body = wh_json_dumps(review);
    for (size_t i = 0; i < sizeof(patterns) / sizeof(patterns[0]); i++) {
        char label[128];
        snprintf(label, sizeof(label), "sidecarset: /mutate-pod, resourcesPolicy regex %s",
                 patterns[i]);
        if (!wh_bench_wanted(label))
            continue;
        json_t *objs = json_deep_copy(json_object_get(vector, "cluster"));
        json_t *policy = wh_json_path(json_array_get(objs, 0), "spec", "containers", NULL);
        policy = json_object_get(json_array_get(policy, 0), "resourcesPolicy");
        json_object_set_new(policy, "targetContainersNameRegex", json_string(patterns[i]));
        struct wh_cluster *cl = cluster_of(route, cfg, objs, "sidecarset: load 1 SidecarSet");
        struct wh_handler_ctx ctx = {.cfg = cfg, .cluster = cl};
        if (i < 3)
            run_case(label, route, &ctx, body, strlen(body), "res-sidecarset");
        else
            run_refused(label, route, &ctx, body, strlen(body));
        wh_cluster_free(cl);
        json_decref(objs);
    }
    free(body);
    json_decref(review);
    json_decref(vector);
}

static json_t *namespace_obj(const char *name, const char *extra_key, const char *extra_val)
{
    return json_pack("{s:s,s:s,s:{s:s,s:{s:s,s:s}}}", "apiVersion", "v1", "kind", "Namespace",
                     "metadata", "name", name, "labels", "kubernetes.io/metadata.name", name,
                     extra_key, extra_val);
}

/* A SidecarSet like the shared inputs: one agent container with env, resources, a mount. */
static json_t *sidecarset(const char *name, json_t *selector, json_t *ns_selector)
{
    char image[128], vol[96];
    snprintf(image, sizeof(image), "registry.example.com/platform/%s-agent:2.0.0", name);
    snprintf(vol, sizeof(vol), "%s-config", name);
    json_t *ss = json_pack(
        "{s:s,s:s,s:{s:s,s:{s:s,s:s}},s:{s:o,s:[{s:s,s:s,s:s,s:[{s:s,s:{s:{s:s,s:s}}}],s:{s:{s:s,"
        "s:s},s:{s:s,s:s}},s:[{s:s,s:s}],s:s,s:s,s:s,s:{s:s},s:{s:s}}],s:[{s:s,s:{s:s}}],s:{s:s,"
        "s:i,s:i},s:{},s:i}}",
        "apiVersion", "apps.kruise.io/v1beta1", "kind", "SidecarSet", "metadata", "name", name,
        "annotations", "kruise.io/sidecarset-hash", "h1", "kruise.io/sidecarset-hash-without-image",
        "h2", "spec", "selector", selector, "containers", "name", name, "image", image,
        "imagePullPolicy", "IfNotPresent", "env", "name", "POD_NAME", "valueFrom", "fieldRef",
        "apiVersion", "v1", "fieldPath", "metadata.name", "resources", "requests", "cpu", "50m",
        "memory", "64Mi", "limits", "cpu", "200m", "memory", "128Mi", "volumeMounts", "name", vol,
        "mountPath", "/etc/agent", "terminationMessagePath", "/dev/termination-log",
        "terminationMessagePolicy", "File", "podInjectPolicy", "BeforeAppContainer",
        "shareVolumePolicy", "type", "disabled", "upgradeStrategy", "upgradeType", "ColdUpgrade",
        "volumes", "name", vol, "configMap", "name", vol, "updateStrategy", "type", "RollingUpdate",
        "partition", 0, "maxUnavailable", 1, "injectionStrategy", "revisionHistoryLimit", 10);
    if (ns_selector)
        json_object_set_new(json_object_get(ss, "spec"), "namespaceSelector", ns_selector);
    return ss;
}

/* n SidecarSets: the 2 that match the bench Pod (app=web, env=prod in namespace shop), 8
 * cluster-wide near misses, and the rest filed under one of 1 000 other namespaces. */
static json_t *generated(size_t n)
{
    json_t *objs = json_array();
    json_array_append_new(objs, namespace_obj("shop", "env", "prod"));
    json_array_append_new(
        objs, sidecarset("match-web", json_pack("{s:{s:s}}", "matchLabels", "app", "web"), NULL));
    json_array_append_new(
        objs,
        sidecarset("match-prod-shop",
                   json_pack("{s:[{s:s,s:s,s:[s]}]}", "matchExpressions", "key", "env", "operator",
                             "In", "values", "prod"),
                   json_pack("{s:{s:s}}", "matchLabels", "kubernetes.io/metadata.name", "shop")));
    static const char *const apps[] = {"api",     "worker", "checkout", "cart",
                                       "billing", "cache",  "ledger",   "notifier"};
    for (size_t i = 0; i < 8 && i + 2 < n; i++) {
        char name[64];
        snprintf(name, sizeof(name), "near-miss-%s", apps[i]);
        json_array_append_new(
            objs, sidecarset(name, json_pack("{s:{s:s}}", "matchLabels", "app", apps[i]), NULL));
    }
    for (size_t i = 10; i < n; i++) {
        char name[64], ns[32];
        snprintf(name, sizeof(name), "team-sidecar-%05zu", i);
        snprintf(ns, sizeof(ns), "team-%03zu", i % 1000);
        json_array_append_new(
            objs,
            sidecarset(name, json_pack("{s:{s:s}}", "matchLabels", "app", "web"),
                       json_pack("{s:{s:s}}", "matchLabels", "kubernetes.io/metadata.name", ns)));
    }
    return objs;
}

/* review with its Pod replaced by a generated one (nenv env vars, spec_bytes of containers)
 * with the review Pod's labels in namespace shop. Returns: a new string. */
static char *shop_pod_review(const json_t *review, size_t nenv, size_t spec_bytes)
{
    json_t *big = json_deep_copy(review);
    json_t *pod = wh_bench_jsonpatch_pod(nenv, spec_bytes);
    json_t *meta = json_object_get(pod, "metadata");
    json_object_set_new(meta, "namespace", json_string("shop"));
    json_t *labels = wh_json_path(big, "request", "object", "metadata", "labels", NULL);
    json_object_set_new(meta, "labels", json_deep_copy(labels));
    json_object_set_new(json_object_get(big, "request"), "object", pod);
    char *body = wh_json_dumps(big);
    json_decref(big);
    return body;
}

void wh_bench_sidecarset(void)
{
    json_get_alloc_funcs(&prev_malloc, &prev_free);
    json_set_alloc_funcs(counting_malloc, prev_free);

    struct wh_config cfg;
    wh_bench_config(&cfg);
    const struct wh_route *route = wh_routes_find(&cfg, "/mutate-pod");
    if (!route) {
        fprintf(stderr, "bench: /mutate-pod is not served\n");
        exit(1);
    }
    json_t *review = load_json(POD_CREATE);
    char *body = wh_json_dumps(review);
    size_t len = strlen(body);

    /* the shared inputs: 50 SidecarSets (v1alpha1, some with spec.namespace) */
    json_t *objs = load_json(SIDECARSETS_50);
    json_array_append_new(objs, namespace_obj("shop", "env", "prod"));
    struct wh_cluster *cl = cluster_of(route, &cfg, objs, "sidecarset: load sidecarsets-50");
    struct wh_handler_ctx ctx = {.cfg = &cfg, .cluster = cl};
    run_case("sidecarset: /mutate-pod pod-create, 50 SidecarSets", route, &ctx, body, len,
             "\"log-agent,mesh-proxy\"");
    /* The large Pods against the same 50: 64 KiB of containers, 1 500 env vars. */
    static const struct {
        const char *label;
        size_t nenv, spec_bytes;
    } large[] = {
        {"sidecarset: /mutate-pod, 64 KiB Pod, 50 SidecarSets", 40, 64 * 1024},
        {"sidecarset: /mutate-pod, Pod with 1500 env vars, 50 SidecarSets", 1500, 0},
    };
    for (size_t k = 0; k < sizeof(large) / sizeof(large[0]); k++) {
        if (!wh_bench_wanted(large[k].label))
            continue;
        char *bigbody = shop_pod_review(review, large[k].nenv, large[k].spec_bytes);
        run_case(large[k].label, route, &ctx, bigbody, strlen(bigbody), "\"log-agent,mesh-proxy\"");
        free(bigbody);
    }
    wh_cluster_free(cl);
    json_decref(objs);

    /* 10, 1 000, 50 000 cached, 2 matching; and a 64 KiB Pod */
    static const size_t sizes[] = {10, 1000, 50000};
    const char *want = "\"match-prod-shop,match-web\"";
    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        char label[96];
        const char *big_label = "sidecarset: /mutate-pod, 64 KiB Pod, 10 cached";
        snprintf(label, sizeof(label), "sidecarset: /mutate-pod, %zu SidecarSets cached", sizes[k]);
        if (!wh_bench_wanted(label) && !(k == 0 && wh_bench_wanted(big_label)))
            continue;
        objs = generated(sizes[k]);
        char load[96];
        snprintf(load, sizeof(load), "sidecarset: load %zu SidecarSets", sizes[k]);
        cl = cluster_of(route, &cfg, objs, load);
        json_decref(objs);
        ctx.cluster = cl;
        run_case(label, route, &ctx, body, len, want);
        if (k == 0) {
            char *bigbody = shop_pod_review(review, 40, 64 * 1024);
            run_case(big_label, route, &ctx, bigbody, strlen(bigbody), want);
            free(bigbody);
        }
        wh_cluster_free(cl);
    }
    bench_resources_policy(route, &cfg);
    free(body);
    json_decref(review);
    wh_config_fini(&cfg);
    json_set_alloc_funcs(prev_malloc, prev_free);
}
