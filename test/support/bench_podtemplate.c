#include "test/support/bench_podtemplate.h"

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "k8s/defaults.h"
#include "k8s/fielderr.h"
#include "k8s/podvalidation.h"
#include "test/support/bench_loop.h"
#include "util/json.h"

#define TEMPLATE "test/bench/data/podtemplate-4k.json"

/* One round: a copy defaulted for validation and validated (default) or, with prepared, the
 * prepared copy validated. */
static void round_once(const json_t *tmpl, const json_t *prepared)
{
    json_t *copy = NULL;
    if (!prepared) {
        copy = wh_json_copy(tmpl);
        wh_k8s_default_pod_spec_for_validation(json_object_get(copy, "spec"), false);
    }
    struct wh_field_errors l;
    wh_ferrs_init(&l);
    wh_validate_pod_template_spec(&l, prepared ? prepared : copy, "spec.template");
    if (l.n) {
        fprintf(stderr, "bench podtemplate: the template is not valid: %s\n", l.items[0]);
        exit(1);
    }
    wh_ferrs_fini(&l);
    json_decref(copy);
}

static void run(const char *label, const json_t *tmpl, const json_t *prepared)
{
    if (!wh_bench_wanted(label))
        return;
    const char *fixed = getenv("WH_BENCH_ITERS");
    long want = fixed ? strtol(fixed, NULL, 10) : 0, iters = 0;
    for (int i = 0; i < 200 && want == 0; i++)
        round_once(tmpl, prepared);
    int64_t start = wh_bench_cpu_ns(), now = start;
    while (want > 0 ? iters < want : now - start < 300000000) {
        round_once(tmpl, prepared);
        iters++;
        if (iters % 64 == 0 || want > 0)
            now = wh_bench_cpu_ns();
    }
    printf("%-44s %10.0f ns/op (CPU time)\n", label, (double)(now - start) / (double)iters);
}

void wh_bench_podtemplate(void)
{
    json_error_t jerr;
    json_t *tmpl = json_load_file(TEMPLATE, 0, &jerr);
    if (!tmpl) {
        fprintf(stderr, "bench: %s: %s (run from the repository root)\n", TEMPLATE, jerr.text);
        exit(1);
    }
    run("podtemplate: default+validate 4 KiB template", tmpl, NULL);
    json_t *prepared = wh_json_copy(tmpl);
    wh_k8s_default_pod_spec_for_validation(json_object_get(prepared, "spec"), false);
    run("podtemplate: validate 4 KiB template", tmpl, prepared);
    json_decref(prepared);
    json_decref(tmpl);
}
