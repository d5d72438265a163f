#ifndef WH_K8S_VALIDATION_H
#define WH_K8S_VALIDATION_H

/* Kubernetes' generic validation, with upstream's exact messages, on JSON objects:
 *  - k8s.io/apimachinery/pkg/util/validation: IsQualifiedName, IsValidLabelValue,
 *    IsDNS1123Label, IsDNS1123Subdomain, IsValidPortNum, IsValidPortName, IsEnvVarName,
 *    IsConfigMapKey, IsHTTPHeaderName;
 *  - k8s.io/apimachinery/pkg/apis/meta/v1/validation: ValidateLabels, ValidateLabelName,
 *    ValidateLabelSelector (and whether metav1.LabelSelectorAsSelector would fail);
 *  - k8s.io/apimachinery/pkg/api/validation: ValidateObjectMeta (create), ValidateAnnotations.
 * Go iterates maps in random order; here map keys are visited in byte order, so the order of
 * several errors in one map is deterministic (upstream's is not).
 * Label selector MATCHING lives in k8s/selector.h; this is syntax only.
 * Thread rule: thread-safe (no shared state); inputs are only read. */

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "k8s/fielderr.h"

#define WH_VMSG_MAX 6

/* The messages of one Is* check (empty when valid). */
struct wh_vmsgs {
    size_t n;
    char m[WH_VMSG_MAX][512];
};

void wh_is_qualified_name(const char *v, struct wh_vmsgs *out);
void wh_is_valid_label_value(const char *v, struct wh_vmsgs *out);
void wh_is_dns1123_label(const char *v, struct wh_vmsgs *out);
void wh_is_dns1123_subdomain(const char *v, struct wh_vmsgs *out);
void wh_is_valid_port_num(long long port, struct wh_vmsgs *out);
void wh_is_valid_port_name(const char *v, struct wh_vmsgs *out);
void wh_is_http_header_name(const char *v, struct wh_vmsgs *out);
void wh_is_env_var_name(const char *v, struct wh_vmsgs *out);
void wh_is_config_map_key(const char *v, struct wh_vmsgs *out);
/* NameIsDNSSubdomain (prefix: a generateName, whose trailing '-' is allowed). */
void wh_name_is_dns_subdomain(const char *v, bool prefix, struct wh_vmsgs *out);
/* NameIsDNSLabel (apps validation's ValidateStatefulSetName). */
void wh_name_is_dns_label(const char *v, bool prefix, struct wh_vmsgs *out);

/* validationutil.MaxLenError / RegexError, for validators built elsewhere. */
void wh_vmsg_add(struct wh_vmsgs *out, const char *fmt, ...) WH_PRINTF(2, 3);

/* ValidateLabels(labels, path): labels is a JSON object of strings (NULL = none). */
void wh_validate_labels(struct wh_field_errors *l, const json_t *labels, const char *path);
/* ValidateLabelName(key, path): one Invalid per IsQualifiedName message. */
void wh_validate_label_name(struct wh_field_errors *l, const char *key, const char *path);
/* ValidateAnnotations(annotations, path), including the 256 KiB total size limit. */
void wh_validate_annotations(struct wh_field_errors *l, const json_t *annotations,
                             const char *path);
/* ValidateLabelSelector(sel, {}, path) (label values in expressions are checked). */
void wh_validate_label_selector(struct wh_field_errors *l, const json_t *sel, const char *path);
/* ValidateLabelSelector(sel, {AllowInvalidLabelValueInSelector: allow_invalid_values}, path). */
void wh_validate_label_selector_opts(struct wh_field_errors *l, const json_t *sel,
                                     bool allow_invalid_values, const char *path);
/* Whether metav1.LabelSelectorAsSelector(sel) succeeds (operators, keys, values, counts). */
bool wh_label_selector_convertible(const json_t *sel);
/* Its error text whole, as a new string (caller frees), or NULL when it succeeds: "\"Foo\" is
 * not a valid label selector operator", or labels.NewRequirement's aggregate ("key: Invalid
 * value: ..."). */
