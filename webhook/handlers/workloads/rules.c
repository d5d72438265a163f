/* The rules upstream's workload validations share: scaled IntOrStrings (partitions,
 * maxUnavailable, maxSurge), selectors against template labels, the Pod template with its
 * claim templates, and the in-place-only update check. */
#include "handlers/workloads/workload_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/features.h"
#include "gocompat/gojsonpatch.h"
#include "gocompat/strconv.h"
#include "k8s/defaults.h"
#include "k8s/podvalidation.h"
#include "k8s/selector.h"
#include "k8s/validation.h"
#include "util/json.h"
#include "util/str.h"

/* What both scalings do before reading a string: a nil value is an error, an integer is itself.
 * Returns: true when *rc is the answer. */
static bool int_or_nil(const json_t *v, int64_t *out, struct wh_errbuf *eb, enum wh_err *rc)
{
    *out = 0;
    *rc = WH_OK;
    if (!v || json_is_null(v)) {
        *rc = wh_errbuf_set(eb, WH_ERR_INVALID, "nil value for IntOrString");
        return true;
    }
    if (!json_is_string(v)) {
        *out = json_integer_value(v);
        return true;
    }
    return false;
}

enum wh_err wl_scaled_value(const json_t *v, int64_t total, bool round_up, int64_t *out,
                            struct wh_errbuf *eb)
{
    enum wh_err rc;
    if (int_or_nil(v, out, eb, &rc))
        return rc;
    const char *s = json_string_value(v);
    size_t n = strlen(s);
    if (!n || s[n - 1] != '%')
        return wh_errbuf_set(eb, WH_ERR_INVALID, "invalid type: string is not a percentage");
    char num[128];
    snprintf(num, sizeof(num), "%.*s", (int)(n - 1), s);
    double f;
    if (wh_go_parse_float(num, &f, eb))
        return WH_ERR_INVALID;
    double scaled = f * (double)total / 100;
    *out = wh_go_float_to_int(round_up ? ceil(scaled) : floor(scaled));
    return WH_OK;
}

enum wh_err wl_legacy_value(const json_t *v, int64_t total, bool round_up, int64_t *out,
                            struct wh_errbuf *eb)
{
    enum wh_err rc;
    if (int_or_nil(v, out, eb, &rc))
        return rc;
    const char *s = json_string_value(v);
    char digits[128];
    size_t k = 0;
    for (const char *p = s; *p && k + 1 < sizeof(digits); p++) {
        if (*p != '%')
            digits[k++] = *p;
    }
    digits[k] = 0;
    int64_t pct;
    struct wh_errbuf aerr = {{0}};
    if (wh_go_atoi(digits, &pct, &aerr)) {
        char *q = wh_go_quote(s);
        wh_errbuf_set(eb, WH_ERR_INVALID, "invalid value for IntOrString: invalid value %s: %s", q,
                      aerr.msg);
        free(q);
        return WH_ERR_INVALID;
    }
    double scaled = (double)pct * (double)total / 100;
    *out = wh_go_float_to_int(round_up ? ceil(scaled) : floor(scaled));
    return WH_OK;
}

char *wl_intstr_string(const json_t *v)
{
    if (!v || json_is_null(v))
        return wh_str_printf("<nil>");
    if (json_is_string(v))
        return wh_str_printf("%s", json_string_value(v));
    return wh_str_printf("%lld", (long long)json_integer_value(v));
}

void wl_validate_template(struct wh_field_errors *l, json_t *template_, const json_t *claims,
                          const struct wh_config *cfg, const char *path)
{
    json_t *spec = wh_json_obj_ensure(template_, "spec");
    wh_k8s_default_pod_spec_for_validation(
        spec, wh_feature_on(&cfg->features, WH_FEATURE_DefaultHostNetworkHostPortsInPodTemplates));
    if (!json_array_size(claims)) {
        wh_validate_pod_template_spec(l, template_, path);
        return;
    }
    /* the claim templates become persistentVolumeClaim volumes of the template validated, not of
     * the object's own template */
    json_t *t = json_copy(template_);
    json_t *s = json_copy(spec);
    json_t *vols = json_array();
    size_t i;
    json_t *v;
    json_array_foreach(wh_json_arr(spec, "volumes"), i, v)
    {
        json_array_append(vols, v);
    }
    json_array_foreach(claims, i, v)
    {
        const char *name = wh_json_str_or_empty(wh_json_obj(v, "metadata"), "name");
        json_array_append_new(vols, json_pack("{s:s,s:{s:s}}", "name", name,
                                              "persistentVolumeClaim", "claimName", name));
    }
    json_object_set_new(s, "volumes", vols);
    json_object_set_new(t, "spec", s);
    wh_validate_pod_template_spec(l, t, path);
    json_decref(t);
}

