import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as zarr from 'zarrita';
import { openStoredLevels } from '../../processing/collections/stored-cube.ts';
import { periodRange } from '../../periods/index.ts';
import { sampleProvider } from '../../providers/sample.ts';
import { downsample } from '../pyramid.ts';
import type { RasterCubeDescription } from '../raster-cube.ts';
import { gridCovering } from '../raster-grid.ts';
import { openVersionStore } from '../version-store.ts';
import { readZarrGroup } from '../zarr/metadata.ts';
import { readChunk } from '../zarr/read.ts';
import { isTransientName } from './file-storage.ts';
import { MAIN_BRANCH, openRepository } from './repository.ts';
import { openIcechunkVersion } from './version.ts';

const bbox: [number, number, number, number] = [-13.5, 6.9, -10.2, 10.0];

async function sampleCube(start: string, end: string) {
  const periods = periodRange('daily', start, end);
  const session = await sampleProvider.open({
    parameters: { resolution: 0.05 },
    bbox,
    signal: new AbortController().signal,
  });
  const planes = await Promise.all(periods.map((p) => session.read(p)));
  const description: RasterCubeDescription = {
    variable: 'value',
    units: '1',
    periodType: 'daily',
    periods,
    grid: session.grid,
    attributes: { title: 'icechunk test' },
  };
  return { description, planes };
}

/** Every value of `value` at a snapshot, read through zarrita from the repository's own store. */
async function readValues(dir: string, snapshotId: string) {
  const repo = await openRepository(dir);
  const session = await repo.readonlySession({ snapshotId });
  const array = await zarr.open.v3(zarr.root(session.store as unknown as zarr.Readable).resolve('value'), {
    kind: 'array',
  });
  const chunk = await zarr.get(array);
  return { shape: array.shape, data: chunk.data as Float32Array, attrs: array.attrs };
}

