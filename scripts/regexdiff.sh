#!/usr/bin/env bash
# make regexdiff (and its short run in make test): this program's regular expressions against
# Go's regexp of the release upstream OpenKruise is built with (Go 1.23.9, its Dockerfile), on
# patterns and texts test/regexdiff generates from a seed: the same acceptance, the same error
# message, the same parse tree, the same MatchString answers.
#
#   scripts/regexdiff.sh PROBE N SEED
#
# PROBE is the C side (build/test/regex-probe). Go 1.23.9 comes through GOTOOLCHAIN, which
# fetches it once from the module proxy into the module cache. Without Go, or when that release
# cannot be had, it prints one line starting "regexdiff: skipped:" and exits 0; a difference
# exits 1.
set -euo pipefail

probe=$(cd "$(dirname "$1")" && pwd -P)/$(basename "$1")
n=${2:?usage: scripts/regexdiff.sh PROBE N SEED}
seed=${3:?usage: scripts/regexdiff.sh PROBE N SEED}
top=$(cd "$(dirname "$0")/.." && pwd -P)

go=$(command -v go 2>/dev/null || true)
[ -n "$go" ] || { [ -x /usr/local/go/bin/go ] && go=/usr/local/go/bin/go; }
if [ -z "$go" ]; then
    echo "regexdiff: skipped: no Go toolchain (go on PATH or /usr/local/go/bin/go)"
    exit 0
fi
export GOTOOLCHAIN=go1.23.9 GOFLAGS=-buildvcs=false
if ! out=$("$go" version 2>&1); then
    echo "regexdiff: skipped: Go 1.23.9, upstream's release, cannot be had ($(echo "$out" | tail -1))"
    exit 0
fi
cd "$top/test/regexdiff"
exec nice "$go" run . -probe "$probe" -n "$n" -seed "$seed"
