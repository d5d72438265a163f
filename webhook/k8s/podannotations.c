/* The annotations Pod validation reads (ValidatePodSpecificAnnotations: the mirror Pod, the
 * tolerations annotation, the seccomp and AppArmor annotations; and the seccomp and AppArmor
 * annotations checked against the fields on create), as k8s v1.32.10 words them. */
#include "k8s/podvalidation.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gocompat/goenc.h"
#include "k8s/podvalidation_int.h"
#include "k8s/scheduling.h"
#include "util/json.h"
#include "util/mem.h"
#include "util/str.h"

#define MIRROR_KEY "kubernetes.io/config.mirror"
#define TOLERATIONS_KEY "scheduler.alpha.kubernetes.io/tolerations"
#define SECCOMP_POD_KEY "seccomp.security.alpha.kubernetes.io/pod"
#define SECCOMP_CONTAINER_PREFIX "container.seccomp.security.alpha.kubernetes.io/"
#define APPARMOR_CONTAINER_PREFIX "container.apparmor.security.beta.kubernetes.io/"

/* --- the tolerations annotation, as encoding/json decodes []core.Toleration ---------------- */

/* A reader over JSON text already known to be valid (wh_goenc_valid). */
struct jr {
    const char *s;
    size_t i, n;
};

static void jr_ws(struct jr *r)
{
    while (r->i < r->n && strchr(" \t\r\n", r->s[r->i]))
        r->i++;
}

static char jr_peek(struct jr *r)
{
    jr_ws(r);
    return r->i < r->n ? r->s[r->i] : 0;
}

