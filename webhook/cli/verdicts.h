#ifndef WH_CLI_VERDICTS_H
#define WH_CLI_VERDICTS_H

/* What the commands that only tell (inject --explain, explain) share: the AdmissionReview they
 * hand to the server's own handlers, and the collector of the Pod steps' explain channel
 * (handlers/pod/review.h) with its printout, one line per SidecarSet and one note per other
 * decision:
 *   pod default/web-0 (namespace default):
 *     note: workloadspread ws-demo: subset-a chosen: missingReplicas 1 > 0
 *     sidecar-a                        injected      selector matches; revision ...
 * Thread rule: single thread (a command). */

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct wh_cluster;

/* An AdmissionReview (admission.k8s.io/v1) of one request, as the API server sends it:
 * operation CREATE, UPDATE or DELETE; group/version/kind, resource and sub (a subresource or
 * "") of the object; object and old (borrowed; NULL for none); user the userInfo.username. The uid is
 * the command's name. Returns: new ref. */
json_t *wh_cli_review(const char *cmd, const char *operation, const char *group,
                      const char *version, const char *kind, const char *resource, const char *sub,
                      const char *ns, const char *name, const json_t *object, const json_t *old);

struct wh_cli_verdict {
    char *name; /* the SidecarSet */
    bool injected;
    char *reason;
};

struct wh_cli_verdicts {
    struct wh_cli_verdict *v;
    size_t n, cap;
    char **notes; /* "step subject: reason", in order */
    size_t nnotes;
};

/* The explain channel's function (wh_pod_explain_fn), arg a struct wh_cli_verdicts zeroed
 * before the run: SidecarSet verdicts by name (a later one replaces an earlier), the rest as
 * notes. */
void wh_cli_verdicts_on(void *arg, const char *step, const char *subject, bool acted,
                        const char *reason);

/* Returns: the verdict of SidecarSet name, or NULL when the run said nothing of it. */
const struct wh_cli_verdict *wh_cli_verdicts_find(const struct wh_cli_verdicts *e,
                                                  const char *name);

void wh_cli_verdicts_fini(struct wh_cli_verdicts *e);

/* Prints the notes, then one line per SidecarSet the cluster caches: the handler's verdict
 * for the candidates; for the others, the namespaces they are filed under. */
void wh_cli_verdicts_print(FILE *out, struct wh_cluster *cl, const char *pod_id, const char *ns,
                           const struct wh_cli_verdicts *e);

#endif
