#ifndef WH_TEST_SUPPORT_ADMISSION_RUN_H
#define WH_TEST_SUPPORT_ADMISSION_RUN_H

/* Runs one admission request through the real route table in process, as the server would
 * answer it, for unit tests that build their requests in code: a standalone cluster from a list
 * of objects, feature gates, wh_dispatch, and the patch applied to the request object.
 * Thread rule: single thread. */

#include <jansson.h>
#include <stdbool.h>

struct wh_admrun {
    int http_status;
    bool allowed;
    int code;            /* response.status.code (0 when absent) */
    const char *message; /* response.status.message, or "" (borrowed from answer) */
    bool patched;        /* a JSON Patch came back */
    json_t *answer;      /* the whole AdmissionReview answer (owned) */
    json_t *object;      /* request.object with the patch applied, or NULL without a patch */
};

/* request: the "request" member of an AdmissionReview (borrowed); cluster: an array of objects
 * or NULL; gates: "A=true,B=false" or NULL. Returns false (with a line on stderr) when the run
 * itself failed (unknown endpoint, bad cluster, patch that does not apply). */
bool wh_admrun(const char *endpoint, const char *gates, const json_t *cluster,
               const json_t *request, struct wh_admrun *out);
/* The same with the server's flags given (NULL-terminated, at most 14: "--admission-warnings=false",
 * "--feature-gates=A=true"). */
bool wh_admrun_flags(const char *endpoint, const char *const *flags, const json_t *cluster,
                     const json_t *request, struct wh_admrun *out);
void wh_admrun_fini(struct wh_admrun *r);

#endif
