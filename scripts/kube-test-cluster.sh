#!/usr/bin/env bash
# A real Kubernetes control plane for the integration tier (DESIGN.md §7, docs/kubernetes.md):
# kube-apiserver and kube-controller-manager 1.20 built from Debian bookworm's source package with Debian's Go,
# against Debian's etcd. Without --node there is no kubelet and no scheduler: Pods never run. With --node,
# scripts/kube-node.sh adds one real node (containerd, CNI, kube-scheduler, kubelet).
#
#   kube-test-cluster.sh build [--node]       build the binaries once into the cache (idempotent)
#   kube-test-cluster.sh start DIR [--node]   start etcd, the API server and the controller manager on free
#                                             loopback ports, state under DIR; writes DIR/kubeconfig (admin) and
#                                             waits until ready (and, with --node, until the node is Ready)
#   kube-test-cluster.sh stop DIR             stop what `start DIR` started
#
# The cache lives outside the repository: ${STRATUS_KUBE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/stratus/kubernetes-1.20}.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${STRATUS_KUBE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/stratus/kubernetes-1.20}
bin="$cache/bin"

who=kube-test-cluster
# shellcheck source=scripts/kube-lib.sh
. "$here/kube-lib.sh"
log() { echo ">> $who: $*" >&2; }

build() {
  [ "${1:-}" != --node ] || bash "$here/kube-node.sh" build
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
  bash "$here/kube-source-build.sh" "$bin" kube-apiserver kube-controller-manager
}

# A CA, a serving certificate for the API server's address, the API server's client certificate for kubelets (in
# system:masters, as kubeadm makes it: a kubelet asks the API server whether its caller may proxy, read logs or
# forward ports) and the service-account signing key pair.
make_pki() {
  local pki=$1 api_ip=$2
  mkdir -p "$pki"
  openssl req -x509 -newkey rsa:2048 -nodes -days 30 -subj "/CN=stratus-test-ca" \
    -keyout "$pki/ca.key" -out "$pki/ca.crt" 2>/dev/null
  issue "$pki" apiserver "/CN=kube-apiserver" \
    "subjectAltName=IP:$api_ip,DNS:localhost,DNS:kubernetes.default.svc\nextendedKeyUsage=serverAuth"
  issue "$pki" apiserver-kubelet-client "/O=system:masters/CN=kube-apiserver-kubelet-client" \
    'extendedKeyUsage=clientAuth'
  openssl genrsa -out "$pki/sa.key" 2048 2>/dev/null
  openssl rsa -in "$pki/sa.key" -pubout -out "$pki/sa.pub" 2>/dev/null
}

start() {
  local dir with_node=$2
  dir=$(mkdir -p "$1" && cd "$1" && pwd)
  build "$with_node"
  local etcd_client etcd_peer api_port api_ip=127.0.0.1 service_range=10.96.0.0/16
  read -r etcd_client etcd_peer api_port <<<"$(free_ports 3)"
  # With a node, the API server is where its Pods' in-cluster config points (see kube-lib.sh).
  if [ "$with_node" = --node ]; then
    bash "$here/kube-node.sh" network "$dir"
    api_ip=$node_ip api_port=$node_api_port service_range=$node_service_range
  fi
  make_pki "$dir/pki" "$api_ip"
  local token
  token=$(openssl rand -hex 24)
  # The admin is in system:masters, so RBAC lets it do everything; workloads get their own tokens later.
  echo "$token,stratus-admin,stratus-admin,system:masters" >"$dir/tokens.csv"
  local server="https://$api_ip:$api_port"
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
    --bind-address "$api_ip" --advertise-address "$api_ip" --secure-port "$api_port" --insecure-port 0 \
    --tls-cert-file "$dir/pki/apiserver.crt" --tls-private-key-file "$dir/pki/apiserver.key" \
    --client-ca-file "$dir/pki/ca.crt" --token-auth-file "$dir/tokens.csv" \
    --authorization-mode Node,RBAC --anonymous-auth=false \
    --kubelet-client-certificate "$dir/pki/apiserver-kubelet-client.crt" \
    --kubelet-client-key "$dir/pki/apiserver-kubelet-client.key" \
    --kubelet-certificate-authority "$dir/pki/ca.crt" --kubelet-preferred-address-types InternalIP \
    --service-account-issuer https://kubernetes.default.svc \
    --service-account-key-file "$dir/pki/sa.pub" --service-account-signing-key-file "$dir/pki/sa.key" \
    --service-cluster-ip-range "$service_range" --watch-cache=true
  wait_until kube-apiserver 90 curl -fsS --cacert "$dir/pki/ca.crt" -H "Authorization: Bearer $token" \
    "$server/readyz"

  # Without a node, the controllers the tests use; with one, all that run by default (Deployments, ReplicaSets,
  # Endpoints, the node lifecycle that lifts the not-ready taint, volume binding, ...).
  local controllers=garbagecollector,job,namespace,serviceaccount,serviceaccount-token,pvc-protection
  [ "$with_node" != --node ] || controllers='*'
  spawn "$dir" kube-controller-manager "$bin/kube-controller-manager" \
    --kubeconfig "$dir/kubeconfig" --authentication-kubeconfig "$dir/kubeconfig" \
    --authorization-kubeconfig "$dir/kubeconfig" --port 0 --secure-port 0 --leader-elect=false \
    --controllers "$controllers" \
    --service-account-private-key-file "$dir/pki/sa.key" --root-ca-file "$dir/pki/ca.crt"
  # The Job controller needs the default ServiceAccount, which the serviceaccount controller makes.
  wait_until "the default ServiceAccount" 60 curl -fsS --cacert "$dir/pki/ca.crt" \
    -H "Authorization: Bearer $token" "$server/api/v1/namespaces/default/serviceaccounts/default"
  [ "$with_node" != --node ] || bash "$here/kube-node.sh" start "$dir"
  log "running at $server; kubeconfig $dir/kubeconfig"
}

stop() {
  local dir=$1 name status=0
  # The node first, while the API server can still tell its kubelet to stop the Pods.
  bash "$here/kube-node.sh" stop "$dir" || status=$?
  for name in kube-controller-manager kube-apiserver etcd; do
    stop_process "$dir" "$name"
  done
  return "$status"
}

usage() {
  echo "usage: $0 build [--node] | start DIR [--node] | stop DIR" >&2
  exit 2
}

# The one option, --node, or nothing.
node_option() {
  [ -z "$1" ] || [ "$1" = --node ] || usage
}

case "${1:-}" in
  build) node_option "${2:-}" && build "${2:-}" ;;
  start) node_option "${3:-}" && start "${2:?state directory}" "${3:-}" ;;
  stop) stop "${2:?state directory}" ;;
  *) usage ;;
esac