describe('Icechunk versions on the file system', () => {
  let root: string;
  let dir: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'stratus-icechunk-'));
    dir = join(root, 'repo');
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  it('publishes a version as the head of main, readable by zarrita with the values written', async () => {
    const { description, planes } = await sampleCube('2024-01-01', '2024-01-10');
    const writer = await openIcechunkVersion(dir, 'datasets/x/icechunk', 'v1', description);
    for (const plane of planes) await writer.sink.append(plane);
    const coverage = await writer.sink.finish();
    expect(coverage.temporal).toEqual({ start: '2024-01-01', end: '2024-01-10' });
    const published = await writer.publish();
    expect(published.path).toBe('datasets/x/icechunk');

    const repo = await openRepository(dir);
    expect(await repo.lookupBranch(MAIN_BRANCH)).toBe(published.snapshot);
    expect(await repo.listBranches()).toEqual([MAIN_BRANCH]);
    const read = await readValues(dir, published.snapshot!);
    expect(read.shape).toEqual([10, description.grid.lat.length, description.grid.lon.length]);
    const expected = new Float32Array(planes.length * planes[0]!.length);
    planes.forEach((plane, t) => expected.set(plane, t * plane.length));
    expect(Buffer.from(read.data.buffer).equals(Buffer.from(expected.buffer))).toBe(true);
    expect(read.attrs).toMatchObject({ units: '1', grid_mapping: 'spatial_ref' });
  });

  it('reads a published snapshot through the store contract: the group, a decoded chunk, undefined for no key', async () => {
    const { description, planes } = await sampleCube('2024-01-01', '2024-01-10');
    const snapshot = await (await openRepository(dir)).lookupBranch(MAIN_BRANCH);
    const store = await openVersionStore(dir, snapshot);
    const group = (await readZarrGroup(store))!;
    expect(group).toMatchObject({ zarrFormat: 3, consolidated: true });
    const value = group.arrays.value!;
    const [ny, nx] = [description.grid.lat.length, description.grid.lon.length];
    expect(value).toMatchObject({ shape: [10, ny, nx], chunks: [10, ny, nx], dimensions: ['time', 'lat', 'lon'] });
    const expected = new Float32Array(planes.length * planes[0]!.length);
    planes.forEach((plane, t) => expected.set(plane, t * plane.length));
    expect(await readChunk(store, value, [0, 0, 0])).toEqual(expected);
    // A v2 key, a directory of chunks, and a chunk past the array: none is a key of this snapshot.
    for (const key of ['.zmetadata', 'value/c', 'value/c/9/0/0']) expect(await store.get(key), key).toBeUndefined();
  });

  it('commits every block of time steps on the run branch, and main never shows an unpublished version', async () => {
    const repo = await openRepository(dir);
    const before = await repo.lookupBranch(MAIN_BRANCH);
    // 100 periods on this small grid make blocks of 100: use 300 to see several commits.
    const { description, planes } = await sampleCube('2023-01-01', '2023-10-27');
    const writer = await openIcechunkVersion(dir, 'datasets/x/icechunk', 'v2', description);
    for (const plane of planes) await writer.sink.append(plane);
    const branch = await repo.lookupBranch('run-v2');
    const ancestry = await repo.ancestry({ branch: 'run-v2' });
    expect(ancestry.map((s) => s.message).slice(0, 3)).toEqual([
      'Stratus version v2: 300 of 300 periods',
      expect.stringMatching(/^Stratus version v2: \d+ of 300 periods$/),
      expect.stringMatching(/^Stratus version v2: \d+ of 300 periods$/),
    ]);
    expect(branch).not.toBe(before);
    expect(await repo.lookupBranch(MAIN_BRANCH)).toBe(before);
    // The run dies here. The next version deletes its branch and starts from main.
    const next = await openIcechunkVersion(
      dir,
      'datasets/x/icechunk',
      'v3',
      (await sampleCube('2024-02-01', '2024-02-03')).description,
    );
    expect((await (await openRepository(dir)).listBranches()).sort()).toEqual([MAIN_BRANCH, 'run-v3']);
    await next.discard();
    expect(await (await openRepository(dir)).listBranches()).toEqual([MAIN_BRANCH]);
    expect(await (await openRepository(dir)).lookupBranch(MAIN_BRANCH)).toBe(before);
  });

  it('refuses to publish over a main that moved since the run began (compare-and-swap on the ref)', async () => {
    const small = await sampleCube('2024-03-01', '2024-03-02');
    const first = await openIcechunkVersion(dir, 'datasets/x/icechunk', 'v4', small.description);
    for (const plane of small.planes) await first.sink.append(plane);
    await first.sink.finish();
    // Another writer publishes in between: the repository is the arbiter, not the operator alone.
    const repo = await openRepository(dir);
    const session = await repo.writableSession(MAIN_BRANCH);
    await session.store.set(
      'zarr.json',
      Buffer.from(JSON.stringify({ zarr_format: 3, node_type: 'group', attributes: {} })),
    );
    const moved = await session.commit('someone else');
    await expect(first.publish()).rejects.toThrow();
    expect(await repo.lookupBranch(MAIN_BRANCH)).toBe(moved);
  });

  it('leaves no temp or lock files behind', async () => {
    const names = await readdir(dir, { recursive: true });
    expect(names.filter((n) => isTransientName(n))).toEqual([]);
    expect(names).toContain('repo');
  });

  it('writes only the time blocks the fetched periods touch, and holds the union', async () => {
    const dir = join(root, 'spliced');
    // Blocks of 50 periods: 2023-03-01..03 (periods 59 to 61) lie in block 1 of 6.
    const whole = await sampleCube('2023-01-01', '2023-10-27');
    const [ny, nx] = [whole.description.grid.lat.length, whole.description.grid.lon.length];
    const description = { ...whole.description, chunks: [50, ny, nx] as [number, number, number] };
    const first = await openIcechunkVersion(dir, 'datasets/x/icechunk', 'v1', description);
    for (const plane of whole.planes) await first.sink.append(plane);
    await first.sink.finish();
    const { snapshot: previous } = await first.publish();

    const rerun = whole.planes.slice(59, 62).map((plane) => plane.map((v) => v + 1000));
    const next = await openIcechunkVersion(dir, 'datasets/x/icechunk', 'v2', description, {
      snapshot: previous,
      splice: { offset: 0, from: 59, to: 62 },
    });
    for (const plane of rerun) await next.sink.append(plane);
    await next.sink.finish();
    const { snapshot } = await next.publish();

    const diff = await (await openRepository(dir)).diff({ fromSnapshotId: previous, toSnapshotId: snapshot! });
    // The coordinates and metadata are written anew; of the data, only block 1.
    const updated = diff.updatedChunks as Record<string, number[][]>;
    expect(Object.keys(updated)).toContain('/value');
    expect(new Set(updated['/value']!.map((index) => index[0]))).toEqual(new Set([1]));
    const { data } = await readValues(dir, snapshot!);
    const plane = ny * nx;
    whole.planes.forEach((values, t) =>
      expect(data.subarray(t * plane, (t + 1) * plane)).toEqual(t >= 59 && t < 62 ? rerun[t - 59] : values),
    );
  });
});

describe('Icechunk versions with multiscale levels', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'stratus-icechunk-levels-'));
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  it('holds the levels of a grid over 1024 cells a side in the published snapshot, readable through it', async () => {
    const side = 2048;
    const periods = periodRange('daily', '2024-01-01', '2024-01-01');
    const plane = Float32Array.from({ length: side * side }, (_, p) => (p % 97) + Math.floor(p / side) / 8);
    const description: RasterCubeDescription = {
      variable: 'value',
      periodType: 'daily',
      periods,
      grid: gridCovering([0, 0, 20.48, 20.48], 0.01),
      attributes: {},
    };
    const dir = join(root, 'repo');
    const writer = await openIcechunkVersion(dir, 'datasets/fine/icechunk', 'v1', description);
    await writer.sink.append(plane);
    await writer.sink.finish();
    const { snapshot } = await writer.publish();

    const store = await openVersionStore(dir, snapshot);
    const group = (await readZarrGroup(store))!;
    expect((group.attributes.multiscales as { layout: { asset: string }[] }).layout.map((l) => l.asset)).toEqual([
      'value',
      '1/value',
      '2/value',
      '3/value',
    ]);
    const levels = await openStoredLevels(store);
    expect(levels.map((level) => level.shape)).toEqual([
      [1, 1, 2048, 2048],
      [1, 1, 1024, 1024],
      [1, 1, 512, 512],
      [1, 1, 256, 256],
    ]);
    let expected: Float32Array = plane;
    for (let size = side; size > 256; size /= 2) expected = downsample(expected, 1, size, size);
    expect(await levels[3]!.source.readChunk([0, 0, 0, 0])).toEqual(expected);
    expect(levels[3]!.dimensions[2]!.labels[0]).toBeCloseTo(20.44, 9);
  }, 120_000);
});
