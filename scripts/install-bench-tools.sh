#!/usr/bin/env bash
# The peers that `make bench` measures Stratus against, from Debian: nginx (static files) and wrk (load). The
# interop readers (GDAL, zarr-python) come from install-interop-tools.sh.
set -euo pipefail
exec bash "$(dirname "$0")/apt-install.sh" "benchmark peers" nginx-light wrk
