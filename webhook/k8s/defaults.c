#include "k8s/defaults.h"

#include <stdio.h>
#include <string.h>

#include "k8s/imageref.h"
#include "k8s/quantity.h"
#include "util/json.h"

/* Every volume source of core/v1 VolumeSource (k8s.io/api v0.32): a volume with none of them
 * set is given an emptyDir (SetDefaults_Volume, ptr.AllPtrFieldsNil). */
static const char *const volume_sources[] = {
    "hostPath",  "emptyDir", "gcePersistentDisk", "awsElasticBlockStore",
    "gitRepo",   "secret",   "nfs",               "iscsi",
    "glusterfs", "persistentVolumeClaim", "rbd",  "flexVolume",
    "cinder",    "cephfs",   "flocker",           "downwardAPI",
    "fc",        "azureFile", "configMap",        "vsphereVolume",
    "quobyte",   "azureDisk", "photonPersistentDisk", "projected",
    "portworxVolume", "scaleIO", "storageos",     "csi",
    "ephemeral", "image",
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

/* For pointer members: set when absent or null (Go: nil). */
static void default_int_if_nil(json_t *o, const char *key, json_int_t value)
{
    const json_t *v = json_object_get(o, key);
    if (!v || json_is_null(v))
        json_object_set_new(o, key, json_integer(value));
}

/* For integer members: set when Go sees 0. */
static void default_int_if_zero(json_t *o, const char *key, json_int_t value)
{
    const json_t *v = json_object_get(o, key);
    if (!v || json_is_null(v) || (json_is_integer(v) && json_integer_value(v) == 0))
        json_object_set_new(o, key, json_integer(value));
}

void wh_k8s_default_field_ref(json_t *fs)
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

/* SetDefaults_Probe, plus the httpGet defaults. */
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
        if (q.scale >= -3)
            continue; /* nothing to round: Go keeps the value and its text */
        (void)wh_quantity_round_up(&q, -3);
        wh_quantity_format(&q, out, sizeof(out));
        json_object_set_new(list, key, json_string(out));
    }
}

/* What kruise defaults in every kind of container, ephemeral ones included: port protocols,
 * env fieldRefs, resources, probes and lifecycle handlers (not SetDefaults_Container). */
static void default_container_parts(json_t *c, unsigned flags)
{
    size_t i;
    json_t *item;
    json_array_foreach(wh_json_struct_list(c, "ports"), i, item)
    {
        if (json_is_object(item))
            default_str(item, "protocol", "TCP");
    }
    json_array_foreach(wh_json_arr(c, "env"), i, item)
    {
        wh_k8s_default_field_ref(wh_json_path(item, "valueFrom", "fieldRef", NULL));
    }
    json_t *res = wh_json_obj(c, "resources");
    if (!(flags & WH_K8S_DEFAULT_KEEP_QUANTITIES)) {
        default_resource_list(wh_json_obj(res, "limits"));
        default_resource_list(wh_json_obj(res, "requests"));
    }
    default_probe(wh_json_obj(c, "livenessProbe"));
    default_probe(wh_json_obj(c, "readinessProbe"));
    if (flags & WH_K8S_DEFAULT_STARTUP_PROBE)
        default_probe(wh_json_obj(c, "startupProbe"));
    json_t *lc = wh_json_obj(c, "lifecycle");
    default_http_get(wh_json_path(lc, "postStart", "httpGet", NULL));
    default_http_get(wh_json_path(lc, "preStop", "httpGet", NULL));
}

void wh_k8s_default_container(json_t *c, unsigned flags)
{
    if (!json_is_object(c))
        return;
    if (str_empty(c, "imagePullPolicy")) {
        const json_t *image = json_object_get(c, "image");
        bool always = (flags & WH_K8S_DEFAULT_PULL_ALWAYS) ||
                      (json_is_string(image) &&
                       wh_imageref_pulls_latest(json_string_value(image), json_string_length(image)));
        json_object_set_new(c, "imagePullPolicy", json_string(always ? "Always" : "IfNotPresent"));
    }
    default_str(c, "terminationMessagePath", "/dev/termination-log");
    default_str(c, "terminationMessagePolicy", "File");
    default_container_parts(c, flags);
}

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
        wh_k8s_default_field_ref(wh_json_obj(item, "fieldRef"));
    }
}

