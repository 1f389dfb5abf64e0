/**
 * The crash suite: kill -9 of a worker, and of the whole embedded server, at seeded random moments of an
 * ingestion, a sync and a feature refresh. After each kill, what readers were served before is served unchanged
 * until a new version is published; the run completes (retried by the operator, or started again when a refresh
 * allows no retry); the new version is served whole, read back by independent readers (Python xarray, parquet-wasm);
 * and nothing staged is left under the store. Each scenario must land one kill while its worker is at work, drawing
 * the moment again when the worker finished first. `STRATUS_CRASH_SEED` replays a run's kill moments (what they hit
 * still depends on timing), `STRATUS_CRASH_ROUNDS` sets how many; the seed and the counts are printed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { tableFromIPC } from 'apache-arrow';
import { readParquet } from 'parquet-wasm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.ts';
import { python } from '../support/python.ts';
import { seededRandom } from '../support/seeded-random.ts';
import { isAlive, workerPids } from '../support/processes.ts';

const SEED = Number(process.env.STRATUS_CRASH_SEED ?? Date.now() % 2 ** 31);
/** Each round kills once per run kind and target; two rounds take about a minute here. */
const ROUNDS = Number(process.env.STRATUS_CRASH_ROUNDS ?? 2);
const next = seededRandom(SEED);
const root = resolve(import.meta.dirname, '../..');

interface Server {
  url: string;
  child: ChildProcess;
  exited: Promise<void>;
}

let adminAuthorization = '';

/** `node cmd/stratus.ts embedded` on `dataDir`, as `make run` starts it, with the example resources. */
async function startServer(dataDir: string): Promise<Server> {
  const child = spawn(
    process.execPath,
    [
      join(root, 'cmd/stratus.ts'),
      'embedded',
      ...['--data-dir', dataDir, '--port', '0'],
      ...['--manifests', join(root, 'manifests/data-sources'), '--manifests', join(root, 'manifests/examples')],
    ],
    { cwd: root, stdio: ['ignore', 'pipe', 'ignore'] },
  );
  const exited = new Promise<void>((resolveExit) => child.once('exit', () => resolveExit()));
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const url = await eventually(async () => /landing page +(\S+)\/\n/.exec(out)?.[1], { timeoutMs: 60_000 });
  // make run signs users in: the first start prints the first admin's password, once; writes are the admin's.
  const password = /first admin +admin \/ (\S+)/.exec(out)?.[1];
  if (password) adminAuthorization = `Basic ${Buffer.from(`admin:${password}`).toString('base64')}`;
  return { url, child, exited };
}

const digest = (bytes: ArrayBuffer) => createHash('sha256').update(new Uint8Array(bytes)).digest('hex');

async function fetchBytes(url: string): Promise<ArrayBuffer> {
  const response = await fetch(url);
  if (response.status !== 200) throw new Error(`${url}: ${response.status}`);
  return response.arrayBuffer();
}

/** What readers are served of the sample dataset and the sample districts: the versions, and their bytes. */
async function served(url: string) {
  const dataset = (await (await fetch(`${url}/datasets/sample`)).json()) as { last_updated: string };
  const features = (await (await fetch(`${url}/features/sample-districts`)).json()) as { last_updated?: string };
  return {
    datasetUpdated: dataset.last_updated,
    zmetadata: digest(await fetchBytes(`${url}/zarr/sample/.zmetadata`)),
    firstChunk: digest(await fetchBytes(`${url}/zarr/sample/value/0.0.0`)),
    featuresUpdated: features.last_updated,
    parquet: digest(await fetchBytes(`${url}/features/sample-districts/data.parquet`)),
  };
}

interface JobRecord {
  status: string;
  attempt: number;
  maxAttempts: number;
  error: { type: string } | null;
  result: { version?: string } | null;
}

async function post(url: string, path: string, body: unknown): Promise<string> {
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', prefer: 'respond-async', authorization: adminAuthorization },
    body: JSON.stringify(body),
  });
  expect(response.status, await response.clone().text()).toBe(202);
  // Every run kind's 202 points at its job record; the bodies differ (an ingestion's is its IngestionResponse).
  return response.headers.get('location')!.slice('/ingestions/jobs/'.length);
}

const job = async (url: string, id: string) =>
  (await (await fetch(`${url}/ingestions/jobs/${id}`)).json()) as JobRecord;

/** The run's record once it ended, or once it waits for a retry (whose backoff is a minute: DESIGN.md §4). */
const settled = (url: string, id: string) =>
  eventually(
    async () => {
      const record = await job(url, id);
      return ['successful', 'failed', 'cancelled', 'retrying'].includes(record.status) ? record : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 100 },
  );

/** A run kind the suite crashes: how to start it, and how long its worker runs here, roughly. */
interface RunKind {
  name: 'ingestion' | 'sync' | 'feature refresh';
  /** Makes sure the run has work to do (a sync has none once the store reaches the last period). */
  prepare?: (url: string) => Promise<void>;
  start: (url: string) => Promise<string>;
  /** Kill moments are drawn in [0, this) after the worker process appears. */
  killWindowMs: number;
}

