#include "handlers/workloadspread/subset.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "k8s/ref.h"
#include "util/cow.h"
#include "util/json.h"
#include "util/mem.h"
#include "util/str.h"

#define INT32_MAX_LL 2147483647LL

const json_t *wh_ws_spec_subset(const json_t *ws, const char *name)
{
    size_t i;
    const json_t *s;
    json_array_foreach(wh_json_path(ws, "spec", "subsets", NULL), i, s)
    {
        if (wh_str_eq(wh_json_str(s, "name"), name))
            return s;
    }
    return NULL;
}

static bool has_max(const json_t *subset)
{
    return wh_json_present(subset, "maxReplicas");
}

const json_t *wh_ws_single_unlimited(const json_t *ws)
{
    const json_t *subsets = wh_json_path(ws, "spec", "subsets", NULL);
    if (json_array_size(subsets) != 1)
        return NULL;
    const json_t *s = json_array_get(subsets, 0);
    return has_max(s) ? NULL : s;
}

long long wh_ws_ordinal(const char *pod_name)
{
    const char *dash = pod_name ? strrchr(pod_name, '-') : NULL;
    if (!dash || !dash[1])
        return -1;
    for (const char *p = dash + 1; *p; p++) {
        if (*p < '0' || *p > '9')
            return -1;
    }
    long long v = 0;
    /* strconv.ParseInt(s, 10, 32): beyond int32 is an error, and the ordinal stays -1 */
    if (wh_str_to_ll(dash + 1, 0, INT32_MAX_LL, &v))
        return -1;
    return v;
}

/* Some condition of a subset status entry says Schedulable=False. */
static bool unschedulable_entry(const json_t *entry)
{
    size_t i;
    const json_t *c;
    json_array_foreach(wh_json_arr(entry, "conditions"), i, c)
    {
        if (wh_str_eq(wh_json_str(c, "type"), "Schedulable") &&
            wh_str_eq(wh_json_str(c, "status"), "False"))
            return true;
    }
    return false;
}

/* getSubsetCondition over status.subsetStatuses: the first Schedulable condition of an entry
 * with that name. */
static bool unschedulable_by_name(const json_t *ws, const char *name)
{
    size_t i;
    const json_t *e;
    json_array_foreach(wh_json_path(ws, "status", "subsetStatuses", NULL), i, e)
    {
        if (!wh_str_eq(wh_json_str(e, "name"), name))
            continue;
        size_t k;
        const json_t *c;
        json_array_foreach(wh_json_arr(e, "conditions"), k, c)
        {
            if (wh_str_eq(wh_json_str(c, "type"), "Schedulable"))
                return wh_str_eq(wh_json_str(c, "status"), "False");
        }
    }
    return false;
}

/* intstr IntValue(): the integer, or strconv.Atoi of the string with errors as 0. */
static long long int_value(const json_t *max)
{
    if (json_is_integer(max))
        return json_integer_value(max);
    if (!json_is_string(max))
        return 0;
    const char *s = json_string_value(max);
    long long v = 0;
    if (wh_str_to_ll(s, INT64_MIN, INT64_MAX, &v) || isspace((unsigned char)s[0]))
        return 0;
    return v;
}

const char *wh_ws_statefulset_subset(const json_t *ws, const char *pod_name)
{
    long long ordinal = wh_ws_ordinal(pod_name);
    long long threshold = 0;
    size_t i;
    const json_t *s;
    json_array_foreach(wh_json_path(ws, "spec", "subsets", NULL), i, s)
    {
        const char *name = wh_json_str_or_empty(s, "name");
        if (unschedulable_by_name(ws, name))
            continue;
        /* currently no reserveOrdinals: ordinals fill subsets in spec order */
        threshold += has_max(s) ? int_value(json_object_get(s, "maxReplicas")) : INT32_MAX_LL;
        if (ordinal < threshold)
            return name;
    }
    return NULL;
}

const char *wh_ws_pod_version(const json_t *pod)
{
    const json_t *owner = wh_ref_controller(pod);
    const char *kind = wh_json_str(owner, "kind");
    /* upstream's --ws-enabled-versioned-status set, always its default (spec 5.4) */
    if (!kind || (strcasecmp(kind, "deployment") != 0 && strcasecmp(kind, "replicaset") != 0))
        return WH_WS_VERSION_IGNORED;
    const char *hash = wh_json_label(pod, "pod-template-hash");
    if (hash)
        return hash;
    hash = wh_json_label(pod, "controller-revision-hash");
    if (hash) {
        const char *dash = strrchr(hash, '-');
        return dash ? dash + 1 : hash;
    }
    return WH_WS_VERSION_IGNORED;
}

/* int(d) as Go compiles it on amd64: a value outside int64 (or NaN) is math.MinInt64, where C
 * leaves the conversion undefined. */
