#include "k8s/scheduling.h"

#include <stdlib.h>
#include <string.h>

#include "k8s/validation.h"
#include "util/json.h"
#include "util/str.h"

#define P(...) wh_fpath(p, sizeof(p), __VA_ARGS__)

/* One Invalid at path.values[i] per message check gives a value. */
static void each_value(struct wh_field_errors *l, const json_t *values, const char *path,
                       void (*check)(const char *v, struct wh_vmsgs *out))
{
    char p[512];
    size_t i;
    const json_t *v;
    json_array_foreach(values, i, v)
    {
        const char *s = json_is_string(v) ? json_string_value(v) : "";
        struct wh_vmsgs m = {0};
        check(s, &m);
        for (size_t k = 0; k < m.n; k++)
            wh_ferr_invalid_str(l, P("%s.values[%zu]", path, i), s, m.m[k]);
    }
}

/* ValidateNodeName: a DNS subdomain. */
static void node_name(const char *v, struct wh_vmsgs *out)
{
    wh_name_is_dns_subdomain(v, false, out);
}

static void node_selector_requirement(struct wh_field_errors *l, const json_t *rq,
                                      bool allow_invalid_label_value, const char *path)
{
    char p[512];
    const char *op = wh_json_str_or_empty(rq, "operator");
    const json_t *values = wh_json_arr(rq, "values");
    size_t n = json_array_size(values);
    if (!strcmp(op, "In") || !strcmp(op, "NotIn")) {
        if (n == 0)
            wh_ferr_required(l, P("%s.values", path),
                             "must be specified when `operator` is 'In' or 'NotIn'");
    } else if (!strcmp(op, "Exists") || !strcmp(op, "DoesNotExist")) {
        if (n > 0)
            wh_ferr_forbidden(l, P("%s.values", path),
                              "may not be specified when `operator` is 'Exists' or "
                              "'DoesNotExist'");
    } else if (!strcmp(op, "Gt") || !strcmp(op, "Lt")) {
        if (n != 1)
            wh_ferr_required(l, P("%s.values", path),
                             "must be specified single value when `operator` is 'Lt' or 'Gt'");
    } else {
        wh_ferr_invalid_str(l, P("%s.operator", path), op, "not a valid selector operator");
    }
    wh_validate_label_name(l, wh_json_str_or_empty(rq, "key"), P("%s.key", path));
    if (allow_invalid_label_value)
        return;
    each_value(l, values, path, wh_is_valid_label_value);
}

static void node_field_selector_requirement(struct wh_field_errors *l, const json_t *rq,
                                            const char *path)
{
    char p[512];
    const char *op = wh_json_str_or_empty(rq, "operator");
    const json_t *values = wh_json_arr(rq, "values");
    if (!strcmp(op, "In") || !strcmp(op, "NotIn")) {
        if (json_array_size(values) != 1)
            wh_ferr_required(l, P("%s.values", path),
                             "must be only one value when `operator` is 'In' or 'NotIn' for node "
                             "field selector");
    } else {
        wh_ferr_invalid_str(l, P("%s.operator", path), op, "not a valid selector operator");
    }
    const char *key = wh_json_str_or_empty(rq, "key");
    /* nodeFieldSelectorValidators: metadata.name, checked as a node name */
    if (strcmp(key, "metadata.name") != 0) {
        wh_ferr_invalid_str(l, P("%s.key", path), key, "not a valid field selector key");
        return;
    }
    each_value(l, values, path, node_name);
}

void wh_validate_node_selector_term(struct wh_field_errors *l, const json_t *term,
                                    bool allow_invalid_label_value, const char *path)
{
    char p[512];
    size_t i;
    const json_t *rq;
    json_array_foreach(wh_json_arr(term, "matchExpressions"), i, rq) node_selector_requirement(
        l, rq, allow_invalid_label_value, P("%s.matchExpressions[%zu]", path, i));
    json_array_foreach(wh_json_arr(term, "matchFields"), i, rq)
        node_field_selector_requirement(l, rq, P("%s.matchFields[%zu]", path, i));
}

void wh_validate_preferred_scheduling_terms(struct wh_field_errors *l, const json_t *terms,
                                            const char *path)
{
    char p[512];
    size_t i;
    const json_t *t;
    json_array_foreach(terms, i, t)
    {
        const json_t *w = json_object_get(t, "weight");
        long long weight = json_is_integer(w) ? json_integer_value(w) : 0;
        if (weight <= 0 || weight > 100)
            wh_ferr_invalid_int(l, P("%s[%zu].weight", path, i), weight,
                                "must be in the range 1-100");
        wh_validate_node_selector_term(l, json_object_get(t, "preference"), true,
                                       P("%s[%zu].preference", path, i));
    }
}

