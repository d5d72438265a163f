#include "test/support/bench_workloads.h"

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "handlers/registry.h"
#include "jsonpatch/apply.h"
#include "server/dispatch.h"
#include "test/support/bench_loop.h"
#include "util/base64.h"
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

/* The Pod template of every kind's object: four such containers (about 4 KiB of JSON). */
static json_t *pod_template(void)
{
    json_t *cs = json_array();
    for (int i = 0; i < 4; i++)
        json_array_append_new(cs, container(i));
    return json_pack("{s:{s:{s:s,s:s},s:{s:s}},s:{s:o,s:[{s:s,s:{s:s}}],s:{s:s},"
                     "s:[{s:s,s:s,s:s}]}}",
                     "metadata", "labels", "app", "shop", "tier", "web", "annotations",
                     "example.com/owner", "team-shop", "spec", "containers", cs, "volumes", "name",
                     "config", "configMap", "name", "shop-config", "nodeSelector", "pool", "web",
                     "tolerations", "key", "dedicated", "operator", "Exists", "effect",
                     "NoSchedule");
}

static json_t *selector(void)
{
    return json_pack("{s:{s:s,s:s}}", "matchLabels", "app", "shop", "tier", "web");
}

/* A typical object of each kind, as kubectl sends it (no defaults yet). */
static json_t *cloneset_spec(void)
{
    return json_pack("{s:i,s:o,s:o,s:{s:s,s:{s:s,s:i}}}", "replicas", 5, "selector", selector(),
                     "template", pod_template(), "updateStrategy", "type", "RollingUpdate",
                     "rollingUpdate", "podUpdatePolicy", "InPlaceIfPossible", "maxSurge", 1);
}

static json_t *statefulset_spec(void)
{
    json_t *claim = json_pack("{s:{s:s},s:{s:[s],s:{s:{s:s}}}}", "metadata", "name", "data",
                              "spec", "accessModes", "ReadWriteOnce", "resources", "requests",
                              "storage", "10Gi");
    /* in-place updates want the readiness gate; a maxUnavailable above 1 wants Parallel */
    json_t *tmpl = pod_template();
    json_object_set_new(json_object_get(tmpl, "spec"), "readinessGates",
                        json_pack("[{s:s}]", "conditionType", "InPlaceUpdateReady"));
    return json_pack("{s:i,s:s,s:s,s:o,s:o,s:[o],s:{s:s,s:{s:s,s:i}}}", "replicas", 3,
                     "serviceName", "shop", "podManagementPolicy", "Parallel", "selector",
                     selector(), "template", tmpl,
                     "volumeClaimTemplates", claim, "updateStrategy", "type", "RollingUpdate",
                     "rollingUpdate", "podUpdatePolicy", "InPlaceIfPossible", "maxUnavailable", 2);
}

static json_t *daemonset_spec(void)
{
    return json_pack("{s:o,s:o,s:{s:s,s:{s:s}}}", "selector", selector(), "template",
                     pod_template(), "updateStrategy", "type", "RollingUpdate", "rollingUpdate",
                     "maxUnavailable", "10%");
}

static json_t *uniteddeployment_spec(void)
{
    json_t *sts = json_pack("{s:{s:{s:s,s:s}},s:{s:o,s:o}}", "metadata", "labels", "app", "shop",
                            "tier", "web", "spec", "selector", selector(), "template",
                            pod_template());
    return json_pack("{s:i,s:o,s:{s:o},s:{s:[{s:s,s:s},{s:s}]}}", "replicas", 6, "selector",
                     selector(), "template", "advancedStatefulSetTemplate", sts, "topology",
                     "subsets", "name", "zone-a", "replicas", "50%", "name", "zone-b");
}

struct kind {
    const char *kind, *resource, *mutate, *validate;
    json_t *(*spec)(void);
};

static const struct kind KINDS[] = {
    {"CloneSet", "clonesets", "/mutate-apps-kruise-io-cloneset",
     "/validate-apps-kruise-io-cloneset", cloneset_spec},
    {"StatefulSet", "statefulsets", "/mutate-apps-kruise-io-statefulset",
     "/validate-apps-kruise-io-statefulset", statefulset_spec},
    {"DaemonSet", "daemonsets", "/mutate-apps-kruise-io-daemonset",
     "/validate-apps-kruise-io-daemonset", daemonset_spec},
    {"UnitedDeployment", "uniteddeployments", "/mutate-apps-kruise-io-uniteddeployment",
     "/validate-apps-kruise-io-uniteddeployment", uniteddeployment_spec},
};

