#ifndef WH_TEST_SUPPORT_BENCH_JSONPATCH_H
#define WH_TEST_SUPPORT_BENCH_JSONPATCH_H

/* Micro benchmark of wh_patch_diff on the shapes a sidecar injection produces, and the Pods
 * it uses (shared with test/unit/test_jsonpatch.c). Thread rule: single thread only. */

#include <jansson.h>
#include <stddef.h>

/* Returns: new ref, a Pod with one "app" container carrying nenv environment variables, then
 * extra containers until the serialised spec is at least spec_bytes long (0: none). */
json_t *wh_bench_jsonpatch_pod(size_t nenv, size_t spec_bytes);

/* Returns: new ref, a deep copy of pod changed as a SidecarSet injection changes it: a sidecar
 * container inserted at index 0 of spec.containers, a volume appended, two annotations added. */
json_t *wh_bench_jsonpatch_inject(const json_t *pod);

/* Prints one line per case to stdout, like `diff pod-1500-env: 123456 ns/op`. Aborts if a
 * patch does not reproduce its target. */
void wh_bench_jsonpatch(void);

#endif