void wh_validate_tolerations(struct wh_field_errors *l, const json_t *tolerations, const char *path)
{
    static const char *const ops[] = {"Equal", "Exists"};
    static const char *const effects[] = {"NoSchedule", "PreferNoSchedule", "NoExecute"};
    char p[512];
    size_t i;
    const json_t *t;
    json_array_foreach(tolerations, i, t)
    {
        const char *key = wh_json_str_or_empty(t, "key");
        const char *op = wh_json_str_or_empty(t, "operator");
        const char *value = wh_json_str_or_empty(t, "value");
        const char *effect = wh_json_str_or_empty(t, "effect");
        if (*key)
            wh_validate_label_name(l, key, P("%s[%zu].key", path, i));
        /* an empty key with Exists and no value matches every taint */
        if (!*key && strcmp(op, "Exists") != 0)
            wh_ferr_invalid_str(l, P("%s[%zu].operator", path, i), op,
                                "operator must be Exists when `key` is empty, which means "
                                "\"match all values and all keys\"");
        if (wh_json_present(t, "tolerationSeconds") && strcmp(effect, "NoExecute") != 0)
            wh_ferr_invalid_str(l, P("%s[%zu].effect", path, i), effect,
                                "effect must be 'NoExecute' when `tolerationSeconds` is set");
        if (!*op || !strcmp(op, "Equal")) {
            struct wh_vmsgs m = {0};
            wh_is_valid_label_value(value, &m);
            /* upstream reports a bad value at .operator, its messages joined by ';' */
            if (m.n) {
                char joined[WH_VMSG_MAX * 512 + WH_VMSG_MAX];
                size_t off = 0;
                for (size_t k = 0; k < m.n && off < sizeof(joined); k++)
                    off += (size_t)snprintf(joined + off, sizeof(joined) - off, "%s%s",
                                            k ? ";" : "", m.m[k]);
                wh_ferr_invalid_str(l, P("%s[%zu].operator", path, i), value, joined);
            }
        } else if (!strcmp(op, "Exists")) {
            if (*value)
                wh_ferr_invalid_str(l, P("%s[%zu].operator", path, i), value,
                                    "value must be empty when `operator` is 'Exists'");
        } else {
            wh_ferr_not_supported(l, P("%s[%zu].operator", path, i), op, ops, 2);
        }
        if (*effect && strcmp(effect, "NoSchedule") && strcmp(effect, "PreferNoSchedule") &&
            strcmp(effect, "NoExecute"))
            wh_ferr_not_supported(l, P("%s[%zu].effect", path, i), effect, effects, 3);
    }
}

void wh_validate_node_selector(struct wh_field_errors *l, const json_t *selector,
                               bool allow_invalid_label_value, const char *path)
{
    char p[512], tp[512];
    size_t i;
    const json_t *term;
    const json_t *terms = wh_json_arr(selector, "nodeSelectorTerms");
    wh_fpath(tp, sizeof(tp), "%s.nodeSelectorTerms", path);
    if (json_array_size(terms) == 0) {
        wh_ferr_required(l, tp, "must have at least one node selector term");
        return;
    }
    json_array_foreach(terms, i, term)
    {
        wh_validate_node_selector_term(l, term, allow_invalid_label_value, P("%s[%zu]", tp, i));
    }
}

/* o[key] unless absent or null (Go's non-nil). */
static const json_t *set(const json_t *o, const char *key)
{
    const json_t *v = json_is_object(o) ? json_object_get(o, key) : NULL;
    return json_is_null(v) ? NULL : v;
}

static bool str_in(const json_t *arr, const char *s)
{
    size_t i;
    const json_t *v;
    json_array_foreach(arr, i, v)
    {
        if (json_is_string(v) && strcmp(json_string_value(v), s) == 0)
            return true;
    }
    return false;
}

/* validateLabelKeys: each key a label name; none without a selector. */
static void label_keys(struct wh_field_errors *l, const json_t *keys, const json_t *selector,
                       const char *path)
{
    char p[512];
    size_t i;
    const json_t *k;
    if (json_array_size(keys) == 0)
        return;
    if (!selector) {
        wh_ferr_forbidden(l, path, "must not be specified when labelSelector is not set");
        return;
    }
    json_array_foreach(keys, i, k)
    {
        wh_validate_label_name(l, json_is_string(k) ? json_string_value(k) : "",
                               P("%s[%zu]", path, i));
    }
}

