#!/usr/bin/env bash
# One real node for the test cluster of scripts/kube-test-cluster.sh (docs/kubernetes.md, "The test node"):
# containerd 1.6 and runc from Debian with their own config, root, state and socket under the cluster's
# directory; a pause image built from Kubernetes' build/pause source; CNI from Debian's plugins on a private
# bridge that nothing forwards off this machine; kube-scheduler and kubelet 1.20 built from the same Debian
# source package as the control plane.
#
#   kube-node.sh build             build kube-scheduler, kubelet, kube-proxy and the pause image once (cached)
#   kube-node.sh network DIR       make the node's bridge and address (before the control plane starts)
#   kube-node.sh start DIR         start the node beside the control plane running in DIR; waits until Ready
#   kube-node.sh import DIR TAR    import an OCI image archive into the node's containerd
#   kube-node.sh ctr DIR ARGS...   run ctr against the node's containerd, in Kubernetes' namespace k8s.io
#   kube-node.sh stop DIR          stop the node; fails naming whatever it left behind
#
# kube-test-cluster.sh calls these for `build --node` and `start DIR --node`, and `stop DIR` stops a node first.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${STRATUS_KUBE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/stratus/kubernetes-1.20}
# Beside the control plane's bin/, so machines that only run the control plane keep their cache as it is.
node_bin="$cache/node-bin"
node_name=stratus-node
# The node's network: a bridge on a private range, its gateway address the node's own address. IP forwarding
# stays off (the bridge plugin is not the gateway, so it does not turn it on) and nothing masquerades, so a
# Pod reaches this machine's addresses and other Pods, never another machine.
bridge=stratusbr0
# Pod addresses start after the Service range (node_service_range, kube-lib.sh), whose cluster IPs the node's
# address (node_ip) leads.
pod_subnet=10.244.0.0/24
pod_range_start=10.244.0.16
pause_image=localhost/stratus/pause:3.4

who=kube-node
# shellcheck source=scripts/kube-lib.sh
. "$here/kube-lib.sh"
log() { echo ">> $who: $*" >&2; }

build() {
  bash "$here/apt-install.sh" "the Kubernetes test node" containerd runc containernetworking-plugins gcc libc6-dev
  [ -x "$node_bin/kubelet" ] && [ -f "$node_bin/pause.oci.tar" ] && return 0
  mkdir -p "$cache"
  exec 8>"$cache/.node-build.lock"
  flock 8
  if [ ! -x "$node_bin/kubelet" ]; then
    KUBE_SOURCE_KEEP=build/pause bash "$here/kube-source-build.sh" "$node_bin" kube-scheduler kubelet kube-proxy
  fi
  if [ ! -f "$node_bin/pause.oci.tar" ]; then
    local rootfs
    rootfs=$(mktemp -d)
    # As build/pause/Makefile builds it: a static C program that reaps zombies and sleeps.
    gcc -Os -Wall -Werror -static -DVERSION=v3.4-stratus -o "$rootfs/pause" "$node_bin/pause/linux/pause.c"
    strip "$rootfs/pause"
    bash "$here/oci-image.sh" "$pause_image" "$rootfs" "$node_bin/pause.oci.tar.tmp" /pause
    mv "$node_bin/pause.oci.tar.tmp" "$node_bin/pause.oci.tar"
    rm -rf "$rootfs"
  fi
}

containerd_address() { echo "$1/node/containerd/containerd.sock"; }

ctr_() {
  local dir=$1
  shift
  ctr --address "$(containerd_address "$dir")" --namespace k8s.io "$@"
}

import() {
  local dir=$1 archive=$2
  ctr_ "$dir" images import "$archive" >/dev/null
}

# The bridge carries the node's address before the control plane starts: the API server listens on it (so that
# Pods reach it), the kubelet registers with it and serves on it.
network() {
  local dir
  dir=$(cd "$1" && pwd)
  if ip link show "$bridge" >/dev/null 2>&1; then
    echo "kube-node: the interface $bridge exists: another node runs on this machine, or one was not stopped" >&2
    return 1
  fi
  mkdir -p "$dir/node"
  ip link add "$bridge" type bridge
  ip addr add "$node_ip/${pod_subnet#*/}" dev "$bridge"
  ip link set "$bridge" up
}

