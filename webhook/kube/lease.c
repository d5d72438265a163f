#include "kube/lease.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "gocompat/gotime.h"
#include "kube/client.h"
#include "util/json.h"
#include "util/time.h"

void wh_lease_microtime(int64_t wall_ns, char *out, size_t outsz)
{
    wh_gotime_format(wh_gotime_from_ns(wall_ns), WH_GOTIME_RFC3339_MICRO, out, outsz);
}

static void copy_str(char *dst, size_t dstsz, const char *src)
{
    snprintf(dst, dstsz, "%s", src ? src : "");
}

void wh_lease_parse(const json_t *lease, struct wh_lease_record *rec)
{
    const json_t *spec = wh_json_obj(lease, "spec");
    memset(rec, 0, sizeof(*rec));
    copy_str(rec->holder, sizeof(rec->holder), wh_json_str(spec, "holderIdentity"));
    rec->duration_s = json_integer_value(json_object_get(spec, "leaseDurationSeconds"));
    copy_str(rec->acquire_time, sizeof(rec->acquire_time), wh_json_str(spec, "acquireTime"));
    copy_str(rec->renew_time, sizeof(rec->renew_time), wh_json_str(spec, "renewTime"));
    struct wh_gotime renew;
    rec->renew = 0;
    if (rec->renew_time[0] && wh_gotime_parse(rec->renew_time, strlen(rec->renew_time),
                                              WH_GOTIME_RFC3339_MICRO, &renew, NULL) == WH_OK)
        rec->renew = (time_t)renew.sec;
    rec->transitions = json_integer_value(json_object_get(spec, "leaseTransitions"));
    copy_str(rec->resource_version, sizeof(rec->resource_version),
             wh_json_meta_str(lease, "resourceVersion"));
}

static void put(json_t *obj, const char *key, json_t *value)
{
    int r = json_object_set_new(obj, key, value);
    WH_ASSERT(r == 0 && value);
}

json_t *wh_lease_object(const char *ns, const char *name, const struct wh_lease_record *rec,
                        const json_t *labels, const json_t *annotations)
{
    json_t *o = json_object(), *meta = json_object(), *spec = json_object();
    put(o, "apiVersion", json_string("coordination.k8s.io/v1"));
    put(o, "kind", json_string("Lease"));
    put(meta, "namespace", json_string(ns));
    put(meta, "name", json_string(name));
    if (rec->resource_version[0])
        put(meta, "resourceVersion", json_string(rec->resource_version));
    if (labels)
        put(meta, "labels", wh_json_copy(labels));
    if (annotations)
        put(meta, "annotations", wh_json_copy(annotations));
    put(o, "metadata", meta);
    put(spec, "holderIdentity", json_string(rec->holder));
    put(spec, "leaseDurationSeconds", json_integer(rec->duration_s));
    if (rec->acquire_time[0])
        put(spec, "acquireTime", json_string(rec->acquire_time));
    if (rec->renew_time[0])
        put(spec, "renewTime", json_string(rec->renew_time));
    put(spec, "leaseTransitions", json_integer(rec->transitions));
    put(o, "spec", spec);
    return o;
}

enum wh_err wh_lease_path(char *buf, size_t bufsz, const char *ns, const char *name)
{
    return wh_kube_path_of(buf, bufsz, WH_RES_LEASE, ns, name, NULL);
}

void wh_lease_dns_label(const char *text, char *out, size_t max_len)
{
    size_t n = 0;
    bool dash = false;
    if (max_len > 253)
        max_len = 253;
    for (const char *p = text ? text : ""; *p && n < max_len; p++) {
        unsigned char ch = (unsigned char)*p;
        if (isalnum(ch) && ch < 0x80) {
            if (dash && n > 0 && n + 1 < max_len)
                out[n++] = '-';
            dash = false;
            out[n++] = (char)tolower(ch);
        } else {
            dash = true;
        }
    }
    while (n > 0 && out[n - 1] == '-')
        n--;
    if (n == 0)
        out[n++] = 'x';
    out[n] = '\0';
}
