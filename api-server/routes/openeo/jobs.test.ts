import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { processingJobKind, type ProcessingJob } from '../../../core/resources/processing-job/schema.ts';
import { build, type Built } from '../../test/build.ts';
import { zodBytes } from '../../test/zod-bytes.ts';
import { batchJobsSchema } from './jobs.ts';

const graph = {
  load: { process_id: 'load_collection', arguments: { id: 'chirps', spatial_extent: null, temporal_extent: null } },
  save: { process_id: 'save_result', arguments: { data: { from_node: 'load' }, format: 'GTiff' }, result: true },
};

async function created(built: Built, body: Record<string, unknown> = { process: { process_graph: graph } }) {
  const response = await built.app.inject({ method: 'POST', url: '/jobs', payload: body });
  expect(response.statusCode).toBe(201);
  return response;
}

/** Sets the job's status as the operator would. */
async function setStatus(built: Built, id: string, status: ProcessingJob['status']) {
  const job = (await built.cluster.get<ProcessingJob>(processingJobKind, id, 'default'))!;
  await built.cluster.updateStatus(processingJobKind, { ...job, status });
}

const error = (response: { json(): unknown }) => (response.json() as { code: string }).code;

describe('openEO /jobs', () => {
  it('creates a job (201, Location, OpenEO-Identifier) in status created, lists it, and refuses graphs as /result does', async () => {
    const built = await build();
    const response = await created(built, { title: 'T', process: { process_graph: graph } });
    const id = response.headers['openeo-identifier'] as string;
    expect(id).toMatch(/^job-[0-9a-f]{16}$/);
    expect(response.headers.location).toMatch(new RegExp(`/jobs/${id}$`));
    expect(response.json()).toMatchObject({ id, title: 'T', status: 'created', process: { process_graph: graph } });
    const listed = await built.app.inject({ url: '/jobs' });
    // Compiled serializer: the bytes the zod serializer writes.
    expect(listed.body).toBe(zodBytes(batchJobsSchema, listed.body));
    const list = listed.json() as { jobs: Record<string, unknown>[] };
    expect(list.jobs).toEqual([expect.objectContaining({ id, status: 'created' })]);
    expect(list.jobs[0]).not.toHaveProperty('process');

    const missing = await built.app.inject({ method: 'POST', url: '/jobs', payload: { title: 'x' } });
    expect([missing.statusCode, error(missing)]).toEqual([400, 'ProcessGraphMissing']);
    const unsupported = await built.app.inject({
      method: 'POST',
      url: '/jobs',
      payload: { process: { process_graph: { a: { process_id: 'no_such', arguments: {}, result: true } } } },
    });
    expect([unsupported.statusCode, error(unsupported)]).toEqual([400, 'ProcessUnsupported']);
    const unknown = await built.app.inject({ url: '/jobs/job-0000000000000000' });
    expect([unknown.statusCode, error(unknown)]).toEqual([404, 'JobNotFound']);
    const traversal = await built.app.inject({ url: '/jobs/..%2F..%2Fetc' });
    expect([traversal.statusCode, error(traversal)]).toEqual([404, 'JobNotFound']);
  });

  it('changes a created job; refuses to change a queued or running one (JobLocked); queues and cancels', async () => {
    const built = await build();
    const id = (await created(built)).headers['openeo-identifier'] as string;
    const patch = await built.app.inject({ method: 'PATCH', url: `/jobs/${id}`, payload: { title: 'New' } });
    expect(patch.statusCode).toBe(204);
    expect((await built.app.inject({ url: `/jobs/${id}` })).json()).toMatchObject({ title: 'New' });

    const started = await built.app.inject({ method: 'POST', url: `/jobs/${id}/results` });
    // openEO's start answers 202 with no body (not the JSON text `null`).
    expect([started.statusCode, started.body, started.headers['content-type']]).toEqual([202, '', undefined]);
    const queued = (await built.cluster.get<ProcessingJob>(processingJobKind, id, 'default'))!;
    expect(queued.spec.queuedAt).toBeDefined();
    // Before the operator takes the run up, the job is already queued to every API server.
    expect((await built.app.inject({ url: `/jobs/${id}` })).json()).toMatchObject({ status: 'queued' });
    // A second start of a queued job changes nothing.
    await built.app.inject({ method: 'POST', url: `/jobs/${id}/results` });
    const again = (await built.cluster.get<ProcessingJob>(processingJobKind, id, 'default'))!;
    expect(again.spec.queuedAt).toBe(queued.spec.queuedAt);

    for (const status of ['queued', 'running'] as const) {
      await setStatus(built, id, { phase: status, queuedAt: queued.spec.queuedAt, attempt: 1, jobName: `${id}-a1` });
      const locked = await built.app.inject({ method: 'PATCH', url: `/jobs/${id}`, payload: { title: 'x' } });
      expect([locked.statusCode, error(locked)]).toEqual([400, 'JobLocked']);
      const results = await built.app.inject({ url: `/jobs/${id}/results` });
      expect([results.statusCode, error(results)]).toEqual([400, 'JobNotFinished']);
    }
    expect((await built.app.inject({ method: 'DELETE', url: `/jobs/${id}/results` })).statusCode).toBe(204);
    expect((await built.cluster.get<ProcessingJob>(processingJobKind, id, 'default'))!.spec.cancelRequested).toBe(true);

    await setStatus(built, id, { phase: 'canceled', queuedAt: queued.spec.queuedAt, attempt: 1, jobName: `${id}-a1` });
    // A cancelled job runs again when started: a new queuedAt, and the cancel request cleared.
    await built.app.inject({ method: 'POST', url: `/jobs/${id}/results` });
    const restarted = (await built.cluster.get<ProcessingJob>(processingJobKind, id, 'default'))!;
    expect(restarted.spec.queuedAt).not.toBe(queued.spec.queuedAt);
    expect(restarted.spec.cancelRequested).toBe(false);
  });

  it.each(['queued', 'running'] as const)('deletes a %s job (204), which answers 404 from then on', async (phase) => {
    const built = await build();
    const id = (await created(built)).headers['openeo-identifier'] as string;
    await built.app.inject({ method: 'POST', url: `/jobs/${id}/results` });
    const { queuedAt } = (await built.cluster.get<ProcessingJob>(processingJobKind, id, 'default'))!.spec;
    await setStatus(built, id, { phase, queuedAt, attempt: 1, jobName: `${id}-a1` });
    // The controller's finalizer holds the job until its attempt stopped and its files are gone.
    await built.cluster.patch(
      processingJobKind,
      id,
      { type: 'merge', body: { metadata: { finalizers: ['climate.stratus.dev/job-results'] } } },
      'default',
    );
    const deleting = await built.app.inject({ method: 'DELETE', url: `/jobs/${id}` });
    expect([deleting.statusCode, deleting.body]).toEqual([204, '']);
    const held = await built.cluster.get<ProcessingJob>(processingJobKind, id, 'default');
    expect(held?.metadata.deletionTimestamp).toBeDefined();
    for (const url of [`/jobs/${id}`, `/jobs/${id}/results`]) {
      const gone = await built.app.inject({ url });
      expect([gone.statusCode, error(gone)]).toEqual([404, 'JobNotFound']);
    }
    expect((await built.app.inject({ url: '/jobs' })).json()).toEqual({ jobs: [], links: expect.any(Array) });
  });

  it('answers a failed job with 424 and its error, also as the last log entry', async () => {
    const built = await build();
    const id = (await created(built)).headers['openeo-identifier'] as string;
    await setStatus(built, id, {
      phase: 'error',
      attempt: 1,
      jobName: `${id}-a1`,
      finishedAt: '2026-11-25T10:00:00Z',
      error: { type: 'WorkerCrashed', message: 'the worker was killed' },
    });
    const results = await built.app.inject({ url: `/jobs/${id}/results` });
    expect(results.statusCode).toBe(424);
    expect(results.json()).toMatchObject({ level: 'error', code: 'WorkerCrashed', message: 'the worker was killed' });
    const logs = (await built.app.inject({ url: `/jobs/${id}/logs?level=error` })).json() as { logs: unknown[] };
    expect(logs.logs).toEqual([expect.objectContaining({ code: 'WorkerCrashed' })]);
  });

  it('serves a finished job as a STAC Item whose assets answer GET, a Zarr root and keys, the log by offset and level', async () => {
    const built = await build();
    const id = (await created(built)).headers['openeo-identifier'] as string;
    const run = `jobs/default/${id}/${id}-a1`;
    const dir = join(built.storageRoot, run);
    await mkdir(join(dir, 'result.zarr', 'data'), { recursive: true });
    await writeFile(join(dir, 'result.tif'), 'tiff bytes');
    await writeFile(join(dir, 'result.zarr', '.zmetadata'), '{"zarr_consolidated_format":1,"metadata":{}}');
    await writeFile(join(dir, 'result.zarr', 'data', '0.0'), 'chunk');
    const log = join(built.storageRoot, `jobs/default/${id}/logs`);
    await mkdir(log, { recursive: true });
    await writeFile(
      join(log, `${id}-a1.jsonl`),
      ['info', 'debug', 'warning', 'info']
        .map((level, i) => JSON.stringify({ id: String(i + 1), level, message: `m${i + 1}`, time: 't' }))
        .join('\n') + '\n{"id":"5","lev',
    );
    await setStatus(built, id, {
      phase: 'finished',
      attempt: 1,
      jobName: `${id}-a1`,
      finishedAt: '2026-11-25T10:00:00Z',
      results: {
        path: run,
        files: [
          { name: 'result.tif', mediaType: 'image/tiff; application=geotiff', size: 10 },
          { name: 'result.zarr', mediaType: 'application/vnd+zarr', directory: true, size: 48 },
        ],
        extent: { bbox: [-12, 8, -11, 9], start: '2024-01-01T00:00:00.000Z', end: '2024-01-10T00:00:00.000Z' },
      },
    });
    const item = (await built.app.inject({ url: `/jobs/${id}/results` })).json() as {
      assets: Record<string, { href: string; type: string }>;
      properties: Record<string, unknown>;
      geometry: { type: string };
    };
    expect(item.properties).toMatchObject({ datetime: null, start_datetime: '2024-01-01T00:00:00.000Z' });
    expect(item.geometry.type).toBe('Polygon');
    expect(Object.keys(item.assets)).toEqual(['result.tif', 'result.zarr']);
    for (const asset of Object.values(item.assets)) {
      const response = await built.app.inject({ url: new URL(asset.href).pathname });
      expect(response.statusCode).toBe(200);
    }
    expect((await built.app.inject({ url: `/jobs/${id}/results/result.tif` })).body).toBe('tiff bytes');
    expect((await built.app.inject({ url: `/jobs/${id}/results/result.zarr` })).json()).toMatchObject({
      zarr_consolidated_format: 1,
    });
    expect((await built.app.inject({ url: `/jobs/${id}/results/result.zarr/data/0.0` })).body).toBe('chunk');
    const listing = await built.app.inject({ url: `/jobs/${id}/results/result.zarr/data/` });
    expect(listing.json()).toMatchObject({ entries: [{ name: '0.0', type: 'file' }] });
    for (const url of [`/jobs/${id}/results/other.tif`, `/jobs/${id}/results/result.zarr/nothing`]) {
      const response = await built.app.inject({ url });
      expect([response.statusCode, error(response)]).toEqual([404, 'FileNotFound']);
    }
    // A key that could leave the result names no file of it.
    const escape = await built.app.inject({ url: `/jobs/${id}/results/result.zarr/..%2F..%2F..%2Flogs` });
    expect([escape.statusCode, error(escape)]).toEqual([404, 'FileNotFound']);

    const page = (await built.app.inject({ url: `/jobs/${id}/logs?limit=2` })).json() as {
      logs: { id: string }[];
      links: { rel: string; href: string }[];
    };
    expect(page.logs.map((l) => l.id)).toEqual(['1', '2']);
    const next = new URL(page.links.find((l) => l.rel === 'next')!.href);
    const rest = (await built.app.inject({ url: `${next.pathname}${next.search}` })).json() as {
      logs: { id: string }[];
    };
    // The half-written line is not an entry yet.
    expect(rest.logs.map((l) => l.id)).toEqual(['3', '4']);
    const warnings = (await built.app.inject({ url: `/jobs/${id}/logs?level=warning` })).json() as {
      logs: { id: string }[];
    };
    expect(warnings.logs.map((l) => l.id)).toEqual(['3']);
  });
});
