#ifndef WH_TEST_SUPPORT_BENCH_WORKLOADS_H
#define WH_TEST_SUPPORT_BENCH_WORKLOADS_H

/* The workload webhooks through wh_dispatch (decode -> handler -> diff -> encode): a typical
 * CloneSet, Advanced StatefulSet (with a claim template), Advanced DaemonSet and UnitedDeployment
 * (two subsets), each with a Pod template of about 4 KiB of JSON, defaulted (CREATE, as kubectl
 * sends it) and validated (CREATE, the defaulting answer's patch applied); and a CloneSet UPDATE
 * that scales it.
 * Thread rule: single thread only. */

/* Prints one line per case, like "workloads: mutate CloneSet CREATE  ... ns/op". Exits when an
 * answer is not the expected one. */
void wh_bench_workloads(void);

#endif
