/* Go's %#v of the values the workload validations put in their messages (field.Invalid and
 * NotSupported print a value that is neither a plain type nor a Stringer with %#v). */
#include "handlers/workloads/workload_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "k8s/validation.h"
#include "util/buf.h"
#include "util/json.h"
#include "util/str.h"

#define CAP (1u << 20)

void wl_buf_add(struct wh_buf *b, const char *s)
{
    if (wh_buf_adds(b, s))
        return; /* at the cap: the text is cut */
}

void wl_buf_add_take(struct wh_buf *b, char *s)
{
    wl_buf_add(b, s);
    free(s);
}

char *wl_gosyntax_intstrs(const json_t *arr)
{
    size_t i;
    const json_t *v;
    if (!json_is_array(arr))
        return wh_str_printf("[]intstr.IntOrString(nil)");
    struct wh_buf b;
    wh_buf_init(&b, CAP);
    wl_buf_add(&b, "[]intstr.IntOrString{");
    json_array_foreach(arr, i, v)
    {
        if (i)
            wl_buf_add(&b, ", ");
        wl_buf_add_take(&b, wh_gosyntax_intstr(v));
    }
    wl_buf_add(&b, "}");
    return wh_buf_take(&b, NULL);
}

char *wl_gosyntax_readiness_gates(const json_t *arr)
{
    size_t i;
    const json_t *v;
    if (!json_is_array(arr))
        return wh_str_printf("[]v1.PodReadinessGate(nil)");
    struct wh_buf b;
    wh_buf_init(&b, CAP);
    wl_buf_add(&b, "[]v1.PodReadinessGate{");
    json_array_foreach(arr, i, v)
    {
        char *q = wh_go_quote(wh_json_str_or_empty(v, "conditionType"));
        wl_buf_add_take(&b,
                        wh_str_printf("%sv1.PodReadinessGate{ConditionType:%s}", i ? ", " : "", q));
        free(q);
    }
    wl_buf_add(&b, "}");
    return wh_buf_take(&b, NULL);
}

char *wl_gosyntax_int32_map(const json_t *m)
{
    if (!json_is_object(m))
        return wh_str_printf("map[string]int32(nil)");
    size_t n;
    const char **keys = wh_json_sorted_keys(m, &n);
    struct wh_buf b;
    wh_buf_init(&b, CAP);
    wl_buf_add(&b, "map[string]int32{");
    for (size_t i = 0; i < n; i++) {
        char *q = wh_go_quote(keys[i]);
        wl_buf_add_take(&b,
                        wh_str_printf("%s%s:%lld", i ? ", " : "", q,
                                      (long long)json_integer_value(json_object_get(m, keys[i]))));
        free(q);
    }
    wl_buf_add(&b, "}");
    free(keys);
    return wh_buf_take(&b, NULL);
}

char *wl_gosyntax_pointer_at(const char *type, const json_t *v, const char *address)
{
    if (!v || json_is_null(v))
        return wh_str_printf("(*%s)(nil)", type);
    return wh_str_printf("(*%s)(%s)", type, address);
}

char *wl_gosyntax_pointer(const char *type, const json_t *v)
{
    return wl_gosyntax_pointer_at(type, v, WH_GO_ADDRESS);
}
