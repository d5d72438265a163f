#include "handlers/sidecarset/defaults.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "k8s/quantity.h"
#include "util/json.h"

/* Every volume source of core/v1 VolumeSource (k8s.io/api v0.32): a volume with none of them
 * set is given an emptyDir (SetDefaults_Volume, ptr.AllPtrFieldsNil). */
static const char *const volume_sources[] = {
    "hostPath",
    "emptyDir",
    "gcePersistentDisk",
    "awsElasticBlockStore",
    "gitRepo",
    "secret",
    "nfs",
    "iscsi",
    "glusterfs",
    "persistentVolumeClaim",
    "rbd",
    "flexVolume",
    "cinder",
    "cephfs",
    "flocker",
    "downwardAPI",
    "fc",
    "azureFile",
    "configMap",
    "vsphereVolume",
    "quobyte",
    "azureDisk",
    "photonPersistentDisk",
    "projected",
    "portworxVolume",
    "scaleIO",
    "storageos",
    "csi",
    "ephemeral",
    "image",
};

/* A string member that Go would see as "" (absent, null or empty). */
static bool str_empty(const json_t *o, const char *key)
{
    const char *s = wh_json_str(o, key);
    return !s || !*s;
}

static void default_str(json_t *o, const char *key, const char *value)
{
    if (str_empty(o, key))
        json_object_set_new(o, key, json_string(value));
}

/* For pointer and integer members: set when absent or null (Go: nil / 0). */
static void default_int_if_nil(json_t *o, const char *key, json_int_t value)
{
    const json_t *v = json_object_get(o, key);
    if (!v || json_is_null(v))
        json_object_set_new(o, key, json_integer(value));
}

static void default_int_if_zero(json_t *o, const char *key, json_int_t value)
{
    const json_t *v = json_object_get(o, key);
    if (!v || json_is_null(v) || (json_is_integer(v) && json_integer_value(v) == 0))
        json_object_set_new(o, key, json_integer(value));
}

/* SetDefaults_ObjectFieldSelector. */
static void default_field_ref(json_t *fs)
{
    if (json_is_object(fs))
        default_str(fs, "apiVersion", "v1");
}

/* SetDefaults_HTTPGetAction. */
static void default_http_get(json_t *h)
{
    if (!json_is_object(h))
        return;
    default_str(h, "path", "/");
    default_str(h, "scheme", "HTTP");
}

/* SetDefaults_Probe, plus the httpGet defaults upstream applies to liveness/readiness. */
static void default_probe(json_t *p)
{
    if (!json_is_object(p))
        return;
    default_int_if_zero(p, "timeoutSeconds", 1);
    default_int_if_zero(p, "periodSeconds", 10);
    default_int_if_zero(p, "successThreshold", 1);
    default_int_if_zero(p, "failureThreshold", 3);
    default_http_get(json_object_get(p, "httpGet"));
}

/* SetDefaults_ResourceList: every quantity rounded up to milli precision. */
static void default_resource_list(json_t *list)
{
    const char *key;
    json_t *v;
    if (!json_is_object(list))
        return;
    json_object_foreach(list, key, v)
    {
        char text[64], out[WH_QUANTITY_MAX_DIGITS + 8];
        struct wh_quantity q;
        struct wh_errbuf eb;
        if (json_is_string(v))
            snprintf(text, sizeof(text), "%s", json_string_value(v));
        else if (json_is_integer(v))
            snprintf(text, sizeof(text), "%lld", (long long)json_integer_value(v));
        else if (json_is_real(v))
            snprintf(text, sizeof(text), "%.17g", json_real_value(v));
        else
            continue;
        if (wh_quantity_parse(text, &q, &eb))
            continue;
        int32_t before = q.scale;
        if (before >= -3)
            continue; /* nothing to round: Go keeps the value and its text */
        (void)wh_quantity_round_up(&q, -3);
        wh_quantity_format(&q, out, sizeof(out));
        json_object_set_new(list, key, json_string(out));
    }
}

/* --- image references (distribution/reference, as parsers.ParseImageName uses it) ----------- */

static bool is_lower_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

