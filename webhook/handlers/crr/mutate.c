/* /mutate-apps-kruise-io-containerrecreaterequest: the ContainerRecreateRequest webhook
 * (pkg/webhook/containerrecreaterequest/mutating), at v1alpha1 and v1beta1 (any version but
 * v1beta1 is read as v1alpha1, as upstream's switch does). On UPDATE it keeps the spec and the
 * labels that name the Pod immutable; on every other operation it checks the request, reads the
 * Pod and its Node and fills in what kruise-daemon needs: the Pod's uid and node, each
 * container's ID, restart count, preStop hook and ports, and the strategy's defaults.
 *
 * The Pod and the Node are read live (GET), where upstream's client reads kruise-manager's
 * informers: CRRs are rare, and a cache of every Pod and Node in the cluster would cost this
 * server more memory than all its other caches together; the NotFound words are the cache's. */
#include <stdlib.h>
#include <string.h>

#include "gocompat/gotype.h"
#include "handlers/handler.h"
#include "handlers/kruise_object.h"
#include "k8s/kruise.h"
#include "kube/cluster.h"
#include "util/json.h"
#include "util/jsoneq.h"
#include "util/mem.h"
#include "util/str.h"

#define KIND "ContainerRecreateRequest"
#define MIN_DEADLINE_SECONDS 3

static const json_t *member(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return v && !json_is_null(v) ? v : NULL;
}

static const char *label(const json_t *obj, const char *key)
{
    const char *v = wh_json_label(obj, key);
    return v ? v : "";
}

static const char *annotation(const json_t *obj, const char *key)
{
    const char *v = wh_json_annotation(obj, key);
    return v ? v : "";
}

/* Errored with code and message: no reason, as admission.Errored answers. */
static void refuse(struct wh_admission_response *resp, int code, char *msg)
{
    wh_admission_deny(resp, code, "%s", msg);
    wh_admission_set_reason(resp, NULL);
    free(msg);
}

/* --- UPDATE: what may not change --------------------------------------------------------------- */

static char *immutable(const json_t *obj, const json_t *old, bool alpha)
{
    if (!wh_json_equal(json_object_get(obj, "spec"), json_object_get(old, "spec"),
                       WH_JSON_EQ_EXACT))
        return wh_xstrdup("spec of ContainerRecreateRequest is immutable");
    static const char *const labels[] = {WH_KRUISE_LABEL_CRR_POD_UID,
                                         WH_KRUISE_LABEL_CRR_NODE_NAME};
    for (size_t i = 0; i < 2; i++)
        if (strcmp(label(obj, labels[i]), label(old, labels[i])) != 0)
            return wh_str_printf("not allowed to update immutable label %s", labels[i]);
    const char *was = annotation(old, WH_KRUISE_ANN_CRR_UNREADY_ACQUIRED);
    if (alpha && *was && strcmp(annotation(obj, WH_KRUISE_ANN_CRR_UNREADY_ACQUIRED), was) != 0)
        return wh_xstrdup("not allowed to update immutable annotation " WH_KRUISE_ANN_CRR_UNREADY_ACQUIRED);
    return NULL;
}

/* --- creation: the request's own rules, then the Pod's --------------------------------------- */

static void set_label(json_t *obj, const char *key, const char *value)
{
    json_t *labels = wh_json_obj_ensure(wh_json_obj_ensure(obj, "metadata"), "labels");
    json_object_set_new(labels, key, json_string(value));
}

/* The checks before the Pod is read, with the defaults they interleave with. */
static char *check_request(json_t *obj)
{
    json_t *spec = wh_json_obj_ensure(obj, "spec");
    /* obj.Labels = map{} when nil: the active label below adds it in any case */
    if (!*wh_json_str_or_empty(spec, "podName"))
        return wh_xstrdup("podName can not be empty");
    json_t *strategy = wh_json_obj_ensure(spec, "strategy");
    set_label(obj, WH_KRUISE_LABEL_CRR_ACTIVE, "true");
    if (!json_array_size(json_object_get(spec, "containers")))
        return wh_xstrdup("containers list can not be null");
    const json_t *deadline = member(spec, "activeDeadlineSeconds");
    if (deadline && json_integer_value(deadline) < MIN_DEADLINE_SECONDS)
        return wh_str_printf("activeDeadlineSeconds can not be less than %ds", MIN_DEADLINE_SECONDS);
    const json_t *grace = member(strategy, "terminationGracePeriodSeconds");
    if (grace && json_integer_value(grace) < 0)
        return wh_xstrdup("terminationGracePeriodSeconds must be non-negative integer");
    const json_t *unready = member(strategy, "unreadyGracePeriodSeconds");
    if (unready && json_integer_value(unready) < 0)
        return wh_xstrdup("unreadyGracePeriodSeconds must be non-negative integer");
    const char *policy = wh_json_str_or_empty(strategy, "failurePolicy");
    if (!*policy)
        json_object_set_new(strategy, "failurePolicy", json_string("Fail"));
    else if (strcmp(policy, "Fail") != 0 && strcmp(policy, "Ignore") != 0)
        return wh_str_printf("unknown failurePolicy %s", policy);
    return NULL;
}

