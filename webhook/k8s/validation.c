#include "k8s/validation.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gocompat/gotime.h"
#include "util/buf.h"
#include "util/json.h"
#include "util/mem.h"
#include "util/str.h"

#define QNAME_FMT "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
#define QNAME_MSG                                                                                  \
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "    \
    "alphanumeric character"
#define QNAME_EXAMPLES "(e.g. 'MyName',  or 'my.name',  or '123-abc', "
#define LABEL_VALUE_MSG                                                                            \
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "    \
    "'.', and must start and end with an alphanumeric character"
#define DNS1123_LABEL_FMT "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
#define DNS1123_LABEL_MSG                                                                          \
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "   \
    "must start and end with an alphanumeric character"
#define DNS1123_SUBDOMAIN_MSG                                                                      \
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "   \
    "'.', and must start and end with an alphanumeric character"
#define DNS1123_SUBDOMAIN_FMT DNS1123_LABEL_FMT "(\\." DNS1123_LABEL_FMT ")*"

/* The total size of an object's annotations (TotalAnnotationSizeLimitB). */
#define ANNOTATIONS_MAX (256 * 1024)

void wh_vmsg_add(struct wh_vmsgs *out, const char *fmt, ...)
{
    va_list ap;
    if (out->n >= WH_VMSG_MAX)
        return;
    va_start(ap, fmt);
    vsnprintf(out->m[out->n], sizeof(out->m[0]), fmt, ap);
    va_end(ap);
    out->n++;
}

static bool is_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static bool is_lower_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

/* ^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$ */
static bool match_qname(const char *s, size_t n)
{
    if (n == 0 || !is_alnum(s[0]) || !is_alnum(s[n - 1]))
        return false;
    for (size_t i = 0; i < n; i++)
        if (!is_alnum(s[i]) && s[i] != '-' && s[i] != '_' && s[i] != '.')
            return false;
    return true;
}

/* ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$ */
static bool match_dns_label(const char *s, size_t n)
{
    if (n == 0 || !is_lower_alnum(s[0]) || !is_lower_alnum(s[n - 1]))
        return false;
    for (size_t i = 0; i < n; i++)
        if (!is_lower_alnum(s[i]) && s[i] != '-')
            return false;
    return true;
}

static bool match_dns_subdomain(const char *s, size_t n)
{
    size_t start = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i == n || s[i] == '.') {
            if (!match_dns_label(s + start, i - start))
                return false;
            start = i + 1;
        }
    }
    return true;
}

void wh_is_dns1123_subdomain(const char *v, struct wh_vmsgs *out)
{
    size_t n = strlen(v);
    if (n > 253)
        wh_vmsg_add(out, "must be no more than 253 characters");
    if (!match_dns_subdomain(v, n))
        wh_vmsg_add(out, DNS1123_SUBDOMAIN_MSG
                    " (e.g. 'example.com', regex used for validation is '" DNS1123_SUBDOMAIN_FMT
                    "')");
}

void wh_is_dns1123_label(const char *v, struct wh_vmsgs *out)
{
    size_t n = strlen(v);
    if (n > 63)
        wh_vmsg_add(out, "must be no more than 63 characters");
    if (!match_dns_label(v, n)) {
        if (match_dns_subdomain(v, n))
            wh_vmsg_add(out, "must not contain dots");
        else
            wh_vmsg_add(out, DNS1123_LABEL_MSG " (e.g. 'my-name',  or '123-abc', regex used for "
                                               "validation is '" DNS1123_LABEL_FMT "')");
    }
}

void wh_is_qualified_name(const char *v, struct wh_vmsgs *out)
{
    const char *slash = strchr(v, '/');
    const char *name = v;
    if (slash && strchr(slash + 1, '/')) {
        wh_vmsg_add(out,
                    "a qualified name " QNAME_MSG " " QNAME_EXAMPLES
                    "regex used for validation is '" QNAME_FMT "')"
                    " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')");
        return;
    }
    if (slash) {
        size_t plen = (size_t)(slash - v);
        name = slash + 1;
        if (plen == 0) {
            wh_vmsg_add(out, "prefix part must be non-empty");
        } else {
            char prefix[512];
            struct wh_vmsgs pm = {0};
            snprintf(prefix, sizeof(prefix), "%.*s", (int)plen, v);
            if (plen >= sizeof(prefix))
                wh_vmsg_add(&pm, "must be no more than 253 characters");
            else
                wh_is_dns1123_subdomain(prefix, &pm);
            for (size_t i = 0; i < pm.n; i++)
                wh_vmsg_add(out, "prefix part %s", pm.m[i]);
        }
    }
    size_t n = strlen(name);
    if (n == 0)
        wh_vmsg_add(out, "name part must be non-empty");
    else if (n > 63)
        wh_vmsg_add(out, "name part must be no more than 63 characters");
    if (!match_qname(name, n))
        wh_vmsg_add(out, "name part " QNAME_MSG " " QNAME_EXAMPLES
                         "regex used for validation is '" QNAME_FMT "')");
}

void wh_is_valid_label_value(const char *v, struct wh_vmsgs *out)
{
    size_t n = strlen(v);
    if (n > 63)
        wh_vmsg_add(out, "must be no more than 63 characters");
    if (n > 0 && !match_qname(v, n))
        wh_vmsg_add(out, LABEL_VALUE_MSG " (e.g. 'MyValue',  or 'my_value',  or '12345', regex "
                                         "used for validation is '(" QNAME_FMT ")?')");
}

