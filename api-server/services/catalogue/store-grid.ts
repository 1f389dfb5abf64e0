import { readFile } from 'node:fs/promises';
import type { Dataset } from '../../../core/resources/dataset/schema.ts';
import { currentVersionOf } from '../../../core/resources/dataset/schema.ts';
import { resolveKey, storeFile } from '../../../core/stores/layout.ts';
import type { IcechunkSnapshots } from '../icechunk/icechunk-snapshots.ts';

/** What the catalogue says about a raster store, read from the store's own metadata. */
export interface StoreGrid {
  zarrFormat: 2 | 3;
  /** Shape of the data variable: time, lat, lon. */
  shape: number[];
  chunks: number[];
  dataType: string;
  /** Cell size in degrees, from the `spatial_ref` GeoTransform. */
  resolution: { x: number; y: number } | undefined;
  /** GDAL's six GeoTransform coefficients of the grid (origin, cell size, rotation), from `spatial_ref`. */
  geoTransform: number[] | undefined;
  /** Whether the store holds consolidated metadata (`.zmetadata` in v2, `consolidated_metadata` in v3). */
  consolidated: boolean;
}

type ReadKey = (key: string) => Promise<Uint8Array | undefined>;

async function json(read: ReadKey, key: string): Promise<Record<string, unknown> | undefined> {
  const bytes = await read(key);
  return bytes && (JSON.parse(Buffer.from(bytes).toString('utf8')) as Record<string, unknown>);
}

function geoTransformOf(attribute: unknown): number[] | undefined {
  if (typeof attribute !== 'string') return undefined;
  const coefficients = attribute.trim().split(/\s+/).map(Number);
  return coefficients.length === 6 && coefficients.every(Number.isFinite) ? coefficients : undefined;
}

/** The grid facts both Zarr formats share, from the data variable's shape and the grid mapping's GeoTransform. */
function gridOf(attribute: unknown): Pick<StoreGrid, 'resolution' | 'geoTransform'> {
  const geoTransform = geoTransformOf(attribute);
  const [, dx, , , , dy] = geoTransform ?? [];
  return { geoTransform, resolution: dx && dy ? { x: Math.abs(dx), y: Math.abs(dy) } : undefined };
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
    consolidated: (await read('.zmetadata')) !== undefined,
    ...gridOf(gridMapping?.GeoTransform),
  };
}

async function readV3(read: ReadKey, variable: string): Promise<StoreGrid | undefined> {
  const array = await json(read, `${variable}/zarr.json`);
  if (!array) return undefined;
  const gridMapping = await json(read, 'spatial_ref/zarr.json');
  const root = await json(read, 'zarr.json');
  const grid = array.chunk_grid as { configuration: { chunk_shape: number[] } };
  return {
    zarrFormat: 3,
    shape: array.shape as number[],
    chunks: grid.configuration.chunk_shape,
    dataType: String(array.data_type),
    consolidated: root?.consolidated_metadata !== undefined && root.consolidated_metadata !== null,
    ...gridOf((gridMapping?.attributes as Record<string, unknown> | undefined)?.GeoTransform),
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
