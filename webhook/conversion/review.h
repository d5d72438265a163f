#ifndef WH_CONVERSION_REVIEW_H
#define WH_CONVERSION_REVIEW_H

/* ConversionReview codec, apiextensions.k8s.io/v1 and v1beta1 (conversion.md section 2):
 * decode the request, encode the response with the uid echoed, convertedObjects in order,
 * and result.status Success or Failure with a message.
 * Thread rule: single thread per request; nothing shared. */

#include <jansson.h>

#include "util/err.h"

/* Borrowed views into the decoded review, valid while it lives. */
struct wh_conversion_request {
    const char *api_version; /* as received, echoed */
    const char *uid;
    size_t uid_len; /* the uid may contain NUL bytes ("\u0000") */
    const char *desired_api_version;
    const json_t *objects; /* an array, or NULL when absent/null */
};

/* A review that misses `request`, `request.uid` or `request.desiredAPIVersion`, or has one of the
 * wrong type, returns WH_ERR_INVALID with a message naming the member. */
WH_NODISCARD enum wh_err wh_conversion_decode(const json_t *review,
                                              struct wh_conversion_request *req,
                                              struct wh_errbuf *eb);

/* Success when message is NULL: converted (stolen; may be NULL for an empty review) becomes
 * response.convertedObjects. Failure otherwise: convertedObjects is null and
 * result = {status: Failure, message}. Returns: new ref. Steals: converted. */
json_t *wh_conversion_encode_new(const struct wh_conversion_request *req, json_t *converted,
                                 const char *message);

#endif
