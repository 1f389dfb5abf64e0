import { link, mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { directoryStore } from '../directory-store.ts';
import { partPeriods, partsChunkShape, RasterCubeWriter, type RasterCubeDescription } from '../raster-cube.ts';
import { publishStaged, stagedDir } from '../staged-version.ts';
import type { CubeSink, Splice, VersionParts } from '../store.ts';
import { spliceCube } from './append.ts';

/** Zarr directory versions (v2 or v3): a whole cube, a splice of the previous version and fetched periods, or a cube written in parts. */

/** A sink writing the whole cube into `dir`; each block of periods goes to disk as it fills. */
export function zarrCubeSink(dir: string, zarrVersion: 2 | 3, description: RasterCubeDescription): Promise<CubeSink> {
  return RasterCubeWriter.create(dir, { ...description, zarrVersion });
}

/**
 * A Zarr version spliced from the previous one (an append, or fetched periods inside or overlapping it): the time
 * blocks it keeps are hard-linked (never rewritten: the writer only writes the blocks the fetched periods touch, as
 * new files), the touched blocks are decoded, given the fetched periods and encoded again, and the coordinates and
 * metadata are written anew. Readers of the previous version see its files unchanged.
 */
export async function zarrSpliceSink(
  dir: string,
  previous: string,
  zarrVersion: 2 | 3,
  description: RasterCubeDescription,
  splice?: Splice,
): Promise<CubeSink> {
  const sink = await spliceCube(dir, directoryStore(previous), zarrVersion, description, splice);
  for (const stored of [sink.stored, ...sink.storedLevels]) {
    const [, ny, nx] = stored.shape as [number, number, number];
    const [, cy, cx] = stored.chunks as [number, number, number];
    const [rows, cols] = [Math.ceil(ny / cy), Math.ceil(nx / cx)];
    for (const t of sink.keptBlocks)
      for (let j = 0; j < rows; j++)
        for (let i = 0; i < cols; i++) {
          const key = stored.chunkKey([t, j, i]).split('/');
          await mkdir(dirname(join(dir, ...key)), { recursive: true });
          await link(join(previous, ...key), join(dir, ...key));
        }
  }
  return sink;
}

/**
 * A Zarr version written whole by `count` workers at once: the parts write disjoint chunk files of one staging
 * directory, and whichever finishes the last part completes the metadata and publishes.
 */
export function zarrVersionParts(
  storageRoot: string,
  datasetId: string,
  versionId: string,
  zarrVersion: 2 | 3,
  count: number,
  description: RasterCubeDescription,
): VersionParts {
  const { grid, periods } = description;
  const chunks = partsChunkShape(periods.length, grid.lat.length, grid.lon.length, count);
  const whole: RasterCubeDescription = { ...description, chunks, zarrVersion };
  const staging = stagedDir(storageRoot, datasetId, versionId);
  const periodsOf = (index: number) => partPeriods(periods.length, chunks[0], index, count);
  return {
    periodsOf,
    openPart: (index) => RasterCubeWriter.part(staging, whole, periodsOf(index)),
    complete: async () => {
      const coverage = await RasterCubeWriter.completeParts(staging, whole);
      return { ...(await publishStaged(storageRoot, datasetId, versionId)), coverage };
    },
  };
}