void wh_is_valid_port_name(const char *v, struct wh_vmsgs *out)
{
    size_t n = strlen(v);
    bool charset = n > 0, letter = false;
    if (n > 15)
        wh_vmsg_add(out, "must be no more than 15 characters");
    for (size_t i = 0; i < n; i++) {
        charset &= is_lower_alnum(v[i]) || v[i] == '-';
        letter |= v[i] >= 'a' && v[i] <= 'z';
    }
    if (!charset)
        wh_vmsg_add(out, "must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
    if (!letter)
        wh_vmsg_add(out, "must contain at least one letter (a-z)");
    if (strstr(v, "--"))
        wh_vmsg_add(out, "must not contain consecutive hyphens");
    if (n > 0 && (v[0] == '-' || v[n - 1] == '-'))
        wh_vmsg_add(out, "must not begin or end with a hyphen");
}

void wh_is_valid_port_num(long long port, struct wh_vmsgs *out)
{
    if (port < 1 || port > 65535)
        wh_vmsg_add(out, "must be between 1 and 65535, inclusive");
}

void wh_is_http_header_name(const char *v, struct wh_vmsgs *out)
{
    bool ok = *v != '\0';
    for (const char *c = v; *c && ok; c++)
        ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
             *c == '-';
    if (!ok)
        wh_vmsg_add(out, "a valid HTTP header must consist of alphanumeric characters or '-' (e.g. "
                         "'X-Header-Name', regex used for validation is '[-A-Za-z0-9]+')");
}

static void chdir_prefix(const char *v, struct wh_vmsgs *out)
{
    if (strcmp(v, ".") == 0)
        wh_vmsg_add(out, "must not be '.'");
    else if (strcmp(v, "..") == 0)
        wh_vmsg_add(out, "must not be '..'");
    else if (strncmp(v, "..", 2) == 0)
        wh_vmsg_add(out, "must not start with '..'");
}

void wh_is_env_var_name(const char *v, struct wh_vmsgs *out)
{
    bool ok = v[0] != 0 && !(v[0] >= '0' && v[0] <= '9');
    for (const char *p = v; *p && ok; p++)
        ok = isalnum((unsigned char)*p) || *p == '-' || *p == '.' || *p == '_';
    if (!ok)
        wh_vmsg_add(out, "a valid environment variable name must consist of alphabetic "
                         "characters, digits, '_', '-', or '.', and must not start with a digit "
                         "(e.g. 'my.env-name',  or 'MY_ENV.NAME',  or 'MyEnvName1', regex used "
                         "for validation is '[-._a-zA-Z][-._a-zA-Z0-9]*')");
    chdir_prefix(v, out);
}

void wh_is_config_map_key(const char *v, struct wh_vmsgs *out)
{
    size_t n = strlen(v);
    bool ok = n > 0;
    if (n > 253)
        wh_vmsg_add(out, "must be no more than 253 characters");
    for (size_t i = 0; i < n && ok; i++)
        ok = isalnum((unsigned char)v[i]) || v[i] == '-' || v[i] == '.' || v[i] == '_';
    if (!ok)
        wh_vmsg_add(out, "a valid config key must consist of alphanumeric characters, '-', '_' "
                         "or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used "
                         "for validation is '[-._a-zA-Z0-9]+')");
    chdir_prefix(v, out);
}

/* maskTrailingDash: a generateName may end in '-'; upstream replaces its last two bytes by
 * one 'a' (name[:len(name)-2] + "a"). Returns: new string, or NULL when v is left as it is. */
static char *mask_trailing_dash(const char *v)
{
    size_t n = strlen(v);
    if (n > 1 && v[n - 1] == '-')
        return wh_str_printf("%.*sa", (int)(n - 2), v);
    return NULL;
}

void wh_name_is_dns_subdomain(const char *v, bool prefix, struct wh_vmsgs *out)
{
    char *masked = prefix ? mask_trailing_dash(v) : NULL;
    wh_is_dns1123_subdomain(masked ? masked : v, out);
    free(masked);
}

void wh_name_is_dns_label(const char *v, bool prefix, struct wh_vmsgs *out)
{
    char *masked = prefix ? mask_trailing_dash(v) : NULL;
    wh_is_dns1123_label(masked ? masked : v, out);
    free(masked);
}

/* --- maps, in key order ------------------------------------------------------------------------
 */

static int cmp_keys(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Returns: new array of the object's keys in byte order (borrowed strings); *n its size. */
static const char **sorted_keys(const json_t *o, size_t *n)
{
    size_t k = 0;
    const char *key;
    json_t *v;
    *n = json_object_size(o);
    const char **keys = wh_xmalloc((*n ? *n : 1) * sizeof(*keys));
    json_object_foreach((json_t *)(uintptr_t)o, key, v) keys[k++] = key;
    qsort(keys, *n, sizeof(*keys), cmp_keys);
    return keys;
}

void wh_validate_label_name(struct wh_field_errors *l, const char *key, const char *path)
{
    struct wh_vmsgs m = {0};
    wh_is_qualified_name(key, &m);
    for (size_t i = 0; i < m.n; i++)
        wh_ferr_invalid_str(l, path, key, m.m[i]);
}

void wh_validate_labels(struct wh_field_errors *l, const json_t *labels, const char *path)
{
    size_t n;
    if (!json_is_object(labels))
        return;
    const char **keys = sorted_keys(labels, &n);
    for (size_t i = 0; i < n; i++) {
        const char *v = json_string_value(json_object_get(labels, keys[i]));
        struct wh_vmsgs m = {0};
        wh_validate_label_name(l, keys[i], path);
        wh_is_valid_label_value(v ? v : "", &m);
        for (size_t k = 0; k < m.n; k++)
            wh_ferr_invalid_str(l, path, v ? v : "", m.m[k]);
    }
    free(keys);
}

void wh_validate_annotations(struct wh_field_errors *l, const json_t *annotations, const char *path)
{
    size_t n, total = 0;
    if (!json_is_object(annotations))
        return;
    const char **keys = sorted_keys(annotations, &n);
    for (size_t i = 0; i < n; i++) {
        size_t kl = strlen(keys[i]);
        char *lower = wh_xmalloc(kl + 1);
        struct wh_vmsgs m = {0};
        for (size_t k = 0; k <= kl; k++)
            lower[k] = (char)tolower((unsigned char)keys[i][k]);
        wh_is_qualified_name(lower, &m);
        for (size_t k = 0; k < m.n; k++)
            wh_ferr_invalid_str(l, path, keys[i], m.m[k]);
        free(lower);
        total += kl + json_string_length(json_object_get(annotations, keys[i]));
    }
    free(keys);
    if (total > ANNOTATIONS_MAX)
        wh_ferr_too_long(l, path, ANNOTATIONS_MAX);
}

void wh_validate_label_selector(struct wh_field_errors *l, const json_t *sel, const char *path)
{
    wh_validate_label_selector_opts(l, sel, false, path);
}

void wh_validate_label_selector_opts(struct wh_field_errors *l, const json_t *sel,
                                     bool allow_invalid_values, const char *path)
{
    char p[512];
    size_t i;
    const json_t *expr;
    if (!json_is_object(sel))
        return;
    wh_validate_labels(l, wh_json_obj(sel, "matchLabels"),
                       wh_fpath(p, sizeof(p), "%s.matchLabels", path));
    json_array_foreach(wh_json_arr(sel, "matchExpressions"), i, expr)
    {
        const char *op = wh_json_str(expr, "operator");
        const char *key = wh_json_str(expr, "key");
        const json_t *values = wh_json_arr(expr, "values");
        size_t nv = json_array_size(values);
        char base[512];
        wh_fpath(base, sizeof(base), "%s.matchExpressions[%zu]", path, i);
        op = op ? op : "";
        if (strcmp(op, "In") == 0 || strcmp(op, "NotIn") == 0) {
            if (nv == 0)
                wh_ferr_required(l, wh_fpath(p, sizeof(p), "%s.values", base),
                                 "must be specified when `operator` is 'In' or 'NotIn'");
        } else if (strcmp(op, "Exists") == 0 || strcmp(op, "DoesNotExist") == 0) {
            if (nv > 0)
                wh_ferr_forbidden(l, wh_fpath(p, sizeof(p), "%s.values", base),
                                  "may not be specified when `operator` is 'Exists' or "
                                  "'DoesNotExist'");
        } else {
            wh_ferr_invalid_str(l, wh_fpath(p, sizeof(p), "%s.operator", base), op,
                                "not a valid selector operator");
        }
        wh_validate_label_name(l, key ? key : "", wh_fpath(p, sizeof(p), "%s.key", base));
        for (size_t k = 0; k < nv && !allow_invalid_values; k++) {
            const char *v = json_string_value(json_array_get(values, k));
            struct wh_vmsgs m = {0};
            wh_is_valid_label_value(v ? v : "", &m);
            for (size_t j = 0; j < m.n; j++)
                wh_ferr_invalid_str(l, wh_fpath(p, sizeof(p), "%s.values[%zu]", base, k),
                                    v ? v : "", m.m[j]);
        }
    }
}

static void gosyntax_strings(struct wh_buf *b, const json_t *arr);

/* %#v of the values NewRequirement holds: a copy made with append, so none is a nil slice. */
static char *requirement_values(const json_t *values)
{
    struct wh_buf b;
    wh_buf_init(&b, 1u << 20);
    gosyntax_strings(&b, json_array_size(values) ? values : NULL);
    return wh_buf_take(&b, NULL);
}

/* labels.NewRequirement(key, op, values): its errors, in its order, as one aggregate. */
static void new_requirement(struct wh_field_errors *l, const char *key, const char *op,
                            const json_t *values)
{
    char p[512];
    struct wh_vmsgs m = {0};
    wh_is_qualified_name(key, &m);
    if (m.n) {
        char joined[1024] = "";
        for (size_t i = 0; i < m.n; i++)
            snprintf(joined + strlen(joined), sizeof(joined) - strlen(joined), "%s%s",
                     i ? "; " : "", m.m[i]);
        wh_ferr_invalid_str(l, "key", key, joined);
    }
    size_t nv = json_array_size(values);
    char *rendered = requirement_values(values);
    if ((!strcmp(op, "in") || !strcmp(op, "notin")) && nv == 0)
        wh_ferr_invalid_raw(l, "values", rendered,
                            "for 'in', 'notin' operators, values set can't be empty");
    else if (!strcmp(op, "=") && nv != 1)
        wh_ferr_invalid_raw(l, "values", rendered,
                            "exact-match compatibility requires one single value");
    else if ((!strcmp(op, "exists") || !strcmp(op, "!")) && nv != 0)
        wh_ferr_invalid_raw(l, "values", rendered,
                            "values set must be empty for exists and does not exist");
    free(rendered);
    for (size_t i = 0; i < nv; i++) {
        const char *v = json_string_value(json_array_get(values, i));
        struct wh_vmsgs vm = {0};
        wh_is_valid_label_value(v ? v : "", &vm);
        if (!vm.n)
            continue;
        char joined[1024] = "";
        for (size_t k = 0; k < vm.n; k++)
            snprintf(joined + strlen(joined), sizeof(joined) - strlen(joined), "%s%s",
                     k ? "; " : "", vm.m[k]);
        wh_ferr_invalid_str(l, wh_fpath(p, sizeof(p), "values[%zu][%s]", i, key), v ? v : "",
                            joined);
    }
}

char *wh_label_selector_error(const json_t *sel)
{
    if (!json_is_object(sel))
        return NULL;
    struct wh_field_errors l;
    wh_ferrs_init(&l);
    char *err = NULL;
    /* Go walks matchLabels in map order; byte order here, so the first error is stable */
    size_t n;
    const json_t *labels = wh_json_obj(sel, "matchLabels");
    const char **keys = labels ? sorted_keys(labels, &n) : NULL;
    for (size_t i = 0; keys && i < n && !l.n; i++) {
        const json_t *one = json_pack("[O]", json_object_get(labels, keys[i]));
        new_requirement(&l, keys[i], "=", one);
        json_decref((json_t *)(uintptr_t)one);
    }
    free(keys);
    size_t i;
    const json_t *expr;
    json_array_foreach(l.n ? NULL : wh_json_arr(sel, "matchExpressions"), i, expr)
    {
        static const char *const ops[][2] = {
            {"In", "in"}, {"NotIn", "notin"}, {"Exists", "exists"}, {"DoesNotExist", "!"}};
        const char *op = wh_json_str_or_empty(expr, "operator");
        const char *sop = NULL;
        for (size_t k = 0; k < 4 && !sop; k++)
            sop = strcmp(op, ops[k][0]) == 0 ? ops[k][1] : NULL;
        if (!sop) {
            char *q = wh_go_quote(op);
            err = wh_str_printf("%s is not a valid label selector operator", q);
            free(q);
            break;
        }
        new_requirement(&l, wh_json_str_or_empty(expr, "key"), sop, wh_json_arr(expr, "values"));
        if (l.n)
            break;
    }
    if (l.n)
        err = wh_ferrs_aggregate(&l);
    wh_ferrs_fini(&l);
    return err;
}

bool wh_label_selector_convertible(const json_t *sel)
{
    char *why = wh_label_selector_error(sel);
    free(why);
    return !why;
}

void wh_validate_nonnegative(struct wh_field_errors *l, long long v, const char *path)
{
    if (v < 0)
        wh_ferr_invalid_int(l, path, v, "must be greater than or equal to 0");
}

char *wh_gosyntax_intstr(const json_t *v)
{
    if (json_is_string(v)) {
        char *q = wh_go_quote(json_string_value(v));
        char *out = wh_str_printf("intstr.IntOrString{Type:1, IntVal:0, StrVal:%s}", q);
        free(q);
        return out;
    }
    return wh_str_printf("intstr.IntOrString{Type:0, IntVal:%lld, StrVal:\"\"}",
                         (long long)json_integer_value(v));
}

/* validation.IsValidPercent: digits followed by one '%'. */
static bool valid_percent(const char *s)
{
    size_t n = strlen(s), i = 0;
    while (i < n && s[i] >= '0' && s[i] <= '9')
        i++;
    return i > 0 && i == n - 1 && s[i] == '%';
}

void wh_validate_positive_int_or_percent(struct wh_field_errors *l, const json_t *v,
                                         const char *path)
{
    if (json_is_string(v)) {
        if (!valid_percent(json_string_value(v))) {
            char *g = wh_gosyntax_intstr(v);
            wh_ferr_invalid_raw(l, path, g,
                                "a valid percent string must be a numeric string followed by an "
                                "ending '%' (e.g. '1%',  or '93%', regex used for validation is "
                                "'[0-9]+%')");
            free(g);
        }
    } else {
        wh_validate_nonnegative(l, json_integer_value(v), path);
    }
}

void wh_validate_not_more_than_100_percent(struct wh_field_errors *l, const json_t *v,
                                           const char *path)
{
    if (!json_is_string(v) || !valid_percent(json_string_value(v)))
        return;
    /* strconv.Atoi saturates on overflow, which is more than 100 too */
    const char *s = json_string_value(v);
    size_t digits = strlen(s) - 1;
    while (digits > 1 && *s == '0') {
        s++;
        digits--;
    }
    if (digits < 3 || (digits == 3 && strncmp(s, "100", 3) <= 0))
        return;
    char *g = wh_gosyntax_intstr(v);
    wh_ferr_invalid_raw(l, path, g, "must not be greater than 100%");
    free(g);
}

static void gosyntax_owner_reference(struct wh_buf *b, const json_t *ref);

/* schema.FromAPIVersionAndKind's version: ParseGroupVersion of apiVersion, whose failure (more
 * than one '/') leaves it empty. */
static const char *owner_version(const char *av, bool *legacy)
{
    const char *slash = strchr(av, '/');
    *legacy = !slash || slash == av;
    if (!slash)
        return av;
    return strchr(slash + 1, '/') ? "" : slash + 1;
}

static void owner_references(struct wh_field_errors *l, const json_t *refs, const char *path)
{
    size_t i;
    const json_t *ref;
    char p[512];
    char first[512] = "";
    json_array_foreach(refs, i, ref)
    {
        const char *av = wh_json_str_or_empty(ref, "apiVersion");
        const char *kind = wh_json_str_or_empty(ref, "kind");
        const char *name = wh_json_str_or_empty(ref, "name");
        const char *uid = wh_json_str_or_empty(ref, "uid");
        bool legacy;
        const char *version = owner_version(av, &legacy);
        if (!*version)
            wh_ferr_invalid_str(l, wh_fpath(p, sizeof(p), "%s.apiVersion", path), av,
                                "version must not be empty");
        if (!*kind)
            wh_ferr_invalid_str(l, wh_fpath(p, sizeof(p), "%s.kind", path), kind,
                                "kind must not be empty");
        if (!*name)
            wh_ferr_invalid_str(l, wh_fpath(p, sizeof(p), "%s.name", path), name,
                                "name must not be empty");
        if (!*uid)
            wh_ferr_invalid_str(l, wh_fpath(p, sizeof(p), "%s.uid", path), uid,
                                "uid must not be empty");
        /* BannedOwners: the core Event */
        if (legacy && strcmp(version, "v1") == 0 && strcmp(kind, "Event") == 0) {
            struct wh_buf b;
            wh_buf_init(&b, 1u << 20);
            gosyntax_owner_reference(&b, ref);
            wh_ferr_invalid_raw(l, path, b.data ? b.data : "",
                                "/v1, Kind=Event is disallowed from being an owner");
            wh_buf_fini(&b);
        }
        if (wh_json_bool(ref, "controller")) {
            char cur[512];
            snprintf(cur, sizeof(cur), "%s/%s", kind, name);
            if (first[0]) {
                char detail[1200];
                struct wh_buf b;
                size_t k;
                const json_t *r;
                snprintf(detail, sizeof(detail),
                         "Only one reference can have Controller set to true. Found \"true\" in "
                         "references for %s and %s",
                         first, cur);
                wh_buf_init(&b, 1u << 20);
                wh_buf_put(&b, "%s", "[]v1.OwnerReference{");
                json_array_foreach(refs, k, r)
                {
                    wh_buf_put(&b, "%s", k ? ", " : "");
                    gosyntax_owner_reference(&b, r);
                }
                wh_buf_put(&b, "%s", "}");
                wh_ferr_invalid_raw(l, path, b.data, detail);
                wh_buf_fini(&b);
            } else {
                snprintf(first, sizeof(first), "%s", cur);
            }
        }
    }
}

/* ValidateManagedFields (apimachinery's meta/v1 validation). */
static void managed_fields(struct wh_field_errors *l, const json_t *list, const char *path)
{
    size_t i;
    const json_t *f;
    char p[512];
    json_array_foreach(list, i, f)
    {
        const char *op = wh_json_str_or_empty(f, "operation");
        const char *ft = wh_json_str_or_empty(f, "fieldsType");
        const char *manager = wh_json_str_or_empty(f, "manager");
        if (strcmp(op, "Apply") && strcmp(op, "Update"))
            wh_ferr_invalid_str(l, wh_fpath(p, sizeof(p), "%s[%zu].operation", path, i), op,
                                "must be `Apply` or `Update`");
        if (*ft && strcmp(ft, "FieldsV1"))
            wh_ferr_invalid_str(l, wh_fpath(p, sizeof(p), "%s[%zu].fieldsType", path, i), ft,
                                "must be `FieldsV1`");
        wh_fpath(p, sizeof(p), "%s[%zu].manager", path, i);
        if (strlen(manager) > 128)
            wh_ferr_too_long(l, p, 128);
        for (size_t k = 0; manager[k];) {
            uint32_t r;
            size_t n = wh_go_rune(manager + k, &r);
            if (!wh_go_is_print(r)) {
                char detail[96];
                snprintf(detail, sizeof(detail), "invalid character U+%04X (at position %zu)",
                         (unsigned)r, k);
                wh_ferr_invalid_str(l, p, manager, detail);
            }
            k += n;
        }
        if (strlen(wh_json_str_or_empty(f, "subresource")) > 256)
            wh_ferr_too_long(l, wh_fpath(p, sizeof(p), "%s[%zu].subresource", path, i), 256);
    }
}

/* What creates and updates check alike: labels, annotations, owner references (then the
 * managed fields, after the finalizers on create). */
static void labels_annotations_owners(struct wh_field_errors *l, const json_t *meta,
                                      const char *path)
{
    char p[512];
    wh_validate_labels(l, wh_json_obj(meta, "labels"), wh_fpath(p, sizeof(p), "%s.labels", path));
    wh_validate_annotations(l, wh_json_obj(meta, "annotations"),
                            wh_fpath(p, sizeof(p), "%s.annotations", path));
    owner_references(l, wh_json_arr(meta, "ownerReferences"),
                     wh_fpath(p, sizeof(p), "%s.ownerReferences", path));
}

/* validateKubeFinalizerName: a name without '/' must be a standard one (whether a name is
 * qualified is apimachinery's check, on create only, at the list's path). */
static void kube_finalizer_name(struct wh_field_errors *l, const char *s, const char *path)
{
    if (!strchr(s, '/') && strcmp(s, "kubernetes") && strcmp(s, "orphan") &&
        strcmp(s, "foregroundDeletion"))
        wh_ferr_invalid_str(l, path, s,
                            "name is neither a standard finalizer name nor is it fully qualified");
}

void wh_validate_object_meta(struct wh_field_errors *l, const json_t *meta, bool requires_namespace,
                             wh_name_fn name_fn, const char *path)
{
    char p[512];
    const char *gen = wh_json_str(meta, "generateName");
    const char *name = wh_json_str(meta, "name");
    const char *ns = wh_json_str(meta, "namespace");
    if (gen && *gen) {
        struct wh_vmsgs m = {0};
        name_fn(gen, true, &m);
        for (size_t i = 0; i < m.n; i++)
            wh_ferr_invalid_str(l, wh_fpath(p, sizeof(p), "%s.generateName", path), gen, m.m[i]);
    }
    if (!name || !*name) {
        wh_ferr_required(l, wh_fpath(p, sizeof(p), "%s.name", path),
                         "name or generateName is required");
    } else {
        struct wh_vmsgs m = {0};
        name_fn(name, false, &m);
        for (size_t i = 0; i < m.n; i++)
            wh_ferr_invalid_str(l, wh_fpath(p, sizeof(p), "%s.name", path), name, m.m[i]);
    }
    if (requires_namespace) {
        if (!ns || !*ns) {
            wh_ferr_required(l, wh_fpath(p, sizeof(p), "%s.namespace", path), "");
        } else {
            struct wh_vmsgs m = {0};
            wh_is_dns1123_label(ns, &m);
            for (size_t i = 0; i < m.n; i++)
                wh_ferr_invalid_str(l, wh_fpath(p, sizeof(p), "%s.namespace", path), ns, m.m[i]);
        }
    } else if (ns && *ns) {
        wh_ferr_forbidden(l, wh_fpath(p, sizeof(p), "%s.namespace", path),
                          "not allowed on this type");
    }
    wh_validate_nonnegative(l, json_integer_value(json_object_get(meta, "generation")),
                            wh_fpath(p, sizeof(p), "%s.generation", path));
    labels_annotations_owners(l, meta, path);

    size_t i;
    const json_t *f;
    bool orphan = false, foreground = false;
    wh_fpath(p, sizeof(p), "%s.finalizers", path);
    json_array_foreach(wh_json_arr(meta, "finalizers"), i, f)
    {
        const char *s = json_string_value(f);
        struct wh_vmsgs m = {0};
        wh_is_qualified_name(s ? s : "", &m);
        for (size_t k = 0; k < m.n; k++)
            wh_ferr_invalid_str(l, p, s ? s : "", m.m[k]);
        orphan |= s && strcmp(s, "orphan") == 0;
        foreground |= s && strcmp(s, "foregroundDeletion") == 0;
    }
    if (orphan && foreground) {
        struct wh_buf b;
        wh_buf_init(&b, 1u << 20);
        gosyntax_strings(&b, wh_json_arr(meta, "finalizers"));
        wh_ferr_invalid_raw(l, p, b.data ? b.data : "",
                            "finalizer orphan and foregroundDeletion cannot be both set");
        wh_buf_fini(&b);
    }
    managed_fields(l, wh_json_arr(meta, "managedFields"),
                   wh_fpath(p, sizeof(p), "%s.managedFields", path));
}

void wh_validate_kube_object_meta(struct wh_field_errors *l, const json_t *meta,
                                  bool requires_namespace, wh_name_fn name_fn, const char *path)
{
    char p[512];
    size_t i;
    const json_t *f;
    wh_validate_object_meta(l, meta, requires_namespace, name_fn, path);
    json_array_foreach(wh_json_arr(meta, "finalizers"), i, f)
    {
        kube_finalizer_name(l, json_is_string(f) ? json_string_value(f) : "",
                            wh_fpath(p, sizeof(p), "%s.finalizers[%zu]", path, i));
    }
}

/* netutils.ParseIPSloppy (a fork of Go 1.16's net.ParseIP: IPv4 components may have leading
 * zeros). */
static bool dtoi(const char **s, int *n)
{
    int v = 0, i = 0;
    for (; (*s)[i] >= '0' && (*s)[i] <= '9'; i++) {
        v = v * 10 + ((*s)[i] - '0');
        if (v >= 0xFFFFFF)
            return false;
    }
    if (i == 0)
        return false;
    *s += i;
    *n = v;
    return true;
}

static bool parse_ipv4(const char *s)
{
    for (int i = 0; i < 4; i++) {
        int n;
        if (!*s)
            return false;
        if (i > 0) {
            if (*s != '.')
                return false;
            s++;
        }
        if (!dtoi(&s, &n) || n > 0xFF)
            return false;
    }
    return *s == '\0';
}

static int hexval(char c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

static bool parse_ipv6(const char *s)
{
    int ellipsis = -1, i = 0;
    if (s[0] == ':' && s[1] == ':') {
        ellipsis = 0;
        s += 2;
        if (!*s)
            return true;
    }
    while (i < 16) {
        int n = 0, c = 0;
        for (; hexval(s[c]) >= 0; c++) {
            n = n * 16 + hexval(s[c]);
            if (n >= 0xFFFFFF)
                return false;
        }
        if (c == 0 || n > 0xFFFF)
            return false;
        if (s[c] == '.') {
            if ((ellipsis < 0 && i != 12) || i + 4 > 16 || !parse_ipv4(s))
                return false;
            s = "";
            i += 4;
            break;
        }
        i += 2;
        s += c;
        if (!*s)
            break;
        if (*s != ':' || !s[1])
            return false;
        s++;
        if (*s == ':') {
            if (ellipsis >= 0)
                return false;
            ellipsis = i;
            s++;
            if (!*s)
                break;
        }
    }
    if (*s)
        return false;
    if (i < 16)
        return ellipsis >= 0;
    return ellipsis < 0;
}

bool wh_ip_sloppy_valid(const char *value)
{
    for (const char *c = value; *c; c++) {
        if (*c == '.')
            return parse_ipv4(value);
        if (*c == ':')
            return parse_ipv6(value);
    }
    return false;
}

void wh_validate_ip(struct wh_field_errors *l, const char *value, const char *path)
{
    if (!wh_ip_sloppy_valid(value))
        wh_ferr_invalid_str(l, path, value,
                            "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)");
}

/* --- Go syntax (%#v) -----------------------------------------------------------------------------
 */

/* Appends to b; a value rendered for an error message over the 1 MiB cap is cut short, which
 * only shortens the message. */
static void gosyntax_strings(struct wh_buf *b, const json_t *arr)
{
    size_t i;
    const json_t *v;
    if (!json_is_array(arr)) {
        wh_buf_put(b, "%s", "[]string(nil)");
        return;
    }
    wh_buf_put(b, "%s", "[]string{");
    json_array_foreach(arr, i, v)
    {
        char *q = wh_go_quote(json_string_value(v) ? json_string_value(v) : "");
        wh_buf_put(b, "%s%s", i ? ", " : "", q);
        free(q);
    }
    wh_buf_put(b, "}");
}

static void gosyntax_owner_reference(struct wh_buf *b, const json_t *ref)
{
    static const char *const strs[][2] = {
        {"apiVersion", "APIVersion"}, {"kind", "Kind"}, {"name", "Name"}, {"uid", "UID"}};
    wh_buf_put(b, "%s", "v1.OwnerReference{");
    for (size_t i = 0; i < 4; i++) {
        char *q = wh_go_quote(wh_json_str_or_empty(ref, strs[i][0]));
        wh_buf_put(b, "%s%s:%s", i ? ", " : "", strs[i][1], q);
        free(q);
    }
    wh_buf_put(b, ", Controller:(*bool)(%s)",
               wh_json_present(ref, "controller") ? WH_GO_ADDRESS : "nil");
    wh_buf_put(b, ", BlockOwnerDeletion:(*bool)(%s)}",
               wh_json_present(ref, "blockOwnerDeletion") ? WH_GO_ADDRESS : "nil");
}

static void gosyntax_map(struct wh_buf *b, const json_t *m)
{
    size_t n;
    if (!json_is_object(m)) {
        wh_buf_put(b, "%s", "map[string]string(nil)");
        return;
    }
    const char **keys = sorted_keys(m, &n);
    wh_buf_put(b, "%s", "map[string]string{");
    for (size_t i = 0; i < n; i++) {
        const char *v = json_string_value(json_object_get(m, keys[i]));
        char *qk = wh_go_quote(keys[i]), *qv = wh_go_quote(v ? v : "");
        wh_buf_put(b, "%s%s:%s", i ? ", " : "", qk, qv);
        free(qk);
        free(qv);
    }
    wh_buf_put(b, "}");
    free(keys);
}

char *wh_gosyntax_string_struct(const char *type, const json_t *obj, const char *const (*fields)[2],
                                size_t n)
{
    struct wh_buf b;
    wh_buf_init(&b, 1u << 20);
    wh_buf_put(&b, "%s{", type);
    for (size_t i = 0; i < n; i++) {
        char *q = wh_go_quote(wh_json_str_or_empty(obj, fields[i][0]));
        wh_buf_put(&b, "%s%s:%s", i ? ", " : "", fields[i][1], q);
        free(q);
    }
    wh_buf_put(&b, "}");
    return wh_buf_take(&b, NULL);
}

char *wh_gosyntax_strings(const json_t *arr)
{
    struct wh_buf b;
    wh_buf_init(&b, 1u << 20);
    gosyntax_strings(&b, arr);
    return wh_buf_take(&b, NULL);
}

char *wh_gosyntax_string_map(const json_t *m)
{
    struct wh_buf b;
    wh_buf_init(&b, 1u << 20);
    gosyntax_map(&b, m);
    return wh_buf_take(&b, NULL);
}

char *wh_gosyntax_label_selector(const json_t *sel)
{
    struct wh_buf b;
    size_t i;
    const json_t *e;
    wh_buf_init(&b, 1u << 20);
    wh_buf_put(&b, "%s", "v1.LabelSelector{MatchLabels:");
    gosyntax_map(&b, json_object_get(sel, "matchLabels"));
    wh_buf_put(&b, "%s", ", MatchExpressions:");
    const json_t *exprs = wh_json_arr(sel, "matchExpressions");
    if (!exprs) {
        wh_buf_put(&b, "%s", "[]v1.LabelSelectorRequirement(nil)");
    } else {
        wh_buf_put(&b, "%s", "[]v1.LabelSelectorRequirement{");
        json_array_foreach(exprs, i, e)
        {
            const char *key = wh_json_str(e, "key"), *op = wh_json_str(e, "operator");
            char *qk = wh_go_quote(key ? key : ""), *qo = wh_go_quote(op ? op : "");
            wh_buf_put(&b,
                       "%sv1.LabelSelectorRequirement{Key:%s, Operator:%s, Values:", i ? ", " : "",
                       qk, qo);
            gosyntax_strings(&b, json_object_get(e, "values"));
            wh_buf_put(&b, "}");
            free(qk);
            free(qo);
        }
        wh_buf_put(&b, "}");
    }
    wh_buf_put(&b, "}");
    return wh_buf_take(&b, NULL);
}

char *wh_gostring_label_selector(const json_t *sel)
{
    if (!json_is_object(sel))
        return wh_xstrdup("nil");
    struct wh_buf b;
    size_t i, n;
    const json_t *e;
    wh_buf_init(&b, 1u << 20);
    /* The generated protobuf String(): labels sorted as "k: v,", requirements without their
     * leading '&', values with %v ("[a b]"), every member followed by a comma. */
    wh_buf_put(&b, "%s", "&LabelSelector{MatchLabels:map[string]string{");
    const json_t *labels = json_object_get(sel, "matchLabels");
    const char **keys = json_is_object(labels) ? sorted_keys(labels, &n) : NULL;
    for (i = 0; keys && i < n; i++) {
        const char *v = json_string_value(json_object_get(labels, keys[i]));
        wh_buf_put(&b, "%s: %s,", keys[i], v ? v : "");
    }
    free(keys);
    wh_buf_put(&b, "%s", "},MatchExpressions:[]LabelSelectorRequirement{");
    json_array_foreach(wh_json_arr(sel, "matchExpressions"), i, e)
    {
        wh_buf_put(&b, "LabelSelectorRequirement{Key:%s,Operator:%s,Values:[",
                   wh_json_str_or_empty(e, "key"), wh_json_str_or_empty(e, "operator"));
        size_t k;
        const json_t *v;
        json_array_foreach(wh_json_arr(e, "values"), k, v)
        {
            wh_buf_put(&b, "%s%s", k ? " " : "", json_string_value(v) ? json_string_value(v) : "");
        }
        wh_buf_put(&b, "%s", "],},");
    }
    wh_buf_put(&b, "%s", "},}");
    return wh_buf_take(&b, NULL);
}

char *wh_gostring_intstr(const json_t *v)
{
    if (!v || json_is_null(v))
        return wh_xstrdup("<nil>");
    if (json_is_string(v))
        return wh_xstrdup(json_string_value(v));
    return wh_str_printf("%lld", (long long)json_integer_value(v));
}

/* A metav1.Time member: false when absent, null or not a time (Go's zero time). */
static bool meta_time(const json_t *meta, const char *key, struct wh_gotime *t)
{
    const char *s = wh_json_str(meta, key);
    struct wh_errbuf eb = {{0}};
    return s && wh_gotime_parse(s, strlen(s), WH_GOTIME_RFC3339, t, &eb) == WH_OK;
}

/* metav1.Time as fmt prints it (time.Time.String of the UTC time, whole seconds):
 * "2025-01-01 00:00:00 +0000 UTC"; the zero time when absent. */
static void go_time_string(bool present, struct wh_gotime t, char *out, size_t outsz)
{
    char rfc[WH_GOTIME_MAX];
    if (!present) {
        snprintf(out, outsz, "0001-01-01 00:00:00 +0000 UTC");
        return;
    }
    t.nsec = 0;
    size_t n = wh_gotime_format(t, WH_GOTIME_RFC3339, rfc, sizeof(rfc));
    /* "2025-01-01T00:00:00Z" */
    if (n > 1 && rfc[n - 1] == 'Z')
        rfc[n - 1] = '\0';
    char *tee = strchr(rfc, 'T');
    if (tee)
        *tee = ' ';
    snprintf(out, outsz, "%s +0000 UTC", rfc);
}

/* ValidateImmutableField of a string member (a name, or a named string type such as a UID). */
static void immutable_str(struct wh_field_errors *l, const json_t *meta, const json_t *old,
                          const char *key, const char *path)
{
    const char *a = wh_json_str_or_empty(meta, key), *b = wh_json_str_or_empty(old, key);
    char p[512];
    if (strcmp(a, b) != 0)
        wh_ferr_invalid_str(l, wh_fpath(p, sizeof(p), "%s.%s", path, key), a, "field is immutable");
}

/* The same for a time (compared as instants; nil and zero alike), printed as Go prints it. */
static void immutable_time(struct wh_field_errors *l, const json_t *meta, const json_t *old,
                           const char *key, bool pointer, const char *path)
{
    struct wh_gotime ta = {0, 0}, tb = {0, 0};
    bool ha = meta_time(meta, key, &ta), hb = meta_time(old, key, &tb);
    if (ha == hb && ta.sec == tb.sec && ta.nsec == tb.nsec)
        return;
    char p[512], v[64];
    if (pointer && !ha)
        snprintf(v, sizeof(v), "\"null\"");
    else
        go_time_string(ha, ta, v, sizeof(v));
    wh_ferr_invalid_raw(l, wh_fpath(p, sizeof(p), "%s.%s", path, key), v, "field is immutable");
}

void wh_validate_object_meta_update(struct wh_field_errors *l, const json_t *meta,
                                    const json_t *old_meta, const char *path)
{
    char p[512];
    wh_fpath(p, sizeof(p), "%s.finalizers", path);
    const json_t *fin = wh_json_arr(meta, "finalizers"),
                 *old_fin = wh_json_arr(old_meta, "finalizers");
    if (wh_json_present(old_meta, "deletionTimestamp")) {
        /* sets.NewString(new...).Difference(old...).List(): sorted, unique */
        struct wh_buf b;
        wh_buf_init(&b, 1 << 16);
        const char **extra = wh_xcalloc(json_array_size(fin) + 1, sizeof(*extra));
        size_t n = 0, i, k;
        const json_t *f, *o;
        json_array_foreach(fin, i, f)
        {
            const char *s = json_string_value(f);
            bool known = !s;
            json_array_foreach(old_fin, k, o) known |= s && wh_str_eq(json_string_value(o), s);
            for (size_t j = 0; j < n && !known; j++)
                known = strcmp(extra[j], s) == 0;
            if (!known)
                extra[n++] = s;
        }
        qsort(extra, n, sizeof(*extra), cmp_keys);
        enum wh_err rc = wh_buf_adds(&b, "no new finalizers can be added if the object is being "
                                         "deleted, found new finalizers []string{");
        for (i = 0; i < n && !rc; i++) {
            char *q = wh_go_quote(extra[i]);
            rc = wh_buf_printf(&b, "%s%s", i ? ", " : "", q);
            free(q);
        }
        if (!rc)
            rc = wh_buf_addc(&b, '}');
        if (n > 0 && !rc)
            wh_ferr_forbidden(l, p, b.data);
        free(extra);
        wh_buf_fini(&b);
    }
    const char *rv = wh_json_str_or_empty(meta, "resourceVersion");
    if (!*rv)
        wh_ferr_invalid_str(l, wh_fpath(p, sizeof(p), "%s.resourceVersion", path), rv,
                            "must be specified for an update");
    long long gen = json_integer_value(json_object_get(meta, "generation"));
    if (gen < json_integer_value(json_object_get(old_meta, "generation")))
        wh_ferr_invalid_int(l, wh_fpath(p, sizeof(p), "%s.generation", path), gen,
                            "must not be decremented");
    immutable_str(l, meta, old_meta, "name", path);
    immutable_str(l, meta, old_meta, "namespace", path);
    immutable_str(l, meta, old_meta, "uid", path);
    immutable_time(l, meta, old_meta, "creationTimestamp", false, path);
    immutable_time(l, meta, old_meta, "deletionTimestamp", true, path);
    const json_t *g = json_object_get(meta, "deletionGracePeriodSeconds");
    const json_t *og = json_object_get(old_meta, "deletionGracePeriodSeconds");
    bool hg = json_is_integer(g), hog = json_is_integer(og);
    if (hg != hog || (hg && json_integer_value(g) != json_integer_value(og))) {
        char v[32];
        if (hg)
            snprintf(v, sizeof(v), "%lld", (long long)json_integer_value(g));
        else
            snprintf(v, sizeof(v), "\"null\"");
        wh_ferr_invalid_raw(l, wh_fpath(p, sizeof(p), "%s.deletionGracePeriodSeconds", path), v,
                            "field is immutable");
    }
    labels_annotations_owners(l, meta, path);
    managed_fields(l, wh_json_arr(meta, "managedFields"),
                   wh_fpath(p, sizeof(p), "%s.managedFields", path));
    /* validateKubeFinalizerName: qualified, and a name without '/' must be a standard one */
    size_t i;
    const json_t *f;
    json_array_foreach(fin, i, f)
    {
        kube_finalizer_name(l, json_is_string(f) ? json_string_value(f) : "",
                            wh_fpath(p, sizeof(p), "%s.finalizers[%zu]", path, i));
    }
}
