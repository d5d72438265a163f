#!/bin/sh
# scripts/check-install.sh: checks an installed kruise-webhook end to end, as the API server
# uses it, and prints "install ok" (exit 0), or what failed (exit 1).
#
#   1. A Pod created as a server-side dry run (examples/requests/check-pod.yaml, nothing stored) in
#      --pod-namespace must come back with the readiness gate /mutate-pod adds: the API server
#      reached a Ready replica through the webhook configuration, trusted its certificate, and
#      applied its patch. While no replica is Ready this fails the way every Pod creation in
#      the cluster fails (failurePolicy: Fail), and says so.
#   2. `kruise-webhook certs inspect --secret`: the certificates in the Secret are valid, and
#      every caBundle of the webhook entries and CRD conversions trusts their CA. It runs in
#      the Deployment (kubectl exec), or with $KRUISE_WEBHOOK, a local binary, through your
#      kubeconfig.
#
# Options: --namespace NS (the kruise namespace, default kruise-system), --pod-namespace NS
# (default: default; any namespace the webhook is not told to skip). $KUBECTL names kubectl.
set -u
here=$(cd "$(dirname "$0")" && pwd -P)
kubectl=${KUBECTL:-kubectl}
ns=kruise-system
pod_ns=default
while [ $# -gt 0 ]; do
    case $1 in
    --namespace) ns=${2:?--namespace needs a value}; shift 2 ;;
    --pod-namespace) pod_ns=${2:?--pod-namespace needs a value}; shift 2 ;;
    -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "check-install.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
done
command -v "$kubectl" >/dev/null 2>&1 ||
    { echo "check-install.sh: needs kubectl (none at \"$kubectl\"; set KUBECTL)" >&2; exit 2; }

fail() { echo "check-install.sh: FAILED: $*" >&2; exit 1; }

out=$("$kubectl" create --dry-run=server -n "$pod_ns" -f "$here/../examples/requests/check-pod.yaml" \
    -o 'jsonpath={.spec.readinessGates[*].conditionType}' 2>&1)
case $out in
*KruisePodReady*) echo "ok: a dry-run Pod in $pod_ns came back mutated by /mutate-pod (readiness gate KruisePodReady)" ;;
*"failed calling webhook"*)
    fail "the API server could not call the webhook, so every Pod creation it covers is refused now:
  $out
  Is a replica Ready? kubectl -n $ns get pods -l app.kubernetes.io/name=kruise-webhook-server
  To stop refusing Pods at once, remove the webhook configurations (README, Uninstall)." ;;
*) fail "the dry-run Pod in $pod_ns was not mutated by /mutate-pod (is the namespace skipped, or the entry mpod.kb.io missing?):
  $out" ;;
esac

if [ -n "${KRUISE_WEBHOOK:-}" ]; then
    # The namespace as the server takes it (POD_NAMESPACE): a --namespace flag would also
    # name the Service the certificate must be for, where the entries may call a URL's host.
    POD_NAMESPACE=$ns "$KRUISE_WEBHOOK" certs inspect --secret ||
        fail "certs inspect --secret (above)"
else
    "$kubectl" -n "$ns" exec deploy/kruise-webhook-server -c webhook -- \
        kruise-webhook certs inspect --secret || fail "certs inspect --secret in the Deployment (above)"
fi
echo "install ok"
