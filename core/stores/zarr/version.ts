import { link, mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { directoryStore } from '../directory-store.ts';
import { partPeriods, partsChunkShape, RasterCubeWriter, type RasterCubeDescription } from '../raster-cube.ts';
import { publishStaged, stagedDir } from '../staged-version.ts';
import type { CubeSink, VersionParts } from '../store.ts';
import { appendStart, continueCube } from './append.ts';

/** Zarr directory versions (v2 or v3): a whole cube, an append to the previous version, or a cube written in parts. */

/** A sink writing the whole cube into `dir`; each block of periods goes to disk as it fills. */
export function zarrCubeSink(dir: string, zarrVersion: 2 | 3, description: RasterCubeDescription): Promise<CubeSink> {
  return RasterCubeWriter.create(dir, { ...description, zarrVersion });
}

/**
 * A Zarr append: complete time blocks of the previous version are hard-linked (never rewritten: the writer only
 * writes blocks after them, as new files), the partly filled last block is decoded and fed again, and the
 * coordinates and metadata are written anew. Readers of the previous version see its files unchanged.
 */
export async function zarrAppendSink(
  dir: string,
  previous: string,
  zarrVersion: 2 | 3,
  description: RasterCubeDescription,
): Promise<CubeSink> {
  const start = await appendStart(directoryStore(previous), zarrVersion, description.variable);
  const [, ny, nx] = start.stored.shape as [number, number, number];
  const [ct, cy, cx] = start.stored.chunks as [number, number, number];
  const [rows, cols] = [Math.ceil(ny / cy), Math.ceil(nx / cx)];
  for (let t = 0; t < start.firstPeriod / ct; t++)
    for (let j = 0; j < rows; j++)
      for (let i = 0; i < cols; i++) {
        const key = start.stored.chunkKey([t, j, i]).split('/');
        await mkdir(dirname(join(dir, ...key)), { recursive: true });
        await link(join(previous, ...key), join(dir, ...key));
      }
  return continueCube(dir, start, zarrVersion, description);
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
