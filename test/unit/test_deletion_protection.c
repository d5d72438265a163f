#include "test/unit/test.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "config/features.h"
#include "handlers/deletion/protection.h"
#include "handlers/registry.h"
#include "kube/client.h"
#include "kube/cluster.h"
#include "metrics/metrics.h"
#include "server/dispatch.h"
#include "test/support/apiserver_proc.h"
#include "test/support/vector.h"
#include "util/buf.h"
#include "util/json.h"
#include "util/mem.h"
#include "util/str.h"
#include "util/time.h"

#define KEY "policy.kruise.io/delete-protection"
#define FORBIDDEN "forbidden by ResourcesProtectionDeletion for "
#define M_ALWAYS FORBIDDEN KEY "=Always"
#define ALL_GATES "ResourcesDeletionProtection=true,DeletionProtectionForCRDCascadingGate=true"

/* --- helpers --------------------------------------------------------------------------------- */

/* Parses JSON built with printf. Returns: new ref. */
static WH_PRINTF(1, 2) json_t *jf(const char *fmt, ...)
{
    char *text;
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    text = wh_xmalloc((size_t)n + 1);
    vsnprintf(text, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    json_t *v = wh_test_json(text);
    free(text);
    return v;
}

/* A standalone cluster holding objects (JSON array text, or NULL for none). */
static struct wh_cluster *cluster_of(json_t *objects /* steals */)
{
    struct wh_cluster *cl = NULL;
    struct wh_errbuf eb = {{0}};
    json_t *objs = objects ? objects : json_array();
    if (wh_cluster_new_standalone_objects(objs, &cl, &eb) || wh_cluster_start(cl, &eb)) {
        fprintf(stderr, "cluster: %s\n", eb.msg);
        abort();
    }
    json_decref(objs);
    return cl;
}

static void cfg_init(struct wh_config *cfg, const char *gates)
{
    struct wh_errbuf eb = {{0}};
    memset(cfg, 0, sizeof(*cfg));
    wh_features_init(&cfg->features);
    if (wh_features_parse(&cfg->features, gates, &eb)) {
        fprintf(stderr, "gates: %s\n", eb.msg);
        abort();
    }
}

/* What came back: response.allowed, status.code, status.message ("" when none), whether a
 * status.reason was sent, and whether the path was served at all. */
struct res {
    bool served;
    int http; /* the HTTP status of the answer */
    bool allowed;
    int code;
    bool reason;
    bool patch;
    char msg[2048];
};

/* Sends request (stolen) to path with the given gates and request deadline (0: none), through
 * the whole pipeline. */
static struct res run_deadline(const char *gates, long long deadline_ms, struct wh_cluster *cl,
                               const char *path, json_t *request)
{
    struct res r;
    memset(&r, 0, sizeof(r));
    struct wh_config cfg;
    cfg_init(&cfg, gates);
    cfg.request_deadline_ms = deadline_ms;
    const struct wh_route *route = wh_routes_find(&cfg, path);
    if (!route) {
        json_decref(request);
        return r;
    }
    r.served = true;
    json_t *review = json_pack("{s:s,s:s,s:o}", "apiVersion", "admission.k8s.io/v1", "kind",
                               "AdmissionReview", "request", request);
    char *body = wh_json_dumps(review);
    json_decref(review);
    struct wh_handler_ctx ctx = {.cfg = &cfg, .cluster = cl};
    struct wh_reply reply;
    wh_dispatch(route, &ctx, body, strlen(body), &reply);
    free(body);
    r.http = reply.http_status;
    json_t *answer = wh_test_json(reply.body);
    wh_reply_fini(&reply);
    if (r.http != 200) {
        /* a plain Status: the review itself was refused */
        r.code = (int)json_integer_value(json_object_get(answer, "code"));
        const char *m = wh_json_str(answer, "message");
        snprintf(r.msg, sizeof(r.msg), "%s", m ? m : "");
        json_decref(answer);
        return r;
    }
    json_t *resp = wh_json_obj(answer, "response");
    json_t *status = wh_json_obj(resp, "status");
    CHECK_EQ_STR(wh_json_str(resp, "uid"), "dp-uid");
    r.allowed = wh_json_bool(resp, "allowed");
    r.code = (int)json_integer_value(json_object_get(status, "code"));
    r.reason = json_object_get(status, "reason") != NULL;
    r.patch = json_object_get(resp, "patch") != NULL;
    const char *m = wh_json_str(status, "message");
    snprintf(r.msg, sizeof(r.msg), "%s", m ? m : "");
    json_decref(answer);
    return r;
}

static struct res run_on(const char *gates, struct wh_cluster *cl, const char *path,
                         json_t *request)
{
    return run_deadline(gates, 0, cl, path, request);
}

static struct res run(struct wh_cluster *cl, const char *path, json_t *request)
{
    return run_on(ALL_GATES, cl, path, request);
}

/* An admission request. old (stolen) may be NULL: "oldObject": null. */
static json_t *request_full(const char *op, const char *group, const char *version,
                            const char *kind, const char *resource, const char *sub, json_t *old)
{
    return json_pack("{s:s,s:{s:s,s:s,s:s},s:{s:s,s:s,s:s},s:s,s:s,s:s,s:s,s:n,s:o,s:b,"
                     "s:{s:s,s:s},s:{s:s}}",
                     "uid", "dp-uid", "kind", "group", group, "version", version, "kind", kind,
                     "resource", "group", group, "version", version, "resource", resource,
                     "subResource", sub, "operation", op, "namespace", "", "name", "", "object",
                     "oldObject", old ? old : json_null(), "dryRun", 0, "options", "apiVersion",
                     "meta.k8s.io/v1", "kind", "DeleteOptions", "userInfo", "username",
                     "alice@example.com");
}

static json_t *del(const char *group, const char *version, const char *kind, const char *resource,
                   json_t *old)
{
    return request_full("DELETE", group, version, kind, resource, "", old);
}

/* metadata with the protection label set to label_json ("\"Always\"", "null", ...), or no
 * labels when label_json is NULL. extra is more metadata members (",\"x\":1") or "". */
static json_t *obj(const char *api_version, const char *kind, const char *ns, const char *name,
                   const char *label_json, const char *extra_meta, const char *rest)
{
    char labels[256] = "";
    if (label_json)
        snprintf(labels, sizeof(labels), ",\"labels\":{\"app\":\"x\",\"" KEY "\":%s}", label_json);
    char nsf[128] = "";
    if (ns)
        snprintf(nsf, sizeof(nsf), ",\"namespace\":\"%s\"", ns);
    return jf("{\"apiVersion\":\"%s\",\"kind\":\"%s\",\"metadata\":{\"name\":\"%s\"%s%s%s}%s}",
              api_version, kind, name, nsf, labels, extra_meta, rest);
}

static json_t *ns_obj(const char *name, const char *label_json)
{
    return obj("v1", "Namespace", NULL, name, label_json, "", ",\"status\":{\"phase\":\"Active\"}");
}

static json_t *ns_del(json_t *old)
{
    return del("", "v1", "Namespace", "namespaces", old);
}

static json_t *pod(const char *ns, const char *name, const char *phase, bool deleting)
{
    char status[128] = "";
    if (phase)
        snprintf(status, sizeof(status), ",\"status\":{\"phase\":\"%s\"}", phase);
    return obj("v1", "Pod", ns, name, NULL,
               deleting ? ",\"deletionTimestamp\":\"2026-03-01T08:00:00Z\"" : "", status);
}

static json_t *pvc(const char *ns, const char *name, const char *phase, bool deleting)
{
    char status[128];
    snprintf(status, sizeof(status), ",\"status\":{\"phase\":\"%s\"}", phase);
    return obj("v1", "PersistentVolumeClaim", ns, name, NULL,
               deleting ? ",\"deletionTimestamp\":\"2026-03-01T08:00:00Z\"" : "", status);
}

static json_t *workload(const char *api_version, const char *kind, const char *label_json,
                        const char *replicas_json)
{
    char spec[128] = "";
    if (replicas_json)
        snprintf(spec, sizeof(spec), ",\"spec\":{\"replicas\":%s}", replicas_json);
    return obj(api_version, kind, "default", "w", label_json, "", spec);
}

/* A CRD of group g with the given versions array text. */
static json_t *crd(const char *g, const char *label_json, const char *versions_json)
{
    char rest[1024];
    snprintf(rest, sizeof(rest),
             ",\"spec\":{\"group\":\"%s\",\"scope\":\"Namespaced\",\"names\":{\"plural\":"
             "\"widgets\",\"singular\":\"widget\",\"kind\":\"Widget\",\"listKind\":"
             "\"WidgetList\"},\"versions\":%s}",
             g, versions_json);
    char name[256];
    snprintf(name, sizeof(name), "widgets.%s", g);
    return obj("apiextensions.k8s.io/v1", "CustomResourceDefinition", NULL, name, label_json, "",
               rest);
}

#define V1_STORAGE                                                                                 \
    "[{\"name\":\"v1\",\"served\":true,\"storage\":true,\"schema\":{\"openAPIV3Schema\":{"         \
    "\"type\":\"object\",\"x-kubernetes-preserve-unknown-fields\":true}}}]"

static json_t *widget(const char *g, const char *ns, const char *name, bool deleting)
{
    char av[128];
    snprintf(av, sizeof(av), "%s/v1", g);
    return obj(av, "Widget", ns, name, NULL,
               deleting ? ",\"deletionTimestamp\":\"2026-03-01T08:00:00Z\",\"finalizers\":[\"x\"]"
                        : "",
               "");
}

static json_t *crd_del(json_t *old)
{
    return del("apiextensions.k8s.io", "v1", "CustomResourceDefinition",
               "customresourcedefinitions", old);
}

#define CHECK_ALLOWED(r)                                                                           \
    do {                                                                                           \
        struct res r_ = (r);                                                                       \
        CHECK(r_.served);                                                                          \
        CHECK_EQ_INT(r_.http, 200);                                                                \
        CHECK(r_.allowed);                                                                         \
        CHECK_EQ_INT(r_.code, 200);                                                                \
        CHECK_EQ_STR(r_.msg, "");                                                                  \
        CHECK(!r_.reason);                                                                         \
        CHECK(!r_.patch);                                                                          \
    } while (0)

/* A denial: exact message (NULL: not compared), no reason, no patch. */
#define CHECK_DENIED(r, code_, msg_)                                                               \
    do {                                                                                           \
        struct res r_ = (r);                                                                       \
        const char *m_ = (msg_);                                                                   \
        CHECK(r_.served);                                                                          \
        CHECK_EQ_INT(r_.http, 200);                                                                \
        CHECK(!r_.allowed);                                                                        \
        CHECK_EQ_INT(r_.code, code_);                                                              \
        if (m_)                                                                                    \
            CHECK_EQ_STR(r_.msg, m_);                                                              \
        else                                                                                       \
            CHECK(r_.msg[0] != '\0');                                                              \
        CHECK(!r_.reason);                                                                         \
        CHECK(!r_.patch);                                                                          \
    } while (0)

/* --- the vectors ----------------------------------------------------------------------------- */

TEST(dp_vectors_in_process)
{
    size_t n = 0;
    char **paths = wh_vec_list_dir("test/vectors/deletion-protection", &n);
    int passed = 0;
    CHECK(n >= 18);
    for (size_t i = 0; i < n; i++) {
        struct wh_vec v;
        struct wh_errbuf eb = {{0}};
        if (wh_vec_load(paths[i], &v, &eb)) {
            fprintf(stderr, "%s: %s\n", paths[i], eb.msg);
            CHECK(false);
            free(paths[i]);
            continue;
        }
        struct wh_buf diff;
        wh_buf_init(&diff, 1 << 20);
        bool skipped = false;
        bool ok = wh_vec_run_local(&v, &skipped, &diff);
        if (!ok || skipped)
            fprintf(stderr, "%s: %s%s\n", paths[i], skipped ? "skipped " : "",
                    diff.data ? diff.data : "");
        CHECK(ok);
        CHECK(!skipped);
        passed += ok && !skipped;
        wh_buf_fini(&diff);
        wh_vec_fini(&v);
        free(paths[i]);
    }
    free(paths);
    CHECK_EQ_INT(passed, (long long)n);
}

/* --- routes and gates ------------------------------------------------------------------------ */

TEST(dp_routes_and_gates)
{
    static const char *const always[] = {
        "/validate-namespace",
        "/validate-customresourcedefinition",
        "/validate-apps-deployment",
        "/validate-apps-replicaset",
        "/validate-apps-statefulset",
        "/validate-apps-kruise-io-cloneset",
        "/validate-apps-kruise-io-statefulset",
        "/validate-apps-kruise-io-uniteddeployment",
        "/validate-apps-kruise-io-v1alpha1-cloneset",
        "/validate-apps-kruise-io-v1alpha1-uniteddeployment",
    };
    struct wh_config off, on;
    cfg_init(&off, "");
    cfg_init(&on, "ResourcesDeletionProtection=true");
    for (size_t i = 0; i < sizeof(always) / sizeof(always[0]); i++) {
        CHECK(wh_routes_find(&off, always[i]) != NULL);
        CHECK(wh_routes_find(&on, always[i]) != NULL);
    }
    /* Service and Ingress are registered only with the gate on (404 otherwise). */
    CHECK(wh_routes_find(&off, "/validate-service") == NULL);
    CHECK(wh_routes_find(&off, "/validate-ingress") == NULL);
    CHECK(wh_routes_find(&on, "/validate-service") != NULL);
    CHECK(wh_routes_find(&on, "/validate-ingress") != NULL);
    /* Upstream's defaults: both gates off. */
    CHECK(!wh_feature_on(&off.features, WH_FEATURE_ResourcesDeletionProtection));
    CHECK(!wh_feature_on(&off.features, WH_FEATURE_DeletionProtectionForCRDCascadingGate));
    /* The CRD gate is forced off when ResourcesDeletionProtection is off. */
    struct wh_config implied;
    cfg_init(&implied, "DeletionProtectionForCRDCascadingGate=true");
    CHECK(!wh_feature_on(&implied.features, WH_FEATURE_DeletionProtectionForCRDCascadingGate));
    cfg_init(&implied,
             "ResourcesDeletionProtection=false,DeletionProtectionForCRDCascadingGate=true");
    CHECK(!wh_feature_on(&implied.features, WH_FEATURE_DeletionProtectionForCRDCascadingGate));
    cfg_init(&implied, "AllAlpha=true,AllBeta=true");
    CHECK(wh_feature_on(&implied.features, WH_FEATURE_ResourcesDeletionProtection));
    CHECK(wh_feature_on(&implied.features, WH_FEATURE_DeletionProtectionForCRDCascadingGate));

    /* Every route's setup runs before the cluster starts (ours declares no cache). */
    struct wh_cluster *cl = NULL;
    struct wh_errbuf eb = {{0}};
    json_t *none = json_array();
    CHECK_EQ_INT(wh_cluster_new_standalone_objects(none, &cl, &eb), WH_OK);
    json_decref(none);
    CHECK_EQ_INT(wh_dp_setup(cl, &on, &eb), WH_OK);
    for (int id = 0; id < WH_RES_COUNT; id++)
        CHECK(wh_cluster_cache(cl, (enum wh_resource_id)id) == NULL);
    CHECK_EQ_INT(wh_routes_setup(&on, cl, &eb), WH_OK);
    CHECK_EQ_INT(wh_cluster_start(cl, &eb), WH_OK);
    wh_cluster_free(cl);
    CHECK(wh_dp_enabled_service_ingress(&on));
    CHECK(!wh_dp_enabled_service_ingress(&off));
}

TEST(dp_gate_off_allows_everything_but_malformed)
{
    struct wh_cluster *cl = cluster_of(json_pack("[o]", pod("ns1", "p", "Running", false)));
    const char *gates[] = {"", "ResourcesDeletionProtection=false",
                           "DeletionProtectionForCRDCascadingGate=true"};
    for (size_t i = 0; i < 3; i++) {
        CHECK_ALLOWED(
            run_on(gates[i], cl, "/validate-namespace", ns_del(ns_obj("ns1", "\"Always\""))));
        CHECK_ALLOWED(
            run_on(gates[i], cl, "/validate-namespace", ns_del(ns_obj("ns1", "\"Cascading\""))));
        CHECK_ALLOWED(run_on(gates[i], cl, "/validate-customresourcedefinition",
                             crd_del(crd("a.example.com", "\"Always\"", V1_STORAGE))));
        CHECK_ALLOWED(run_on(gates[i], cl, "/validate-customresourcedefinition",
                             crd_del(crd("a.example.com", "\"Cascading\"", V1_STORAGE))));
        CHECK_ALLOWED(run_on(gates[i], cl, "/validate-apps-deployment",
                             del("apps", "v1", "Deployment", "deployments",
                                 workload("apps/v1", "Deployment", "\"Always\"", "3"))));
        CHECK_ALLOWED(
            run_on(gates[i], cl, "/validate-apps-kruise-io-cloneset",
                   del("apps.kruise.io", "v1alpha1", "CloneSet", "clonesets",
                       workload("apps.kruise.io/v1alpha1", "CloneSet", "\"Always\"", "3"))));
        /* Not served at all. */
        CHECK(!run_on(gates[i], cl, "/validate-service",
                      del("", "v1", "Service", "services",
                          obj("v1", "Service", "d", "s", "\"Always\"", "", "")))
                   .served);
        /* A malformed old object is still a 400 (decoding comes before the gate). */
        CHECK_DENIED(run_on(gates[i], cl, "/validate-namespace",
                            ns_del(jf("{\"metadata\":{\"labels\":[1]}}"))),
                     400, NULL);
        CHECK_DENIED(run_on(gates[i], cl, "/validate-apps-deployment",
                            del("apps", "v1", "Deployment", "deployments",
                                workload("apps/v1", "Deployment", "\"Always\"", "\"3\""))),
                     400, NULL);
    }
    wh_cluster_free(cl);
}

/* --- common steps (spec 4.1) ----------------------------------------------------------------- */

TEST(dp_common_steps_dedicated_handlers)
{
    struct wh_cluster *cl = cluster_of(NULL);
    struct {
        const char *path, *group, *version, *kind, *resource;
    } cases[] = {
        {"/validate-namespace", "", "v1", "Namespace", "namespaces"},
        {"/validate-customresourcedefinition", "apiextensions.k8s.io", "v1",
         "CustomResourceDefinition", "customresourcedefinitions"},
        {"/validate-apps-deployment", "apps", "v1", "Deployment", "deployments"},
        {"/validate-apps-replicaset", "apps", "v1", "ReplicaSet", "replicasets"},
        {"/validate-apps-statefulset", "apps", "v1", "StatefulSet", "statefulsets"},
        {"/validate-service", "", "v1", "Service", "services"},
        {"/validate-ingress", "networking.k8s.io", "v1", "Ingress", "ingresses"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char av[128];
        snprintf(av, sizeof(av), "%s%s%s", cases[i].group, cases[i].group[0] ? "/" : "",
                 cases[i].version);
        /* The same Always-labelled object: denied on DELETE ... */
        json_t *always =
            strcmp(cases[i].kind, "CustomResourceDefinition") == 0
                ? crd("a.example.com", "\"Always\"", V1_STORAGE)
                : obj(av, cases[i].kind, strcmp(cases[i].kind, "Namespace") == 0 ? NULL : "d", "x",
                      "\"Always\"", "", "");
        CHECK_DENIED(run(cl, cases[i].path,
                         del(cases[i].group, cases[i].version, cases[i].kind, cases[i].resource,
                             json_incref(always))),
                     403, M_ALWAYS);
        /* ... but not on other operations, on a subresource, without an old object, or once
         * it is being deleted. */
        const char *ops[] = {"CREATE", "UPDATE", "CONNECT"};
        for (size_t o = 0; o < 3; o++)
            CHECK_ALLOWED(run(cl, cases[i].path,
                              request_full(ops[o], cases[i].group, cases[i].version, cases[i].kind,
                                           cases[i].resource, "", json_incref(always))));
        CHECK_ALLOWED(run(cl, cases[i].path,
                          request_full("DELETE", cases[i].group, cases[i].version, cases[i].kind,
                                       cases[i].resource, "status", json_incref(always))));
        CHECK_ALLOWED(
            run(cl, cases[i].path,
                del(cases[i].group, cases[i].version, cases[i].kind, cases[i].resource, NULL)));
        json_t *deleting = json_deep_copy(always);
        json_object_set_new(json_object_get(deleting, "metadata"), "deletionTimestamp",
                            json_string("2026-03-01T08:00:00Z"));
        CHECK_ALLOWED(
            run(cl, cases[i].path,
                del(cases[i].group, cases[i].version, cases[i].kind, cases[i].resource, deleting)));
        /* A request whose oldObject member is missing altogether. */
        json_t *req = del(cases[i].group, cases[i].version, cases[i].kind, cases[i].resource, NULL);
        json_object_del(req, "oldObject");
        CHECK_ALLOWED(run(cl, cases[i].path, req));
        /* dryRun changes nothing. */
        req = del(cases[i].group, cases[i].version, cases[i].kind, cases[i].resource,
                  json_incref(always));
        json_object_set_new(req, "dryRun", json_true());
        CHECK_DENIED(run(cl, cases[i].path, req), 403, M_ALWAYS);
        json_decref(always);
    }
    wh_cluster_free(cl);
}

TEST(dp_label_values)
{
    struct wh_cluster *cl = cluster_of(NULL);
    /* Exact, case-sensitive values: anything else allows. */
    const char *unknown[] = {"\"always\"", "\"ALWAYS\"", "\"Always \"",   "\"true\"",
                             "\"\"",       "null",       "\"cascading\"", "\" Cascading\""};
    for (size_t i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++) {
        CHECK_ALLOWED(run(cl, "/validate-namespace", ns_del(ns_obj("n1", unknown[i]))));
        CHECK_ALLOWED(run(cl, "/validate-apps-deployment",
                          del("apps", "v1", "Deployment", "deployments",
                              workload("apps/v1", "Deployment", unknown[i], "5"))));
        CHECK_ALLOWED(run(cl, "/validate-service",
                          del("", "v1", "Service", "services",
                              obj("v1", "Service", "d", "s", unknown[i], "", ""))));
    }
    /* No label, no labels, labels null, metadata missing, an empty object. */
    CHECK_ALLOWED(run(cl, "/validate-namespace", ns_del(ns_obj("n1", NULL))));
    CHECK_ALLOWED(run(cl, "/validate-namespace",
                      ns_del(jf("{\"metadata\":{\"name\":\"n1\",\"labels\":null}}"))));
    CHECK_ALLOWED(run(cl, "/validate-namespace", ns_del(jf("{\"kind\":\"Namespace\"}"))));
    CHECK_ALLOWED(run(cl, "/validate-namespace", ns_del(jf("{}"))));
    /* The label of the old object counts, not request.object. */
    json_t *req = ns_del(ns_obj("n1", NULL));
    json_object_set_new(req, "object", ns_obj("n1", "\"Always\""));
    CHECK_ALLOWED(run(cl, "/validate-namespace", req));
    /* Always on a Namespace named kube-system is denied like any other (no exemption in the
     * handler). */
    CHECK_DENIED(run(cl, "/validate-namespace", ns_del(ns_obj("kube-system", "\"Always\""))), 403,
                 M_ALWAYS);
    wh_cluster_free(cl);
}

TEST(dp_malformed_old_objects_are_400)
{
    struct wh_cluster *cl = cluster_of(NULL);
    /* Namespace handler. */
    /* An oldObject that is not a JSON object is refused with the review (HTTP 400). */
    const char *not_objects[] = {"\"a string\"", "[1,2]", "42", "true"};
    for (size_t i = 0; i < sizeof(not_objects) / sizeof(not_objects[0]); i++) {
        struct res r = run(cl, "/validate-namespace", ns_del(jf("%s", not_objects[i])));
        CHECK_EQ_INT(r.http, 400);
        CHECK(!r.allowed);
    }
    const char *bad_ns[] = {
        "{\"metadata\":\"x\"}",
        "{\"metadata\":{\"name\":5}}",
        "{\"metadata\":{\"labels\":[1]}}",
        "{\"metadata\":{\"labels\":{\"" KEY "\":1}}}",
        "{\"metadata\":{\"labels\":{\"" KEY "\":\"Always\"},\"annotations\":{\"a\":{}}}}",
        "{\"metadata\":{\"deletionTimestamp\":\"yesterday\"}}",
        "{\"metadata\":{\"deletionTimestamp\":\"\"}}",
        "{\"metadata\":{\"deletionTimestamp\":17}}",
        "{\"metadata\":{\"creationTimestamp\":\"2026-13-01T00:00:00Z\"}}",
        "{\"metadata\":{\"finalizers\":\"kubernetes\"}}",
        "{\"metadata\":{\"finalizers\":[1]}}",
        "{\"metadata\":{\"generation\":\"1\"}}",
        "{\"metadata\":{\"ownerReferences\":[\"x\"]}}",
        "{\"apiVersion\":5}",
        "{\"apiVersion\":\"v1\",\"kind\":\"Pod\"}",
        "{\"apiVersion\":\"apps/v1\",\"kind\":\"Namespace\"}",
        "{\"apiVersion\":\"a/b/c\"}",
        "{\"spec\":[]}",
        "{\"status\":\"Active\"}",
    };
    for (size_t i = 0; i < sizeof(bad_ns) / sizeof(bad_ns[0]); i++) {
        struct res r = run(cl, "/validate-namespace", ns_del(jf("%s", bad_ns[i])));
        if (r.code != 400)
            fprintf(stderr, "not a 400: %s\n", bad_ns[i]);
        CHECK_DENIED(r, 400, NULL);
    }
    /* Accepted shapes: a missing apiVersion/kind defaults to the type, null members are zero
     * values, fractional seconds and offsets are RFC 3339. */
    const char *good_ns[] = {
        "{\"kind\":\"Namespace\",\"metadata\":{\"labels\":{\"" KEY "\":\"Always\"}}}",
        "{\"apiVersion\":\"v1\",\"metadata\":{\"labels\":{\"" KEY "\":\"Always\"}}}",
        "{\"metadata\":{\"labels\":{\"" KEY "\":\"Always\",\"b\":null},\"annotations\":null,"
        "\"creationTimestamp\":\"2026-03-01T08:00:00.123+02:00\",\"deletionTimestamp\":null,"
        "\"finalizers\":[null],\"generation\":null},\"spec\":null,\"status\":null,"
        "\"unknownField\":[1,{}]}",
    };
    for (size_t i = 0; i < sizeof(good_ns) / sizeof(good_ns[0]); i++)
        CHECK_DENIED(run(cl, "/validate-namespace", ns_del(jf("%s", good_ns[i]))), 403, M_ALWAYS);

    /* Workloads: spec.replicas must be an int32. */
    const char *bad_replicas[] = {"\"3\"", "1.5", "3.0", "3000000000", "-2147483649", "[]", "true"};
    for (size_t i = 0; i < sizeof(bad_replicas) / sizeof(bad_replicas[0]); i++) {
        CHECK_DENIED(run(cl, "/validate-apps-statefulset",
                         del("apps", "v1", "StatefulSet", "statefulsets",
                             workload("apps/v1", "StatefulSet", "\"Cascading\"", bad_replicas[i]))),
                     400, NULL);
        CHECK_DENIED(run(cl, "/validate-apps-kruise-io-uniteddeployment",
                         del("apps.kruise.io", "v1beta1", "UnitedDeployment", "uniteddeployments",
                             workload("apps.kruise.io/v1beta1", "UnitedDeployment", "\"Cascading\"",
                                      bad_replicas[i]))),
                     400, NULL);
    }
    CHECK_DENIED(run(cl, "/validate-apps-deployment",
                     del("apps", "v1", "Deployment", "deployments", jf("{\"spec\":5}"))),
                 400, NULL);
    /* the whole typed object is decoded, the pod template too, with Go's message */
    CHECK_DENIED(run(cl, "/validate-apps-deployment",
                     del("apps", "v1", "Deployment", "deployments",
                         jf("{\"spec\":{\"template\":{\"spec\":{\"containers\":{}}}}}"))),
                 400,
                 "json: cannot unmarshal object into Go struct field "
                 "PodSpec.spec.template.spec.containers of type []v1.Container");
    CHECK_DENIED(run(cl, "/validate-namespace",
                     ns_del(jf("{\"metadata\":{\"deletionTimestamp\":\"2026-13-01T00:00:00Z\"}}"))),
                 400, "parsing time \"2026-13-01T00:00:00Z\": month out of range");
    /* The object must be of the kind the request names. */
    CHECK_DENIED(run(cl, "/validate-apps-deployment",
                     del("apps", "v1", "ReplicaSet", "replicasets",
                         workload("apps/v1", "Deployment", "\"Always\"", "1"))),
                 400, "unable to decode apps/v1, Kind=Deployment into *v1.ReplicaSet");
    /* a kind the scheme does not have in that version cannot even be made */
    CHECK_DENIED(run(cl, "/validate-apps-deployment",
                     del("apps", "v1", "Deployment", "deployments",
                         workload("apps/v1", "Pod", "\"Always\"", "1"))),
                 400, "no kind \"Pod\" is registered for version \"apps/v1\" in scheme \"main.go:75\"");
    CHECK_DENIED(run(cl, "/validate-apps-kruise-io-cloneset",
                     del("apps.kruise.io", "v1beta1", "CloneSet", "clonesets",
                         workload("apps.kruise.io/v1alpha1", "CloneSet", "\"Always\"", "1"))),
                 400, NULL);
    CHECK_DENIED(
        run(cl, "/validate-service",
            del("", "v1", "Service", "services", obj("v1", "Pod", "d", "p", "\"Always\"", "", ""))),
        400, NULL);
    CHECK_DENIED(
        run(cl, "/validate-ingress",
            del("networking.k8s.io", "v1", "Ingress", "ingresses",
                obj("networking.k8s.io/v1beta1", "Ingress", "d", "i", "\"Always\"", "", ""))),
        400, NULL);
    /* CRDs: the fields the storage target is read from. */
    const char *bad_crd[] = {
        "{\"spec\":{\"group\":1}}",
        "{\"spec\":{\"versions\":{}}}",
        "{\"spec\":{\"versions\":[1]}}",
        "{\"spec\":{\"versions\":[{\"name\":\"v1\",\"storage\":\"true\"}]}}",
        "{\"spec\":{\"versions\":[{\"name\":1,\"storage\":true}]}}",
        "{\"spec\":{\"names\":[]}}",
        "{\"spec\":{\"names\":{\"listKind\":false}}}",
        "{\"spec\":{\"names\":{\"plural\":{}}}}",
    };
    /* The singular spec.version is a v1beta1 field; v1 ignores it. */
    CHECK_DENIED(run(cl, "/validate-customresourcedefinition",
                     del("apiextensions.k8s.io", "v1beta1", "CustomResourceDefinition",
                         "customresourcedefinitions", jf("{\"spec\":{\"version\":1}}"))),
                 400, NULL);
    CHECK_ALLOWED(
        run(cl, "/validate-customresourcedefinition", crd_del(jf("{\"spec\":{\"version\":1}}"))));
    for (size_t i = 0; i < sizeof(bad_crd) / sizeof(bad_crd[0]); i++) {
        CHECK_DENIED(run(cl, "/validate-customresourcedefinition", crd_del(jf("%s", bad_crd[i]))),
                     400, NULL);
        CHECK_DENIED(run(cl, "/validate-customresourcedefinition",
                         del("apiextensions.k8s.io", "v1beta1", "CustomResourceDefinition",
                             "customresourcedefinitions", jf("%s", bad_crd[i]))),
                     400, NULL);
    }
    wh_cluster_free(cl);
}

/* --- Namespace (spec 5.1) ----------------------------------------------------------------------
 */

TEST(dp_namespace_cascading_counts)
{
    /* ns1: every pod phase and PVC phase; ns2: only finished pods and unbound PVCs; ns3: a
     * Bound PVC only; other: active pods that must not count for the others. */
    json_t *objs =
        json_pack("[o,o,o,o,o,o,o,o,o,o,o,o,o,o,o,o,o]", pod("ns1", "running", "Running", false),
                  pod("ns1", "pending", "Pending", false), pod("ns1", "unknown", "Unknown", false),
                  pod("ns1", "nophase", NULL, false), pod("ns1", "done", "Succeeded", false),
                  pod("ns1", "failed", "Failed", false), pod("ns1", "going", "Running", true),
                  pvc("ns1", "bound", "Bound", false), pod("ns2", "done", "Succeeded", false),
                  pod("ns2", "failed", "Failed", false), pod("ns2", "going", "Running", true),
                  pvc("ns2", "pending", "Pending", false), pvc("ns2", "lost", "Lost", false),
                  pvc("ns2", "going", "Bound", true), pvc("ns3", "b1", "Bound", false),
                  pvc("ns3", "b2", "Bound", false), pod("other", "o", "Running", false));
    struct wh_cluster *cl = cluster_of(objs);
    /* Running, Pending, Unknown and no phase are active: 4. Pods come before PVCs. */
    CHECK_DENIED(run(cl, "/validate-namespace", ns_del(ns_obj("ns1", "\"Cascading\""))), 403,
                 FORBIDDEN KEY "=Cascading and active pods 4>0");
    CHECK_ALLOWED(run(cl, "/validate-namespace", ns_del(ns_obj("ns2", "\"Cascading\""))));
    CHECK_DENIED(run(cl, "/validate-namespace", ns_del(ns_obj("ns3", "\"Cascading\""))), 403,
                 FORBIDDEN KEY "=Cascading and \"Bound\" status pvc 2>0");
    CHECK_ALLOWED(run(cl, "/validate-namespace", ns_del(ns_obj("empty", "\"Cascading\""))));
    CHECK_DENIED(run(cl, "/validate-namespace", ns_del(ns_obj("empty", "\"Always\""))), 403,
                 M_ALWAYS);
    /* The namespace is the old object's name, not request.namespace / request.name. */
    json_t *req = ns_del(ns_obj("ns2", "\"Cascading\""));
    json_object_set_new(req, "namespace", json_string("ns1"));
    json_object_set_new(req, "name", json_string("ns1"));
    CHECK_ALLOWED(run(cl, "/validate-namespace", req));
    /* Unknown labels never list anything, even with active pods. */
    CHECK_ALLOWED(run(cl, "/validate-namespace", ns_del(ns_obj("ns1", "\"cascading\""))));
    wh_cluster_free(cl);
}

TEST(dp_namespace_without_cluster_denies)
{
    /* No cluster state to read from: the live read fails, and a failed read denies. */
    struct res r = run(NULL, "/validate-namespace", ns_del(ns_obj("ns1", "\"Cascading\"")));
    CHECK_DENIED(r, 403, NULL);
    CHECK(wh_str_has_prefix(r.msg, FORBIDDEN "list pods error: "));
    r = run(NULL, "/validate-customresourcedefinition",
            crd_del(crd("a.example.com", "\"Cascading\"", V1_STORAGE)));
    CHECK_DENIED(r, 403, NULL);
    CHECK(wh_str_has_prefix(r.msg, "failed to list CRs of a.example.com/v1, Kind=WidgetList: "));
}

TEST(dp_namespace_many_pods)
{
    json_t *objs = json_array();
    for (int i = 0; i < 2500; i++) {
        char name[32];
        snprintf(name, sizeof(name), "p-%d", i);
        json_array_append_new(objs, pod("big", name, i % 5 == 0 ? "Succeeded" : "Running", false));
    }
    struct wh_cluster *cl = cluster_of(objs);
    CHECK_DENIED(run(cl, "/validate-namespace", ns_del(ns_obj("big", "\"Cascading\""))), 403,
                 FORBIDDEN KEY "=Cascading and active pods 2000>0");
    wh_cluster_free(cl);
}

/* --- CRD (spec 5.2) ----------------------------------------------------------------------------
 */

TEST(dp_crd_rules)
{
    json_t *objs = json_pack("[o,o,o,o,o,o,o]", crd("a.example.com", "\"Cascading\"", V1_STORAGE),
                             widget("a.example.com", "ns1", "w1", false),
                             widget("a.example.com", "ns2", "w2", false),
                             widget("a.example.com", "ns2", "w3", true),
                             crd("b.example.com", "\"Cascading\"", V1_STORAGE),
                             widget("b.example.com", "ns1", "gone", true),
                             crd("none.example.com", "\"Cascading\"", V1_STORAGE));
    struct wh_cluster *cl = cluster_of(objs);
    /* Live CRs across namespaces, without those being deleted. */
    CHECK_DENIED(run(cl, "/validate-customresourcedefinition",
                     crd_del(crd("a.example.com", "\"Cascading\"", V1_STORAGE))),
                 403, FORBIDDEN KEY "=Cascading and active CRs 2>0");
    CHECK_ALLOWED(run(cl, "/validate-customresourcedefinition",
                      crd_del(crd("b.example.com", "\"Cascading\"", V1_STORAGE))));
    CHECK_ALLOWED(run(cl, "/validate-customresourcedefinition",
                      crd_del(crd("none.example.com", "\"Cascading\"", V1_STORAGE))));
    CHECK_DENIED(run(cl, "/validate-customresourcedefinition",
                     crd_del(crd("none.example.com", "\"Always\"", V1_STORAGE))),
                 403, M_ALWAYS);
    CHECK_ALLOWED(run(cl, "/validate-customresourcedefinition",
                      crd_del(crd("a.example.com", "\"Sometimes\"", V1_STORAGE))));
    /* v1beta1 reviews decode the same way. */
    json_t *beta = crd("a.example.com", "\"Cascading\"", V1_STORAGE);
    json_object_set_new(beta, "apiVersion", json_string("apiextensions.k8s.io/v1beta1"));
    CHECK_DENIED(run(cl, "/validate-customresourcedefinition",
                     del("apiextensions.k8s.io", "v1beta1", "CustomResourceDefinition",
                         "customresourcedefinitions", beta)),
                 403, FORBIDDEN KEY "=Cascading and active CRs 2>0");
    /* Other versions are skipped, whatever the label. */
    CHECK_ALLOWED(
        run(cl, "/validate-customresourcedefinition",
            del("apiextensions.k8s.io", "v2", "CustomResourceDefinition",
                "customresourcedefinitions", crd("a.example.com", "\"Always\"", V1_STORAGE))));
    CHECK_ALLOWED(run(cl, "/validate-customresourcedefinition",
                      del("apiextensions.k8s.io", "v2", "CustomResourceDefinition",
                          "customresourcedefinitions", jf("{\"spec\":[\"not a spec\"]}"))));
    /* The CRD gate off: Cascading can never be deleted; Always as usual; others allowed. */
    const char *rdp_only = "ResourcesDeletionProtection=true";
    CHECK_DENIED(run_on(rdp_only, cl, "/validate-customresourcedefinition",
                        crd_del(crd("none.example.com", "\"Cascading\"", V1_STORAGE))),
                 403, "feature-gate DeletionProtectionForCRDCascadingGate is not enabled");
    CHECK_DENIED(run_on(rdp_only, cl, "/validate-customresourcedefinition",
                        crd_del(crd("a.example.com", "\"Always\"", V1_STORAGE))),
                 403, M_ALWAYS);
    CHECK_ALLOWED(run_on(rdp_only, cl, "/validate-customresourcedefinition",
                         crd_del(crd("a.example.com", NULL, V1_STORAGE))));
    /* Already being deleted: allowed even with the gate off. */
    json_t *going = crd("a.example.com", "\"Cascading\"", V1_STORAGE);
    json_object_set_new(json_object_get(going, "metadata"), "deletionTimestamp",
                        json_string("2026-03-01T08:00:00Z"));
    CHECK_ALLOWED(run_on(rdp_only, cl, "/validate-customresourcedefinition", crd_del(going)));
    wh_cluster_free(cl);
}

TEST(dp_crd_storage_target)
{
    /* The CRD being deleted is served (the API server asks before it deletes): here with
     * versions v1 and v2, whose objects are listed by their kind. */
    struct wh_cluster *cl = cluster_of(json_pack(
        "[o]", crd("a.example.com", NULL,
                   "[{\"name\":\"v1\",\"storage\":false},{\"name\":\"v2\",\"storage\":true}]")));
    /* No storage version: upstream's target is empty and its list fails, so it denies. */
    struct res r = run(cl, "/validate-customresourcedefinition",
                       crd_del(crd("a.example.com", "\"Cascading\"",
                                   "[{\"name\":\"v1\",\"served\":true,\"storage\":false}]")));
    CHECK_DENIED(r, 403, NULL);
    CHECK(wh_str_has_prefix(r.msg, "failed to list CRs of /, Kind=: "));
    r = run(cl, "/validate-customresourcedefinition",
            crd_del(crd("a.example.com", "\"Cascading\"", "[]")));
    CHECK(wh_str_has_prefix(r.msg, "failed to list CRs of /, Kind=: "));
    /* A v1beta1 CRD with only the old spec.version field has no target either. */
    json_t *beta = jf("{\"apiVersion\":\"apiextensions.k8s.io/v1beta1\",\"kind\":"
                      "\"CustomResourceDefinition\",\"metadata\":{\"name\":\"w.a.example.com\","
                      "\"labels\":{\"" KEY "\":\"Cascading\"}},\"spec\":{\"group\":"
                      "\"a.example.com\",\"version\":\"v1\",\"names\":{\"plural\":\"w\","
                      "\"kind\":\"W\",\"listKind\":\"WList\"}}}");
    r = run(cl, "/validate-customresourcedefinition",
            del("apiextensions.k8s.io", "v1beta1", "CustomResourceDefinition",
                "customresourcedefinitions", beta));
    CHECK_DENIED(r, 403, NULL);
    CHECK(wh_str_has_prefix(r.msg, "failed to list CRs of /, Kind=: "));
    /* The first storage version is the one named. */
    r = run(cl, "/validate-customresourcedefinition",
            crd_del(crd("a.example.com", "\"Cascading\"",
                        "[{\"name\":\"v1\",\"storage\":false},{\"name\":\"v2\",\"storage\":true},"
                        "{\"name\":\"v3\",\"storage\":true}]")));
    CHECK_ALLOWED(r);
    json_t *nolist = crd("a.example.com", "\"Cascading\"", V1_STORAGE);
    json_object_del(json_object_get(json_object_get(nolist, "spec"), "names"), "listKind");
    r = run(cl, "/validate-customresourcedefinition", crd_del(nolist));
    CHECK_DENIED(r, 403, "failed to list CRs of a.example.com/v1, Kind=: no matches for kind \"\" "
                         "in version \"a.example.com/v1\"");
    /* The kind is the list kind without a trailing List: one that names no served kind cannot
     * be listed (upstream's client maps kinds to resources as discovery says). */
    json_t *odd = crd("a.example.com", "\"Cascading\"", V1_STORAGE);
    json_object_set_new(json_object_get(json_object_get(odd, "spec"), "names"), "listKind",
                        json_string("WidgetItems"));
    r = run(cl, "/validate-customresourcedefinition", crd_del(odd));
    CHECK_DENIED(r, 403, "failed to list CRs of a.example.com/v1, Kind=WidgetItems: no matches for "
                         "kind \"WidgetItems\" in version \"a.example.com/v1\"");
    wh_cluster_free(cl);
}

TEST(dp_crd_thousands_of_crs_standalone)
{
    json_t *objs = json_array();
    json_array_append_new(objs, crd("many.example.com", "\"Cascading\"", V1_STORAGE));
    for (int i = 0; i < 3000; i++) {
        char ns[16], name[32];
        snprintf(ns, sizeof(ns), "ns%d", i % 7);
        snprintf(name, sizeof(name), "w-%d", i);
        json_array_append_new(objs, widget("many.example.com", ns, name, i < 10));
    }
    struct wh_cluster *cl = cluster_of(objs);
    CHECK_DENIED(run(cl, "/validate-customresourcedefinition",
                     crd_del(crd("many.example.com", "\"Cascading\"", V1_STORAGE))),
                 403, FORBIDDEN KEY "=Cascading and active CRs 2990>0");
    wh_cluster_free(cl);
}

/* --- workloads (spec 5.3) ----------------------------------------------------------------------
 */

TEST(dp_builtin_workloads)
{
    struct wh_cluster *cl = cluster_of(NULL);
    const char *paths[] = {"/validate-apps-deployment", "/validate-apps-replicaset",
                           "/validate-apps-statefulset"};
    const char *kinds[] = {"Deployment", "ReplicaSet", "StatefulSet"};
    const char *resources[] = {"deployments", "replicasets", "statefulsets"};
    /* Any path judges any of the three kinds by request.kind. */
    for (size_t p = 0; p < 3; p++) {
        for (size_t k = 0; k < 3; k++) {
#define WL(label, replicas)                                                                        \
    del("apps", "v1", kinds[k], resources[k], workload("apps/v1", kinds[k], label, replicas))
            CHECK_DENIED(run(cl, paths[p], WL("\"Always\"", "3")), 403, M_ALWAYS);
            CHECK_DENIED(run(cl, paths[p], WL("\"Always\"", "0")), 403, M_ALWAYS);
            CHECK_DENIED(run(cl, paths[p], WL("\"Always\"", NULL)), 403, M_ALWAYS);
            CHECK_DENIED(run(cl, paths[p], WL("\"Cascading\"", "3")), 403,
                         FORBIDDEN KEY "=Cascading and replicas 3>0");
            CHECK_DENIED(run(cl, paths[p], WL("\"Cascading\"", "2147483647")), 403,
                         FORBIDDEN KEY "=Cascading and replicas 2147483647>0");
            CHECK_ALLOWED(run(cl, paths[p], WL("\"Cascading\"", "0")));
            CHECK_ALLOWED(run(cl, paths[p], WL("\"Cascading\"", "-1")));
            CHECK_ALLOWED(run(cl, paths[p], WL("\"Cascading\"", "null")));
            CHECK_ALLOWED(run(cl, paths[p], WL("\"Cascading\"", NULL)));
            CHECK_ALLOWED(run(cl, paths[p], WL(NULL, "3")));
            CHECK_ALLOWED(run(cl, paths[p], WL("\"Never\"", "3")));
#undef WL
        }
        /* Other kinds are not this handler's business, whatever the object says. */
        CHECK_ALLOWED(run(cl, paths[p],
                          del("apps", "v1", "DaemonSet", "daemonsets",
                              workload("apps/v1", "DaemonSet", "\"Always\"", "3"))));
        CHECK_ALLOWED(
            run(cl, paths[p], del("apps", "v1", "DaemonSet", "daemonsets", jf("{\"spec\":1}"))));
    }
    /* status.replicas and the like are not looked at. */
    json_t *old = workload("apps/v1", "Deployment", "\"Cascading\"", "0");
    json_object_set_new(old, "status", jf("{\"replicas\":3,\"readyReplicas\":3}"));
    CHECK_ALLOWED(
        run(cl, "/validate-apps-deployment", del("apps", "v1", "Deployment", "deployments", old)));
    wh_cluster_free(cl);
}

TEST(dp_kruise_workloads_delete)
{
    struct wh_cluster *cl = cluster_of(NULL);
    struct {
        const char *path, *kind, *resource;
    } k[] = {
        {"/validate-apps-kruise-io-cloneset", "CloneSet", "clonesets"},
        {"/validate-apps-kruise-io-v1alpha1-cloneset", "CloneSet", "clonesets"},
        {"/validate-apps-kruise-io-statefulset", "StatefulSet", "statefulsets"},
        {"/validate-apps-kruise-io-uniteddeployment", "UnitedDeployment", "uniteddeployments"},
        {"/validate-apps-kruise-io-v1alpha1-uniteddeployment", "UnitedDeployment",
         "uniteddeployments"},
    };
    const char *versions[] = {"v1alpha1", "v1beta1"};
    for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
        for (size_t v = 0; v < 2; v++) {
            char av[64];
            snprintf(av, sizeof(av), "apps.kruise.io/%s", versions[v]);
#define KW(label, replicas)                                                                        \
    del("apps.kruise.io", versions[v], k[i].kind, k[i].resource,                                   \
        workload(av, k[i].kind, label, replicas))
            CHECK_DENIED(run(cl, k[i].path, KW("\"Always\"", "0")), 403, M_ALWAYS);
            CHECK_DENIED(run(cl, k[i].path, KW("\"Cascading\"", "5")), 403,
                         FORBIDDEN KEY "=Cascading and replicas 5>0");
            CHECK_ALLOWED(run(cl, k[i].path, KW("\"Cascading\"", "0")));
            CHECK_ALLOWED(run(cl, k[i].path, KW("\"Cascading\"", NULL)));
            CHECK_ALLOWED(run(cl, k[i].path, KW("\"Cascading\"", "null")));
            CHECK_ALLOWED(run(cl, k[i].path, KW("\"Other\"", "5")));
            CHECK_ALLOWED(run(cl, k[i].path, KW(NULL, "5")));
            CHECK_ALLOWED(run(cl, k[i].path,
                              del("apps.kruise.io", versions[v], k[i].kind, k[i].resource, NULL)));
            /* These handlers do not look at subResource. */
            CHECK_DENIED(
                run(cl, k[i].path,
                    request_full("DELETE", "apps.kruise.io", versions[v], k[i].kind, k[i].resource,
                                 "status", workload(av, k[i].kind, "\"Always\"", "1"))),
                403, M_ALWAYS);
            /* Being deleted, or the gate off. */
            json_t *going = workload(av, k[i].kind, "\"Always\"", "1");
            json_object_set_new(json_object_get(going, "metadata"), "deletionTimestamp",
                                json_string("2026-03-01T08:00:00Z"));
            CHECK_ALLOWED(run(cl, k[i].path,
                              del("apps.kruise.io", versions[v], k[i].kind, k[i].resource, going)));
            CHECK_ALLOWED(run_on("", cl, k[i].path, KW("\"Always\"", "1")));
            /* CONNECT: allowed (CREATE and UPDATE are the workload validation's: see
             * test_workloads.c). */
            json_t *req = request_full("CONNECT", "apps.kruise.io", versions[v], k[i].kind,
                                       k[i].resource, "", workload(av, k[i].kind, "\"Always\"", "1"));
            json_object_set_new(req, "object", workload(av, k[i].kind, "\"Always\"", "1"));
            CHECK_ALLOWED(run(cl, k[i].path, req));
#undef KW
        }
    }
    wh_cluster_free(cl);
}

TEST(dp_kruise_workloads_versions)
{
    struct wh_cluster *cl = cluster_of(NULL);
    json_t *old;
    /* CloneSet: an unknown version is a 400 for every operation, old object or not. */
    const char *ops[] = {"CREATE", "UPDATE", "DELETE", "CONNECT"};
    for (size_t o = 0; o < 4; o++) {
        CHECK_DENIED(
            run(cl, "/validate-apps-kruise-io-cloneset",
                request_full(ops[o], "apps.kruise.io", "v2", "CloneSet", "clonesets", "", NULL)),
            400, "unsupported version: v2");
    }
    /* Advanced StatefulSet: an unknown version decodes nothing and is allowed. */
    old = workload("apps.kruise.io/v2", "StatefulSet", "\"Always\"", "3");
    CHECK_ALLOWED(run(cl, "/validate-apps-kruise-io-statefulset",
                      del("apps.kruise.io", "v2", "StatefulSet", "statefulsets", old)));
    CHECK_ALLOWED(run(cl, "/validate-apps-kruise-io-statefulset",
                      del("apps.kruise.io", "v2", "StatefulSet", "statefulsets",
                          jf("{\"metadata\":\"garbage\"}"))));
    /* UnitedDeployment: unknown version with an old object is a 400; without, allowed. */
    old = workload("apps.kruise.io/v2", "UnitedDeployment", "\"Always\"", "3");
    CHECK_DENIED(run(cl, "/validate-apps-kruise-io-uniteddeployment",
                     del("apps.kruise.io", "v2", "UnitedDeployment", "uniteddeployments", old)),
                 400, "unsupported version: v2");
    CHECK_ALLOWED(run(cl, "/validate-apps-kruise-io-uniteddeployment",
                      del("apps.kruise.io", "v2", "UnitedDeployment", "uniteddeployments", NULL)));
    CHECK_DENIED(run(cl, "/validate-apps-kruise-io-uniteddeployment",
                     request_full("CREATE", "apps.kruise.io", "v2", "UnitedDeployment",
                                  "uniteddeployments", "", NULL)),
                 400, "unsupported version: v2");
    CHECK_ALLOWED(run(cl, "/validate-apps-kruise-io-uniteddeployment",
                      request_full("CONNECT", "apps.kruise.io", "v2", "UnitedDeployment",
                                   "uniteddeployments", "", NULL)));
    wh_cluster_free(cl);
}

/* --- Service and Ingress (spec 5.4, 5.5) --------------------------------------------------------
 */

TEST(dp_service_ingress)
{
    struct wh_cluster *cl = cluster_of(NULL);
    CHECK_DENIED(run(cl, "/validate-service",
                     del("", "v1", "Service", "services",
                         obj("v1", "Service", "d", "s", "\"Always\"", "", ""))),
                 403, M_ALWAYS);
    CHECK_ALLOWED(run(cl, "/validate-service",
                      del("", "v1", "Service", "services",
                          obj("v1", "Service", "d", "s", "\"Cascading\"", "", ""))));
    CHECK_ALLOWED(
        run(cl, "/validate-service",
            del("", "v1", "Service", "services", obj("v1", "Service", "d", "s", NULL, "", ""))));
    const char *iv[] = {"v1", "v1beta1"};
    for (size_t v = 0; v < 2; v++) {
        char av[64];
        snprintf(av, sizeof(av), "networking.k8s.io/%s", iv[v]);
        CHECK_DENIED(run(cl, "/validate-ingress",
                         del("networking.k8s.io", iv[v], "Ingress", "ingresses",
                             obj(av, "Ingress", "d", "i", "\"Always\"", "", ""))),
                     403, M_ALWAYS);
        CHECK_ALLOWED(run(cl, "/validate-ingress",
                          del("networking.k8s.io", iv[v], "Ingress", "ingresses",
                              obj(av, "Ingress", "d", "i", "\"Cascading\"", "", ""))));
    }
    /* Upstream crashes on other versions (a 500); we allow, as the configuration never sends
     * them. */
    CHECK_ALLOWED(run(cl, "/validate-ingress",
                      del("networking.k8s.io", "v2", "Ingress", "ingresses",
                          obj("networking.k8s.io/v2", "Ingress", "d", "i", "\"Always\"", "", ""))));
    wh_cluster_free(cl);
}

/* --- metrics -----------------------------------------------------------------------------------
 */

/* The value of a counter series as /metrics renders it (0 when absent). */
static double counter(const char *name, const char *k1, const char *v1, const char *k2,
                      const char *v2)
{
    char labels[512], series[1024];
    wh_metrics_labels(labels, sizeof(labels), k1, v1, k2, v2, NULL);
    snprintf(series, sizeof(series), "\n%s{%s} ", name, labels);
    struct wh_buf page;
    wh_buf_init(&page, 64 << 20);
    double v = 0;
    if (wh_metrics_render(&page) == WH_OK && page.data) {
        const char *p = strstr(page.data, series);
        if (p)
            v = strtod(p + strlen(series), NULL);
    }
    wh_buf_fini(&page);
    return v;
}

#define DENIED(g, k)                                                                               \
    counter("kruise_webhook_deletion_protection_denied_total", "group", g, "kind", k)

TEST(dp_metrics)
{
    struct wh_cluster *cl = cluster_of(json_pack("[o]", pod("mns", "p", "Running", false)));
    double ns0 = DENIED("", "Namespace"),
           crd0 = DENIED("apiextensions.k8s.io", "CustomResourceDefinition");
    double dep0 = DENIED("apps", "Deployment"), asts0 = DENIED("apps.kruise.io", "StatefulSet");
    double sts0 = DENIED("apps", "StatefulSet"), svc0 = DENIED("", "Service");
    double up_ns0 =
        counter("namespace_deletion_protection", "name", "mns", "username", "alice@example.com");
    double up_wl0 = counter("workload_deletion_protection", "kind_namespace_name",
                            "Deployment_default_w", "username", "alice@example.com");
    double up_crd0 = counter("crd_deletion_protection", "name", "widgets.m.example.com", "username",
                             "alice@example.com");

    CHECK_DENIED(run(cl, "/validate-namespace", ns_del(ns_obj("mns", "\"Cascading\""))), 403, NULL);
    CHECK_DENIED(run(cl, "/validate-namespace", ns_del(ns_obj("mns", "\"Always\""))), 403, NULL);
    CHECK_ALLOWED(run(cl, "/validate-namespace", ns_del(ns_obj("mns", NULL))));
    CHECK_DENIED(run_on("ResourcesDeletionProtection=true", cl,
                        "/validate-customresourcedefinition",
                        crd_del(crd("m.example.com", "\"Cascading\"", V1_STORAGE))),
                 403, NULL);
    CHECK_DENIED(run(cl, "/validate-apps-statefulset",
                     del("apps", "v1", "Deployment", "deployments",
                         workload("apps/v1", "Deployment", "\"Always\"", "1"))),
                 403, NULL);
    CHECK_DENIED(run(cl, "/validate-apps-kruise-io-statefulset",
                     del("apps.kruise.io", "v1beta1", "StatefulSet", "statefulsets",
                         workload("apps.kruise.io/v1beta1", "StatefulSet", "\"Always\"", "1"))),
                 403, NULL);
    CHECK_DENIED(run(cl, "/validate-service",
                     del("", "v1", "Service", "services",
                         obj("v1", "Service", "d", "s", "\"Always\"", "", ""))),
                 403, NULL);
    /* A 400 is not a protection denial. */
    CHECK_DENIED(run(cl, "/validate-apps-deployment",
                     del("apps", "v1", "Deployment", "deployments", jf("{\"spec\":5}"))),
                 400, NULL);

    CHECK_EQ_INT(DENIED("", "Namespace") - ns0, 2);
    CHECK_EQ_INT(DENIED("apiextensions.k8s.io", "CustomResourceDefinition") - crd0, 1);
    CHECK_EQ_INT(DENIED("apps", "Deployment") - dep0, 1);
    CHECK_EQ_INT(DENIED("apps.kruise.io", "StatefulSet") - asts0, 1);
    CHECK_EQ_INT(DENIED("apps", "StatefulSet") - sts0, 0);
    CHECK_EQ_INT(DENIED("", "Service") - svc0, 1);
    CHECK_EQ_INT(
        counter("namespace_deletion_protection", "name", "mns", "username", "alice@example.com") -
            up_ns0,
        2);
    CHECK_EQ_INT(counter("workload_deletion_protection", "kind_namespace_name",
                         "Deployment_default_w", "username", "alice@example.com") -
                     up_wl0,
                 1);
    CHECK_EQ_INT(counter("crd_deletion_protection", "name", "widgets.m.example.com", "username",
                         "alice@example.com") -
                     up_crd0,
                 1);
    /* The rendered page has the families. */
    struct wh_buf page;
    wh_buf_init(&page, 16 << 20);
    CHECK_EQ_INT(wh_metrics_render(&page), WH_OK);
    CHECK(page.data && strstr(page.data, "kruise_webhook_deletion_protection_denied_total{group="
                                         "\"\",kind=\"Namespace\"}") != NULL);
    CHECK(page.data && strstr(page.data, "namespace_deletion_protection{name=\"mns\"") != NULL);
    wh_buf_fini(&page);
    wh_cluster_free(cl);
}

/* --- against the fake API server -----------------------------------------------------------------
 */

struct api_fx {
    struct wh_apiserver *srv;
    struct wh_cluster *cl;
};

static bool api_start(struct api_fx *fx)
{
    struct wh_errbuf eb = {{0}};
    char *kc = NULL;
    struct wh_kube_client *c = NULL;
    memset(fx, 0, sizeof(*fx));
    wh_test_curl_init();
    if (wh_apiserver_start(NULL, &fx->srv, &eb)) {
        fprintf(stderr, "cannot start the fake apiserver: %s\n", eb.msg);
        CHECK(false);
        return false;
    }
    struct wh_kc_opts ko = {WH_KC_AUTH_NONE, WH_KC_CA_DATA, NULL, NULL, NULL, NULL};
    if (wh_apiserver_write_kubeconfig(fx->srv, &ko, NULL, &kc, &eb)) {
        fprintf(stderr, "kubeconfig: %s\n", eb.msg);
        CHECK(false);
        return false;
    }
    struct wh_kube_opts o = {.kubeconfig = kc, .timeout_ms = 20000, .max_retries = 2};
    enum wh_err rc = wh_kube_client_new(&o, &c, &eb);
    free(kc);
    if (!rc)
        rc = wh_cluster_new_api(c, &fx->cl, &eb);
    if (!rc)
        rc = wh_cluster_start(fx->cl, &eb);
    if (rc) {
        fprintf(stderr, "client: %s\n", eb.msg);
        CHECK(false);
        return false;
    }
    return true;
}

static void api_stop(struct api_fx *fx)
{
    wh_cluster_free(fx->cl);
    wh_apiserver_stop(fx->srv);
}

static void api_load(struct api_fx *fx, json_t *objects /* steals */)
{
    struct wh_errbuf eb = {{0}};
    char *body = wh_json_dumps(objects);
    json_decref(objects);
    if (wh_apiserver_control(fx->srv, "POST", "objects", body, NULL, &eb)) {
        fprintf(stderr, "loading objects: %s\n", eb.msg);
        abort();
    }
    free(body);
}

/* The logged GET requests whose path is exactly path. Returns: new ref. */
static json_t *api_gets(struct api_fx *fx, const char *path)
{
    json_t *all = NULL, *out = json_array();
    struct wh_errbuf eb = {{0}};
    if (wh_apiserver_control(fx->srv, "GET", "requests", NULL, &all, &eb))
        abort();
    size_t i;
    json_t *r;
    json_array_foreach(all, i, r)
    {
        if (wh_str_eq(wh_json_str(r, "method"), "GET") && wh_str_eq(wh_json_str(r, "path"), path))
            json_array_append(out, r);
    }
    json_decref(all);
    return out;
}

static void api_clear_requests(struct api_fx *fx)
{
    if (wh_apiserver_control(fx->srv, "DELETE", "requests", NULL, NULL, NULL))
        abort();
}

TEST(dp_api_crd_pagination)
{
    struct api_fx fx;
    if (!api_start(&fx)) {
        api_stop(&fx);
        return;
    }
    /* Storage version v2 of two; CRs in several namespaces, some being deleted. */
    const char *versions = "[{\"name\":\"v1\",\"served\":true,\"storage\":false,\"schema\":{"
                           "\"openAPIV3Schema\":{\"type\":\"object\",\"x-kubernetes-preserve-"
                           "unknown-fields\":true}}},{\"name\":\"v2\",\"served\":true,\"storage\":"
                           "true,\"schema\":{\"openAPIV3Schema\":{\"type\":\"object\",\"x-"
                           "kubernetes-preserve-unknown-fields\":true}}}]";
    json_t *objs = json_array();
    json_array_append_new(objs, crd("page.example.com", "\"Cascading\"", versions));
    for (int n = 0; n < 5; n++) {
        char name[16];
        snprintf(name, sizeof(name), "pg%d", n);
        json_array_append_new(objs, ns_obj(name, NULL));
    }
    api_load(&fx, objs);
    objs = json_array();
    for (int i = 0; i < 3000; i++) {
        char ns[16], name[32];
        snprintf(ns, sizeof(ns), "pg%d", i % 5);
        snprintf(name, sizeof(name), "w-%d", i);
        json_t *w = widget("page.example.com", ns, name, i < 7);
        json_object_set_new(w, "apiVersion", json_string("page.example.com/v2"));
        json_array_append_new(objs, w);
    }
    api_load(&fx, objs);
    api_clear_requests(&fx);

    json_t *old = crd("page.example.com", "\"Cascading\"", versions);
    CHECK_DENIED(run(fx.cl, "/validate-customresourcedefinition", crd_del(json_incref(old))), 403,
                 FORBIDDEN KEY "=Cascading and active CRs 2993>0");
    /* Listed at the storage version, all namespaces, in pages with continue tokens. */
    json_t *gets = api_gets(&fx, "/apis/page.example.com/v2/widgets");
    CHECK(json_array_size(gets) >= 2);
    size_t i;
    json_t *g;
    size_t with_continue = 0;
    json_array_foreach(gets, i, g)
    {
        const char *q = wh_json_str(g, "query");
        CHECK(q && strstr(q, "limit=") != NULL);
        with_continue += q && strstr(q, "continue=") != NULL;
    }
    CHECK_EQ_INT(with_continue, json_array_size(gets) - 1);
    json_decref(gets);
    gets = api_gets(&fx, "/apis/page.example.com/v1/widgets");
    CHECK_EQ_INT(json_array_size(gets), 0);
    json_decref(gets);

    /* A list that keeps failing denies with the error: the CRD stays. */
    wh_apiserver_post(fx.srv, "fail?code=500&count=10&path_prefix=/apis/page.example.com/");
    struct res r = run(fx.cl, "/validate-customresourcedefinition", crd_del(json_incref(old)));
    CHECK_DENIED(r, 403, NULL);
    CHECK(wh_str_has_prefix(r.msg, "failed to list CRs of page.example.com/v2, Kind=WidgetList: "));
    wh_apiserver_post(fx.srv, "fail?clear=true");
    /* One failure is retried by the client: the answer is the real one. */
    wh_apiserver_post(fx.srv, "fail?code=500&count=1&path_prefix=/apis/page.example.com/");
    CHECK_DENIED(run(fx.cl, "/validate-customresourcedefinition", crd_del(json_incref(old))), 403,
                 FORBIDDEN KEY "=Cascading and active CRs 2993>0");
    wh_apiserver_post(fx.srv, "fail?clear=true");
    /* Nothing is listed unless a Cascading CRD is deleted with both gates on. */
    api_clear_requests(&fx);
    CHECK_DENIED(run_on("ResourcesDeletionProtection=true", fx.cl,
                        "/validate-customresourcedefinition", crd_del(json_incref(old))),
                 403, "feature-gate DeletionProtectionForCRDCascadingGate is not enabled");
    CHECK_ALLOWED(run(fx.cl, "/validate-customresourcedefinition",
                      crd_del(crd("page.example.com", NULL, versions))));
    gets = api_gets(&fx, "/apis/page.example.com/v2/widgets");
    CHECK_EQ_INT(json_array_size(gets), 0);
    json_decref(gets);
    json_decref(old);
    api_stop(&fx);
}

TEST(dp_api_namespace_live_reads)
{
    struct api_fx fx;
    if (!api_start(&fx)) {
        api_stop(&fx);
        return;
    }
    api_load(&fx,
             json_pack("[o,o,o,o,o,o]", ns_obj("live", NULL), ns_obj("quiet", NULL),
                       pod("live", "a", "Running", false), pod("live", "b", "Succeeded", false),
                       pvc("live", "c", "Bound", false), pvc("quiet", "d", "Pending", false)));
    api_clear_requests(&fx);
    CHECK_DENIED(run(fx.cl, "/validate-namespace", ns_del(ns_obj("live", "\"Cascading\""))), 403,
                 FORBIDDEN KEY "=Cascading and active pods 1>0");
    /* The pods answered: the PVC list was not needed. */
    json_t *gets = api_gets(&fx, "/api/v1/namespaces/live/persistentvolumeclaims");
    CHECK_EQ_INT(json_array_size(gets), 0);
    json_decref(gets);
    gets = api_gets(&fx, "/api/v1/namespaces/live/pods");
    CHECK_EQ_INT(json_array_size(gets), 1);
    json_decref(gets);
    CHECK_ALLOWED(run(fx.cl, "/validate-namespace", ns_del(ns_obj("quiet", "\"Cascading\""))));

    /* The pod list failing: denied, with the error. */
    wh_apiserver_post(fx.srv, "fail?code=500&count=10&path_prefix=/api/v1/namespaces/quiet/pods");
    struct res r = run(fx.cl, "/validate-namespace", ns_del(ns_obj("quiet", "\"Cascading\"")));
    CHECK_DENIED(r, 403, NULL);
    CHECK(wh_str_has_prefix(r.msg, FORBIDDEN "list pods error: "));
    wh_apiserver_post(fx.srv, "fail?clear=true");
    /* The PVC list failing: denied too. */
    wh_apiserver_post(
        fx.srv,
        "fail?code=503&count=10&path_prefix=/api/v1/namespaces/quiet/persistentvolumeclaims");
    r = run(fx.cl, "/validate-namespace", ns_del(ns_obj("quiet", "\"Cascading\"")));
    CHECK_DENIED(r, 403, NULL);
    CHECK(wh_str_has_prefix(r.msg, FORBIDDEN "list pvc error: "));
    wh_apiserver_post(fx.srv, "fail?clear=true");
    /* A forbidden list (RBAC) is not retried and denies at once. */
    wh_apiserver_post(fx.srv, "fail?code=403&count=1&path_prefix=/api/v1/namespaces/quiet/pods");
    r = run(fx.cl, "/validate-namespace", ns_del(ns_obj("quiet", "\"Cascading\"")));
    CHECK_DENIED(r, 403, NULL);
    CHECK(wh_str_has_prefix(r.msg, FORBIDDEN "list pods error: "));
    wh_apiserver_post(fx.srv, "fail?clear=true");
    CHECK_ALLOWED(run(fx.cl, "/validate-namespace", ns_del(ns_obj("quiet", "\"Cascading\""))));
    /* Always decides without reading anything. */
    api_clear_requests(&fx);
    CHECK_DENIED(run(fx.cl, "/validate-namespace", ns_del(ns_obj("live", "\"Always\""))), 403,
                 M_ALWAYS);
    gets = api_gets(&fx, "/api/v1/namespaces/live/pods");
    CHECK_EQ_INT(json_array_size(gets), 0);
    json_decref(gets);
    api_stop(&fx);
}

/* A live list that would outlive the request's deadline is cut at the deadline, and the
 * deletion is denied with a message that says what timed out. */
TEST(dp_api_live_list_obeys_request_deadline)
{
    struct api_fx fx;
    if (!api_start(&fx)) {
        api_stop(&fx);
        return;
    }
    api_load(&fx, json_pack("[o]", ns_obj("slow", NULL)));
    /* The API server answers the pod list only after 6 s; the request may take 300 ms. */
    wh_apiserver_post(fx.srv, "delay?ms=6000&count=1&path_prefix=/api/v1/namespaces/slow/pods");
    int64_t start = wh_time_mono_ns();
    struct res r = run_deadline(ALL_GATES, 300, fx.cl, "/validate-namespace",
                                ns_del(ns_obj("slow", "\"Cascading\"")));
    int64_t took_ms = (wh_time_mono_ns() - start) / 1000000;
    CHECK_DENIED(r, 403, NULL);
    CHECK(wh_str_has_prefix(r.msg, FORBIDDEN "list pods error: "));
    if (!strstr(r.msg, "deadline"))
        fprintf(stderr, "message: %s\n", r.msg);
    CHECK(strstr(r.msg, "deadline") != NULL);
    /* answered when the deadline passed, not when the API server did */
    if (took_ms >= 5000)
        fprintf(stderr, "answered after %lld ms\n", (long long)took_ms);
    CHECK(took_ms < 5000);
    api_stop(&fx);
}
