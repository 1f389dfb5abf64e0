import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatPeriod, periodRange, type PeriodType } from '../periods/index.ts';
import { gridCovering } from './raster-grid.ts';
import { openCubeSink } from './open.ts';
import { CommittedCubeError, readCommittedCube } from './committed-cube.ts';

const grid = gridCovering([-13.5, 6.9, -13.0, 7.2], 0.1);

async function writeCube(
  dir: string,
  format: { format: string; zarrVersion: number },
  type: PeriodType,
  range: [string, string],
) {
  const periods = periodRange(type, ...range);
  await mkdir(dir, { recursive: true });
  const sink = await openCubeSink(dir, format, {
    variable: 'value',
    periodType: type,
    periods,
    grid,
    attributes: { title: 'test' },
  });
  for (const _ of periods) await sink.append(new Float32Array(grid.lat.length * grid.lon.length).fill(1));
  await sink.finish();
}

describe('readCommittedCube', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'committed-cube-'));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it.each<[string, { format: string; zarrVersion: number }, PeriodType, [string, string]]>([
    ['Zarr v2 daily', { format: 'zarr', zarrVersion: 2 }, 'daily', ['2024-12-30', '2025-01-02']],
    ['Zarr v3 hourly', { format: 'zarr', zarrVersion: 3 }, 'hourly', ['2024-12-31T22', '2025-01-01T01']],
    ['Zarr v2 weekly across ISO week 53', { format: 'zarr', zarrVersion: 2 }, 'weekly', ['2020-W52', '2021-W01']],
    ['NetCDF-4 monthly', { format: 'netcdf', zarrVersion: 2 }, 'monthly', ['2024-11', '2025-02']],
    ['Zarr v3 yearly', { format: 'zarr', zarrVersion: 3 }, 'yearly', ['2020', '2022']],
  ])('reads the periods and grid a %s store holds', async (name, format, type, range) => {
    const dir = join(root, name.replace(/\W+/g, '-'));
    await writeCube(dir, format, type, range);
    const cube = await readCommittedCube(dir, format.format, type);
    expect(cube.periods).toEqual(periodRange(type, ...range).map(formatPeriod));
    expect([...cube.lat]).toEqual([...grid.lat]);
    expect([...cube.lon]).toEqual([...grid.lon]);
  });

  it('refuses a store whose time axis has units it does not know', async () => {
    const dir = join(root, 'odd-units');
    await writeCube(dir, { format: 'zarr', zarrVersion: 2 }, 'daily', ['2024-01-01', '2024-01-02']);
    const zmetadata = join(dir, '.zmetadata');
    const parsed = JSON.parse(await readFile(zmetadata, 'utf8'));
    parsed.metadata['time/.zattrs'].units = 'seconds since 2000-01-01';
    await writeFile(zmetadata, JSON.stringify(parsed));
    await expect(readCommittedCube(dir, 'zarr', 'daily')).rejects.toThrow(CommittedCubeError);
  });
});
