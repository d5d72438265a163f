/* `kruise-webhook inject` on files (test/data/inject), in process; and the README's example
 * request against examples/. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/inject.h"
#include "config/config.h"
#include "handlers/registry.h"
#include "kube/cluster.h"
#include "server/dispatch.h"
#include "test/unit/test.h"
#include "util/json.h"
#include "util/mem.h"
#include "util/yaml.h"

#define DATA "test/data/inject/"
#define TS "--timestamp=2024-01-01T00:00:00Z"

#define inject(...) wh_test_cli_run(wh_inject_run, "inject", __VA_ARGS__)

static void check_file(const char *got, const char *path)
{
    char *want = wh_test_read_file(path, NULL);
    CHECK_EQ_STR(got, want);
    free(want);
}

TEST(inject_cli_yaml_in_yaml_out)
{
    struct wh_test_cli c = inject("-f", DATA "pod.yaml", "--state", DATA "state", TS, NULL);
    CHECK_EQ_INT(c.status, 0);
    check_file(c.out, DATA "expected/pod.yaml");
    CHECK_EQ_STR(c.err, "");
    /* the YAML reads back as the JSON the handler produced */
    struct wh_test_cli j =
        inject("-f", DATA "pod.yaml", "--state", DATA "state", TS, "-o", "json", NULL);
    CHECK_EQ_INT(j.status, 0);
    json_t *docs = NULL;
    struct wh_errbuf eb;
    CHECK(wh_yaml_load(c.out, strlen(c.out), "out", &docs, &eb) == WH_OK);
    json_t *fromjson = wh_test_json(j.out);
    CHECK_EQ_JSON(json_array_get(docs, 0), fromjson);
    json_decref(fromjson);
    json_decref(docs);
    wh_test_cli_fini(&j);
    wh_test_cli_fini(&c);
}

TEST(inject_cli_json_in_json_out)
{
    struct wh_test_cli c = inject("-f", DATA "pod.json", "--state", DATA "state", TS, NULL);
    CHECK_EQ_INT(c.status, 0);
    check_file(c.out, DATA "expected/pod.json");
    wh_test_cli_fini(&c);
}

TEST(inject_cli_explain)
{
    struct wh_test_cli c =
        inject("-f", DATA "pod.yaml", "--state", DATA "state", TS, "--explain", NULL);
    CHECK_EQ_INT(c.status, 0);
    check_file(c.out, DATA "expected/pod.yaml");
    check_file(c.err, DATA "expected/explain.txt");
    wh_test_cli_fini(&c);
}

TEST(inject_cli_several_documents)
{
    struct wh_test_cli c = inject("-f", DATA "multi.yaml", "--state", DATA "state", TS, NULL);
    CHECK_EQ_INT(c.status, 0);
    check_file(c.out, DATA "expected/multi.yaml");
    check_file(c.err, DATA "expected/multi.stderr");
    wh_test_cli_fini(&c);
}

TEST(inject_cli_refused_and_usage)
{
    struct wh_test_cli c = inject("-f", DATA "pod.json", "--state", DATA "bad-state.yaml", NULL);
    CHECK_EQ_INT(c.status, 1);
    CHECK_EQ_STR(c.out, "");
    CHECK(strstr(c.err, "refused: 500 \"Matches\" is not a valid pod selector operator") != NULL);
    wh_test_cli_fini(&c);
    c = inject("--help", NULL);
    CHECK_EQ_INT(c.status, 0);
    CHECK(strstr(c.out, "usage: kruise-webhook inject") != NULL);
    CHECK(strstr(c.out, "--timestamp T") != NULL); /* the README lists it too */
    CHECK(strstr(c.out, "An AdmissionReview stands for the Pod in its request.object") != NULL);
    wh_test_cli_fini(&c);
}

/* Issue 11: every usage and input error, word for word, exit status 2, nothing on stdout; the
 * flag errors read as convert's do (test_convert_cli.c). */
