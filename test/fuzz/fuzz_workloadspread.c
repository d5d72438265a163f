/* Fuzz target for WorkloadSpread's parsers and decisions: the custom workload white list, the
 * matched-workloadspread annotation, the subset decisions on an arbitrary WorkloadSpread (as
 * the write-back would call them), and the object webhook's validation of it. The first byte
 * picks the part; the rest is its input. Nothing may crash or leak; an annotation this server
 * writes must read back (any length, and to the same names for plain text); a decision never
 * modifies its input. */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "config/features.h"
#include "handlers/workloadspread/match.h"
#include "handlers/workloadspread/patch.h"
#include "handlers/workloadspread/subset.h"
#include "handlers/workloadspread/validate.h"
#include "handlers/workloadspread/whitelist.h"
#include "handlers/workloadspread/workload.h"
#include "kube/cluster.h"
#include "util/json.h"
#include "util/mem.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_whitelist(const char *s)
{
    struct wh_ws_whitelist wl;
    struct wh_errbuf eb;
    if (wh_ws_whitelist_parse(s, &wl, &eb))
        return;
    for (size_t i = 0; i < wl.n; i++)
        (void)wh_ws_whitelist_owner(&wl, wl.items[i].gvk.group, wl.items[i].gvk.kind);
    wh_ws_whitelist_fini(&wl);
}

static void fuzz_annotation(const char *s)
{
    char name[64], subset[64];
    (void)wh_ws_annotation_parse(s, name, sizeof(name), subset, sizeof(subset));
    /* what we write reads back */
    char *v = wh_ws_annotation_value(s, s, s);
    char n2[300], s2[300];
    /* Go writes invalid UTF-8 as U+FFFD: only plain text reads back byte for byte */
    bool plain = strlen(s) < sizeof(n2);
    for (const char *p = s; plain && *p; p++)
        plain = *p >= 0x20 && *p < 0x7f;
    if (!wh_ws_annotation_parse(v, n2, sizeof(n2), s2, sizeof(s2)) ||
        (plain && (strcmp(n2, s) != 0 || strcmp(s2, s) != 0))) {
        fprintf(stderr, "annotation %s does not read back\n", v);
        abort();
    }
    free(v);
}

static enum wh_err total(void *arg, long long *out, struct wh_errbuf *eb)
{
    const json_t *ws = arg;
    long long v = 0;
    const json_t *paths = wh_json_path(ws, "spec", "targetFilter", "replicasPathList", NULL);
    enum wh_err rc = WH_OK;
    if (json_is_string(json_array_get(paths, 0)))
        rc = wh_ws_path_int(ws, json_string_value(json_array_get(paths, 0)), &v, eb);
    *out = v;
    return rc;
}

static void fuzz_decide(const char *s, size_t n)
{
    json_t *ws = json_loadb(s, n, 0, NULL);
    if (!json_is_object(ws)) {
        json_decref(ws);
        return;
    }
    char *before = wh_json_dumps(ws);
    static const char *const versions[] = {WH_WS_VERSION_IGNORED, "6d4"};
    for (int k = 0; k < 4; k++) {
        struct wh_ws_pod_in in = {.name = k & 1 ? "" : "p-1",
                                  .version = versions[k >> 1],
                                  .timestamp = "2025-01-01T00:00:00Z",
                                  .uid = "0f8fad5b-d9cb-469f-a165-70867728950e",
                                  .subset = "a",
                                  .total = total,
                                  .total_arg = ws};
        struct wh_ws_decision d;
        json_t *desired = NULL;
        struct wh_errbuf eb;
        if (wh_ws_decide_create(ws, &in, &d, &desired, &eb) == WH_OK && desired)
            free(wh_json_dumps(desired));
        json_decref(desired);
        desired = NULL;
        in.name = "p-1";
        if (wh_ws_decide_delete(ws, &in, &d, &desired, &eb) == WH_OK && desired)
            free(wh_json_dumps(desired));
        json_decref(desired);
    }
    (void)wh_ws_statefulset_subset(ws, "web-3");
    (void)wh_ws_single_unlimited(ws);
    char *after = wh_json_dumps(ws);
    if (strcmp(before, after) != 0) {
        fprintf(stderr, "a decision modified its input\n");
        abort();
    }
    free(before);
    free(after);
    json_decref(ws);
}

static void fuzz_validate(const char *s, size_t n)
{
    static struct wh_config cfg;
    static struct wh_cluster *cl;
    if (!cl) {
        struct wh_errbuf eb;
        wh_features_init(&cfg.features);
        cfg.namespace_ = (char *)(uintptr_t) "kruise-system";
        json_t *none = json_array();
        if (wh_cluster_new_standalone_objects(none, &cl, &eb) ||
            wh_ws_caches_setup(cl, &cfg, &eb) || wh_cluster_start(cl, &eb))
            abort();
        json_decref(none);
    }
    json_t *obj = json_loadb(s, n, 0, NULL);
    if (!json_is_object(obj)) {
        json_decref(obj);
        return;
    }
    for (int version = 0; version < 2; version++) {
        json_t *review =
            json_pack("{s:s,s:s,s:{s:s,s:{s:s,s:s,s:s},s:{s:s,s:s,s:s},s:s,s:s,s:s,s:s,s:O,s:O}}",
                      "apiVersion", "admission.k8s.io/v1", "kind", "AdmissionReview", "request",
                      "uid", "u", "kind", "group", "apps.kruise.io", "version",
                      version ? "v1beta1" : "v1alpha1", "kind", "WorkloadSpread", "resource",
                      "group", "apps.kruise.io", "version", version ? "v1beta1" : "v1alpha1",
                      "resource", "workloadspreads", "subResource", "", "operation", "UPDATE",
                      "namespace", "ns", "name", "ws", "object", obj, "oldObject", obj);
        struct wh_admission_request req;
        struct wh_admission_response resp;
        struct wh_errbuf eb;
        struct wh_handler_ctx ctx = {.cfg = &cfg, .cluster = cl};
        wh_admission_response_init(&resp);
        if (wh_admission_decode(review, &req, &eb) == WH_OK)
            (void)wh_ws_validate_admit(&ctx, &req, &resp, &eb);
        wh_admission_response_fini(&resp);
        json_decref(review);
    }
    json_decref(obj);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int init;
    if (!init) {
        wh_json_init();
        init = 1;
    }
    if (size < 1 || size > 65536)
        return 0;
    char *s = wh_xstrndup((const char *)data + 1, size - 1);
    switch (data[0] % 4) {
    case 0:
        fuzz_whitelist(s);
        break;
    case 1:
        fuzz_annotation(s);
        break;
    case 2:
        fuzz_decide(s, strlen(s));
        break;
    default:
        fuzz_validate(s, strlen(s));
        break;
    }
    free(s);
    return 0;
}
