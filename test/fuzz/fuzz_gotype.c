/* Fuzz target for the Go-type model and its walkers (gocompat/gotype, gotime, smp). The first
 * byte picks what the rest is: a time text (both layouts); a JSON document checked and
 * normalised as a Pod (normalising must succeed exactly when the check does, and a normalised
 * Pod must normalise to itself); or a JSON array [original, patch] applied as a strategic merge
 * patch with the Pod schema (a result is a JSON object, the inputs stay as they were). */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gocompat/gotime.h"
#include "gocompat/gotype.h"
#include "gocompat/smp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_time(const char *s, size_t n)
{
    struct wh_gotime t;
    struct wh_errbuf eb;
    char out[WH_GOTIME_MAX], again[WH_GOTIME_MAX];
    for (int l = 0; l < 2; l++) {
        enum wh_gotime_layout layout = l ? WH_GOTIME_RFC3339_MICRO : WH_GOTIME_RFC3339;
        if (wh_gotime_parse(s, n, layout, &t, &eb))
            continue;
        /* what is printed reads back to the same instant (to the printed precision) */
        size_t len = wh_gotime_format(t, layout, out, sizeof(out));
        struct wh_gotime back;
        if (t.sec < WH_GOTIME_ZERO_SEC || t.sec >= 253402300800LL) /* years 1-9999 only */
            continue;
        if (wh_gotime_parse(out, len, layout, &back, &eb) || back.sec != t.sec) {
            fprintf(stderr, "time %s does not read back: %s\n", out, eb.msg);
            abort();
        }
        wh_gotime_format(back, layout, again, sizeof(again));
        if (strcmp(out, again) != 0) {
            fprintf(stderr, "time %s prints as %s the second time\n", out, again);
            abort();
        }
    }
}

static void fuzz_pod(const json_t *v)
{
    const struct wh_gotype *pod = wh_gotype_lookup("v1", "Pod");
    struct wh_errbuf eb;
    json_t *norm = NULL, *again = NULL;
    enum wh_err checked = wh_gotype_check(v, pod, &eb);
    enum wh_err rc = wh_gotype_normalize(v, pod, &norm, &eb);
    if ((checked == WH_OK) != (rc == WH_OK)) {
        fprintf(stderr, "check and normalise disagree\n");
        abort();
    }
    if (rc == WH_OK && (wh_gotype_normalize(norm, pod, &again, &eb) || !json_equal(norm, again))) {
        fprintf(stderr, "normalising a Pod is not idempotent\n");
        abort();
    }
    json_decref(norm);
    json_decref(again);
}

static void fuzz_smp(const json_t *v)
{
    const json_t *orig = json_array_get(v, 0), *patch = json_array_get(v, 1);
    if (!orig || !patch)
        return;
    json_t *o0 = json_deep_copy(orig), *p0 = json_deep_copy(patch), *out = NULL;
    struct wh_errbuf eb;
    if (wh_smp_apply(orig, patch, wh_gotype_lookup("v1", "Pod"), &out, &eb) == WH_OK &&
        !json_is_object(out)) {
        fprintf(stderr, "a patched document is not an object\n");
        abort();
    }
    if (!json_equal(o0, orig) || !json_equal(p0, patch)) {
        fprintf(stderr, "the patch changed its inputs\n");
        abort();
    }
    json_decref(out);
    json_decref(o0);
    json_decref(p0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const char *text = (const char *)data + 1;
    size_t n = size - 1;
    if (data[0] % 3 == 0) {
        fuzz_time(text, n);
        return 0;
    }
    json_error_t jerr;
    json_t *v = json_loadb(text, n, 0, &jerr);
    if (!v)
        return 0;
    if (data[0] % 3 == 1)
        fuzz_pod(v);
    else
        fuzz_smp(v);
    json_decref(v);
    return 0;
}
