#!/usr/bin/env bash
# A real Kubernetes control plane for the integration tier (DESIGN.md §7, docs/kubernetes.md):
# kube-apiserver and kube-controller-manager 1.20 built from Debian bookworm's source package with Debian's Go,
# against Debian's etcd. No kubelet, no scheduler: Pods never run.
#
#   kube-test-cluster.sh build       build the two binaries once into the cache (idempotent)
#   kube-test-cluster.sh start DIR   start etcd, the API server and the controller manager on free loopback
#                                    ports, state under DIR; writes DIR/kubeconfig (admin) and waits until ready
#   kube-test-cluster.sh stop DIR    stop what `start DIR` started
#
# The cache lives outside the repository: ${STRATUS_KUBE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/stratus/kubernetes-1.20}.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${STRATUS_KUBE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/stratus/kubernetes-1.20}
bin="$cache/bin"

log() { echo ">> kube-test-cluster: $*" >&2; }

# The upstream version inside a Debian version such as 1.20.5+really1.20.2-1: what the binaries report.
upstream_version() {
  sed -n 's/^Version: //p' "$1"/kubernetes_*.dsc | sed -e 's/^.*really//' -e 's/-[^-]*$//'
}

build() {
  bash "$here/apt-install.sh" "the Kubernetes test cluster's toolchain" \
    golang-go etcd-server rsync dpkg-dev golang-github-modern-go-reflect2-dev ca-certificates openssl curl python3
  if [ -x "$bin/kube-apiserver" ] && [ -x "$bin/kube-controller-manager" ]; then
    return 0
  fi
  mkdir -p "$cache"
  # Only one build at a time per cache, however many test runs ask for it.
  exec 9>"$cache/.build.lock"
  flock 9
  if [ -x "$bin/kube-apiserver" ] && [ -x "$bin/kube-controller-manager" ]; then
    return 0
  fi
  local work="$cache/build"
  rm -rf "$work"
  mkdir -p "$work/apt/lists/partial" "$work/src"
  # A private sources list, so the machine's own apt configuration is neither needed nor changed.
  echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm main" >"$work/apt/sources.list"
  local apt_opts=(-o "Dir::Etc::SourceList=$work/apt/sources.list" -o "Dir::Etc::SourceParts=-"
    -o "Dir::State::Lists=$work/apt/lists" -o "APT::Sandbox::User=root")
  log "fetching the source package kubernetes (bookworm)"
  apt-get "${apt_opts[@]}" -qq update
  (cd "$work/src" && apt-get "${apt_opts[@]}" -qq source --download-only kubernetes)
  (cd "$work/src" && dpkg-source --no-check --no-copy -x ./kubernetes_*.dsc tree >/dev/null)
  local tree="$work/src/tree"
  # The vendored reflect2 crashes on Go >= 1.18 (it reads runtime internals that moved); Debian's 1.0.2 does not.
  rm -rf "$tree/vendor/github.com/modern-go/reflect2"
  rsync -a --exclude '*_test.go' /usr/share/gocode/src/github.com/modern-go/reflect2/ \
    "$tree/vendor/github.com/modern-go/reflect2/"
  # Kubernetes 1.20 builds in a GOPATH layout with its vendor directory and no module downloads.
  mkdir -p "$work/gopath/src/k8s.io"
  ln -s "$tree" "$work/gopath/src/k8s.io/kubernetes"
  log "building kube-apiserver and kube-controller-manager (about 5 minutes on 2 cores)"
  (cd "$work/gopath/src/k8s.io/kubernetes" &&
    GOPATH="$work/gopath" GOCACHE="$work/gocache" CGO_ENABLED=0 GOPROXY=off \
      KUBE_GIT_VERSION="v$(upstream_version "$work/src")" make WHAT="cmd/kube-apiserver cmd/kube-controller-manager" >"$work/build.log" 2>&1) || {
    tail -n 40 "$work/build.log" >&2
    exit 1
  }
  mkdir -p "$bin.tmp"
  cp "$tree/_output/bin/kube-apiserver" "$tree/_output/bin/kube-controller-manager" "$bin.tmp/"
  rm -rf "$bin"
  mv "$bin.tmp" "$bin"
  rm -rf "$work"
  log "binaries in $bin"
}

# Loopback ports that were free a moment ago (the kernel picks them; a clash on start fails loudly).
free_ports() {
  python3 -c '
import socket, sys
socks = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in socks: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in socks))' "$1"
}

# A CA, a serving certificate for 127.0.0.1 and the service-account signing key pair.
make_pki() {
  local pki=$1
  mkdir -p "$pki"
  openssl req -x509 -newkey rsa:2048 -nodes -days 30 -subj "/CN=stratus-test-ca" \
    -keyout "$pki/ca.key" -out "$pki/ca.crt" 2>/dev/null
  openssl req -newkey rsa:2048 -nodes -subj "/CN=kube-apiserver" \
    -keyout "$pki/apiserver.key" -out "$pki/apiserver.csr" 2>/dev/null
  printf 'subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes.default.svc\nextendedKeyUsage=serverAuth\n' \
    >"$pki/apiserver.ext"
  openssl x509 -req -in "$pki/apiserver.csr" -CA "$pki/ca.crt" -CAkey "$pki/ca.key" -CAcreateserial -days 30 \
    -extfile "$pki/apiserver.ext" -out "$pki/apiserver.crt" 2>/dev/null
  openssl genrsa -out "$pki/sa.key" 2048 2>/dev/null
  openssl rsa -in "$pki/sa.key" -pubout -out "$pki/sa.pub" 2>/dev/null
}

