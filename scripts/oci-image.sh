#!/usr/bin/env bash
# Packs a directory as a one-layer OCI image archive that `ctr images import` takes, for images made on this
# machine from files it already has (the pause binary, Debian's busybox-static): no registry, no builder.
#
#   oci-image.sh NAME ROOTFS OUT.tar ENTRYPOINT...
#
# NAME is the full reference containerd stores (e.g. localhost/stratus/pause:3.4). The archive is reproducible:
# the layer's entries are sorted, owned by root and dated at the epoch.
set -euo pipefail
name=${1:?image name}
rootfs=${2:?root filesystem directory}
out=${3:?output archive}
shift 3
[ $# -gt 0 ] || {
  echo "usage: $0 NAME ROOTFS OUT.tar ENTRYPOINT..." >&2
  exit 2
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
blobs="$work/layout/blobs/sha256"
mkdir -p "$blobs"

# Stores stdin as a blob; prints its digest and size.
blob() {
  cat >"$work/blob"
  local digest
  digest=$(sha256sum "$work/blob" | cut -d' ' -f1)
  mv "$work/blob" "$blobs/$digest"
  echo "$digest $(stat -c %s "$blobs/$digest")"
}

read -r layer layer_size < <(tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -C "$rootfs" -cf - . | blob)
entrypoint=$(python3 -c 'import json, sys; print(json.dumps(sys.argv[1:]))' "$@")
read -r config config_size < <(printf '%s' "{\"architecture\":\"amd64\",\"os\":\"linux\",\"config\":{\"Entrypoint\":$entrypoint},\"rootfs\":{\"type\":\"layers\",\"diff_ids\":[\"sha256:$layer\"]}}" | blob)
read -r manifest manifest_size < <(printf '%s' "{\"schemaVersion\":2,\"mediaType\":\"application/vnd.oci.image.manifest.v1+json\",\"config\":{\"mediaType\":\"application/vnd.oci.image.config.v1+json\",\"digest\":\"sha256:$config\",\"size\":$config_size},\"layers\":[{\"mediaType\":\"application/vnd.oci.image.layer.v1.tar\",\"digest\":\"sha256:$layer\",\"size\":$layer_size}]}" | blob)
printf '%s' "{\"schemaVersion\":2,\"manifests\":[{\"mediaType\":\"application/vnd.oci.image.manifest.v1+json\",\"digest\":\"sha256:$manifest\",\"size\":$manifest_size,\"annotations\":{\"io.containerd.image.name\":\"$name\",\"org.opencontainers.image.ref.name\":\"${name##*:}\"}}]}" >"$work/layout/index.json"
printf '%s' '{"imageLayoutVersion":"1.0.0"}' >"$work/layout/oci-layout"
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -C "$work/layout" -cf "$out" .
