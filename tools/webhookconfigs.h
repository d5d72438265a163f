#ifndef WH_TOOLS_WEBHOOKCONFIGS_H
#define WH_TOOLS_WEBHOOKCONFIGS_H

/* The webhook configurations that manifests/ and the Helm chart install, written from the
 * route table (handlers/handler.h: each route's webhook entries), for `make crds`
 * (tools/manifests.c); make manifests checks that the checked-in files are what this writes.
 * What the table does not say is the manifests' own, here: the failure policy (Fail), the
 * timeout, the review versions, and the namespaces every entry skips (kube-system and the
 * server's). The chart's file is the same text with its values in place of the namespace and
 * the timeout.
 * Thread rule: thread-safe (no shared state). */

#include <stddef.h>

#include "config/config.h"
#include "handlers/handler.h"
#include "util/err.h"

enum wh_webhookconfigs_for {
    WH_WEBHOOKCONFIGS_MANIFESTS, /* manifests/base/webhookconfigurations.yaml */
    WH_WEBHOOKCONFIGS_CHART,     /* charts/kruise-webhook/templates/webhookconfigurations.yaml */
};

/* Writes in *out (new string, caller frees) the two configurations, mutating then validating,
 * named as cfg names them, with the entries of every route of routes[0..n) that cfg serves,
 * sorted by name in each, each sending to cfg's Service, after the file's opening comment.
 * Errors: WH_ERR_INVALID, naming the entry, for a table YAML cannot carry as written: an
 * entry on a /convert route, two entries of one name in a configuration, or a value that is
 * not one line of YAML (a line break in it). */
WH_NODISCARD enum wh_err wh_webhookconfigs_yaml(const struct wh_route *const *routes, size_t n,
                                                const struct wh_config *cfg,
                                                enum wh_webhookconfigs_for where, char **out,
                                                struct wh_errbuf *eb);

#endif
