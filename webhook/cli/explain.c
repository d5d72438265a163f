#include "cli/explain.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "admission/review.h"
#include "cli/args.h"
#include "cli/verdicts.h"
#include "config/config.h"
#include "config/features.h"
#include "handlers/pod/pipeline.h"
#include "handlers/registry.h"
#include "k8s/kruise.h"
#include "kube/cache.h"
#include "kube/client.h"
#include "kube/cluster.h"
#include "kube/resource.h"
#include "log/log.h"
#include "util/json.h"
#include "util/jsonparse.h"
#include "util/mem.h"
#include "util/str.h"
#include "util/time.h"

enum { EXIT_ALLOWED = 0, EXIT_REFUSED = 1, EXIT_USAGE = 2 };

/* The caches the handlers read must have synced before a question is asked: a cache that is
 * not there yet would answer "no SidecarSet", which is the wrong answer, not a slow one. */
#define SYNC_TIMEOUT_MS 60000

static const char usage[] =
    "usage: kruise-webhook explain pod [NS/]NAME\n"
    "       kruise-webhook explain eviction [NS/]NAME\n"
    "       kruise-webhook explain delete pod [NS/]NAME\n"
    "       kruise-webhook explain delete KIND [NS/]NAME\n"
    "       (each with [-n NS] [--kubeconfig FILE | --state PATH] [server options])\n"
    "\n"
    "Asks the server's own handlers about an object of the cluster, reading it as the server\n"
    "does (its caches and live reads) and writing nothing: the requests run as dry runs and the\n"
    "API client sends only GET requests.\n"
    "\n"
    "  pod       for each SidecarSet, injected or not and why (namespace, selector, paused,\n"
    "            revision, canary); the WorkloadSpread subset the Pod would get and why; the\n"
    "            PersistentPodState topology recorded for it; the PodUnavailableBudget that\n"
    "            covers it. Compared with what the Pod has: a SidecarSet updated since, a\n"
    "            selector that no longer matches\n"
    "  eviction  would evicting the Pod be allowed now, by which PodUnavailableBudget, with\n"
    "            which budget, and what would change the answer (exit 1 when refused)\n"
    "  delete    the same for deleting a Pod; for another KIND (namespace, crd, deployment,\n"
    "            replicaset, statefulset, cloneset, uniteddeployment, service, ingress, ...):\n"
    "            whether deletion protection (policy.kruise.io/delete-protection) refuses it\n"
    "\n"
    "  -n NS               namespace of a NAME without NS/ (default: default); --namespace\n"
    "                      is the server's: the kruise namespace ($POD_NAMESPACE)\n"
    "  --kubeconfig FILE   the cluster (default $KUBECONFIG, else in-cluster); --state PATH\n"
    "                      a standalone one, as the server's\n"
    "  server options      as the server takes them (--feature-gates, --kube-timeout, ...)\n"
    "\n"
    "Exit status: 0 allowed (pod: answered), 1 refused, 2 usage or read errors.\n";

struct args {
    const char *subject; /* pod, eviction, delete */
    const char *kind;    /* delete: the kind */
    const char *target;  /* [NS/]NAME */
    const char *ns;
    bool help;
    char **server; /* argv for wh_config_load: "kruise-webhook", the server's options */
    int nserver;
};