static char *review(const struct kind *k, const char *op, json_t *object, json_t *old)
{
    json_t *r = json_pack(
        "{s:s,s:s,s:{s:s,s:{s:s,s:s,s:s},s:{s:s,s:s,s:s},s:s,s:s,s:s,"
        "s:o,s:o,s:{s:s},s:{s:s}}}",
        "apiVersion", "admission.k8s.io/v1", "kind", "AdmissionReview", "request", "uid", "bench",
        "kind", "group", "apps.kruise.io", "version", "v1beta1", "kind", k->kind, "resource",
        "group", "apps.kruise.io", "version", "v1beta1", "resource", k->resource, "operation", op,
        "namespace", "default", "name", "shop", "object", object, "oldObject",
        old ? old : json_null(), "options", "kind",
        strcmp(op, "CREATE") ? "UpdateOptions" : "CreateOptions", "userInfo", "username", "bench");
    char *body = wh_json_dumps(r);
    json_decref(r);
    return body;
}

/* Runs body through path once and checks the answer: allowed, with a patch when patched.
 * Returns: the answer's patch applied to object (new ref), or a new ref to object. */
static json_t *answer_of(const char *label, const struct wh_config *cfg, const char *path,
                         const char *body, bool patched, const json_t *object)
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
    json_t *out = json_incref((json_t *)(uintptr_t)object);
    if (patch) {
        unsigned char *raw = NULL;
        size_t len = 0;
        json_t *ops = NULL, *patched_obj = NULL;
        struct wh_errbuf eb = {{0}};
        if (wh_base64_decode(patch, strlen(patch), &raw, &len) ||
            !(ops = json_loadb((const char *)raw, len, 0, NULL)) ||
            wh_patch_apply(object, ops, &patched_obj, &eb)) {
            fprintf(stderr, "bench %s: the patch does not apply: %s\n", label, eb.msg);
            exit(1);
        }
        free(raw);
        json_decref(ops);
        json_decref(out);
        out = patched_obj;
    }
    json_decref(answer);
    wh_reply_fini(&reply);
    return out;
}

/* Prints the CPU time per request of body through path. */
static void run(const char *label, const struct wh_config *cfg, const char *path, const char *body)
{
    if (!wh_bench_wanted(label))
        return;
    const struct wh_route *route = wh_routes_find(cfg, path);
    struct wh_handler_ctx ctx = {.cfg = cfg};
    double ns = wh_bench_dispatch_cpu_ns(label, route, &ctx, body, strlen(body), 300000000, NULL);
    printf("%-56s %10.0f ns/op (CPU time, %zu-byte review)\n", label, ns, strlen(body));
}

void wh_bench_workloads(void)
{
    struct wh_config cfg;
    wh_bench_config(&cfg);
    json_t *tmpl = pod_template();
    char *text = wh_json_dumps(tmpl);
    printf("workloads: each object's Pod template is %zu bytes of JSON\n", strlen(text));
    free(text);
    json_decref(tmpl);
    for (size_t i = 0; i < sizeof(KINDS) / sizeof(KINDS[0]); i++) {
        const struct kind *k = &KINDS[i];
        char label[96];
        json_t *raw = json_pack("{s:s,s:s,s:{s:s,s:s},s:o}", "apiVersion",
                                "apps.kruise.io/v1beta1", "kind", k->kind, "metadata", "name",
                                "shop", "namespace", "default", "spec", k->spec());
        snprintf(label, sizeof(label), "workloads: mutate %s CREATE", k->kind);
        char *body = review(k, "CREATE", json_incref(raw), NULL);
        /* the validating webhook sees the object as defaulting left it */
        json_t *defaulted = answer_of(label, &cfg, k->mutate, body, true, raw);
        run(label, &cfg, k->mutate, body);
        free(body);

        snprintf(label, sizeof(label), "workloads: validate %s CREATE", k->kind);
        body = review(k, "CREATE", json_incref(defaulted), NULL);
        json_decref(answer_of(label, &cfg, k->validate, body, false, defaulted));
        run(label, &cfg, k->validate, body);
        free(body);

        if (i == 0) { /* an UPDATE that scales the CloneSet */
            json_t *scaled = json_deep_copy(defaulted);
            json_object_set_new(json_object_get(scaled, "spec"), "replicas", json_integer(8));
            json_object_set_new(json_object_get(scaled, "metadata"), "resourceVersion",
                                json_string("2"));
            json_object_set_new(json_object_get(defaulted, "metadata"), "resourceVersion",
                                json_string("1"));
            snprintf(label, sizeof(label), "workloads: validate %s UPDATE (scaled)", k->kind);
            body = review(k, "UPDATE", scaled, json_incref(defaulted));
            json_decref(answer_of(label, &cfg, k->validate, body, false, defaulted));
            run(label, &cfg, k->validate, body);
            free(body);
        }
        json_decref(defaulted);
        json_decref(raw);
    }
    wh_config_fini(&cfg);
}