const kinds: RunKind[] = [
  {
    name: 'ingestion',
    start: (url) =>
      post(url, '/ingestions', { dataset_id: 'sample', start: '2023-01-01', end: '2024-12-31', overwrite: true }),
    killWindowMs: 2_000,
  },
  {
    name: 'sync',
    prepare: async (url) => {
      // An ingestion keeps what is stored (coverage is a union): only an explicit replacement narrows it.
      const id = await post(url, '/ingestions', {
        dataset_id: 'sample',
        start: '2024-01-01',
        end: '2024-12-31',
        replace: true,
      });
      expect((await settled(url, id)).status).toBe('successful');
    },
    start: (url) => post(url, '/sync/sample', {}),
    killWindowMs: 1_500,
  },
  {
    name: 'feature refresh',
    start: (url) => post(url, '/features/sample-districts/refresh', {}),
    killWindowMs: 800,
  },
];

/** Tries of one scenario at most: a kill that comes after the worker finished is drawn again. */
const MAX_TRIES = 5;

const counts = {
  workerKills: 0,
  serverKills: 0,
  /** Kills drawn after the worker had already ended: the run finished first, and the scenario is tried again. */
  missed: 0,
  /** Runs whose attempt the restarted server started again, completing without a failed attempt. */
  completedAfterRestart: 0,
  startedAgain: 0,
  orphanWorkersLeft: 0,
};

/** How long each kind's worker ran when a kill came too late: later kill moments are drawn within it. */
const observedWorkerMs = new Map<RunKind['name'], number>();

let dataDir: string;
let server: Server;

/**
 * Waits for the worker of the run `id` just started, then kills it (or the server) after a seeded delay drawn within
 * the worker's observed duration. The kill lands when, just before it, the worker still runs and the run has not
 * ended; a worker that ended first is timed, so that the next try draws an earlier moment.
 */
async function killDuringRun(
  kind: RunKind,
  target: 'worker' | 'server',
  id: string,
): Promise<{ worker: number; killed: boolean }> {
  const [worker] = await eventually(
    async () => {
      const pids = await workerPids(server.child.pid!, id);
      return pids.length > 0 ? pids : undefined;
    },
    { timeoutMs: 20_000, intervalMs: 5 },
  );
  const appeared = Date.now();
  const ended = eventually(async () => !isAlive(worker!) || undefined, { timeoutMs: 300_000, intervalMs: 10 }).then(
    () => Date.now(),
    () => undefined,
  );
  await sleep(Math.floor(next() * (observedWorkerMs.get(kind.name) ?? kind.killWindowMs)));
  const victim = target === 'worker' ? worker! : server.child.pid!;
  const inFlight = ['accepted', 'running'].includes((await job(server.url, id)).status);
  const killed = inFlight && isAlive(worker!) && isAlive(victim);
  if (killed) process.kill(victim, 'SIGKILL');
  else {
    const end = await ended;
    if (end !== undefined) observedWorkerMs.set(kind.name, end - appeared);
  }
  return { worker: worker!, killed };
}

/** No directory of a version being written, and no temporary file, anywhere under the store. */
async function leftovers(): Promise<string[]> {
  const store = join(dataDir, 'store');
  const found: string[] = [];
  for (const entry of await readdir(store, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name).slice(store.length + 1);
    const insideStaging = /(^|\/)staging\/./.test(path);
    if (insideStaging || /\.tmp|\.partial|~$/.test(entry.name)) found.push(path);
  }
  return found;
}

/** A version of the sample dataset read by xarray from its directory: its periods and its share of finite values. */
async function readByXarray(version: string): Promise<{ times: number; first: string; last: string; finite: number }> {
  return python(
    [
      'import json, sys, numpy, xarray',
      'ds = xarray.open_zarr(sys.argv[1], consolidated=True)',
      't = ds["time"].values',
      'v = ds["value"].values',
      'print(json.dumps({"times": int(t.size), "first": str(t[0])[:10], "last": str(t[-1])[:10],',
      '  "finite": float(numpy.isfinite(v).mean())}))',
    ].join('\n'),
    [join(dataDir, 'store/datasets/sample/versions', version)],
  );
}

/** Rows of the served GeoParquet file, read by parquet-wasm and Arrow. */
async function featureRows(): Promise<number> {
  const bytes = new Uint8Array(await fetchBytes(`${server.url}/features/sample-districts/data.parquet`));
  return tableFromIPC(readParquet(bytes).intoIPCStream()).numRows;
}

/**
 * One try of a scenario: starts a run of `kind`, kills `target` while it runs, and checks what readers get and that
 * the run completes. Whether the kill landed while the worker was still at work.
 */