char *wh_label_selector_error(const json_t *sel);

/* A ValidateNameFunc. */
typedef void (*wh_name_fn)(const char *name, bool prefix, struct wh_vmsgs *out);

/* ValidateObjectMeta(meta, requires_namespace, name_fn, path) for an object being created. */
void wh_validate_object_meta(struct wh_field_errors *l, const json_t *meta, bool requires_namespace,
                             wh_name_fn name_fn, const char *path);

/* ValidateObjectMeta of pkg/apis/core/validation: the above, then each finalizer at
 * path.finalizers[i] without '/' a standard one (validateKubeFinalizerName).
 * CloneSet, Advanced StatefulSet and UnitedDeployment validation use this one. */
void wh_validate_kube_object_meta(struct wh_field_errors *l, const json_t *meta,
                                  bool requires_namespace, wh_name_fn name_fn, const char *path);

/* IsValidIP(path, value): one Invalid unless value parses as netutils.ParseIPSloppy parses it
 * (IPv4 with leading zeros allowed, IPv6 with an embedded IPv4, no zone). */
void wh_validate_ip(struct wh_field_errors *l, const char *value, const char *path);
/* Whether value parses as above. */
bool wh_ip_sloppy_valid(const char *value);

/* ValidateObjectMetaUpdate (pkg/apis/core/validation) for an object being updated: no new
 * finalizers while it is being deleted, resourceVersion required, generation not decremented,
 * name, namespace, uid, creationTimestamp, deletionTimestamp and deletionGracePeriodSeconds
 * immutable ("field is immutable"), labels, annotations and ownerReferences valid, finalizer
 * names without '/' standard ones (validateKubeFinalizerName; upstream does not ask whether the
 * others are qualified on update). */
void wh_validate_object_meta_update(struct wh_field_errors *l, const json_t *meta,
                                    const json_t *old_meta, const char *path);

/* ValidateNonnegativeField. */
void wh_validate_nonnegative(struct wh_field_errors *l, long long v, const char *path);

/* apps validation ValidatePositiveIntOrPercent: v, an IntOrString as JSON (an integer or a
 * string), is an integer >= 0 or a percent string ("[0-9]+%"). */
void wh_validate_positive_int_or_percent(struct wh_field_errors *l, const json_t *v,
                                         const char *path);
/* apps validation IsNotMoreThan100Percent: a valid percent string is at most "100%". */
void wh_validate_not_more_than_100_percent(struct wh_field_errors *l, const json_t *v,
                                           const char *path);
/* Go's %#v of an intstr.IntOrString value given as JSON. Returns: new string. */
char *wh_gosyntax_intstr(const json_t *v);

/* Go's %#v of a metav1.LabelSelector value given as JSON (absent/null members print as nil
 * maps and slices). Returns: new string. */
char *wh_gosyntax_label_selector(const json_t *sel);
/* What fmt's %v prints for a *metav1.LabelSelector (its generated String() method), given as
 * JSON: "nil" when absent. Returns: new string. */
char *wh_gostring_label_selector(const json_t *sel);
/* What fmt's %v prints for a *intstr.IntOrString given as JSON ("<nil>" when absent, else the
 * integer or the string). Returns: new string. */
char *wh_gostring_intstr(const json_t *v);
/* %#v of a struct whose fields are all strings: type{Go:"value", ...}, for fields[i] = {JSON
 * name, Go name}; an absent member prints "". Returns: new string. */
char *wh_gosyntax_string_struct(const char *type, const json_t *obj, const char *const (*fields)[2],
                                size_t n);
/* %#v of a []string given as a JSON array (anything else: []string(nil)). Returns: new
 * string. */
char *wh_gosyntax_strings(const json_t *arr);
/* %#v of a map[string]string given as a JSON object (NULL: map[string]string(nil)); keys sorted
 * as fmt prints them. Returns: new string. */
char *wh_gosyntax_string_map(const json_t *m);

#endif
