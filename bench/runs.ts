/**
 * Runs without end: a schedule simulation in embedded mode makes BENCH_RUNS_TOTAL finished runs (default
 * 100,000) and reports, at 0 and at each of BENCH_RUNS_AT, the process's memory, what the store holds and what the
 * API server lists, and whether every dataset's history stays within its limits.
 *
 *   node --expose-gc bench/runs.ts
 *
 * Embedded mode is built by `runEmbedded` (cmd/embedded.ts) as `make run` builds it: the file-backed cluster, every
 * controller, the API server on a loopback port. Two things are the simulation's own:
 * - The clock of the controllers (and of the Event collector) is a simulated one that this bench moves a minute at
 *   a time; the Schedules are every-minute crons, so each move is one tick of every Schedule. The collectors sweep
 *   every COLLECTION_INTERVAL_MS of that clock too (their own timers count real time, in which a simulated day
 *   passes in seconds).
 * - The job runner finishes each sync attempt at once, at the job-execution edge only: a worker process per run
 *   (the real ChildProcessRunner forks one) costs about a second of CPU, which would make 100,000 runs a day on
 *   this machine. Every other step is the real one: the Schedule leader submits the run, the Ingestion controller
 *   claims the writer, plans the sync from the committed store (read from its files), starts the attempt, follows
 *   it and switches the dataset; the Dataset and Schedule controllers delete runs past the history limits; Events
 *   are recorded and expire. The first dataset is materialized by a real ingestion run in a real worker process,
 *   and every other one is pointed at that version (as the benches' `setCurrentVersion` does), so the committed
 *   store a sync reads exists; a simulated attempt reports the dataset's version as written.
 * One attempt in BENCH_RUNS_FAIL_EVERY (default 10) fails; Schedules start runs with one attempt, so such a run
 * fails.
 */
