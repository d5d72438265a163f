#include "cli/inject.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "admission/review.h"
#include "cli/args.h"
#include "cli/docs.h"
#include "cli/verdicts.h"
#include "config/config.h"
#include "gocompat/gotime.h"
#include "handlers/pod/pipeline.h"
#include "handlers/registry.h"
#include "kube/cluster.h"
#include "log/log.h"
#include "util/json.h"
#include "util/mem.h"
#include "util/str.h"
#include "util/time.h"
#include "util/yaml.h"
#include "util/yaml_emit.h"

enum { EXIT_DONE = 0, EXIT_REFUSED = 1, EXIT_USAGE = 2 };

static const char usage[] =
    "usage: kruise-webhook inject -f FILE --state PATH [--explain] [-o yaml|json]\n"
    "                             [--namespace NS] [--feature-gates A=true,B=false]\n"
    "                             [--timestamp 2024-01-01T00:00:00Z]\n"
    "\n"
    "Injects SidecarSets into the Pods of FILE, and places them in WorkloadSpread subsets,\n"
    "exactly as the /mutate-pod webhook would, and prints the result (nothing is written).\n"
    "\n"
    "  -f FILE           Pods to inject, YAML or JSON, several documents allowed; - is stdin.\n"
    "                    An AdmissionReview stands for the Pod in its request.object (the Pod\n"
    "                    is printed, with request.namespace when it names none)\n"
    "  --state PATH      the cluster: a file or a directory of .yaml/.yml/.json files with the\n"
    "                    SidecarSets, Namespaces (for namespaceSelector) and ControllerRevisions\n"
    "                    (for injectionStrategy.revision, in the kruise namespace), the\n"
    "                    WorkloadSpreads and the workloads their Pods belong to\n"
    "  --explain         tell on stderr, for every SidecarSet, whether it was injected and why,\n"
    "                    and which WorkloadSpread subset a Pod would get and why\n"
    "  -o yaml|json      output format (default: the input's)\n"
    "  --namespace NS    namespace of Pods that name none (default: default)\n"
    "  --feature-gates   as the server's flag (e.g. EnableSortSidecarContainerByName=true)\n"
    "  --timestamp T     the updateTimestamp written into kruise.io/sidecarset-hash (RFC 3339;\n"
    "                    default now), for output that does not change from run to run\n"
    "\n"
    "The kruise namespace is $POD_NAMESPACE (default kruise-system).\n";

struct args {
    const char *file;
    const char *state;
    const char *output;
    const char *ns;
    const char *gates;
    const char *timestamp;
    time_t now;
    bool explain;
    bool help;
};

static bool parse_args(int argc, char **argv, struct args *a, FILE *err)
{
    memset(a, 0, sizeof(*a));
    const struct wh_cli_flag flags[] = {
        {"--filename", "-f", &a->file, NULL},       {"--state", NULL, &a->state, NULL},
        {"--output", "-o", &a->output, NULL},       {"--namespace", "-n", &a->ns, NULL},
        {"--feature-gates", NULL, &a->gates, NULL}, {"--timestamp", NULL, &a->timestamp, NULL},
        {"--explain", NULL, NULL, &a->explain},
    };
    if (!wh_cli_parse("inject", argc, argv, flags, sizeof(flags) / sizeof(flags[0]), &a->help, err))
        return false;
    if (a->help)
        return true;
    if (!wh_cli_require(err, "inject", "-f FILE", a->file) ||
        !wh_cli_require(err, "inject", "--state PATH", a->state) ||
        !wh_cli_check_output(err, "inject", a->output))
        return false;
    if (a->timestamp) {
        struct wh_gotime t;
        if (wh_gotime_parse(a->timestamp, strlen(a->timestamp), WH_GOTIME_RFC3339, &t, NULL)) {
            wh_cli_error(err, "inject", "--timestamp %s is not an RFC 3339 time", a->timestamp);
            return false;
        }
        a->now = (time_t)t.sec;
    }
    return true;
}

