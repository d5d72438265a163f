#include "handlers/pod/launch_priority.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "k8s/kruise.h"
#include "util/backoff.h"
#include "util/cow.h"
#include "util/json.h"
#include "util/str.h"

#define MAX_CONTAINERS 1024

/* Go's strconv.Atoi, error texts included. */
static bool go_atoi(const char *s, long long *out, struct wh_errbuf *eb)
{
    const char *p = s;
    if (*p == '+' || *p == '-')
        p++;
    bool digits = *p != '\0';
    for (const char *q = p; *q; q++)
        digits &= *q >= '0' && *q <= '9';
    if (!digits) {
        wh_errbuf_set(eb, WH_ERR_INVALID, "strconv.Atoi: parsing \"%s\": invalid syntax", s);
        return false;
    }
    errno = 0;
    char *end = NULL;
    *out = strtoll(s, &end, 10);
    if (errno == ERANGE) {
        wh_errbuf_set(eb, WH_ERR_INVALID, "strconv.Atoi: parsing \"%s\": value out of range", s);
        return false;
    }
    return true;
}

/* apiserver's storage.SimpleNameGenerator: the prefix (cut to 58 bytes) and 5 random
 * characters from its alphabet. */
static char *generate_name(const char *base)
{
    static const char alphabet[] = "bcdfghjklmnpqrstvwxz2456789";
    size_t n = strlen(base);
    if (n > 58)
        n = 58;
    char suffix[6];
    for (int i = 0; i < 5; i++)
        suffix[i] = alphabet[wh_rand64() % (sizeof(alphabet) - 1)];
    suffix[5] = '\0';
    return wh_str_printf("%.*s%s", (int)n, base, suffix);
}

static enum wh_err mutate(struct wh_pod_review *pr, struct wh_errbuf *eb)
{
    const json_t *pod = wh_pod_review_pod(pr);
    const json_t *containers = wh_json_path(pod, "spec", "containers", NULL);
    size_t n = json_array_size(containers);
    /* upstream skips exactly one container: a Pod with none and the Ordered annotation still
     * gets its name generated from generateName */
    if (n == 1 || n > MAX_CONTAINERS)
        return WH_OK;
    long long prio[MAX_CONTAINERS] = {0};
    bool ordered =
        wh_str_eq(wh_json_annotation(pod, WH_KRUISE_ANN_CONTAINER_LAUNCH_PRIORITY), "Ordered");
    if (ordered) {
        for (size_t i = 0; i < n; i++)
            prio[i] = -(long long)i;
    } else {
        bool any = false, differ = false;
        for (size_t i = 0; i < n; i++) {
            const json_t *env = json_object_get(json_array_get(containers, i), "env");
            size_t k;
            const json_t *e;
            json_array_foreach(env, k, e)
            {
                if (!wh_str_eq(wh_json_str(e, "name"), WH_KRUISE_ENV_CONTAINER_PRIORITY))
                    continue;
                const char *v = wh_json_str(e, "value");
                if (!go_atoi(v ? v : "", &prio[i], eb))
                    return WH_ERR_INVALID;
                any |= prio[i] != 0;
            }
            differ |= prio[i] != prio[0];
        }
        if (!any || !differ)
            return WH_OK;
    }
    const char *name = wh_json_meta_str(pod, "name");
    char *generated = NULL;
    const char *gen = wh_json_meta_str(pod, "generateName");
    if ((!name || !name[0]) && gen && gen[0]) {
        generated = generate_name(gen);
        json_object_set_new(wh_pod_review_own(pr, "metadata", NULL), "name",
                            json_string(generated));
        name = generated;
    }
    char *cm = wh_str_printf("%s-barrier", name ? name : "");
    json_t *list = wh_cow_array(wh_pod_review_own(pr, "spec", NULL), "containers", false);
    for (size_t i = 0; i < n; i++) {
        json_t *c = wh_cow_elem(list, i);
        json_t *env = c ? wh_cow_array(c, "env", true) : NULL;
        if (!env)
            continue;
        char key[32];
        snprintf(key, sizeof(key), "p_%lld", prio[i]);
        json_array_append_new(env, json_pack("{s:s,s:{s:{s:s,s:s}}}", "name",
                                             WH_KRUISE_ENV_CONTAINER_BARRIER, "valueFrom",
                                             "configMapKeyRef", "name", cm, "key", key));
    }
    wh_pod_review_explain(pr, NULL, true, "containers start in %s order (ConfigMap %s)",
                          ordered ? "declared" : "priority", cm);
    free(cm);
    free(generated);
    return WH_OK;
}

const struct wh_pod_step wh_pod_launch_priority_step = {
    .name = "container-launch-priority",
    .mutate_ops = WH_POD_CREATE,
    .mutate = mutate,
};