/* path-component: [a-z0-9]+ ((?:[._]|__|[-]+)[a-z0-9]+)* */
static bool valid_path_component(const char *s, size_t n)
{
    size_t i = 0;
    if (n == 0 || !is_lower_alnum(s[0]))
        return false;
    while (i < n) {
        while (i < n && is_lower_alnum(s[i]))
            i++;
        if (i == n)
            return true;
        size_t sep = i;
        if (s[i] == '.') {
            i++;
        } else if (s[i] == '_') {
            i++;
            if (i < n && s[i] == '_')
                i++;
        } else if (s[i] == '-') {
            while (i < n && s[i] == '-')
                i++;
        } else {
            return false;
        }
        if (i == sep || i == n || !is_lower_alnum(s[i]))
            return false;
    }
    return true;
}

/* domain-component: [a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9] */
static bool valid_domain_component(const char *s, size_t n)
{
    if (n == 0 || !isalnum((unsigned char)s[0]) || !isalnum((unsigned char)s[n - 1]))
        return false;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)s[i]) && s[i] != '-')
            return false;
    return true;
}

/* host[:port], host being dotted domain components or a bracketed IPv6 address. */
static bool valid_domain(const char *s, size_t n)
{
    size_t hostlen = n;
    const char *colon = NULL;
    if (n && s[0] == '[') {
        const char *close = memchr(s, ']', n);
        if (!close || close == s + 1)
            return false;
        for (const char *p = s + 1; p < close; p++)
            if (!isxdigit((unsigned char)*p) && *p != ':')
                return false;
        hostlen = (size_t)(close - s) + 1;
        if (hostlen < n && s[hostlen] != ':')
            return false;
        colon = hostlen < n ? s + hostlen : NULL;
    } else {
        colon = memchr(s, ':', n);
        hostlen = colon ? (size_t)(colon - s) : n;
        size_t start = 0;
        for (size_t i = 0; i <= hostlen; i++) {
            if (i == hostlen || s[i] == '.') {
                if (!valid_domain_component(s + start, i - start))
                    return false;
                start = i + 1;
            }
        }
    }
    if (colon) {
        size_t plen = n - (size_t)(colon - s) - 1;
        if (plen == 0)
            return false;
        for (size_t i = 0; i < plen; i++)
            if (!isdigit((unsigned char)colon[1 + i]))
                return false;
    }
    return true;
}

/* tag: [\w][\w.-]{0,127} */
static bool valid_tag(const char *s, size_t n)
{
    if (n == 0 || n > 128 || !(isalnum((unsigned char)s[0]) || s[0] == '_'))
        return false;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != '.' && s[i] != '-')
            return false;
    return true;
}

/* digest: algorithm ":" hex{32,}, algorithm = [A-Za-z][A-Za-z0-9]* ([+._-][A-Za-z][A-Za-z0-9]*)* */
static bool valid_digest(const char *s, size_t n)
{
    const char *colon = memchr(s, ':', n);
    if (!colon)
        return false;
    size_t alen = (size_t)(colon - s), hlen = n - alen - 1;
    size_t i = 0;
    while (i < alen) {
        if (!isalpha((unsigned char)s[i]))
            return false;
        i++;
        while (i < alen && isalnum((unsigned char)s[i]))
            i++;
        if (i < alen) {
            if (!strchr("+._-", s[i]))
                return false;
            i++;
            if (i == alen)
                return false;
        }
    }
    if (alen == 0 || hlen < 32)
        return false;
    for (i = 0; i < hlen; i++)
        if (!isxdigit((unsigned char)colon[1 + i]))
            return false;
    return true;
}

/* Whether a name (without tag or digest) matches the reference grammar: an optional domain,
 * then path components. */
static bool valid_name(const char *s, size_t n)
{
    if (n == 0 || n > 255)
        return false;
    const char *slash = memchr(s, '/', n);
    size_t first = slash ? (size_t)(slash - s) : n;
    size_t start = 0;
    bool first_ok = valid_path_component(s, first) || (slash && valid_domain(s, first));
    if (!first_ok)
        return false;
    start = first + 1;
    while (slash && start <= n) {
        const char *next = start < n ? memchr(s + start, '/', n - start) : NULL;
        size_t end = next ? (size_t)(next - s) : n;
        if (!valid_path_component(s + start, end - start))
            return false;
        start = end + 1;
        if (!next)
            break;
    }
    return true;
}

