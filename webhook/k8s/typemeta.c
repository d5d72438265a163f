#include "k8s/typemeta.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "k8s/ref.h"
#include "k8s/scheme.h"
#include "k8s/fielderr.h"
#include "util/json.h"
#include "util/mem.h"
#include "util/str.h"

enum wh_err wh_typemeta_read(const json_t *obj, struct wh_typemeta *tm, char **message)
{
    memset(tm, 0, sizeof(*tm));
    *message = NULL;
    if (!json_is_object(obj)) {
        const char *what = json_is_number(obj)    ? "number"
                           : json_is_boolean(obj) ? "bool"
                                                  : wh_json_type_name(obj);
        *message = wh_str_printf(
            "couldn't get version/kind; json parse error: json: cannot unmarshal %s into Go "
            "value of type struct { APIVersion string \"json:\\\"apiVersion,omitempty\\\"\"; "
            "Kind string \"json:\\\"kind,omitempty\\\"\" }",
            what);
        return WH_ERR_INVALID;
    }
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)(uintptr_t)obj, key, v)
    {
        bool is_api = strcasecmp(key, "apiVersion") == 0, is_kind = strcasecmp(key, "kind") == 0;
        if ((!is_api && !is_kind) || json_is_null(v))
            continue;
        if (!json_is_string(v)) {
            *message = wh_str_printf("couldn't get version/kind; json parse error: json: cannot "
                                     "unmarshal %s into Go struct field .%s of type string",
                                     wh_json_go_type_name(v), is_api ? "apiVersion" : "kind");
            return WH_ERR_INVALID;
        }
        if (is_api)
            tm->api = json_string_value(v);
        else
            tm->kind = json_string_value(v);
    }
    tm->typed_api = json_string_value(json_object_get(obj, "apiVersion"));
    tm->typed_kind = json_string_value(json_object_get(obj, "kind"));
    return WH_OK;
}

enum wh_err wh_typemeta_resolve(const json_t *obj, const char *api, const char *kind,
                                bool registered, struct wh_typemeta_named *named,
                                struct wh_errbuf *eb)
{
    memset(named, 0, sizeof(*named));
    struct wh_typemeta tm;
    char *msg = NULL;
    if (wh_typemeta_read(obj, &tm, &msg)) {
        enum wh_err rc = wh_errbuf_set(eb, WH_ERR_INVALID, "%s", msg);
        free(msg);
        return rc;
    }
    struct wh_gv gv, target;
    if (!wh_ref_parse_gv(tm.api ? tm.api : "", &gv))
        return wh_errbuf_set(eb, WH_ERR_INVALID, "unexpected GroupVersion string: %.128s",
                             tm.api);
    if (!registered)
        return WH_OK;
    if (!wh_ref_parse_gv(api, &target))
        WH_PANIC("bad target apiVersion %s", api);
    const char *k = tm.kind && tm.kind[0] ? tm.kind : kind;
    /* the serializer fills an empty version (and then group) from the target type */
    if (!gv.version_len &&
        (!gv.group_len ||
         (gv.group_len == target.group_len && !memcmp(gv.group, target.group, gv.group_len))))
        gv = target;
    bool same = gv.group_len == target.group_len && !memcmp(gv.group, target.group, gv.group_len) &&
                gv.version_len == target.version_len &&
                !memcmp(gv.version, target.version, gv.version_len) && strcmp(k, kind) == 0;
    if (same)
        return WH_OK;
    /* the serializer makes an object of the kind named, which the scheme must know */
    if (!wh_scheme_registered(gv.group, gv.group_len, gv.version, gv.version_len, k)) {
        char *qk = wh_go_quote(k);
        char *gvs = gv.group_len ? wh_str_printf("%.*s/%.*s", (int)gv.group_len, gv.group,
                                                 (int)gv.version_len, gv.version)
                                 : wh_str_printf("%.*s", (int)gv.version_len, gv.version);
        char *qv = wh_go_quote(gvs);
        enum wh_err rc = wh_errbuf_set(eb, WH_ERR_INVALID,
                                       "no kind %s is registered for version %s in scheme \"%s\"",
                                       qk, qv, WH_SCHEME_NAME);
        free(qk);
        free(gvs);
        free(qv);
        return rc;
    }
    named->other = true;
    if (gv.group_len)
        snprintf(named->api, sizeof(named->api), "%.*s/%.*s", (int)gv.group_len, gv.group,
                 (int)gv.version_len, gv.version);
    else
        snprintf(named->api, sizeof(named->api), "%.*s", (int)gv.version_len, gv.version);
    snprintf(named->kind, sizeof(named->kind), "%s", k);
    /* a GroupVersionKind prints as group/version, Kind=kind (the slash always there); the
     * target as %v of its pointer type, whose package is named after the version */
    snprintf(named->mismatch, sizeof(named->mismatch),
             "unable to decode %.*s/%.*s, Kind=%.128s into *%.*s.%s", (int)gv.group_len, gv.group,
             (int)gv.version_len, gv.version, k, (int)target.version_len, target.version, kind);
    return WH_OK;
}

enum wh_err wh_typemeta_decode_into(const json_t *obj, const char *api, const char *kind,
                                    bool registered, struct wh_errbuf *eb)
{
    struct wh_typemeta_named named;
    enum wh_err rc = wh_typemeta_resolve(obj, api, kind, registered, &named, eb);
    if (!rc && named.other)
        rc = wh_errbuf_set(eb, WH_ERR_INVALID, "%s", named.mismatch);
    return rc;
}
