/**
 * A batch job split into parts on `make run`'s embedded mode: a Zarr job over more time steps than a part takes
 * runs as parts (child processes, as an Indexed Job's pods on Kubernetes) that write one store together, and
 * xarray reads it equal to the netCDF that `POST /result` computes from the same graph in one process. A part
 * killed mid-run fails the attempt and leaves nothing published; the next run finishes.
 */
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmbedded } from '../../cmd/embedded.ts';
import { currentVersionOf, datasetKind, type Dataset } from '../../core/resources/dataset/schema.ts';
import { processingJobKind, type ProcessingJob } from '../../core/resources/processing-job/schema.ts';
import { defaultRunOptions } from '../../core/runs/options.ts';
import { startEmbedded } from '../support/embedded.ts';
import { eventually } from '../support/eventually.ts';
import { workerPids } from '../support/processes.ts';
import { python } from '../support/python.ts';

let dataDir: string;
let running: RunningEmbedded;

const graph = (format: string) => ({
  load: {
    process_id: 'load_collection',
    arguments: {
      id: 'sample',
      spatial_extent: { west: -12, south: 8, east: -10.5, north: 9.5 },
      temporal_extent: ['2024-01-01', '2024-04-01'],
    },
  },
  double: {
    process_id: 'apply',
    arguments: {
      data: { from_node: 'load' },
      process: {
        process_graph: {
          m: { process_id: 'multiply', arguments: { x: { from_parameter: 'x' }, y: 2 }, result: true },
        },
      },
    },
  },
  save: { process_id: 'save_result', arguments: { data: { from_node: 'double' }, format }, result: true },
});

describe('a batch job split into parts (embedded)', () => {
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'stratus-split-jobs-'));
    // Jobs whose process id starts with `held` wait in their workers until released (or killed).
    process.env.STRATUS_WORKER_TASK_MODULES = resolve(import.meta.dirname, '../fixtures/worker/processing-tasks.ts');
    // 40 steps a part: the year's sample ingestion and the 91 days of the job both run as 3 parts.
    running = await startEmbedded(dataDir, {
      operator: {
        runs: { ...defaultRunOptions, split: { periodsPerPart: 40, maxParts: 3, parallelism: 3 } },
      },
    });
    await eventually(
      async () => currentVersionOf(await running.cluster.get<Dataset>(datasetKind, 'sample', 'default')),
      { timeoutMs: 90_000, intervalMs: 200 },
    );
  }, 120_000);

  afterAll(async () => {
    delete process.env.STRATUS_WORKER_TASK_MODULES;
    delete process.env.STRATUS_TEST_HOLD_STEPS;
    await running?.stop();
    await rm(dataDir, { recursive: true, force: true });
  }, 60_000);

  it('writes one Zarr store from its parts, equal to the synchronous result, after a killed part published nothing', async () => {
    const created = await fetch(`${running.url}/jobs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ process: { id: 'held_split', process_graph: graph('Zarr') } }),
    });
    expect(created.status).toBe(201);
    const id = created.headers.get('openeo-identifier')!;
    const phase = async () => (await running.cluster.get<ProcessingJob>(processingJobKind, id, 'default'))?.status;
    const start = () => fetch(`${running.url}/jobs/${id}/results`, { method: 'POST' }).then((r) => r.status);

    // Run 1: its three parts are held in their workers; one is killed.
    expect(await start()).toBe(202);
    // The job's own workers: an analytics table's build after a publish may run beside them.
    const workers = await eventually(
      async () => {
        const pids = await workerPids(process.pid, id);
        return pids.length === 3 ? pids : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    process.kill(workers[1]!, 'SIGKILL');
    const failed = await eventually(
      async () => {
        const status = await phase();
        return status?.phase === 'error' ? status : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    expect(failed.error?.type).toBe('WorkerCrashed');
    expect((await fetch(`${running.url}/jobs/${id}/results`)).status).toBe(424);
    const jobDir = join(dataDir, 'store', 'jobs', 'default', id);
    expect(
      (await readdir(jobDir).catch(() => [] as string[])).filter(
        (f) => f !== 'logs' && !f.endsWith('.staging') && !f.endsWith('.parts'),
      ),
    ).toEqual([]);

    // Run 2 goes through.
    process.env.STRATUS_TEST_HOLD_STEPS = '0';
    expect(await start()).toBe(202);
    const job = await eventually(
      async () => {
        const found = await running.cluster.get<ProcessingJob>(processingJobKind, id, 'default');
        if (found?.status?.phase === 'error' && found.status.jobName !== failed.jobName)
          throw new Error(JSON.stringify(found.status.error));
        return found?.status?.phase === 'finished' ? found : undefined;
      },
      { timeoutMs: 90_000, intervalMs: 200 },
    );
    expect((await readdir(jobDir)).sort()).toEqual([job.status!.jobName!, 'logs']);
    const logs = (await (await fetch(`${running.url}/jobs/${id}/logs`)).json()) as {
      logs: { id: string; message: string }[];
    };
    const shares = logs.logs.filter((l) => / saved its share /.test(l.message)).map((l) => l.message.slice(0, 11));
    expect(shares.sort()).toEqual(['Part 1 of 3', 'Part 2 of 3', 'Part 3 of 3']);
    // Ids follow the lines, whichever part wrote them.
    expect(logs.logs.map((l) => l.id)).toEqual(logs.logs.map((_, i) => String(i + 1)));
    const { files, path } = job.status!.results!;
    expect(files).toEqual([expect.objectContaining({ name: 'result.zarr', directory: true })]);
    expect(files[0]!.size).toBeGreaterThan(1000);

    const sync = await fetch(`${running.url}/result`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ process: { process_graph: graph('netCDF') } }),
    });
    expect(sync.status).toBe(200);
    const netcdf = join(dataDir, 'sync.nc');
    await writeFile(netcdf, Buffer.from(await sync.arrayBuffer()));
    const read = await python<{ times: number; sameTimes: boolean; vars: string[]; equal: boolean[]; finite: number }>(
      [
        'import json, sys, numpy, xarray',
        'z = xarray.open_zarr(sys.argv[1])',
        'n = xarray.open_dataset(sys.argv[2])',
        'names = sorted(v for v in z.data_vars if v != "spatial_ref")',
        'print(json.dumps({"times": int(z.sizes["time"]), "sameTimes": bool((z.time.values == n.time.values).all()),',
        '  "vars": names, "equal": [bool(numpy.array_equal(z[v].values, n[v].values, equal_nan=True)) for v in names],',
        '  "finite": int(numpy.isfinite(z[names[0]].values).sum())}))',
      ].join('\n'),
      [join(dataDir, 'store', path, 'result.zarr'), netcdf],
    );
    expect(read.times).toBe(91);
    expect(read.sameTimes).toBe(true);
    expect(read.vars.length).toBeGreaterThan(0);
    expect(read.equal.every(Boolean)).toBe(true);
    expect(read.finite).toBeGreaterThan(0);
  }, 120_000);
});