static unsigned hex4(const char *s)
{
    unsigned v = 0;
    for (int k = 0; k < 4; k++) {
        char c = s[k];
        v = v * 16 + (unsigned)(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
    }
    return v;
}

static void addc(struct wh_buf *b, char c)
{
    enum wh_err rc = wh_buf_addc(b, c);
    (void)rc; /* the cap is the annotation's own size limit and more */
}

static void put_utf8(struct wh_buf *b, unsigned cp)
{
    char u[4];
    size_t n;
    if (cp < 0x80) {
        u[0] = (char)cp;
        n = 1;
    } else if (cp < 0x800) {
        u[0] = (char)(0xC0 | cp >> 6);
        u[1] = (char)(0x80 | (cp & 0x3F));
        n = 2;
    } else if (cp < 0x10000) {
        u[0] = (char)(0xE0 | cp >> 12);
        u[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        u[2] = (char)(0x80 | (cp & 0x3F));
        n = 3;
    } else {
        u[0] = (char)(0xF0 | cp >> 18);
        u[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        u[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
        u[3] = (char)(0x80 | (cp & 0x3F));
        n = 4;
    }
    for (size_t i = 0; i < n; i++)
        addc(b, u[i]);
}

/* A string at the reader, decoded as Go decodes it (a lone surrogate becomes U+FFFD). Returns:
 * new string. */
static char *jr_string(struct jr *r)
{
    struct wh_buf b;
    wh_buf_init(&b, 1u << 24);
    jr_ws(r);
    r->i++; /* the opening quote */
    while (r->i < r->n && r->s[r->i] != '"') {
        char c = r->s[r->i++];
        if (c != '\\') {
            addc(&b, c);
            continue;
        }
        c = r->s[r->i++];
        if (c != 'u') {
            static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
            addc(&b, to[strchr(from, c) - from]);
            continue;
        }
        unsigned cp = hex4(r->s + r->i);
        r->i += 4;
        if (cp >= 0xD800 && cp < 0xDC00 && r->i + 6 <= r->n && r->s[r->i] == '\\' &&
            r->s[r->i + 1] == 'u') {
            unsigned lo = hex4(r->s + r->i + 2);
            if (lo >= 0xDC00 && lo < 0xE000) {
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                r->i += 6;
            }
        }
        if (cp >= 0xD800 && cp < 0xE000)
            cp = 0xFFFD;
        put_utf8(&b, cp);
    }
    r->i++; /* the closing quote */
    return wh_buf_take(&b, NULL);
}

/* Skips one value; returns the kind Go's UnmarshalTypeError names ("object", "array",
 * "string", "number", "bool", "null"), and the literal's span for a number. */
static const char *jr_skip(struct jr *r, const char **lit, size_t *litn)
{
    char c = jr_peek(r);
    size_t start = r->i;
    if (c == '{' || c == '[') {
        int depth = 0;
        bool in_str = false;
        for (; r->i < r->n; r->i++) {
            char d = r->s[r->i];
            if (in_str) {
                if (d == '\\')
                    r->i++;
                else if (d == '"')
                    in_str = false;
            } else if (d == '"') {
                in_str = true;
            } else if (d == '{' || d == '[') {
                depth++;
            } else if ((d == '}' || d == ']') && --depth == 0) {
                r->i++;
                break;
            }
        }
        return c == '{' ? "object" : "array";
    }
    if (c == '"') {
        free(jr_string(r));
        return "string";
    }
    while (r->i < r->n && !strchr(" \t\r\n,]}", r->s[r->i]))
        r->i++;
    if (lit) {
        *lit = r->s + start;
        *litn = r->i - start;
    }
    if (c == 't' || c == 'f')
        return "bool";
    if (c == 'n')
        return "null";
    return "number";
}

/* encoding/json's case-insensitive field match (ASCII letters). */
static bool fold_eq(const char *a, const char *b)
{
    for (; *a && *b; a++, b++) {
        char x = (char)(*a >= 'A' && *a <= 'Z' ? *a + 32 : *a),
             y = (char)(*b >= 'A' && *b <= 'Z' ? *b + 32 : *b);
        if (x != y)
            return false;
    }
    return !*a && !*b;
}

/* Decodes the annotation into *out (a new JSON array of toleration objects with the v1 member
 * names), or returns Go's error (a new string). */
static char *decode_tolerations(const char *text, json_t **out)
{
    static const struct {
        const char *go, *json, *type;
    } fields[] = {
        {"Key", "key", "string"},
        {"Operator", "operator", "core.TolerationOperator"},
        {"Value", "value", "string"},
        {"Effect", "effect", "core.TaintEffect"},
        {"TolerationSeconds", "tolerationSeconds", "int64"},
    };
    char msg[512];
    *out = NULL;
    if (!wh_goenc_valid(text, strlen(text), msg, sizeof(msg)))
        return wh_xstrdup(msg);
    struct jr r = {text, 0, strlen(text)};
    char *err = NULL;
    char c = jr_peek(&r);
    if (c == 'n')
        return NULL;
    if (c != '[')
        return wh_str_printf("json: cannot unmarshal %s into Go value of type []core.Toleration",
                             jr_skip(&r, NULL, NULL));
    json_t *list = json_array();
    r.i++;
    while (jr_peek(&r) != ']') {
        if (jr_peek(&r) == ',')
            r.i++;
        c = jr_peek(&r);
        json_t *t = json_object();
        json_array_append_new(list, t);
        if (c != '{') {
            const char *kind = jr_skip(&r, NULL, NULL);
            if (strcmp(kind, "null") != 0 && !err)
                err = wh_str_printf(
                    "json: cannot unmarshal %s into Go value of type core.Toleration", kind);
            continue;
        }
        r.i++;
        while (jr_peek(&r) != '}') {
            if (jr_peek(&r) == ',')
                r.i++;
            char *key = jr_string(&r);
            jr_peek(&r);
            r.i++; /* ':' */
            size_t f = 0;
            for (; f < 5 && strcmp(fields[f].go, key); f++)
                ;
            for (size_t k = 0; f == 5 && k < 5; k++)
                if (fold_eq(fields[k].go, key))
                    f = k;
            free(key);
            const char *lit = NULL;
            size_t litn = 0;
            if (f == 5) {
                (void)jr_skip(&r, NULL, NULL);
                continue;
            }
            if (jr_peek(&r) == '"' && f < 4) {
                char *v = jr_string(&r);
                json_object_set_new(t, fields[f].json, json_string(v));
                free(v);
                continue;
            }
            const char *kind = jr_skip(&r, &lit, &litn);
            if (strcmp(kind, "null") == 0) {
                if (f == 4)
                    json_object_del(t, "tolerationSeconds");
                continue;
            }
            if (f == 4 && strcmp(kind, "number") == 0) {
                char num[64];
                char *end = NULL;
                snprintf(num, sizeof(num), "%.*s", (int)litn, lit);
                errno = 0;
                long long v = strtoll(num, &end, 10);
                if (litn < sizeof(num) && !*end && errno == 0) {
                    json_object_set_new(t, "tolerationSeconds", json_integer(v));
                    continue;
                }
                if (!err)
                    err = wh_str_printf("json: cannot unmarshal number %.*s into Go struct field "
                                        "Toleration.TolerationSeconds of type int64",
                                        (int)litn, lit);
                continue;
            }
            if (!err)
                err = wh_str_printf("json: cannot unmarshal %s into Go struct field "
                                    "Toleration.%s of type %s",
                                    kind, fields[f].go, fields[f].type);
        }
        r.i++; /* '}' */
    }
    if (err) {
        json_decref(list);
        return err;
    }
    *out = list;
    return NULL;
}

/* --- ValidatePodSpecificAnnotations ------------------------------------------------------------
 */

struct find_ctx {
    const char *name;
    bool found;
};

static bool find_container(const json_t *c, const char *cpath, void *arg)
{
    struct find_ctx *f = arg;
    (void)cpath;
    f->found = strcmp(wh_json_str_or_empty(c, "name"), f->name) == 0;
    return !f->found;
}

/* ValidateSeccompProfile. */
static void seccomp_annotation(struct wh_field_errors *l, const char *p, const char *path)
{
    if (!strcmp(p, "runtime/default") || !strcmp(p, "docker/default") || !strcmp(p, "unconfined"))
        return;
    if (wh_str_has_prefix(p, "localhost/"))
        wh_pv_local_descending_path(l, p + strlen("localhost/"), path);
    else
        wh_ferr_invalid_str(l, path, p, "must be a valid seccomp profile");
}

void wh_validate_pod_specific_annotations(struct wh_field_errors *l, const json_t *annotations,
                                          const json_t *spec_v1, const char *path)
{
    const json_t *mirror = json_object_get(annotations, MIRROR_KEY);
    if (mirror && !*wh_json_str_or_empty(spec_v1, "nodeName")) {
        char *kp = wh_str_printf("%s[" MIRROR_KEY "]", path);
        wh_ferr_invalid_str(l, kp, json_string_value(mirror),
                            "must set spec.nodeName if mirror pod annotation is set");
        free(kp);
    }
    const char *tol = wh_json_str_or_empty(annotations, TOLERATIONS_KEY);
    if (*tol) {
        json_t *tols = NULL;
        char *err = decode_tolerations(tol, &tols);
        if (err) {
            wh_ferr_invalid_str(l, path, TOLERATIONS_KEY, err);
            free(err);
        } else if (json_array_size(tols) > 0) {
            char *tp = wh_str_printf("%s." TOLERATIONS_KEY, path);
            wh_validate_tolerations(l, tols, tp);
            free(tp);
        }
        json_decref(tols);
    }
    const json_t *pod = json_object_get(annotations, SECCOMP_POD_KEY);
    if (pod) {
        char *kp = wh_str_printf("%s." SECCOMP_POD_KEY, path);
        seccomp_annotation(l, wh_json_str_or_empty(annotations, SECCOMP_POD_KEY), kp);
        free(kp);
    }
    size_t n;
    const char **keys = wh_pv_keys(annotations, &n);
    for (size_t i = 0; i < n; i++) {
        if (!wh_str_has_prefix(keys[i], SECCOMP_CONTAINER_PREFIX))
            continue;
        char *kp = wh_str_printf("%s.%s", path, keys[i]);
        seccomp_annotation(l, wh_json_str_or_empty(annotations, keys[i]), kp);
        free(kp);
    }
    for (size_t i = 0; i < n; i++) {
        if (!wh_str_has_prefix(keys[i], APPARMOR_CONTAINER_PREFIX))
            continue;
        char *kp = wh_str_printf("%s[%s]", path, keys[i]);
        struct find_ctx f = {keys[i] + strlen(APPARMOR_CONTAINER_PREFIX), false};
        wh_pv_visit_containers(spec_v1, "spec", find_container, &f);
        if (!f.found)
            wh_ferr_invalid_str(l, kp, f.name, "container not found");
        const char *p = wh_json_str_or_empty(annotations, keys[i]);
        if (*p && strcmp(p, "runtime/default") && strcmp(p, "unconfined") &&
            !wh_str_has_prefix(p, "localhost/")) {
            char *q = wh_go_quote(p);
            char *d = wh_str_printf("invalid AppArmor profile name: %s", q);
            wh_ferr_invalid_str(l, kp, p, d);
            free(d);
            free(q);
        }
        free(kp);
    }
    free(keys);
}

/* --- the annotations against the fields, on create
 * ------------------------------------------------ */

struct match_ctx {
    struct wh_field_errors *l;
    const json_t *annotations;
    const json_t *pod_profile; /* AppArmor only */
};

/* validateSeccompAnnotationsAndFieldsMatch. */
static void seccomp_match(struct wh_field_errors *l, const char *annotation, const json_t *field,
                          const char *path)
{
    char p[WH_PV_PATH];
    const char *type = wh_json_str_or_empty(field, "type");
    const json_t *lp = wh_pv_get(field, "localhostProfile");
    if (strcmp(type, "Unconfined") == 0) {
        if (strcmp(annotation, "unconfined") != 0)
            wh_ferr_forbidden(l, wh_fpath(p, sizeof(p), "%s.type", path),
                              "seccomp type in annotation and field must match");
    } else if (strcmp(type, "RuntimeDefault") == 0) {
        if (strcmp(annotation, "runtime/default") && strcmp(annotation, "docker/default"))
            wh_ferr_forbidden(l, wh_fpath(p, sizeof(p), "%s.type", path),
                              "seccomp type in annotation and field must match");
    } else if (strcmp(type, "Localhost") == 0) {
        if (!wh_str_has_prefix(annotation, "localhost/"))
            wh_ferr_forbidden(l, wh_fpath(p, sizeof(p), "%s.type", path),
                              "seccomp type in annotation and field must match");
        else if (!json_is_string(lp) ||
                 strcmp(annotation + strlen("localhost/"), json_string_value(lp)) != 0)
            wh_ferr_forbidden(l, wh_fpath(p, sizeof(p), "%s.localhostProfile", path),
                              "seccomp profile in annotation and field must match");
    }
}

static bool seccomp_container(const json_t *c, const char *cpath, void *arg)
{
    struct match_ctx *m = arg;
    const json_t *field = wh_pv_get(wh_pv_get(c, "securityContext"), "seccompProfile");
    if (!field)
        return true;
    char *key = wh_str_printf(SECCOMP_CONTAINER_PREFIX "%s", wh_json_str_or_empty(c, "name"));
    const json_t *a = json_object_get(m->annotations, key);
    if (a) {
        char p[WH_PV_PATH];
        seccomp_match(m->l, wh_json_str_or_empty(m->annotations, key), field,
                      wh_fpath(p, sizeof(p), "%s.securityContext.seccompProfile", cpath));
    }
    free(key);
    return true;
}

static bool apparmor_container(const json_t *c, const char *cpath, void *arg)
{
    struct match_ctx *m = arg;
    const json_t *prof = wh_pv_get(wh_pv_get(c, "securityContext"), "appArmorProfile");
    if (!prof)
        prof = m->pod_profile;
    if (!prof)
        return true;
    char *key = wh_str_printf(APPARMOR_CONTAINER_PREFIX "%s", wh_json_str_or_empty(c, "name"));
    if (json_object_get(m->annotations, key)) {
        const char *a = wh_json_str_or_empty(m->annotations, key);
        const char *type = wh_json_str_or_empty(prof, "type");
        const json_t *lp = wh_pv_get(prof, "localhostProfile");
        char p[WH_PV_PATH];
        bool type_bad = false, profile_bad = false;
        if (strcmp(type, "Unconfined") == 0)
            type_bad = strcmp(a, "unconfined") != 0;
        else if (strcmp(type, "RuntimeDefault") == 0)
            type_bad = strcmp(a, "runtime/default") != 0;
        else if (strcmp(type, "Localhost") == 0) {
            type_bad = !wh_str_has_prefix(a, "localhost/");
            profile_bad = !type_bad && (!json_is_string(lp) ||
                                        strcmp(a + strlen("localhost/"), json_string_value(lp)));
        }
        if (type_bad)
            wh_ferr_forbidden(
                m->l, wh_fpath(p, sizeof(p), "%s.securityContext.appArmorProfile.type", cpath),
                "apparmor type in annotation and field must match");
        if (profile_bad)
            wh_ferr_forbidden(m->l,
                              wh_fpath(p, sizeof(p),
                                       "%s.securityContext.appArmorProfile.localhostProfile",
                                       cpath),
                              "apparmor profile in annotation and field must match");
    }
    free(key);
    return true;
}

void wh_pv_annotations_match_fields(struct wh_field_errors *l, const json_t *annotations,
                                    const json_t *spec, const char *spec_path)
{
    char p[WH_PV_PATH];
    const json_t *sc = wh_pv_get(spec, "securityContext");
    const json_t *pod_seccomp = wh_pv_get(sc, "seccompProfile");
    struct match_ctx m = {l, annotations, NULL};
    /* validateSeccompAnnotationsAndFields */
    if (pod_seccomp && json_object_get(annotations, SECCOMP_POD_KEY))
        seccomp_match(l, wh_json_str_or_empty(annotations, SECCOMP_POD_KEY), pod_seccomp,
                      wh_fpath(p, sizeof(p), "%s.securityContext.seccompProfile", spec_path));
    wh_pv_visit_containers(spec, spec_path, seccomp_container, &m);
    /* validateAppArmorAnnotationsAndFieldsMatchOnCreate: not for a Windows Pod */
    if (strcmp(wh_json_str_or_empty(wh_pv_get(spec, "os"), "name"), "windows") == 0)
        return;
    m.pod_profile = wh_pv_get(sc, "appArmorProfile");
    wh_pv_visit_containers(spec, spec_path, apparmor_container, &m);
}
