#include "test/support/bench_workloads.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "handlers/registry.h"
#include "server/dispatch.h"
#include "test/support/bench_loop.h"
#include "util/json.h"

/* A container of a web application's kind: env, resources, probes, mounts, ports. */
static json_t *container(int i)
{
    char name[32], image[64];
    snprintf(name, sizeof(name), "app-%d", i);
    snprintf(image, sizeof(image), "registry.example.com/team/app-%d:v1.%d.3", i, i);
    json_t *env = json_array();
    for (int k = 0; k < 7; k++) {
        char n[32], v[64];
        snprintf(n, sizeof(n), "SETTING_%d_%d", i, k);
        snprintf(v, sizeof(v), "value-of-setting-%d-%d", i, k);
        json_array_append_new(env, json_pack("{s:s,s:s}", "name", n, "value", v));
    }
    json_array_append_new(env, json_pack("{s:s,s:{s:{s:s}}}", "name", "POD_NAME", "valueFrom",
                                         "fieldRef", "fieldPath", "metadata.name"));
    return json_pack("{s:s,s:s,s:[s,s,s],s:o,s:[{s:s,s:i}],s:{s:{s:s,s:s},s:{s:s,s:s}},"
                     "s:{s:{s:s,s:i},s:i},s:{s:{s:i}},s:[{s:s,s:s}]}",
                     "name", name, "image", image, "command", "/bin/app", "--config",
                     "/etc/app/config.yaml", "env", env, "ports", "name", "http", "containerPort",
                     8080 + i, "resources", "requests", "cpu", "250m", "memory", "256Mi", "limits",
                     "cpu", "1", "memory", "512Mi", "livenessProbe", "httpGet", "path", "/healthz",
                     "port", 8080 + i, "initialDelaySeconds", 5, "readinessProbe", "tcpSocket",
                     "port", 8080 + i, "volumeMounts", "name", "config", "mountPath", "/etc/app");
}

static json_t *cloneset(void)
{
    json_t *cs = json_array();
    for (int i = 0; i < 4; i++)
        json_array_append_new(cs, container(i));
    json_t *spec = json_pack(
        "{s:i,s:{s:{s:s,s:s}},s:{s:{s:{s:s,s:s},s:{s:s}},s:{s:o,s:[{s:s,s:{s:s}}],"
        "s:{s:s},s:[{s:s,s:s,s:s}]}},s:{s:s,s:{s:s,s:i}}}",
        "replicas", 5, "selector", "matchLabels", "app", "shop", "tier", "web", "template",
        "metadata", "labels", "app", "shop", "tier", "web", "annotations", "example.com/owner",
        "team-shop", "spec", "containers", cs, "volumes", "name", "config", "configMap", "name",
        "shop-config", "nodeSelector", "pool", "web", "tolerations", "key", "dedicated", "operator",
        "Exists", "effect", "NoSchedule", "updateStrategy", "type", "RollingUpdate",
        "rollingUpdate", "podUpdatePolicy", "InPlaceIfPossible", "maxSurge", 1);
    return json_pack("{s:s,s:s,s:{s:s,s:s},s:o}", "apiVersion", "apps.kruise.io/v1beta1", "kind",
                     "CloneSet", "metadata", "name", "shop", "namespace", "default", "spec", spec);
}

static char *review(const char *op, json_t *object, json_t *old)
{
    json_t *r = json_pack(
        "{s:s,s:s,s:{s:s,s:{s:s,s:s,s:s},s:{s:s,s:s,s:s},s:s,s:s,s:s,"
        "s:o,s:o,s:{s:s},s:{s:s}}}",
        "apiVersion", "admission.k8s.io/v1", "kind", "AdmissionReview", "request", "uid", "bench",
        "kind", "group", "apps.kruise.io", "version", "v1beta1", "kind", "CloneSet", "resource",
        "group", "apps.kruise.io", "version", "v1beta1", "resource", "clonesets", "operation", op,
        "namespace", "default", "name", "shop", "object", object, "oldObject",
        old ? old : json_null(), "options", "kind",
        strcmp(op, "CREATE") ? "UpdateOptions" : "CreateOptions", "userInfo", "username", "bench");
    char *body = wh_json_dumps(r);
    json_decref(r);
    return body;
}

