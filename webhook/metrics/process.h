#ifndef WH_METRICS_PROCESS_H
#define WH_METRICS_PROCESS_H

/* The process_* series that Prometheus' Go client (and so every controller-runtime manager)
 * exports, read from /proc/self at scrape time: process_cpu_seconds_total,
 * process_resident_memory_bytes, process_virtual_memory_bytes, process_open_fds,
 * process_max_fds, process_start_time_seconds. Dashboards built for kruise-manager read them.
 * Without /proc (not Linux) the series read 0.
 * Thread rule: register once on the main thread; the readers are thread-safe. */

void wh_metrics_process_register(void);

#endif
