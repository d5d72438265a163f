#ifndef WH_CLI_EXPLAIN_H
#define WH_CLI_EXPLAIN_H

/* `kruise-webhook explain`: why, about objects of a live cluster, answered by the server's own
 * handlers over the same caches and live reads the running server decides with:
 *
 *   kruise-webhook explain pod [NS/]NAME          the SidecarSets (injected or not, and why),
 *                                                 the WorkloadSpread subset, the PUB; compared
 *                                                 with what the Pod has
 *   kruise-webhook explain eviction [NS/]NAME     would its eviction be allowed now, and why
 *   kruise-webhook explain delete pod [NS/]NAME   the same for its deletion
 *   kruise-webhook explain delete KIND [NS/]NAME  would deletion protection refuse it
 *
 * The cluster is the server's: --kubeconfig (or $KUBECONFIG, or in-cluster), or --state for a
 * standalone one; every option of the server is taken (--feature-gates, ...). Nothing is
 * written: the handlers run as for a dry run, and the API client sends GET requests only
 * (kube/client.h read_only), so that no code path can write whatever it tries.
 * Exit status: 0 the request would be allowed (explain pod: answered), 1 it would be refused,
 * 2 usage errors, an object that does not exist, a cluster that cannot be read.
 *
 * Thread rule: single thread (a command). */

#include <stdio.h>

/* argv[0] is the word "explain". */
int wh_explain_main(int argc, char **argv);

/* The same with the output streams given (tests capture them). */
int wh_explain_run(int argc, char **argv, FILE *out, FILE *err);

#endif
