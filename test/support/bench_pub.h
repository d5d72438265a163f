#ifndef WH_TEST_SUPPORT_BENCH_PUB_H
#define WH_TEST_SUPPORT_BENCH_PUB_H

/* Benchmarks of PodUnavailableBudget on /validate-pod through wh_dispatch (decode -> step ->
 * encode):
 *  - a DELETE of a Pod no PUB covers, against the same review with the PUB step off (what a
 *    review costs); neither reaches the API server;
 *  - a DELETE the PUB allows: the decision alone (a dry run, which decides and never writes),
 *    and with the write into standalone state (the write-back without a network);
 *  - the same DELETE with its status write to an API server: the project's fake one, or the
 *    cluster of $WH_BENCH_KUBECONFIG (it needs the PodUnavailableBudget CRD and writes a PUB
 *    named bench-pub in namespace default) -- the round trip.
 * Prints ns/op per case; aborts if an answer is not the expected one.
 * Thread rule: single thread only. */

void wh_bench_pub(void);

#endif