void wl_selector_matches_labels(struct wh_field_errors *l, const json_t *selector,
                                const json_t *labels, bool always, const char *labels_path)
{
    struct wh_selector *sel = wh_selector_new(selector);
    bool judged = always || wh_selector_state(sel) != WH_SELECTOR_EVERYTHING;
    if (judged && !wh_selector_matches(sel, labels)) {
        char *g = wh_gosyntax_string_map(labels);
        wh_ferr_invalid_raw(l, labels_path, g, "`selector` does not match template `labels`");
        free(g);
    }
    wh_selector_free(sel);
}

bool wl_validate_selector(struct wh_field_errors *l, const json_t *selector, const char *kind_word,
                          const char *path)
{
    if (!selector || json_is_null(selector)) {
        wh_ferr_required(l, path, "");
        return true; /* LabelSelectorAsSelector(nil) is labels.Nothing(), no error */
    }
    wh_validate_label_selector(l, selector, path);
    if (json_object_size(wh_json_obj(selector, "matchLabels")) +
            json_array_size(wh_json_arr(selector, "matchExpressions")) ==
        0) {
        char *g = wh_gosyntax_label_selector(selector);
        char detail[128];
        snprintf(detail, sizeof(detail), "empty selector is invalid for %s", kind_word);
        wh_ferr_invalid_raw(l, path, g, detail);
        free(g);
    }
    if (wh_label_selector_convertible(selector))
        return true;
    char *g = wh_gosyntax_label_selector(selector);
    wh_ferr_invalid_raw(l, path, g, "");
    free(g);
    return false;
}

/* The length of "/containers/<digits>/image" at p, or 0 when p does not start with it. */
static size_t image_path_at(const char *p)
{
    static const char head[] = "/containers/", tail[] = "/image";
    const char *q = p;
    if (strncmp(q, head, sizeof(head) - 1) != 0)
        return 0;
    q += sizeof(head) - 1;
    if (*q < '0' || *q > '9')
        return 0;
    while (*q >= '0' && *q <= '9')
        q++;
    if (strncmp(q, tail, sizeof(tail) - 1) != 0)
        return 0;
    return (size_t)(q - p) + sizeof(tail) - 1;
}

struct in_place {
    bool anchored;
    char *buf;
    size_t bufsz;
    bool bad;
};

/* Go's regexp "^/containers/([0-9]+)/image$" (anchored) or "/containers/([0-9]+)/image"
 * (anywhere in the path). */
static bool image_path(const char *path, bool anchored)
{
    if (anchored) {
        size_t n = image_path_at(path);
        return n && n == strlen(path);
    }
    for (const char *p = strstr(path, "/containers/"); p; p = strstr(p + 1, "/containers/")) {
        if (image_path_at(p))
            return true;
    }
    return false;
}

static bool in_place_op(const char *op, const char *path, void *arg)
{
    struct in_place *ip = arg;
    if (strcmp(op, "replace") == 0 && image_path(path, ip->anchored))
        return true;
    snprintf(ip->buf, ip->bufsz, "%s %s", op, path);
    ip->bad = true;
    return false;
}

bool wl_in_place_only(const json_t *old_spec, const json_t *new_spec, bool anchored, char *buf,
                      size_t bufsz)
{
    struct in_place ip = {.anchored = anchored, .buf = buf, .bufsz = bufsz};
    (void)wh_gojsonpatch_each(old_spec, new_spec, in_place_op, &ip);
    return !ip.bad;
}
