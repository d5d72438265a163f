/* PodUnavailableBudget, policy.kruise.io (conversion.md section 19): two v1alpha1 annotations
 * are spec fields in v1beta1; an invalid annotation makes the up conversion fail. */
#include "conversion/rows_int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "k8s/kruise.h"
#include "util/buf.h"
#include "util/mem.h"
#include "util/str.h"

/* Length of the Unicode white space character at p (strings.TrimSpace's set), 0 if none. */
static size_t space_len(const unsigned char *p)
{
    if (*p == ' ' || (*p >= '\t' && *p <= '\r'))
        return 1;
    if (p[0] == 0xc2 && (p[1] == 0x85 || p[1] == 0xa0))
        return 2;
    if (p[0] == 0xe1 && p[1] == 0x9a && p[2] == 0x80)
        return 3;
    if (p[0] == 0xe2 && p[1] == 0x80 &&
        ((p[2] >= 0x80 && p[2] <= 0x8a) || p[2] == 0xa8 || p[2] == 0xa9 || p[2] == 0xaf))
        return 3;
    if (p[0] == 0xe2 && p[1] == 0x81 && p[2] == 0x9f)
        return 3;
    if (p[0] == 0xe3 && p[1] == 0x80 && p[2] == 0x80)
        return 3;
    return 0;
}

/* strings.TrimSpace of s[0..n). Returns: new string. */
static char *trim(const char *s, size_t n)
{
    const unsigned char *b = (const unsigned char *)s, *e = b + n;
    size_t k;
    for (;;) {
        k = b < e ? space_len(b) : 0;
        if (!k || b + k > e)
            break;
        b += k;
    }
    for (;;) {
        const unsigned char *q = e;
        /* step back over one UTF-8 character and test it */
        if (q == b)
            break;
        q--;
        while (q > b && (*q & 0xc0) == 0x80)
            q--;
        k = space_len(q);
        if (!k || q + k != e)
            break;
        e = q;
    }
    return wh_xstrndup((const char *)b, (size_t)(e - b));
}

static bool is_operation(const char *s)
{
    return strcmp(s, "DELETE") == 0 || strcmp(s, "UPDATE") == 0 || strcmp(s, "EVICT") == 0 ||
           strcmp(s, "RESIZE") == 0;
}

/* annotation "DELETE, EVICT" <-> spec.protectOperations [DELETE, EVICT] */
static enum wh_err operations(struct wh_conv_ctx *c, enum wh_conv_dir dir, const json_t *src,
                              json_t *dst)
{
    enum wh_err rc = WH_OK;
    json_t *list = NULL;
    wh_conv_del(dst, "spec", "protectOperations", NULL);
    if (dir == WH_CONV_UP) {
        const char *v = wh_conv_meta_get(src, WH_META_ANNOTATION, WH_KRUISE_ANN_PUB_OPERATIONS);
        if (!v || !*v)
            return WH_OK;
        list = json_array();
        for (const char *p = v;;) {
            const char *comma = strchr(p, ',');
            size_t n = comma ? (size_t)(comma - p) : strlen(p);
            char *item = trim(p, n);
            if (*item && !is_operation(item)) {
                char *q = wh_conv_quote(item);
                rc = wh_conv_fail(c, "invalid %s value %s", WH_KRUISE_ANN_PUB_OPERATIONS, q);
                free(q);
                free(item);
                goto out;
            }
            if (*item)
                json_array_append_new(list, json_string(item));
            free(item);
            if (!comma)
                break;
            p = comma + 1;
        }
        if (json_array_size(list)) {
            wh_conv_set_new(dst, list, "spec", "protectOperations", NULL);
            list = NULL;
        }
        goto out;
    }
    const json_t *ops = wh_conv_get(src, "spec", "protectOperations", NULL);
    if (!json_is_array(ops) || json_array_size(ops) == 0) {
        wh_conv_meta_del(dst, WH_META_ANNOTATION, WH_KRUISE_ANN_PUB_OPERATIONS);
        return WH_OK;
    }
    struct wh_buf b;
    wh_buf_init(&b, 1u << 20);
    size_t i;
    json_t *e;
    json_array_foreach(ops, i, e)
    {
        const char *s = json_string_value(e);
        if (!s || !*s)
            continue;
        if ((b.len && wh_buf_addc(&b, ',')) || wh_buf_adds(&b, s)) {
            wh_buf_fini(&b);
            return wh_conv_fail(c, "spec.protectOperations: too long");
        }
    }
    char *joined = wh_buf_take(&b, NULL);
    wh_conv_meta_set(dst, WH_META_ANNOTATION, WH_KRUISE_ANN_PUB_OPERATIONS, joined);
    free(joined);
out:
    json_decref(list);
    return rc;
}

/* strconv.ParseInt's error text for a base-10 int32. */
static const char *parse_error(const char *s)
{
    const char *p = s + (*s == '+' || *s == '-');
    if (!*p)
        return "invalid syntax";
    for (; *p; p++)
        if (*p < '0' || *p > '9')
            return "invalid syntax";
    return "value out of range";
}

/* annotation "5" <-> spec.protectTotalReplicas 5 */
static enum wh_err total(struct wh_conv_ctx *c, enum wh_conv_dir dir, const json_t *src,
                         json_t *dst)
{
    wh_conv_del(dst, "spec", "protectTotalReplicas", NULL);
    if (dir == WH_CONV_UP) {
        const char *v = wh_conv_meta_get(src, WH_META_ANNOTATION, WH_KRUISE_ANN_PUB_TOTAL_REPLICAS);
        if (!v || !*v)
            return WH_OK;
        long long n;
        if (!wh_conv_parse_int(v, INT32_MIN, INT32_MAX, &n)) {
            char *q = wh_conv_quote(v);
            enum wh_err rc = wh_conv_fail(c, "failed to parse %s: strconv.ParseInt: parsing %s: %s",
                                          WH_KRUISE_ANN_PUB_TOTAL_REPLICAS, q, parse_error(v));
            free(q);
            return rc;
        }
        wh_conv_set_new(dst, json_integer(n), "spec", "protectTotalReplicas", NULL);
        return WH_OK;
    }
    const json_t *n = wh_conv_get(src, "spec", "protectTotalReplicas", NULL);
    if (!json_is_integer(n)) {
        wh_conv_meta_del(dst, WH_META_ANNOTATION, WH_KRUISE_ANN_PUB_TOTAL_REPLICAS);
        return WH_OK;
    }
    char *text = wh_str_printf("%" JSON_INTEGER_FORMAT, json_integer_value(n));
    wh_conv_meta_set(dst, WH_META_ANNOTATION, WH_KRUISE_ANN_PUB_TOTAL_REPLICAS, text);
    free(text);
    return WH_OK;
}

static const struct wh_conv_row rows[] = {
    CUSTOM(NULL, "spec.protectOperations", operations),
    ANNOTATION_DERIVED(WH_KRUISE_ANN_PUB_OPERATIONS, "DELETE,EVICT|DELETE, EVICT|UPDATE,,RESIZE"),
    CUSTOM(NULL, "spec.protectTotalReplicas", total),
    ANNOTATION_DERIVED(WH_KRUISE_ANN_PUB_TOTAL_REPLICAS, "5|+5|0"),
    BETA_ONLY("spec.ignoredPodSelector"),
};

const struct wh_conv_kind wh_conv_pub = {WH_KRUISE_POLICY, "PodUnavailableBudget", WH_ROWS(rows)};
