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
