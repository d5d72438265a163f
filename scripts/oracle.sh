#!/usr/bin/env bash
# make oracle: builds the oracle and differential runner (test/oracle, Go, test tooling only)
# into OUT/kwh-oracle, against upstream OpenKruise at the commit this project follows.
#
#   scripts/oracle.sh OUT
#
# Upstream's module comes from the Go module proxy when it serves that commit. When it does not
# (proxy.golang.org answers 403 for it today), from a copy of upstream's repository: KRUISE_SRC,
# a git repository holding the commit (its tree at the commit is exported under OUT) or a plain
# source tree at the commit; by default ../kruise or ../.mirror/openkruise+kruise/repo beside
# this checkout. Every other dependency comes through the module proxy. It is built with the Go
# release upstream builds with (scripts/upstream-source.sh: GOTOOLCHAIN=go1.23.9), or, when that
# cannot be had, with the local Go and a warning line.
#
# Without Go, or without the proxy, or without upstream's code, it prints one line starting
# "oracle: skipped:" and exits 0, leaving no binary, so that `make test` goes on without the
# differential run. A compile error of the oracle itself is a failure (exit 1).
set -euo pipefail

out=${1:?usage: scripts/oracle.sh OUT}
top=$(cd "$(dirname "$0")/.." && pwd -P)
mkdir -p "$out"
out=$(cd "$out" && pwd -P)
bin=$out/kwh-oracle
log=$out/build.log

skip() {
    rm -f "$bin"
    echo "oracle: skipped: $*"
    exit 0
}

. "$top/scripts/upstream-source.sh"
upstream_go oracle

# Up to date: the binary is newer than every source file and these scripts, and was built by
# the Go release this build would use.
if [ -x "$bin" ] && [ -z "$(find "$top/test/oracle" "$0" "$top/scripts/upstream-source.sh" -newer "$bin" -type f 2>/dev/null | head -1)" ] &&
    [ "$("$go" version "$bin" 2>/dev/null)" = "$bin: $("$go" env GOVERSION)" ]; then
    echo "oracle: $bin is up to date"
    exit 0
fi

mod=$out/mod
rm -rf "$mod"
mkdir -p "$mod"
cp -r "$top"/test/oracle/go.mod "$top"/test/oracle/*.go "$top"/test/oracle/enumgen "$mod"/
cd "$mod"
export GOFLAGS=-mod=mod

upstream_source "$out"
if [ "$upstream_from" = proxy ]; then
    source_note="the module proxy"
else
    "$go" mod edit -replace "$UPSTREAM_MODULE=$upstream_dir"
    source_note="$upstream_dir"
fi

if ! "$go" mod tidy >"$log" 2>&1; then
    upstream_network_error "$log" && skip "the module proxy did not serve the dependencies ($(upstream_network_line "$log"))"
    echo "oracle: go mod tidy failed:" && cat "$log" && exit 1
fi
# The generators' table of enumerations, read from upstream's API packages and Kubernetes'.
kdir=$("$go" list -m -f '{{.Dir}}' "$UPSTREAM_MODULE")
adir=$("$go" list -m -f '{{.Dir}}' k8s.io/api)
if ! "$go" run ./enumgen -out enums_gen.go \
    "$kdir/apis/apps/v1alpha1:$UPSTREAM_MODULE/apis/apps/v1alpha1" "$kdir/apis/apps/v1beta1:$UPSTREAM_MODULE/apis/apps/v1beta1" \
    "$kdir/apis/apps/pub:$UPSTREAM_MODULE/apis/apps/pub" "$kdir/apis/policy/v1alpha1:$UPSTREAM_MODULE/apis/policy/v1alpha1" \
    "$kdir/apis/policy/v1beta1:$UPSTREAM_MODULE/apis/policy/v1beta1" "$adir/core/v1:k8s.io/api/core/v1" \
    "$adir/apps/v1:k8s.io/api/apps/v1" "$adir/policy/v1:k8s.io/api/policy/v1" >>"$log" 2>&1; then
    echo "oracle: enumgen failed:" && cat "$log" && exit 1
fi
echo "oracle: building test/oracle against upstream at ${UPSTREAM_COMMIT:0:12} from $source_note with $("$go" env GOVERSION)"
if ! "$go" build -trimpath -o "$bin.tmp" . >>"$log" 2>&1; then
    upstream_network_error "$log" && skip "the module proxy did not serve the dependencies"
    echo "oracle: build failed:" && cat "$log" && exit 1
fi
mv "$bin.tmp" "$bin"
echo "oracle: built $bin"
