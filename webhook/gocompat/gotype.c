#include "gocompat/gotype.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "k8s/quantity.h"
#include "gocompat/goenc.h"
#include "util/json.h"
#include "util/mem.h"
#include "util/time.h"

enum kind {
    K_STRING,
    K_BOOL,
    K_INT32,
    K_INT64,
    K_QUANTITY,    /* resource.Quantity: a struct in Go, so never omitted */
    K_INTORSTRING, /* intstr.IntOrString: a struct */
    K_TIME,        /* metav1.Time: a struct; zero encodes as null */
    K_RAW,         /* FieldsV1 and other opaque JSON: copied */
    K_STRUCT,
    K_SLICE,
    K_MAP, /* map[string]<elem> */
};

#define OMIT 1u   /* ,omitempty */
#define PTR 2u    /* *T */
#define INLINE 4u /* embedded struct with ,inline: its fields sit in the parent */

struct field {
    const char *name;
    const struct wh_gojson_type *type;
    unsigned flags;
};

struct wh_gojson_type {
    const char *go_name; /* for error messages */
    enum kind kind;
    const struct field *fields; /* K_STRUCT */
    size_t nfields;
    const struct wh_gojson_type *elem; /* K_SLICE, K_MAP */
};

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define STRUCT(var, goname, fieldarr)                                                              \
    static const struct wh_gojson_type var = {goname, K_STRUCT, fieldarr, N(fieldarr), NULL}
#define SLICE(var, goname, elemtype)                                                               \
    static const struct wh_gojson_type var = {goname, K_SLICE, NULL, 0, &elemtype}

/* --- scalar and generic types ---------------------------------------------------------------- */

static const struct wh_gojson_type t_string = {"string", K_STRING, NULL, 0, NULL};
static const struct wh_gojson_type t_bool = {"bool", K_BOOL, NULL, 0, NULL};
static const struct wh_gojson_type t_int32 = {"int32", K_INT32, NULL, 0, NULL};
static const struct wh_gojson_type t_int64 = {"int64", K_INT64, NULL, 0, NULL};
static const struct wh_gojson_type t_quantity = {"resource.Quantity", K_QUANTITY, NULL, 0, NULL};
static const struct wh_gojson_type t_intstr = {"intstr.IntOrString", K_INTORSTRING, NULL, 0, NULL};
static const struct wh_gojson_type t_time = {"v1.Time", K_TIME, NULL, 0, NULL};
static const struct wh_gojson_type t_raw = {"v1.FieldsV1", K_RAW, NULL, 0, NULL};
SLICE(t_strings, "[]string", t_string);
static const struct wh_gojson_type t_map_string = {"map[string]string", K_MAP, NULL, 0, &t_string};
static const struct wh_gojson_type t_resource_list = {"v1.ResourceList", K_MAP, NULL, 0,
                                                      &t_quantity};

/* --- meta/v1 --------------------------------------------------------------------------------- */

static const struct field f_selector_req[] = {
    {"key", &t_string, 0},
    {"operator", &t_string, 0},
    {"values", &t_strings, OMIT},
};
STRUCT(t_selector_req, "v1.LabelSelectorRequirement", f_selector_req);
SLICE(t_selector_reqs, "[]v1.LabelSelectorRequirement", t_selector_req);
static const struct field f_selector[] = {
    {"matchLabels", &t_map_string, OMIT},
    {"matchExpressions", &t_selector_reqs, OMIT},
};
const struct wh_gojson_type wh_gojson_label_selector = {"v1.LabelSelector", K_STRUCT, f_selector,
                                                        N(f_selector), NULL};
#define t_selector wh_gojson_label_selector

static const struct field f_owner_ref[] = {
    {"apiVersion", &t_string, 0},
    {"kind", &t_string, 0},
    {"name", &t_string, 0},
    {"uid", &t_string, 0},
    {"controller", &t_bool, PTR | OMIT},
    {"blockOwnerDeletion", &t_bool, PTR | OMIT},
};
STRUCT(t_owner_ref, "v1.OwnerReference", f_owner_ref);
SLICE(t_owner_refs, "[]v1.OwnerReference", t_owner_ref);
static const struct field f_managed[] = {
    {"manager", &t_string, OMIT},     {"operation", &t_string, OMIT},
    {"apiVersion", &t_string, OMIT},  {"time", &t_time, PTR | OMIT},
    {"fieldsType", &t_string, OMIT},  {"fieldsV1", &t_raw, PTR | OMIT},
    {"subresource", &t_string, OMIT},
};
STRUCT(t_managed, "v1.ManagedFieldsEntry", f_managed);
SLICE(t_manageds, "[]v1.ManagedFieldsEntry", t_managed);
static const struct field f_object_meta[] = {
    {"name", &t_string, OMIT},
    {"generateName", &t_string, OMIT},
    {"namespace", &t_string, OMIT},
    {"selfLink", &t_string, OMIT},
    {"uid", &t_string, OMIT},
    {"resourceVersion", &t_string, OMIT},
    {"generation", &t_int64, OMIT},
    {"creationTimestamp", &t_time, OMIT},
    {"deletionTimestamp", &t_time, PTR | OMIT},
    {"deletionGracePeriodSeconds", &t_int64, PTR | OMIT},
    {"labels", &t_map_string, OMIT},
    {"annotations", &t_map_string, OMIT},
    {"ownerReferences", &t_owner_refs, OMIT},
    {"finalizers", &t_strings, OMIT},
    {"managedFields", &t_manageds, OMIT},
};
STRUCT(t_object_meta, "v1.ObjectMeta", f_object_meta);

/* --- core/v1: containers ------------------------------------------------------------------- */

static const struct field f_local_ref[] = {{"name", &t_string, OMIT}};
STRUCT(t_local_ref, "v1.LocalObjectReference", f_local_ref);
SLICE(t_local_refs, "[]v1.LocalObjectReference", t_local_ref);

