#include "certs/store.h"

#include <stdlib.h>
#include <string.h>

#include "gocompat/gotime.h"
#include "util/json.h"
#include "util/mem.h"
#include "util/time.h"

static enum wh_err secret_path(char *buf, size_t bufsz, const char *ns, const char *name)
{
    return wh_kube_path_of(buf, bufsz, WH_RES_SECRET, ns, name, NULL);
}

void wh_certs_stored_fini(struct wh_certs_stored *s)
{
    free(s->resource_version);
    wh_certs_bundle_free(s->bundle);
    free(s->previous_ca);
    memset(s, 0, sizeof(*s));
}

void wh_certs_store_decode(const json_t *obj, enum wh_certs_secret_keys keys,
                           struct wh_certs_stored *out)
{
    struct wh_errbuf why = {{0}};
    memset(out, 0, sizeof(*out));
    if (!obj) {
        out->bundle = wh_certs_bundle_new();
        return;
    }
    out->exists = true;
    const char *rv = wh_json_meta_str(obj, "resourceVersion");
    out->resource_version = rv ? wh_xstrdup(rv) : NULL;
    if (wh_certs_secret_read(obj, keys, &out->bundle, &why) != WH_OK) {
        out->bundle = wh_certs_bundle_new();
        snprintf(out->problem, sizeof(out->problem), "%s", why.msg);
    }
    const char *prev = wh_json_annotation(obj, WH_CERTS_ANN_PREVIOUS_CA);
    if (prev && *prev)
        out->previous_ca = wh_xstrdup(prev);
    const char *since = wh_json_annotation(obj, WH_CERTS_ANN_PREVIOUS_SINCE);
    struct wh_gotime t;
    if (since && wh_gotime_parse(since, strlen(since), WH_GOTIME_RFC3339, &t, NULL) == WH_OK)
        out->previous_since = (time_t)t.sec;
}

enum wh_err wh_certs_store_read(struct wh_kube_client *c, const char *ns, const char *name,
                                enum wh_certs_secret_keys keys, struct wh_certs_stored *out,
                                struct wh_errbuf *eb)
{
    char path[512];
    json_t *obj = NULL;
    struct wh_kube_status st = {0};

    memset(out, 0, sizeof(*out));
    enum wh_err rc = secret_path(path, sizeof(path), ns, name);
    if (rc)
        return wh_errbuf_set(eb, rc, "Secret %s/%s: bad name", ns, name);
    rc = wh_kube_get(c, path, &obj, &st);
    if (rc && rc != WH_ERR_NOT_FOUND)
        return wh_errbuf_set(eb, rc, "get Secret %s/%s: %d %s", ns, name, st.code,
                             st.message[0] ? st.message : wh_strerror(rc));
    wh_certs_store_decode(obj, keys, out);
    json_decref(obj);
    return WH_OK;
}

json_t *wh_certs_store_object(const char *ns, const char *name, const struct wh_certs_bundle *b,
                              const char *previous_ca, time_t since)
{
    json_t *obj = wh_certs_secret_object(ns, name, NULL, b);
    if (previous_ca && *previous_ca) {
        char ts[WH_GOTIME_MAX];
        wh_gotime_format((struct wh_gotime){(int64_t)since, 0}, WH_GOTIME_RFC3339, ts, sizeof(ts));
        json_t *ann = wh_json_obj_ensure(wh_json_obj(obj, "metadata"), "annotations");
        if (json_object_set_new(ann, WH_CERTS_ANN_PREVIOUS_CA, json_string(previous_ca)) ||
            json_object_set_new(ann, WH_CERTS_ANN_PREVIOUS_SINCE, json_string(ts)))
            WH_PANIC("cannot build the Secret annotations");
    }
    return obj;
}

enum wh_err wh_certs_store_paths(const char *ns, const char *name, char *path, size_t pathsz,
                                 char *collection, size_t collsz)
{
    enum wh_err rc = secret_path(path, pathsz, ns, name);
    if (!rc)
        rc = secret_path(collection, collsz, ns, NULL);
    return rc;
}

enum wh_err wh_certs_store_read_for_cli(const char *ns, const char *name,
                                        struct wh_certs_bundle **out, struct wh_errbuf *eb)
{
    struct wh_kube_opts ko = {
        .kubeconfig = getenv("KUBECONFIG"), .timeout_ms = 10000, .max_retries = 2};
    struct wh_kube_client *c = NULL;
    struct wh_certs_stored s;
    enum wh_err rc = wh_kube_client_new(&ko, &c, eb);
    if (rc)
        return rc;
    rc = wh_certs_store_read(c, ns, name, WH_CERTS_SECRET_GENERATED, &s, eb);
    if (!rc && !s.exists)
        rc = wh_errbuf_set(eb, WH_ERR_NOT_FOUND, "Secret %s/%s not found", ns, name);
    if (!rc) {
        *out = s.bundle;
        s.bundle = NULL;
    }
    wh_certs_stored_fini(&s);
    wh_kube_client_free(c);
    return rc;
}
