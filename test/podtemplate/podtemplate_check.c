/* The C side of the Pod template differential run (make diff-podtemplate): reads v1
 * PodTemplateSpecs, one JSON object a line, and writes one line per template: the JSON string
 * of the aggregated field errors, or null when the template is valid. Each template goes the
 * way a workload handler takes it: type-checked as Go decodes a v1.PodTemplateSpec (the
 * Go-type model), defaulted with kruise's SetDefaultPodSpec as a copy to validate
 * (wh_k8s_default_pod_spec_for_validation, k8s/defaults.h), validated with
 * wh_validate_pod_template_spec at "spec.template" (k8s/podvalidation.h). A line that does not
 * decode is answered {"decodeError": "..."}. The JSON itself is validated once it type-checks,
 * as the handlers validate a request's object.
 *
 *   podtemplate-check [--host-network-ports] [--pods]
 *
 * --host-network-ports: the gate DefaultHostNetworkHostPortsInPodTemplates; --pods: the lines are
 * v1 Pods, validated as WorkloadSpread validates a patched Pod (ValidatePodSpec at "spec" with
 * the Pod's metadata).
 *
 * kwh-oracle podtemplate answers the same lines with upstream's own code. */
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gocompat/gotype.h"
#include "k8s/defaults.h"
#include "k8s/fielderr.h"
#include "k8s/podvalidation.h"
#include "util/json.h"

static void answer(const json_t *v)
{
    char *s = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
    fputs(s ? s : "null", stdout);
    fputc('\n', stdout);
    free(s);
}

static void check_line(const char *line, size_t len, const struct wh_gotype *type,
                       bool host_network_ports, bool pods)
{
    json_error_t jerr;
    json_t *in = json_loadb(line, len, 0, &jerr), *tmpl = NULL, *out = NULL;
    char *msg = NULL;
    if (!in) {
        out = json_pack("{s:s}", "decodeError", jerr.text);
        goto done;
    }
    if (wh_gotype_check_full(in, type, &msg) != WH_OK) {
        out = json_pack("{s:s}", "decodeError", msg ? msg : "");
        goto done;
    }
    /* the request's own JSON, type-checked: a quantity keeps the text the user wrote, which Go's
     * %#v of it shows */
    tmpl = json_incref(in);
    /* template.Spec is a Go struct value: defaulted even when the JSON has none */
    if (!json_is_object(json_object_get(tmpl, "spec")))
        json_object_set_new(tmpl, "spec", json_object());
    wh_k8s_default_pod_spec_for_validation(json_object_get(tmpl, "spec"), host_network_ports);
    struct wh_field_errors l;
    wh_ferrs_init(&l);
    if (pods)
        wh_validate_pod_spec_at(&l, json_object_get(tmpl, "spec"),
                                json_is_object(json_object_get(tmpl, "metadata"))
                                    ? json_object_get(tmpl, "metadata")
                                    : NULL,
                                "spec");
    else
        wh_validate_pod_template_spec(&l, tmpl, "spec.template");
    char *agg = wh_ferrs_aggregate(&l);
    out = agg ? wh_json_string_lossy(agg) : json_null();
    free(agg);
    wh_ferrs_fini(&l);
done:
    answer(out);
    json_decref(out);
    json_decref(tmpl);
    json_decref(in);
    free(msg);
}

int main(int argc, char **argv)
{
    bool host_network_ports = false, pods = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--host-network-ports") == 0) {
            host_network_ports = true;
        } else if (strcmp(argv[i], "--pods") == 0) {
            pods = true;
        } else {
            fprintf(stderr, "usage: %s [--host-network-ports] [--pods] < templates\n", argv[0]);
            return 2;
        }
    }
    wh_json_init();
    const struct wh_gotype *type = wh_gotype_lookup("v1", pods ? "Pod" : "PodTemplateSpec");
    if (!type) {
        fprintf(stderr, "podtemplate-check: the Go-type model has no v1 %s\n",
                pods ? "Pod" : "PodTemplateSpec");
        return 1;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, stdin)) > 0) {
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            n--;
        if (n == 0)
            continue;
        check_line(line, (size_t)n, type, host_network_ports, pods);
        fflush(stdout);
    }
    free(line);
    return 0;
}
