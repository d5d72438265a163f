#include "handlers/sidecarset/match.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conversion/convert.h"
#include "gocompat/gotime.h"
#include "handlers/sidecarset/hash.h"
#include "handlers/sidecarset/resources.h"
#include "k8s/kruise.h"
#include "k8s/selector.h"
#include "util/json.h"
#include "util/mem.h"
#include "util/str.h"
#include "util/time.h"

/* --- the view ------------------------------------------------------------------------------ */

/* The view and the strings it points to live in one block, followed by the selectors. */
struct view_block {
    struct wh_sidecarset_view v;
    const char *keys[];
};

static char *pool_put(char **pool, const char *s)
{
    size_t n = strlen(s) + 1;
    char *at = *pool;
    memcpy(at, s, n);
    *pool += n;
    return at;
}

static void *view_new(const json_t *obj)
{
    const char *name = wh_json_meta_str(obj, "name");
    const json_t *spec = json_object_get(obj, "spec");
    const json_t *inj = json_object_get(spec, "injectionStrategy");
    const json_t *rev = json_object_get(inj, "revision");
    const char *canary = wh_json_annotation(obj, WH_KRUISE_ANN_SIDECARSET_CANARY);
    const char *base = wh_json_annotation(obj, WH_KRUISE_ANN_SIDECARSET_BASE);
    if (!wh_str_eq(canary, "true") || !base || !base[0])
        base = NULL;

    /* a v1alpha1 SidecarSet's spec.namespace stands for a namespaceSelector */
    json_t *alpha_sel = wh_str_eq(wh_json_str(obj, "apiVersion"), WH_KRUISE_APPS_V1ALPHA1)
                            ? wh_convert_sidecarset_namespace(spec)
                            : NULL;
    const json_t *nssel = alpha_sel ? alpha_sel : json_object_get(spec, "namespaceSelector");
    struct wh_selector *ns_selector = json_is_object(nssel) ? wh_selector_new(nssel) : NULL;
    json_decref(alpha_sel);

    const char *const *vals = NULL;
    size_t nvals = 0;
    static const char *const cluster_scope[] = {WH_SIDECARSET_CLUSTER_SCOPE};
    if (!ns_selector ||
        !wh_selector_key_values(ns_selector, WH_NAMESPACE_NAME_LABEL, &vals, &nvals)) {
        vals = cluster_scope;
        nvals = 1;
    }
    size_t chars = strlen(name ? name : "") + 1 + (base ? strlen(base) + 1 : 0);
    for (size_t i = 0; i < nvals; i++)
        chars += strlen(vals[i]) + 1;
    struct view_block *b = wh_xcalloc(1, sizeof(*b) + nvals * sizeof(char *) + chars);
    char *pool = (char *)(b->keys + nvals);
    b->v.name = pool_put(&pool, name ? name : "");
    b->v.canary_base = base ? pool_put(&pool, base) : NULL;
    for (size_t i = 0; i < nvals; i++)
        b->keys[i] = pool_put(&pool, vals[i]);
    b->v.ns_keys = b->keys;
    b->v.n_ns_keys = nvals;
    b->v.paused = wh_json_bool(inj, "paused");
    b->v.has_revision =
        json_is_object(rev) && (json_is_string(json_object_get(rev, "revisionName")) ||
                                json_is_string(json_object_get(rev, "customVersion")));
    b->v.selector = wh_selector_new(json_object_get(spec, "selector"));
    b->v.ns_selector = ns_selector;
    b->v.regexes = wh_sidecarset_regexes_new(spec);
    return b;
}

static void view_free(void *p)
{
    struct view_block *b = p;
    if (!b)
        return;
    wh_selector_free(b->v.selector);
    wh_selector_free(b->v.ns_selector);
    wh_sidecarset_regexes_free((struct wh_sidecarset_regexes *)(uintptr_t)b->v.regexes);
    free(b);
}

/* A ControllerRevision's view: the compiled patterns of the SidecarSet spec it stores. */
static void *revision_view_new(const json_t *obj)
{
    return wh_sidecarset_regexes_new(wh_json_path(obj, "data", "spec", NULL));
}

static void revision_view_free(void *p)
{
    wh_sidecarset_regexes_free(p);
}

const struct wh_sidecarset_regexes *wh_sidecarset_revision_regexes(const struct wh_object *rev)
{
    return rev ? wh_object_view(rev) : NULL;
}

static void index_namespace(const json_t *obj, const void *view, wh_index_emit_fn emit, void *ctx)
{
    (void)obj;
    const struct wh_sidecarset_view *v = view;
    for (size_t i = 0; v && i < v->n_ns_keys; i++)
        emit(ctx, v->ns_keys[i]);
}

