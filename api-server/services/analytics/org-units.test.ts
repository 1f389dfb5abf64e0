import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeGeoParquet } from '../../../core/features/geoparquet.ts';
import { readGeoParquetDocument } from '../../../core/features/geoparquet-read.ts';
import type { PropertyValue } from '../../../core/features/geometry.ts';
import { readOrgUnits } from './org-units.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'analytics-org-units-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const square = (x: number) => ({
  type: 'Polygon' as const,
  coordinates: [
    [
      [x, 0],
      [x + 1, 0],
      [x + 1, 1],
      [x, 0],
    ],
  ],
});

describe('readOrgUnits', () => {
  it('reads the names, levels and parents the features carry, as the whole document read has them', async () => {
    const path = join(dir, 'units.parquet');
    // A country's regions and districts, one without a name, with a property the org units do not read.
    const properties: Record<string, PropertyValue>[] = [
      { code: 'SL', name: 'Sierra Leone', level: 1, population: 8_000_000 },
      { code: 'R1', name: 'North', level: 2, parent_id: 'SL', population: 2_500_000 },
      { code: 'D1', name: 'Hills', level: 3, parent_id: 'R1', population: 400_000 },
      { code: 'D2', name: '', level: 3, parent_id: 'R1' },
      { code: 7, name: 'Numbered', level: 3, parent_id: 'R1' },
    ];
    await writeGeoParquet(
      path,
      properties.map((p, i) => ({ geometry: square(i), properties: p })),
    );
    const { byId, hasLevels } = await readOrgUnits(path, 'code');

    const { document } = await readGeoParquetDocument(await readFile(path), path);
    const features = (document as { features: { properties: Record<string, unknown> }[] }).features;
    const expected = features.map(({ properties: p }) => ({
      id: String(p.code),
      name: p.name === '' ? String(p.code) : p.name,
      level: p.level,
      ...(p.parent_id !== null && { parent: p.parent_id }),
    }));
    expect([...byId.values()]).toEqual(expected);
    expect(byId.get('D2')!.name).toBe('D2');
    expect(byId.get('7')).toEqual({ id: '7', name: 'Numbered', level: 3, parent: 'R1' });
    expect(hasLevels).toBe(true);
  });

  it('has no org unit when the features lack the id property, and no levels when they carry none', async () => {
    const path = join(dir, 'plain.parquet');
    await writeGeoParquet(path, [{ geometry: square(0), properties: { code: 'A', name: 'Alpha' } }]);
    expect(await readOrgUnits(path, 'code')).toEqual({
      byId: new Map([['A', { id: 'A', name: 'Alpha' }]]),
      hasLevels: false,
    });
    expect((await readOrgUnits(path, 'fid')).byId.size).toBe(0);
  });
});
