#ifndef WH_CERTS_REPORT_H
#define WH_CERTS_REPORT_H

/* Serving reports: how the certificate writer knows that every replica serves the new
 * certificate before it drops the old CA from the caBundles (docs/certificates.md, "CA
 * rotation"). Each replica keeps one coordination.k8s.io/v1 Lease of its own:
 *
 *   name        <secret>-serving-<identity as a DNS label>
 *   labels      certs.kruise-webhook/serving-report: <secret>
 *   annotations certs.kruise-webhook/serving-serial: <serial of the certificate the HTTPS
 *                                                     server presents, lower-case hex>
 *   spec        holderIdentity <identity>, renewTime, leaseDurationSeconds 90
 *
 * written when the served serial changes and at least every 30 s, and deleted when the
 * replica stops cleanly. The writer lists the reports of its Secret: a report renewed within
 * its duration is a live replica; the old CA may go once every live replica serves the
 * current certificate. Reports dead for an hour are deleted by the writer.
 * Thread rule: a struct wh_certs_report is used by one thread (the controller's);
 * wh_certs_report_check is thread-safe. */

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "kube/client.h"
#include "util/err.h"

#define WH_CERTS_REPORT_LABEL "certs.kruise-webhook/serving-report"
#define WH_CERTS_REPORT_SERIAL "certs.kruise-webhook/serving-serial"
#define WH_CERTS_REPORT_HEARTBEAT_SECS 30
#define WH_CERTS_REPORT_TTL_SECS 90
#define WH_CERTS_REPORT_GC_SECS 3600

struct wh_certs_report;

/* client borrowed. secret names the group of replicas (the label value). */
struct wh_certs_report *wh_certs_report_new(struct wh_kube_client *client, const char *ns,
                                            const char *secret, const char *identity);
/* Frees r without touching the cluster. Accepts NULL. */
void wh_certs_report_free(struct wh_certs_report *r);

/* Writes the report when serial differs from the last one written or the heartbeat is due
 * (force: always). serial is normalised (wh_certs_report_serial_norm). */
WH_NODISCARD enum wh_err wh_certs_report_publish(struct wh_certs_report *r, const char *serial,
                                                 bool force, struct wh_errbuf *eb);
/* Deletes our report (best effort; errors are logged). */
void wh_certs_report_withdraw(struct wh_certs_report *r);

struct wh_certs_report_summary {
    int live;          /* live reports */
    int current;       /* of which serve want_serial */
    int removed;       /* dead reports deleted */
    char lagging[256]; /* identities of live replicas serving something else, ", "-joined */
};

/* Lists the reports of secret in ns and compares the live ones with want_serial, deleting
 * those dead for WH_CERTS_REPORT_GC_SECS. */
WH_NODISCARD enum wh_err wh_certs_report_check(struct wh_kube_client *client, const char *ns,
                                               const char *secret, const char *want_serial,
                                               time_t now, struct wh_certs_report_summary *sum,
                                               struct wh_errbuf *eb);

/* A certificate serial as lower-case hex without leading zeros ("0" for zero); any ':' or
 * spaces dropped. out holds at least strlen(in) + 2 bytes. */
void wh_certs_report_serial_norm(const char *in, char *out, size_t outsz);

#endif
