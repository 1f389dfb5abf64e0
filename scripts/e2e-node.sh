#!/usr/bin/env bash
# End to end on the real test node, for machines without a Docker engine (make e2e runs it when `docker info`
# fails): the control plane and one kubelet node of scripts/kube-test-cluster.sh, Stratus's image built offline
# and imported into the node's containerd, the chart installed on a local PersistentVolume, manifests/examples
# applied, and each step printed with its time:
#   - the operator and API server Pods Ready through their real probes;
#   - the sample Ingestion run as a worker Pod, its Dataset Ready;
#   - /zarr/sample read by Python xarray through `kubectl port-forward`, equal to what embedded mode serves for the
#     same ingestion;
#   - the example ProcessingJob run as a worker Pod, its GTiff opened by GDAL;
#   - a Delivery of the AnalyticsTable's values run as a worker Pod against the DHIS2-compatible test server
#     (test/support/dhis2-server.ts) on the machine, which Pods reach at the node's bridge address;
#   - the example AnalyticsTable built by a worker Pod, Ready;
#   - a split ingestion run (1.20 has no Indexed Jobs: its parts run in one plain Job's Pod);
#   - a Schedule firing once, its sync run as a worker Pod;
#   - every Stratus Pod scheduled by kube-scheduler onto the node (kubectl get pods -o wide).
# Needs root (containerd, runc, CNI), like the node itself. STRATUS_E2E_KEEP=1 keeps the cluster and prints how to
# stop it.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
tools=$(bash "$root/scripts/kube-cli-tools.sh")
bash "$root/scripts/install-interop-tools.sh" >/dev/null
work=$(mktemp -d /tmp/stratus-e2e-node.XXXXXX)
cluster="$work/cluster"
image=localhost/stratus:e2e
namespace=stratus
port=${STRATUS_E2E_PORT:-18000}
dhis2_port=${STRATUS_E2E_DHIS2_PORT:-18089}
embedded_port=${STRATUS_E2E_EMBEDDED_PORT:-18001}
export KUBECONFIG="$cluster/kubeconfig"
kubectl() { "$tools/kubectl" "$@"; }
helm() { "$tools/helm" "$@"; }
pids=()
started=$(date +%s)

step() {
  local now
  now=$(date +%s)
  echo ">> [$((now - started)) s] $*"
}

cleanup() {
  status=$?
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  if [ "$status" -ne 0 ] && [ -f "$KUBECONFIG" ]; then
    echo ">> e2e failed; Pods, runs and the operator's last logs:" >&2
    kubectl get pods -A -o wide >&2 || true
    kubectl get ingestions,datasets,processingjobs -A >&2 || true
    kubectl -n "$namespace" logs deployment/stratus-operator --tail=30 >&2 || true
  fi
  if [ "${STRATUS_E2E_KEEP:-0}" = 1 ]; then
    echo ">> kept: KUBECONFIG=$KUBECONFIG; stop with: bash scripts/kube-test-cluster.sh stop $cluster"
  else
    bash "$root/scripts/kube-test-cluster.sh" stop "$cluster" >/dev/null 2>&1 || true
    buildah --storage-driver vfs rmi "$image" >/dev/null 2>&1 || true
    rm -rf "$work"
  fi
  exit "$status"
}
trap cleanup EXIT

step "starting the control plane and the node"
bash "$root/scripts/kube-test-cluster.sh" start "$cluster" --node

step "building $image offline and importing it into the node's containerd"
bash "$root/scripts/build-image-offline.sh" "$image" >"$work/image-build.log" 2>&1
buildah --storage-driver vfs push -q "$image" "oci-archive:$work/stratus.oci.tar:$image"
bash "$root/scripts/kube-node.sh" import "$cluster" "$work/stratus.oci.tar"
rm -f "$work/stratus.oci.tar"

# A single node's data volume, as the chart's README documents: a local PersistentVolume of a StorageClass with no
# provisioner, bound when the first Pod using the claim is scheduled. The kubelet gives it the chart's fsGroup.
step "making the store's local PersistentVolume"
mkdir -p "$work/store"
kubectl apply -f - <<EOF
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: { name: stratus-local }
provisioner: kubernetes.io/no-provisioner
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: v1
kind: PersistentVolume
metadata: { name: stratus-store }
spec:
  capacity: { storage: 10Gi }
  accessModes: [ReadWriteMany]
  persistentVolumeReclaimPolicy: Retain
  storageClassName: stratus-local
  local: { path: $work/store }
  nodeAffinity:
    required:
      nodeSelectorTerms:
        - matchExpressions: [{ key: kubernetes.io/hostname, operator: In, values: [stratus-node] }]
