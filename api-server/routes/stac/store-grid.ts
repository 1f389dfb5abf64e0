import { readFile } from 'node:fs/promises';
import type { Dataset } from '../../../core/resources/dataset/schema.ts';
import { currentVersionOf } from '../../../core/resources/dataset/schema.ts';
import { resolveKey, storeFile } from '../../../core/stores/layout.ts';
import type { IcechunkSnapshots } from '../stores/icechunk-snapshots.ts';

/** What the catalogue says about a raster store, read from the store's own metadata. */
export interface StoreGrid {
  zarrFormat: 2 | 3;
  /** Shape of the data variable: time, lat, lon. */
  shape: number[];
  chunks: number[];
  dataType: string;
  /** Cell size in degrees, from the `spatial_ref` GeoTransform. */
  resolution: { x: number; y: number } | undefined;
}

type ReadKey = (key: string) => Promise<Uint8Array | undefined>;

async function json(read: ReadKey, key: string): Promise<Record<string, unknown> | undefined> {
  const bytes = await read(key);
  return bytes && (JSON.parse(Buffer.from(bytes).toString('utf8')) as Record<string, unknown>);
}

function resolutionOf(geoTransform: unknown): StoreGrid['resolution'] {
  if (typeof geoTransform !== 'string') return undefined;
  const [, dx, , , , dy] = geoTransform.split(' ').map(Number);
  return dx && dy ? { x: Math.abs(dx), y: Math.abs(dy) } : undefined;
}

async function readV2(read: ReadKey, variable: string): Promise<StoreGrid | undefined> {
  const array = await json(read, `${variable}/.zarray`);
  if (!array) return undefined;
  const gridMapping = await json(read, 'spatial_ref/.zattrs');
  return {
    zarrFormat: 2,
    shape: array.shape as number[],
    chunks: array.chunks as number[],
    dataType: String(array.dtype),
    resolution: resolutionOf(gridMapping?.GeoTransform),
  };
}

async function readV3(read: ReadKey, variable: string): Promise<StoreGrid | undefined> {
  const array = await json(read, `${variable}/zarr.json`);
  if (!array) return undefined;
  const gridMapping = await json(read, 'spatial_ref/zarr.json');
  const grid = array.chunk_grid as { configuration: { chunk_shape: number[] } };
  return {
    zarrFormat: 3,
    shape: array.shape as number[],
    chunks: grid.configuration.chunk_shape,
    dataType: String(array.data_type),
    resolution: resolutionOf((gridMapping?.attributes as Record<string, unknown> | undefined)?.GeoTransform),
  };
}

/**
 * The grid of a dataset's current version, or undefined while nothing is stored (or the format is not Zarr).
 * Icechunk versions are read through their snapshot, so the catalogue describes exactly what `/zarr/` serves.
 */
export async function readStoreGrid(
  dataset: Dataset,
  storageRoot: string,
  snapshots: IcechunkSnapshots,
): Promise<StoreGrid | undefined> {
  const version = currentVersionOf(dataset);
  if (!version || (dataset.spec.format !== 'zarr' && dataset.spec.format !== 'icechunk')) return undefined;
  const base = storeFile(storageRoot, version.path);
  const snapshot = version.snapshot;
  const read: ReadKey = snapshot
    ? async (key) => (await snapshots.get(base, snapshot, key))?.bytes
    : async (key) => {
        const path = resolveKey(base, key);
        return path === undefined ? undefined : readFile(path).catch(() => undefined);
      };
  const variable = dataset.spec.variable ?? 'value';
  return snapshot || dataset.spec.zarrVersion === 3 ? readV3(read, variable) : readV2(read, variable);
}
