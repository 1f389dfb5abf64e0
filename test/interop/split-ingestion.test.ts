/**
 * A split ingestion end to end in embedded mode: three worker processes write one Zarr version at once, and what
 * they publish is, to xarray and GDAL, the same cube one worker writes.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmbedded } from '../../cmd/embedded.ts';
import { datasetKind, type Dataset } from '../../core/resources/dataset/schema.ts';
import { ingestionKind, type Ingestion } from '../../core/resources/ingestion/schema.ts';
import { defaultRunOptions } from '../../core/runs/options.ts';
import { sampleDatasetManifest, startEmbedded } from '../support/embedded.ts';
import { eventually } from '../support/eventually.ts';
import { python } from '../support/python.ts';

const root = resolve(import.meta.dirname, '../..');
const READERS = join(root, 'test/interop/zarr-readers.py');
const manifest = sampleDatasetManifest({
  name: 'daily',
  title: 'Daily sample',
  format: 'zarr',
  run: 'fill',
  start: '2024-01-01',
  end: '2024-01-31',
});

interface Written {
  dataDir: string;
  run: Ingestion;
  dataset: Dataset;
  /** Progress messages the run showed while it ran. */
  messages: Set<string>;
  versionDir: string;
}

/** Runs the ingestion in a fresh embedded instance with the given splitting, and returns what it left. */
async function ingest(split: typeof defaultRunOptions.split): Promise<Written> {
  const dataDir = await mkdtemp(join(tmpdir(), 'stratus-split-'));
  let running: RunningEmbedded | undefined;
  try {
    running = await startEmbedded(dataDir, {
      examples: false,
      manifests: { 'daily.yaml': manifest },
      operator: { runs: { ...defaultRunOptions, split } },
    });
    const { cluster } = running;
    const messages = new Set<string>();
    const run = await eventually(
      async () => {
        const current = await cluster.get<Ingestion>(ingestionKind, 'fill', 'default');
        const message = current?.status?.progress?.message;
        if (message) messages.add(message);
        return current?.status?.phase === 'successful' || current?.status?.phase === 'failed' ? current : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 20 },
    );
    const dataset = (await cluster.get<Dataset>(datasetKind, 'daily', 'default'))!;
    const versionDir = join(dataDir, 'store', dataset.status!.versions!.at(-1)!.path);
    return { dataDir, run, dataset, messages, versionDir };
  } finally {
    await running?.stop();
  }
}

interface ReaderView {
  xarray: { shape: number[]; time: string[]; transform: number[] };
  gdal: { size: number[]; geotransform: number[]; first_band_equals_xarray: boolean };
}

async function read(dir: string): Promise<{ view: ReaderView; values: Buffer }> {
  const valuesFile = `${dir}.values.f32`;
  const view = await python<ReaderView>(await readFile(READERS, 'utf8'), [dir, 'value', valuesFile]);
  return { view, values: await readFile(valuesFile) };
}

describe('an ingestion split into parts (embedded)', () => {
  let split: Written;
  let whole: Written;
  beforeAll(async () => {
    split = await ingest({ periodsPerPart: 10, maxParts: 3, parallelism: 3 });
    whole = await ingest(undefined);
  }, 150_000);
  afterAll(async () => {
    for (const written of [split, whole]) if (written) await rm(written.dataDir, { recursive: true, force: true });
  });

  it('succeeds with every period counted once, written by three parts', () => {
    expect(split.run.status).toMatchObject({ phase: 'successful', progress: { done: 31, total: 31, percent: 100 } });
    expect([...split.messages].some((m) => /^part [123] of 3: stored 2024-01-/.test(m))).toBe(true);
    expect(whole.run.status?.phase).toBe('successful');
    expect([...whole.messages].some((m) => m.startsWith('part'))).toBe(false);
  });

  it('publishes one version with time blocks that the parts shared, and leaves nothing staged', async () => {
    const zarray = JSON.parse(await readFile(join(split.versionDir, 'value/.zarray'), 'utf8'));
    // 31 periods in 3 parts: blocks of 11, 11 and 9 periods.
    expect(zarray.shape[0]).toBe(31);
    expect(zarray.chunks[0]).toBe(11);
    const timeBlocks = new Set(
      (await readdir(join(split.versionDir, 'value'))).filter((k) => !k.startsWith('.')).map((k) => k.split('.')[0]),
    );
    expect([...timeBlocks].sort()).toEqual(['0', '1', '2']);
    const staging = join(split.dataDir, 'store/datasets/daily/staging');
    expect(await readdir(staging).catch(() => [])).toEqual([]);
    expect(split.dataset.status).toMatchObject({
      currentVersion: split.dataset.status!.versions!.at(-1)!.id,
      extent: { temporal: { start: '2024-01-01', end: '2024-01-31' } },
    });
    expect(split.dataset.status!.thumbnail).toMatch(/^datasets\/daily\/thumbnails\/.+\.png$/);
    await expect(readFile(join(split.dataDir, 'store', split.dataset.status!.thumbnail!))).resolves.toBeTruthy();
  });

  it('is the same cube to xarray and GDAL as one worker writes', async () => {
    const [a, b] = [await read(split.versionDir), await read(whole.versionDir)];
    expect(a.view.xarray.shape).toEqual(b.view.xarray.shape);
    expect(a.view.xarray.time).toEqual(b.view.xarray.time);
    expect(a.view.xarray.transform).toEqual(b.view.xarray.transform);
    expect(a.view.gdal.size).toEqual(b.view.gdal.size);
    expect(a.view.gdal.geotransform).toEqual(b.view.gdal.geotransform);
    expect(a.view.gdal.first_band_equals_xarray).toBe(true);
    expect(a.values.length).toBe(31 * a.view.xarray.shape[1]! * a.view.xarray.shape[2]! * 4);
    expect(a.values.equals(b.values)).toBe(true);
  });
});
