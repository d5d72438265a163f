#include "k8s/pod.h"

#include <stdint.h>
#include <string.h>

#include "k8s/quantity.h"
#include "util/json.h"
#include "util/str.h"

bool wh_pod_running_and_ready(const json_t *pod)
{
    if (!wh_str_eq(wh_json_path_str(pod, "status", "phase", NULL), "Running"))
        return false;
    if (wh_json_present(wh_json_obj(pod, "metadata"), "deletionTimestamp"))
        return false;
    const json_t *conds = wh_json_path(pod, "status", "conditions", NULL);
    size_t i;
    const json_t *c;
    json_array_foreach(conds, i, c)
    {
        if (wh_str_eq(wh_json_str(c, "type"), "Ready"))
            return wh_str_eq(wh_json_str(c, "status"), "True");
    }
    return false;
}

bool wh_pod_is_static(const json_t *pod)
{
    const char *src = wh_json_annotation(pod, "kubernetes.io/config.source");
    return src && strcmp(src, "api") != 0;
}

/* The two compute resources QoS looks at, as indexes. */
static int qos_resource(const char *name)
{
    if (strcmp(name, "cpu") == 0)
        return 0;
    if (strcmp(name, "memory") == 0)
        return 1;
    return -1;
}

struct qos_sums {
    struct wh_quantity v[2];
    bool set[2];
};

/* Adds the positive cpu/memory values of list to sums; returns the mask of resources found. */
static unsigned add_positive(struct qos_sums *sums, const json_t *list)
{
    unsigned found = 0;
    const char *name;
    const json_t *val;
    json_object_foreach((json_t *)(uintptr_t)list, name, val)
    {
        int r = qos_resource(name);
        struct wh_quantity q;
        struct wh_errbuf eb;
        if (r < 0 || !json_is_string(val) || wh_quantity_parse(json_string_value(val), &q, &eb) ||
            wh_quantity_sign(&q) <= 0)
            continue;
        found |= 1u << r;
        if (!sums->set[r]) {
            sums->v[r] = q;
            sums->set[r] = true;
        } else {
            (void)wh_quantity_add(&sums->v[r], &q); /* 96 digits do not overflow in practice */
        }
    }
    return found;
}

enum wh_pod_qos wh_pod_qos(const json_t *pod)
{
    struct qos_sums req, lim;
    memset(&req, 0, sizeof(req));
    memset(&lim, 0, sizeof(lim));
    bool guaranteed = true;
    static const char *const lists[] = {"containers", "initContainers"};
    for (size_t l = 0; l < 2; l++) {
        size_t i;
        const json_t *c;
        json_array_foreach(wh_json_path(pod, "spec", lists[l], NULL), i, c)
        {
            const json_t *res = wh_json_obj(c, "resources");
            (void)add_positive(&req, wh_json_obj(res, "requests"));
            if (add_positive(&lim, wh_json_obj(res, "limits")) != 3u)
                guaranteed = false;
        }
    }
    if (!req.set[0] && !req.set[1] && !lim.set[0] && !lim.set[1])
        return WH_POD_QOS_BEST_EFFORT;
    for (int r = 0; r < 2 && guaranteed; r++) {
        if (req.set[r] && (!lim.set[r] || wh_quantity_cmp(&lim.v[r], &req.v[r]) != 0))
            guaranteed = false;
    }
    if (guaranteed && req.set[0] == lim.set[0] && req.set[1] == lim.set[1])
        return WH_POD_QOS_GUARANTEED;
    return WH_POD_QOS_BURSTABLE;
}