/* kubecontroller.IsPodActive, or stopped by the sidecar terminator. */
static bool recreatable(const json_t *pod)
{
    const char *phase = wh_json_path_str(pod, "status", "phase", NULL);
    bool active = !wh_str_eq(phase, "Succeeded") && !wh_str_eq(phase, "Failed") &&
                  !member(json_object_get(pod, "metadata"), "deletionTimestamp");
    if (active)
        return true;
    size_t i;
    const json_t *c;
    json_array_foreach(wh_json_path(pod, "status", "conditions", NULL), i, c)
    {
        if (wh_str_eq(wh_json_str(c, "type"), WH_KRUISE_POD_SIDECAR_TERMINATED))
            return true;
    }
    return false;
}

/* util.GetContainer (init containers first) and util.GetContainerStatus (containers only). */
static const json_t *named(const json_t *list, const char *name)
{
    size_t i;
    const json_t *c;
    json_array_foreach(list, i, c)
    {
        if (wh_str_eq(wh_json_str(c, "name"), name))
            return c;
    }
    return NULL;
}

static const json_t *pod_container(const json_t *pod, const char *name)
{
    const json_t *spec = json_object_get(pod, "spec");
    const json_t *c = named(json_object_get(spec, "initContainers"), name);
    return c ? c : named(json_object_get(spec, "containers"), name);
}

static void copy_member(json_t *dst, const json_t *src, const char *key)
{
    const json_t *v = member(src, key);
    if (v)
        json_object_set_new(dst, key, wh_json_copy(v));
}

/* injectPodIntoContainerRecreateRequest: the first container that fails, or NULL. */
static char *inject(json_t *obj, const json_t *pod, const json_t *node)
{
    const json_t *pod_spec = json_object_get(pod, "spec");
    set_label(obj, WH_KRUISE_LABEL_CRR_NODE_NAME, wh_json_str_or_empty(pod_spec, "nodeName"));
    set_label(obj, WH_KRUISE_LABEL_CRR_POD_UID,
              wh_json_str_or_empty(json_object_get(pod, "metadata"), "uid"));
    if (wh_str_eq(wh_json_label(node, WH_KRUISE_LABEL_VIRTUAL_KUBELET), WH_KRUISE_VIRTUAL_KUBELET))
        set_label(obj, WH_KRUISE_LABEL_VIRTUAL_KUBELET, WH_KRUISE_VIRTUAL_KUBELET);
    json_t *spec = json_object_get(obj, "spec");
    json_t *strategy = json_object_get(spec, "strategy");
    if (!member(strategy, "terminationGracePeriodSeconds"))
        copy_member(strategy, pod_spec, "terminationGracePeriodSeconds");
    json_t *containers = json_object_get(spec, "containers");
    size_t i;
    json_t *c;
    json_array_foreach(containers, i, c)
    {
        const char *name = wh_json_str_or_empty(c, "name");
        if (named(containers, name) != c)
            return wh_str_printf("can not recreate %s multi times", name);
        if (member(c, "preStop") || member(c, "ports") || member(c, "statusContext"))
            return wh_xstrdup("preStop, ports, statusContext in container are ready-only fields");
        const json_t *pc = pod_container(pod, name);
        if (!pc)
            return wh_str_printf("container %s not found in Pod", name);
        const json_t *st =
            named(wh_json_path(pod, "status", "containerStatuses", NULL), name);
        if (!st)
            return wh_str_printf("not found %s containerStatus in Pod Status", name);
        const char *id = wh_json_str_or_empty(st, "containerID");
        if (!*id)
            return wh_str_printf(
                "no containerID in %s containerStatus, maybe the container has not been "
                "initialized",
                name);
        const json_t *hook = member(member(pc, "lifecycle"), "preStop");
        if (hook) {
            json_t *pre = json_object();
            copy_member(pre, hook, "exec");
            copy_member(pre, hook, "httpGet");
            copy_member(pre, hook, "tcpSocket");
            json_object_set_new(c, "preStop", pre);
            if (member(pre, "httpGet"))
                copy_member(c, pc, "ports");
        }
        const json_t *restarts = json_object_get(st, "restartCount");
        json_object_set_new(c, "statusContext",
                            json_pack("{s:s, s:I}", "containerID", id, "restartCount",
                                      json_is_integer(restarts) ? json_integer_value(restarts)
                                                                : (json_int_t)0));
    }
    return NULL;
}

/* client.Get of a Pod or Node: WH_ERR_NOT_FOUND with the words of controller-runtime's cache
 * (Pod "x" not found) in eb, another error with the API server's. */