/* validateMatchLabelKeysAndMismatchLabelKeys of a pod affinity term at path. */
static void match_label_keys(struct wh_field_errors *l, const json_t *term, const char *path)
{
    char p[512];
    const json_t *match = wh_json_arr(term, "matchLabelKeys"),
                 *mismatch = wh_json_arr(term, "mismatchLabelKeys");
    const json_t *sel = set(term, "labelSelector");
    size_t i, k;
    const json_t *e, *key;
    label_keys(l, match, sel, P("%s.matchLabelKeys", path));
    label_keys(l, mismatch, sel, P("%s.mismatchLabelKeys", path));
    if (sel) {
        /* a key of matchLabelKeys (its last index) also in the selector's keys seen so far */
        const json_t *exprs = wh_json_arr(sel, "matchExpressions");
        json_array_foreach(exprs, i, e)
        {
            const char *ek = wh_json_str_or_empty(e, "key");
            bool in_sel = json_object_get(wh_json_obj(sel, "matchLabels"), ek) != NULL;
            for (k = 0; k < i && !in_sel; k++)
                in_sel = strcmp(wh_json_str_or_empty(json_array_get(exprs, k), "key"), ek) == 0;
            long last = -1;
            json_array_foreach(match, k, key)
            {
                if (json_is_string(key) && strcmp(json_string_value(key), ek) == 0)
                    last = (long)k;
            }
            if (last >= 0 && in_sel)
                wh_ferr_invalid_str(l, P("%s[%ld]", path, last), ek,
                                    "exists in both matchLabelKeys and labelSelector");
        }
    }
    json_array_foreach(match, i, key)
    {
        const char *s = json_is_string(key) ? json_string_value(key) : "";
        if (str_in(mismatch, s))
            wh_ferr_invalid_str(l, P("%s.matchLabelKeys[%zu]", path, i), s,
                                "exists in both matchLabelKeys and mismatchLabelKeys");
    }
}

/* validatePodAffinityTerm; invalid label values are allowed in its selectors (OpenKruise's
 * AllowInvalidLabelValueInSelector). */
static void pod_affinity_term(struct wh_field_errors *l, const json_t *term, const char *path)
{
    char p[512];
    size_t i;
    const json_t *ns;
    wh_validate_label_selector_opts(l, set(term, "labelSelector"), true,
                                    P("%s.labelSelector", path));
    wh_validate_label_selector_opts(l, set(term, "namespaceSelector"), true,
                                    P("%s.namespaceSelector", path));
    json_array_foreach(wh_json_arr(term, "namespaces"), i, ns)
    {
        const char *name = json_is_string(ns) ? json_string_value(ns) : "";
        struct wh_vmsgs m = {0};
        wh_is_dns1123_label(name, &m);
        for (size_t k = 0; k < m.n; k++)
            wh_ferr_invalid_str(l, P("%s.namespace", path), name, m.m[k]);
    }
    match_label_keys(l, term, path);
    const char *tk = wh_json_str_or_empty(term, "topologyKey");
    if (!*tk)
        wh_ferr_required(l, P("%s.topologyKey", path), "can not be empty");
    wh_validate_label_name(l, tk, P("%s.topologyKey", path));
}

static void pod_affinity(struct wh_field_errors *l, const json_t *pa, const char *path)
{
    char p[512], tp[512];
    size_t i;
    const json_t *t;
    json_array_foreach(wh_json_arr(pa, "requiredDuringSchedulingIgnoredDuringExecution"), i, t)
    {
        pod_affinity_term(l, t,
                          P("%s.requiredDuringSchedulingIgnoredDuringExecution[%zu]", path, i));
    }
    json_array_foreach(wh_json_arr(pa, "preferredDuringSchedulingIgnoredDuringExecution"), i, t)
    {
        wh_fpath(tp, sizeof(tp), "%s.preferredDuringSchedulingIgnoredDuringExecution[%zu]", path,
                 i);
        const json_t *w = json_object_get(t, "weight");
        long long weight = json_is_integer(w) ? json_integer_value(w) : 0;
        if (weight <= 0 || weight > 100)
            wh_ferr_invalid_int(l, P("%s.weight", tp), weight, "must be in the range 1-100");
        const json_t *term = json_object_get(t, "podAffinityTerm");
        pod_affinity_term(l, json_is_object(term) ? term : NULL, P("%s.podAffinityTerm", tp));
    }
}

