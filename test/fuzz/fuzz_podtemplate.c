/* Fuzz target for Pod template validation (k8s/podvalidation.h) and the defaulting before it
 * (k8s/defaults.h): any JSON, typed or not (members of the wrong type must read as Go's zero
 * values, not crash), as a template, as a Pod with metadata, and as the tolerations annotation,
 * which validation decodes itself as encoding/json does. The first byte picks the form; the rest
 * is its input. Nothing may crash or leak, and every error text must be one the aggregate keeps.
 */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "k8s/defaults.h"
#include "k8s/fielderr.h"
#include "k8s/podvalidation.h"
#include "util/json.h"
#include "util/mem.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void validate(json_t *obj, int form)
{
    struct wh_field_errors l;
    wh_ferrs_init(&l);
    json_t *spec = json_object_get(obj, "spec");
    if (json_is_object(obj) && !json_is_object(spec)) {
        json_object_set_new(obj, "spec", json_object());
        spec = json_object_get(obj, "spec");
    }
    wh_k8s_default_pod_spec_for_validation(spec, form == 1);
    if (form == 1)
        wh_validate_pod_spec_at(&l, spec, json_object_get(obj, "metadata"), "spec");
    else
        wh_validate_pod_template_spec(&l, obj, "spec.template");
    char *agg = wh_ferrs_aggregate(&l);
    if ((l.n == 0) != (agg == NULL)) {
        fprintf(stderr, "an error list of %zu gives %s\n", l.n, agg ? agg : "no aggregate");
        abort();
    }
    free(agg);
    wh_ferrs_fini(&l);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int init;
    if (!init) {
        wh_json_init();
        init = 1;
    }
    if (size < 1 || size > 65536)
        return 0;
    int form = data[0] % 3;
    json_error_t jerr;
    json_t *obj = NULL;
    if (form == 2) {
        /* the bytes as the tolerations annotation of a template */
        char *text = wh_xstrndup((const char *)data + 1, size - 1);
        obj = json_pack("{s:{s:{s:s?}},s:{s:[{s:s,s:s}]}}", "metadata", "annotations",
                        "scheduler.alpha.kubernetes.io/tolerations", text, "spec", "containers",
                        "name", "c", "image", "i");
        free(text);
    } else {
        obj = json_loadb((const char *)data + 1, size - 1, JSON_DECODE_ANY, &jerr);
    }
    if (obj)
        validate(obj, form);
    json_decref(obj);
    return 0;
}
