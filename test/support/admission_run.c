#include "test/support/admission_run.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "handlers/registry.h"
#include "jsonpatch/apply.h"
#include "kube/cluster.h"
#include "server/dispatch.h"
#include "util/base64.h"
#include "util/json.h"

bool wh_admrun(const char *endpoint, const char *gates, const json_t *cluster,
               const json_t *request, struct wh_admrun *out)
{
    char gate_flag[1024];
    snprintf(gate_flag, sizeof(gate_flag), "--feature-gates=%s", gates ? gates : "");
    const char *flags[] = {gate_flag, NULL};
    return wh_admrun_flags(endpoint, flags, cluster, request, out);
}

bool wh_admrun_flags(const char *endpoint, const char *const *flags, const json_t *cluster,
                     const json_t *request, struct wh_admrun *out)
{
    struct wh_config cfg;
    struct wh_errbuf eb = {{0}};
    char *argv[16] = {"kruise-webhook"};
    int argc = 1;
    for (; flags && flags[argc - 1] && argc < 15; argc++)
        argv[argc] = (char *)(uintptr_t)flags[argc - 1];
    struct wh_cluster *cl = NULL;
    json_t *review = NULL, *empty = json_array();
    bool ok = false;

    memset(out, 0, sizeof(*out));
    out->message = "";
    if (wh_config_load(&cfg, argc, argv, &eb)) {
        fprintf(stderr, "admrun: config: %s\n", eb.msg);
        json_decref(empty);
        wh_config_fini(&cfg);
        return false;
    }
    const struct wh_route *route = wh_routes_find(&cfg, endpoint);
    if (!route) {
        fprintf(stderr, "admrun: no route %s\n", endpoint);
        goto out;
    }
    if (wh_cluster_new_standalone_objects(cluster ? cluster : empty, &cl, &eb) ||
        wh_routes_setup(&cfg, cl, &eb) || wh_cluster_start(cl, &eb)) {
        fprintf(stderr, "admrun: cluster: %s\n", eb.msg);
        goto out;
    }
    review = json_pack("{s:s,s:s,s:O}", "apiVersion", "admission.k8s.io/v1", "kind",
                       "AdmissionReview", "request", request);
    char *body = wh_json_dumps(review);
    struct wh_reply reply;
    struct wh_handler_ctx ctx = {.cfg = &cfg, .cluster = cl};
    wh_dispatch(route, &ctx, body, strlen(body), &reply);
    free(body);
    out->http_status = reply.http_status;
    json_error_t jerr;
    out->answer = json_loadb(reply.body, reply.len, JSON_ALLOW_NUL, &jerr);
    wh_reply_fini(&reply);
    if (!out->answer) {
        fprintf(stderr, "admrun: answer is not JSON\n");
        goto out;
    }
    const json_t *resp = json_object_get(out->answer, "response");
    out->allowed = json_is_true(json_object_get(resp, "allowed"));
    out->code = (int)json_integer_value(wh_json_path(resp, "status", "code", NULL));
    const char *msg = wh_json_path_str(resp, "status", "message", NULL);
    out->message = msg ? msg : "";
    const char *patch64 = wh_json_str(resp, "patch");
    if (patch64) {
        unsigned char *raw = NULL;
        size_t rawlen = 0;
        json_t *patch = NULL;
        out->patched = true;
        if (wh_base64_decode(patch64, strlen(patch64), &raw, &rawlen) == WH_OK)
            patch = json_loadb((const char *)raw, rawlen, 0, &jerr);
        free(raw);
        const json_t *obj = json_object_get(request, "object");
        enum wh_err rc = patch ? wh_patch_apply(obj, patch, &out->object, &eb) : WH_ERR_PARSE;
        json_decref(patch);
        if (rc) {
            fprintf(stderr, "admrun: patch does not apply: %s\n", eb.msg);
            goto out;
        }
    }
    ok = true;
out:
    json_decref(review);
    json_decref(empty);
    wh_cluster_free(cl);
    wh_config_fini(&cfg);
    return ok;
}

void wh_admrun_fini(struct wh_admrun *r)
{
    json_decref(r->answer);
    json_decref(r->object);
    memset(r, 0, sizeof(*r));
}