static bool parse_args(int argc, char **argv, struct args *a, FILE *err)
{
    memset(a, 0, sizeof(*a));
    a->server = wh_xcalloc((size_t)argc + 1, sizeof(*a->server));
    a->server[a->nserver++] = "kruise-webhook";
    const char *pos[3];
    int npos = 0;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        bool takes_next = false;
        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            a->help = true;
        } else if (strcmp(arg, "-n") == 0) {
            /* kubectl's -n; --namespace stays the server's option (the kruise namespace) */
            if (i + 1 >= argc) {
                wh_cli_error(err, "explain", "%s needs a value", arg);
                return false;
            }
            a->ns = argv[++i];
        } else if (wh_config_is_flag(arg, &takes_next)) {
            a->server[a->nserver++] = argv[i];
            if (takes_next) {
                if (i + 1 >= argc) {
                    wh_cli_error(err, "explain", "%s needs a value", arg);
                    return false;
                }
                a->server[a->nserver++] = argv[++i];
            }
        } else if (arg[0] == '-' && arg[1]) {
            wh_cli_error(err, "explain", "unknown option %s (see --help)", arg);
            return false;
        } else if (npos < 3) {
            pos[npos++] = arg;
        } else {
            wh_cli_error(err, "explain", "unexpected argument \"%s\" (see --help)", arg);
            return false;
        }
    }
    if (a->help)
        return true;
    if (npos == 0) {
        wh_cli_error(err, "explain", "what to explain is required: pod, eviction or delete "
                                     "(see --help)");
        return false;
    }
    a->subject = pos[0];
    bool del = strcmp(a->subject, "delete") == 0;
    if (!del && strcmp(a->subject, "pod") != 0 && strcmp(a->subject, "eviction") != 0) {
        wh_cli_error(err, "explain", "cannot explain \"%s\": pod, eviction or delete (see --help)",
                     a->subject);
        return false;
    }
    if (npos != (del ? 3 : 2)) {
        wh_cli_error(err, "explain", "explain %s takes %s (see --help)", a->subject,
                     del ? "KIND and [NS/]NAME" : "one [NS/]NAME");
        return false;
    }
    a->kind = del ? pos[1] : NULL;
    a->target = pos[del ? 2 : 1];
    return true;
}

/* --- the cluster ------------------------------------------------------------------------------ */

/* The server's cluster, every route's caches declared and synced; the API client read-only. */
static enum wh_err open_cluster(const struct wh_config *cfg, struct wh_cluster **out,
                                struct wh_errbuf *eb)
{
    *out = NULL;
    enum wh_err rc;
    if (wh_kube_standalone(cfg->state, cfg->kubeconfig)) {
        if (!cfg->state[0])
            return wh_errbuf_set(eb, WH_ERR_INVALID,
                                 "no cluster to ask: give --kubeconfig (or set $KUBECONFIG), or "
                                 "--state for a standalone one");
        rc = wh_cluster_new_standalone(cfg->state, out, eb);
    } else {
        struct wh_kube_opts ko = wh_kube_opts_of_config(cfg);
        ko.read_only = true;
        struct wh_kube_client *client = NULL;
        rc = wh_kube_client_new(&ko, &client, eb);
        if (!rc)
            rc = wh_cluster_new_api(client, out, eb);
    }
    if (!rc)
        rc = wh_routes_setup(cfg, *out, eb);
    if (!rc)
        rc = wh_cluster_start(*out, eb);
    char why[256] = "";
    for (int64_t waited = 0; !rc && !wh_cluster_synced(*out, why, sizeof(why)); waited += 50) {
        if (waited >= SYNC_TIMEOUT_MS)
            rc = wh_errbuf_set(eb, WH_ERR_TIMEOUT, "the caches did not sync within %d s: %s",
                               SYNC_TIMEOUT_MS / 1000, why);
        else
            wh_time_sleep_ms(50);
    }
    return rc;
}

/* --- one request through a handler ------------------------------------------------------------ */

struct asked {
    struct wh_admission_response resp;
    struct wh_cli_verdicts verdicts;
    enum wh_err rc;
    struct wh_errbuf eb;
};

enum pod_question { ASK_MUTATE, ASK_VALIDATE };

/* Runs review (borrowed) through /mutate-pod or /validate-pod, or route when given, collecting
 * the steps' explanations. */
