#!/usr/bin/env bash
# The peers that `make bench` measures Stratus against, from Debian: nginx (static files), wrk (load) and
# redis-server (node-oidc-provider's storage in the token bench), and time (the CPU seconds of the indices bench's CDO
# runs). The interop readers (GDAL, zarr-python) come from install-interop-tools.sh.
set -euo pipefail
exec bash "$(dirname "$0")/apt-install.sh" "benchmark peers" nginx-light wrk redis-server time