static const struct field f_field_sel[] = {
    {"apiVersion", &t_string, OMIT},
    {"fieldPath", &t_string, 0},
};
STRUCT(t_field_sel, "v1.ObjectFieldSelector", f_field_sel);
static const struct field f_resource_sel[] = {
    {"containerName", &t_string, OMIT},
    {"resource", &t_string, 0},
    {"divisor", &t_quantity, OMIT},
};
STRUCT(t_resource_sel, "v1.ResourceFieldSelector", f_resource_sel);
static const struct field f_key_sel[] = {
    {NULL, &t_local_ref, INLINE},
    {"key", &t_string, 0},
    {"optional", &t_bool, PTR | OMIT},
};
STRUCT(t_key_sel, "v1.KeySelector", f_key_sel);
static const struct field f_env_source[] = {
    {"fieldRef", &t_field_sel, PTR | OMIT},
    {"resourceFieldRef", &t_resource_sel, PTR | OMIT},
    {"configMapKeyRef", &t_key_sel, PTR | OMIT},
    {"secretKeyRef", &t_key_sel, PTR | OMIT},
};
STRUCT(t_env_source, "v1.EnvVarSource", f_env_source);
static const struct field f_env[] = {
    {"name", &t_string, 0},
    {"value", &t_string, OMIT},
    {"valueFrom", &t_env_source, PTR | OMIT},
};
STRUCT(t_env, "v1.EnvVar", f_env);
SLICE(t_envs, "[]v1.EnvVar", t_env);
static const struct field f_env_from_ref[] = {
    {NULL, &t_local_ref, INLINE},
    {"optional", &t_bool, PTR | OMIT},
};
STRUCT(t_env_from_ref, "v1.ConfigMapEnvSource", f_env_from_ref);
static const struct field f_env_from[] = {
    {"prefix", &t_string, OMIT},
    {"configMapRef", &t_env_from_ref, PTR | OMIT},
    {"secretRef", &t_env_from_ref, PTR | OMIT},
};
STRUCT(t_env_from, "v1.EnvFromSource", f_env_from);
SLICE(t_env_froms, "[]v1.EnvFromSource", t_env_from);
static const struct field f_port[] = {
    {"name", &t_string, OMIT},     {"hostPort", &t_int32, OMIT}, {"containerPort", &t_int32, 0},
    {"protocol", &t_string, OMIT}, {"hostIP", &t_string, OMIT},
};
STRUCT(t_port, "v1.ContainerPort", f_port);
SLICE(t_ports, "[]v1.ContainerPort", t_port);
static const struct field f_claim[] = {
    {"name", &t_string, 0},
    {"request", &t_string, OMIT},
};
STRUCT(t_claim, "v1.ResourceClaim", f_claim);
SLICE(t_claims, "[]v1.ResourceClaim", t_claim);
static const struct field f_resources[] = {
    {"limits", &t_resource_list, OMIT},
    {"requests", &t_resource_list, OMIT},
    {"claims", &t_claims, OMIT},
};
STRUCT(t_resources, "v1.ResourceRequirements", f_resources);
static const struct field f_resize[] = {
    {"resourceName", &t_string, 0},
    {"restartPolicy", &t_string, 0},
};
STRUCT(t_resize, "v1.ContainerResizePolicy", f_resize);
SLICE(t_resizes, "[]v1.ContainerResizePolicy", t_resize);
static const struct field f_mount[] = {
    {"name", &t_string, 0},
    {"readOnly", &t_bool, OMIT},
    {"recursiveReadOnly", &t_string, PTR | OMIT},
    {"mountPath", &t_string, 0},
    {"subPath", &t_string, OMIT},
    {"mountPropagation", &t_string, PTR | OMIT},
    {"subPathExpr", &t_string, OMIT},
};
STRUCT(t_mount, "v1.VolumeMount", f_mount);
SLICE(t_mounts, "[]v1.VolumeMount", t_mount);
static const struct field f_device[] = {
    {"name", &t_string, 0},
    {"devicePath", &t_string, 0},
};
STRUCT(t_device, "v1.VolumeDevice", f_device);
SLICE(t_devices, "[]v1.VolumeDevice", t_device);
static const struct field f_exec[] = {{"command", &t_strings, OMIT}};
STRUCT(t_exec, "v1.ExecAction", f_exec);
static const struct field f_header[] = {
    {"name", &t_string, 0},
    {"value", &t_string, 0},
};
STRUCT(t_header, "v1.HTTPHeader", f_header);
SLICE(t_headers, "[]v1.HTTPHeader", t_header);
static const struct field f_http_get[] = {
    {"path", &t_string, OMIT},         {"port", &t_intstr, 0},
    {"host", &t_string, OMIT},         {"scheme", &t_string, OMIT},
    {"httpHeaders", &t_headers, OMIT},
};
STRUCT(t_http_get, "v1.HTTPGetAction", f_http_get);
static const struct field f_tcp[] = {
    {"port", &t_intstr, 0},
    {"host", &t_string, OMIT},
};
STRUCT(t_tcp, "v1.TCPSocketAction", f_tcp);
static const struct field f_grpc[] = {
    {"port", &t_int32, 0},
    {"service", &t_string, PTR},
};
STRUCT(t_grpc, "v1.GRPCAction", f_grpc);
static const struct field f_probe_handler[] = {
    {"exec", &t_exec, PTR | OMIT},
    {"httpGet", &t_http_get, PTR | OMIT},
    {"tcpSocket", &t_tcp, PTR | OMIT},
    {"grpc", &t_grpc, PTR | OMIT},
};
STRUCT(t_probe_handler, "v1.ProbeHandler", f_probe_handler);
static const struct field f_probe[] = {
    {NULL, &t_probe_handler, INLINE},
    {"initialDelaySeconds", &t_int32, OMIT},
    {"timeoutSeconds", &t_int32, OMIT},
    {"periodSeconds", &t_int32, OMIT},
    {"successThreshold", &t_int32, OMIT},
    {"failureThreshold", &t_int32, OMIT},
    {"terminationGracePeriodSeconds", &t_int64, PTR | OMIT},
};
STRUCT(t_probe, "v1.Probe", f_probe);
static const struct field f_sleep[] = {{"seconds", &t_int64, 0}};
STRUCT(t_sleep, "v1.SleepAction", f_sleep);
static const struct field f_lifecycle_handler[] = {
    {"exec", &t_exec, PTR | OMIT},
    {"httpGet", &t_http_get, PTR | OMIT},
    {"tcpSocket", &t_tcp, PTR | OMIT},
    {"sleep", &t_sleep, PTR | OMIT},
};
STRUCT(t_lifecycle_handler, "v1.LifecycleHandler", f_lifecycle_handler);
static const struct field f_lifecycle[] = {
    {"postStart", &t_lifecycle_handler, PTR | OMIT},
    {"preStop", &t_lifecycle_handler, PTR | OMIT},
};
STRUCT(t_lifecycle, "v1.Lifecycle", f_lifecycle);
static const struct field f_caps[] = {
    {"add", &t_strings, OMIT},
    {"drop", &t_strings, OMIT},
};
STRUCT(t_caps, "v1.Capabilities", f_caps);
static const struct field f_selinux[] = {
    {"user", &t_string, OMIT},
    {"role", &t_string, OMIT},
    {"type", &t_string, OMIT},
    {"level", &t_string, OMIT},
};
STRUCT(t_selinux, "v1.SELinuxOptions", f_selinux);
static const struct field f_windows[] = {
    {"gmsaCredentialSpecName", &t_string, PTR | OMIT},
    {"gmsaCredentialSpec", &t_string, PTR | OMIT},
    {"runAsUserName", &t_string, PTR | OMIT},
    {"hostProcess", &t_bool, PTR | OMIT},
};
STRUCT(t_windows, "v1.WindowsSecurityContextOptions", f_windows);
static const struct field f_profile[] = {
    {"type", &t_string, 0},
    {"localhostProfile", &t_string, PTR | OMIT},
};
STRUCT(t_profile, "v1.SeccompProfile", f_profile);
static const struct field f_security[] = {
    {"capabilities", &t_caps, PTR | OMIT},
    {"privileged", &t_bool, PTR | OMIT},
    {"seLinuxOptions", &t_selinux, PTR | OMIT},
    {"windowsOptions", &t_windows, PTR | OMIT},
    {"runAsUser", &t_int64, PTR | OMIT},
    {"runAsGroup", &t_int64, PTR | OMIT},
    {"runAsNonRoot", &t_bool, PTR | OMIT},
    {"readOnlyRootFilesystem", &t_bool, PTR | OMIT},
    {"allowPrivilegeEscalation", &t_bool, PTR | OMIT},
    {"procMount", &t_string, PTR | OMIT},
    {"seccompProfile", &t_profile, PTR | OMIT},
    {"appArmorProfile", &t_profile, PTR | OMIT},
};
STRUCT(t_security, "v1.SecurityContext", f_security);
static const struct field f_container[] = {
    {"name", &t_string, 0},
    {"image", &t_string, OMIT},
    {"command", &t_strings, OMIT},
    {"args", &t_strings, OMIT},
    {"workingDir", &t_string, OMIT},
    {"ports", &t_ports, OMIT},
    {"envFrom", &t_env_froms, OMIT},
    {"env", &t_envs, OMIT},
    {"resources", &t_resources, OMIT},
    {"resizePolicy", &t_resizes, OMIT},
    {"restartPolicy", &t_string, PTR | OMIT},
    {"volumeMounts", &t_mounts, OMIT},
    {"volumeDevices", &t_devices, OMIT},
    {"livenessProbe", &t_probe, PTR | OMIT},
    {"readinessProbe", &t_probe, PTR | OMIT},
    {"startupProbe", &t_probe, PTR | OMIT},
    {"lifecycle", &t_lifecycle, PTR | OMIT},
    {"terminationMessagePath", &t_string, OMIT},
    {"terminationMessagePolicy", &t_string, OMIT},
    {"imagePullPolicy", &t_string, OMIT},
    {"securityContext", &t_security, PTR | OMIT},
    {"stdin", &t_bool, OMIT},
    {"stdinOnce", &t_bool, OMIT},
    {"tty", &t_bool, OMIT},
};
const struct wh_gojson_type wh_gojson_container = {"v1.Container", K_STRUCT, f_container,
                                                   N(f_container), NULL};

