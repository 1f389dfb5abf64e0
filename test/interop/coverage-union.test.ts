/**
 * Ingestion never shrinks what is served, end to end in embedded mode: the sample dataset holds all of 2024; an
 * overwrite of three days (from a provider that now gives other values) publishes a version that still holds the
 * year, with those three days rewritten and every other value, as xarray reads it from /zarr, what it was.
 */
import { readFile, rm, stat, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmbedded } from '../../cmd/embedded.ts';
import { parsePeriod } from '../../core/periods/index.ts';
import { sampleProvider } from '../../core/providers/sample.ts';
import { dataSourceKind } from '../../core/resources/data-source/schema.ts';
import { datasetKind, type Dataset } from '../../core/resources/dataset/schema.ts';
import type { Ingestion } from '../../core/resources/ingestion/schema.ts';
import { finishedIngestion, startEmbedded } from '../support/embedded.ts';
import { python } from '../support/python.ts';

const root = resolve(import.meta.dirname, '../..');
const example = (name: string) => readFile(join(root, 'manifests/examples', name), 'utf8');
const BBOX: [number, number, number, number] = [-13.5, 6.9, -10.2, 10];
/** The seed the sample source is switched to before the overwrite: other values for the same days. */
const RERUN_SEED = 7;

/** Reads the served cube with xarray: its times, and its values (float32, C order) into `valuesFile`. */
const XARRAY_READ = `
import json, sys
import numpy as np
import xarray as xr
ds = xr.open_zarr(sys.argv[1], consolidated=True)
np.asarray(ds['value'].values, dtype='<f4').tofile(sys.argv[2])
print(json.dumps({'time': [str(t)[:10] for t in ds['time'].values], 'shape': list(ds['value'].shape)}))
`;

let dataDir: string;
let running: RunningEmbedded;

async function served(name: string): Promise<{ time: string[]; shape: number[]; values: Float32Array }> {
  const file = join(dataDir, `${name}.f32`);
  const view = await python<{ time: string[]; shape: number[] }>(XARRAY_READ, [`${running.url}/zarr/sample`, file]);
  const bytes = await readFile(file);
  return { ...view, values: new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4) };
}

const finished = (name: string) => finishedIngestion(running, name);

const sampleDataset = async () => (await running.cluster.get<Dataset>(datasetKind, 'sample', 'default'))!;

describe('an overwrite of three days of a dataset that serves all of 2024 (embedded)', () => {
  let before: Awaited<ReturnType<typeof served>>;
  let after: Awaited<ReturnType<typeof served>>;
  let run: Ingestion;
  let versions: { before: string; after: string };

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'stratus-union-'));
    running = await startEmbedded(dataDir, {
      examples: false,
      manifests: {
        'dataset.yaml': await example('dataset-sample.yaml'),
        'ingestion.yaml': await example('ingestion-sample.yaml'),
      },
    });
    expect((await finished('sample-2024')).status?.phase).toBe('successful');
    before = await served('before');
    const previous = (await sampleDataset()).status!;
    await running.cluster.patch(
      dataSourceKind,
      'sample',
      { type: 'merge', body: { spec: { provider: { parameters: { seed: RERUN_SEED } } } } },
      'default',
    );
    const res = await fetch(`${running.url}/ingestions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', prefer: 'respond-async' },
      body: JSON.stringify({ dataset_id: 'sample', start: '2024-01-01', end: '2024-01-03', overwrite: true }),
    });
    expect(res.status).toBeLessThan(300);
    run = await finished(((await res.json()) as { ingestion_id: string }).ingestion_id);
    after = await served('after');
    const current = (await sampleDataset()).status!;
    versions = {
      before: join(dataDir, 'store', previous.versions!.find((v) => v.id === previous.currentVersion)!.path),
      after: join(dataDir, 'store', current.versions!.find((v) => v.id === current.currentVersion)!.path),
    };
  }, 300_000);

  afterAll(async () => {
    await running?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('publishes a version that still serves every day of 2024', async () => {
    expect(run.status?.phase).toBe('successful');
    expect(versions.after).not.toBe(versions.before);
    expect(after.shape).toEqual(before.shape);
    expect(after.time).toEqual(before.time);
    expect(after.time).toHaveLength(366);
    expect([after.time[0], after.time.at(-1)]).toEqual(['2024-01-01', '2024-12-31']);
    expect(run.status?.events?.[0]).toMatchObject({
      type: 'dataset.updated',
      data: { action: 'update', current_start: '2024-01-01', current_end: '2024-12-31' },
    });
  });

  it('rewrites the three days with what the provider gives now, and leaves every other value as it was', async () => {
    const plane = before.shape[1]! * before.shape[2]!;
    const session = await sampleProvider.open({
      parameters: { seed: RERUN_SEED },
      bbox: BBOX,
      signal: new AbortController().signal,
    });
    for (const [t, day] of ['2024-01-01', '2024-01-02', '2024-01-03'].entries()) {
      const now = after.values.subarray(t * plane, (t + 1) * plane);
      expect(now).toEqual(await session.read(parsePeriod('daily', day)));
      expect(now).not.toEqual(before.values.subarray(t * plane, (t + 1) * plane));
    }
    expect(Buffer.from(after.values.buffer).subarray(3 * plane * 4)).toEqual(
      Buffer.from(before.values.buffer).subarray(3 * plane * 4),
    );
  });

  it('shares the chunk files of the time blocks it did not touch with the previous version', async () => {
    const last = join('value', `${Math.ceil(366 / (await timeChunk(versions.after))) - 1}.0.0`);
    const [previous, current] = [await stat(join(versions.before, last)), await stat(join(versions.after, last))];
    expect(current.ino).toBe(previous.ino);
    expect(current.nlink).toBeGreaterThanOrEqual(2);
    const first = join('value', '0.0.0');
    expect((await stat(join(versions.after, first))).ino).not.toBe((await stat(join(versions.before, first))).ino);
  });

  it('reports the realized coverage in /datasets/sample and /sync/sample/plan, the request as provenance', async () => {
    const record = (await (await fetch(`${running.url}/datasets/sample`)).json()) as {
      extent: { temporal: { interval: string[][] } };
      versions?: { request_scope?: { start: string; end: string } }[];
    };
    expect(JSON.stringify(record.extent)).toContain('2024-12-31');
    const plan = (await (await fetch(`${running.url}/sync/sample/plan?end=2024-12-31`)).json()) as Record<
      string,
      unknown
    >;
    expect(plan).toMatchObject({ current_start: '2024-01-01', current_end: '2024-12-31' });
    const scope = (await sampleDataset()).status!.versions!.at(-1)!.requestScope;
    expect(scope).toMatchObject({ start: '2024-01-01', end: '2024-01-03' });
  });
});

async function timeChunk(version: string): Promise<number> {
  return (JSON.parse(await readFile(join(version, 'value', '.zarray'), 'utf8')) as { chunks: number[] }).chunks[0]!;
}
