#include "test/support/bench_workloadspread.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "handlers/registry.h"
#include "handlers/workloadspread/match.h"
#include "handlers/workloadspread/subset.h"
#include "kube/client.h"
#include "kube/cluster.h"
#include "server/dispatch.h"
#include "test/support/apiserver_proc.h"
#include "test/support/bench_loop.h"
#include "util/base64.h"
#include "util/json.h"
#include "util/mem.h"
#include "util/time.h"
#include "util/uuid.h"

#define POD_CREATE "test/bench/data/pod-create.json"
#define WRITES 200

static json_t *workloadspread(const char *name, const char *ns, const char *target)
{
    return json_pack("{s:s,s:s,s:{s:s,s:s},s:{s:{s:s,s:s,s:s},s:[{s:s,s:i,s:{s:[{s:s,s:s,s:[s]}]}},"
                     "{s:s}]}}",
                     "apiVersion", "apps.kruise.io/v1beta1", "kind", "WorkloadSpread", "metadata",
                     "name", name, "namespace", ns, "spec", "targetRef", "apiVersion",
                     "apps.kruise.io/v1alpha1", "kind", "CloneSet", "name", target, "subsets",
                     "name", "zone-a", "maxReplicas", 1000000, "requiredNodeSelector",
                     "matchExpressions", "key", "zone", "operator", "In", "values", "a", "name",
                     "zone-b");
}

static json_t *cloneset(const char *name, const char *ns)
{
    return json_pack("{s:s,s:s,s:{s:s,s:s},s:{s:i}}", "apiVersion", "apps.kruise.io/v1alpha1",
                     "kind", "CloneSet", "metadata", "name", name, "namespace", ns, "spec",
                     "replicas", 10);
}

/* The shared bench review with its Pod made a CloneSet's (named, as CloneSet Pods are) in ns.
 * Returns: new string. */
static char *review_in(const char *ns)
{
    json_error_t jerr;
    json_t *review = json_load_file(POD_CREATE, 0, &jerr);
    if (!review) {
        fprintf(stderr, "bench: %s: %s (run from the repository root)\n", POD_CREATE, jerr.text);
        exit(1);
    }
    json_t *req = json_object_get(review, "request");
    json_t *meta = wh_json_path(req, "object", "metadata", NULL);
    json_object_set_new(req, "namespace", json_string(ns));
    json_object_set_new(meta, "namespace", json_string(ns));
    json_object_set_new(meta, "name", json_string("web-x7k2p"));
    json_object_set_new(meta, "ownerReferences",
                        json_pack("[{s:s,s:s,s:s,s:s,s:b}]", "apiVersion",
                                  "apps.kruise.io/v1alpha1", "kind", "CloneSet", "name", "web",
                                  "uid", "3beef468-64c4-5db0-98d3-d7c8d758dd99", "controller", 1));
    char *body = wh_json_dumps(review);
    json_decref(review);
    return body;
}

static bool has_subset(const struct wh_reply *reply)
{
    json_t *answer = json_loads(reply->body, 0, NULL);
    const char *patch64 = wh_json_path_str(answer, "response", "patch", NULL);
    unsigned char *patch = NULL;
    size_t n = 0;
    bool yes = patch64 && wh_base64_decode(patch64, strlen(patch64), &patch, &n) == WH_OK &&
               strstr((const char *)patch, "matched-workloadspread") != NULL;
    free(patch);
    json_decref(answer);
    return yes;
}

static void run_case(const char *label, const struct wh_route *route,
                     const struct wh_handler_ctx *ctx, const char *ns, bool want_subset)
{
    char *body = review_in(ns);
    size_t len = strlen(body);
    struct wh_reply reply;
    wh_dispatch(route, ctx, body, len, &reply);
    if (reply.http_status != 200 || has_subset(&reply) != want_subset) {
        fprintf(stderr, "bench %s: unexpected answer: %.400s\n", label, reply.body);
        exit(1);
    }
    wh_reply_fini(&reply);
    double per_op = wh_bench_dispatch_ns(label, route, ctx, body, len, 400000000, NULL);
    printf("%-60s %8.1f us/op  (%zu-byte review)\n", label, per_op / 1000.0, len);
    free(body);
}