# Starts a command detached from this shell, logging to DIR/NAME.log, its pid in DIR/NAME.pid.
spawn() {
  local dir=$1 name=$2
  shift 2
  setsid "$@" >"$dir/$name.log" 2>&1 </dev/null &
  echo $! >"$dir/$name.pid"
}

wait_until() {
  local what=$1 seconds=$2
  shift 2
  for _ in $(seq 1 $((seconds * 4))); do
    "$@" >/dev/null 2>&1 && return 0
    sleep 0.25
  done
  echo "kube-test-cluster: $what not ready after ${seconds}s" >&2
  return 1
}

start() {
  local dir
  dir=$(mkdir -p "$1" && cd "$1" && pwd)
  build
  local etcd_client etcd_peer api_port
  read -r etcd_client etcd_peer api_port <<<"$(free_ports 3)"
  make_pki "$dir/pki"
  local token
  token=$(openssl rand -hex 24)
  # The admin is in system:masters, so RBAC lets it do everything; workloads get their own tokens later.
  echo "$token,stratus-admin,stratus-admin,system:masters" >"$dir/tokens.csv"
  local server="https://127.0.0.1:$api_port"
  cat >"$dir/kubeconfig" <<YAML
apiVersion: v1
kind: Config
clusters:
  - name: stratus-test
    cluster:
      server: $server
      certificate-authority: $dir/pki/ca.crt
users:
  - name: stratus-admin
    user:
      token: $token
contexts:
  - name: stratus-test
    context: { cluster: stratus-test, user: stratus-admin }
current-context: stratus-test
YAML

  spawn "$dir" etcd etcd --name stratus-test --data-dir "$dir/etcd" \
    --listen-client-urls "http://127.0.0.1:$etcd_client" --advertise-client-urls "http://127.0.0.1:$etcd_client" \
    --listen-peer-urls "http://127.0.0.1:$etcd_peer" --initial-advertise-peer-urls "http://127.0.0.1:$etcd_peer" \
    --initial-cluster "stratus-test=http://127.0.0.1:$etcd_peer"
  wait_until etcd 30 curl -fsS "http://127.0.0.1:$etcd_client/health"

  spawn "$dir" kube-apiserver "$bin/kube-apiserver" \
    --etcd-servers "http://127.0.0.1:$etcd_client" \
    --bind-address 127.0.0.1 --advertise-address 127.0.0.1 --secure-port "$api_port" --insecure-port 0 \
    --tls-cert-file "$dir/pki/apiserver.crt" --tls-private-key-file "$dir/pki/apiserver.key" \
    --client-ca-file "$dir/pki/ca.crt" --token-auth-file "$dir/tokens.csv" \
    --authorization-mode RBAC --anonymous-auth=false \
    --service-account-issuer https://kubernetes.default.svc \
    --service-account-key-file "$dir/pki/sa.pub" --service-account-signing-key-file "$dir/pki/sa.key" \
    --service-cluster-ip-range 10.96.0.0/16 --watch-cache=true
  wait_until kube-apiserver 90 curl -fsS --cacert "$dir/pki/ca.crt" -H "Authorization: Bearer $token" \
    "$server/readyz"

  spawn "$dir" kube-controller-manager "$bin/kube-controller-manager" \
    --kubeconfig "$dir/kubeconfig" --authentication-kubeconfig "$dir/kubeconfig" \
    --authorization-kubeconfig "$dir/kubeconfig" --port 0 --secure-port 0 --leader-elect=false \
    --controllers garbagecollector,job,namespace,serviceaccount,serviceaccount-token,pvc-protection \
    --service-account-private-key-file "$dir/pki/sa.key" --root-ca-file "$dir/pki/ca.crt"
  # The Job controller needs the default ServiceAccount, which the serviceaccount controller makes.
  wait_until "the default ServiceAccount" 60 curl -fsS --cacert "$dir/pki/ca.crt" \
    -H "Authorization: Bearer $token" "$server/api/v1/namespaces/default/serviceaccounts/default"
  log "running at $server; kubeconfig $dir/kubeconfig"
}

stop() {
  local dir=$1 name pid
  for name in kube-controller-manager kube-apiserver etcd; do
    [ -f "$dir/$name.pid" ] || continue
    pid=$(cat "$dir/$name.pid")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 40); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.25
    done
    kill -9 "$pid" 2>/dev/null || true
    rm -f "$dir/$name.pid"
  done
}

case "${1:-}" in
  build) build ;;
  start) start "${2:?state directory}" ;;
  stop) stop "${2:?state directory}" ;;
  *)
    echo "usage: $0 build | start DIR | stop DIR" >&2
    exit 2
    ;;
esac