static void ask(const struct wh_handler_ctx *ctx, const json_t *review, enum pod_question q,
                const struct wh_route *route, struct asked *a)
{
    memset(a, 0, sizeof(*a));
    wh_admission_response_init(&a->resp);
    struct wh_admission_request req;
    a->rc = wh_admission_decode(review, &req, &a->eb);
    if (a->rc)
        return;
    struct wh_pod_run_opts opts = {.explain = wh_cli_verdicts_on, .explain_arg = &a->verdicts};
    if (route)
        a->rc = route->admit(ctx, &req, &a->resp, &a->eb);
    else if (q == ASK_MUTATE)
        a->rc = wh_pod_mutate_run(ctx, &req, &a->resp, &opts, &a->eb);
    else
        a->rc = wh_pod_validate_run(ctx, &req, &a->resp, &opts, &a->eb);
}

static void asked_fini(struct asked *a)
{
    wh_admission_response_fini(&a->resp);
    wh_cli_verdicts_fini(&a->verdicts);
}

/* "allowed", or "refused (429): message"; then the notes and the warnings, indented. */
static bool print_answer(FILE *out, const char *what, const struct asked *a, bool notes)
{
    if (a->rc)
        fprintf(out, "%s: the handler failed (it would answer 500): %s\n", what, a->eb.msg);
    else if (a->resp.allowed)
        fprintf(out, "%s: allowed\n", what);
    else
        fprintf(out, "%s: refused (%d): %s\n", what, a->resp.code ? a->resp.code : 403,
                a->resp.message ? a->resp.message : "");
    for (size_t i = 0; notes && i < a->verdicts.nnotes; i++)
        fprintf(out, "  %s\n", a->verdicts.notes[i]);
    size_t i;
    const json_t *w;
    json_array_foreach(a->resp.warnings, i, w)
        fprintf(out, "  warning: %s\n", json_string_value(w));
    return !a->rc && a->resp.allowed;
}

/* --- explain pod -------------------------------------------------------------------------------- */

/* The Pod's kruise.io/sidecarset-hash: what each SidecarSet injected it with. Returns: new ref
 * (an object; empty when the annotation is absent or not JSON). */
static json_t *injected_hashes(const json_t *pod)
{
    const char *v = wh_json_annotation(pod, WH_KRUISE_ANN_SIDECARSET_HASH);
    json_t *j = v ? wh_json_parse(v, strlen(v), NULL) : NULL;
    if (!json_is_object(j)) {
        json_decref(j);
        j = json_object();
    }
    return j;
}

/* What changed since the Pod was created: for each SidecarSet the Pod has or would get now. */
static void print_comparison(FILE *out, struct wh_cluster *cl, const json_t *pod,
                             const struct wh_cli_verdicts *v)
{
    fprintf(out, "compared with the Pod as it is:\n");
    json_t *had = injected_hashes(pod);
    struct wh_cache *c = wh_cluster_cache(cl, WH_RES_SIDECARSET);
    struct wh_objlist l;
    wh_objlist_init(&l);
    if (c)
        wh_cache_list(c, NULL, &l);
    size_t said = 0;
    for (size_t i = 0; i < l.n; i++) {
        const char *name = wh_object_name(l.items[i]);
        const struct wh_cli_verdict *now = wh_cli_verdicts_find(v, name);
        bool inject_now = now && now->injected;
        const char *had_hash = wh_json_str(json_object_get(had, name), "hash");
        const char *cur_hash =
            wh_json_annotation(wh_object_json(l.items[i]), WH_KRUISE_ANN_SIDECARSET_HASH);
        if (had_hash && inject_now && wh_str_eq(had_hash, cur_hash))
            fprintf(out, "  %s: the Pod has it, at the SidecarSet's current hash %s\n", name,
                    had_hash);
        else if (had_hash && inject_now)
            fprintf(out,
                    "  %s: the Pod has it at hash %s; the SidecarSet was updated since (now %s): "
                    "a new Pod gets the new version\n",
                    name, had_hash, cur_hash ? cur_hash : "none");
        else if (had_hash)
            fprintf(out, "  %s: the Pod has it, but a new Pod would not get it: %s\n", name,
                    now ? now->reason : "it no longer selects the Pod");
        else if (inject_now)
            fprintf(out,
                    "  %s: the Pod does not have it, a new Pod would get it (the SidecarSet or "
                    "its selector changed after the Pod was created)\n",
                    name);
        else
            continue;
        said++;
    }
    /* SidecarSets the Pod names that the cluster no longer has */
    const char *name;
    const json_t *e;
    json_object_foreach(had, name, e)
    {
        struct wh_object *o = c ? wh_cache_get(c, NULL, name) : NULL;
        if (!o) {
            fprintf(out, "  %s: the Pod has it, but the SidecarSet no longer exists\n", name);
            said++;
        }
        wh_object_unref(o);
    }
    if (!said)
        fprintf(out, "  no SidecarSet injected it, and none would now\n");
    const char *ws = wh_json_annotation(pod, WH_KRUISE_ANN_MATCHED_WORKLOADSPREAD);
    if (ws)
        fprintf(out, "  the Pod's %s: %s\n", WH_KRUISE_ANN_MATCHED_WORKLOADSPREAD, ws);
    wh_objlist_fini(&l);
    json_decref(had);
}

