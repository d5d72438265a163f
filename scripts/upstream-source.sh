# Sourced by scripts/oracle.sh and scripts/kruise-manager.sh (bash): where upstream OpenKruise's
# Go module at the commit this project follows comes from, and the Go release to build it with.
#
#   . scripts/upstream-source.sh
#   upstream_go NAME            # sets go and GOTOOLCHAIN, or calls skip
#   upstream_source OUT         # sets upstream_dir and upstream_from, or calls skip
#
# The caller defines skip MESSAGE (print one "...: skipped: MESSAGE" line, exit 0).
# upstream_from is "proxy" when the Go module proxy serves the commit (upstream_dir is then the
# module's directory in the module cache, read-only), else "tree": a copy of upstream's
# repository, KRUISE_SRC, or by default ../kruise or ../.mirror/openkruise+kruise/repo beside
# this checkout; a git repository has its tree at the commit exported under OUT (once), a plain
# source tree is taken to be at the commit. (proxy.golang.org answers 403 for the commit today.)

UPSTREAM_COMMIT=07169cfac7b9cf7800dda1b8652f850cc3184132
UPSTREAM_MODULE=github.com/openkruise/kruise
UPSTREAM_PSEUDO=v1.5.3-0.20260702095609-07169cfac7b9

# The Go release upstream builds with (its Dockerfile: golang:1.23.9). Where the standard library
# shows in answers it matters which: later releases accept regexp's Unicode aliases (\p{Letter},
# Go 1.25) and name the embedded structs in encoding/json's type-error paths (Go 1.24:
# "Volume.spec.volumes.VolumeSource.emptyDir", where Go 1.23 says "Volume.spec.volumes.emptyDir").
UPSTREAM_GO=go1.23.9

# upstream_go NAME: sets go (GO, else go on PATH, else /usr/local/go/bin/go) and exports
# GOTOOLCHAIN: UPSTREAM_GO, fetched once through the module proxy into the module cache
# (golang.org/toolchain) when it is not there; when that release cannot be had, the local Go,
# with one line "NAME: warning: ..." saying so.
upstream_go() {
    local name=$1 what
    go=${GO:-$(command -v go 2>/dev/null || true)}
    [ -n "$go" ] || { [ -x /usr/local/go/bin/go ] && go=/usr/local/go/bin/go; }
    { [ -n "$go" ] && GOTOOLCHAIN=local "$go" version >/dev/null 2>&1; } ||
        skip "no Go toolchain (GO, go on PATH or /usr/local/go/bin/go)"
    if what=$(GOTOOLCHAIN=$UPSTREAM_GO "$go" env GOVERSION 2>&1) && [ "$what" = "$UPSTREAM_GO" ]; then
        export GOTOOLCHAIN=$UPSTREAM_GO
    else
        export GOTOOLCHAIN=local
        echo "$name: warning: $UPSTREAM_GO (upstream's release) cannot be had" \
            "($(printf '%s\n' "$what" | tail -n 1)); building with the local $("$go" env GOVERSION)," \
            "whose standard library can answer otherwise"
    fi
}

upstream_source() {
    local out=$1 top src cand
    top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
    if (cd "$out" && GOFLAGS=-mod=mod "$go" mod download -json "$UPSTREAM_MODULE@$UPSTREAM_PSEUDO") \
        >"$out/proxy.json" 2>"$out/proxy.log"; then
        upstream_dir=$(sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p' "$out/proxy.json")
        if [ -n "$upstream_dir" ] && [ -f "$upstream_dir/go.mod" ]; then
            upstream_from=proxy
            return 0
        fi
    fi
    src=${KRUISE_SRC:-}
    if [ -z "$src" ]; then
        for cand in "$top/../kruise" "$top/../.mirror/openkruise+kruise/repo"; do
            [ -e "$cand" ] && { src=$cand; break; }
        done
    fi
    [ -n "$src" ] || skip "the module proxy does not serve $UPSTREAM_MODULE at $UPSTREAM_COMMIT, and no copy of upstream's repository was found (set KRUISE_SRC to a clone)"
    if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
        git -C "$src" cat-file -e "$UPSTREAM_COMMIT^{commit}" 2>/dev/null ||
            skip "KRUISE_SRC=$src does not hold commit $UPSTREAM_COMMIT"
        upstream_dir=$out/kruise-$UPSTREAM_COMMIT
        if [ ! -f "$upstream_dir/.complete" ]; then
            rm -rf "$upstream_dir" && mkdir -p "$upstream_dir"
            git -C "$src" archive "$UPSTREAM_COMMIT" | tar -x -C "$upstream_dir"
            touch "$upstream_dir/.complete"
        fi
    elif grep -q "^module $UPSTREAM_MODULE\$" "$src/go.mod" 2>/dev/null; then
        upstream_dir=$(cd "$src" && pwd -P)
    else
        skip "KRUISE_SRC=$src is neither a git repository nor upstream's source tree"
    fi
    upstream_from=tree
}

# upstream_network_error LOG: true when a failed go command's LOG says the network or the module
# proxy failed it (a skip, not an error of the code); upstream_network_line LOG: the line saying so.
upstream_network_error() {
    grep -Eq 'dial tcp|no such host|i/o timeout|connection refused|proxyconnect|TLS handshake|server response|403 Forbidden|404 Not Found|410 Gone|unrecognized import path' "$1"
}

upstream_network_line() {
    grep -m1 -E 'dial tcp|no such host|timeout|refused|403|404|410' "$1"
}
