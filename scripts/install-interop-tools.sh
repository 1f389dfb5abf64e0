#!/usr/bin/env bash
# Installs the independent readers that the interop tests use to check Stratus's files (DESIGN.md §8):
# Python xarray/zarr (with rioxarray for the CRS and fsspec/aiohttp for HTTP stores), GDAL, and the netCDF tools
# (ncdump, netCDF4), from Debian.
# Idempotent: does nothing when every package is already there. Needs root or passwordless sudo.
set -euo pipefail
packages=(python3-xarray python3-zarr python3-numcodecs python3-fsspec python3-aiohttp python3-requests
  python3-rioxarray gdal-bin python3-gdal netcdf-bin python3-netcdf4)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo -n"
echo ">> installing interop readers from Debian: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq >/dev/null || true
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