/* Runs body through path and prints the time per request; the first answer must be allowed
 * (with a patch when patched). */
static void run(const char *label, const struct wh_config *cfg, const char *path, const char *body,
                bool patched)
{
    const struct wh_route *route = wh_routes_find(cfg, path);
    struct wh_handler_ctx ctx = {.cfg = cfg};
    struct wh_reply reply;
    wh_dispatch(route, &ctx, body, strlen(body), &reply);
    json_t *answer = json_loads(reply.body, 0, NULL);
    const char *patch = wh_json_path_str(answer, "response", "patch", NULL);
    if (reply.http_status != 200 || !reply.allowed || patched != (patch != NULL)) {
        fprintf(stderr, "bench %s: unexpected answer: %.600s\n", label, reply.body);
        exit(1);
    }
    json_decref(answer);
    wh_reply_fini(&reply);
    if (wh_bench_wanted(label)) {
        double ns = wh_bench_dispatch_ns(label, route, &ctx, body, strlen(body), 500000000, NULL);
        printf("%-52s %10.0f ns/op  (%zu-byte review)\n", label, ns, strlen(body));
    }
}

void wh_bench_workloads(void)
{
    struct wh_config cfg;
    wh_bench_config(&cfg);
    json_t *raw = cloneset();
    char *tmpl = wh_json_dumps(wh_json_path(raw, "spec", "template", NULL));
    printf("workloads: the CloneSet's Pod template is %zu bytes of JSON\n", strlen(tmpl));
    free(tmpl);
    char *body = review("CREATE", json_incref(raw), NULL);
    run("workloads: mutate CloneSet CREATE (4 KiB template)", &cfg,
        "/mutate-apps-kruise-io-cloneset", body, true);
    free(body);

    /* the validating webhook sees the object as defaulting left it */
    json_t *defaulted = json_deep_copy(raw);
    json_t *spec = json_object_get(defaulted, "spec");
    json_object_set_new(spec, "revisionHistoryLimit", json_integer(10));
    json_t *ru = wh_json_path(spec, "updateStrategy", "rollingUpdate", NULL);
    json_object_set_new(ru, "partition", json_integer(0));
    json_object_set_new(ru, "maxUnavailable", json_string("20%"));
    json_t *ps = wh_json_path(spec, "template", "spec", NULL);
    json_object_set_new(ps, "restartPolicy", json_string("Always"));
    json_object_set_new(ps, "dnsPolicy", json_string("ClusterFirst"));
    json_object_set_new(ps, "terminationGracePeriodSeconds", json_integer(30));
    json_object_set_new(ps, "schedulerName", json_string("default-scheduler"));
    json_object_set_new(ps, "securityContext", json_object());
    body = review("CREATE", json_incref(defaulted), NULL);
    run("workloads: validate CloneSet CREATE (4 KiB template)", &cfg,
        "/validate-apps-kruise-io-cloneset", body, false);
    free(body);

    json_t *scaled = json_deep_copy(defaulted);
    json_object_set_new(json_object_get(scaled, "spec"), "replicas", json_integer(8));
    json_object_set_new(json_object_get(scaled, "metadata"), "resourceVersion", json_string("2"));
    json_object_set_new(json_object_get(defaulted, "metadata"), "resourceVersion",
                        json_string("1"));
    body = review("UPDATE", scaled, json_incref(defaulted));
    run("workloads: validate CloneSet UPDATE (scaled)", &cfg, "/validate-apps-kruise-io-cloneset",
        body, false);
    free(body);
    json_decref(defaulted);
    json_decref(raw);
    wh_config_fini(&cfg);
}