static void index_revision_owner(const json_t *obj, const void *view, wh_index_emit_fn emit,
                                 void *ctx)
{
    (void)view;
    const char *owner = wh_json_label(obj, WH_KRUISE_LABEL_SIDECARSET_NAME);
    if (owner)
        emit(ctx, owner);
}

enum wh_err wh_sidecarset_caches_setup(struct wh_cluster *cl, const struct wh_config *cfg,
                                       struct wh_errbuf *eb)
{
    (void)eb;
    struct wh_cache *ss = wh_cluster_declare(cl, WH_RES_SIDECARSET, NULL);
    wh_cache_set_view(ss, view_new, view_free);
    wh_cache_add_index(ss, WH_SIDECARSET_INDEX_NAMESPACE, index_namespace);
    (void)wh_cluster_declare(cl, WH_RES_NAMESPACE, NULL);
    struct wh_cache *cr = wh_cluster_declare(cl, WH_RES_CONTROLLERREVISION, cfg->namespace_);
    wh_cache_set_view(cr, revision_view_new, revision_view_free);
    wh_cache_add_index(cr, WH_CONTROLLERREVISION_INDEX_SIDECARSET, index_revision_owner);
    (void)wh_cluster_declare(cl, WH_RES_CONFIGMAP, cfg->namespace_);
    return WH_OK;
}

const struct wh_sidecarset_view *wh_sidecarset_view_of(const struct wh_object *o)
{
    const struct view_block *b = wh_object_view(o);
    return b ? &b->v : NULL;
}

/* --- picks ------------------------------------------------------------------------------- */

void wh_sidecarset_picks_init(struct wh_sidecarset_picks *p)
{
    p->items = p->_inline;
    p->n = 0;
    p->_cap = sizeof(p->_inline) / sizeof(p->_inline[0]);
}

void wh_sidecarset_picks_fini(struct wh_sidecarset_picks *p)
{
    for (size_t i = 0; i < p->n; i++) {
        json_decref(p->items[i].owned);
        wh_object_unref(p->items[i].obj);
        wh_object_unref(p->items[i].rev);
    }
    if (p->items != p->_inline)
        free(p->items);
    wh_sidecarset_picks_init(p);
}

static void picks_push(struct wh_sidecarset_picks *p, struct wh_sidecarset_pick pick)
{
    if (p->n == p->_cap) {
        size_t cap = p->_cap * 2;
        struct wh_sidecarset_pick *items = wh_xmalloc(cap * sizeof(*items));
        memcpy(items, p->items, p->n * sizeof(*items));
        if (p->items != p->_inline)
            free(p->items);
        p->items = items;
        p->_cap = cap;
    }
    p->items[p->n++] = pick;
}

/* --- history revisions ------------------------------------------------------------------- */

struct rev_key {
    long long revision;
    time_t created;
    const char *name;
};

static struct rev_key rev_key_of(const json_t *cr)
{
    struct rev_key k = {0, 0, wh_json_meta_str(cr, "name")};
    const json_t *r = json_object_get(cr, "revision");
    if (json_is_integer(r))
        k.revision = json_integer_value(r);
    const char *ts = wh_json_meta_str(cr, "creationTimestamp");
    struct wh_gotime created;
    if (ts && wh_gotime_parse(ts, strlen(ts), WH_GOTIME_RFC3339, &created, NULL) == WH_OK)
        k.created = (time_t)created.sec;
    if (!k.name)
        k.name = "";
    return k;
}

/* history.SortControllerRevisions order: revision, then creation time, then name. */
static int rev_cmp(const struct rev_key *a, const struct rev_key *b)
{
    if (a->revision != b->revision)
        return a->revision < b->revision ? -1 : 1;
    if (a->created != b->created)
        return a->created < b->created ? -1 : 1;
    return strcmp(a->name, b->name);
}

static json_t *shallow_copy(const json_t *o)
{
    json_t *c = json_object();
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)(uintptr_t)o, k, v)
    {
        json_object_set(c, k, v);
    }
    return c;
}

/* H = sidecarset with spec replaced by the revision's data.spec (minus $patch, nulls dropped),
 * annotations and status.latestRevision restored. Frozen members are shared, never changed. */
