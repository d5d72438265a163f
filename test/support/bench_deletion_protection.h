#ifndef WH_TEST_SUPPORT_BENCH_DELETION_PROTECTION_H
#define WH_TEST_SUPPORT_BENCH_DELETION_PROTECTION_H

/* Micro benchmark of the deletion-protection handlers through wh_dispatch (decode -> handler ->
 * encode): a workload DELETE (no cluster read), and Cascading Namespace / CRD DELETEs whose
 * live lists run against a standalone cluster of a few thousand objects.
 * Thread rule: single thread only. */

/* Prints one line per case to stdout, like `dp workload-cascading: 12345 ns/op`. Aborts if an
 * answer is not the expected one. */
void wh_bench_deletion_protection(void);

#endif
