import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parquetReadObjects } from 'hyparquet';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { featureRefresh } from './feature-refresh.ts';
import type { FeatureRefreshInput, FeatureRefreshResult } from './feature-refresh-input.ts';
import type { TaskContext } from './protocol.ts';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'feature-refresh-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const input = (extra: Partial<FeatureRefreshInput> = {}): FeatureRefreshInput => ({
  run: 'districts-1',
  attempt: 1,
  collectionId: 'districts',
  storageRoot: root,
  bbox: [-13.5, 6.9, -10.2, 10],
  provider: { name: 'sample', parameters: { columns: 3, rows: 2 } },
  idProperty: 'code',
  keepFiles: [],
  ...extra,
});
const progress: string[] = [];
const context: TaskContext = {
  signal: new AbortController().signal,
  throwIfCancelled: () => {},
  progress: (done, total, message) => progress.push(`${done}/${total} ${message ?? ''}`),
};

describe('the feature-refresh task', () => {
  it('writes the template features as a new GeoParquet version and reports it', async () => {
    const result = (await featureRefresh(input(), context)) as FeatureRefreshResult;
    expect(result.collectionId).toBe('districts');
    expect(result.version).toMatchObject({
      featureCount: 6,
      geometryTypes: ['Polygon'],
      bbox: [-13.5, 6.9, -10.2, 10],
    });
    expect(result.version.path).toMatch(/^features\/districts\/[0-9t]+z-a1\.parquet$/);
    expect(result.report).toEqual({ received: 6, stored: 6, repairs: [] });
    const rows = await parquetReadObjects({
      file: (await readFile(join(root, result.version.path))).buffer as ArrayBuffer,
    });
    expect(rows.map((r) => r.code)).toEqual(['SD01', 'SD02', 'SD03', 'SD04', 'SD05', 'SD06']);
    expect(progress.at(-1)).toBe('2/2 stored 6 features');
  });

  it('keeps the file the collection serves and removes every other leftover', async () => {
    const dir = join(root, 'features', 'districts');
    await mkdir(dir, { recursive: true });
    for (const name of ['current.parquet', 'older.parquet', '.current.parquet.1.2.tmp'])
      await writeFile(join(dir, name), 'x');
    const result = (await featureRefresh(
      input({ keepFiles: ['features/districts/current.parquet'] }),
      context,
    )) as FeatureRefreshResult;
    expect((await readdir(dir)).sort()).toEqual(['current.parquet', result.version.path.split('/').at(-1)].sort());
  });

  it('fails with a typed error for a provider this build lacks', async () => {
    await expect(featureRefresh(input({ provider: { name: 'gadm', parameters: {} } }), context)).rejects.toMatchObject({
      code: 'ProviderUnavailable',
    });
  });

  it('turns provider failures into typed task errors and writes nothing', async () => {
    await expect(
      featureRefresh(input({ provider: { name: 'sample', parameters: { rows: 0 } } }), context),
    ).rejects.toMatchObject({ name: 'RunError', code: 'InvalidParameters' });
    expect(await readdir(root)).toEqual([]);
  });
});
