#ifndef WH_K8S_PODVALIDATION_INT_H
#define WH_K8S_PODVALIDATION_INT_H

/* Internals shared by the Pod validation files of k8s/ (podvalidation.c: the spec and the
 * template; podvolumes.c: volumes and claim templates; podcontainers.c: every container kind;
 * podprint.c: the values Go prints with %#v). Only k8s/ includes this. */

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "k8s/fielderr.h"
#include "k8s/quantity.h"
#include "k8s/validation.h"

/* Room for a field path built from the API's own names and indexes; a path that also carries a
 * user's map key is built on the heap instead (wh_str_printf). */
#define WH_PV_PATH 1024

#define WH_PV_FILE_MODE_MSG "must be a number between 0 and 0777 (octal), both inclusive"
#define WH_PV_NONNEG_MSG "must be greater than or equal to 0"
#define WH_PV_NOT_POSITIVE_MSG "must be greater than zero"

/* The volumes that passed validation (Go's map name -> VolumeSource that mounts and devices look
 * up). */
struct wh_pv_vols {
    const char **names;
    const json_t **vols; /* the v1 Volume objects, borrowed */
    size_t n;
};

/* The PodSpec as the validation sees it after the v1 -> core conversion. */
struct wh_pv_spec {
    const json_t *spec; /* the v1 PodSpec */
    const json_t *sc;   /* its securityContext object, or NULL (core: an empty one) */
    bool host_network, host_pid, host_ipc;
    const json_t *share_process_namespace; /* a JSON boolean, or NULL (nil) */
    const json_t *host_users;              /* a JSON boolean, or NULL (nil) */
    bool host_users_effective;             /* nil or true */
    bool has_grace;                        /* terminationGracePeriodSeconds is set (not nil) */
    long long grace;                       /* its value as core holds it */
    const char *restart_policy;
    const json_t *pod_meta; /* or NULL */
    struct wh_pv_vols vols;
    const char **claim_names; /* gatherPodResourceClaimNames, sorted, unique */
    size_t nclaims;
    /* The spec was not defaulted (SetDefaults_ResourceList has not run): resource quantities are
     * read as written, not rounded up to milli precision. */
    bool as_written;
};

/* --- small readers ------------------------------------------------------------------------ */

/* o[key] unless absent or null: Go's non-nil pointer, slice or map. Returns: borrowed. */
const json_t *wh_pv_get(const json_t *o, const char *key);
/* o[key] as an integer (0 when absent or not one). */
long long wh_pv_int(const json_t *o, const char *key);
/* Parses a quantity given as JSON (a string, or a number as its text). False when there is none
 * or it does not parse (the decoder has refused it then). */
bool wh_pv_quantity(const json_t *v, struct wh_quantity *q);
/* Each message of m as an Invalid of value at path. */
void wh_pv_invalid_msgs(struct wh_field_errors *l, const char *path, const char *value,
                        const struct wh_vmsgs *m);
/* Messages of a string check as Invalid errors. */
void wh_pv_check(struct wh_field_errors *l, const char *path, const char *value,
                 void (*check)(const char *v, struct wh_vmsgs *out));
/* The keys of a JSON object in byte order. Returns: new array (caller frees) of borrowed keys. */
const char **wh_pv_keys(const json_t *o, size_t *n);

/* --- paths (podvolumes.c) --------------------------------------------------------------------- */

/* validatePathNoBacksteps: whether a '/'-separated element is "..". */
bool wh_pv_has_backsteps(const char *path);
void wh_pv_no_backsteps(struct wh_field_errors *l, const char *value, const char *path);
/* validateLocalDescendingPath. */
void wh_pv_local_descending_path(struct wh_field_errors *l, const char *value, const char *path);
/* ValidateLocalNonReservedPath. */
void wh_pv_local_non_reserved_path(struct wh_field_errors *l, const char *value, const char *path);
/* validatePullPolicy. */
void wh_pv_pull_policy(struct wh_field_errors *l, const char *policy, const char *path);