/* --- one Pod --------------------------------------------------------------------------------- */

/* Runs the /mutate-pod handler on pod, in its namespace, else review_ns (the AdmissionReview's
 * request.namespace; may be NULL), else --namespace. Returns in *result (new ref) the Pod to
 * print; false when the webhook would refuse it (message printed). */
static bool inject_pod(const struct wh_handler_ctx *ctx, const struct args *a, const json_t *pod,
                       const char *review_ns, json_t **result, FILE *err)
{
    const char *pod_ns = wh_json_meta_str(pod, "namespace");
    const char *ns = pod_ns && pod_ns[0]         ? pod_ns
                     : review_ns && review_ns[0] ? review_ns
                     : a->ns                     ? a->ns
                                                 : "default";
    const char *name = wh_json_meta_str(pod, "name");
    if (!name)
        name = wh_json_meta_str(pod, "generateName");
    json_t *review = wh_cli_review("inject", "CREATE", "", "v1", "Pod", "pods", "", ns,
                                   name ? name : "", pod, NULL);
    struct wh_admission_request req;
    struct wh_admission_response resp;
    struct wh_errbuf eb = {{0}};
    struct wh_cli_verdicts ex = {0};
    bool ok = true;
    wh_admission_response_init(&resp);
    if (wh_admission_decode(review, &req, &eb)) {
        wh_cli_error(err, "inject", "%s", eb.msg);
        ok = false;
        goto out;
    }
    struct wh_pod_run_opts opts = {
        .now = a->now, .explain = a->explain ? wh_cli_verdicts_on : NULL, .explain_arg = &ex};
    enum wh_err rc = wh_pod_mutate_run(ctx, &req, &resp, &opts, &eb);
    if (a->explain) {
        char id[512];
        snprintf(id, sizeof(id), "%s/%s", ns, name ? name : "(unnamed)");
        wh_cli_verdicts_print(err, ctx->cluster, id, ns, &ex);
    }
    if (rc || !resp.allowed) {
        wh_cli_error(err, "inject", "pod %s/%s refused: %d %s", ns, name ? name : "",
                     rc ? 500 : resp.code,
                     rc             ? eb.msg
                     : resp.message ? resp.message
                                    : "");
        ok = false;
        goto out;
    }
    /* the edited Pod shares values with the frozen cache: print a private copy */
    *result = resp.mutated ? wh_json_copy(resp.mutated) : json_incref((json_t *)(uintptr_t)pod);
out:
    wh_cli_verdicts_fini(&ex);
    wh_admission_response_fini(&resp);
    json_decref(review);
    return ok;
}

static bool is_pod(const json_t *doc)
{
    const char *kind = wh_json_str(doc, "kind");
    const char *av = wh_json_str(doc, "apiVersion");
    return wh_str_eq(kind, "Pod") && (!av || wh_str_eq(av, "v1"));
}

/* An AdmissionReview (what the API server sends, and examples/requests/pod-create.json) stands
 * for the object it carries, so that a captured request can be replayed as is. */
static bool is_review(const json_t *doc)
{
    const char *av = wh_json_str(doc, "apiVersion");
    return wh_str_eq(wh_json_str(doc, "kind"), "AdmissionReview") && av &&
           wh_str_has_prefix(av, "admission.k8s.io/");
}

/* Whether any document is a Pod, or an AdmissionReview of one: a file with none is a mistake
 * (a wrong file, a kustomization not rendered), not a success with nothing to do. */
static bool has_pod(const json_t *docs)
{
    size_t i;
    const json_t *doc;
    json_array_foreach(docs, i, doc)
    {
        const json_t *pod = is_review(doc) ? wh_json_path(doc, "request", "object", NULL) : doc;
        if (pod && is_pod(pod))
            return true;
    }
    return false;
}