void wh_k8s_default_volumes(json_t *volumes)
{
    size_t i;
    json_t *v;
    if (!json_is_array(volumes))
        return;
    json_array_foreach(wh_json_zero_null_items(volumes), i, v)
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

/* defaultHostNetworkPorts: a port without a host port takes the container port. */
static void default_host_ports(json_t *containers)
{
    size_t i, k;
    json_t *c, *p;
    json_array_foreach(containers, i, c)
    {
        json_array_foreach(wh_json_arr(c, "ports"), k, p)
        {
            const json_t *hp = json_object_get(p, "hostPort");
            const json_t *cp = json_object_get(p, "containerPort");
            if ((!hp || json_is_null(hp) || (json_is_integer(hp) && !json_integer_value(hp))) &&
                json_is_integer(cp))
                json_object_set_new(p, "hostPort", json_integer(json_integer_value(cp)));
        }
    }
}

static void default_pod_spec(json_t *spec, bool host_network_ports, unsigned keep)
{
    if (!json_is_object(spec))
        return;
    default_str(spec, "dnsPolicy", "ClusterFirst");
    default_str(spec, "restartPolicy", "Always");
    const json_t *sc = json_object_get(spec, "securityContext");
    if (!sc || json_is_null(sc))
        json_object_set_new(spec, "securityContext", json_object());
    default_int_if_nil(spec, "terminationGracePeriodSeconds", 30);
    default_str(spec, "schedulerName", "default-scheduler");
    if (host_network_ports && json_is_true(json_object_get(spec, "hostNetwork"))) {
        default_host_ports(wh_json_arr(spec, "containers"));
        default_host_ports(wh_json_arr(spec, "initContainers"));
    }
    wh_k8s_default_volumes(wh_json_arr(spec, "volumes"));
    size_t i;
    json_t *c;
    json_array_foreach(wh_json_struct_list(spec, "initContainers"), i, c)
    {
        wh_k8s_default_container(c, WH_K8S_DEFAULT_STARTUP_PROBE | keep);
    }
    json_array_foreach(wh_json_struct_list(spec, "containers"), i, c)
    {
        wh_k8s_default_container(c, WH_K8S_DEFAULT_STARTUP_PROBE | WH_K8S_DEFAULT_PULL_ALWAYS | keep);
    }
    json_array_foreach(wh_json_struct_list(spec, "ephemeralContainers"), i, c)
    {
        if (json_is_object(c))
            default_container_parts(c, WH_K8S_DEFAULT_STARTUP_PROBE | keep);
    }
    if (!keep)
        default_resource_list(wh_json_obj(spec, "overhead"));
}

void wh_k8s_default_pod_spec(json_t *spec, bool host_network_ports)
{
    default_pod_spec(spec, host_network_ports, 0);
}

void wh_k8s_default_pod_spec_for_validation(json_t *spec, bool host_network_ports)
{
    default_pod_spec(spec, host_network_ports, WH_K8S_DEFAULT_KEEP_QUANTITIES);
}

void wh_k8s_default_pvc_template(json_t *pvc)
{
    if (!json_is_object(pvc))
        return;
    json_t *status = wh_json_obj_ensure(pvc, "status");
    default_str(status, "phase", "Pending");
    json_t *res = wh_json_path(pvc, "spec", "resources", NULL);
    default_resource_list(wh_json_obj(res, "limits"));
    default_resource_list(wh_json_obj(res, "requests"));
    default_resource_list(wh_json_obj(status, "capacity"));
}

void wh_k8s_default_string(json_t *o, const char *key, const char *value)
{
    default_str(o, key, value);
}

void wh_k8s_default_int_ptr(json_t *o, const char *key, json_int_t value)
{
    default_int_if_nil(o, key, value);
}

void wh_k8s_default_ptr_new(json_t *o, const char *key, json_t *value)
{
    const json_t *v = json_object_get(o, key);
    if (!v || json_is_null(v))
        json_object_set_new(o, key, value);
    else
        json_decref(value);
}