/* The review of an eviction of ns/name. Returns: new ref. */
static json_t *eviction_review(const char *ns, const char *name)
{
    json_t *ev = json_pack("{s:s,s:s,s:{s:s,s:s}}", "apiVersion", "policy/v1", "kind", "Eviction",
                           "metadata", "name", name, "namespace", ns);
    json_t *review =
        wh_cli_review("explain", "CREATE", "", "v1", "Eviction", "pods", "eviction", ns, name, ev,
                      NULL);
    /* the API server names the kind of the body: policy/v1 Eviction */
    json_object_set_new(wh_json_path(review, "request", "kind", NULL), "group",
                        json_string("policy"));
    json_decref(ev);
    return review;
}

static int explain_pod(const struct wh_handler_ctx *ctx, const char *ns, const char *name,
                       const json_t *pod, FILE *out)
{
    json_t *review =
        wh_cli_review("explain", "CREATE", "", "v1", "Pod", "pods", "", ns, name, pod, NULL);
    struct asked a;
    ask(ctx, review, ASK_MUTATE, NULL, &a);
    json_decref(review);
    char id[512];
    snprintf(id, sizeof(id), "%s/%s", ns, name);
    fprintf(out, "what /mutate-pod would do with this Pod now:\n");
    wh_cli_verdicts_print(out, ctx->cluster, id, ns, &a.verdicts);
    if (a.rc || !a.resp.allowed)
        print_answer(out, "  /mutate-pod", &a, false);
    print_comparison(out, ctx->cluster, pod, &a.verdicts);
    asked_fini(&a);

    review = eviction_review(ns, name);
    ask(ctx, review, ASK_VALIDATE, NULL, &a);
    json_decref(review);
    print_answer(out, "an eviction now", &a, true);
    asked_fini(&a);
    return EXIT_ALLOWED;
}

static int explain_disruption(const struct wh_handler_ctx *ctx, bool evict, const char *ns,
                              const char *name, const json_t *pod, FILE *out)
{
    json_t *review = evict ? eviction_review(ns, name)
                           : wh_cli_review("explain", "DELETE", "", "v1", "Pod", "pods", "", ns,
                                           name, NULL, pod);
    struct asked a;
    ask(ctx, review, ASK_VALIDATE, NULL, &a);
    json_decref(review);
    char what[600];
    snprintf(what, sizeof(what), "%s of pod %s/%s", evict ? "eviction" : "deletion", ns, name);
    bool ok = print_answer(out, what, &a, true);
    asked_fini(&a);
    return ok ? EXIT_ALLOWED : EXIT_REFUSED;
}

/* --- explain delete KIND ------------------------------------------------------------------------ */

/* Whether word (lower case) names resource of group: its plural, its singular, either with
 * ".group", or a short name kubectl knows. */