/* --- core/v1: volumes ---------------------------------------------------------------------- */

static const struct field f_key_to_path[] = {
    {"key", &t_string, 0},
    {"path", &t_string, 0},
    {"mode", &t_int32, PTR | OMIT},
};
STRUCT(t_key_to_path, "v1.KeyToPath", f_key_to_path);
SLICE(t_key_to_paths, "[]v1.KeyToPath", t_key_to_path);
static const struct field f_host_path[] = {
    {"path", &t_string, 0},
    {"type", &t_string, PTR | OMIT},
};
STRUCT(t_host_path, "v1.HostPathVolumeSource", f_host_path);
static const struct field f_empty_dir[] = {
    {"medium", &t_string, OMIT},
    {"sizeLimit", &t_quantity, PTR | OMIT},
};
STRUCT(t_empty_dir, "v1.EmptyDirVolumeSource", f_empty_dir);
static const struct field f_gce[] = {
    {"pdName", &t_string, 0},
    {"fsType", &t_string, OMIT},
    {"partition", &t_int32, OMIT},
    {"readOnly", &t_bool, OMIT},
};
STRUCT(t_gce, "v1.GCEPersistentDiskVolumeSource", f_gce);
static const struct field f_aws[] = {
    {"volumeID", &t_string, 0},
    {"fsType", &t_string, OMIT},
    {"partition", &t_int32, OMIT},
    {"readOnly", &t_bool, OMIT},
};
STRUCT(t_aws, "v1.AWSElasticBlockStoreVolumeSource", f_aws);
static const struct field f_git[] = {
    {"repository", &t_string, 0},
    {"revision", &t_string, OMIT},
    {"directory", &t_string, OMIT},
};
STRUCT(t_git, "v1.GitRepoVolumeSource", f_git);
static const struct field f_secret_vol[] = {
    {"secretName", &t_string, OMIT},
    {"items", &t_key_to_paths, OMIT},
    {"defaultMode", &t_int32, PTR | OMIT},
    {"optional", &t_bool, PTR | OMIT},
};
STRUCT(t_secret_vol, "v1.SecretVolumeSource", f_secret_vol);
static const struct field f_nfs[] = {
    {"server", &t_string, 0},
    {"path", &t_string, 0},
    {"readOnly", &t_bool, OMIT},
};
STRUCT(t_nfs, "v1.NFSVolumeSource", f_nfs);
static const struct field f_iscsi[] = {
    {"targetPortal", &t_string, 0},
    {"iqn", &t_string, 0},
    {"lun", &t_int32, 0},
    {"iscsiInterface", &t_string, OMIT},
    {"fsType", &t_string, OMIT},
    {"readOnly", &t_bool, OMIT},
    {"portals", &t_strings, OMIT},
    {"chapAuthDiscovery", &t_bool, OMIT},
    {"chapAuthSession", &t_bool, OMIT},
    {"secretRef", &t_local_ref, PTR | OMIT},
    {"initiatorName", &t_string, PTR | OMIT},
};
STRUCT(t_iscsi, "v1.ISCSIVolumeSource", f_iscsi);
static const struct field f_gluster[] = {
    {"endpoints", &t_string, 0},
    {"path", &t_string, 0},
    {"readOnly", &t_bool, OMIT},
};
STRUCT(t_gluster, "v1.GlusterfsVolumeSource", f_gluster);
static const struct field f_pvc[] = {
    {"claimName", &t_string, 0},
    {"readOnly", &t_bool, OMIT},
};
STRUCT(t_pvc, "v1.PersistentVolumeClaimVolumeSource", f_pvc);
static const struct field f_rbd[] = {
    {"monitors", &t_strings, 0},
    {"image", &t_string, 0},
    {"fsType", &t_string, OMIT},
    {"pool", &t_string, OMIT},
    {"user", &t_string, OMIT},
    {"keyring", &t_string, OMIT},
    {"secretRef", &t_local_ref, PTR | OMIT},
    {"readOnly", &t_bool, OMIT},
};
STRUCT(t_rbd, "v1.RBDVolumeSource", f_rbd);
static const struct field f_flex[] = {
    {"driver", &t_string, 0},
    {"fsType", &t_string, OMIT},
    {"secretRef", &t_local_ref, PTR | OMIT},
    {"readOnly", &t_bool, OMIT},
    {"options", &t_map_string, OMIT},
};
STRUCT(t_flex, "v1.FlexVolumeSource", f_flex);
static const struct field f_cinder[] = {
    {"volumeID", &t_string, 0},
    {"fsType", &t_string, OMIT},
    {"readOnly", &t_bool, OMIT},
    {"secretRef", &t_local_ref, PTR | OMIT},
};
STRUCT(t_cinder, "v1.CinderVolumeSource", f_cinder);
static const struct field f_cephfs[] = {
    {"monitors", &t_strings, 0},
    {"path", &t_string, OMIT},
    {"user", &t_string, OMIT},
    {"secretFile", &t_string, OMIT},
    {"secretRef", &t_local_ref, PTR | OMIT},
    {"readOnly", &t_bool, OMIT},
};
STRUCT(t_cephfs, "v1.CephFSVolumeSource", f_cephfs);
static const struct field f_flocker[] = {
    {"datasetName", &t_string, OMIT},
    {"datasetUUID", &t_string, OMIT},
};
STRUCT(t_flocker, "v1.FlockerVolumeSource", f_flocker);
static const struct field f_downward_file[] = {
    {"path", &t_string, 0},
    {"fieldRef", &t_field_sel, PTR | OMIT},
    {"resourceFieldRef", &t_resource_sel, PTR | OMIT},
    {"mode", &t_int32, PTR | OMIT},
};
STRUCT(t_downward_file, "v1.DownwardAPIVolumeFile", f_downward_file);
SLICE(t_downward_files, "[]v1.DownwardAPIVolumeFile", t_downward_file);
static const struct field f_downward[] = {
    {"items", &t_downward_files, OMIT},
    {"defaultMode", &t_int32, PTR | OMIT},
};
STRUCT(t_downward, "v1.DownwardAPIVolumeSource", f_downward);
static const struct field f_fc[] = {
    {"targetWWNs", &t_strings, OMIT}, {"lun", &t_int32, PTR | OMIT}, {"fsType", &t_string, OMIT},
    {"readOnly", &t_bool, OMIT},      {"wwids", &t_strings, OMIT},
};
STRUCT(t_fc, "v1.FCVolumeSource", f_fc);
static const struct field f_azure_file[] = {
    {"secretName", &t_string, 0},
    {"shareName", &t_string, 0},
    {"readOnly", &t_bool, OMIT},
};
STRUCT(t_azure_file, "v1.AzureFileVolumeSource", f_azure_file);
static const struct field f_config_map_vol[] = {
    {NULL, &t_local_ref, INLINE},
    {"items", &t_key_to_paths, OMIT},
    {"defaultMode", &t_int32, PTR | OMIT},
    {"optional", &t_bool, PTR | OMIT},
};
STRUCT(t_config_map_vol, "v1.ConfigMapVolumeSource", f_config_map_vol);
static const struct field f_vsphere[] = {
    {"volumePath", &t_string, 0},
    {"fsType", &t_string, OMIT},
    {"storagePolicyName", &t_string, OMIT},
    {"storagePolicyID", &t_string, OMIT},
};
STRUCT(t_vsphere, "v1.VsphereVirtualDiskVolumeSource", f_vsphere);
static const struct field f_quobyte[] = {
    {"registry", &t_string, 0}, {"volume", &t_string, 0},   {"readOnly", &t_bool, OMIT},
    {"user", &t_string, OMIT},  {"group", &t_string, OMIT}, {"tenant", &t_string, OMIT},
};
STRUCT(t_quobyte, "v1.QuobyteVolumeSource", f_quobyte);
static const struct field f_azure_disk[] = {
    {"diskName", &t_string, 0},
    {"diskURI", &t_string, 0},
    {"cachingMode", &t_string, PTR | OMIT},
    {"fsType", &t_string, PTR | OMIT},
    {"readOnly", &t_bool, PTR | OMIT},
    {"kind", &t_string, PTR | OMIT},
};
STRUCT(t_azure_disk, "v1.AzureDiskVolumeSource", f_azure_disk);
static const struct field f_photon[] = {
    {"pdID", &t_string, 0},
    {"fsType", &t_string, OMIT},
};
STRUCT(t_photon, "v1.PhotonPersistentDiskVolumeSource", f_photon);
static const struct field f_secret_proj[] = {
    {NULL, &t_local_ref, INLINE},
    {"items", &t_key_to_paths, OMIT},
    {"optional", &t_bool, PTR | OMIT},
};
STRUCT(t_secret_proj, "v1.SecretProjection", f_secret_proj);
static const struct field f_downward_proj[] = {{"items", &t_downward_files, OMIT}};
STRUCT(t_downward_proj, "v1.DownwardAPIProjection", f_downward_proj);
static const struct field f_token_proj[] = {
    {"audience", &t_string, OMIT},
    {"expirationSeconds", &t_int64, PTR | OMIT},
    {"path", &t_string, 0},
};
STRUCT(t_token_proj, "v1.ServiceAccountTokenProjection", f_token_proj);
static const struct field f_bundle_proj[] = {
    {"name", &t_string, PTR | OMIT},
    {"signerName", &t_string, PTR | OMIT},
    {"labelSelector", &t_selector, PTR | OMIT},
    {"optional", &t_bool, PTR | OMIT},
    {"path", &t_string, 0},
};
STRUCT(t_bundle_proj, "v1.ClusterTrustBundleProjection", f_bundle_proj);
static const struct field f_projection[] = {
    {"secret", &t_secret_proj, PTR | OMIT},
    {"downwardAPI", &t_downward_proj, PTR | OMIT},
    {"configMap", &t_secret_proj, PTR | OMIT},
    {"serviceAccountToken", &t_token_proj, PTR | OMIT},
    {"clusterTrustBundle", &t_bundle_proj, PTR | OMIT},
};
STRUCT(t_projection, "v1.VolumeProjection", f_projection);
SLICE(t_projections, "[]v1.VolumeProjection", t_projection);
static const struct field f_projected[] = {
    {"sources", &t_projections, 0},
    {"defaultMode", &t_int32, PTR | OMIT},
};
STRUCT(t_projected, "v1.ProjectedVolumeSource", f_projected);
static const struct field f_portworx[] = {
    {"volumeID", &t_string, 0},
    {"fsType", &t_string, OMIT},
    {"readOnly", &t_bool, OMIT},
};
STRUCT(t_portworx, "v1.PortworxVolumeSource", f_portworx);
static const struct field f_scaleio[] = {
    {"gateway", &t_string, 0},
    {"system", &t_string, 0},
    {"secretRef", &t_local_ref, PTR},
    {"sslEnabled", &t_bool, OMIT},
    {"protectionDomain", &t_string, OMIT},
    {"storagePool", &t_string, OMIT},
    {"storageMode", &t_string, OMIT},
    {"volumeName", &t_string, OMIT},
    {"fsType", &t_string, OMIT},
    {"readOnly", &t_bool, OMIT},
};
STRUCT(t_scaleio, "v1.ScaleIOVolumeSource", f_scaleio);
static const struct field f_storageos[] = {
    {"volumeName", &t_string, OMIT},
    {"volumeNamespace", &t_string, OMIT},
    {"fsType", &t_string, OMIT},
    {"readOnly", &t_bool, OMIT},
    {"secretRef", &t_local_ref, PTR | OMIT},
};
STRUCT(t_storageos, "v1.StorageOSVolumeSource", f_storageos);
static const struct field f_csi[] = {
    {"driver", &t_string, 0},
    {"readOnly", &t_bool, PTR | OMIT},
    {"fsType", &t_string, PTR | OMIT},
    {"volumeAttributes", &t_map_string, OMIT},
    {"nodePublishSecretRef", &t_local_ref, PTR | OMIT},
};
STRUCT(t_csi, "v1.CSIVolumeSource", f_csi);
static const struct field f_typed_local_ref[] = {
    {"apiGroup", &t_string, PTR},
    {"kind", &t_string, 0},
    {"name", &t_string, 0},
};
STRUCT(t_typed_local_ref, "v1.TypedLocalObjectReference", f_typed_local_ref);
static const struct field f_typed_ref[] = {
    {"apiGroup", &t_string, PTR},
    {"kind", &t_string, 0},
    {"name", &t_string, 0},
    {"namespace", &t_string, PTR | OMIT},
};
STRUCT(t_typed_ref, "v1.TypedObjectReference", f_typed_ref);
static const struct field f_vol_resources[] = {
    {"limits", &t_resource_list, OMIT},
    {"requests", &t_resource_list, OMIT},
};
STRUCT(t_vol_resources, "v1.VolumeResourceRequirements", f_vol_resources);
static const struct field f_pvc_spec[] = {
    {"accessModes", &t_strings, OMIT},
    {"selector", &t_selector, PTR | OMIT},
    {"resources", &t_vol_resources, OMIT},
    {"volumeName", &t_string, OMIT},
    {"storageClassName", &t_string, PTR | OMIT},
    {"volumeMode", &t_string, PTR | OMIT},
    {"dataSource", &t_typed_local_ref, PTR | OMIT},
    {"dataSourceRef", &t_typed_ref, PTR | OMIT},
    {"volumeAttributesClassName", &t_string, PTR | OMIT},
};
STRUCT(t_pvc_spec, "v1.PersistentVolumeClaimSpec", f_pvc_spec);
static const struct field f_pvc_template[] = {
    {"metadata", &t_object_meta, OMIT},
    {"spec", &t_pvc_spec, 0},
};
STRUCT(t_pvc_template, "v1.PersistentVolumeClaimTemplate", f_pvc_template);
static const struct field f_ephemeral[] = {
    {"volumeClaimTemplate", &t_pvc_template, PTR | OMIT},
};
STRUCT(t_ephemeral, "v1.EphemeralVolumeSource", f_ephemeral);
static const struct field f_image_vol[] = {
    {"reference", &t_string, OMIT},
    {"pullPolicy", &t_string, OMIT},
};
STRUCT(t_image_vol, "v1.ImageVolumeSource", f_image_vol);
static const struct field f_volume_source[] = {
    {"hostPath", &t_host_path, PTR | OMIT},
    {"emptyDir", &t_empty_dir, PTR | OMIT},
    {"gcePersistentDisk", &t_gce, PTR | OMIT},
    {"awsElasticBlockStore", &t_aws, PTR | OMIT},
    {"gitRepo", &t_git, PTR | OMIT},
    {"secret", &t_secret_vol, PTR | OMIT},
    {"nfs", &t_nfs, PTR | OMIT},
    {"iscsi", &t_iscsi, PTR | OMIT},
    {"glusterfs", &t_gluster, PTR | OMIT},
    {"persistentVolumeClaim", &t_pvc, PTR | OMIT},
    {"rbd", &t_rbd, PTR | OMIT},
    {"flexVolume", &t_flex, PTR | OMIT},
    {"cinder", &t_cinder, PTR | OMIT},
    {"cephfs", &t_cephfs, PTR | OMIT},
    {"flocker", &t_flocker, PTR | OMIT},
    {"downwardAPI", &t_downward, PTR | OMIT},
    {"fc", &t_fc, PTR | OMIT},
    {"azureFile", &t_azure_file, PTR | OMIT},
    {"configMap", &t_config_map_vol, PTR | OMIT},
    {"vsphereVolume", &t_vsphere, PTR | OMIT},
    {"quobyte", &t_quobyte, PTR | OMIT},
    {"azureDisk", &t_azure_disk, PTR | OMIT},
    {"photonPersistentDisk", &t_photon, PTR | OMIT},
    {"projected", &t_projected, PTR | OMIT},
    {"portworxVolume", &t_portworx, PTR | OMIT},
    {"scaleIO", &t_scaleio, PTR | OMIT},
    {"storageos", &t_storageos, PTR | OMIT},
    {"csi", &t_csi, PTR | OMIT},
    {"ephemeral", &t_ephemeral, PTR | OMIT},
    {"image", &t_image_vol, PTR | OMIT},
};
STRUCT(t_volume_source, "v1.VolumeSource", f_volume_source);
static const struct field f_volume[] = {
    {"name", &t_string, 0},
    {NULL, &t_volume_source, INLINE},
};
const struct wh_gojson_type wh_gojson_volume = {"v1.Volume", K_STRUCT, f_volume, N(f_volume), NULL};
SLICE(t_volumes, "[]v1.Volume", wh_gojson_volume);

