#ifndef WH_KUBE_LEASE_H
#define WH_KUBE_LEASE_H

/* coordination.k8s.io/v1 Lease objects as leader election (kube/leader.h) and the replicas'
 * serving reports (certs/report.h) use them: the spec fields client-go's leaderelection
 * writes (holderIdentity, leaseDurationSeconds, acquireTime, renewTime, leaseTransitions) and
 * the MicroTime format of its timestamps.
 * Thread rule: thread-safe (no shared state). */

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "util/err.h"

struct wh_lease_record {
    char holder[256];      /* spec.holderIdentity ("" when none) */
    long long duration_s;  /* spec.leaseDurationSeconds (0 when absent) */
    char acquire_time[40]; /* spec.acquireTime as written ("" when absent) */
    char renew_time[40];   /* spec.renewTime as written */
    time_t renew;          /* renewTime parsed (0 when absent or unparsable) */
    long long transitions; /* spec.leaseTransitions */
    char resource_version[32];
};

/* metav1.MicroTime in UTC: "2006-01-02T15:04:05.000000Z". out holds at least 28 bytes. */
void wh_lease_microtime(int64_t wall_ns, char *out, size_t outsz);

/* Reads the record of a Lease object (missing fields read as empty or 0). */
void wh_lease_parse(const json_t *lease, struct wh_lease_record *rec);

/* Builds a Lease object with metadata {namespace, name, resourceVersion when rec has one,
 * labels (borrowed object, may be NULL), annotations (may be NULL)} and the spec of rec
 * (acquireTime/renewTime omitted when empty). Returns: new ref. */
json_t *wh_lease_object(const char *ns, const char *name,
                              const struct wh_lease_record *rec, const json_t *labels,
                              const json_t *annotations);

/* The API path of the Leases of ns, or of one (name may be NULL). */
WH_NODISCARD enum wh_err wh_lease_path(char *buf, size_t bufsz, const char *ns,
                                             const char *name);

/* A name usable in metadata.name from any text: lower-case, [a-z0-9-] kept, other runs
 * become one '-', trimmed to max_len (<= 253) and stripped of '-' at both ends ("x" when
 * nothing is left). out holds max_len + 1 bytes. */
void wh_lease_dns_label(const char *text, char *out, size_t max_len);

#endif
