/**
 * Kubernetes mode end to end on the test control plane, with the chart's own ServiceAccounts and RBAC: the
 * operator (in process, as `stratus operator` runs it, with the environment the chart gives its pod and its
 * ServiceAccount's token) turns Ingestions into worker Jobs in the release namespace; the test plays the kubelet
 * for the Job controller's pods, running the worker with the worker ServiceAccount's token; the runs and their
 * Datasets reach Ready; deleting a run removes its Job, by the garbage collector in the release namespace and by
 * the operator for a run of another namespace. A batch job (ProcessingJob) runs the same way, and a separate API
 * server serves its results; a delivery of an export (Delivery) too, with its credentials from a Secret.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { parse } from 'yaml';
import { eventKind, jobKind, namespaceKind } from '../../core/cluster/builtin-kinds.ts';
import { isApiError } from '../../core/cluster/errors.ts';
import { openKubernetesCluster } from '../../core/cluster/kubernetes/index.ts';
import type { KubeObject } from '../../core/cluster/objects.ts';
import { dataSourceKind } from '../../core/resources/data-source/schema.ts';
import { datasetKind, type Dataset } from '../../core/resources/dataset/schema.ts';
import { featureCollectionKind, type FeatureCollection } from '../../core/resources/feature-collection/schema.ts';
import { datasetIdOf } from '../../core/resources/ingestion/run.ts';
import { ingestionKind, type Ingestion } from '../../core/resources/ingestion/schema.ts';
import { processingJobKind, type ProcessingJob } from '../../core/resources/processing-job/schema.ts';
import { exportKind } from '../../core/resources/export/schema.ts';
import { secretKind } from '../../core/resources/secret.ts';
import { jobRunPath } from '../../core/stores/layout.ts';
import { startDhis2Server, valueKey } from '../support/dhis2-server.ts';
import { API_VERSION, validateObject } from '../../core/resources/registry.ts';
import { workerJobName, type BatchJob } from '../../operator/jobs/kubernetes/job-manifest.ts';
import { runKubernetesApiServer } from '../../cmd/api-server.ts';
import { operatorEnv } from '../../cmd/kubernetes-env.ts';
import { runKubernetesOperator, type RunningKubernetesOperator } from '../../cmd/operator.ts';
import { runTool } from '../../scripts/kube-cli.ts';
import { eventually } from '../support/eventually.ts';
import { kubeconfigAs } from '../support/kube-service-account.ts';
import { markFailed, markSucceeded, podOfJob, runContainer } from '../support/played-kubelet.ts';
import { renderChart } from '../support/stratus-chart.ts';

const REPOSITORY = resolve(import.meta.dirname, '../..');
const rbacKinds = new Set(['ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding']);

type Deployment = KubeObject<{ template: { spec: { containers: { env: { name: string; value?: string }[] }[] } } }>;

describe('Ingestions, batch jobs and deliveries on Kubernetes run as worker Jobs, under the chart RBAC', () => {
  const adminKubeconfig = inject('kubeconfig');
  const admin = openKubernetesCluster({ kubeconfig: adminKubeconfig });
  const release = `jobs-${Date.now().toString(36)}`;
  const releaseNamespace = `${release}-system`;
  const workNamespace = `${release}-work`;
  let storageRoot: string;
  let workerKubeconfig: string;
  let operator: RunningKubernetesOperator;

  /** The `sample` DataSource, which needs no credentials, in a namespace. */
  async function sampleSource(namespace: string): Promise<void> {
    const sample = parse(await readFile(join(REPOSITORY, 'manifests/data-sources/sample.yaml'), 'utf8')) as KubeObject;
    await admin.create(dataSourceKind, { ...sample, metadata: { name: 'sample', namespace } });
  }

  /** An Ingestion as the API would store it: through its schema, so that defaults are set. */
  function ingestion(name: string, namespace: string, datasetId: string): Ingestion {
    const validated = validateObject({
      apiVersion: API_VERSION,
      kind: 'Ingestion',
      metadata: { name, namespace },
      spec: { source: 'sample', datasetId, start: '2024-01-01', end: '2024-01-03' },
    });
    if (!validated.ok) throw new Error(JSON.stringify(validated.issues));
    return validated.object as Ingestion;
  }

  /** Plays the kubelet for the Job's pod: runs the worker as the worker ServiceAccount, then reports the phase. */
  async function runPodOf(jobName: string): Promise<void> {
    const pod = await podOfJob(admin, releaseNamespace, jobName);
    expect(await runContainer(workerKubeconfig, pod.spec!)).toBe(0);
    await markSucceeded(admin, pod);
  }

  /** The run once successful, and the operator's Event saying so (its RBAC on Events is exercised too). */
  async function successful(name: string, namespace: string): Promise<Ingestion> {
    const run = await eventually(
      async () => {
        const current = await admin.get<Ingestion>(ingestionKind, name, namespace);
        return current?.status?.phase === 'successful' ? current : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    await eventually(async () => {
      const { items } = await admin.list<KubeObject & { reason?: string; regarding?: { uid?: string } }>(eventKind, {
        namespace,
      });
      return items.some((e) => e.reason === 'Succeeded' && e.regarding?.uid === run.metadata.uid) ? true : undefined;
    });
    return run;
  }

  /** `stratus api-server` as its own ServiceAccount, over the test's namespaces and store. */
  const startApiServer = async () =>
    runKubernetesApiServer(
      { namespaces: [releaseNamespace, workNamespace], storePath: storageRoot, host: '127.0.0.1', port: 0 },
      {
        kubeconfig: await kubeconfigAs(admin, adminKubeconfig, {
          name: `${release}-stratus-api-server`,
          namespace: releaseNamespace,
        }),
      },
    );

  const jobGone = (name: string) =>
    eventually(async () => ((await admin.get(jobKind, name, releaseNamespace)) === undefined ? true : undefined), {
      timeoutMs: 30_000,
      intervalMs: 200,
    });

  beforeAll(async () => {
    storageRoot = await mkdtemp(join(tmpdir(), 'stratus-kube-store-'));
    for (const name of [releaseNamespace, workNamespace])
      await admin.apply(namespaceKind, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    // A cluster-wide install: ClusterRoles for what happens where runs are, Roles in the release namespace.
    const rendered = await renderChart({ release, namespace: releaseNamespace, kubeVersion: '1.20.2' });
    const rbac = rendered.filter((o) => rbacKinds.has(o.kind));
    const applied = await runTool(
      'kubectl',
      ['--kubeconfig', adminKubeconfig, 'apply', '--server-side', '--field-manager', 'helm', '-f', '-'],
      JSON.stringify({ apiVersion: 'v1', kind: 'List', items: rbac }),
    );
    expect(applied.stderr).toBe('');
    for (const namespace of [releaseNamespace, workNamespace]) await sampleSource(namespace);

    const operatorKubeconfig = await kubeconfigAs(admin, adminKubeconfig, {
      name: `${release}-stratus-operator`,
      namespace: releaseNamespace,
    });
    workerKubeconfig = await kubeconfigAs(admin, adminKubeconfig, {
      name: `${release}-stratus-worker`,
      namespace: releaseNamespace,
    });
    // The operator's environment is the chart's Deployment's. Its pod fields come from the downward API; it
    // watches the test's two namespaces only (the cluster holds other tests' runs); the operator's store and the
    // Jobs' mount path are one temporary directory, so the kubelet played here runs the command unchanged.
    const deployment = rendered.find(
      (o) => o.kind === 'Deployment' && o.metadata.name === `${release}-stratus-operator`,
    ) as Deployment;
    const chartEnv = Object.fromEntries(
      deployment.spec!.template.spec.containers[0]!.env.map((e) => [e.name, e.value]),
    );
    const settings = operatorEnv({
      ...chartEnv,
      STRATUS_CONFIG: undefined,
      WATCH_NAMESPACE: `${releaseNamespace},${workNamespace}`,
      POD_NAMESPACE: releaseNamespace,
      POD_NAME: 'test-operator',
      STRATUS_STORE_PATH: storageRoot,
      HOST: '127.0.0.1',
      METRICS_PORT: '0',
      // One part per period: the 3-day runs would be split where the server has Indexed Jobs; 1.20 has none.
      STRATUS_WORKER_PERIODS_PER_PART: '1',
    });
    operator = await runKubernetesOperator(settings, { kubeconfig: operatorKubeconfig });
  });
  afterAll(async () => {
    await operator?.stop();
    const selector = `app.kubernetes.io/instance=${release}`;
    await runTool('kubectl', [
      '--kubeconfig',
      adminKubeconfig,
      'delete',
      'clusterrole,clusterrolebinding',
      '-l',
      selector,
    ]);
    for (const name of [releaseNamespace, workNamespace]) await admin.delete(namespaceKind, name);
    await rm(storageRoot, { recursive: true, force: true });
  });

  it('reconciles a run of the release namespace into a Job it owns, follows it to Ready and takes it when deleted', async () => {
    await eventually(async () => {
      const response = await fetch(`${operator.url}/readyz`);
      await response.body?.cancel();
      return response.ok ? true : undefined;
    });
    await admin.create<Ingestion>(ingestionKind, ingestion('sample-run', releaseNamespace, 'sample'));

    const job = await eventually(() => admin.get<BatchJob>(jobKind, 'sample-run-a1', releaseNamespace));
    const run = await admin.get<Ingestion>(ingestionKind, 'sample-run', releaseNamespace);
    expect(job.metadata.ownerReferences).toEqual([
      expect.objectContaining({
        kind: 'Ingestion',
        uid: run!.metadata.uid,
        controller: true,
        blockOwnerDeletion: true,
      }),
    ]);
    expect(job.spec).toMatchObject({
      backoffLimit: 0,
      activeDeadlineSeconds: 21_600,
      template: { spec: { serviceAccountName: `${release}-stratus-worker` } },
    });
    // Kubernetes 1.20 drops the field (TTL-after-finished is alpha and off there): history limits bound the Jobs.
    expect(job.spec).not.toHaveProperty('ttlSecondsAfterFinished');
    // The run would be split, but 1.20 has no Indexed Jobs: the operator read the server's version and asked for a
    // Job of one pod that does the whole run (an Indexed Job there would lose its completionMode).
    expect(job.spec).not.toHaveProperty('completionMode');
    expect(job.spec).toMatchObject({ completions: 1, parallelism: 1 });
    const workerEnv = (job.spec as { template: { spec: { containers: { env: { name: string }[] }[] } } }).template.spec
      .containers[0]!.env;
    expect(workerEnv.map((e) => e.name)).not.toContain('STRATUS_WORKER_PARTS');

    // The real Job controller made the pod; with no kubelet it stays Pending until the test runs it.
    await runPodOf('sample-run-a1');
    const done = await successful('sample-run', releaseNamespace);
    expect(done.status?.progress).toMatchObject({ percent: 100 });
    const completed = await admin.get<BatchJob>(jobKind, 'sample-run-a1', releaseNamespace);
    expect(completed?.status?.conditions).toEqual([expect.objectContaining({ type: 'Complete', status: 'True' })]);
    const dataset = await eventually(async () => {
      const current = await admin.get<Dataset>(datasetKind, datasetIdOf(done), releaseNamespace);
      const ready = current?.status?.conditions?.find((c) => c.type === 'Ready');
      return ready?.status === 'True' ? current : undefined;
    });
    expect(dataset.status?.currentVersion).toBeTruthy();

    // `stratus api-server` answers from the same cluster as its own ServiceAccount, with no leader of its own.
    const api = await startApiServer();
    try {
      const listed = (await (await fetch(`${api.url}/datasets`)).json()) as { items: { dataset_id: string }[] };
      expect(listed.items.map((item) => item.dataset_id)).toContain(datasetIdOf(done));
    } finally {
      await api.stop();
    }

    await admin.delete(ingestionKind, 'sample-run', releaseNamespace);
    await jobGone('sample-run-a1');
  });

  it('refreshes a feature collection as a worker Job, with a status the API server’s schema takes', async () => {
    const manifests = (
      await readFile(join(REPOSITORY, 'manifests/examples/feature-collection-sample-districts.yaml'), 'utf8')
    )
      .split(/^---$/m)
      .map((text) => parse(text) as KubeObject);
    const source = parse(await readFile(join(REPOSITORY, 'manifests/data-sources/sample-districts.yaml'), 'utf8'));
    await admin.create(dataSourceKind, {
      ...source,
      metadata: { name: 'sample-districts', namespace: releaseNamespace },
    });
    for (const manifest of manifests) {
      const kind = manifest.kind === 'Ingestion' ? ingestionKind : featureCollectionKind;
      await admin.create(kind, { ...manifest, metadata: { ...manifest.metadata, namespace: releaseNamespace } });
    }
    await runPodOf(
      await eventually(() => admin.get<BatchJob>(jobKind, 'sample-districts-initial-a1', releaseNamespace)).then(
        (j) => j.metadata.name,
      ),
    );
    await successful('sample-districts-initial', releaseNamespace);
    // Features have no time: the status patch leaves the temporal extent's members absent, since a merge patch
    // cannot store a null, and the API server validates what is left.
    const collection = await admin.get<FeatureCollection>(featureCollectionKind, 'sample-districts', releaseNamespace);
    expect(collection?.status).toMatchObject({ featureCount: 12, extent: { temporal: {} } });
  });

  it('runs the Job of a run in another namespace in the release namespace, and deletes it with the run', async () => {
    await admin.create<Ingestion>(ingestionKind, ingestion('elsewhere', workNamespace, 'sample-elsewhere'));
    // Named apart from an attempt of the same name of a run in the release namespace.
    const jobName = workerJobName('elsewhere-a1', workNamespace, releaseNamespace);
    const job = await eventually(() => admin.get<BatchJob>(jobKind, jobName, releaseNamespace));
    const run = await admin.get<Ingestion>(ingestionKind, 'elsewhere', workNamespace);
    expect(job.metadata.ownerReferences).toBeUndefined();
    expect(job.metadata.labels).toMatchObject({
      'climate.stratus.dev/run-namespace': workNamespace,
      'climate.stratus.dev/run-uid': run!.metadata.uid,
    });

    // The worker reports across namespaces with its ClusterRole.
    await runPodOf(jobName);
    await successful('elsewhere', workNamespace);

    await admin.delete(ingestionKind, 'elsewhere', workNamespace);
    await jobGone(jobName);
  });

  it('runs a batch job as a worker Job: a killed attempt publishes nothing, a new run finishes, a separate API server serves its results', async () => {
    // The `sample` Dataset of the first test is in the release namespace, which the API server writes to.
    process.env.STRATUS_WORKER_TASK_MODULES = resolve(REPOSITORY, 'test/fixtures/worker/processing-tasks.ts');
    const api = await startApiServer();
    try {
      const graph = {
        load: {
          process_id: 'load_collection',
          arguments: {
            id: 'sample',
            spatial_extent: { west: -12, south: 8, east: -11, north: 9 },
            temporal_extent: ['2024-01-01', '2024-01-03'],
          },
        },
        save: { process_id: 'save_result', arguments: { data: { from_node: 'load' }, format: 'netCDF' }, result: true },
      };
      const created = await fetch(`${api.url}/jobs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'On Kubernetes', process: { id: 'held_load', process_graph: graph } }),
      });
      expect(created.status).toBe(201);
      const id = created.headers.get('openeo-identifier')!;
      const record = async () =>
        (await (await fetch(`${api.url}/jobs/${id}`)).json()) as { status: string; progress?: number };
      const status = async () => (await record()).status;
      const start = () => fetch(`${api.url}/jobs/${id}/results`, { method: 'POST' }).then((r) => r.status);

      // Attempt 1: its node dies while the worker runs, after it reported running.
      expect(await start()).toBe(202);
      const first = await eventually(() => admin.get<BatchJob>(jobKind, `${id}-a1`, releaseNamespace));
      expect(first.metadata.ownerReferences).toEqual([
        expect.objectContaining({ kind: 'ProcessingJob', controller: true }),
      ]);
      const pod = await podOfJob(admin, releaseNamespace, `${id}-a1`);
      const kill = new AbortController();
      const exited = runContainer(workerKubeconfig, pod.spec!, { kill: kill.signal });
      // Running since its Job exists; the worker is at work once it reports progress.
      await eventually(async () => (((await record()).progress ?? 0) > 0 ? true : undefined), {
        timeoutMs: 30_000,
        intervalMs: 100,
      });
      kill.abort();
      expect(await exited).not.toBe(0);
      await markFailed(admin, pod);
      await eventually(async () => ((await status()) === 'error' ? true : undefined), {
        timeoutMs: 30_000,
        intervalMs: 200,
      });
      const failed = await fetch(`${api.url}/jobs/${id}/results`);
      expect(failed.status).toBe(424);
      const jobDir = join(storageRoot, 'jobs', releaseNamespace, id);
      const left = await readdir(jobDir).catch(() => [] as string[]);
      expect(left.filter((f) => f !== 'logs' && !f.endsWith('.staging'))).toEqual([]);

      // A new run: attempt 2 finishes, and only its results are served.
      process.env.STRATUS_TEST_HOLD_STEPS = '0';
      expect(await start()).toBe(202);
      await runPodOf(`${id}-a2`);
      await eventually(async () => ((await status()) === 'finished' ? true : undefined), {
        timeoutMs: 30_000,
        intervalMs: 200,
      });
      const item = (await (await fetch(`${api.url}/jobs/${id}/results`)).json()) as {
        assets: Record<string, { href: string }>;
      };
      expect(Object.keys(item.assets)).toEqual(['result.nc']);
      const file = await fetch(item.assets['result.nc']!.href);
      expect(file.status).toBe(200);
      expect(
        Buffer.from(await file.arrayBuffer())
          .subarray(1, 4)
          .toString(),
      ).toBe('HDF');
      expect(await readdir(jobDir)).toEqual(expect.arrayContaining([`${id}-a2`, 'logs']));
      expect((await readdir(jobDir)).filter((f) => f.startsWith(`${id}-a1`))).toEqual([]);

      // Deleted: a worker Job removes its files, then the resource goes.
      expect((await fetch(`${api.url}/jobs/${id}`, { method: 'DELETE' })).status).toBe(204);
      const gc = await podOfJob(admin, releaseNamespace, `${id}-gc`);
      expect(await runContainer(workerKubeconfig, gc.spec!)).toBe(0);
      // The worker's report already let the job go, and the garbage collector takes its Job and pod with it.
      await markSucceeded(admin, gc).catch((err: unknown) => {
        if (!isApiError(err, 'Conflict') && !isApiError(err, 'NotFound')) throw err;
      });
      await eventually(
        async () => ((await admin.get(processingJobKind, id, releaseNamespace)) === undefined ? true : undefined),
        { timeoutMs: 30_000, intervalMs: 200 },
      );
      expect(await readdir(jobDir).catch(() => 'gone')).toBe('gone');
    } finally {
      delete process.env.STRATUS_WORKER_TASK_MODULES;
      delete process.env.STRATUS_TEST_HOLD_STEPS;
      await api.stop();
    }
  });

  it('runs a delivery as a worker Job whose credentials come from a Secret, reported through a separate API server', async () => {
    const dhis2 = await startDhis2Server({ auth: { user: 'admin', password: 'pw-never-in-a-job' } });
    const api = await startApiServer();
    try {
      await admin.create(secretKind, {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'dhis2', namespace: releaseNamespace },
        data: {
          username: Buffer.from('admin').toString('base64'),
          password: Buffer.from('pw-never-in-a-job').toString('base64'),
        },
      });
      const exported = validateObject({
        apiVersion: API_VERSION,
        kind: 'Export',
        metadata: { name: 'dhis2', namespace: releaseNamespace },
        spec: { target: { type: 'dhis2-data-value-sets', url: dhis2.url, credentialsSecret: 'dhis2', chunkSize: 40 } },
      });
      if (!exported.ok) throw new Error(JSON.stringify(exported.issues));
      await admin.create(exportKind, exported.object);
      // A batch job that finished with a dhis2-json payload, as its worker leaves one.
      const path = jobRunPath(releaseNamespace, 'district-means', 'district-means-a1');
      const values = Array.from({ length: 100 }, (_, i) => ({
        dataElement: 'DEkube00001',
        period: `2024${String((i % 12) + 1).padStart(2, '0')}`,
        orgUnit: `OUkube${String(Math.floor(i / 12)).padStart(5, '0')}`,
        value: String(i / 4),
      }));
      await mkdir(join(storageRoot, path), { recursive: true });
      await writeFile(join(storageRoot, path, 'result.dhis2.json'), JSON.stringify({ dataValues: values }));
      await admin.create(processingJobKind, {
        apiVersion: API_VERSION,
        kind: 'ProcessingJob',
        metadata: { name: 'district-means', namespace: releaseNamespace },
        spec: { process: { process_graph: {} }, cancelRequested: false, maxAttempts: 1 },
      });
      await eventually(
        async () =>
          (await admin.get<ProcessingJob>(processingJobKind, 'district-means', releaseNamespace))?.status?.phase,
      );
      await admin.patchStatus(
        processingJobKind,
        'district-means',
        {
          type: 'merge',
          body: {
            status: {
              phase: 'finished',
              results: { path, files: [{ name: 'result.dhis2.json', mediaType: 'application/json' }], extent: {} },
            },
          },
        },
        releaseNamespace,
      );

      const post = () =>
        fetch(`${api.url}/exports/dhis2`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'idempotency-key': 'kube-1' },
          body: JSON.stringify({ job_id: 'district-means' }),
        });
      const accepted = (await (await post()).json()) as {
        delivery_job_id: string;
        status_url: string;
        reused: boolean;
      };
      expect(accepted.reused).toBe(false);
      const jobName = `${accepted.delivery_job_id}-a1`;
      const job = await eventually(() => admin.get<BatchJob>(jobKind, jobName, releaseNamespace));
      expect(job.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'Delivery', controller: true })]);
      const pod = await podOfJob(admin, releaseNamespace, jobName);
      // The credentials are references to the Secret in the pod, never values in the Job.
      expect(JSON.stringify(job)).not.toContain('pw-never-in-a-job');
      expect(
        await runContainer(workerKubeconfig, pod.spec!, { secrets: { cluster: admin, namespace: releaseNamespace } }),
      ).toBe(0);
      await markSucceeded(admin, pod);
      const record = await eventually(
        async () => {
          const r = (await (await fetch(`${api.url}${accepted.status_url}`)).json()) as {
            status: string;
            chunks: unknown[];
            report: { importCount: { imported: number } } | null;
          };
          return r.status === 'successful' ? r : undefined;
        },
        { timeoutMs: 30_000, intervalMs: 200 },
      );
      expect(record.chunks).toHaveLength(3);
      expect(record.report!.importCount.imported).toBe(100);
      expect(new Map([...dhis2.values].map(([k, v]) => [k, v.value]))).toEqual(
        new Map(values.map((v) => [valueKey(v), v.value])),
      );
      const changelog = (await (await fetch(`${api.url}/exports/dhis2/changelog`)).json()) as {
        pager: { total: number };
      };
      expect(changelog.pager.total).toBe(100);
      // The same key again answers the same delivery, and sends nothing.
      expect(((await (await post()).json()) as { reused: boolean }).reused).toBe(true);
      expect(dhis2.imports).toHaveLength(3);
    } finally {
      await api.stop();
      await dhis2.close();
    }
  });
});
