/* /validate-apps-kruise-io-persistentpodstate (upstream's pkg/webhook/persistentpodstate):
 * the object as v1beta1 (a v1alpha1 request converted up, as upstream's ConvertTo does), its
 * spec's rules, its target's immutability, and no other PersistentPodState of the namespace
 * targeting the same workload (from the cache). Every failure is a 400 with the field errors'
 * aggregate, as upstream's admission.Errored(400, ...). */
#include "handlers/persistentpodstate/persistentpodstate.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "conversion/convert.h"
#include "gocompat/decodeinto.h"
#include "handlers/persistentpodstate/pps_int.h"
#include "k8s/fielderr.h"
#include "k8s/kruise.h"
#include "k8s/validation.h"
#include "kube/cache.h"
#include "util/buf.h"
#include "util/json.h"
#include "util/mem.h"
#include "util/str.h"

/* decodeObject / decodeOldObject: the raw object decoded as the request's version names it,
 * v1alpha1 converted to v1beta1. Returns in *out: new ref. Errors: the decoder's message, or
 * "unsupported version: <v>". */
static enum wh_err decode(const json_t *raw, const char *version, json_t **out,
                          struct wh_errbuf *eb)
{
    *out = NULL;
    bool beta = strcmp(version, "v1beta1") == 0;
    if (!beta && strcmp(version, "v1alpha1") != 0)
        return wh_errbuf_set(eb, WH_ERR_INVALID, "unsupported version: %s", version);
    const char *api = beta ? WH_KRUISE_APPS_V1BETA1 : WH_KRUISE_APPS_V1ALPHA1;
    json_t *typed = NULL;
    enum wh_err rc = wh_decode_into(raw, api, "PersistentPodState", &typed, eb);
    if (rc)
        return rc;
    if (beta) {
        *out = typed;
        return WH_OK;
    }
    json_object_set_new(typed, "apiVersion", json_string(WH_KRUISE_APPS_V1ALPHA1));
    json_object_set_new(typed, "kind", json_string("PersistentPodState"));
    char *msg = NULL;
    rc = wh_convert_up("PersistentPodState", typed, out, &msg);
    json_decref(typed);
    if (rc)
        rc = wh_errbuf_set(eb, WH_ERR_INVALID, "failed to convert v1alpha1->v1beta1: %s",
                           msg ? msg : "conversion failed");
    free(msg);
    return rc;
}

/* --- the values upstream prints (Go's %#v) ---------------------------------------------------- */

static char *gosyntax_target(const json_t *ref)
{
    static const char *const fields[][2] = {
        {"apiVersion", "APIVersion"}, {"kind", "Kind"}, {"name", "Name"}};
    return wh_gosyntax_string_struct("v1beta1.TargetReference", ref, fields, 3);
}

/* Whether Go holds a nil slice for list: absent or null, and for an object converted from
 * v1alpha1 also empty (the conversion copies only non-empty lists). */
static bool nil_slice(const json_t *list, bool converted)
{
    return !json_is_array(list) || (converted && !json_array_size(list));
}

/* %#v of the spec; printed only while both topologies are empty, so the required one is nil
 * and the preferred list has no element. */
static char *gosyntax_spec(const json_t *spec, bool converted)
{
    struct wh_buf b;
    wh_buf_init(&b, 1u << 20);
    char *target = gosyntax_target(wh_json_obj(spec, "targetRef"));
    wh_buf_put(&b, "v1beta1.PersistentPodStateSpec{TargetReference:%s, PersistentPodAnnotations:", target);
    free(target);
    const json_t *anns = json_object_get(spec, "persistentPodAnnotations");
    if (nil_slice(anns, converted)) {
        wh_buf_put(&b, "[]v1beta1.PersistentPodAnnotation(nil)");
    } else {
        wh_buf_put(&b, "[]v1beta1.PersistentPodAnnotation{");
        size_t i;
        const json_t *a;
        json_array_foreach(anns, i, a)
        {
            char *key = wh_go_quote(wh_json_str_or_empty(a, "key"));
            wh_buf_put(&b, "%sv1beta1.PersistentPodAnnotation{Key:%s}", i ? ", " : "", key);
            free(key);
        }
        wh_buf_put(&b, "}");
    }
    wh_buf_put(&b,
        ", RequiredPersistentTopology:(*v1beta1.NodeTopologyTerm)(nil), "
        "PreferredPersistentTopology:[]v1beta1.PreferredTopologyTerm%s",
        nil_slice(json_object_get(spec, "preferredPersistentTopology"), converted) ? "(nil)"
                                                                                   : "{}");
    char *policy = wh_go_quote(wh_json_str_or_empty(spec, "persistentPodStateRetentionPolicy"));
    wh_buf_put(&b, ", PersistentPodStateRetentionPolicy:%s}", policy);
    free(policy);
    return wh_buf_take(&b, NULL);
}

static void invalid_target(struct wh_field_errors *l, const json_t *ref, const char *detail)
{
    char *g = gosyntax_target(ref);
    wh_ferr_invalid_raw(l, "spec.targetRef", g, detail);
    free(g);
}

/* --- the rules ------------------------------------------------------------------------------ */

