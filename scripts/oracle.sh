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
# this checkout. Every other dependency comes through the module proxy.
#
# Without Go, or without the proxy, or without upstream's code, it prints one line starting
# "oracle: skipped:" and exits 0, leaving no binary, so that `make test` goes on without the
# differential run. A compile error of the oracle itself is a failure (exit 1).
set -euo pipefail

COMMIT=07169cfac7b9cf7800dda1b8652f850cc3184132
MODULE=github.com/openkruise/kruise
PSEUDO=v1.5.3-0.20260702095609-07169cfac7b9

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

go=$(command -v go 2>/dev/null || true)
[ -n "$go" ] || { [ -x /usr/local/go/bin/go ] && go=/usr/local/go/bin/go; }
[ -n "$go" ] || skip "no Go toolchain (go on PATH or /usr/local/go/bin/go); the differential run needs one"

# Up to date: the binary is newer than every source file and this script.
if [ -x "$bin" ] && [ -z "$(find "$top/test/oracle" "$0" -newer "$bin" -type f 2>/dev/null | head -1)" ]; then
    echo "oracle: $bin is up to date"
    exit 0
fi

mod=$out/mod
rm -rf "$mod"
mkdir -p "$mod"
cp -r "$top"/test/oracle/go.mod "$top"/test/oracle/*.go "$top"/test/oracle/enumgen "$mod"/
cd "$mod"
export GOFLAGS=-mod=mod GOTOOLCHAIN=local

network_error() {
    grep -Eq 'dial tcp|no such host|i/o timeout|connection refused|proxyconnect|TLS handshake|server response|403 Forbidden|404 Not Found|410 Gone|unrecognized import path' "$log"
}

if "$go" mod download "$MODULE@$PSEUDO" >"$out/proxy.log" 2>&1; then
    source_note="the module proxy"
else
    src=${KRUISE_SRC:-}
    if [ -z "$src" ]; then
        for cand in "$top/../kruise" "$top/../.mirror/openkruise+kruise/repo"; do
            [ -e "$cand" ] && { src=$cand; break; }
        done
    fi
    [ -n "$src" ] || skip "the module proxy does not serve $MODULE at $COMMIT, and no copy of upstream's repository was found (set KRUISE_SRC to a clone)"
    tree=$out/kruise-$COMMIT
    if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
        git -C "$src" cat-file -e "$COMMIT^{commit}" 2>/dev/null ||
            skip "KRUISE_SRC=$src does not hold commit $COMMIT"
        if [ ! -f "$tree/.complete" ]; then
            rm -rf "$tree" && mkdir -p "$tree"
            git -C "$src" archive "$COMMIT" | tar -x -C "$tree"
            touch "$tree/.complete"
        fi
    elif grep -q "^module $MODULE\$" "$src/go.mod" 2>/dev/null; then
        tree=$(cd "$src" && pwd -P) # a plain tree: taken to be at the commit
    else
        skip "KRUISE_SRC=$src is neither a git repository nor upstream's source tree"
    fi
    "$go" mod edit -replace "$MODULE=$tree"
    source_note="$tree"
fi

if ! "$go" mod tidy >"$log" 2>&1; then
    network_error && skip "the module proxy did not serve the dependencies ($(grep -m1 -E 'dial tcp|no such host|timeout|refused|403|404|410' "$log"))"
    echo "oracle: go mod tidy failed:" && cat "$log" && exit 1
fi
# The generators' table of enumerations, read from upstream's API packages and Kubernetes'.
kdir=$("$go" list -m -f '{{.Dir}}' "$MODULE")
adir=$("$go" list -m -f '{{.Dir}}' k8s.io/api)
if ! "$go" run ./enumgen -out enums_gen.go \
    "$kdir/apis/apps/v1alpha1:$MODULE/apis/apps/v1alpha1" "$kdir/apis/apps/v1beta1:$MODULE/apis/apps/v1beta1" \
    "$kdir/apis/apps/pub:$MODULE/apis/apps/pub" "$kdir/apis/policy/v1alpha1:$MODULE/apis/policy/v1alpha1" \
    "$kdir/apis/policy/v1beta1:$MODULE/apis/policy/v1beta1" "$adir/core/v1:k8s.io/api/core/v1" \
    "$adir/apps/v1:k8s.io/api/apps/v1" "$adir/policy/v1:k8s.io/api/policy/v1" >>"$log" 2>&1; then
    echo "oracle: enumgen failed:" && cat "$log" && exit 1
fi
echo "oracle: building test/oracle against upstream at ${COMMIT:0:12} from $source_note"
if ! "$go" build -trimpath -o "$bin.tmp" . >>"$log" 2>&1; then
    network_error && skip "the module proxy did not serve the dependencies"
    echo "oracle: build failed:" && cat "$log" && exit 1
fi
mv "$bin.tmp" "$bin"
echo "oracle: built $bin"
