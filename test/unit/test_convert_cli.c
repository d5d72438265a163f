#include "test/unit/test.h"

#include <stdlib.h>
#include <unistd.h>

#include "cli/convert.h"
#include "test/support/vector_compare.h"
#include "util/buf.h"
#include "util/json.h"
#include "util/yaml.h"
#include "util/yaml_emit.h"

#define convert(...) wh_test_cli_run(wh_convert_run, "convert", __VA_ARGS__)

/* Runs `convert` on the given input text; returns the exit status, stdout and stderr. */
static int run_convert(const char *input, const char *to, const char *format, char **out_text,
                       char **err_text)
{
    char path[] = "/tmp/wh-convert-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    CHECK(write(fd, input, strlen(input)) == (ssize_t)strlen(input));
    close(fd);
    struct wh_test_cli c = convert("-f", path, "--to", to, format ? "-o" : NULL, format, NULL);
    unlink(path);
    *out_text = c.out;
    *err_text = c.err;
    return c.status;
}

TEST(convert_cli_converts_files_like_the_webhook)
{
    size_t len = 0;
    char *text = wh_test_read_file(
        "test/vectors/conversion/020-cloneset-v1alpha1-to-v1beta1-full.json", &len);
    json_t *vec = wh_test_json(text);
    free(text);
    const json_t *input = json_array_get(wh_json_path(vec, "request", "objects", NULL), 0);
    const json_t *want = json_array_get(wh_json_path(vec, "expect", "convertedObjects", NULL), 0);
    /* YAML in: the CloneSet, then a Deployment that is not ours to convert. */
    char *yaml = NULL;
    struct wh_errbuf eb = {{0}};
    CHECK_EQ_INT(wh_yaml_emit(input, &yaml, NULL, &eb), WH_OK);
    struct wh_buf in;
    wh_buf_init(&in, 1 << 20);
    CHECK_EQ_INT(wh_buf_printf(&in,
                               "%s---\napiVersion: apps/v1\nkind: Deployment\n"
                               "metadata: {name: web}\nspec: {replicas: 2}\n",
                               yaml),
                 WH_OK);
    char *out = NULL, *err = NULL;
    CHECK_EQ_INT(run_convert(in.data, "apps.kruise.io/v1beta1", NULL, &out, &err), 0);
    json_t *docs = NULL;
    CHECK_EQ_INT(wh_yaml_load(out, strlen(out), "output", &docs, &eb), WH_OK); /* YAML out */
    CHECK_EQ_INT(json_array_size(docs), 2);
    struct wh_buf diff;
    wh_buf_init(&diff, 1 << 16);
    CHECK(wh_vec_conversion_equal(want, json_array_get(docs, 0), input, &diff));
    if (diff.len)
        fprintf(stderr, "%s\n", diff.data);
    CHECK_EQ_STR(wh_json_str(json_array_get(docs, 1), "apiVersion"), "apps/v1");
    json_decref(docs);
    free(out);
    free(err);

    /* JSON in, JSON out; converting to the version an object has leaves it alone. */
    char *json_in = wh_json_dumps(want);
    CHECK_EQ_INT(run_convert(json_in, "apps.kruise.io/v1beta1", NULL, &out, &err), 0);
    json_t *back = wh_test_json(out);
    CHECK_EQ_JSON(back, want);
    json_decref(back);
    free(out);
    free(err);
    free(json_in);
    wh_buf_fini(&diff);
    wh_buf_fini(&in);
    free(yaml);
    json_decref(vec);
}

TEST(convert_cli_failures_name_the_document)
{
    char *out = NULL, *err = NULL;
    const char *bad = "{\"apiVersion\":\"apps.kruise.io/v1alpha1\",\"kind\":\"StatefulSet\","
                      "\"metadata\":{\"name\":\"db\"},\"spec\":{\"replicas\":\"three\"}}";
    CHECK_EQ_INT(run_convert(bad, "apps.kruise.io/v1beta1", "json", &out, &err), 1);
    CHECK(strstr(err, "document 1 (StatefulSet db)") != NULL);
    CHECK(strstr(err, "cannot unmarshal string") != NULL);
    CHECK_EQ_STR(out, "");
    free(out);
    free(err);
    CHECK_EQ_INT(run_convert("a: [", "apps.kruise.io/v1beta1", NULL, &out, &err), 2);
    CHECK(strstr(err, ":1:") != NULL);
    free(out);
    free(err);
}

/* Issue 11: what is wrong with --to, -f or the input, word for word, exit status 2 and nothing
 * on stdout; the flag errors read as inject's do (test_inject_cli.c). */
TEST(convert_cli_error_messages)
{
    char path[] = "/tmp/wh-convert-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    const char *deploy = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n";
    CHECK(write(fd, deploy, strlen(deploy)) == (ssize_t)strlen(deploy));
    close(fd);
    char no_group[256];
    snprintf(no_group, sizeof(no_group),
             "kruise-webhook convert: %s has no apps.kruise.io object to convert\n", path);
    static const char *const sts =
        "test/vectors/conversion/020-cloneset-v1alpha1-to-v1beta1-full.json";
    const struct {
        const char *args[7];
        const char *err;
    } cases[] = {
        {{"-f", path, "--to", "apps.kruise.io/v2", NULL},
         "kruise-webhook convert: --to apps.kruise.io/v2: group apps.kruise.io has no version v2 "
         "(its versions: v1alpha1, v1beta1)\n"},
        {{"-f", path, "--to", "v1beta1", NULL},
         "kruise-webhook convert: --to v1beta1: want GROUP/VERSION, such as "
         "apps.kruise.io/v1beta1\n"},
        {{"-f", path, "--to", "apps/v1", NULL},
         "kruise-webhook convert: --to apps/v1: group apps is not converted (converted groups: "
         "apps.kruise.io, policy.kruise.io)\n"},
        {{"-f", path, "--to", "apps.kruise.io/v1beta1", NULL}, no_group},
        {{"-f", "/tmp", "--to", "apps.kruise.io/v1beta1", NULL},
         "kruise-webhook convert: /tmp: is a directory (want a file, or - for stdin)\n"},
        {{"-f", "/nonexistent/objects.yaml", "--to", "apps.kruise.io/v1beta1", NULL},
         "kruise-webhook convert: /nonexistent/objects.yaml: cannot open: No such file or "
         "directory\n"},
        {{"--to", "apps.kruise.io/v1beta1", NULL},
         "kruise-webhook convert: -f FILE is required (see --help)\n"},
        {{"-f", sts, NULL},
         "kruise-webhook convert: --to GROUP/VERSION is required (see --help)\n"},
        {{"-f", sts, "--to", NULL}, "kruise-webhook convert: --to needs a value\n"},
        {{"-f", sts, "--to", "apps.kruise.io/v1beta1", "--bogus", NULL},
         "kruise-webhook convert: unknown option --bogus (see --help)\n"},
        {{"-f", sts, "--to", "apps.kruise.io/v1beta1", "extra", NULL},
         "kruise-webhook convert: unexpected argument \"extra\" (see --help)\n"},
        {{"-f", sts, "--to", "apps.kruise.io/v1beta1", "-o", "xml", NULL},
         "kruise-webhook convert: -o must be yaml or json, not xml\n"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const char *const *a = cases[i].args;
        struct wh_test_cli c =
            convert(a[0], a[1], a[2], a[3], a[4], a[5], a[6], (const char *)NULL);
        CHECK_EQ_INT(c.status, 2);
        CHECK_EQ_STR(c.out, "");
        CHECK_EQ_STR(c.err, cases[i].err);
        wh_test_cli_fini(&c);
    }
    unlink(path);
}
