#ifndef WH_ADMISSION_REVIEW_H
#define WH_ADMISSION_REVIEW_H

/* AdmissionReview codec, admission.k8s.io/v1 and v1beta1: decode a request into borrowed views,
 * and encode a response in the version that was asked, echoing the uid.
 * Thread rule: single thread per request; nothing shared. */

#include <jansson.h>
#include <stdarg.h>
#include <stdbool.h>

#include "k8s/fielderr.h"
#include "util/buf.h"
#include "util/err.h"

enum wh_review_version { WH_REVIEW_V1, WH_REVIEW_V1BETA1 };

struct wh_gvk {
    const char *group, *version, *kind;
};
struct wh_gvr {
    const char *group, *version, *resource;
};

/* Every pointer is borrowed from the decoded review and valid while it lives. Strings that the
 * API server may omit are "" rather than NULL; JSON members that are absent or null are NULL. */
struct wh_admission_request {
    enum wh_review_version version;
    const char *api_version; /* as received, echoed in the answer */
    const char *uid;
    size_t uid_len; /* the uid may contain NUL bytes ("\u0000") */
    struct wh_gvk kind;
    struct wh_gvr resource;
    const char *sub_resource;
    const char *operation; /* CREATE, UPDATE, DELETE or CONNECT */
    const char *namespace_;
    const char *name;
    const json_t *object;
    const json_t *old_object;
    const json_t *options;
    const json_t *user_info;
    bool dry_run;
    const json_t *raw; /* the whole "request" member */
};

/* Decodes review (borrowed; must outlive req). A review that is well-formed JSON but misses a
 * required member, or has one of the wrong type, returns WH_ERR_INVALID with a message naming
 * the member ("request.uid: required"). */
WH_NODISCARD enum wh_err wh_admission_decode(const json_t *review, struct wh_admission_request *req,
                                             struct wh_errbuf *eb);

/* What a handler answers. Owned by whoever called wh_admission_response_init. */
struct wh_admission_response {
    bool allowed;
    int code;         /* status.code; 0 means 200 */
    char *message;    /* status.message, or NULL */
    size_t message_len; /* its bytes: it may hold NUL bytes (wh_admission_deny_text) */
    char *reason;     /* status.reason, or NULL */
    json_t *warnings; /* array of strings, or NULL */
    json_t *mutated;  /* mutating handlers: the edited copy of request.object (see below) */
};

void wh_admission_response_init(struct wh_admission_response *resp);
void wh_admission_response_fini(struct wh_admission_response *resp);

/* Allowed, optionally with a status message (upstream sends one for some validations). */
void wh_admission_allow(struct wh_admission_response *resp, const char *fmt, ...) WH_PRINTF(2, 3);
/* Denied with status code and message: 403 + reason Forbidden as controller-runtime's Denied;
 * other codes carry no reason unless wh_admission_set_reason is called. */
void wh_admission_deny(struct wh_admission_response *resp, int code, const char *fmt, ...)
    WH_PRINTF(3, 4);
/* Denied with code and the message text of len bytes, which may hold NUL bytes: Go prints a
 * string whole, so a message that echoes one (an image reference, a tag) holds them too. */
void wh_admission_deny_text(struct wh_admission_response *resp, int code, const char *text,
                            size_t len);
/* Answers a validation with its field errors, as upstream's handlers answer
 * admission.Errored(code, allErrs.ToAggregate()) when there are some, and
 * admission.ValidationResponse(true, "") when there are none. */
void wh_admission_answer_errors(struct wh_admission_response *resp, int code,
                                const struct wh_field_errors *errs);
void wh_admission_set_reason(struct wh_admission_response *resp, const char *reason);
/* Adds a warning (AdmissionResponse.warnings; kubectl prints each as "Warning: ..."). Within
 * what the API server passes on unshortened: a text over WH_ADMISSION_WARNING_MAX bytes is cut
 * there, on a character boundary, ending in "..."; past WH_ADMISSION_WARNINGS_MAX warnings in
 * one answer the rest are dropped. Handlers warn through handlers/warnings.h, which honours
 * --admission-warnings. */
#define WH_ADMISSION_WARNING_MAX 119
#define WH_ADMISSION_WARNINGS_MAX 4
void wh_admission_warn(struct wh_admission_response *resp, const char *fmt, ...) WH_PRINTF(2, 3);
void wh_admission_vwarn(struct wh_admission_response *resp, const char *fmt, va_list ap)
    WH_PRINTF(2, 0);

/* For mutating handlers: the object to edit. The first call makes a deep copy of req->object
 * (an empty object when there is none); the server diffs the copy against the original into
 * the JSON Patch, so a handler that never calls this produces no patch and copies nothing.
 * Returns: borrowed, owned by resp. */
json_t *wh_admission_mutable_object(struct wh_admission_response *resp,
                                    const struct wh_admission_request *req);

/* For mutating handlers that build the whole new object themselves: obj becomes the edited
 * object (replacing any copy made before), diffed against the original as above.
 * Steals: obj. */
void wh_admission_set_mutated_new(struct wh_admission_response *resp, json_t *obj);

/* Appends the AdmissionReview answer as compact JSON to out, written directly (no values are
 * built): apiVersion as asked, response.uid echoed, allowed, status (always with a code, as
 * controller-runtime completes it), warnings, and, when patch (the JSON Patch text, patch_len
 * bytes; NULL for none) is given, patch (base64) with patchType JSONPatch. The caller passes
 * no patch when it has no operation. WH_ERR_TOO_BIG at out's cap. */
WH_NODISCARD enum wh_err wh_admission_write(struct wh_buf *out,
                                            const struct wh_admission_request *req,
                                            const struct wh_admission_response *resp,
                                            const char *patch, size_t patch_len);

#endif
