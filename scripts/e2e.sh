#!/usr/bin/env bash
# End to end on a kind cluster (make e2e): build the image, install the chart, apply manifests/examples, wait for
# the example ingestion of the offline sample source, and read the result through the API server. Without a Docker
# engine, which kind needs to run its nodes as containers, scripts/e2e-node.sh runs on the real test node instead.
#
# Needs docker, kind and curl on PATH; helm and kubectl come from the npm package (scripts/kube-cli-tools.sh).
# STRATUS_E2E_KEEP=1 keeps the cluster for a look afterwards (delete it with `kind delete cluster --name NAME`).
set -euo pipefail

if ! docker info >/dev/null 2>&1; then
  echo ">> no Docker engine answers (docker info failed), which kind needs: end to end on the test node instead"
  exec bash "$(dirname "$0")/e2e-node.sh"
fi
for tool in kind curl; do
  command -v "$tool" >/dev/null || {
    echo "e2e: $tool is required" >&2
    exit 1
  }
done

root=$(cd "$(dirname "$0")/.." && pwd)
tools=$(bash "$root/scripts/kube-cli-tools.sh")
cluster=${STRATUS_E2E_CLUSTER:-stratus-e2e}
image=stratus:e2e
namespace=stratus
port=${STRATUS_E2E_PORT:-18000}
work=$(mktemp -d)
export KUBECONFIG="$work/kubeconfig"
kubectl() { "$tools/kubectl" "$@"; }
helm() { "$tools/helm" "$@"; }
forward_pid=""

cleanup() {
  status=$?
  if [ -n "$forward_pid" ]; then kill "$forward_pid" 2>/dev/null || true; fi
  if [ "$status" -ne 0 ]; then
    echo ">> e2e failed; the operator's and API server's last logs:" >&2
    kubectl -n "$namespace" logs deployment/stratus-operator --tail=50 >&2 || true
    kubectl -n "$namespace" logs deployment/stratus-api-server --tail=50 >&2 || true
  fi
  if [ "${STRATUS_E2E_KEEP:-0}" != 1 ]; then kind delete cluster --name "$cluster" >/dev/null 2>&1 || true; fi
  rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT

echo ">> creating kind cluster $cluster"
kind create cluster --name "$cluster" --kubeconfig "$KUBECONFIG" --wait 120s

echo ">> building and loading $image"
docker build -t "$image" "$root"
kind load docker-image "$image" --name "$cluster"

# The chart's store claim is ReadWriteMany, which kind's default local-path class does not offer. On a one-node
# cluster a hostPath volume is shared by every pod, so the test brings its own volume and claim, owned by the
# image's user (hostPath ignores fsGroup).
docker exec "$cluster-control-plane" sh -c 'mkdir -p /var/lib/stratus-e2e && chown 65532:65532 /var/lib/stratus-e2e'
kubectl create namespace "$namespace"
kubectl apply -f - <<EOF
apiVersion: v1
kind: PersistentVolume
metadata:
  name: stratus-e2e-store
spec:
  capacity: { storage: 5Gi }
  accessModes: [ReadWriteMany]
  storageClassName: ''
  hostPath: { path: /var/lib/stratus-e2e, type: Directory }
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: stratus-e2e-store
  namespace: $namespace
spec:
  accessModes: [ReadWriteMany]
  storageClassName: ''
  volumeName: stratus-e2e-store
  resources: { requests: { storage: 5Gi } }
EOF

echo ">> installing the chart"
helm install stratus "$root/charts/stratus" --namespace "$namespace" --wait --timeout 5m \
  --set image.repository=stratus --set image.tag=e2e --set image.pullPolicy=Never \
  --set store.existingClaim=stratus-e2e-store \
  --set operator.replicas=1 --set apiServer.replicas=1 \
  --set worker.split.periodsPerPart=100

echo ">> applying manifests/examples"
kubectl apply -f "$root/manifests/examples"
kubectl -n default wait --for=condition=Ready --timeout=300s ingestion/sample-2024 dataset/sample
# 366 days at 100 periods per part: the run was an Indexed Job of 4 parts, all succeeded.
[ "$(kubectl -n "$namespace" get jobs -l climate.stratus.dev/run=sample-2024 \
  -o jsonpath='{.items[0].spec.completionMode} {.items[0].status.succeeded}')" = "Indexed 4" ]

echo ">> reading the sample dataset through the API server"
kubectl -n "$namespace" port-forward service/stratus-api-server "$port:80" >"$work/port-forward.log" 2>&1 &
forward_pid=$!
for _ in $(seq 1 30); do
  curl -fsS "http://127.0.0.1:$port/health" >/dev/null 2>&1 && break
  sleep 1
done
curl -fsS "http://127.0.0.1:$port/datasets" | grep -q '"dataset_id":"sample"'
curl -fsS "http://127.0.0.1:$port/zarr/sample/.zmetadata" | grep -q '"zarr_consolidated_format"'
echo "e2e passed: the sample ingestion ran in an Indexed Job of 4 parts and /datasets and /zarr/sample/.zmetadata serve it"