/* --- apps.kruise.io SidecarSet (v1alpha1 and v1beta1) ------------------------------------------
 */

static const struct field f_upgrade[] = {
    {"upgradeType", &t_string, OMIT},
    {"hotUpgradeEmptyImage", &t_string, OMIT},
};
STRUCT(t_upgrade, "v1beta1.SidecarContainerUpgradeStrategy", f_upgrade);
static const struct field f_share[] = {{"type", &t_string, OMIT}};
STRUCT(t_share, "v1beta1.ShareVolumePolicy", f_share);
static const struct field f_source_name[] = {{"fieldRef", &t_field_sel, PTR | OMIT}};
STRUCT(t_source_name, "v1beta1.SourceContainerNameSource", f_source_name);
static const struct field f_transfer[] = {
    {"sourceContainerName", &t_string, OMIT},
    {"sourceContainerNameFrom", &t_source_name, PTR | OMIT},
    {"envName", &t_string, OMIT},
    {"envNames", &t_strings, OMIT},
};
STRUCT(t_transfer, "v1beta1.TransferEnvVar", f_transfer);
SLICE(t_transfers, "[]v1beta1.TransferEnvVar", t_transfer);
static const struct field f_expr_pair[] = {
    {"cpu", &t_string, OMIT},
    {"memory", &t_string, OMIT},
};
STRUCT(t_expr_pair, "v1beta1.ResourceExprLimits", f_expr_pair);
static const struct field f_expr[] = {
    {"limits", &t_expr_pair, PTR | OMIT},
    {"requests", &t_expr_pair, PTR | OMIT},
};
STRUCT(t_expr, "v1beta1.ResourcesExpr", f_expr);
static const struct field f_res_policy[] = {
    {"targetContainersMode", &t_string, 0},
    {"targetContainersNameRegex", &t_string, OMIT},
    {"resourcesExpr", &t_expr, 0},
};
STRUCT(t_res_policy, "v1beta1.ResourcesPolicy", f_res_policy);
static const struct field f_sidecar[] = {
    {NULL, &wh_gojson_container, INLINE},
    {"podInjectPolicy", &t_string, OMIT},
    {"upgradeStrategy", &t_upgrade, OMIT},
    {"shareVolumePolicy", &t_share, OMIT},
    {"shareVolumeDevicePolicy", &t_share, PTR | OMIT},
    {"transferEnv", &t_transfers, OMIT},
    {"resourcesPolicy", &t_res_policy, PTR | OMIT},
};
const struct wh_gojson_type wh_gojson_sidecar_container = {"v1beta1.SidecarContainer", K_STRUCT,
                                                           f_sidecar, N(f_sidecar), NULL};
