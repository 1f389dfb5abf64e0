import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RunError } from '../../core/runs/errors.ts';
import { ingestionResultSchema, type IngestionInput } from './ingestion-input.ts';
import { ingestion } from './ingestion.ts';
import type { Part, TaskContext } from './protocol.ts';

const context = (part?: Part): TaskContext => ({
  signal: new AbortController().signal,
  throwIfCancelled: () => {},
  progress: () => {},
  ...(part && { part }),
});

describe('one part of a split ingestion attempt', () => {
  let root: string;
  const input = (overrides: Partial<IngestionInput> = {}): IngestionInput => ({
    run: 'fill',
    attempt: 1,
    datasetId: 'daily',
    storageRoot: root,
    bbox: [-13.5, 6.9, -12.5, 7.9],
    provider: { name: 'sample', parameters: { seed: 42 } },
    dataset: { name: 'Daily', variable: 'value', periodType: 'daily', format: 'zarr', zarrVersion: 3 },
    start: '2024-01-01',
    end: '2024-01-20',
    overwrite: false,
    display: {},
    keepVersions: [],
    createdAt: '2026-11-23T10:00:00.000Z',
    ...overrides,
  });
  const parts = (count: number) => Array.from({ length: count }, (_, index) => ({ index, count }));
  const staged = async () => readdir(join(root, 'datasets/daily/staging')).catch(() => [] as string[]);

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'stratus-part-'));
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  it('completes the version exactly once when every part finishes at the same time', async () => {
    const results = await Promise.all(parts(4).map((part) => ingestion(input(), context(part))));
    const completed = results.filter((r) => r !== null);
    expect(completed).toHaveLength(1);
    const result = ingestionResultSchema.parse(completed[0]);
    expect(result.version).toMatchObject({
      id: '20261123t100000000z-a1',
      createdAt: '2026-11-23T10:00:00.000Z',
      path: 'datasets/daily/versions/20261123t100000000z-a1',
      coverage: { temporal: { start: '2024-01-01', end: '2024-01-20' } },
      requestScope: { start: '2024-01-01', end: '2024-01-20' },
    });
    expect(result.thumbnail).toBe('datasets/daily/thumbnails/20261123t100000000z-a1.png');
    const metadata = JSON.parse(await readFile(join(root, result.version.path, 'value/zarr.json'), 'utf8'));
    expect(metadata.shape[0]).toBe(20);
    expect(metadata.chunk_grid.configuration.chunk_shape[0]).toBe(5);
    expect(await staged()).toEqual([]);
  });

  it('leaves the completion to the part that claimed it first', async () => {
    const run = input();
    await Promise.all(
      parts(3)
        .slice(0, 2)
        .map((part) => ingestion(run, context(part))),
    );
    // Another part that also found every marker is completing the version.
    await writeFile(join(root, 'datasets/daily/staging/20261123t100000000z-a1.parts/completing'), '');
    expect(await ingestion(run, context({ index: 2, count: 3 }))).toBeNull();
    expect(await readdir(join(root, 'datasets/daily/versions')).catch(() => [])).toEqual([]);
  });

  it('publishes nothing while a part is missing, and the next attempt sweeps what the others staged', async () => {
    const first = await ingestion({ ...input(), createdAt: undefined }, context());
    const kept = ingestionResultSchema.parse(first).version;
    // Attempt 2: parts 0 and 1 write their blocks, part 2 never finishes (its pod died; the Job failed).
    const interrupted = input({ attempt: 2, keepVersions: [kept.id] });
    expect(
      await Promise.all(
        parts(3)
          .slice(0, 2)
          .map((part) => ingestion(interrupted, context(part))),
      ),
    ).toEqual([null, null]);
    expect((await staged()).sort()).toEqual(['20261123t100000000z-a2', '20261123t100000000z-a2.parts']);
    expect(await readdir(join(root, 'datasets/daily/versions'))).toEqual([kept.id]);
    await expect(readFile(join(root, kept.path, 'value/zarr.json'))).resolves.toBeTruthy();

    // A provider that refuses its parameters fails every part with the provider's error type.
    const refused = input({ attempt: 3, provider: { name: 'sample', parameters: { seed: 'x' } } });
    await expect(ingestion(refused, context({ index: 0, count: 2 }))).rejects.toBeInstanceOf(RunError);

    const retried = await Promise.all(
      parts(2).map((part) => ingestion(input({ attempt: 4, keepVersions: [kept.id] }), context(part))),
    );
    const published = ingestionResultSchema.parse(retried.find((r) => r !== null)).version;
    expect((await readdir(join(root, 'datasets/daily/versions'))).sort()).toEqual([kept.id, published.id].sort());
    expect(await staged()).toEqual([]);
  });

  it('refuses to split what one worker must write', async () => {
    const part = { index: 0, count: 2 };
    await expect(ingestion(input({ createdAt: undefined }), context(part))).rejects.toThrow(/createdAt/);
    await expect(
      ingestion(input({ dataset: { ...input().dataset, format: 'netcdf' } }), context(part)),
    ).rejects.toMatchObject({ code: 'UnsupportedFormat' });
    await expect(ingestion(input({ base: 'datasets/daily/versions/v1' }), context(part))).rejects.toThrow(/sync/);
  });
});
