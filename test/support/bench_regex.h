#ifndef WH_TEST_SUPPORT_BENCH_REGEX_H
#define WH_TEST_SUPPORT_BENCH_REGEX_H

/* Benchmarks of gocompat/regex alone: what compiling costs (time, and the bytes the compiled
 * regex keeps) for ordinary patterns, for the ones of issue 22 that Go refuses, and for large
 * ones Go accepts; and what matching a container name (63 bytes) and an annotation key (253
 * bytes) costs. Prints ns/op. Thread rule: single thread only. */

void wh_bench_regex(void);

#endif
