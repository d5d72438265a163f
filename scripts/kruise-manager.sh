#!/usr/bin/env bash
# make kruise-manager: builds upstream OpenKruise's own kruise-manager (its main.go, at the commit
# this project follows) into OUT/kruise-manager, for the e2e migration scenario that runs it as
# the cluster's OpenKruise (test/e2e/run.py). Test tooling only: never shipped, never committed.
#
#   scripts/kruise-manager.sh OUT
#
# The module comes from where scripts/oracle.sh takes it (scripts/upstream-source.sh: the module
# proxy, else a copy of upstream's repository) and is built as upstream builds it, with its own
# go.mod and go.sum and upstream's Go release (1.23.9, else the local Go with a warning line);
# every dependency through the module proxy.
#
# One change, made at build time through an overlay (the source is not touched): upstream's
# main.go hard-codes the webhook server's listen address as 0.0.0.0 (the other listeners take
# flags), and every server the test suites start listens on loopback only (test/guard), so the
# overlay's main.go says 127.0.0.1 there. The script fails if that line is not found exactly
# once.
#
# OUT/source names the directory of upstream's tree it was built from (the e2e scenario
# installs upstream's own manifests, config/default, from there). Without Go, the module proxy
# or upstream's code it prints one line starting "kruise-manager: skipped:" and exits 0,
# leaving no binary; the e2e scenario then says it is skipped.
set -euo pipefail

out=${1:?usage: scripts/kruise-manager.sh OUT}
top=$(cd "$(dirname "$0")/.." && pwd -P)
mkdir -p "$out"
out=$(cd "$out" && pwd -P)
bin=$out/kruise-manager
log=$out/build.log

skip() {
    rm -f "$bin"
    echo "kruise-manager: skipped: $*"
    exit 0
}

. "$top/scripts/upstream-source.sh"
upstream_go kruise-manager

# (find fails when there is no binary yet: under set -e that must not end the script, so it is
# asked only when there is one)
if [ -x "$bin" ] &&
    [ -z "$(find "$0" "$top/scripts/upstream-source.sh" -newer "$bin" -type f 2>/dev/null | head -1)" ] &&
    [ "$("$go" version "$bin" 2>/dev/null)" = "$bin: $("$go" env GOVERSION)" ]; then
    echo "kruise-manager: $bin is up to date"
    exit 0
fi

upstream_source "$out"
main=$upstream_dir/main.go
wildcard='			Host:    "0.0.0.0",'
[ "$(grep -cxF "$wildcard" "$main")" = 1 ] || {
    echo "kruise-manager: $main does not set the webhook server's Host to 0.0.0.0 on one line"
    exit 1
}
sed "s/^\t\t\tHost:    \"0.0.0.0\",\$/\t\t\tHost:    \"127.0.0.1\",/" "$main" >"$out/main-loopback.go"
printf '{"Replace":{"%s":"%s"}}\n' "$main" "$out/main-loopback.go" >"$out/overlay.json"

echo "kruise-manager: building upstream's main.go at ${UPSTREAM_COMMIT:0:12}" \
    "(webhook server on 127.0.0.1) with $("$go" env GOVERSION)"
if ! (cd "$upstream_dir" && GOFLAGS=-mod=readonly "$go" build -trimpath -overlay "$out/overlay.json" \
    -o "$bin.tmp" .) >"$log" 2>&1; then
    upstream_network_error "$log" && skip "the module proxy did not serve the dependencies ($(upstream_network_line "$log"))"
    echo "kruise-manager: build failed:" && cat "$log" && exit 1
fi
mv "$bin.tmp" "$bin"
# Where upstream's tree is: the e2e scenario installs upstream's own manifests (config/) from it.
echo "$upstream_dir" >"$out/source"
echo "kruise-manager: built $bin"
