/**
 * Faults of the installed chart on the test node, one release for the whole file (the image build and the install
 * take minutes): the leading operator Pod deleted (the other replica takes the Lease and runs new work), a
 * configuration change upgraded (the Pods roll onto a new ReplicaSet), a worker over its memory limit (its run
 * error names the OOM kill), and the release uninstalled (the store's
 * claim, its PersistentVolume and the CRDs stay, as charts/stratus/README.md documents).
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runTool } from '../../scripts/kube-cli.ts';
import { eventually } from '../support/eventually.ts';
import { importStratusImage, nodeClient, removeStratusImage, timed } from '../support/kube-node-client.ts';

const repository = join(import.meta.dirname, '../..');
const image = { repository: 'localhost/stratus', tag: 'kube-node-faults' };
const release = 'stratus';
const namespace = 'stratus-faults';
const storageClass = 'stratus-faults-local';
const volume = 'stratus-faults-store';

const kubeconfig = inject('kubeconfig');
const clusterDir = inject('kubeClusterDir');
const { kubectl, apply } = nodeClient(kubeconfig, namespace);
const inDefault = nodeClient(kubeconfig, 'default');

async function helm(...args: string[]): Promise<string> {
  const result = await runTool('helm', ['--kubeconfig', kubeconfig, '-n', namespace, ...args]);
  if (result.code !== 0) throw new Error(`helm ${args.join(' ')}: ${result.stderr}`);
  return result.stdout;
}

/** Upgrades the release with its values and `values` (helm's `--set` syntax), waiting for the rollout. */
const upgrade = (values: string): Promise<string> =>
  helm(
    'upgrade',
    release,
    join(repository, 'charts/stratus'),
    '--reuse-values',
    '--set',
    values,
    '--wait',
    '--timeout',
    '10m',
  );

const leaseHolder = async (): Promise<string> =>
  (await kubectl('get', 'lease', 'stratus-operator', '-o', 'jsonpath={.spec.holderIdentity}')).trim();

const names = async (kind: string, component: string): Promise<string[]> =>
  (
    await kubectl(
      'get',
      kind,
      '-l',
      `app.kubernetes.io/component=${component}`,
      '-o',
      'jsonpath={range .items[*]}{.metadata.name}{"\\n"}{end}',
    )
  )
    .split('\n')
    .filter(Boolean)
    .sort();

let store: string;
let installed = false;

/** The store on a local PersistentVolume of this node, as the chart's README documents for a single node. */
async function makeStoreVolume(): Promise<void> {
  store = await mkdtemp(join(tmpdir(), 'stratus-faults-store-'));
  await apply({
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name: storageClass },
    provisioner: 'kubernetes.io/no-provisioner',
    volumeBindingMode: 'WaitForFirstConsumer',
  });
  await apply({
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name: volume },
    spec: {
      capacity: { storage: '1Gi' },
      accessModes: ['ReadWriteMany'],
      persistentVolumeReclaimPolicy: 'Retain',
      storageClassName: storageClass,
      local: { path: store },
      nodeAffinity: {
        required: {
          nodeSelectorTerms: [
            { matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['stratus-node'] }] },
          ],
        },
      },
    },
  });
}

async function install(): Promise<void> {
  await importStratusImage(clusterDir, `${image.repository}:${image.tag}`);
  await runTool('kubectl', ['--kubeconfig', kubeconfig, 'create', 'namespace', namespace]);
  await makeStoreVolume();
  // embedded mode's extent, so that the sample ingestion writes the small sample grid, not the world
  const bbox = /^instance\.bbox *= *(.*)$/m.exec(await readFile(join(repository, 'config/stratus.properties'), 'utf8'));
  await timed('chart installed, operator and API server Ready', () =>
    helm(
      'install',
      release,
      join(repository, 'charts/stratus'),
      '--wait',
      '--timeout',
      '10m',
      '--set',
      `image.repository=${image.repository},image.tag=${image.tag},image.pullPolicy=Never`,
      '--set',
      `store.storageClassName=${storageClass},store.size=1Gi`,
      '--set-string',
      `config.instance\\.bbox=${(bbox?.[1] ?? '').replaceAll(',', '\\,')}`,
    ),
  );
  installed = true;
}