static enum wh_err get(struct wh_cluster *cl, enum wh_resource_id id, const char *ns,
                       const char *name, json_t **out, struct wh_errbuf *eb)
{
    const struct wh_resource *r = wh_resource_get(id);
    *out = NULL;
    if (!cl)
        return wh_cache_not_found(eb, "", r->kind, name);
    enum wh_err rc = wh_cluster_get_live(cl, r->group, r->versions[0], r->resource, ns, name,
                                         out, eb);
    if (rc == WH_ERR_NOT_FOUND)
        return wh_cache_not_found(eb, "", r->kind, name);
    return rc;
}

static void create(const struct wh_handler_ctx *ctx, struct wh_admission_response *resp,
                   json_t *obj, const struct wh_gotype *type)
{
    json_t *pod = NULL, *node = NULL, *before = NULL, *after = NULL;
    struct wh_errbuf eb = {{0}};
    if (wh_gotype_normalize(obj, type, &before, &eb)) {
        refuse(resp, 500, wh_xstrdup(eb.msg));
        goto out;
    }
    char *err = check_request(obj);
    if (err) {
        refuse(resp, 400, err);
        goto out;
    }
    const char *ns = wh_json_str_or_empty(json_object_get(obj, "metadata"), "namespace");
    const char *pod_name = wh_json_str_or_empty(json_object_get(obj, "spec"), "podName");
    enum wh_err rc = get(ctx->cluster, WH_RES_POD, ns, pod_name, &pod, &eb);
    if (rc == WH_ERR_NOT_FOUND) {
        refuse(resp, 400, wh_str_printf("no found Pod named %s", pod_name));
        goto out;
    }
    if (rc) {
        refuse(resp, 500, wh_str_printf("failed to find Pod %s: %s", pod_name, eb.msg));
        goto out;
    }
    const json_t *p = pod;
    const char *node_name = wh_json_path_str(p, "spec", "nodeName", NULL);
    if (!recreatable(p)) {
        refuse(resp, 400, wh_xstrdup("not allowed to recreate containers in an inactive Pod"));
        goto out;
    }
    if (!node_name || !*node_name) {
        refuse(resp, 400, wh_xstrdup("not allowed to recreate containers in a pending Pod"));
        goto out;
    }
    rc = get(ctx->cluster, WH_RES_NODE, NULL, node_name, &node, &eb);
    if (rc) {
        refuse(resp, rc == WH_ERR_NOT_FOUND ? 400 : 500,
               wh_str_printf("failed to get Node %s: %s", node_name, eb.msg));
        goto out;
    }
    err = inject(obj, p, node);
    if (err) {
        refuse(resp, 400, err);
        goto out;
    }
    if (wh_gotype_normalize(obj, type, &after, &eb)) {
        refuse(resp, 500, wh_xstrdup(eb.msg));
        goto out;
    }
    if (!wh_json_equal(before, after, WH_JSON_EQ_EXACT)) {
        wh_admission_set_mutated_new(resp, after);
        after = NULL;
    }
    wh_admission_allow(resp, NULL);
out:
    json_decref(pod);
    json_decref(node);
    json_decref(before);
    json_decref(after);
}

static enum wh_err admit(const struct wh_handler_ctx *ctx, const struct wh_admission_request *req,
                         struct wh_admission_response *resp, struct wh_errbuf *eb)
{
    (void)eb;
    json_t *obj = NULL, *old = NULL;
    if (WH_KOBJ_GATE_OFF(resp, ctx->cfg, KruiseDaemon))
        return WH_OK;
    /* upstream's switch: v1beta1, else v1alpha1 */
    enum wh_kobj_version v =
        wh_kobj_version_of(req) == WH_KOBJ_V1BETA1 ? WH_KOBJ_V1BETA1 : WH_KOBJ_V1ALPHA1;
    bool beta = v == WH_KOBJ_V1BETA1;
    if (!wh_kobj_decode_or_deny(req->object, KIND, v, &obj, resp))
        goto out;
    if (strcmp(req->operation, "UPDATE") == 0) {
        if (!wh_kobj_decode_or_deny(req->old_object, KIND, v, &old, resp))
            goto out;
        char *err = immutable(obj, old, !beta);
        if (err)
            refuse(resp, 403, err);
        else
            wh_admission_allow(resp, NULL);
        goto out;
    }
    create(ctx, resp, obj, wh_kobj_type(KIND, v));
out:
    json_decref(obj);
    json_decref(old);
    return WH_OK;
}

const struct wh_route wh_crr_mutate_route = {
    .path = "/mutate-apps-kruise-io-containerrecreaterequest",
    .kind = WH_ROUTE_MUTATE,
    .admit = admit,
    .entries = {{.name = "mcontainerrecreaterequest.kb.io",
                 .group = WH_KRUISE_APPS,
                 .versions = {"v1alpha1", "v1beta1"},
                 .resource = "containerrecreaterequests",
                 .operations = WH_WEBHOOK_CREATE | WH_WEBHOOK_UPDATE}},
};
