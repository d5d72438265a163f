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

/* What runtime.DecodeInto's serializer makes of obj for the target api/kind: 0 the target
 * itself, 1 another type the scheme knows, 2 a kind the scheme lacks (the type meta read and
 * its apiVersion parsed), with the group version and kind named in *gv and *k. -1 with the
 * message in eb when the type meta does not read or the apiVersion does not parse. */
static int named_type(const json_t *obj, const char *api, const char *kind, struct wh_gv *gv,
                      struct wh_gv *target, const char **k, struct wh_errbuf *eb)
{
    struct wh_typemeta tm;
    char *msg = NULL;
    if (wh_typemeta_read(obj, &tm, &msg)) {
        wh_errbuf_set(eb, WH_ERR_INVALID, "%s", msg);
        free(msg);
        return -1;
    }
    if (!wh_ref_parse_gv(tm.api ? tm.api : "", gv)) {
        wh_errbuf_set(eb, WH_ERR_INVALID, "unexpected GroupVersion string: %.128s", tm.api);
        return -1;
    }
    if (!wh_ref_parse_gv(api, target))
        WH_PANIC("bad target apiVersion %s", api);
    *k = tm.kind && tm.kind[0] ? tm.kind : kind;
    /* the serializer fills an empty version (and then group) from the target type */
    if (!gv->version_len &&
        (!gv->group_len ||
         (gv->group_len == target->group_len && !memcmp(gv->group, target->group, gv->group_len))))
        *gv = *target;
    bool same = gv->group_len == target->group_len &&
                !memcmp(gv->group, target->group, gv->group_len) &&
                gv->version_len == target->version_len &&
                !memcmp(gv->version, target->version, gv->version_len) && strcmp(*k, kind) == 0;
    if (same)
        return 0;
    return wh_scheme_registered(gv->group, gv->group_len, gv->version, gv->version_len, *k) ? 1
                                                                                            : 2;
}

bool wh_typemeta_names_another(const json_t *obj, const char *api, const char *kind,
                               char *named_api, size_t n, const char **named_kind)
{
    struct wh_gv gv, target;
    struct wh_errbuf eb;
    if (named_type(obj, api, kind, &gv, &target, named_kind, &eb) != 1)
        return false;
    if (gv.group_len)
        snprintf(named_api, n, "%.*s/%.*s", (int)gv.group_len, gv.group, (int)gv.version_len,
                 gv.version);
    else
        snprintf(named_api, n, "%.*s", (int)gv.version_len, gv.version);
    return true;
}

enum wh_err wh_typemeta_decode_into(const json_t *obj, const char *api, const char *kind,
                                    bool registered, struct wh_errbuf *eb)
{
    struct wh_gv gv, target;
    const char *k = NULL;
    int named = named_type(obj, api, kind, &gv, &target, &k, eb);
    if (named < 0)
        return WH_ERR_INVALID;
    if (!registered || named == 0)
        return WH_OK;
    /* the serializer makes an object of the kind named, which the scheme must know */
    if (named == 2) {
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
    /* a GroupVersionKind prints as group/version, Kind=kind (the slash always there); the
     * target as %v of its pointer type, whose package is named after the version */
    return wh_errbuf_set(eb, WH_ERR_INVALID, "unable to decode %.*s/%.*s, Kind=%.128s into *%.*s.%s",
                         (int)gv.group_len, gv.group, (int)gv.version_len, gv.version, k,
                         (int)target.version_len, target.version, kind);
}
