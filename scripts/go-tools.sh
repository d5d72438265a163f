#!/bin/sh
# scripts/go-tools.sh TOOL [DIR]: builds a Go tool the tests use, at the version pinned below,
# from the Go module proxy into DIR (default build/gotools), once, and prints its path.
#
#   helm    helm.sh/helm/v3/cmd/helm: helm lint, helm template and helm install of
#           charts/kruise-webhook (test/manifests/check.py, test/e2e/helm.py)
#
# Go is test tooling only: nothing the project ships is built with it. Go is `go` on PATH, else
# /usr/local/go/bin/go (GO=... names another). When Go or the module proxy cannot be had the
# script prints one line, "skipped: <why>", and exits 3, so that a suite can skip rather than
# fail; any other failure (the tool does not build) exits 1 with Go's output.
#
# A module whose go.mod carries replace directives cannot be built by `go install mod@version`
# (Go refuses them there): it is built inside its downloaded copy instead, where they apply.
set -eu

tool=${1:?usage: scripts/go-tools.sh TOOL [DIR]}
dir=${2:-build/gotools}

case $tool in
helm) module=helm.sh/helm/v3 version=v3.18.6 package=cmd/helm ;;
*) echo "go-tools.sh: unknown tool $tool (known: helm)" >&2; exit 2 ;;
esac

out=$dir/$tool-$version
if [ -x "$out" ]; then
    echo "$out"
    exit 0
fi

go=${GO:-$(command -v go || true)}
[ -n "$go" ] || [ ! -x /usr/local/go/bin/go ] || go=/usr/local/go/bin/go
if [ -z "$go" ] || ! "$go" version >/dev/null 2>&1; then
    echo "skipped: no Go to build $tool $version with (install Go, or set GO=/path/to/go)"
    exit 3
fi

mkdir -p "$dir"
dir=$(cd "$dir" && pwd -P)
out=$dir/$tool-$version
log=$dir/$tool-$version.log

# The download is where a missing proxy shows: that is a skip. Its JSON names the copy.
if ! json=$(GOFLAGS=-mod=mod "$go" mod download -json "$module@$version" 2>"$log"); then
    why=$(printf '%s\n' "$json" | sed -n 's/.*"Error": "\(.*\)".*/\1/p' | head -n 1)
    [ -n "$why" ] || why=$(tail -n 1 "$log")
    echo "skipped: the Go module proxy cannot give $module@$version: $why"
    exit 3
fi
src=$(printf '%s\n' "$json" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
[ -n "$src" ] && [ -f "$src/go.mod" ] || { echo "go-tools.sh: no go.mod in the download of $module@$version" >&2; exit 1; }

echo "go-tools.sh: building $module/$package@$version with $("$go" version) (a few minutes, once)" >&2
tmp=$out.tmp.$$
if grep -q '^[[:space:]]*replace[[:space:](]' "$src/go.mod"; then
    # In the module cache, read-only: its go.sum is complete, so nothing needs writing.
    (cd "$src" && GOFLAGS=-mod=readonly "$go" build -trimpath -o "$tmp" "./$package") >>"$log" 2>&1 ||
        { tail -n 30 "$log" >&2; rm -f "$tmp"; exit 1; }
else
    gobin=$dir/.gobin.$$
    GOBIN=$gobin GOFLAGS=-mod=mod "$go" install -trimpath "$module/$package@$version" >>"$log" 2>&1 ||
        { tail -n 30 "$log" >&2; rm -rf "$gobin"; exit 1; }
    mv "$gobin/$(basename "$package")" "$tmp"
    rm -rf "$gobin"
fi
mv "$tmp" "$out"
echo "$out"