async function removeAll(): Promise<void> {
  if (installed) await runTool('helm', ['--kubeconfig', kubeconfig, '-n', namespace, 'uninstall', release, '--wait']);
  // No operator is left to remove finalizers: the cluster goes with the test run.
  await runTool('kubectl', [
    '--kubeconfig',
    kubeconfig,
    '-n',
    'default',
    'delete',
    'ingestion/sample-2024',
    'ingestion/sample-oom',
    'dataset/sample',
    '--wait=false',
  ]);
  await runTool('kubectl', ['--kubeconfig', kubeconfig, 'delete', 'namespace', namespace, '--wait=false']);
  await runTool('kubectl', ['--kubeconfig', kubeconfig, 'delete', `pv/${volume}`, `storageclass/${storageClass}`]);
  await removeStratusImage(`${image.repository}:${image.tag}`).catch(() => undefined);
  if (store) await rm(store, { recursive: true, force: true });
}

describe('the chart on the node, under faults', () => {
  beforeAll(install, 1_200_000);
  afterAll(removeAll, 300_000);

  it('another operator replica leads within 20 s of the leader Pod being deleted, and runs a new Ingestion', async () => {
    const leader = await eventually(async () => (await leaseHolder()) || undefined, {
      timeoutMs: 60_000,
      intervalMs: 500,
    });
    await kubectl('delete', 'pod', leader, '--wait=false');
    const deleted = Date.now();
    const successor = await eventually(
      async () => {
        const holder = await leaseHolder();
        return holder && holder !== leader ? holder : undefined;
      },
      { timeoutMs: 20_000, intervalMs: 500 },
    );
    console.log(`${successor} leads ${((Date.now() - deleted) / 1000).toFixed(1)} s after ${leader} was deleted`);

    for (const example of ['dataset-sample.yaml', 'ingestion-sample.yaml']) {
      const applied = await runTool('kubectl', [
        '--kubeconfig',
        kubeconfig,
        'apply',
        '-f',
        join(repository, 'manifests/examples', example),
      ]);
      expect(applied.code, applied.stderr).toBe(0);
    }
    await timed('Ingestion applied after the handover Ready', () =>
      inDefault.kubectl('wait', '--for=condition=Ready', '--timeout=10m', 'ingestion/sample-2024'),
    );
  }, 720_000);

  it('an upgrade that changes the configuration rolls the Pods onto new ReplicaSets', async () => {
    const before = { pods: await names('pods', 'api-server'), sets: await names('replicasets', 'api-server') };
    await timed('upgrade rolled out', () => upgrade('config.logging\\.level\\.api-server=DEBUG'));
    const after = await eventually(
      async () => {
        const pods = await names('pods', 'api-server');
        return pods.some((pod) => before.pods.includes(pod)) ? undefined : pods;
      },
      { timeoutMs: 120_000, intervalMs: 1000 },
    );
    expect(after).toHaveLength(before.pods.length);
    const sets = await names('replicasets', 'api-server');
    expect(sets.filter((set) => !before.sets.includes(set))).toHaveLength(1);
  }, 720_000);

  it('reports a worker Pod killed over its memory limit as a run error naming OOMKilled and the limit', async () => {
    await timed('upgraded to 32Mi workers', () =>
      upgrade('worker.resources.requests.memory=32Mi,worker.resources.limits.memory=32Mi'),
    );
    await inDefault.apply({
      apiVersion: 'climate.stratus.dev/v1alpha1',
      kind: 'Ingestion',
      metadata: { name: 'sample-oom', namespace: 'default' },
      spec: { source: 'sample', datasetId: 'sample', start: '2023-01-01', end: '2023-12-31' },
    });
    const message = await timed('OOM kill reported', () =>
      eventually(
        async () =>
          (await inDefault.kubectl('get', 'ingestion/sample-oom', '-o', 'jsonpath={.status.error.message}')).trim() ||
          undefined,
        { timeoutMs: 300_000, intervalMs: 2000 },
      ),
    );
    expect(message).toMatch(/^the worker pod \S+ was OOMKilled: its container \S+ exceeded its memory limit of 32Mi$/);
  }, 720_000);

  it('uninstalling leaves the store claim, its PersistentVolume and the CRDs', async () => {
    const claim = (await kubectl('get', 'pvc', '-o', 'jsonpath={.items[0].metadata.name}')).trim();
    expect(claim).not.toBe('');
    await timed('uninstalled', () => helm('uninstall', release, '--wait'));
    installed = false;
    expect((await kubectl('get', 'pvc', claim, '-o', 'jsonpath={.spec.volumeName}')).trim()).toBe(volume);
    expect((await kubectl('get', `pv/${volume}`, '-o', 'jsonpath={.status.phase}')).trim()).toBe('Bound');
    const crds = await kubectl('get', 'crds', '-o', 'jsonpath={.items[*].metadata.name}');
    expect(crds.split(' ')).toEqual(
      expect.arrayContaining(['datasets.climate.stratus.dev', 'ingestions.climate.stratus.dev']),
    );
  }, 300_000);
});
