#!/usr/bin/env bash
# The keystore makers of the authorization server's tests, from Debian: openssl writes PKCS#12 files and keytool
# (from the Java runtime) writes JKS and PKCS#12 keystores, so the tests load keystores made by the tools that
# operators use instead of committed binaries.
set -euo pipefail
exec bash "$(dirname "$0")/apt-install.sh" "keystore tools" openssl default-jre-headless
