/**
 * Faults of the installed chart on the test node, one release for the whole file (the image build and the install
 * take minutes): the leading operator Pod deleted (the other replica takes the Lease and runs new work), a worker
 * container killed mid-run and an API server Pod deleted while /zarr is read in a loop where the Service routes
 * (never a wrong byte; no refusal while the Pod is deleted), a configuration change upgraded (the Pods roll onto a
 * new ReplicaSet), a worker over its memory limit (its run error names the OOM kill), and the release uninstalled
 * (the store's claim, its PersistentVolume and the CRDs stay, as charts/stratus/README.md documents).
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runTool } from '../../scripts/kube-cli.ts';
import { eventually } from '../support/eventually.ts';
import { importStratusImage, nodeClient, nodeCtr, removeStratusImage, timed } from '../support/kube-node-client.ts';

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

const applySampleIngestion = (name: string, spec: { start: string; end: string } & Record<string, unknown>) =>
  inDefault.apply({
    apiVersion: 'climate.stratus.dev/v1alpha1',
    kind: 'Ingestion',
    metadata: { name, namespace: 'default' },
    spec: { source: 'sample', datasetId: 'sample', ...spec },
  });

/** The Ingestion's status once its run has ended (succeeded, failed or cancelled), within 10 minutes. */
const ended = (name: string): Promise<{ phase: string; attempt: number; message: string }> =>
  eventually(
    async () => {
      const [phase = '', attempt, message = ''] = (
        await inDefault.kubectl(
          'get',
          `ingestion/${name}`,
          '-o',
          'jsonpath={.status.phase}{"\\t"}{.status.attempt}{"\\t"}{.status.error.message}',
        )
      ).split('\t');
      return ['successful', 'failed', 'cancelled'].includes(phase)
        ? { phase, attempt: Number(attempt), message }
        : undefined;
    },
    { timeoutMs: 600_000, intervalMs: 1000 },
  );

const currentVersion = async (): Promise<string> =>
  (await inDefault.kubectl('get', 'dataset/sample', '-o', 'jsonpath={.status.currentVersion}')).trim();

/**
 * The ready addresses of the API server Service's Endpoints: where the Service routes a request now. Nothing on
 * the node implements cluster IPs (docs/kubernetes.md, "The test node"), so the reads go where kube-proxy would
 * send them: a Pod leaves this list when it is deleted and joins it once its readiness probe passes.
 */
const apiServerUrls = async (): Promise<string[]> =>
  (
    await kubectl(
      'get',
      'endpoints',
      `${release}-api-server`,
      '-o',
      'jsonpath={range .subsets[*].addresses[*]}{.ip}{"\\n"}{end}',
    )
  )
    .split('\n')
    .filter(Boolean)
    .map((ip) => `http://${ip}:8000`);

/** The keys read in a loop: the consolidated metadata and the first chunk of the sample's variable. */
const zarrKeys = ['.zmetadata', 'value/0.0.0'];
const digest = (body: Buffer) => createHash('sha256').update(body).digest('hex');

type Answer = { status: number; body: Buffer } | { refused: string };

/** The answer to a GET, or why there was none (the connection refused, reset or timed out). */
async function get(url: string): Promise<Answer> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
    return { status: response.status, body: Buffer.from(await response.arrayBuffer()) };
  } catch (err) {
    const { name, cause } = err as Error & { cause?: { code?: string } };
    return { refused: cause?.code ?? name };
  }
}

/** The body of a 200 answer, else undefined and why, as `HTTP <status>` or the error's code. */
const bodyOf = (answer: Answer): { body?: Buffer; refused?: string } =>
  'refused' in answer ? answer : answer.status === 200 ? answer : { refused: `HTTP ${answer.status}` };

/** Each key's bytes as version VERSION holds them, read by name (docs/datasets.md, "Addressing a version"). */
async function bytesOf(version: string): Promise<Map<string, string>> {
  const [url] = await apiServerUrls();
  const bytes = new Map<string, string>();
  for (const key of zarrKeys) {
    const { body, refused } = bodyOf(await get(`${url}/zarr/sample@${version}/${key}`));
    expect(refused, `${key} of version ${version}`).toBeUndefined();
    bytes.set(key, digest(body!));
  }
  return bytes;
}

interface Reading {
  /** 200 answers, and those that came after `mark()` */
  answered: number;
  answeredAfterMark: number;
  /** The reads not answered 200, as `URL: why` (see `bodyOf`). */
  refused: string[];
  /** The distinct bodies of 200 answers, as digests, by key. */
  bodies: Map<string, Set<string>>;
}

/**
 * How long the reads keep the addresses they listed before listing them again. A proxy follows a change of the
 * Endpoints after a delay (kube-proxy's next sync of its rules, an ingress controller's reload); the API server's
 * preStop pause is there to cover it.
 */
const proxyLagMs = 1000;

