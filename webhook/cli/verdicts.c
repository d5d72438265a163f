#include "cli/verdicts.h"

#include <stdlib.h>
#include <string.h>

#include "cli/check.h"
#include "handlers/sidecarset/match.h"
#include "kube/cache.h"
#include "kube/cluster.h"
#include "util/buf.h"
#include "util/json.h"
#include "util/mem.h"
#include "util/str.h"

json_t *wh_cli_review(const char *cmd, const char *operation, const char *group,
                      const char *version, const char *kind, const char *resource, const char *sub,
                      const char *ns, const char *name, const json_t *object, const json_t *old)
{
    char uid[64], user[64];
    snprintf(uid, sizeof(uid), "kruise-webhook-%s", cmd);
    snprintf(user, sizeof(user), "kruise-webhook-%s", cmd);
    /* the options the API server sends with each operation */
    const char *options = strcmp(operation, "DELETE") == 0   ? "DeleteOptions"
                          : strcmp(operation, "UPDATE") == 0 ? "UpdateOptions"
                                                             : "CreateOptions";
    return json_pack("{s:s,s:s,s:{s:s,s:{s:s,s:s,s:s},s:{s:s,s:s,s:s},s:s,s:s,s:s,s:s,s:O?,s:O?,"
                     "s:b,s:{s:s,s:s},s:{s:s}}}",
                     "apiVersion", "admission.k8s.io/v1", "kind", "AdmissionReview", "request",
                     "uid", uid, "kind", "group", group, "version", version, "kind", kind,
                     "resource", "group", group, "version", version, "resource", resource,
                     "subResource", sub, "operation", operation, "namespace", ns, "name", name,
                     "object", object, "oldObject", old, "dryRun", 0, "options", "apiVersion",
                     "meta.k8s.io/v1", "kind", options, "userInfo", "username", user);
}

void wh_cli_verdicts_on(void *arg, const char *step, const char *name, bool injected,
                        const char *reason)
{
    struct wh_cli_verdicts *e = arg;
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
    e->v[e->n++] = (struct wh_cli_verdict){wh_xstrdup(name), injected, wh_xstrdup(reason)};
}

const struct wh_cli_verdict *wh_cli_verdicts_find(const struct wh_cli_verdicts *e,
                                                  const char *name)
{
    for (size_t k = 0; k < e->n; k++) {
        if (strcmp(e->v[k].name, name) == 0)
            return &e->v[k];
    }
    return NULL;
}

void wh_cli_verdicts_fini(struct wh_cli_verdicts *e)
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

void wh_cli_verdicts_print(FILE *err, struct wh_cluster *cl, const char *pod_id, const char *ns,
                           const struct wh_cli_verdicts *e)
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
        const struct wh_cli_verdict *v = wh_cli_verdicts_find(e, name);
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