static json_t *restore(const json_t *sidecarset, const json_t *cr)
{
    json_t *h = shallow_copy(sidecarset);
    const json_t *m = json_object_get(sidecarset, "metadata");
    json_t *meta = json_is_object(m) ? shallow_copy(m) : json_object();
    const json_t *ann = json_object_get(meta, "annotations");
    json_t *ann_copy = json_is_object(ann) ? shallow_copy(ann) : json_object();
    json_object_set_new(meta, "annotations", ann_copy);
    json_object_set_new(h, "metadata", meta);

    const json_t *data_spec = wh_json_path(cr, "data", "spec", NULL);
    if (json_is_object(data_spec)) {
        json_t *spec = json_object();
        const char *k;
        json_t *v;
        json_object_foreach((json_t *)(uintptr_t)data_spec, k, v)
        {
            if (strcmp(k, "$patch") != 0 && !json_is_null(v))
                json_object_set(spec, k, v);
        }
        json_object_set_new(h, "spec", spec);
    }
    static const char *const keys[2] = {WH_KRUISE_ANN_SIDECARSET_HASH,
                                        WH_KRUISE_ANN_SIDECARSET_HASH_WITHOUT_IMAGE};
    for (int i = 0; i < 2; i++) {
        const char *from_rev = wh_json_annotation(cr, keys[i]);
        if (from_rev && from_rev[0]) {
            json_object_set_new(ann_copy, keys[i], json_string(from_rev));
        } else {
            char *hash = wh_sidecarset_hash(h, i == 1);
            json_object_set_new(ann_copy, keys[i], json_string(hash));
            free(hash);
        }
    }
    const json_t *status = json_object_get(sidecarset, "status");
    json_t *st = json_is_object(status) ? shallow_copy(status) : json_object();
    json_object_set_new(st, "latestRevision", json_string(wh_json_meta_str(cr, "name")));
    json_object_set_new(h, "status", st);
    return h;
}

enum wh_err wh_sidecarset_history(struct wh_cluster *cl, const char *kruise_ns,
                                  const json_t *sidecarset, const char *revision_name,
                                  const char *custom_version, json_t **out, struct wh_object **rev,
                                  struct wh_errbuf *eb)
{
    struct wh_cache *c = cl ? wh_cluster_cache(cl, WH_RES_CONTROLLERREVISION) : NULL;
    const char *ss_name = wh_json_meta_str(sidecarset, "name");
    struct wh_object *found = NULL;
    enum wh_err rc = WH_OK;
    if (revision_name) {
        found = c ? wh_cache_get(c, kruise_ns, revision_name) : NULL;
        if (!found)
            return wh_cache_not_found(eb, "apps", "ControllerRevision", revision_name);
    } else {
        struct wh_objlist l;
        wh_objlist_init(&l);
        if (c && ss_name)
            wh_cache_by_index(c, WH_CONTROLLERREVISION_INDEX_SIDECARSET, ss_name, &l);
        struct rev_key best = {0, 0, NULL};
        for (size_t i = 0; i < l.n; i++) {
            const json_t *cr = wh_object_json(l.items[i]);
            if (!wh_str_eq(wh_json_label(cr, WH_KRUISE_LABEL_SIDECARSET_CUSTOM_VERSION),
                           custom_version))
                continue;
            struct rev_key k = rev_key_of(cr);
            if (!found || rev_cmp(&k, &best) > 0) {
                wh_object_unref(found);
                found = wh_object_ref(l.items[i]);
                best = k;
            }
        }
        wh_objlist_fini(&l);
        if (!found)
            return wh_cache_not_found(eb, "apps", "ControllerRevision", ss_name ? ss_name : "");
    }
    *out = restore(sidecarset, wh_object_json(found));
    if (rev)
        *rev = found;
    else
        wh_object_unref(found);
    return rc;
}

/* --- choosing the revision (CREATE) ------------------------------------------------------ */

/* rand.Float64() for the Partial policy: any uniform source will do; one per thread. */
static double uniform01(void)
{
    static _Thread_local uint64_t state;
    if (!state)
        state = (uint64_t)wh_time_mono_ns() ^ ((uint64_t)(uintptr_t)&state << 16) ^
                0x9e3779b97f4a7c15ull;
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return (double)(state >> 11) / 9007199254740992.0;
}

