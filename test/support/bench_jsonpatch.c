#include "test/support/bench_jsonpatch.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonpatch/apply.h"
#include "jsonpatch/diff.h"
#include "util/err.h"
#include "util/json.h"
#include "util/mem.h"
#include "util/time.h"

/* Repeat each case for at least this long so that the figure is stable. */
#define BENCH_MIN_NS 300000000LL
#define BENCH_MIN_ITERS 20

static json_t *container(const char *name, size_t nenv, size_t value_len)
{
    json_t *env = json_array();
    char *value = wh_xmalloc(value_len + 1);
    for (size_t i = 0; i < value_len; i++)
        value[i] = (char)('a' + i % 26);
    value[value_len] = '\0';
    for (size_t i = 0; i < nenv; i++) {
        char key[32];
        snprintf(key, sizeof(key), "ENV_VAR_%zu", i);
        WH_ASSERT(
            json_array_append_new(env, json_pack("{s:s, s:s}", "name", key, "value", value)) == 0);
    }
    free(value);
    json_t *c =
        json_pack("{s:s, s:s, s:[s,s], s:o, s:[{s:s,s:i,s:s}], s:{s:{s:s,s:s},s:{s:s,s:s}},"
                  " s:[{s:s,s:s}], s:s}",
                  "name", name, "image", "registry.example.com/team/app:v1.2.3", "command",
                  "/bin/app", "--serve", "env", env, "ports", "name", "http", "containerPort", 8080,
                  "protocol", "TCP", "resources", "requests", "cpu", "100m", "memory", "128Mi",
                  "limits", "cpu", "1", "memory", "512Mi", "volumeMounts", "name", "data",
                  "mountPath", "/data", "imagePullPolicy", "IfNotPresent");
    WH_ASSERT(c);
    return c;
}

json_t *wh_bench_jsonpatch_pod(size_t nenv, size_t spec_bytes)
{
    json_t *containers = json_array();
    WH_ASSERT(json_array_append_new(containers, container("app", nenv, 24)) == 0);
    json_t *pod =
        json_pack("{s:s, s:s, s:{s:s, s:s, s:{s:s, s:s}, s:[{s:s,s:s,s:s,s:s,s:b}]},"
                  " s:{s:o, s:[{s:s, s:{}}], s:s, s:{s:s}}}",
                  "apiVersion", "v1", "kind", "Pod", "metadata", "name", "web-7d4b9c6f5-x2x9z",
                  "namespace", "default", "labels", "app", "web", "pod-template-hash", "7d4b9c6f5",
                  "ownerReferences", "apiVersion", "apps/v1", "kind", "ReplicaSet", "name",
                  "web-7d4b9c6f5", "uid", "5c2a7f0e-1111-2222-3333-444455556666", "controller", 1,
                  "spec", "containers", containers, "volumes", "name", "data", "emptyDir",
                  "restartPolicy", "Always", "nodeSelector", "kubernetes.io/os", "linux");
    WH_ASSERT(pod);
    json_t *spec = json_object_get(pod, "spec");
    for (size_t n = 1; spec_bytes > 0; n++) {
        char *s = json_dumps(spec, JSON_COMPACT);
        size_t len = strlen(s);
        free(s);
        if (len >= spec_bytes)
            break;
        char name[32];
        snprintf(name, sizeof(name), "worker-%zu", n);
        WH_ASSERT(json_array_append_new(containers, container(name, 40, 48)) == 0);
    }
    return pod;
}

json_t *wh_bench_jsonpatch_inject(const json_t *pod)
{
    json_t *out = json_deep_copy(pod);
    WH_ASSERT(out);
    json_t *containers = wh_json_path(out, "spec", "containers", NULL);
    json_t *volumes = wh_json_path(out, "spec", "volumes", NULL);
    WH_ASSERT(json_is_array(containers) && json_is_array(volumes));
    json_t *sidecar = container("log-agent", 4, 16);
    WH_ASSERT(json_array_insert_new(containers, 0, sidecar) == 0);
    WH_ASSERT(json_array_append_new(
                  volumes, json_pack("{s:s,s:{}}", "name", "log-agent-conf", "emptyDir")) == 0);
    json_t *ann = wh_json_obj_ensure(wh_json_obj(out, "metadata"), "annotations");
    WH_ASSERT(json_object_set_new(ann, "kruise.io/sidecarset-hash",
                                  json_string("{\"log-sidecarset\":{\"hash\":\"4bd7c6\"}}")) == 0);
    WH_ASSERT(json_object_set_new(ann, "kruise.io/sidecarset-injected-list",
                                  json_string("log-sidecarset")) == 0);
    return out;
}

static void bench_case(const char *name, const json_t *from, const json_t *to)
{
    json_t *patch = wh_patch_diff(from, to);
    json_t *res = NULL;
    struct wh_errbuf eb;
    if (wh_patch_apply(from, patch, &res, &eb) != WH_OK || !json_equal(res, to)) {
        fprintf(stderr, "bench %s: the patch does not reproduce its target\n", name);
        abort();
    }
    json_decref(res);
    json_decref(patch);

    long long iters = 0;
    int64_t start = wh_time_mono_ns(), now = start;
    while (iters < BENCH_MIN_ITERS || now - start < BENCH_MIN_NS) {
        patch = wh_patch_diff(from, to);
        json_decref(patch);
        iters++;
        now = wh_time_mono_ns();
    }
    printf("diff %s: %lld ns/op\n", name, (long long)((now - start) / iters));
    fflush(stdout);
}

void wh_bench_jsonpatch(void)
{
    json_t *env = wh_bench_jsonpatch_pod(1500, 0);
    json_t *env_to = wh_bench_jsonpatch_inject(env);
    json_t *rev_from = json_array(), *rev_to = json_array();
    for (int i = 0; i < 20000; i++) {
        WH_ASSERT(json_array_append_new(rev_from, json_pack("{s:i,s:s}", "i", i, "v", "x")) == 0);
        WH_ASSERT(json_array_append_new(rev_to, json_pack("{s:i,s:s}", "i", 19999 - i, "v", "x")) == 0);
    }
    bench_case("reversed-20000", rev_from, rev_to); /* linear: a quadratic diff takes seconds here */
    json_decref(rev_from);
    json_decref(rev_to);
    bench_case("pod-1500-env", env, env_to);

    json_t *big = wh_bench_jsonpatch_pod(10, 64 * 1024);
    json_t *big_to = wh_bench_jsonpatch_inject(big);
    bench_case("pod-64k-spec", big, big_to);

    /* The worst case for an array diff: every environment variable moves. */
    json_t *rev = json_deep_copy(env);
    json_t *renv = json_array_get(wh_json_path(rev, "spec", "containers", NULL), 0);
    renv = json_object_get(renv, "env");
    size_t n = json_array_size(renv);
    for (size_t i = 0; i < n / 2; i++) {
        json_t *x = json_incref(json_array_get(renv, i));
        WH_ASSERT(json_array_set(renv, i, json_array_get(renv, n - 1 - i)) == 0);
        WH_ASSERT(json_array_set_new(renv, n - 1 - i, x) == 0);
    }
    bench_case("pod-1500-env-reversed", env, rev);

    json_decref(env);
    json_decref(env_to);
    json_decref(big);
    json_decref(big_to);
    json_decref(rev);
}
