/* `kruise-webhook inject` on files (test/data/inject), in process; and the README's example
 * request against examples/. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

struct captured {
    int status;
    char *out, *err;
};

static void capture_fini(struct captured *c)
{
    free(c->out);
    free(c->err);
}

/* Runs the command with NULL-terminated arguments after "inject". */
static struct captured inject(const char *first, ...)
{
    char *argv[32];
    int argc = 0;
    argv[argc++] = "inject";
    va_list ap;
    va_start(ap, first);
    for (const char *a = first; a && argc < 31; a = va_arg(ap, const char *))
        argv[argc++] = (char *)(uintptr_t)a;
    va_end(ap);
    argv[argc] = NULL;
    struct captured c = {0};
    size_t on = 0, en = 0;
    FILE *out = open_memstream(&c.out, &on);
    FILE *err = open_memstream(&c.err, &en);
    c.status = wh_inject_run(argc, argv, out, err);
    fclose(out);
    fclose(err);
    return c;
}

static void check_file(const char *got, const char *path)
{
    char *want = wh_test_read_file(path, NULL);
    CHECK_EQ_STR(got, want);
    free(want);
}

TEST(inject_cli_yaml_in_yaml_out)
{
    struct captured c = inject("-f", DATA "pod.yaml", "--state", DATA "state", TS, NULL);
    CHECK_EQ_INT(c.status, 0);
    check_file(c.out, DATA "expected/pod.yaml");
    CHECK_EQ_STR(c.err, "");
    /* the YAML reads back as the JSON the handler produced */
    struct captured j = inject("-f", DATA "pod.yaml", "--state", DATA "state", TS, "-o", "json",
                               NULL);
    CHECK_EQ_INT(j.status, 0);
    json_t *docs = NULL;
    struct wh_errbuf eb;
    CHECK(wh_yaml_load(c.out, strlen(c.out), "out", &docs, &eb) == WH_OK);
    json_t *fromjson = wh_test_json(j.out);
    CHECK_EQ_JSON(json_array_get(docs, 0), fromjson);
    json_decref(fromjson);
    json_decref(docs);
    capture_fini(&j);
    capture_fini(&c);
}

TEST(inject_cli_json_in_json_out)
{
    struct captured c = inject("-f", DATA "pod.json", "--state", DATA "state", TS, NULL);
    CHECK_EQ_INT(c.status, 0);
    check_file(c.out, DATA "expected/pod.json");
    capture_fini(&c);
}

TEST(inject_cli_explain)
{
    struct captured c = inject("-f", DATA "pod.yaml", "--state", DATA "state", TS, "--explain",
                               NULL);
    CHECK_EQ_INT(c.status, 0);
    check_file(c.out, DATA "expected/pod.yaml");
    check_file(c.err, DATA "expected/explain.txt");
    capture_fini(&c);
}

TEST(inject_cli_several_documents)
{
    struct captured c = inject("-f", DATA "multi.yaml", "--state", DATA "state", TS, NULL);
    CHECK_EQ_INT(c.status, 0);
    check_file(c.out, DATA "expected/multi.yaml");
    check_file(c.err, DATA "expected/multi.stderr");
    capture_fini(&c);
}

TEST(inject_cli_refused_and_usage)
{
    struct captured c = inject("-f", DATA "pod.json", "--state", DATA "bad-state.yaml", NULL);
    CHECK_EQ_INT(c.status, 1);
    CHECK_EQ_STR(c.out, "");
    CHECK(strstr(c.err, "refused: 500 \"Matches\" is not a valid pod selector operator") != NULL);
    capture_fini(&c);
    c = inject("-f", DATA "pod.json", NULL);
    CHECK_EQ_INT(c.status, 2);
    capture_fini(&c);
    c = inject("-f", DATA "missing.yaml", "--state", DATA "state", NULL);
    CHECK_EQ_INT(c.status, 2);
    CHECK(strstr(c.err, "cannot open") != NULL);
    capture_fini(&c);
    c = inject("-f", DATA "pod.json", "--state", DATA "state", "-o", "xml", NULL);
    CHECK_EQ_INT(c.status, 2);
    capture_fini(&c);
    c = inject("-f", DATA "pod.json", "--state", DATA "state", "--timestamp", "yesterday", NULL);
    CHECK_EQ_INT(c.status, 2);
    capture_fini(&c);
    c = inject("--help", NULL);
    CHECK_EQ_INT(c.status, 0);
    CHECK(strstr(c.out, "usage: kruise-webhook inject") != NULL);
    capture_fini(&c);
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
