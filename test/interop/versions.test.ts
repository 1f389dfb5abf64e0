/**
 * Addressable versions and retention, end to end in embedded mode: xarray reads `/zarr/{id}@{version}/` of a version
 * after a newer one is published with the bytes it read when that version was current; a reader of the current
 * version runs through the publish and the removal of the old version without one error; retention then removes
 * the old version (a limit of one, a grace period of 30 seconds, which the read of the old version must fall in) and names it in the 404.
 */
import { access, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmbedded } from '../../cmd/embedded.ts';
import { dataSourceKind } from '../../core/resources/data-source/schema.ts';
import { datasetKind, type Dataset } from '../../core/resources/dataset/schema.ts';
import { ingestionKind } from '../../core/resources/ingestion/schema.ts';
import { finishedIngestion, startEmbedded } from '../support/embedded.ts';
import { eventually } from '../support/eventually.ts';
import { python } from '../support/python.ts';

const MANIFEST = [
  'apiVersion: climate.stratus.dev/v1alpha1',
  'kind: Dataset',
  'metadata: {name: rain, namespace: default}',
  'spec: {source: sample, datasetName: Rain, variable: value, periodType: daily, format: zarr, versionHistoryLimit: 1}',
  '---',
  'apiVersion: climate.stratus.dev/v1alpha1',
  'kind: Ingestion',
  'metadata: {name: rain-first, namespace: default, labels: {climate.stratus.dev/dataset: rain}}',
  "spec: {source: sample, datasetId: rain, start: '2024-01-01', end: '2024-01-20'}",
].join('\n');

/** Reads a store with xarray: its values (float32, C order) into `valuesFile`, and its times. */
const XARRAY_READ = `
import json, sys
import numpy as np
import xarray as xr
ds = xr.open_zarr(sys.argv[1], consolidated=True)
np.asarray(ds['value'].values, dtype='<f4').tofile(sys.argv[2])
print(json.dumps({'time': [str(t)[:10] for t in ds['time'].values]}))
`;

let dataDir: string;
let running: RunningEmbedded;

async function read(path: string, name: string): Promise<{ time: string[]; values: Buffer }> {
  const file = join(dataDir, `${name}.f32`);
  const { time } = await python<{ time: string[] }>(XARRAY_READ, [`${running.url}${path}`, file]);
  return { time, values: await readFile(file) };
}

const rain = async () => (await running.cluster.get<Dataset>(datasetKind, 'rain', 'default'))!;

const finished = (name: string) => finishedIngestion(running, name);

/**
 * Reads the current version's metadata and first chunk over and over until stopped, as a dashboard would, and
 * counts the answers that are not 200 with a body.
 */
function readerLoop() {
  const failures: string[] = [];
  let reads = 0;
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      for (const key of ['.zmetadata', 'value/0.0.0']) {
        try {
          const answer = await fetch(`${running.url}/zarr/rain/${key}`);
          const body = await answer.arrayBuffer();
          if (answer.status !== 200 || body.byteLength === 0) failures.push(`${key}: ${answer.status}`);
        } catch (err) {
          failures.push(`${key}: ${(err as Error).message}`);
        }
        reads++;
      }
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await loop;
      return { reads, failures };
    },
  };
}

describe('reading retained versions by name while new ones are published and old ones removed (embedded)', () => {
  let first: string;
  let before: Awaited<ReturnType<typeof read>>;
  let oldByName: Awaited<ReturnType<typeof read>>;
  let current: Awaited<ReturnType<typeof read>>;
  let loop: { reads: number; failures: string[] };
  let gone: { status: number; detail: string };
  let firstDir: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'stratus-versions-'));
    running = await startEmbedded(dataDir, {
      examples: false,
      manifests: { 'rain.yaml': MANIFEST },
      config: { 'datasets.version_grace_period': '30' },
    });
    expect((await finished('rain-first')).status?.phase).toBe('successful');
    const dataset = await rain();
    first = dataset.status!.currentVersion!;
    firstDir = join(dataDir, 'store', dataset.status!.versions!.find((v) => v.id === first)!.path);
    before = await read('/zarr/rain/', 'before');

    const readers = readerLoop();
    // Other values for the same days, then an overwrite of three of them: a second version.
    await running.cluster.patch(
      dataSourceKind,
      'sample',
      { type: 'merge', body: { spec: { provider: { parameters: { seed: 7 } } } } },
      'default',
    );
    await running.cluster.create(ingestionKind, {
      apiVersion: 'climate.stratus.dev/v1alpha1',
      kind: 'Ingestion',
      metadata: { name: 'rain-second', namespace: 'default', labels: { 'climate.stratus.dev/dataset': 'rain' } },
      spec: {
        source: 'sample',
        datasetId: 'rain',
        mode: 'ingestion',
        start: '2024-01-01',
        end: '2024-01-03',
        overwrite: true,
        publish: true,
        maxAttempts: 1,
        cancelRequested: false,
      },
    });
    const second = await finished('rain-second');
    expect(second.status?.phase, JSON.stringify(second.status?.error)).toBe('successful');
    oldByName = await read(`/zarr/rain@${first}/`, 'old');
    current = await read('/zarr/rain/', 'current');

    // Retention: past its grace period the first version leaves the status and a worker removes its files.
    await eventually(
      async () =>
        (await access(firstDir).then(
          () => false,
          () => true,
        )) || undefined,
      { timeoutMs: 60_000, intervalMs: 200 },
    );
    loop = await readers.stop();
    const answer = await fetch(`${running.url}/zarr/rain@${first}/.zmetadata`);
    gone = { status: answer.status, detail: ((await answer.json()) as { detail: string }).detail };
  }, 300_000);

  afterAll(async () => {
    await running?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('reads an old version by name with the bytes xarray read when it was current', () => {
    expect(oldByName.time).toEqual(before.time);
    expect(oldByName.values.equals(before.values)).toBe(true);
    // The current version is another: the overwrite changed the first three days.
    expect(current.time).toEqual(before.time);
    expect(current.values.equals(before.values)).toBe(false);
  });

  it('runs a reader of the current version through the publish and the removal without one error', () => {
    expect(loop.failures).toEqual([]);
    expect(loop.reads).toBeGreaterThan(20);
  });

  it('removes the old version past its grace period and names it in the 404', async () => {
    expect(gone).toEqual({ status: 404, detail: `Dataset rain has no retained version ${first}` });
    expect((await rain()).status!.versions!.map((v) => v.id)).not.toContain(first);
  });
});