TEST(inject_cli_error_messages)
{
    static const struct {
        const char *args[8];
        const char *err;
    } cases[] = {
        {{"-f", DATA "pod.json", NULL},
         "kruise-webhook inject: --state PATH is required (see --help)\n"},
        {{"--state", DATA "state", NULL},
         "kruise-webhook inject: -f FILE is required (see --help)\n"},
        {{"-f", DATA "pod.json", "--state", DATA "state", "--bogus", NULL},
         "kruise-webhook inject: unknown option --bogus (see --help)\n"},
        {{"-f", DATA "pod.json", "--state", DATA "state", "--bogus=1", NULL},
         "kruise-webhook inject: unknown option --bogus (see --help)\n"},
        {{"-f", DATA "pod.json", "--state", NULL},
         "kruise-webhook inject: --state needs a value\n"},
        {{"-f", DATA "pod.json", "--state", DATA "state", "pod.yaml", NULL},
         "kruise-webhook inject: unexpected argument \"pod.yaml\" (see --help)\n"},
        {{"-f", DATA "pod.json", "--state", DATA "state", "--explain=yes", NULL},
         "kruise-webhook inject: --explain takes no value\n"},
        {{"-f", DATA "pod.json", "--state", DATA "state", "-o", "xml", NULL},
         "kruise-webhook inject: -o must be yaml or json, not xml\n"},
        {{"-f", DATA "pod.json", "--state", DATA "state", "--timestamp", "yesterday", NULL},
         "kruise-webhook inject: --timestamp yesterday is not an RFC 3339 time\n"},
        {{"-f", DATA "missing.yaml", "--state", DATA "state", NULL},
         "kruise-webhook inject: " DATA "missing.yaml: cannot open: No such file or directory\n"},
        {{"-f", DATA "state", "--state", DATA "state", NULL},
         "kruise-webhook inject: " DATA "state: is a directory (want a file, or - for stdin)\n"},
        {{"-f", DATA "pod.json", "--state", DATA "missing", NULL},
         "kruise-webhook inject: --state " DATA "missing: No such file or directory\n"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const char *const *a = cases[i].args;
        struct wh_test_cli c =
            inject(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], (const char *)NULL);
        CHECK_EQ_INT(c.status, 2);
        CHECK_EQ_STR(c.out, "");
        CHECK_EQ_STR(c.err, cases[i].err);
        wh_test_cli_fini(&c);
    }
}

/* Issue 29: a file without a Pod (a Namespace, a kustomization not rendered) is an input
 * error, not "done": exit 2, nothing printed but the reason. */
TEST(inject_cli_file_without_a_pod_is_an_error)
{
    struct wh_test_cli c =
        inject("-f", DATA "state/namespaces.json", "--state", DATA "state", NULL);
    CHECK_EQ_INT(c.status, 2);
    CHECK_EQ_STR(c.out, "");
    CHECK_EQ_STR(c.err, "kruise-webhook inject: " DATA "state/namespaces.json holds no Pod (nor an "
                        "AdmissionReview of one) to inject\n");
    wh_test_cli_fini(&c);
}

/* Issue 29: --explain names a wrongly typed field as wrongly typed (with Go's message), where
 * the handler, reading what it can, saw no selector; the well-typed SidecarSet beside it is
 * injected as before. */
TEST(inject_cli_explain_names_a_wrongly_typed_field)
{
    struct wh_test_cli c = inject("-f", DATA "pod.yaml", "--state", DATA "mistyped-state.yaml",
                                  TS, "--explain", NULL);
    CHECK_EQ_INT(c.status, 0);
    CHECK(strstr(c.err, "  mistyped                         not injected  field spec.selector "
                        "is wrongly typed: json: cannot unmarshal string into Go struct field "
                        "SidecarSetSpec.spec.selector of type v1.LabelSelector\n") != NULL);
    CHECK(strstr(c.err, "missing") == NULL);
    CHECK(strstr(c.err, "  typed                            injected      namespace and selector "
                        "match\n") != NULL);
    CHECK(strstr(c.out, "name: agent2") != NULL && strstr(c.out, "name: agent\n") == NULL);
    wh_test_cli_fini(&c);
}

/* Issue 11: the README's `inject -f examples/requests/pod.yaml --state examples/`; the file is
 * the Pod of the curl example's AdmissionReview, and that review, given to inject, stands for
 * its request.object: the same Pod comes out, with what the README says was injected. */
TEST(inject_cli_readme_pod_and_admission_review)
{
    char *text = wh_test_read_file("examples/requests/pod-create.json", NULL);
    json_t *review = wh_test_json(text);
    free(text);
    struct wh_errbuf eb = {{0}};
    json_t *docs = NULL;
    text = wh_test_read_file("examples/requests/pod.yaml", NULL);
    CHECK_EQ_INT(wh_yaml_load(text, strlen(text), "pod.yaml", &docs, &eb), WH_OK);
    free(text);
    CHECK_EQ_JSON(json_array_get(docs, 0), wh_json_path(review, "request", "object", NULL));
    json_decref(docs);

    struct wh_test_cli pod =
        inject("-f", "examples/requests/pod.yaml", "--state", "examples/", TS, "--explain", NULL);
    CHECK_EQ_INT(pod.status, 0);
    CHECK_EQ_STR(pod.err, "pod shop/web-7d9f8c6b5- (namespace shop):\n"
                          "  log-agent                        injected      namespace and "
                          "selector match\n"
                          "  mesh-proxy                       injected      namespace and "
                          "selector match\n");
    struct wh_test_cli rev = inject("-f", "examples/requests/pod-create.json", "--state",
                                    "examples/", TS, "-o", "yaml", NULL);
    CHECK_EQ_INT(rev.status, 0);
    CHECK_EQ_STR(rev.err, "");
    CHECK_EQ_STR(rev.out, pod.out);
    docs = NULL;
    CHECK_EQ_INT(wh_yaml_load(pod.out, strlen(pod.out), "out", &docs, &eb), WH_OK);
    const json_t *out = json_array_get(docs, 0);
    CHECK_EQ_STR(wh_json_str(out, "kind"), "Pod");
    json_t *names = json_array();
    size_t i;
    json_t *c;
    json_array_foreach(wh_json_path(out, "spec", "containers", NULL), i, c)
    {
        json_array_append_new(names, json_string(wh_json_str(c, "name")));
    }
    json_array_foreach(wh_json_path(out, "spec", "initContainers", NULL), i, c)
    {
        json_array_append_new(names, json_string(wh_json_str(c, "name")));
    }
    json_t *want =
        wh_test_json("[\"envoy-1\", \"envoy-2\", \"app\", \"log-agent\", \"mesh-init\"]");
    CHECK_EQ_JSON(names, want);
    CHECK_EQ_STR(wh_json_path_str(out, "metadata", "annotations",
                                  "kruise.io/sidecarset-injected-list", NULL),
                 "log-agent,mesh-proxy");
    json_decref(want);
    json_decref(names);
    json_decref(docs);
    wh_test_cli_fini(&rev);
    wh_test_cli_fini(&pod);
    json_decref(review);
}

