#include "test/support/bench_podsteps.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "handlers/registry.h"
#include "kube/cluster.h"
#include "server/dispatch.h"
#include "test/support/bench_loop.h"
#include "util/json.h"

#define POD_CREATE "test/bench/data/pod-create.json"

/* The shared review with its Pod made web-0 of Advanced StatefulSet web in namespace shop. */
static char *statefulset_pod_review(void)
{
    json_error_t jerr;
    json_t *review = json_load_file(POD_CREATE, 0, &jerr);
    if (!review) {
        fprintf(stderr, "bench: %s:%d: %s (run from the repository root)\n", POD_CREATE, jerr.line,
                jerr.text);
        exit(1);
    }
    json_t *pod = wh_json_path(review, "request", "object", NULL);
    json_t *meta = json_object_get(pod, "metadata");
    json_object_del(meta, "generateName");
    json_object_set_new(meta, "name", json_string("web-0"));
    json_object_set_new(meta, "ownerReferences",
                        json_pack("[{s:s,s:s,s:s,s:s,s:b}]", "apiVersion", "apps.kruise.io/v1beta1",
                                  "kind", "StatefulSet", "name", "web", "uid", "u-web",
                                  "controller", 1));
    json_object_set_new(json_object_get(meta, "annotations"),
                        "apps.kruise.io/using-enhanced-liveness", json_string("true"));
    json_t *main_container = json_array_get(wh_json_path(pod, "spec", "containers", NULL), 0);
    json_object_set_new(main_container, "livenessProbe",
                        json_pack("{s:{s:s,s:i},s:i,s:i}", "httpGet", "path", "/healthz", "port",
                                  8080, "periodSeconds", 10, "failureThreshold", 3));
    char *body = wh_json_dumps(review);
    json_decref(review);
    return body;
}

static json_t *world(void)
{
    return json_pack(
        "[{s:s,s:s,s:{s:s}},"
        "{s:s,s:s,s:{s:s,s:s},s:{s:{s:s,s:s,s:s},s:{s:[s]},s:[{s:i,s:{s:[s]}}]},"
        "s:{s:i,s:{s:{s:s,s:{s:s,s:s}}}}},"
        "{s:s,s:s,s:{s:s,s:s},s:{s:{s:{s:s}},s:[{s:s,s:s,s:{s:{s:[s,s]},s:i},s:s}]}}]",
        "apiVersion", "v1", "kind", "Namespace", "metadata", "name", "shop",
        /* the PersistentPodState of web, which recorded web-0's zone and node */
        "apiVersion", "apps.kruise.io/v1beta1", "kind", "PersistentPodState", "metadata", "name",
        "web", "namespace", "shop", "spec", "targetRef", "apiVersion", "apps.kruise.io/v1beta1",
        "kind", "StatefulSet", "name", "web", "requiredPersistentTopology", "keys",
        "topology.kubernetes.io/zone", "preferredPersistentTopology", "weight", 100, "preference",
        "keys", "kubernetes.io/hostname", "status", "observedGeneration", 1, "podStates", "web-0",
        "nodeName", "node-7", "nodeTopologyLabels", "topology.kubernetes.io/zone", "zone-a",
        "kubernetes.io/hostname", "node-7",
        /* a PodProbeMarker selecting the Pod, with a probe that sets a condition */
        "apiVersion", "apps.kruise.io/v1alpha1", "kind", "PodProbeMarker", "metadata", "name",
        "web-healthy", "namespace", "shop", "spec", "selector", "matchLabels", "app", "web",
        "probes", "name", "healthy", "containerName", "web", "probe", "exec", "command", "/bin/sh",
        "/healthy.sh", "periodSeconds", 5, "podConditionType", "game.kruise.io/healthy");
}

/* wants: what the patch must contain (its paths escape '/' as ~1), NULL-ended. */
static void run_case(const char *label, const char *gates, const char *const *wants)
{
    if (!wh_bench_wanted(label))
        return;
    struct wh_config cfg;
    char flag[256];
    snprintf(flag, sizeof(flag), "--feature-gates=%s", gates);
    char *argv[] = {"kruise-webhook", flag, NULL};
    struct wh_errbuf eb = {{0}};
    if (wh_config_load(&cfg, *gates ? 2 : 1, argv, &eb)) {
        fprintf(stderr, "bench: %s\n", eb.msg);
        exit(1);
    }
    const struct wh_route *route = wh_routes_find(&cfg, "/mutate-pod");
    json_t *objs = world();
    struct wh_cluster *cl = NULL;
    if (!route || wh_cluster_new_standalone_objects(objs, &cl, &eb) ||
        route->setup(cl, &cfg, &eb) || wh_cluster_start(cl, &eb)) {
        fprintf(stderr, "bench %s: %s\n", label, route ? eb.msg : "/mutate-pod is not served");
        exit(1);
    }
    json_decref(objs);
    struct wh_handler_ctx ctx = {.cfg = &cfg, .cluster = cl};
    char *body = statefulset_pod_review();
    size_t len = strlen(body);
    struct wh_reply reply;
    wh_dispatch(route, &ctx, body, len, &reply);
    for (const char *const *w = wants; *w; w++)
        wh_bench_check_patch(label, &reply, *w);
    wh_reply_fini(&reply);
    double ns = wh_bench_dispatch_ns(label, route, &ctx, body, len, 400000000, NULL);
    printf("%-52s %10.0f ns/op  (%zu-byte review)\n", label, ns, len);
    free(body);
    wh_cluster_free(cl);
    wh_config_fini(&cfg);
}

void wh_bench_podsteps(void)
{
    static const char *const pps[] = {"kruise.io~1injected-persistent-pod-state", NULL};
    run_case("podsteps: /mutate-pod, PersistentPodState recorded", "", pps);
    static const char *const all[] = {"kruise.io~1injected-persistent-pod-state",
                                      "apps.kruise.io~1container-probe-context",
                                      "kruise.io~1podprobe\"", NULL};
    run_case("podsteps: /mutate-pod, the three steps (gates on)",
             "EnhancedLivenessProbe=true,EnablePodProbeMarkerOnServerless=true", all);
}
