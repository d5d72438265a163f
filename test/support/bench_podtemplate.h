#ifndef WH_TEST_SUPPORT_BENCH_PODTEMPLATE_H
#define WH_TEST_SUPPORT_BENCH_PODTEMPLATE_H

/* Benchmarks of Pod template validation (k8s/podvalidation.h) on a 4 KiB CloneSet-like template
 * (test/bench/data/podtemplate-4k.json: an init container and two containers with env, probes,
 * resources and security contexts, four volumes, affinity, tolerations, topology spread):
 *  - what a workload's validating handler does with it: a copy defaulted for validation, then
 *    wh_validate_pod_template_spec;
 *  - wh_validate_pod_template_spec alone, on the defaulted copy.
 * Prints ns/op of the thread's CPU time. Aborts when the template is not valid (the benchmark would
 * time error paths). Thread rule: single thread only. */

void wh_bench_podtemplate(void);

#endif