SLICE(t_sidecars, "[]v1beta1.SidecarContainer", wh_gojson_sidecar_container);

static const struct field f_order_term[] = {{"orderedKey", &t_string, 0}};
STRUCT(t_order_term, "pub.UpdatePriorityOrderTerm", f_order_term);
SLICE(t_order_terms, "[]pub.UpdatePriorityOrderTerm", t_order_term);
static const struct field f_weight_term[] = {
    {"weight", &t_int32, 0},
    {"matchSelector", &t_selector, 0},
};
STRUCT(t_weight_term, "pub.UpdatePriorityWeightTerm", f_weight_term);
SLICE(t_weight_terms, "[]pub.UpdatePriorityWeightTerm", t_weight_term);
static const struct field f_priority[] = {
    {"orderPriority", &t_order_terms, OMIT},
    {"weightPriority", &t_weight_terms, OMIT},
};
STRUCT(t_priority, "pub.UpdatePriorityStrategy", f_priority);
static const struct field f_scatter_term[] = {
    {"key", &t_string, 0},
    {"value", &t_string, 0},
};
STRUCT(t_scatter_term, "v1beta1.UpdateScatterTerm", f_scatter_term);
SLICE(t_scatter, "v1beta1.UpdateScatterStrategy", t_scatter_term);
static const struct field f_update_strategy[] = {
    {"type", &t_string, OMIT},
    {"paused", &t_bool, OMIT},
    {"selector", &t_selector, PTR | OMIT},
    {"partition", &t_intstr, PTR | OMIT},
    {"maxUnavailable", &t_intstr, PTR | OMIT},
    {"priorityStrategy", &t_priority, PTR | OMIT},
    {"scatterStrategy", &t_scatter, OMIT},
};
STRUCT(t_update_strategy, "v1beta1.SidecarSetUpdateStrategy", f_update_strategy);
static const struct field f_inject_revision[] = {
    {"customVersion", &t_string, PTR | OMIT},
    {"revisionName", &t_string, PTR | OMIT},
    {"policy", &t_string, OMIT},
};
STRUCT(t_inject_revision, "v1beta1.SidecarSetInjectRevision", f_inject_revision);
static const struct field f_injection[] = {
    {"paused", &t_bool, OMIT},
    {"revision", &t_inject_revision, PTR | OMIT},
};
STRUCT(t_injection, "v1beta1.SidecarSetInjectionStrategy", f_injection);
static const struct field f_patch_meta[] = {
    {"annotations", &t_map_string, OMIT},
    {"patchPolicy", &t_string, OMIT},
};
STRUCT(t_patch_meta, "v1beta1.SidecarSetPatchPodMetadata", f_patch_meta);
SLICE(t_patch_metas, "[]v1beta1.SidecarSetPatchPodMetadata", t_patch_meta);
static const struct field f_spec_beta[] = {
    {"selector", &t_selector, PTR | OMIT},
    {"namespaceSelector", &t_selector, PTR | OMIT},
    {"initContainers", &t_sidecars, OMIT},
    {"containers", &t_sidecars, OMIT},
    {"volumes", &t_volumes, OMIT},
    {"updateStrategy", &t_update_strategy, OMIT},
    {"injectionStrategy", &t_injection, OMIT},
    {"imagePullSecrets", &t_local_refs, OMIT},
    {"revisionHistoryLimit", &t_int32, PTR | OMIT},
    {"patchPodMetadata", &t_patch_metas, OMIT},
    {"customVersion", &t_string, OMIT},
};
STRUCT(t_spec_beta, "v1beta1.SidecarSetSpec", f_spec_beta);
static const struct field f_spec_alpha[] = {
    {"selector", &t_selector, PTR | OMIT},
    {"namespace", &t_string, OMIT},
    {"namespaceSelector", &t_selector, PTR | OMIT},
    {"initContainers", &t_sidecars, OMIT},
    {"containers", &t_sidecars, OMIT},
    {"volumes", &t_volumes, OMIT},
    {"updateStrategy", &t_update_strategy, OMIT},
    {"injectionStrategy", &t_injection, OMIT},
    {"imagePullSecrets", &t_local_refs, OMIT},
    {"revisionHistoryLimit", &t_int32, PTR | OMIT},
    {"patchPodMetadata", &t_patch_metas, OMIT},
};
STRUCT(t_spec_alpha, "v1alpha1.SidecarSetSpec", f_spec_alpha);
static const struct field f_status[] = {
    {"observedGeneration", &t_int64, OMIT},
    {"matchedPods", &t_int32, 0},
    {"updatedPods", &t_int32, 0},
    {"readyPods", &t_int32, 0},
    {"updatedReadyPods", &t_int32, OMIT},
    {"latestRevision", &t_string, OMIT},
    {"collisionCount", &t_int32, PTR | OMIT},
};
STRUCT(t_status, "v1beta1.SidecarSetStatus", f_status);
static const struct field f_type_meta[] = {
    {"kind", &t_string, OMIT},
    {"apiVersion", &t_string, OMIT},
};
STRUCT(t_type_meta, "v1.TypeMeta", f_type_meta);
static const struct field f_sidecarset_beta[] = {
    {NULL, &t_type_meta, INLINE},
    {"metadata", &t_object_meta, OMIT},
    {"spec", &t_spec_beta, OMIT},
    {"status", &t_status, OMIT},
};
const struct wh_gojson_type wh_gojson_sidecarset_v1beta1 = {
    "v1beta1.SidecarSet", K_STRUCT, f_sidecarset_beta, N(f_sidecarset_beta), NULL};