/* validatePersistentPodStateSpec. */
static void spec_rules(struct wh_field_errors *l, const json_t *spec, bool converted,
                       const struct wh_pps_whitelist *wl)
{
    const json_t *ref = wh_json_obj(spec, "targetRef");
    const char *av = wh_json_str_or_empty(ref, "apiVersion");
    const char *kind = wh_json_str_or_empty(ref, "kind");
    if (!*av || !*wh_json_str_or_empty(ref, "name") || !*kind)
        invalid_target(l, ref, "empty targetRef is not valid for PersistentPodState.");
    if (!wh_pps_whitelist_allows(wl, av, kind))
        invalid_target(l, ref,
                       "targetRef.Kind must be StatefulSet or in " WH_KRUISE_CONFIG_PPS_WHITELIST);
    if (!wh_json_obj(spec, "requiredPersistentTopology") &&
        !json_array_size(wh_json_arr(spec, "preferredPersistentTopology"))) {
        char *g = gosyntax_spec(spec, converted);
        wh_ferr_invalid_raw(l, "spec", g,
                            "TopologyConstraint and TopologyPreference cannot be empty at the "
                            "same time");
        free(g);
    }
}

/* validatePerConflict: the first other PersistentPodState (by name; the namespace's, or every
 * one when the object names no namespace, as upstream lists) with an equal target. */
static void conflicts(struct wh_field_errors *l, struct wh_cluster *cl, const json_t *obj)
{
    struct wh_cache *c = cl ? wh_cluster_cache(cl, WH_RES_PERSISTENTPODSTATE) : NULL;
    if (!c)
        return;
    const char *ns = wh_json_meta_str(obj, "namespace");
    const char *name = wh_json_meta_str(obj, "name");
    const json_t *ref = wh_json_path(obj, "spec", "targetRef", NULL);
    struct wh_objlist all;
    wh_objlist_init(&all);
    wh_cache_list(c, ns && *ns ? ns : NULL, &all);
    for (size_t i = 0; i < all.n; i++) {
        const json_t *other = wh_json_path(wh_object_json(all.items[i]), "spec", "targetRef", NULL);
        const char *other_name = wh_object_name(all.items[i]);
        if (wh_str_eq(other_name, name ? name : ""))
            continue;
        if (wh_pps_refs_equal(wh_json_str(ref, "apiVersion"), wh_json_str(ref, "kind"),
                              wh_json_str(ref, "name"), wh_json_str(other, "apiVersion"),
                              wh_json_str(other, "kind"), wh_json_str(other, "name"))) {
            char *detail = wh_str_printf(
                "targetRef is in conflict with other PersistentPodState %s", other_name);
            invalid_target(l, ref, detail);
            free(detail);
            break;
        }
    }
    wh_objlist_fini(&all);
}

/* validatingPersistentPodStateFn. */
static void validate(struct wh_field_errors *l, const struct wh_handler_ctx *ctx, const json_t *obj,
                     const json_t *old, bool converted)
{
    struct wh_cluster *cl = ctx->cluster;
    struct wh_pps_whitelist wl;
    struct wh_errbuf eb = {{0}};
    if (wh_pps_whitelist_load(cl, ctx->cfg->namespace_, &wl, &eb)) {
        char *detail = wh_str_printf(
            "failed to get persistent pod state config white list, error: %s", eb.msg);
        /* field.NewPath(""): a path element without a name prints as an index, "[]" */
        wh_ferr_internal(l, "[]", detail);
        free(detail);
        return;
    }
    const json_t *spec = wh_json_obj(obj, "spec");
    spec_rules(l, spec, converted, &wl);
    if (old) {
        static const char *const fields[] = {"apiVersion", "kind", "name"};
        const json_t *a = wh_json_obj(spec, "targetRef");
        const json_t *b = wh_json_path(old, "spec", "targetRef", NULL);
        bool same = true;
        for (size_t i = 0; i < 3; i++)
            same &=
                strcmp(wh_json_str_or_empty(a, fields[i]), wh_json_str_or_empty(b, fields[i])) == 0;
        if (!same)
            wh_ferr_forbidden(l, "spec.targetRef", "targetRef is immutable");
    }
    conflicts(l, cl, obj);
    wh_pps_whitelist_fini(&wl);
}

static enum wh_err admit(const struct wh_handler_ctx *ctx, const struct wh_admission_request *req,
                         struct wh_admission_response *resp, struct wh_errbuf *eb)
{
    (void)eb;
    const char *version = req->resource.version;
    json_t *obj = NULL, *old = NULL;
    struct wh_errbuf derr = {{0}};
    if (decode(req->object, version, &obj, &derr) ||
        (strcmp(req->operation, "UPDATE") == 0 && decode(req->old_object, version, &old, &derr))) {
        wh_admission_deny(resp, 400, "%s", derr.msg);
        goto out;
    }
    struct wh_field_errors errs;
    wh_ferrs_init(&errs);
    validate(&errs, ctx, obj, old, strcmp(version, "v1alpha1") == 0);
    wh_admission_answer_errors(resp, 400, &errs);
    wh_ferrs_fini(&errs);
out:
    json_decref(obj);
    json_decref(old);
    return WH_OK;
}

/* upstream's kubebuilder marker of pkg/webhook/persistentpodstate/validating/webhooks.go */
const struct wh_route wh_pps_validate_route = {
    .path = "/validate-apps-kruise-io-persistentpodstate",
    .kind = WH_ROUTE_VALIDATE,
    .admit = admit,
    .setup = wh_pps_caches_setup,
    .entries = {{.name = "vpersistentpodstate.kb.io",
                 .group = WH_KRUISE_APPS,
                 .versions = {"v1alpha1", "v1beta1"},
                 .resource = "persistentpodstates",
                 .operations = WH_WEBHOOK_CREATE | WH_WEBHOOK_UPDATE}},
};
