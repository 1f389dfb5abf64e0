/**
 * Embedded mode with two API processes (`--api-processes 2`, docs/adr/0010): both answer on one port, alike, the
 * second reaching the store through the first; `/metrics` is the installation's from either; a write through
 * either is read through the other; a stop by
 * Ctrl+C (SIGINT to the whole process group) or the loss of the first process leaves no process behind.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { awaitBanner } from '../test/support/embedded-banner.ts';
import { sampleDatasetManifest } from '../test/support/embedded.ts';
import { eventually } from '../test/support/eventually.ts';
import { isAlive } from '../test/support/processes.ts';

const root = resolve(import.meta.dirname, '..');
const REQUESTS = 40;

/** A GET on a connection of its own, so that the kernel hands each request to either process. */
function freshGet(url: string): Promise<{ status: number; body: string }> {
  return new Promise((done, fail) => {
    const req = request(url, { agent: false }, (res) => {
      let body = '';
      res.setEncoding('latin1');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => done({ status: res.statusCode!, body }));
    });
    req.on('error', fail);
    req.end();
  });
}

/** The API processes `pid` forked (the job runner's workers are its children too). */
async function apiProcessesOf(pid: number): Promise<number[]> {
  const { stdout } = await promisify(execFile)('ps', ['-o', 'pid=,args=', '--ppid', String(pid)]).catch(() => ({
    stdout: '',
  }));
  return stdout
    .split('\n')
    .filter((line) => line.includes('cmd/api-process.ts'))
    .map((line) => Number(line.trim().split(/\s+/)[0]));
}

interface Started {
  child: ChildProcess;
  url: string;
  exited: Promise<number | null>;
}

async function start(dataDir: string): Promise<Started> {
  const manifests = join(dataDir, 'manifests');
  await mkdir(manifests, { recursive: true });
  await writeFile(
    join(manifests, 'rain.yaml'),
    sampleDatasetManifest({
      name: 'rain',
      title: 'Rain',
      format: 'zarr',
      run: 'rain-q1',
      start: '2024-01-01',
      end: '2024-01-02',
    }),
  );
  const config = join(dataDir, 'stratus.properties');
  await writeFile(config, 'instance.name = Two processes\noauth2.server.enabled = off\n');
  // Its own process group, so that the test can send the whole group Ctrl+C's SIGINT, as a terminal does.
  const child = spawn(
    process.execPath,
    [
      join(root, 'cmd/stratus.ts'),
      'embedded',
      ...['--data-dir', dataDir, '--config', config, '--port', '0', '--api-processes', '2'],
      ...['--manifests', join(root, 'manifests/data-sources'), '--manifests', manifests],
    ],
    { cwd: root, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, STRATUS_HOME: dataDir } },
  );
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
  const { url } = await awaitBanner(child);
  return { child, url, exited };
}

