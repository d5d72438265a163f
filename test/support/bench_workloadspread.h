#ifndef WH_TEST_SUPPORT_BENCH_WORKLOADSPREAD_H
#define WH_TEST_SUPPORT_BENCH_WORKLOADSPREAD_H

/* Benchmarks of WorkloadSpread (issue 13):
 *  - /mutate-pod for a CloneSet-owned Pod (the shared bench Pod, 3.6 KB) with a matching
 *    WorkloadSpread, through the whole pipeline (decode -> steps -> diff -> encode), measured up
 *    to the status write: the decision is made on the cached object and the write is left out
 *    (the offline mode), so no API round trip is counted; beside it the same Pod in a namespace
 *    without WorkloadSpreads, and with 1 000 WorkloadSpreads in other namespaces;
 *  - the status write round trip alone against the test API server (test/apiserver): the
 *    decision plus PUT .../status, sequential, as one replica makes them.
 * Prints ns/op (and allocations) or ms/write. Aborts when an answer is not the expected patch.
 * Thread rule: single thread only. */

void wh_bench_workloadspread(void);

#endif
