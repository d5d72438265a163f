#ifndef WH_HANDLERS_WORKLOADS_WORKLOAD_INT_H
#define WH_HANDLERS_WORKLOADS_WORKLOAD_INT_H

/* Internals shared by the workload handlers (the files of handlers/workloads/: CloneSet,
 * Advanced StatefulSet, Advanced DaemonSet, UnitedDeployment): what they add to kruise_object's
 * decoding and defaulting frame (handlers/kruise_object.h), the template defaults the four
 * mutating handlers share, and the rules upstream shares between kinds (update strategies, partitions and surges, Pod templates with their claim
 * templates, in-place-only updates) with the Go renderings their messages use.
 * Only webhook/handlers/workloads/ includes this. Thread rule: thread-safe, stateless. */

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "gocompat/gotype.h"
#include "handlers/handler.h"
#include "handlers/kruise_object.h"
#include "k8s/fielderr.h"

/* --- decoding (decode.c) ------------------------------------------------------------------- */

/* The object of a checked raw value as Go holds it once decoded into kind in version v
 * (wh_gotype_decode). Returns: new ref. */
json_t *wl_decoded(const json_t *raw, const char *kind, enum wh_kobj_version v);

/* A decoded v1alpha1 object of a kind upstream converts to v1beta1 before it validates
 * (ConvertTo: Advanced StatefulSet, UnitedDeployment), as the decoded v1beta1 object. Not
 * wh_kobj_decode's up: that converts the request's JSON, this Go's decoded value (empty lists and
 * maps as Go holds them), which is what the validations read. Returns:
 * new ref, or NULL with *msg (new string) when the conversion refuses. */
json_t *wl_decoded_up(const json_t *alpha, const char *kind, char **msg);


/* Answers 422 with the aggregate of l when it has errors (admission.Errored(422, ...)), else
 * allows; true when it denied. */
bool wl_answer_errors(struct wh_admission_response *resp, const struct wh_field_errors *l);

/* The 500 a nil pointer dereference in upstream's handler makes (controller-runtime recovers
 * the panic): "panic: runtime error: invalid memory address or nil pointer dereference
 * [recovered]". */
enum wh_err wl_nil_dereference(struct wh_errbuf *eb);

/* --- defaulting (mutate.c) ------------------------------------------------------------------ */

/* The template defaults of kruise's workload defaulting, on a workload spec (a private JSON
 * object holding "template" and "volumeClaimTemplates"): SetDefaultPodSpec of template.spec
 * (gate DefaultHostNetworkHostPortsInPodTemplates), then each claim template's defaults. */
void wl_default_templates(json_t *spec, const struct wh_config *cfg);

/* --- shared rules (rules.c) ---------------------------------------------------------------- */

/* util.GetScaledValueFromIntOrPercent of kruise (pkg/util): an integer as it is; "<float>%"
 * scaled by total and rounded up (round_up) or down; a string without '%' is "invalid type:
 * string is not a percentage"; a percent that ParseFloat refuses gives ParseFloat's error. v NULL
 * (a nil pointer): "nil value for IntOrString". Errors: WH_ERR_INVALID with the text in eb. */
WH_NODISCARD enum wh_err wl_scaled_value(const json_t *v, int64_t total, bool round_up,
                                         int64_t *out, struct wh_errbuf *eb);

/* intstr.GetValueFromIntOrPercent (the deprecated one): an integer as it is; any string read as
 * a percent with every '%' removed (strconv.Atoi), scaled by total and rounded up or down.
 * v NULL: "nil value for IntOrString"; a string Atoi refuses: "invalid value for IntOrString:
 * invalid value \"<s>\": <Atoi's error>". Errors: WH_ERR_INVALID with the text in eb. */
WH_NODISCARD enum wh_err wl_legacy_value(const json_t *v, int64_t total, bool round_up,
                                         int64_t *out, struct wh_errbuf *eb);

/* intstr.IntOrString.String() of v (JSON integer or string), "<nil>" for NULL. Returns: new
 * string. */
char *wl_intstr_string(const json_t *v);

/* The template part of upstream's workload validation (convertor.ConvertPodTemplateSpec then
 * ValidatePodTemplateSpec): template (the spec's v1 PodTemplateSpec, decoded, private) gets
 * kruise's Pod spec defaults in place, as upstream's conversion gives them to the original;
 * then it is validated at path with one persistentVolumeClaim volume added per claim template
 * (claims: a JSON array of PVCs or NULL), as CloneSet validation adds them. */
void wl_validate_template(struct wh_field_errors *l, json_t *template_, const json_t *claims,
                          const struct wh_config *cfg, const char *path);

/* The spec's template labels against its selector (selector and labels: JSON; the selector
 * converts): "`selector` does not match template `labels`" at labels_path, with the labels as
 * %#v. Only when the selector is not empty, unless always. */
void wl_selector_matches_labels(struct wh_field_errors *l, const json_t *selector,
                                const json_t *labels, bool always, const char *labels_path);

/* The selector rules every kind repeats: Required when absent, ValidateLabelSelector, and
 * "empty selector is invalid for <kind_word>". Then true when LabelSelectorAsSelector accepts
 * it (an absent selector is accepted: it selects nothing); false after "Invalid value: <%#v>"
 * with an empty detail, as upstream adds. */
bool wl_validate_selector(struct wh_field_errors *l, const json_t *selector, const char *kind_word,
                          const char *path);

/* An update of an InPlaceOnly workload: the first operation of appscode jsonpatch's CreatePatch between Go's
 * encodings of the old and the new template spec (both v1 PodSpecs as JSON) that is not a
 * "replace" of a path matching re (anchored: "^/containers/([0-9]+)/image$" for CloneSet,
 * unanchored "/containers/([0-9]+)/image" for Advanced StatefulSet). Returns false and writes
 * "<op> <path>" into buf when there is one. */
bool wl_in_place_only(const json_t *old_spec, const json_t *new_spec, bool anchored, char *buf,
                      size_t bufsz);

/* --- Go renderings (gosyntax.c) ------------------------------------------------------------ */

struct wh_buf;
/* Appends s to b (wl_buf_add_take: and frees it); a buffer at its cap keeps what it had (the
 * messages are far below the 1 MiB cap their buffers get). */
void wl_buf_add(struct wh_buf *b, const char *s);
void wl_buf_add_take(struct wh_buf *b, char *s);

/* Go's %#v of values these handlers print. Each returns a new string. */
char *wl_gosyntax_intstrs(const json_t *arr);         /* []intstr.IntOrString */
char *wl_gosyntax_readiness_gates(const json_t *arr); /* []v1.PodReadinessGate */
char *wl_gosyntax_int32_map(const json_t *m);         /* map[string]int32 */
/* A pointer field as %#v prints it inside a struct: (*T)(nil) or (*T)(0xc...). */
char *wl_gosyntax_pointer(const char *type, const json_t *v);
/* The same with the address to print: values Go converted twice have two addresses, so the
 * same error found in both is not merged by the aggregate (a second WL_GO_ADDRESS_2). */
char *wl_gosyntax_pointer_at(const char *type, const json_t *v, const char *address);
#define WL_GO_ADDRESS_2 "0xc000010040"

#endif