import { readdir, stat, writeFile, mkdtemp, mkdir, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { writeHeapSnapshot } from 'node:v8';
import { runEmbedded } from '../cmd/embedded.ts';
import { eventKind, jobKind } from '../core/cluster/builtin-kinds.ts';
import { datasetKind, currentVersionOf, type Dataset } from '../core/resources/dataset/schema.ts';
import { DATASET_LABEL, isFinished } from '../core/resources/ingestion/run.ts';
import { ingestionKind, type Ingestion } from '../core/resources/ingestion/schema.ts';
import { scheduleKind, type Schedule } from '../core/resources/schedule/schema.ts';
import { writerClaimKind } from '../core/resources/writer-claim/schema.ts';
import { COLLECTION_INTERVAL_MS } from '../operator/collectors/auth-store.ts';
import type { IngestionResult } from '../operator/worker/ingestion-input.ts';
import { attemptKey, type JobRunner, type JobSpec, type JobState } from '../operator/jobs/runner.ts';

const total = Number(process.env.BENCH_RUNS_TOTAL ?? 100_000);
const checkpoints = (process.env.BENCH_RUNS_AT ?? '10000,50000,100000').split(',').map(Number);
const datasets = Number(process.env.BENCH_RUNS_DATASETS ?? 100);
const failEvery = Number(process.env.BENCH_RUNS_FAIL_EVERY ?? 10);
/** The simulation stops here even short of `total`, and says so. */
const budgetSeconds = Number(process.env.BENCH_RUNS_SECONDS ?? 1500);
/** A directory: a heap snapshot is written there at each measurement, to find what grows between two. */
const snapshots = process.env.BENCH_RUNS_HEAP_SNAPSHOTS;
const SUCCESSFUL_LIMIT = 10;
const FAILED_LIMIT = 5;
const MINUTE = 60_000;

/**
 * The runner of the simulation: attempts of runs of a materialized dataset (the Schedules' sync runs) end at once (succeeded with the version the dataset already
 * holds, or failed); every other attempt (the seeding ingestions) goes to the real runner. Ended attempts are
 * forgotten when their run is, as the real runners forget theirs.
 */
class SimulatedRunner implements JobRunner {
  readonly #real: JobRunner;
  readonly #attempts = new Map<string, { job: JobSpec; state: JobState }>();
  readonly #listeners: ((job: JobSpec, state: JobState) => void)[] = [];
  readonly #now: () => Date;
  /** The version each dataset holds, which a simulated attempt reports as written. */
  readonly versions = new Map<string, IngestionResult['version']>();
  #started = 0;

  constructor(real: JobRunner, now: () => Date) {
    this.#real = real;
    this.#now = now;
  }

  get held(): number {
    return this.#attempts.size;
  }

  start(job: JobSpec): void {
    const input = job.input as { datasetId?: string };
    const version = input.datasetId === undefined ? undefined : this.versions.get(input.datasetId);
    if (!version) return this.#real.start(job);
    const key = attemptKey(job.name, job.owner.namespace);
    if (this.#attempts.has(key)) return;
    const state: JobState = { name: job.name, phase: 'running', startedAt: this.#now().toISOString() };
    this.#attempts.set(key, { job, state });
    const fails = ++this.#started % failEvery === 0;
    setImmediate(() => {
      Object.assign(
        state,
        { finishedAt: this.#now().toISOString(), progress: { done: 1, total: 1 } },
        fails
          ? { phase: 'failed', error: { type: 'UpstreamUnavailable', message: 'simulated failure' } }
          : { phase: 'succeeded', result: { datasetId: input.datasetId, version, action: 'append' } },
      );
      for (const listener of this.#listeners) listener(job, structuredClone(state));
    });
  }

  get(name: string, namespace: string | undefined): JobState | undefined {
    const attempt = this.#attempts.get(attemptKey(name, namespace));
    return attempt ? structuredClone(attempt.state) : this.#real.get(name, namespace);
  }

  cancel(name: string, namespace: string | undefined): void {
    this.#real.cancel(name, namespace);
  }

  onChange(listener: (job: JobSpec, state: JobState) => void): void {
    this.#listeners.push(listener);
    this.#real.onChange(listener);
  }

  forgetOwner(owner: JobSpec['owner']): void {
    for (const [key, { job }] of this.#attempts)
      if (
        job.owner.kind.kind === owner.kind.kind &&
        job.owner.name === owner.name &&
        job.owner.namespace === owner.namespace
      )
        this.#attempts.delete(key);
    this.#real.forgetOwner?.(owner);
  }

  stop(): Promise<void> {
    return this.#real.stop();
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const name = (i: number) => `ds-${String(i).padStart(3, '0')}`;

/** Files and bytes under `dir` (what `du --apparent-size` would count), by top-level entry. */
async function diskUse(dir: string): Promise<{ files: number; bytes: number }> {
  let files = 0;
  let bytes = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    // The store keeps writing while this counts: a file removed since the listing (an expired Event) is not counted.
    const size = await stat(join(entry.parentPath, entry.name)).then(
      (stats) => stats.size,
      (err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT') return undefined;
        throw err;
      },
    );
    if (size === undefined) continue;
    files++;
    bytes += size;
  }
  return { files, bytes };
}

const root = await mkdtemp(join(tmpdir(), 'stratus-bench-runs-'));
const dataDir = join(root, 'data');
const manifests = join(root, 'manifests');
const config = join(root, 'stratus.properties');
// Minutes from now, aligned: every move of the clock is one tick of an every-minute cron.
let clock = Math.ceil(Date.now() / MINUTE) * MINUTE;
const now = () => new Date(clock);
let runner: SimulatedRunner | undefined;
try {
  await writeFile(config, 'instance.name = Bench\ninstance.bbox = 0,0,0.5,0.5\n');
  const documents = [
    'apiVersion: climate.stratus.dev/v1alpha1\nkind: DataSource\nmetadata: {name: advancing, namespace: default}\n' +
      'spec: {datasetName: Advancing, itemType: coverage, variable: value, periodType: daily, ' +
      'provider: {name: sample}, sync: {kind: temporal, availability: {rule: today}}}\n',
  ];
  for (let i = 0; i < datasets; i++)
    documents.push(
      `apiVersion: climate.stratus.dev/v1alpha1\nkind: Dataset\nmetadata: {name: ${name(i)}, namespace: default}\n` +
        `spec: {source: advancing, datasetName: Bench ${i}, variable: value, periodType: daily, format: zarr}\n`,
      `apiVersion: climate.stratus.dev/v1alpha1\nkind: Schedule\nmetadata: {name: ${name(i)}, namespace: default}\n` +
        `spec: {datasetId: ${name(i)}, cron: '* * * * *', maxAttempts: 1, ` +
        `successfulRunsHistoryLimit: ${SUCCESSFUL_LIMIT}, failedRunsHistoryLimit: ${FAILED_LIMIT}}\n`,
    );
  documents.push(
    `apiVersion: climate.stratus.dev/v1alpha1\nkind: Ingestion\nmetadata: {name: seed, namespace: default}\n` +
      `spec: {source: advancing, datasetId: ${name(0)}, start: '2024-01-01', end: '2024-01-02'}\n`,
  );
  await mkdir(manifests);
  await writeFile(join(manifests, 'runs.yaml'), documents.join('---\n'));

  const started = performance.now();
  const running = await runEmbedded(
    { dataDir, manifests: [manifests], config, host: '127.0.0.1', port: 0 },
    { now, jobs: (real) => (runner = new SimulatedRunner(real, now)) },
  );
  const { cluster, operator } = running;
  const scheduleQueue = operator.controllers.find((c) => c.name === 'schedule')!.queue;

  // The first dataset materialized by a real run, the others pointed at its version.
  let seeded: IngestionResult['version'] | undefined;
  while (!seeded) {
    const seed = await cluster.get<Ingestion>(ingestionKind, 'seed', 'default');
    if (seed?.status?.phase === 'failed')
      throw new Error(`the seeding run failed: ${JSON.stringify(seed.status.error)}`);
    seeded = currentVersionOf(await cluster.get<Dataset>(datasetKind, name(0), 'default')) as typeof seeded;
    if (!seeded) await sleep(200);
  }
  for (let i = 0; i < datasets; i++) {
    runner!.versions.set(name(i), seeded);
    const status = { currentVersion: seeded.id, versions: [seeded] };
    if (i > 0) await cluster.patchStatus(datasetKind, name(i), { type: 'merge', body: { status } }, 'default');
  }
  console.log(`${datasets} datasets materialized in ${((performance.now() - started) / 1000).toFixed(0)} s`);

  const rows: string[][] = [];
  let finished = 0;
  let submitted = 0;
  const simulationStart = performance.now();

  const measure = async () => {
    // Let the history collection of the last tick land before judging it.
    let over: string[] = [];
    for (let waited = 0; waited < 10_000; waited += 100) {
      const runs = (await cluster.list<Ingestion>(ingestionKind, { namespace: 'default' })).items;
      over = [];
      for (let i = 0; i < datasets; i++) {
        const mine = runs.filter(
          (r) =>
            (r.metadata.labels as Record<string, string> | undefined)?.[DATASET_LABEL] === name(i) && isFinished(r),
        );
        const ok = mine.filter((r) => r.status?.phase === 'successful').length;
        if (ok > SUCCESSFUL_LIMIT || mine.length - ok > FAILED_LIMIT)
          over.push(`${name(i)}: ${ok}+${mine.length - ok}`);
      }
      if (over.length === 0) break;
      await sleep(100);
    }
    globalThis.gc?.();
    globalThis.gc?.();
    const memory = process.memoryUsage();
    if (snapshots) writeHeapSnapshot(join(snapshots, `runs-${finished}.heapsnapshot`));
    const count = async (kind: Parameters<typeof cluster.list>[0]) => (await cluster.list(kind, {})).items.length;
    const response = await fetch(`${running.url}/ingestions`);
    const body = await response.text();
    const listed = JSON.parse(body) as unknown;
    const items = Array.isArray(listed)
      ? listed
      : (Object.values(listed as Record<string, unknown>).find(Array.isArray) as unknown[]);
    // Reconciles that failed, all controllers together (a failed one is retried with backoff and logged as an error).
    const metrics = await (await fetch(`${running.url}/metrics`)).text();
    const reconcileErrors = [
      ...metrics.matchAll(/^controller_runtime_reconcile_errors_total\{[^}]*\} (\d+)$/gm),
    ].reduce((sum, m) => sum + Number(m[1]), 0);
    const cluster_ = await diskUse(join(dataDir, 'cluster'));
    const store = await diskUse(join(dataDir, 'store'));
    const logs = await diskUse(join(dataDir, 'logs')).catch(() => ({ files: 0, bytes: 0 }));
    const row = [
      finished.toLocaleString('en-US'),
      `${((performance.now() - simulationStart) / 1000).toFixed(0)} s`,
      (memory.rss / 2 ** 20).toFixed(0),
      globalThis.gc ? (memory.heapUsed / 2 ** 20).toFixed(1) : '–',
      (memory.heapTotal / 2 ** 20).toFixed(1),
      (memory.external / 2 ** 20).toFixed(1),
      (memory.arrayBuffers / 2 ** 20).toFixed(1),
      String(await count(ingestionKind)),
      String(await count(jobKind)),
      String(runner!.held),
      String(await count(eventKind)),
      String(await count(writerClaimKind)),
      `${cluster_.files} / ${(cluster_.bytes / 2 ** 20).toFixed(1)}`,
      `${store.files} / ${(store.bytes / 2 ** 20).toFixed(1)}`,
      `${logs.files} / ${(logs.bytes / 2 ** 20).toFixed(1)}`,
      `${response.status}: ${items?.length} / ${(body.length / 1024).toFixed(0)} KiB`,
      over.length === 0 ? 'yes' : `no (${over.slice(0, 3).join(', ')})`,
      String(reconcileErrors),
      loadavg()
        .map((l) => l.toFixed(2))
        .join(' '),
    ];
    rows.push(row);
    console.log(row.join(' | '));
  };

  const header = [
    'runs finished',
    'elapsed',
    'RSS MiB',
    'heap used MiB (after GC)',
    'heap total MiB',
    // Outside the V8 heap: Buffers and typed arrays (within `external`), and the other native memory V8 is told of.
    'external MiB',
    'array buffers MiB',
    'Ingestions stored',
    'Jobs stored',
    'attempts held by the runner',
    'Events stored',
    'WriterClaims',
    'cluster files / MiB',
    'store files / MiB',
    'log files / MiB',
    'GET /ingestions: items / size',
    'history within limits',
    'failed reconciles',
    'load average',
  ];
  console.log(header.join(' | '));
  await measure();

  const schedules = Array.from({ length: datasets }, (_, i) => name(i));
  let stopped = '';
  while (finished < total) {
    if ((performance.now() - simulationStart) / 1000 > budgetSeconds) {
      stopped = `stopped by the time budget (BENCH_RUNS_SECONDS=${budgetSeconds}) at ${finished} runs`;
      break;
    }
    clock += MINUTE;
    if ((clock / MINUTE) % (COLLECTION_INTERVAL_MS / MINUTE) === 0)
      for (const collector of operator.collectors) await collector.sweep();
    const tick = now().toISOString();
    for (const schedule of schedules) scheduleQueue.add(`default/${schedule}`);
    // Each Schedule checks at this tick (its status says so), then its run ends.
    const pending = new Set(schedules);
    while (pending.size > 0) {
      for (const schedule of [...pending]) {
        const status = (await cluster.get<Schedule>(scheduleKind, schedule, 'default'))?.status;
        if (!status?.nextCheck || status.nextCheck <= tick) continue;
        if (status.lastCheck !== tick || status.lastOutcome !== 'submitted') {
          pending.delete(schedule);
          continue;
        }
        const run = await cluster.get<Ingestion>(ingestionKind, status.lastJobId!, 'default');
        if (run && !isFinished(run)) continue;
        pending.delete(schedule);
        submitted++;
        if (run) finished++;
      }
      if (pending.size > 0) await sleep(5);
    }
    if (checkpoints.some((at) => finished >= at && finished - datasets < at)) await measure();
  }
  if (!checkpoints.some((at) => finished >= at && finished - datasets < at)) await measure();
  console.log(
    `\n${finished.toLocaleString('en-US')} runs finished (${submitted} submitted) in ` +
      `${((performance.now() - simulationStart) / 1000).toFixed(0)} s of simulation` +
      (stopped ? `; ${stopped}` : ''),
  );
  console.log(`\n| ${header.join(' | ')} |\n|${header.map(() => ' --- ').join('|')}|`);
  for (const row of rows) console.log(`| ${row.join(' | ')} |`);
  await running.stop();
} finally {
  // Retried: a failure above leaves the cluster writing while it is removed.
  await rm(root, { recursive: true, force: true, maxRetries: 5 });
}
process.exit(0);