start() {
  local dir
  dir=$(cd "$1" && pwd)
  [ -f "$dir/kubeconfig" ] || {
    echo "kube-node: no control plane in $dir (start it with kube-test-cluster.sh start DIR --node)" >&2
    return 1
  }
  build
  ip link show "$bridge" >/dev/null 2>&1 || {
    echo "kube-node: no interface $bridge (kube-test-cluster.sh start DIR --node makes it first)" >&2
    return 1
  }
  local node="$dir/node" pki="$dir/pki"
  mkdir -p "$node"/{containerd,cni/net.d,cni/ipam,kubelet,kubelet-plugins}
  local kubelet_port healthz_port stream_port
  read -r kubelet_port healthz_port stream_port <<<"$(free_ports 3)"

  issue "$pki" kubelet-client "/O=system:nodes/CN=system:node:$node_name" 'extendedKeyUsage=clientAuth'
  issue "$pki" kubelet-serving "/CN=$node_name" \
    "subjectAltName=IP:$node_ip,IP:127.0.0.1,DNS:$node_name\nextendedKeyUsage=serverAuth"
  local server
  server=$(sed -n 's/^ *server: //p' "$dir/kubeconfig")
  cat >"$node/kubelet.kubeconfig" <<YAML
apiVersion: v1
kind: Config
clusters:
  - name: stratus-test
    cluster: { server: "$server", certificate-authority: "$pki/ca.crt" }
users:
  - name: $node_name
    user: { client-certificate: "$pki/kubelet-client.crt", client-key: "$pki/kubelet-client.key" }
contexts:
  - name: node
    context: { cluster: stratus-test, user: $node_name }
current-context: node
YAML

  cat >"$node/cni/net.d/10-stratus.conflist" <<JSON
{
  "cniVersion": "0.4.0",
  "name": "stratus",
  "plugins": [
    {
      "type": "bridge",
      "bridge": "$bridge",
      "isGateway": false,
      "ipMasq": false,
      "hairpinMode": true,
      "ipam": {
        "type": "host-local",
        "dataDir": "$node/cni/ipam",
        "ranges": [[{ "subnet": "$pod_subnet", "rangeStart": "$pod_range_start", "gateway": "$node_ip" }]],
        "routes": [{ "dst": "0.0.0.0/0" }]
      }
    }
  ]
}
JSON

  local sock
  sock=$(containerd_address "$dir")
  cat >"$node/containerd/config.toml" <<TOML
version = 2
root = "$node/containerd/root"
state = "$node/containerd/state"
disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs",
  "io.containerd.snapshotter.v1.devmapper", "io.containerd.snapshotter.v1.zfs"]

[grpc]
  address = "$sock"

[plugins."io.containerd.internal.v1.opt"]
  path = "$node/containerd/opt"

[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$pause_image"
  stream_server_address = "127.0.0.1"
  stream_server_port = "$stream_port"
  # Pod network namespaces are mounted under the state directory, not /var/run/netns, so that they are found
  # and unmounted with the node's other mounts.
  netns_mounts_under_state_dir = true
  # Where the machine withholds CAP_SYS_RESOURCE (as this sandbox does), runc cannot give a sandbox the
  # kubelet's oom_score_adj of -998: it is raised to containerd's own score instead.
  restrict_oom_score_adj = true
  enable_selinux = false
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$node/cni/net.d"
TOML
  spawn "$node" containerd containerd --config "$node/containerd/config.toml"
  wait_until containerd 30 ctr --address "$sock" version
  import "$dir" "$node_bin/pause.oci.tar"

  # Images are built here and imported, never pulled: no garbage collection may remove one.
  cat >"$node/kubelet.yaml" <<YAML
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: $node_ip
port: $kubelet_port
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: $healthz_port
tlsCertFile: $pki/kubelet-serving.crt
tlsPrivateKeyFile: $pki/kubelet-serving.key
authentication:
  anonymous: { enabled: false }
  webhook: { enabled: true }
  x509: { clientCAFile: $pki/ca.crt }
authorization: { mode: Webhook }
cgroupDriver: cgroupfs
failSwapOn: false
makeIPTablesUtilChains: false
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
evictionHard: { memory.available: 100Mi, nodefs.available: 1%, imagefs.available: 1%, nodefs.inodesFree: 1% }
clusterDomain: cluster.local
resolvConf: ""
volumePluginDir: $node/kubelet-plugins
serializeImagePulls: false
YAML
  spawn "$node" kubelet "$node_bin/kubelet" --config "$node/kubelet.yaml" --kubeconfig "$node/kubelet.kubeconfig" \
    --root-dir "$node/kubelet" --cert-dir "$node/kubelet/pki" --hostname-override "$node_name" --node-ip "$node_ip" \
    --container-runtime remote --container-runtime-endpoint "unix://$sock" --image-service-endpoint "unix://$sock"
  spawn "$node" kube-scheduler "$node_bin/kube-scheduler" --kubeconfig "$dir/kubeconfig" \
    --authentication-kubeconfig "$dir/kubeconfig" --authorization-kubeconfig "$dir/kubeconfig" \
    --leader-elect=false --port 0 --secure-port 0
  wait_until "the node $node_name" 120 node_ready "$dir"
  log "node $node_name Ready at $node_ip (containerd $sock)"
}

# GET PATH on the API server as the cluster's admin (the token and CA of DIR/kubeconfig).
api() {
  local dir=$1 path=$2
  shift 2
  curl -fsS --cacert "$dir/pki/ca.crt" -H "Authorization: Bearer $(sed -n 's/^ *token: //p' "$dir/kubeconfig")" \
    "$@" "$(sed -n 's/^ *server: //p' "$dir/kubeconfig")$path"
}

