#ifndef WH_TEST_SUPPORT_BENCH_CONVERSION_H
#define WH_TEST_SUPPORT_BENCH_CONVERSION_H

/* Benchmark of webhook/conversion for `make bench`: the objects of
 * test/bench/data/conversion-100.json (100 v1alpha1 StatefulSets to v1beta1) and of a review of
 * 100 CloneSets made from a CloneSet vector's input (up, then the results back down). Prints
 * ns per review and objects per second for wh_convert_objects alone, and, for context, for the
 * whole in-process round of parsing the review body, converting and serialising the answer.
 * Run from the repository root. Thread rule: single thread only. */

void wh_bench_conversion(void);

#endif
