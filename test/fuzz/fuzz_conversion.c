/* Fuzz target for webhook/conversion. The input is a ConversionReview request member
 * ({"desiredAPIVersion": "...", "objects": [...]}, as in the seed corpus made from the
 * conversion vectors) or any other JSON value, taken as a single object converted to v1beta1
 * (or to v1alpha1 when the input's first byte is odd). Checks: no crash or leak; the input is
 * never modified (the output shares subtrees with it); success and failure are reported
 * consistently; and every converted object converts back to its source version, or fails
 * with a message. */
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conversion/convert.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(bool ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz_conversion: %s\n", what);
        abort();
    }
}

static void convert_back(const json_t *input, const json_t *converted)
{
    const char *api = json_string_value(json_object_get(input, "apiVersion"));
    if (!api)
        return;
    json_t *back = NULL;
    char *msg = NULL;
    enum wh_err rc = wh_convert_object(api, converted, &back, &msg);
    check(rc ? msg != NULL && back == NULL : back != NULL && msg == NULL, "inconsistent result");
    if (!rc)
        check(json_equal(json_object_get(back, "kind"), json_object_get(input, "kind")),
              "kind changed on the way back");
    json_decref(back);
    free(msg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_error_t err;
    json_t *doc = json_loadb((const char *)data, size, JSON_DECODE_ANY, &err);
    if (!doc)
        return 0;
    const char *desired =
        size && (data[0] & 1) ? "apps.kruise.io/v1alpha1" : "apps.kruise.io/v1beta1";
    json_t *objects = NULL;
    if (json_is_object(doc) && json_object_get(doc, "objects")) {
        objects = json_incref(json_object_get(doc, "objects"));
        const char *d = json_string_value(json_object_get(doc, "desiredAPIVersion"));
        if (d)
            desired = d;
    } else {
        objects = json_pack("[O]", doc);
    }
    json_t *before = json_deep_copy(objects);
    json_t *out = NULL;
    char *msg = NULL;
    enum wh_err rc = wh_convert_objects(desired, objects, &out, &msg);
    check(json_equal(before, objects), "input modified");
    if (rc) {
        check(msg != NULL && out == NULL, "failure without a message, or with objects");
    } else {
        check(msg == NULL, "success with a message");
        check(json_is_array(objects) && json_array_size(objects)
                  ? json_array_size(out) == json_array_size(objects)
                  : out == NULL,
              "wrong number of converted objects");
        for (size_t i = 0; i < json_array_size(out); i++)
            convert_back(json_array_get(objects, i), json_array_get(out, i));
        check(json_equal(before, objects), "input modified by the way back");
    }
    json_decref(out);
    free(msg);
    json_decref(before);
    json_decref(objects);
    json_decref(doc);
    return 0;
}
