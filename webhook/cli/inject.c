#include "cli/inject.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "admission/review.h"
#include "cli/args.h"
#include "cli/check.h"
#include "cli/docs.h"
#include "config/config.h"
#include "gocompat/gotime.h"
#include "handlers/pod/pipeline.h"
#include "handlers/registry.h"
#include "handlers/sidecarset/match.h"
#include "kube/cache.h"
#include "kube/cluster.h"
#include "log/log.h"
#include "util/buf.h"
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

/* --- --explain ------------------------------------------------------------------------------ */

struct verdict {
    char *name;
    bool injected;
    char *reason;
};

struct explain {
    struct verdict *v;
    size_t n, cap;
    char **notes;
    size_t nnotes;
};

static void on_explain(void *arg, const char *step, const char *name, bool injected,
                       const char *reason)
{
    struct explain *e = arg;
    if (!name || strcmp(step, "sidecarset") != 0) {
        e->notes = wh_xrealloc(e->notes, (e->nnotes + 1) * sizeof(*e->notes));
        e->notes[e->nnotes++] =
            strcmp(step, "sidecarset") == 0
                ? wh_xstrdup(reason)
                : wh_str_printf("%s%s%s: %s", step, name ? " " : "", name ? name : "", reason);
        return;
    }
    for (size_t i = 0; i < e->n; i++) {
        if (strcmp(e->v[i].name, name) == 0) { /* a later verdict (a canary) replaces it */
            free(e->v[i].reason);
            e->v[i].reason = wh_xstrdup(reason);
            e->v[i].injected = injected;
            return;
        }
    }
    if (e->n == e->cap) {
        e->cap = e->cap ? e->cap * 2 : 16;
        e->v = wh_xrealloc(e->v, e->cap * sizeof(*e->v));
    }
    e->v[e->n++] = (struct verdict){wh_xstrdup(name), injected, wh_xstrdup(reason)};
}

static void explain_fini(struct explain *e)
{
    for (size_t i = 0; i < e->n; i++) {
        free(e->v[i].name);
        free(e->v[i].reason);
    }
    for (size_t i = 0; i < e->nnotes; i++)
        free(e->notes[i]);
    free(e->v);
    free(e->notes);
    memset(e, 0, sizeof(*e));
}

/* Prints one line per SidecarSet of the state: the handler's verdict for the candidates, and
 * for the others the namespaces they are filed under. */
static void print_explain(FILE *err, struct wh_cluster *cl, const char *pod_id, const char *ns,
                          const struct explain *e)
{
    fprintf(err, "pod %s (namespace %s):\n", pod_id, ns);
    for (size_t i = 0; i < e->nnotes; i++)
        fprintf(err, "  note: %s\n", e->notes[i]);
    struct wh_cache *c = wh_cluster_cache(cl, WH_RES_SIDECARSET);
    struct wh_objlist l;
    wh_objlist_init(&l);
    if (c)
        wh_cache_list(c, NULL, &l);
    if (l.n == 0)
        fprintf(err, "  (the state has no SidecarSet)\n");
    for (size_t i = 0; i < l.n; i++) {
        const char *name = wh_object_name(l.items[i]);
        const struct verdict *v = NULL;
        for (size_t k = 0; k < e->n && !v; k++) {
            if (strcmp(e->v[k].name, name) == 0)
                v = &e->v[k];
        }
        /* A SidecarSet the API server could not hold (a string for a selector) is read by
         * the handler as best it can; its verdict would name the symptom ("missing"), the
         * type error names the cause. */
        char *type_msg = NULL, *field = NULL;
        bool mistyped = wh_check_object_type(wh_object_json(l.items[i]), &type_msg, &field, NULL);
        char *typed = mistyped ? wh_str_printf("field %s is wrongly typed: %s", field, type_msg)
                               : NULL;
        free(type_msg);
        free(field);
        if (v) {
            fprintf(err, "  %-32s %-13s %s\n", name, v->injected ? "injected" : "not injected",
                    typed ? typed : v->reason);
            free(typed);
            continue;
        }
        if (typed) {
            fprintf(err, "  %-32s %-13s %s\n", name, "not injected", typed);
            free(typed);
            continue;
        }
        const struct wh_sidecarset_view *view = wh_sidecarset_view_of(l.items[i]);
        struct wh_buf b;
        wh_buf_init(&b, 4096);
        for (size_t k = 0; view && k < view->n_ns_keys; k++) {
            if (wh_buf_printf(&b, "%s%s", k ? ", " : "", view->ns_keys[k]))
                break;
        }
        fprintf(err,
                "  %-32s %-13s not a candidate: spec.namespaceSelector names namespaces %s "
                "(kubernetes.io/metadata.name), not %s\n",
                name, "not injected", b.data ? b.data : "", ns);
        wh_buf_fini(&b);
    }
    wh_objlist_fini(&l);
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
    json_t *review = json_pack(
        "{s:s,s:s,s:{s:s,s:{s:s,s:s,s:s},s:{s:s,s:s,s:s},s:s,s:s,s:s,s:s,s:O,s:n,s:b,s:{s:s,s:s},"
        "s:{s:s}}}",
        "apiVersion", "admission.k8s.io/v1", "kind", "AdmissionReview", "request", "uid",
        "kruise-webhook-inject", "kind", "group", "", "version", "v1", "kind", "Pod", "resource",
        "group", "", "version", "v1", "resource", "pods", "subResource", "", "operation", "CREATE",
        "namespace", ns, "name", name ? name : "", "object", pod, "oldObject", "dryRun", 0,
        "options", "apiVersion", "meta.k8s.io/v1", "kind", "CreateOptions", "userInfo", "username",
        "kruise-webhook-inject");
    struct wh_admission_request req;
    struct wh_admission_response resp;
    struct wh_errbuf eb = {{0}};
    struct explain ex = {0};
    bool ok = true;
    wh_admission_response_init(&resp);
    if (wh_admission_decode(review, &req, &eb)) {
        wh_cli_error(err, "inject", "%s", eb.msg);
        ok = false;
        goto out;
    }
    struct wh_pod_run_opts opts = {
        .now = a->now, .explain = a->explain ? on_explain : NULL, .explain_arg = &ex};
    enum wh_err rc = wh_pod_mutate_run(ctx, &req, &resp, &opts, &eb);
    if (a->explain) {
        char id[512];
        snprintf(id, sizeof(id), "%s/%s", ns, name ? name : "(unnamed)");
        print_explain(err, ctx->cluster, id, ns, &ex);
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
    explain_fini(&ex);
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