/* A review's Pod without a namespace takes request.namespace; a review that carries no Pod is
 * printed unchanged, and said so. */
TEST(inject_cli_admission_review_namespace_and_non_pods)
{
    char path[] = "/tmp/wh-inject-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs("{\"apiVersion\": \"admission.k8s.io/v1\", \"kind\": \"AdmissionReview\", \"request\": "
          "{\"uid\": \"u\", \"namespace\": \"shop\", \"object\": {\"apiVersion\": \"v1\", "
          "\"kind\": \"Pod\", \"metadata\": {\"name\": \"p\", \"labels\": {\"app\": \"web\"}}, "
          "\"spec\": {\"containers\": [{\"name\": \"app\", \"image\": \"nginx\"}]}}}}\n"
          "---\n{\"apiVersion\": \"admission.k8s.io/v1\", \"kind\": \"AdmissionReview\", "
          "\"request\": "
          "{\"uid\": \"v\", \"object\": {\"apiVersion\": \"v1\", \"kind\": \"Namespace\", "
          "\"metadata\": {\"name\": \"shop\"}}}}\n",
          f);
    fclose(f);
    struct wh_test_cli c =
        inject("-f", path, "--state", "examples/", TS, "--explain", "-o", "yaml", NULL);
    CHECK_EQ_INT(c.status, 0);
    const char *head = "pod shop/p (namespace shop):\n";
    CHECK(strncmp(c.err, head, strlen(head)) == 0);
    CHECK(strstr(c.err,
                 "kruise-webhook inject: document 2 is an AdmissionReview whose "
                 "request.object is not a Pod (kind Namespace): printed unchanged\n") != NULL);
    json_t *docs = NULL;
    struct wh_errbuf eb = {{0}};
    CHECK_EQ_INT(wh_yaml_load(c.out, strlen(c.out), "out", &docs, &eb), WH_OK);
    CHECK_EQ_INT(json_array_size(docs), 2);
    CHECK_EQ_STR(wh_json_str(json_array_get(docs, 0), "kind"), "Pod");
    CHECK_EQ_STR(wh_json_str(json_array_get(docs, 1), "kind"), "AdmissionReview");
    json_decref(docs);
    wh_test_cli_fini(&c);
    unlink(path);
}

/* The request the README shows with curl, through the real route against --state examples/. */
TEST(inject_examples_request)
{
    struct wh_config cfg;
    struct wh_errbuf eb = {{0}};
    char *argv[] = {"kruise-webhook", NULL};
    CHECK(wh_config_load(&cfg, 1, argv, &eb) == WH_OK);
    struct wh_cluster *cl = NULL;
    CHECK(wh_cluster_new_standalone("examples", &cl, &eb) == WH_OK);
    CHECK(wh_routes_setup(&cfg, cl, &eb) == WH_OK);
    CHECK(wh_cluster_start(cl, &eb) == WH_OK);
    const struct wh_route *route = wh_routes_find(&cfg, "/mutate-pod");
    CHECK(route != NULL);
    size_t len = 0;
    char *body = wh_test_read_file("examples/requests/pod-create.json", &len);
    struct wh_reply reply;
    struct wh_handler_ctx ctx = {.cfg = &cfg, .cluster = cl};
    if (route) {
        wh_dispatch(route, &ctx, body, len, &reply);
        CHECK_EQ_INT(reply.http_status, 200);
        CHECK(reply.allowed);
        CHECK(reply.patched);
        json_t *answer = wh_test_json(reply.body);
        CHECK_EQ_STR(wh_json_path_str(answer, "response", "patchType", NULL), "JSONPatch");
        wh_reply_fini(&reply);
        json_decref(answer);
    }
    free(body);
    wh_cluster_free(cl);
    wh_config_fini(&cfg);
}
