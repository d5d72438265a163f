#ifndef WH_UTIL_CPU_H
#define WH_UTIL_CPU_H

/* How many CPUs this process may really use: the CPUs it may run on, lowered to the CPU limit
 * of its cgroup when there is one (cgroup v2 cpu.max, or v1 cpu.cfs_quota_us over
 * cpu.cfs_period_us, rounded up), so that a container limited to 2 CPUs on a 64-CPU node
 * starts 2 workers, not 64. Thread rule: thread-safe (reads files, no state). */

/* root is "/" in production; tests point it at a directory holding proc/self/cgroup and
 * sys/fs/cgroup/... Always at least 1. */
long wh_cpu_count(const char *root);

#endif
