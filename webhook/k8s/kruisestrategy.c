#include "k8s/kruisestrategy.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "k8s/validation.h"
#include "util/json.h"
#include "util/mem.h"
#include "util/str.h"

char *wh_kruise_priority_strategy_problem(const json_t *ps)
{
    size_t i;
    const json_t *t;
    if (!json_is_object(ps))
        return NULL;
    const json_t *weights = wh_json_arr(ps, "weightPriority");
    const json_t *orders = wh_json_arr(ps, "orderPriority");
    if (json_array_size(weights) > 0 && json_array_size(orders) > 0)
        return wh_xstrdup("only one of weightPriority and orderPriority can be used");
    json_array_foreach(weights, i, t)
    {
        json_int_t w = json_integer_value(json_object_get(t, "weight"));
        const json_t *sel = wh_json_obj(t, "matchSelector");
        if (w < 0 || w > 100)
            return wh_xstrdup("weight must be valid number in the range 1-100");
        /* LabelSelector.Size() is its protobuf size: 0 only without labels and expressions */
        if (json_object_size(wh_json_obj(sel, "matchLabels")) == 0 &&
            json_array_size(wh_json_arr(sel, "matchExpressions")) == 0)
            return wh_xstrdup("selector can not be empty");
        char *err = wh_label_selector_error(sel);
        if (err) {
            char *msg = wh_str_printf("invalid selector %s", err);
            free(err);
            return msg;
        }
    }
    json_array_foreach(orders, i, t)
    {
        if (!*wh_json_str_or_empty(t, "orderedKey"))
            return wh_xstrdup("order key can not be empty");
    }
    return NULL;
}

/* Whether two terms have one "key:value" id, as upstream's set of ids tells them apart ("a:b"
 * + "c" and "a" + "b:c" are the same term to it), compared whole. */
static bool same_term_id(const char *k1, const char *v1, const char *k2, const char *v2)
{
    size_t lk1 = strlen(k1), lv1 = strlen(v1), lk2 = strlen(k2), lv2 = strlen(v2);
    if (lk1 + lv1 != lk2 + lv2)
        return false;
    /* walk the two ids "k1:v1" and "k2:v2" byte by byte without building them */
    size_t n = lk1 + 1 + lv1;
    for (size_t i = 0; i < n; i++) {
        char a = i < lk1 ? k1[i] : i == lk1 ? ':' : v1[i - lk1 - 1];
        char b = i < lk2 ? k2[i] : i == lk2 ? ':' : v2[i - lk2 - 1];
        if (a != b)
            return false;
    }
    return true;
}

char *wh_kruise_scatter_strategy_problem(const json_t *terms)
{
    size_t i;
    const json_t *t;
    json_array_foreach(terms, i, t)
    {
        const char *key = wh_json_str_or_empty(t, "key"), *val = wh_json_str_or_empty(t, "value");
        if (!*key)
            return wh_xstrdup("key should not be empty");
        for (size_t k = 0; k < i; k++) {
            const json_t *o = json_array_get(terms, k);
            if (same_term_id(key, val, wh_json_str_or_empty(o, "key"),
                             wh_json_str_or_empty(o, "value")))
                return wh_str_printf("duplicated key=%s value=%s", key, val);
        }
    }
    return NULL;
}