static bool names_resource(const char *word, const char *group, const char *resource)
{
    static const char *const shorts[][2] = {
        {"crd", "customresourcedefinitions"}, {"ns", "namespaces"}, {"deploy", "deployments"},
        {"rs", "replicasets"}, {"sts", "statefulsets"}, {"svc", "services"}, {"ing", "ingresses"},
        {"ud", "uniteddeployments"}};
    char base[128];
    const char *dot = strchr(word, '.');
    size_t n = dot ? (size_t)(dot - word) : strlen(word);
    if (n >= sizeof(base) || (dot && !wh_str_eq(dot + 1, group)))
        return false;
    memcpy(base, word, n);
    base[n] = '\0';
    for (size_t i = 0; i < sizeof(shorts) / sizeof(shorts[0]); i++) {
        if (strcmp(base, shorts[i][0]) == 0)
            return strcmp(resource, shorts[i][1]) == 0;
    }
    size_t r = strlen(resource);
    return strcmp(base, resource) == 0 ||
           (r == n + 1 && strncmp(resource, base, n) == 0 && resource[n] == 's') ||
           (r == n + 2 && strncmp(resource, base, n) == 0 && strcmp(resource + n, "es") == 0);
}

/* The enabled validating route that judges the deletion of kind, and its entry. */
static const struct wh_route *delete_route(const struct wh_config *cfg, const char *kind,
                                           const struct wh_webhook_entry **entry)
{
    char word[128];
    size_t n = strlen(kind);
    if (n >= sizeof(word))
        return NULL;
    for (size_t i = 0; i <= n; i++)
        word[i] = (char)tolower((unsigned char)kind[i]);
    size_t count = 0;
    const struct wh_route *const *all = wh_routes_all(&count);
    for (size_t i = 0; i < count; i++) {
        const struct wh_route *r = all[i];
        if (r->kind != WH_ROUTE_VALIDATE || r->alias_of || wh_routes_find(cfg, r->path) != r)
            continue;
        for (int e = 0; e < WH_ROUTE_MAX_ENTRIES && r->entries[e].name; e++) {
            const struct wh_webhook_entry *en = &r->entries[e];
            if ((en->operations & WH_WEBHOOK_DELETE) &&
                names_resource(word, en->group, en->resource)) {
                *entry = en;
                return r;
            }
        }
    }
    return NULL;
}

/* Whether the catalogue knows group/resource as cluster-scoped (Namespaces, CRDs). */
static bool cluster_scoped(const char *group, const char *resource)
{
    for (int id = 0; id < WH_RES_COUNT; id++) {
        const struct wh_resource *r = wh_resource_get((enum wh_resource_id)id);
        if (wh_str_eq(r->group, group) && wh_str_eq(r->resource, resource))
            return !r->namespaced;
    }
    return false;
}

static int explain_delete(const struct wh_handler_ctx *ctx, const char *kind, const char *ns,
                          const char *name, FILE *out, FILE *err)
{
    const struct wh_webhook_entry *en = NULL;
    const struct wh_route *route = delete_route(ctx->cfg, kind, &en);
    if (!route) {
        wh_cli_error(err, "explain",
                     "no webhook of this server judges the deletion of %s (its feature gate off, "
                     "or a kind it does not protect)",
                     kind);
        return EXIT_USAGE;
    }
    const char *obj_ns = cluster_scoped(en->group, en->resource) ? "" : ns;
    json_t *obj = NULL;
    struct wh_errbuf eb = {{0}};
    if (wh_cluster_get_live(ctx->cluster, en->group, en->versions[0], en->resource, obj_ns, name,
                            &obj, &eb)) {
        wh_cli_error(err, "explain", "%s", eb.msg);
        return EXIT_USAGE;
    }
    json_t *review =
        wh_cli_review("explain", "DELETE", en->group, en->versions[0],
                      wh_json_str_or_empty(obj, "kind"), en->resource, "", obj_ns, name, NULL, obj);
    struct asked a;
    ask(ctx, review, ASK_VALIDATE, route, &a);
    json_decref(review);
    char what[600];
    snprintf(what, sizeof(what), "deletion of %s %s%s%s (%s)", en->resource, obj_ns,
             obj_ns[0] ? "/" : "", name, route->path);
    bool ok = print_answer(out, what, &a, true);
    const char *label = wh_json_label(obj, WH_KRUISE_LABEL_DELETE_PROTECTION);
    if (!wh_feature_on(&ctx->cfg->features, WH_FEATURE_ResourcesDeletionProtection))
        fprintf(out, "  feature gate ResourcesDeletionProtection is off: deletion protection does "
                     "not apply (--feature-gates=ResourcesDeletionProtection=true)\n");
    else if (!label)
        fprintf(out, "  it has no label %s: deletion protection does not apply\n",
                WH_KRUISE_LABEL_DELETE_PROTECTION);
    else if (ok)
        fprintf(out, "  %s=%s, and nothing it protects against is there\n",
                WH_KRUISE_LABEL_DELETE_PROTECTION, label);
    asked_fini(&a);
    json_decref(obj);
    return ok ? EXIT_ALLOWED : EXIT_REFUSED;
}