static const struct field f_sidecarset_alpha[] = {
    {NULL, &t_type_meta, INLINE},
    {"metadata", &t_object_meta, OMIT},
    {"spec", &t_spec_alpha, OMIT},
    {"status", &t_status, OMIT},
};
const struct wh_gojson_type wh_gojson_sidecarset_v1alpha1 = {
    "v1alpha1.SidecarSet", K_STRUCT, f_sidecarset_alpha, N(f_sidecarset_alpha), NULL};

/* --- normalisation --------------------------------------------------------------------------- */

struct ctx {
    struct wh_errbuf *eb;
    const char *struct_name; /* innermost struct, for Go-like messages */
    char path[256];          /* dotted field path */
};

static enum wh_err type_error(struct ctx *c, const json_t *v, const struct wh_gojson_type *t)
{
    return wh_errbuf_set(c->eb, WH_ERR_INVALID,
                         "json: cannot unmarshal %s into Go struct field %s.%s of type %s",
                         wh_json_go_type_name(v), c->struct_name, c->path, t->go_name);
}

static enum wh_err norm(struct ctx *c, const json_t *v, const struct wh_gojson_type *t,
                        json_t **out);

/* The encoding of a zero value of t (what Go prints for a field that was never set). */
static json_t *zero_value(struct ctx *c, const struct wh_gojson_type *t)
{
    json_t *out = NULL;
    switch (t->kind) {
    case K_STRING:
        return json_string("");
    case K_BOOL:
        return json_false();
    case K_INT32:
    case K_INT64:
    case K_INTORSTRING:
        return json_integer(0);
    case K_QUANTITY:
        return json_string("0");
    case K_STRUCT:
        /* an empty object never fails to normalise */
        if (norm(c, NULL, t, &out))
            WH_PANIC("zero struct %s failed", t->go_name);
        return out;
    default: /* time, raw, slices, maps: nil */
        return json_null();
    }
}

