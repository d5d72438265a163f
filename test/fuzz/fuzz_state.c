/* Fuzz target for cluster state: a YAML/JSON text of objects (what --state reads, and what
 * the caches hold from the API server) loaded into a standalone cluster, then a Pod, a
 * SidecarSet and a Namespace deletion reviewed against it. Arbitrary SidecarSets, Namespaces
 * and ConfigMaps must be compiled into the caches or skipped, and every review answered,
 * without crash, hang or leak. */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "handlers/registry.h"
#include "kube/cluster.h"
#include "log/log.h"
#include "server/dispatch.h"
#include "util/json.h"
#include "util/yaml.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct wh_config cfg;

static const char pod_review[] =
    "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":{"
    "\"uid\":\"u\",\"kind\":{\"group\":\"\",\"version\":\"v1\",\"kind\":\"Pod\"},"
    "\"resource\":{\"group\":\"\",\"version\":\"v1\",\"resource\":\"pods\"},"
    "\"operation\":\"CREATE\",\"namespace\":\"default\",\"name\":\"p\",\"object\":{"
    "\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\",\"namespace\":"
    "\"default\",\"labels\":{\"app\":\"web\"}},\"spec\":{\"containers\":[{\"name\":\"app\","
    "\"image\":\"nginx\"}]}},\"oldObject\":null,\"dryRun\":false}}";

static const char sidecarset_review[] =
    "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":{"
    "\"uid\":\"u\",\"kind\":{\"group\":\"apps.kruise.io\",\"version\":\"v1beta1\",\"kind\":"
    "\"SidecarSet\"},\"resource\":{\"group\":\"apps.kruise.io\",\"version\":\"v1beta1\","
    "\"resource\":\"sidecarsets\"},\"operation\":\"CREATE\",\"name\":\"s\",\"object\":{"
    "\"apiVersion\":\"apps.kruise.io/v1beta1\",\"kind\":\"SidecarSet\",\"metadata\":{\"name\":"
    "\"s\"},\"spec\":{\"selector\":{\"matchLabels\":{\"app\":\"web\"}},\"containers\":[{"
    "\"name\":\"c\",\"image\":\"busybox\"}]}},\"oldObject\":null,\"dryRun\":false}}";

static const char namespace_review[] =
    "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":{"
    "\"uid\":\"u\",\"kind\":{\"group\":\"\",\"version\":\"v1\",\"kind\":\"Namespace\"},"
    "\"resource\":{\"group\":\"\",\"version\":\"v1\",\"resource\":\"namespaces\"},"
    "\"operation\":\"DELETE\",\"name\":\"default\",\"object\":null,\"oldObject\":{"
    "\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"default\","
    "\"labels\":{\"policy.kruise.io/delete-protection\":\"Always\"}}},\"dryRun\":false}}";

static void review(struct wh_cluster *cl, const char *path, const char *body)
{
    const struct wh_route *route = wh_routes_find(&cfg, path);
    if (!route)
        abort();
    struct wh_handler_ctx ctx = {.cfg = &cfg, .cluster = cl};
    struct wh_reply reply;
    wh_dispatch(route, &ctx, body, strlen(body), &reply);
    if (reply.http_status != 200) {
        fprintf(stderr, "%s answered %d: %s\n", path, reply.http_status, reply.body);
        abort();
    }
    wh_reply_fini(&reply);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!cfg.port) {
        wh_json_init();
        wh_log_setup(WH_LOG_ERROR, WH_LOG_TEXT);
        struct wh_errbuf eb = {{0}};
        char *argv[] = {"kruise-webhook", "--feature-gates=ResourcesDeletionProtection=true", NULL};
        if (wh_config_load(&cfg, 2, argv, &eb))
            abort();
    }
    json_t *docs = NULL;
    struct wh_errbuf eb;
    if (wh_yaml_load((const char *)data, size, "state", &docs, &eb) != WH_OK)
        return 0;
    /* A List's items, or the documents themselves. */
    json_t *objects = json_array();
    size_t i;
    json_t *doc;
    json_array_foreach(docs, i, doc)
    {
        json_t *items = json_object_get(doc, "items");
        if (json_is_array(items))
            json_array_extend(objects, items);
        else
            json_array_append(objects, doc);
    }
    struct wh_cluster *cl = NULL;
    if (wh_cluster_new_standalone_objects(objects, &cl, &eb) == WH_OK) {
        if (wh_routes_setup(&cfg, cl, &eb) == WH_OK && wh_cluster_start(cl, &eb) == WH_OK) {
            review(cl, "/mutate-pod", pod_review);
            review(cl, "/validate-apps-kruise-io-sidecarset", sidecarset_review);
            review(cl, "/validate-namespace", namespace_review);
        }
        wh_cluster_free(cl);
    }
    json_decref(objects);
    json_decref(docs);
    return 0;
}
