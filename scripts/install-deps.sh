#!/bin/sh
# Installs what building and testing kruise-webhook needs on Debian/Ubuntu.
# The Makefile runs this only when a library is missing; it is safe to run again.
set -eu

# Build: the libraries. Tests: python3 with PyYAML (the fake API server, integration tests),
# openssl (signs a test certificate with an existing CA), curl (README examples).
PACKAGES="pkg-config libmicrohttpd-dev libgnutls28-dev libssl-dev libjansson-dev libyaml-dev
libcurl4-openssl-dev python3 python3-yaml openssl curl ca-certificates"

if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "kruise-webhook: missing build dependencies. Install them with:" >&2
    echo "  sudo apt-get install -y $(echo $PACKAGES)" >&2
    exit 1
fi

export DEBIAN_FRONTEND=noninteractive
# A fresh machine may never have run apt-get update: try the install first, refresh on failure.
# shellcheck disable=SC2086
if ! apt-get install -y --no-install-recommends $PACKAGES; then
    apt-get update
    apt-get install -y --no-install-recommends $PACKAGES
fi
