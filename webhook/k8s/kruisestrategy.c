#include "k8s/kruisestrategy.h"

#include <stdio.h>
#include <string.h>

#include "k8s/validation.h"
#include "util/json.h"

const char *wh_kruise_priority_strategy_problem(const json_t *ps, char *buf, size_t bufsz)
{
    size_t i;
    const json_t *t;
    if (!json_is_object(ps))
        return NULL;
    const json_t *weights = wh_json_arr(ps, "weightPriority");
    const json_t *orders = wh_json_arr(ps, "orderPriority");
    if (json_array_size(weights) > 0 && json_array_size(orders) > 0)
        return "only one of weightPriority and orderPriority can be used";
    json_array_foreach(weights, i, t)
    {
        json_int_t w = json_integer_value(json_object_get(t, "weight"));
        const json_t *sel = wh_json_obj(t, "matchSelector");
        if (w < 0 || w > 100)
            return "weight must be valid number in the range 1-100";
        /* LabelSelector.Size() is its protobuf size: 0 only without labels and expressions */
        if (json_object_size(wh_json_obj(sel, "matchLabels")) == 0 &&
            json_array_size(wh_json_arr(sel, "matchExpressions")) == 0)
            return "selector can not be empty";
        char err[400];
        if (!wh_label_selector_as_selector(sel, err, sizeof(err))) {
            snprintf(buf, bufsz, "invalid selector %s", err);
            return buf;
        }
    }
    json_array_foreach(orders, i, t)
    {
        if (!*wh_json_str_or_empty(t, "orderedKey"))
            return "order key can not be empty";
    }
    return NULL;
}

const char *wh_kruise_scatter_strategy_problem(const json_t *terms, char *buf, size_t bufsz)
{
    size_t i;
    const json_t *t;
    json_array_foreach(terms, i, t)
    {
        const char *key = wh_json_str_or_empty(t, "key"), *val = wh_json_str_or_empty(t, "value");
        if (!*key)
            return "key should not be empty";
        /* the terms are told apart by "key:value", as upstream's set of ids does ("a:b" + "c"
         * and "a" + "b:c" are the same term to it) */
        char id[512];
        snprintf(id, sizeof(id), "%s:%s", key, val);
        for (size_t k = 0; k < i; k++) {
            const json_t *o = json_array_get(terms, k);
            char other[512];
            snprintf(other, sizeof(other), "%s:%s", wh_json_str_or_empty(o, "key"),
                     wh_json_str_or_empty(o, "value"));
            bool same = strcmp(id, other) == 0;
            if (same) {
                snprintf(buf, bufsz, "duplicated key=%s value=%s", key, val);
                return buf;
            }
        }
    }
    return NULL;
}
