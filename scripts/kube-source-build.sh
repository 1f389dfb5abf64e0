#!/usr/bin/env bash
# Builds Kubernetes 1.20 programs from Debian bookworm's source package `kubernetes` with Debian's Go, without
# the machine's apt configuration and without module downloads (the source vendors its dependencies).
#
#   kube-source-build.sh DEST CMD...    build each cmd/<CMD> and install the binaries into DEST (replaced whole)
#
# Extra files of the source tree to keep go to DEST as well when named in KUBE_SOURCE_KEEP (paths relative to
# the tree, e.g. build/pause). The source tree is deleted afterwards. Callers hold their cache's lock.
set -euo pipefail

dest=${1:?destination directory}
shift
[ $# -gt 0 ] || {
  echo "usage: $0 DEST CMD..." >&2
  exit 2
}

log() { echo ">> kube-source-build: $*" >&2; }

# The upstream version inside a Debian version such as 1.20.5+really1.20.2-1: what the binaries report.
upstream_version() {
  sed -n 's/^Version: //p' "$1"/kubernetes_*.dsc | sed -e 's/^.*really//' -e 's/-[^-]*$//'
}

work="$dest.build"
rm -rf "$work"
mkdir -p "$work/apt/lists/partial" "$work/src"
# A private sources list, so the machine's own apt configuration is neither needed nor changed.
echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm main" >"$work/apt/sources.list"
apt_opts=(-o "Dir::Etc::SourceList=$work/apt/sources.list" -o "Dir::Etc::SourceParts=-"
  -o "Dir::State::Lists=$work/apt/lists" -o "APT::Sandbox::User=root")
log "fetching the source package kubernetes (bookworm)"
apt-get "${apt_opts[@]}" -qq update
(cd "$work/src" && apt-get "${apt_opts[@]}" -qq source --download-only kubernetes)
(cd "$work/src" && dpkg-source --no-check --no-copy -x ./kubernetes_*.dsc tree >/dev/null)
tree="$work/src/tree"
# The vendored reflect2 crashes on Go >= 1.18 (it reads runtime internals that moved); Debian's 1.0.2 does not.
rm -rf "$tree/vendor/github.com/modern-go/reflect2"
rsync -a --exclude '*_test.go' /usr/share/gocode/src/github.com/modern-go/reflect2/ \
  "$tree/vendor/github.com/modern-go/reflect2/"
# Kubernetes 1.20 builds in a GOPATH layout with its vendor directory and no module downloads.
mkdir -p "$work/gopath/src/k8s.io"
ln -s "$tree" "$work/gopath/src/k8s.io/kubernetes"
what=()
for cmd in "$@"; do what+=("cmd/$cmd"); done
log "building $* (about 5 minutes on 2 cores, more for kubelet)"
(cd "$work/gopath/src/k8s.io/kubernetes" &&
  GOPATH="$work/gopath" GOCACHE="$work/gocache" CGO_ENABLED=0 GOPROXY=off \
    KUBE_GIT_VERSION="v$(upstream_version "$work/src")" make WHAT="${what[*]}" >"$work/build.log" 2>&1) || {
  tail -n 40 "$work/build.log" >&2
  exit 1
}
mkdir -p "$dest.tmp"
for cmd in "$@"; do cp "$tree/_output/bin/$cmd" "$dest.tmp/"; done
for kept in ${KUBE_SOURCE_KEEP:-}; do cp -r "$tree/$kept" "$dest.tmp/"; done
rm -rf "$dest"
mv "$dest.tmp" "$dest"
rm -rf "$work"
log "binaries in $dest"