EOF

# The instance's extent is embedded mode's (config/stratus.properties), so that both ingest the same sample grid;
# the chart's default is the whole world.
bbox=$(sed -n 's/^instance\.bbox *= *//p' "$root/config/stratus.properties")
printf 'config:\n  instance.bbox: "%s"\n' "$bbox" >"$work/values.yaml"

step "installing the chart (operator and API server Ready through their probes)"
helm install stratus "$root/charts/stratus" --namespace "$namespace" --create-namespace --wait --timeout 10m \
  --set image.repository=localhost/stratus --set image.tag=e2e --set image.pullPolicy=Never \
  --set store.storageClassName=stratus-local --set store.size=10Gi --values "$work/values.yaml"

step "applying manifests/examples"
kubectl apply -f "$root/manifests/examples" >/dev/null
kubectl -n default wait --for=condition=Ready --timeout=20m ingestion/sample-2024 dataset/sample
step "the sample Ingestion ran as a worker Pod; Dataset sample is Ready"
kubectl -n default wait --for=condition=Ready --timeout=20m analyticstable/sample-districts-monthly
step "the example AnalyticsTable sample-districts-monthly is Ready"

step "starting embedded mode on the same examples, for the values to compare"
node "$root/cmd/stratus.ts" embedded --data-dir "$work/embedded" --manifests "$root/manifests/data-sources" \
  --manifests "$root/manifests/examples" --port "$embedded_port" >"$work/embedded.log" 2>&1 &
pids+=($!)
kubectl -n "$namespace" port-forward service/stratus-api-server "$port:80" >"$work/port-forward.log" 2>&1 &
pids+=($!)
for url in "http://127.0.0.1:$port/zarr/sample/.zmetadata" "http://127.0.0.1:$embedded_port/zarr/sample/.zmetadata"; do
  for _ in $(seq 1 300); do
    curl -fsS --max-time 5 "$url" >/dev/null 2>&1 && break
    sleep 1
  done
  curl -fsS --max-time 5 "$url" >/dev/null
done

step "reading /zarr/sample with xarray through the port-forward and from embedded mode"
/usr/bin/python3 - "http://127.0.0.1:$port/zarr/sample" "http://127.0.0.1:$embedded_port/zarr/sample" <<'EOF'
import sys
import numpy as np
import xarray as xr
node, embedded = (xr.open_zarr(url, consolidated=True) for url in sys.argv[1:3])
variable = next(iter(node.data_vars))
a, b = node[variable].values, embedded[variable].values
assert a.shape == b.shape and a.shape[0] == 366, (a.shape, b.shape)
assert np.array_equal(a, b, equal_nan=True), 'the node and embedded mode serve different values'
print(f'   {variable} {a.shape}: equal to embedded mode, {int(np.isfinite(a).sum())} values')
EOF

# Queued as POST /jobs/{id}/results queues a job.
kubectl -n default patch processingjob/sample-mean-january --type=merge \
  -p "{\"spec\":{\"queuedAt\":\"$(date -u +%Y-%m-%dT%H:%M:%SZ)\"}}" >/dev/null
kubectl -n default wait --for=jsonpath='{.status.phase}'=finished --timeout=10m processingjob/sample-mean-january
step "the example ProcessingJob ran as a worker Pod"
tiff=$(find "$work/store/jobs" -name '*.tif*' | head -n 1)
[ -n "$tiff" ] || {
  echo "e2e: the ProcessingJob wrote no GeoTIFF under $work/store/jobs" >&2
  exit 1
}
gdalinfo "$tiff" | grep -E '^(Driver|Size is)'