int wh_inject_run(int argc, char **argv, FILE *out, FILE *err)
{
    struct args a;
    struct wh_config cfg;
    bool cfg_loaded = false;
    struct wh_cluster *cl = NULL;
    json_t *docs = NULL;
    struct wh_errbuf eb = {{0}};
    int status = EXIT_USAGE;
    if (!parse_args(argc, argv, &a, err))
        return EXIT_USAGE;
    if (a.help) {
        fputs(usage, out);
        return EXIT_DONE;
    }
    char gates[1024];
    snprintf(gates, sizeof(gates), "--feature-gates=%s", a.gates ? a.gates : "");
    char *cargv[] = {"kruise-webhook", gates, NULL};
    if (wh_config_load(&cfg, a.gates ? 2 : 1, cargv, &eb)) {
        wh_cli_error(err, "inject", "%s", eb.msg);
        return EXIT_USAGE;
    }
    cfg_loaded = true;
    bool json_input = false;
    if (wh_cli_read_docs(a.file, &docs, &json_input, &eb)) {
        wh_cli_error(err, "inject", "%s", eb.msg);
        goto out;
    }
    bool yaml = wh_cli_output_yaml(a.output, json_input);
    if (!has_pod(docs)) {
        wh_cli_error(err, "inject", "%s holds no Pod (nor an AdmissionReview of one) to inject",
                     strcmp(a.file, "-") == 0 ? "<stdin>" : a.file);
        goto out;
    }

    /* the server's own route and setup, on a standalone cluster */
    const struct wh_route *route = wh_routes_find(&cfg, "/mutate-pod");
    if (!route) {
        wh_cli_error(err, "inject", "/mutate-pod is off (feature gate PodWebhook)");
        goto out;
    }
    if (wh_cluster_new_standalone(a.state, &cl, &eb) ||
        (route->setup && route->setup(cl, &cfg, &eb)) || wh_cluster_start(cl, &eb)) {
        wh_cli_error(err, "inject", "%s", eb.msg);
        goto out;
    }
    struct wh_handler_ctx ctx = {.cfg = &cfg, .cluster = cl, .offline = true};
    status = EXIT_DONE;
    size_t i, printed = 0;
    json_t *doc;
    json_array_foreach(docs, i, doc)
    {
        json_t *result = NULL;
        const json_t *pod = doc;
        const char *review_ns = NULL;
        if (is_review(doc)) {
            pod = wh_json_path(doc, "request", "object", NULL);
            review_ns = wh_json_path_str(doc, "request", "namespace", NULL);
        }
        if (!pod || !is_pod(pod)) {
            const char *kind = pod ? wh_json_str(pod, "kind") : NULL;
            if (pod == doc)
                wh_cli_error(err, "inject",
                             "document %zu (kind %s) is not a Pod: printed unchanged", i + 1,
                             kind ? kind : "missing");
            else
                wh_cli_error(err, "inject",
                             "document %zu is an AdmissionReview whose request.object is not a Pod "
                             "(kind %s): printed unchanged",
                             i + 1, kind ? kind : "missing");
            result = json_incref(doc);
        } else if (!inject_pod(&ctx, &a, pod, review_ns, &result, err)) {
            status = EXIT_REFUSED;
            continue;
        }
        if (wh_cli_print_doc(out, result, yaml, printed++ == 0, &eb)) {
            wh_cli_error(err, "inject", "%s", eb.msg);
            status = EXIT_USAGE;
        }
        json_decref(result);
    }
    fflush(out);
out:
    json_decref(docs);
    wh_cluster_free(cl);
    if (cfg_loaded)
        wh_config_fini(&cfg);
    return status;
}

int wh_inject_main(int argc, char **argv)
{
    /* the standalone loader logs what it reads; a command keeps stderr for its own words */
    wh_log_setup(WH_LOG_WARN, WH_LOG_TEXT);
    return wh_inject_run(argc, argv, stdout, stderr);
}