static long long go_int_of_float(double d)
{
    if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0))
        return LLONG_MIN;
    return (long long)d;
}

bool wh_ws_scaled_max(const json_t *max, long long total, long long *out)
{
    *out = 0;
    if (json_is_integer(max)) {
        *out = json_integer_value(max);
        return true;
    }
    const char *s = json_is_string(max) ? json_string_value(max) : NULL;
    if (!s || !wh_str_has_suffix(s, "%"))
        return false;
    /* strconv.Atoi of what precedes the '%': a sign and decimal digits, any number of them (no
     * space; out of range is an error) */
    const char *pct = s + strlen(s) - 1;
    char *end = NULL;
    errno = 0;
    long long p = isspace((unsigned char)s[0]) ? 0 : strtoll(s, &end, 10);
    if (end != pct || end == s || errno)
        return false;
    *out = go_int_of_float(ceil((double)p * (double)total / 100.0));
    return true;
}

bool wh_ws_legacy_percent(const json_t *max, long long *out)
{
    *out = 0;
    if (json_is_integer(max)) {
        *out = json_integer_value(max);
        return true;
    }
    const char *s = json_is_string(max) ? json_string_value(max) : NULL;
    if (!s)
        return false;
    /* every '%' removed, then strconv.Atoi: a sign and decimal digits, nothing else */
    size_t n = strlen(s), k = 0;
    char *digits = wh_xmalloc(n + 1);
    for (size_t i = 0; i < n; i++)
        if (s[i] != '%')
            digits[k++] = s[i];
    digits[k] = '\0';
    const char *d = digits + (digits[0] == '+' || digits[0] == '-');
    bool ok = *d != '\0';
    for (const char *q = d; *q && ok; q++)
        ok = *q >= '0' && *q <= '9';
    long long p = 0;
    if (ok) {
        errno = 0;
        p = strtoll(digits, NULL, 10);
        ok = errno == 0;
    }
    free(digits);
    if (!ok)
        return false;
    /* it is a percent of 100: ceil(p * 100 / 100) in floating point, as upstream computes it */
    *out = go_int_of_float(ceil((double)p * 100.0 / 100.0));
    return true;
}

bool wh_ws_has_percent(const json_t *ws)
{
    size_t i;
    const json_t *s;
    json_array_foreach(wh_json_path(ws, "spec", "subsets", NULL), i, s)
    {
        const char *max = wh_json_str(s, "maxReplicas");
        if (max && wh_str_has_suffix(max, "%"))
            return true;
    }
    return false;
}

/* int32(v): the low 32 bits, as Go converts. */
static long long to_int32(long long v)
{
    return (long long)(int32_t)(uint32_t)(uint64_t)v;
}

/* initializedSubsetStatuses: one entry per spec subset. Returns in *out: new ref. */
static enum wh_err fresh_list(const json_t *ws, const struct wh_ws_pod_in *in, json_t **out,
                              struct wh_errbuf *eb)
{
    long long total = 0;
    if (in->total && wh_ws_has_percent(ws)) {
        enum wh_err rc = in->total(in->total_arg, &total, eb);
        if (rc)
            return rc;
    }
    json_t *list = json_array();
    size_t i;
    const json_t *s;
    json_array_foreach(wh_json_path(ws, "spec", "subsets", NULL), i, s)
    {
        long long missing = -1;
        if (has_max(s) && !wh_ws_scaled_max(json_object_get(s, "maxReplicas"), total, &missing))
            missing = 0;
        json_array_append_new(list, json_pack("{s:s,s:i,s:I}", "name",
                                              wh_json_str_or_empty(s, "name"), "replicas", 0,
                                              "missingReplicas", (json_int_t)to_int32(missing)));
    }
    *out = list;
    return WH_OK;
}

static long long missing_of(const json_t *entry)
{
    const json_t *m = json_object_get(entry, "missingReplicas");
    return json_is_integer(m) ? json_integer_value(m) : 0;
}

static bool recorded_in(const json_t *entry, const char *pod_name)
{
    return json_object_get(wh_json_obj(entry, "creatingPods"), pod_name) ||
           json_object_get(wh_json_obj(entry, "deletingPods"), pod_name);
}

/* The list of in->version (borrowed from current), or a fresh one (new ref in *fresh). */
static enum wh_err version_list(const json_t *current, const struct wh_ws_pod_in *in,
                                const json_t **list, json_t **fresh, struct wh_errbuf *eb)
{
    *fresh = NULL;
    *list = wh_json_path(current, "status", "versionedSubsetStatuses", NULL);
    *list = json_object_get(*list, in->version);
    if (json_is_array(*list) && json_array_size(*list) > 0)
        return WH_OK;
    enum wh_err rc = fresh_list(current, in, fresh, eb);
    *list = *fresh;
    return rc;
}