/** Reads `zarrKeys` of the served /zarr/sample where the Service routes them, over and over, until stopped. */
function readInLoop(): { mark(): void; stop(): Promise<Reading> } {
  const reading: Reading = { answered: 0, answeredAfterMark: 0, refused: [], bodies: new Map() };
  let marked = false;
  let stopped = false;
  const loop = (async () => {
    let urls: string[] = [];
    let listedAt = 0;
    while (!stopped) {
      if (Date.now() - listedAt >= proxyLagMs) {
        urls = await apiServerUrls().catch(() => urls);
        listedAt = Date.now();
      }
      for (const url of urls)
        for (const key of zarrKeys) {
          const { body, refused } = bodyOf(await get(`${url}/zarr/sample/${key}`));
          if (!body) {
            reading.refused.push(`${url}/zarr/sample/${key}: ${refused}`);
            continue;
          }
          reading.answered += 1;
          if (marked) reading.answeredAfterMark += 1;
          const seen = reading.bodies.get(key) ?? new Set<string>();
          reading.bodies.set(key, seen.add(digest(body)));
        }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  return {
    mark: () => (marked = true),
    stop: async () => {
      stopped = true;
      await loop;
      return reading;
    },
  };
}

/** The bodies read that are none of the versions' bytes, as `key digest`. */
const wrongBodies = (reading: Reading, versions: Map<string, string>[]): string[] =>
  [...reading.bodies].flatMap(([key, digests]) =>
    [...digests].filter((d) => !versions.some((v) => v.get(key) === d)).map((d) => `${key} ${d}`),
  );

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
    'ingestion/sample-2020-2022',
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

  it('retries an attempt whose worker container was killed with SIGKILL, the served version readable throughout', async () => {
    const before = await currentVersion();
    const beforeBytes = await bytesOf(before);
    const reads = readInLoop();
    // Three years, so that the worker still runs when the kill lands. They lie before the stored 2024, so the run
    // also fetches the gap year 2023 (docs/datasets.md, "Coverage is a union").
    await applySampleIngestion('sample-2020-2022', { start: '2020-01-01', end: '2022-12-31' });
    const container = await timed('worker container running', () =>
      eventually(
        async () => {
          const id = await kubectl(
            'get',
            'pods',
            '-l',
            'climate.stratus.dev/run=sample-2020-2022',
            '-o',
            'jsonpath={.items[0].status.containerStatuses[0].state.running.startedAt} {.items[0].status.containerStatuses[0].containerID}',
          ).catch(() => '');
          const [startedAt, containerId] = id.trim().split(' ');
          return startedAt && containerId ? containerId.replace(/^containerd:\/\//, '') : undefined;
        },
        { timeoutMs: 300_000, intervalMs: 250 },
      ),
    );
    await nodeCtr(clusterDir, 'tasks', 'kill', '--signal', 'SIGKILL', container);
    reads.mark();
    const run = await timed('run ended after the killed attempt', () => ended('sample-2020-2022'));
    const reading = await reads.stop();
    const after = await currentVersion();
    console.log(
      `reads while the worker was killed and retried: ${reading.answered} answered, ${reading.refused.length} refused`,
    );

    // The kill landed in the first attempt, which failed; the run's next attempt wrote the version.
    expect(run.phase).toBe('successful');
    expect(run.attempt).toBeGreaterThan(1);
    expect(after).not.toBe(before);
    expect(reading.answeredAfterMark).toBeGreaterThan(0);
    expect(wrongBodies(reading, [beforeBytes, await bytesOf(after)])).toEqual([]);
  }, 900_000);

  it('answers every read through the Service with the served bytes while an API server Pod is deleted', async () => {
    const served = await bytesOf(await currentVersion());
    const pods = await names('pods', 'api-server');
    const reads = readInLoop();
    await new Promise((resolve) => setTimeout(resolve, 2000));
    await kubectl('delete', 'pod', pods[0]!, '--wait=false');
    reads.mark();
    await timed('deleted API server Pod replaced and Ready', () =>
      eventually(
        async () => {
          const now = await names('pods', 'api-server');
          if (now.includes(pods[0]!) || now.length < pods.length) return undefined;
          const ready = await kubectl(
            'wait',
            '--for=condition=Ready',
            '--timeout=10s',
            ...now.map((pod) => `pod/${pod}`),
          )
            .then(() => true)
            .catch(() => false);
          return ready ? now : undefined;
        },
        { timeoutMs: 600_000, intervalMs: 2000 },
      ),
    );
    const reading = await reads.stop();
    console.log(
      `reads while an API server Pod was deleted: ${reading.answered} answered, ${reading.refused.length} refused`,
    );
    expect(reading.answeredAfterMark).toBeGreaterThan(0);
    // The deleted Pod leaves the Endpoints while its preStop pause keeps it serving, and its replacement joins
    // them once ready: a client of the Service meets no refusal.
    expect(reading.refused).toEqual([]);
    expect(wrongBodies(reading, [served])).toEqual([]);
  }, 900_000);

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
    // The current version holds 2023 already (the worker-kill case filled it): without `overwrite` the run would
    // reuse that version and start no worker. One attempt, so that the run fails with the kill's error.
    await applySampleIngestion('sample-oom', {
      start: '2023-01-01',
      end: '2023-12-31',
      overwrite: true,
      maxAttempts: 1,
    });
    const run = await timed('OOM kill reported', () => ended('sample-oom'));
    expect(run.phase).toBe('failed');
    expect(run.message).toMatch(
      /^the worker pod \S+ was OOMKilled: its container \S+ exceeded its memory limit of 32Mi$/,
    );
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