/* The in-process figures: standalone state, offline so the decision stops at the write. */
static void bench_mutate(int others)
{
    struct wh_config cfg;
    struct wh_errbuf eb = {{0}};
    wh_bench_config(&cfg);
    json_t *objs = json_pack("[o,o]", cloneset("web", "shop"), workloadspread("ws", "shop", "web"));
    for (int i = 0; i < others; i++) {
        char ns[32];
        snprintf(ns, sizeof(ns), "other-%04d", i);
        json_array_append_new(objs, workloadspread("ws", ns, "web"));
    }
    const struct wh_route *route = wh_routes_find(&cfg, "/mutate-pod");
    struct wh_cluster *cl = NULL;
    if (wh_cluster_new_standalone_objects(objs, &cl, &eb) || route->setup(cl, &cfg, &eb) ||
        wh_cluster_start(cl, &eb)) {
        fprintf(stderr, "bench: %s\n", eb.msg);
        exit(1);
    }
    json_decref(objs);
    struct wh_handler_ctx ctx = {.cfg = &cfg, .cluster = cl, .offline = true};
    char label[96];
    snprintf(label, sizeof(label), "workloadspread: /mutate-pod, subset chosen%s",
             others ? " (+1000 WS elsewhere)" : "");
    run_case(label, route, &ctx, "shop", true);
    if (!others)
        run_case("workloadspread: /mutate-pod, namespace without WS", route, &ctx, "quiet", false);
    wh_cluster_free(cl);
    wh_config_fini(&cfg);
}

struct rt {
    struct wh_ws_pod_in in;
    struct wh_ws_decision d;
    char uid[WH_UUID_LEN + 1];
};

static enum wh_err decide(void *arg, const json_t *current, json_t **desired, struct wh_errbuf *eb)
{
    struct rt *r = arg;
    return wh_ws_decide_create(current, &r->in, &r->d, desired, eb);
}

/* The status write round trip: the decision for a Pod without a name (a new creatingPods key
 * each time) and PUT .../status to the fake API server, one after another. */
static void bench_round_trip(void)
{
    struct wh_apiserver *srv = NULL;
    struct wh_kube_client *client = NULL;
    struct wh_cluster *cl = NULL;
    struct wh_errbuf eb = {{0}};
    char *kc = NULL;
    wh_test_curl_init();
    struct wh_apiserver_opts ao = {.kruise_crds = true};
    json_t *objs = json_pack("[{s:s,s:s,s:{s:s}},o]", "apiVersion", "v1", "kind", "Namespace",
                             "metadata", "name", "shop", workloadspread("ws", "shop", "web"));
    char *body = wh_json_dumps(objs);
    json_decref(objs);
    struct wh_kc_opts ko = {WH_KC_AUTH_NONE, WH_KC_CA_DATA, NULL, NULL, NULL, NULL};
    enum wh_err rc = wh_apiserver_start(&ao, &srv, &eb);
    if (!rc)
        rc = wh_apiserver_control(srv, "POST", "objects", body, NULL, &eb);
    if (!rc)
        rc = wh_apiserver_write_kubeconfig(srv, &ko, NULL, &kc, &eb);
    struct wh_kube_opts o = {.kubeconfig = kc, .timeout_ms = 20000, .max_retries = 2};
    if (!rc)
        rc = wh_kube_client_new(&o, &client, &eb);
    if (!rc)
        rc = wh_cluster_new_api(client, &cl, &eb);
    if (!rc)
        (void)wh_cluster_declare(cl, WH_RES_WORKLOADSPREAD, NULL);
    if (!rc)
        rc = wh_cluster_start(cl, &eb);
    char why[128];
    for (int i = 0; !rc && i < 1000 && !wh_cluster_synced(cl, why, sizeof(why)); i++)
        wh_time_sleep_ms(10);
    if (rc) {
        fprintf(stderr, "bench: the round trip cannot run: %s\n", eb.msg);
        goto out;
    }
    struct rt r = {
        .in = {.name = "", .version = WH_WS_VERSION_IGNORED, .timestamp = "2025-01-01T00:00:00Z"}};
    r.in.uid = r.uid;
    int64_t total = 0, worst = 0;
    int conflicts = 0;
    for (int i = 0; i < WRITES && !rc; i++) {
        wh_uuid_v4(r.uid);
        struct wh_rmw_result res = {0};
        int64_t t0 = wh_time_mono_ns();
        rc = wh_cluster_write_status(cl, WH_RES_WORKLOADSPREAD, "shop", "ws", decide, &r, NULL,
                                     &res, &eb);
        int64_t dt = wh_time_mono_ns() - t0;
        total += dt;
        worst = dt > worst ? dt : worst;
        conflicts += res.conflicts;
        if (!rc && (r.d.outcome != WH_WS_COUNTED || !res.stored))
            rc = wh_errbuf_set(&eb, WH_ERR_INTERNAL, "write %d was not made", i);
        wh_rmw_result_fini(&res);
    }
    if (rc)
        fprintf(stderr, "bench: status write failed: %s\n", eb.msg);
    else
        printf("%-60s %8.2f ms/write (worst %.2f ms, %d conflicts, %d writes)\n",
               "workloadspread: status write round trip (fake API server)",
               (double)total / WRITES / 1e6, (double)worst / 1e6, conflicts, WRITES);
out:
    free(body);
    free(kc);
    if (cl)
        wh_cluster_free(cl);
    else
        wh_kube_client_free(client);
    wh_apiserver_stop(srv);
}

void wh_bench_workloadspread(void)
{
    bench_mutate(0);
    bench_mutate(1000);
    bench_round_trip();
}