/* Go's strconv.ParseFloat error text for the partition's number. */
static enum wh_err parse_percentage(const char *s, double *out, struct wh_errbuf *eb)
{
    size_t n = strlen(s);
    if (n == 0 || s[n - 1] != '%')
        return wh_errbuf_set(eb, WH_ERR_INVALID, "invalid type: string is not a percentage");
    char buf[64];
    if (n - 1 >= sizeof(buf))
        return wh_errbuf_set(eb, WH_ERR_INVALID,
                             "strconv.ParseFloat: parsing \"%.*s\": invalid syntax", (int)(n - 1),
                             s);
    memcpy(buf, s, n - 1);
    buf[n - 1] = '\0';
    char *end = NULL;
    errno = 0;
    double v = buf[0] ? strtod(buf, &end) : 0;
    if (!buf[0] || *end || isnan(v) || buf[0] == ' ' || buf[0] == '\t')
        return wh_errbuf_set(eb, WH_ERR_INVALID,
                             "strconv.ParseFloat: parsing \"%s\": invalid syntax", buf);
    if (errno == ERANGE && isinf(v))
        return wh_errbuf_set(eb, WH_ERR_INVALID,
                             "strconv.ParseFloat: parsing \"%s\": value out of range", buf);
    *out = v / 100;
    return WH_OK;
}

/* getSuitableRevisionSidecarSet for CREATE: NULL in *hist means "the current SidecarSet"; else
 * *hist_rev is the ControllerRevision it came from (a reference). */
static enum wh_err suitable_revision(const struct wh_sidecarset_match_in *in, const json_t *ss,
                                     json_t **hist, struct wh_object **hist_rev, char *why,
                                     size_t whysz, struct wh_errbuf *eb)
{
    const json_t *spec = json_object_get(ss, "spec");
    const json_t *rev = wh_json_path(spec, "injectionStrategy", "revision", NULL);
    const char *rname = wh_json_str(rev, "revisionName");
    const char *cver = wh_json_str(rev, "customVersion");
    json_t *h = NULL;
    struct wh_object *found = NULL;
    enum wh_err rc =
        wh_sidecarset_history(in->cluster, in->kruise_ns, ss, rname, cver, &h, &found, eb);
    if (rc)
        return rc;
    const json_t *us = json_object_get(spec, "updateStrategy");
    const char *hname = wh_json_path_str(h, "status", "latestRevision", NULL);
    bool use_history = true;
    if (!wh_json_bool(us, "paused") && wh_str_eq(wh_json_str(rev, "policy"), "Partial")) {
        const json_t *usel = json_object_get(us, "selector");
        bool random = true;
        if (usel && !json_is_null(usel)) {
            struct wh_selector *s = wh_selector_new(usel);
            if (wh_selector_error(s)) {
                rc = wh_errbuf_set(eb, WH_ERR_INVALID, "%s", wh_selector_error(s));
                wh_selector_free(s);
                json_decref(h);
                wh_object_unref(found);
                return rc;
            }
            random = wh_selector_matches(s, wh_json_path(in->pod, "metadata", "labels", NULL));
            wh_selector_free(s);
        }
        if (random) {
            const json_t *part = json_object_get(us, "partition");
            if (json_is_string(part)) {
                double p = 0;
                rc = parse_percentage(json_string_value(part), &p, eb);
                if (rc) {
                    json_decref(h);
                    wh_object_unref(found);
                    return rc;
                }
                use_history = uniform01() <= p;
            } else {
                use_history = false;
            }
        }
    }
    if (use_history) {
        snprintf(why, whysz, "; injects the history revision %s", hname ? hname : "");
        *hist = h;
        *hist_rev = found;
    } else {
        snprintf(why, whysz, "; the Partial policy chose the current revision");
        json_decref(h);
        wh_object_unref(found);
        *hist = NULL;
    }
    return WH_OK;
}

/* --- matching ---------------------------------------------------------------------------- */

struct ns_memo {
    bool looked;
    struct wh_object *obj;
};

static const json_t *namespace_labels(const struct wh_sidecarset_match_in *in, struct ns_memo *memo,
                                      bool *exists)
{
    if (!memo->looked) {
        struct wh_cache *c = wh_cluster_cache(in->cluster, WH_RES_NAMESPACE);
        memo->obj = c ? wh_cache_get(c, NULL, in->ns) : NULL;
        memo->looked = true;
    }
    *exists = memo->obj != NULL;
    return memo->obj ? wh_json_path(wh_object_json(memo->obj), "metadata", "labels", NULL) : NULL;
}