/* True when the container image pulls "latest": an explicit :latest tag, or no tag and no
 * digest. References Go cannot parse give false (upstream ignores the error: IfNotPresent). */
static bool image_tag_is_latest(const char *image)
{
    size_t n = strlen(image);
    char full[600];
    if (n == 0 || n > 500)
        return false;
    if (n == 64) {
        bool hex = true;
        for (size_t i = 0; i < n; i++)
            hex &= (image[i] >= '0' && image[i] <= '9') || (image[i] >= 'a' && image[i] <= 'f');
        if (hex)
            return false;
    }
    /* splitDockerDomain */
    const char *slash = strchr(image, '/');
    const char *domain = "docker.io", *remainder = image;
    size_t dlen = strlen(domain);
    if (slash) {
        size_t i = (size_t)(slash - image);
        bool has_dot_colon = memchr(image, '.', i) || memchr(image, ':', i);
        bool localhost = i == 9 && memcmp(image, "localhost", 9) == 0;
        bool upper = false;
        for (size_t k = 0; k < i; k++)
            upper |= isupper((unsigned char)image[k]) != 0;
        if (has_dot_colon || localhost || upper) {
            domain = image;
            dlen = i;
            remainder = slash + 1;
        }
    }
    if (dlen == 15 && memcmp(domain, "index.docker.io", 15) == 0) {
        domain = "docker.io";
        dlen = 9;
    }
    bool official = dlen == strlen("docker.io") && memcmp(domain, "docker.io", dlen) == 0 &&
                    !strchr(remainder, '/');
    /* the repository part (up to the first ':') must be lowercase */
    size_t rn = strcspn(remainder, ":");
    for (size_t k = 0; k < rn; k++)
        if (isupper((unsigned char)remainder[k]))
            return false;
    int len = snprintf(full, sizeof(full), "%.*s/%s%s", (int)dlen, domain,
                       official ? "library/" : "", remainder);
    if (len < 0 || (size_t)len >= sizeof(full))
        return false;

    /* name [":" tag] ["@" digest] */
    size_t total = (size_t)len;
    const char *at = strchr(full, '@');
    size_t before = at ? (size_t)(at - full) : total;
    if (at && !valid_digest(at + 1, total - before - 1))
        return false;
    const char *tag = NULL;
    size_t tlen = 0;
    const char *last_colon = NULL, *last_slash = NULL;
    for (size_t k = 0; k < before; k++) {
        if (full[k] == ':')
            last_colon = full + k;
        if (full[k] == '/')
            last_slash = full + k;
    }
    size_t name_len = before;
    if (last_colon && (!last_slash || last_colon > last_slash)) {
        tag = last_colon + 1;
        tlen = before - (size_t)(tag - full);
        name_len = (size_t)(last_colon - full);
        if (!valid_tag(tag, tlen))
            return false;
    }
    if (!valid_name(full, name_len))
        return false;
    if (tag)
        return tlen == 6 && memcmp(tag, "latest", 6) == 0;
    return at == NULL;
}

/* --- containers ------------------------------------------------------------------------------ */

/* SetDefaults_Container and the extra container defaults of setDefaultContainer. */
static void default_core_container(json_t *c)
{
    if (str_empty(c, "imagePullPolicy")) {
        const char *image = wh_json_str(c, "image");
        json_object_set_new(
            c, "imagePullPolicy",
            json_string(image_tag_is_latest(image ? image : "") ? "Always" : "IfNotPresent"));
    }
    default_str(c, "terminationMessagePath", "/dev/termination-log");
    default_str(c, "terminationMessagePolicy", "File");

    size_t i;
    json_t *item;
    json_array_foreach(wh_json_arr(c, "ports"), i, item)
    {
        if (json_is_object(item))
            default_str(item, "protocol", "TCP");
    }
    json_array_foreach(wh_json_arr(c, "transferEnv"), i, item)
    {
        default_field_ref(wh_json_path(item, "sourceContainerNameFrom", "fieldRef", NULL));
    }
    json_array_foreach(wh_json_arr(c, "env"), i, item)
    {
        default_field_ref(wh_json_path(item, "valueFrom", "fieldRef", NULL));
    }
    json_t *res = wh_json_obj(c, "resources");
    default_resource_list(wh_json_obj(res, "limits"));
    default_resource_list(wh_json_obj(res, "requests"));
    /* upstream defaults liveness and readiness probes, not startup probes */
    default_probe(wh_json_obj(c, "livenessProbe"));
    default_probe(wh_json_obj(c, "readinessProbe"));
    json_t *lc = wh_json_obj(c, "lifecycle");
    default_http_get(wh_json_path(lc, "postStart", "httpGet", NULL));
    default_http_get(wh_json_path(lc, "preStop", "httpGet", NULL));
}