/* The whole object with entry i of the version's list (fresh: the list to store) given a
 * changed map member (creatingPods or deletingPods: key = timestamp) and missingReplicas.
 * Returns: new ref. */
static json_t *with_change(const json_t *current, const struct wh_ws_pod_in *in, json_t *fresh,
                           size_t i, const char *map, const char *key, long long missing)
{
    json_t *root = wh_cow_root(current);
    /* the write loop sets metadata.resourceVersion on what is returned */
    (void)wh_cow_object(root, "metadata", true);
    json_t *vss = wh_cow_path(root, "status", "versionedSubsetStatuses", NULL);
    json_t *list;
    if (fresh) {
        json_object_set(vss, in->version, fresh);
        list = fresh;
    } else {
        list = wh_cow_array(vss, in->version, true);
    }
    json_t *entry = wh_cow_elem(list, i);
    json_object_set_new(wh_cow_object(entry, map, true), key, json_string(in->timestamp));
    json_object_set_new(entry, "missingReplicas", json_integer((json_int_t)missing));
    return root;
}

static void copy_name(struct wh_ws_decision *d, const json_t *entry)
{
    snprintf(d->subset, sizeof(d->subset), "%s", wh_json_str_or_empty(entry, "name"));
}

/* 5.5 on list: fills d, and *desired when the status changes. */
static void choose_create(const json_t *current, const struct wh_ws_pod_in *in, const json_t *list,
                          json_t *fresh, struct wh_ws_decision *d, json_t **desired)
{
    size_t i;
    const json_t *e;
    if (in->name && in->name[0]) {
        /* a retried creation keeps the subset it was given */
        json_array_foreach(list, i, e)
        {
            if (recorded_in(e, in->name)) {
                d->outcome = WH_WS_RECORDED;
                copy_name(d, e);
                d->missing = d->missing_now = missing_of(e);
                return;
            }
        }
    }
    d->outcome = WH_WS_NO_SUBSET;
    json_array_foreach(list, i, e)
    {
        long long m = missing_of(e);
        if (unschedulable_entry(e) || !(m > 0 || m == -1))
            continue;
        copy_name(d, e);
        d->missing = d->missing_now = m;
        if (m == -1) {
            d->outcome = WH_WS_UNLIMITED;
            return;
        }
        d->outcome = WH_WS_COUNTED;
        d->used_uid = !(in->name && in->name[0]);
        d->missing_now = m - 1;
        *desired = with_change(current, in, fresh, i, "creatingPods",
                               d->used_uid ? in->uid : in->name, d->missing_now);
        return;
    }
}

/* 8.2 on list: as choose_create. */
static void choose_delete(const json_t *current, const struct wh_ws_pod_in *in, const json_t *list,
                          json_t *fresh, struct wh_ws_decision *d, json_t **desired)
{
    size_t i;
    const json_t *e;
    json_array_foreach(list, i, e)
    {
        if (recorded_in(e, in->name)) {
            d->outcome = WH_WS_RECORDED;
            return;
        }
    }
    d->outcome = WH_WS_NO_SUBSET;
    json_array_foreach(list, i, e)
    {
        if (!wh_str_eq(wh_json_str(e, "name"), in->subset))
            continue;
        copy_name(d, e);
        long long m = missing_of(e);
        d->missing = d->missing_now = m;
        if (m == -1) {
            d->outcome = WH_WS_UNLIMITED;
            return;
        }
        d->outcome = WH_WS_COUNTED;
        if (m >= 0)
            d->missing_now = m + 1;
        *desired = with_change(current, in, fresh, i, "deletingPods", in->name, d->missing_now);
        return;
    }
}

static enum wh_err decide(const json_t *current, const struct wh_ws_pod_in *in, bool create,
                          struct wh_ws_decision *d, json_t **desired, struct wh_errbuf *eb)
{
    memset(d, 0, sizeof(*d));
    *desired = NULL;
    const json_t *list = NULL;
    json_t *fresh = NULL;
    enum wh_err rc = version_list(current, in, &list, &fresh, eb);
    if (rc)
        return rc;
    if (create)
        choose_create(current, in, list, fresh, d, desired);
    else
        choose_delete(current, in, list, fresh, d, desired);
    json_decref(fresh);
    return WH_OK;
}

enum wh_err wh_ws_decide_create(const json_t *current, const struct wh_ws_pod_in *in,
                                struct wh_ws_decision *d, json_t **desired, struct wh_errbuf *eb)
{
    return decide(current, in, true, d, desired, eb);
}

enum wh_err wh_ws_decide_delete(const json_t *current, const struct wh_ws_pod_in *in,
                                struct wh_ws_decision *d, json_t **desired, struct wh_errbuf *eb)
{
    return decide(current, in, false, d, desired, eb);
}