/* Go's isEmptyValue, on the normalised encoding; structs are never empty. */
static bool is_empty(const struct wh_gojson_type *t, const json_t *nv)
{
    switch (t->kind) {
    case K_STRING:
        return json_string_length(nv) == 0;
    case K_BOOL:
        return json_is_false(nv);
    case K_INT32:
    case K_INT64:
        return json_integer_value(nv) == 0;
    case K_SLICE:
        return json_is_null(nv) || json_array_size(nv) == 0;
    case K_MAP:
    case K_RAW:
        return json_is_null(nv) || (json_is_object(nv) && json_object_size(nv) == 0);
    default:
        return false;
    }
}

static void path_push(struct ctx *c, const char *name, size_t *saved)
{
    size_t n = strlen(c->path);
    *saved = n;
    snprintf(c->path + n, sizeof(c->path) - n, "%s%s", n ? "." : "", name);
}

static void path_pop(struct ctx *c, size_t saved)
{
    c->path[saved] = 0;
}

static enum wh_err norm_fields(struct ctx *c, const json_t *obj, const struct wh_gojson_type *t,
                               json_t *out)
{
    enum wh_err rc = WH_OK;
    for (size_t i = 0; i < t->nfields; i++) {
        const struct field *f = &t->fields[i];
        if (f->flags & INLINE) {
            rc = norm_fields(c, obj, f->type, out);
            if (rc)
                return rc;
            continue;
        }
        const json_t *mv = obj ? json_object_get(obj, f->name) : NULL;
        bool is_nil_kind = (f->flags & PTR) || f->type->kind == K_SLICE || f->type->kind == K_MAP ||
                           f->type->kind == K_RAW;
        json_t *nv = NULL;
        if (!mv || json_is_null(mv)) {
            /* JSON null sets pointers, slices and maps to nil and leaves anything else zero */
            if (is_nil_kind) {
                if (f->flags & OMIT)
                    continue;
                nv = json_null();
            } else {
                if ((f->flags & OMIT) && f->type->kind != K_STRUCT && f->type->kind != K_QUANTITY &&
                    f->type->kind != K_TIME && f->type->kind != K_INTORSTRING)
                    continue;
                nv = zero_value(c, f->type);
            }
        } else {
            size_t saved;
            const char *outer = c->struct_name;
            path_push(c, f->name, &saved);
            rc = norm(c, mv, f->type, &nv);
            path_pop(c, saved);
            c->struct_name = outer;
            if (rc)
                return rc;
            if (!(f->flags & PTR) && (f->flags & OMIT) && is_empty(f->type, nv)) {
                json_decref(nv);
                continue;
            }
        }
        json_object_set_new(out, f->name, nv);
    }
    return WH_OK;
}