void wh_sidecarset_default_container(json_t *c, bool init)
{
    if (!json_is_object(c))
        return;
    default_str(c, "podInjectPolicy", init ? "AfterAppContainer" : "BeforeAppContainer");
    default_str(wh_json_obj_ensure(c, "upgradeStrategy"), "upgradeType", "ColdUpgrade");
    default_str(wh_json_obj_ensure(c, "shareVolumePolicy"), "type", "disabled");
    default_core_container(c);
}

/* --- volumes --------------------------------------------------------------------------------- */

static void default_mode(json_t *src)
{
    if (json_is_object(src))
        default_int_if_nil(src, "defaultMode", 420);
}

static void default_downward_items(json_t *items)
{
    size_t i;
    json_t *item;
    json_array_foreach(items, i, item)
    {
        default_field_ref(wh_json_obj(item, "fieldRef"));
    }
}

void wh_sidecarset_default_volumes(json_t *volumes)
{
    size_t i;
    json_t *v;
    if (!json_is_array(volumes))
        return;
    json_array_foreach(volumes, i, v)
    {
        if (!json_is_object(v))
            continue;
        bool any = false;
        for (size_t k = 0; k < sizeof(volume_sources) / sizeof(volume_sources[0]); k++) {
            const json_t *s = json_object_get(v, volume_sources[k]);
            any |= s && !json_is_null(s);
        }
        if (!any)
            json_object_set_new(v, "emptyDir", json_object());
        json_t *hp = wh_json_obj(v, "hostPath");
        if (hp) {
            const json_t *t = json_object_get(hp, "type");
            if (!t || json_is_null(t))
                json_object_set_new(hp, "type", json_string(""));
        }
        default_mode(wh_json_obj(v, "secret"));
        json_t *dapi = wh_json_obj(v, "downwardAPI");
        if (dapi) {
            default_mode(dapi);
            default_downward_items(wh_json_arr(dapi, "items"));
        }
        default_mode(wh_json_obj(v, "configMap"));
        json_t *proj = wh_json_obj(v, "projected");
        if (proj) {
            size_t j;
            json_t *src;
            default_mode(proj);
            json_array_foreach(wh_json_arr(proj, "sources"), j, src)
            {
                default_downward_items(wh_json_path(src, "downwardAPI", "items", NULL));
                json_t *tok = wh_json_obj(src, "serviceAccountToken");
                if (tok)
                    default_int_if_nil(tok, "expirationSeconds", 3600);
            }
        }
    }
}

/* --- the SidecarSet ----------------------------------------------------------------------------
 */

void wh_sidecarset_defaults(json_t *ss)
{
    size_t i;
    json_t *item;
    if (!json_is_object(ss))
        return;
    json_t *spec = wh_json_obj_ensure(ss, "spec");

    json_t *us = wh_json_obj_ensure(spec, "updateStrategy");
    default_str(us, "type", "RollingUpdate");
    default_int_if_nil(us, "maxUnavailable", 1);
    default_int_if_nil(us, "partition", 0);

    json_array_foreach(wh_json_arr(spec, "initContainers"), i, item)
    {
        wh_sidecarset_default_container(item, true);
    }
    json_array_foreach(wh_json_arr(spec, "containers"), i, item)
    {
        wh_sidecarset_default_container(item, false);
    }
    wh_sidecarset_default_volumes(wh_json_arr(spec, "volumes"));
    default_int_if_nil(spec, "revisionHistoryLimit", 10);
    json_array_foreach(wh_json_arr(spec, "patchPodMetadata"), i, item)
    {
        if (json_is_object(item))
            default_str(item, "patchPolicy", "Retain");
    }
    json_t *rev = wh_json_path(spec, "injectionStrategy", "revision", NULL);
    if (json_is_object(rev))
        default_str(rev, "policy", "Always");
}
