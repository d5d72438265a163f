#ifndef WH_HANDLERS_WORKLOADSPREAD_WHITELIST_H
#define WH_HANDLERS_WORKLOADSPREAD_WHITELIST_H

/* The custom workload white list of WorkloadSpread (spec workloadspread.md 4.3): key
 * WorkloadSpread_Watch_Custom_Workload_WhiteList of ConfigMap kruise-configuration in the kruise
 * namespace, decoded into upstream's configuration.WSCustomWorkloadWhiteList by the Go-type model
 * as encoding/json does it (wh_gotype_unmarshal: member names matched as Go folds case, unknown
 * members ignored, Go's error texts):
 *
 *   {"workloads":[{"Group":"mock.kruise.io","Version":"v1","Kind":"GameServerSet",
 *                  "replicasPath":"spec.replicas",
 *                  "subResources":[{"Group":"mock.kruise.io","Version":"v1","Kind":"GameServer"}]}]}
 *
 * Upstream's Pod webhook reads it once, at the first Pod creation, and never again; here it is
 * read from the ConfigMap cache whenever a decision needs it (a Pod whose owner is not one of the
 * built-in workload kinds, a custom target), so a changed list applies without a restart.
 * Thread rule: a loaded list belongs to its caller; loading is thread-safe. */

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "kube/cluster.h"
#include "util/err.h"

struct wh_ws_gvk {
    const char *group, *version, *kind; /* "" when absent */
};

struct wh_ws_custom_workload {
    struct wh_ws_gvk gvk;
    const char *replicas_path; /* "" when absent */
    struct wh_ws_gvk *subs;    /* subResources */
    size_t nsubs;
};

/* Strings point into the decoded value the list owns. */
struct wh_ws_whitelist {
    struct wh_ws_custom_workload *items;
    size_t n;
    json_t *_root;
};

/* Decodes text (a whole value of the ConfigMap key). On error *out is empty and eb holds Go's
 * json.Unmarshal message ("invalid character ...", "json: cannot unmarshal string into Go struct
 * field WSCustomWorkloadWhiteList.workloads of type []configuration.CustomWorkload"). */
WH_NODISCARD enum wh_err wh_ws_whitelist_parse(const char *text, struct wh_ws_whitelist *out,
                                               struct wh_errbuf *eb);

/* Reads and decodes the list from cl's ConfigMap cache in kruise_ns (declared by the
 * WorkloadSpread setup). No ConfigMap, no cache or no key: an empty list. Errors: as parse. */
WH_NODISCARD enum wh_err wh_ws_whitelist_load(struct wh_cluster *cl, const char *kruise_ns,
                                              struct wh_ws_whitelist *out, struct wh_errbuf *eb);

void wh_ws_whitelist_fini(struct wh_ws_whitelist *wl);

/* True when (group, kind) is a listed workload or one of their subResources: the owner kinds
 * WorkloadSpread handles besides the built-in ones (4.1 item 7). */
bool wh_ws_whitelist_owner(const struct wh_ws_whitelist *wl, const char *group, const char *kind);

/* Returns: borrowed, the listed workload (not a subResource) with group and kind, or NULL. */
const struct wh_ws_custom_workload *wh_ws_whitelist_workload(const struct wh_ws_whitelist *wl,
                                                             const char *group, const char *kind);

#endif