static int cmp_keys(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static enum wh_err norm(struct ctx *c, const json_t *v, const struct wh_gojson_type *t,
                        json_t **out)
{
    enum wh_err rc = WH_OK;
    *out = NULL;
    switch (t->kind) {
    case K_STRING:
        if (!json_is_string(v))
            return type_error(c, v, t);
        *out = json_stringn(json_string_value(v), json_string_length(v));
        return WH_OK;
    case K_BOOL:
        if (!json_is_boolean(v))
            return type_error(c, v, t);
        *out = json_boolean(json_is_true(v));
        return WH_OK;
    case K_INT32:
    case K_INT64:
        if (!json_is_integer(v))
            return type_error(c, v, t);
        if (t->kind == K_INT32 &&
            (json_integer_value(v) > INT32_MAX || json_integer_value(v) < INT32_MIN))
            return type_error(c, v, t);
        *out = json_integer(json_integer_value(v));
        return WH_OK;
    case K_INTORSTRING:
        if (json_is_integer(v)) {
            if (json_integer_value(v) > INT32_MAX || json_integer_value(v) < INT32_MIN)
                return type_error(c, v, t);
            *out = json_integer(json_integer_value(v));
            return WH_OK;
        }
        if (json_is_string(v)) {
            *out = json_string(json_string_value(v));
            return WH_OK;
        }
        return type_error(c, v, t);
    case K_QUANTITY: {
        char text[64], printed[WH_QUANTITY_MAX_DIGITS + 8];
        struct wh_quantity q;
        if (json_is_string(v)) {
            snprintf(text, sizeof(text), "%s", json_string_value(v));
            if (json_string_length(v) >= sizeof(text))
                return wh_errbuf_set(c->eb, WH_ERR_INVALID, "%s: quantity too long", c->path);
        } else if (json_is_integer(v)) {
            snprintf(text, sizeof(text), "%lld", (long long)json_integer_value(v));
        } else if (json_is_real(v)) {
            snprintf(text, sizeof(text), "%.17g", json_real_value(v));
        } else {
            return type_error(c, v, t);
        }
        /* Go trims spaces around the quantity text before parsing */
        char *s = text;
        while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
            s++;
        size_t n = strlen(s);
        while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r'))
            s[--n] = 0;
        struct wh_errbuf qe;
        if (wh_quantity_parse(s, &q, &qe))
            return wh_errbuf_set(c->eb, WH_ERR_INVALID, "%s", qe.msg);
        wh_quantity_format(&q, printed, sizeof(printed));
        *out = json_string(printed);
        return WH_OK;
    }
    case K_TIME: {
        time_t tt;
        char buf[32];
        if (!json_is_string(v))
            return type_error(c, v, t);
        if (wh_time_parse_rfc3339(json_string_value(v), &tt))
            return wh_errbuf_set(c->eb, WH_ERR_INVALID, "parsing time \"%s\": bad RFC 3339 time",
                                 json_string_value(v));
        if (strncmp(json_string_value(v), "0001-01-01T00:00:00", 19) == 0) {
            *out = json_null(); /* the zero time */
            return WH_OK;
        }
        wh_time_format_rfc3339(tt, buf, sizeof(buf));
        *out = json_string(buf);
        return WH_OK;
    }
    case K_RAW:
        *out = wh_json_copy(v);
        return WH_OK;
    case K_STRUCT: {
        if (v && !json_is_object(v))
            return type_error(c, v, t);
        json_t *o = json_object();
        c->struct_name = t->go_name;
        rc = norm_fields(c, v, t, o);
        if (rc) {
            json_decref(o);
            return rc;
        }
        *out = o;
        return WH_OK;
    }
    case K_SLICE: {
        if (!json_is_array(v))
            return type_error(c, v, t);
        json_t *a = json_array();
        size_t i;
        const json_t *item;
        json_array_foreach(v, i, item)
        {
            json_t *ni = NULL;
            if (json_is_null(item)) {
                ni = zero_value(c, t->elem);
            } else {
                rc = norm(c, item, t->elem, &ni);
                if (rc) {
                    json_decref(a);
                    return rc;
                }
            }
            json_array_append_new(a, ni);
        }
        *out = a;
        return WH_OK;
    }
    case K_MAP: {
        if (!json_is_object(v))
            return type_error(c, v, t);
        size_t n = json_object_size(v), k = 0;
        const char **keys = wh_xmalloc((n ? n : 1) * sizeof(*keys));
        const char *key;
        const json_t *item;
        json_object_foreach((json_t *)(uintptr_t)v, key, item) keys[k++] = key;
        qsort(keys, n, sizeof(*keys), cmp_keys);
        json_t *o = json_object();
        for (k = 0; k < n; k++) {
            json_t *ni = NULL;
            item = json_object_get(v, keys[k]);
            if (json_is_null(item)) {
                ni = zero_value(c, t->elem);
            } else {
                rc = norm(c, item, t->elem, &ni);
                if (rc)
                    break;
            }
            json_object_set_new(o, keys[k], ni);
        }
        free(keys);
        if (rc) {
            json_decref(o);
            return rc;
        }
        *out = o;
        return WH_OK;
    }
    }
    WH_PANIC("unknown kind %d", (int)t->kind);
}

enum wh_err wh_gojson_normalize(const json_t *v, const struct wh_gojson_type *t, bool list,
                                json_t **out, struct wh_errbuf *eb)
{
    struct ctx c = {eb, t->go_name, {0}};
    *out = NULL;
    if (list) {
        if (!v || json_is_null(v)) {
            *out = json_null();
            return WH_OK;
        }
        const struct wh_gojson_type lt = {"[]", K_SLICE, NULL, 0, t};
        return norm(&c, v, &lt, out);
    }
    if (!v || json_is_null(v)) {
        *out = zero_value(&c, t);
        return WH_OK;
    }
    return norm(&c, v, t, out);
}

/* --- Go-style text -------------------------------------------------------------------------- */

enum wh_err wh_gojson_dump(const json_t *v, struct wh_buf *b)
{
    return wh_goenc_append(b, v, false); /* a normalised value: struct fields in Go's order */
}