/* ValidateVolumes(volumes, podMeta, path): fills out (free with wh_pv_vols_fini). */
void wh_pv_volumes(struct wh_field_errors *l, const json_t *volumes, const json_t *pod_meta,
                   const char *path, struct wh_pv_vols *out);
void wh_pv_vols_fini(struct wh_pv_vols *v);
/* The valid volume named name, or NULL. Returns: borrowed. */
const json_t *wh_pv_vol_find(const struct wh_pv_vols *v, const char *name);

/* --- containers (podcontainers.c) --------------------------------------------------------------
 */

void wh_pv_containers(struct wh_field_errors *l, const struct wh_pv_spec *s, const char *path);
void wh_pv_init_containers(struct wh_field_errors *l, const struct wh_pv_spec *s, const char *path);
void wh_pv_ephemeral_containers(struct wh_field_errors *l, const struct wh_pv_spec *s,
                                const char *path);
/* ValidateContainerResourceRequirements(requirements, podClaimNames, path) of a v1
 * ResourceRequirements (borrowed); validateOverhead passes {limits: overhead}. The quantities
 * are read as SetDefaultPodSpec leaves them in memory: rounded up to milli precision, unless
 * s->as_written. */
void wh_pv_resource_requirements(struct wh_field_errors *l, const json_t *limits,
                                 const json_t *requests, const json_t *claims,
                                 const struct wh_pv_spec *s, const char *path);
/* validateSeccompProfileField, ValidateAppArmorProfileField, validateWindowsSecurityContextOptions:
 * the parts a Pod's and a container's security context share. */
void wh_pv_seccomp_profile(struct wh_field_errors *l, const json_t *sp, const char *path);
void wh_pv_apparmor_profile(struct wh_field_errors *l, const json_t *prof, const char *path);
void wh_pv_windows_options(struct wh_field_errors *l, const json_t *wo, const char *path);

/* Visits the init containers, the containers and the ephemeral containers with their paths
 * (podshelper.VisitContainersWithPath); stops when fn returns false. */
typedef bool (*wh_pv_visit_fn)(const json_t *c, const char *cpath, void *arg);
void wh_pv_visit_containers(const json_t *spec, const char *spec_path, wh_pv_visit_fn fn,
                            void *arg);

/* --- annotations (podannotations.c) ------------------------------------------------------------
 */

/* validateSeccompAnnotationsAndFields and validateAppArmorAnnotationsAndFieldsMatchOnCreate. */
void wh_pv_annotations_match_fields(struct wh_field_errors *l, const json_t *annotations,
                                    const json_t *spec, const char *spec_path);

/* --- field selectors (podvolumes.c; the env's use them too)
 * --------------------------------------- */

/* validateObjectFieldSelector with the valid expressions (sorted). */
void wh_pv_object_field_selector(struct wh_field_errors *l, const json_t *fs,
                                 const char *const *valid, size_t nvalid, const char *path);
/* validateContainerResourceFieldSelector (volume: a downward API volume's, which needs the
 * container's name). */
void wh_pv_resource_field_selector(struct wh_field_errors *l, const json_t *fs, bool volume,
                                   const char *path);

/* --- %#v (podprint.c) ------------------------------------------------------------------------- */

/* Each Returns: new string. */
char *wh_pv_gosyntax_strings(const json_t *arr); /* []string */
/* resource.Quantity as ParseQuantity makes it of v's text, then (rounded) RoundUp(-3) */
char *wh_pv_gosyntax_quantity(const json_t *v, bool rounded);
char *wh_pv_gosyntax_security_context(const json_t *sc);  /* core.SecurityContext */
char *wh_pv_gosyntax_seccomp_profile(const json_t *sp);   /* core.SeccompProfile */
char *wh_pv_gosyntax_resize_policies(const json_t *arr);  /* []core.ContainerResizePolicy */
char *wh_pv_gosyntax_resource_claim(const json_t *claim); /* core.PodResourceClaim */
char *
wh_pv_gosyntax_cluster_trust_bundle(const json_t *ctb); /* core.ClusterTrustBundleProjection */
char *wh_pv_gosyntax_field_path(const char *name, const char *index); /* field.Path */

#endif