node_ready() {
  api "$1" "/api/v1/nodes/$node_name" | python3 -c '
import json, sys
conditions = json.load(sys.stdin)["status"].get("conditions", [])
sys.exit(0 if any(c["type"] == "Ready" and c["status"] == "True" for c in conditions) else 1)'
}

# Pids of the processes whose command line names PATTERN (a path of this node, so never another's process).
pids_naming() {
  local pattern=$1 pid
  for pid in /proc/[0-9]*; do
    { tr '\0' ' ' <"$pid/cmdline"; } 2>/dev/null | grep -qF -- "$pattern" && echo "${pid#/proc/}"
  done
  return 0
}

# Mount points under DIR, deepest first.
mounts_under() {
  awk -v root="$1/" 'index($2, root) == 1 { print $2 }' /proc/mounts | tac
}

stop() {
  local dir node sock
  [ -d "$1/node" ] || return 0
  dir=$(cd "$1" && pwd)
  node="$dir/node"
  sock=$(containerd_address "$dir")
  stop_process "$node" kube-scheduler
  # As a drain does: the kubelet stops the Pods it runs (containers, sandboxes, their networks and volumes).
  local pods=() namespace name uid
  if [ -f "$node/kubelet.pid" ] && kill -0 "$(cat "$node/kubelet.pid")" 2>/dev/null; then
    mapfile -t pods < <(api "$dir" "/api/v1/pods?fieldSelector=spec.nodeName%3D$node_name" | python3 -c '
import json, sys
for pod in json.load(sys.stdin)["items"]:
    print(pod["metadata"]["namespace"], pod["metadata"]["name"], pod["metadata"]["uid"])')
    for pod in "${pods[@]}"; do
      read -r namespace name uid <<<"$pod"
      api "$dir" "/api/v1/namespaces/$namespace/pods/$name?gracePeriodSeconds=1" -X DELETE >/dev/null || true
    done
    wait_until "the Pods' teardown" 60 no_running_tasks "$dir" || true
  fi
  stop_process "$node" kubelet
  # The kubelet would remove their log directories (a fixed place in 1.20) later; it has stopped.
  for pod in "${pods[@]}"; do
    read -r namespace name uid <<<"$pod"
    rm -rf "/var/log/pods/${namespace}_${name}_$uid"
  done
  # Whatever the kubelet left: kill every container.
  if [ -S "$sock" ]; then
    local task
    for task in $(ctr_ "$dir" tasks ls -q 2>/dev/null); do
      ctr_ "$dir" tasks kill -a -s SIGKILL "$task" >/dev/null 2>&1 || true
    done
    wait_until "the killed containers" 20 no_running_tasks "$dir" || true
    for task in $(ctr_ "$dir" tasks ls -q 2>/dev/null); do
      ctr_ "$dir" tasks delete -f "$task" >/dev/null 2>&1 || true
    done
  fi
  stop_process "$node" containerd
  local pid
  for pid in $(pids_naming "$sock"); do kill -9 "$pid" 2>/dev/null || true; done
  local point
  while read -r point; do
    umount "$point" 2>/dev/null || umount -l "$point" || true
  done < <(mounts_under "$dir")
  ip link del "$bridge" 2>/dev/null || true
  # The kubelet's QoS cgroups (cgroupfs driver, cgroup v1), empty once no container runs.
  local controller
  for controller in /sys/fs/cgroup/*/kubepods; do
    [ -d "$controller" ] && find "$controller" -depth -type d -exec rmdir {} \; 2>/dev/null
  done
  leftovers "$dir"
}

no_running_tasks() {
  [ -z "$(ctr_ "$1" tasks ls -q 2>/dev/null)" ]
}

# Fails naming any process, mount, interface or cgroup of the node that is still there.
leftovers() {
  local dir=$1 found=()
  local pids mounts
  pids=$(pids_naming "$dir/node" | tr '\n' ' ')
  [ -z "$pids" ] || found+=("processes $pids")
  mounts=$(mounts_under "$dir" | tr '\n' ' ')
  [ -z "$mounts" ] || found+=("mounts $mounts")
  ! ip link show "$bridge" >/dev/null 2>&1 || found+=("interface $bridge")
  ! ls -d /sys/fs/cgroup/*/kubepods >/dev/null 2>&1 || found+=("cgroups /sys/fs/cgroup/*/kubepods")
  [ ${#found[@]} -eq 0 ] && return 0
  echo "kube-node: stop left behind: ${found[*]}" >&2
  return 1
}

case "${1:-}" in
  build) build ;;
  network) network "${2:?state directory}" ;;
  start) start "${2:?state directory}" ;;
  import) import "${2:?state directory}" "${3:?OCI image archive}" ;;
  ctr) ctr_ "${2:?state directory}" "${@:3}" ;;
  stop) stop "${2:?state directory}" ;;
  *)
    echo "usage: $0 build | network DIR | start DIR | import DIR ARCHIVE | ctr DIR ARGS... | stop DIR" >&2
    exit 2
    ;;
esac
