#!/usr/bin/env bash
# Installs the peers that `make bench` measures Stratus against, from Debian: nginx (static files) and wrk (load).
# The interop readers (GDAL, zarr-python) come from install-interop-tools.sh. Idempotent.
set -euo pipefail
packages=(nginx-light wrk)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo -n"
echo ">> installing benchmark peers from Debian: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq >/dev/null || true
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