/* --- the command ------------------------------------------------------------------------------- */

int wh_explain_run(int argc, char **argv, FILE *out, FILE *err)
{
    struct args a;
    struct wh_config cfg;
    struct wh_cluster *cl = NULL;
    struct wh_errbuf eb = {{0}};
    json_t *pod = NULL;
    int status = EXIT_USAGE;
    if (!parse_args(argc, argv, &a, err)) {
        free(a.server);
        return EXIT_USAGE;
    }
    if (a.help) {
        fputs(usage, out);
        free(a.server);
        return EXIT_ALLOWED;
    }
    bool cfg_loaded = true; /* wh_config_fini after a failed load too, as serve() does */
    if (wh_config_load(&cfg, a.nserver, a.server, &eb)) {
        wh_cli_error(err, "explain", "%s", eb.msg);
        goto out;
    }
    const char *slash = strchr(a.target, '/');
    char ns[256];
    snprintf(ns, sizeof(ns), "%.*s", slash ? (int)(slash - a.target) : 0, a.target);
    const char *name = slash ? slash + 1 : a.target;
    if (!slash)
        snprintf(ns, sizeof(ns), "%s", a.ns ? a.ns : "default");
    if (!ns[0] || !name[0]) {
        wh_cli_error(err, "explain", "\"%s\" is not [NAMESPACE/]NAME", a.target);
        goto out;
    }
    if (open_cluster(&cfg, &cl, &eb)) {
        wh_cli_error(err, "explain", "%s", eb.msg);
        goto out;
    }
    struct wh_handler_ctx ctx = {.cfg = &cfg, .cluster = cl, .offline = true};
    bool about_pod = !a.kind || strcasecmp(a.kind, "pod") == 0 || strcasecmp(a.kind, "pods") == 0;
    if (!about_pod) {
        status = explain_delete(&ctx, a.kind, ns, name, out, err);
        goto out;
    }
    if (wh_cluster_get_live(cl, "", "v1", "pods", ns, name, &pod, &eb)) {
        wh_cli_error(err, "explain", "%s", eb.msg);
        goto out;
    }
    if (strcmp(a.subject, "pod") == 0)
        status = explain_pod(&ctx, ns, name, pod, out);
    else
        status = explain_disruption(&ctx, strcmp(a.subject, "eviction") == 0, ns, name, pod, out);
    fflush(out);
out:
    json_decref(pod);
    wh_cluster_free(cl);
    if (cfg_loaded)
        wh_config_fini(&cfg);
    free(a.server);
    return status;
}

int wh_explain_main(int argc, char **argv)
{
    /* the cluster logs what it does; the command keeps stderr for its own words */
    wh_log_setup(WH_LOG_WARN, WH_LOG_TEXT);
    return wh_explain_run(argc, argv, stdout, stderr);
}
