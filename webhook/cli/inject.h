#ifndef WH_CLI_INJECT_H
#define WH_CLI_INJECT_H

/* `kruise-webhook inject`: SidecarSet injection offline, as `istioctl kube-inject` offers for
 * Istio, for GitOps pipelines and for "why was my sidecar not injected".
 *
 *   kruise-webhook inject -f pod.yaml --state sidecarsets.yaml [--explain] [-o yaml|json]
 *                         [--namespace NS] [--feature-gates A=true,...] [--timestamp T]
 *
 * Every Pod document of -f (a file, or - for stdin; YAML or JSON, several documents allowed)
 * goes through the /mutate-pod handler the server runs, against a standalone cluster loaded
 * from --state (a file or a directory, as the server's --state). The injected Pods are printed
 * on stdout in the input's format unless -o says otherwise; documents that are not Pods are
 * printed unchanged. --explain writes to stderr, for every SidecarSet of the state, whether it
 * was injected and why not (paused, namespace, selector, revision, canary).
 * Exit status: 0 done, 1 a Pod was refused (the webhook would answer allowed=false: the message
 * is printed), 2 usage or input errors (a file without a Pod among them).
 *
 * Thread rule: single thread (a command). */

/* argv[0] is the word "inject". main() wires it as
 * `if (argc > 1 && strcmp(argv[1], "inject") == 0) return wh_inject_main(argc - 1, argv + 1);` */
int wh_inject_main(int argc, char **argv);

#include <stdio.h>

/* The same with the output streams given (tests capture them). */
int wh_inject_run(int argc, char **argv, FILE *out, FILE *err);

#endif