void wh_validate_affinity(struct wh_field_errors *l, const json_t *affinity, const char *path)
{
    char p[512];
    const json_t *na = set(affinity, "nodeAffinity"), *pa = set(affinity, "podAffinity"),
                 *paa = set(affinity, "podAntiAffinity");
    if (na) {
        const json_t *req = set(na, "requiredDuringSchedulingIgnoredDuringExecution");
        if (req)
            wh_validate_node_selector(
                l, req, true,
                P("%s.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution", path));
        const json_t *pref = wh_json_arr(na, "preferredDuringSchedulingIgnoredDuringExecution");
        if (json_array_size(pref))
            wh_validate_preferred_scheduling_terms(
                l, pref,
                P("%s.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution", path));
    }
    if (pa)
        pod_affinity(l, pa, P("%s.podAffinity", path));
    if (paa)
        pod_affinity(l, paa, P("%s.podAntiAffinity", path));
}

void wh_validate_topology_spread_constraints(struct wh_field_errors *l, const json_t *constraints,
                                             const char *path)
{
    static const char *const actions[] = {"DoNotSchedule", "ScheduleAnyway"};
    static const char *const policies[] = {"Honor", "Ignore"};
    char p[512], cp[512];
    size_t i, k;
    const json_t *c, *key;
    json_array_foreach(constraints, i, c)
    {
        wh_fpath(cp, sizeof(cp), "%s[%zu]", path, i);
        long long skew = json_integer_value(json_object_get(c, "maxSkew"));
        if (skew <= 0)
            wh_ferr_invalid_int(l, P("%s.maxSkew", cp), skew, "must be greater than zero");
        const char *tk = wh_json_str_or_empty(c, "topologyKey"),
                   *wu = wh_json_str_or_empty(c, "whenUnsatisfiable");
        if (!*tk)
            wh_ferr_required(l, P("%s.topologyKey", cp), "can not be empty");
        if (strcmp(wu, "DoNotSchedule") && strcmp(wu, "ScheduleAnyway"))
            wh_ferr_not_supported(l, P("%s.whenUnsatisfiable", cp), wu, actions, 2);
        for (k = i + 1; k < json_array_size(constraints); k++) {
            const json_t *o = json_array_get(constraints, k);
            if (!strcmp(wh_json_str_or_empty(o, "topologyKey"), tk) &&
                !strcmp(wh_json_str_or_empty(o, "whenUnsatisfiable"), wu)) {
                char pair[1200];
                snprintf(pair, sizeof(pair), "{%s, %s}", tk, wu);
                wh_ferr_duplicate(l, P("%s.{topologyKey, whenUnsatisfiable}", cp), pair);
                break;
            }
        }
        const json_t *md = set(c, "minDomains");
        if (md) {
            long long v = json_integer_value(md);
            if (v <= 0)
                wh_ferr_invalid_int(l, P("%s.minDomains", cp), v, "must be greater than zero");
            if (strcmp(wu, "DoNotSchedule") != 0) {
                char detail[1200];
                snprintf(detail, sizeof(detail),
                         "can only use minDomains if whenUnsatisfiable=DoNotSchedule, not %s", wu);
                wh_ferr_invalid_int(l, P("%s.minDomains", cp), v, detail);
            }
        }
        static const char *const incl[] = {"nodeAffinityPolicy", "nodeTaintsPolicy"};
        for (k = 0; k < 2; k++) {
            const json_t *pol = set(c, incl[k]);
            const char *ps = json_is_string(pol) ? json_string_value(pol) : "";
            if (pol && strcmp(ps, "Honor") && strcmp(ps, "Ignore"))
                wh_ferr_not_supported(l, P("%s.%s", cp, incl[k]), ps, policies, 2);
        }
        /* validateMatchLabelKeysInTopologySpread */
        const json_t *mlk = wh_json_arr(c, "matchLabelKeys");
        const json_t *sel = set(c, "labelSelector");
        if (json_array_size(mlk)) {
            char mp[512];
            wh_fpath(mp, sizeof(mp), "%s.matchLabelKeys", cp);
            if (!sel)
                wh_ferr_forbidden(l, mp, "must not be specified when labelSelector is not set");
            json_array_foreach(mlk, k, key)
            {
                const char *s = json_is_string(key) ? json_string_value(key) : "";
                bool in_sel = json_object_get(wh_json_obj(sel, "matchLabels"), s) != NULL;
                size_t j;
                const json_t *e;
                json_array_foreach(wh_json_arr(sel, "matchExpressions"), j, e)
                {
                    in_sel |= strcmp(wh_json_str_or_empty(e, "key"), s) == 0;
                }
                wh_validate_label_name(l, s, P("%s[%zu]", mp, k));
                if (in_sel)
                    wh_ferr_invalid_str(l, P("%s[%zu]", mp, k), s,
                                        "exists in both matchLabelKeys and labelSelector");
            }
        }
        /* the labelSelector itself is not checked
         * (AllowInvalidTopologySpreadConstraintLabelSelector) */
    }
}
