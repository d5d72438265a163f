#ifndef WH_TEST_SUPPORT_BENCH_SIDECARSET_H
#define WH_TEST_SUPPORT_BENCH_SIDECARSET_H

/* Benchmarks of SidecarSet injection through the whole /mutate-pod pipeline (decode -> handler
 * -> diff -> encode, wh_dispatch): the shared inputs (test/bench/data/pod-create.json against
 * sidecarsets-50.json), then 10, 1 000 and 50 000 SidecarSets cached (2 matching, the others
 * spread over other namespaces as in real clusters), a 64 KiB Pod, and a SidecarSet whose sidecar
 * has a resourcesPolicy with ordinary and with refused targetContainersNameRegex patterns.
 * Prints ns/op and jansson
 * allocations per op (a counting allocator is installed through json_set_alloc_funcs for the
 * duration), plus the time to load each state. Aborts if an answer is not a patch that injects
 * exactly the two expected SidecarSets. Thread rule: single thread only. */

void wh_bench_sidecarset(void);

#endif