describe('embedded mode with two API processes', () => {
  let dataDir: string;
  let running: Started;
  let forked: number[];

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'stratus-embedded-procs-'));
    running = await start(dataDir);
    forked = await apiProcessesOf(running.child.pid!);
    await eventually(
      async () => {
        const job = JSON.parse((await freshGet(`${running.url}/ingestions/jobs/rain-q1`)).body) as { status: string };
        return job.status === 'successful' || undefined;
      },
      { timeoutMs: 150_000, intervalMs: 200 },
    );
  }, 240_000);
  afterAll(async () => {
    running.child.kill('SIGKILL');
    for (const pid of forked) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
    // A worker of the owner killed last may write its staging for up to 2 s more (operator/worker/main.ts).
    await rm(dataDir, { recursive: true, force: true, maxRetries: 20, retryDelay: 250 });
  });

  it('forks one more API process beside the one that owns the store', () => {
    expect(forked).toHaveLength(1);
  });

  it('answers /datasets, /zarr metadata and chunks alike from both processes, over many connections', async () => {
    for (const path of ['/datasets', '/datasets/rain', '/zarr/rain/.zmetadata', '/zarr/rain/value/0.0.0']) {
      const answers = await Promise.all(Array.from({ length: REQUESTS }, () => freshGet(`${running.url}${path}`)));
      expect(
        answers.every((a) => a.status === 200),
        path,
      ).toBe(true);
      expect(new Set(answers.map((a) => a.body)).size, path).toBe(1);
    }
    // Both processes answered: the request log of the installation names each by pid.
    const log = await readFile(join(dataDir, 'logs/stratus.log'), 'utf8');
    const answeredBy = new Set(
      log
        .split('\n')
        .filter((line) => line.includes('"url":"/datasets"'))
        .map((line) => (JSON.parse(line) as { pid: number }).pid),
    );
    expect(answeredBy).toEqual(new Set([running.child.pid, ...forked]));
  });

  it('answers /metrics from either process with the whole installation: the controllers and the requests of both', async () => {
    const answers = await Promise.all(Array.from({ length: 10 }, () => freshGet(`${running.url}/metrics`)));
    for (const { status, body } of answers) {
      expect(status).toBe(200);
      expect(body).toMatch(/controller_runtime_reconcile_total\{controller="dataset",result="success"\} [1-9]/);
      // The earlier test's /datasets requests, which both processes answered, are all counted.
      const count =
        /http_request_duration_seconds_count\{method="GET",route="\/datasets",status_code="200"\} (\d+)/.exec(body);
      expect(Number(count?.[1])).toBeGreaterThanOrEqual(REQUESTS);
    }
  });

  it('shows a run started through one process to reads through the other', async () => {
    const started = await fetch(`${running.url}/ingestions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', prefer: 'respond-async' },
      body: JSON.stringify({ dataset_id: 'sample', start: '2024-01-01', end: '2024-01-01' }),
    });
    expect(started.status).toBe(202);
    const { ingestion_id: jobID } = (await started.json()) as { ingestion_id: string };
    // A single read goes to the store: every process sees the run at once.
    const reads = await Promise.all(
      Array.from({ length: REQUESTS }, () => freshGet(`${running.url}/ingestions/jobs/${jobID}`)),
    );
    expect(reads.map((r) => r.status)).toEqual(reads.map(() => 200));
    // A list comes from each process's informer cache: within the watch's delay, as between Kubernetes replicas.
    await eventually(async () => {
      const lists = await Promise.all(Array.from({ length: REQUESTS }, () => freshGet(`${running.url}/ingestions`)));
      return lists.every((l) => l.body.includes(`"${jobID}"`)) || undefined;
    });
  });

  it('replaces an API process that ended on its own', async () => {
    const [lost] = forked;
    process.kill(lost!, 'SIGKILL');
    forked = await eventually(
      async () => {
        const now = await apiProcessesOf(running.child.pid!);
        return now.length === 1 && now[0] !== lost ? now : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 200 },
    );
    // The new one serves: every answer over many connections is whole.
    await eventually(async () => {
      const answers = await Promise.all(Array.from({ length: REQUESTS }, () => freshGet(`${running.url}/datasets`)));
      return answers.every((a) => a.status === 200) || undefined;
    });
  }, 90_000);

  it('stops every process on Ctrl+C, and a second process never outlives the first', async () => {
    process.kill(-running.child.pid!, 'SIGINT');
    expect(await running.exited).toBe(0);
    for (const pid of forked) await eventually(async () => !isAlive(pid) || undefined, { timeoutMs: 5_000 });

    // The owner killed outright: the other process sees its channel close, and ends.
    running = await start(dataDir);
    forked = await apiProcessesOf(running.child.pid!);
    expect(forked).toHaveLength(1);
    running.child.kill('SIGKILL');
    for (const pid of forked) await eventually(async () => !isAlive(pid) || undefined, { timeoutMs: 15_000 });
  }, 120_000);
});
