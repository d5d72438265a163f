#ifndef WH_HANDLERS_JOBS_JOBS_INT_H
#define WH_HANDLERS_JOBS_JOBS_INT_H

/* What the job webhooks (BroadcastJob, AdvancedCronJob, EphemeralJob) share beyond
 * handlers/kruise_object.h: the name rule BroadcastJob and AdvancedCronJob validation both
 * write, and the answers of a validation. Only webhook/handlers/jobs/ includes this.
 * Thread rule: thread-safe, stateless. */

#include <jansson.h>
#include <stdbool.h>

#include "admission/review.h"
#include "k8s/fielderr.h"
#include "k8s/validation.h"

/* The name rule of both validations: "^[a-zA-Z0-9\-]+$" ("<kind> name must consist of
 * alphanumeric characters or '-'", with validationutil.RegexError's example 'example-com'),
 * then at most 63 characters. A generateName (prefix) is held to the same rule. */
void wh_jobs_name(const char *kind, const char *name, struct wh_vmsgs *out);

/* The aggregate of l as a denial with code (upstream's admission.Errored), or allowed with
 * message (admission.ValidationResponse(true, message); NULL for none) when l is empty. */
void wh_jobs_answer(struct wh_admission_response *resp, const struct wh_field_errors *l, int code,
                    const char *message);

#endif
