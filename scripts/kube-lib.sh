# shellcheck shell=bash
# Helpers shared by kube-test-cluster.sh and kube-node.sh (sourced; `who`, set by the sourcing script, names
# it in messages).
# shellcheck disable=SC2154

# The test node's address, on its bridge (scripts/kube-node.sh). With a node the API server listens on it at
# port 443 and the Service range starts at it, so the `kubernetes` Service's cluster IP and port are the API
# server's own: Pods reach it through their in-cluster config with no kube-proxy (docs/kubernetes.md).
# shellcheck disable=SC2034 # read by the scripts that source this file
{
  node_ip=10.244.0.1
  node_service_range=10.244.0.0/28
  node_api_port=443
}

# Loopback ports that were free a moment ago (the kernel picks them; a clash on start fails loudly).
free_ports() {
  python3 -c '
import socket, sys
socks = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in socks: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in socks))' "$1"
}

# A key and a certificate signed by the CA in PKI: issue PKI NAME SUBJECT EXTENSIONS (lines, `\n`-separated).
issue() {
  local pki=$1 name=$2 subject=$3 extensions=$4
  openssl req -newkey rsa:2048 -nodes -subj "$subject" -keyout "$pki/$name.key" -out "$pki/$name.csr" 2>/dev/null
  printf '%b\n' "$extensions" >"$pki/$name.ext"
  openssl x509 -req -in "$pki/$name.csr" -CA "$pki/ca.crt" -CAkey "$pki/ca.key" -CAcreateserial -days 30 \
    -extfile "$pki/$name.ext" -out "$pki/$name.crt" 2>/dev/null
}

# Starts a command detached from this shell, logging to DIR/NAME.log, its pid in DIR/NAME.pid.
spawn() {
  local dir=$1 name=$2
  shift 2
  setsid "$@" >"$dir/$name.log" 2>&1 </dev/null &
  echo $! >"$dir/$name.pid"
}

# Stops the process whose pid DIR/NAME.pid holds: TERM, then KILL after 10 s.
stop_process() {
  local dir=$1 name=$2 pid
  [ -f "$dir/$name.pid" ] || return 0
  pid=$(cat "$dir/$name.pid")
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 1 40); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.25
  done
  kill -9 "$pid" 2>/dev/null || true
  rm -f "$dir/$name.pid"
}

wait_until() {
  local what=$1 seconds=$2
  shift 2
  for _ in $(seq 1 $((seconds * 4))); do
    "$@" >/dev/null 2>&1 && return 0
    sleep 0.25
  done
  echo "$who: $what not ready after ${seconds}s" >&2
  return 1
}
