#!/usr/bin/env bash
# The independent readers that the interop tests use to check Stratus's files (DESIGN.md §8): Python
# xarray/zarr (with rioxarray for the CRS and fsspec/aiohttp for HTTP stores), GDAL, and the netCDF tools
# (ncdump, netCDF4), headless Chromium for the HTML pages (driven by playwright-core), and shapely (the polygon
# clipping reference of the zonal statistics tests) with numpy (the zonal statistics bench peer), SciPy (the
# reference fits of the SPI and SPEI tests), pandas (the CHAP CSV reader) and CDO (the ETCCDI indices' reference),
# from Debian.
set -euo pipefail
exec bash "$(dirname "$0")/apt-install.sh" "interop readers" python3-xarray python3-zarr python3-numcodecs \
  python3-fsspec python3-aiohttp python3-requests python3-rioxarray gdal-bin python3-gdal netcdf-bin python3-netcdf4 \
  chromium python3-shapely python3-numpy python3-scipy python3-pandas cdo