async function crashOnce(kind: RunKind, target: 'worker' | 'server'): Promise<boolean> {
  await kind.prepare?.(server.url);
  const before = await served(server.url);
  const id = await kind.start(server.url);
  const { worker, killed } = await killDuringRun(kind, target, id);

  if (target === 'server' && killed) {
    await server.exited;
    // The orphaned worker stops writing: its runner is gone and a successor will start the attempt again.
    const gone = await eventually(async () => !isAlive(worker) || undefined, { timeoutMs: 10_000 }).catch(() => false);
    if (!gone) counts.orphanWorkersLeft++;
    expect(gone, `worker ${worker} outlived its server`).toBe(true);
    server = await startServer(dataDir);
  }
  if (killed) {
    // Until the run publishes, readers get exactly what they got before the crash.
    const during = await eventually(async () => (await served(server.url).catch(() => undefined)) ?? undefined, {
      timeoutMs: 30_000,
      intervalMs: 100,
    });
    if (during.datasetUpdated === before.datasetUpdated) {
      expect([during.zmetadata, during.firstChunk]).toEqual([before.zmetadata, before.firstChunk]);
    }
    if (during.featuresUpdated === before.featuresUpdated) expect(during.parquet).toBe(before.parquet);
  }

  let record = await settled(server.url, id);
  // A worker killed after it reported its end leaves a successful run: that kill came too late to count.
  const landed = killed && !(target === 'worker' && record.status === 'successful');
  if (!landed) counts.missed++;
  else if (target === 'worker') {
    counts.workerKills++;
    // The killed first attempt fails, and the run retries it when it allows more (a refresh allows one).
    expect(record.error?.type, JSON.stringify(record)).toBe('WorkerCrashed');
    expect(record.status, JSON.stringify(record)).toBe(record.maxAttempts > 1 ? 'retrying' : 'failed');
  } else counts.serverKills++;
  if (record.status === 'retrying') {
    // The next attempt waits out its backoff; a person would rather cancel the run and start it again than wait,
    // and that must work too.
    expect(record.error?.type).toBe('WorkerCrashed');
    const cancel = await fetch(`${server.url}/ingestions/jobs/${id}`, {
      method: 'DELETE',
      headers: { authorization: adminAuthorization },
    });
    expect(cancel.status).toBe(202);
    await eventually(async () => (await job(server.url, id)).status === 'cancelled' || undefined, {
      timeoutMs: 20_000,
      intervalMs: 100,
    });
    counts.startedAgain++;
    record = await settled(server.url, await kind.start(server.url));
  } else if (record.status === 'failed') {
    // A refresh allows one attempt: the crash fails it, and it can be started again.
    expect(record.error?.type).toBe('WorkerCrashed');
    counts.startedAgain++;
    record = await settled(server.url, await kind.start(server.url));
  } else if (landed) counts.completedAfterRestart++;
  expect(record.status, JSON.stringify(record)).toBe('successful');

  const after = await served(server.url);
  if (kind.name === 'feature refresh') {
    expect(after.featuresUpdated).not.toBe(before.featuresUpdated);
    expect(await featureRows()).toBeGreaterThan(0);
  } else {
    expect(after.datasetUpdated).not.toBe(before.datasetUpdated);
    expect(record.result?.version).toBeTruthy();
    const read = await readByXarray(record.result!.version!);
    const { extent } = (await (await fetch(`${server.url}/datasets/sample`)).json()) as {
      extent: { temporal: { start: string; end: string } };
    };
    expect({ first: read.first, last: read.last }).toEqual({
      first: extent.temporal.start,
      last: extent.temporal.end,
    });
    const days = (Date.parse(extent.temporal.end) - Date.parse(extent.temporal.start)) / 86_400_000 + 1;
    expect(read.times).toBe(days);
    expect(read.finite).toBe(1);
  }
  // An analytics table's build follows each publish and works in its staging directory meanwhile: what it and the
  // crash left must be gone once that build has ended (its write removes its staging when it is aborted).
  const left = await eventually(async () => ((await leftovers()).length === 0 ? [] : undefined), {
    timeoutMs: 30_000,
    intervalMs: 250,
  }).catch(leftovers);
  expect(left).toEqual([]);
  return landed;
}

describe(`crash suite (seed ${SEED}; replay with STRATUS_CRASH_SEED=${SEED})`, () => {
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'stratus-crash-'));
    server = await startServer(dataDir);
    // The examples' first ingestion and districts refresh are what readers are served before any crash.
    await eventually(async () => (await served(server.url).catch(() => undefined)) ?? undefined, {
      timeoutMs: 60_000,
      intervalMs: 200,
    });
  }, 90_000);

  afterAll(async () => {
    server?.child.kill('SIGKILL');
    await server?.exited;
    console.log(`crash suite, seed ${SEED}: ${JSON.stringify(counts)}`);
    // A worker the killed server left (an analytics table's build after the last publish) stops writing within
    // seconds of losing its runner; until then the directory may not be empty.
    await rm(dataDir, { recursive: true, force: true, maxRetries: 100, retryDelay: 200 });
  });

  for (let round = 1; round <= ROUNDS; round++) {
    for (const kind of kinds) {
      for (const target of ['worker', 'server'] as const) {
        it(`round ${round}: kill -9 of the ${target} during a ${kind.name}`, async () => {
          let landed = 0;
          for (let tries = 0; landed === 0 && tries < MAX_TRIES; tries++) if (await crashOnce(kind, target)) landed++;
          expect(landed, `no kill landed while the worker ran in ${MAX_TRIES} tries`).toBe(1);
        }, 400_000);
      }
    }
  }
});
