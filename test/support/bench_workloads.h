#ifndef WH_TEST_SUPPORT_BENCH_WORKLOADS_H
#define WH_TEST_SUPPORT_BENCH_WORKLOADS_H

/* The workload webhooks through wh_dispatch (decode -> handler -> diff -> encode): a CloneSet
 * whose Pod template is about 4 KiB of JSON, defaulted (CREATE, as kubectl sends it), validated
 * (CREATE, as defaulting left it), and validated on an UPDATE that scales it.
 * Thread rule: single thread only. */

/* Prints one line per case, like "workloads: mutate CloneSet CREATE  ... ns/op". Exits when an
 * answer is not the expected one. */
void wh_bench_workloads(void);

#endif
