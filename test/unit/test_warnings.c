/* Admission warnings (handlers/warnings.h, issue 27): the API server's limits, each warning of
 * the validating webhooks where upstream admits silently, that they never change an answer,
 * and --admission-warnings=false. */
#include <stdio.h>
#include <string.h>

#include "admission/review.h"
#include "test/support/admission_run.h"
#include "test/unit/test.h"
#include "util/json.h"

static const char *const OFF[] = {"--admission-warnings=false", NULL};

/* The warnings of an answer, joined by " | " ("" for none). */
static const char *warnings_of(const struct wh_admrun *r, char *buf, size_t n)
{
    buf[0] = '\0';
    size_t used = 0;
    size_t i;
    const json_t *w;
    json_array_foreach(wh_json_path(r->answer, "response", "warnings", NULL), i, w)
    {
        int k = snprintf(buf + used, n - used, "%s%s", i ? " | " : "", json_string_value(w));
        used += k > 0 && (size_t)k < n - used ? (size_t)k : 0;
    }
    return buf;
}

/* A request (steals object) of kind in group at version; requestKind at req_version. */
static json_t *request(const char *group, const char *version, const char *req_version,
                       const char *kind, const char *resource, const char *ns, json_t *object)
{
    return json_pack("{s:s,s:{s:s,s:s,s:s},s:{s:s,s:s,s:s},s:{s:s,s:s,s:s},s:s,s:s,s:s,s:s,s:o}",
                     "uid", "u", "kind", "group", group, "version", version, "kind", kind,
                     "requestKind", "group", group, "version", req_version, "kind", kind,
                     "resource", "group", group, "version", version, "resource", resource,
                     "subResource", "", "operation", "CREATE", "namespace", ns, "name", "x",
                     "object", object);
}

TEST(admission_warning_limits)
{
    struct wh_admission_response resp;
    wh_admission_response_init(&resp);
    char long_text[300];
    memset(long_text, 'a', sizeof(long_text) - 1);
    long_text[sizeof(long_text) - 1] = '\0';
    /* a 2-byte character across the cut: never split */
    memcpy(long_text + WH_ADMISSION_WARNING_MAX - 4, "\xc3\xa9", 2);
    wh_admission_warn(&resp, "%s", long_text);
    const char *w = json_string_value(json_array_get(resp.warnings, 0));
    CHECK(strlen(w) <= WH_ADMISSION_WARNING_MAX);
    CHECK(strlen(w) < 120);
    CHECK(strcmp(w + strlen(w) - 3, "...") == 0);
    CHECK(((unsigned char)w[strlen(w) - 4] & 0xC0) != 0xC0); /* no lead byte left alone */
    for (int i = 0; i < 10; i++)
        wh_admission_warn(&resp, "w%d", i);
    CHECK_EQ_INT((int)json_array_size(resp.warnings), WH_ADMISSION_WARNINGS_MAX);
    wh_admission_response_fini(&resp);
}

#define SS_NS_SELECTOR                                                                             \
    "{\"apiVersion\":\"apps.kruise.io/v1beta1\",\"kind\":\"SidecarSet\",\"metadata\":{\"name\":"   \
    "\"ss\"},\"spec\":{\"selector\":{\"matchLabels\":{\"app\":\"web\"}},\"namespaceSelector\":{"   \
    "\"matchLabels\":{\"env\":\"prod\"}},\"containers\":[{\"name\":\"log\",\"image\":\"b\","        \
    "\"imagePullPolicy\":\"IfNotPresent\",\"terminationMessagePolicy\":\"File\",\"podInjectPolicy\":" \
    "\"BeforeAppContainer\",\"shareVolumePolicy\":{\"type\":\"disabled\"},\"upgradeStrategy\":{"     \
    "\"upgradeType\":\"ColdUpgrade\"}}],\"updateStrategy\":{\"type\":\"RollingUpdate\",\"partition\":" \
    "0,\"maxUnavailable\":1},\"revisionHistoryLimit\":10}}"

