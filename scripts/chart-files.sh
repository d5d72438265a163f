#!/bin/sh
# scripts/chart-files.sh: copies into the Helm chart (charts/kruise-webhook/files/) what it
# installs byte for byte from manifests/: the generated CRDs (manifests/crds/, written by
# `make crds`) and the PrometheusRule (manifests/monitoring/). The chart reads them with
# .Files, so that their text (Prometheus's own {{ $labels }} included) is never templated.
# `make crds` runs this; make manifests checks that it was run.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd -P)
out=${1:-$root/charts/kruise-webhook/files}
rm -rf "$out/crds"
mkdir -p "$out/crds"
for f in "$root"/manifests/crds/*.yaml; do
    [ "$(basename "$f")" = kustomization.yaml ] || cp "$f" "$out/crds/"
done
cp "$root/manifests/monitoring/prometheusrule.yaml" "$out/prometheusrule.yaml"