# The Pods reach the machine at the node's address on its bridge (docs/kubernetes.md, "The test node").
node "$root/test/support/dhis2-server.ts" --host 10.244.0.1 --port "$dhis2_port" >"$work/dhis2.log" 2>&1 &
pids+=($!)
kubectl apply -f - >/dev/null <<EOF
apiVersion: climate.stratus.dev/v1alpha1
kind: Export
metadata: { name: e2e-dhis2, namespace: default }
spec: { target: { type: dhis2-data-value-sets, url: 'http://10.244.0.1:$dhis2_port' } }
EOF
step "delivering the AnalyticsTable's January 2024 means to the DHIS2-compatible test server on the machine"
request='{"table": {"name": "sample-districts-monthly", "statistic": "mean", "period_type": "monthly", "periods": ["202401"]}}'
for _ in $(seq 1 30); do # until the API server has seen the Export
  answer=$(curl -fsS --max-time 10 -X POST "http://127.0.0.1:$port/exports/e2e-dhis2" \
    -H 'Content-Type: application/json' -d "$request") && break
  sleep 1
done
delivery=$(printf '%s' "$answer" | /usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["delivery_job_id"])')
kubectl -n default wait --for=condition=Ready --timeout=10m "delivery/$delivery"
kubectl -n default get delivery "$delivery" \
  -o jsonpath='   {.status.report.values} values, {.status.report.importCount.imported} imported by the test server{"\n"}'
step "the Delivery $delivery ran as a worker Pod"

# Three years of 366 periods a part (the chart's worker.split) into a new dataset. Kubernetes 1.20 has no Indexed
# Jobs (1.22): the runner gives the split attempt one plain Job, whose one Pod writes all three parts' periods.
step "a split ingestion: 2020 to 2022 of the sample source into the new dataset sample-split"
sed 's/^  name: sample$/  name: sample-split/' "$root/manifests/examples/dataset-sample.yaml" | kubectl apply -f - >/dev/null
kubectl apply -f - >/dev/null <<EOF
apiVersion: climate.stratus.dev/v1alpha1
kind: Ingestion
metadata: { name: sample-split, namespace: default }
spec: { source: sample, datasetId: sample-split, start: '2020-01-01', end: '2022-12-31' }
EOF
kubectl -n default wait --for=condition=Ready --timeout=20m ingestion/sample-split dataset/sample-split
split_job=$(kubectl -n "$namespace" get jobs -l climate.stratus.dev/run=sample-split -o jsonpath='{.items[0].metadata.name}')
split_pods=$(kubectl -n "$namespace" get pods -l "job-name=$split_job" -o name | wc -l)
kubectl -n "$namespace" get job "$split_job" \
  -o jsonpath='   Job {.metadata.name}: completions {.spec.completions}, completionMode "{.spec.completionMode}"{"\n"}'
[ "$split_pods" -eq 1 ] || {
  echo "e2e: the split attempt's Job $split_job has $split_pods Pods, not one" >&2
  exit 1
}
step "the split ingestion ran its parts in one worker Pod"

# Every minute, until its first check starts a sync of dataset sample; then disabled, so that it fires once.
step "a Schedule of dataset sample checking every minute"
kubectl apply -f - >/dev/null <<EOF
apiVersion: climate.stratus.dev/v1alpha1
kind: Schedule
metadata: { name: sample-every-minute, namespace: default }
spec: { datasetId: sample, cron: '* * * * *', timezone: UTC, maxAttempts: 1 }
EOF
kubectl -n default wait --for=jsonpath='{.status.lastOutcome}'=submitted --timeout=5m schedule/sample-every-minute
kubectl -n default patch schedule/sample-every-minute --type=merge -p '{"spec":{"enabled":false}}' >/dev/null
sync=$(kubectl -n default get schedule/sample-every-minute -o jsonpath='{.status.lastJobId}')
kubectl -n default wait --for=condition=Ready --timeout=20m "ingestion/$sync"
step "the Schedule fired: its sync run $sync ran as a worker Pod and is Ready"

step "every Stratus Pod ran on the node, scheduled by kube-scheduler"
kubectl get pods -n "$namespace" -o wide
if kubectl get pods -n "$namespace" -o jsonpath='{range .items[*]}{.spec.nodeName}{"\n"}{end}' | grep -qv '^stratus-node$'; then
  echo "e2e: a Pod ran elsewhere than on stratus-node" >&2
  exit 1
fi
echo "e2e passed on the node in $(($(date +%s) - started)) s"
