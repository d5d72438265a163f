#include "test/support/bench_conversion.h"

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conversion/convert.h"
#include "util/err.h"
#include "util/mem.h"
#include "util/time.h"

/* Repeat each case for at least this long so that the figure is stable. */
#define BENCH_MIN_NS 500000000LL
#define BENCH_MIN_ITERS 20

#define REVIEW_FILE "test/bench/data/conversion-100.json"
#define CLONESET_VECTOR "test/vectors/conversion/020-cloneset-v1alpha1-to-v1beta1-full.json"

static json_t *load(const char *path)
{
    json_error_t err;
    json_t *v = json_load_file(path, 0, &err);
    if (!v) {
        fprintf(stderr, "bench: cannot load %s: %s (run from the repository root)\n", path,
                err.text);
        exit(1);
    }
    return v;
}

static void report(const char *label, int64_t ns, long iters, size_t nobjects)
{
    double per = (double)ns / (double)iters;
    printf("conversion %s: %.0f ns/review, %.0f objects/s\n", label, per,
           per > 0 ? (double)nobjects * 1e9 / per : 0.0);
}

/* wh_convert_objects alone. */
static void bench_convert(const char *label, const char *desired, const json_t *objects)
{
    long iters = 0;
    int64_t start = wh_time_mono_ns(), now = start;
    while (iters < BENCH_MIN_ITERS || now - start < BENCH_MIN_NS) {
        json_t *out = NULL;
        char *msg = NULL;
        if (wh_convert_objects(desired, objects, &out, &msg) != WH_OK) {
            fprintf(stderr, "bench %s: conversion failed: %s\n", label, msg);
            exit(1);
        }
        json_decref(out);
        iters++;
        now = wh_time_mono_ns();
    }
    report(label, now - start, iters, json_array_size(objects));
}

/* Parse the review body, convert, serialise the converted objects: what the endpoint does
 * around the conversion, without HTTP. */
static void bench_round(const char *label, const char *body)
{
    long iters = 0;
    size_t n = 0;
    int64_t start = wh_time_mono_ns(), now = start;
    while (iters < BENCH_MIN_ITERS || now - start < BENCH_MIN_NS) {
        json_error_t err;
        json_t *review = json_loads(body, 0, &err), *out = NULL;
        json_t *req = json_object_get(review, "request");
        const json_t *objects = json_object_get(req, "objects");
        char *msg = NULL;
        if (wh_convert_objects(json_string_value(json_object_get(req, "desiredAPIVersion")),
                               objects, &out, &msg) != WH_OK) {
            fprintf(stderr, "bench %s: conversion failed: %s\n", label, msg);
            exit(1);
        }
        char *text = json_dumps(out, JSON_COMPACT);
        n = json_array_size(objects);
        free(text);
        json_decref(out);
        json_decref(review);
        iters++;
        now = wh_time_mono_ns();
    }
    report(label, now - start, iters, n);
}

void wh_bench_conversion(void)
{
    json_t *review = load(REVIEW_FILE);
    const json_t *req = json_object_get(review, "request");
    const char *desired = json_string_value(json_object_get(req, "desiredAPIVersion"));
    bench_convert("100 StatefulSets v1alpha1->v1beta1", desired, json_object_get(req, "objects"));
    char *body = json_dumps(review, JSON_COMPACT);
    bench_round("100 StatefulSets, parse+convert+serialise", body);
    free(body);
    json_decref(review);

    /* 100 CloneSets from the input of a full CloneSet vector, each with its own name */
    json_t *vec = load(CLONESET_VECTOR);
    const json_t *proto =
        json_array_get(json_object_get(json_object_get(vec, "request"), "objects"), 0);
    json_t *clonesets = json_array();
    for (int i = 0; i < 100; i++) {
        json_t *cs = json_deep_copy(proto);
        char name[32];
        snprintf(name, sizeof(name), "shop-%03d", i);
        json_object_set_new(json_object_get(cs, "metadata"), "name", json_string(name));
        json_array_append_new(clonesets, cs);
    }
    bench_convert("100 CloneSets v1alpha1->v1beta1", "apps.kruise.io/v1beta1", clonesets);
    json_t *beta = NULL;
    char *msg = NULL;
    if (wh_convert_objects("apps.kruise.io/v1beta1", clonesets, &beta, &msg) != WH_OK) {
        fprintf(stderr, "bench: CloneSet conversion failed: %s\n", msg);
        exit(1);
    }
    bench_convert("100 CloneSets v1beta1->v1alpha1", "apps.kruise.io/v1alpha1", beta);
    json_decref(beta);
    json_decref(clonesets);
    json_decref(vec);
}
