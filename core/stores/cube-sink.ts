import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { openAppendSink } from './cube-append.ts';
import { publishDirectory, removeTree, syncTree } from '../files/durable.ts';
import { openIcechunkVersion } from './icechunk/version-writer.ts';
import { icechunkDir, icechunkPath, NETCDF_FILE, stagingDir, versionDir, versionPath } from './layout.ts';
import { writeNetcdfCube } from './netcdf.ts';
import {
  cubeCoverage,
  partPeriods,
  partsChunkShape,
  RasterCubeWriter,
  type Coverage,
  type RasterCubeDescription,
} from './raster-cube.ts';

/** Where an ingestion puts periods, whatever the stored format: append in order, then finish. */
export interface CubeSink {
  append(values: Float32Array): Promise<void>;
  finish(): Promise<Coverage>;
}

/** Where a published version lives: its store path, and for Icechunk the snapshot that holds it. */
export interface PublishedVersion {
  path: string;
  snapshot?: string;
}

/**
 * A new version being written. Nothing of it is visible to readers until `publish`, which makes the finished
 * version readable in one atomic step; `discard` drops an unfinished one.
 */
export interface VersionWriter {
  sink: CubeSink;
  publish(): Promise<PublishedVersion>;
  discard(): Promise<void>;
}

/** The committed version a sync continues: its directory, and for Icechunk the snapshot in that repository. */
export interface PreviousVersion {
  dir: string;
  snapshot?: string;
}

export interface StoreFormat {
  format: string;
  zarrVersion: number;
}

/** Why a format cannot be written here, or undefined when it can. */
export function unsupportedFormat({ format, zarrVersion }: StoreFormat): string | undefined {
  if (format === 'zarr' && (zarrVersion === 2 || zarrVersion === 3)) return undefined;
  if (format === 'netcdf' || format === 'icechunk') return undefined;
  const name = format === 'zarr' ? `Zarr v${zarrVersion}` : format;
  return `raster datasets are stored as Zarr v2 or v3, Icechunk or NetCDF-4; ${name} is not a raster format`;
}

/**
 * A sink writing a Zarr or NetCDF-4 cube into a directory. Zarr streams each block of periods to disk as it
 * fills; NetCDF-4 is written as one file at the end (h5wasm writes synchronously), so its planes stay in memory
 * until then.
 */
export async function openCubeSink(
  dir: string,
  format: StoreFormat,
  description: RasterCubeDescription,
): Promise<CubeSink> {
  if (format.format === 'zarr')
    return RasterCubeWriter.create(dir, { ...description, zarrVersion: format.zarrVersion === 3 ? 3 : 2 });
  const planes: Float32Array[] = [];
  return {
    append: async (values: Float32Array) => void planes.push(values),
    finish: async () => {
      await writeNetcdfCube(join(dir, NETCDF_FILE), description, planes);
      return cubeCoverage(description);
    },
  };
}

/**
 * Opens a new version of a dataset. Zarr and NetCDF versions are directories written under `staging/` and
 * published by one rename into `versions/`; Icechunk versions are snapshots of the dataset's repository. A sync
 * names the version it continues (`previous`): its periods come first in `description`, and the sink holds them
 * already, so only the new periods are appended.
 */
export async function openVersionWriter(
  storageRoot: string,
  datasetId: string,
  versionId: string,
  format: StoreFormat,
  previous: PreviousVersion | undefined,
  description: RasterCubeDescription,
): Promise<VersionWriter> {
  const why = unsupportedFormat(format);
  if (why) throw new Error(why);
  if (format.format === 'icechunk')
    return openIcechunkVersion(
      icechunkDir(storageRoot, datasetId),
      icechunkPath(datasetId),
      versionId,
      description,
      previous?.snapshot,
    );
  const staging = join(stagingDir(storageRoot, datasetId), versionId);
  await mkdir(staging, { recursive: true });
  return {
    sink: previous
      ? await openAppendSink(staging, previous.dir, format, description)
      : await openCubeSink(staging, format, description),
    publish: async () => {
      await syncTree(staging);
      await publishDirectory(staging, versionDir(storageRoot, datasetId, versionId));
      return { path: versionPath(datasetId, versionId) };
    },
    discard: () => removeTree(staging),
  };
}

/**
 * A version written by several workers at once, each one part of its periods (a split ingestion). Only Zarr
 * versions written whole can be: the parts write disjoint chunk files of one staging directory, and whichever
 * finishes the last part completes the metadata and publishes.
 */
export interface VersionParts {
  /** The periods [from, to) of part `index`. */
  periodsOf(index: number): { from: number; to: number };
  /** The sink of part `index`: it takes exactly that part's periods, in order. */
  openPart(index: number): CubeSink;
  /** Writes the metadata of the version whose every part finished, and publishes it. */
  complete(): Promise<PublishedVersion & { coverage: Coverage }>;
}

/** Why a version in this format cannot be written in parts, or undefined when it can. */
export function unsplittableFormat({ format }: StoreFormat): string | undefined {
  return format === 'zarr'
    ? undefined
    : `a ${format} version is written by one worker (only Zarr versions are written in parts)`;
}

export function versionParts(
  storageRoot: string,
  datasetId: string,
  versionId: string,
  format: StoreFormat,
  count: number,
  description: RasterCubeDescription,
): VersionParts {
  const why = unsupportedFormat(format) ?? unsplittableFormat(format);
  if (why) throw new Error(why);
  const { grid, periods } = description;
  const chunks = partsChunkShape(periods.length, grid.lat.length, grid.lon.length, count);
  const whole: RasterCubeDescription = { ...description, chunks, zarrVersion: format.zarrVersion === 3 ? 3 : 2 };
  const staging = join(stagingDir(storageRoot, datasetId), versionId);
  const periodsOf = (index: number) => partPeriods(periods.length, chunks[0], index, count);
  return {
    periodsOf,
    openPart: (index) => RasterCubeWriter.part(staging, whole, periodsOf(index)),
    complete: async () => {
      const coverage = await RasterCubeWriter.completeParts(staging, whole);
      await syncTree(staging);
      await publishDirectory(staging, versionDir(storageRoot, datasetId, versionId));
      return { path: versionPath(datasetId, versionId), coverage };
    },
  };
}