TEST(warning_sidecarset_namespace_selector_matches_nothing)
{
    const char *ep = "/validate-apps-kruise-io-sidecarset";
    json_t *none = wh_test_json("[{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{"
                                "\"name\":\"default\",\"labels\":{\"env\":\"dev\"}}}]");
    json_t *prod = wh_test_json("[{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{"
                                "\"name\":\"shop\",\"labels\":{\"env\":\"prod\"}}}]");
    json_t *req = request("apps.kruise.io", "v1beta1", "v1beta1", "SidecarSet", "sidecarsets", "",
                          wh_test_json(SS_NS_SELECTOR));
    struct wh_admrun r;
    char buf[2048];
    CHECK(wh_admrun(ep, NULL, none, req, &r));
    CHECK(r.allowed || !fprintf(stderr, "denied: %s\n", r.message));
    CHECK_EQ_STR(warnings_of(&r, buf, sizeof(buf)),
                 "spec.namespaceSelector matches no namespace that exists: nothing is injected "
                 "until one does");
    wh_admrun_fini(&r);
    CHECK(wh_admrun_flags(ep, OFF, none, req, &r));
    CHECK(r.allowed || !fprintf(stderr, "denied: %s\n", r.message));
    CHECK_EQ_STR(warnings_of(&r, buf, sizeof(buf)), "");
    wh_admrun_fini(&r);
    CHECK(wh_admrun(ep, NULL, prod, req, &r));
    CHECK(r.allowed || !fprintf(stderr, "denied: %s\n", r.message));
    CHECK_EQ_STR(warnings_of(&r, buf, sizeof(buf)), "");
    wh_admrun_fini(&r);
    json_decref(req);
    json_decref(none);
    json_decref(prod);
}

TEST(warning_v1alpha1_where_v1beta1_is_served)
{
    const char *ep = "/validate-apps-kruise-io-sidecarset";
    json_t *ns = wh_test_json("[{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{"
                              "\"name\":\"shop\",\"labels\":{\"env\":\"prod\"}}}]");
    struct wh_admrun r;
    char buf[2048];
    /* the API server converts a v1alpha1 write to the version the webhook's rule names and says
     * what was written in requestKind */
    json_t *req = request("apps.kruise.io", "v1beta1", "v1alpha1", "SidecarSet", "sidecarsets", "",
                          wh_test_json(SS_NS_SELECTOR));
    CHECK(wh_admrun(ep, NULL, ns, req, &r));
    CHECK(r.allowed || !fprintf(stderr, "denied: %s\n", r.message));
    CHECK_EQ_STR(warnings_of(&r, buf, sizeof(buf)),
                 "apps.kruise.io/v1alpha1 SidecarSet is an older version; apps.kruise.io/v1beta1 "
                 "is served (use it)");
    wh_admrun_fini(&r);
    CHECK(wh_admrun_flags(ep, OFF, ns, req, &r));
    CHECK_EQ_STR(warnings_of(&r, buf, sizeof(buf)), "");
    wh_admrun_fini(&r);
    json_decref(req);
    req = request("apps.kruise.io", "v1beta1", "v1beta1", "SidecarSet", "sidecarsets", "",
                  wh_test_json(SS_NS_SELECTOR));
    CHECK(wh_admrun(ep, NULL, ns, req, &r));
    CHECK_EQ_STR(warnings_of(&r, buf, sizeof(buf)), "");
    wh_admrun_fini(&r);
    json_decref(req);
    json_decref(ns);
}

#define WS_OF(target)                                                                              \
    "{\"apiVersion\":\"apps.kruise.io/v1alpha1\",\"kind\":\"WorkloadSpread\",\"metadata\":{"       \
    "\"name\":\"ws\",\"namespace\":\"shop\"},\"spec\":{\"targetRef\":{\"apiVersion\":"            \
    "\"apps.kruise.io/v1alpha1\",\"kind\":\"CloneSet\",\"name\":\"" target "\"},\"subsets\":[{"      \
    "\"name\":\"a\",\"maxReplicas\":1}]}}"

/* written at v1beta1 (requestKind), converted to v1alpha1 for the rule: no version warning */
TEST(warning_workloadspread_target_missing)
{
    const char *ep = "/validate-apps-kruise-io-workloadspread";
    json_t *cs = wh_test_json(
        "[{\"apiVersion\":\"apps.kruise.io/v1alpha1\",\"kind\":\"CloneSet\",\"metadata\":{"
        "\"name\":\"web\",\"namespace\":\"shop\"},\"spec\":{\"replicas\":2,\"selector\":{"
        "\"matchLabels\":{\"app\":\"web\"}},\"template\":{\"metadata\":{\"labels\":{\"app\":"
        "\"web\"}},\"spec\":{\"containers\":[{\"name\":\"m\",\"image\":\"n\"}]}}}}]");

    struct wh_admrun r;
    char buf[2048];
    json_t *req = request("apps.kruise.io", "v1alpha1", "v1beta1", "WorkloadSpread",
                          "workloadspreads", "shop", wh_test_json(WS_OF("nope")));
    CHECK(wh_admrun(ep, NULL, cs, req, &r));
    CHECK(r.allowed || !fprintf(stderr, "denied: %s\n", r.message));
    CHECK_EQ_STR(warnings_of(&r, buf, sizeof(buf)),
                 "spec.targetRef: CloneSet nope does not exist in namespace shop: nothing is spread");
    wh_admrun_fini(&r);
    json_decref(req);
    req = request("apps.kruise.io", "v1alpha1", "v1beta1", "WorkloadSpread", "workloadspreads",
                  "shop", wh_test_json(WS_OF("web")));
    CHECK(wh_admrun(ep, NULL, cs, req, &r));
    CHECK(r.allowed || !fprintf(stderr, "denied: %s\n", r.message));
    CHECK_EQ_STR(warnings_of(&r, buf, sizeof(buf)), "");
    wh_admrun_fini(&r);
    json_decref(req);
    json_decref(cs);
}

