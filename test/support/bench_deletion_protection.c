#include "test/support/bench_deletion_protection.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "config/features.h"
#include "handlers/registry.h"
#include "kube/cluster.h"
#include "server/dispatch.h"
#include "util/err.h"
#include "util/json.h"
#include "util/time.h"

/* Repeat each case for at least this long so that the figure is stable. */
#define BENCH_MIN_NS 300000000LL
#define BENCH_MIN_ITERS 5

#define KEY "policy.kruise.io/delete-protection"

static char *review(const char *group, const char *version, const char *kind, const char *resource,
                    json_t *old)
{
    json_t *r =
        json_pack("{s:s,s:s,s:{s:s,s:{s:s,s:s,s:s},s:{s:s,s:s,s:s},s:s,s:s,s:s,s:s,"
                  "s:n,s:o,s:{s:s},s:{s:s}}}",
                  "apiVersion", "admission.k8s.io/v1", "kind", "AdmissionReview", "request", "uid",
                  "bench", "kind", "group", group, "version", version, "kind", kind, "resource",
                  "group", group, "version", version, "resource", resource, "subResource", "",
                  "operation", "DELETE", "namespace", "", "name", "", "object", "oldObject", old,
                  "options", "kind", "DeleteOptions", "userInfo", "username", "bench");
    WH_ASSERT(r);
    char *body = wh_json_dumps(r);
    json_decref(r);
    return body;
}

static void run_case(const char *name, const struct wh_config *cfg, struct wh_cluster *cl,
                     const char *path, const char *body, bool allowed, const char *msg)
{
    const struct wh_route *route = wh_routes_find(cfg, path);
    WH_ASSERT(route);
    struct wh_handler_ctx ctx = {.cfg = cfg, .cluster = cl};
    size_t len = strlen(body);
    int64_t start = wh_time_mono_ns(), now = start;
    long iters = 0;
    while (iters < BENCH_MIN_ITERS || now - start < BENCH_MIN_NS) {
        struct wh_reply reply;
        wh_dispatch(route, &ctx, body, len, &reply);
        if (reply.http_status != 200 || reply.allowed != allowed ||
            (msg && !strstr(reply.body, msg)))
            WH_PANIC("bench %s: unexpected answer %s", name, reply.body);
        wh_reply_fini(&reply);
        iters++;
        now = wh_time_mono_ns();
    }
    printf("dp %s: %lld ns/op\n", name, (long long)((now - start) / iters));
}

void wh_bench_deletion_protection(void)
{
    struct wh_config cfg;
    struct wh_errbuf eb = {{0}};
    memset(&cfg, 0, sizeof(cfg));
    wh_features_init(&cfg.features);
    if (wh_features_parse(&cfg.features,
                          "ResourcesDeletionProtection=true,"
                          "DeletionProtectionForCRDCascadingGate=true",
                          &eb))
        WH_PANIC("gates: %s", eb.msg);

    /* 3000 pods in "big" (all Succeeded, so the PVC list runs too), 3000 custom resources. */
    json_t *objs = json_array();
    json_array_append_new(
        objs, json_pack("{s:s,s:s,s:{s:s,s:{s:s}},s:{s:s,s:{s:s,s:s,s:s,s:s},s:[{s:s,s:b,s:b}]}}",
                        "apiVersion", "apiextensions.k8s.io/v1", "kind", "CustomResourceDefinition",
                        "metadata", "name", "widgets.b.example.com", "labels", KEY, "Cascading",
                        "spec", "group", "b.example.com", "names", "plural", "widgets", "singular",
                        "widget", "kind", "Widget", "listKind", "WidgetList", "versions", "name",
                        "v1", "served", 1, "storage", 1));
    for (int i = 0; i < 3000; i++) {
        char name[32];
        snprintf(name, sizeof(name), "p-%d", i);
        json_array_append_new(objs, json_pack("{s:s,s:s,s:{s:s,s:s},s:{s:s}}", "apiVersion", "v1",
                                              "kind", "Pod", "metadata", "namespace", "big", "name",
                                              name, "status", "phase", "Succeeded"));
        json_array_append_new(objs, json_pack("{s:s,s:s,s:{s:s,s:s}}", "apiVersion",
                                              "b.example.com/v1", "kind", "Widget", "metadata",
                                              "namespace", "big", "name", name));
    }
    struct wh_cluster *cl = NULL;
    if (wh_cluster_new_standalone_objects(objs, &cl, &eb) || wh_cluster_start(cl, &eb))
        WH_PANIC("cluster: %s", eb.msg);
    json_decref(objs);

    char *body = review("apps", "v1", "Deployment", "deployments",
                        json_pack("{s:s,s:s,s:{s:s,s:s,s:{s:s}},s:{s:i}}", "apiVersion", "apps/v1",
                                  "kind", "Deployment", "metadata", "namespace", "default", "name",
                                  "web", "labels", KEY, "Cascading", "spec", "replicas", 3));
    run_case("workload-cascading-denied", &cfg, cl, "/validate-apps-deployment", body, false,
             "replicas 3>0");
    free(body);

    body = review("", "v1", "Namespace", "namespaces",
                  json_pack("{s:s,s:s,s:{s:s,s:{s:s}}}", "apiVersion", "v1", "kind", "Namespace",
                            "metadata", "name", "big", "labels", KEY, "Cascading"));
    run_case("namespace-cascading-3000-finished-pods", &cfg, cl, "/validate-namespace", body, true,
             NULL);
    free(body);

    body = review(
        "apiextensions.k8s.io", "v1", "CustomResourceDefinition", "customresourcedefinitions",
        json_pack("{s:s,s:s,s:{s:s,s:{s:s}},s:{s:s,s:{s:s,s:s},s:[{s:s,s:b}]}}", "apiVersion",
                  "apiextensions.k8s.io/v1", "kind", "CustomResourceDefinition", "metadata", "name",
                  "widgets.b.example.com", "labels", KEY, "Cascading", "spec", "group",
                  "b.example.com", "names", "plural", "widgets", "listKind", "WidgetList",
                  "versions", "name", "v1", "storage", 1));
    run_case("crd-cascading-3000-crs", &cfg, cl, "/validate-customresourcedefinition", body, false,
             "active CRs 3000>0");
    free(body);
    wh_cluster_free(cl);
}
