#!/usr/bin/env bash
# Builds the container image from the Dockerfile, unchanged, where no Docker engine runs and Docker Hub is out of
# reach: buildah (no daemon, chroot isolation, vfs storage) from Debian, and the Dockerfile's base
# `node:24-trixie-slim` made here first as a stand-in: Debian trixie (mmdebstrap, minbase, from the Debian mirror)
# with the project's Node 24 in /usr/local/bin and npm 11 from the npm registry, laid out as the official image
# lays them out. Needs root, or passwordless sudo for apt.
#
# Usage: build-image-offline.sh [TAG]   (default localhost/stratus:offline)
# STRATUS_IMAGE_NODE names the Node 24 binary to put in the base (default: the `node` on PATH).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tag=${1:-localhost/stratus:offline}
node_bin=${STRATUS_IMAGE_NODE:-$(command -v node)}
if [ "$("$node_bin" -p 'process.versions.node.split(".")[0]')" != 24 ]; then
  echo "build-image-offline: $node_bin is not Node 24 (run through make, which provides it)" >&2
  exit 2
fi
bash "$root/scripts/apt-install.sh" "the offline image build" buildah mmdebstrap

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
b() { buildah --storage-driver vfs "$@"; }

echo ">> base: Debian trixie (minbase) with Node $("$node_bin" --version) and npm 11"
mmdebstrap --quiet --variant=minbase --include=ca-certificates trixie "$work/rootfs.tar" http://deb.debian.org/debian
(cd "$work" && npm pack npm@11 --silent >/dev/null && tar xzf npm-*.tgz)
base=$(b from scratch)
b add "$base" "$work/rootfs.tar" /
b copy "$base" "$node_bin" /usr/local/bin/node
b copy "$base" "$work/package" /usr/local/lib/node_modules/npm
b run --isolation chroot "$base" -- sh -c \
  'ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx'
# Where egress goes through a TLS-inspecting proxy (as on the development machines), its CA is in the host's
# bundle, and the build's `npm ci` needs it. This base is a stand-in; the official one has no such setting.
if [ -n "${NODE_EXTRA_CA_CERTS:-}" ] && [ -f "$NODE_EXTRA_CA_CERTS" ]; then
  b copy "$base" "$NODE_EXTRA_CA_CERTS" /etc/ssl/certs/build-host-ca.crt
  b config --env NODE_EXTRA_CA_CERTS=/etc/ssl/certs/build-host-ca.crt "$base"
fi
b config --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin --cmd node "$base"
b commit --quiet --rm "$base" localhost/node:24-trixie-slim >/dev/null

echo ">> $tag from the Dockerfile"
b bud --quiet --isolation chroot --pull-never -t "$tag" "$root" >/dev/null
echo ">> built $tag"