TEST(warning_pub_target_missing)
{
    const char *ep = "/validate-policy-kruise-io-podunavailablebudget";
    const char *pub = "{\"apiVersion\":\"policy.kruise.io/v1beta1\",\"kind\":"
                      "\"PodUnavailableBudget\",\"metadata\":{\"name\":\"p\",\"namespace\":"
                      "\"shop\"},\"spec\":{\"targetRef\":{\"apiVersion\":\"apps/v1\",\"kind\":"
                      "\"Deployment\",\"name\":\"nope\"},\"maxUnavailable\":1}}";
    struct wh_admrun r;
    char buf[2048];
    json_t *req = request("policy.kruise.io", "v1beta1", "v1beta1", "PodUnavailableBudget",
                          "podunavailablebudgets", "shop", wh_test_json(pub));
    CHECK(wh_admrun(ep, NULL, NULL, req, &r));
    CHECK(r.allowed || !fprintf(stderr, "denied: %s\n", r.message));
    const char *w = warnings_of(&r, buf, sizeof(buf));
    CHECK_EQ_STR(w, "spec.targetRef: Deployment nope does not exist: the budget covers no Pod");
    wh_admrun_fini(&r);
    json_decref(req);
}

TEST(warning_eviction_refused_says_when_it_can_succeed)
{
    const char *ep = "/validate-pod";
    json_t *cluster = wh_test_json(
        "[{\"apiVersion\":\"policy.kruise.io/v1beta1\",\"kind\":\"PodUnavailableBudget\","
        "\"metadata\":{\"name\":\"pub\",\"namespace\":\"shop\"},\"spec\":{\"selector\":{"
        "\"matchLabels\":{\"app\":\"web\"}},\"maxUnavailable\":2},\"status\":{\"totalReplicas\":5,"
        "\"desiredAvailable\":3,\"currentAvailable\":3,\"unavailableAllowed\":0}},"
        "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"web-0\",\"namespace\":"
        "\"shop\",\"labels\":{\"app\":\"web\"},\"annotations\":{\"pub.kruise.io/related-pub\":"
        "\"pub\"}},\"spec\":{\"containers\":[{\"name\":\"m\",\"image\":\"n\"}]},\"status\":{"
        "\"phase\":\"Running\",\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}],"
        "\"containerStatuses\":[{\"name\":\"m\",\"image\":\"n\",\"imageID\":\"i\",\"ready\":true}]}}]");
    json_t *req = json_pack(
        "{s:s,s:{s:s,s:s,s:s},s:{s:s,s:s,s:s},s:s,s:s,s:s,s:s,s:{s:s,s:s,s:{s:s,s:s}}}", "uid",
        "u", "kind", "group", "policy", "version", "v1", "kind", "Eviction", "resource", "group",
        "", "version", "v1", "resource", "pods", "subResource", "eviction", "operation", "CREATE",
        "namespace", "shop", "name", "web-0", "object", "apiVersion", "policy/v1", "kind",
        "Eviction", "metadata", "name", "web-0", "namespace", "shop");
    struct wh_admrun r;
    char buf[2048];
    const char *gates[] = {"--feature-gates=PodUnavailableBudgetDeleteGate=true", NULL};
    CHECK(wh_admrun_flags(ep, gates, cluster, req, &r));
    CHECK(!r.allowed || !fprintf(stderr, "allowed: %s\n", r.message));
    CHECK_EQ_STR(warnings_of(&r, buf, sizeof(buf)),
                 "2 of 5 Pods are unavailable or being disrupted; the budget allows 2; 1 more "
                 "must become available");
    wh_admrun_fini(&r);
    const char *gates_off[] = {"--feature-gates=PodUnavailableBudgetDeleteGate=true",
                               "--admission-warnings=false", NULL};
    CHECK(wh_admrun_flags(ep, gates_off, cluster, req, &r));
    CHECK(!r.allowed); /* the same answer, without the warning */
    CHECK_EQ_STR(warnings_of(&r, buf, sizeof(buf)), "");
    wh_admrun_fini(&r);
    json_decref(req);
    json_decref(cluster);
}
