#include "conversion/review.h"

#include <string.h>

#include "util/json.h"

enum wh_err wh_conversion_decode(const json_t *review, struct wh_conversion_request *req,
                                 struct wh_errbuf *eb)
{
    memset(req, 0, sizeof(*req));
    if (!json_is_object(review))
        return wh_errbuf_set(eb, WH_ERR_INVALID, "body: must be a ConversionReview object");
    enum wh_err rc = wh_json_need_str(review, "apiVersion", "", true, &req->api_version, eb);
    if (rc)
        return rc;
    if (strcmp(req->api_version, "apiextensions.k8s.io/v1") != 0 &&
        strcmp(req->api_version, "apiextensions.k8s.io/v1beta1") != 0)
        return wh_errbuf_set(eb, WH_ERR_INVALID,
                             "apiVersion: unsupported \"%s\" (want apiextensions.k8s.io/v1 or "
                             "v1beta1)",
                             req->api_version);
    const char *kind = NULL;
    rc = wh_json_need_str(review, "kind", "", true, &kind, eb);
    if (rc)
        return rc;
    if (strcmp(kind, "ConversionReview") != 0)
        return wh_errbuf_set(eb, WH_ERR_INVALID, "kind: must be ConversionReview, not \"%s\"",
                             kind);
    const json_t *r = json_object_get(review, "request");
    if (!r || json_is_null(r))
        return wh_errbuf_set(eb, WH_ERR_INVALID, "request: required");
    if (!json_is_object(r))
        return wh_errbuf_set(eb, WH_ERR_INVALID, "request: must be an object, not %s",
                             wh_json_type_name(r));
    rc = wh_json_need_str(r, "uid", "request.", true, &req->uid, eb);
    /* Echoed whole: a uid may hold "\u0000", which C strings would cut. */
    req->uid_len = rc ? 0 : json_string_length(json_object_get(r, "uid"));
    if (!rc)
        rc = wh_json_need_str(r, "desiredAPIVersion", "request.", true, &req->desired_api_version,
                              eb);
    if (rc)
        return rc;
    const json_t *objs = json_object_get(r, "objects");
    if (objs && !json_is_null(objs) && !json_is_array(objs))
        return wh_errbuf_set(eb, WH_ERR_INVALID, "request.objects: must be an array, not %s",
                             wh_json_type_name(objs));
    req->objects = json_is_array(objs) ? objs : NULL;
    return WH_OK;
}

json_t *wh_conversion_encode_new(const struct wh_conversion_request *req, json_t *converted,
                                 const char *message)
{
    json_t *result = json_object();
    json_object_set_new(result, "metadata", json_object());
    json_object_set_new(result, "status", json_string(message ? "Failure" : "Success"));
    if (message)
        json_object_set_new(result, "message", wh_json_string_lossy(message));

    json_t *r = json_object();
    json_object_set_new(r, "uid", json_stringn(req->uid, req->uid_len));
    if (message || !converted) {
        json_decref(converted);
        json_object_set_new(r, "convertedObjects", json_null());
    } else {
        json_object_set_new(r, "convertedObjects", converted);
    }
    json_object_set_new(r, "result", result);

    json_t *review = json_object();
    json_object_set_new(review, "apiVersion", json_string(req->api_version));
    json_object_set_new(review, "kind", json_string("ConversionReview"));
    json_object_set_new(review, "response", r);
    return review;
}
