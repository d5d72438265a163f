#!/bin/sh
# Installs what building and testing kruise-webhook needs on Debian/Ubuntu; with the argument
# `bench`, what `make bench-http` needs instead (../shared/bench/compare.sh).
# The Makefile runs this only when something is missing; it is safe to run again.
set -eu

# Build: the libraries. Tests: python3 with PyYAML (the fake API server, integration tests),
# openssl (signs a test certificate with an existing CA), curl (README examples). The README
# lists the same packages.
PACKAGES="pkg-config libmicrohttpd-dev libgnutls28-dev libssl-dev libjansson-dev libyaml-dev
libcurl4-openssl-dev python3 python3-yaml openssl curl ca-certificates"
# make bench-http: the load generator, the static HTTPS ceiling, the Go peer's toolchain, and
# the tools compare.sh checks answers with.
BENCH_PACKAGES="wrk nginx-light golang-1.19 jq curl openssl"
what="build dependencies"
if [ "${1:-}" = bench ]; then
    PACKAGES=$BENCH_PACKAGES
    what="benchmark tools"
fi

# Where apt keeps its package lists (a test points this elsewhere).
APT_LISTS=${WH_APT_LISTS:-/var/lib/apt/lists}

if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "kruise-webhook: missing $what. Install them with:" >&2
    echo "  sudo apt-get update && sudo apt-get install -y $(echo $PACKAGES)" >&2
    exit 1
fi

export DEBIAN_FRONTEND=noninteractive
# A fresh machine has never run apt-get update: with no package lists every package is
# "Unable to locate". Update first then, and when the lists lack one of the packages, so that
# nothing printed looks like a failure; otherwise install straight away.
have_lists=false
for f in "$APT_LISTS"/*_Packages*; do
    [ -e "$f" ] && have_lists=true
    break
done
# shellcheck disable=SC2086
if ! $have_lists || ! apt-cache show $PACKAGES >/dev/null 2>&1; then
    echo "kruise-webhook: refreshing the package lists (apt-get update)"
    apt-get update
fi
# Lists that know every package can still be too old for the mirror (a 404 on download): then
# refresh and try once more.
# shellcheck disable=SC2086
if ! apt-get install -y --no-install-recommends $PACKAGES; then
    apt-get update
    apt-get install -y --no-install-recommends $PACKAGES
fi