/* Decides one candidate; pushes it onto out when it matches. */
static enum wh_err consider(const struct wh_sidecarset_match_in *in, struct wh_object *o,
                            const json_t *pod_labels, struct ns_memo *memo,
                            struct wh_sidecarset_picks *out, struct wh_errbuf *eb)
{
    const struct wh_sidecarset_view *v = wh_sidecarset_view_of(o);
    WH_ASSERT(v);
    if (v->paused) {
        wh_pod_review_explain(in->review, v->name, false, "spec.injectionStrategy.paused is true");
        return WH_OK;
    }
    if (v->ns_selector) {
        bool exists;
        const json_t *labels = namespace_labels(in, memo, &exists);
        if (!exists) {
            wh_pod_review_explain(in->review, v->name, false,
                    "it has a namespaceSelector and Namespace \"%s\" is not known", in->ns);
            return WH_OK;
        }
        if (wh_selector_error(v->ns_selector)) {
            wh_pod_review_explain(in->review, v->name, false, "spec.namespaceSelector is invalid (%s)",
                    wh_selector_error(v->ns_selector));
            return WH_OK;
        }
        if (!wh_selector_matches(v->ns_selector, labels)) {
            wh_pod_review_explain(in->review, v->name, false,
                    "the labels of Namespace \"%s\" do not match "
                    "spec.namespaceSelector",
                    in->ns);
            return WH_OK;
        }
    }
    if (wh_selector_error(v->selector)) {
        wh_pod_review_explain(in->review, v->name, false, "error: spec.selector: %s",
                              wh_selector_error(v->selector));
        return wh_errbuf_set(eb, WH_ERR_INVALID, "%s", wh_selector_error(v->selector));
    }
    if (wh_selector_state(v->selector) != WH_SELECTOR_REQUIREMENTS) {
        wh_pod_review_explain(in->review, v->name, false, "spec.selector is %s, which selects no pod",
                wh_selector_state(v->selector) == WH_SELECTOR_EVERYTHING ? "empty" : "missing");
        return WH_OK;
    }
    if (!wh_selector_matches(v->selector, pod_labels)) {
        wh_pod_review_explain(in->review, v->name, false, "the pod's labels do not match spec.selector");
        return WH_OK;
    }
    struct wh_sidecarset_pick pick = {wh_object_ref(o), wh_object_json(o), NULL,
                                      v->name,          v->regexes,        NULL};
    char why[160] = "";
    if (in->create && v->has_revision) {
        enum wh_err rc =
            suitable_revision(in, pick.ss, &pick.owned, &pick.rev, why, sizeof(why), eb);
        if (rc) {
            wh_pod_review_explain(in->review, v->name, false, "error: revision: %s", eb->msg);
            wh_object_unref(pick.obj);
            return rc;
        }
        if (pick.owned) {
            pick.ss = pick.owned;
            pick.regexes = wh_sidecarset_revision_regexes(pick.rev);
        }
    }
    wh_pod_review_explain(in->review, v->name, true, "namespace and selector match%s%s%s", why,
            v->canary_base ? "; canary of " : "", v->canary_base ? v->canary_base : "");
    picks_push(out, pick);
    return WH_OK;
}

enum wh_err wh_sidecarset_match(const struct wh_sidecarset_match_in *in,
                                struct wh_sidecarset_picks *out, struct wh_errbuf *eb)
{
    enum wh_err rc = WH_OK;
    struct wh_cache *c = in->cluster ? wh_cluster_cache(in->cluster, WH_RES_SIDECARSET) : NULL;
    if (!c)
        return WH_OK;
    struct ns_memo memo = {false, NULL};
    const json_t *pod_labels = wh_json_path(in->pod, "metadata", "labels", NULL);
    struct wh_objlist l;
    wh_objlist_init(&l);
    wh_cache_by_index(c, WH_SIDECARSET_INDEX_NAMESPACE, in->ns, &l);
    if (strcmp(in->ns, WH_SIDECARSET_CLUSTER_SCOPE) != 0)
        wh_cache_by_index(c, WH_SIDECARSET_INDEX_NAMESPACE, WH_SIDECARSET_CLUSTER_SCOPE, &l);
    for (size_t i = 0; !rc && i < l.n; i++)
        rc = consider(in, l.items[i], pod_labels, &memo, out, eb);
    wh_objlist_fini(&l);
    wh_object_unref(memo.obj);
    if (rc)
        return rc;

    /* a matching canary displaces its base */
    size_t o = 0;
    for (size_t i = 0; i < out->n; i++) {
        const struct wh_sidecarset_pick *p = &out->items[i];
        const char *by = NULL;
        for (size_t j = 0; j < out->n && !by; j++) {
            const char *base = wh_sidecarset_view_of(out->items[j].obj)->canary_base;
            if (base && strcmp(base, p->name) == 0)
                by = out->items[j].name;
        }
        if (by) {
            wh_pod_review_explain(in->review, p->name, false, "displaced by its canary SidecarSet %s", by);
            json_decref(out->items[i].owned);
            wh_object_unref(out->items[i].obj);
            wh_object_unref(out->items[i].rev);
            continue;
        }
        out->items[o++] = out->items[i];
    }
    out->n = o;
    return WH_OK;
}
